//! ACP (`protocol::acp`) as reducer input: what an agent says about one item (a tool
//! call's update, a permission request and its outcome, a plan, a thought chunk) as an
//! [`ItemChange`]. ACP reaches the page inside ChatKit's `acp_*` extension updates
//! ([`super::chatkit`]), the Agent UI envelope's tool and action events
//! ([`super::agent_ui`]) and the events envelope's tool calls ([`super::events`]).

use crate::protocol::acp::{
    ContentBlock, ElicitationOutcome, PermissionResponse, Plan, RequestPermission, ToolCallUpdate,
};
use crate::reducer::ItemChange;

/// `tool_call_update`: only the fields it carries change.
pub fn tool_call_updated(update: ToolCallUpdate) -> ItemChange {
    ItemChange::ToolCall(update)
}

/// `session/request_permission`: its tool call merges into the item's.
pub fn permission_requested(request: RequestPermission) -> ItemChange {
    ItemChange::PermissionRequested(request)
}

/// The response to a permission request, as the server confirms it.
pub fn permission_resolved(response: PermissionResponse) -> ItemChange {
    ItemChange::PermissionResolved(response.outcome)
}

/// `plan`: the entries replace the item's.
pub fn plan(plan: Plan) -> ItemChange {
    ItemChange::Plan(plan.entries)
}

/// The server confirms how an elicitation ended.
pub fn elicitation_resolved(outcome: ElicitationOutcome) -> ItemChange {
    ItemChange::ElicitationResolved(outcome)
}

/// `agent_thought_chunk`.
pub fn thought_chunk(content: ContentBlock) -> ItemChange {
    ItemChange::Thought(content)
}
