//! `POST /agent-ui`: the Agent UI event envelope (`spec/agent-ui-flow-taxonomy.md`,
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

use crate::auth::User;
use crate::errors::{bad_request, json_error};
use crate::handlers::events::{self, Out};
use crate::routes;
use crate::scripts::pick_keyword;
use crate::sse::{pause, sse, Frame, Waited};
use crate::state::AppState;
use axum::body::{Body, Bytes};
use axum::extract::rejection::BytesRejection;
use axum::extract::{Extension, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use chat_shell_core::protocol::events::{EventsRequest, Role};
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, watch};
use tokio::time::Instant as TokioInstant;

const PATH: &str = "/agent-ui";

const STATUS: &str = include_str!("../../../../../tests/fixtures/agent-ui/status.jsonl");
const TEAM: &str = include_str!("../../../../../tests/fixtures/agent-ui/team.jsonl");
const APPROVAL: &str = include_str!("../../../../../tests/fixtures/agent-ui/approval.jsonl");
const APPROVED: &str =
    include_str!("../../../../../tests/fixtures/agent-ui/approval-approved.jsonl");
const GAP: &str = include_str!("../../../../../tests/fixtures/agent-ui/gap.jsonl");
const CHILD: &str = include_str!("../../../../../tests/fixtures/agent-ui/child.jsonl");
const CLARIFY: &str = include_str!("../../../../../tests/fixtures/agent-ui/clarify.jsonl");
const PLAN: &str = include_str!("../../../../../tests/fixtures/agent-ui/plan.jsonl");
const FORM: &str = include_str!("../../../../../tests/fixtures/agent-ui/form.jsonl");
/// The child run's teammate session, whole (the run hydrates its newest two messages).
const CHILD_SESSION: &str =
    include_str!("../../../../../tests/fixtures/agent-ui/child-session.json");

/// The most messages one history page carries.
pub const HISTORY_PAGE: usize = 3;

/// The golden log a run streams.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AgentUiRun {
    /// Runtime status, context, reasoning, tools, compaction, evidence, an artifact.
    Status,
    /// A coordinator team: a roster, a remote teammate, a worker result, a handoff.
    Team,
    /// A tool that needs the user's approval (`action.required`); the run waits for it.
    Approval,
    /// A count whose delivery breaks: sent as [`GAP_DELIVERY`].
    Gap,
    /// A child session hydrated in pages.
    Child,
    /// A teammate asks the user a question (a clarification); the run waits for the answer.
    Clarify,
    /// A planner's plan waits for the user's decision (`plan_decision`).
    Plan,
    /// A release manager asks for structured input (`input`): a choice and free text.
    Form,
}

/// What a new turn streams.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scenario {
    /// A golden log.
    Log(AgentUiRun),
    /// A live run, long enough to queue or steer (see "Live runs").
    Long,
}

/// Keywords of the last user message and what they pick (`/chatkit`'s rules: the start
/// of a word; the first found wins); anything else streams [`AgentUiRun::Status`].
pub const KEYWORDS: &[(&str, Scenario)] = &[
    ("team", Scenario::Log(AgentUiRun::Team)),
    ("approval", Scenario::Log(AgentUiRun::Approval)),
    ("deploy", Scenario::Log(AgentUiRun::Approval)),
    ("gap", Scenario::Log(AgentUiRun::Gap)),
    ("child", Scenario::Log(AgentUiRun::Child)),
    ("clarify", Scenario::Log(AgentUiRun::Clarify)),
    ("question", Scenario::Log(AgentUiRun::Clarify)),
    ("plan", Scenario::Log(AgentUiRun::Plan)),
    ("form", Scenario::Log(AgentUiRun::Form)),
    ("long", Scenario::Long),
];

impl Scenario {
    pub fn pick(text: &str) -> Scenario {
        pick_keyword(KEYWORDS, text).unwrap_or(Scenario::Log(AgentUiRun::Status))
    }
}

/// The sequences the `gap` run sends, in order: 3 twice, 5 and 6 never.
pub const GAP_DELIVERY: &[u64] = &[1, 2, 3, 3, 4, 7, 8, 9];

/// The approval run's action, answered with an option.
const ACTION_ID: &str = "act-deploy";
/// The plan run's decision, answered with an option.
const PLAN_ID: &str = "act-plan";
/// The form run's structured input, answered with answers by question id.
const INPUT_ID: &str = "act-input";
/// The form run's questions.
const FORM_QUESTIONS: [&str; 2] = ["channel", "notes"];
/// The clarify run's question, answered with text.
const QUESTION_ID: &str = "act-clarify";
/// The longest answer to a question (characters).
const ANSWER_MAX: usize = 2_000;

impl AgentUiRun {
    const ALL: [AgentUiRun; 8] = [
        AgentUiRun::Status,
        AgentUiRun::Team,
        AgentUiRun::Approval,
        AgentUiRun::Gap,
        AgentUiRun::Child,
        AgentUiRun::Clarify,
        AgentUiRun::Plan,
        AgentUiRun::Form,
    ];

    /// Its golden log, one envelope a line.
    fn log(self) -> &'static str {
        match self {
            AgentUiRun::Status => STATUS,
            AgentUiRun::Team => TEAM,
            AgentUiRun::Approval => APPROVAL,
            AgentUiRun::Gap => GAP,
            AgentUiRun::Child => CHILD,
            AgentUiRun::Clarify => CLARIFY,
            AgentUiRun::Plan => PLAN,
            AgentUiRun::Form => FORM,
        }
    }

    /// The `runId` of its events.
    fn run_id(self) -> &'static str {
        match self {
            AgentUiRun::Status => "run-status",
            AgentUiRun::Team => "run-team",
            AgentUiRun::Approval => "run-approval",
            AgentUiRun::Gap => "run-gap",
            AgentUiRun::Child => "run-child",
            AgentUiRun::Clarify => "run-clarify",
            AgentUiRun::Plan => "run-plan",
            AgentUiRun::Form => "run-form",
        }
    }

    fn by_run_id(run_id: &str) -> Option<AgentUiRun> {
        Self::ALL.into_iter().find(|run| run.run_id() == run_id)
    }

    fn name(self) -> String {
        format!("{self:?}").to_lowercase()
    }

    /// What a new turn picking this run is sent.
    fn delivery(self) -> Vec<String> {
        let events = lines(self.log());
        match self {
            AgentUiRun::Gap => GAP_DELIVERY
                .iter()
                .filter_map(|&n| events.iter().find(|(seq, _)| *seq == n))
                .map(|(_, line)| (*line).to_owned())
                .collect(),
            _ => events
                .into_iter()
                .map(|(_, line)| line.to_owned())
                .collect(),
        }
    }
}

