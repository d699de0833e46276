//! `GET /healthz` (the process answers) and `GET /readyz` (it can serve: the database
//! answers, the listener of a shared database is connected, it is not shutting down), for
//! load balancers and orchestrators. Outside the guard: they reveal nothing and make no
//! identity.

use crate::state::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;

/// A database slower than this to answer is taken as down.
const READY_WAIT: Duration = Duration::from_secs(2);

pub async fn healthz() -> Response {
    Json(json!({"status": "ok"})).into_response()
}

pub async fn readyz(State(state): State<Arc<AppState>>) -> Response {
    let store = state.store.clone();
    let ping = tokio::time::timeout(
        READY_WAIT,
        tokio::task::spawn_blocking(move || store.ping()),
    )
    .await;
    let database = match ping {
        Ok(Ok(Ok(()))) => true,
        Ok(Ok(Err(e))) => {
            eprintln!("chat-shell-runtime: not ready: {e}");
            false
        }
        _ => false,
    };
    let listening = state.shared.as_ref().is_none_or(|s| s.listening());
    let stopping = *state.shutdown.borrow();
    // Which check failed, never why (the log says).
    let checks = json!({"database": database, "listener": listening, "stopping": stopping});
    if database && listening && !stopping {
        Json(json!({"status": "ready", "checks": checks})).into_response()
    } else {
        (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(json!({"status": "unavailable", "checks": checks})),
        )
            .into_response()
    }
}
