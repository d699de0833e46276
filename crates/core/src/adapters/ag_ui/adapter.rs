//! The adapter: one run's stream of AG-UI events (or several runs in one stream) mapped
//! onto the inputs the other formats feed, with the interrupts a run ends on and the
//! answers the next run takes.

use super::activities::{activity_kind, merged, patched};
use super::conversation::{interrupt_item, Conversation};
use super::snapshot::{self, arguments};
use crate::model::{Entry, EntryKind, Thought, ToolCall as ToolCallEntry};
use crate::protocol::acp::{
    ContentBlock, ElicitationOutcome, ElicitationRequest, PermissionOption, PermissionOptionId,
    PermissionOptionKind, PermissionOutcome, RequestPermission, TextBlock, ToolCall, ToolCallId,
    ToolCallStatus, ToolCallUpdate, ToolKind,
};
use crate::protocol::ag_ui::{
    decode_event, Event, Interrupt, Outcome, Resume, ResumeStatus, RunFinished,
};
use crate::protocol::chatkit::{
    AssistantContent, AssistantMessage, ClientToolCall, ClientToolStatus, ItemId,
};
use crate::reducer::{Input, ItemChange, Streamed};
use crate::sse::SseFrame;
use serde_json::Value;
use std::collections::{BTreeMap, HashSet};

/// Tool call arguments kept at most while they stream (bytes); more is a broken call.
pub const MAX_ARGS: usize = 1 << 20;

/// Arguments shown as they stream up to this size; a longer text shows once it is whole.
const LIVE_ARGS: usize = 4096;

/// The option ids of an approval's card.
pub const APPROVE: &str = "approve";

pub const REJECT: &str = "reject";

/// Where a run's stream is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Nothing yet (a lenient stream may start without `RUN_STARTED`).
    Before,
    Running,
    /// `RUN_FINISHED` or `RUN_ERROR`: only a new `RUN_STARTED` may follow.
    Ended,
}

#[derive(Clone, Debug)]
struct OpenText {
    wire: String,
    item: ItemId,
    added: bool,
    /// Only the assistant's messages show; another role's text is not an answer.
    shown: bool,
}

#[derive(Clone, Debug)]
struct OpenTool {
    wire: String,
    item: ItemId,
    name: String,
    args: String,
    /// Declared by the page: it runs it when the run ends.
    client: bool,
    ended: bool,
}

/// Maps one run's stream (or several runs in one stream) onto reducer inputs.
#[derive(Clone, Debug)]
pub struct AgUiAdapter {
    client_tools: Vec<String>,
    /// The interrupts this run answers: resolved once it starts.
    resumed: Vec<Resume>,
    phase: Phase,
    said_order: bool,
    ids: HashSet<String>,
    texts: Vec<OpenText>,
    /// The message `TEXT_MESSAGE_CHUNK`s without an id go to.
    chunk_text: Option<String>,
    tools: Vec<OpenTool>,
    chunk_tool: Option<String>,
    reasoning: Option<(ItemId, bool)>,
    /// Activity contents by message id, for their patches.
    activities: BTreeMap<String, (ItemId, String, Value)>,
    next: u64,
    /// The names of an approval's two options, in the reader's language.
    labels: (String, String),
}

impl AgUiAdapter {
    /// `ids`: the items the conversation holds (new items never take one of theirs);
    /// `client_tools`: the tools the page declared; `resumed`: what this run answers.
    pub fn new(ids: HashSet<String>, client_tools: Vec<String>, resumed: Vec<Resume>) -> Self {
        AgUiAdapter {
            client_tools,
            resumed,
            phase: Phase::Before,
            said_order: false,
            ids,
            texts: Vec::new(),
            chunk_text: None,
            tools: Vec::new(),
            chunk_tool: None,
            reasoning: None,
            activities: BTreeMap::new(),
            next: 0,
            labels: ("Approve".into(), "Reject".into()),
        }
    }

    /// Names the approval cards' options (the element's strings for Approve and Reject).
    pub fn with_labels(mut self, approve: String, reject: String) -> Self {
        self.labels = (approve, reject);
        self
    }

