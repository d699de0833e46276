//! HTTP: the routes, the ChatKit request handlers, the SSE writer and the request log.
//!
//! Every request first passes `guard::check` (Host, Origin, identity); handlers see the
//! `User` it found and reach the store only through that user's view, on blocking threads.

use crate::agent;
use crate::agent_ui;
use crate::auth::{Auth, User};
use crate::events;
use crate::guard::{self, Policy};
use crate::labels;
use crate::runs::{self, Outcome, Run, RunHandle};
use crate::scripts::{self, Script, Step};
use crate::store::{self, now_iso, AttachmentRecord, Store, UserStore};
use crate::upload;
use crate::views;
use axum::body::{Body, Bytes};
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, Extension, Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use chat_shell_core::protocol::chatkit::{
    Action, Attachment, AttachmentKind, ChatRequest, ClientToolStatus, ItemId, ItemKind,
    ItemUpdate, ListOrder, Page, RequestBody, StreamEvent, SyncCustomActionResponse, Thread,
    ThreadEvent, ThreadId, ThreadItem, UploadDescriptor, UserMessage, UserMessageInput,
    ACP_PERMISSION_ACTION,
};
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, oneshot, watch};
// The writer's clock is tokio's, so tests can pause time and see keepalives.
use tokio::time::Instant as TokioInstant;
use tower_http::services::ServeDir;

/// Pages hold this many items or threads unless the request says otherwise (the SDK's).
const DEFAULT_PAGE_SIZE: usize = 20;
/// A larger `limit` is refused (400).
pub const MAX_PAGE_SIZE: u32 = 1000;
/// Longest thread title accepted by `threads.update`, in characters.
pub const MAX_TITLE_CHARS: usize = 256;
/// Longest attachment name accepted by `attachments.create`, in characters.
pub const MAX_NAME_CHARS: usize = 255;
/// Longest declared mime type (RFC 6838 allows 127 characters per part; this is the whole).
pub const MAX_MIME_CHARS: usize = 255;
/// A stream silent for this long gets a `: keepalive` comment (proxies drop idle ones).
const KEEPALIVE: Duration = Duration::from_secs(10);
/// Partial items are saved at most this often while deltas stream in.
const FLUSH_EVERY: Duration = Duration::from_millis(250);

/// What the command line decides about serving.
pub struct Settings {
    pub pace: Duration,
    /// `host:port` actually bound, for URLs when a request has no `Host` header.
    pub authority: String,
    /// Hosts and origins requests may come from.
    pub policy: Policy,
    /// Bearer tokens accepted as identities (`--token`, `CHAT_SHELL_RUNTIME_TOKENS`).
    pub tokens: Vec<String>,
    /// The largest attachment, in bytes (`--max-upload-mb`).
    pub max_upload: usize,
    /// The token tools send to `POST /callback` (`--callback-token`); `None`: it is off.
    pub callback_token: Option<String>,
    /// How long a thread channel stays silent before a `: keepalive` comment.
    pub channel_keepalive: Duration,
    /// Where the `edit` scenario keeps its scratch folders (one per thread).
    pub scratch_root: PathBuf,
    /// What one identity may hold open: channels, runs, an abandoned run's life.
    pub limits: runs::Limits,
}

/// What every handler shares.
pub struct AppState {
    pub store: Arc<Store>,
    pub pace: Duration,
    /// `host:port` actually bound, for URLs when a request has no `Host` header.
    pub authority: String,
    pub policy: Policy,
    pub auth: Auth,
    pub max_upload: usize,
    /// The token tools send to `POST /callback`; `None`: it is off.
    pub callback_token: Option<String>,
    /// How long a thread channel stays silent before a `: keepalive` comment.
    pub channel_keepalive: Duration,
    /// Where the `edit` scenario keeps its scratch folders (one per thread).
    pub scratch_root: PathBuf,
    /// The open thread channels (`threads.subscribe`).
    pub(crate) views: views::Hub,
    /// The answers under way, by thread (see `runs`).
    pub(crate) runs: runs::Runs,
    /// The live `/agent-ui` runs, which take queued and steering turns.
    pub(crate) live: agent_ui::LiveRuns,
    /// Some threads have no owner yet: the first identity to make a request gets them.
    pub unclaimed: AtomicBool,
    /// How many times each user message has been answered (the `error` scenario fails
    /// the first time only).
    attempts: Mutex<HashMap<String, u32>>,
    /// Runs waiting for the answer to a permission request, by (user, tool call item).
    permission_waits: Mutex<HashMap<(String, ItemId), Waiter>>,
    pub(crate) shutdown: watch::Receiver<bool>,
}

/// A run waiting for a permission decision (see `Step::AwaitPermission`).
struct Waiter {
    /// Takes the decided item.
    decided: oneshot::Sender<Box<ThreadItem>>,
    /// The waiting run, to tell whether it will use the answer (weak: the registry must
    /// not keep it).
    run: Weak<Run>,
}

impl AppState {
    /// `unclaimed`: whether the store holds threads without an owner.
    pub fn new(
        store: Arc<Store>,
        settings: Settings,
        unclaimed: bool,
        shutdown: watch::Receiver<bool>,
    ) -> Self {
        AppState {
            auth: Auth::new(*store.secret(), &settings.tokens),
            store,
            pace: settings.pace,
            authority: settings.authority,
            policy: settings.policy,
            max_upload: settings.max_upload,
            callback_token: settings.callback_token,
            channel_keepalive: settings.channel_keepalive,
            scratch_root: settings.scratch_root,
            views: views::Hub::default(),
            runs: runs::Runs::new(settings.limits),
            live: agent_ui::LiveRuns::default(),
            unclaimed: AtomicBool::new(unclaimed),
            attempts: Mutex::new(HashMap::new()),
            permission_waits: Mutex::new(HashMap::new()),
            shutdown,
        }
    }

    /// Runs `f` on `user`'s view of the store on a blocking thread (SQLite never holds up
    /// the async workers). A failure is logged and answered with a bare 500.
    pub async fn db<T: Send + 'static>(
        &self,
        user: &User,
        f: impl FnOnce(&UserStore<'_>) -> store::Result<T> + Send + 'static,
    ) -> Result<T, Response> {
        blocking(self.store.clone(), user.clone(), f)
            .await
            .map_err(internal)
    }

    fn waits(&self) -> std::sync::MutexGuard<'_, HashMap<(String, ItemId), Waiter>> {
        self.permission_waits
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    /// Hands `decided` to the run of `user` waiting for it, if there is one and it is
    /// neither stopping nor over; else gives it back.
    fn hand_to_waiter(&self, user: &User, decided: Box<ThreadItem>) -> Result<(), Box<ThreadItem>> {
        let key = (user.0.clone(), decided.id.clone());
        let Some(waiter) = self.waits().remove(&key) else {
            return Err(decided);
        };
        let listening = waiter.run.upgrade().is_some_and(|run| run.is_live());
        if !listening {
            return Err(decided);
        }
        waiter.decided.send(decided)
    }

