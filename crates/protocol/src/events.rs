//! The SSE event envelope ([spec](https://pathlyapp.github.io/steerable-framework/spec/events/)), chosen with `protocol="events"`:
//! its wire types and the request body chat-shell POSTs for it (the core's
//! `adapters::events` maps it onto the reducer's inputs).
//!
//! Tolerant like the rest: an unknown `type` is kept (`EventKind::Other`) and counted, an
//! unknown field on a known type is counted, neither is fatal. A known type with a broken
//! body (`content` without its text, a `success` that is not a boolean) is a
//! [`DecodeError`] that carries the raw payload.

use super::chatkit::DecodeError;
use super::decode::Decode;
use super::tagged::tolerant_tagged;
use super::{JsonMap, Unknown};
use serde::Serialize;
use serde_json::Value;

/// The fields the spec names; anything else on a known type is counted as unknown.
const KNOWN_FIELDS: &[&str] = &[
    "type",
    "event",
    "content",
    "hint",
    "message",
    "code",
    "orchestrationGroupId",
    "taskId",
    "messageId",
    "payload",
];

/// One decoded `data:` payload.
#[derive(Clone, Debug, PartialEq)]
pub struct Envelope {
    pub event: EventKind,
    /// Correlation fields any type may carry.
    pub meta: EnvelopeMeta,
    /// Names of fields the spec does not name, on a known type (forwarded, counted).
    pub unknown_fields: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EnvelopeMeta {
    /// The raw SSE event name (legacy).
    pub event: Option<String>,
    pub orchestration_group_id: Option<String>,
    pub task_id: Option<String>,
    pub message_id: Option<String>,
}

/// What an envelope says, by its `type`.
#[derive(Clone, Debug, PartialEq)]
pub enum EventKind {
    /// A token of streamed markdown.
    Content(ContentEvent),
    ToolCall(ToolCallEvent),
    ToolResult(ToolResultEvent),
    /// A recoverable error: the run goes on.
    Error(ErrorEnvelope),
    BudgetExhausted(BudgetEvent),
    Agent(AgentEvent),
    Orchestration(OrchestrationEvent),
    LoaderHint(LoaderHint),
    Keepalive(Empty),
    Done(Empty),
    Other(Unknown),
}

tolerant_tagged!(EventKind {
    "content" => Content,
    "tool_call" => ToolCall,
    "tool_result" => ToolResult,
    "error" => Error,
    "budget_exhausted" => BudgetExhausted,
    "agent" => Agent,
    "orchestration" => Orchestration,
    "loader-hint" => LoaderHint,
    "keepalive" => Keepalive,
    "done" => Done,
});

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct ContentEvent {
    pub content: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct ToolCallEvent {
    pub payload: ToolCallPayload,
}

/// `{id, name, arguments}`.
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct ToolCallPayload {
    #[serde(default, alias = "toolCallId", alias = "callId")]
    pub id: Option<String>,
    pub name: String,
    #[serde(default)]
    pub arguments: Value,
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct ToolResultEvent {
    #[serde(default)]
    pub payload: ToolResultPayload,
}

/// `{success, data?}`; `success` may be missing (an unknown outcome). Some runtimes name
/// the call (`id`), which pairs the result with it; else it goes to the last open call.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct ToolResultPayload {
    #[serde(default, alias = "toolCallId", alias = "callId")]
    pub id: Option<String>,
    #[serde(default)]
    pub success: Option<bool>,
    #[serde(default)]
    pub data: Option<Value>,
    #[serde(default)]
    pub error: Option<Value>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct ErrorEnvelope {
    #[serde(default)]
    pub message: Option<String>,
    #[serde(default)]
    pub code: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct BudgetEvent {
    #[serde(default)]
    pub message: Option<String>,
    #[serde(default)]
    pub payload: Option<Value>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct AgentEvent {
    #[serde(default)]
    pub payload: Option<Value>,
    #[serde(default)]
    pub content: Option<String>,
    #[serde(default)]
    pub message: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct OrchestrationEvent {
    #[serde(default)]
    pub payload: Option<Value>,
    #[serde(default)]
    pub message: Option<String>,
}

/// The placeholder text while waiting (`hint`; some runtimes put it in `content`).
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct LoaderHint {
    #[serde(default)]
    pub hint: Option<String>,
    #[serde(default)]
    pub content: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct Empty {}

/// Decode one `data:` payload (`[DONE]` is the SSE decoder's `SseFrame::Done`).
pub fn decode_envelope(data: &str) -> Result<Envelope, DecodeError> {
    let error = |message: String| DecodeError {
        message,
        raw: data.to_owned(),
    };
    let value: Value = serde_json::from_str(data).map_err(|e| error(e.to_string()))?;
    let Value::Object(fields) = &value else {
        return Err(error("an event envelope is not a JSON object".into()));
    };
    let text = |key: &str| fields.get(key).and_then(Value::as_str).map(str::to_owned);
    let meta = EnvelopeMeta {
        event: text("event"),
        orchestration_group_id: text("orchestrationGroupId"),
        task_id: text("taskId"),
        message_id: text("messageId"),
    };
    let event = EventKind::decode(&value).map_err(|e| error(e.to_string()))?;
    let unknown_fields = match event {
        EventKind::Other(_) => Vec::new(),
        _ => fields
            .keys()
            .filter(|k| !KNOWN_FIELDS.contains(&k.as_str()))
            .cloned()
            .collect(),
    };
    Ok(Envelope {
        event,
        meta,
        unknown_fields,
    })
}

impl EventKind {
    /// The `type` tag this event came with.
    pub fn type_name(&self) -> &str {
        match self {
            EventKind::Content(_) => "content",
            EventKind::ToolCall(_) => "tool_call",
            EventKind::ToolResult(_) => "tool_result",
            EventKind::Error(_) => "error",
            EventKind::BudgetExhausted(_) => "budget_exhausted",
            EventKind::Agent(_) => "agent",
            EventKind::Orchestration(_) => "orchestration",
            EventKind::LoaderHint(_) => "loader-hint",
            EventKind::Keepalive(_) => "keepalive",
            EventKind::Done(_) => "done",
            EventKind::Other(u) => u.type_name(),
        }
    }
}

/// What chat-shell POSTs to the endpoint for `protocol="events"` (JSON; the answer is an
/// SSE stream of envelopes). The whole conversation so far, oldest first, the new user
/// message last, since an events runtime keeps no thread of its own:
///
/// ```json
/// {"messages": [{"role": "user", "content": "Summarize the README"},
///               {"role": "assistant", "content": "It describes…"},
///               {"role": "user", "content": "And the license?"}],
///  "threadId": "thr_1",
///  "metadata": {"tenant": "acme"}}
/// ```
///
/// `threadId` is sent when a thread is open, `metadata` when configured (the element's
/// `metadata` option, as for ChatKit). Tool calls, thoughts and errors are not sent back:
/// the runtime ran them. A host whose runtime wants another shape overrides the body
/// (the runtime hands this value to the host's request hook before sending).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct EventsRequest {
    pub messages: Vec<EventsMessage>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonMap>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Decode)]
pub struct EventsMessage {
    pub role: Role,
    /// Plain text (user) or markdown (assistant).
    pub content: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Decode)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    User,
    Assistant,
}
