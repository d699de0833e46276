//! The Agent UI envelope (`protocol::agent_ui`, `protocol="agent-ui"`) as reducer input:
//! the adapter that orders the envelopes of a run and projects them onto the same reducer
//! inputs ChatKit feeds, and the answer to a history request.
//!
//! Order: events are applied in `sequence` order per stream, a duplicate once. A gap holds
//! what came after it and says so (`Input::Resync`, a visible "resyncing" state); at the end
//! of the stream the runtime asks for the missing events ([`AgentUiAdapter::gap`]) and feeds
//! the answer to the same adapter. Nothing is guessed in between.
//!
//! Ownership: every fact keeps its owner. A bubble, tool call or card carries the agent that
//! owns it (`agentId`); worker notifications are notes, never user messages, whatever
//! channel carried them; diagnostics and metrics go to the host, never the transcript.
//! Unknown classes are counted diagnostics, never fatal.
//!
//! Payloads: each is read as its event type's `protocol::agent_ui` type, never by key, so a
//! field of the wrong type is absent rather than fatal. What a producer sends as its own
//! JSON passes through raw: a tool's input, output and error, an action's input (the
//! permission card's `raw_input`), structured input's answers (by question id).

#[cfg(test)]
mod checks;
#[cfg(test)]
mod golden;
#[cfg(test)]
mod tests;

use crate::model::{Entry, EntryKind, Thought, ToolCall as ToolCallEntry};
use crate::protocol::acp::{
    PermissionOption, PermissionOptionId, PermissionOptionKind, PermissionOutcome,
    RequestPermission, ToolCall, ToolCallContent, ToolCallId, ToolCallStatus, ToolCallUpdate,
    ToolKind,
};
use crate::protocol::agent_ui::{self, decode, Envelope};
use crate::protocol::chatkit::{
    Annotation, AssistantContent, AssistantMessage, DecodeError, ItemId, Note, Source, SourceKind,
    StructuredInput, StructuredInputStatus, UrlSource,
};
use crate::protocol::decode::Decode;
use crate::reducer::{
    action_card_id, AgentInfo, Input, ItemChange, MemberUpdate, QueuedTurn, SequenceGap, Streamed,
    TranscriptLine, TranscriptPage, Unrecognized,
};
use crate::sse::SseFrame;
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap, HashSet};

/// Events held behind a gap before the adapter stops holding more (they are then dropped
/// and counted; the resync brings them again).
const MAX_HELD: usize = 10_000;

/// The answer to a `history_metadata` request (`protocol::agent_ui`): one `session.hydrated` envelope with
/// `before`, as the reducer input that puts its page in front of the teammate's transcript
/// (or drops it, if the transcript moved on meanwhile).
pub fn history_page(data: &str) -> Result<Input, DecodeError> {
    let e = decode(data)?;
    let invalid = |message: &str| DecodeError {
        message: message.to_owned(),
        raw: data.to_owned(),
    };
    if e.kind != "session.hydrated" {
        return Err(invalid("a history page is a `session.hydrated` envelope"));
    }
    transcript_page(&e)
        .map(Input::TranscriptPage)
        .ok_or_else(|| invalid("a history page names its `agentId` and `payload.before`"))
}

/// An older page of a teammate's transcript: `session.hydrated` with `before`.
fn transcript_page(e: &Envelope) -> Option<TranscriptPage> {
    let agent_id = e.ids.agent_id.clone()?;
    let p: agent_ui::SessionHydrated = e.payload_as();
    Some(TranscriptPage {
        agent_id,
        before: p.before?,
        lines: transcript_lines(p.messages),
        has_more: p.has_more,
    })
}

/// A transcript's messages as lines, oldest first.
fn transcript_lines(messages: Vec<agent_ui::TranscriptMessage>) -> Vec<TranscriptLine> {
    messages
        .into_iter()
        .map(|m| TranscriptLine {
            id: m.id,
            text: m.text,
        })
        .collect()
}

