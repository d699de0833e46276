//! Agent runs: ACP tool calls, permission requests, plans and thoughts, and the run-level
//! state of multi-agent harnesses (agent ownership, orchestration, recoverable errors,
//! budget stops, liveness, diagnostics). The state types the views render, and one named
//! function per input or item change; `mod.rs` and `conversation.rs` dispatch to them.

use super::state::{ChatState, ItemState, ItemStatus};
use super::{Effect, Outcome};
use crate::host_events::{ChatError, ChatEvent, ErrorKind};
use crate::model::{Entry, EntryKind, Permission, Plan, Thought, ToolCall as ToolCallEntry};
use crate::protocol::acp::{
    ContentBlock, ElicitationOutcome, PermissionOptionId, PermissionOutcome, PlanEntry,
    RequestPermission, ToolCall, ToolCallId, ToolCallStatus, ToolCallUpdate,
};
use crate::protocol::chatkit::ItemId;
use serde_json::Value;
use std::collections::BTreeMap;

/// What a view shows for an ACP tool call: the agent's four statuses plus what only the
/// client knows. [`ToolCallState::as_str`] is the `data-status` a view puts on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ToolCallState {
    Pending,
    InProgress,
    Completed,
    Failed,
    /// The agent asked permission and no decision is confirmed yet.
    AwaitingPermission,
    /// The server confirmed a `reject_*` option.
    Rejected,
    /// The permission request was answered `cancelled` (the user pressed Stop, or the
    /// server said so).
    Cancelled,
    /// The run ended while the call was unfinished: its outcome is unknown.
    Interrupted,
    /// A status this client does not know, or a result without `success`: never guessed
    /// as pending or done.
    Unknown,
}

impl ToolCallState {
    /// The `data-status` value.
    pub fn as_str(self) -> &'static str {
        match self {
            ToolCallState::Pending => "pending",
            ToolCallState::InProgress => "in_progress",
            ToolCallState::Completed => "completed",
            ToolCallState::Failed => "failed",
            ToolCallState::AwaitingPermission => "awaiting_permission",
            ToolCallState::Rejected => "rejected",
            ToolCallState::Cancelled => "cancelled",
            ToolCallState::Interrupted => "interrupted",
            ToolCallState::Unknown => "unknown",
        }
    }

    /// Still running (a spinner): nothing else may show one.
    pub fn is_running(self) -> bool {
        matches!(self, ToolCallState::Pending | ToolCallState::InProgress)
    }
}

/// What the client adds to a tool call's agent status. A later status from the server
/// clears it: the server knows better.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ToolCallMark {
    /// The run ended while the call was pending or in progress.
    Interrupted,
    /// A result came without saying whether it succeeded.
    OutcomeUnknown,
}

/// Where a permission card is.
#[derive(Clone, Debug, PartialEq)]
pub enum PermissionState<'a> {
    /// Waiting for the user; `sent` is the option picked and sent, not yet confirmed.
    Asking {
        sent: Option<&'a PermissionOptionId>,
    },
    /// The server confirmed this outcome (or the client answered `cancelled` on Stop).
    Decided(&'a PermissionOutcome),
}

impl ItemState {
    /// The state of an ACP tool call item (`None` for other items). A pending permission
    /// request wins, then a confirmed reject or cancel, then the client's mark, then the
    /// agent's status; an unknown status is `Unknown`.
    pub fn tool_call_state(&self) -> Option<ToolCallState> {
        let EntryKind::ToolCall(item) = &self.item.kind else {
            return None;
        };
        if let Some(permission) = &item.permission {
            match &permission.outcome {
                None => return Some(ToolCallState::AwaitingPermission),
                Some(PermissionOutcome::Cancelled) => return Some(ToolCallState::Cancelled),
                Some(PermissionOutcome::Selected { option_id })
                    if permission
                        .option(option_id)
                        .is_some_and(|o| o.kind.is_reject()) =>
                {
                    return Some(ToolCallState::Rejected)
                }
                Some(PermissionOutcome::Selected { .. } | PermissionOutcome::Other(_)) => {}
            }
        }
        Some(match self.tool_mark {
            Some(ToolCallMark::Interrupted) => ToolCallState::Interrupted,
            Some(ToolCallMark::OutcomeUnknown) => ToolCallState::Unknown,
            None => match &item.tool_call.status {
                ToolCallStatus::Pending => ToolCallState::Pending,
                ToolCallStatus::InProgress => ToolCallState::InProgress,
                ToolCallStatus::Completed => ToolCallState::Completed,
                ToolCallStatus::Failed => ToolCallState::Failed,
                ToolCallStatus::Unknown(_) => ToolCallState::Unknown,
            },
        })
    }