    fn next_attempt(&self, user_message: &ItemId) -> u32 {
        let mut attempts = self.attempts.lock().unwrap_or_else(|e| e.into_inner());
        let n = attempts.entry(user_message.0.clone()).or_insert(0);
        *n += 1;
        *n
    }
}

/// `f` on `user`'s view of `store`, on a blocking thread; the error is for the log.
pub async fn blocking<T: Send + 'static>(
    store: Arc<Store>,
    user: User,
    f: impl FnOnce(&UserStore<'_>) -> store::Result<T> + Send + 'static,
) -> Result<T, String> {
    match tokio::task::spawn_blocking(move || f(&store.user(&user.0))).await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(e)) => Err(e.to_string()),
        Err(e) => Err(e.to_string()),
    }
}

pub fn router(state: Arc<AppState>, dist: &Path) -> Router {
    // Multipart uploads are read through axum's extractor, which stops at this limit.
    let upload_limit = DefaultBodyLimit::max(state.max_upload + upload::MULTIPART_OVERHEAD);
    Router::new()
        .route("/chatkit", post(chatkit))
        .route(
            "/events",
            post(events::events).layer(DefaultBodyLimit::max(events::MAX_BODY)),
        )
        .route(
            "/agent-ui",
            post(agent_ui::agent_ui).layer(DefaultBodyLimit::max(events::MAX_BODY)),
        )
        .route(
            "/upload/{id}",
            post(upload::upload).put(upload::upload).layer(upload_limit),
        )
        .route("/preview/{id}", get(upload::preview))
        .route(
            "/callback",
            post(views::callback).layer(DefaultBodyLimit::max(views::MAX_CALLBACK_BODY)),
        )
        .fallback_service(ServeDir::new(dist))
        .layer(middleware::from_fn_with_state(state.clone(), guard::check))
        .layer(middleware::map_response(json_errors))
        .layer(middleware::from_fn(log_requests))
        .with_state(state)
}

/// Marks a response whose request the `/chatkit`, `/events` or `/agent-ui` handler logged
/// itself.
#[derive(Clone, Copy)]
pub(crate) struct Logged;

/// One line per request; `/chatkit` logs its request type itself, unless it was refused
/// before reaching the handler.
async fn log_requests(req: Request, next: Next) -> Response {
    let path = req.uri().path().to_owned();
    let method = req.method().clone();
    let started = Instant::now();
    let response = next.run(req).await;
    let status = response.status().as_u16();
    if response.extensions().get::<Logged>().is_some() {
        return response;
    }
    if path == "/chatkit" || path.starts_with("/upload/") || path.starts_with("/preview/") {
        println!(
            "{method} {path} {status} {}ms",
            started.elapsed().as_millis()
        );
    } else {
        println!("{method} {path} {status}");
    }
    response
}

/// Every error the runtime answers: `{"error": message, "code": code}` (`error` stays a
/// string: clients show it).
pub fn json_error(status: StatusCode, code: &str, message: &str) -> Response {
    (status, Json(json!({ "error": message, "code": code }))).into_response()
}

/// The `code` of an error whose status says it all: its reason in snake case
/// (`payload_too_large`, `method_not_allowed`), `internal` for any failure of ours.
pub fn status_code(status: StatusCode) -> String {
    if status.is_server_error() {
        return "internal".into();
    }
    status
        .canonical_reason()
        .map(|r| r.to_ascii_lowercase().replace([' ', '-'], "_"))
        .unwrap_or_else(|| "error".into())
}

/// An error answer with the code of its status.
pub fn status_error(status: StatusCode, message: &str) -> Response {
    json_error(status, &status_code(status), message)
}

/// Errors that axum or tower-http answer by themselves (405 for a wrong method, 404 for a
/// missing file, an extractor's plain-text refusal) get the JSON shape of all the others,
/// keeping their headers (`Allow`, …) and any message.
async fn json_errors(response: Response) -> Response {
    let status = response.status();
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| upload::mime_essence(v) == "application/json");
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return response;
    }
    let (parts, body) = response.into_parts();
    // These bodies are a line of text at most; anything longer is not a message.
    let text = axum::body::to_bytes(body, 4096)
        .await
        .ok()
        .and_then(|b| String::from_utf8(b.to_vec()).ok())
        .map(|t| t.trim().to_owned())
        .filter(|t| !t.is_empty());
    let message = text.unwrap_or_else(|| {
        status
            .canonical_reason()
            .unwrap_or("error")
            .to_ascii_lowercase()
    });
    let mut answer = status_error(status, &message);
    for (name, value) in &parts.headers {
        if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
            answer.headers_mut().append(name, value.clone());
        }
    }
    answer.extensions_mut().extend(parts.extensions);
    answer
}

/// 400 with `message`.
pub fn bad_request(message: &str) -> Response {
    json_error(StatusCode::BAD_REQUEST, "bad_request", message)
}

/// 404 for something that does not exist or belongs to someone else (the same answer).
pub fn not_found(message: &str) -> Response {
    json_error(StatusCode::NOT_FOUND, "not_found", message)
}

/// 408: the request body stopped arriving (see `connections`).
pub fn body_timeout() -> Response {
    status_error(
        StatusCode::REQUEST_TIMEOUT,
        "the request body stopped arriving",
    )
}

/// A failure of ours: the details go to the log, never to the client.
pub fn internal(e: impl std::fmt::Display) -> Response {
    eprintln!("chat-shell-runtime: internal error: {e}");
    json_error(
        StatusCode::INTERNAL_SERVER_ERROR,
        "internal",
        "internal error (details in the runtime's log)",
    )
}

/// `http://host:port` as the client reached us, for upload and preview URLs.
pub fn base_url(state: &AppState, headers: &HeaderMap) -> String {
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .filter(|h| {
            !h.is_empty()
                && h.chars()
                    .all(|c| c.is_ascii_alphanumeric() || ".-:[]".contains(c))
        })
        .unwrap_or(&state.authority);
    format!("http://{host}")
}

/// The wire form of a stored attachment; `with_upload` adds where to send the bytes (the
/// answer to `attachments.create`): both the SDK 1.6 descriptor and the fork's `upload_url`.
pub fn attachment_object(record: &AttachmentRecord, base: &str, with_upload: bool) -> Attachment {
    let is_image = record.mime_type.starts_with("image/");
    let upload_url = format!("{base}/upload/{}", record.id);
    Attachment {
        id: record.id.as_str().into(),
        name: record.name.clone(),
        mime_type: record.mime_type.clone(),
        kind: if is_image {
            AttachmentKind::Image
        } else {
            AttachmentKind::File
        },
        preview_url: is_image.then(|| format!("{base}/preview/{}", record.id)),
        upload_url: with_upload.then(|| upload_url.clone()),
        upload_descriptor: with_upload.then(|| UploadDescriptor {
            url: upload_url.clone(),
            method: "POST".into(),
            headers: serde_json::Map::new(),
        }),
        thread_id: record.thread_id.as_deref().map(ThreadId::from),
    }
}

