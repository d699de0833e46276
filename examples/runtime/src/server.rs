//! HTTP: the routes, the ChatKit request handlers, the SSE writer and the request log.
//!
//! Every request first passes `guard::check` (Host, Origin, identity); handlers see the
//! `User` it found and reach the store only through that user's view, on blocking threads.

use crate::agent;
use crate::auth::{Auth, User};
use crate::events;
use crate::guard::{self, Policy};
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
    AcpPermission, Action, AssistantContent, Attachment, AttachmentKind, ChatRequest,
    ClientToolStatus, ItemId, ItemKind, ItemUpdate, ListOrder, Page, RequestBody, StreamEvent,
    StructuredAnswer, StructuredInputStatus, SyncCustomActionResponse, Thread, ThreadEvent,
    ThreadId, ThreadItem, UploadDescriptor, UserMessage, UserMessageInput, ACP_PERMISSION_ACTION,
};
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
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
    /// Some threads have no owner yet: the first identity to make a request gets them.
    pub unclaimed: AtomicBool,
    /// How many times each user message has been answered (the `error` scenario fails
    /// the first time only).
    attempts: Mutex<HashMap<String, u32>>,
    /// Streams waiting for the answer to a permission request, by (user, tool call item).
    permission_waits: Mutex<HashMap<(String, ItemId), Waiter>>,
    pub(crate) shutdown: watch::Receiver<bool>,
}

/// A stream waiting for a permission decision (see `Step::AwaitPermission`).
struct Waiter {
    /// Takes the decided item.
    decided: oneshot::Sender<Box<ThreadItem>>,
    /// The waiting stream's body, to tell whether its client is still there (weak: the
    /// registry must not keep the body open).
    stream: mpsc::WeakSender<Frame>,
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