    /// The inputs one SSE frame maps to.
    pub fn push(&mut self, frame: SseFrame, conversation: &mut Conversation) -> Vec<Input> {
        match frame {
            SseFrame::Event { data, .. } => match decode_event(&data) {
                Ok(event) => self.event(event, conversation),
                Err(e) => vec![Input::Malformed(e)],
            },
            // AG-UI has no `[DONE]`; the body's end is the stream's (`end`).
            SseFrame::Done | SseFrame::Oversized { .. } => Vec::new(),
        }
    }

    /// The body ended. A run still going ended without saying so: the connection broke.
    pub fn end(&mut self, _conversation: &mut Conversation) -> Vec<Input> {
        if self.phase != Phase::Running {
            return Vec::new();
        }
        self.phase = Phase::Ended;
        vec![Input::StreamFailed {
            message: "The connection closed before the agent finished its run.".into(),
            allow_retry: true,
        }]
    }

    /// The inputs one event maps to.
    pub fn event(&mut self, event: Event, conversation: &mut Conversation) -> Vec<Input> {
        let mut inputs = Vec::new();
        match (&event, self.phase) {
            (Event::RunStarted(_), _) => {}
            (Event::Other(_), _) => {}
            (_, Phase::Ended) => {
                // Said once; the events are not shown.
                if !std::mem::replace(&mut self.said_order, true) {
                    inputs.push(Input::RunError {
                        message: format!(
                            "The agent sent {} after its run ended, without starting another: \
                             a protocol error. What followed is not shown.",
                            event.type_name()
                        ),
                        code: Some("ag_ui.order".into()),
                    });
                }
                return inputs;
            }
            _ => {}
        }
        match event {
            Event::RunStarted(_) => self.run_started(conversation, &mut inputs),
            Event::RunFinished(e) => self.run_finished(e, conversation, &mut inputs),
            Event::RunError(e) => {
                self.close_all(&mut inputs);
                self.phase = Phase::Ended;
                inputs.push(Input::RunFailed {
                    message: e.message,
                    code: e.code,
                });
            }
            Event::StepStarted(s) => {
                let text = s.step_name.trim().to_owned();
                if !text.is_empty() {
                    inputs.push(Input::Stream(Streamed::Progress { icon: None, text }));
                }
            }
            Event::StepFinished(_) => {}
            Event::TextMessageStart(e) => {
                let shown = e.role.as_deref().is_none_or(|r| r == "assistant");
                self.open_text(e.message_id, shown);
            }
            Event::TextMessageContent(e) => self.text(&e.message_id, e.delta, &mut inputs),
            Event::TextMessageEnd(e) => self.texts.retain(|t| t.wire != e.message_id),
            Event::TextMessageChunk(e) => {
                let wire = match e.message_id {
                    Some(id) => id,
                    None => match &self.chunk_text {
                        Some(id) => id.clone(),
                        None => self.fresh_wire("msg"),
                    },
                };
                if !self.texts.iter().any(|t| t.wire == wire) {
                    let shown = e.role.as_deref().is_none_or(|r| r == "assistant");
                    self.open_text(wire.clone(), shown);
                }
                self.chunk_text = Some(wire.clone());
                if let Some(delta) = e.delta {
                    self.text(&wire, delta, &mut inputs);
                }
            }
            Event::ToolCallStart(e) => {
                self.tool_start(e.tool_call_id, e.tool_call_name, &mut inputs)
            }
            Event::ToolCallArgs(e) => self.tool_args(&e.tool_call_id, &e.delta, &mut inputs),
            Event::ToolCallEnd(e) => self.tool_end(&e.tool_call_id, &mut inputs),
            Event::ToolCallChunk(e) => {
                let wire = e.tool_call_id.or_else(|| self.chunk_tool.clone());
                let Some(wire) = wire else {
                    return inputs;
                };
                if let (false, Some(name)) =
                    (self.tools.iter().any(|t| t.wire == wire), e.tool_call_name)
                {
                    // A new call: the one before it is whole.
                    if let Some(previous) = self.chunk_tool.take() {
                        self.tool_end(&previous, &mut inputs);
                    }
                    self.tool_start(wire.clone(), name, &mut inputs);
                }
                self.chunk_tool = Some(wire.clone());
                if let Some(delta) = e.delta {
                    self.tool_args(&wire, &delta, &mut inputs);
                }
            }
            Event::ToolCallResult(e) => {
                if let Some(open) = self.tools.iter().find(|t| t.wire == e.tool_call_id) {
                    if !open.ended {
                        let wire = open.wire.clone();
                        self.tool_end(&wire, &mut inputs);
                    }
                }
                let item_id = self
                    .tools
                    .iter()
                    .find(|t| t.wire == e.tool_call_id)
                    .map(|t| t.item.clone())
                    .unwrap_or_else(|| ItemId(e.tool_call_id.clone()));
                inputs.push(Input::ToolResult {
                    item_id,
                    success: Some(true),
                    output: Some(e.content),
                });
            }
            Event::ReasoningStart(e) | Event::ReasoningMessageStart(e) => {
                if self.reasoning.is_none() {
                    let wire = e.message_id.unwrap_or_else(|| self.fresh_wire("reasoning"));
                    let item = self.fresh_item(&wire);
                    self.reasoning = Some((item, false));
                }
            }
            Event::ReasoningMessageContent(e) => {
                self.reasoning_text(e.message_id, e.delta, &mut inputs)
            }
            Event::ReasoningMessageChunk(e) => {
                self.reasoning_text(e.message_id, e.delta.unwrap_or_default(), &mut inputs)
            }
            Event::ReasoningMessageEnd(_) => {}
            Event::ReasoningEnd(_) => self.reasoning = None,
            Event::ReasoningEncryptedValue(e) => {
                conversation
                    .encrypted
                    .insert(e.entity_id, Value::String(e.encrypted_value));
            }
            Event::StateSnapshot(e) => {
                conversation.state = e.snapshot;
                inputs.push(Input::AgentState(conversation.state.clone()));
            }
            Event::StateDelta(e) => match patched(&conversation.state, &e.delta) {
                Ok(state) => {
                    conversation.state = state;
                    inputs.push(Input::AgentState(conversation.state.clone()));
                }
                Err(why) => inputs.push(Input::DiagnosticFact {
                    kind: "ag_ui_state_delta_refused",
                    name: why,
                }),
            },
            Event::MessagesSnapshot(e) => {
                let entries = snapshot::entries(&e.messages);
                self.ids.extend(entries.iter().map(|e| e.id.0.clone()));
                inputs.push(Input::ItemsReplaced(entries));
            }
            Event::ActivitySnapshot(e) => {
                let replace = e.replace.unwrap_or(true);
                let known = self.activities.get(&e.message_id).cloned();
                let content = match (&known, replace) {
                    (Some((_, _, old)), false) => merged(old, &e.content),
                    _ => e.content,
                };
                let item = match known {
                    Some((item, _, _)) => item,
                    None => self.fresh_item(&e.message_id),
                };
                self.activity(e.message_id, item, e.activity_type, content, &mut inputs);
            }
            Event::ActivityDelta(e) => {
                let Some((item, kind, content)) = self.activities.get(&e.message_id).cloned()
                else {
                    inputs.push(Input::DiagnosticFact {
                        kind: "ag_ui_activity_delta_refused",
                        name: format!("no activity {}", e.message_id),
                    });
                    return inputs;
                };
                match patched(&content, &e.patch) {
                    Ok(content) => self.activity(e.message_id, item, kind, content, &mut inputs),
                    Err(why) => inputs.push(Input::DiagnosticFact {
                        kind: "ag_ui_activity_delta_refused",
                        name: why,
                    }),
                }
            }
            Event::Custom(e) => {
                inputs.push(Input::ForHost(crate::host_events::ChatEvent::Custom {
                    name: e.name,
                    value: e.value,
                }))
            }
            Event::Raw(e) => inputs.push(Input::ForHost(crate::host_events::ChatEvent::Raw {
                event: e.event,
                source: e.source,
            })),
            // An unknown event type is ignored without an error.
            Event::Other(_) => {}
        }
        inputs
    }

