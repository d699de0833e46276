//! The thread as the client shows it, whatever protocol carried it: one [`Entry`] per
//! thing in the conversation. Adapters make entries (ChatKit's items one to one, the ACP
//! and Agent UI streams directly); the reducer and the views read only these. Payloads
//! that are plain data (a message's parts, a widget tree, a task, an ACP tool call's
//! fields) are the protocol's own structs; what an entry *is* is decided here.

use crate::protocol::acp;
use crate::protocol::chatkit::{
    AssistantMessage, ClientToolCall, ClientWidget, EndOfTurn, GeneratedImageItem, ItemId, Note,
    StructuredInput, TaskItem, ThreadId, UserMessage, WidgetItem, WorkflowItem,
};
use crate::protocol::Unknown;

/// One entry of the conversation: its id, where and when it was made, and what it is.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub id: ItemId,
    pub thread_id: Option<ThreadId>,
    pub created_at: String,
    pub kind: EntryKind,
    /// Where the entry is one of several branches (edits of one message, answers to
    /// one message): every branch's first entry, oldest first, itself included. Empty
    /// where there is only one.
    pub branches: Vec<ItemId>,
}

impl Entry {
    pub fn new(id: ItemId, kind: EntryKind) -> Self {
        Entry {
            id,
            thread_id: None,
            created_at: String::new(),
            kind,
            branches: Vec::new(),
        }
    }

    /// Whether it is a user message sent as a ghost (never shown).
    pub fn is_ghost(&self) -> bool {
        matches!(&self.kind, EntryKind::UserMessage(m) if is_ghost(m))
    }

    /// Its place among its branches and how many there are (`(1, 2)`: the first of two);
    /// `None` where it has none.
    pub fn branch_position(&self) -> Option<(usize, usize)> {
        let at = self.branches.iter().position(|b| b == &self.id)?;
        (self.branches.len() > 1).then_some((at + 1, self.branches.len()))
    }
}

/// What an entry is.
// Each entry is held once, in place; boxing the tool call (the largest) would add a
// pointer hop to every render of the most frequent agent entry.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum EntryKind {
    /// What the user sent (text, tags, attachments).
    UserMessage(UserMessage),
    /// The assistant's answer text, in parts with their citations.
    AssistantText(AssistantMessage),
    /// A tool the client runs, answered with its output.
    ClientToolCall(ClientToolCall),
    /// A server-defined widget tree.
    Widget(WidgetItem),
    /// A widget from the host's registry, by name.
    ClientWidget(ClientWidget),
    GeneratedImage(GeneratedImageItem),
    /// Questions the user answers.
    StructuredInput(StructuredInput),
    /// A group of tasks shown as one collapsible block.
    Workflow(WorkflowItem),
    Task(TaskItem),
    /// The end of an assistant turn, and how it ended.
    EndOfTurn(EndOfTurn),
    /// An agent's tool call, with its permission request once the agent asked.
    ToolCall(ToolCall),
    /// An agent's plan, for the process area.
    Plan(Plan),
    /// An agent's thoughts, shown as collapsed reasoning.
    Thought(Thought),
    /// A process fact in the conversation's order (worker result, handoff, context…).
    Note(Note),
    /// An agent's question to the user: a form, or a page to open (ACP elicitation).
    Elicitation(Elicitation),
    /// Something this client does not know: shown as "unsupported content".
    Unsupported(Unknown),
}

/// An agent's question (ACP `elicitation/create`, held as ACP sends it) and, once the
/// server confirmed the answer, how it ended (`None`: still asking).
#[derive(Clone, Debug, PartialEq)]
pub struct Elicitation {
    pub request: acp::ElicitationRequest,
    pub outcome: Option<acp::ElicitationOutcome>,
}

/// An agent's tool call (ACP's fields, held as ACP sends them) and the permission asked
/// for it, if any.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolCall {
    pub tool_call: acp::ToolCall,
    pub permission: Option<Permission>,
}

/// A permission request: the answers offered, and the outcome once confirmed (`None`:
/// still asking).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Permission {
    pub options: Vec<acp::PermissionOption>,
    pub outcome: Option<acp::PermissionOutcome>,
    /// The `actionId` the answer goes back with (Agent UI).
    pub action_id: Option<String>,
    /// What is decided (`plan_decision`, a permission…), as the runtime named it.
    pub action_type: Option<String>,
}

impl Permission {
    pub fn option(&self, id: &acp::PermissionOptionId) -> Option<&acp::PermissionOption> {
        self.options.iter().find(|o| &o.option_id == id)
    }
}

/// An agent's plan: its entries, replaced whole on each update.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Plan {
    pub entries: Vec<acp::PlanEntry>,
}

/// An agent's thoughts (markdown), appended chunk by chunk.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Thought {
    pub text: String,
}

/// The `inference_options` key that marks a ghost user message. The SDK keeps no request
/// metadata per message, but servers store a message's `inference_options` with it, so
/// the mark survives a reload.
pub const GHOST_OPTION: &str = "ghost";

/// Whether a user message was sent as a ghost (never shown): the one rule.
pub fn is_ghost(m: &UserMessage) -> bool {
    m.inference_options
        .as_ref()
        .and_then(|o| o.get(GHOST_OPTION))
        .and_then(serde_json::Value::as_bool)
        .unwrap_or(false)
}
