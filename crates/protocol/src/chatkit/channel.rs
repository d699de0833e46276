//! Extension (chat-shell, not in the ChatKit SDK): the thread channel, a long-lived stream
//! the runtime keeps open while a thread is shown, carrying tool-pushed views
//! ([view updates](https://infinity.hydro.run/docs/rap/spec/server/view-updates)). The client asks with
//!
//! ```json
//! {"type": "threads.subscribe", "params": {"thread_id": "thr_1", "after": null}}
//! ```
//!
//! on the same endpoint (`after`: the last `seq` it applied, to resume). The answer is an
//! SSE stream: the replay of the thread's views (`thread.view.updated`, or
//! `thread.view.cleared` for a view emptied since `after`), `thread.channel.ready` with the
//! thread's latest `seq`, then live updates and keepalive comments. Every view event
//! carries the thread's `seq`, increasing; a client applies each one once.
//!
//! The channel also carries the thread's running answer (a "run"), so a reloaded page picks
//! it up where it is. After `thread.channel.ready`, if a run is under way, a snapshot: one
//! `{"type": "thread.run.event", "event": …}` per item the run has emitted so far, in order
//! (`thread.item.done` with the whole item for a finished one, `thread.item.added` with its
//! current state for one still in progress, a pending permission request included); then
//! every later event of the run, wrapped the same way, exactly as the stream that started
//! it gets it; then `{"type": "thread.run.ended", "outcome": "done" | "cancelled" |
//! "failed"}`. A run that starts while the channel is open is forwarded from its first
//! event. Run events carry no `seq`: they are not replayed from a cursor, the snapshot is
//! the resume.
//!
//! The page that did not start the run (or started it and was reloaded) stops it with
//!
//! ```json
//! {"type": "threads.cancel_run", "params": {"thread_id": "thr_1"}}
//! ```
//!
//! a JSON request answered `{"cancelled": true}` (the run stopped as when its client left
//! it, the partial answer kept) or `{"cancelled": false}` (no run was under way).

use super::tagged::tolerant_tagged;
use super::{decode_event, JsonMap, SessionUpdated, StreamEvent, ThreadId, Unknown};
use crate::decode::Decode;
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

/// The request that stops a thread's run (its own request type, like [`SubscribeRequest`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", content = "params")]
pub enum CancelRunRequest {
    #[serde(rename = "threads.cancel_run")]
    CancelRun { thread_id: ThreadId },
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
    /// Extension: the agent session's controls changed (`session.rs`).
    SessionUpdated(SessionUpdated),
    Other(Unknown),
}

tolerant_tagged!(ChannelEvent {
    "thread.view.updated" => ViewUpdated,
    "thread.view.cleared" => ViewCleared,
    "thread.channel.ready" => Ready,
    "thread.run.started" => RunStarted,
    "thread.run.event" => RunEvent,
    "thread.run.ended" => RunEnded,
    "thread.session.updated" => SessionUpdated,
});