    fn run_started(&mut self, conversation: &mut Conversation, inputs: &mut Vec<Input>) {
        self.phase = Phase::Running;
        self.said_order = false;
        // What this run answers is answered now that the agent took it.
        for resume in std::mem::take(&mut self.resumed) {
            let Some(at) = conversation
                .interrupts
                .iter()
                .position(|i| i.id == resume.interrupt_id)
            else {
                continue;
            };
            let interrupt = conversation.interrupts.remove(at);
            inputs.push(resolved(&interrupt, &resume));
        }
    }

    fn run_finished(
        &mut self,
        e: RunFinished,
        conversation: &mut Conversation,
        inputs: &mut Vec<Input>,
    ) {
        self.close_all(inputs);
        self.phase = Phase::Ended;
        if let Some(Outcome::Interrupt(o)) = e.outcome {
            for interrupt in o.interrupts {
                conversation.interrupts.retain(|i| i.id != interrupt.id);
                inputs.extend(self.interrupt(&interrupt));
                conversation.interrupts.push(interrupt);
            }
        }
    }

    /// What an interrupt shows: a form when it asks for values (`responseSchema`), else an
    /// approval with Approve and Reject, on the tool call it is about if there is one.
    fn interrupt(&mut self, i: &Interrupt) -> Vec<Input> {
        let mut inputs = Vec::new();
        let text = i
            .message
            .clone()
            .filter(|m| !m.trim().is_empty())
            .unwrap_or_else(|| i.reason.clone());
        if let Some(schema) = i.response_schema.as_ref().filter(|s| !asks_approval(s)) {
            let id = interrupt_item(&i.id);
            self.ids.insert(id.0.clone());
            inputs.push(Input::Stream(Streamed::ItemAdded(Entry::new(
                id,
                EntryKind::Elicitation(crate::model::Elicitation {
                    request: ElicitationRequest {
                        message: text,
                        mode: "form".into(),
                        requested_schema: Some(schema.clone()),
                        url: None,
                        elicitation_id: Some(i.id.clone()),
                    },
                    outcome: None,
                }),
            ))));
            return inputs;
        }
        let on_call = i
            .tool_call_id
            .as_ref()
            .and_then(|c| self.tools.iter().find(|t| &t.wire == c))
            .map(|t| (t.item.clone(), t.wire.clone()));
        // On the agent's own call its name stays (it goes back with the conversation); a
        // card of its own is titled by what it asks.
        let title = on_call.is_none().then(|| text.clone());
        let (item_id, wire) = match on_call {
            Some(found) => found,
            None => {
                let id = interrupt_item(&i.id);
                self.ids.insert(id.0.clone());
                inputs.push(Input::Stream(Streamed::ItemAdded(Entry::new(
                    id.clone(),
                    EntryKind::ToolCall(ToolCallEntry {
                        tool_call: ToolCall {
                            tool_call_id: ToolCallId(id.0.clone()),
                            title: text.clone(),
                            kind: ToolKind::Other,
                            status: ToolCallStatus::Pending,
                            content: Vec::new(),
                            locations: Vec::new(),
                            raw_input: None,
                            raw_output: None,
                        },
                        permission: None,
                    }),
                ))));
                (id.clone(), id.0)
            }
        };
        let option = |id: &str, name: &str, kind| PermissionOption {
            option_id: PermissionOptionId(id.to_owned()),
            name: name.to_owned(),
            kind,
        };
        inputs.push(Input::ActionRequired {
            item_id,
            request: RequestPermission {
                session_id: None,
                tool_call: ToolCallUpdate {
                    tool_call_id: ToolCallId(wire),
                    title,
                    ..ToolCallUpdate::default()
                },
                options: vec![
                    option(APPROVE, &self.labels.0, PermissionOptionKind::AllowOnce),
                    option(REJECT, &self.labels.1, PermissionOptionKind::RejectOnce),
                ],
            },
            action_id: i.id.clone(),
            action_type: Some(i.reason.clone()).filter(|r| !r.is_empty()),
        });
        inputs
    }

