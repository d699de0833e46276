//! AG-UI (the Agent–User Interaction protocol, 1.0), chosen with `protocol="ag-ui"`: the
//! events an agent streams (`data:` frames of JSON, tagged by `type`) and the
//! `RunAgentInput` the page POSTs for every run. The client holds the conversation: every
//! run carries all of it (`messages`), with the shared `state` and the page's tools.
//! The core's `adapters::ag_ui` maps the events onto the reducer's inputs.
//!
//! Tolerant like the rest: an unknown `type` is kept (`Event::Other`) and ignored, a known
//! type with a broken body is a decode error that carries the raw payload. The older
//! `THINKING_*` names (before `REASONING_*`) decode as their reasoning counterparts.

use super::chatkit::DecodeError;
use super::decode::Decode;
use super::tagged::tolerant_tagged;
use serde::Serialize;
use serde_json::Value;

/// One event of a run's stream.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    RunStarted(RunStarted),
    RunFinished(RunFinished),
    RunError(RunError),
    StepStarted(Step),
    StepFinished(Step),
    TextMessageStart(TextMessageStart),
    TextMessageContent(TextMessageContent),
    TextMessageEnd(MessageRef),
    TextMessageChunk(TextMessageChunk),
    ToolCallStart(ToolCallStart),
    ToolCallArgs(ToolCallArgs),
    ToolCallEnd(ToolCallRef),
    ToolCallChunk(ToolCallChunk),
    ToolCallResult(ToolCallResult),
    ReasoningStart(MaybeMessageRef),
    ReasoningMessageStart(MaybeMessageRef),
    ReasoningMessageContent(ReasoningContent),
    ReasoningMessageEnd(MaybeMessageRef),
    ReasoningMessageChunk(ReasoningChunk),
    ReasoningEnd(MaybeMessageRef),
    ReasoningEncryptedValue(EncryptedValue),
    StateSnapshot(StateSnapshot),
    StateDelta(StateDelta),
    MessagesSnapshot(MessagesSnapshot),
    ActivitySnapshot(ActivitySnapshot),
    ActivityDelta(ActivityDelta),
    Custom(Custom),
    Raw(Raw),
    Other(super::Unknown),
}

tolerant_tagged!(Event {
    "RUN_STARTED" => RunStarted,
    "RUN_FINISHED" => RunFinished,
    "RUN_ERROR" => RunError,
    "STEP_STARTED" => StepStarted,
    "STEP_FINISHED" => StepFinished,
    "TEXT_MESSAGE_START" => TextMessageStart,
    "TEXT_MESSAGE_CONTENT" => TextMessageContent,
    "TEXT_MESSAGE_END" => TextMessageEnd,
    "TEXT_MESSAGE_CHUNK" => TextMessageChunk,
    "TOOL_CALL_START" => ToolCallStart,
    "TOOL_CALL_ARGS" => ToolCallArgs,
    "TOOL_CALL_END" => ToolCallEnd,
    "TOOL_CALL_CHUNK" => ToolCallChunk,
    "TOOL_CALL_RESULT" => ToolCallResult,
    "REASONING_START" => ReasoningStart,
    "REASONING_MESSAGE_START" => ReasoningMessageStart,
    "REASONING_MESSAGE_CONTENT" => ReasoningMessageContent,
    "REASONING_MESSAGE_END" => ReasoningMessageEnd,
    "REASONING_MESSAGE_CHUNK" => ReasoningMessageChunk,
    "REASONING_END" => ReasoningEnd,
    "REASONING_ENCRYPTED_VALUE" => ReasoningEncryptedValue,
    "STATE_SNAPSHOT" => StateSnapshot,
    "STATE_DELTA" => StateDelta,
    "MESSAGES_SNAPSHOT" => MessagesSnapshot,
    "ACTIVITY_SNAPSHOT" => ActivitySnapshot,
    "ACTIVITY_DELTA" => ActivityDelta,
    "CUSTOM" => Custom,
    "RAW" => Raw,
});

