//! What agents and tools do in the thread: an agent's tool calls with their permission
//! cards, and the tool-pushed views' tab strip and panels.

pub(crate) mod call;
pub(crate) mod permission;
pub(crate) mod tabs;
