//! `POST /agent-ui` end to end: the binary on a free port, spoken to over HTTP/1.1. Each
//! keyword streams its golden log exactly; `gap` breaks its delivery; `metadata.agentUi`
//! answers the approval or resumes a run; what is not a request is refused. `long` is a
//! live run that takes queued and steering turns while it streams.

mod common;

use common::{Request, Runtime, Stream};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

const STATUS: &str = include_str!("../../../tests/fixtures/agent-ui/status.jsonl");
const TEAM: &str = include_str!("../../../tests/fixtures/agent-ui/team.jsonl");
const APPROVAL: &str = include_str!("../../../tests/fixtures/agent-ui/approval.jsonl");
const APPROVED: &str = include_str!("../../../tests/fixtures/agent-ui/approval-approved.jsonl");
const GAP: &str = include_str!("../../../tests/fixtures/agent-ui/gap.jsonl");
const CHILD: &str = include_str!("../../../tests/fixtures/agent-ui/child.jsonl");
const CLARIFY: &str = include_str!("../../../tests/fixtures/agent-ui/clarify.jsonl");
const PLAN: &str = include_str!("../../../tests/fixtures/agent-ui/plan.jsonl");
const FORM: &str = include_str!("../../../tests/fixtures/agent-ui/form.jsonl");

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

async fn post(rt: &Runtime, content_type: Option<&str>, body: &[u8]) -> Stream {
    rt.fetch(
        Request::post("/agent-ui")
            .content_type(content_type)
            .body(body),
    )
    .await
}

/// The whole stream of a request that must succeed.
async fn stream(rt: &Runtime, body: &[u8]) -> Vec<Value> {
    let mut reply = post(rt, Some("application/json"), body).await;
    assert_eq!(reply.status(), 200);
    assert_eq!(reply.header("content-type"), Some("text/event-stream"));
    reply.rest().await
}