/// A log's events: each line (as is) with its `sequence`.
fn lines(log: &'static str) -> Vec<(u64, &'static str)> {
    log.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .map(|line| {
            let sequence = serde_json::from_str::<Value>(line)
                .ok()
                .and_then(|v| v["sequence"].as_u64())
                .unwrap_or_default();
            (sequence, line)
        })
        .collect()
}

// --- controlled writes --------------------------------------------------------------------

/// `metadata.agentUi`: exactly one of its writes.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
enum Control {
    Respond(Respond),
    Resume(Resume),
    Queue(Target),
    Steer(Target),
    History(History),
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct History {
    session_id: String,
    before: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Respond {
    action_id: String,
    /// The option picked (an approval).
    #[serde(default)]
    option_id: Option<String>,
    /// The answer typed (a question).
    #[serde(default)]
    text: Option<String>,
    /// The answers by question id (structured input).
    #[serde(default)]
    answers: Option<serde_json::Map<String, Value>>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Resume {
    run_id: String,
    after: u64,
}

/// The live run a queue or a steer is for.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Target {
    run_id: String,
}

/// The controlled write a request carries, if any.
fn control(request: &EventsRequest) -> Result<Option<Control>, String> {
    let Some(write) = request.metadata.as_ref().and_then(|m| m.get("agentUi")) else {
        return Ok(None);
    };
    serde_json::from_value(write.clone())
        .map(Some)
        .map_err(|e| {
            format!("invalid metadata.agentUi (a respond, resume, queue, steer or history): {e}")
        })
}

/// The approval run after the user rejected the deploy: built like
/// `approval-approved.jsonl`, which is the run after an approval.
fn rejected() -> Vec<String> {
    let text = "I did not deploy: the request was rejected.";
    let deployer = "deployer@ops";
    let events = vec![
        (
            "action.resolved",
            json!({
                "actionId": ACTION_ID,
                "owner": "policy",
                "payload": {"optionId": "reject", "outcome": "rejected"},
            }),
        ),
        (
            "tool.failed",
            json!({
                "toolCallId": "tc-deploy",
                "agentId": deployer,
                "owner": "tool",
                "phase": "failed",
                "payload": {"error": "Rejected by the user"},
            }),
        ),
        (
            "agent.completed",
            json!({"agentId": deployer, "owner": "agent", "payload": {"status": "failed"}}),
        ),
        (
            "text.delta",
            json!({
                "messageId": "msg-deployed",
                "agentId": deployer,
                "owner": "model",
                "payload": {"delta": text},
            }),
        ),
        (
            "text.final",
            json!({
                "messageId": "msg-deployed",
                "agentId": deployer,
                "owner": "model",
                "payload": {"text": text},
            }),
        ),
        (
            "run.finished",
            json!({"owner": "runtime", "phase": "completed", "payload": {"outcome": "completed"}}),
        ),
    ];
    continuation(AgentUiRun::Approval, "thread-approval", events)
}

/// The clarify run after the user answered its question with `text`: the runtime says
/// which answer it got (the card shows that one), and the writer goes on with it.
fn clarified(text: &str) -> Vec<String> {
    answered(
        AgentUiRun::Clarify,
        "thread-clarify",
        "writer@delivery",
        json!({"actionId": QUESTION_ID, "payload": {"outcome": "answered", "text": text}}),
        (
            "msg-notes",
            &format!("Drafting the release notes for «{text}»."),
        ),
    )
}

/// The form's answers checked (only its questions, each `{values: [text], skipped}`,
/// bounded) and said back in one line.
fn form_summary(answers: &serde_json::Map<String, Value>) -> Result<String, String> {
    let mut said = Vec::new();
    for (id, answer) in answers {
        if !FORM_QUESTIONS.contains(&id.as_str()) {
            return Err(format!(
                "unknown question {id:?}: the form asks {FORM_QUESTIONS:?}"
            ));
        }
        let values = answer
            .get("values")
            .and_then(Value::as_array)
            .ok_or_else(|| format!("answers.{id}.values is not a list"))?;
        let mut texts = Vec::new();
        for value in values {
            let text = value
                .as_str()
                .ok_or_else(|| format!("answers.{id}.values holds a non-text value"))?;
            if text.chars().count() > ANSWER_MAX {
                return Err(format!("an answer is at most {ANSWER_MAX} characters"));
            }
            texts.push(text);
        }
        if !texts.is_empty() {
            said.push(format!("{id}: {}", texts.join(", ")));
        }
    }
    Ok(if said.is_empty() {
        "nothing (all skipped)".into()
    } else {
        said.join("; ")
    })
}

/// The form run after the user answered: the runtime says which answers it took (the
/// input shows those), then goes on with them.
fn inputs_taken(answers: serde_json::Map<String, Value>, summary: &str) -> Vec<String> {
    answered(
        AgentUiRun::Form,
        "thread-form",
        "release@ops",
        json!({"actionId": INPUT_ID, "payload": {"outcome": "answered", "answers": answers}}),
        (
            "msg-release",
            &format!("Noted: {summary}. Cutting the release."),
        ),
    )
}

/// A run after the user answered `agent`'s action: the owner confirms what it took
/// (`resolved`: the action id and payload of `action.resolved`), the agent runs again,
/// says `message` (id, text) and completes.
fn answered(
    run: AgentUiRun,
    thread_id: &str,
    agent: &str,
    resolved: Value,
    (message_id, text): (&str, &str),
) -> Vec<String> {
    let mut resolved = resolved;
    resolved["agentId"] = json!(agent);
    resolved["owner"] = json!("agent");
    let said = |kind: &str| json!({"messageId": message_id, "agentId": agent, "owner": "model", "payload": {kind: text}});
    let events = vec![
        ("action.resolved", resolved),
        (
            "agent.changed",
            json!({"agentId": agent, "owner": "agent", "payload": {"status": "running"}}),
        ),
        ("text.delta", said("delta")),
        ("text.final", said("text")),
        (
            "agent.completed",
            json!({"agentId": agent, "owner": "agent", "payload": {"status": "completed"}}),
        ),
        (
            "run.finished",
            json!({"owner": "runtime", "phase": "completed", "payload": {"outcome": "completed"}}),
        ),
    ];
    continuation(run, thread_id, events)
}

/// The plan run after the user's decision: the plan runs (`approved`), or the planner
/// goes back to it. Either way the runtime confirms the decision first.
fn decided(approved: bool) -> Vec<String> {
    let planner = "planner@delivery";
    let (option, outcome, status, text) = if approved {
        (
            "approve",
            "approved",
            "completed",
            "Ran the plan: 3 steps done.",
        )
    } else {
        (
            "revise",
            "rejected",
            "idle",
            "I will revise the plan before running anything.",
        )
    };
    let step = |content: &str| json!({"content": content, "status": if approved { "completed" } else { "pending" }});
    let events = vec![
        (
            "action.resolved",
            json!({
                "actionId": PLAN_ID,
                "agentId": planner,
                "owner": "agent",
                "payload": {"optionId": option, "outcome": outcome},
            }),
        ),
        (
            "plan.final",
            json!({
                "agentId": planner,
                "owner": "agent",
                "payload": {"entries": [
                    step("Collect the merged changes"),
                    step("Draft the notes"),
                    step("Publish them to the changelog"),
                ]},
            }),
        ),
        (
            "text.delta",
            json!({"messageId": "msg-plan", "agentId": planner, "owner": "model", "payload": {"delta": text}}),
        ),
        (
            "text.final",
            json!({"messageId": "msg-plan", "agentId": planner, "owner": "model", "payload": {"text": text}}),
        ),
        (
            "agent.changed",
            json!({"agentId": planner, "owner": "agent", "payload": {"status": status}}),
        ),
        (
            "run.finished",
            json!({"owner": "runtime", "phase": "completed", "payload": {"outcome": "completed"}}),
        ),
    ];
    continuation(AgentUiRun::Plan, "thread-plan", events)
}

/// The events of `run` after its wait (sequence 7 on), each `(type, fields)`.
fn continuation(run: AgentUiRun, thread_id: &str, events: Vec<(&str, Value)>) -> Vec<String> {
    events
        .into_iter()
        .zip(7u64..)
        .map(|((kind, fields), sequence)| envelope(kind, sequence, run.run_id(), thread_id, fields))
        .collect()
}

/// One event line: the ids first, as in the logs, then `fields` (an object).
fn envelope(kind: &str, sequence: u64, run_id: &str, thread_id: &str, fields: Value) -> String {
    let mut event = json!({
        "type": kind,
        "sequence": sequence,
        "runId": run_id,
        "threadId": thread_id,
    });
    if let (Some(event), Value::Object(fields)) = (event.as_object_mut(), fields) {
        event.extend(fields);
    }
    event.to_string()
}

/// The page of teammate session `history.session_id` before `history.before`: the
/// `session.hydrated` envelope a history request is answered with. `Err` is the 400's.
fn history_page(history: &History) -> Result<Value, String> {
    let session: Value = serde_json::from_str(CHILD_SESSION).expect("the fixture is JSON");
    if session["sessionId"] != history.session_id.as_str() {
        return Err(format!("unknown sessionId {:?}", history.session_id));
    }
    let all = session["messages"].as_array().cloned().unwrap_or_default();
    let end = all
        .iter()
        .position(|m| m["id"] == history.before.as_str())
        .ok_or_else(|| format!("no message {:?} in {}", history.before, history.session_id))?;
    let start = end.saturating_sub(HISTORY_PAGE);
    Ok(json!({
        "type": "session.hydrated",
        "agentId": session["agentId"],
        "sessionId": session["sessionId"],
        "parentSessionId": session["parentSessionId"],
        "owner": "session",
        "phase": "hydrating",
        "payload": {"messages": &all[start..end], "hasMore": start > 0, "before": history.before},
    }))
}

/// What a request asks for.
#[derive(Debug)]
enum Answer {
    /// Events known up front: the name in the log, the events in order.
    Log(String, Vec<String>),
    /// An older page of a teammate's session (JSON, not a stream).
    Page(Value),
    /// A new live run.
    Long,
    /// A turn for the live run `run_id`.
    Turn {
        kind: TurnKind,
        run_id: String,
        text: String,
    },
}

/// What `request` is answered. `Err` is the 400's message.
fn answer(request: &EventsRequest) -> Result<Answer, String> {
    match control(request)? {
        None => match Scenario::pick(events::check(request)?) {
            Scenario::Log(run) => Ok(Answer::Log(run.name(), run.delivery())),
            Scenario::Long => Ok(Answer::Long),
        },
        Some(Control::Queue(target)) => turn(request, TurnKind::Queue, target),
        Some(Control::Steer(target)) => turn(request, TurnKind::Steer, target),
        Some(Control::Respond(respond)) => {
            events::check_bounds(request)?;
            if respond.action_id == QUESTION_ID {
                let text = respond.text.as_deref().map(str::trim).unwrap_or_default();
                if text.is_empty() {
                    return Err(format!("{QUESTION_ID} is a question: answer it with text"));
                }
                if text.chars().count() > ANSWER_MAX {
                    return Err(format!("an answer is at most {ANSWER_MAX} characters"));
                }
                return Ok(Answer::Log("respond:answer".into(), clarified(text)));
            }
            if respond.action_id == INPUT_ID {
                let answers = respond.answers.ok_or_else(|| {
                    format!("{INPUT_ID} is structured input: answer it with answers")
                })?;
                let summary = form_summary(&answers)?;
                return Ok(Answer::Log(
                    "respond:input".into(),
                    inputs_taken(answers, &summary),
                ));
            }
            if respond.action_id == PLAN_ID {
                let option = respond.option_id.unwrap_or_default();
                let approved = match option.as_str() {
                    "approve" => true,
                    "revise" => false,
                    other => {
                        return Err(format!(
                            "unknown optionId {other:?} for {PLAN_ID}: approve or revise"
                        ))
                    }
                };
                return Ok(Answer::Log(
                    format!("respond:plan:{option}"),
                    decided(approved),
                ));
            }
            if respond.action_id != ACTION_ID {
                return Err(format!(
                    "unknown actionId {:?}: the actions that wait are {ACTION_ID}, {PLAN_ID}, {INPUT_ID} and {QUESTION_ID}",
                    respond.action_id
                ));
            }
            let option = respond.option_id.unwrap_or_default();
            let events = match option.as_str() {
                "approve" => lines(APPROVED)
                    .into_iter()
                    .map(|(_, line)| line.to_owned())
                    .collect(),
                "reject" => rejected(),
                other => {
                    return Err(format!(
                        "unknown optionId {other:?} for {ACTION_ID}: approve or reject"
                    ))
                }
            };
            Ok(Answer::Log(format!("respond:{option}"), events))
        }
        Some(Control::History(history)) => {
            events::check_bounds(request)?;
            history_page(&history).map(Answer::Page)
        }
        Some(Control::Resume(resume)) => {
            events::check_bounds(request)?;
            let run = AgentUiRun::by_run_id(&resume.run_id)
                .ok_or_else(|| format!("unknown runId {:?}", resume.run_id))?;
            let events = lines(run.log())
                .into_iter()
                .filter(|(sequence, _)| *sequence > resume.after)
                .map(|(_, line)| line.to_owned())
                .collect();
            Ok(Answer::Log(format!("resume:{}", run.run_id()), events))
        }
    }
}

/// A queue or a steer: its text is the last user message (the conversation may go on
/// after it, as for any controlled write).
fn turn(request: &EventsRequest, kind: TurnKind, target: Target) -> Result<Answer, String> {
    events::check_bounds(request)?;
    let what = kind.as_str();
    let text = request
        .messages
        .iter()
        .rev()
        .find(|m| m.role == Role::User)
        .map(|m| m.content.clone())
        .ok_or_else(|| format!("a {what} takes its text from the last user message: none"))?;
    if text.trim().is_empty() {
        return Err(format!("the text to {what} is blank"));
    }
    Ok(Answer::Turn {
        kind,
        run_id: target.run_id,
        text,
    })
}

/// How long a runtime status stays up before the next event: a real runtime spends this
/// long choosing a model or reading context, and without it every status would land in
/// the same animation frame as the first text and never be seen.
const STATUS_HOLD: Duration = Duration::from_millis(250);

/// `events`, `pace` apart (the first at once); an event after a runtime status waits at
/// least [`STATUS_HOLD`].
fn paced(events: Vec<String>, pace: Duration) -> Vec<Out> {
    let mut after_status = false;
    events
        .into_iter()
        .enumerate()
        .map(|(i, data)| {
            let delay = match (i, after_status) {
                (0, _) => Duration::ZERO,
                (_, true) => pace.max(STATUS_HOLD),
                _ => pace,
            };
            after_status = is_runtime_status(&data);
            Out::Send { delay, data }
        })
        .collect()
}

fn is_runtime_status(line: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(line)
        .is_ok_and(|event| event["surface"] == "runtime_status")
}

// --- live runs: `long`, queue and steer --------------------------------------------------

/// What a live run's `run.started` offers (`payload.controls`).
const CONTROLS: [&str; 2] = ["queue", "steer"];
/// The deltas of a live run come this far apart whatever `--pace-ms`: a person (or a test)
/// must have time to queue or steer while it runs.
const LIVE_PACE: Duration = Duration::from_millis(150);
/// Steps of the `long` answer (about six seconds).
const LONG_STEPS: u32 = 40;
/// Steps of the answer after a steer.
const STEER_STEPS: u32 = 10;
/// A queued or steering text is quoted back up to this many characters.
const QUOTE_CHARS: usize = 200;
/// Turns a live run holds queued; one more is refused (409), or a client could grow the
/// queue, and every `queue.changed` listing it, without end.
const MAX_QUEUED: usize = 20;

/// Whether a turn waits for the run to finish or changes its course now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TurnKind {
    Queue,
    Steer,
}

impl TurnKind {
    fn as_str(self) -> &'static str {
        match self {
            TurnKind::Queue => "queue",
            TurnKind::Steer => "steer",
        }
    }
}