/// Maps the envelopes of one run onto reducer inputs; fed every stream of the run (the
/// first, and the one that fills a gap). Item ids come from the wire ids and the run id
/// (`au:{run}:…`), so a later stream of the same run (an action's answer) reaches the same
/// items.
#[derive(Clone, Debug, Default)]
pub struct AgentUiAdapter {
    /// The last sequence applied in order.
    last: Option<u64>,
    /// Events after a gap, by sequence.
    held: BTreeMap<u64, Envelope>,
    run_id: Option<String>,
    /// Duplicates and overflow dropped (diagnostics).
    pub dropped: u64,
    /// How many times the runtime asked again for events after a gap.
    pub resumes: u32,
    /// Items added by this adapter.
    added: HashSet<ItemId>,
    /// Streamed tool output so far, by item.
    output: HashMap<ItemId, String>,
    /// Citations given to each message so far (a final text keeps them).
    citations: HashMap<ItemId, Vec<Annotation>>,
    /// Agent names by id, to label bubbles.
    names: HashMap<String, String>,
    /// The agent owning the items that arrive now.
    agent: Option<String>,
    /// The run said `run.finished`: a new `runId` may follow on the same stream (a queued
    /// turn the runtime started).
    finished: bool,
}

impl AgentUiAdapter {
    pub fn new() -> Self {
        Self::default()
    }

    /// The gap still open, if the stream ended with one: ask for the events after it.
    pub fn gap(&self) -> Option<SequenceGap> {
        match (&self.run_id, self.last, self.held.is_empty()) {
            (Some(run_id), Some(after), false) => Some(SequenceGap {
                run_id: run_id.clone(),
                after,
            }),
            _ => None,
        }
    }

    /// The inputs one SSE frame maps to (the end of the stream is the runtime's call).
    pub fn push(&mut self, frame: SseFrame) -> Vec<Input> {
        match frame {
            SseFrame::Event { data, .. } => self.data(&data),
            SseFrame::Done | SseFrame::Oversized { .. } => Vec::new(),
        }
    }

    /// The inputs one `data:` payload maps to.
    pub fn data(&mut self, data: &str) -> Vec<Input> {
        match decode(data) {
            Ok(envelope) => self.envelope(envelope),
            Err(e) => vec![Input::Malformed(e)],
        }
    }

    /// Orders `envelope` into the run, then maps what can be applied now.
    pub fn envelope(&mut self, envelope: Envelope) -> Vec<Input> {
        let run_id = envelope.ids.run_id.clone();
        if self.run_id.is_none() {
            self.run_id = run_id;
        } else if self.finished && run_id.is_some() && run_id != self.run_id {
            // The next run on this stream: its sequence starts afresh.
            self.run_id = run_id;
            self.last = None;
            self.dropped += self.held.len() as u64;
            self.held.clear();
            self.finished = false;
        }
        let Some(seq) = envelope.sequence else {
            return self.map(envelope);
        };
        let mut inputs = Vec::new();
        match self.last {
            // The first event of the run sets where it starts.
            None => {
                self.last = Some(seq);
                inputs.extend(self.map(envelope));
            }
            Some(last) if seq <= last || self.held.contains_key(&seq) => self.dropped += 1,
            Some(last) if seq == last + 1 => {
                self.last = Some(seq);
                inputs.extend(self.map(envelope));
            }
            Some(last) => {
                let opened = self.held.is_empty();
                if self.held.len() < MAX_HELD {
                    self.held.insert(seq, envelope);
                } else {
                    self.dropped += 1;
                }
                if opened {
                    inputs.push(Input::Resync(Some(SequenceGap {
                        run_id: self.run_id.clone().unwrap_or_default(),
                        after: last,
                    })));
                }
            }
        }
        // What the gap held, now in order.
        let was_held = !self.held.is_empty();
        while let Some(next) = self.last.map(|l| l + 1) {
            let Some(envelope) = self.held.remove(&next) else {
                break;
            };
            self.last = Some(next);
            inputs.extend(self.map(envelope));
        }
        if was_held && self.held.is_empty() {
            inputs.push(Input::Resync(None));
        }
        inputs
    }