impl Event {
    /// The `type` tag this event came with (the `REASONING_*` name for a `THINKING_*` one).
    pub fn type_name(&self) -> &str {
        match self {
            Event::RunStarted(_) => "RUN_STARTED",
            Event::RunFinished(_) => "RUN_FINISHED",
            Event::RunError(_) => "RUN_ERROR",
            Event::StepStarted(_) => "STEP_STARTED",
            Event::StepFinished(_) => "STEP_FINISHED",
            Event::TextMessageStart(_) => "TEXT_MESSAGE_START",
            Event::TextMessageContent(_) => "TEXT_MESSAGE_CONTENT",
            Event::TextMessageEnd(_) => "TEXT_MESSAGE_END",
            Event::TextMessageChunk(_) => "TEXT_MESSAGE_CHUNK",
            Event::ToolCallStart(_) => "TOOL_CALL_START",
            Event::ToolCallArgs(_) => "TOOL_CALL_ARGS",
            Event::ToolCallEnd(_) => "TOOL_CALL_END",
            Event::ToolCallChunk(_) => "TOOL_CALL_CHUNK",
            Event::ToolCallResult(_) => "TOOL_CALL_RESULT",
            Event::ReasoningStart(_) => "REASONING_START",
            Event::ReasoningMessageStart(_) => "REASONING_MESSAGE_START",
            Event::ReasoningMessageContent(_) => "REASONING_MESSAGE_CONTENT",
            Event::ReasoningMessageEnd(_) => "REASONING_MESSAGE_END",
            Event::ReasoningMessageChunk(_) => "REASONING_MESSAGE_CHUNK",
            Event::ReasoningEnd(_) => "REASONING_END",
            Event::ReasoningEncryptedValue(_) => "REASONING_ENCRYPTED_VALUE",
            Event::StateSnapshot(_) => "STATE_SNAPSHOT",
            Event::StateDelta(_) => "STATE_DELTA",
            Event::MessagesSnapshot(_) => "MESSAGES_SNAPSHOT",
            Event::ActivitySnapshot(_) => "ACTIVITY_SNAPSHOT",
            Event::ActivityDelta(_) => "ACTIVITY_DELTA",
            Event::Custom(_) => "CUSTOM",
            Event::Raw(_) => "RAW",
            Event::Other(u) => u.type_name(),
        }
    }
}

/// The `THINKING_*` names servers sent before 1.0, as the `REASONING_*` ones.
const THINKING: &[(&str, &str)] = &[
    ("THINKING_START", "REASONING_START"),
    ("THINKING_END", "REASONING_END"),
    ("THINKING_TEXT_MESSAGE_START", "REASONING_MESSAGE_START"),
    ("THINKING_TEXT_MESSAGE_CONTENT", "REASONING_MESSAGE_CONTENT"),
    ("THINKING_TEXT_MESSAGE_END", "REASONING_MESSAGE_END"),
];

