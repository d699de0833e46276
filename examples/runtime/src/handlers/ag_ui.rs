//! `POST /ag-ui`: an AG-UI agent (the Agent–User Interaction protocol, 1.0) that chat-shell
//! reads with `protocol="ag-ui"`. The body is the page's `RunAgentInput` (the whole
//! conversation, the shared state, the page's tools, what the run answers); the answer is
//! `text/event-stream` with one `data:` frame per event, as the AG-UI SDKs write it.
//!
//! Scripted like `/events`: a keyword in the last user message picks the run ([`KEYWORDS`]),
//! anything else streams the markdown answer. A run that ends with a call to the page's
//! `get_weather` tool is answered by the page's next run (its last message the tool's
//! result); a run that ends with an interrupt by a run that `resume`s it. It keeps nothing
//! (the client holds the conversation), and is checked like `/events`: JSON only (415), at
//! most `events::MAX_BODY` bytes (413), a bounded, valid body (400).

use super::events::{stream_frames, Out};
use super::request::{json_body, logged};
use crate::auth::User;
use crate::clients::{self, Client, Kind};
use crate::errors::bad_request;
use crate::scripts::{default_markdown, pick_keyword, ragged_chunks, word_chunks};
use crate::state::AppState;
use crate::store::new_id;
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Extension, State};
use axum::http::HeaderMap;
use axum::response::Response;
use chat_shell_core::adapters::ag_ui::text_of;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The most messages a request may carry.
pub const MAX_MESSAGES: usize = 500;
/// The longest `threadId` or `runId`, in characters.
pub const MAX_ID_CHARS: usize = 256;

/// What a run does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scenario {
    Markdown,
    /// A backend tool: its arguments stream, its result comes, then the answer.
    Tool,
    /// A call to the page's `get_weather` (when the page declared it).
    Weather,
    /// Reasoning apart from the answer.
    Think,
    /// The shared state: a snapshot, then a patch.
    State,
    /// An approval the user gives or refuses (an interrupt).
    Approve,
    /// A form the user fills in (an interrupt with a response schema).
    Book,
    /// The run fails (`RUN_ERROR`).
    Fail,
    /// A long answer, to stop.
    Slow,
}

/// Keywords of the last user message (`/chatkit`'s rules).
pub const KEYWORDS: &[(&str, Scenario)] = &[
    ("tool", Scenario::Tool),
    ("weather", Scenario::Weather),
    ("think", Scenario::Think),
    ("state", Scenario::State),
    ("counter", Scenario::State),
    ("approve", Scenario::Approve),
    ("delete", Scenario::Approve),
    ("book", Scenario::Book),
    ("fail", Scenario::Fail),
    ("slow", Scenario::Slow),
];

/// One run's events, in order, each after its delay.
struct Run {
    pace: Duration,
    steps: Vec<Out>,
    delay: Duration,
}

impl Run {
    fn new(pace: Duration, thread_id: &str, run_id: &str) -> Run {
        let mut run = Run {
            pace,
            steps: Vec::new(),
            delay: Duration::ZERO,
        };
        run.send(json!({"type": "RUN_STARTED", "threadId": thread_id, "runId": run_id}));
        run
    }

    fn send(&mut self, event: Value) -> &mut Self {
        let delay = std::mem::take(&mut self.delay);
        self.steps.push(Out::Send {
            delay,
            data: event.to_string(),
        });
        self
    }

    fn wait(&mut self, d: Duration) -> &mut Self {
        self.delay += d;
        self
    }