    /// Hands `decided` to the stream of `user` waiting for it, if there is one and its
    /// client is still there; else gives it back.
    fn hand_to_waiter(&self, user: &User, decided: Box<ThreadItem>) -> Result<(), Box<ThreadItem>> {
        let key = (user.0.clone(), decided.id.clone());
        let Some(waiter) = self.waits().remove(&key) else {
            return Err(decided);
        };
        let listening = waiter.stream.upgrade().is_some_and(|tx| !tx.is_closed());
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
        .layer(middleware::from_fn(log_requests))
        .with_state(state)
}

/// Marks a response whose request the `/chatkit` or `/events` handler logged itself.
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

/// 400 with `message`.
pub fn bad_request(message: &str) -> Response {
    json_error(StatusCode::BAD_REQUEST, "bad_request", message)
}

/// 404 for something that does not exist or belongs to someone else (the same answer).
pub fn not_found(message: &str) -> Response {
    json_error(StatusCode::NOT_FOUND, "not_found", message)
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
    body.map_err(|e| json_error(e.status(), "bad_request", &e.body_text()))
}

async fn chatkit(
    State(state): State<Arc<AppState>>,
    Extension(user): Extension<User>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let started = Instant::now();
    let log = |kind: &str, response: Response| logged("/chatkit", kind, started, response);
    let body = match json_body("/chatkit", &headers, body) {
        Ok(body) => body,
        Err(refused) => return log("-", refused),
    };
    let raw = serde_json::from_slice::<Value>(&body);
    // The live channel of a thread: an extension the protocol's request types do not know.
    if let Ok(request) = &raw {
        if request.get("type").and_then(Value::as_str) == Some("threads.subscribe") {
            let response = views::subscribe(&state, user, request).await;
            return log("threads.subscribe", response);
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
        RequestBody::UpdateThread { title, .. } if title.chars().count() > MAX_TITLE_CHARS => {
            return Err(format!("a title has at most {MAX_TITLE_CHARS} characters"));
        }
        RequestBody::CreateAttachment {
            name,
            size,
            mime_type,
        } => {
            let chars = name.chars().count();
            if chars == 0 || chars > MAX_NAME_CHARS || name.chars().any(char::is_control) {
                return Err(format!(
                    "an attachment name has 1 to {MAX_NAME_CHARS} characters, none of them control characters"
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
                .or_else(|| (!chat_shell_core::reducer::is_ghost(&user)).then_some(text));
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
                    for field in &mut input.inputs {
                        if let Some(answer) = answers.get(&field.id) {
                            field.answer =
                                serde_json::from_value::<StructuredAnswer>(answer.clone()).ok();
                        }
                    }
                    let all_skipped = input
                        .inputs
                        .iter()
                        .all(|f| f.answer.as_ref().is_none_or(|a| a.skipped));
                    input.status = if all_skipped {
                        StructuredInputStatus::Skipped
                    } else {
                        StructuredInputStatus::Answered
                    };
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
/// first decision included). The stream that asked goes on with what the decision leads
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
            matches!(i.kind, ItemKind::UserMessage(_)) && !chat_shell_core::reducer::is_ghost(i)
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

/// Starts writing `p` on its own task; the returned body yields its frames. When the
/// client goes away hyper drops the body, which closes the channel: that is how the
/// writer learns about Stop.
fn spawn_writer(state: Arc<AppState>, user: User, kind: &'static str, p: Prepared) -> Body {
    let (tx, rx) = mpsc::channel::<Frame>(16);
    tokio::spawn(write_stream(state, user, kind, p, tx));
    Body::from_stream(futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|frame| (frame, rx))
    }))
}

pub(crate) enum Waited {
    Ready,
    Closed,
    Shutdown,
}

async fn write_stream(
    state: Arc<AppState>,
    user: User,
    kind: &'static str,
    p: Prepared,
    tx: mpsc::Sender<Frame>,
) {
    let Prepared {
        thread,
        steps,
        tracked,
    } = p;
    let mut saver = Saver::new(state.store.clone(), user.clone(), thread.id.clone());
    for item in tracked {
        saver.track(item);
    }
    let mut shutdown = state.shutdown.clone();
    let mut last_write = TokioInstant::now();
    let mut sent = 0usize;
    let mut outcome = Waited::Ready;
    // Permission requests this stream sent, waiting for their answer.
    let mut waits = Registrations {
        state: state.clone(),
        user: user.clone(),
        receivers: HashMap::new(),
    };
    let mut steps: VecDeque<Step> = steps.into();
    while let Some(step) = steps.pop_front() {
        let (delay, keepalive) = match &step {
            Step::Emit { delay, .. } | Step::Drop { delay } => (*delay, true),
            Step::Stall(d) => (*d, false),
            Step::AwaitPermission { .. } => (Duration::ZERO, true),
            Step::Tool { delay, .. } => (*delay, true),
        };
        outcome = pause(delay, keepalive, &tx, &mut last_write, &mut shutdown).await;
        if !matches!(outcome, Waited::Ready) {
            break;
        }
        match step {
            Step::Emit { event, .. } => {
                // Saved before it is sent: whatever the client saw is in the store.
                saver.apply(&event).await;
                if let StreamEvent::ItemUpdated(u) = &event {
                    if matches!(u.update, ItemUpdate::AcpPermissionRequested(_)) {
                        // Listening before the client can see the request, so no answer
                        // can come before.
                        waits.register(&u.item_id, &tx);
                    }
                }
                let frame = match serde_json::to_string(&event) {
                    Ok(json) => format!("data: {json}\n\n"),
                    Err(e) => {
                        eprintln!("chat-shell-runtime: cannot serialize an event: {e}");
                        continue;
                    }
                };
                if tx.send(Ok(Bytes::from(frame))).await.is_err() {
                    outcome = Waited::Closed;
                    break;
                }
                sent += 1;
                last_write = TokioInstant::now();
            }
            Step::Drop { .. } => {
                saver.flush().await;
                // hyper discards what it has not written yet when the body fails: let it
                // take every frame sent so far, and write them, before breaking.
                while tx.capacity() < tx.max_capacity() && !tx.is_closed() {
                    tokio::time::sleep(Duration::from_millis(1)).await;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
                // An error ends the body without its final chunk: the client sees the
                // connection break mid-answer.
                let _ = tx
                    .send(Err(std::io::Error::other("connection dropped on purpose")))
                    .await;
                return;
            }
            Step::Stall(_) => {}
            Step::Tool { op, .. } => crate::sandbox::run(&state, &thread.id, &op).await,
            Step::AwaitPermission { item_id, timeout } => {
                // Nothing unsaved: the answer's handler writes this item meanwhile.
                saver.flush().await;
                let Some(decided) = waits.receivers.remove(&item_id) else {
                    continue;
                };
                let waited =
                    await_decision(decided, timeout, &tx, &mut last_write, &mut shutdown).await;
                waits.forget(&item_id);
                match waited {
                    Decision::Decided(item) => {
                        let mut s = Script::new(&state.store, state.pace, thread.clone());
                        agent::permission_decided(&mut s, &item);
                        for step in s.into_steps().into_iter().rev() {
                            steps.push_front(step);
                        }
                    }
                    Decision::TimedOut => {
                        println!(
                            "permission not answered in time: thread={} item={item_id}",
                            thread.id
                        );
                    }
                    Decision::Stopped(waited) => {
                        outcome = waited;
                        break;
                    }
                }
            }
        }
    }
    match outcome {
        Waited::Ready => saver.flush().await,
        Waited::Closed => {
            saver.cancelled().await;
            println!(
                "stream closed by client: {kind} thread={} after {sent} events",
                thread.id
            );
        }
        Waited::Shutdown => saver.flush().await,
    }
}

/// The permission requests one stream waits for; whatever is left is unregistered when
/// the stream ends.
struct Registrations {
    state: Arc<AppState>,
    user: User,
    receivers: HashMap<ItemId, oneshot::Receiver<Box<ThreadItem>>>,
}

impl Registrations {
    fn register(&mut self, item_id: &ItemId, tx: &mpsc::Sender<Frame>) {
        let (decided, receiver) = oneshot::channel();
        let waiter = Waiter {
            decided,
            stream: tx.downgrade(),
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

enum Decision {
    Decided(Box<ThreadItem>),
    TimedOut,
    /// The client left or the server is shutting down.
    Stopped(Waited),
}

/// Waits at most `timeout` for a permission decision, sending keepalive comments; stops
/// early when the client leaves or the server shuts down.
async fn await_decision(
    mut decided: oneshot::Receiver<Box<ThreadItem>>,
    timeout: Duration,
    tx: &mpsc::Sender<Frame>,
    last_write: &mut TokioInstant,
    shutdown: &mut watch::Receiver<bool>,
) -> Decision {
    let deadline = TokioInstant::now() + timeout;
    loop {
        if tx.is_closed() {
            return Decision::Stopped(Waited::Closed);
        }
        if *shutdown.borrow() {
            return Decision::Stopped(Waited::Shutdown);
        }
        if TokioInstant::now() >= deadline {
            return Decision::TimedOut;
        }
        let wake = deadline.min(*last_write + KEEPALIVE);
        tokio::select! {
            item = &mut decided => {
                return match item {
                    Ok(item) => Decision::Decided(item),
                    // The registration was dropped: nobody can answer here any more.
                    Err(_) => Decision::TimedOut,
                };
            }
            _ = tokio::time::sleep_until(wake) => {
                if TokioInstant::now() >= *last_write + KEEPALIVE {
                    if tx.send(Ok(Bytes::from_static(b": keepalive\n\n"))).await.is_err() {
                        return Decision::Stopped(Waited::Closed);
                    }
                    *last_write = TokioInstant::now();
                }
            }
            _ = tx.closed() => return Decision::Stopped(Waited::Closed),
            changed = shutdown.changed() => {
                if changed.is_err() || *shutdown.borrow() {
                    return Decision::Stopped(Waited::Shutdown);
                }
            }
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

/// Mirrors the stream into the store as it goes, so `threads.get_by_id` returns what the
/// client saw, partial items included. Each write runs on a blocking thread and is awaited
/// before the event goes out.
struct Saver {
    store: Arc<Store>,
    user: User,
    thread: ThreadId,
    /// Items added and not yet done, with every update applied.
    pending: HashMap<ItemId, ThreadItem>,
    /// The assistant message being streamed: the fork's deltas name fresh ids that point
    /// at nothing and belong to it.
    current_message: Option<ItemId>,
    dirty: HashSet<ItemId>,
    last_flush: Instant,
}

impl Saver {
    fn new(store: Arc<Store>, user: User, thread: ThreadId) -> Self {
        Saver {
            store,
            user,
            thread,
            pending: HashMap::new(),
            current_message: None,
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

    /// Follows `item`, streamed earlier, whose updates this stream sends.
    fn track(&mut self, item: ThreadItem) {
        self.pending.insert(item.id.clone(), item);
    }

    async fn apply(&mut self, event: &StreamEvent) {
        match event {
            StreamEvent::ThreadCreated(e) | StreamEvent::ThreadUpdated(e) => {
                let thread = e.thread.clone();
                self.save(move |db| db.save_thread(&thread)).await;
            }
            StreamEvent::ItemAdded(e) => {
                let item = e.item.clone();
                self.save(move |db| db.save_item(&item)).await;
                if matches!(e.item.kind, ItemKind::AssistantMessage(_)) {
                    self.current_message = Some(e.item.id.clone());
                }
                self.dirty.remove(&e.item.id);
                self.pending.insert(e.item.id.clone(), e.item.clone());
            }
            StreamEvent::ItemDone(e) | StreamEvent::ItemReplaced(e) => {
                let item = e.item.clone();
                self.save(move |db| db.save_item(&item)).await;
                self.dirty.remove(&e.item.id);
                self.pending.remove(&e.item.id);
            }
            StreamEvent::ItemRemoved(e) => {
                let (thread, id) = (self.thread.clone(), e.item_id.clone());
                self.save(move |db| db.delete_item(&thread, &id)).await;
                self.dirty.remove(&e.item_id);
                self.pending.remove(&e.item_id);
            }
            StreamEvent::ItemUpdated(e) => {
                let (id, foreign) = if self.pending.contains_key(&e.item_id) {
                    (e.item_id.clone(), false)
                } else if let Some(current) = self.current_message.clone() {
                    (current, true)
                } else {
                    return;
                };
                let Some(item) = self.pending.get_mut(&id) else {
                    return;
                };
                apply_update(item, &e.update, foreign);
                self.dirty.insert(id);
                // A permission request is saved before the client sees it (its answer is
                // checked against the store), and so is its outcome.
                let permission = matches!(
                    e.update,
                    ItemUpdate::AcpPermissionRequested(_) | ItemUpdate::AcpPermissionResolved(_)
                );
                if permission || self.last_flush.elapsed() >= FLUSH_EVERY {
                    self.flush().await;
                }
            }
            _ => {}
        }
    }

    async fn flush(&mut self) {
        let items: Vec<ThreadItem> = std::mem::take(&mut self.dirty)
            .into_iter()
            .filter_map(|id| self.pending.get(&id).cloned())
            .collect();
        if !items.is_empty() {
            self.save(move |db| items.iter().try_for_each(|item| db.save_item(item)))
                .await;
        }
        self.last_flush = Instant::now();
    }

    /// The client left: keep the partial items, except assistant messages with no text
    /// yet (the SDK drops those too).
    async fn cancelled(&mut self) {
        self.flush().await;
        let empty: Vec<ItemId> = self
            .pending
            .values()
            .filter(|item| {
                matches!(&item.kind, ItemKind::AssistantMessage(m)
                    if m.content.iter().all(|c| c.text.trim().is_empty()))
            })
            .map(|item| item.id.clone())
            .collect();
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

/// Applies one `thread.item.updated` to an item. `foreign`: the update named another id
/// (the fork), so a text delta appends to the message's last part whatever its index.
fn apply_update(item: &mut ThreadItem, update: &ItemUpdate, foreign: bool) {
    fn part(content: &mut Vec<AssistantContent>, index: usize) -> &mut AssistantContent {
        while content.len() <= index {
            content.push(AssistantContent::text(""));
        }
        &mut content[index]
    }
    match (&mut item.kind, update) {
        (ItemKind::AssistantMessage(m), ItemUpdate::ContentPartAdded(p)) => {
            *part(&mut m.content, p.content_index) = p.content.clone();
        }
        (ItemKind::AssistantMessage(m), ItemUpdate::TextDelta(d)) => {
            let index = if foreign {
                m.content.len().saturating_sub(1)
            } else {
                d.content_index
            };
            part(&mut m.content, index).text.push_str(&d.delta);
        }
        (ItemKind::AssistantMessage(m), ItemUpdate::AnnotationAdded(a)) => {
            let annotations = &mut part(&mut m.content, a.content_index).annotations;
            match a.annotation_index {
                Some(i) if i <= annotations.len() => annotations.insert(i, a.annotation.clone()),
                _ => annotations.push(a.annotation.clone()),
            }
        }
        (ItemKind::AssistantMessage(m), ItemUpdate::ContentPartDone(p)) => {
            let target = part(&mut m.content, p.content_index);
            let kept = std::mem::take(&mut target.annotations);
            *target = p.content.clone();
            // Some servers send `annotations: []` here after adding some: keep them.
            if target.annotations.is_empty() {
                target.annotations = kept;
            }
        }
        (ItemKind::Widget(w), ItemUpdate::WidgetTextDelta(d)) => {
            w.widget.append_value(&d.component_id, &d.delta);
        }
        (ItemKind::Widget(w), ItemUpdate::WidgetComponentUpdated(c)) => {
            w.widget.replace(&c.component_id, c.component.clone());
        }
        (ItemKind::Widget(w), ItemUpdate::WidgetRootUpdated(r)) => w.widget = r.widget.clone(),
        (
            ItemKind::Workflow(w),
            ItemUpdate::WorkflowTaskAdded(t) | ItemUpdate::WorkflowTaskUpdated(t),
        ) => {
            let tasks = &mut w.workflow.tasks;
            if t.task_index < tasks.len() {
                tasks[t.task_index] = t.task.clone();
            } else {
                tasks.push(t.task.clone());
            }
        }
        (ItemKind::GeneratedImage(g), ItemUpdate::GeneratedImageUpdated(u)) => {
            g.image = Some(u.image.clone());
        }
        // The ACP extension, as the client's reducer applies it.
        (ItemKind::AcpToolCall(c), ItemUpdate::AcpToolCallUpdated(u)) => {
            c.tool_call.apply(u.update.clone());
        }
        (ItemKind::AcpToolCall(c), ItemUpdate::AcpPermissionRequested(r)) => {
            c.tool_call.apply(r.request.tool_call.clone());
            c.permission = Some(AcpPermission {
                options: r.request.options.clone(),
                outcome: None,
            });
        }
        (ItemKind::AcpToolCall(c), ItemUpdate::AcpPermissionResolved(r)) => {
            c.permission
                .get_or_insert_with(AcpPermission::default)
                .outcome = Some(r.outcome.clone());
        }
        (ItemKind::AcpPlan(p), ItemUpdate::AcpPlanUpdated(plan)) => {
            p.entries = plan.entries.clone();
        }
        (ItemKind::AcpThought(t), ItemUpdate::AcpThoughtChunk(chunk)) => {
            if let Some(text) = chunk.content.text() {
                t.text.push_str(text);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chat_shell_core::protocol::chatkit::{AssistantMessage, ContentPartEvent, TextDelta};

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

    #[test]
    fn foreign_deltas_append_to_the_last_part() {
        let mut item = ThreadItem {
            id: ItemId::from("msg_1"),
            thread_id: None,
            created_at: String::new(),
            kind: ItemKind::AssistantMessage(AssistantMessage {
                content: vec![AssistantContent::text("I've ")],
            }),
        };
        let d = |n, s: &str| {
            ItemUpdate::TextDelta(TextDelta {
                content_index: n,
                delta: s.into(),
            })
        };
        apply_update(&mut item, &d(1, "extracted "), true);
        apply_update(&mut item, &d(2, "it"), true);
        apply_update(&mut item, &d(1, "!"), false);
        let ItemKind::AssistantMessage(m) = &item.kind else {
            unreachable!()
        };
        assert_eq!(m.content[0].text, "I've extracted it");
        assert_eq!(m.content[1].text, "!");
        apply_update(
            &mut item,
            &ItemUpdate::ContentPartDone(ContentPartEvent {
                content_index: 0,
                content: AssistantContent::text("done"),
            }),
            false,
        );
        let ItemKind::AssistantMessage(m) = &item.kind else {
            unreachable!()
        };
        assert_eq!(m.content[0].text, "done");
    }
}