    fn item_id(&self, what: &str, wire: &str) -> ItemId {
        let run = self.run_id.as_deref().unwrap_or("run");
        ItemId(format!("au:{run}:{what}:{wire}"))
    }

    /// The owner of what follows: an `AgentChanged` when it is another agent than before.
    fn own(&mut self, envelope: &Envelope, inputs: &mut Vec<Input>) {
        let agent = envelope.ids.agent_id.clone();
        if agent == self.agent {
            return;
        }
        self.agent = agent.clone();
        if let Some(id) = agent {
            inputs.push(Input::AgentChanged(AgentInfo {
                name: self.names.get(&id).cloned().unwrap_or_else(|| id.clone()),
                id: Some(id),
                payload: None,
            }));
        }
    }

    fn add(&mut self, id: ItemId, kind: EntryKind, inputs: &mut Vec<Input>) {
        if self.added.insert(id.clone()) {
            inputs.push(Input::Stream(Streamed::ItemAdded(Entry {
                branches: Vec::new(),
                id,
                thread_id: None,
                created_at: String::new(),
                kind,
            })));
        }
    }

    fn update(item_id: ItemId, change: ItemChange) -> Input {
        Input::Stream(Streamed::ItemChanged { item_id, change })
    }

    fn map(&mut self, e: Envelope) -> Vec<Input> {
        let mut inputs = Vec::new();
        match e.kind.as_str() {
            "run.started" => {
                let p: agent_ui::RunStarted = e.payload_as();
                if let (Some(run_id), Some(controls)) = (e.ids.run_id.clone(), p.controls) {
                    inputs.push(Input::RunControls { run_id, controls });
                }
            }
            "run.finished" => self.finished = true,
            "queue.changed" => self.queue(&e, &mut inputs),
            "session.opened"
            | "session.updated"
            | "session.closed"
            | "messages.snapshot"
            | "state.snapshot"
            | "state.delta"
            | "task.changed"
            | "permission.changed"
            | "context.compaction.started"
            | "review.requested"
            | "review.completed" => {}
            "run.status" => {
                let p: agent_ui::RunStatus = e.payload_as();
                if let Some(text) = p.label.or(p.status) {
                    inputs.push(Input::Stream(Streamed::Progress { icon: None, text }));
                }
            }
            "run.failed" => {
                let p: agent_ui::RunFailed = e.payload_as();
                inputs.push(Input::RunError {
                    message: p.message.unwrap_or_default(),
                    code: p.code,
                })
            }
            "text.delta" | "text.final" => self.text(&e, &mut inputs),
            "reasoning.delta" | "reasoning.summary" => self.reasoning(&e, &mut inputs),
            "plan.delta" | "plan.final" => self.plan(&e, &mut inputs),
            "tool.started" | "tool.args" | "tool.progress" | "tool.output.delta" => {
                self.tool(&e, &mut inputs)
            }
            "tool.result" | "tool.failed" => self.tool_end(&e, &mut inputs),
            "action.required" => self.action_required(&e, &mut inputs),
            "action.resolved" => {
                if let Some(action_id) = e.ids.action_id.clone() {
                    let p: agent_ui::ActionResolved = e.payload_as();
                    let outcome = match p.option_id {
                        Some(option) => PermissionOutcome::Selected {
                            option_id: PermissionOptionId(option),
                        },
                        None => PermissionOutcome::Cancelled,
                    };
                    inputs.push(Input::ActionResolved {
                        action_id,
                        outcome,
                        answer: p.text,
                        answers: p.answers,
                    });
                }
            }
            "team.changed" => {
                let p: agent_ui::TeamChanged = e.payload_as();
                inputs.push(Input::TeamChanged {
                    name: p.team_name,
                    topology: p.topology.or_else(|| e.ids.topology.clone()),
                })
            }
            "agent.spawned" | "agent.changed" | "agent.completed" | "session.hydrated" => {
                self.member(&e, &mut inputs)
            }
            "agent.handoff" => {
                self.own(&e, &mut inputs);
                let id = self.item_id("handoff", &e.sequence.unwrap_or(0).to_string());
                let p: agent_ui::AgentHandoff = e.payload_as();
                let note = Note::Handoff {
                    from: p.from.unwrap_or_default(),
                    to: p.to.unwrap_or_default(),
                    reason: p.reason,
                };
                self.add(id, EntryKind::Note(note), &mut inputs);
            }
            "worker.notification" => {
                self.own(&e, &mut inputs);
                let id = self.item_id("worker", &e.sequence.unwrap_or(0).to_string());
                let p: agent_ui::WorkerNotification = e.payload_as();
                let note = Note::WorkerNotification {
                    agent_id: e.ids.agent_id.clone().unwrap_or_default(),
                    task_id: e.ids.task_id.clone(),
                    status: p.status,
                    summary: p.summary.unwrap_or_default(),
                    channel_role: p.role,
                    duration_ms: p.duration_ms,
                    tool_count: p.tool_count,
                };
                self.add(id, EntryKind::Note(note), &mut inputs);
            }
            "context.changed" | "context.compaction.completed" => {
                let text = context_text(e.payload_as());
                if !text.is_empty() {
                    let id = self.item_id("context", &e.sequence.unwrap_or(0).to_string());
                    self.add(id, EntryKind::Note(Note::Context { text }), &mut inputs);
                }
            }
            kind if kind.starts_with("artifact.") => self.artifact(&e, &mut inputs),
            "evidence.changed" => self.evidence(&e, &mut inputs),
            "diagnostic.changed" => inputs.push(Input::DiagnosticFact {
                kind: "agent_ui_diagnostic",
                name: e
                    .payload_as::<agent_ui::Diagnostic>()
                    .message
                    .unwrap_or_default(),
            }),
            "metric.changed" => inputs.push(Input::DiagnosticFact {
                kind: "agent_ui_metric",
                name: e.payload_as::<agent_ui::Metric>().name.unwrap_or_default(),
            }),
            other => inputs.push(Input::Unrecognized(Unrecognized::EventType(
                other.to_owned(),
            ))),
        }
        inputs
    }