    /// The permission card of an ACP tool call item, if the agent asked.
    pub fn permission_state(&self) -> Option<PermissionState<'_>> {
        let EntryKind::ToolCall(item) = &self.item.kind else {
            return None;
        };
        let permission = item.permission.as_ref()?;
        Some(match &permission.outcome {
            Some(outcome) => PermissionState::Decided(outcome),
            None => PermissionState::Asking {
                sent: self.permission_choice.as_ref(),
            },
        })
    }
}

/// The agent that owns a bubble.
#[derive(Clone, Debug, PartialEq)]
pub struct AgentInfo {
    /// What to show ("researcher").
    pub name: String,
    pub id: Option<String>,
    /// Everything the server sent about it.
    pub payload: Option<Value>,
}

/// The coordinator's view of a multi-agent run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Orchestration {
    pub group_id: Option<String>,
    /// The latest status line ("Delegating to researcher").
    pub status: Option<String>,
    /// The latest plan; an update without one keeps it.
    pub plan: Vec<OrchestrationStep>,
    /// The last payload as sent, for views that know more of it.
    pub payload: Option<Value>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrchestrationStep {
    pub title: String,
    pub status: Option<String>,
    pub agent: Option<String>,
}

/// One `orchestration` event, as the adapter read it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OrchestrationUpdate {
    pub group_id: Option<String>,
    pub status: Option<String>,
    /// `None`: the plan is unchanged.
    pub plan: Option<Vec<OrchestrationStep>>,
    pub payload: Option<Value>,
}

/// A recoverable error inside a run, shown inline.
#[derive(Clone, Debug, PartialEq)]
pub struct RunError {
    /// Unique for the element's life, for keyed views.
    pub id: u64,
    /// As the server said it; may be empty (then the view says "error" with the code).
    pub message: String,
    pub code: Option<String>,
    /// Shown after this item, or at the start.
    pub after_item: Option<ItemId>,
}

/// Why the harness stopped the run (the message names the limit).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Budget {
    pub message: String,
}

/// Something the client did not understand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unrecognized {
    /// An event of a type it does not know.
    EventType(String),
    /// A field it does not know on an event of a type it knows.
    Field { event_type: String, field: String },
}

/// Counters of what was not understood; the first of each name is also a
/// `chat.diagnostic` event.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diagnostics {
    pub unknown_types: BTreeMap<String, u64>,
    /// Keyed `type.field`.
    pub unknown_fields: BTreeMap<String, u64>,
    /// Runtime diagnostics and metrics (Agent UI `diagnostic.changed`, `metric.changed`),
    /// keyed `kind:name`: reported to the host, never shown in the conversation.
    pub facts: BTreeMap<String, u64>,
    /// Older transcript pages that arrived after the transcript moved on (dropped).
    pub stale_pages: u64,
}

impl Diagnostics {
    pub fn is_empty(&self) -> bool {
        self.unknown_types.is_empty()
            && self.unknown_fields.is_empty()
            && self.facts.is_empty()
            && self.stale_pages == 0
    }
}

// ---- inputs -------------------------------------------------------------------------

pub(super) fn alive(state: &mut ChatState, at_ms: f64) {
    if state.turn.is_some() {
        state.last_event_ms = Some(at_ms);
        state.mark().liveness = true;
    }
}

pub(super) fn tool_result(
    state: &mut ChatState,
    item_id: ItemId,
    success: Option<bool>,
    output: Option<Value>,
    out: &mut Outcome,
) {
    let update = ToolCallUpdate {
        tool_call_id: ToolCallId(item_id.0.clone()),
        status: success.map(|ok| {
            if ok {
                ToolCallStatus::Completed
            } else {
                ToolCallStatus::Failed
            }
        }),
        raw_output: output,
        ..ToolCallUpdate::default()
    };
    let Some(item) = tool_call_item(state, &item_id, update.clone(), out) else {
        return;
    };
    let EntryKind::ToolCall(call) = &mut item.item.kind else {
        return;
    };
    call.tool_call.apply(update);
    item.tool_mark = success.is_none().then_some(ToolCallMark::OutcomeUnknown);
}

