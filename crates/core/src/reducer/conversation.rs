//! The conversation: the open thread, its items as answer streams change them, and its
//! turns (send, retry, end, failure, Stop), loading and reset. One named function per
//! input; `mod.rs` dispatches to them.

use super::run;
use super::state::{
    ChatState, ItemState, ItemStatus, Notice, Progress, ThreadInfo, Turn, TurnError,
};
use super::{Effect, ItemChange, Outcome, OutgoingMessage, Streamed};
use crate::host_events::{ChatError, ChatEvent, ErrorKind};
use crate::model::{Entry, EntryKind};
use crate::protocol::chatkit::{
    AssistantContent, AssistantMessage, ClientToolStatus, DecodeError, InputText, ItemId,
    NoticeEvent, Page, Thread, UserContent, UserMessage,
};
use crate::protocol::Unknown;

pub(super) fn streamed(state: &mut ChatState, event: Streamed, out: &mut Outcome) {
    if let Some(turn) = state.turn.as_mut() {
        if !turn.saw_event {
            turn.saw_event = true;
            // Stop becomes available now (see `Turn::can_cancel`).
            state.mark().turn = true;
        }
    }
    match event {
        Streamed::ThreadCreated(thread) => thread_created(state, thread, out),
        Streamed::ThreadUpdated(thread) => thread_updated(state, thread),
        Streamed::ItemAdded(item) => item_added(state, item),
        Streamed::ItemChanged { item_id, change } => item_changed(state, item_id, change, out),
        Streamed::ItemDone(item) => item_done(state, item, out),
        Streamed::ItemRemoved(item_id) => item_removed(state, &item_id),
        Streamed::ItemReplaced(item) => item_replaced(state, item, out),
        Streamed::AllowCancel(allow) => allow_cancel(state, allow),
        Streamed::Progress { icon, text } => progress_update(state, icon, text),
        Streamed::ClientEffect { name, data } => client_effect(name, data, out),
        Streamed::Failed {
            message,
            code,
            allow_retry,
        } => failed(state, message, code, allow_retry, out),
        Streamed::Notice(e) => notice(state, e, out),
        Streamed::Unknown(u) => unknown_event(state, &u, out),
    }
}

fn thread_created(state: &mut ChatState, thread: Thread, out: &mut Outcome) {
    let id = thread.id.clone();
    switch_thread(state, ThreadInfo::from(thread));
    out.emit(ChatEvent::ThreadCreated {
        thread_id: id.clone(),
    });
    out.emit(ChatEvent::ThreadChange {
        thread_id: Some(id),
    });
}

fn thread_updated(state: &mut ChatState, thread: Thread) {
    match state.thread.as_mut() {
        Some(info) if info.id == thread.id => {
            info.title = thread.title;
            info.status = thread.status;
            info.metadata = thread.metadata;
            info.branching = thread.branching;
        }
        // An update for a thread we never saw created: take it as the open thread.
        _ => switch_thread(state, ThreadInfo::from(thread)),
    }
    state.mark().thread = true;
}

/// Make `info` the open thread. Notices belong to the thread they were shown in: when
/// another thread was open, they go.
fn switch_thread(state: &mut ChatState, info: ThreadInfo) {
    if state.thread_id().is_some_and(|open| *open != info.id) {
        clear_notices(state);
    }
    state.thread = Some(info);
    state.mark().thread = true;
}

fn clear_notices(state: &mut ChatState) {
    if !state.notices.is_empty() {
        state.notices.clear();
        state.mark().notices = true;
    }
}

fn item_added(state: &mut ChatState, item: Entry) {
    incoming_item(state, item, ItemStatus::Streaming);
}

fn item_done(state: &mut ChatState, item: Entry, out: &mut Outcome) {
    let id = item.id.clone();
    incoming_item(state, item, ItemStatus::Done);
    if let Some(turn) = state.turn.as_mut() {
        if turn.streaming_message.as_ref() == Some(&id) {
            turn.streaming_message = None;
        }
    }
    if let Some(text) = state.item(&id).and_then(assistant_text) {
        out.effects.push(Effect::Announce(text));
    }
}

