//! `POST /events`: the SSE event envelope ([spec](https://pathlyapp.github.io/steerable-framework/spec/events/)) that chat-shell
//! reads with `protocol="events"`. The body is the client's `EventsRequest` (the whole
//! conversation, the new user message last); the answer is `text/event-stream` with one
//! `event: message` / `data: {envelope}` frame per event, ending with `data: [DONE]`.
//!
//! Like `/chatkit` it is scripted: a keyword in the last user message picks the run
//! ([`KEYWORDS`]), anything else streams the markdown answer as `content` deltas. It keeps
//! no thread of its own (an events runtime does not), so nothing is stored; the request
//! still passes the same guard (Host, Origin, identity) and is checked like `/chatkit`:
//! JSON only (415), at most [`MAX_BODY`] bytes (413), a valid body (400).

use super::request::{json_body, logged};
use crate::auth::User;
use crate::clients::{self, Client, Kind};
use crate::errors::bad_request;
use crate::scripts::{default_markdown, pick_keyword, ragged_chunks, word_chunks};
use crate::sse::{pause, sse, Frame, Waited};
use crate::state::AppState;
use crate::store::new_id;
use axum::body::{Body, Bytes};
use axum::extract::rejection::BytesRejection;
use axum::extract::{Extension, State};
use axum::http::HeaderMap;
use axum::response::Response;
use chat_shell_core::protocol::events::{EventsRequest, Role};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tokio::time::Instant as TokioInstant;

/// The largest request body, in bytes.
pub const MAX_BODY: usize = 1024 * 1024;
/// The most messages a request may carry.
pub const MAX_MESSAGES: usize = 500;
/// The longest `threadId` accepted, in characters.
pub const MAX_THREAD_ID_CHARS: usize = 256;

/// What an events run shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventsScenario {
    Markdown,
    /// Three tool calls: a success, a failure (`success: false` with an error) and a
    /// result that does not say (no `success`).
    Tools,
    /// Tool calls until the harness stops the run (`budget_exhausted`).
    Budget,
    /// A coordinated run: an orchestration plan, two agents, loader hints between.
    Agents,
    /// Loader hints while "thinking", then the answer.
    Hint,
    /// A long tool: `keepalive` envelopes while it runs, then its result.
    LongTool,
    /// A tool call, then the connection drops: no result, no `[DONE]`.
    Cut,
    /// A recoverable `error` mid-run; the run goes on.
    Error,
}

/// Keywords of the last user message and the runs they pick; the rules are `/chatkit`'s
/// (the start of a word; the first found wins, the longer on a tie).
pub const KEYWORDS: &[(&str, EventsScenario)] = &[
    ("markdown", EventsScenario::Markdown),
    ("tool", EventsScenario::Tools),
    ("budget", EventsScenario::Budget),
    ("agent", EventsScenario::Agents),
    ("hint", EventsScenario::Hint),
    ("longtool", EventsScenario::LongTool),
    ("cut", EventsScenario::Cut),
    ("error", EventsScenario::Error),
];

impl EventsScenario {
    pub fn pick(text: &str) -> EventsScenario {
        pick_keyword(KEYWORDS, text).unwrap_or(EventsScenario::Markdown)
    }
}

/// How long a loader hint of the `hint` run stays before the next step, whatever the
/// pace: a hint is there to be read.
const HINT_TIME: Duration = Duration::from_millis(1200);
/// The `longtool` run: this many keepalives, this far apart, while its tool runs.
const LONG_TOOL_BEATS: u32 = 4;
const LONG_TOOL_BEAT: Duration = Duration::from_millis(500);

// --- the scripts --------------------------------------------------------------------------

/// One thing the writer does, in order.
#[derive(Debug, PartialEq)]
pub enum Out {
    /// Wait `delay`, then send `event: message` with `data` (an envelope, or `[DONE]`).
    Send { delay: Duration, data: String },
    /// Wait `delay`, then abort the connection mid-body.
    Drop { delay: Duration },
}

/// Builds one run's frames.
pub struct Run {
    pace: Duration,
    steps: Vec<Out>,
    delay: Duration,
}

impl Run {
    pub fn new(pace: Duration) -> Run {
        Run {
            pace,
            steps: Vec::new(),
            delay: Duration::ZERO,
        }
    }

    pub fn into_steps(self) -> Vec<Out> {
        self.steps
    }

    /// A pause between visible steps: ten deltas long (none with `--pace-ms 0`).
    fn beat(&self) -> Duration {
        self.pace * 10
    }

