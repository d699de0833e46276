//! The request handlers, by resource: `POST /chatkit` (`chatkit`) answers the ChatKit
//! requests of `threads` and their `items` and `attachments` as JSON, and streams the
//! answers (`stream`, written by `crate::sse`); `upload` takes and serves attachment bytes;
//! `callback` takes the views tools push; `events` and `agent_ui` answer the other two
//! wire formats; `health` answers load balancers. Thread channels (`threads.subscribe`) are `crate::channel`, runs and their
//! cancel `crate::runs`.

pub mod ag_ui;
pub mod agent_ui;
pub mod attachments;
pub mod callback;
pub mod chatkit;
pub mod events;
pub mod files;
pub mod health;
pub mod items;
pub mod session;
pub mod stream;
pub mod threads;
pub mod transcribe;
pub mod upload;

use crate::errors::{body_timeout, json_error, status_error};
use crate::state::AppState;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::Response;

/// Pages hold this many items or threads unless the request says otherwise (the SDK's).
const DEFAULT_PAGE_SIZE: usize = 20;

fn page_size(limit: Option<u32>) -> usize {
    match limit {
        Some(n) if n > 0 => n as usize,
        _ => DEFAULT_PAGE_SIZE,
    }
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
