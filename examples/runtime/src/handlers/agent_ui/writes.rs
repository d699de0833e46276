//! Controlled writes (`metadata.agentUi`): answers to a run's action, a resume after a
//! gap, a page of a teammate's history; and what each request is answered with.

use super::live_runs::TurnKind;
use super::logs::*;
use crate::handlers::events::{self, Out};
use chat_shell_core::protocol::events::{EventsRequest, Role};
use serde::Deserialize;
use serde_json::{json, Value};
use std::time::Duration;

// --- controlled writes --------------------------------------------------------------------

/// `metadata.agentUi`: exactly one of its writes.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(super) enum Control {
    Respond(Respond),
    Resume(Resume),
    Queue(Target),
    Steer(Target),
    History(History),
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct History {
    pub(super) session_id: String,
    pub(super) before: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Respond {
    pub(super) action_id: String,
    /// The option picked (an approval).
    #[serde(default)]
    pub(super) option_id: Option<String>,
    /// The answer typed (a question).
    #[serde(default)]
    pub(super) text: Option<String>,
    /// The answers by question id (structured input).
    #[serde(default)]
    pub(super) answers: Option<serde_json::Map<String, Value>>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Resume {
    pub(super) run_id: String,
    pub(super) after: u64,
}

/// The live run a queue or a steer is for.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Target {
    pub(super) run_id: String,
}

/// The controlled write a request carries, if any.
pub(super) fn control(request: &EventsRequest) -> Result<Option<Control>, String> {
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
pub(super) fn rejected() -> Vec<String> {
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
pub(super) fn clarified(text: &str) -> Vec<String> {
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
pub(super) fn form_summary(answers: &serde_json::Map<String, Value>) -> Result<String, String> {
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
pub(super) fn inputs_taken(answers: serde_json::Map<String, Value>, summary: &str) -> Vec<String> {
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
pub(super) fn answered(
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
pub(super) fn decided(approved: bool) -> Vec<String> {
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
pub(super) fn continuation(
    run: AgentUiRun,
    thread_id: &str,
    events: Vec<(&str, Value)>,
) -> Vec<String> {
    events
        .into_iter()
        .zip(7u64..)
        .map(|((kind, fields), sequence)| envelope(kind, sequence, run.run_id(), thread_id, fields))
        .collect()
}

/// One event line: the ids first, as in the logs, then `fields` (an object).
pub(super) fn envelope(
    kind: &str,
    sequence: u64,
    run_id: &str,
    thread_id: &str,
    fields: Value,
) -> String {
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
pub(super) fn history_page(history: &History) -> Result<Value, String> {
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
pub(super) enum Answer {
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
pub(super) fn answer(request: &EventsRequest) -> Result<Answer, String> {
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
pub(super) fn turn(
    request: &EventsRequest,
    kind: TurnKind,
    target: Target,
) -> Result<Answer, String> {
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
pub(super) const STATUS_HOLD: Duration = Duration::from_millis(250);

/// `events`, `pace` apart (the first at once); an event after a runtime status waits at
/// least [`STATUS_HOLD`].
pub(super) fn paced(events: Vec<String>, pace: Duration) -> Vec<Out> {
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

pub(super) fn is_runtime_status(line: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(line)
        .is_ok_and(|event| event["surface"] == "runtime_status")
}
