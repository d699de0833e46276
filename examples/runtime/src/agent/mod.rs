//! Agent runs over ChatKit, with chat-shell's extension items: ACP tool calls
//! (`acp_tool_call` items and their `acp_tool_call.*` updates), plans (`acp_plan`) and
//! thoughts (`acp_thought`), and permission requests that the client answers with
//! `threads.custom_action` (`acp.permission_response`). Nothing runs for real: the tools,
//! files and terminal output are scripted, like every other answer.
//!
//! A permission request is decided once: the answer is checked against the item in the
//! store (the tool call named, still asking, an option it offered), the outcome is written
//! on the item's `permission.outcome`, and a later answer is refused. What the decision
//! leads to ([`permission_decided`]) streams on the asking stream if it is still waiting,
//! else on the answer's own stream.
//!
//! The parts: the items a scripted agent streams ([`blocks`]), the `agent` and `agentcut`
//! scenarios ([`scenarios`]), the `permission` scenario and what its decision leads to
//! ([`permission`]), and the checks an answer passes before it is taken ([`answer`]).

mod answer;
mod blocks;
mod permission;
mod scenarios;
#[cfg(test)]
mod tests;

pub use answer::{decide, describe_outcome, parse_answer};
pub use permission::{permission_ask, permission_decided};
pub use scenarios::{agent_cut, agent_run};