    /// Tool calls and texts left open are whole when a run ends.
    fn close_all(&mut self, inputs: &mut Vec<Input>) {
        let open: Vec<String> = self
            .tools
            .iter()
            .filter(|t| !t.ended)
            .map(|t| t.wire.clone())
            .collect();
        for wire in open {
            self.tool_end(&wire, inputs);
        }
        self.texts.clear();
        self.chunk_text = None;
        self.chunk_tool = None;
        self.reasoning = None;
    }

    fn fresh_wire(&mut self, what: &str) -> String {
        self.next += 1;
        format!("ag-{what}-{}", self.next)
    }

    /// An item id for the agent's id `wire`: the same, unless an item has it already.
    fn fresh_item(&mut self, wire: &str) -> ItemId {
        let mut id = wire.to_owned();
        let mut n = 1;
        while self.ids.contains(&id) {
            n += 1;
            id = format!("{wire}~{n}");
        }
        self.ids.insert(id.clone());
        ItemId(id)
    }

    fn open_text(&mut self, wire: String, shown: bool) {
        let item = self.fresh_item(&wire);
        self.texts.retain(|t| t.wire != wire);
        self.texts.push(OpenText {
            wire,
            item,
            added: false,
            shown,
        });
    }

    /// A piece of a text message: its bubble appears with its first words (an empty
    /// start and end pair, which frameworks send before a tool call, shows nothing).
    fn text(&mut self, wire: &str, delta: String, inputs: &mut Vec<Input>) {
        if !self.texts.iter().any(|t| t.wire == wire) {
            self.open_text(wire.to_owned(), true);
        }
        let Some(open) = self.texts.iter_mut().find(|t| t.wire == wire) else {
            return;
        };
        if delta.is_empty() || !open.shown {
            return;
        }
        if !std::mem::replace(&mut open.added, true) {
            inputs.push(Input::Stream(Streamed::ItemAdded(Entry::new(
                open.item.clone(),
                EntryKind::AssistantText(AssistantMessage {
                    content: vec![AssistantContent::text("")],
                }),
            ))));
        }
        inputs.push(Input::Stream(Streamed::ItemChanged {
            item_id: open.item.clone(),
            change: ItemChange::TextDelta { index: 0, delta },
        }));
    }

