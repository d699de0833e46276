//! The golden event logs of `tests/fixtures/agent-ui/` (the same the reference runtime
//! streams) and the helpers that replay them through the adapter and the reducer, for the
//! checklist (`checks`) and the adapter's other tests (`tests`).

use super::AgentUiAdapter;
use crate::model::EntryKind;
use crate::protocol::chatkit::Note;
use crate::reducer::{reduce, ChatState, Effect, Input, OutgoingMessage, ToolCallState};
use serde_json::{json, Value};

pub(super) const STATUS: &str = include_str!("../../../../../tests/fixtures/agent-ui/status.jsonl");

pub(super) const TEAM: &str = include_str!("../../../../../tests/fixtures/agent-ui/team.jsonl");

pub(super) const APPROVAL: &str =
    include_str!("../../../../../tests/fixtures/agent-ui/approval.jsonl");

pub(super) const APPROVED: &str =
    include_str!("../../../../../tests/fixtures/agent-ui/approval-approved.jsonl");

pub(super) const GAP: &str = include_str!("../../../../../tests/fixtures/agent-ui/gap.jsonl");

pub(super) const CHILD: &str = include_str!("../../../../../tests/fixtures/agent-ui/child.jsonl");

pub(super) const QUEUE: &str = include_str!("../../../../../tests/fixtures/agent-ui/queue.jsonl");

pub(super) const CLARIFY: &str =
    include_str!("../../../../../tests/fixtures/agent-ui/clarify.jsonl");

pub(super) const PLAN: &str = include_str!("../../../../../tests/fixtures/agent-ui/plan.jsonl");

pub(super) const FORM: &str = include_str!("../../../../../tests/fixtures/agent-ui/form.jsonl");

pub(super) const CHILD_SESSION: &str =
    include_str!("../../../../../tests/fixtures/agent-ui/child-session.json");

/// A conversation that sent `text` and is waiting for the answer.
pub(super) fn sent(text: &str) -> ChatState {
    let mut state = ChatState::default();
    reduce(
        &mut state,
        Input::SendStarted(OutgoingMessage {
            content: Vec::new(),
            text: text.into(),
            ..OutgoingMessage::default()
        }),
    );
    state
}

/// Feeds `lines` (one envelope each) through `adapter`; returns the effects.
pub(super) fn feed(
    state: &mut ChatState,
    adapter: &mut AgentUiAdapter,
    lines: &[&str],
) -> Vec<Effect> {
    let mut effects = Vec::new();
    for line in lines {
        for input in adapter.data(line) {
            effects.extend(reduce(state, input).effects);
        }
    }
    effects
}

pub(super) fn lines(log: &str) -> Vec<&str> {
    log.lines().filter(|l| !l.trim().is_empty()).collect()
}

/// The whole log, then the end of the stream.
pub(super) fn run(log: &str) -> ChatState {
    let mut state = sent("go");
    let mut adapter = AgentUiAdapter::new();
    feed(&mut state, &mut adapter, &lines(log));
    reduce(&mut state, Input::StreamEnded);
    state
}

/// The first `n` events of `log`, the stream still open.
pub(super) fn run_until(log: &str, n: usize) -> ChatState {
    let mut state = sent("go");
    let mut adapter = AgentUiAdapter::new();
    feed(&mut state, &mut adapter, &lines(log)[..n]);
    state
}

pub(super) fn text_of(state: &ChatState, message: &str) -> String {
    state
        .items()
        .iter()
        .find(|i| i.entry.id.0.ends_with(&format!(":msg:{message}")))
        .and_then(crate::reducer::assistant_text)
        .unwrap_or_default()
}

/// Every assistant text of the conversation, joined.
pub(super) fn answers(state: &ChatState) -> String {
    state
        .items()
        .iter()
        .filter_map(crate::reducer::assistant_text)
        .collect::<Vec<_>>()
        .join("\n")
}

pub(super) fn tool_state(state: &ChatState, wire: &str) -> Option<ToolCallState> {
    state
        .items()
        .iter()
        .find(|i| i.entry.id.0.ends_with(&format!(":tool:{wire}")))
        .and_then(|i| i.tool_call_state())
}

pub(super) fn kinds(state: &ChatState) -> Vec<String> {
    state
        .items()
        .iter()
        .map(|i| match &i.entry.kind {
            EntryKind::UserMessage(_) => "user".to_owned(),
            EntryKind::AssistantText(_) => "answer".to_owned(),
            EntryKind::ToolCall(c) => format!("tool:{}", c.tool_call.tool_call_id.0),
            EntryKind::Thought(_) => "thought".to_owned(),
            EntryKind::Note(Note::Context { .. }) => "context".to_owned(),
            EntryKind::Note(Note::Artifact { .. }) => "artifact".to_owned(),
            EntryKind::Note(Note::WorkerNotification { .. }) => "worker".to_owned(),
            EntryKind::Note(Note::Handoff { .. }) => "handoff".to_owned(),
            EntryKind::Note(Note::Steer { .. }) => "steer".to_owned(),
            EntryKind::Note(Note::Question { .. }) => "question".to_owned(),
            other => format!("{other:?}"),
        })
        .collect()
}

/// The question of the conversation: its text and the answer the owner confirmed.
pub(super) fn question(state: &ChatState) -> Option<(String, Option<String>)> {
    state.items().iter().find_map(|i| match &i.entry.kind {
        EntryKind::Note(Note::Question {
            question, answer, ..
        }) => Some((question.clone(), answer.clone())),
        _ => None,
    })
}

/// The analyst's page of `session` (the runtime's scripted session) right before message
/// `before`, at most `size` messages, as the runtime answers a history request.
pub(super) fn history_answer(session: &Value, before: &str, size: usize) -> String {
    let all = session["messages"].as_array().unwrap();
    let end = all.iter().position(|m| m["id"] == before).unwrap();
    let start = end.saturating_sub(size);
    json!({
        "type": "session.hydrated",
        "agentId": session["agentId"],
        "sessionId": session["sessionId"],
        "owner": "session",
        "payload": {"messages": &all[start..end], "hasMore": start > 0, "before": before},
    })
    .to_string()
}