/// A user turn sent to a live run.
#[derive(Debug)]
struct Turn {
    id: String,
    text: String,
}

/// What the task writing a live stream is told.
#[derive(Debug)]
enum Command {
    Queue(Turn),
    Steer(Turn),
}

/// A registered live run: where its commands go.
struct Entry {
    /// The identity that started it: only it may queue or steer (anyone else is told it is
    /// not active, as for a run that does not exist).
    owner: String,
    commands: mpsc::UnboundedSender<Command>,
    /// Turns queued on it so far (counted here so a full queue is refused before 202).
    queued: usize,
}

/// Why a turn was not accepted.
#[derive(Debug, PartialEq, Eq)]
enum Refused {
    NotActive,
    QueueFull,
}

/// The live runs of this runtime, by run id. A run is here from before its `run.started`
/// goes out until it has nothing left to stream, or its client leaves.
#[derive(Default)]
pub(crate) struct LiveRuns {
    runs: Mutex<HashMap<String, Entry>>,
    next_run: AtomicU64,
    next_turn: AtomicU64,
}

impl LiveRuns {
    fn lock(&self) -> MutexGuard<'_, HashMap<String, Entry>> {
        self.runs.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The number of a new live run (they count every live run of this runtime).
    fn next_number(&self) -> u64 {
        self.next_run.fetch_add(1, Ordering::Relaxed) + 1
    }