    /// The runtime's queue: turns it started leave it as user messages, the rest is the
    /// list; a steer it applied is a note where the run is now.
    fn queue(&mut self, e: &Envelope, inputs: &mut Vec<Input>) {
        let p: agent_ui::QueueChanged = e.payload_as();
        if let Some(steer) = p.steer {
            let id = self.item_id("steer", &steer.turn_id);
            let note = Note::Steer {
                text: steer.text.unwrap_or_default(),
                status: steer.status,
                turn_id: steer.turn_id,
            };
            self.add(id, EntryKind::Note(note), inputs);
        }
        let Some(entries) = p.queued else {
            return;
        };
        let mut queued = Vec::new();
        for entry in entries {
            let turn = QueuedTurn {
                turn_id: entry.turn_id,
                text: entry.text.unwrap_or_default(),
            };
            match (entry.status.as_deref(), entry.run_id) {
                (Some("started" | "promoted"), Some(run_id)) => {
                    inputs.push(Input::QueuedTurnStarted { turn, run_id })
                }
                // Gone from the queue without a run: nothing to show.
                (Some("started" | "promoted" | "removed"), _) => {}
                _ => queued.push(turn),
            }
        }
        inputs.push(Input::QueueChanged(queued));
    }

    fn text(&mut self, e: &Envelope, inputs: &mut Vec<Input>) {
        let Some(message) = e.ids.message_id.clone() else {
            return;
        };
        self.own(e, inputs);
        let id = self.item_id("msg", &message);
        let empty = EntryKind::AssistantText(AssistantMessage {
            content: vec![AssistantContent::text("")],
        });
        self.add(id.clone(), empty, inputs);
        if e.kind == "text.final" {
            // The final text replaces what streamed: never appended to it.
            let text = e.payload_as::<agent_ui::TextFinal>().text;
            let mut content = AssistantContent::text(text.unwrap_or_default());
            content.annotations = self.citations.get(&id).cloned().unwrap_or_default();
            inputs.push(Input::Stream(Streamed::ItemDone(Entry {
                branches: Vec::new(),
                id,
                thread_id: None,
                created_at: String::new(),
                kind: EntryKind::AssistantText(AssistantMessage {
                    content: vec![content],
                }),
            })));
        } else if let Some(delta) = e.payload_as::<agent_ui::TextDelta>().delta {
            inputs.push(Self::update(id, ItemChange::TextDelta { index: 0, delta }));
        }
    }

