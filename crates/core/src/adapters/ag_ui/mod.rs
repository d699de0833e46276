//! AG-UI (`protocol::ag_ui`, `protocol="ag-ui"`) as reducer input: the adapter that maps
//! one run's stream of events onto the inputs the other formats feed, the conversation
//! facts AG-UI keeps beside the items (its shared state, reasoning sent back unread, the
//! interrupts waiting), and the `RunAgentInput` built from both (`request`).
//!
//! The client holds the conversation. Item ids are the agent's message and tool call ids
//! (made unique if an agent reuses one), so the messages sent back carry the ids the agent
//! gave.
//!
//! `adapter` maps the events, `conversation` is what is kept beside the items, `snapshot`
//! reads messages as items, `activities` the agent's activities and state patches,
//! `request` builds a run's input, `branches` keeps the branches not shown.

mod activities;
mod adapter;
pub mod branches;
mod conversation;
mod request;
mod snapshot;
#[cfg(test)]
mod tests;

pub use adapter::{AgUiAdapter, APPROVE, MAX_ARGS, REJECT};
pub use conversation::{interrupt_item, Conversation};
pub use request::{request, stored_messages, RunSetup};
pub use snapshot::{restored, text_of};
