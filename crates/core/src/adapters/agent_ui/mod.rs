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
use crate::protocol::agent_ui::{decode, Envelope};
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
    Some(TranscriptPage {
        agent_id: e.id("agentId")?,
        before: e.text("before")?,
        lines: transcript_lines(e.payload()),
        has_more: e.payload().get("hasMore").and_then(Value::as_bool),
    })
}

/// `payload.messages` of `session.hydrated`: `[{id, text}]`, oldest first (others skipped).
fn transcript_lines(payload: &Value) -> Vec<TranscriptLine> {
    payload
        .get("messages")
        .and_then(Value::as_array)
        .map(|messages| {
            messages
                .iter()
                .filter_map(|m| {
                    Some(TranscriptLine {
                        id: m.get("id").and_then(Value::as_str)?.to_owned(),
                        text: m.get("text").and_then(Value::as_str)?.to_owned(),
                    })
                })
                .collect()
        })
        .unwrap_or_default()
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
        let run_id = envelope.id("runId");
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
        let agent = envelope.id("agentId");
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
                if let (Some(run_id), Some(controls)) = (
                    e.id("runId"),
                    e.payload().get("controls").and_then(Value::as_array),
                ) {
                    let controls = controls
                        .iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect();
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
                if let Some(text) = e.text("label").or_else(|| e.text("status")) {
                    inputs.push(Input::Stream(Streamed::Progress { icon: None, text }));
                }
            }
            "run.failed" => inputs.push(Input::RunError {
                message: e.text("message").unwrap_or_default(),
                code: e.text("code"),
            }),
            "text.delta" | "text.final" => self.text(&e, &mut inputs),
            "reasoning.delta" | "reasoning.summary" => self.reasoning(&e, &mut inputs),
            "plan.delta" | "plan.final" => self.plan(&e, &mut inputs),
            "tool.started" | "tool.args" | "tool.progress" | "tool.output.delta" => {
                self.tool(&e, &mut inputs)
            }
            "tool.result" | "tool.failed" => self.tool_end(&e, &mut inputs),
            "action.required" => self.action_required(&e, &mut inputs),
            "action.resolved" => {
                if let Some(action_id) = e.id("actionId") {
                    let outcome = match e.text("optionId") {
                        Some(option) => PermissionOutcome::Selected {
                            option_id: PermissionOptionId(option),
                        },
                        None => PermissionOutcome::Cancelled,
                    };
                    inputs.push(Input::ActionResolved {
                        action_id,
                        outcome,
                        answer: e.text("text"),
                        answers: e
                            .payload()
                            .get("answers")
                            .and_then(Value::as_object)
                            .cloned(),
                    });
                }
            }
            "team.changed" => inputs.push(Input::TeamChanged {
                name: e.text("teamName"),
                topology: e.text("topology").or_else(|| e.id("topology")),
            }),
            "agent.spawned" | "agent.changed" | "agent.completed" | "session.hydrated" => {
                self.member(&e, &mut inputs)
            }
            "agent.handoff" => {
                self.own(&e, &mut inputs);
                let id = self.item_id("handoff", &e.sequence.unwrap_or(0).to_string());
                let note = Note::Handoff {
                    from: e.text("from").unwrap_or_default(),
                    to: e.text("to").unwrap_or_default(),
                    reason: e.text("reason"),
                };
                self.add(id, EntryKind::Note(note), &mut inputs);
            }
            "worker.notification" => {
                self.own(&e, &mut inputs);
                let agent_id = e.id("agentId").unwrap_or_default();
                let id = self.item_id("worker", &e.sequence.unwrap_or(0).to_string());
                let p = e.payload();
                let note = Note::WorkerNotification {
                    agent_id,
                    task_id: e.id("taskId"),
                    status: e.text("status"),
                    summary: e.text("summary").unwrap_or_default(),
                    channel_role: e.text("role"),
                    duration_ms: p.get("durationMs").and_then(Value::as_u64),
                    tool_count: p.get("toolCount").and_then(Value::as_u64),
                };
                self.add(id, EntryKind::Note(note), &mut inputs);
            }
            "context.changed" | "context.compaction.completed" => {
                let text = context_text(&e);
                if !text.is_empty() {
                    let id = self.item_id("context", &e.sequence.unwrap_or(0).to_string());
                    self.add(id, EntryKind::Note(Note::Context { text }), &mut inputs);
                }
            }
            kind if kind.starts_with("artifact.") => self.artifact(&e, &mut inputs),
            "evidence.changed" => self.evidence(&e, &mut inputs),
            "diagnostic.changed" => inputs.push(Input::DiagnosticFact {
                kind: "agent_ui_diagnostic",
                name: e.text("message").unwrap_or_default(),
            }),
            "metric.changed" => inputs.push(Input::DiagnosticFact {
                kind: "agent_ui_metric",
                name: e.text("name").unwrap_or_default(),
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
        let p = e.payload();
        if let Some(steer) = p.get("steer").filter(|s| s.is_object()) {
            let field = |key: &str| steer.get(key).and_then(Value::as_str).map(str::to_owned);
            if let Some(turn_id) = field("turnId") {
                let note = Note::Steer {
                    text: field("text").unwrap_or_default(),
                    status: field("status"),
                    turn_id: turn_id.clone(),
                };
                let id = self.item_id("steer", &turn_id);
                self.add(id, EntryKind::Note(note), inputs);
            }
        }
        let Some(entries) = p.get("queued").and_then(Value::as_array) else {
            return;
        };
        let mut queued = Vec::new();
        for entry in entries {
            let field = |key: &str| entry.get(key).and_then(Value::as_str).map(str::to_owned);
            let Some(turn_id) = field("turnId") else {
                continue;
            };
            let turn = QueuedTurn {
                turn_id,
                text: field("text").unwrap_or_default(),
            };
            match (field("status").as_deref(), field("runId")) {
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
        let Some(message) = e.id("messageId") else {
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
            let mut content = AssistantContent::text(e.text("text").unwrap_or_default());
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
        } else if let Some(delta) = e.payload().get("delta").and_then(Value::as_str) {
            inputs.push(Self::update(
                id,
                ItemChange::TextDelta {
                    index: 0,
                    delta: delta.to_owned(),
                },
            ));
        }
    }

    fn reasoning(&mut self, e: &Envelope, inputs: &mut Vec<Input>) {
        self.own(e, inputs);
        let key = e.id("messageId").unwrap_or_else(|| "reasoning".into());
        let id = self.item_id("think", &key);
        self.add(id.clone(), EntryKind::Thought(Thought::default()), inputs);
        let text = e
            .text("delta")
            .or_else(|| e.text("text"))
            .unwrap_or_default();
        if let Ok(content) = Decode::decode(&json!({"type": "text", "text": text})) {
            inputs.push(Self::update(id, ItemChange::Thought(content)));
        }
    }

    fn plan(&mut self, e: &Envelope, inputs: &mut Vec<Input>) {
        let plan = e
            .payload()
            .get("entries")
            .and_then(Value::as_array)
            .map(|entries| {
                entries
                    .iter()
                    .filter_map(|v| {
                        Some(crate::reducer::OrchestrationStep {
                            title: v.get("content").and_then(Value::as_str)?.to_owned(),
                            status: v.get("status").and_then(Value::as_str).map(str::to_owned),
                            agent: v.get("agentId").and_then(Value::as_str).map(str::to_owned),
                        })
                    })
                    .collect()
            });
        inputs.push(Input::Orchestration(crate::reducer::OrchestrationUpdate {
            group_id: e.id("runId"),
            status: None,
            plan,
            payload: None,
        }));
    }

    fn tool(&mut self, e: &Envelope, inputs: &mut Vec<Input>) {
        let Some(wire) = e.id("toolCallId") else {
            return;
        };
        self.own(e, inputs);
        let id = self.item_id("tool", &wire);
        if !self.added.contains(&id) {
            let call = ToolCall {
                tool_call_id: ToolCallId(wire.clone()),
                title: e
                    .text("title")
                    .or_else(|| e.text("name"))
                    .unwrap_or_else(|| wire.clone()),
                // The ACP kind when the runtime says one; a name is never guessed from.
                kind: e
                    .text("kind")
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
            "tool.args" => update.raw_input = e.payload().get("input").cloned(),
            "tool.progress" => {
                let Some(message) = e.text("message") else {
                    return;
                };
                update.content = ToolCallContent::decode(
                    &json!({"type": "content", "content": {"type": "text", "text": message}}),
                )
                .ok()
                .map(|c| vec![c]);
            }
            "tool.output.delta" => {
                let delta = e.text("delta").unwrap_or_default();
                let so_far = self.output.entry(id.clone()).or_default();
                so_far.push_str(&delta);
                update.raw_output = Some(Value::String(so_far.clone()));
            }
            _ => return,
        }
        inputs.push(Self::update(id, ItemChange::ToolCall(update)));
    }

    fn tool_end(&mut self, e: &Envelope, inputs: &mut Vec<Input>) {
        let Some(wire) = e.id("toolCallId") else {
            return;
        };
        let id = self.item_id("tool", &wire);
        let failed = e.kind == "tool.failed";
        let output = if failed {
            e.payload().get("error").cloned()
        } else {
            e.payload().get("output").cloned()
        };
        // A result for a call never started still shows (the reducer makes an entry).
        inputs.push(Input::ToolResult {
            item_id: id,
            success: Some(!failed),
            output,
        });
    }

    fn action_required(&mut self, e: &Envelope, inputs: &mut Vec<Input>) {
        let Some(action_id) = e.id("actionId") else {
            return;
        };
        self.own(e, inputs);
        if e.text("actionType").as_deref() == Some("clarification") {
            // A question, answered with text: its own control, never a permission card.
            let note = Note::Question {
                question: e.text("title").unwrap_or_default(),
                placeholder: e
                    .payload()
                    .get("input")
                    .and_then(|i| i.get("placeholder"))
                    .and_then(Value::as_str)
                    .map(str::to_owned),
                answer: None,
                action_id: action_id.clone(),
            };
            let id = self.item_id("question", &action_id);
            self.add(id, EntryKind::Note(note), inputs);
            return;
        }
        if e.text("actionType").as_deref() == Some("input") {
            // Structured input: the same questions ChatKit's structured input asks.
            let questions = e
                .payload()
                .get("input")
                .and_then(|i| i.get("questions"))
                .and_then(Value::as_array)
                .map(|qs| qs.iter().filter_map(|q| Decode::decode(q).ok()).collect())
                .unwrap_or_default();
            let input = StructuredInput {
                status: StructuredInputStatus::Pending,
                inputs: questions,
                action_id: Some(action_id.clone()),
            };
            let id = self.item_id("input", &action_id);
            self.add(id, EntryKind::StructuredInput(input), inputs);
            return;
        }
        let title = e.text("title").unwrap_or_else(|| action_id.clone());
        // On the tool call it is about, else on a card of its own.
        let wire = e
            .id("toolCallId")
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
                raw_input: e.payload().get("input").cloned(),
                raw_output: None,
            };
            let kind = EntryKind::ToolCall(ToolCallEntry {
                tool_call: call,
                permission: None,
            });
            self.add(id.clone(), kind, inputs);
        }
        let options = e
            .payload()
            .get("options")
            .and_then(Value::as_array)
            .map(|options| options.iter().filter_map(option).collect())
            .unwrap_or_default();
        let mut tool_call = ToolCallUpdate {
            tool_call_id: ToolCallId(wire),
            ..ToolCallUpdate::default()
        };
        tool_call.title = Some(title);
        tool_call.raw_input = e.payload().get("input").cloned();
        inputs.push(Input::ActionRequired {
            item_id: id,
            request: RequestPermission {
                session_id: e.id("sessionId"),
                tool_call,
                options,
            },
            action_type: e.text("actionType"),
            action_id,
        });
    }

    fn member(&mut self, e: &Envelope, inputs: &mut Vec<Input>) {
        let Some(id) = e.id("agentId") else {
            return;
        };
        let name = e.text("agentName");
        if let Some(name) = &name {
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
        let p = e.payload();
        let transcript = transcript_lines(p);
        inputs.push(Input::MemberChanged(MemberUpdate {
            id,
            name,
            role: e.text("role"),
            model: e.text("model"),
            status: e.text("status"),
            message: e.text("message"),
            remote: p.get("remote").and_then(Value::as_bool),
            team: e.text("teamName"),
            session_id: e.id("sessionId"),
            parent_session_id: e.id("parentSessionId"),
            parent_thread_id: e.id("parentThreadId"),
            task_id: e.id("taskId"),
            transcript,
            transcript_has_more: p.get("hasMore").and_then(Value::as_bool),
        }));
    }

    fn artifact(&mut self, e: &Envelope, inputs: &mut Vec<Input>) {
        let Some(artifact_id) = e.id("artifactId") else {
            return;
        };
        let id = self.item_id("artifact", &artifact_id);
        let note = Note::Artifact {
            artifact_id,
            title: e.text("title").unwrap_or_default(),
            kind: e.text("kind"),
            body: e.text("body"),
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
        let (Some(message), Some(url)) = (e.text("messageId"), e.text("url")) else {
            return;
        };
        let id = self.item_id("msg", &message);
        if !self.added.contains(&id) {
            return;
        }
        let source = Source {
            title: e.text("title").unwrap_or_else(|| url.clone()),
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
fn option(v: &Value) -> Option<PermissionOption> {
    let id = v.get("id").and_then(Value::as_str)?;
    let kind = match v.get("kind").and_then(Value::as_str) {
        Some("approve" | "allow" | "allow_once") => PermissionOptionKind::AllowOnce,
        Some("allow_always") => PermissionOptionKind::AllowAlways,
        Some("reject" | "deny" | "reject_once") => PermissionOptionKind::RejectOnce,
        Some("reject_always") => PermissionOptionKind::RejectAlways,
        other => PermissionOptionKind::Unknown(other.unwrap_or("").to_owned()),
    };
    Some(PermissionOption {
        option_id: PermissionOptionId(id.to_owned()),
        name: v
            .get("label")
            .and_then(Value::as_str)
            .unwrap_or(id)
            .to_owned(),
        kind,
    })
}

/// A context fact as one line: a compaction summary, a budget, missing context.
fn context_text(e: &Envelope) -> String {
    let p = e.payload();
    let mut parts = Vec::new();
    if let Some(summary) = e.text("summary") {
        parts.push(format!("Context compacted: {summary}"));
    }
    if let Some(budget) = p.get("budget") {
        if let (Some(used), Some(limit)) = (
            budget.get("used").and_then(Value::as_u64),
            budget.get("limit").and_then(Value::as_u64),
        ) {
            parts.push(format!("Context: {used} of {limit} tokens"));
        }
    }
    if let Some(missing) = p.get("missing").and_then(Value::as_array) {
        let names: Vec<&str> = missing.iter().filter_map(Value::as_str).collect();
        if !names.is_empty() {
            parts.push(format!("Missing context: {}", names.join(", ")));
        }
    }
    parts.join(" · ")
}