    fn wait(&mut self, d: Duration) -> &mut Self {
        self.delay += d;
        self
    }

    fn frame(&mut self, data: String) -> &mut Self {
        let delay = std::mem::take(&mut self.delay);
        self.steps.push(Out::Send { delay, data });
        self
    }

    fn send(&mut self, envelope: Value) -> &mut Self {
        self.frame(envelope.to_string())
    }

    /// `text` as `content` deltas, `pace` apart; `message_id` names the bubble.
    fn content(&mut self, text: &str, message_id: Option<&str>) -> &mut Self {
        let pace = self.pace;
        for chunk in ragged_chunks(text) {
            let mut envelope = json!({ "type": "content", "content": chunk });
            if let Some(id) = message_id {
                envelope["messageId"] = json!(id);
            }
            self.wait(pace).send(envelope);
        }
        self
    }

    /// A short `content` streamed word by word.
    fn say(&mut self, text: &str) -> &mut Self {
        let pace = self.pace;
        for chunk in word_chunks(text) {
            self.wait(pace)
                .send(json!({ "type": "content", "content": chunk }));
        }
        self
    }

    fn hint(&mut self, hint: &str) -> &mut Self {
        self.send(json!({ "type": "loader-hint", "hint": hint }))
    }

    /// A `tool_call`; returns its id.
    fn tool_call(&mut self, name: &str, arguments: Value) -> String {
        let id = new_id("call");
        self.send(json!({
            "type": "tool_call",
            "payload": { "id": id, "name": name, "arguments": arguments }
        }));
        id
    }

    /// A `tool_result` for call `id`: `success` as given (`None`: the field is left out).
    fn tool_result(&mut self, id: &str, success: Option<bool>, data: Value) -> &mut Self {
        let mut payload = json!({ "id": id });
        match success {
            Some(true) => {
                payload["success"] = json!(true);
                payload["data"] = data;
            }
            Some(false) => {
                payload["success"] = json!(false);
                payload["error"] = data;
            }
            None => payload["data"] = data,
        }
        self.send(json!({ "type": "tool_result", "payload": payload }))
    }

    fn done(&mut self) {
        self.frame("[DONE]".into());
    }

    fn drop_connection(&mut self) {
        let delay = std::mem::take(&mut self.delay);
        self.steps.push(Out::Drop { delay });
    }
}

/// The run answering `last` (the last user message).
pub fn respond(run: &mut Run, last: &str) {
    let beat = run.beat();
    match EventsScenario::pick(last) {
        EventsScenario::Markdown => {
            run.content(&default_markdown(last), None);
        }
        EventsScenario::Tools => {
            run.hint("Reading the project…");
            run.say("I'll check three sources. ");
            let read = run.tool_call("read_file", json!({ "path": "README.md" }));
            run.wait(beat).tool_result(
                &read,
                Some(true),
                json!({ "content": "# Demo\n\nA range parser. See LICENSE." }),
            );
            let search = run.tool_call("search", json!({ "query": "range parser license" }));
            run.wait(beat).tool_result(
                &search,
                Some(false),
                json!({ "message": "rate limited", "retryAfter": 30 }),
            );
            let fetch = run.tool_call("fetch", json!({ "url": "https://example.com/LICENSE" }));
            run.wait(beat)
                .tool_result(&fetch, None, json!({ "status": 200, "bytes": 1071 }));
            run.say(
                "The README read fine; the search **failed** (rate limited); the fetch came \
                 back without saying whether it worked.",
            );
        }
        EventsScenario::Budget => {
            run.say("Searching every module for the parser's callers. ");
            for module in ["cli", "server", "importer"] {
                let id = run.tool_call("grep", json!({ "pattern": "parse_range", "path": module }));
                run.wait(beat)
                    .tool_result(&id, Some(true), json!({ "matches": 2 }));
            }
            run.send(json!({
                "type": "budget_exhausted",
                "message": "Tool-call budget reached (3 of 3)",
                "code": "max_tool_calls",
                "payload": { "limit": "max_tool_calls", "used": 3, "max": 3 }
            }));
        }
        EventsScenario::Agents => agents(run, beat),
        EventsScenario::Hint => {
            run.hint("Thinking about your question…");
            run.wait(HINT_TIME).hint("Looking through 3 documents…");
            run.wait(HINT_TIME);
            run.say("Two loader hints came before this answer.");
        }
        EventsScenario::LongTool => {
            run.say("Running the full test suite; it takes a moment. ");
            let id = run.tool_call("run_tests", json!({ "command": "cargo test --workspace" }));
            for _ in 0..LONG_TOOL_BEATS {
                run.wait(LONG_TOOL_BEAT)
                    .send(json!({ "type": "keepalive" }));
            }
            run.wait(LONG_TOOL_BEAT).tool_result(
                &id,
                Some(true),
                json!({ "passed": 412, "failed": 0 }),
            );
            run.say("All 412 tests passed.");
        }
        EventsScenario::Cut => {
            run.say("Downloading the dataset. ");
            run.tool_call("download", json!({ "url": "https://example.com/data.csv" }));
            run.wait(beat).drop_connection();
            return;
        }
        EventsScenario::Error => {
            run.say("Looking it up. ");
            let id = run.tool_call("search", json!({ "query": "parse_range" }));
            run.wait(beat)
                .tool_result(&id, Some(true), json!({ "hits": 3 }));
            run.send(json!({
                "type": "error",
                "message": "The index is stale; results may be incomplete",
                "code": "index_stale"
            }));
            run.say("Found 3 places that call `parse_range`.");
        }
    }
    run.done();
}