/// Threads always go out with an `items` page (empty outside `threads.get_by_id`).
fn with_items(mut thread: Thread, items: Page<ThreadItem>) -> Thread {
    thread.items = Some(items);
    thread
}

/// Print one line for a POST to `path` (`kind`: what it asked, `-` when unknown) and mark
/// the response so the access log does not print it again.
pub(crate) fn logged(path: &str, kind: &str, started: Instant, mut response: Response) -> Response {
    println!(
        "POST {path} {kind} {} {}ms",
        response.status().as_u16(),
        started.elapsed().as_millis()
    );
    response.extensions_mut().insert(Logged);
    response
}

/// The body of a POST to `path`, which takes only JSON: a form or `text/plain` POST is
/// what a cross-site page can send without asking first (415), and a body over the limit
/// or unreadable is refused with its status.
// The refusal is the response itself, built once per request: boxing it saves nothing.
#[allow(clippy::result_large_err)]
pub(crate) fn json_body(
    path: &str,
    headers: &HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Bytes, Response> {
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    if upload::mime_essence(content_type) != "application/json" {
        return Err(json_error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
            &format!("POST {path} takes Content-Type: application/json"),
        ));
    }
    body.map_err(|e| {
        if crate::connections::body_timed_out(&e) {
            body_timeout()
        } else {
            status_error(e.status(), &e.body_text())
        }
    })
}

async fn chatkit(
    State(state): State<Arc<AppState>>,
    Extension(user): Extension<User>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let started = Instant::now();
    let log = |kind: &str, response: Response| {
        let mut response = logged("/chatkit", kind, started, response);
        // Says this server has the thread channel (`threads.subscribe`): clients open it
        // only then, so a server without it is never asked.
        response.headers_mut().insert(
            "x-chat-shell-channel",
            axum::http::HeaderValue::from_static("1"),
        );
        response
    };
    let body = match json_body("/chatkit", &headers, body) {
        Ok(body) => body,
        Err(refused) => return log("-", refused),
    };
    let raw = serde_json::from_slice::<Value>(&body);
    // The live channel of a thread and the cancel of its run: extensions the protocol's
    // request types do not know.
    if let Ok(request) = &raw {
        match request.get("type").and_then(Value::as_str) {
            Some("threads.subscribe") => {
                let response = views::subscribe(&state, user, request).await;
                return log("threads.subscribe", response);
            }
            Some("threads.cancel_run") => {
                let response = runs::cancel(&state, user, request).await;
                return log("threads.cancel_run", response);
            }
            _ => {}
        }
    }
    let parsed = raw.and_then(serde_json::from_value::<ChatRequest>);
    let request = match parsed {
        Ok(r) => r,
        Err(e) => {
            // Name the bad request in the log as far as it can be read.
            let kind = serde_json::from_slice::<Value>(&body)
                .ok()
                .and_then(|v| v.get("type").and_then(Value::as_str).map(log_safe))
                .unwrap_or_else(|| "-".to_owned());
            return log(&kind, bad_request(&format!("invalid request: {e}")));
        }
    };
    let kind = request.body.type_name();
    if let Err(message) = check_bounds(&request.body, state.max_upload) {
        return log(kind, bad_request(&message));
    }
    let base = base_url(&state, &headers);
    let response = if request.body.is_streaming() {
        stream(&state, user, base, request.body).await
    } else {
        json_request(&state, user, base, request.body).await
    };
    log(kind, response)
}

/// Refuses what no honest client sends: huge pages, titles and attachment declarations.
fn check_bounds(body: &RequestBody, max_upload: usize) -> Result<(), String> {
    match body {
        RequestBody::ListThreads { limit, .. } | RequestBody::ListItems { limit, .. }
            if limit.is_some_and(|n| n > MAX_PAGE_SIZE) =>
        {
            return Err(format!("limit must be at most {MAX_PAGE_SIZE}"));
        }
        RequestBody::UpdateThread { title, .. }
            if title.chars().count() > MAX_TITLE_CHARS || labels::has_forbidden(title) =>
        {
            return Err(format!(
                "a title has at most {MAX_TITLE_CHARS} characters, none of them control \
                 characters or bidirectional overrides"
            ));
        }
        RequestBody::CreateAttachment {
            name,
            size,
            mime_type,
        } => {
            let chars = name.chars().count();
            if chars == 0 || chars > MAX_NAME_CHARS || labels::has_forbidden(name) {
                return Err(format!(
                    "an attachment name has 1 to {MAX_NAME_CHARS} characters, none of them \
                     control characters or bidirectional overrides"
                ));
            }
            if !upload::valid_mime_declaration(mime_type) {
                return Err(format!(
                    "mime_type must be empty or like `type/subtype`, at most {MAX_MIME_CHARS} characters"
                ));
            }
            if *size > max_upload as u64 {
                return Err(format!(
                    "size is over the {} limit",
                    upload::describe_size(max_upload)
                ));
            }
        }
        _ => {}
    }
    Ok(())
}

fn log_safe(s: &str) -> String {
    s.chars()
        .take(60)
        .map(|c| {
            if c.is_whitespace() || c.is_control() {
                '_'
            } else {
                c
            }
        })
        .collect()
}

// --- JSON requests ----------------------------------------------------------------------

async fn json_request(
    state: &Arc<AppState>,
    user: User,
    base: String,
    body: RequestBody,
) -> Response {
    let state = state.clone();
    let answered =
        tokio::task::spawn_blocking(move || answer_json(&state, &user, &base, body)).await;
    match answered {
        Ok(Ok(response)) => response,
        Ok(Err(e)) => internal(e),
        Err(e) => internal(e),
    }
}

fn unknown_thread(id: &ThreadId) -> Response {
    not_found(&format!("unknown thread {id}"))
}

fn page_size(limit: Option<u32>) -> usize {
    match limit {
        Some(n) if n > 0 => n as usize,
        _ => DEFAULT_PAGE_SIZE,
    }
}