/// A request that must be refused with `status`; returns its error message.
async fn refused(rt: &Runtime, content_type: Option<&str>, body: &[u8], status: u16) -> String {
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
    let rt = Runtime::builder().args(&["--memory"]).quiet().start();
    for (text, fixture, name) in [
        ("hello there", STATUS, "status"),
        ("show me the team", TEAM, "team"),
        ("ask for approval", APPROVAL, "approval"),
        ("Deploy build 42", APPROVAL, "approval"),
        ("a child session", CHILD, "child"),
        ("clarify the notes", CLARIFY, "clarify"),
        ("plan the notes", PLAN, "plan"),
        ("fill in the form", FORM, "form"),
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
    let rt = Runtime::builder().args(&["--memory"]).quiet().start();
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
    let rt = Runtime::builder().args(&["--memory"]).quiet().start();
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
    let rt = Runtime::builder().args(&["--memory"]).quiet().start();
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
async fn a_teammates_older_messages_load_a_page_at_a_time_as_json() {
    let rt = Runtime::builder().args(&["--memory"]).quiet().start();
    let hydrated = stream(&rt, &ask("child: load the tables")).await;
    let newest = hydrated
        .iter()
        .rfind(|e| e["type"] == "session.hydrated")
        .expect("a window");
    assert_eq!(newest["payload"]["hasMore"], true, "older messages exist");
    let page = |before: &str| {
        body(
            json!([{ "role": "user", "content": "child: load the tables" }]),
            Some(json!({ "history": { "sessionId": "session-analyst", "before": before } })),
        )
    };
    let mut reply = post(&rt, Some("application/json"), &page("an-1")).await;
    assert_eq!(reply.status(), 200);
    assert_eq!(reply.header("content-type"), Some("application/json"));
    let first = reply.json().await;
    assert_eq!(first["type"], "session.hydrated");
    assert_eq!(first["agentId"], "analyst@data");
    assert_eq!(first["payload"]["before"], "an-1");
    let texts = |page: &Value| -> Vec<String> {
        page["payload"]["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["text"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(
        texts(&first),
        [
            "Picked 4 tables for the report.",
            "Checked the row counts: 1.2 M in all.",
            "Started loading."
        ]
    );
    assert_eq!(first["payload"]["hasMore"], true);
    let mut reply = post(&rt, Some("application/json"), &page("an-c")).await;
    let last = reply.json().await;
    assert_eq!(last["payload"]["hasMore"], false);
    assert_eq!(texts(&last).len(), 2);
    rt.wait_for_line("POST /agent-ui history 200")
        .expect("logged");
    let error = refused(&rt, Some("application/json"), &page("an-zz"), 400).await;
    assert!(error.contains("no message \"an-zz\""), "{error}");
}

#[tokio::test]
async fn a_question_is_answered_with_text_and_the_run_confirms_that_answer() {
    let rt = Runtime::builder().args(&["--memory"]).quiet().start();
    let waiting = stream(&rt, &ask("clarify the release notes")).await;
    let required = waiting
        .iter()
        .find(|e| e["type"] == "action.required")
        .expect("a question");
    assert_eq!(required["payload"]["actionType"], "clarification");
    assert_eq!(waiting.last().unwrap()["payload"]["status"], "waiting");
    let answer = |text: &str| {
        body(
            json!([{ "role": "user", "content": "clarify the release notes" }]),
            Some(json!({"respond": {"actionId": "act-clarify", "text": text}})),
        )
    };
    let events = stream(&rt, &answer("2.4 <b>\"beta\"</b>")).await;
    assert_eq!(sequences(&events), (7..=12).collect::<Vec<_>>());
    assert_eq!(events[0]["type"], "action.resolved");
    assert_eq!(events[0]["actionId"], "act-clarify");
    assert_eq!(
        events[0]["payload"]["text"], "2.4 <b>\"beta\"</b>",
        "the answer it got, verbatim"
    );
    let notes = events
        .iter()
        .find(|e| e["type"] == "text.final")
        .expect("notes");
    assert!(notes["payload"]["text"]
        .as_str()
        .unwrap()
        .contains("«2.4 <b>\"beta\"</b>»"));
    rt.wait_for_line("POST /agent-ui respond:answer 200")
        .expect("logged");
    // A question is answered with text, not an option; nor with an empty or huge text.
    for bad in [answer("   "), answer(&"x".repeat(2_001))] {
        let message = refused(&rt, Some("application/json"), &bad, 400).await;
        assert!(
            message.contains("act-clarify") || message.contains("2000"),
            "{message}"
        );
    }
}

#[tokio::test]
async fn a_plan_decision_is_confirmed_then_the_plan_runs_or_waits_for_revision() {
    let rt = Runtime::builder().args(&["--memory"]).quiet().start();
    let waiting = stream(&rt, &ask("plan the release notes")).await;
    let required = waiting
        .iter()
        .find(|e| e["type"] == "action.required")
        .expect("a decision");
    assert_eq!(required["payload"]["actionType"], "plan_decision");
    let decide = |option: &str| {
        body(
            json!([{ "role": "user", "content": "plan the release notes" }]),
            Some(json!({"respond": {"actionId": "act-plan", "optionId": option}})),
        )
    };
    for (option, outcome, status) in [
        ("approve", "approved", "completed"),
        ("revise", "rejected", "idle"),
    ] {
        let events = stream(&rt, &decide(option)).await;
        assert_eq!(sequences(&events), (7..=12).collect::<Vec<_>>(), "{option}");
        assert_eq!(
            events[0]["type"], "action.resolved",
            "the decision is confirmed first"
        );
        assert_eq!(events[0]["payload"]["optionId"], option);
        assert_eq!(events[0]["payload"]["outcome"], outcome);
        let member = events
            .iter()
            .find(|e| e["type"] == "agent.changed")
            .unwrap();
        assert_eq!(member["payload"]["status"], status);
        rt.wait_for_line(&format!("POST /agent-ui respond:plan:{option} 200"))
            .expect("logged");
    }
    let message = refused(&rt, Some("application/json"), &decide("maybe"), 400).await;
    assert!(message.contains("approve or revise"), "{message}");
}

#[tokio::test]
async fn structured_input_is_answered_by_question_id_and_the_run_confirms_those_answers() {
    let rt = Runtime::builder().args(&["--memory"]).quiet().start();
    let waiting = stream(&rt, &ask("fill in the release form")).await;
    let required = waiting
        .iter()
        .find(|e| e["type"] == "action.required")
        .expect("an input");
    assert_eq!(required["payload"]["actionType"], "input");
    let respond = |answers: Value| {
        body(
            json!([{ "role": "user", "content": "fill in the release form" }]),
            Some(json!({"respond": {"actionId": "act-input", "answers": answers}})),
        )
    };
    let answers = json!({
        "channel": {"values": ["beta"], "skipped": false},
        "notes": {"values": ["<b>fast</b>"], "skipped": false},
    });
    let events = stream(&rt, &respond(answers.clone())).await;
    assert_eq!(sequences(&events), (7..=12).collect::<Vec<_>>());
    assert_eq!(events[0]["type"], "action.resolved");
    assert_eq!(
        events[0]["payload"]["answers"], answers,
        "the answers it took, verbatim"
    );
    let text = events.iter().find(|e| e["type"] == "text.final").unwrap();
    assert_eq!(
        text["payload"]["text"],
        "Noted: channel: beta; notes: <b>fast</b>. Cutting the release."
    );
    rt.wait_for_line("POST /agent-ui respond:input 200")
        .expect("logged");
    for (bad, why) in [
        (json!({"colour": {"values": ["red"]}}), "unknown question"),
        (json!({"channel": {"values": [1]}}), "non-text"),
        (json!({"channel": {}}), "not a list"),
    ] {
        let message = refused(&rt, Some("application/json"), &respond(bad), 400).await;
        assert!(message.contains(why), "{message}");
    }
}

#[tokio::test]
async fn a_rejection_fails_the_tool_and_says_so() {
    let rt = Runtime::builder().args(&["--memory"]).quiet().start();
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
    let rt = Runtime::builder().args(&["--memory"]).quiet().start();
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
    let rt = Runtime::builder()
        .args(&["--memory", "--pace-ms", "25"])
        .quiet()
        .start();
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

// --- live runs: `long`, queue and steer -----------------------------------------------------

/// Opens a live run with `body`; its stream and the identity cookie it was given (a queue
/// or a steer must come from the same identity).
async fn open_live(rt: &Runtime, body: &[u8]) -> (Stream, String) {
    let reply = post(rt, Some("application/json"), body).await;
    assert_eq!(reply.status(), 200);
    assert_eq!(reply.header("content-type"), Some("text/event-stream"));
    let cookie = reply.cookie().expect("an identity cookie");
    (reply, cookie)
}

/// The body of a queue or a steer (`kind`) of `text` for `run_id`: the conversation so
/// far, `text` as its last user message.
fn turn_body(kind: &str, run_id: &str, text: &str) -> Vec<u8> {
    body(
        json!([
            { "role": "user", "content": "write something long" },
            { "role": "assistant", "content": "Step 1 of 40. " },
            { "role": "user", "content": text }
        ]),
        Some(json!({ (kind): { "runId": run_id } })),
    )
}

/// POSTs a queue or a steer as `cookie` (`None`: a new identity); its status and JSON.
async fn turn(
    rt: &Runtime,
    cookie: Option<&str>,
    kind: &str,
    run_id: &str,
    text: &str,
) -> (u16, Value) {
    let body = turn_body(kind, run_id, text);
    let mut reply = rt
        .fetch(
            Request::post("/agent-ui")
                .content_type(Some("application/json"))
                .cookie(cookie)
                .body(body),
        )
        .await;
    assert_eq!(reply.header("content-type"), Some("application/json"));
    (reply.status(), reply.json().await)
}

/// A queue or steer that must be accepted; its turn id.
async fn accepted(rt: &Runtime, cookie: &str, kind: &str, run_id: &str, text: &str) -> String {
    let (status, reply) = turn(rt, Some(cookie), kind, run_id, text).await;
    assert_eq!(status, 202, "{reply}");
    assert_eq!(reply["accepted"], kind);
    assert_eq!(reply["runId"], run_id);
    let turn_id = reply["turnId"].as_str().expect("a turnId").to_owned();
    assert!(turn_id.starts_with("turn-"), "{turn_id}");
    turn_id
}

/// A queue or steer refused as not active (409).
async fn not_active(rt: &Runtime, cookie: Option<&str>, kind: &str, run_id: &str) {
    let (status, reply) = turn(rt, cookie, kind, run_id, "hello").await;
    assert_eq!(status, 409, "{kind} {run_id}: {reply}");
    assert_eq!(
        reply["error"],
        format!("run {run_id} is not active; send the message instead")
    );
    assert_eq!(reply["code"], "run_not_active");
}

fn kinds(events: &[Value]) -> Vec<&str> {
    events.iter().map(|e| e["type"].as_str().unwrap()).collect()
}

/// The stream's events cut into its runs, in order; each run's events are contiguous in
/// the stream and count 1, 2, 3, …
fn runs(events: &[Value]) -> Vec<(String, Vec<Value>)> {
    let mut runs: Vec<(String, Vec<Value>)> = Vec::new();
    for event in events {
        let id = event["runId"].as_str().expect("a runId");
        match runs.last_mut() {
            Some((run, events)) if run == id => events.push(event.clone()),
            _ => {
                assert!(runs.iter().all(|(run, _)| run != id), "{id} came back");
                runs.push((id.to_owned(), vec![event.clone()]));
            }
        }
    }
    for (run, events) in &runs {
        assert_eq!(
            sequences(events),
            (1..=events.len() as u64).collect::<Vec<_>>(),
            "{run}"
        );
    }
    runs
}

/// The deltas of message `id` joined.
fn streamed(events: &[Value], id: &str) -> String {
    events
        .iter()
        .filter(|e| e["type"] == "text.delta" && e["messageId"] == id)
        .map(|e| e["payload"]["delta"].as_str().unwrap())
        .collect()
}

/// A live run starts offering queue and steer.
fn assert_started(event: &Value) {
    assert_eq!(event["type"], "run.started");
    assert_eq!(event["sequence"], 1);
    assert_eq!(event["owner"], "runtime");
    assert_eq!(event["payload"]["controls"], json!(["queue", "steer"]));
}

#[tokio::test]
async fn a_long_run_is_live_and_streams_forty_steps() {
    let rt = Runtime::builder().args(&["--memory"]).quiet().start();
    let started = Instant::now();
    let with_thread = ask("write something long");
    let no_thread = json!({ "messages": [{ "role": "user", "content": "a Long one" }] })
        .to_string()
        .into_bytes();
    let (first, second) = tokio::join!(stream(&rt, &with_thread), stream(&rt, &no_thread));
    // Paced 150 ms apart even with --pace-ms 0: 39 pauses between 40 deltas.
    assert!(
        started.elapsed() >= Duration::from_millis(39 * 150),
        "{:?}",
        started.elapsed()
    );
    let mut ids = Vec::new();
    for (events, thread) in [(first, "thr_1"), (second, "thread-long")] {
        let runs = runs(&events);
        assert_eq!(runs.len(), 1, "{events:#?}");
        let run = events[0]["runId"].as_str().unwrap().to_owned();
        let n = run.strip_prefix("run-long-").expect("run-long-<n>");
        let message = format!("msg-long-{n}");
        for event in &events {
            assert_eq!(event["threadId"], thread);
        }
        assert_started(&events[0]);
        assert_eq!(events[1]["type"], "run.status");
        assert_eq!(events[1]["surface"], "runtime_status");
        assert_eq!(
            events[1]["payload"],
            json!({ "status": "working", "label": "Writing a long answer" })
        );
        let deltas = &events[2..events.len() - 2];
        assert_eq!(deltas.len(), 40);
        for (i, delta) in deltas.iter().enumerate() {
            assert_eq!(delta["type"], "text.delta");
            assert_eq!(delta["messageId"], message);
            assert_eq!(delta["payload"]["delta"], format!("Step {} of 40. ", i + 1));
        }
        let last = &events[events.len() - 2..];
        assert_eq!(kinds(last), ["text.final", "run.finished"]);
        assert_eq!(last[0]["messageId"], message);
        assert_eq!(last[0]["payload"]["text"], streamed(&events, &message));
        assert_eq!(last[1]["payload"]["outcome"], "completed");
        ids.push(run);
    }
    assert_ne!(ids[0], ids[1], "run ids are unique");
    rt.wait_for_line("POST /agent-ui long 200").expect("logged");
}

#[tokio::test]
async fn queued_turns_run_next_on_the_same_stream() {
    let rt = Runtime::builder().args(&["--memory"]).quiet().start();
    let (mut live, cookie) = open_live(&rt, &ask("write something long")).await;
    let first = live
        .next_event(Duration::from_secs(5))
        .await
        .expect("run.started");
    assert_started(&first);
    let run = first["runId"].as_str().unwrap().to_owned();
    let a = accepted(&rt, &cookie, "queue", &run, "Then summarize it").await;
    let b = accepted(&rt, &cookie, "queue", &run, "And translate it").await;
    assert_ne!(a, b);
    let mut events = vec![first];
    events.extend(live.rest().await);
    let runs = runs(&events);
    assert_eq!(runs.len(), 3, "{events:#?}");
    let queued = |id: &str, text: &str| json!({ "turnId": id, "text": text, "status": "queued" });
    let started = |id: &str, text: &str, run: &str| json!({ "turnId": id, "text": text, "status": "started", "runId": run });

    // The live run: each queued turn shows as it comes, then the first one starts.
    let (long, events) = &runs[0];
    assert_eq!(long, &run);
    let changes: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "queue.changed")
        .collect();
    assert_eq!(changes.len(), 3, "{events:#?}");
    for change in &changes {
        assert_eq!(change["owner"], "runtime");
        assert_eq!(change["surface"], "composer");
        assert_eq!(change["threadId"], "thr_1");
    }
    assert_eq!(
        changes[0]["payload"],
        json!({ "queued": [queued(&a, "Then summarize it")] })
    );
    assert_eq!(
        changes[1]["payload"],
        json!({ "queued": [queued(&a, "Then summarize it"), queued(&b, "And translate it")] })
    );
    let n = run.strip_prefix("run-long-").unwrap();
    assert_eq!(
        streamed(events, &format!("msg-long-{n}"))
            .matches("Step")
            .count(),
        40
    );
    let tail = &events[events.len() - 3..];
    assert_eq!(kinds(tail), ["text.final", "queue.changed", "run.finished"]);
    let (second, second_events) = &runs[1];
    assert!(second.starts_with("run-queued-"), "{second}");
    assert_eq!(
        tail[1]["payload"],
        json!({ "queued": [
            started(&a, "Then summarize it", second),
            queued(&b, "And translate it")
        ] })
    );

    // The queued turns, one run each, answering their text; the next one starts from the
    // run before it.
    let (third, third_events) = &runs[2];
    assert!(third.starts_with("run-queued-"), "{third}");
    assert_ne!(second, third);
    for (id, events, text) in [
        (second, second_events, "Then summarize it"),
        (third, third_events, "And translate it"),
    ] {
        assert_started(&events[0]);
        assert_eq!(events[0]["threadId"], "thr_1");
        let message = format!("msg-{id}");
        let said = format!("You queued: «{text}». Done.");
        assert_eq!(streamed(events, &message), said);
        let finals: Vec<&Value> = events
            .iter()
            .filter(|e| e["type"] == "text.final")
            .collect();
        assert_eq!(finals.len(), 1);
        assert_eq!(finals[0]["messageId"], message);
        assert_eq!(finals[0]["payload"]["text"], said);
        assert_eq!(events.last().unwrap()["type"], "run.finished");
    }
    let handoff: Vec<&Value> = second_events
        .iter()
        .filter(|e| e["type"] == "queue.changed")
        .collect();
    assert_eq!(handoff.len(), 1);
    assert_eq!(
        handoff[0]["payload"],
        json!({ "queued": [started(&b, "And translate it", third)] })
    );
    assert!(third_events.iter().all(|e| e["type"] != "queue.changed"));
    // The stream is over: so are its runs.
    not_active(&rt, Some(&cookie), "queue", third).await;
    rt.wait_for_line(&format!("POST /agent-ui queue:{run} 202"))
        .expect("logged");
}

#[tokio::test]
async fn a_steer_changes_course_mid_run() {
    let rt = Runtime::builder().args(&["--memory"]).quiet().start();
    let (mut live, cookie) = open_live(&rt, &ask("write something long")).await;
    let mut events = live
        .until("the third step", |e| {
            e["payload"]["delta"] == "Step 3 of 40. "
        })
        .await;
    let run = events[0]["runId"].as_str().unwrap().to_owned();
    let message = format!("msg-long-{}", run.strip_prefix("run-long-").unwrap());
    let text = "Make it about cats instead";
    let steer = accepted(&rt, &cookie, "steer", &run, text).await;
    events.extend(live.rest().await);
    assert_eq!(runs(&events).len(), 1, "{events:#?}");

    let at = events
        .iter()
        .position(|e| e["type"] == "queue.changed")
        .expect("a queue.changed");
    assert_eq!(events[at]["surface"], "composer");
    assert_eq!(
        events[at]["payload"],
        json!({
            "steer": { "turnId": steer, "text": text, "status": "applied" },
            "queued": []
        })
    );
    // What was streamed so far is final; the steps left are not sent.
    let before = &events[..at];
    let so_far = streamed(before, &message);
    assert!(so_far.starts_with("Step 1 of 40. Step 2 of 40. Step 3 of 40. "));
    assert!(!so_far.contains("Step 40 of 40."), "{so_far}");
    assert_eq!(events[at + 1]["type"], "text.final");
    assert_eq!(events[at + 1]["messageId"], message);
    assert_eq!(events[at + 1]["payload"]["text"], so_far);
    assert_eq!(streamed(&events[at..], &message), "");

    // A new message changes course.
    let steered = format!("{message}-steer-1");
    let after = &events[at + 2..];
    let said = streamed(after, &steered);
    assert!(
        said.starts_with(&format!("Changing course: {text}. Step 1 of 10. ")),
        "{said}"
    );
    assert!(said.ends_with("Step 10 of 10. "), "{said}");
    assert_eq!(
        kinds(&after[after.len() - 2..]),
        ["text.final", "run.finished"]
    );
    assert_eq!(after[after.len() - 2]["messageId"], steered);
    assert_eq!(after[after.len() - 2]["payload"]["text"], said);
    assert!(after[..after.len() - 2]
        .iter()
        .all(|e| e["type"] == "text.delta" && e["messageId"] == steered));
    rt.wait_for_line(&format!("POST /agent-ui steer:{run} 202"))
        .expect("logged");
}

#[tokio::test]
async fn queue_and_steer_need_an_active_run_of_yours() {
    let rt = Runtime::builder().args(&["--memory"]).quiet().start();
    let (mut live, cookie) = open_live(&rt, &ask("long")).await;
    let first = live
        .next_event(Duration::from_secs(5))
        .await
        .expect("run.started");
    let run = first["runId"].as_str().unwrap().to_owned();
    for kind in ["queue", "steer"] {
        for unknown in ["run-nope", "run-status", "run-long-999"] {
            not_active(&rt, Some(&cookie), kind, unknown).await;
        }
        // Someone else's live run is not theirs to change: the same answer.
        not_active(&rt, None, kind, &run).await;
        for blank in ["", "  \n "] {
            let (status, reply) = turn(&rt, Some(&cookie), kind, &run, blank).await;
            assert_eq!(status, 400, "{reply}");
            assert!(
                reply["error"].as_str().unwrap().contains("blank"),
                "{reply}"
            );
        }
        // Checked like any /agent-ui request.
        let refused_type = refused(
            &rt,
            Some("text/plain"),
            &turn_body(kind, &run, "hello"),
            415,
        )
        .await;
        assert!(refused_type.contains("application/json"), "{refused_type}");
        let no_run = body(
            json!([{ "role": "user", "content": "hi" }]),
            Some(json!({ (kind): {} })),
        );
        refused(&rt, Some("application/json"), &no_run, 400).await;
    }
    // Steered at once, the run ends soon; once finished it takes nothing more.
    accepted(&rt, &cookie, "steer", &run, "short, please").await;
    let rest = live.rest().await;
    assert_eq!(rest.last().unwrap()["type"], "run.finished");
    assert!(rest
        .iter()
        .all(|e| e["type"] != "queue.changed" || e["payload"]["steer"]["status"] == "applied"));
    for kind in ["queue", "steer"] {
        not_active(&rt, Some(&cookie), kind, &run).await;
    }
    rt.wait_for_line("POST /agent-ui queue:run-nope 409")
        .expect("logged");
}

#[tokio::test]
async fn a_client_that_leaves_ends_its_live_run() {
    let rt = Runtime::builder().args(&["--memory"]).quiet().start();
    let (mut live, cookie) = open_live(&rt, &ask("long")).await;
    let first = live
        .next_event(Duration::from_secs(5))
        .await
        .expect("run.started");
    let run = first["runId"].as_str().unwrap().to_owned();
    accepted(&rt, &cookie, "queue", &run, "after that").await;
    drop(live);
    // The runtime notices at its next write (a delta every 150 ms): like Stop, the run
    // and its queue are dropped.
    let line = rt
        .wait_for_line(&format!("agent-ui stream closed by client: {run} "))
        .unwrap_or_else(|| panic!("the run ends: {}", rt.output()));
    assert!(line.contains("1 queued turns dropped"), "{line}");
    for kind in ["queue", "steer"] {
        not_active(&rt, Some(&cookie), kind, &run).await;
    }
}
