//! Teams of agents (the Agent UI projection): the inputs that change the roster, the
//! decisions the runtime asks for (`action.required`) and confirms, sequence gaps and
//! runtime diagnostics. Team facts are owned by the runtime: the client shows them, never
//! derives them (one `idle` is not `completed`).

use super::outcome::Outcome;
use super::state::{
    ChatState, Member, MemberUpdate, SequenceGap, Team, TranscriptLine, TranscriptPage,
    TRANSCRIPT_MAX,
};
use super::tool_calls::permission_requested;
use crate::host_events::ChatEvent;
use crate::model::EntryKind;
use crate::protocol::acp::{PermissionOutcome, RequestPermission};
use crate::protocol::chatkit::{ItemId, Note};
use crate::protocol::JsonMap;

/// Statuses that say a teammate is at work: after its run ended, nobody knows that any
/// more, so they become unknown (Agent UI: unknown is shown as unknown, never guessed).
const AT_WORK: &[&str] = &["running", "working", "in_progress", "active", "busy"];

/// The run ended: a teammate last reported at work is now of unknown status.
pub(super) fn run_ended(state: &mut ChatState) {
    let Some(team) = state.team.as_mut() else {
        return;
    };
    let mut changed = false;
    for member in &mut team.members {
        if member
            .status
            .as_deref()
            .is_some_and(|s| AT_WORK.contains(&s))
        {
            member.status = None;
            changed = true;
        }
    }
    if changed {
        state.mark().run = true;
    }
}

pub(super) fn team_changed(state: &mut ChatState, name: Option<String>, topology: Option<String>) {
    let team = state.team.get_or_insert_with(Team::default);
    if name.is_some() {
        team.name = name;
    }
    if topology.is_some() {
        team.topology = topology;
    }
    state.mark().run = true;
}

pub(super) fn member_changed(state: &mut ChatState, update: MemberUpdate) {
    let team = state.team.get_or_insert_with(Team::default);
    if team.name.is_none() {
        team.name = update.team.clone();
    }
    let index = match team.members.iter().position(|m| m.id == update.id) {
        Some(i) => i,
        None => {
            team.members.push(Member {
                id: update.id.clone(),
                ..Member::default()
            });
            team.members.len() - 1
        }
    };
    let m = &mut team.members[index];
    let set = |field: &mut Option<String>, value: Option<String>| {
        if value.is_some() {
            *field = value;
        }
    };
    set(&mut m.name, update.name);
    set(&mut m.role, update.role);
    set(&mut m.model, update.model);
    if update.status.is_some() {
        // A new status replaces the note of the old one.
        m.message = update.message;
        m.status = update.status;
    } else {
        set(&mut m.message, update.message);
    }
    set(&mut m.session_id, update.session_id);
    set(&mut m.parent_session_id, update.parent_session_id);
    set(&mut m.parent_thread_id, update.parent_thread_id);
    set(&mut m.task_id, update.task_id);
    if let Some(remote) = update.remote {
        m.remote = remote;
    }
    for line in update.transcript {
        if !m.transcript.iter().any(|l| l.id == line.id) {
            m.transcript.push(line);
        }
    }
    if let Some(more) = update.transcript_has_more {
        m.transcript_has_more = more;
    }
    let excess = m.transcript.len().saturating_sub(TRANSCRIPT_MAX);
    if excess > 0 {
        // The oldest go; they are older messages again.
        m.transcript.drain(..excess);
        m.transcript_has_more = true;
    }
    state.mark().run = true;
}

/// An older page goes in front of the teammate's transcript only while that transcript
/// still starts where the page ends: a page for a conversation left, a teammate gone, or
/// a transcript another page already extended is stale and dropped (counted).
pub(super) fn transcript_page(state: &mut ChatState, page: TranscriptPage) {
    let member = state
        .team
        .as_mut()
        .and_then(|t| t.members.iter_mut().find(|m| m.id == page.agent_id))
        .filter(|m| m.transcript.first().is_some_and(|l| l.id == page.before));
    let Some(m) = member else {
        state.diagnostics.stale_pages += 1;
        state.mark().run = true;
        return;
    };
    let room = TRANSCRIPT_MAX.saturating_sub(m.transcript.len());
    let mut lines: Vec<TranscriptLine> = page
        .lines
        .into_iter()
        .filter(|l| !m.transcript.iter().any(|t| t.id == l.id))
        .collect();
    // Full: the messages nearest the loaded ones are kept; the rest stay older messages.
    let cut = lines.len().saturating_sub(room);
    lines.drain(..cut);
    m.transcript_has_more = cut > 0 || page.has_more.unwrap_or(false);
    m.transcript.splice(0..0, lines);
    state.mark().run = true;
}

