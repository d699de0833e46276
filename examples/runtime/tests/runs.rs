//! Answers detached from the request that started them: a client leaving does not stop
//! them, a thread channel (`threads.subscribe`) picks a run up mid-answer (snapshot, then
//! live events, then `thread.run.ended`), and `threads.cancel_run` stops one. The real
//! binary over HTTP/1.1, streams read as they come.

mod common;

use common::{add_message, create, Runtime, Stream};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

/// The file's requests, all as one browser with its identity.
impl Runtime {
    /// In memory, `pace_ms` between deltas.
    async fn start(pace_ms: &str) -> Runtime {
        let rt = Runtime::spawn(&["--memory", "--dist", "/nonexistent", "--pace-ms", pace_ms]);
        rt.set_cookie(Some(rt.new_identity().await));
        rt
    }

    async fn json(&self, request: Value) -> Value {
        let mut reply = self.post(request).await;
        assert_eq!(reply.status(), 200);
        reply.json().await
    }

    async fn cancel(&self, thread: &str) -> Value {
        self.json(json!({"type": "threads.cancel_run", "params": {"thread_id": thread}}))
            .await
    }

    /// Opens `thread`'s channel and reads it up to `thread.channel.ready`.
    async fn subscribe(&self, thread: &str) -> Stream {
        self.open_channel(&self.identity(), thread).await
    }

    /// The text of the thread's assistant message(s), as stored.
    async fn stored_text(&self, thread: &str) -> String {
        let full = self
            .json(json!({"type": "threads.get_by_id", "params": {"thread_id": thread}}))
            .await;
        full["items"]["data"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["type"] == "assistant_message")
            .map(|i| i["content"][0]["text"].as_str().unwrap_or("").to_owned())
            .collect()
    }
}

/// The text of a text delta event.
fn delta(event: &Value) -> Option<&str> {
    (event["type"] == "thread.item.updated"
        && event["update"]["type"] == "assistant_message.content_part.text_delta")
        .then(|| event["update"]["delta"].as_str().unwrap())
}

fn is_run_ended(e: &Value) -> bool {
    e["type"] == "thread.run.ended"
}

/// The inner events of a channel's `thread.run.event`s.
fn run_events(channel_events: &[Value]) -> Vec<Value> {
    channel_events
        .iter()
        .filter(|e| e["type"] == "thread.run.event")
        .map(|e| e["event"].clone())
        .collect()
}

/// The assistant text a client folding `events` shows: an added message's text, then its
/// deltas (a finished part is not applied: it would hide a missing or doubled delta).
fn folded_text(events: &[Value]) -> String {
    let mut text = String::new();
    for e in events {
        if e["type"] == "thread.item.added" && e["item"]["type"] == "assistant_message" {
            text.push_str(e["item"]["content"][0]["text"].as_str().unwrap_or(""));
        } else if let Some(d) = delta(e) {
            text.push_str(d);
        }
    }
    text
}

/// Reads `stream` until it has sent `n` text deltas; returns the events read.
async fn read_deltas(stream: &mut Stream, n: usize) -> Vec<Value> {
    let mut seen = Vec::new();
    while seen.iter().filter(|e| delta(e).is_some()).count() < n {
        let event = stream
            .next_event(Duration::from_secs(20))
            .await
            .unwrap_or_else(|| panic!("the answer ended early: {seen:#?}"));
        seen.push(event);
    }
    seen
}