    fn register(
        &self,
        run_id: &str,
        owner: &str,
        commands: &mpsc::UnboundedSender<Command>,
        queued: usize,
    ) {
        self.lock().insert(
            run_id.to_owned(),
            Entry {
                owner: owner.to_owned(),
                commands: commands.clone(),
                queued,
            },
        );
    }

    fn remove(&self, run_id: &str) {
        self.lock().remove(run_id);
    }

    /// Hands `text` to live run `run_id` of `owner`; the turn's id. The command is sent under
    /// the lock, so a run that finishes (which it decides under the same lock) either gets
    /// it or was already gone: a 202 is never lost.
    fn submit(
        &self,
        owner: &str,
        run_id: &str,
        kind: TurnKind,
        text: String,
    ) -> Result<String, Refused> {
        let mut runs = self.lock();
        let entry = runs
            .get_mut(run_id)
            .filter(|entry| entry.owner == owner)
            .ok_or(Refused::NotActive)?;
        if kind == TurnKind::Queue && entry.queued >= MAX_QUEUED {
            return Err(Refused::QueueFull);
        }
        let id = format!(
            "turn-{}",
            self.next_turn.fetch_add(1, Ordering::Relaxed) + 1
        );
        let turn = Turn {
            id: id.clone(),
            text,
        };
        let command = match kind {
            TurnKind::Queue => Command::Queue(turn),
            TurnKind::Steer => Command::Steer(turn),
        };
        if entry.commands.send(command).is_err() {
            // Its task is gone without saying so: it is not live.
            runs.remove(run_id);
            return Err(Refused::NotActive);
        }
        if kind == TurnKind::Queue {
            entry.queued += 1;
        }
        Ok(id)
    }
}