/// Added or done: the item is new, an echo of the local user message, or an update of an
/// item already shown (the fork adds a task twice under one id).
fn incoming_item(state: &mut ChatState, item: Entry, status: ItemStatus) {
    clear_progress(state);
    queue_client_tool(state, &item);
    let id = item.id.clone();
    let is_user = matches!(item.kind, EntryKind::UserMessage(_));
    let is_assistant = matches!(item.kind, EntryKind::AssistantText(_));
    if is_user && state.item(&id).is_none() {
        if let Some(local) = first_local_user_message(state) {
            let hidden = stays_hidden(state.item(&local), &item);
            let mut echoed = ItemState::new(item, ItemStatus::Done);
            echoed.hidden = hidden;
            state.replace_at(&local, echoed);
            set_turn_user_message(state, id);
            return;
        }
    }
    let mut next = ItemState::new(item, status);
    next.hidden = stays_hidden(state.item(&id), &next.item);
    next.live = true;
    match state.item(&id) {
        Some(previous) => run::carry_local(Some(previous), &mut next),
        // A new bubble belongs to the agent that owns the run now.
        None if !is_user => next.agent = state.agent.clone(),
        None => {}
    }
    state.upsert_item(next);
    if is_user {
        set_turn_user_message(state, id);
    } else if is_assistant && status == ItemStatus::Streaming {
        if let Some(turn) = state.turn.as_mut() {
            turn.streaming_message = Some(id);
        }
    }
}

/// Whether `next`, taking the place of `previous`, is hidden: a ghost, or a user message in
/// the place of a hidden one (a server need not repeat the ghost mark in an echo or a
/// replacement). Only user messages are ever hidden.
fn stays_hidden(previous: Option<&ItemState>, next: &Entry) -> bool {
    next.is_ghost()
        || (previous.is_some_and(|p| p.hidden) && matches!(next.kind, EntryKind::UserMessage(_)))
}

/// An item arrived in a stream. A pending client tool call joins the queue of calls to ask
/// for (see [`next_client_tool`]), after those that arrived before it; anything else under
/// a queued id (completed, or another kind of item) leaves it.
fn queue_client_tool(state: &mut ChatState, item: &Entry) {
    if !is_pending_call(item) {
        unqueue_client_tool(state, &item.id);
    } else if !state.tool_queue.contains(&item.id) {
        state.tool_queue.push(item.id.clone());
    }
}

fn unqueue_client_tool(state: &mut ChatState, id: &ItemId) {
    state.tool_queue.retain(|queued| queued != id);
}

fn is_pending_call(item: &Entry) -> bool {
    matches!(&item.kind, EntryKind::ClientToolCall(c) if c.status == ClientToolStatus::Pending)
}

/// The stream ended cleanly: ask the runtime to run the oldest queued call that is still
/// pending. One per stream, because `threads.add_client_tool_output` carries one result
/// and its answer is a new stream, whose end asks for the next.
fn next_client_tool(state: &mut ChatState, out: &mut Outcome) {
    while !state.tool_queue.is_empty() {
        let id = state.tool_queue.remove(0);
        if let Some(EntryKind::ClientToolCall(call)) = state.item(&id).map(|i| &i.item.kind) {
            if call.status == ClientToolStatus::Pending {
                out.effects.push(Effect::InvokeClientTool {
                    item_id: id,
                    call_id: call.call_id.clone(),
                    name: call.name.clone(),
                    arguments: call.arguments.clone(),
                });
                return;
            }
        }
    }
}

fn set_turn_user_message(state: &mut ChatState, id: ItemId) {
    if let Some(turn) = state.turn.as_mut() {
        turn.user_message = Some(id);
    }
}

/// The oldest user message the server has not echoed yet: echoes come in the order sent.
fn first_local_user_message(state: &ChatState) -> Option<ItemId> {
    state
        .items()
        .iter()
        .find(|i| i.local && matches!(i.item.kind, EntryKind::UserMessage(_)))
        .map(|i| i.item.id.clone())
}