    fn reasoning(&mut self, e: &Envelope, inputs: &mut Vec<Input>) {
        self.own(e, inputs);
        let key = e.ids.message_id.as_deref().unwrap_or("reasoning");
        let id = self.item_id("think", key);
        self.add(id.clone(), EntryKind::Thought(Thought::default()), inputs);
        let p: agent_ui::Reasoning = e.payload_as();
        let text = p.delta.or(p.text).unwrap_or_default();
        if let Ok(content) = Decode::decode(&json!({"type": "text", "text": text})) {
            inputs.push(Self::update(id, ItemChange::Thought(content)));
        }
    }

    fn plan(&mut self, e: &Envelope, inputs: &mut Vec<Input>) {
        let plan = e.payload_as::<agent_ui::Plan>().entries.map(|entries| {
            entries
                .into_iter()
                .map(|step| crate::reducer::OrchestrationStep {
                    title: step.content,
                    status: step.status,
                    agent: step.agent_id,
                })
                .collect()
        });
        inputs.push(Input::Orchestration(crate::reducer::OrchestrationUpdate {
            group_id: e.ids.run_id.clone(),
            status: None,
            plan,
            payload: None,
        }));
    }

    fn tool(&mut self, e: &Envelope, inputs: &mut Vec<Input>) {
        let Some(wire) = e.ids.tool_call_id.clone() else {
            return;
        };
        self.own(e, inputs);
        let id = self.item_id("tool", &wire);
        if !self.added.contains(&id) {
            // The first event of a call names it, whichever it is.
            let header: agent_ui::ToolStarted = e.payload_as();
            let call = ToolCall {
                tool_call_id: ToolCallId(wire.clone()),
                title: header.title.or(header.name).unwrap_or_else(|| wire.clone()),
                // The ACP kind when the runtime says one; a name is never guessed from.
                kind: header
                    .kind
                    .map(|k| ToolKind::from(k.as_str()))
                    .unwrap_or(ToolKind::Other),
                status: ToolCallStatus::InProgress,
                content: Vec::new(),
                locations: Vec::new(),
                raw_input: None,
                raw_output: None,
            };
            let kind = EntryKind::ToolCall(ToolCallEntry {
                tool_call: call,
                permission: None,
            });
            self.add(id.clone(), kind, inputs);
        }
        let mut update = ToolCallUpdate {
            tool_call_id: ToolCallId(wire),
            ..ToolCallUpdate::default()
        };
        match e.kind.as_str() {
            "tool.args" => update.raw_input = e.payload_as::<agent_ui::ToolArgs>().input,
            "tool.progress" => {
                let Some(message) = e.payload_as::<agent_ui::ToolProgress>().message else {
                    return;
                };
                update.content = ToolCallContent::decode(
                    &json!({"type": "content", "content": {"type": "text", "text": message}}),
                )
                .ok()
                .map(|c| vec![c]);
            }
            "tool.output.delta" => {
                let delta = e.payload_as::<agent_ui::ToolOutputDelta>().delta;
                let delta = delta.unwrap_or_default();
                let so_far = self.output.entry(id.clone()).or_default();
                so_far.push_str(&delta);
                update.raw_output = Some(Value::String(so_far.clone()));
            }
            _ => return,
        }
        inputs.push(Self::update(id, ItemChange::ToolCall(update)));
    }