/// The first `QUOTE_CHARS` characters of `text`, trimmed.
fn quote(text: &str) -> String {
    text.trim().chars().take(QUOTE_CHARS).collect()
}

/// One run of a live stream: its ids, its last sequence and the message it is writing.
#[derive(Debug)]
struct LiveRun {
    id: String,
    thread_id: String,
    sequence: u64,
    /// The run's first message; a steer's message is named after it.
    base_message: String,
    message_id: String,
    /// What the current message has streamed so far.
    text: String,
    steers: u32,
    /// The deltas still to send, `LIVE_PACE` apart.
    deltas: VecDeque<String>,
    /// The `long` run shows a runtime status before its text.
    status: Option<&'static str>,
}

impl LiveRun {
    fn new(id: String, message_id: String, thread_id: String, deltas: Vec<String>) -> LiveRun {
        LiveRun {
            id,
            thread_id,
            sequence: 0,
            base_message: message_id.clone(),
            message_id,
            text: String::new(),
            steers: 0,
            deltas: deltas.into(),
            status: None,
        }
    }

    /// `run-long-<n>`: forty steps on `msg-long-<n>`.
    fn long(n: u64, thread_id: String) -> LiveRun {
        let steps = (1..=LONG_STEPS)
            .map(|i| format!("Step {i} of {LONG_STEPS}. "))
            .collect();
        LiveRun {
            status: Some("Writing a long answer"),
            ..LiveRun::new(
                format!("run-long-{n}"),
                format!("msg-long-{n}"),
                thread_id,
                steps,
            )
        }
    }

    /// `run-queued-<n>`, answering queued `text` on `msg-run-queued-<n>`.
    fn queued(n: u64, thread_id: String, text: &str) -> LiveRun {
        let id = format!("run-queued-{n}");
        let deltas = vec![
            "You queued: ".to_owned(),
            format!("«{}». ", quote(text)),
            "Done.".to_owned(),
        ];
        LiveRun::new(id.clone(), format!("msg-{id}"), thread_id, deltas)
    }

    /// Its next event.
    fn event(&mut self, kind: &str, fields: Value) -> String {
        self.sequence += 1;
        envelope(kind, self.sequence, &self.id, &self.thread_id, fields)
    }

    /// Drops the steps not sent yet and starts a new message that changes course.
    fn steer(&mut self, text: &str) {
        self.steers += 1;
        self.message_id = format!("{}-steer-{}", self.base_message, self.steers);
        self.text.clear();
        self.deltas = std::iter::once(format!("Changing course: {}. ", quote(text)))
            .chain((1..=STEER_STEPS).map(|i| format!("Step {i} of {STEER_STEPS}. ")))
            .collect();
    }
}

/// The stream ended before its runs did.
#[derive(Debug)]
enum Gone {
    /// The client left: like Stop, the run and its queue are dropped.
    Left,
    Shutdown,
}

/// The task writing a live stream: its runs one after the other, queued turns included.
struct LiveStream {
    state: Arc<AppState>,
    owner: String,
    tx: mpsc::Sender<Frame>,
    /// Kept to register the next run of the stream with the same channel.
    commands_tx: mpsc::UnboundedSender<Command>,
    commands: mpsc::UnboundedReceiver<Command>,
    /// Queued turns, in order; they carry over from one run to the next.
    queue: VecDeque<Turn>,
    run: LiveRun,
    /// When the next delta is due.
    next_at: TokioInstant,
    last_write: TokioInstant,
    shutdown: watch::Receiver<bool>,
    sent: usize,
}

impl Drop for LiveStream {
    /// However the task ends, its run is no longer live.
    fn drop(&mut self) {
        self.state.live.remove(&self.run.id);
    }
}

impl LiveStream {
    async fn write(mut self) {
        match self.write_runs().await {
            Ok(()) | Err(Gone::Shutdown) => {}
            Err(Gone::Left) => println!(
                "agent-ui stream closed by client: {} after {} events, {} queued turns dropped",
                self.run.id,
                self.sent,
                self.queue.len()
            ),
        }
    }