/// The user message this client sent last that the server has not echoed: the failed
/// turn's own. (Where the server never echoes, as over the events envelope, every sent
/// message stays local: the first would be an earlier turn's.)
fn last_local_user_message(state: &ChatState) -> Option<ItemId> {
    state
        .items()
        .iter()
        .rev()
        .find(|i| i.local && matches!(i.item.kind, EntryKind::UserMessage(_)))
        .map(|i| i.item.id.clone())
}

fn item_changed(state: &mut ChatState, item_id: ItemId, change: ItemChange, out: &mut Outcome) {
    clear_progress(state);
    match change {
        ItemChange::PartAdded { index, part } => {
            let Some(parts) = message_parts(state, &item_id, out) else {
                return;
            };
            let at = index.min(parts.len());
            parts.insert(at, part);
        }
        ItemChange::TextDelta { index, delta } => {
            let Some(parts) = message_parts(state, &item_id, out) else {
                return;
            };
            part_at(parts, index).text.push_str(&delta);
        }
        ItemChange::Annotation {
            index,
            at,
            annotation,
        } => {
            let Some(parts) = message_parts(state, &item_id, out) else {
                return;
            };
            let annotations = &mut part_at(parts, index).annotations;
            match at {
                Some(i) if i < annotations.len() => annotations[i] = annotation,
                _ => annotations.push(annotation),
            }
        }
        ItemChange::PartDone { index, part: done } => {
            let Some(parts) = message_parts(state, &item_id, out) else {
                return;
            };
            let part = part_at(parts, index);
            part.text = done.text;
            // The Agents-SDK converter sends `annotations: []` here even after
            // `annotation_added`: an empty list must not wipe what was added.
            if !done.annotations.is_empty() {
                part.annotations = done.annotations;
            }
        }
        ItemChange::WidgetText {
            component_id,
            delta,
        } => with_widget(state, &item_id, out, |root| {
            root.append_value(&component_id, &delta)
        }),
        ItemChange::WidgetComponent {
            component_id,
            component,
        } => with_widget(state, &item_id, out, |root| {
            root.replace(&component_id, component)
        }),
        ItemChange::WidgetRoot(widget) => with_widget(state, &item_id, out, |root| {
            *root = widget;
            true
        }),
        ItemChange::TaskAdded { index, task } => {
            let Some(tasks) = workflow_tasks(state, &item_id, out) else {
                return;
            };
            let at = index.min(tasks.len());
            tasks.insert(at, task);
        }
        ItemChange::TaskUpdated { index, task } => {
            let Some(tasks) = workflow_tasks(state, &item_id, out) else {
                return;
            };
            match tasks.get_mut(index) {
                Some(t) => *t = task,
                None => tasks.push(task),
            }
        }
        ItemChange::Image { image, progress } => {
            let Some(item) = state.item_mut(&item_id) else {
                return out.warn(format!("image update for unknown item {item_id}"), None);
            };
            if let EntryKind::GeneratedImage(g) = &mut item.item.kind {
                g.image = Some(image);
                item.progress = progress;
            } else {
                out.warn(format!("image update for non-image item {item_id}"), None);
            }
        }
        ItemChange::ToolCall(update) => run::tool_call_updated(state, &item_id, update, out),
        ItemChange::PermissionRequested(request) => {
            run::permission_requested(state, &item_id, request, out)
        }
        ItemChange::PermissionResolved(outcome) => {
            run::permission_resolved(state, &item_id, outcome, out)
        }
        ItemChange::Plan(entries) => run::plan_updated(state, &item_id, entries, out),
        ItemChange::Thought(content) => run::thought_chunk(state, &item_id, content, out),
        ItemChange::ElicitationResolved(outcome) => {
            run::elicitation_resolved(state, &item_id, outcome, out)
        }
        ItemChange::Unknown(u) => out.warn(
            format!("unknown item update `{}` ignored", u.type_name()),
            Some(u.0.to_string()),
        ),
    }
}

