//! What every handler reads of a request and says of it: its JSON body, the page size it
//! asks for, the base URL it reached the runtime at, its media types, and the log line of
//! a request the handler logs itself.

use crate::errors::{body_timeout, json_error, status_error};
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::Response;
use std::time::Instant;

/// Pages hold this many items or threads unless the request says otherwise (the SDK's).
pub(crate) const DEFAULT_PAGE_SIZE: usize = 20;

pub(crate) fn page_size(limit: Option<u32>) -> usize {
    match limit {
        Some(n) if n > 0 => n as usize,
        _ => DEFAULT_PAGE_SIZE,
    }
}

/// `http://host:port` as the client reached us, then where a host app nests the routes
/// (`prefix`, `/chat`), for upload and preview URLs.
pub fn base_url(authority: &str, prefix: &str, headers: &HeaderMap) -> String {
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .filter(|h| {
            !h.is_empty()
                && h.chars()
                    .all(|c| c.is_ascii_alphanumeric() || ".-:[]".contains(c))
        })
        .unwrap_or(authority);
    format!("http://{host}{prefix}")
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
    if mime_essence(content_type) != "application/json" {
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

/// `text/plain; charset=utf-8` → `text/plain`.
pub fn mime_essence(value: &str) -> String {
    value
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
}

/// Marks a response whose request the `/chatkit`, `/events` or `/agent-ui` handler logged
/// itself.
#[derive(Clone, Copy)]
pub(crate) struct Logged;

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
