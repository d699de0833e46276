//! Tool-pushed views of one thread ([view updates](https://infinity.hydro.run/docs/rap/spec/server/view-updates)), as the thread channel
//! (`protocol::chatkit::channel`) delivers them: the latest content of each recognised
//! view, each event applied once by its `seq`, the channel's health for a stale mark, and
//! when to reconnect. DOM-free; the browser half opens the stream and renders.

use crate::protocol::chatkit::ChannelEvent;
use crate::protocol::JsonMap;
use std::collections::BTreeMap;

/// The view types this client renders; others are ignored (and counted).
pub const KNOWN_VIEWS: &[&str] = &["diff"];

/// First and longest wait before reconnecting (ms).
const BACKOFF_FIRST_MS: u32 = 1_000;
const BACKOFF_MAX_MS: u32 = 30_000;

/// One view's latest content.
#[derive(Clone, Debug, PartialEq)]
pub struct View {
    pub content: JsonMap,
    pub seq: u64,
    pub updated_at: Option<String>,
}

/// How the channel is doing, for the views' stale mark.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ChannelStatus {
    /// Not opened yet, or opening.
    #[default]
    Connecting,
    /// Replayed and live.
    Live,
    /// Dropped: what is shown may be out of date until it reconnects.
    Stale,
    /// No channel here: the server does not offer it (the official SDK), or the page has
    /// no thread or speaks another protocol. Views are absent, no error is shown, and
    /// nothing is retried.
    Unsupported,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct ThreadViews {
    views: BTreeMap<String, View>,
    /// The last `seq` applied: the cursor a reconnection resumes from.
    cursor: Option<u64>,
    status: ChannelStatus,
    /// Failed connections in a row, for the backoff.
    failures: u32,
    /// Events of view types this client does not render, and events it could not read.
    pub ignored: u64,
}

impl ThreadViews {
    pub fn new() -> Self {
        Self::default()
    }

    /// The views of a page with no channel (no thread yet, or another protocol).
    pub fn without_channel() -> Self {
        ThreadViews {
            status: ChannelStatus::Unsupported,
            ..Self::default()
        }
    }

    /// The views with content, by type (only recognised types).
    pub fn views(&self) -> &BTreeMap<String, View> {
        &self.views
    }

    pub fn cursor(&self) -> Option<u64> {
        self.cursor
    }

    pub fn status(&self) -> ChannelStatus {
        self.status
    }

    /// Apply one event; `true` when a view changed. An event at or below the cursor was
    /// applied already (a replay after reconnecting) and changes nothing.
    pub fn apply(&mut self, event: ChannelEvent) -> bool {
        let Some(seq) = event.seq() else {
            self.ignored += 1;
            return false;
        };
        if let ChannelEvent::Ready(_) = event {
            self.status = ChannelStatus::Live;
            self.failures = 0;
            self.cursor = Some(self.cursor.map_or(seq, |c| c.max(seq)));
            return false;
        }
        if self.cursor.is_some_and(|c| seq <= c) {
            return false;
        }
        self.cursor = Some(seq);
        match event {
            ChannelEvent::ViewUpdated(e) if !KNOWN_VIEWS.contains(&e.view_type.as_str()) => {
                self.ignored += 1;
                false
            }
            // Empty content clears the view, as a `cleared` event does.
            ChannelEvent::ViewUpdated(e) if e.content.is_empty() => {
                self.views.remove(&e.view_type).is_some()
            }
            ChannelEvent::ViewUpdated(e) => {
                let view = View {
                    content: e.content,
                    seq,
                    updated_at: e.updated_at,
                };
                self.views.insert(e.view_type, view);
                true
            }
            ChannelEvent::ViewCleared(e) => self.views.remove(&e.view_type).is_some(),
            // Run events carry no seq and are the runtime's business, not a view's.
            ChannelEvent::Ready(_)
            | ChannelEvent::RunStarted(_)
            | ChannelEvent::RunEvent(_)
            | ChannelEvent::RunEnded(_)
            | ChannelEvent::SessionUpdated(_)
            | ChannelEvent::Other(_) => false,
        }
    }

    /// A payload that could not be read: counted, never fatal.
    pub fn unreadable(&mut self) {
        self.ignored += 1;
    }

    /// The channel opened (the server answered with a stream).
    pub fn opened(&mut self) {
        if self.status != ChannelStatus::Live {
            self.status = ChannelStatus::Connecting;
        }
    }

    /// The server refused the request itself (an unknown request type): no channel here.
    pub fn unsupported(&mut self) {
        self.status = ChannelStatus::Unsupported;
    }

