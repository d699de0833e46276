//! `POST /callback`: tools push views into threads (`view_update`, see `crate::channel`)
//! with `Authorization: Bearer <--callback-token>`. The token is checked before the body is
//! read, and a view whose channel line would be longer than the element reads is refused
//! (413).

use super::request::{json_body, logged};
use crate::channel::{outbox, publish, view_line_len, ViewUpdate};
use crate::errors::{bad_request, internal, json_error, not_found};
use crate::state::AppState;
use axum::body::Bytes;
use axum::extract::{FromRequest, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Instant;

/// The largest callback body: a 50,000-line diff fits. The view's channel line must also
/// fit the element's limit on one line ([`outbox::MAX_LINE`], the same 8 MiB).
pub const MAX_CALLBACK_BODY: usize = 8 * 1024 * 1024;
/// The longest `view_type`.
pub const MAX_VIEW_TYPE_CHARS: usize = 64;
/// Whether `s` is a valid `view_type`: 1 to 64 of `[A-Za-z0-9_.-]`.
pub fn valid_view_type(s: &str) -> bool {
    (1..=MAX_VIEW_TYPE_CHARS).contains(&s.len())
        && s.bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-'))
}

/// Constant-time comparison of the presented bearer token with the configured one.
fn token_matches(headers: &HeaderMap, expected: &str) -> bool {
    let Some(value) = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
    else {
        return false;
    };
    let value = value.trim();
    let (scheme, token) = value.split_once(' ').unwrap_or((value, ""));
    if !scheme.eq_ignore_ascii_case("bearer") {
        return false;
    }
    let (a, b) = (token.trim().as_bytes(), expected.as_bytes());
    // The length is not secret; the bytes are compared without an early exit.
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Checks a callback body; the error is the 400's message.
pub fn parse_update(body: &[u8]) -> Result<ViewUpdate, String> {
    let value: Value =
        serde_json::from_slice(body).map_err(|e| format!("the body is not JSON: {e}"))?;
    let Some(object) = value.as_object() else {
        return Err("the body must be a JSON object".into());
    };
    match object.get("type").and_then(Value::as_str) {
        Some("view_update") => {}
        Some(other) => {
            return Err(format!(
                "type must be \"view_update\", not {:?}",
                other.chars().take(64).collect::<String>()
            ))
        }
        None => return Err("type must be \"view_update\"".into()),
    }
    let group_id = match object.get("group_id").and_then(Value::as_str) {
        Some(id) if !id.is_empty() && id.len() <= 128 && !crate::labels::bad_id(id) => {
            id.to_owned()
        }
        _ => return Err("group_id must be a thread id".into()),
    };
    let view_type = match object.get("view_type").and_then(Value::as_str) {
        Some(t) if valid_view_type(t) => t.to_owned(),
        _ => {
            return Err(format!(
            "view_type must be 1 to {MAX_VIEW_TYPE_CHARS} characters of A-Z, a-z, 0-9, _, . and -"
        ))
        }
    };
    let content = match object.get("content") {
        Some(c @ Value::Object(_)) => c,
        _ => return Err("content must be a JSON object ({} clears the view)".into()),
    };
    let content_json = serde_json::to_string(content).map_err(|e| e.to_string())?;
    Ok(ViewUpdate {
        group_id,
        view_type,
        content_json,
    })
}

/// 413: the update's channel line would be longer than the element reads.
fn too_large(what: &str) -> Response {
    json_error(
        StatusCode::PAYLOAD_TOO_LARGE,
        "payload_too_large",
        &format!(
            "{what}: a view's channel line is at most {} bytes (the element's maxEventBytes)",
            outbox::MAX_LINE
        ),
    )
}

/// `POST /callback`: a tool's `view_update`. The token is checked on the headers alone:
/// the body is read only for a tool that holds it.
pub async fn callback(State(state): State<Arc<AppState>>, request: Request) -> Response {
    let headers = request.headers().clone();
    let started = Instant::now();
    let log = |response: Response| logged("/callback", "view_update", started, response);
    let Some(token) = state.callback_token.as_deref() else {
        return log(json_error(
            StatusCode::NOT_FOUND,
            "callback_disabled",
            "the tool callback is off: start the runtime with --callback-token TOKEN \
             (or CHAT_SHELL_CALLBACK_TOKEN) and send it as Authorization: Bearer TOKEN",
        ));
    };
    if !token_matches(&headers, token) {
        let mut refused = json_error(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "POST /callback needs Authorization: Bearer <the --callback-token>",
        );
        refused
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        return log(refused);
    }
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > MAX_CALLBACK_BODY as u64) {
        return log(too_large_body());
    }
    // The route's body limit applies here too (a chunked body past it: 413).
    let body = Bytes::from_request(request, &()).await;
    let body = match json_body("/callback", &headers, body) {
        Ok(body) => body,
        Err(refused) => return log(refused),
    };
    let update = match parse_update(&body) {
        Ok(update) => update,
        Err(message) => return log(bad_request(&message)),
    };
    drop(body);
    if view_line_len(&update.view_type, update.content_json.len()) > outbox::MAX_LINE {
        return log(too_large("view_update"));
    }
    let response = match publish(&state, update).await {
        Ok(Some(record)) => Json(json!({"ok": true, "seq": record.seq})).into_response(),
        Ok(None) => not_found("unknown thread (group_id)"),
        Err(e) => internal(e),
    };
    log(response)
}

fn too_large_body() -> Response {
    json_error(
        StatusCode::PAYLOAD_TOO_LARGE,
        "payload_too_large",
        &format!("POST /callback takes at most {MAX_CALLBACK_BODY} bytes"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn view_types_are_short_names() {
        for ok in ["diff", "a", "x.y-z_1", &"a".repeat(64)] {
            assert!(valid_view_type(ok), "{ok}");
        }
        for bad in ["", "a b", "diff/x", "é", &"a".repeat(65), "<script>"] {
            assert!(!valid_view_type(bad), "{bad}");
        }
    }

    #[test]
    fn bearer_tokens_compare_whole() {
        let mut h = HeaderMap::new();
        assert!(!token_matches(&h, "secret-token-0123"));
        h.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("Bearer secret-token-0123"),
        );
        assert!(token_matches(&h, "secret-token-0123"));
        assert!(!token_matches(&h, "secret-token-012"));
        assert!(!token_matches(&h, "secret-token-0124"));
        h.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("Basic secret-token-0123"),
        );
        assert!(!token_matches(&h, "secret-token-0123"));
    }

    #[test]
    fn updates_are_checked() {
        let ok = parse_update(
            br#"{"type":"view_update","group_id":"thr_1","view_type":"diff","content":{"patch":"x","a":1}}"#,
        )
        .unwrap();
        assert_eq!(ok.content_json, r#"{"patch":"x","a":1}"#);
        for bad in [
            &br#"[]"#[..],
            br#"{"type":"other","group_id":"thr_1","view_type":"diff","content":{}}"#,
            br#"{"group_id":"thr_1","view_type":"diff","content":{}}"#,
            br#"{"type":"view_update","view_type":"diff","content":{}}"#,
            br#"{"type":"view_update","group_id":"thr_1","view_type":"","content":{}}"#,
            br#"{"type":"view_update","group_id":"thr_1","view_type":"diff","content":[]}"#,
            br#"{"type":"view_update","group_id":"thr_1","view_type":"diff","content":"x"}"#,
            br#"{"type":"view_update","group_id":"thr_1","view_type":"diff"}"#,
            // PostgreSQL refuses a NUL in text: a 400 here, not a 500 at the store.
            br#"{"type":"view_update","group_id":"thr\u0000","view_type":"diff","content":{}}"#,
            b"nope",
        ] {
            assert!(
                parse_update(bad).is_err(),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }
}
