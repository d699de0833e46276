//! The SSE event envelope (`spec/sse-event-envelope.md`), chosen with `protocol="events"`:
//! its wire types, the adapter that maps it onto the reducer's inputs (the same ones
//! ChatKit feeds), and the request body chat-shell POSTs for it.
//!
//! Tolerant like the rest: an unknown `type` is kept (`EventKind::Other`) and counted, an
//! unknown field on a known type is counted, neither is fatal. A known type with a broken
//! body (`content` without its text, a `success` that is not a boolean) is a
//! [`DecodeError`] that carries the raw payload.

use super::acp::{ToolCall, ToolCallId, ToolCallStatus, ToolKind};
use super::chatkit::{
    AcpToolCallItem, AssistantContent, AssistantMessage, DecodeError, ItemEvent, ItemId, ItemKind,
    ItemUpdate, ItemUpdatedEvent, ProgressUpdateEvent, StreamEvent, TextDelta, ThreadItem,
};
use super::tagged::tolerant_tagged;
use super::{JsonMap, Unknown};
use crate::protocol::decode::Decode;
use crate::reducer::{
    AgentInfo, ChatState, Input, OrchestrationStep, OrchestrationUpdate, Unrecognized,
};
use crate::sse::SseFrame;
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

/// Decode one `data:` payload (`[DONE]` is the SSE decoder's [`SseFrame::Done`]).
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

/// Maps one answer stream of envelopes onto reducer inputs. One adapter per stream; it
/// allocates the ids of the items it creates (`ev{run}_…`, so `run` must differ between
/// the streams of one element, e.g. a counter), remembers which bubble `content` goes to,
/// and pairs each `tool_result` with its `tool_call`.
///
/// The runtime feeds every frame to [`EventsAdapter::frame`] and applies the inputs in
/// order; it also sends `Input::Alive` for every frame (a `keepalive` is life, nothing
/// more: it maps to no input), and `Input::StreamEnded` at EOF as for ChatKit (a second
/// end after `done` changes nothing).
#[derive(Clone, Debug)]
pub struct EventsAdapter {
    prefix: String,
    next: u64,
    /// The assistant bubble `content` goes to; a tool call or another agent closes it.
    message: Option<ItemId>,
    /// Message ids already added (a `messageId` seen again continues its bubble).
    messages: Vec<ItemId>,
    /// Tool calls of this stream: their wire id, item, and whether a result came.
    tools: Vec<OpenTool>,
    agent: Option<String>,
    done: bool,
}

#[derive(Clone, Debug)]
struct OpenTool {
    wire_id: Option<String>,
    item_id: ItemId,
    answered: bool,
}

impl EventsAdapter {
    pub fn new(run: u64) -> Self {
        EventsAdapter {
            prefix: format!("ev{run}_"),
            next: 0,
            message: None,
            messages: Vec::new(),
            tools: Vec::new(),
            agent: None,
            done: false,
        }
    }

    /// Whether `done` (or `[DONE]`) was seen; later frames map to nothing.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// The inputs one SSE frame maps to.
    pub fn frame(&mut self, frame: SseFrame) -> Vec<Input> {
        match frame {
            SseFrame::Event { data, .. } => self.data(&data),
            SseFrame::Done => self.finish(),
            // The runtime reports an oversized stream itself.
            SseFrame::Oversized { .. } => Vec::new(),
        }
    }

    /// The inputs one `data:` payload maps to.
    pub fn data(&mut self, data: &str) -> Vec<Input> {
        if data.trim() == "[DONE]" {
            return self.finish();
        }
        match decode_envelope(data) {
            Ok(envelope) => self.envelope(envelope),
            Err(e) if !self.done => vec![Input::Malformed(e)],
            Err(_) => Vec::new(),
        }
    }