/// Runs on a blocking thread.
fn answer_json(
    state: &AppState,
    user: &User,
    base: &str,
    body: RequestBody,
) -> store::Result<Response> {
    let store = &state.store.user(&user.0);
    let ok = |value: Value| Json(value).into_response();
    Ok(match body {
        RequestBody::GetThread { thread_id } => match store.thread(&thread_id)? {
            // The SDK's hydration: the first page of items, oldest first.
            Some(thread) => {
                let items =
                    store.list_items(&thread_id, DEFAULT_PAGE_SIZE, None, ListOrder::Asc)?;
                Json(with_items(thread, items)).into_response()
            }
            None => unknown_thread(&thread_id),
        },
        RequestBody::ListThreads {
            limit,
            after,
            order,
        } => {
            let page = store.list_threads(
                page_size(limit),
                after.as_deref(),
                order.unwrap_or(ListOrder::Desc),
            )?;
            let data = page
                .data
                .into_iter()
                .map(|t| with_items(t, Page::default()))
                .collect();
            Json(Page {
                data,
                has_more: page.has_more,
                after: page.after,
            })
            .into_response()
        }
        RequestBody::ListItems {
            thread_id,
            limit,
            after,
            order,
        } => {
            if store.thread(&thread_id)?.is_none() {
                return Ok(unknown_thread(&thread_id));
            }
            let order = order.unwrap_or(ListOrder::Desc);
            Json(store.list_items(&thread_id, page_size(limit), after.as_deref(), order)?)
                .into_response()
        }
        RequestBody::Feedback {
            thread_id,
            item_ids,
            kind,
        } => {
            if store.thread(&thread_id)?.is_none() {
                return Ok(unknown_thread(&thread_id));
            }
            store.add_feedback(&thread_id, &item_ids, kind)?;
            ok(json!({}))
        }
        RequestBody::CreateAttachment {
            name,
            size,
            mime_type,
        } => {
            let record = store.create_attachment(&name, &mime_type, size)?;
            Json(attachment_object(&record, base, true)).into_response()
        }
        RequestBody::DeleteAttachment { attachment_id } => {
            if store.delete_attachment(attachment_id.as_str())? {
                ok(json!({}))
            } else {
                not_found(&format!("unknown attachment {attachment_id}"))
            }
        }
        RequestBody::UpdateThread { thread_id, title } => {
            match store.set_title(&thread_id, &title)? {
                Some(thread) => Json(with_items(thread, Page::default())).into_response(),
                None => unknown_thread(&thread_id),
            }
        }
        RequestBody::DeleteThread { thread_id } => {
            if store.delete_thread(&thread_id)? {
                ok(json!({}))
            } else {
                unknown_thread(&thread_id)
            }
        }
        RequestBody::SyncCustomAction {
            thread_id,
            item_id,
            action,
        } => {
            if store.thread(&thread_id)?.is_none() {
                return Ok(unknown_thread(&thread_id));
            }
            let sender = match &item_id {
                Some(id) => store.item(&thread_id, id)?,
                None => None,
            };
            let updated_item = sender.map(|item| scripts::sync_action(&item, &action));
            if let Some(item) = &updated_item {
                store.save_item(item)?;
            }
            Json(SyncCustomActionResponse { updated_item }).into_response()
        }
        RequestBody::Transcribe { .. } => {
            bad_request("transcription is not supported by the reference runtime")
        }
        other => bad_request(&format!("{} is a streaming request", other.type_name())),
    })
}

// --- streaming requests -----------------------------------------------------------------

/// A streamed answer, ready to be written.
struct Prepared {
    thread: Thread,
    steps: Vec<Step>,
    /// Items streamed earlier whose updates this answer sends: saved as they change.
    tracked: Vec<ThreadItem>,
}

async fn stream(state: &Arc<AppState>, user: User, base: String, body: RequestBody) -> Response {
    // Held until the run has started (or the request is answered without one).
    let _seat = match state.runs.admit(&user) {
        Ok(seat) => seat,
        Err(refused) => return refused,
    };
    // With --acp, messages, retries and permission answers go to the agent.
    let body = match crate::acp::stream(state, user.clone(), base.clone(), body).await {
        Ok(response) => return response,
        Err(body) => body,
    };
    let kind = body.type_name();
    if let RequestBody::CustomAction {
        thread_id,
        item_id,
        action,
    } = &body
    {
        if action.kind == ACP_PERMISSION_ACTION {
            let answered = {
                let (state, user) = (state.clone(), user.clone());
                let (thread_id, item_id, action) =
                    (thread_id.clone(), item_id.clone(), action.clone());
                tokio::task::spawn_blocking(move || {
                    answer_permission(&state, &user, &thread_id, item_id.as_ref(), &action)
                })
                .await
            };
            return match answered {
                Ok(Ok(Ok(p))) => sse(spawn_writer(state.clone(), user, kind, p)),
                Ok(Ok(Err(refused))) => refused,
                Ok(Err(e)) => internal(e),
                Err(e) => internal(e),
            };
        }
    }
    let prepared = {
        let state = state.clone();
        let user = user.clone();
        tokio::task::spawn_blocking(move || prepare(&state, &user, &base, body)).await
    };
    match prepared {
        Ok(Ok(Some(p))) => sse(spawn_writer(state.clone(), user, kind, p)),
        // What the SDK does for a thread it does not know (or, here, that belongs to
        // someone else): 200 and not a single event.
        Ok(Ok(None)) => sse(Body::empty()),
        Ok(Err(e)) => internal(e),
        Err(e) => internal(e),
    }
}

pub(crate) fn sse(body: Body) -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

/// Builds the whole answer up front (scripts are deterministic); `None` when the thread
/// (or the item to retry) does not exist for `owner`. Runs on a blocking thread.
fn prepare(
    state: &AppState,
    owner: &User,
    base: &str,
    body: RequestBody,
) -> store::Result<Option<Prepared>> {
    let store = &state.store.user(&owner.0);
    let (thread, mut s) = match &body {
        RequestBody::ThreadsCreate { .. } => {
            let thread = store.create_thread()?;
            let mut s = Script::new(&state.store, state.pace, thread.clone());
            s.emit(StreamEvent::ThreadCreated(ThreadEvent {
                thread: with_items(thread.clone(), Page::default()),
            }));
            (thread, s)
        }
        RequestBody::AddUserMessage { thread_id, .. }
        | RequestBody::AddClientToolOutput { thread_id, .. }
        | RequestBody::AddStructuredInput { thread_id, .. }
        | RequestBody::RetryAfterItem { thread_id, .. }
        | RequestBody::CustomAction { thread_id, .. } => match store.thread(thread_id)? {
            Some(thread) => {
                let s = Script::new(&state.store, state.pace, thread.clone());
                (thread, s)
            }
            None => return Ok(None),
        },
        _ => return Ok(None),
    };
    s.set_callback(state.callback_token.is_some());
    match body {
        RequestBody::ThreadsCreate { input } | RequestBody::AddUserMessage { input, .. } => {
            let user = user_message(store, base, &thread.id, input)?;
            s.done(&user);
            let text = message_text(&user);
            let attempt = state.next_attempt(&user.id);
            scripts::respond(&mut s, &user.id, &text, attempt);
            // A ghost message (hidden from the user) never names the thread.
            let first = first_user_text(store, &thread.id)?
                .or_else(|| (!chat_shell_core::adapters::chatkit::is_ghost(&user)).then_some(text));
            if let Some(first) = first {
                s.finish(&first);
            }
        }
        RequestBody::RetryAfterItem { thread_id, item_id } => {
            let Some(item) = store.item(&thread_id, &item_id)? else {
                return Ok(None);
            };
            if !matches!(item.kind, ItemKind::UserMessage(_)) {
                s.error(
                    "stream.error",
                    Some(format!("{item_id} is not a user message")),
                    false,
                );
            } else {
                store.delete_items_after(&thread_id, &item_id)?;
                let attempt = state.next_attempt(&item_id);
                scripts::respond(&mut s, &item_id, &message_text(&item), attempt);
                finish(store, &mut s, &thread_id)?;
            }
        }
        RequestBody::AddClientToolOutput { thread_id, result } => {
            let pending = store.all_items(&thread_id)?.into_iter().rev().find(|i| {
                matches!(&i.kind, ItemKind::ClientToolCall(c) if c.status == ClientToolStatus::Pending)
            });
            match pending {
                Some(mut item) => {
                    if let ItemKind::ClientToolCall(call) = &mut item.kind {
                        call.status = ClientToolStatus::Completed;
                        call.output = Some(result);
                        let call = call.clone();
                        // Saved before answering, as the SDK does: no event tells the client.
                        store.save_item(&item)?;
                        scripts::client_tool_output(&mut s, &call);
                    }
                    finish(store, &mut s, &thread_id)?;
                }
                None => s.error(
                    "stream.error",
                    Some("no pending client tool call in this thread".into()),
                    false,
                ),
            }
        }
        RequestBody::AddStructuredInput {
            thread_id,
            item_id,
            answers,
        } => match store.item(&thread_id, &item_id)? {
            Some(mut item) if matches!(item.kind, ItemKind::StructuredInput(_)) => {
                if let ItemKind::StructuredInput(input) = &mut item.kind {
                    input.take_answers(&answers);
                }
                scripts::structured_answered(&mut s, &item);
                finish(store, &mut s, &thread_id)?;
            }
            _ => s.error(
                "stream.error",
                Some(format!("{item_id} is not a structured input")),
                false,
            ),
        },
        RequestBody::CustomAction {
            thread_id,
            item_id,
            action,
        } => {
            let sender = match &item_id {
                Some(id) => store.item(&thread_id, id)?,
                None => None,
            };
            let acceptable = sender
                .as_ref()
                .is_none_or(|i| matches!(i.kind, ItemKind::Widget(_) | ItemKind::ClientWidget(_)));
            if item_id.is_some() && sender.is_none() {
                s.error(
                    "stream.error",
                    Some("the action's item does not exist".into()),
                    false,
                );
            } else if !acceptable {
                // The SDK only lets widgets send actions (the fork adds client widgets).
                s.error("stream.error", None, false);
            } else {
                scripts::custom_action(&mut s, sender.as_ref(), &action);
                finish(store, &mut s, &thread_id)?;
            }
        }
        _ => return Ok(None),
    }
    Ok(Some(Prepared {
        thread,
        steps: s.into_steps(),
        tracked: Vec::new(),
    }))
}

