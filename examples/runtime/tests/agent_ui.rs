//! `POST /agent-ui` end to end: the binary on a free port, spoken to over HTTP/1.1. Each
//! keyword streams its golden log exactly; `gap` breaks its delivery; `metadata.agentUi`
//! answers the approval or resumes a run; what is not a request is refused.

mod common;

use common::{Process, Stream};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

const STATUS: &str = include_str!("../../../tests/fixtures/agent-ui/status.jsonl");
const TEAM: &str = include_str!("../../../tests/fixtures/agent-ui/team.jsonl");
const APPROVAL: &str = include_str!("../../../tests/fixtures/agent-ui/approval.jsonl");
const APPROVED: &str = include_str!("../../../tests/fixtures/agent-ui/approval-approved.jsonl");
const GAP: &str = include_str!("../../../tests/fixtures/agent-ui/gap.jsonl");
const CHILD: &str = include_str!("../../../tests/fixtures/agent-ui/child.jsonl");

/// A golden log's events.
fn log(text: &str) -> Vec<Value> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("a fixture line"))
        .collect()
}

fn sequences(events: &[Value]) -> Vec<u64> {
    events
        .iter()
        .map(|e| e["sequence"].as_u64().expect("a sequence"))
        .collect()
}

/// The body the element sends: the conversation (`messages`), and `agent_ui` as
/// `metadata.agentUi` when given.
fn body(messages: Value, agent_ui: Option<Value>) -> Vec<u8> {
    let mut body = json!({ "messages": messages, "threadId": "thr_1" });
    if let Some(write) = agent_ui {
        body["metadata"] = json!({ "tenant": "acme", "agentUi": write });
    }
    body.to_string().into_bytes()
}

fn ask(text: &str) -> Vec<u8> {
    body(json!([{ "role": "user", "content": text }]), None)
}

async fn post(rt: &Process, content_type: Option<&str>, body: &[u8]) -> Stream {
    rt.send("POST", "/agent-ui", content_type, None, body).await
}

/// The whole stream of a request that must succeed.
async fn stream(rt: &Process, body: &[u8]) -> Vec<Value> {
    let mut reply = post(rt, Some("application/json"), body).await;
    assert_eq!(reply.status(), 200);
    assert_eq!(
        reply.header("content-type").as_deref(),
        Some("text/event-stream")
    );
    reply.rest().await
}

/// A request that must be refused with `status`; returns its error message.
async fn refused(rt: &Process, content_type: Option<&str>, body: &[u8], status: u16) -> String {
    let mut reply = post(rt, content_type, body).await;
    assert_eq!(reply.status(), status);
    let error = reply.json().await;
    error["error"]
        .as_str()
        .expect("an error message")
        .to_owned()
}

#[tokio::test]
async fn each_keyword_streams_exactly_its_log() {
    let rt = Process::start(&["--memory"], &[], false);
    for (text, fixture, name) in [
        ("hello there", STATUS, "status"),
        ("show me the team", TEAM, "team"),
        ("ask for approval", APPROVAL, "approval"),
        ("Deploy build 42", APPROVAL, "approval"),
        ("a child session", CHILD, "child"),
    ] {
        let events = stream(&rt, &ask(text)).await;
        assert_eq!(events, log(fixture), "{text}");
        let seqs = sequences(&events);
        assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{text}: {seqs:?}");
        rt.wait_for_line(&format!("POST /agent-ui {name} 200"))
            .unwrap_or_else(|| panic!("{text} is logged as {name}: {}", rt.output()));
    }
}

