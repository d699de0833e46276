//! Tool calls and their permission requests, and the other agent items a stream may address
//! only by an update (plans, thoughts, elicitations): their item changes, the user's choices
//! on permission cards, and what the end of a run leaves of them.

use super::outcome::{Effect, Outcome};
use super::run::run_error;
use super::state::{ChatState, EntryState, ItemStatus, ToolCallMark};
use crate::model::{Entry, EntryKind, Permission, Plan, Thought, ToolCall as ToolCallEntry};
use crate::protocol::acp::{
    ContentBlock, ElicitationOutcome, PermissionOptionId, PermissionOutcome, PlanEntry,
    RequestPermission, ToolCall, ToolCallId, ToolCallStatus, ToolCallUpdate,
};
use crate::protocol::chatkit::ItemId;
use serde_json::Value;

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
    let EntryKind::ToolCall(call) = &mut item.entry.kind else {
        return;
    };
    call.tool_call.apply(update);
    item.tool_mark = success.is_none().then_some(ToolCallMark::OutcomeUnknown);
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
    let EntryKind::ToolCall(call) = &item.entry.kind else {
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
        .map(|i| i.entry.id.clone())
        .collect();
    for id in sent {
        if let Some(item) = state.item_mut(&id) {
            item.permission_choice = None;
        }
    }
}

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
    if let EntryKind::ToolCall(call) = &mut item.entry.kind {
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
    if let EntryKind::ToolCall(call) = &mut item.entry.kind {
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
    let EntryKind::ToolCall(call) = &mut item.entry.kind else {
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
    match state.item_mut(item_id).map(|i| &mut i.entry.kind) {
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
    match state.item(item_id).map(|i| &i.entry.kind) {
        Some(EntryKind::Plan(_)) => {
            if let Some(EntryKind::Plan(p)) = state.item_mut(item_id).map(|i| &mut i.entry.kind) {
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
    match state.item(item_id).map(|i| &i.entry.kind) {
        Some(EntryKind::Thought(_)) => {
            if let Some(EntryKind::Thought(t)) = state.item_mut(item_id).map(|i| &mut i.entry.kind)
            {
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
) -> Option<&'a mut EntryState> {
    match state.item(item_id).map(|i| &i.entry.kind) {
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
    let mut item = EntryState::new(
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

/// The run ended (cleanly, failed or stopped): tool calls still pending or in progress
/// did not finish as far as anyone knows. A call waiting for permission keeps waiting (a
/// server may pause the stream for the answer); Stop cancels those first.
pub(super) fn interrupt_tool_calls(state: &mut ChatState) {
    let unfinished: Vec<ItemId> = state
        .items()
        .iter()
        .filter(|i| left_unfinished(i))
        .map(|i| i.entry.id.clone())
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
pub(super) fn left_unfinished(i: &EntryState) -> bool {
    i.tool_mark.is_none()
        && matches!(&i.entry.kind, EntryKind::ToolCall(c)
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
            matches!(&i.entry.kind, EntryKind::ToolCall(c)
                if c.permission.as_ref().is_some_and(|p| p.outcome.is_none()))
        })
        .map(|i| i.entry.id.clone())
        .collect();
    for id in asking {
        let Some(item) = state.item_mut(&id) else {
            continue;
        };
        item.permission_choice = None;
        let EntryKind::ToolCall(call) = &mut item.entry.kind else {
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
pub(super) fn carry_local(previous: Option<&EntryState>, next: &mut EntryState) {
    let Some(previous) = previous else {
        return;
    };
    next.agent = previous.agent.clone();
    if let (EntryKind::ToolCall(before), EntryKind::ToolCall(after)) =
        (&previous.entry.kind, &next.entry.kind)
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
