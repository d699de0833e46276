//! The conversation: what an answer stream says, sent on to the file of its concern; the
//! open thread (created, updated, loaded, older items, reset) and its notices.

use super::input::Streamed;
use super::items::{self, loaded_item};
use super::outcome::{Effect, Outcome};
use super::state::{ChatState, EntryState, Notice, OlderPages, ThreadInfo, Unrecognized};
use super::{run, turn};
use crate::host_events::{ChatError, ChatEvent, ErrorKind};
use crate::model::Entry;
use crate::protocol::chatkit::{DecodeError, NoticeEvent, Page, Thread};
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
        Streamed::ItemAdded(item) => items::item_added(state, item),
        Streamed::ItemChanged { item_id, change } => {
            items::item_changed(state, item_id, change, out)
        }
        Streamed::ItemDone(item) => items::item_done(state, item, out),
        Streamed::ItemRemoved(item_id) => items::item_removed(state, &item_id),
        Streamed::ItemReplaced(item) => items::item_replaced(state, item, out),
        Streamed::AllowCancel(allow) => turn::allow_cancel(state, allow),
        Streamed::Progress { icon, text } => turn::progress_update(state, icon, text),
        Streamed::ClientEffect { name, data } => client_effect(name, data, out),
        Streamed::Failed {
            message,
            code,
            allow_retry,
        } => turn::failed(state, message, code, allow_retry, out),
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

pub(super) fn notice_dismissed(state: &mut ChatState, id: u64) {
    let before = state.notices.len();
    state.notices.retain(|n| n.id != id);
    if state.notices.len() != before {
        state.mark().notices = true;
    }
}

fn client_effect(name: String, data: crate::protocol::JsonMap, out: &mut Outcome) {
    out.emit(ChatEvent::Effect {
        name: name.clone(),
        data: data.clone(),
    });
    out.effects.push(Effect::ClientEffect { name, data });
}

fn unknown_event(state: &mut ChatState, u: &Unknown, out: &mut Outcome) {
    run::unrecognized(
        state,
        Unrecognized::EventType(u.type_name().to_owned()),
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
    state.older.cursor = page.after.filter(|_| page.has_more);
    let marks = state.mark();
    marks.older = true;
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
    let mut older: Vec<EntryState> = page.data.into_iter().map(loaded_item).collect();
    older.reverse();
    state.prepend_items(older);
    state.older = OlderPages {
        cursor: page.after.filter(|_| page.has_more),
        loading: false,
    };
    state.mark().older = true;
}

/// A page of older items was asked for: none other until it is in (or given up).
pub(super) fn older_requested(state: &mut ChatState) {
    if state.older.more() && !state.older.loading {
        state.older.loading = true;
        state.mark().older = true;
    }
}

/// The page asked for will not come (it failed, or the reader moved on): it can be asked
/// for again.
pub(super) fn older_ended(state: &mut ChatState) {
    if state.older.loading {
        state.older.loading = false;
        state.mark().older = true;
    }
}

pub(super) fn reset(state: &mut ChatState, out: &mut Outcome) {
    *state = ChatState {
        next_local: state.next_local,
        next_notice: state.next_notice,
        diagnostics: std::mem::take(&mut state.diagnostics),
        ..ChatState::default()
    };
    let marks = state.mark();
    marks.older = true;
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
