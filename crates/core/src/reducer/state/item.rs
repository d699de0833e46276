//! One item as the client holds it: the entry, what the client knows beside it (status,
//! hidden, local, owner…), and what a view shows of a tool call and its permission card.

use super::run::AgentInfo;
use crate::model::{Entry, EntryKind};
use crate::protocol::acp::{PermissionOptionId, PermissionOutcome, ToolCallStatus};

/// One item with what the client knows about it beyond the wire.
#[derive(Clone, Debug, PartialEq)]
pub struct EntryState {
    pub entry: Entry,
    pub status: ItemStatus,
    /// A ghost message: sent, never shown.
    pub hidden: bool,
    /// Shown by the client before the server echoed it (an optimistic user message).
    pub local: bool,
    /// `generated_image.updated` progress, 0..1.
    pub progress: Option<f64>,
    /// Arrived in an answer streamed during this session (not loaded from history): the
    /// view may animate it in even if the whole answer came in one chunk.
    pub live: bool,
    /// The agent that owned the run when this item arrived (multi-agent runs).
    pub agent: Option<AgentInfo>,
    /// What the client knows of an ACP tool call beyond the agent's status (see
    /// [`EntryState::tool_call_state`]).
    pub tool_mark: Option<ToolCallMark>,
    /// The permission option the user picked and the client sent, not yet confirmed by
    /// the server: the card shows it as sending, not as decided.
    pub permission_choice: Option<PermissionOptionId>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ItemStatus {
    /// Still receiving updates.
    Streaming,
    Done,
    /// The user pressed Stop; the partial content is kept.
    Stopped,
    /// The answer failed here; the partial content is kept.
    Failed,
}

impl ItemStatus {
    /// The `data-status` value a view shows (without the `Debug` formatting machinery).
    pub fn as_str(self) -> &'static str {
        match self {
            ItemStatus::Streaming => "streaming",
            ItemStatus::Done => "done",
            ItemStatus::Stopped => "stopped",
            ItemStatus::Failed => "failed",
        }
    }
}

/// What a view shows for an ACP tool call: the agent's four statuses plus what only the
/// client knows. [`ToolCallState::as_str`] is the `data-status` a view puts on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ToolCallState {
    Pending,
    InProgress,
    Completed,
    Failed,
    /// The agent asked permission and no decision is confirmed yet.
    AwaitingPermission,
    /// The server confirmed a `reject_*` option.
    Rejected,
    /// The permission request was answered `cancelled` (the user pressed Stop, or the
    /// server said so).
    Cancelled,
    /// The run ended while the call was unfinished: its outcome is unknown.
    Interrupted,
    /// A status this client does not know, or a result without `success`: never guessed
    /// as pending or done.
    Unknown,
}

impl ToolCallState {
    /// The `data-status` value.
    pub fn as_str(self) -> &'static str {
        match self {
            ToolCallState::Pending => "pending",
            ToolCallState::InProgress => "in_progress",
            ToolCallState::Completed => "completed",
            ToolCallState::Failed => "failed",
            ToolCallState::AwaitingPermission => "awaiting_permission",
            ToolCallState::Rejected => "rejected",
            ToolCallState::Cancelled => "cancelled",
            ToolCallState::Interrupted => "interrupted",
            ToolCallState::Unknown => "unknown",
        }
    }

    /// Still running (a spinner): nothing else may show one.
    pub fn is_running(self) -> bool {
        matches!(self, ToolCallState::Pending | ToolCallState::InProgress)
    }
}

/// What the client adds to a tool call's agent status. A later status from the server
/// clears it: the server knows better.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ToolCallMark {
    /// The run ended while the call was pending or in progress.
    Interrupted,
    /// A result came without saying whether it succeeded.
    OutcomeUnknown,
}

/// Where a permission card is.
#[derive(Clone, Debug, PartialEq)]
pub enum PermissionState<'a> {
    /// Waiting for the user; `sent` is the option picked and sent, not yet confirmed.
    Asking {
        sent: Option<&'a PermissionOptionId>,
    },
    /// The server confirmed this outcome (or the client answered `cancelled` on Stop).
    Decided(&'a PermissionOutcome),
}

impl EntryState {
    pub fn new(entry: Entry, status: ItemStatus) -> Self {
        EntryState {
            entry,
            status,
            hidden: false,
            local: false,
            progress: None,
            live: false,
            agent: None,
            tool_mark: None,
            permission_choice: None,
        }
    }

    /// The state of an ACP tool call item (`None` for other items). A pending permission
    /// request wins, then a confirmed reject or cancel, then the client's mark, then the
    /// agent's status; an unknown status is `Unknown`.
    pub fn tool_call_state(&self) -> Option<ToolCallState> {
        let EntryKind::ToolCall(item) = &self.entry.kind else {
            return None;
        };
        if let Some(permission) = &item.permission {
            match &permission.outcome {
                None => return Some(ToolCallState::AwaitingPermission),
                Some(PermissionOutcome::Cancelled) => return Some(ToolCallState::Cancelled),
                Some(PermissionOutcome::Selected { option_id })
                    if permission
                        .option(option_id)
                        .is_some_and(|o| o.kind.is_reject()) =>
                {
                    return Some(ToolCallState::Rejected)
                }
                Some(PermissionOutcome::Selected { .. } | PermissionOutcome::Other(_)) => {}
            }
        }
        Some(match self.tool_mark {
            Some(ToolCallMark::Interrupted) => ToolCallState::Interrupted,
            Some(ToolCallMark::OutcomeUnknown) => ToolCallState::Unknown,
            None => match &item.tool_call.status {
                ToolCallStatus::Pending => ToolCallState::Pending,
                ToolCallStatus::InProgress => ToolCallState::InProgress,
                ToolCallStatus::Completed => ToolCallState::Completed,
                ToolCallStatus::Failed => ToolCallState::Failed,
                ToolCallStatus::Unknown(_) => ToolCallState::Unknown,
            },
        })
    }

    /// The permission card of an ACP tool call item, if the agent asked.
    pub fn permission_state(&self) -> Option<PermissionState<'_>> {
        let EntryKind::ToolCall(item) = &self.entry.kind else {
            return None;
        };
        let permission = item.permission.as_ref()?;
        Some(match &permission.outcome {
            Some(outcome) => PermissionState::Decided(outcome),
            None => PermissionState::Asking {
                sent: self.permission_choice.as_ref(),
            },
        })
    }
}