    fn tool_start(&mut self, wire: String, name: String, inputs: &mut Vec<Input>) {
        if self.tools.iter().any(|t| t.wire == wire) {
            return;
        }
        let item = self.fresh_item(&wire);
        let client = self.client_tools.contains(&name);
        if !client {
            inputs.push(Input::Stream(Streamed::ItemAdded(Entry::new(
                item.clone(),
                EntryKind::ToolCall(ToolCallEntry {
                    tool_call: ToolCall {
                        tool_call_id: ToolCallId(wire.clone()),
                        title: name.clone(),
                        kind: ToolKind::Other,
                        status: ToolCallStatus::InProgress,
                        content: Vec::new(),
                        locations: Vec::new(),
                        raw_input: None,
                        raw_output: None,
                    },
                    permission: None,
                }),
            ))));
        }
        self.tools.push(OpenTool {
            wire,
            item,
            name,
            args: String::new(),
            client,
            ended: false,
        });
    }

    fn tool_args(&mut self, wire: &str, delta: &str, inputs: &mut Vec<Input>) {
        let Some(open) = self.tools.iter_mut().find(|t| t.wire == wire && !t.ended) else {
            return;
        };
        if open.args.len() + delta.len() > MAX_ARGS {
            // Past the bound nothing more is kept; the call shows what it has.
            return;
        }
        open.args.push_str(delta);
        if !open.client && open.args.len() <= LIVE_ARGS {
            inputs.push(Input::Stream(Streamed::ItemChanged {
                item_id: open.item.clone(),
                change: ItemChange::ToolCall(ToolCallUpdate {
                    tool_call_id: ToolCallId(open.wire.clone()),
                    raw_input: Some(Value::String(open.args.clone())),
                    ..ToolCallUpdate::default()
                }),
            }));
        }
    }