    /// A text message, streamed in `chunks`, `pace` apart.
    fn text(&mut self, chunks: Vec<String>) -> &mut Self {
        let id = new_id("msg");
        self.send(json!({"type": "TEXT_MESSAGE_START", "messageId": id, "role": "assistant"}));
        let pace = self.pace;
        for delta in chunks {
            self.wait(pace)
                .send(json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": id, "delta": delta}));
        }
        self.send(json!({"type": "TEXT_MESSAGE_END", "messageId": id}))
    }

    fn say(&mut self, text: &str) -> &mut Self {
        self.text(word_chunks(text))
    }

    /// A tool call whose arguments stream in two pieces; returns its id.
    fn tool_call(&mut self, name: &str, arguments: Value) -> String {
        let id = new_id("call");
        let args = arguments.to_string();
        let (a, b) = args.split_at(args.len() / 2);
        // Frameworks open and close an empty message before a call.
        let parent = new_id("msg");
        self.send(json!({"type": "TEXT_MESSAGE_START", "messageId": parent, "role": "assistant"}));
        self.send(json!({"type": "TEXT_MESSAGE_END", "messageId": parent}));
        self.send(json!({"type": "TOOL_CALL_START", "toolCallId": id, "toolCallName": name, "parentMessageId": parent}));
        let pace = self.pace;
        for delta in [a, b] {
            self.wait(pace)
                .send(json!({"type": "TOOL_CALL_ARGS", "toolCallId": id, "delta": delta}));
        }
        self.send(json!({"type": "TOOL_CALL_END", "toolCallId": id}));
        id
    }

    fn finish(mut self, outcome: Option<Value>) -> Vec<Out> {
        let mut end = json!({"type": "RUN_FINISHED"});
        if let Some(outcome) = outcome {
            end["outcome"] = outcome;
        }
        self.send(end);
        self.steps
    }

    fn fail(mut self, message: &str, code: &str) -> Vec<Out> {
        self.send(json!({"type": "RUN_ERROR", "message": message, "code": code}));
        self.steps
    }
}

/// The name of the tool call `id` among the assistant's messages.
fn call_name<'a>(messages: &'a [Value], id: &str) -> Option<&'a str> {
    messages
        .iter()
        .filter(|m| m["role"] == "assistant")
        .flat_map(|m| m["toolCalls"].as_array().into_iter().flatten())
        .find(|c| c["id"] == id)
        .and_then(|c| c["function"]["name"].as_str())
}