    fn tool_end(&mut self, e: &Envelope, inputs: &mut Vec<Input>) {
        let Some(wire) = e.ids.tool_call_id.as_deref() else {
            return;
        };
        let id = self.item_id("tool", wire);
        let failed = e.kind == "tool.failed";
        let output = if failed {
            e.payload_as::<agent_ui::ToolFailed>().error
        } else {
            e.payload_as::<agent_ui::ToolResult>().output
        };
        // A result for a call never started still shows (the reducer makes an entry).
        inputs.push(Input::ToolResult {
            item_id: id,
            success: Some(!failed),
            output,
        });
    }

    fn action_required(&mut self, e: &Envelope, inputs: &mut Vec<Input>) {
        let Some(action_id) = e.ids.action_id.clone() else {
            return;
        };
        self.own(e, inputs);
        let p: agent_ui::ActionRequired = e.payload_as();
        if p.action_type.as_deref() == Some("clarification") {
            // A question, answered with text: its own control, never a permission card.
            let note = Note::Question {
                placeholder: p.input_fields().placeholder,
                question: p.title.unwrap_or_default(),
                answer: None,
                action_id: action_id.clone(),
            };
            let id = self.item_id("question", &action_id);
            self.add(id, EntryKind::Note(note), inputs);
            return;
        }
        if p.action_type.as_deref() == Some("input") {
            // Structured input: the same questions ChatKit's structured input asks.
            let input = StructuredInput {
                status: StructuredInputStatus::Pending,
                inputs: p.input_fields().questions,
                action_id: Some(action_id.clone()),
            };
            let id = self.item_id("input", &action_id);
            self.add(id, EntryKind::StructuredInput(input), inputs);
            return;
        }
        let title = p.title.unwrap_or_else(|| action_id.clone());
        // On the tool call it is about, else on a card of its own.
        let wire = e
            .ids
            .tool_call_id
            .clone()
            .unwrap_or_else(|| action_card_id(&action_id));
        let id = self.item_id("tool", &wire);
        if !self.added.contains(&id) {
            let call = ToolCall {
                tool_call_id: ToolCallId(wire.clone()),
                title: title.clone(),
                kind: ToolKind::Other,
                status: ToolCallStatus::Pending,
                content: Vec::new(),
                locations: Vec::new(),
                raw_input: p.input.clone(),
                raw_output: None,
            };
            let kind = EntryKind::ToolCall(ToolCallEntry {
                tool_call: call,
                permission: None,
            });
            self.add(id.clone(), kind, inputs);
        }
        let options = p.options.into_iter().map(option).collect();
        let mut tool_call = ToolCallUpdate {
            tool_call_id: ToolCallId(wire),
            ..ToolCallUpdate::default()
        };
        tool_call.title = Some(title);
        tool_call.raw_input = p.input;
        inputs.push(Input::ActionRequired {
            item_id: id,
            request: RequestPermission {
                session_id: e.ids.session_id.clone(),
                tool_call,
                options,
            },
            action_type: p.action_type,
            action_id,
        });
    }

