//! A turn's start: a message or a retry saved and sent to the agent as the thread's run,
//! whose stream the client reads; an answer to what a running turn asks goes to `answer`.

use super::answer;
use super::drive::run;
use super::out::Out;
use super::prompt::{prepare, Start};
use super::{sse, Frame};
use crate::auth::User;
use crate::errors;
use crate::runs::Seat;
use crate::state::AppState;
use axum::body::Body;
use axum::response::Response;
use chat_shell_core::protocol::chatkit::{
    RequestBody, ACP_ELICITATION_ACTION, ACP_PERMISSION_ACTION,
};
use std::sync::Arc;
use tokio::sync::mpsc;

/// A streaming ChatKit request, answered by the agent when it is one ACP handles (a
/// message, a retry, a permission's or an elicitation's answer); otherwise handed back
/// (also when `--acp` is off).
pub(crate) async fn stream(
    state: &Arc<AppState>,
    user: User,
    base: String,
    body: RequestBody,
    seat: &Seat,
) -> Result<Response, RequestBody> {
    let Some(bridge) = state.acp.clone() else {
        return Err(body);
    };
    let start = match body {
        RequestBody::ThreadsCreate { input } => Start::Message(None, input),
        RequestBody::AddUserMessage { thread_id, input } => Start::Message(Some(thread_id), input),
        RequestBody::RetryAfterItem { thread_id, item_id } => Start::Retry(thread_id, item_id),
        RequestBody::CustomAction {
            thread_id,
            item_id,
            action,
        } if action.kind == ACP_PERMISSION_ACTION => {
            return Ok(answer::permission(bridge, state, user, thread_id, item_id, action).await);
        }
        RequestBody::CustomAction {
            thread_id,
            item_id,
            action,
        } if action.kind == ACP_ELICITATION_ACTION => {
            return Ok(answer::elicitation(bridge, state, user, thread_id, item_id, action).await);
        }
        other => return Err(other),
    };
    let prepared = {
        let (store, user) = (state.store.clone(), user.clone());
        let workspace = bridge.config.workspace.clone();
        tokio::task::spawn_blocking(move || {
            prepare(&store.user(&user.0), &base, start, workspace.as_ref())
        })
        .await
    };
    let prepared = match prepared {
        Ok(Ok(Some(p))) => p,
        // An unknown thread (or someone else's): 200 and no event, like the scripted runtime.
        Ok(Ok(None)) => return Ok(sse(Body::empty())),
        Ok(Err(e)) => return Ok(errors::internal(e)),
        Err(e) => return Ok(errors::internal(e)),
    };
    let (tx, rx) = mpsc::channel::<Frame>(64);
    // Registered before the response goes out: a cancel sent right after it finds the run.
    let handle = state.runs.start(&user, &prepared.thread.id, &tx, seat);
    let changes = bridge.slot(prepared.thread.id.as_str(), |s| s.changes.clone());
    let out = Out::new(
        state.clone(),
        user,
        prepared.thread.clone(),
        tx,
        handle,
        changes,
    );
    tokio::spawn(run(state.clone(), bridge, out, prepared));
    Ok(sse(Body::from_stream(futures_util::stream::unfold(
        rx,
        |mut rx| async move { rx.recv().await.map(|frame| (frame, rx)) },
    ))))
}