/// The run answering `input`.
fn respond(pace: Duration, input: &Value) -> (String, Vec<Out>) {
    let messages = input["messages"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let thread = input["threadId"].as_str().unwrap_or_default();
    let mut run = Run::new(pace, thread, input["runId"].as_str().unwrap_or_default());
    let beat = pace * 10;
    // What the page answers: an interrupt's resume, or a client tool's result.
    if let Some(resume) = input["resume"].as_array().and_then(|r| r.first()) {
        let payload = &resume["payload"];
        let cancelled = resume["status"] == "cancelled";
        return match resume["interruptId"].as_str().unwrap_or_default() {
            id if id.starts_with("book-") => {
                if cancelled {
                    run.say("Booking cancelled.");
                } else {
                    let city = payload["city"].as_str().unwrap_or("nowhere");
                    let nights = payload["nights"].as_u64().unwrap_or(1);
                    run.say(&format!("Booked {nights} nights in {city}."));
                }
                ("resume".into(), run.finish(None))
            }
            _ if !cancelled && payload["approved"] == true => {
                run.say("Approved: deleting 3 files.");
                ("resume".into(), run.finish(None))
            }
            _ => {
                run.say("Rejected: nothing was deleted.");
                ("resume".into(), run.finish(None))
            }
        };
    }
    if let Some(last) = messages.last().filter(|m| m["role"] == "tool") {
        let id = last["toolCallId"].as_str().unwrap_or_default();
        let said = text_of(&last["content"]);
        match call_name(messages, id) {
            Some("get_weather") if last.get("error").is_some_and(|e| !e.is_null()) => {
                run.say(&format!("The weather tool failed: {said}"));
            }
            Some("get_weather") => {
                run.say(&format!("The weather tool said: {said}"));
            }
            _ => {
                run.say("A tool answered that this agent never called.");
            }
        }
        return ("tool result".into(), run.finish(None));
    }
    let last = messages
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .map(|m| text_of(&m["content"]))
        .unwrap_or_default();
    let scenario = pick_keyword(KEYWORDS, &last).unwrap_or(Scenario::Markdown);
    let name = format!("{scenario:?}").to_lowercase();
    let steps = match scenario {
        Scenario::Markdown => {
            run.text(ragged_chunks(&default_markdown(&last)));
            run.finish(None)
        }
        Scenario::Tool => {
            let id = run.tool_call("search_docs", json!({"query": "release notes"}));
            run.wait(beat).send(json!({
                "type": "TOOL_CALL_RESULT", "messageId": new_id("msg"), "toolCallId": id,
                "content": "3 results", "role": "tool"
            }));
            run.say("Found 3 results for release notes.");
            run.finish(None)
        }
        Scenario::Weather => {
            let declared = input["tools"]
                .as_array()
                .is_some_and(|t| t.iter().any(|t| t["name"] == "get_weather"));
            if !declared {
                return (
                    name,
                    run.fail("get_weather is not declared by the page", "undeclared_tool"),
                );
            }
            run.tool_call("get_weather", json!({"city": "Paris"}));
            run.finish(None)
        }
        Scenario::Think => {
            let id = new_id("reasoning");
            run.send(json!({"type": "REASONING_START", "messageId": id}));
            run.send(
                json!({"type": "REASONING_MESSAGE_START", "messageId": id, "role": "reasoning"}),
            );
            for delta in word_chunks("The user wants a short answer; one sentence will do.") {
                run.wait(pace).send(
                    json!({"type": "REASONING_MESSAGE_CONTENT", "messageId": id, "delta": delta}),
                );
            }
            run.send(json!({"type": "REASONING_MESSAGE_END", "messageId": id}));
            run.send(json!({"type": "REASONING_END", "messageId": id}));
            run.say("Here is the answer, after thinking it over.");
            run.finish(None)
        }
        Scenario::State => {
            let counter = input["state"]["counter"].as_i64().unwrap_or(0);
            run.send(json!({"type": "STATE_SNAPSHOT", "snapshot": {"counter": counter + 1, "items": ["a"]}}));
            run.send(json!({"type": "STATE_DELTA", "delta": [
                {"op": "add", "path": "/items/-", "value": "b"},
                {"op": "replace", "path": "/counter", "value": counter + 2}
            ]}));
            run.say(&format!("Counter was {counter}, now {}.", counter + 2));
            run.finish(None)
        }
        Scenario::Approve => {
            run.say("I need your approval first.");
            let id = new_id("approve");
            run.finish(Some(json!({"type": "interrupt", "interrupts": [
                {"id": id, "reason": "approval", "message": "Delete 3 files from the workspace?"}
            ]})))
        }
        Scenario::Book => {
            let id = new_id("book");
            run.finish(Some(json!({"type": "interrupt", "interrupts": [{
                "id": id, "reason": "input", "message": "Where should I book, and for how long?",
                "responseSchema": {"type": "object", "required": ["city"], "properties": {
                    "city": {"type": "string", "title": "City"},
                    "nights": {"type": "integer", "title": "Nights", "minimum": 1}
                }}
            }]})))
        }
        Scenario::Fail => {
            run.say("Starting… ");
            run.wait(beat);
            run.fail("The model is overloaded", "overloaded")
        }
        Scenario::Slow => {
            let words: Vec<String> = (1..=120).map(|n| format!("word {n} ")).collect();
            let id = new_id("msg");
            run.send(json!({"type": "TEXT_MESSAGE_START", "messageId": id, "role": "assistant"}));
            for delta in words {
                run.wait(Duration::from_millis(50))
                    .send(json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": id, "delta": delta}));
            }
            run.send(json!({"type": "TEXT_MESSAGE_END", "messageId": id}));
            run.finish(None)
        }
    };
    (name, steps)
}

/// Checks what the JSON alone cannot: bounded ids and messages, a conversation that ends
/// with the user or a tool's result unless the run answers interrupts.
fn check(input: &Value) -> Result<(), String> {
    for key in ["threadId", "runId"] {
        match input[key].as_str() {
            Some(id) if !id.is_empty() && id.chars().count() <= MAX_ID_CHARS => {}
            _ => {
                return Err(format!(
                    "{key} must be a string of 1 to {MAX_ID_CHARS} characters"
                ))
            }
        }
    }
    let Some(messages) = input["messages"].as_array() else {
        return Err("messages must be an array".into());
    };
    if messages.len() > MAX_MESSAGES {
        return Err(format!("at most {MAX_MESSAGES} messages"));
    }
    if messages
        .iter()
        .any(|m| !m["role"].is_string() || !m.is_object())
    {
        return Err("every message is an object with a role".into());
    }
    let resumes = input["resume"].as_array().is_some_and(|r| !r.is_empty());
    match messages
        .last()
        .map(|m| m["role"].as_str().unwrap_or_default())
    {
        Some("user" | "tool") => Ok(()),
        _ if resumes => Ok(()),
        _ => Err("the last message must be the user's or a tool's result".into()),
    }
}

pub async fn ag_ui(
    State(state): State<Arc<AppState>>,
    // Every request has an identity (the guard's); this agent keeps nothing per user.
    Extension(_user): Extension<User>,
    Extension(client): Extension<Client>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let started = Instant::now();
    let log = |what: &str, response: Response| logged("/ag-ui", what, started, response);
    let body = match json_body("/ag-ui", &headers, body) {
        Ok(body) => body,
        Err(refused) => return log("-", refused),
    };
    let input: Value = match serde_json::from_slice(&body) {
        Ok(Value::Object(o)) => Value::Object(o),
        Ok(_) => return log("-", bad_request("invalid request: not a JSON object")),
        Err(e) => return log("-", bad_request(&format!("invalid request: {e}"))),
    };
    if let Err(message) = check(&input) {
        return log("-", bad_request(&message));
    }
    let share = match state.clients.take(Kind::Run, client) {
        Ok(share) => share,
        Err(refused) => return log("-", state.clients.too_many(refused)),
    };
    let (name, steps) = respond(state.pace, &input);
    log(
        &name,
        clients::held(
            stream_frames(state.clone(), "ag-ui", name.clone(), steps, data_frame),
            share,
        ),
    )
}

/// One AG-UI frame: `data:` only, as the SDKs' encoders write it.
fn data_frame(data: &str) -> Bytes {
    Bytes::from(format!("data: {data}\n\n"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use chat_shell_core::adapters::ag_ui::{AgUiAdapter, Conversation};
    use chat_shell_core::reducer::{self, ChatState, Input};
    use chat_shell_core::sse::SseFrame;

    fn events(input: Value) -> Vec<Value> {
        respond(Duration::ZERO, &input)
            .1
            .into_iter()
            .map(|s| match s {
                Out::Send { data, .. } => serde_json::from_str(&data).unwrap(),
                Out::Drop { .. } => panic!("no run drops its connection"),
            })
            .collect()
    }

    fn user(text: &str) -> Value {
        json!({"threadId": "t1", "runId": "r1", "messages": [{"id": "u1", "role": "user", "content": text}], "tools": [], "state": {}})
    }

    /// Every run starts, ends once, and reads through the core's adapter without a
    /// malformed event or an order error.
    #[test]
    fn every_run_is_well_formed_for_the_client() {
        for &(keyword, _) in KEYWORDS
            .iter()
            .chain([("hello", Scenario::Markdown)].iter())
        {
            let events = events(user(keyword));
            assert_eq!(events[0]["type"], "RUN_STARTED", "{keyword}");
            let ends = events
                .iter()
                .filter(|e| e["type"] == "RUN_FINISHED" || e["type"] == "RUN_ERROR")
                .count();
            assert_eq!(ends, 1, "{keyword}");
            let mut adapter = AgUiAdapter::new(Default::default(), Vec::new(), Vec::new());
            let mut conversation = Conversation::new("t1".into());
            let mut state = ChatState::default();
            let _ = reducer::reduce(&mut state, Input::TurnStarted);
            for e in &events {
                let frame = SseFrame::Event {
                    event: None,
                    data: e.to_string(),
                    id: None,
                };
                for input in adapter.push(frame, &mut conversation) {
                    assert!(!matches!(input, Input::Malformed(_)), "{keyword}: {e}");
                    assert!(
                        !matches!(&input, Input::RunError { code: Some(c), .. } if c == "ag_ui.order"),
                        "{keyword}"
                    );
                    let _ = reducer::reduce(&mut state, input);
                }
            }
        }
    }

    #[test]
    fn the_page_s_tool_is_called_only_when_declared_and_its_result_answered() {
        let refused = events(user("weather in Paris?"));
        assert_eq!(refused.last().unwrap()["type"], "RUN_ERROR");
        let mut asked = user("weather in Paris?");
        asked["tools"] = json!([{"name": "get_weather", "description": "x"}]);
        let called = events(asked);
        let start = called
            .iter()
            .find(|e| e["type"] == "TOOL_CALL_START")
            .unwrap();
        assert_eq!(start["toolCallName"], "get_weather");
        let id = start["toolCallId"].as_str().unwrap();
        let answer = events(json!({"threadId": "t1", "runId": "r2", "messages": [
            {"id": "u1", "role": "user", "content": "weather in Paris?"},
            {"id": "a1", "role": "assistant", "toolCalls": [{"id": id, "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}]},
            {"id": "t1", "role": "tool", "toolCallId": id, "content": "sunny, 21°C"}
        ]}));
        let said: String = answer.iter().filter_map(|e| e["delta"].as_str()).collect();
        assert_eq!(said, "The weather tool said: sunny, 21°C");
    }

    #[test]
    fn an_interrupt_is_resumed_by_the_next_run() {
        let asked = events(user("please delete the logs"));
        let outcome = &asked.last().unwrap()["outcome"];
        assert_eq!(outcome["type"], "interrupt");
        let id = outcome["interrupts"][0]["id"].as_str().unwrap();
        for (approved, said) in [
            (true, "Approved: deleting 3 files."),
            (false, "Rejected: nothing was deleted."),
        ] {
            let mut resumed = user("please delete the logs");
            resumed["resume"] = json!([{"interruptId": id, "status": "resolved", "payload": {"approved": approved}}]);
            let text: String = events(resumed)
                .iter()
                .filter_map(|e| e["delta"].as_str())
                .collect();
            assert_eq!(text, said);
        }
    }

    #[test]
    fn requests_are_checked() {
        assert!(check(&user("hi")).is_ok());
        assert!(check(&json!({"threadId": "", "runId": "r", "messages": []})).is_err());
        assert!(check(&json!({"threadId": "t", "runId": "r"})).is_err());
        let long = "x".repeat(MAX_ID_CHARS + 1);
        assert!(
            check(&json!({"threadId": long, "runId": "r", "messages": [{"role": "user"}]}))
                .is_err()
        );
        let many: Vec<Value> = (0..=MAX_MESSAGES)
            .map(|_| json!({"role": "user", "content": "x"}))
            .collect();
        assert!(check(&json!({"threadId": "t", "runId": "r", "messages": many})).is_err());
        let ends_with_assistant = json!({"threadId": "t", "runId": "r", "messages": [
            {"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]});
        assert!(check(&ends_with_assistant).is_err());
        let mut resumed = ends_with_assistant.clone();
        resumed["resume"] = json!([{"interruptId": "i", "status": "resolved"}]);
        assert!(check(&resumed).is_ok());
        assert!(check(&json!({"threadId": "t", "runId": "r", "messages": ["no role"]})).is_err());
    }
}
