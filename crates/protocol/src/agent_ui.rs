//! The Agent UI event envelope (`spec/agent-ui-flow-taxonomy.md`), chosen with
//! `protocol="agent-ui"`: its decoding, and the `metadata.agentUi` of the requests that
//! write to a run. The request chat-shell POSTs is the `events` protocol's
//! [`EventsRequest`](super::events::EventsRequest); controlled writes go in its
//! `metadata.agentUi` ([`respond_metadata`], [`resume_metadata`]). The core's
//! `adapters::agent_ui` orders the envelopes and maps them onto reducer input.
//!
//! Payload shapes (the spec leaves `payload` to the producer; these are the names read):
//! - `run.started` `{controls?: ["queue", "steer", …]}`: what the run takes while it runs
//! - `queue.changed` `{queued?: [{turnId, text, status, runId?}], steer?: {turnId, text,
//!   status}}`: the runtime's queue (a turn `started` as run `runId` becomes a user
//!   message), and a steer it applied (a note in the run). A stream may go on with the
//!   run of a started turn: a new `runId` after `run.finished` starts its own order.
//! - `run.status` `{status, label?}`; `run.failed` `{message?, code?}`
//! - `text.delta` `{delta}`, `text.final` `{text}` (by `messageId`; final replaces)
//! - `reasoning.delta` `{delta}`, `reasoning.summary` `{text}` (by `messageId`)
//! - `plan.delta` / `plan.final` `{entries: [{content, status?}]}`
//! - `tool.started` `{name, title?, kind?}`, `tool.args` `{input}`, `tool.progress`
//!   `{message?, progress?}`, `tool.output.delta` `{delta}`, `tool.result` `{output}`,
//!   `tool.failed` `{error}` (by `toolCallId`)
//! - `action.required` `{actionType, title, options: [{id, label, kind?}], input?}` (by
//!   `actionId`, on `toolCallId` when given), `action.resolved` `{optionId?, outcome,
//!   text?}`; `actionType: "clarification"` is a question (`input.placeholder?`),
//!   answered with text ([`answer_metadata`]) and answered once `action.resolved` says
//!   which `text` the owner took; `actionType: "input"` is structured input
//!   (`input.questions`, ChatKit's structured input questions), answered with `answers`
//!   ([`answers_metadata`]) and answered once `action.resolved` carries the `answers`
//!   the owner took
//! - `team.changed` `{teamName, topology}`; `agent.spawned` / `agent.changed` /
//!   `agent.completed` `{agentName?, teamName?, role?, model?, status?, message?, remote?}`
//!   (by `agentId`, with `sessionId`, `parentSessionId`, `parentThreadId`, `taskId`)
//! - `agent.handoff` `{from, to, reason?}`; `worker.notification` `{status, summary, role?,
//!   durationMs?, toolCount?}` (by `agentId`, `taskId`)
//! - `session.hydrated` `{messages: [{id, text}], hasMore, before?}` (a teammate's session,
//!   by `agentId`, oldest first; `hasMore`: the session has older messages). Without
//!   `before` the messages are its recent window, appended as they hydrate; with `before`
//!   they are the page right before that message, loaded on demand ([`history_metadata`],
//!   answered with this one envelope as JSON, read by [`history_page`])
//! - `context.changed` `{budget?: {used, limit}, missing?: [..]}`,
//!   `context.compaction.completed` `{summary}`
//! - `artifact.created` / `artifact.updated` / `artifact.changed` `{title, kind?, body?}`
//!   (by `artifactId`)
//! - `evidence.changed` `{title, url, messageId}`: a citation of that message
//! - `diagnostic.changed` `{message}`, `metric.changed` `{name, value}`

use super::chatkit::DecodeError;
use super::JsonMap;
use serde_json::{json, Value};

/// One decoded envelope: its class, sequence, ids and payload (the rest is kept raw).
#[derive(Clone, Debug, PartialEq)]
pub struct Envelope {
    pub kind: String,
    pub sequence: Option<u64>,
    fields: JsonMap,
}

impl Envelope {
    /// The non-empty string field `key` (an id: `runId`, `agentId`, …).
    pub fn id(&self, key: &str) -> Option<String> {
        self.fields
            .get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    }

    /// `payload`, or `null`.
    pub fn payload(&self) -> &Value {
        self.fields.get("payload").unwrap_or(&Value::Null)
    }

    /// The non-blank string `key` of the payload.
    pub fn text(&self, key: &str) -> Option<String> {
        self.payload()
            .get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.trim().is_empty())
            .map(str::to_owned)
    }
}

/// Decodes one `data:` payload.
pub fn decode(data: &str) -> Result<Envelope, DecodeError> {
    let error = |message: String| DecodeError {
        message,
        raw: data.to_owned(),
    };
    let value: Value = serde_json::from_str(data).map_err(|e| error(e.to_string()))?;
    let Value::Object(fields) = value else {
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
        fields,
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
