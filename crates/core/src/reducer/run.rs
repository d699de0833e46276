//! The run-level inputs of multi-agent harnesses: liveness, the agent that owns the bubbles,
//! the coordinator's plan, recoverable errors, budget stops, and what the client did not
//! understand.

use super::outcome::Outcome;
use super::state::{
    AgentInfo, Budget, ChatState, Orchestration, OrchestrationUpdate, RunError, Unrecognized,
};
use crate::host_events::{ChatError, ChatEvent, ErrorKind};

pub(super) fn alive(state: &mut ChatState, at_ms: f64) {
    if state.turn.is_some() {
        state.last_event_ms = Some(at_ms);
        state.mark().liveness = true;
    }
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
