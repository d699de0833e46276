//! Queue and steer (Agent UI): what the runtime offers for the running run, and the turns
//! it holds for after it. Both are runtime facts: the composer offers Queue and Steer only
//! when the run says it takes them (`run.started` `controls`), a queued turn shows only
//! once the runtime lists it (`queue.changed`), and it becomes a user message only when the
//! runtime starts it. A steer is a note inside the run it redirected; a queued turn waits
//! beside the composer. The two never share a surface.

use super::state::{ChatState, EntryState, ItemStatus, QueuedTurn, RunQueue};
use crate::model::{Entry, EntryKind};
use crate::protocol::chatkit::{InputText, ItemId, UserContent, UserMessage};

/// A run started: the controls it offers replace those of the run before (none if it names
/// none: never assumed).
pub(super) fn run_controls(state: &mut ChatState, run_id: String, controls: Vec<String>) {
    let has = |name: &str| controls.iter().any(|c| c == name);
    let next = RunQueue {
        run_id: Some(run_id),
        can_queue: has("queue"),
        can_steer: has("steer"),
        queued: std::mem::take(&mut state.run_queue.queued),
    };
    if next != state.run_queue {
        state.run_queue = next;
        state.mark().run = true;
    }
}

/// The runtime's list of the turns still queued (the whole list, each time).
pub(super) fn queue_changed(state: &mut ChatState, queued: Vec<QueuedTurn>) {
    if state.run_queue.queued != queued {
        state.run_queue.queued = queued;
        state.mark().run = true;
    }
}

/// The runtime started a queued turn as run `run_id`: its text is now a user message of
/// the conversation, at this point of it, and it leaves the queue.
pub(super) fn turn_started(state: &mut ChatState, turn: QueuedTurn, run_id: &str) {
    state.run_queue.queued.retain(|t| t.turn_id != turn.turn_id);
    state.mark().run = true;
    let id = ItemId(format!("au:{run_id}:user:{}", turn.turn_id));
    if state.item(&id).is_some() {
        return;
    }
    let item = Entry {
        branches: Vec::new(),
        id: id.clone(),
        thread_id: state.thread_id().cloned(),
        created_at: String::new(),
        kind: EntryKind::UserMessage(UserMessage {
            content: vec![UserContent::InputText(InputText { text: turn.text })],
            attachments: Vec::new(),
            quoted_text: None,
            inference_options: None,
        }),
    };
    state.upsert_item(EntryState::new(item, ItemStatus::Done));
    if let Some(t) = state.turn.as_mut() {
        t.user_message = Some(id);
        t.streaming_message = None;
    }
}

/// The run is over (its stream ended, failed or was stopped): its controls go, and so do
/// its queued turns, which the runtime drops with it.
pub(super) fn run_over(state: &mut ChatState) {
    if state.run_queue != RunQueue::default() {
        state.run_queue = RunQueue::default();
        state.mark().run = true;
    }
}
