//! Streamed ChatKit requests (`threads.create`, `threads.add_user_message`, retries, tool
//! outputs, structured input, custom actions, permission answers): the scripted answer is
//! built up front (`crate::scripts`) and written as a run by `crate::sse`.

use super::items::{message_text, user_message};
use super::threads::{unknown_thread, with_items};
use crate::agent;
use crate::auth::User;
use crate::clients::Client;
use crate::errors::{bad_request, internal, json_error, not_found};
use crate::scripts::{self, Script};
use crate::sse::sse;
use crate::sse::writer::{spawn_writer, Prepared};
use crate::state::AppState;
use crate::store::{self, Fork, UserStore};
use axum::body::Body;
use axum::http::StatusCode;
use axum::response::Response;
use chat_shell_core::model::is_ghost;
use chat_shell_core::protocol::chatkit::{
    Action, ClientToolStatus, ItemId, ItemKind, ItemUpdate, Page, RequestBody, StreamEvent, Thread,
    ThreadEvent, ThreadId, ACP_PERMISSION_ACTION,
};
use std::sync::Arc;

pub(crate) async fn stream(
    state: &Arc<AppState>,
    user: User,
    client: Client,
    base: String,
    body: RequestBody,
) -> Response {
    // Held until the run has started (or the request is answered without one).
    let seat = match state.runs.admit(&user, client) {
        Ok(seat) => seat,
        Err(refused) => return refused,
    };
    // With --acp, messages, retries and permission answers go to the agent.
    let body = match crate::acp::stream(state, user.clone(), base.clone(), body, &seat).await {
        Ok(response) => return response,
        Err(body) => body,
    };
    let kind = body.type_name();
    if let RequestBody::CustomAction {
        thread_id,
        item_id,
        action,
    } = &body
    {
        if action.kind == ACP_PERMISSION_ACTION {
            let answered = {
                let (state, user) = (state.clone(), user.clone());
                let (thread_id, item_id, action) =
                    (thread_id.clone(), item_id.clone(), action.clone());
                tokio::task::spawn_blocking(move || {
                    answer_permission(&state, &user, &thread_id, item_id.as_ref(), &action)
                })
                .await
            };
            return match answered {
                Ok(Ok(Ok(p))) => sse(spawn_writer(state.clone(), user, kind, p, &seat)),
                Ok(Ok(Err(refused))) => refused,
                Ok(Err(e)) => internal(e),
                Err(e) => internal(e),
            };
        }
    }
    let prepared = {
        let state = state.clone();
        let user = user.clone();
        tokio::task::spawn_blocking(move || prepare(&state, &user, &base, body)).await
    };
    match prepared {
        Ok(Ok(Some(p))) => sse(spawn_writer(state.clone(), user, kind, p, &seat)),
        // What the SDK does for a thread it does not know (or, here, that belongs to
        // someone else): 200 and not a single event.
        Ok(Ok(None)) => sse(Body::empty()),
        Ok(Err(e)) => internal(e),
        Err(e) => internal(e),
    }
}

/// The longest user message taken, in characters (the demo page's `max-length`).
pub const MAX_MESSAGE_CHARS: usize = 200_000;

/// A message's length in characters: its text and its mentions' titles.
fn message_chars(input: &chat_shell_core::protocol::chatkit::UserMessageInput) -> usize {
    use chat_shell_core::protocol::chatkit::UserContent;
    input
        .content
        .iter()
        .map(|c| match c {
            UserContent::InputText(t) => t.text.chars().count(),
            UserContent::InputTag(t) => t.text.chars().count(),
            UserContent::Other(_) => 0,
        })
        .sum()
}

