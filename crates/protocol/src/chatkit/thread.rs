//! Threads, their status, and paginated lists.

use super::tagged::{null_as_default, tolerant_tagged};
use super::{items::ThreadItem, JsonMap, ThreadId, Unknown};
use crate::decode::Decode;
use serde::Serialize;

/// A conversation thread. `items` is present on `threads.get_by_id` and stream events.
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct Thread {
    pub id: ThreadId,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A naive ISO timestamp (no zone), kept as sent.
    #[serde(default, deserialize_with = "null_as_default")]
    pub created_at: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub status: ThreadStatus,
    #[serde(default, deserialize_with = "null_as_default")]
    pub metadata: JsonMap,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub items: Option<Page<ThreadItem>>,
    /// Extension: the server keeps this thread as a tree of branches and answers
    /// `threads.edit_user_message`, `threads.regenerate_after_item` and
    /// `threads.select_branch` for it (see `requests`). Absent: it does not.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub branching: bool,
}

/// Whether the thread accepts new messages.
#[derive(Clone, Debug, PartialEq)]
pub enum ThreadStatus {
    Active(StatusBody),
    Locked(StatusBody),
    Closed(StatusBody),
    Other(Unknown),
}

/// The body of a status: an optional human-readable reason.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct StatusBody {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

tolerant_tagged!(ThreadStatus {
    "active" => Active,
    "locked" => Locked,
    "closed" => Closed,
});

impl Default for ThreadStatus {
    fn default() -> Self {
        ThreadStatus::Active(StatusBody::default())
    }
}

impl ThreadStatus {
    /// Why the composer is disabled, if it is: `Some(reason)` for locked or closed threads.
    pub fn blocked_reason(&self) -> Option<Option<&str>> {
        match self {
            ThreadStatus::Locked(b) | ThreadStatus::Closed(b) => Some(b.reason.as_deref()),
            ThreadStatus::Active(_) | ThreadStatus::Other(_) => None,
        }
    }
}

/// One page of a cursor-paginated list.
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct Page<T> {
    #[serde(default = "Vec::new", deserialize_with = "null_as_default")]
    pub data: Vec<T>,
    #[serde(default)]
    pub has_more: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
}

impl<T> Default for Page<T> {
    fn default() -> Self {
        Page {
            data: Vec::new(),
            has_more: false,
            after: None,
        }
    }
}
