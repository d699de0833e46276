//! The items as answer streams change them: added, done, changed part by part, removed,
//! replaced or synced; the echo of the local user message; the client tool calls queued for
//! the end of a stream; and the items read from history or replaced whole.

use super::input::ItemChange;
use super::outcome::{Effect, Outcome};
use super::state::{ChatState, EntryState, ItemStatus, ToolCallMark};
use super::tool_calls;
use crate::model::{Entry, EntryKind};
use crate::protocol::chatkit::{AssistantContent, AssistantMessage, ClientToolStatus, ItemId};

pub(super) fn item_added(state: &mut ChatState, item: Entry) {
    incoming_item(state, item, ItemStatus::Streaming);
}

pub(super) fn item_done(state: &mut ChatState, item: Entry, out: &mut Outcome) {
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
            let mut echoed = EntryState::new(item, ItemStatus::Done);
            echoed.hidden = hidden;
            state.replace_at(&local, echoed);
            set_turn_user_message(state, id);
            return;
        }
    }
    let mut next = EntryState::new(item, status);
    next.hidden = stays_hidden(state.item(&id), &next.entry);
    next.live = true;
    match state.item(&id) {
        Some(previous) => tool_calls::carry_local(Some(previous), &mut next),
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
fn stays_hidden(previous: Option<&EntryState>, next: &Entry) -> bool {
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
pub(super) fn next_client_tool(state: &mut ChatState, out: &mut Outcome) {
    while !state.tool_queue.is_empty() {
        let id = state.tool_queue.remove(0);
        if let Some(EntryKind::ClientToolCall(call)) = state.item(&id).map(|i| &i.entry.kind) {
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
        .find(|i| i.local && matches!(i.entry.kind, EntryKind::UserMessage(_)))
        .map(|i| i.entry.id.clone())
}

pub(super) fn item_changed(
    state: &mut ChatState,
    item_id: ItemId,
    change: ItemChange,
    out: &mut Outcome,
) {
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
            if let EntryKind::GeneratedImage(g) = &mut item.entry.kind {
                g.image = Some(image);
                item.progress = progress;
            } else {
                out.warn(format!("image update for non-image item {item_id}"), None);
            }
        }
        ItemChange::ToolCall(update) => tool_calls::tool_call_updated(state, &item_id, update, out),
        ItemChange::PermissionRequested(request) => {
            tool_calls::permission_requested(state, &item_id, request, out)
        }
        ItemChange::PermissionResolved(outcome) => {
            tool_calls::permission_resolved(state, &item_id, outcome, out)
        }
        ItemChange::Plan(entries) => tool_calls::plan_updated(state, &item_id, entries, out),
        ItemChange::Thought(content) => tool_calls::thought_chunk(state, &item_id, content, out),
        ItemChange::ElicitationResolved(outcome) => {
            tool_calls::elicitation_resolved(state, &item_id, outcome, out)
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
    let known_assistant = match state.item(item_id).map(|i| &i.entry.kind) {
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
        let mut orphan = EntryState::new(
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
    match &mut state.item_mut(&target)?.entry.kind {
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
    (last.status == ItemStatus::Streaming && matches!(last.entry.kind, EntryKind::AssistantText(_)))
        .then(|| last.entry.id.clone())
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
    let applied = match state.item_mut(item_id).map(|i| &mut i.entry.kind) {
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
        .is_some_and(|i| matches!(i.entry.kind, EntryKind::Workflow(_)));
    if !known {
        out.warn(
            format!("workflow update for unknown workflow item {item_id}"),
            None,
        );
        return None;
    }
    match &mut state.item_mut(item_id)?.entry.kind {
        EntryKind::Workflow(w) => Some(&mut w.workflow.tasks),
        _ => None,
    }
}

pub(super) fn item_removed(state: &mut ChatState, id: &ItemId) {
    state.remove_item(id);
    unqueue_client_tool(state, id);
    if let Some(turn) = state.turn.as_mut() {
        if turn.streaming_message.as_ref() == Some(id) {
            turn.streaming_message = None;
        }
    }
}

pub(super) fn item_replaced(state: &mut ChatState, item: Entry, out: &mut Outcome) {
    clear_progress(state);
    queue_client_tool(state, &item);
    let id = item.id.clone();
    let mut next = EntryState::new(item, ItemStatus::Done);
    next.hidden = stays_hidden(state.item(&id), &next.entry);
    tool_calls::carry_local(state.item(&id), &mut next);
    if !state.replace_at(&id, next.clone()) {
        out.warn(format!("replacement for unknown item {id} appended"), None);
        state.upsert_item(next);
    }
}

pub(super) fn item_synced(state: &mut ChatState, item: Entry, _out: &mut Outcome) {
    if !is_pending_call(&item) {
        unqueue_client_tool(state, &item.id);
    }
    let mut next = EntryState::new(item, ItemStatus::Done);
    next.hidden = stays_hidden(state.item(&next.entry.id), &next.entry);
    state.upsert_item(next);
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
        if let Some(item) = state.item_mut(&id).filter(|i| i.entry.branches != branches) {
            item.entry.branches = branches;
        }
    }
}

/// An item read from history: finished, hidden if it was sent as a ghost, and a tool call
/// whose run never said how it ended shown as interrupted.
pub(super) fn loaded_item(item: Entry) -> EntryState {
    let hidden = item.is_ghost();
    let mut state = EntryState::new(item, ItemStatus::Done);
    state.hidden = hidden;
    if tool_calls::left_unfinished(&state) {
        state.tool_mark = Some(ToolCallMark::Interrupted);
    }
    state
}

pub(super) fn clear_progress(state: &mut ChatState) {
    if state.progress.take().is_some() {
        state.mark().progress = true;
    }
}

/// The plain text of an assistant message (all parts), for announcements and copying.
pub fn assistant_text(item: &EntryState) -> Option<String> {
    match &item.entry.kind {
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
