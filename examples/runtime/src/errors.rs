//! The runtime's error answers: `{"error": message, "code": code}` with the right status.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

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