pub(super) fn run_error(
    state: &mut ChatState,
    message: String,
    code: Option<String>,
    out: &mut Outcome,
) {
    out.emit(ChatEvent::Error(ChatError {
        code: code.clone(),
        ..ChatError::new(ErrorKind::Run, message.clone())
    }));
    let id = state.next_notice;
    state.next_notice += 1;
    let after_item = state.last_item_id().cloned();
    state.run_errors.push(RunError {
        id,
        message,
        code,
        after_item,
    });
    state.mark().run = true;
}

pub(super) fn budget_exhausted(state: &mut ChatState, message: String, out: &mut Outcome) {
    out.emit(ChatEvent::BudgetExhausted {
        message: message.clone(),
    });
    state.budget = Some(Budget { message });
    state.mark().run = true;
}

pub(super) fn agent_changed(state: &mut ChatState, mut agent: AgentInfo) {
    // Named only by its id (a later stream of the run does not repeat the name): the
    // roster may know the name.
    if agent.id.as_deref() == Some(agent.name.as_str()) {
        if let Some(name) = state
            .team
            .as_ref()
            .and_then(|t| t.member(&agent.name))
            .and_then(|m| m.name.clone())
        {
            agent.name = name;
        }
    }
    state.agent = Some(agent);
    state.mark().run = true;
}

pub(super) fn orchestration(state: &mut ChatState, update: OrchestrationUpdate) {
    let o = state
        .orchestration
        .get_or_insert_with(Orchestration::default);
    if update.group_id.is_some() {
        o.group_id = update.group_id;
    }
    if update.status.is_some() {
        o.status = update.status;
    }
    if let Some(plan) = update.plan {
        o.plan = plan;
    }
    if update.payload.is_some() {
        o.payload = update.payload;
    }
    state.mark().run = true;
}

pub(super) fn unrecognized(state: &mut ChatState, what: Unrecognized, out: &mut Outcome) {
    let (counts, kind, name) = match what {
        Unrecognized::EventType(name) => {
            (&mut state.diagnostics.unknown_types, "unknown_type", name)
        }
        Unrecognized::Field { event_type, field } => (
            &mut state.diagnostics.unknown_fields,
            "unknown_field",
            format!("{event_type}.{field}"),
        ),
    };
    let count = counts.entry(name.clone()).or_insert(0);
    *count += 1;
    if *count == 1 {
        out.emit(ChatEvent::Diagnostic { kind, name });
    }
    state.mark().run = true;
}

/// The user picked an option on a permission card: send it, and wait for the server to
/// confirm before showing it as decided.
pub(super) fn permission_chosen(
    state: &mut ChatState,
    item_id: ItemId,
    option_id: PermissionOptionId,
    out: &mut Outcome,
) {
    let Some(item) = state.item(&item_id) else {
        return out.warn(
            format!("permission choice for unknown item {item_id}"),
            None,
        );
    };
    let EntryKind::ToolCall(call) = &item.item.kind else {
        return out.warn(
            format!("permission choice for item {item_id}, not a tool call"),
            None,
        );
    };
    let asking = call
        .permission
        .as_ref()
        .filter(|p| p.outcome.is_none() && item.permission_choice.is_none());
    let Some(permission) = asking else {
        return out.warn(
            format!("permission choice for item {item_id}, which is not asking"),
            None,
        );
    };
    if permission.option(&option_id).is_none() {
        return out.warn(
            format!(
                "permission choice `{}` not offered by item {item_id}",
                option_id.0
            ),
            None,
        );
    }
    let tool_call_id = call.tool_call.tool_call_id.clone();
    if let Some(item) = state.item_mut(&item_id) {
        item.permission_choice = Some(option_id.clone());
    }
    out.effects.push(Effect::AnswerPermission {
        item_id,
        tool_call_id,
        outcome: PermissionOutcome::Selected { option_id },
    });
}