/// `agents`: a coordinator plans two steps, a researcher and a writer take turns, with
/// loader hints between.
fn agents(run: &mut Run, beat: Duration) {
    let group = new_id("og");
    let plan = |first: &str, second: &str| {
        json!([
            { "title": "Find the license", "agent": "researcher", "status": first },
            { "title": "Summarize it", "agent": "writer", "status": second },
        ])
    };
    run.hint("Planning…");
    run.send(json!({
        "type": "orchestration",
        "orchestrationGroupId": group,
        "payload": { "status": "Planning", "plan": plan("in_progress", "pending") }
    }));
    run.send(json!({
        "type": "agent",
        "orchestrationGroupId": group,
        "payload": { "name": "researcher", "id": "ag_researcher" }
    }));
    run.say("I'll look for the license file. ");
    let id = run.tool_call("read_file", json!({ "path": "LICENSE" }));
    run.wait(beat).tool_result(
        &id,
        Some(true),
        json!({ "content": "MIT License\n\nCopyright (c) 2024 Demo" }),
    );
    run.say("It is the MIT license.");
    run.hint("Handing over to the writer…");
    run.send(json!({
        "type": "orchestration",
        "orchestrationGroupId": group,
        "payload": { "status": "Delegating to writer", "plan": plan("completed", "in_progress") }
    }));
    run.send(json!({
        "type": "agent",
        "orchestrationGroupId": group,
        "payload": { "name": "writer", "id": "ag_writer" }
    }));
    let message = new_id("m");
    run.content(
        "**Summary:** the project is MIT licensed (© 2024 Demo): use, copy and modify it \
         freely, keeping the notice.",
        Some(&message),
    );
    run.send(json!({
        "type": "orchestration",
        "orchestrationGroupId": group,
        "payload": { "status": "Done", "plan": plan("completed", "completed") }
    }));
}

// --- the request --------------------------------------------------------------------------

/// Checks what `serde` cannot: a bounded, non-empty conversation that ends with the user.
pub(crate) fn check(request: &EventsRequest) -> Result<&str, String> {
    check_bounds(request)?;
    match request.messages.last() {
        Some(m) if m.role == Role::User => Ok(&m.content),
        _ => Err("the last message must be the user's".into()),
    }
}

/// The part of [`check`] that holds for any request, a new turn or not: a bounded,
/// non-empty conversation with a bounded `threadId`.
pub(crate) fn check_bounds(request: &EventsRequest) -> Result<(), String> {
    if request.messages.len() > MAX_MESSAGES {
        return Err(format!("at most {MAX_MESSAGES} messages"));
    }
    if request
        .thread_id
        .as_ref()
        .is_some_and(|t| t.chars().count() > MAX_THREAD_ID_CHARS)
    {
        return Err(format!(
            "threadId has at most {MAX_THREAD_ID_CHARS} characters"
        ));
    }
    if request.messages.is_empty() {
        return Err("messages must not be empty".into());
    }
    Ok(())
}