/// The content parts a message update goes to. Known assistant message: its own. Another
/// kind of item: none, with a warning (an id is never held twice). An unknown id (the
/// fork's fresh per-delta ids): the message being streamed; failing that, a new message
/// under the update's id, so no text is ever dropped.
fn message_parts<'a>(
    state: &'a mut ChatState,
    item_id: &ItemId,
    out: &mut Outcome,
) -> Option<&'a mut Vec<AssistantContent>> {
    let known_assistant = match state.item(item_id).map(|i| &i.item.kind) {
        Some(EntryKind::AssistantText(_)) => true,
        Some(_) => {
            out.warn(
                format!("message update for item {item_id}, not a message, ignored"),
                None,
            );
            return None;
        }
        None => false,
    };
    let target = if known_assistant {
        item_id.clone()
    } else if let Some(streaming) = streaming_message(state) {
        streaming
    } else {
        let thread_id = state.thread_id().cloned();
        let mut orphan = ItemState::new(
            Entry {
                branches: Vec::new(),
                id: item_id.clone(),
                thread_id,
                created_at: String::new(),
                kind: EntryKind::AssistantText(AssistantMessage::default()),
            },
            ItemStatus::Streaming,
        );
        orphan.live = true;
        state.upsert_item(orphan);
        if let Some(turn) = state.turn.as_mut() {
            turn.streaming_message = Some(item_id.clone());
        }
        item_id.clone()
    };
    match &mut state.item_mut(&target)?.item.kind {
        EntryKind::AssistantText(m) => Some(&mut m.content),
        _ => None,
    }
}

/// The assistant message deltas with unknown ids belong to: the turn's, else the last
/// item if it is an assistant message still streaming.
fn streaming_message(state: &ChatState) -> Option<ItemId> {
    if let Some(id) = state
        .turn
        .as_ref()
        .and_then(|t| t.streaming_message.clone())
    {
        if state.item(&id).is_some() {
            return Some(id);
        }
    }
    let last = state.items().last()?;
    (last.status == ItemStatus::Streaming && matches!(last.item.kind, EntryKind::AssistantText(_)))
        .then(|| last.item.id.clone())
}

/// The part at `index`, or, when the index points past the end (the fork counts deltas,
/// not parts), the last part; a message with no part gets one.
fn part_at(parts: &mut Vec<AssistantContent>, index: usize) -> &mut AssistantContent {
    if parts.is_empty() {
        parts.push(AssistantContent::text(""));
    }
    let i = index.min(parts.len() - 1);
    &mut parts[i]
}

fn with_widget(
    state: &mut ChatState,
    item_id: &ItemId,
    out: &mut Outcome,
    apply: impl FnOnce(&mut crate::protocol::chatkit::WidgetRoot) -> bool,
) {
    let applied = match state.item_mut(item_id).map(|i| &mut i.item.kind) {
        Some(EntryKind::Widget(w)) => apply(&mut w.widget),
        _ => {
            return out.warn(
                format!("widget update for unknown widget item {item_id}"),
                None,
            )
        }
    };
    if !applied {
        out.warn(
            format!("widget update for a component not in item {item_id}"),
            None,
        );
    }
}

fn workflow_tasks<'a>(
    state: &'a mut ChatState,
    item_id: &ItemId,
    out: &mut Outcome,
) -> Option<&'a mut Vec<crate::protocol::chatkit::Task>> {
    let known = state
        .item(item_id)
        .is_some_and(|i| matches!(i.item.kind, EntryKind::Workflow(_)));
    if !known {
        out.warn(
            format!("workflow update for unknown workflow item {item_id}"),
            None,
        );
        return None;
    }
    match &mut state.item_mut(item_id)?.item.kind {
        EntryKind::Workflow(w) => Some(&mut w.workflow.tasks),
        _ => None,
    }
}

fn item_removed(state: &mut ChatState, id: &ItemId) {
    state.remove_item(id);
    unqueue_client_tool(state, id);
    if let Some(turn) = state.turn.as_mut() {
        if turn.streaming_message.as_ref() == Some(id) {
            turn.streaming_message = None;
        }
    }
}