    /// The stream ended or failed: the views are stale until it is back. Returns how long
    /// to wait before reconnecting (doubling, capped), or `None` when there is no channel.
    pub fn dropped(&mut self) -> Option<u32> {
        if self.status == ChannelStatus::Unsupported {
            return None;
        }
        self.status = ChannelStatus::Stale;
        let wait = BACKOFF_FIRST_MS
            .saturating_mul(1 << self.failures.min(5))
            .min(BACKOFF_MAX_MS);
        self.failures += 1;
        Some(wait)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::chatkit::decode_channel_event;
    use serde_json::json;

    fn event(v: serde_json::Value) -> ChannelEvent {
        decode_channel_event(&v.to_string()).expect("decodes")
    }

    fn updated(seq: u64, view_type: &str, patch: &str) -> ChannelEvent {
        event(
            json!({"type": "thread.view.updated", "seq": seq, "view_type": view_type,
                     "content": {"patch": patch}, "updated_at": "2026-11-23T00:00:00"}),
        )
    }

    #[test]
    fn each_event_is_applied_once_and_a_resumed_replay_changes_nothing() {
        let mut v = ThreadViews::new();
        assert!(v.apply(updated(1, "diff", "a")));
        assert!(!v.apply(event(json!({"type": "thread.channel.ready", "seq": 1}))));
        assert_eq!(v.status(), ChannelStatus::Live);
        assert!(v.apply(updated(2, "diff", "b")));
        // The same event again (a replay after reconnecting from an older cursor) and an
        // older one are ignored.
        assert!(!v.apply(updated(2, "diff", "b")));
        assert!(!v.apply(updated(1, "diff", "a")));
        assert_eq!(v.views()["diff"].content["patch"], "b");
        assert_eq!(v.cursor(), Some(2));
    }

    #[test]
    fn empty_content_and_cleared_events_remove_a_view() {
        let mut v = ThreadViews::new();
        v.apply(updated(1, "diff", "a"));
        assert!(v.apply(event(
            json!({"type": "thread.view.updated", "seq": 2, "view_type": "diff", "content": {}})
        )));
        assert!(v.views().is_empty());
        v.apply(updated(3, "diff", "c"));
        assert!(v.apply(event(
            json!({"type": "thread.view.cleared", "seq": 4, "view_type": "diff"})
        )));
        assert!(v.views().is_empty());
        // Clearing a view never shown changes nothing.
        assert!(!v.apply(event(
            json!({"type": "thread.view.cleared", "seq": 5, "view_type": "diff"})
        )));
    }

    #[test]
    fn unknown_view_types_and_events_are_counted_not_shown() {
        let mut v = ThreadViews::new();
        assert!(!v.apply(updated(1, "<img src=x onerror=alert(1)>", "x")));
        assert!(!v.apply(event(json!({"type": "thread.view.moved", "seq": 2}))));
        v.unreadable();
        assert!(v.views().is_empty());
        assert_eq!(v.ignored, 3);
        // A known type with a broken body is an error, not an unknown event.
        assert!(decode_channel_event(r#"{"type":"thread.view.updated","seq":"x"}"#).is_err());
    }

    #[test]
    fn a_dropped_channel_is_stale_and_backs_off_until_it_is_live_again() {
        let mut v = ThreadViews::new();
        v.apply(event(json!({"type": "thread.channel.ready", "seq": 0})));
        let waits: Vec<u32> = (0..8).map(|_| v.dropped().unwrap()).collect();
        assert_eq!(v.status(), ChannelStatus::Stale);
        assert_eq!(waits[..4], [1_000, 2_000, 4_000, 8_000]);
        assert_eq!(*waits.last().unwrap(), BACKOFF_MAX_MS);
        v.opened();
        v.apply(event(json!({"type": "thread.channel.ready", "seq": 0})));
        assert_eq!(v.status(), ChannelStatus::Live);
        assert_eq!(
            v.dropped(),
            Some(1_000),
            "the backoff starts over once live"
        );
        // Against a server without the channel: no retries, no error.
        v.unsupported();
        assert_eq!(v.dropped(), None);
        assert_eq!(v.status(), ChannelStatus::Unsupported);
    }

    #[test]
    fn the_subscribe_request_is_the_documented_json() {
        use crate::protocol::chatkit::SubscribeRequest;
        let r = SubscribeRequest::Subscribe {
            thread_id: "thr_1".into(),
            after: Some(7),
        };
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            json!({"type": "threads.subscribe", "params": {"thread_id": "thr_1", "after": 7}})
        );
        let fresh = SubscribeRequest::Subscribe {
            thread_id: "thr_1".into(),
            after: None,
        };
        assert_eq!(
            serde_json::to_value(&fresh).unwrap()["params"]["after"],
            json!(null)
        );
    }
}
