//! The permission-answer protocol: an `acp.permission_response` payload read strictly,
//! and checked against the stored request before it is recorded (the first answer stands).

use chat_shell_core::protocol::acp::{PermissionOutcome, ToolCallId};
use chat_shell_core::protocol::chatkit::{ItemKind, ThreadItem};
use serde_json::Value;

/// The payload of an `acp.permission_response` action.
#[derive(Clone, Debug, PartialEq)]
pub struct PermissionAnswer {
    pub tool_call_id: ToolCallId,
    pub outcome: PermissionOutcome,
}

/// Reads `{"toolCallId": "…", "outcome": {"outcome": "selected", "optionId": "…"}}` or
/// `{"toolCallId": "…", "outcome": {"outcome": "cancelled"}}`.
pub fn parse_answer(payload: &Value) -> Result<PermissionAnswer, String> {
    let tool_call_id = payload
        .get("toolCallId")
        .and_then(Value::as_str)
        .filter(|id| !id.is_empty())
        .ok_or("the payload needs its toolCallId")?;
    let outcome = payload
        .get("outcome")
        .ok_or("the payload needs an outcome")?;
    let outcome: PermissionOutcome =
        serde_json::from_value(outcome.clone()).map_err(|e| format!("bad outcome: {e}"))?;
    if let PermissionOutcome::Other(_) = outcome {
        return Err("the outcome is neither `selected` nor `cancelled`".into());
    }
    Ok(PermissionAnswer {
        tool_call_id: ToolCallId::from(tool_call_id),
        outcome,
    })
}

/// Why an answer was not taken.
#[derive(Clone, Debug, PartialEq)]
pub enum Refusal {
    NotAToolCall,
    /// The item is another tool call than the payload names.
    WrongToolCall,
    /// The tool call never asked.
    NotAsking,
    /// Already answered: the first decision stands.
    Decided(PermissionOutcome),
    /// An option the request did not offer.
    UnknownOption(String),
}

impl Refusal {
    /// `(status, code, message)` of the JSON error.
    pub fn describe(&self) -> (u16, &'static str, String) {
        match self {
            Refusal::NotAToolCall => (
                400,
                "not_a_tool_call",
                "the action's item is not a tool call".into(),
            ),
            Refusal::WrongToolCall => (
                400,
                "wrong_tool_call",
                "the payload's toolCallId is not the item's tool call".into(),
            ),
            Refusal::NotAsking => (
                409,
                "not_asking",
                "this tool call has no permission request".into(),
            ),
            Refusal::Decided(outcome) => (
                409,
                "already_decided",
                format!(
                    "this permission request was already answered ({}); the first answer stands",
                    describe_outcome(outcome)
                ),
            ),
            Refusal::UnknownOption(id) => (
                400,
                "unknown_option",
                format!("option {id:?} was not offered by this permission request"),
            ),
        }
    }
}

/// `selected allow-once` or `cancelled`, for messages and the log.
pub fn describe_outcome(outcome: &PermissionOutcome) -> String {
    match outcome {
        PermissionOutcome::Selected { option_id } => format!("selected {}", option_id.0),
        PermissionOutcome::Cancelled => "cancelled".into(),
        PermissionOutcome::Other(u) => u.0.to_string(),
    }
}

/// Records `answer` on `item` if it may be: the item is the tool call it names, that call
/// is asking, and a selected option is one it offered. Cancelling is always allowed while
/// asking.
pub fn decide(item: &mut ThreadItem, answer: &PermissionAnswer) -> Result<(), Refusal> {
    let ItemKind::AcpToolCall(call) = &mut item.kind else {
        return Err(Refusal::NotAToolCall);
    };
    if call.tool_call.tool_call_id != answer.tool_call_id {
        return Err(Refusal::WrongToolCall);
    }
    let Some(permission) = call.permission.as_mut() else {
        return Err(Refusal::NotAsking);
    };
    if let Some(outcome) = &permission.outcome {
        return Err(Refusal::Decided(outcome.clone()));
    }
    if let PermissionOutcome::Selected { option_id } = &answer.outcome {
        if permission.option(option_id).is_none() {
            return Err(Refusal::UnknownOption(option_id.0.clone()));
        }
    }
    permission.outcome = Some(answer.outcome.clone());
    Ok(())
}
