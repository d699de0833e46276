//! The frames a thread's channels get of its runs (`thread.run.started`,
//! `thread.run.event`, `thread.run.ended`), each built once and shared by every channel.

use crate::channel::outbox;
use axum::body::Bytes;
use serde_json::json;

/// Says a run is under way on the thread: its snapshot (to a channel opening meanwhile)
/// or its events follow, then `thread.run.ended`.
pub const RUN_STARTED: &str = "data: {\"type\":\"thread.run.started\"}\n\n";

/// The frame of `thread.run.ended` (`outcome` as stored: another instance's run may also
/// have ended `interrupted`).
pub(super) fn ended_frame(outcome: &str) -> Bytes {
    Bytes::from(format!(
        "data: {}\n\n",
        json!({"type": "thread.run.ended", "outcome": outcome})
    ))
}

/// The frame of one event (its JSON) of a thread's run; `None` if too long for a channel.
pub fn event_frame(json: &str) -> Option<Bytes> {
    let frame = Bytes::from(format!(
        "data: {{\"type\":\"thread.run.event\",\"event\":{json}}}\n\n"
    ));
    if outbox::fits(&frame) {
        Some(frame)
    } else {
        eprintln!(
            "chat-shell-runtime: a run event of {} bytes is too long for a channel: not sent",
            frame.len()
        );
        None
    }
}