/// The body of a POST to `path` that takes an [`EventsRequest`]: JSON only (415), at most
/// the route's body limit (413), an `EventsRequest` (400). The refusal is the response.
#[allow(clippy::result_large_err)]
pub(crate) fn read_request(
    path: &str,
    headers: &HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<EventsRequest, Response> {
    let body = json_body(path, headers, body)?;
    serde_json::from_slice::<EventsRequest>(&body)
        .map_err(|e| bad_request(&format!("invalid request: {e}")))
}

/// The `text/event-stream` response writing `steps` (see [`write`]); `what` names the
/// route in the log.
pub(crate) fn stream(
    state: Arc<AppState>,
    what: &'static str,
    name: String,
    steps: Vec<Out>,
) -> Response {
    stream_frames(state, what, name, steps, message_frame)
}

/// [`stream`] with each event framed by `frame` (AG-UI writes `data:` alone).
pub(crate) fn stream_frames(
    state: Arc<AppState>,
    what: &'static str,
    name: String,
    steps: Vec<Out>,
    frame: fn(&str) -> Bytes,
) -> Response {
    let (tx, rx) = mpsc::channel::<Frame>(16);
    tokio::spawn(write(state, what, name, steps, tx, frame));
    sse(Body::from_stream(futures_util::stream::unfold(
        rx,
        |mut rx| async move { rx.recv().await.map(|frame| (frame, rx)) },
    )))
}

pub async fn events(
    State(state): State<Arc<AppState>>,
    // Every request has an identity (the guard's); this runtime keeps nothing per user.
    Extension(_user): Extension<User>,
    Extension(client): Extension<Client>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let started = Instant::now();
    let log = |what: &str, response: Response| logged("/events", what, started, response);
    let request = match read_request("/events", &headers, body) {
        Ok(request) => request,
        Err(refused) => return log("-", refused),
    };
    let last = match check(&request) {
        Ok(last) => last.to_owned(),
        Err(message) => return log("-", bad_request(&message)),
    };
    let share = match state.clients.take(Kind::Run, client) {
        Ok(share) => share,
        Err(refused) => return log("-", state.clients.too_many(refused)),
    };
    let scenario = EventsScenario::pick(&last);
    let mut run = Run::new(state.pace);
    respond(&mut run, &last);
    let name = format!("{scenario:?}").to_lowercase();
    log(
        &name,
        clients::held(
            stream(state.clone(), "events", name.clone(), run.into_steps()),
            share,
        ),
    )
}

/// One event's SSE frame: `event: message` and `data` (an envelope, or `[DONE]`).
pub(crate) fn message_frame(data: &str) -> Bytes {
    Bytes::from(format!("event: message\ndata: {data}\n\n"))
}

/// Writes `steps` (`what` and `name` say whose in the log); a silent stretch over ten
/// seconds gets `: keepalive` comments.
async fn write(
    state: Arc<AppState>,
    what: &'static str,
    name: String,
    steps: Vec<Out>,
    tx: mpsc::Sender<Frame>,
    frame: fn(&str) -> Bytes,
) {
    let mut shutdown = state.shutdown.clone();
    let mut last_write = TokioInstant::now();
    let mut sent = 0usize;
    for step in steps {
        let delay = match &step {
            Out::Send { delay, .. } | Out::Drop { delay } => *delay,
        };
        match pause(delay, true, &tx, &mut last_write, &mut shutdown).await {
            Waited::Ready => {}
            Waited::Closed => {
                println!("{what} stream closed by client: {name} after {sent} events");
                return;
            }
            Waited::Shutdown => return,
        }
        match step {
            Out::Send { data, .. } => {
                if tx.send(Ok(frame(&data))).await.is_err() {
                    return;
                }
                sent += 1;
                last_write = TokioInstant::now();
            }
            Out::Drop { .. } => {
                // Let hyper write what was sent, then end the body without its last chunk.
                while tx.capacity() < tx.max_capacity() && !tx.is_closed() {
                    tokio::time::sleep(Duration::from_millis(1)).await;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
                let _ = tx
                    .send(Err(std::io::Error::other("connection dropped on purpose")))
                    .await;
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chat_shell_core::adapters::events::EventsAdapter;
    use chat_shell_core::protocol::events::{decode_envelope, EventKind};
    use chat_shell_core::reducer::{self, ChatState, Input};
    use chat_shell_core::sse::SseFrame;

    fn frames(last: &str) -> Vec<Out> {
        let mut run = Run::new(Duration::ZERO);
        respond(&mut run, last);
        run.into_steps()
    }

    fn data(steps: &[Out]) -> Vec<&str> {
        steps
            .iter()
            .filter_map(|s| match s {
                Out::Send { data, .. } => Some(data.as_str()),
                Out::Drop { .. } => None,
            })
            .collect()
    }

    #[test]
    fn keywords_pick_runs() {
        assert_eq!(EventsScenario::pick("hello"), EventsScenario::Markdown);
        assert_eq!(EventsScenario::pick("tool results"), EventsScenario::Tools);
        assert_eq!(EventsScenario::pick("a longtool"), EventsScenario::LongTool);
        assert_eq!(
            EventsScenario::pick("agents please"),
            EventsScenario::Agents
        );
        assert_eq!(EventsScenario::pick("hints"), EventsScenario::Hint);
        assert_eq!(EventsScenario::pick("budget"), EventsScenario::Budget);
        assert_eq!(EventsScenario::pick("cut it"), EventsScenario::Cut);
        assert_eq!(EventsScenario::pick("an error"), EventsScenario::Error);
        assert_eq!(EventsScenario::pick("shortcut"), EventsScenario::Markdown);
    }

    /// Every run decodes with the core's decoder (no unknown type or field), feeds the
    /// reducer without a malformed frame, and ends with `[DONE]` (or a cut).
    #[test]
    fn every_run_decodes_and_ends() {
        for &(keyword, scenario) in KEYWORDS {
            let steps = frames(keyword);
            let frames = data(&steps);
            let cut = matches!(steps.last(), Some(Out::Drop { .. }));
            assert_eq!(cut, scenario == EventsScenario::Cut, "{keyword}");
            if !cut {
                assert_eq!(frames.last(), Some(&"[DONE]"), "{keyword}");
                assert_eq!(frames.iter().filter(|f| **f == "[DONE]").count(), 1);
            }
            let mut adapter = EventsAdapter::new(1);
            let mut state = ChatState::default();
            let _ = reducer::reduce(&mut state, Input::TurnStarted);
            for frame in &frames {
                if *frame != "[DONE]" {
                    let envelope = decode_envelope(frame).unwrap_or_else(|e| panic!("{e}"));
                    assert!(envelope.unknown_fields.is_empty(), "{frame}");
                    assert!(!matches!(envelope.event, EventKind::Other(_)), "{frame}");
                }
                let inputs = adapter.push(if *frame == "[DONE]" {
                    SseFrame::Done
                } else {
                    SseFrame::Event {
                        event: Some("message".into()),
                        data: (*frame).to_owned(),
                        id: None,
                    }
                });
                for input in inputs {
                    assert!(!matches!(input, Input::Malformed(_)), "{frame}");
                    let _ = reducer::reduce(&mut state, input);
                }
            }
            assert_eq!(adapter.is_done(), !cut, "{keyword}");
            assert_eq!(state.turn.is_none(), !cut, "{keyword}: the run ended");
        }
    }

    #[test]
    fn tool_results_say_success_failure_and_nothing() {
        let steps = frames("tools");
        let results: Vec<Value> = data(&steps)
            .into_iter()
            .filter(|f| *f != "[DONE]")
            .map(|f| serde_json::from_str::<Value>(f).unwrap())
            .filter(|v| v["type"] == "tool_result")
            .map(|v| v["payload"].clone())
            .collect();
        assert_eq!(results.len(), 3);
        assert_eq!(results[0]["success"], true);
        assert_eq!(results[1]["success"], false);
        assert_eq!(results[1]["error"]["message"], "rate limited");
        assert!(results[2].get("success").is_none());
    }

    #[test]
    fn requests_are_checked() {
        let req = |v: Value| serde_json::from_value::<EventsRequest>(v);
        assert!(req(json!({"messages": [{"role": "system", "content": "x"}]})).is_err());
        assert!(req(json!({"messages": [{"role": "user"}]})).is_err());
        assert!(req(json!({"type": "threads.list", "params": {}})).is_err());
        let empty = req(json!({"messages": []})).unwrap();
        assert!(check(&empty).is_err());
        let last_assistant = req(json!({"messages": [
            {"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}
        ]}))
        .unwrap();
        assert!(check(&last_assistant).is_err());
        let many = EventsRequest {
            messages: (0..=MAX_MESSAGES)
                .map(|_| chat_shell_core::protocol::events::EventsMessage {
                    role: Role::User,
                    content: "x".into(),
                })
                .collect(),
            ..EventsRequest::default()
        };
        assert!(check(&many).is_err());
        let ok = req(json!({"messages": [{"role": "user", "content": "tools"}], "threadId": "t"}))
            .unwrap();
        assert_eq!(check(&ok), Ok("tools"));
    }
}