/// A permission answer did not reach the server (or the server refused it): the card asks
/// again, its buttons usable, and the reason shows after the call. Nothing is decided.
pub(super) fn permission_not_sent(
    state: &mut ChatState,
    item_id: ItemId,
    message: String,
    out: &mut Outcome,
) {
    let Some(item) = state.item_mut(&item_id) else {
        return;
    };
    if item.permission_choice.take().is_none() {
        return;
    }
    run_error(state, message, Some("permission.not_sent".into()), out);
    if let Some(last) = state.run_errors.last_mut() {
        last.after_item = Some(item_id);
    }
}

/// A run's stream failed: choices it carried, not confirmed, are undone, so the cards
/// ask again rather than wait forever on an answer that went nowhere.
pub(super) fn unsend_permissions(state: &mut ChatState) {
    let sent: Vec<ItemId> = state
        .items()
        .iter()
        .filter(|i| i.permission_choice.is_some())
        .map(|i| i.item.id.clone())
        .collect();
    for id in sent {
        if let Some(item) = state.item_mut(&id) {
            item.permission_choice = None;
        }
    }
}

// ---- item changes of tool calls, plans and thoughts ---------------------------------

pub(super) fn tool_call_updated(
    state: &mut ChatState,
    item_id: &ItemId,
    update: ToolCallUpdate,
    out: &mut Outcome,
) {
    let status_sent = update.status.is_some();
    let Some(item) = tool_call_item(state, item_id, update.clone(), out) else {
        return;
    };
    if let EntryKind::ToolCall(call) = &mut item.item.kind {
        call.tool_call.apply(update);
    }
    if status_sent {
        item.tool_mark = None;
    }
}

pub(super) fn permission_requested(
    state: &mut ChatState,
    item_id: &ItemId,
    request: RequestPermission,
    out: &mut Outcome,
) {
    let RequestPermission {
        tool_call, options, ..
    } = request;
    let Some(item) = tool_call_item(state, item_id, tool_call.clone(), out) else {
        return;
    };
    if let EntryKind::ToolCall(call) = &mut item.item.kind {
        call.tool_call.apply(tool_call);
        call.permission = Some(Permission {
            options,
            outcome: None,
            action_id: None,
            action_type: None,
        });
    }
    item.permission_choice = None;
}

pub(super) fn permission_resolved(
    state: &mut ChatState,
    item_id: &ItemId,
    outcome: PermissionOutcome,
    out: &mut Outcome,
) {
    let Some(item) = state.item_mut(item_id) else {
        return out.warn(
            format!("permission outcome for unknown item {item_id}"),
            None,
        );
    };
    let EntryKind::ToolCall(call) = &mut item.item.kind else {
        return out.warn(
            format!("permission outcome for item {item_id}, not a tool call"),
            None,
        );
    };
    if call.permission.is_none() {
        out.warn(
            format!("permission outcome for item {item_id}, which never asked"),
            None,
        );
    }
    call.permission
        .get_or_insert_with(Permission::default)
        .outcome = Some(outcome);
    item.permission_choice = None;
}

pub(super) fn elicitation_resolved(
    state: &mut ChatState,
    item_id: &ItemId,
    outcome: ElicitationOutcome,
    out: &mut Outcome,
) {
    match state.item_mut(item_id).map(|i| &mut i.item.kind) {
        Some(EntryKind::Elicitation(e)) => e.outcome = Some(outcome),
        Some(_) => out.warn(
            format!("elicitation outcome for item {item_id}, not an elicitation"),
            None,
        ),
        None => out.warn(
            format!("elicitation outcome for unknown item {item_id}"),
            None,
        ),
    }
}

pub(super) fn plan_updated(
    state: &mut ChatState,
    item_id: &ItemId,
    entries: Vec<PlanEntry>,
    out: &mut Outcome,
) {
    match state.item(item_id).map(|i| &i.item.kind) {
        Some(EntryKind::Plan(_)) => {
            if let Some(EntryKind::Plan(p)) = state.item_mut(item_id).map(|i| &mut i.item.kind) {
                p.entries = entries;
            }
        }
        Some(_) => out.warn(format!("plan update for item {item_id}, not a plan"), None),
        None => new_item(state, item_id, EntryKind::Plan(Plan { entries })),
    }
}