    fn member(&mut self, e: &Envelope, inputs: &mut Vec<Input>) {
        let Some(id) = e.ids.agent_id.clone() else {
            return;
        };
        let p: agent_ui::AgentChanged = e.payload_as();
        if let Some(name) = &p.agent_name {
            self.names.insert(id.clone(), name.clone());
        }
        if let Some(page) = (e.kind == "session.hydrated")
            .then(|| transcript_page(e))
            .flatten()
        {
            // An older page goes in front of what is loaded, never after it.
            inputs.push(Input::TranscriptPage(page));
            return;
        }
        let ids = &e.ids;
        inputs.push(Input::MemberChanged(MemberUpdate {
            id,
            name: p.agent_name,
            role: p.role,
            model: p.model,
            status: p.status,
            message: p.message,
            remote: p.remote,
            team: p.team_name,
            session_id: ids.session_id.clone(),
            parent_session_id: ids.parent_session_id.clone(),
            parent_thread_id: ids.parent_thread_id.clone(),
            task_id: ids.task_id.clone(),
            transcript: transcript_lines(p.messages),
            transcript_has_more: p.has_more,
        }));
    }

    fn artifact(&mut self, e: &Envelope, inputs: &mut Vec<Input>) {
        let Some(artifact_id) = e.ids.artifact_id.clone() else {
            return;
        };
        let id = self.item_id("artifact", &artifact_id);
        let p: agent_ui::Artifact = e.payload_as();
        let note = Note::Artifact {
            artifact_id,
            title: p.title.unwrap_or_default(),
            kind: p.kind,
            body: p.body,
        };
        if self.added.contains(&id) {
            // A later version replaces the card's content.
            inputs.push(Input::Stream(Streamed::ItemDone(Entry {
                branches: Vec::new(),
                id,
                thread_id: None,
                created_at: String::new(),
                kind: EntryKind::Note(note),
            })));
        } else {
            self.add(id, EntryKind::Note(note), inputs);
        }
    }

    /// A citation of a message: linked only because an evidence fact says so.
    fn evidence(&mut self, e: &Envelope, inputs: &mut Vec<Input>) {
        let p: agent_ui::Evidence = e.payload_as();
        let (Some(message), Some(url)) = (p.message_id, p.url) else {
            return;
        };
        let id = self.item_id("msg", &message);
        if !self.added.contains(&id) {
            return;
        }
        let source = Source {
            title: p.title.unwrap_or_else(|| url.clone()),
            description: None,
            timestamp: None,
            group: None,
            kind: SourceKind::Url(UrlSource {
                url,
                attribution: None,
            }),
        };
        let annotation = Annotation {
            kind: "annotation".into(),
            source,
            index: None,
        };
        self.citations
            .entry(id.clone())
            .or_default()
            .push(annotation.clone());
        inputs.push(Self::update(
            id,
            ItemChange::Annotation {
                index: 0,
                at: None,
                annotation,
            },
        ));
    }
}

/// An option of `action.required`: approve/reject map onto the permission card's kinds.
fn option(o: agent_ui::ActionOption) -> PermissionOption {
    let kind = match o.kind.as_deref() {
        Some("approve" | "allow" | "allow_once") => PermissionOptionKind::AllowOnce,
        Some("allow_always") => PermissionOptionKind::AllowAlways,
        Some("reject" | "deny" | "reject_once") => PermissionOptionKind::RejectOnce,
        Some("reject_always") => PermissionOptionKind::RejectAlways,
        other => PermissionOptionKind::Unknown(other.unwrap_or("").to_owned()),
    };
    PermissionOption {
        name: o.label.unwrap_or_else(|| o.id.clone()),
        option_id: PermissionOptionId(o.id),
        kind,
    }
}

/// A context fact as one line: a compaction summary, a budget, missing context.
fn context_text(p: agent_ui::ContextChanged) -> String {
    let mut parts = Vec::new();
    if let Some(summary) = p.summary {
        parts.push(format!("Context compacted: {summary}"));
    }
    if let Some(agent_ui::Budget { used, limit }) = p.budget {
        parts.push(format!("Context: {used} of {limit} tokens"));
    }
    if !p.missing.is_empty() {
        parts.push(format!("Missing context: {}", p.missing.join(", ")));
    }
    parts.join(" · ")
}