fn item_replaced(state: &mut ChatState, item: Entry, out: &mut Outcome) {
    clear_progress(state);
    queue_client_tool(state, &item);
    let id = item.id.clone();
    let mut next = ItemState::new(item, ItemStatus::Done);
    next.hidden = stays_hidden(state.item(&id), &next.item);
    run::carry_local(state.item(&id), &mut next);
    if !state.replace_at(&id, next.clone()) {
        out.warn(format!("replacement for unknown item {id} appended"), None);
        state.upsert_item(next);
    }
}

fn allow_cancel(state: &mut ChatState, allow: bool) {
    if let Some(turn) = state.turn.as_mut() {
        turn.allow_cancel = allow;
        state.mark().turn = true;
    }
}

fn progress_update(state: &mut ChatState, icon: Option<String>, text: String) {
    let seq = state.progress.as_ref().map_or(0, |p| p.seq + 1);
    state.progress = Some(Progress { icon, text, seq });
    state.mark().progress = true;
}

fn clear_progress(state: &mut ChatState) {
    if state.progress.take().is_some() {
        state.mark().progress = true;
    }
}

fn client_effect(name: String, data: crate::protocol::JsonMap, out: &mut Outcome) {
    out.emit(ChatEvent::Effect {
        name: name.clone(),
        data: data.clone(),
    });
    out.effects.push(Effect::ClientEffect { name, data });
}

