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
//! - `{"resume": {"runId": R, "after": N}}` asks again for run R's events after sequence N
//!   (a client that saw a gap).
//!
//! Like `/events` it keeps nothing: the logs are the runs.

use crate::auth::User;
use crate::events::{self, Out};
use crate::scripts::pick_keyword;
use crate::server::{self, bad_request, AppState};
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Extension, State};
use axum::http::HeaderMap;
use axum::response::Response;
use chat_shell_core::protocol::events::EventsRequest;
use serde::Deserialize;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::{Duration, Instant};

const PATH: &str = "/agent-ui";

const STATUS: &str = include_str!("../../../tests/fixtures/agent-ui/status.jsonl");
const TEAM: &str = include_str!("../../../tests/fixtures/agent-ui/team.jsonl");
const APPROVAL: &str = include_str!("../../../tests/fixtures/agent-ui/approval.jsonl");
const APPROVED: &str = include_str!("../../../tests/fixtures/agent-ui/approval-approved.jsonl");
const GAP: &str = include_str!("../../../tests/fixtures/agent-ui/gap.jsonl");
const CHILD: &str = include_str!("../../../tests/fixtures/agent-ui/child.jsonl");

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
}

/// Keywords of the last user message and the runs they pick (`/chatkit`'s rules: the start
/// of a word; the first found wins); anything else streams [`AgentUiRun::Status`].
pub const KEYWORDS: &[(&str, AgentUiRun)] = &[
    ("team", AgentUiRun::Team),
    ("approval", AgentUiRun::Approval),
    ("deploy", AgentUiRun::Approval),
    ("gap", AgentUiRun::Gap),
    ("child", AgentUiRun::Child),
];

/// The sequences the `gap` run sends, in order: 3 twice, 5 and 6 never.
pub const GAP_DELIVERY: &[u64] = &[1, 2, 3, 3, 4, 7, 8, 9];

/// The approval run's action, the only one a `respond` may answer.
const ACTION_ID: &str = "act-deploy";

impl AgentUiRun {
    const ALL: [AgentUiRun; 5] = [
        AgentUiRun::Status,
        AgentUiRun::Team,
        AgentUiRun::Approval,
        AgentUiRun::Gap,
        AgentUiRun::Child,
    ];

    pub fn pick(text: &str) -> AgentUiRun {
        pick_keyword(KEYWORDS, text).unwrap_or(AgentUiRun::Status)
    }

    /// Its golden log, one envelope a line.
    fn log(self) -> &'static str {
        match self {
            AgentUiRun::Status => STATUS,
            AgentUiRun::Team => TEAM,
            AgentUiRun::Approval => APPROVAL,
            AgentUiRun::Gap => GAP,
            AgentUiRun::Child => CHILD,
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
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Respond {
    action_id: String,
    option_id: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Resume {
    run_id: String,
    after: u64,
}

/// The controlled write a request carries, if any.
fn control(request: &EventsRequest) -> Result<Option<Control>, String> {
    let Some(write) = request.metadata.as_ref().and_then(|m| m.get("agentUi")) else {
        return Ok(None);
    };
    serde_json::from_value(write.clone())
        .map(Some)
        .map_err(|e| format!("invalid metadata.agentUi (a respond or a resume): {e}"))
}

/// The approval run after the user rejected the deploy: built like
/// `approval-approved.jsonl`, which is the run after an approval.
fn rejected() -> Vec<String> {
    let text = "I did not deploy: the request was rejected.";
    let deployer = "deployer@ops";
    let events = [
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
    events
        .into_iter()
        .zip(7u64..)
        .map(|((kind, fields), sequence)| {
            // The ids first, as in the logs.
            let mut event = json!({
                "type": kind,
                "sequence": sequence,
                "runId": AgentUiRun::Approval.run_id(),
                "threadId": "thread-approval",
            });
            if let (Some(event), Value::Object(fields)) = (event.as_object_mut(), fields) {
                event.extend(fields);
            }
            event.to_string()
        })
        .collect()
}

/// What `request` is answered: its name in the log and the events, in order. `Err` is the
/// 400's message.
fn answer(request: &EventsRequest) -> Result<(String, Vec<String>), String> {
    match control(request)? {
        None => {
            let run = AgentUiRun::pick(events::check(request)?);
            Ok((run.name(), run.delivery()))
        }
        Some(Control::Respond(respond)) => {
            events::check_bounds(request)?;
            if respond.action_id != ACTION_ID {
                return Err(format!(
                    "unknown actionId {:?}: the only action waiting is {ACTION_ID}",
                    respond.action_id
                ));
            }
            let events = match respond.option_id.as_str() {
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
            Ok((format!("respond:{}", respond.option_id), events))
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
            Ok((format!("resume:{}", run.run_id()), events))
        }
    }
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

pub async fn agent_ui(
    State(state): State<Arc<AppState>>,
    // Every request has an identity (the guard's); this runtime keeps nothing per user.
    Extension(_user): Extension<User>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let started = Instant::now();
    let log = |what: &str, response: Response| server::logged(PATH, what, started, response);
    let request = match events::read_request(PATH, &headers, body) {
        Ok(request) => request,
        Err(refused) => return log("-", refused),
    };
    let (name, events) = match answer(&request) {
        Ok(answer) => answer,
        Err(message) => return log("-", bad_request(&message)),
    };
    let steps = paced(events, state.pace);
    log(
        &name,
        events::stream(state.clone(), "agent-ui", name.clone(), steps),
    )
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

    #[test]
    fn keywords_pick_runs() {
        assert_eq!(AgentUiRun::pick("hello"), AgentUiRun::Status);
        assert_eq!(AgentUiRun::pick("the team please"), AgentUiRun::Team);
        assert_eq!(AgentUiRun::pick("needs approval"), AgentUiRun::Approval);
        assert_eq!(AgentUiRun::pick("Deploy it"), AgentUiRun::Approval);
        assert_eq!(AgentUiRun::pick("a gap"), AgentUiRun::Gap);
        assert_eq!(AgentUiRun::pick("children"), AgentUiRun::Child);
        assert_eq!(AgentUiRun::pick("steam"), AgentUiRun::Status);
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
        let (name, events) = answer(&request("gap", None)).unwrap();
        assert_eq!(name, "gap");
        assert_eq!(sequences(&events), GAP_DELIVERY);
        let (name, events) = answer(&request(
            "gap",
            Some(json!({"resume": {"runId": "run-gap", "after": 4}})),
        ))
        .unwrap();
        assert_eq!(name, "resume:run-gap");
        assert_eq!(sequences(&events), [5, 6, 7, 8, 9]);
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
}