/// The runtime paused for a decision (`action.required`): the permission card of tool call
/// `item_id`, answered with `action_id`.
pub(super) fn action_required(
    state: &mut ChatState,
    item_id: &ItemId,
    request: RequestPermission,
    action_id: String,
    action_type: Option<String>,
    out: &mut Outcome,
) {
    permission_requested(state, item_id, request, out);
    if let Some(item) = state.item_mut(item_id) {
        if let EntryKind::ToolCall(call) = &mut item.entry.kind {
            if let Some(p) = call.permission.as_mut() {
                p.action_id = Some(action_id);
                p.action_type = action_type;
            }
        }
    }
}

/// The owner confirmed how an action ended: the card that asked shows it (and only now);
/// a question shows the answer the owner took.
pub(super) fn action_resolved(
    state: &mut ChatState,
    action_id: &str,
    outcome: PermissionOutcome,
    answer: Option<String>,
    answers: Option<JsonMap>,
    out: &mut Outcome,
) {
    if question_answered(state, action_id, answer) || input_answered(state, action_id, answers) {
        return;
    }
    let target = state.items().iter().find_map(|i| match &i.entry.kind {
        EntryKind::ToolCall(call)
            if call
                .permission
                .as_ref()
                .is_some_and(|p| p.action_id.as_deref() == Some(action_id)) =>
        {
            Some(i.entry.id.clone())
        }
        _ => None,
    });
    let Some(id) = target else {
        return out.warn(
            format!("action.resolved for unknown action {action_id}"),
            None,
        );
    };
    if let Some(item) = state.item_mut(&id) {
        item.permission_choice = None;
        if let EntryKind::ToolCall(call) = &mut item.entry.kind {
            if let Some(p) = call.permission.as_mut() {
                p.outcome = Some(outcome);
            }
            // A card of its own (no tool behind it) is done once decided; a tool call
            // goes on as its tool says.
            if call.tool_call.tool_call_id.0 == action_card_id(action_id) {
                call.tool_call.status = crate::protocol::acp::ToolCallStatus::Completed;
            }
        }
    }
}

/// The tool call id of the card an action about no tool call gets of its own: a decision
/// card, done once its owner confirms the decision.
pub fn action_card_id(action_id: &str) -> String {
    format!("action-{action_id}")
}

/// The question asked under `action_id` takes the owner's `answer` (a question the owner
/// closed without one stays unanswered: never guessed). Whether there was such a question.
fn question_answered(state: &mut ChatState, action_id: &str, answer: Option<String>) -> bool {
    let target = state.items().iter().find_map(|i| match &i.entry.kind {
        EntryKind::Note(Note::Question { action_id: a, .. }) if a == action_id => {
            Some(i.entry.id.clone())
        }
        _ => None,
    });
    let Some(id) = target else {
        return false;
    };
    if let Some(item) = state.item_mut(&id) {
        if let EntryKind::Note(Note::Question { answer: a, .. }) = &mut item.entry.kind {
            if answer.is_some() {
                *a = answer;
            }
        }
    }
    true
}

/// The structured input asked under `action_id` takes the owner's `answers` (by question
/// id, `{values, skipped}`); answered, or skipped when every question was. Without them it
/// stays pending: never guessed. Whether there was such an input.
fn input_answered(state: &mut ChatState, action_id: &str, answers: Option<JsonMap>) -> bool {
    let target = state.items().iter().find_map(|i| match &i.entry.kind {
        EntryKind::StructuredInput(s) if s.action_id.as_deref() == Some(action_id) => {
            Some(i.entry.id.clone())
        }
        _ => None,
    });
    let Some(id) = target else {
        return false;
    };
    let Some(answers) = answers else {
        return true;
    };
    if let Some(item) = state.item_mut(&id) {
        if let EntryKind::StructuredInput(input) = &mut item.entry.kind {
            input.take_answers(&answers);
        }
    }
    true
}

/// A sequence gap: `Some` while the client waits for the missing events (a visible
/// "resyncing" state), `None` once they came.
pub(super) fn resync(state: &mut ChatState, gap: Option<SequenceGap>, out: &mut Outcome) {
    if gap.is_some() && state.resync.is_none() {
        out.emit(ChatEvent::Diagnostic {
            kind: "sequence_gap",
            name: gap.as_ref().map(|g| g.run_id.clone()).unwrap_or_default(),
        });
    }
    state.resync = gap;
    state.mark().run = true;
}

/// A runtime diagnostic or metric: counted and reported to the host, never shown in the
/// conversation.
pub(super) fn diagnostic_fact(
    state: &mut ChatState,
    kind: &'static str,
    name: String,
    out: &mut Outcome,
) {
    *state
        .diagnostics
        .facts
        .entry(format!("{kind}:{name}"))
        .or_insert(0) += 1;
    out.emit(ChatEvent::Diagnostic { kind, name });
}