/// Builds the whole answer up front (scripts are deterministic); `None` when the thread
/// (or the item to retry) does not exist for `owner`. Runs on a blocking thread.
fn prepare(
    state: &AppState,
    owner: &User,
    base: &str,
    body: RequestBody,
) -> store::Result<Option<Prepared>> {
    let store = &state.store.user(&owner.0);
    let (thread, mut s) = match &body {
        RequestBody::ThreadsCreate { .. } => {
            let thread = store.create_thread()?;
            let mut s = Script::new(&state.store, state.pace, thread.clone());
            s.emit(StreamEvent::ThreadCreated(ThreadEvent {
                thread: with_items(thread.clone(), Page::default()),
            }));
            (thread, s)
        }
        RequestBody::AddUserMessage { thread_id, .. }
        | RequestBody::AddClientToolOutput { thread_id, .. }
        | RequestBody::AddStructuredInput { thread_id, .. }
        | RequestBody::RetryAfterItem { thread_id, .. }
        | RequestBody::EditUserMessage { thread_id, .. }
        | RequestBody::RegenerateAfterItem { thread_id, .. }
        | RequestBody::CustomAction { thread_id, .. } => match store.thread(thread_id)? {
            Some(thread) => {
                let s = Script::new(&state.store, state.pace, thread.clone());
                (thread, s)
            }
            None => return Ok(None),
        },
        _ => return Ok(None),
    };
    s.set_callback(state.callback_token.is_some());
    match body {
        RequestBody::ThreadsCreate { input }
        | RequestBody::AddUserMessage { input, .. }
        | RequestBody::EditUserMessage { input, .. }
            if message_chars(&input) > MAX_MESSAGE_CHARS =>
        {
            // Not stored: the page keeps the draft (the element knows the limit from its
            // `max-length` and says so before sending).
            s.error(
                "stream.error",
                Some(format!(
                    "This message is {} characters long; this server takes at most {MAX_MESSAGE_CHARS}.",
                    message_chars(&input)
                )),
                false,
            );
        }
        RequestBody::ThreadsCreate { input } | RequestBody::AddUserMessage { input, .. } => {
            let user = user_message(store, base, &thread.id, input)?;
            s.done(&user);
            let text = message_text(&user);
            let attempt = state.next_attempt(&user.id);
            scripts::respond(&mut s, &user.id, &text, attempt);
            // A ghost message (hidden from the user) never names the thread.
            let first = first_user_text(store, &thread.id)?.or_else(|| {
                (!matches!(&user.kind, ItemKind::UserMessage(m) if is_ghost(m))).then_some(text)
            });
            if let Some(first) = first {
                s.finish(&first);
            }
        }
        RequestBody::EditUserMessage {
            thread_id,
            item_id,
            input,
        } => {
            if let Some(refused) = branch_refused(store, &thread, &item_id)? {
                s.error("stream.error", Some(refused), false);
            } else if store.fork(&thread_id, &item_id, Fork::Beside)?.is_some() {
                let user = user_message(store, base, &thread_id, input)?;
                s.done(&user);
                let attempt = state.next_attempt(&user.id);
                scripts::respond(&mut s, &user.id, &message_text(&user), attempt);
                finish(store, &mut s, &thread_id)?;
            }
        }
        RequestBody::RegenerateAfterItem { thread_id, item_id } => {
            if let Some(refused) = branch_refused(store, &thread, &item_id)? {
                s.error("stream.error", Some(refused), false);
            } else if let Some(item) = store.item(&thread_id, &item_id)? {
                store.fork(&thread_id, &item_id, Fork::Below)?;
                let attempt = state.next_attempt(&item_id);
                scripts::respond(&mut s, &item_id, &message_text(&item), attempt);
                finish(store, &mut s, &thread_id)?;
            }
        }
        RequestBody::RetryAfterItem { thread_id, item_id } => {
            let Some(item) = store.item(&thread_id, &item_id)? else {
                return Ok(None);
            };
            if !matches!(item.kind, ItemKind::UserMessage(_)) {
                s.error(
                    "stream.error",
                    Some(format!("{item_id} is not a user message")),
                    false,
                );
            } else {
                store.delete_items_after(&thread_id, &item_id)?;
                let attempt = state.next_attempt(&item_id);
                scripts::respond(&mut s, &item_id, &message_text(&item), attempt);
                finish(store, &mut s, &thread_id)?;
            }
        }
        RequestBody::AddClientToolOutput { thread_id, result } => {
            let pending = store.all_items(&thread_id)?.into_iter().rev().find(|i| {
                matches!(&i.kind, ItemKind::ClientToolCall(c) if c.status == ClientToolStatus::Pending)
            });
            match pending {
                Some(mut item) => {
                    if let ItemKind::ClientToolCall(call) = &mut item.kind {
                        call.status = ClientToolStatus::Completed;
                        call.output = Some(result);
                        let call = call.clone();
                        // Saved before answering, as the SDK does: no event tells the client.
                        store.save_item(&item)?;
                        scripts::client_tool_output(&mut s, &call);
                    }
                    finish(store, &mut s, &thread_id)?;
                }
                None => s.error(
                    "stream.error",
                    Some("no pending client tool call in this thread".into()),
                    false,
                ),
            }
        }
        RequestBody::AddStructuredInput {
            thread_id,
            item_id,
            answers,
        } => match store.item(&thread_id, &item_id)? {
            Some(mut item) if matches!(item.kind, ItemKind::StructuredInput(_)) => {
                if let ItemKind::StructuredInput(input) = &mut item.kind {
                    input.take_answers(&answers);
                }
                scripts::structured_answered(&mut s, &item);
                finish(store, &mut s, &thread_id)?;
            }
            _ => s.error(
                "stream.error",
                Some(format!("{item_id} is not a structured input")),
                false,
            ),
        },
        RequestBody::CustomAction {
            thread_id,
            item_id,
            action,
        } => {
            let sender = match &item_id {
                Some(id) => store.item(&thread_id, id)?,
                None => None,
            };
            let acceptable = sender
                .as_ref()
                .is_none_or(|i| matches!(i.kind, ItemKind::Widget(_) | ItemKind::ClientWidget(_)));
            if item_id.is_some() && sender.is_none() {
                s.error(
                    "stream.error",
                    Some("the action's item does not exist".into()),
                    false,
                );
            } else if !acceptable {
                // The SDK only lets widgets send actions (the fork adds client widgets).
                s.error("stream.error", None, false);
            } else {
                scripts::custom_action(&mut s, sender.as_ref(), &action);
                finish(store, &mut s, &thread_id)?;
            }
        }
        _ => return Ok(None),
    }
    Ok(Some(Prepared {
        thread,
        steps: s.into_steps(),
        tracked: Vec::new(),
    }))
}