fn thread_id(events: &[Value]) -> String {
    events
        .iter()
        .find(|e| e["type"] == "thread.created")
        .expect("thread.created")["thread"]["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// The whole `long` answer, streamed at once (`fast`): what a paced one ends up as.
async fn long_answer(rt: &Runtime) -> String {
    let events = rt.post(create("long fast")).await.rest().await;
    let text = folded_text(&events);
    assert!(text.len() > 100_000, "{}", text.len());
    text
}

#[tokio::test]
async fn a_client_that_leaves_mid_answer_does_not_stop_the_run() {
    let rt = Runtime::start("2").await;
    let whole = long_answer(&rt).await;
    let mut origin = rt.post(create("long")).await;
    let read = read_deltas(&mut origin, 50).await;
    let thread = thread_id(&read);
    drop(origin);
    let line = rt
        .wait_for_line(&format!(
            "stream closed by client: threads.create thread={thread} after"
        ))
        .unwrap_or_else(|| panic!("no close line in:\n{}", rt.output()));
    assert!(line.ends_with("(the run goes on)"), "{line}");
    // It goes on to the end, stored as usual.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let stored = rt.stored_text(&thread).await;
        if stored == whole {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the answer was not finished: {} of {} bytes",
            stored.len(),
            whole.len()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(!rt.output().contains("run cancelled"), "{}", rt.output());
    assert_eq!(rt.cancel(&thread).await, json!({"cancelled": false}));
}

#[tokio::test]
async fn a_channel_opened_mid_answer_gets_the_snapshot_then_live_events_then_the_end() {
    let rt = Runtime::start("2").await;
    let mut origin = rt.post(create("long")).await;
    let mut read = read_deltas(&mut origin, 100).await;
    let thread = thread_id(&read);
    // The origin keeps reading meanwhile, as a browser would.
    let origin = tokio::spawn(async move {
        read.extend(origin.rest().await);
        read
    });
    let mut channel = rt.subscribe(&thread).await;
    let events = channel.until("thread.run.ended", is_run_ended).await;
    assert_eq!(events.last().unwrap()["outcome"], "done");
    // Announced first, then only run events, without seq.
    assert_eq!(events[0]["type"], "thread.run.started", "{}", events[0]);
    assert!(
        events[1..events.len() - 1]
            .iter()
            .all(|e| e["type"] == "thread.run.event" && e.get("seq").is_none()),
        "only run events, without seq"
    );
    let run = run_events(&events);
    // The snapshot: the user message done, the answer in progress with what it has so far.
    assert_eq!(run[0]["type"], "thread.item.done");
    assert_eq!(run[0]["item"]["type"], "user_message");
    assert_eq!(run[1]["type"], "thread.item.added");
    assert_eq!(run[1]["item"]["type"], "assistant_message");
    let partial = run[1]["item"]["content"][0]["text"].as_str().unwrap();
    let whole = rt.stored_text(&thread).await;
    assert!(
        !partial.is_empty() && partial.len() < whole.len(),
        "joined mid-answer: {} of {} bytes",
        partial.len(),
        whole.len()
    );
    // Then live: snapshot and deltas add up to the stored answer, nothing twice or missing.
    assert!(delta(&run[2]).is_some(), "{}", run[2]);
    assert_eq!(folded_text(&run), whole);
    let done = run
        .iter()
        .rfind(|e| e["type"] == "thread.item.done" && e["item"]["type"] == "assistant_message")
        .expect("the answer's item.done");
    assert_eq!(done["item"]["content"][0]["text"], whole.as_str());
    // The origin got every event too, ending the same.
    let origin = origin.await.unwrap();
    assert_eq!(folded_text(&origin), whole);
    assert_eq!(origin.last(), run.last(), "the same last event");
    assert_eq!(rt.cancel(&thread).await, json!({"cancelled": false}));
}

#[tokio::test]
async fn cancel_run_stops_the_run_like_a_client_leaving_used_to() {
    let rt = Runtime::start("2").await;
    let mut origin = rt.post(create("long")).await;
    let read = read_deltas(&mut origin, 20).await;
    let thread = thread_id(&read);
    let mut channel = rt.subscribe(&thread).await;

    // Someone else cannot, and a bad request is refused.
    let stranger = rt
        .open(
            None,
            &json!({"type": "threads.cancel_run", "params": {"thread_id": thread}}),
        )
        .await;
    assert_eq!(stranger.status(), 404);
    let mut stranger = stranger;
    assert_eq!(stranger.json().await["code"], "not_found");
    let mut bad = rt
        .post(json!({"type": "threads.cancel_run", "params": {}}))
        .await;
    assert_eq!(bad.status(), 400, "{}", bad.json().await);

    assert_eq!(rt.cancel(&thread).await, json!({"cancelled": true}));
    // The origin ends (cleanly), the channel says so.
    let rest = origin.rest().await;
    assert!(origin.ended);
    let events = channel.until("thread.run.ended", is_run_ended).await;
    assert_eq!(events.last().unwrap()["outcome"], "cancelled");
    rt.wait_for_line(&format!(
        "run cancelled: threads.create thread={thread} after"
    ))
    .unwrap_or_else(|| panic!("no cancel line in:\n{}", rt.output()));
    // Stored as a stopped answer: the partial text kept, no item.done; exactly what both
    // the origin and the channel showed.
    let stored = rt.stored_text(&thread).await;
    let mut shown = read;
    shown.extend(rest);
    assert!(!stored.is_empty(), "the partial answer is kept");
    assert_eq!(folded_text(&shown), stored);
    assert_eq!(folded_text(&run_events(&events)), stored);
    assert!(
        !shown
            .iter()
            .any(|e| e["type"] == "thread.item.done" && e["item"]["type"] == "assistant_message"),
        "the answer was not finished"
    );
    let items = rt
        .json(json!({"type": "items.list", "params": {"thread_id": thread, "order": "asc"}}))
        .await;
    assert_eq!(items["data"].as_array().unwrap().len(), 2, "{items}");
    assert_eq!(rt.cancel(&thread).await, json!({"cancelled": false}));
    // And the channel stays open for what comes next.
    rt.post(add_message(&thread, "hello again"))
        .await
        .rest()
        .await;
    let next = channel.until("thread.run.ended", is_run_ended).await;
    assert_eq!(next.last().unwrap()["outcome"], "done");
}

#[tokio::test]
async fn every_channel_gets_a_run_started_while_it_is_open() {
    let rt = Runtime::start("0").await;
    let first = rt.post(create("hello")).await.rest().await;
    let thread = thread_id(&first);
    let mut a = rt.subscribe(&thread).await;
    let mut b = rt.subscribe(&thread).await;
    let origin = rt
        .post(add_message(&thread, "markdown please"))
        .await
        .rest()
        .await;
    for channel in [&mut a, &mut b] {
        let events = channel.until("thread.run.ended", is_run_ended).await;
        assert_eq!(events.last().unwrap()["outcome"], "done");
        let started = events
            .iter()
            .position(|e| e["type"] == "thread.run.started");
        let first_run_event = events.iter().position(|e| e["type"] == "thread.run.event");
        assert!(
            started.is_some() && started < first_run_event,
            "announced before its events"
        );
        // From its first event on, exactly as the origin got them.
        assert_eq!(run_events(&events), origin);
    }
    assert_eq!(origin[0]["type"], "thread.item.done");
    assert_eq!(origin[0]["item"]["type"], "user_message");
}

/// A reload while the run asks permission: the run goes on waiting; a channel's snapshot
/// shows the request still asking; the answer goes to the waiting run (its own stream only
/// confirms) and the channel sees the rest.
#[tokio::test]
async fn a_permission_asked_before_a_reload_is_answered_into_the_waiting_run() {
    let rt = Runtime::start("0").await;
    let mut origin = rt.post(create("permission please")).await;
    let read = origin
        .until("the permission request", |e| {
            e["update"]["type"] == "acp_tool_call.permission_requested"
        })
        .await;
    let thread = thread_id(&read);
    drop(origin);
    rt.wait_for_line(&format!(
        "stream closed by client: threads.create thread={thread}"
    ))
    .unwrap_or_else(|| panic!("no close line in:\n{}", rt.output()));
    let mut channel = rt.subscribe(&thread).await;
    let snapshot = run_events(&[channel.next_event(Duration::from_secs(5)).await.unwrap()]);
    let mut snapshot = snapshot;
    while snapshot
        .last()
        .is_none_or(|e| e["item"]["type"] != "acp_tool_call")
    {
        let event = channel.next_event(Duration::from_secs(5)).await.unwrap();
        snapshot.extend(run_events(&[event]));
    }
    let call = &snapshot.last().unwrap()["item"];
    assert_eq!(
        snapshot.last().unwrap()["type"],
        "thread.item.added",
        "in progress"
    );
    assert!(call["permission"]["outcome"].is_null(), "{call}");
    assert_eq!(call["permission"]["options"].as_array().unwrap().len(), 4);
    let (item, tool_call) = (
        call["id"].as_str().unwrap(),
        call["tool_call"]["toolCallId"].as_str().unwrap(),
    );
    let confirmed = rt
        .post(json!({"type": "threads.custom_action", "params": {
            "thread_id": thread, "item_id": item,
            "action": {"type": "acp.permission_response",
                       "payload": {"toolCallId": tool_call, "outcome": {"outcome": "selected", "optionId": "allow-once"}}}
        }}))
        .await
        .rest()
        .await;
    assert_eq!(confirmed.len(), 1, "{confirmed:#?}");
    rt.wait_for_line("(the asking stream goes on)")
        .expect("the waiting run took the answer");
    let live = channel.until("thread.run.ended", is_run_ended).await;
    assert_eq!(live.last().unwrap()["outcome"], "done");
    let live = run_events(&live);
    assert!(live
        .iter()
        .any(|e| e["update"]["type"] == "acp_tool_call.permission_resolved"));
    assert!(folded_text(&live).contains("Allow once"));
    let full = rt
        .json(json!({"type": "threads.get_by_id", "params": {"thread_id": thread}}))
        .await;
    let stored = full["items"]["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["id"] == item)
        .unwrap()
        .clone();
    assert_eq!(stored["tool_call"]["status"], "completed");
    assert_eq!(stored["permission"]["outcome"]["optionId"], "allow-once");
}