/// `threads.custom_action` with an `acp.permission_response`: the answer to a tool call's
/// permission request. Checked (the thread and item are the user's, the item is the tool
/// call named and is asking, the option was offered) and saved on the item before
/// anything is streamed; a refused answer is a JSON error (404 for a thread or item the
/// user does not have, 400 for a bad answer, 409 for a request that is not asking, the
/// first decision included). The run that asked goes on with what the decision leads
/// to if it is still waiting; else this answer's stream does. Runs on a blocking thread.
fn answer_permission(
    state: &AppState,
    owner: &User,
    thread_id: &ThreadId,
    item_id: Option<&ItemId>,
    action: &Action,
) -> store::Result<Result<Prepared, Response>> {
    let Some(item_id) = item_id else {
        return Ok(Err(bad_request(
            "acp.permission_response needs the tool call's item_id",
        )));
    };
    let answer = match agent::parse_answer(&action.payload) {
        Ok(answer) => answer,
        Err(e) => return Ok(Err(bad_request(&format!("acp.permission_response: {e}")))),
    };
    let store = &state.store.user(&owner.0);
    let Some(thread) = store.thread(thread_id)? else {
        return Ok(Err(unknown_thread(thread_id)));
    };
    let decided = store.modify_item(thread_id, item_id, |item| {
        agent::decide(item, &answer).map(|()| item.clone())
    })?;
    let decided = match decided {
        None => return Ok(Err(not_found(&format!("unknown item {item_id}")))),
        Some(Err(refusal)) => {
            let (status, code, message) = refusal.describe();
            let status = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_REQUEST);
            return Ok(Err(json_error(status, code, &message)));
        }
        Some(Ok(item)) => item,
    };
    let outcome = agent::describe_outcome(&answer.outcome);
    let mut s = Script::new(&state.store, state.pace, thread.clone());
    let tracked = match state.hand_to_waiter(owner, Box::new(decided)) {
        Ok(()) => {
            println!("permission {outcome}: thread={thread_id} item={item_id} (the asking stream goes on)");
            // The asking stream carries the rest; this answer only confirms.
            s.update(
                item_id,
                ItemUpdate::AcpPermissionResolved(
                    chat_shell_core::protocol::acp::PermissionResponse {
                        outcome: answer.outcome.clone(),
                    },
                ),
            );
            Vec::new()
        }
        Err(decided) => {
            println!(
                "permission {outcome}: thread={thread_id} item={item_id} (this answer goes on)"
            );
            s.stream_options(true);
            agent::permission_decided(&mut s, &decided);
            finish(store, &mut s, thread_id)?;
            vec![*decided]
        }
    };
    Ok(Ok(Prepared {
        thread,
        steps: s.into_steps(),
        tracked,
    }))
}

fn finish(store: &UserStore<'_>, s: &mut Script<'_>, thread: &ThreadId) -> store::Result<()> {
    if let Some(first) = first_user_text(store, thread)? {
        s.finish(&first);
    }
    Ok(())
}

fn first_user_text(store: &UserStore<'_>, thread: &ThreadId) -> store::Result<Option<String>> {
    Ok(store
        .all_items(thread)?
        .into_iter()
        .find(|i| {
            matches!(i.kind, ItemKind::UserMessage(_))
                && !chat_shell_core::adapters::chatkit::is_ghost(i)
        })
        .map(|i| message_text(&i)))
}

fn message_text(item: &ThreadItem) -> String {
    match &item.kind {
        ItemKind::UserMessage(m) => m.text(),
        _ => String::new(),
    }
}

/// The echoed user message, its attachments resolved to full objects (unknown ids are
/// skipped) and bound to the thread.
pub(crate) fn user_message(
    store: &UserStore<'_>,
    base: &str,
    thread: &ThreadId,
    input: UserMessageInput,
) -> store::Result<ThreadItem> {
    let mut attachments = Vec::new();
    for id in &input.attachments {
        if let Some(mut record) = store.attachment(id.as_str())? {
            store.attach_to_thread(&record.id, thread)?;
            record.thread_id = Some(thread.to_string());
            attachments.push(attachment_object(&record, base, false));
        }
    }
    Ok(ThreadItem {
        id: ItemId(store.next_id("msg")),
        thread_id: Some(thread.clone()),
        created_at: now_iso(),
        kind: ItemKind::UserMessage(UserMessage {
            content: input.content,
            attachments,
            quoted_text: input.quoted_text,
            inference_options: Some(Value::Object(input.inference_options)),
        }),
    })
}

// --- the SSE writer ---------------------------------------------------------------------

pub(crate) type Frame = Result<Bytes, std::io::Error>;