#[tokio::test]
async fn frames_are_data_lines_and_the_stream_just_ends() {
    let rt = Process::start(&["--memory"], &[], false);
    let mut reply = post(&rt, Some("application/json"), &ask("child")).await;
    assert_eq!(reply.status(), 200);
    reply.read_to_end().await;
    let text = String::from_utf8(reply.body.clone()).unwrap();
    let frames: Vec<&str> = text.split("\n\n").filter(|f| !f.is_empty()).collect();
    assert_eq!(frames.len(), log(CHILD).len(), "{text}");
    for (frame, expected) in frames.iter().zip(log(CHILD)) {
        let data: String = frame
            .lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .collect();
        assert_eq!(serde_json::from_str::<Value>(&data).unwrap(), expected);
    }
    assert!(!text.contains("[DONE]"), "{text}");
}

#[tokio::test]
async fn the_gap_run_repeats_one_and_skips_two_then_resumes_in_full() {
    let rt = Process::start(&["--memory"], &[], false);
    let golden = log(GAP);
    let events = stream(&rt, &ask("show a gap")).await;
    assert_eq!(sequences(&events), [1, 2, 3, 3, 4, 7, 8, 9]);
    for event in &events {
        let seq = event["sequence"].as_u64().unwrap() as usize;
        assert_eq!(event, &golden[seq - 1], "sequence {seq} is the log's");
    }
    // The client saw 4 and then 7: it asks again for what came after 4. Its conversation
    // now ends with the partial answer.
    let resume = body(
        json!([
            { "role": "user", "content": "show a gap" },
            { "role": "assistant", "content": "One, two, " }
        ]),
        Some(json!({ "resume": { "runId": "run-gap", "after": 4 } })),
    );
    let events = stream(&rt, &resume).await;
    assert_eq!(sequences(&events), [5, 6, 7, 8, 9]);
    assert_eq!(events, golden[4..]);
    rt.wait_for_line("POST /agent-ui resume:run-gap 200")
        .expect("the resume is logged");
    // Any run resumes by its id; after its last event there is nothing more.
    let team = body(
        json!([{ "role": "user", "content": "team" }]),
        Some(json!({ "resume": { "runId": "run-team", "after": 18 } })),
    );
    assert_eq!(stream(&rt, &team).await, log(TEAM)[18..]);
    let all = body(
        json!([{ "role": "user", "content": "hi" }]),
        Some(json!({ "resume": { "runId": "run-status", "after": 0 } })),
    );
    assert_eq!(stream(&rt, &all).await, log(STATUS));
    let none = body(
        json!([{ "role": "user", "content": "gap" }]),
        Some(json!({ "resume": { "runId": "run-gap", "after": 9 } })),
    );
    assert!(stream(&rt, &none).await.is_empty());
}

fn respond(option: &str) -> Vec<u8> {
    body(
        json!([{ "role": "user", "content": "deploy build 42" }]),
        Some(json!({ "respond": { "actionId": "act-deploy", "optionId": option } })),
    )
}

#[tokio::test]
async fn an_approval_goes_on_with_the_golden_continuation() {
    let rt = Process::start(&["--memory"], &[], false);
    let waiting = stream(&rt, &ask("deploy build 42")).await;
    assert_eq!(waiting.last().unwrap()["type"], "run.status");
    let required = waiting
        .iter()
        .find(|e| e["type"] == "action.required")
        .expect("an action");
    assert_eq!(required["actionId"], "act-deploy");
    let events = stream(&rt, &respond("approve")).await;
    assert_eq!(events, log(APPROVED));
    assert_eq!(sequences(&events), (7..=13).collect::<Vec<_>>());
    rt.wait_for_line("POST /agent-ui respond:approve 200")
        .expect("logged");
}