pub(super) fn thought_chunk(
    state: &mut ChatState,
    item_id: &ItemId,
    content: ContentBlock,
    out: &mut Outcome,
) {
    let Some(text) = content.text() else {
        return out.warn(
            format!("non-text thought chunk for item {item_id} ignored"),
            serde_json::to_string(&content).ok(),
        );
    };
    match state.item(item_id).map(|i| &i.item.kind) {
        Some(EntryKind::Thought(_)) => {
            if let Some(EntryKind::Thought(t)) = state.item_mut(item_id).map(|i| &mut i.item.kind) {
                t.text.push_str(text);
            }
        }
        Some(_) => out.warn(
            format!("thought chunk for item {item_id}, not a thought"),
            None,
        ),
        None => {
            let text = text.to_owned();
            new_item(state, item_id, EntryKind::Thought(Thought { text }));
        }
    }
}

/// The tool call item an update goes to. Another kind of item: none, with a warning. An
/// unknown id: a new, visible tool call made from the update, so nothing is dropped.
fn tool_call_item<'a>(
    state: &'a mut ChatState,
    item_id: &ItemId,
    update: ToolCallUpdate,
    out: &mut Outcome,
) -> Option<&'a mut ItemState> {
    match state.item(item_id).map(|i| &i.item.kind) {
        Some(EntryKind::ToolCall(_)) => {}
        Some(_) => {
            out.warn(
                format!("tool call update for item {item_id}, not a tool call, ignored"),
                None,
            );
            return None;
        }
        None => {
            let mut tool_call = ToolCall::from_update(update);
            // What it would become is the update's job, applied by the caller.
            tool_call.status = ToolCallStatus::Pending;
            new_item(
                state,
                item_id,
                EntryKind::ToolCall(ToolCallEntry {
                    tool_call,
                    permission: None,
                }),
            );
        }
    }
    state.item_mut(item_id)
}

/// Add an item the stream only addressed by an update: live, owned by the current agent.
fn new_item(state: &mut ChatState, item_id: &ItemId, kind: EntryKind) {
    let thread_id = state.thread_id().cloned();
    let mut item = ItemState::new(
        Entry {
            branches: Vec::new(),
            id: item_id.clone(),
            thread_id,
            created_at: String::new(),
            kind,
        },
        ItemStatus::Streaming,
    );
    item.live = true;
    item.agent = state.agent.clone();
    state.upsert_item(item);
}

// ---- the end of a run ---------------------------------------------------------------

/// The run ended (cleanly, failed or stopped): tool calls still pending or in progress
/// did not finish as far as anyone knows. A call waiting for permission keeps waiting (a
/// server may pause the stream for the answer); Stop cancels those first.
pub(super) fn interrupt_tool_calls(state: &mut ChatState) {
    let unfinished: Vec<ItemId> = state
        .items()
        .iter()
        .filter(|i| left_unfinished(i))
        .map(|i| i.item.id.clone())
        .collect();
    for id in unfinished {
        if let Some(item) = state.item_mut(&id) {
            item.tool_mark = Some(ToolCallMark::Interrupted);
        }
    }
}

/// A tool call no run will finish any more (its run ended, or it was read from history)
/// that its server last said was pending or in progress, and that is not asking
/// permission: its outcome is unknown, so it is marked interrupted rather than left
/// spinning forever.
pub(super) fn left_unfinished(i: &ItemState) -> bool {
    i.tool_mark.is_none()
        && matches!(&i.item.kind, EntryKind::ToolCall(c)
            if c.tool_call.status.is_unfinished()
                && c.permission.as_ref().is_none_or(|p| p.outcome.is_some()))
}

/// Stop: every permission request still asking is answered `cancelled` (ACP requires
/// it), an unconfirmed choice included, since its request is aborted with the stream.
pub(super) fn cancel_permissions(state: &mut ChatState, out: &mut Outcome) {
    let asking: Vec<ItemId> = state
        .items()
        .iter()
        .filter(|i| {
            matches!(&i.item.kind, EntryKind::ToolCall(c)
                if c.permission.as_ref().is_some_and(|p| p.outcome.is_none()))
        })
        .map(|i| i.item.id.clone())
        .collect();
    for id in asking {
        let Some(item) = state.item_mut(&id) else {
            continue;
        };
        item.permission_choice = None;
        let EntryKind::ToolCall(call) = &mut item.item.kind else {
            continue;
        };
        if let Some(permission) = call.permission.as_mut() {
            permission.outcome = Some(PermissionOutcome::Cancelled);
        }
        out.effects.push(Effect::AnswerPermission {
            item_id: id,
            tool_call_id: call.tool_call.tool_call_id.clone(),
            outcome: PermissionOutcome::Cancelled,
        });
    }
}

