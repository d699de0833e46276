//! The Agent UI event envelope, chosen with `protocol="agent-ui"`
//! ([flow and taxonomy](https://limecloud.github.io/agentui/en/reference/flow-and-taxonomy)):
//! its decoding, the typed payloads of the event types chat-shell reads ([`payloads`]), and
//! the `metadata.agentUi` of the requests that write to a run. The request chat-shell POSTs
//! is the `events` protocol's [`EventsRequest`](super::events::EventsRequest); controlled
//! writes go in its `metadata.agentUi` ([`respond_metadata`], [`resume_metadata`]). The
//! core's `adapters::agent_ui` orders the envelopes and maps them onto reducer input.
//!
//! An envelope is `{type, sequence?, runId?, agentId?, …ids, payload?}`: the envelope itself
//! is decoded strictly (a JSON object with a string `type` and a whole-number `sequence`),
//! its ids ([`Ids`]) and `payload` tolerantly. The spec leaves `payload` to the producer, so
//! a payload is read as the type of its event ([`Envelope::payload_as`]) only when it is
//! used, and a field of the wrong type reads as absent instead of failing the envelope:
//! what one producer gets wrong costs that field, never the run. The payloads by `type`:
//! - `run.started` [`RunStarted`], `run.status` [`RunStatus`], `run.failed` [`RunFailed`],
//!   `queue.changed` [`QueueChanged`]
//! - `text.delta` [`TextDelta`], `text.final` [`TextFinal`], `reasoning.delta` /
//!   `reasoning.summary` [`Reasoning`], `plan.delta` / `plan.final` [`Plan`]
//! - `tool.started` [`ToolStarted`], `tool.args` [`ToolArgs`], `tool.progress`
//!   [`ToolProgress`], `tool.output.delta` [`ToolOutputDelta`], `tool.result`
//!   [`ToolResult`], `tool.failed` [`ToolFailed`] (by `toolCallId`)
//! - `action.required` [`ActionRequired`], `action.resolved` [`ActionResolved`] (by
//!   `actionId`): a permission request, a question (`actionType: "clarification"`,
//!   answered with text, [`answer_metadata`]) or structured input (`actionType: "input"`,
//!   answered with `answers`, [`answers_metadata`])
//! - `team.changed` [`TeamChanged`]; `agent.spawned` / `agent.changed` / `agent.completed`
//!   [`AgentChanged`] (by `agentId`); `agent.handoff` [`AgentHandoff`];
//!   `worker.notification` [`WorkerNotification`]; `session.hydrated` (a teammate's
//!   transcript: its recent window, read as [`AgentChanged`], or with `before` the page a
//!   [`history_metadata`] request asked for, [`SessionHydrated`], read by the core's
//!   `history_page`)
//! - `context.changed` / `context.compaction.completed` [`ContextChanged`]
//! - `artifact.*` [`Artifact`] (by `artifactId`), `evidence.changed` [`Evidence`] (a
//!   citation of a message)
//! - `diagnostic.changed` [`Diagnostic`], `metric.changed` [`Metric`]

pub mod payloads;
#[cfg(test)]
mod tests;

pub use payloads::*;

use super::chatkit::DecodeError;
use super::decode::Decode;
use super::JsonMap;
use serde_json::{json, Value};

/// One decoded envelope: its class, sequence, ids and payload (read by type on demand).
#[derive(Clone, Debug, PartialEq)]
pub struct Envelope {
    pub kind: String,
    pub sequence: Option<u64>,
    /// The ids the event carries beside its payload.
    pub ids: Ids,
    payload: Value,
}

impl Envelope {
    /// `payload` as sent, or `null`.
    pub fn payload(&self) -> &Value {
        &self.payload
    }

    /// `payload` read as `T`, the payload type of this envelope's `type`. A payload that is
    /// not an object (or absent) reads as `T::default()`, as if it named nothing.
    pub fn payload_as<T: Decode + Default>(&self) -> T {
        T::decode(&self.payload).unwrap_or_default()
    }
}

/// Decodes one `data:` payload.
pub fn decode(data: &str) -> Result<Envelope, DecodeError> {
    let error = |message: String| DecodeError {
        message,
        raw: data.to_owned(),
    };
    let value: Value = serde_json::from_str(data).map_err(|e| error(e.to_string()))?;
    // Every field of `Ids` reads leniently: on an object this cannot fail.
    let ids = Ids::decode(&value).unwrap_or_default();
    let Value::Object(mut fields) = value else {
        return Err(error("an Agent UI envelope is not a JSON object".into()));
    };
    let Some(kind) = fields
        .get("type")
        .and_then(Value::as_str)
        .map(str::to_owned)
    else {
        return Err(error("an Agent UI envelope has no `type`".into()));
    };
    let sequence = match fields.get("sequence") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            v.as_u64()
                .ok_or_else(|| error("`sequence` is not a whole number".into()))?,
        ),
    };
    Ok(Envelope {
        kind,
        sequence,
        ids,
        payload: fields.remove("payload").unwrap_or(Value::Null),
    })
}

/// `metadata.agentUi` of the request that answers action `action_id` with `option_id`.
pub fn respond_metadata(action_id: &str, option_id: &str) -> Value {
    json!({"respond": {"actionId": action_id, "optionId": option_id}})
}

/// `metadata.agentUi` of the request that answers the question `action_id` with `text`.
pub fn answer_metadata(action_id: &str, text: &str) -> Value {
    json!({"respond": {"actionId": action_id, "text": text}})
}

/// `metadata.agentUi` of the request that answers the structured input `action_id` with
/// `answers` (by question id, as the core's `widgets::structured::answers` makes them).
pub fn answers_metadata(action_id: &str, answers: &JsonMap) -> Value {
    json!({"respond": {"actionId": action_id, "answers": answers}})
}

/// `metadata.agentUi` of the request that queues its last user message after run `run_id`.
pub fn queue_metadata(run_id: &str) -> Value {
    json!({"queue": {"runId": run_id}})
}

/// `metadata.agentUi` of the request that steers run `run_id` with its last user message.
pub fn steer_metadata(run_id: &str) -> Value {
    json!({"steer": {"runId": run_id}})
}

/// `metadata.agentUi` of the request that asks for the messages of teammate session
/// `session_id` before message `before` (its oldest loaded one).
pub fn history_metadata(session_id: &str, before: &str) -> Value {
    json!({"history": {"sessionId": session_id, "before": before}})
}

/// `metadata.agentUi` of the request that asks again for the events of run `run_id` after
/// sequence `after` (a gap the stream ended with).
pub fn resume_metadata(run_id: &str, after: u64) -> Value {
    json!({"resume": {"runId": run_id, "after": after}})
}