/// Starts `p` as a run (see `runs`) on its own task; the returned body yields the frames
/// of the response that started it. When its client goes away hyper drops the body, which
/// closes the channel: that is how the run learns its client left.
fn spawn_writer(state: Arc<AppState>, user: User, kind: &'static str, p: Prepared) -> Body {
    let (tx, rx) = mpsc::channel::<Frame>(16);
    // Registered before the response goes out: a cancel sent right after it finds the run.
    let run = state.runs.start(&user, &p.thread.id, &tx);
    tokio::spawn(write_stream(state, user, kind, p, run, tx));
    Body::from_stream(futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|frame| (frame, rx))
    }))
}

pub(crate) enum Waited {
    Ready,
    Closed,
    Shutdown,
}

/// Why a run stopped before the end of its steps.
enum Stop {
    Cancelled,
    Shutdown,
    /// `Step::Drop`: the response that started it failed on purpose.
    Dropped,
}

/// What a wait of a run woke up for.
enum Woke<T> {
    Ready(T),
    Tick,
    Left,
    Shutdown,
}

/// One run's task: its steps go to the store, the thread's channels and the response that
/// started it (the origin), while its client reads it.
struct Writer {
    kind: &'static str,
    thread: ThreadId,
    saver: Saver,
    origin: Option<mpsc::Sender<Frame>>,
    last_write: TokioInstant,
    /// Events the origin was sent.
    sent: usize,
    /// The origin's client left (a reload, a closed tab, an old client's Stop).
    left: bool,
    cancel: watch::Receiver<bool>,
    shutdown: watch::Receiver<bool>,
}

impl Writer {
    /// Waits until `deadline` or until `until` is ready, with keepalive comments on the
    /// origin if `keepalive`; `Ok(None)` at the deadline, `Err` when the run must stop.
    async fn wait<F: std::future::Future>(
        &mut self,
        deadline: TokioInstant,
        keepalive: bool,
        until: F,
    ) -> Result<Option<F::Output>, Stop> {
        tokio::pin!(until);
        loop {
            if *self.cancel.borrow() {
                return Err(Stop::Cancelled);
            }
            if *self.shutdown.borrow() {
                return Err(Stop::Shutdown);
            }
            if TokioInstant::now() >= deadline {
                return Ok(None);
            }
            let keepalive = keepalive && self.origin.is_some();
            let wake = if keepalive {
                deadline.min(self.last_write + KEEPALIVE)
            } else {
                deadline
            };
            let woke = tokio::select! {
                out = &mut until => Woke::Ready(out),
                _ = tokio::time::sleep_until(wake) => Woke::Tick,
                _ = closed(&self.origin) => Woke::Left,
                _ = self.cancel.changed() => Woke::Tick,
                changed = self.shutdown.changed() => {
                    if changed.is_err() { Woke::Shutdown } else { Woke::Tick }
                }
            };
            match woke {
                Woke::Ready(out) => return Ok(Some(out)),
                Woke::Tick => {
                    if keepalive && TokioInstant::now() >= self.last_write + KEEPALIVE {
                        self.send(Bytes::from_static(b": keepalive\n\n")).await;
                    }
                }
                Woke::Left => self.origin_left().await,
                Woke::Shutdown => return Err(Stop::Shutdown),
            }
        }
    }

    /// Sends `frame` to the origin, if its client is still there; `true` if it was sent.
    async fn send(&mut self, frame: Bytes) -> bool {
        let Some(tx) = &self.origin else {
            return false;
        };
        // A client that stops reading must not hold up a cancel; one that reads gets every
        // event published (stored) before the cancel.
        let sent = tokio::select! {
            biased;
            sent = tx.send(Ok(frame)) => sent.is_ok(),
            _ = self.cancel.wait_for(|c| *c) => return false,
        };
        if sent {
            self.last_write = TokioInstant::now();
        } else {
            self.origin_left().await;
        }
        sent
    }

    async fn origin_left(&mut self) {
        self.origin = None;
        self.left = true;
        if self.saver.run.attached() {
            // A reload hydrates from the store: what was sent so far is saved now (and
            // before the log says so).
            self.saver.flush().await;
            println!(
                "stream closed by client: {} thread={} after {} events (the run goes on)",
                self.kind, self.thread, self.sent
            );
        } else {
            // A run tied to its request stops with it.
            self.saver.run.run.request_cancel();
        }
    }