/// `threads.custom_action` with an `acp.permission_response`: the answer to a tool call's
/// permission request. Checked (the thread and item are the user's, the item is the tool
/// call named and is asking, the option was offered) and saved on the item before
/// anything is streamed; a refused answer is a JSON error (404 for a thread or item the
/// user does not have, 400 for a bad answer, 409 for a request that is not asking, the
/// first decision included). The run that asked goes on with what the decision leads
/// to if it is still waiting; else this answer's stream does. Runs on a blocking thread.
fn answer_permission(
    state: &AppState,
    owner: &User,
    thread_id: &ThreadId,
    item_id: Option<&ItemId>,
    action: &Action,
) -> store::Result<Result<Prepared, Response>> {
    let Some(item_id) = item_id else {
        return Ok(Err(bad_request(
            "acp.permission_response needs the tool call's item_id",
        )));
    };
    let answer = match agent::parse_answer(&action.payload) {
        Ok(answer) => answer,
        Err(e) => return Ok(Err(bad_request(&format!("acp.permission_response: {e}")))),
    };
    let store = &state.store.user(&owner.0);
    let Some(thread) = store.thread(thread_id)? else {
        return Ok(Err(unknown_thread(thread_id)));
    };
    let decided = store.modify_item(thread_id, item_id, |item| {
        agent::decide(item, &answer).map(|()| item.clone())
    })?;
    let decided = match decided {
        None => return Ok(Err(not_found(&format!("unknown item {item_id}")))),
        Some(Err(refusal)) => {
            let (status, code, message) = refusal.describe();
            let status = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_REQUEST);
            return Ok(Err(json_error(status, code, &message)));
        }
        Some(Ok(item)) => item,
    };
    let outcome = agent::describe_outcome(&answer.outcome);
    let mut s = Script::new(&state.store, state.pace, thread.clone());
    // The asking run may be on another instance of a shared database.
    let handed = state
        .hand_to_waiter(owner, Box::new(decided))
        .or_else(|decided| match &state.shared {
            Some(shared) if shared.hand_permission(&owner.0, thread_id, item_id) => Ok(()),
            _ => Err(decided),
        });
    let tracked = match handed {
        Ok(()) => {
            println!("permission {outcome}: thread={thread_id} item={item_id} (the asking stream goes on)");
            // The asking stream carries the rest; this answer only confirms.
            s.update(
                item_id,
                ItemUpdate::AcpPermissionResolved(
                    chat_shell_core::protocol::acp::PermissionResponse {
                        outcome: answer.outcome.clone(),
                    },
                ),
            );
            Vec::new()
        }
        Err(decided) => {
            println!(
                "permission {outcome}: thread={thread_id} item={item_id} (this answer goes on)"
            );
            s.stream_options(true);
            agent::permission_decided(&mut s, &decided);
            finish(store, &mut s, thread_id)?;
            vec![*decided]
        }
    };
    Ok(Ok(Prepared {
        thread,
        steps: s.into_steps(),
        tracked,
    }))
}

/// Why a branch cannot start at `item_id` (said in the stream), if it cannot: the thread
/// does not branch here (`--acp`), or the item is not a user message of the thread.
fn branch_refused(
    store: &UserStore<'_>,
    thread: &Thread,
    item_id: &ItemId,
) -> store::Result<Option<String>> {
    if !thread.branching {
        return Ok(Some(
            "This conversation cannot branch: its agent keeps the conversation itself.".into(),
        ));
    }
    Ok(match store.item(&thread.id, item_id)? {
        Some(item) if matches!(item.kind, ItemKind::UserMessage(_)) => None,
        _ => Some(format!("{item_id} is not a message of this conversation")),
    })
}

fn finish(store: &UserStore<'_>, s: &mut Script<'_>, thread: &ThreadId) -> store::Result<()> {
    if let Some(first) = first_user_text(store, thread)? {
        s.finish(&first);
    }
    Ok(())
}

fn first_user_text(store: &UserStore<'_>, thread: &ThreadId) -> store::Result<Option<String>> {
    Ok(store
        .all_items(thread)?
        .into_iter()
        .find(|i| {
            matches!(i.kind, ItemKind::UserMessage(_))
                && !matches!(&i.kind, ItemKind::UserMessage(m) if is_ghost(m))
        })
        .map(|i| message_text(&i)))
}
