//! End-to-end tests of the real binary over HTTP: each test starts `chat-shell-runtime`
//! on a free port and talks HTTP/1.1 to it (tests/common). By behaviour:
//!
//! - `chatkit`: the ChatKit requests: streamed answers, pages, uploads, every scenario,
//!   history across a restart;
//! - `users`: users, requests and limits: identities and cookies, bearer tokens, other
//!   sites and hosts, the limits of titles, pages and uploads;
//! - `agent_runs`: ACP tool calls and permissions over ChatKit, and `POST /events`;
//! - `errors`: error bodies, page headers, labels.
//!
//! `Runtime::send` behaves like one browser: it keeps the identity cookie the runtime
//! issues and sends it back. `Runtime::request` sends exactly the headers it is given.

use chat_shell_core::protocol::chatkit::{
    decode_event, ItemKind, ItemUpdate, StreamEvent, ThreadItem,
};
#[path = "../common/mod.rs"]
mod common;

mod agent_runs;
mod chatkit;
mod errors;
mod users;

use common::{create, Reply, Request, Runtime, Stream};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::time::{Duration, Instant};

// --- the runtime process ------------------------------------------------------------------

/// The target's runtimes and requests.
impl Runtime {
    /// Starts the binary in memory with no pacing.
    fn start() -> Runtime {
        Runtime::start_with(&["--memory"])
    }

    fn start_with(extra: &[&str]) -> Runtime {
        Runtime::start_with_env(extra, None)
    }

    /// `tokens`: the value of `CHAT_SHELL_RUNTIME_TOKENS` (else it is unset).
    fn start_with_env(extra: &[&str], tokens: Option<&str>) -> Runtime {
        let dist = temp_path("dist");
        std::fs::create_dir_all(&dist).unwrap();
        std::fs::write(
            dist.join("index.html"),
            "<!doctype html><title>chat-shell test</title>",
        )
        .unwrap();
        let mut builder = Runtime::builder()
            .args(&["--dist", dist.to_str().unwrap()])
            .args(extra)
            .owning(dist.clone());
        if let Some(tokens) = tokens {
            builder = builder.env("CHAT_SHELL_RUNTIME_TOKENS", tokens);
        }
        let rt = builder.start();
        let lines = rt.lines();
        assert!(
            lines[0].starts_with("chat-shell-runtime listening on http://127.0.0.1:"),
            "the listening line comes first: {lines:?}"
        );
        rt
    }

    /// The folder the pages are served from (`--dist`).
    fn dist(&self) -> PathBuf {
        PathBuf::from(self.arg("--dist").expect("--dist"))
    }

    async fn chatkit(&self, request: Value) -> Reply {
        self.send(
            "POST",
            "/chatkit",
            Some("application/json"),
            request.to_string().as_bytes(),
        )
        .await
    }

    /// A streaming request: checks the SSE headers and decodes every frame.
    async fn stream(&self, request: Value) -> Vec<StreamEvent> {
        let reply = self.chatkit(request).await;
        assert_eq!(reply.status, 200, "{}", reply.text());
        assert_eq!(reply.header("content-type"), Some("text/event-stream"));
        assert_eq!(reply.header("cache-control"), Some("no-cache"));
        events(&reply.body)
    }

    async fn json(&self, request: Value) -> Value {
        let reply = self.chatkit(request).await;
        assert_eq!(reply.status, 200, "{}", reply.text());
        assert_eq!(reply.header("content-type"), Some("application/json"));
        serde_json::from_slice(&reply.body).unwrap()
    }

    /// Like a browser on the runtime's own page ([`Runtime::browse`]): the identity cookie
    /// goes along, and the one the runtime sets is kept.
    async fn send(
        &self,
        method: &str,
        path: &str,
        content_type: Option<&str>,
        body: &[u8],
    ) -> Reply {
        self.browse(
            Request::new(method, path)
                .content_type(content_type)
                .body(body),
        )
        .await
        .reply()
        .await
    }