fn failed(
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

fn notice(state: &mut ChatState, event: NoticeEvent, out: &mut Outcome) {
    let id = state.next_notice;
    state.next_notice += 1;
    out.emit(ChatEvent::Notice {
        level: event.level,
        message: event.message.clone(),
        title: event.title.clone(),
    });
    state.notices.push(Notice { id, event });
    state.mark().notices = true;
}

fn unknown_event(state: &mut ChatState, u: &Unknown, out: &mut Outcome) {
    run::unrecognized(
        state,
        run::Unrecognized::EventType(u.type_name().to_owned()),
        out,
    );
    out.warn(
        format!("unknown event `{}` ignored", u.type_name()),
        Some(u.0.to_string()),
    );
}

pub(super) fn malformed(_state: &mut ChatState, error: DecodeError, out: &mut Outcome) {
    out.emit(ChatEvent::Error(ChatError {
        raw: Some(error.raw.clone()),
        ..ChatError::new(ErrorKind::Decode, error.message.clone())
    }));
    out.warn(
        format!("malformed event skipped: {}", error.message),
        Some(error.raw),
    );
}

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
    let mut local = ItemState::new(item, ItemStatus::Done);
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
    run::interrupt_tool_calls(state);
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
    run::unsend_permissions(state);
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
    run::unsend_permissions(state);
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

/// The agent's messages replaced whole (AG-UI `MESSAGES_SNAPSHOT`): what the thread holds
/// now, in its order, whatever was shown before. The turn goes on.
pub(super) fn items_replaced(state: &mut ChatState, entries: Vec<Entry>) {
    state.tool_queue.clear();
    state.set_items(entries.into_iter().map(loaded_item).collect());
    state.mark().order = true;
}

pub(super) fn branches_marked(state: &mut ChatState, marks: Vec<(ItemId, Vec<ItemId>)>) {
    for (id, branches) in marks {
        if let Some(item) = state.item_mut(&id).filter(|i| i.item.branches != branches) {
            item.item.branches = branches;
        }
    }
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
    run::interrupt_tool_calls(state);
    if retry_after.is_none() {
        if let Some(local) = last_local_user_message(state) {
            if let Some(removed) = state.remove_item(&local).filter(|r| !r.hidden) {
                if let EntryKind::UserMessage(m) = removed.item.kind {
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

pub(super) fn cancelled(state: &mut ChatState, out: &mut Outcome) {
    if state.turn.is_none() {
        return;
    }
    state.tool_queue.clear();
    finish_streaming_items(state, ItemStatus::Stopped);
    run::cancel_permissions(state, out);
    run::interrupt_tool_calls(state);
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
    super::queue::run_over(state);
    if state.turn.take().is_some() {
        state.mark().turn = true;
        out.emit(ChatEvent::ResponseEnd);
        super::team::run_ended(state);
    }
    clear_progress(state);
}

fn finish_streaming_items(state: &mut ChatState, status: ItemStatus) {
    let streaming: Vec<ItemId> = state
        .items()
        .iter()
        .filter(|i| i.status == ItemStatus::Streaming)
        .map(|i| i.item.id.clone())
        .collect();
    for id in streaming {
        if let Some(item) = state.item_mut(&id) {
            item.status = status;
        }
    }
}

pub(super) fn thread_loaded(
    state: &mut ChatState,
    thread: Thread,
    page: Page<Entry>,
    out: &mut Outcome,
) {
    let id = thread.id.clone();
    // Nothing of the thread shown before stays, its notices included.
    *state = ChatState {
        next_local: state.next_local,
        next_notice: state.next_notice,
        diagnostics: std::mem::take(&mut state.diagnostics),
        ..ChatState::default()
    };
    state.thread = Some(ThreadInfo::from(thread));
    state.set_items(page.data.into_iter().map(loaded_item).collect());
    state.older = page.after.filter(|_| page.has_more);
    let marks = state.mark();
    marks.thread = true;
    marks.turn = true;
    marks.error = true;
    marks.progress = true;
    marks.notices = true;
    marks.run = true;
    marks.liveness = true;
    out.emit(ChatEvent::ThreadChange {
        thread_id: Some(id),
    });
}

pub(super) fn older_items(state: &mut ChatState, page: Page<Entry>, _out: &mut Outcome) {
    // Pages come newest first; the thread shows oldest first.
    let mut older: Vec<ItemState> = page.data.into_iter().map(loaded_item).collect();
    older.reverse();
    state.prepend_items(older);
    state.older = page.after.filter(|_| page.has_more);
}

/// An item read from history: finished, hidden if it was sent as a ghost, and a tool call
/// whose run never said how it ended shown as interrupted.
fn loaded_item(item: Entry) -> ItemState {
    let hidden = item.is_ghost();
    let mut state = ItemState::new(item, ItemStatus::Done);
    state.hidden = hidden;
    if super::run::left_unfinished(&state) {
        state.tool_mark = Some(super::run::ToolCallMark::Interrupted);
    }
    state
}

pub(super) fn reset(state: &mut ChatState, out: &mut Outcome) {
    *state = ChatState {
        next_local: state.next_local,
        next_notice: state.next_notice,
        diagnostics: std::mem::take(&mut state.diagnostics),
        ..ChatState::default()
    };
    let marks = state.mark();
    marks.thread = true;
    marks.order = true;
    marks.turn = true;
    marks.error = true;
    marks.progress = true;
    marks.notices = true;
    marks.run = true;
    marks.liveness = true;
    out.emit(ChatEvent::ThreadChange { thread_id: None });
}

pub(super) fn notice_dismissed(state: &mut ChatState, id: u64) {
    let before = state.notices.len();
    state.notices.retain(|n| n.id != id);
    if state.notices.len() != before {
        state.mark().notices = true;
    }
}

pub(super) fn item_synced(state: &mut ChatState, item: Entry, _out: &mut Outcome) {
    if !is_pending_call(&item) {
        unqueue_client_tool(state, &item.id);
    }
    let mut next = ItemState::new(item, ItemStatus::Done);
    next.hidden = stays_hidden(state.item(&next.item.id), &next.item);
    state.upsert_item(next);
}

impl From<Thread> for ThreadInfo {
    fn from(t: Thread) -> Self {
        ThreadInfo {
            id: t.id,
            title: t.title,
            created_at: t.created_at,
            status: t.status,
            metadata: t.metadata,
            branching: t.branching,
        }
    }
}

/// The plain text of an assistant message (all parts), for announcements and copying.
pub fn assistant_text(item: &ItemState) -> Option<String> {
    match &item.item.kind {
        EntryKind::AssistantText(m) => Some(
            m.content
                .iter()
                .map(|p| p.text.as_str())
                .collect::<Vec<_>>()
                .join("\n\n"),
        ),
        _ => None,
    }
}