    /// `Step::Drop`: the origin's body fails after the frames sent so far.
    async fn drop_origin(&mut self) {
        let Some(tx) = self.origin.take() else {
            return;
        };
        // hyper discards what it has not written yet when the body fails: let it take
        // every frame sent so far, and write them, before breaking.
        while tx.capacity() < tx.max_capacity() && !tx.is_closed() {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        // An error ends the body without its final chunk: the client sees the connection
        // break mid-answer.
        let _ = tx
            .send(Err(std::io::Error::other("connection dropped on purpose")))
            .await;
    }
}

async fn closed(origin: &Option<mpsc::Sender<Frame>>) {
    match origin {
        Some(tx) => tx.closed().await,
        None => std::future::pending().await,
    }
}

async fn write_stream(
    state: Arc<AppState>,
    user: User,
    kind: &'static str,
    p: Prepared,
    run: RunHandle,
    tx: mpsc::Sender<Frame>,
) {
    let Prepared {
        thread,
        steps,
        tracked,
    } = p;
    for item in tracked {
        run.track(item);
    }
    // Permission requests this run sent, waiting for their answer.
    let mut waits = Registrations {
        state: state.clone(),
        user: user.clone(),
        run: Arc::downgrade(&run.run),
        receivers: HashMap::new(),
    };
    let mut w = Writer {
        kind,
        thread: thread.id.clone(),
        cancel: run.run.cancel_requested(),
        saver: Saver::new(state.store.clone(), user.clone(), thread.id.clone(), run),
        origin: Some(tx),
        last_write: TokioInstant::now(),
        sent: 0,
        left: false,
        shutdown: state.shutdown.clone(),
    };
    let mut failed = false;
    let mut steps: VecDeque<Step> = steps.into();
    let stopped = loop {
        let Some(step) = steps.pop_front() else {
            break None;
        };
        let (delay, keepalive) = match &step {
            Step::Emit { delay, .. } | Step::Drop { delay } => (*delay, true),
            Step::Stall(d) => (*d, false),
            Step::AwaitPermission { .. } => (Duration::ZERO, true),
            Step::Tool { delay, .. } => (*delay, true),
        };
        let deadline = TokioInstant::now() + delay;
        if let Err(stop) = w
            .wait(deadline, keepalive, std::future::pending::<()>())
            .await
        {
            break Some(stop);
        }
        match step {
            Step::Emit { event, .. } => {
                let json = match serde_json::to_string(&event) {
                    Ok(json) => json,
                    Err(e) => {
                        eprintln!("chat-shell-runtime: cannot serialize an event: {e}");
                        continue;
                    }
                };
                failed |= matches!(event, StreamEvent::Error(_));
                if let StreamEvent::ItemUpdated(u) = &event {
                    if matches!(u.update, ItemUpdate::AcpPermissionRequested(_)) {
                        // Listening before any client can see the request, so no answer
                        // can come before.
                        waits.register(&u.item_id);
                    }
                }
                // Saved before it is sent: whatever a client saw is in the store.
                w.saver.apply(&event, &json).await;
                if w.send(Bytes::from(format!("data: {json}\n\n"))).await {
                    w.sent += 1;
                }
            }
            Step::Drop { .. } => {
                w.saver.flush().await;
                w.drop_origin().await;
                break Some(Stop::Dropped);
            }
            Step::Stall(_) => {}
            Step::Tool { op, .. } => crate::sandbox::run(&state, &thread.id, &op).await,
            Step::AwaitPermission { item_id, timeout } => {
                // Nothing unsaved: the answer's handler writes this item meanwhile.
                w.saver.flush().await;
                let Some(decided) = waits.receivers.remove(&item_id) else {
                    continue;
                };
                let waited = w.wait(TokioInstant::now() + timeout, true, decided).await;
                waits.forget(&item_id);
                match waited {
                    Ok(Some(Ok(item))) => {
                        let mut s = Script::new(&state.store, state.pace, thread.clone());
                        agent::permission_decided(&mut s, &item);
                        for step in s.into_steps().into_iter().rev() {
                            steps.push_front(step);
                        }
                    }
                    // Not in time (or the registration is gone: nobody can answer here).
                    Ok(None) | Ok(Some(Err(_))) => {
                        println!(
                            "permission not answered in time: thread={} item={item_id}",
                            thread.id
                        );
                    }
                    Err(stop) => break Some(stop),
                }
            }
        }
    };
    let outcome = match stopped {
        None => {
            w.saver.flush().await;
            if failed {
                Outcome::Failed
            } else {
                Outcome::Done
            }
        }
        Some(Stop::Cancelled) => {
            w.saver.cancelled().await;
            // Stop sends `threads.cancel_run` and drops its stream: whichever the runtime
            // hears first, an explicit cancel is what stopped a run that outlives its
            // request (a tied run is cancelled by the runtime when its client leaves).
            let asked = w.saver.run.attached() && *w.saver.run.run.cancel_requested().borrow();
            if w.left && !asked {
                println!(
                    "stream closed by client: {kind} thread={} after {} events",
                    thread.id, w.sent
                );
            } else {
                println!(
                    "run cancelled: {kind} thread={} after {} events",
                    thread.id, w.sent
                );
            }
            Outcome::Cancelled
        }
        Some(Stop::Shutdown) => {
            w.saver.flush().await;
            Outcome::Failed
        }
        Some(Stop::Dropped) => Outcome::Failed,
    };
    drop(waits);
    let cancelled = outcome == Outcome::Cancelled;
    state.runs.end(&w.saver.run, outcome);
    if cancelled && w.origin.is_some() {
        // Stopped from elsewhere: a ChatKit stream has no word for it and just ends, so
        // the page that started it hears it from its channel first (`thread.run.ended`),
        // and shows the answer stopped rather than finished.
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    w.origin = None;
}

/// The permission requests one run waits for; whatever is left is unregistered when the
/// run ends.
struct Registrations {
    state: Arc<AppState>,
    user: User,
    run: Weak<Run>,
    receivers: HashMap<ItemId, oneshot::Receiver<Box<ThreadItem>>>,
}

impl Registrations {
    fn register(&mut self, item_id: &ItemId) {
        let (decided, receiver) = oneshot::channel();
        let waiter = Waiter {
            decided,
            run: self.run.clone(),
        };
        self.state
            .waits()
            .insert((self.user.0.clone(), item_id.clone()), waiter);
        self.receivers.insert(item_id.clone(), receiver);
    }

    fn forget(&self, item_id: &ItemId) {
        self.state
            .waits()
            .remove(&(self.user.0.clone(), item_id.clone()));
    }
}

impl Drop for Registrations {
    fn drop(&mut self) {
        let mut waits = self.state.waits();
        for item_id in self.receivers.keys() {
            waits.remove(&(self.user.0.clone(), item_id.clone()));
        }
    }
}

/// Waits `delay`, sending keepalive comments if allowed; stops early when the client
/// leaves or the server shuts down.
pub(crate) async fn pause(
    delay: Duration,
    keepalive: bool,
    tx: &mpsc::Sender<Frame>,
    last_write: &mut TokioInstant,
    shutdown: &mut watch::Receiver<bool>,
) -> Waited {
    let deadline = TokioInstant::now() + delay;
    loop {
        if tx.is_closed() {
            return Waited::Closed;
        }
        if *shutdown.borrow() {
            return Waited::Shutdown;
        }
        let now = TokioInstant::now();
        if now >= deadline {
            return Waited::Ready;
        }
        let wake = if keepalive {
            deadline.min(*last_write + KEEPALIVE)
        } else {
            deadline
        };
        tokio::select! {
            _ = tokio::time::sleep_until(wake) => {
                if keepalive && TokioInstant::now() >= *last_write + KEEPALIVE {
                    if tx.send(Ok(Bytes::from_static(b": keepalive\n\n"))).await.is_err() {
                        return Waited::Closed;
                    }
                    *last_write = TokioInstant::now();
                }
            }
            _ = tx.closed() => return Waited::Closed,
            changed = shutdown.changed() => {
                if changed.is_err() || *shutdown.borrow() {
                    return Waited::Shutdown;
                }
            }
        }
    }
}

/// Mirrors the run into the store as it goes, so `threads.get_by_id` returns what the
/// client saw, partial items included. Each write runs on a blocking thread and is awaited
/// before the event goes out. The items' state is the run's (`runs::RunItems`).
struct Saver {
    store: Arc<Store>,
    user: User,
    thread: ThreadId,
    run: RunHandle,
    /// Items in progress changed since they were last saved.
    dirty: HashSet<ItemId>,
    last_flush: Instant,
}

impl Saver {
    fn new(store: Arc<Store>, user: User, thread: ThreadId, run: RunHandle) -> Self {
        Saver {
            store,
            user,
            thread,
            run,
            dirty: HashSet::new(),
            last_flush: Instant::now(),
        }
    }

    /// Runs `f` on the user's store on a blocking thread; a failure is logged.
    async fn save<T: Send + 'static>(
        &self,
        f: impl FnOnce(&UserStore<'_>) -> store::Result<T> + Send + 'static,
    ) {
        if let Err(e) = blocking(self.store.clone(), self.user.clone(), f).await {
            eprintln!("chat-shell-runtime: cannot save the stream: {e}");
        }
    }

    /// Saves `event` (`json`, serialized) as far as needed, then folds it into the run's
    /// items and sends it to the thread's channels.
    async fn apply(&mut self, event: &StreamEvent, json: &str) {
        let mut folded = None;
        match event {
            StreamEvent::ThreadCreated(e) | StreamEvent::ThreadUpdated(e) => {
                let thread = e.thread.clone();
                self.save(move |db| db.save_thread(&thread)).await;
            }
            StreamEvent::ItemAdded(e) | StreamEvent::ItemDone(e) | StreamEvent::ItemReplaced(e) => {
                let item = e.item.clone();
                self.save(move |db| db.save_item(&item)).await;
                self.dirty.remove(&e.item.id);
            }
            StreamEvent::ItemRemoved(e) => {
                let (thread, id) = (self.thread.clone(), e.item_id.clone());
                self.save(move |db| db.delete_item(&thread, &id)).await;
                self.dirty.remove(&e.item_id);
            }
            StreamEvent::ItemUpdated(e) => {
                // A permission request is saved before any client sees it (its answer is
                // checked against the store), and so is its outcome; other changes at
                // most every FLUSH_EVERY.
                let permission = matches!(
                    e.update,
                    ItemUpdate::AcpPermissionRequested(_) | ItemUpdate::AcpPermissionResolved(_)
                );
                if permission || self.last_flush.elapsed() >= FLUSH_EVERY {
                    folded = self.run.folded(e);
                    if let Some(item) = &folded {
                        self.dirty.remove(&item.id);
                        self.flush_with(vec![item.clone()]).await;
                    }
                }
            }
            _ => {}
        }
        let saved = folded.is_some();
        let changed = self.run.publish(event, json, folded);
        if let (Some(id), false) = (changed, saved) {
            self.dirty.insert(id);
        }
    }

    async fn flush(&mut self) {
        self.flush_with(Vec::new()).await;
    }

    /// Saves `items` and every item changed since it was last saved.
    async fn flush_with(&mut self, mut items: Vec<ThreadItem>) {
        items.extend(self.run.pending(std::mem::take(&mut self.dirty)));
        if !items.is_empty() {
            self.save(move |db| items.iter().try_for_each(|item| db.save_item(item)))
                .await;
        }
        self.last_flush = Instant::now();
    }

    /// The run was stopped: keep the partial items, except assistant messages with no
    /// text yet (the SDK drops those too).
    async fn cancelled(&mut self) {
        self.flush().await;
        let empty = self.run.empty_messages();
        if !empty.is_empty() {
            let thread = self.thread.clone();
            self.save(move |db| {
                empty
                    .iter()
                    .try_for_each(|id| db.delete_item(&thread, id).map(drop))
            })
            .await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run's waits keep its origin alive, go on when its client leaves, and end at once
    /// on a cancel.
    #[tokio::test(start_paused = true)]
    async fn a_run_outlives_its_client_until_it_is_cancelled() {
        let store = Arc::new(Store::open_in_memory().unwrap());
        let hub = runs::Runs::default();
        let (user, thread) = (User("u".into()), ThreadId::from("thr_1"));
        let (tx, mut rx) = mpsc::channel::<Frame>(16);
        let handle = hub.start(&user, &thread, &tx);
        let run = handle.run.clone();
        let (_stop_tx, shutdown) = watch::channel(false);
        let mut w = Writer {
            kind: "threads.create",
            thread: thread.clone(),
            cancel: run.cancel_requested(),
            saver: Saver::new(store, user, thread, handle),
            origin: Some(tx),
            last_write: TokioInstant::now(),
            sent: 0,
            left: false,
            shutdown,
        };
        let later = |s| TokioInstant::now() + Duration::from_secs(s);
        let waited = w.wait(later(25), true, std::future::pending::<()>()).await;
        assert!(matches!(waited, Ok(None)));
        let mut keepalives = 0;
        while let Ok(Ok(frame)) = rx.try_recv() {
            assert_eq!(frame, Bytes::from_static(b": keepalive\n\n"));
            keepalives += 1;
        }
        assert_eq!(keepalives, 2);
        // A stall says nothing.
        assert!(matches!(
            w.wait(later(30), false, std::future::pending::<()>()).await,
            Ok(None)
        ));
        assert!(rx.try_recv().is_err());

        drop(rx);
        let started = TokioInstant::now();
        let waited = w.wait(later(30), true, std::future::pending::<()>()).await;
        assert!(matches!(waited, Ok(None)), "the wait goes on");
        assert!(started.elapsed() >= Duration::from_secs(30));
        assert!(w.left && w.origin.is_none() && run.is_live());

        let cancel = run.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_secs(1)).await;
            cancel.request_cancel();
        });
        let started = TokioInstant::now();
        let waited = w.wait(later(120), true, std::future::pending::<()>()).await;
        assert!(matches!(waited, Err(Stop::Cancelled)));
        assert!(started.elapsed() < Duration::from_secs(2));
        assert!(!run.is_live());
    }

    /// Runs `pause` on paused time and returns its outcome with the frames it sent.
    async fn paused(delay: Duration, keepalive: bool) -> (&'static str, Vec<Bytes>) {
        let (tx, mut rx) = mpsc::channel::<Frame>(16);
        let (_stop_tx, mut stop) = watch::channel(false);
        let mut last_write = TokioInstant::now();
        let outcome = match pause(delay, keepalive, &tx, &mut last_write, &mut stop).await {
            Waited::Ready => "ready",
            Waited::Closed => "closed",
            Waited::Shutdown => "shutdown",
        };
        drop(tx);
        let mut frames = Vec::new();
        while let Some(Ok(frame)) = rx.recv().await {
            frames.push(frame);
        }
        (outcome, frames)
    }

    #[tokio::test(start_paused = true)]
    async fn silence_longer_than_ten_seconds_gets_keepalives() {
        let (outcome, frames) = paused(Duration::from_secs(25), true).await;
        assert_eq!(outcome, "ready");
        assert_eq!(
            frames,
            [
                Bytes::from_static(b": keepalive\n\n"),
                Bytes::from_static(b": keepalive\n\n")
            ]
        );
        let (_, frames) = paused(Duration::from_secs(9), true).await;
        assert!(frames.is_empty());
        // A stall says nothing at all.
        let (outcome, frames) = paused(Duration::from_secs(120), false).await;
        assert_eq!((outcome, frames.len()), ("ready", 0));
    }

    #[tokio::test(start_paused = true)]
    async fn a_pause_ends_when_the_client_leaves_or_the_server_stops() {
        let (tx, rx) = mpsc::channel::<Frame>(16);
        let (stop_tx, mut stop) = watch::channel(false);
        let mut last_write = TokioInstant::now();
        let leave = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_secs(5)).await;
            drop(rx);
        });
        let started = TokioInstant::now();
        let outcome = pause(
            Duration::from_secs(120),
            false,
            &tx,
            &mut last_write,
            &mut stop,
        )
        .await;
        assert!(matches!(outcome, Waited::Closed));
        assert!(started.elapsed() < Duration::from_secs(6));
        leave.await.unwrap();

        let (tx, _rx) = mpsc::channel::<Frame>(16);
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_secs(1)).await;
            let _ = stop_tx.send(true);
        });
        let outcome = pause(
            Duration::from_secs(120),
            true,
            &tx,
            &mut last_write,
            &mut stop,
        )
        .await;
        assert!(matches!(outcome, Waited::Shutdown));
    }
}