/// A view's whole new content, verbatim from the tool that pushed it.
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct ViewUpdated {
    pub seq: u64,
    pub view_type: String,
    pub content: JsonMap,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct ViewCleared {
    pub seq: u64,
    pub view_type: String,
}

/// The replay is over; `seq` is the thread's latest.
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct ChannelReady {
    pub seq: u64,
}

/// An answer is running on the thread (sent on connecting while one runs, or when one
/// starts): the run's events follow, then [`RunEnded`].
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct RunStarted {}

/// One event of the thread's run (a snapshot item or a live event); an event type this
/// client does not know is kept as [`StreamEvent::Other`].
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct RunEvent {
    pub event: Box<StreamEvent>,
}

/// The thread's run is over: `outcome` is `done`, `cancelled`, `failed` (a dropped
/// connection, an error, the runtime stopping) or `interrupted` (the instance running it
/// died); kept as a string for outcomes to come.
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct RunEnded {
    pub outcome: String,
}

impl ChannelEvent {
    /// The thread's sequence number of this event (`None` for run events and unknown ones).
    pub fn seq(&self) -> Option<u64> {
        match self {
            ChannelEvent::ViewUpdated(e) => Some(e.seq),
            ChannelEvent::ViewCleared(e) => Some(e.seq),
            ChannelEvent::Ready(e) => Some(e.seq),
            ChannelEvent::RunStarted(_)
            | ChannelEvent::RunEvent(_)
            | ChannelEvent::RunEnded(_)
            | ChannelEvent::SessionUpdated(_)
            | ChannelEvent::Other(_) => None,
        }
    }
}

/// How the runtime writes a run event; anything else takes the general path.
const RUN_EVENT_PREFIX: &str = r#"{"type":"thread.run.event","event":"#;

/// Whether a `data:` payload is a run event as the runtime writes it, told without decoding
/// it: a page that ignores the run (its own answer, streaming on its own request) skips
/// the decode of each of its events.
pub fn is_run_event(data: &str) -> bool {
    data.trim_start().starts_with(RUN_EVENT_PREFIX)
}

/// Decode one `data:` payload of the channel.
pub fn decode_channel_event(data: &str) -> Result<ChannelEvent, super::DecodeError> {
    // Run events are most of a busy channel (one per delta): their inner event goes straight
    // to the stream decoder and its fast path for text deltas. Any doubt (other fields,
    // other spacing, a broken event) takes the general path, which gives the same result.
    let inner = data
        .trim()
        .strip_prefix(RUN_EVENT_PREFIX)
        .and_then(|rest| rest.strip_suffix('}'));
    if let Some(Ok(event)) = inner.map(decode_event) {
        return Ok(ChannelEvent::RunEvent(RunEvent {
            event: Box::new(event),
        }));
    }
    crate::decode::from_str::<ChannelEvent>(data).map_err(|e| super::DecodeError {
        message: e.to_string(),
        raw: data.to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chatkit::{ItemUpdate, ThreadItem};
    use serde_json::json;

    #[test]
    fn the_cancel_request_is_the_documented_json() {
        let r = CancelRunRequest::CancelRun {
            thread_id: "thr_1".into(),
        };
        let wire = json!({"type": "threads.cancel_run", "params": {"thread_id": "thr_1"}});
        assert_eq!(serde_json::to_value(&r).unwrap(), wire);
        assert_eq!(serde_json::from_value::<CancelRunRequest>(wire).unwrap(), r);
        assert!(serde_json::from_value::<CancelRunRequest>(
            json!({"type": "threads.cancel_run", "params": {}})
        )
        .is_err());
    }

    fn delta_frame(spaced: bool) -> String {
        let inner = r#"{"type":"thread.item.updated","item_id":"msg_1","update":{"type":"assistant_message.content_part.text_delta","content_index":0,"delta":"Hi"}}"#;
        if spaced {
            format!(r#"{{ "type": "thread.run.event", "event": {inner} }}"#)
        } else {
            format!(r#"{{"type":"thread.run.event","event":{inner}}}"#)
        }
    }

    #[test]
    fn run_events_are_told_without_decoding() {
        assert!(is_run_event(&delta_frame(false)));
        // Another spacing takes the general path: decoded, never skipped unseen.
        assert!(!is_run_event(&delta_frame(true)));
        assert!(!is_run_event(
            r#"{"type":"thread.run.ended","outcome":"done"}"#
        ));
        assert!(!is_run_event(r#"{"type":"thread.view.updated","seq":1}"#));
    }

    #[test]
    fn run_events_wrap_stream_events_and_both_paths_agree() {
        let fast = decode_channel_event(&delta_frame(false)).unwrap();
        let general = decode_channel_event(&delta_frame(true)).unwrap();
        assert_eq!(fast, general);
        let ChannelEvent::RunEvent(RunEvent { event }) = &fast else {
            panic!("{fast:?}")
        };
        let StreamEvent::ItemUpdated(u) = event.as_ref() else {
            panic!("{event:?}")
        };
        assert!(matches!(&u.update, ItemUpdate::TextDelta(d) if d.delta == "Hi"));
        assert_eq!(fast.seq(), None);
        // Written back as the runtime writes it.
        assert_eq!(
            serde_json::to_value(&fast).unwrap(),
            serde_json::from_str::<serde_json::Value>(&delta_frame(false)).unwrap()
        );

        let added = json!({"type": "thread.run.event", "event": {"type": "thread.item.added",
            "item": {"type": "assistant_message", "id": "msg_1", "thread_id": "thr_1",
                     "created_at": "2026-01-01T00:00:00", "content": [{"type": "output_text", "text": "par", "annotations": []}]}}});
        let ChannelEvent::RunEvent(RunEvent { event }) =
            decode_channel_event(&added.to_string()).unwrap()
        else {
            panic!()
        };
        let StreamEvent::ItemAdded(e) = *event else {
            panic!()
        };
        let ThreadItem { id, .. } = e.item;
        assert_eq!(id.0, "msg_1");
    }

    #[test]
    fn run_ends_and_unknown_inner_events_are_read_but_broken_known_ones_are_not() {
        assert_eq!(
            decode_channel_event(r#"{"type":"thread.run.ended","outcome":"cancelled"}"#).unwrap(),
            ChannelEvent::RunEnded(RunEnded {
                outcome: "cancelled".into()
            })
        );
        let unknown = decode_channel_event(
            r#"{"type":"thread.run.event","event":{"type":"thread.item.teleported","x":1}}"#,
        )
        .unwrap();
        let ChannelEvent::RunEvent(RunEvent { event }) = unknown else {
            panic!("{unknown:?}")
        };
        assert!(
            matches!(*event, StreamEvent::Other(ref u) if u.type_name() == "thread.item.teleported")
        );
        for broken in [
            r#"{"type":"thread.run.event","event":{"type":"thread.item.added","item":7}}"#,
            r#"{"type":"thread.run.event"}"#,
            r#"{"type":"thread.run.ended"}"#,
        ] {
            assert!(decode_channel_event(broken).is_err(), "{broken}");
        }
    }
}