    /// Sends `request` to /chatkit as this browser (kept alive) and reads the answer until
    /// `needle` is in it (each read within 5 s); returns the open response (drop it to
    /// leave), what was read in its `body`.
    async fn open_until(&self, request: Value, needle: &str) -> Stream {
        let cookie = self.cookie().expect("an identity first");
        let mut stream = self
            .fetch(
                Request::post("/chatkit")
                    .json(&request)
                    .cookie(Some(&cookie))
                    .keep_alive(),
            )
            .await;
        stream
            .read_until(needle.as_bytes(), Duration::from_secs(5))
            .await;
        stream
    }

    /// A `POST /chatkit` of `request` with exactly `headers` (and the JSON content type).
    async fn chatkit_with(&self, headers: &[(&str, &str)], request: Value) -> Reply {
        let mut all = vec![("Content-Type", "application/json")];
        all.extend_from_slice(headers);
        self.request("POST", "/chatkit", &all, request.to_string().as_bytes())
            .await
    }
}

fn temp_path(what: &str) -> PathBuf {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    std::env::temp_dir().join(format!(
        "chat-shell-runtime-test-{}-{nanos}-{n}-{what}",
        std::process::id()
    ))
}

// --- SSE ----------------------------------------------------------------------------------

/// Decodes an SSE body framed exactly like the SDK (`data: <json>\n\n`, comments allowed)
/// and insists that the client knows every event, item and update in it.
fn events(body: &[u8]) -> Vec<StreamEvent> {
    let text = std::str::from_utf8(body).unwrap();
    assert!(
        text.is_empty() || text.ends_with("\n\n"),
        "unterminated frame at the end"
    );
    text.split_terminator("\n\n")
        .filter(|frame| !frame.starts_with(':'))
        .map(|frame| {
            let data = frame
                .strip_prefix("data: ")
                .unwrap_or_else(|| panic!("not a data frame: {frame}"));
            assert!(!data.contains('\n'), "a multi-line frame: {frame}");
            let event = decode_event(data).unwrap_or_else(|e| panic!("{e}"));
            assert!(
                !matches!(event, StreamEvent::Other(_)),
                "unknown event {data}"
            );
            match &event {
                StreamEvent::ItemAdded(e)
                | StreamEvent::ItemDone(e)
                | StreamEvent::ItemReplaced(e) => {
                    assert!(
                        !matches!(e.item.kind, ItemKind::Other(_)),
                        "unknown item {data}"
                    );
                }
                StreamEvent::ItemUpdated(u) => {
                    assert!(
                        !matches!(u.update, ItemUpdate::Other(_)),
                        "unknown update {data}"
                    );
                }
                _ => {}
            }
            event
        })
        .collect()
}

fn add_message(thread: &str, text: &str) -> Value {
    json!({"type": "threads.add_user_message", "params": {"thread_id": thread, "input": {
        "content": [{"type": "input_text", "text": text}], "attachments": []
    }}})
}

fn thread_id(events: &[StreamEvent]) -> String {
    match &events[0] {
        StreamEvent::ThreadCreated(e) => e.thread.id.0.clone(),
        other => panic!("first event is not thread.created: {other:?}"),
    }
}

fn user_message_id(events: &[StreamEvent]) -> String {
    events
        .iter()
        .find_map(|e| match e {
            StreamEvent::ItemDone(e) if matches!(e.item.kind, ItemKind::UserMessage(_)) => {
                Some(e.item.id.0.clone())
            }
            _ => None,
        })
        .expect("the echoed user message")
}

fn done_items(events: &[StreamEvent]) -> Vec<&ThreadItem> {
    events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ItemDone(e) => Some(&e.item),
            _ => None,
        })
        .collect()
}

/// The text of the last finished assistant message.
fn answer(events: &[StreamEvent]) -> String {
    done_items(events)
        .into_iter()
        .rev()
        .find_map(|i| match &i.kind {
            ItemKind::AssistantMessage(m) => {
                Some(m.content.iter().map(|c| c.text.as_str()).collect())
            }
            _ => None,
        })
        .unwrap_or_default()
}

fn ids(page: &Value) -> Vec<String> {
    page["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_str().unwrap().to_owned())
        .collect()
}

fn error_code(reply: &Reply) -> String {
    reply.json()["code"].as_str().unwrap_or_default().to_owned()
}

fn list_threads() -> Value {
    json!({"type": "threads.list", "params": {}})
}
