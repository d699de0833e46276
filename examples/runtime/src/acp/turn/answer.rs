//! The user's answers to what a running turn asks (`threads.custom_action`
//! `acp.permission_response`, `acp.elicitation_response`): handed to the turn, which
//! replies with the events that confirm it; when no turn waits any more, what still asks
//! is settled as cancelled.

use super::drive::resolved;
use super::elicit::{cancelled, outcome_of};
use super::{fixed_stream, sse, stream_error, Command, Refused};
use crate::acp::Bridge;
use crate::auth::User;
use crate::state::AppState;
use axum::body::Body;
use axum::response::Response;
use chat_shell_core::protocol::acp;
use chat_shell_core::protocol::chatkit::{
    AcpElicitationResolved, Action, ErrorEvent, ItemId, ItemKind, ItemUpdate, ItemUpdatedEvent,
    StreamEvent, Thread, ThreadId, ThreadItem,
};
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::oneshot;

/// The answer to `threads.custom_action` `acp.permission_response`.
pub(super) async fn permission(
    bridge: Arc<Bridge>,
    state: &Arc<AppState>,
    user: User,
    thread_id: ThreadId,
    item_id: Option<ItemId>,
    action: Action,
) -> Response {
    let tool_call_id = action
        .payload
        .get("toolCallId")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let outcome = action
        .payload
        .get("outcome")
        .cloned()
        .and_then(|o| serde_json::from_value::<acp::PermissionOutcome>(o).ok());
    let error = stream_error;
    let Some(outcome) = outcome else {
        return error("acp.permission_response needs payload.outcome".into());
    };
    // Only the owner's threads: the same answer as for a thread that does not exist.
    let (thread, item) = match owned_item(state, &user, &thread_id, item_id.as_ref()).await {
        Ok(owned) => owned,
        Err(response) => return response,
    };
    let command = |reply| Command::Answer {
        tool_call_id: tool_call_id.clone(),
        outcome: outcome.clone(),
        reply,
    };
    let why = match answer_turn(&bridge, thread.id.as_str(), command, &error).await {
        Ok(response) => return response,
        Err(why) => why,
    };
    // Nothing is waiting for this answer (the turn ended, the runtime restarted): a card
    // still asking is settled as cancelled, so it stops asking.
    let mut events = Vec::new();
    if let Some(mut item) = item {
        if let ItemKind::AcpToolCall(call) = &mut item.kind {
            if let Some(permission) = call.permission.as_mut().filter(|p| p.outcome.is_none()) {
                permission.outcome = Some(acp::PermissionOutcome::Cancelled);
                let saved = item.clone();
                let _ = state.db(&user, move |db| db.save_item(&saved)).await;
                events.push(resolved(&item.id, acp::PermissionOutcome::Cancelled));
            }
        }
    }
    if outcome != acp::PermissionOutcome::Cancelled {
        events.push(StreamEvent::Error(ErrorEvent {
            code: "acp.permission_expired".into(),
            message: Some(format!(
                "The agent is no longer waiting for this answer: {why}."
            )),
            allow_retry: false,
        }));
    }
    fixed_stream(&events)
}

/// The answer to `threads.custom_action` `acp.elicitation_response`.
pub(super) async fn elicitation(
    bridge: Arc<Bridge>,
    state: &Arc<AppState>,
    user: User,
    thread_id: ThreadId,
    item_id: Option<ItemId>,
    action: Action,
) -> Response {
    let error = stream_error;
    let outcome = match outcome_of(&action.payload) {
        Ok(outcome) => outcome,
        Err(e) => return error(e),
    };
    let Some(item_id) = item_id else {
        return error("acp.elicitation_response names the item it answers".into());
    };
    // Only the owner's threads: the same answer as for a thread that does not exist.
    let (thread, item) = match owned_item(state, &user, &thread_id, Some(&item_id)).await {
        Ok(owned) => owned,
        Err(response) => return response,
    };
    let Some(mut item) = item.filter(|i| matches!(i.kind, ItemKind::AcpElicitation(_))) else {
        return error(format!("{item_id} is not an elicitation of this thread"));
    };
    let command = |reply| Command::Elicit {
        item: item_id.clone(),
        outcome: outcome.clone(),
        reply,
    };
    let why = match answer_turn(&bridge, thread.id.as_str(), command, &error).await {
        Ok(response) => return response,
        Err(why) => why,
    };
    // Nothing is waiting for this answer (the turn ended, the runtime restarted): a form
    // still asking is settled as cancelled, so it stops asking.
    let mut events = Vec::new();
    if let ItemKind::AcpElicitation(e) = &mut item.kind {
        if e.outcome.is_none() {
            e.outcome = Some(cancelled());
            let saved = item.clone();
            let _ = state.db(&user, move |db| db.save_item(&saved)).await;
            events.push(StreamEvent::ItemUpdated(ItemUpdatedEvent {
                item_id: item.id.clone(),
                update: ItemUpdate::AcpElicitationResolved(AcpElicitationResolved {
                    outcome: cancelled(),
                }),
            }));
        }
    }
    if outcome.action != "cancel" {
        events.push(StreamEvent::Error(ErrorEvent {
            code: "acp.elicitation_expired".into(),
            message: Some(format!(
                "The agent is no longer waiting for this answer: {why}."
            )),
            allow_retry: false,
        }));
    }
    fixed_stream(&events)
}

/// Hands an answer (a permission's, an elicitation's) to the thread's running turn and
/// waits up to 10 s for what the turn emitted: the answer's stream, or the refusal of an
/// invalid one. `Err(why)`: no turn is waiting for it (the caller settles what still asks).
async fn answer_turn(
    bridge: &Bridge,
    thread_id: &str,
    command: impl FnOnce(oneshot::Sender<Result<Vec<StreamEvent>, Refused>>) -> Command,
    error: impl FnOnce(String) -> Response,
) -> Result<Response, String> {
    let mut why = "the agent's turn has ended".to_owned();
    if let Some(turn) = bridge.slot(thread_id, |s| s.turn.clone()) {
        let (reply_tx, reply_rx) = oneshot::channel();
        if turn.send(command(reply_tx)).is_ok() {
            match tokio::time::timeout(Duration::from_secs(10), reply_rx).await {
                Ok(Ok(Ok(events))) => return Ok(fixed_stream(&events)),
                Ok(Ok(Err(Refused::Invalid(e)))) => return Ok(error(e)),
                Ok(Ok(Err(Refused::NotPending(e)))) => why = e,
                _ => {}
            }
        }
    }
    Err(why)
}

/// The user's thread and, when named, its item. `Err` is the reply to send: an empty
/// stream for a thread that is not theirs (the same as for one that does not exist), or
/// the store's failure.
async fn owned_item(
    state: &AppState,
    user: &User,
    thread_id: &ThreadId,
    item_id: Option<&ItemId>,
) -> Result<(Thread, Option<ThreadItem>), Response> {
    let (id, item) = (thread_id.clone(), item_id.cloned());
    let owned = state
        .db(user, move |db| {
            let thread = db.thread(&id)?;
            let item = match (&thread, &item) {
                (Some(_), Some(item)) => db.item(&id, item)?,
                _ => None,
            };
            Ok((thread, item))
        })
        .await?;
    match owned {
        (Some(thread), item) => Ok((thread, item)),
        (None, _) => Err(sse(Body::empty())),
    }
}
