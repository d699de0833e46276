//! Extension (chat-shell, not in the ChatKit SDK): the thread channel, a long-lived stream
//! the runtime keeps open while a thread is shown, carrying tool-pushed views
//! (`spec/view-updates.md`). The client asks with
//!
//! ```json
//! {"type": "threads.subscribe", "params": {"thread_id": "thr_1", "after": null}}
//! ```
//!
//! on the same endpoint (`after`: the last `seq` it applied, to resume). The answer is an
//! SSE stream: the replay of the thread's views (`thread.view.updated`, or
//! `thread.view.cleared` for a view emptied since `after`), `thread.channel.ready` with the
//! thread's latest `seq`, then live updates and keepalive comments. Every event carries the
//! thread's `seq`, increasing; a client applies each one once.

use super::tagged::tolerant_tagged;
use super::{JsonMap, ThreadId, Unknown};
use serde::{Deserialize, Serialize};

/// The request that opens a thread's channel (one variant: it is its own request type,
/// kept out of [`super::RequestBody`], which servers without the channel parse).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", content = "params")]
pub enum SubscribeRequest {
    #[serde(rename = "threads.subscribe")]
    Subscribe {
        thread_id: ThreadId,
        /// The last `seq` applied (`None`: a fresh start, the whole replay).
        after: Option<u64>,
    },
}

/// One event of a thread's channel.
#[derive(Clone, Debug, PartialEq)]
pub enum ChannelEvent {
    ViewUpdated(ViewUpdated),
    ViewCleared(ViewCleared),
    Ready(ChannelReady),
    RunStarted(RunStarted),
    RunEvent(RunEvent),
    RunEnded(RunEnded),
    Other(Unknown),
}

tolerant_tagged!(ChannelEvent {
    "thread.view.updated" => ViewUpdated,
    "thread.view.cleared" => ViewCleared,
    "thread.channel.ready" => Ready,
    "thread.run.started" => RunStarted,
    "thread.run.event" => RunEvent,
    "thread.run.ended" => RunEnded,
});

/// A view's whole new content, verbatim from the tool that pushed it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ViewUpdated {
    pub seq: u64,
    pub view_type: String,
    pub content: JsonMap,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ViewCleared {
    pub seq: u64,
    pub view_type: String,
}

/// The replay is over; `seq` is the thread's latest.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChannelReady {
    pub seq: u64,
}

/// An answer is running on the thread (sent on connecting while one runs, or when one
/// starts): the run's events follow, then [`RunEnded`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunStarted {}

/// One event of the running answer, as its own stream carries it. On connecting, the
/// answer so far comes first as a snapshot: its finished items as `thread.item.done`, the
/// one in progress as `thread.item.added` with what it holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunEvent {
    pub event: Box<super::StreamEvent>,
}

/// The running answer ended: `done`, `cancelled` or `failed`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunEnded {
    pub outcome: String,
}

/// Stop an answer running on a thread (extension): a JSON request, answered
/// `{"cancelled": true}`, or `false` when nothing was running. A page that merely goes
/// away does not stop it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", content = "params")]
pub enum CancelRunRequest {
    #[serde(rename = "threads.cancel_run")]
    CancelRun { thread_id: ThreadId },
}

impl ChannelEvent {
    /// The thread's sequence number of this event (`None` for an unknown one).
    pub fn seq(&self) -> Option<u64> {
        match self {
            ChannelEvent::ViewUpdated(e) => Some(e.seq),
            ChannelEvent::ViewCleared(e) => Some(e.seq),
            ChannelEvent::Ready(e) => Some(e.seq),
            ChannelEvent::RunStarted(_)
            | ChannelEvent::RunEvent(_)
            | ChannelEvent::RunEnded(_)
            | ChannelEvent::Other(_) => None,
        }
    }
}

/// Decode one `data:` payload of the channel.
pub fn decode_channel_event(data: &str) -> Result<ChannelEvent, super::DecodeError> {
    serde_json::from_str(data).map_err(|e| super::DecodeError {
        message: e.to_string(),
        raw: data.to_owned(),
    })
}
