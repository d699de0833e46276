//! `POST /agent-ui`: the Agent UI event envelope ([Agent UI's flow and taxonomy](https://limecloud.github.io/agentui/en/reference/flow-and-taxonomy),
//! "Event envelope") that chat-shell reads with `protocol="agent-ui"`. The request is the
//! one `/events` takes (`EventsRequest`) and is refused the same way (415, 413, 400); the
//! answer is `text/event-stream`, one `data: {envelope}` frame per event, `--pace-ms`
//! apart, and it ends after the last event (no `[DONE]`).
//!
//! The events are the golden logs of `tests/fixtures/agent-ui/`, sent as they are. A keyword
//! in the last user message picks the run ([`KEYWORDS`]); `gap` delivers its log broken (a
//! duplicate, then a hole). Controlled writes come in `metadata.agentUi`, and then the
//! conversation may end with the assistant (it is not a new turn):
//! - `{"respond": {"actionId": "act-deploy", "optionId": "approve" | "reject"}}` answers
//!   the approval run's `action.required`: the run goes on from sequence 7.
//! - `{"respond": {"actionId": "act-plan", "optionId": "approve" | "revise"}}` decides
//!   the plan run's plan: it runs, or the planner goes back to it.
//! - `{"respond": {"actionId": "act-input", "answers": {"channel": {"values": […],
//!   "skipped": false}, …}}}` answers the form run's structured input: the run confirms
//!   the answers it got and goes on.
//! - `{"respond": {"actionId": "act-clarify", "text": "…"}}` answers the clarify run's
//!   question: the run confirms the answer it got (`action.resolved` with that `text`)
//!   and goes on from sequence 7.
//! - `{"resume": {"runId": R, "after": N}}` asks again for run R's events after sequence N
//!   (a client that saw a gap).
//! - `{"history": {"sessionId": S, "before": M}}` asks for the messages of teammate session
//!   S before message M (the child run's analyst has older ones): answered with one
//!   `session.hydrated` envelope as JSON, at most [`HISTORY_PAGE`] messages, `hasMore` when
//!   older ones remain. It is no turn: the conversation may end anywhere.
//!
//! Like `/events` it keeps nothing: the logs are the runs. The exception is `long`, a
//! *live* run generated as it goes (see "Live runs" below): while it streams, a request
//! with `{"queue": {"runId": R}}` or `{"steer": {"runId": R}}` (the last user message is
//! the text) is answered 202 and shows up in that run's stream.
//!
//! `logs`: the golden logs and their keywords; `writes`: controlled writes and what a
//! request is answered with; `live`: the live runs' streams, `live_runs` where their
//! turns go.

mod live;
pub(crate) mod live_runs;
mod logs;
#[cfg(test)]
mod tests;
mod writes;

use live::*;
use live_runs::*;
pub use logs::KEYWORDS;
use logs::*;
use writes::*;

use crate::auth::User;
use crate::clients::{self, Client, Kind};
use crate::errors::{bad_request, json_error};
use crate::handlers::events;
use crate::handlers::request::logged;
use crate::sse::{sse, Frame};
use crate::state::AppState;
use axum::body::{Body, Bytes};
use axum::extract::rejection::BytesRejection;
use axum::extract::{Extension, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::mpsc;
use tokio::time::Instant as TokioInstant;

/// Starts a `long` run for `owner` on `thread_id`: its stream, written by its own task.
fn start_long(state: Arc<AppState>, owner: &str, thread_id: String) -> Response {
    let (tx, rx) = mpsc::channel::<Frame>(16);
    let (commands_tx, commands) = mpsc::unbounded_channel();
    let run = LiveRun::long(state.live.next_number(), thread_id);
    // Registered before the response goes out: a queue sent right after run.started finds it.
    state.live.register(&run.id, owner, &commands_tx, 0);
    let writer = LiveStream {
        owner: owner.to_owned(),
        tx,
        commands_tx,
        commands,
        queue: VecDeque::new(),
        run,
        next_at: TokioInstant::now(),
        last_write: TokioInstant::now(),
        shutdown: state.shutdown.clone(),
        sent: 0,
        state,
    };
    tokio::spawn(writer.write());
    sse(Body::from_stream(futures_util::stream::unfold(
        rx,
        |mut rx| async move { rx.recv().await.map(|frame| (frame, rx)) },
    )))
}

/// A queue or a steer for live run `run_id`: 202 with the turn's id, or 409.
fn submit(state: &AppState, owner: &str, kind: TurnKind, run_id: &str, text: String) -> Response {
    match state.live.submit(owner, run_id, kind, text) {
        Ok(turn_id) => (
            StatusCode::ACCEPTED,
            Json(json!({ "accepted": kind.as_str(), "runId": run_id, "turnId": turn_id })),
        )
            .into_response(),
        Err(Refused::NotActive) => json_error(
            StatusCode::CONFLICT,
            "run_not_active",
            &format!("run {run_id} is not active; send the message instead"),
        ),
        Err(Refused::QueueFull) => json_error(
            StatusCode::CONFLICT,
            "queue_full",
            &format!("run {run_id} already has {MAX_QUEUED} turns queued"),
        ),
    }
}

pub async fn agent_ui(
    State(state): State<Arc<AppState>>,
    // Every request has an identity (the guard's); only a live run is kept, for its owner.
    Extension(user): Extension<User>,
    Extension(client): Extension<Client>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let started = Instant::now();
    let log = |what: &str, response: Response| logged(PATH, what, started, response);
    let request = match events::read_request(PATH, &headers, body) {
        Ok(request) => request,
        Err(refused) => return log("-", refused),
    };
    let answer = answer(&request);
    // A streamed answer counts as a run of its client until its stream ends.
    let share = match &answer {
        Ok(Answer::Log(..) | Answer::Long) => match state.clients.take(Kind::Run, client) {
            Ok(share) => Some(share),
            Err(refused) => return log("-", state.clients.too_many(refused)),
        },
        _ => None,
    };
    let streamed = |response| match share {
        Some(share) => clients::held(response, share),
        None => response,
    };
    match answer {
        Err(message) => log("-", bad_request(&message)),
        Ok(Answer::Log(name, events)) => {
            let steps = paced(events, state.pace);
            log(
                &name,
                streamed(events::stream(
                    state.clone(),
                    "agent-ui",
                    name.clone(),
                    steps,
                )),
            )
        }
        Ok(Answer::Page(page)) => log("history", Json(page).into_response()),
        Ok(Answer::Long) => {
            let thread_id = request
                .thread_id
                .filter(|t| !t.is_empty())
                .unwrap_or_else(|| "thread-long".to_owned());
            log("long", streamed(start_long(state, &user.0, thread_id)))
        }
        Ok(Answer::Turn { kind, run_id, text }) => {
            let name = format!("{}:{run_id}", kind.as_str());
            log(&name, submit(&state, &user.0, kind, &run_id, text))
        }
    }
}
