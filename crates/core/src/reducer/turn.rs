//! A turn's life: sent, retried or edited, its answer's end, failure or Stop, and what a
//! new run clears of the one before.

use super::input::OutgoingMessage;
use super::items::{assistant_text, clear_progress, next_client_tool};
use super::outcome::{Effect, Outcome};
use super::state::{ChatState, EntryState, ItemStatus, Progress, Turn, TurnError};
use super::{queue, team, tool_calls};
use crate::host_events::{ChatError, ChatEvent, ErrorKind};
use crate::model::{Entry, EntryKind};
use crate::protocol::chatkit::{InputText, ItemId, UserContent, UserMessage};

pub(super) fn send_started(state: &mut ChatState, message: OutgoingMessage, out: &mut Outcome) {
    begin_turn(state, out);
    // A new message: calls an earlier turn left pending are not run any more.
    state.tool_queue.clear();
    let id = next_local_id(state);
    let item = Entry {
        branches: Vec::new(),
        id: id.clone(),
        thread_id: state.thread_id().cloned(),
        created_at: String::new(),
        kind: EntryKind::UserMessage(UserMessage {
            content: if message.content.is_empty() {
                vec![UserContent::InputText(InputText {
                    text: message.text.clone(),
                })]
            } else {
                message.content.clone()
            },
            attachments: message.attachments,
            quoted_text: None,
            inference_options: None,
        }),
    };
    let mut local = EntryState::new(item, ItemStatus::Done);
    local.local = true;
    local.hidden = message.ghost;
    state.upsert_item(local);
    if let Some(turn) = state.turn.as_mut() {
        turn.ghost = message.ghost;
    }
    out.emit(ChatEvent::MessageSent {
        text: message.text.clone(),
        ghost: message.ghost,
    });
}

/// A `local_N` id no item holds (a server may use that form too).
fn next_local_id(state: &mut ChatState) -> ItemId {
    loop {
        let id = ItemId(format!("local_{}", state.next_local));
        state.next_local += 1;
        if state.item(&id).is_none() {
            return id;
        }
    }
}

pub(super) fn turn_started(state: &mut ChatState, out: &mut Outcome) {
    begin_turn(state, out);
}

pub(super) fn retry_started(state: &mut ChatState, user_message: &ItemId, out: &mut Outcome) {
    // The server deletes everything after the user message without saying so.
    state.truncate_after(user_message);
    state.tool_queue.clear();
    begin_turn(state, out);
    if let Some(turn) = state.turn.as_mut() {
        turn.user_message = Some(user_message.clone());
    }
}

pub(super) fn edit_started(
    state: &mut ChatState,
    edited: &ItemId,
    message: OutgoingMessage,
    out: &mut Outcome,
) {
    // The branch shown ends before the message edited until the new one arrives.
    state.truncate_from(edited);
    send_started(state, message, out);
}

fn begin_turn(state: &mut ChatState, out: &mut Outcome) {
    if state.error.take().is_some() {
        state.mark().error = true;
    }
    clear_progress(state);
    clear_run(state);
    state.turn = Some(Turn {
        allow_cancel: true,
        streaming_message: None,
        user_message: None,
        saw_event: false,
        ghost: false,
    });
    state.mark().turn = true;
    out.emit(ChatEvent::ResponseStart);
}

pub(super) fn allow_cancel(state: &mut ChatState, allow: bool) {
    if let Some(turn) = state.turn.as_mut() {
        turn.allow_cancel = allow;
        state.mark().turn = true;
    }
}

pub(super) fn progress_update(state: &mut ChatState, icon: Option<String>, text: String) {
    let seq = state.progress.as_ref().map_or(0, |p| p.seq + 1);
    state.progress = Some(Progress { icon, text, seq });
    state.mark().progress = true;
}

pub(super) fn stream_ended(state: &mut ChatState, out: &mut Outcome) {
    let Some(turn) = state.turn.as_ref() else {
        return;
    };
    if !turn.saw_event {
        // In English here; the view shows it in the element's language.
        let message = crate::strings::Text::AnswerEmpty.english().to_owned();
        return fail_turn(state, message, "stream.empty".into(), true, out);
    }
    let streamed = turn.streaming_message.clone();
    finish_streaming_items(state, ItemStatus::Done);
    tool_calls::interrupt_tool_calls(state);
    if let Some(text) = streamed.and_then(|id| state.item(&id).and_then(assistant_text)) {
        out.effects.push(Effect::Announce(text));
    }
    end_turn(state, out);
    next_client_tool(state, out);
    let thread_id = state.thread_id().cloned();
    out.emit(ChatEvent::ThreadDone { thread_id });
}