    /// The inputs one envelope maps to.
    pub fn envelope(&mut self, envelope: Envelope) -> Vec<Input> {
        if self.done {
            return Vec::new();
        }
        let Envelope {
            event,
            meta,
            unknown_fields,
        } = envelope;
        let mut inputs: Vec<Input> = unknown_fields
            .into_iter()
            .map(|field| {
                Input::Unrecognized(Unrecognized::Field {
                    event_type: type_name(&event).to_owned(),
                    field,
                })
            })
            .collect();
        match event {
            EventKind::Content(e) => self.content(e.content, meta, &mut inputs),
            EventKind::ToolCall(e) => self.tool_call(e.payload, &mut inputs),
            EventKind::ToolResult(e) => self.tool_result(e.payload, &mut inputs),
            EventKind::Error(e) => inputs.push(Input::RunError {
                message: e.message.unwrap_or_default(),
                code: e.code,
            }),
            EventKind::BudgetExhausted(e) => inputs.push(Input::BudgetExhausted {
                message: e
                    .message
                    .or_else(|| text_at(e.payload.as_ref(), &["message", "limit", "reason"]))
                    .unwrap_or_default(),
            }),
            EventKind::Agent(e) => self.agent(e, &mut inputs),
            EventKind::Orchestration(e) => inputs.push(orchestration(e, meta)),
            EventKind::LoaderHint(e) => {
                if let Some(text) = e.hint.or(e.content).filter(|t| !t.trim().is_empty()) {
                    inputs.push(Input::Server(StreamEvent::ProgressUpdate(
                        ProgressUpdateEvent { icon: None, text },
                    )));
                }
            }
            EventKind::Keepalive(_) => {}
            EventKind::Done(_) => inputs.extend(self.finish()),
            EventKind::Other(u) => inputs.push(Input::Unrecognized(Unrecognized::EventType(
                u.type_name().to_owned(),
            ))),
        }
        inputs
    }

    fn finish(&mut self) -> Vec<Input> {
        if std::mem::replace(&mut self.done, true) {
            return Vec::new();
        }
        vec![Input::StreamEnded]
    }

    fn next_id(&mut self, what: &str) -> ItemId {
        self.next += 1;
        ItemId(format!("{}{what}{}", self.prefix, self.next))
    }

    fn content(&mut self, delta: String, meta: EnvelopeMeta, inputs: &mut Vec<Input>) {
        let named = meta.message_id.map(ItemId);
        let target = match (named, &self.message) {
            (Some(id), _) => id,
            (None, Some(current)) => current.clone(),
            (None, None) => self.next_id("msg"),
        };
        if !self.messages.contains(&target) {
            self.messages.push(target.clone());
            inputs.push(Input::Server(StreamEvent::ItemAdded(ItemEvent {
                item: ThreadItem {
                    id: target.clone(),
                    thread_id: None,
                    created_at: String::new(),
                    kind: ItemKind::AssistantMessage(AssistantMessage {
                        content: vec![AssistantContent::text("")],
                    }),
                },
            })));
        }
        self.message = Some(target.clone());
        if !delta.is_empty() {
            inputs.push(Input::Server(StreamEvent::ItemUpdated(ItemUpdatedEvent {
                item_id: target,
                update: ItemUpdate::TextDelta(TextDelta {
                    content_index: 0,
                    delta,
                }),
            })));
        }
    }

    fn tool_call(&mut self, payload: ToolCallPayload, inputs: &mut Vec<Input>) {
        // Text after a tool call is a new bubble, below the call.
        self.message = None;
        let item_id = self.next_id("tool");
        let tool_call = ToolCall {
            tool_call_id: ToolCallId(payload.id.clone().unwrap_or_else(|| item_id.0.clone())),
            title: payload.name,
            // Only ACP servers say what kind a tool is; a name is not guessed from.
            kind: ToolKind::Other,
            // Requested and run by the harness until its result arrives.
            status: ToolCallStatus::InProgress,
            content: Vec::new(),
            locations: Vec::new(),
            raw_input: Some(payload.arguments).filter(|a| !a.is_null()),
            raw_output: None,
        };
        self.tools.push(OpenTool {
            wire_id: payload.id,
            item_id: item_id.clone(),
            answered: false,
        });
        inputs.push(Input::Server(StreamEvent::ItemAdded(ItemEvent {
            item: ThreadItem {
                id: item_id,
                thread_id: None,
                created_at: String::new(),
                kind: ItemKind::AcpToolCall(AcpToolCallItem {
                    tool_call,
                    permission: None,
                }),
            },
        })));
    }

