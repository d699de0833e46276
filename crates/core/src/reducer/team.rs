//! Teams of agents (the Agent UI projection): the roster of teammates with their status as
//! the runtime states it, the team's name and topology, each teammate's lineage and the
//! messages of a child session that hydrated progressively. Team facts are owned by the
//! runtime: the client shows them, never derives them (one `idle` is not `completed`).

use super::state::ChatState;
use super::{ChatEvent, Outcome};
use crate::model::EntryKind;
use crate::protocol::acp::{PermissionOutcome, RequestPermission};
use crate::protocol::chatkit::{ItemId, Note};
use crate::protocol::JsonMap;

/// The team of the current thread, as the runtime described it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Team {
    pub name: Option<String>,
    /// `coordinator_team`, `parallel_workers`, `specialist_handoff`, … as given.
    pub topology: Option<String>,
    /// In order of first appearance (the view sorts by status).
    pub members: Vec<Member>,
}

/// One teammate.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Member {
    pub id: String,
    pub name: Option<String>,
    pub role: Option<String>,
    pub model: Option<String>,
    /// The runtime's word, as given (`running`, `needs_input`, `input_required`, …);
    /// `None` until it says one: shown as unknown.
    pub status: Option<String>,
    /// What the teammate said with its status ("Which release should I review?").
    pub message: Option<String>,
    pub remote: bool,
    pub session_id: Option<String>,
    pub parent_session_id: Option<String>,
    pub parent_thread_id: Option<String>,
    pub task_id: Option<String>,
    /// Messages of the teammate's own session (progressive hydration), oldest first,
    /// bounded to the last [`TRANSCRIPT_MAX`].
    pub transcript: Vec<TranscriptLine>,
    /// The session has older messages not loaded yet.
    pub transcript_has_more: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TranscriptLine {
    pub id: String,
    pub text: String,
}

/// How many messages of a teammate's session are kept (the recent window and the older
/// pages loaded on demand together).
pub const TRANSCRIPT_MAX: usize = 200;

/// An older page of a teammate's transcript, loaded on demand: the messages right before
/// message `before`, oldest first.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TranscriptPage {
    pub agent_id: String,
    pub before: String,
    pub lines: Vec<TranscriptLine>,
    /// The session has messages older still.
    pub has_more: Option<bool>,
}

impl Member {
    /// The name to show: its name, else its id.
    pub fn label(&self) -> &str {
        self.name.as_deref().unwrap_or(&self.id)
    }

    /// It waits on the user (needs input, input or auth required).
    pub fn needs_input(&self) -> bool {
        status_rank(self.status.as_deref()) == 0
    }
}

/// The roster's order: needs input > plan ready > failed > running > idle > done; a status
/// this client does not know sorts with running (it is work in progress as far as anyone
/// knows), a missing one last.
pub fn status_rank(status: Option<&str>) -> u8 {
    match status {
        Some("needs_input" | "input_required" | "auth_required" | "waiting_for_input") => 0,
        Some("plan_ready") => 1,
        Some("failed" | "killed" | "rejected" | "canceled" | "cancelled") => 2,
        Some("idle" | "sleeping" | "paused") => 4,
        Some("completed" | "done" | "closed") => 5,
        Some(_) => 3,
        None => 6,
    }
}

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

impl Team {
    /// The members by [`status_rank`], then in order of appearance.
    pub fn by_status(&self) -> Vec<&Member> {
        let mut members: Vec<&Member> = self.members.iter().collect();
        members.sort_by_key(|m| status_rank(m.status.as_deref()));
        members
    }

    pub fn member(&self, id: &str) -> Option<&Member> {
        self.members.iter().find(|m| m.id == id)
    }
}

/// A change to one teammate: only the fields given change.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MemberUpdate {
    pub id: String,
    pub name: Option<String>,
    pub role: Option<String>,
    pub model: Option<String>,
    pub status: Option<String>,
    pub message: Option<String>,
    pub remote: Option<bool>,
    pub team: Option<String>,
    pub session_id: Option<String>,
    pub parent_session_id: Option<String>,
    pub parent_thread_id: Option<String>,
    pub task_id: Option<String>,
    /// Messages of its session that hydrated, and whether older ones remain.
    pub transcript: Vec<TranscriptLine>,
    pub transcript_has_more: Option<bool>,
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
    super::run::permission_requested(state, item_id, request, out);
    if let Some(item) = state.item_mut(item_id) {
        if let EntryKind::ToolCall(call) = &mut item.item.kind {
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
    let target = state.items().iter().find_map(|i| match &i.item.kind {
        EntryKind::ToolCall(call)
            if call
                .permission
                .as_ref()
                .is_some_and(|p| p.action_id.as_deref() == Some(action_id)) =>
        {
            Some(i.item.id.clone())
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
        if let EntryKind::ToolCall(call) = &mut item.item.kind {
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
    let target = state.items().iter().find_map(|i| match &i.item.kind {
        EntryKind::Note(Note::Question { action_id: a, .. }) if a == action_id => {
            Some(i.item.id.clone())
        }
        _ => None,
    });
    let Some(id) = target else {
        return false;
    };
    if let Some(item) = state.item_mut(&id) {
        if let EntryKind::Note(Note::Question { answer: a, .. }) = &mut item.item.kind {
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
    let target = state.items().iter().find_map(|i| match &i.item.kind {
        EntryKind::StructuredInput(s) if s.action_id.as_deref() == Some(action_id) => {
            Some(i.item.id.clone())
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
        if let EntryKind::StructuredInput(input) = &mut item.item.kind {
            input.take_answers(&answers);
        }
    }
    true
}

/// A sequence gap: `Some` while the client waits for the missing events (a visible
/// "resyncing" state), `None` once they came.
pub(super) fn resync(state: &mut ChatState, gap: Option<super::SequenceGap>, out: &mut Outcome) {
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
