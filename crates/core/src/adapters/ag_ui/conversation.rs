//! What AG-UI keeps of a conversation besides its items (its shared state, reasoning sent
//! back unread, the interrupts waiting, the branches not shown), sent back with every run
//! and kept with the conversation in the browser.

use crate::protocol::ag_ui::Interrupt;
use crate::protocol::chatkit::ItemId;
use crate::protocol::decode::Decode;
use crate::protocol::JsonMap;
use serde::Serialize;
use serde_json::{json, Value};

/// What AG-UI keeps of a conversation besides its items, sent back with every run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct Conversation {
    pub thread_id: String,
    /// The agent's shared state, as its last snapshot and patches left it.
    #[serde(default)]
    pub state: Value,
    /// Reasoning the agent wants back but nobody may read (strings), by message or tool
    /// call id.
    #[serde(default)]
    pub encrypted: JsonMap,
    /// The interrupts the user has not answered yet.
    #[serde(default)]
    pub interrupts: Vec<Interrupt>,
    /// Where the conversation forked, with the branches not shown (`branches`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub forks: Vec<Fork>,
}

impl Conversation {
    pub fn new(thread_id: String) -> Self {
        Conversation {
            thread_id,
            state: json!({}),
            ..Conversation::default()
        }
    }

    /// The interrupt an item stands for (its card or form), if it still waits.
    pub fn interrupt_of(&self, item_id: &ItemId) -> Option<&Interrupt> {
        self.interrupts.iter().find(|i| {
            interrupt_item(&i.id) == *item_id || i.tool_call_id.as_deref() == Some(&item_id.0)
        })
    }
}

impl Conversation {
    /// The encrypted value kept for a message or tool call.
    pub fn encrypted_of(&self, id: &str) -> Option<String> {
        self.encrypted
            .get(id)
            .and_then(Value::as_str)
            .map(str::to_owned)
    }
}

/// The item of an interrupt that is not about a tool call.
pub fn interrupt_item(interrupt_id: &str) -> ItemId {
    ItemId(format!("interrupt-{interrupt_id}"))
}

/// Where branches part.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct Fork {
    /// The entry the branches follow; `None`: they start the conversation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
    /// Each branch's first entry, oldest first.
    #[serde(default)]
    pub starts: Vec<String>,
    /// The branches not shown, by their first entry: their messages as kept.
    #[serde(default)]
    pub kept: JsonMap,
}