/// What an item the server sends again (done, replaced, re-added) keeps of the client's
/// knowledge: its agent, and for the same tool call the marks, unless the server now
/// says where the call is.
pub(super) fn carry_local(previous: Option<&ItemState>, next: &mut ItemState) {
    let Some(previous) = previous else {
        return;
    };
    next.agent = previous.agent.clone();
    if let (EntryKind::ToolCall(before), EntryKind::ToolCall(after)) =
        (&previous.item.kind, &next.item.kind)
    {
        if before.tool_call.status == after.tool_call.status {
            next.tool_mark = previous.tool_mark;
        }
        let still_asking = after
            .permission
            .as_ref()
            .is_some_and(|p| p.outcome.is_none());
        if still_asking {
            next.permission_choice = previous.permission_choice.clone();
        }
    }
}

/// One entry of the conversation list: an item, or the summary line of a finished turn's
/// consecutive tool calls, which then follow as folded entries (still one entry each, so
/// folding a run re-renders none of them).
#[derive(Debug)]
pub enum Listed<'a> {
    Item(&'a ItemState),
    /// The summary of two or more tool calls, none running or asking, of a turn that is
    /// over; the calls follow it as [`Listed::Folded`].
    Summary(Vec<&'a ItemState>),
    /// A tool call folded into the summary before it.
    Folded(&'a ItemState),
}

/// The visible items as the list shows them. A run of tool calls is folded once its turn
/// is over (no answer streams, or a later user message started another turn) and every
/// call in it has settled; a run error shown after a call ends the run there, so the
/// error keeps its place.
pub fn listed(state: &ChatState) -> Vec<Listed<'_>> {
    let items: Vec<&ItemState> = state.visible_items().collect();
    let last_user = items
        .iter()
        .rposition(|i| matches!(i.item.kind, EntryKind::UserMessage(_)));
    let turn_over = |end: usize| !state.is_streaming() || last_user.is_some_and(|u| end < u);
    let settled = |i: &ItemState| {
        i.tool_call_state()
            .is_some_and(|s| !s.is_running() && s != ToolCallState::AwaitingPermission)
    };
    let anchors: std::collections::HashSet<&ItemId> = state
        .run_errors
        .iter()
        .filter_map(|e| e.after_item.as_ref())
        .collect();
    let mut out = Vec::with_capacity(items.len() + 1);
    let mut at = 0;
    while at < items.len() {
        // The turn still answering folds nothing: no need to look at its calls.
        if !turn_over(at) {
            out.extend(items[at..].iter().map(|i| Listed::Item(i)));
            break;
        }
        let mut end = at;
        while end < items.len() && settled(items[end]) {
            end += 1;
            if anchors.contains(&items[end - 1].item.id) {
                break;
            }
        }
        if end - at >= 2 && turn_over(end - 1) {
            out.push(Listed::Summary(items[at..end].to_vec()));
            out.extend(items[at..end].iter().map(|i| Listed::Folded(i)));
            at = end;
        } else {
            out.push(Listed::Item(items[at]));
            at += 1;
        }
    }
    out
}

/// What a folded run of tool calls says of itself: "7 tool calls · 2 failed".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ToolCallSummary {
    pub calls: usize,
    /// Failed, rejected or cancelled.
    pub failed: usize,
    /// Interrupted or of unknown outcome: never counted as done or failed.
    pub unknown: usize,
}

impl ToolCallSummary {
    pub fn of<'a>(calls: impl IntoIterator<Item = &'a ItemState>) -> Self {
        let mut summary = ToolCallSummary::default();
        for state in calls.into_iter().filter_map(ItemState::tool_call_state) {
            summary.calls += 1;
            match state {
                ToolCallState::Failed | ToolCallState::Rejected | ToolCallState::Cancelled => {
                    summary.failed += 1
                }
                ToolCallState::Interrupted | ToolCallState::Unknown => summary.unknown += 1,
                _ => {}
            }
        }
        summary
    }
}
