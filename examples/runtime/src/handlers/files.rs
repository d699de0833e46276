//! `acp.files.search` on `POST /chatkit`: the agent's workspace files for @-mentions, as
//! chatkit-js entities (`acp::files` lists and ranks them). A JSON answer
//! `{"data": [entity, …], "truncated": bool}`, scoped to the user like the session
//! requests (another user's thread is the same 404 as an unknown one). Without `--acp`,
//! 400 `no_agent` (as `acp.session.set`); with an agent but no `--workspace`, 400
//! `no_workspace`: the page then offers no file mentions (the session state's
//! `file_mentions` is false in both cases, so it does not ask).

use crate::acp;
use crate::auth::User;
use crate::errors::{bad_request, internal, json_error, not_found};
use crate::labels;
use crate::state::AppState;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use chat_shell_core::protocol::chatkit::ThreadId;
use serde::Deserialize;
use serde_json::{json, Value};
use std::sync::Arc;

/// The longest query taken, in characters.
pub const MAX_QUERY_CHARS: usize = 256;
/// `limit` when the request gives none, and the largest one taken.
pub const DEFAULT_LIMIT: u32 = 20;
pub const MAX_LIMIT: u32 = 50;

#[derive(Deserialize)]
struct Params {
    /// `None`: the user's draft (the workspace is the same for every thread).
    #[serde(default)]
    thread_id: Option<ThreadId>,
    #[serde(default)]
    query: String,
    #[serde(default)]
    limit: Option<u32>,
}

/// `acp.files.search` (`request` is the whole body).
pub async fn search(state: &Arc<AppState>, user: User, request: &Value) -> Response {
    let params = match request
        .get("params")
        .cloned()
        .map(serde_json::from_value::<Params>)
    {
        Some(Ok(params)) => params,
        Some(Err(e)) => return bad_request(&format!("invalid request: {e}")),
        None => return bad_request("invalid request: missing params"),
    };
    let chars = params.query.chars().count();
    if chars > MAX_QUERY_CHARS
        || labels::has_forbidden(&params.query)
        || params.query.chars().any(char::is_control)
    {
        return bad_request(&format!(
            "query has at most {MAX_QUERY_CHARS} characters, none of them control characters or \
             bidirectional overrides"
        ));
    }
    let limit = params.limit.unwrap_or(DEFAULT_LIMIT);
    if !(1..=MAX_LIMIT).contains(&limit) {
        return bad_request(&format!("limit is 1 to {MAX_LIMIT}"));
    }
    let Some(bridge) = state.acp.clone() else {
        return json_error(
            StatusCode::BAD_REQUEST,
            "no_agent",
            "no ACP agent runs behind this endpoint (start the runtime with --acp)",
        );
    };
    if let Some(thread_id) = params.thread_id {
        let id = thread_id.clone();
        match state.db(&user, move |db| db.thread(&id)).await {
            Ok(Some(_)) => {}
            Ok(None) => return not_found(&format!("unknown thread {thread_id}")),
            Err(response) => return response,
        }
    }
    let Some(files) = bridge.files() else {
        return json_error(
            StatusCode::BAD_REQUEST,
            "no_workspace",
            "the agent has no workspace to list (start the runtime with --workspace)",
        );
    };
    let listing = match files.listing().await {
        Ok(listing) => listing,
        Err(e) => return internal(e),
    };
    // Ranking up to 20,000 paths is work for a blocking thread too.
    let query = params.query;
    let ranked = tokio::task::spawn_blocking(move || {
        let data: Vec<Value> = listing
            .search(&query, limit as usize)
            .into_iter()
            .map(acp::files::entity)
            .collect();
        json!({"data": data, "truncated": listing.truncated})
    })
    .await;
    match ranked {
        Ok(answer) => Json(answer).into_response(),
        Err(e) => internal(e),
    }
}