#[tokio::test]
async fn a_rejection_fails_the_tool_and_says_so() {
    let rt = Process::start(&["--memory"], &[], false);
    let events = stream(&rt, &respond("reject")).await;
    assert_eq!(sequences(&events), (7..=12).collect::<Vec<_>>());
    let types: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        types,
        [
            "action.resolved",
            "tool.failed",
            "agent.completed",
            "text.delta",
            "text.final",
            "run.finished"
        ]
    );
    for event in &events {
        assert_eq!(event["runId"], "run-approval");
        assert_eq!(event["threadId"], "thread-approval");
    }
    assert_eq!(events[0]["actionId"], "act-deploy");
    assert_eq!(
        events[0]["payload"],
        json!({ "optionId": "reject", "outcome": "rejected" })
    );
    assert_eq!(events[1]["toolCallId"], "tc-deploy");
    assert_eq!(events[1]["agentId"], "deployer@ops");
    assert_eq!(events[1]["payload"]["error"], "Rejected by the user");
    assert_eq!(events[2]["agentId"], "deployer@ops");
    assert_eq!(events[2]["payload"]["status"], "failed");
    let said = "I did not deploy: the request was rejected.";
    for (event, field) in [(&events[3], "delta"), (&events[4], "text")] {
        assert_eq!(event["messageId"], "msg-deployed");
        assert_eq!(event["agentId"], "deployer@ops");
        assert_eq!(event["payload"][field], said);
    }
    rt.wait_for_line("POST /agent-ui respond:reject 200")
        .expect("logged");
}

#[tokio::test]
async fn what_is_not_a_request_is_refused() {
    let rt = Process::start(&["--memory"], &[], false);
    let json_type = Some("application/json");
    let user = json!([{ "role": "user", "content": "deploy" }]);
    for (write, says) in [
        (json!("respond"), "metadata.agentUi"),
        (json!({}), "metadata.agentUi"),
        (
            json!({ "respond": { "actionId": "act-deploy" } }),
            "optionId",
        ),
        (json!({ "resume": { "runId": "run-gap" } }), "after"),
        (
            json!({ "resume": { "runId": "run-gap", "after": -1 } }),
            "metadata.agentUi",
        ),
        (
            json!({ "respond": { "actionId": "act-other", "optionId": "approve" } }),
            "unknown actionId \"act-other\"",
        ),
        (
            json!({ "respond": { "actionId": "act-deploy", "optionId": "later" } }),
            "unknown optionId \"later\"",
        ),
        (
            json!({ "resume": { "runId": "run-nowhere", "after": 4 } }),
            "unknown runId \"run-nowhere\"",
        ),
    ] {
        let message = refused(
            &rt,
            json_type,
            &body(user.clone(), Some(write.clone())),
            400,
        )
        .await;
        assert!(message.contains(says), "{write}: {message}");
    }
    // /events' checks: a conversation that ends with the user, bounded.
    for bad in [
        json!({ "messages": [] }),
        json!({ "messages": [{ "role": "user", "content": "a" }, { "role": "assistant", "content": "b" }] }),
        json!({ "messages": [{ "role": "system", "content": "obey" }] }),
        json!({ "messages": [{ "role": "user", "content": "a" }], "threadId": "t".repeat(300) }),
        json!({ "type": "threads.list", "params": {} }),
    ] {
        refused(&rt, json_type, bad.to_string().as_bytes(), 400).await;
    }
    refused(&rt, json_type, b"{not json", 400).await;
    // JSON only, and no bigger than /events takes.
    for content_type in [
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
        None,
    ] {
        let message = refused(&rt, content_type, &ask("team"), 415).await;
        assert!(message.contains("application/json"), "{message}");
    }
    let huge = ask(&"x".repeat(1024 * 1024));
    let mut reply = post(&rt, json_type, &huge).await;
    assert_eq!(reply.status(), 413);
    reply.read_to_end().await;
    rt.wait_for_line("POST /agent-ui - 400").expect("logged");
    rt.wait_for_line("POST /agent-ui - 415").expect("logged");
}

#[tokio::test]
async fn events_come_pace_apart() {
    let rt = Process::start(&["--memory", "--pace-ms", "25"], &[], false);
    let started = Instant::now();
    let events = stream(&rt, &ask("child")).await;
    assert_eq!(events, log(CHILD));
    // Nine events: eight pauses.
    assert!(
        started.elapsed() >= Duration::from_millis(8 * 25),
        "{:?}",
        started.elapsed()
    );
}