pub(super) fn stream_failed(
    state: &mut ChatState,
    message: String,
    allow_retry: bool,
    out: &mut Outcome,
) {
    if state.turn.is_none() {
        return;
    }
    tool_calls::unsend_permissions(state);
    fail_turn(state, message, "stream.error".into(), allow_retry, out);
}

/// The agent said its run failed (AG-UI `RUN_ERROR`): it had the user's message, which
/// stays, and the error offers Retry, which runs the same messages again.
pub(super) fn run_failed(
    state: &mut ChatState,
    message: String,
    code: Option<String>,
    out: &mut Outcome,
) {
    if state.turn.is_none() {
        return;
    }
    let sent = last_local_user_message(state);
    if let Some(turn) = state.turn.as_mut() {
        turn.user_message = turn.user_message.take().or(sent);
    }
    tool_calls::unsend_permissions(state);
    fail_turn(
        state,
        message,
        code.unwrap_or_else(|| "run_error".into()),
        true,
        out,
    );
    if let Some(error) = state.error.as_mut() {
        error.by_agent = true;
    }
}

pub(super) fn failed(
    state: &mut ChatState,
    message: Option<String>,
    code: String,
    allow_retry: bool,
    out: &mut Outcome,
) {
    let message = message
        .filter(|m| !m.trim().is_empty())
        // In English here; the view shows it in the element's language.
        .unwrap_or_else(|| crate::strings::Text::AnswerFailed.english().into());
    fail_turn(state, message, code, allow_retry, out);
}

/// The turn failed: keep what was streamed, mark it, show the error. If the server never
/// saw the user message (no echo), give the text back to the composer.
fn fail_turn(
    state: &mut ChatState,
    message: String,
    code: String,
    allow_retry: bool,
    out: &mut Outcome,
) {
    let retry_after = state.turn.as_ref().and_then(|t| t.user_message.clone());
    // The turn is over: its pending calls are not run.
    state.tool_queue.clear();
    finish_streaming_items(state, ItemStatus::Failed);
    tool_calls::interrupt_tool_calls(state);
    if retry_after.is_none() {
        if let Some(local) = last_local_user_message(state) {
            if let Some(removed) = state.remove_item(&local).filter(|r| !r.hidden) {
                if let EntryKind::UserMessage(m) = removed.entry.kind {
                    out.effects.push(Effect::RestoreDraft {
                        text: m.text(),
                        attachments: m.attachments,
                    });
                }
            }
        }
    }
    let after_item = state.last_item_id().cloned();
    out.emit(ChatEvent::Error(ChatError {
        code: Some(code.clone()),
        allow_retry: Some(allow_retry),
        ..ChatError::new(ErrorKind::Turn, message.clone())
    }));
    state.error = Some(TurnError {
        message,
        code,
        allow_retry,
        retry_after,
        after_item,
        by_agent: false,
    });
    state.mark().error = true;
    end_turn(state, out);
}

/// The user message this client sent last that the server has not echoed: the failed
/// turn's own. (Where the server never echoes, as over the events envelope, every sent
/// message stays local: the first would be an earlier turn's.)
fn last_local_user_message(state: &ChatState) -> Option<ItemId> {
    state
        .items()
        .iter()
        .rev()
        .find(|i| i.local && matches!(i.entry.kind, EntryKind::UserMessage(_)))
        .map(|i| i.entry.id.clone())
}

pub(super) fn cancelled(state: &mut ChatState, out: &mut Outcome) {
    if state.turn.is_none() {
        return;
    }
    state.tool_queue.clear();
    finish_streaming_items(state, ItemStatus::Stopped);
    tool_calls::cancel_permissions(state, out);
    tool_calls::interrupt_tool_calls(state);
    end_turn(state, out);
}

/// What belonged to the previous run: its budget banner, owning agent, orchestration and
/// liveness. Its inline errors stay with the items they follow.
fn clear_run(state: &mut ChatState) {
    let cleared = state.budget.take().is_some()
        | state.agent.take().is_some()
        | state.orchestration.take().is_some()
        | state.resync.take().is_some();
    if cleared {
        state.mark().run = true;
    }
    if state.last_event_ms.take().is_some() {
        state.mark().liveness = true;
    }
}

fn end_turn(state: &mut ChatState, out: &mut Outcome) {
    queue::run_over(state);
    if state.turn.take().is_some() {
        state.mark().turn = true;
        out.emit(ChatEvent::ResponseEnd);
        team::run_ended(state);
    }
    clear_progress(state);
}

fn finish_streaming_items(state: &mut ChatState, status: ItemStatus) {
    let streaming: Vec<ItemId> = state
        .items()
        .iter()
        .filter(|i| i.status == ItemStatus::Streaming)
        .map(|i| i.entry.id.clone())
        .collect();
    for id in streaming {
        if let Some(item) = state.item_mut(&id) {
            item.status = status;
        }
    }
}