/// Decode one `data:` payload.
pub fn decode_event(data: &str) -> Result<Event, DecodeError> {
    let error = |message: String| DecodeError {
        message,
        raw: data.to_owned(),
    };
    let mut value: Value = serde_json::from_str(data).map_err(|e| error(e.to_string()))?;
    let Value::Object(fields) = &mut value else {
        return Err(error("an AG-UI event is not a JSON object".into()));
    };
    let tag = fields.get("type").and_then(Value::as_str).unwrap_or("");
    if let Some((_, now)) = THINKING.iter().find(|(old, _)| *old == tag) {
        fields.insert("type".into(), Value::String((*now).to_owned()));
    }
    Event::decode(&value).map_err(|e| error(e.to_string()))
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct RunStarted {
    #[serde(default)]
    pub thread_id: Option<String>,
    #[serde(default)]
    pub run_id: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct RunFinished {
    #[serde(default)]
    pub run_id: Option<String>,
    #[serde(default)]
    pub result: Option<Value>,
    /// How it ended: absent is a success; an interrupt waits on the user.
    #[serde(default)]
    pub outcome: Option<Outcome>,
}

/// `RUN_FINISHED.outcome`, by its `type`.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    Success(OutcomeSuccess),
    Interrupt(OutcomeInterrupt),
    Cancelled(Empty),
    Other(super::Unknown),
}

tolerant_tagged!(Outcome {
    "success" => Success,
    "interrupt" => Interrupt,
    "cancelled" => Cancelled,
});

#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct OutcomeSuccess {
    #[serde(default)]
    pub pending_tool_call_ids: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct OutcomeInterrupt {
    #[serde(default)]
    pub interrupts: Vec<Interrupt>,
}

/// The run paused for the user: approve, reject, or fill `response_schema`.
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct Interrupt {
    pub id: String,
    #[serde(default)]
    pub reason: String,
    #[serde(default)]
    pub message: Option<String>,
    #[serde(default)]
    pub tool_call_id: Option<String>,
    #[serde(default)]
    pub response_schema: Option<Value>,
    /// ISO 8601; an answer after it is refused.
    #[serde(default)]
    pub expires_at: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct Empty {}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct RunError {
    #[serde(default)]
    pub message: String,
    #[serde(default)]
    pub code: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct Step {
    #[serde(default)]
    pub step_name: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct TextMessageStart {
    pub message_id: String,
    #[serde(default)]
    pub role: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct TextMessageContent {
    pub message_id: String,
    #[serde(default)]
    pub delta: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct MessageRef {
    pub message_id: String,
}

/// Reasoning's start and end events: the id may be missing (older servers).
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct MaybeMessageRef {
    #[serde(default)]
    pub message_id: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct TextMessageChunk {
    #[serde(default)]
    pub message_id: Option<String>,
    #[serde(default)]
    pub role: Option<String>,
    #[serde(default)]
    pub delta: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallStart {
    pub tool_call_id: String,
    pub tool_call_name: String,
    #[serde(default)]
    pub parent_message_id: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallArgs {
    pub tool_call_id: String,
    #[serde(default)]
    pub delta: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallRef {
    pub tool_call_id: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallChunk {
    #[serde(default)]
    pub tool_call_id: Option<String>,
    #[serde(default)]
    pub tool_call_name: Option<String>,
    #[serde(default)]
    pub parent_message_id: Option<String>,
    #[serde(default)]
    pub delta: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallResult {
    pub tool_call_id: String,
    #[serde(default)]
    pub message_id: Option<String>,
    /// A string, or content parts (their text is what shows).
    #[serde(default)]
    pub content: Value,
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct ReasoningContent {
    #[serde(default)]
    pub message_id: Option<String>,
    #[serde(default)]
    pub delta: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct ReasoningChunk {
    #[serde(default)]
    pub message_id: Option<String>,
    #[serde(default)]
    pub delta: Option<String>,
}

/// Reasoning the agent wants back but nobody may read: kept with the message or tool call
/// `entity_id`, sent back with it, never shown.
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct EncryptedValue {
    #[serde(default)]
    pub subtype: String,
    pub entity_id: String,
    pub encrypted_value: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct StateSnapshot {
    #[serde(default)]
    pub snapshot: Value,
}

/// An RFC 6902 JSON Patch of the state.
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct StateDelta {
    #[serde(default)]
    pub delta: Value,
}

/// The thread's messages, replaced whole (each decoded on its own: [`Message::decode_lenient`]).
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct MessagesSnapshot {
    #[serde(default)]
    pub messages: Vec<Value>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct ActivitySnapshot {
    pub message_id: String,
    #[serde(default)]
    pub activity_type: String,
    #[serde(default)]
    pub content: Value,
    #[serde(default)]
    pub replace: Option<bool>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct ActivityDelta {
    pub message_id: String,
    #[serde(default)]
    pub activity_type: String,
    #[serde(default)]
    pub patch: Value,
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct Custom {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub value: Value,
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct Raw {
    #[serde(default)]
    pub event: Value,
    #[serde(default)]
    pub source: Option<String>,
}

/// The protocol version this client speaks.
pub const PROTOCOL_VERSION: &str = "1.0";

/// What the page POSTs for every run.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunAgentInput {
    pub thread_id: String,
    pub run_id: String,
    /// `1.0`: what this client speaks (frameworks then say more, e.g. pending tool calls).
    pub protocol_version: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_run_id: Option<String>,
    pub state: Value,
    pub messages: Vec<Message>,
    pub tools: Vec<Tool>,
    pub context: Vec<Context>,
    pub forwarded_props: Value,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub resume: Vec<Resume>,
}

/// A message of the conversation, as the client holds it and sends it back.
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
#[serde(tag = "role", rename_all = "lowercase")]
pub enum Message {
    User {
        id: String,
        /// A string, or input parts (text, image, document…).
        content: Value,
    },
    Assistant {
        id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        content: Option<String>,
        #[serde(default, rename = "toolCalls", skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCall>,
        #[serde(
            default,
            rename = "encryptedValue",
            skip_serializing_if = "Option::is_none"
        )]
        encrypted_value: Option<String>,
    },
    Tool {
        id: String,
        #[serde(rename = "toolCallId")]
        tool_call_id: String,
        content: Value,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    Reasoning {
        id: String,
        #[serde(default)]
        content: String,
        #[serde(
            default,
            rename = "encryptedValue",
            skip_serializing_if = "Option::is_none"
        )]
        encrypted_value: Option<String>,
    },
    System {
        id: String,
        #[serde(default)]
        content: String,
    },
    Developer {
        id: String,
        #[serde(default)]
        content: String,
    },
}

impl Message {
    /// A message of a snapshot; `None` for a role this client does not know (`activity`,
    /// a future one) or a broken body: skipped, never fatal.
    pub fn decode_lenient(value: &Value) -> Option<Message> {
        Message::decode(value).ok()
    }

    pub fn id(&self) -> &str {
        match self {
            Message::User { id, .. }
            | Message::Assistant { id, .. }
            | Message::Tool { id, .. }
            | Message::Reasoning { id, .. }
            | Message::System { id, .. }
            | Message::Developer { id, .. } => id,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct ToolCall {
    pub id: String,
    #[serde(rename = "type", default = "function_type")]
    pub kind: String,
    pub function: FunctionCall,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub encrypted_value: Option<String>,
}

fn function_type() -> String {
    "function".to_owned()
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct FunctionCall {
    pub name: String,
    /// The arguments as a JSON text.
    #[serde(default)]
    pub arguments: String,
}

/// A tool the page offers the agent.
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct Tool {
    pub name: String,
    #[serde(default)]
    pub description: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameters: Option<Value>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct Context {
    pub description: String,
    pub value: String,
}

/// The user's answer to an interrupt.
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct Resume {
    pub interrupt_id: String,
    pub status: ResumeStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payload: Option<Value>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Decode)]
#[serde(rename_all = "lowercase")]
pub enum ResumeStatus {
    Resolved,
    Cancelled,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn events_decode_by_type_and_old_names_read_as_new() {
        let e = decode_event(r#"{"type":"TEXT_MESSAGE_CONTENT","messageId":"m1","delta":"Hi"}"#);
        assert_eq!(
            e.unwrap(),
            Event::TextMessageContent(TextMessageContent {
                message_id: "m1".into(),
                delta: "Hi".into()
            })
        );
        let e = decode_event(r#"{"type":"THINKING_TEXT_MESSAGE_CONTENT","delta":"hmm"}"#).unwrap();
        assert_eq!(e.type_name(), "REASONING_MESSAGE_CONTENT");
        // Unknown is kept, broken known is an error with its raw text.
        let e = decode_event(r#"{"type":"SUBAGENT_STARTED","x":1}"#).unwrap();
        assert_eq!(e.type_name(), "SUBAGENT_STARTED");
        assert!(matches!(e, Event::Other(_)));
        let broken = decode_event(r#"{"type":"TOOL_CALL_START","toolCallId":"t1"}"#).unwrap_err();
        assert!(
            broken.message.contains("toolCallName"),
            "{}",
            broken.message
        );
        assert!(decode_event("[1]").is_err());
    }

    #[test]
    fn an_interrupt_outcome_decodes() {
        let e = decode_event(
            r#"{"type":"RUN_FINISHED","threadId":"t","runId":"r","outcome":{"type":"interrupt","interrupts":[{"id":"i1","reason":"approval","message":"Delete?","responseSchema":{"type":"object"},"expiresAt":"2020-01-01T00:00:00Z"}]}}"#,
        )
        .unwrap();
        let Event::RunFinished(RunFinished {
            outcome: Some(Outcome::Interrupt(o)),
            ..
        }) = e
        else {
            panic!("{e:?}")
        };
        assert_eq!(o.interrupts[0].id, "i1");
        assert_eq!(o.interrupts[0].message.as_deref(), Some("Delete?"));
        assert!(o.interrupts[0].expires_at.is_some());
    }

    #[test]
    fn run_agent_input_is_what_the_sdk_reads() {
        let input = RunAgentInput {
            thread_id: "t1".into(),
            run_id: "r1".into(),
            protocol_version: PROTOCOL_VERSION.into(),
            state: json!({"n": 1}),
            messages: vec![
                Message::User {
                    id: "u1".into(),
                    content: json!("hi"),
                },
                Message::Assistant {
                    id: "a1".into(),
                    content: None,
                    tool_calls: vec![ToolCall {
                        id: "c1".into(),
                        kind: "function".into(),
                        function: FunctionCall {
                            name: "get_weather".into(),
                            arguments: r#"{"city":"Paris"}"#.into(),
                        },
                        encrypted_value: None,
                    }],
                    encrypted_value: None,
                },
                Message::Tool {
                    id: "m3".into(),
                    tool_call_id: "c1".into(),
                    content: json!("sunny"),
                    error: None,
                },
            ],
            resume: vec![Resume {
                interrupt_id: "i1".into(),
                status: ResumeStatus::Resolved,
                payload: Some(json!({"approved": true})),
            }],
            ..RunAgentInput::default()
        };
        let value = serde_json::to_value(&input).unwrap();
        assert_eq!(value["threadId"], "t1");
        assert_eq!(
            value["messages"][0],
            json!({"role": "user", "id": "u1", "content": "hi"})
        );
        assert_eq!(value["messages"][1]["toolCalls"][0]["type"], "function");
        assert_eq!(
            value["messages"][1]["toolCalls"][0]["function"]["arguments"],
            r#"{"city":"Paris"}"#
        );
        assert_eq!(value["messages"][2]["toolCallId"], "c1");
        assert_eq!(value["resume"][0]["interruptId"], "i1");
        assert_eq!(value["resume"][0]["status"], "resolved");
        assert_eq!(value["tools"], json!([]));
        assert_eq!(value["forwardedProps"], Value::Null);
        // A snapshot's messages read back; an unknown role is skipped.
        let back: Vec<Message> = value["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Message::decode_lenient)
            .collect();
        assert_eq!(back, input.messages);
        let activity =
            json!({"role": "activity", "id": "x", "activityType": "PLAN", "content": {}});
        assert_eq!(Message::decode_lenient(&activity), None);
    }
}