    async fn write_runs(&mut self) -> Result<(), Gone> {
        loop {
            self.write_run().await?;
            let Some(turn) = self.queue.pop_front() else {
                return self.emit("run.finished", finished()).await;
            };
            // The next queued turn becomes a run of its own on this stream; the one that
            // just finished says so first.
            let next = LiveRun::queued(
                self.state.live.next_number(),
                self.run.thread_id.clone(),
                &turn.text,
            );
            let mut queued = vec![json!({
                "turnId": turn.id, "text": turn.text, "status": "started", "runId": next.id
            })];
            queued.extend(self.queued());
            self.emit("queue.changed", queue_changed(json!({ "queued": queued })))
                .await?;
            self.emit("run.finished", finished()).await?;
            self.run = next;
            // Live before its run.started goes out; the turns still queued stay queued.
            self.state.live.register(
                &self.run.id,
                &self.owner,
                &self.commands_tx,
                self.queue.len(),
            );
        }
    }

    /// One run up to its `text.final` (its `run.finished` is the caller's); it is no longer
    /// live once it returns.
    async fn write_run(&mut self) -> Result<(), Gone> {
        let started = json!({
            "owner": "runtime",
            "phase": "submitted",
            "payload": { "controls": CONTROLS },
        });
        self.emit("run.started", started).await?;
        self.next_at = TokioInstant::now() + LIVE_PACE;
        if let Some(label) = self.run.status {
            let status = json!({
                "owner": "runtime",
                "surface": "runtime_status",
                "payload": { "status": "working", "label": label },
            });
            self.emit("run.status", status).await?;
            self.next_at = TokioInstant::now() + LIVE_PACE.max(STATUS_HOLD);
        }
        loop {
            if self.run.deltas.is_empty() {
                match self.finish_or_next() {
                    Some(command) => {
                        self.apply(command).await?;
                        continue;
                    }
                    None => break,
                }
            }
            let delay = self.next_at.saturating_duration_since(TokioInstant::now());
            let woke = tokio::select! {
                // A turn is shown as soon as it comes, between two deltas.
                biased;
                Some(command) = self.commands.recv() => Err(command),
                waited = pause(delay, true, &self.tx, &mut self.last_write, &mut self.shutdown) => {
                    Ok(waited)
                }
            };
            match woke {
                Err(command) => self.apply(command).await?,
                Ok(Waited::Ready) => self.delta().await?,
                Ok(Waited::Closed) => return Err(Gone::Left),
                Ok(Waited::Shutdown) => return Err(Gone::Shutdown),
            }
        }
        self.final_text().await
    }

    /// With nothing left to stream, the run is over unless a turn came meanwhile; decided
    /// under the registry's lock, so a turn accepted before that is never lost.
    fn finish_or_next(&mut self) -> Option<Command> {
        let mut runs = self.state.live.lock();
        match self.commands.try_recv() {
            Ok(command) => Some(command),
            Err(_) => {
                runs.remove(&self.run.id);
                None
            }
        }
    }

    async fn apply(&mut self, command: Command) -> Result<(), Gone> {
        match command {
            Command::Queue(turn) => {
                self.queue.push_back(turn);
                let queued = self.queued();
                self.emit("queue.changed", queue_changed(json!({ "queued": queued })))
                    .await
            }
            Command::Steer(turn) => {
                let payload = json!({
                    "steer": { "turnId": turn.id, "text": turn.text, "status": "applied" },
                    "queued": self.queued(),
                });
                self.emit("queue.changed", queue_changed(payload)).await?;
                // The message so far is final; nothing streamed means no message to close.
                self.final_text().await?;
                self.run.steer(&turn.text);
                self.next_at = TokioInstant::now();
                Ok(())
            }
        }
    }

    /// The next delta of the current message.
    async fn delta(&mut self) -> Result<(), Gone> {
        let Some(delta) = self.run.deltas.pop_front() else {
            return Ok(());
        };
        self.run.text.push_str(&delta);
        let event = json!({
            "messageId": self.run.message_id,
            "owner": "model",
            "surface": "conversation",
            "payload": { "delta": delta },
        });
        self.emit("text.delta", event).await?;
        self.next_at = TokioInstant::now() + LIVE_PACE;
        Ok(())
    }

    /// `text.final` of the current message, if it streamed anything.
    async fn final_text(&mut self) -> Result<(), Gone> {
        if self.run.text.is_empty() {
            return Ok(());
        }
        let text = std::mem::take(&mut self.run.text);
        let event = json!({
            "messageId": self.run.message_id,
            "owner": "model",
            "payload": { "text": text },
        });
        self.emit("text.final", event).await
    }

    /// The turns still queued, as `queue.changed` lists them.
    fn queued(&self) -> Vec<Value> {
        self.queue
            .iter()
            .map(|turn| json!({ "turnId": turn.id, "text": turn.text, "status": "queued" }))
            .collect()
    }

    /// Sends the current run's next event, framed like every `/agent-ui` event.
    async fn emit(&mut self, kind: &str, fields: Value) -> Result<(), Gone> {
        let data = self.run.event(kind, fields);
        self.tx
            .send(Ok(events::message_frame(&data)))
            .await
            .map_err(|_| Gone::Left)?;
        self.sent += 1;
        self.last_write = TokioInstant::now();
        Ok(())
    }
}

fn queue_changed(payload: Value) -> Value {
    json!({ "owner": "runtime", "surface": "composer", "payload": payload })
}

