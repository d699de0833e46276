//! The pure reducer: `reduce(state, input) -> Outcome { effects, warnings }`.
//!
//! Every server event and every client-side happening (send, stop, stream end, load) is
//! an [`Input`]; one exhaustive `match` sends each to a named function. Nothing here does
//! I/O or touches the DOM, and nothing panics or ends the stream: surprises become
//! warnings or visible error state. Side effects come back as [`Effect`] values that the
//! browser runtime carries out.
//!
//! The files, each building only on those after it:
//!
//! - `conversation`: what an answer stream says, sent on; the open thread and its notices.
//! - `turn`: a turn's life (send, retry, edit, end, failure, Stop).
//! - `items`: the items as streams change them, and the client tool calls queued.
//! - `team`, `queue`: the Agent UI team and its decisions; queue and steer.
//! - `tool_calls`: tool calls and permission cards, plans, thoughts, elicitations.
//! - `run`: run-level facts (owner agent, orchestration, errors, budget, liveness).
//! - `folding`: the list as views show it, finished tool calls folded.
//! - `input`, `outcome`: what the reducer takes and gives back.
//! - `state`: the state the views read, types only; it imports none of the above.

mod conversation;
mod folding;
mod input;
mod items;
mod outcome;
mod queue;
mod run;
mod state;
mod team;
mod tool_calls;
mod turn;

pub use crate::model::GHOST_OPTION;
pub use folding::{listed, Listed, ToolCallSummary};
pub use input::{Input, ItemChange, OutgoingMessage, Streamed};
pub use items::assistant_text;
pub use outcome::{Effect, Outcome, Warning};
pub use state::{
    status_rank, AgentInfo, Budget, Changes, ChatState, Diagnostics, EntryState, ItemStatus,
    Member, MemberUpdate, Notice, OlderPages, Orchestration, OrchestrationStep,
    OrchestrationUpdate, PermissionState, Progress, QueuedTurn, RunError, RunQueue, SequenceGap,
    Team, ThreadInfo, ToolCallMark, ToolCallState, TranscriptLine, TranscriptPage, Turn, TurnError,
    Unrecognized, TRANSCRIPT_MAX,
};
pub use team::action_card_id;

use crate::host_events::ChatEvent;

/// Fold one input into the state.
pub fn reduce(state: &mut ChatState, input: Input) -> Outcome {
    let mut out = Outcome::default();
    match input {
        Input::Stream(event) => conversation::streamed(state, event, &mut out),
        Input::Malformed(error) => conversation::malformed(state, error, &mut out),
        Input::SendStarted(message) => turn::send_started(state, message, &mut out),
        Input::TurnStarted => turn::turn_started(state, &mut out),
        Input::RetryStarted { user_message } => turn::retry_started(state, &user_message, &mut out),
        Input::EditStarted { edited, message } => {
            turn::edit_started(state, &edited, message, &mut out)
        }
        Input::StreamEnded => turn::stream_ended(state, &mut out),
        Input::StreamFailed {
            message,
            allow_retry,
        } => turn::stream_failed(state, message, allow_retry, &mut out),
        Input::Cancelled => turn::cancelled(state, &mut out),
        Input::ThreadLoaded { thread, items } => {
            conversation::thread_loaded(state, thread, items, &mut out)
        }
        Input::OlderItems(page) => conversation::older_items(state, page, &mut out),
        Input::OlderRequested => conversation::older_requested(state),
        Input::OlderEnded => conversation::older_ended(state),
        Input::Reset => conversation::reset(state, &mut out),
        Input::NoticeDismissed(id) => conversation::notice_dismissed(state, id),
        Input::ItemSynced(item) => items::item_synced(state, item, &mut out),
        Input::Alive { at_ms } => run::alive(state, at_ms),
        Input::ToolResult {
            item_id,
            success,
            output,
        } => tool_calls::tool_result(state, item_id, success, output, &mut out),
        Input::RunError { message, code } => run::run_error(state, message, code, &mut out),
        Input::RunFailed { message, code } => turn::run_failed(state, message, code, &mut out),
        Input::AgentState(value) => {
            out.emit(ChatEvent::AgentState {
                state: value.clone(),
            });
            state.agent_state = Some(value);
        }
        Input::ItemsReplaced(entries) => items::items_replaced(state, entries),
        Input::BranchesMarked(marks) => items::branches_marked(state, marks),
        Input::ForHost(event) => out.emit(event),
        Input::BudgetExhausted { message } => run::budget_exhausted(state, message, &mut out),
        Input::AgentChanged(agent) => run::agent_changed(state, agent),
        Input::Orchestration(update) => run::orchestration(state, update),
        Input::PermissionChosen { item_id, option_id } => {
            tool_calls::permission_chosen(state, item_id, option_id, &mut out)
        }
        Input::PermissionNotSent { item_id, message } => {
            tool_calls::permission_not_sent(state, item_id, message, &mut out)
        }
        Input::Unrecognized(what) => run::unrecognized(state, what, &mut out),
        Input::TeamChanged { name, topology } => team::team_changed(state, name, topology),
        Input::MemberChanged(update) => team::member_changed(state, update),
        Input::TranscriptPage(page) => team::transcript_page(state, page),
        Input::ActionRequired {
            item_id,
            request,
            action_id,
            action_type,
        } => team::action_required(state, &item_id, request, action_id, action_type, &mut out),
        Input::ActionResolved {
            action_id,
            outcome,
            answer,
            answers,
        } => team::action_resolved(state, &action_id, outcome, answer, answers, &mut out),
        Input::Resync(gap) => team::resync(state, gap, &mut out),
        Input::DiagnosticFact { kind, name } => team::diagnostic_fact(state, kind, name, &mut out),
        Input::RunControls { run_id, controls } => queue::run_controls(state, run_id, controls),
        Input::QueueChanged(queued) => queue::queue_changed(state, queued),
        Input::QueuedTurnStarted { turn, run_id } => queue::turn_started(state, turn, &run_id),
    }
    out
}