    fn tool_end(&mut self, wire: &str, inputs: &mut Vec<Input>) {
        let Some(open) = self.tools.iter_mut().find(|t| t.wire == wire && !t.ended) else {
            return;
        };
        open.ended = true;
        let arguments = arguments(&open.args);
        if open.client {
            inputs.push(Input::Stream(Streamed::ItemAdded(Entry::new(
                open.item.clone(),
                EntryKind::ClientToolCall(ClientToolCall {
                    status: ClientToolStatus::Pending,
                    call_id: open.wire.clone(),
                    name: open.name.clone(),
                    arguments,
                    output: None,
                }),
            ))));
        } else {
            inputs.push(Input::Stream(Streamed::ItemChanged {
                item_id: open.item.clone(),
                change: ItemChange::ToolCall(ToolCallUpdate {
                    tool_call_id: ToolCallId(open.wire.clone()),
                    raw_input: Some(arguments).filter(|a| !a.is_null()),
                    ..ToolCallUpdate::default()
                }),
            }));
        }
    }

    fn reasoning_text(&mut self, wire: Option<String>, delta: String, inputs: &mut Vec<Input>) {
        if self.reasoning.is_none() {
            let wire = wire.unwrap_or_else(|| self.fresh_wire("reasoning"));
            let item = self.fresh_item(&wire);
            self.reasoning = Some((item, false));
        }
        let Some((item, added)) = self.reasoning.as_mut() else {
            return;
        };
        if delta.is_empty() {
            return;
        }
        if !std::mem::replace(added, true) {
            inputs.push(Input::Stream(Streamed::ItemAdded(Entry::new(
                item.clone(),
                EntryKind::Thought(Thought {
                    text: String::new(),
                }),
            ))));
        }
        inputs.push(Input::Stream(Streamed::ItemChanged {
            item_id: item.clone(),
            change: ItemChange::Thought(ContentBlock::Text(TextBlock {
                text: delta,
                annotations: None,
            })),
        }));
    }

    /// An activity as an item: a plan (`steps`) as a plan, anything else as what it is,
    /// unknown to this client.
    fn activity(
        &mut self,
        wire: String,
        item: ItemId,
        kind: String,
        content: Value,
        inputs: &mut Vec<Input>,
    ) {
        let first = !self.activities.contains_key(&wire);
        self.activities
            .insert(wire, (item.clone(), kind.clone(), content.clone()));
        let entry = Entry::new(item, activity_kind(&kind, &content));
        inputs.push(Input::Stream(if first {
            Streamed::ItemAdded(entry)
        } else {
            Streamed::ItemReplaced(entry)
        }));
    }
}

#[cfg(test)]
impl AgUiAdapter {
    /// The arguments of the calls open, for the tests (in `tests.rs`) of their bound.
    pub(super) fn open_args(&self) -> impl Iterator<Item = &str> {
        self.tools.iter().map(|t| t.args.as_str())
    }
}

/// How an interrupt the user answered ends its card or form.
fn resolved(interrupt: &Interrupt, resume: &Resume) -> Input {
    let content = resume.payload.as_ref().and_then(Value::as_object).cloned();
    if interrupt
        .response_schema
        .as_ref()
        .is_some_and(|s| !asks_approval(s))
    {
        return Input::Stream(Streamed::ItemChanged {
            item_id: interrupt_item(&interrupt.id),
            change: ItemChange::ElicitationResolved(ElicitationOutcome {
                action: match resume.status {
                    ResumeStatus::Resolved => "accept".into(),
                    ResumeStatus::Cancelled => "cancel".into(),
                },
                content,
            }),
        });
    }
    let approved = content
        .as_ref()
        .and_then(|p| p.get("approved"))
        .and_then(Value::as_bool);
    let option = |id: &str| PermissionOutcome::Selected {
        option_id: PermissionOptionId(id.into()),
    };
    Input::ActionResolved {
        action_id: interrupt.id.clone(),
        outcome: match (resume.status, approved) {
            (ResumeStatus::Cancelled, _) => PermissionOutcome::Cancelled,
            (ResumeStatus::Resolved, Some(false)) => option(REJECT),
            (ResumeStatus::Resolved, _) => option(APPROVE),
        },
        answer: None,
        answers: None,
    }
}

/// Whether a response schema asks only for a decision (`approved`, as frameworks shape a
/// tool call's approval): then it is an approval card, not a form.
fn asks_approval(schema: &Value) -> bool {
    schema
        .get("properties")
        .and_then(|p| p.get("approved"))
        .and_then(|a| a.get("type"))
        .and_then(Value::as_str)
        == Some("boolean")
}
