//! `POST /chatkit`: reads the ChatKit request, refuses what no honest client sends, and
//! hands it to its resource (`threads`, `items`, `attachments`, `transcribe`), to a streamed answer
//! (`stream`), to the thread channel, to a run's cancel, to the ACP session controls
//! (`session`) or to the workspace's files for @-mentions (`files`).

use super::attachments::{self, MAX_MIME_CHARS};
use super::request::{base_url, json_body, logged};
use super::{items, stream, threads, transcribe};
use crate::auth::User;
use crate::clients::Client;
use crate::errors::{bad_request, internal};
use crate::labels;
use crate::runs;
use crate::state::AppState;
use crate::store;
use crate::{channel, handlers::upload};
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Extension, State};
use axum::http::HeaderMap;
use axum::response::Response;
use chat_shell_core::protocol::chatkit::{ChatRequest, RequestBody};
use serde_json::Value;
use std::sync::Arc;
use std::time::Instant;

/// A larger `limit` is refused (400).
pub const MAX_PAGE_SIZE: u32 = 1000;
/// Longest thread title accepted by `threads.update`, in characters.
pub const MAX_TITLE_CHARS: usize = 256;
/// Longest attachment name accepted by `attachments.create`, in characters.
pub const MAX_NAME_CHARS: usize = 255;

pub(crate) async fn chatkit(
    State(state): State<Arc<AppState>>,
    Extension(user): Extension<User>,
    Extension(client): Extension<Client>,
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
    if let Some(field) = raw.as_ref().ok().and_then(labels::nul_id_field) {
        let kind = raw
            .as_ref()
            .ok()
            .and_then(|r| r.get("type")?.as_str().map(log_safe));
        return log(
            kind.as_deref().unwrap_or("-"),
            bad_request(&format!("{field} holds a NUL: not an id or cursor")),
        );
    }
    // The live channel of a thread and the cancel of its run: extensions the protocol's
    // request types do not know.
    if let Ok(request) = &raw {
        match request.get("type").and_then(Value::as_str) {
            Some("threads.subscribe") => {
                let response = channel::subscribe(&state, user, client, request).await;
                return log("threads.subscribe", response);
            }
            Some("threads.cancel_run") => {
                let response = runs::cancel(&state, user, request).await;
                return log("threads.cancel_run", response);
            }
            // The ACP session controls (`handlers::session`).
            Some(
                kind @ ("acp.session.get" | "acp.session.set" | "acp.sessions.list"
                | "acp.sessions.open"),
            ) => {
                let response = super::session::request(&state, user, client, request).await;
                return log(kind, response);
            }
            // The workspace's files for @-mentions (`handlers::files`).
            Some("acp.files.search") => {
                let response = super::files::search(&state, user, request).await;
                return log("acp.files.search", response);
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
    let base = base_url(&state.authority, &state.prefix, &headers);
    let response = if request.body.is_streaming() {
        stream::stream(&state, user, client, base, request.body).await
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

/// Runs on a blocking thread.
fn answer_json(
    state: &AppState,
    user: &User,
    base: &str,
    body: RequestBody,
) -> store::Result<Response> {
    let store = &state.store.user(&user.0);
    match body {
        RequestBody::GetThread { thread_id } => threads::get(store, &thread_id),
        RequestBody::ListThreads {
            limit,
            after,
            order,
        } => threads::list(store, limit, after.as_deref(), order),
        RequestBody::UpdateThread { thread_id, title } => {
            threads::update(store, &thread_id, &title)
        }
        RequestBody::DeleteThread { thread_id } => {
            threads::delete(store, &thread_id, state.acp.as_ref())
        }
        RequestBody::SelectBranch { thread_id, item_id } => {
            threads::select_branch(store, &thread_id, &item_id)
        }
        RequestBody::ListItems {
            thread_id,
            limit,
            after,
            order,
        } => items::list(store, &thread_id, limit, after.as_deref(), order),
        RequestBody::Feedback {
            thread_id,
            item_ids,
            kind,
        } => items::feedback(store, &thread_id, &item_ids, kind),
        RequestBody::SyncCustomAction {
            thread_id,
            item_id,
            action,
        } => items::sync_custom_action(store, &thread_id, item_id.as_ref(), &action),
        RequestBody::CreateAttachment {
            name,
            size,
            mime_type,
        } => attachments::create(store, base, &name, &mime_type, size),
        RequestBody::DeleteAttachment { attachment_id } => {
            attachments::delete(store, attachment_id.as_str())
        }
        RequestBody::Transcribe {
            audio_base64,
            mime_type,
        } => Ok(transcribe::transcribe(&audio_base64, &mime_type)),
        other => Ok(bad_request(&format!(
            "{} is a streaming request",
            other.type_name()
        ))),
    }
}