    /// A result goes to the call it names, else to the latest call still without one; a
    /// result for no call at all still shows (the reducer makes a visible entry for it).
    fn tool_result(&mut self, payload: ToolResultPayload, inputs: &mut Vec<Input>) {
        self.message = None;
        let open = match &payload.id {
            Some(id) => self
                .tools
                .iter_mut()
                .rev()
                .find(|t| t.wire_id.as_deref() == Some(id.as_str())),
            None => self.tools.iter_mut().rev().find(|t| !t.answered),
        };
        let item_id = match open {
            Some(tool) => {
                tool.answered = true;
                tool.item_id.clone()
            }
            None => self.next_id("result"),
        };
        inputs.push(Input::ToolResult {
            item_id,
            success: payload.success,
            output: payload.data.or(payload.error),
        });
    }

    fn agent(&mut self, e: AgentEvent, inputs: &mut Vec<Input>) {
        const NAMES: &[&str] = &["name", "agent", "agentName", "displayName", "id"];
        let name = text_at(e.payload.as_ref(), NAMES)
            .or(e.content)
            .or(e.message)
            .unwrap_or_default();
        if self.agent.as_ref() != Some(&name) {
            // Another agent's words are another bubble.
            self.message = None;
            self.agent = Some(name.clone());
        }
        inputs.push(Input::AgentChanged(AgentInfo {
            name,
            id: text_at(e.payload.as_ref(), &["id", "agentId"]),
            payload: e.payload,
        }));
    }
}

fn type_name(event: &EventKind) -> &str {
    match event {
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

/// The first of `keys` that holds a non-empty string in `payload`.
fn text_at(payload: Option<&Value>, keys: &[&str]) -> Option<String> {
    let payload = payload?;
    keys.iter()
        .find_map(|k| payload.get(*k).and_then(Value::as_str))
        .filter(|s| !s.trim().is_empty())
        .map(str::to_owned)
}

/// The payload's shape is the runtime's (not fixed by the spec): a status line and a plan
/// are read from the usual names, and the payload is kept whole for richer views.
fn orchestration(e: OrchestrationEvent, meta: EnvelopeMeta) -> Input {
    let payload = e.payload.as_ref();
    let plan = ["plan", "steps", "tasks"]
        .iter()
        .find_map(|k| payload.and_then(|p| p.get(*k)).and_then(Value::as_array))
        .map(|steps| steps.iter().filter_map(step).collect());
    Input::Orchestration(OrchestrationUpdate {
        group_id: meta
            .orchestration_group_id
            .or_else(|| text_at(payload, &["orchestrationGroupId", "groupId"])),
        status: text_at(payload, &["status", "phase", "message"]).or(e.message),
        plan,
        payload: e.payload,
    })
}

fn step(value: &Value) -> Option<OrchestrationStep> {
    if let Some(title) = value.as_str() {
        return Some(OrchestrationStep {
            title: title.to_owned(),
            status: None,
            agent: None,
        });
    }
    let value = Some(value);
    Some(OrchestrationStep {
        title: text_at(value, &["content", "title", "description", "name", "task"])?,
        status: text_at(value, &["status"]),
        agent: text_at(value, &["agent", "agentName", "assignee"]),
    })
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

impl EventsRequest {
    /// The body for the state as it is right after `Input::SendStarted` (the new message
    /// is the last user message). Ghost messages are included: they are sent, not shown.
    pub fn from_state(state: &ChatState, metadata: Option<JsonMap>) -> Self {
        let messages = state
            .items()
            .iter()
            .filter_map(|i| match &i.item.kind {
                ItemKind::UserMessage(m) => Some((Role::User, m.text())),
                ItemKind::AssistantMessage(_) => {
                    crate::reducer::assistant_text(i).map(|t| (Role::Assistant, t))
                }
                _ => None,
            })
            .filter(|(_, content)| !content.trim().is_empty())
            .map(|(role, content)| EventsMessage { role, content })
            .collect();
        EventsRequest {
            messages,
            thread_id: state.thread_id().map(|t| t.0.clone()),
            metadata: metadata.filter(|m| !m.is_empty()),
        }
    }
}

#[cfg(test)]
mod tests;
