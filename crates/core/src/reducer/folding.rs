//! The conversation list as views show it: the visible items, with the settled tool calls of
//! a finished turn folded under one summary line.

use super::state::{ChatState, EntryState, ToolCallState};
use crate::model::EntryKind;
use crate::protocol::chatkit::ItemId;

/// One entry of the conversation list: an item, or the summary line of a finished turn's
/// consecutive tool calls, which then follow as folded entries (still one entry each, so
/// folding a run re-renders none of them).
#[derive(Debug)]
pub enum Listed<'a> {
    Item(&'a EntryState),
    /// The summary of two or more tool calls, none running or asking, of a turn that is
    /// over; the calls follow it as [`Listed::Folded`].
    Summary(Vec<&'a EntryState>),
    /// A tool call folded into the summary before it.
    Folded(&'a EntryState),
}

/// The visible items as the list shows them. A run of tool calls is folded once its turn
/// is over (no answer streams, or a later user message started another turn) and every
/// call in it has settled; a run error shown after a call ends the run there, so the
/// error keeps its place.
pub fn listed(state: &ChatState) -> Vec<Listed<'_>> {
    let items: Vec<&EntryState> = state.visible_items().collect();
    let last_user = items
        .iter()
        .rposition(|i| matches!(i.entry.kind, EntryKind::UserMessage(_)));
    let turn_over = |end: usize| !state.is_streaming() || last_user.is_some_and(|u| end < u);
    let settled = |i: &EntryState| {
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
            if anchors.contains(&items[end - 1].entry.id) {
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
    pub fn of<'a>(calls: impl IntoIterator<Item = &'a EntryState>) -> Self {
        let mut summary = ToolCallSummary::default();
        for state in calls.into_iter().filter_map(EntryState::tool_call_state) {
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
