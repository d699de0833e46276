//! The run-level state of multi-agent harnesses: the agent that owns the bubbles, the
//! coordinator's plan, recoverable errors, budget stops, sequence gaps, and what the client
//! met and did not understand.

use crate::protocol::chatkit::ItemId;
use serde_json::Value;
use std::collections::BTreeMap;

/// The agent that owns a bubble.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentInfo {
    /// What to show ("researcher").
    pub name: String,
    pub id: Option<String>,
    /// Everything the server sent about it.
    pub payload: Option<Value>,
}

/// The coordinator's view of a multi-agent run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Orchestration {
    pub group_id: Option<String>,
    /// The latest status line ("Delegating to researcher").
    pub status: Option<String>,
    /// The latest plan; an update without one keeps it.
    pub plan: Vec<OrchestrationStep>,
    /// The last payload as sent, for views that know more of it.
    pub payload: Option<Value>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrchestrationStep {
    pub title: String,
    pub status: Option<String>,
    pub agent: Option<String>,
}

/// One `orchestration` event, as the adapter read it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OrchestrationUpdate {
    pub group_id: Option<String>,
    pub status: Option<String>,
    /// `None`: the plan is unchanged.
    pub plan: Option<Vec<OrchestrationStep>>,
    pub payload: Option<Value>,
}

/// A recoverable error inside a run, shown inline.
#[derive(Clone, Debug, PartialEq)]
pub struct RunError {
    /// Unique for the element's life, for keyed views.
    pub id: u64,
    /// As the server said it; may be empty (then the view says "error" with the code).
    pub message: String,
    pub code: Option<String>,
    /// Shown after this item, or at the start.
    pub after_item: Option<ItemId>,
}

/// Why the harness stopped the run (the message names the limit).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Budget {
    pub message: String,
}

/// Something the client did not understand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unrecognized {
    /// An event of a type it does not know.
    EventType(String),
    /// A field it does not know on an event of a type it knows.
    Field { event_type: String, field: String },
}

/// Counters of what was not understood; the first of each name is also a
/// `chat.diagnostic` event.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diagnostics {
    pub unknown_types: BTreeMap<String, u64>,
    /// Keyed `type.field`.
    pub unknown_fields: BTreeMap<String, u64>,
    /// Runtime diagnostics and metrics (Agent UI `diagnostic.changed`, `metric.changed`),
    /// keyed `kind:name`: reported to the host, never shown in the conversation.
    pub facts: BTreeMap<String, u64>,
    /// Older transcript pages that arrived after the transcript moved on (dropped).
    pub stale_pages: u64,
}

impl Diagnostics {
    pub fn is_empty(&self) -> bool {
        self.unknown_types.is_empty()
            && self.unknown_fields.is_empty()
            && self.facts.is_empty()
            && self.stale_pages == 0
    }
}

/// Events of a run are missing after `after`: the client asked for them again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SequenceGap {
    pub run_id: String,
    /// The last sequence applied in order.
    pub after: u64,
}
