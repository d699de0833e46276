//! `threads.cancel_run`: the HTTP side of Stop, answered once the run has stopped and
//! saved (or is under way on another instance, which is asked through the database).

use crate::auth::User;
use crate::errors::{bad_request, not_found};
use crate::state::AppState;
use axum::response::{IntoResponse, Response};
use axum::Json;
use chat_shell_core::protocol::chatkit::CancelRunRequest;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

/// `threads.cancel_run` answers once the run has stopped and saved, or after this long.
const CANCEL_WAIT: Duration = Duration::from_secs(5);

/// `threads.cancel_run` on `POST /chatkit` (`request` is the whole body): stops the run of
/// one of `user`'s threads and answers once it has stopped and saved.
pub async fn cancel(state: &Arc<AppState>, user: User, request: &Value) -> Response {
    let thread_id = match serde_json::from_value::<CancelRunRequest>(request.clone()) {
        Ok(CancelRunRequest::CancelRun { thread_id }) => thread_id,
        Err(e) => return bad_request(&format!("invalid request: {e}")),
    };
    let id = thread_id.clone();
    match state.db(&user, move |db| db.thread(&id)).await {
        Ok(Some(_)) => {}
        Ok(None) => return not_found(&format!("unknown thread {thread_id}")),
        Err(refused) => return refused,
    }
    let Some(run) = state.runs.cancel(&user, &thread_id) else {
        // Maybe under way on another instance.
        let cancelled = match &state.shared {
            Some(shared) => shared.cancel(&user.0, &thread_id, CANCEL_WAIT).await,
            None => false,
        };
        return Json(json!({"cancelled": cancelled})).into_response();
    };
    let mut ended = run.ended.subscribe();
    if tokio::time::timeout(CANCEL_WAIT, ended.wait_for(|e| *e))
        .await
        .is_err()
    {
        // Asked to stop all the same; it will, and save, when its step ends.
        eprintln!("chat-shell-runtime: the run of thread {thread_id} is slow to stop");
    }
    Json(json!({"cancelled": true})).into_response()
}
