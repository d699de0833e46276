//! The SSE event envelope (`protocol::events`, `protocol="events"`) as reducer input: the
//! adapter that maps one answer stream of envelopes onto the inputs ChatKit feeds, and the
//! request body built from the thread.

use crate::model::{Entry, EntryKind, ToolCall as ToolCallEntry};
use crate::protocol::acp::{ToolCall, ToolCallId, ToolCallStatus, ToolKind};
use crate::protocol::chatkit::{AssistantContent, AssistantMessage, ItemId};
use crate::protocol::events::{
    decode_envelope, AgentEvent, Envelope, EnvelopeMeta, EventKind, EventsMessage, EventsRequest,
    OrchestrationEvent, Role, ToolCallPayload, ToolResultPayload,
};
use crate::protocol::JsonMap;
use crate::reducer::{
    AgentInfo, ChatState, Input, ItemChange, OrchestrationStep, OrchestrationUpdate, Streamed,
    Unrecognized,
};
use crate::sse::SseFrame;
use serde_json::Value;

/// Maps one answer stream of envelopes onto reducer inputs. One adapter per stream; it
/// allocates the ids of the items it creates (`ev{run}_…`, so `run` must differ between
/// the streams of one element, e.g. a counter), remembers which bubble `content` goes to,
/// and pairs each `tool_result` with its `tool_call`.
///
/// The runtime feeds every frame to [`EventsAdapter::push`] and applies the inputs in
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
    pub fn push(&mut self, frame: SseFrame) -> Vec<Input> {
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
                    event_type: event.type_name().to_owned(),
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
                    inputs.push(Input::Stream(Streamed::Progress { icon: None, text }));
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
            inputs.push(Input::Stream(Streamed::ItemAdded(Entry {
                branches: Vec::new(),
                id: target.clone(),
                thread_id: None,
                created_at: String::new(),
                kind: EntryKind::AssistantText(AssistantMessage {
                    content: vec![AssistantContent::text("")],
                }),
            })));
        }
        self.message = Some(target.clone());
        if !delta.is_empty() {
            inputs.push(Input::Stream(Streamed::ItemChanged {
                item_id: target,
                change: ItemChange::TextDelta { index: 0, delta },
            }));
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
        inputs.push(Input::Stream(Streamed::ItemAdded(Entry {
            branches: Vec::new(),
            id: item_id,
            thread_id: None,
            created_at: String::new(),
            kind: EntryKind::ToolCall(ToolCallEntry {
                tool_call,
                permission: None,
            }),
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

/// The [`EventsRequest`] for the state as it is right after `Input::SendStarted` (the new
/// message is the last user message). Ghost messages are included: they are sent, not shown.
pub fn request(state: &ChatState, metadata: Option<JsonMap>) -> EventsRequest {
    let messages = state
        .items()
        .iter()
        .filter_map(|i| match &i.entry.kind {
            EntryKind::UserMessage(m) => Some((Role::User, m.text())),
            EntryKind::AssistantText(_) => {
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

#[cfg(test)]
mod tests;