fn finished() -> Value {
    json!({ "owner": "runtime", "phase": "completed", "payload": { "outcome": "completed" } })
}

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
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let started = Instant::now();
    let log = |what: &str, response: Response| routes::logged(PATH, what, started, response);
    let request = match events::read_request(PATH, &headers, body) {
        Ok(request) => request,
        Err(refused) => return log("-", refused),
    };
    match answer(&request) {
        Err(message) => log("-", bad_request(&message)),
        Ok(Answer::Log(name, events)) => {
            let steps = paced(events, state.pace);
            log(
                &name,
                events::stream(state.clone(), "agent-ui", name.clone(), steps),
            )
        }
        Ok(Answer::Page(page)) => log("history", Json(page).into_response()),
        Ok(Answer::Long) => {
            let thread_id = request
                .thread_id
                .filter(|t| !t.is_empty())
                .unwrap_or_else(|| "thread-long".to_owned());
            log("long", start_long(state, &user.0, thread_id))
        }
        Ok(Answer::Turn { kind, run_id, text }) => {
            let name = format!("{}:{run_id}", kind.as_str());
            log(&name, submit(&state, &user.0, kind, &run_id, text))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(text: &str, agent_ui: Option<Value>) -> EventsRequest {
        let mut body = json!({"messages": [{"role": "user", "content": text}]});
        if let Some(write) = agent_ui {
            body["metadata"] = json!({ "agentUi": write });
        }
        serde_json::from_value(body).unwrap()
    }

    fn sequences(events: &[String]) -> Vec<u64> {
        events
            .iter()
            .map(|e| {
                serde_json::from_str::<Value>(e).unwrap()["sequence"]
                    .as_u64()
                    .unwrap()
            })
            .collect()
    }

    /// The golden log `request` is answered with.
    fn logged(request: &EventsRequest) -> (String, Vec<String>) {
        match answer(request) {
            Ok(Answer::Log(name, events)) => (name, events),
            other => panic!("not a log: {other:?}"),
        }
    }

    #[test]
    fn keywords_pick_runs() {
        let log = Scenario::Log;
        assert_eq!(Scenario::pick("hello"), log(AgentUiRun::Status));
        assert_eq!(Scenario::pick("the team please"), log(AgentUiRun::Team));
        assert_eq!(Scenario::pick("needs approval"), log(AgentUiRun::Approval));
        assert_eq!(Scenario::pick("Deploy it"), log(AgentUiRun::Approval));
        assert_eq!(Scenario::pick("a gap"), log(AgentUiRun::Gap));
        assert_eq!(Scenario::pick("children"), log(AgentUiRun::Child));
        assert_eq!(Scenario::pick("steam"), log(AgentUiRun::Status));
        assert_eq!(Scenario::pick("a long answer"), Scenario::Long);
        assert_eq!(Scenario::pick("Longer, please"), Scenario::Long);
        assert_eq!(Scenario::pick("along"), log(AgentUiRun::Status));
    }

    /// Every log parses, is one run, and counts 1, 2, 3, … (the continuation from 7).
    #[test]
    fn the_logs_are_runs_in_order() {
        for run in AgentUiRun::ALL {
            let events = lines(run.log());
            assert!(!events.is_empty(), "{run:?}");
            for (i, (sequence, line)) in events.iter().enumerate() {
                let v: Value = serde_json::from_str(line).unwrap();
                assert_eq!(*sequence, i as u64 + 1, "{run:?}: {line}");
                assert_eq!(v["runId"], run.run_id(), "{run:?}: {line}");
            }
            assert_eq!(AgentUiRun::by_run_id(run.run_id()), Some(run));
        }
        assert_eq!(sequences(&rejected()), (7..=12).collect::<Vec<_>>());
        let approved: Vec<u64> = lines(APPROVED).iter().map(|(s, _)| *s).collect();
        assert_eq!(approved, (7..=13).collect::<Vec<_>>());
    }

    #[test]
    fn the_gap_run_repeats_and_skips() {
        let (name, events) = logged(&request("gap", None));
        assert_eq!(name, "gap");
        assert_eq!(sequences(&events), GAP_DELIVERY);
        let (name, events) = logged(&request(
            "gap",
            Some(json!({"resume": {"runId": "run-gap", "after": 4}})),
        ));
        assert_eq!(name, "resume:run-gap");
        assert_eq!(sequences(&events), [5, 6, 7, 8, 9]);
    }

    #[test]
    fn history_pages_the_analysts_older_messages() {
        let page = |before: &str| {
            let write = json!({"history": {"sessionId": "session-analyst", "before": before}});
            match answer(&request("child", Some(write))) {
                Ok(Answer::Page(page)) => page,
                other => panic!("not a page: {other:?}"),
            }
        };
        let ids = |page: &Value| -> Vec<String> {
            page["payload"]["messages"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m["id"].as_str().unwrap().to_owned())
                .collect()
        };
        let first = page("an-1");
        assert_eq!(first["type"], "session.hydrated");
        assert_eq!(first["agentId"], "analyst@data");
        assert_eq!(first["payload"]["before"], "an-1");
        assert_eq!(ids(&first), ["an-c", "an-d", "an-e"]);
        assert_eq!(first["payload"]["hasMore"], true);
        let last = page("an-c");
        assert_eq!(ids(&last), ["an-a", "an-b"]);
        assert_eq!(last["payload"]["hasMore"], false);
        assert!(ids(&page("an-a")).is_empty());
        // The page is what the client reads: the same decoder takes it.
        assert!(chat_shell_core::protocol::agent_ui::history_page(&first.to_string()).is_ok());
        let bad = |write: Value| answer(&request("child", Some(write))).unwrap_err();
        assert!(
            bad(json!({"history": {"sessionId": "session-x", "before": "an-1"}}))
                .contains("unknown sessionId")
        );
        assert!(
            bad(json!({"history": {"sessionId": "session-analyst", "before": "an-9"}}))
                .contains("no message \"an-9\"")
        );
        assert!(bad(json!({"history": {"sessionId": "session-analyst"}})).contains("agentUi"));
    }

    #[test]
    fn controlled_writes_are_checked() {
        let bad = |write: Value| answer(&request("deploy", Some(write))).unwrap_err();
        assert!(bad(json!("respond")).contains("metadata.agentUi"));
        assert!(bad(json!({})).contains("metadata.agentUi"));
        assert!(bad(json!({"respond": {"actionId": "act-deploy"}})).contains("optionId"));
        assert!(bad(json!({"resume": {"runId": "run-gap", "after": -1}})).contains("agentUi"));
        assert!(bad(json!({
            "respond": {"actionId": "act-deploy", "optionId": "approve"},
            "resume": {"runId": "run-gap", "after": 4}
        }))
        .contains("agentUi"));
        assert!(
            bad(json!({"respond": {"actionId": "act-x", "optionId": "approve"}}))
                .contains("unknown actionId \"act-x\"")
        );
        assert!(
            bad(json!({"respond": {"actionId": "act-deploy", "optionId": "maybe"}}))
                .contains("unknown optionId")
        );
        assert!(bad(json!({"resume": {"runId": "run-nope", "after": 1}}))
            .contains("unknown runId \"run-nope\""));
        // A controlled write is not a new turn: the conversation may end with the
        // assistant's (partial) answer.
        let mid_answer: EventsRequest = serde_json::from_value(json!({
            "messages": [{"role": "user", "content": "gap"}, {"role": "assistant", "content": "One, two, "}],
            "metadata": {"agentUi": {"resume": {"runId": "run-gap", "after": 4}}}
        }))
        .unwrap();
        assert!(answer(&mid_answer).is_ok());
        let empty: EventsRequest = serde_json::from_value(json!({
            "messages": [],
            "metadata": {"agentUi": {"resume": {"runId": "run-gap", "after": 4}}}
        }))
        .unwrap();
        assert!(answer(&empty).is_err());
    }

    #[test]
    fn paced_sends_the_first_at_once() {
        let steps = paced(vec!["a".into(), "b".into()], Duration::from_millis(20));
        assert_eq!(
            steps,
            [
                Out::Send {
                    delay: Duration::ZERO,
                    data: "a".into()
                },
                Out::Send {
                    delay: Duration::from_millis(20),
                    data: "b".into()
                },
            ]
        );
    }

    #[test]
    fn paced_holds_a_runtime_status() {
        let status = r#"{"type":"run.status","surface":"runtime_status"}"#;
        let steps = paced(
            vec![status.into(), "{}".into(), "{}".into()],
            Duration::from_millis(5),
        );
        let delays: Vec<_> = steps
            .iter()
            .map(|step| match step {
                Out::Send { delay, .. } => *delay,
                _ => unreachable!("paced only sends"),
            })
            .collect();
        assert_eq!(
            delays,
            [Duration::ZERO, STATUS_HOLD, Duration::from_millis(5)]
        );
    }

    #[test]
    fn a_queue_or_steer_takes_the_last_user_message() {
        let write = |kind: &str| json!({ (kind): {"runId": "run-long-1"} });
        let conversation: EventsRequest = serde_json::from_value(json!({
            "messages": [
                {"role": "user", "content": "long"},
                {"role": "user", "content": "then a summary"},
                {"role": "assistant", "content": "Step 1 of 40. "}
            ],
            "metadata": {"agentUi": write("queue")}
        }))
        .unwrap();
        match answer(&conversation) {
            Ok(Answer::Turn { kind, run_id, text }) => {
                assert_eq!(kind, TurnKind::Queue);
                assert_eq!(run_id, "run-long-1");
                assert_eq!(text, "then a summary");
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            answer(&request("go left", Some(write("steer")))),
            Ok(Answer::Turn {
                kind: TurnKind::Steer,
                ..
            })
        ));
        assert!(answer(&request(" \n ", Some(write("queue"))))
            .unwrap_err()
            .contains("blank"));
        assert!(answer(&request("x", Some(json!({"steer": {}}))))
            .unwrap_err()
            .contains("runId"));
        let no_user: EventsRequest = serde_json::from_value(json!({
            "messages": [{"role": "assistant", "content": "hi"}],
            "metadata": {"agentUi": write("queue")}
        }))
        .unwrap();
        assert!(answer(&no_user).unwrap_err().contains("last user message"));
    }

    #[test]
    fn turns_go_only_to_live_runs_of_their_owner() {
        let live = LiveRuns::default();
        assert_eq!(live.next_number(), 1);
        let run_id = "run-long-1".to_owned();
        let (tx, mut rx) = mpsc::unbounded_channel();
        live.register(&run_id, "c_me", &tx, 0);
        let submit = |owner: &str, run: &str, kind| live.submit(owner, run, kind, "x".into());
        assert_eq!(
            submit("c_me", &run_id, TurnKind::Queue),
            Ok("turn-1".into())
        );
        assert_eq!(
            submit("c_me", &run_id, TurnKind::Steer),
            Ok("turn-2".into())
        );
        assert!(matches!(rx.try_recv(), Ok(Command::Queue(t)) if t.id == "turn-1"));
        assert!(matches!(rx.try_recv(), Ok(Command::Steer(t)) if t.id == "turn-2"));
        assert_eq!(
            submit("c_other", &run_id, TurnKind::Queue),
            Err(Refused::NotActive)
        );
        assert_eq!(
            submit("c_me", "run-long-9", TurnKind::Steer),
            Err(Refused::NotActive)
        );
        for _ in 1..MAX_QUEUED {
            assert!(submit("c_me", &run_id, TurnKind::Queue).is_ok());
        }
        assert_eq!(
            submit("c_me", &run_id, TurnKind::Queue),
            Err(Refused::QueueFull)
        );
        // A steer still goes through a full queue.
        assert!(submit("c_me", &run_id, TurnKind::Steer).is_ok());
        // A run whose task went away is not live.
        drop(rx);
        assert_eq!(
            submit("c_me", &run_id, TurnKind::Steer),
            Err(Refused::NotActive)
        );
        live.register(&run_id, "c_me", &tx, 0);
        live.remove(&run_id);
        assert_eq!(
            submit("c_me", &run_id, TurnKind::Steer),
            Err(Refused::NotActive)
        );
    }

    #[test]
    fn a_steer_replaces_the_steps_left() {
        let mut run = LiveRun::long(3, "t".into());
        assert_eq!(run.deltas.len(), LONG_STEPS as usize);
        assert_eq!(run.message_id, "msg-long-3");
        run.steer(&format!("  go {}", "y".repeat(300)));
        assert_eq!(run.message_id, "msg-long-3-steer-1");
        assert_eq!(run.deltas.len(), 1 + STEER_STEPS as usize);
        let first = &run.deltas[0];
        assert!(first.starts_with("Changing course: go yyy"), "{first}");
        assert_eq!(
            first.chars().count(),
            "Changing course: . ".len() + QUOTE_CHARS
        );
        run.steer("again");
        assert_eq!(run.message_id, "msg-long-3-steer-2");
        let event: Value = serde_json::from_str(&run.event("run.finished", finished())).unwrap();
        assert_eq!(event["sequence"], 1);
        assert_eq!(event["runId"], "run-long-3");
        assert_eq!(event["payload"]["outcome"], "completed");
    }
}
