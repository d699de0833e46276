use super::*;
use crate::handlers::events::Out;
use chat_shell_core::protocol::events::EventsRequest;
use serde_json::Value;
use std::time::Duration;

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
    assert!(chat_shell_core::adapters::agent_ui::history_page(&first.to_string()).is_ok());
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
