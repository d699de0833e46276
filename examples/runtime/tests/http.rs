//! End-to-end tests of the real binary: each test starts `chat-shell-runtime` on a free
//! port and talks hand-written HTTP/1.1 to it over a TcpStream.
//!
//! `Runtime::send` behaves like one browser: it keeps the identity cookie the runtime
//! issues and sends it back. `Runtime::request` sends exactly the headers it is given.

use chat_shell_core::protocol::chatkit::{
    decode_event, ItemKind, ItemUpdate, StreamEvent, ThreadItem,
};
mod common;

use common::{create, find, Process};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

// --- the runtime process ------------------------------------------------------------------

struct Runtime {
    process: Process,
    dist: PathBuf,
    /// The identity cookie (`name=value`) `send` got and sends back.
    cookie: Mutex<Option<String>>,
}

impl std::ops::Deref for Runtime {
    type Target = Process;
    fn deref(&self) -> &Process {
        &self.process
    }
}

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
        let mut args = vec!["--dist", dist.to_str().unwrap()];
        args.extend_from_slice(extra);
        let env: Vec<(&str, &str)> = tokens
            .map(|t| ("CHAT_SHELL_RUNTIME_TOKENS", t))
            .into_iter()
            .collect();
        let process = Process::start(&args, &env, true);
        let lines = process.lines();
        assert!(
            lines[0].starts_with("chat-shell-runtime listening on http://127.0.0.1:"),
            "the listening line comes first: {lines:?}"
        );
        Runtime {
            process,
            dist,
            cookie: Mutex::new(None),
        }
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

    /// Like a browser on the runtime's own page: the identity cookie goes along, and the
    /// one the runtime sets is kept.
    async fn send(
        &self,
        method: &str,
        path: &str,
        content_type: Option<&str>,
        body: &[u8],
    ) -> Reply {
        let cookie = self.cookie();
        let mut headers = Vec::new();
        if let Some(ct) = content_type {
            headers.push(("Content-Type", ct));
        }
        if let Some(c) = &cookie {
            headers.push(("Cookie", c.as_str()));
        }
        let reply = self.request(method, path, &headers, body).await;
        if let Some(set) = reply.set_cookie() {
            *self.cookie.lock().unwrap() = Some(set);
        }
        reply
    }

    fn cookie(&self) -> Option<String> {
        self.cookie.lock().unwrap().clone()
    }

    /// A `POST /chatkit` of `request` with exactly `headers` (and the JSON content type).
    async fn chatkit_with(&self, headers: &[(&str, &str)], request: Value) -> Reply {
        let mut all = vec![("Content-Type", "application/json")];
        all.extend_from_slice(headers);
        self.request("POST", "/chatkit", &all, request.to_string().as_bytes())
            .await
    }

    /// The identity cookie of a new browser (`name=value`).
    async fn new_identity(&self) -> String {
        let reply = self
            .chatkit_with(&[], json!({"type": "threads.list", "params": {}}))
            .await;
        assert_eq!(reply.status, 200, "{}", reply.text());
        reply.set_cookie().expect("a cookie for a new browser")
    }

    fn set_cookie(&self, cookie: Option<String>) {
        *self.cookie.lock().unwrap() = cookie;
    }

    /// A request with exactly `headers` (plus `Host: 127.0.0.1:<port>` unless they name a
    /// `Host`, `Connection: close` and `Content-Length`); no cookie unless given.
    async fn request(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> Reply {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).await.unwrap();
        let mut head = format!("{method} {path} HTTP/1.1\r\n");
        if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
            head.push_str(&format!("Host: 127.0.0.1:{}\r\n", self.port));
        }
        head.push_str(&format!(
            "Connection: close\r\nContent-Length: {}\r\n",
            body.len()
        ));
        for (name, value) in headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str("\r\n");
        stream.write_all(head.as_bytes()).await.unwrap();
        stream.write_all(body).await.unwrap();
        let mut raw = Vec::new();
        tokio::time::timeout(Duration::from_secs(20), stream.read_to_end(&mut raw))
            .await
            .expect("the response within 20 s")
            .unwrap();
        Reply::parse(&raw)
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dist);
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

// --- HTTP ---------------------------------------------------------------------------------

struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    /// Whether a chunked body ended with its terminating chunk.
    complete: bool,
}

impl Reply {
    fn parse(raw: &[u8]) -> Reply {
        let split = find(raw, b"\r\n\r\n").expect("a complete response head");
        let head = std::str::from_utf8(&raw[..split]).unwrap();
        let mut lines = head.split("\r\n");
        let status = lines
            .next()
            .unwrap()
            .split(' ')
            .nth(1)
            .unwrap()
            .parse()
            .unwrap();
        let headers: Vec<(String, String)> = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
            .collect();
        let rest = &raw[split + 4..];
        let chunked = headers
            .iter()
            .any(|(k, v)| k == "transfer-encoding" && v.contains("chunked"));
        let (body, complete) = if chunked {
            dechunk(rest)
        } else {
            (rest.to_vec(), true)
        };
        Reply {
            status,
            headers,
            body,
            complete,
        }
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The `name=value` of a `Set-Cookie`, if any.
    fn set_cookie(&self) -> Option<String> {
        self.header("set-cookie")
            .map(|v| v.split(';').next().unwrap().trim().to_owned())
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.text()))
    }
}

fn dechunk(mut raw: &[u8]) -> (Vec<u8>, bool) {
    let mut out = Vec::new();
    loop {
        let Some(end) = find(raw, b"\r\n") else {
            return (out, false);
        };
        let size_text = std::str::from_utf8(&raw[..end]).unwrap();
        let size = usize::from_str_radix(size_text.split(';').next().unwrap().trim(), 16).unwrap();
        raw = &raw[end + 2..];
        if size == 0 {
            return (out, true);
        }
        if raw.len() < size + 2 {
            out.extend_from_slice(&raw[..size.min(raw.len())]);
            return (out, false);
        }
        out.extend_from_slice(&raw[..size]);
        raw = &raw[size + 2..];
    }
}

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

// --- tests --------------------------------------------------------------------------------

#[tokio::test]
async fn create_streams_a_markdown_answer_and_lists_the_thread() {
    let rt = Runtime::start();
    let events = rt.stream(create("hello markdown")).await;
    let thread = thread_id(&events);

    let StreamEvent::ItemDone(user) = &events[1] else {
        panic!("{:?}", events[1])
    };
    let ItemKind::UserMessage(m) = &user.item.kind else {
        panic!("not the user message")
    };
    assert_eq!(m.text(), "hello markdown");
    assert_eq!(m.inference_options, Some(json!({})));
    assert!(matches!(&events[2], StreamEvent::StreamOptions(o) if o.stream_options.allow_cancel));

    let deltas = events
        .iter()
        .filter(|e| matches!(e, StreamEvent::ItemUpdated(u) if matches!(u.update, ItemUpdate::TextDelta(_))))
        .count();
    assert!(deltas > 20, "only {deltas} deltas");
    let text = answer(&events);
    assert!(text.starts_with("You said: “hello markdown”"), "{text}");
    assert!(
        text.contains("\n## ") && text.contains("\n- ") && text.contains("```rust"),
        "{text}"
    );
    assert!(
        text.contains("| Feature |") && text.contains("|:--------|"),
        "no table: {text}"
    );
    assert!(
        text.contains("[the ChatKit docs](https://openai.github.io/chatkit-js/)"),
        "no link: {text}"
    );
    // The thread gets its title from the first message, after the answer.
    let Some(StreamEvent::ThreadUpdated(last)) = events.last() else {
        panic!("no thread.updated at the end")
    };
    assert_eq!(last.thread.title.as_deref(), Some("hello markdown"));

    let list = rt.json(json!({"type": "threads.list", "params": {}})).await;
    assert_eq!(ids(&list), [thread.as_str()]);
    assert_eq!(list["data"][0]["title"], "hello markdown");
    assert_eq!(
        list["data"][0]["items"],
        json!({"data": [], "has_more": false})
    );

    let full = rt
        .json(json!({"type": "threads.get_by_id", "params": {"thread_id": thread}}))
        .await;
    let items = &full["items"]["data"];
    assert_eq!(items.as_array().unwrap().len(), 2, "{full}");
    assert_eq!(items[1]["content"][0]["text"], text.as_str());

    rt.wait_for_line("POST /chatkit threads.create 200")
        .expect("the request log line");
    rt.wait_for_line("POST /chatkit threads.list 200")
        .expect("the request log line");

    let page = rt.send("GET", "/", None, b"").await;
    assert_eq!(page.status, 200);
    assert!(page.text().contains("chat-shell test"));
    rt.wait_for_line("GET / 200")
        .expect("the static file log line");
}

#[tokio::test]
async fn threads_and_items_paginate() {
    let rt = Runtime::start();
    let first = thread_id(&rt.stream(create("one")).await);
    rt.stream(add_message(&first, "two")).await;
    rt.stream(add_message(&first, "three")).await;
    let second = thread_id(&rt.stream(create("another thread")).await);

    let all = rt.json(json!({"type": "items.list", "params": {"thread_id": first, "order": "asc", "limit": 100}})).await;
    let all = ids(&all);
    assert_eq!(all.len(), 6, "three questions and three answers: {all:?}");

    let p1 = rt.json(json!({"type": "items.list", "params": {"thread_id": first, "order": "asc", "limit": 4}})).await;
    assert_eq!(ids(&p1), all[..4]);
    assert_eq!(p1["has_more"], true);
    assert_eq!(p1["after"], all[3].as_str());
    let p2 = rt
        .json(json!({"type": "items.list", "params": {"thread_id": first, "order": "asc", "limit": 4, "after": p1["after"]}}))
        .await;
    assert_eq!(ids(&p2), all[4..]);
    assert_eq!(p2["has_more"], false);

    let desc = rt.json(json!({"type": "items.list", "params": {"thread_id": first, "order": "desc", "limit": 3}})).await;
    let expected: Vec<String> = all.iter().rev().take(3).cloned().collect();
    assert_eq!(ids(&desc), expected);

    let threads = rt
        .json(json!({"type": "threads.list", "params": {"limit": 1}}))
        .await;
    assert_eq!(ids(&threads), [second.as_str()], "newest first");
    assert_eq!(threads["has_more"], true);
    let older = rt
        .json(json!({"type": "threads.list", "params": {"limit": 1, "after": threads["after"]}}))
        .await;
    assert_eq!(ids(&older), [first.as_str()]);
    assert_eq!(older["has_more"], false);

    let renamed = rt
        .json(json!({"type": "threads.update", "params": {"thread_id": first, "title": "Renamed"}}))
        .await;
    assert_eq!(renamed["title"], "Renamed");
    assert_eq!(
        rt.json(json!({"type": "threads.delete", "params": {"thread_id": second}}))
            .await,
        json!({})
    );
    let left = rt.json(json!({"type": "threads.list", "params": {}})).await;
    assert_eq!(ids(&left), [first.as_str()]);
    let gone = rt
        .chatkit(json!({"type": "items.list", "params": {"thread_id": second}}))
        .await;
    assert_eq!(gone.status, 404);
    assert!(gone.json()["error"].is_string());
}

#[tokio::test]
async fn uploads_round_trip_and_enforce_limits() {
    let rt = Runtime::start();
    let png: &[u8] = b"\x89PNG\r\n\x1a\n\x00\x01binary\r\n--not-the-boundary";
    let created = rt
        .json(json!({"type": "attachments.create", "params": {"name": "pic.png", "size": png.len(), "mime_type": "image/png"}}))
        .await;
    let id = created["id"].as_str().unwrap().to_owned();
    let base = format!("http://127.0.0.1:{}", rt.port);
    assert_eq!(created["type"], "image");
    assert_eq!(
        created["upload_descriptor"],
        json!({"url": format!("{base}/upload/{id}"), "method": "POST", "headers": {}})
    );
    assert_eq!(created["upload_url"], format!("{base}/upload/{id}"));
    assert_eq!(created["preview_url"], format!("{base}/preview/{id}"));

    let mut body = b"--B0undary\r\nContent-Disposition: form-data; name=\"file\"; filename=\"pic.png\"\r\nContent-Type: image/png\r\n\r\n".to_vec();
    body.extend_from_slice(png);
    body.extend_from_slice(b"\r\n--B0undary--\r\n");
    let up = rt
        .send(
            "POST",
            &format!("/upload/{id}"),
            Some("multipart/form-data; boundary=B0undary"),
            &body,
        )
        .await;
    assert_eq!(up.status, 200, "{}", up.text());
    let preview = rt.send("GET", &format!("/preview/{id}"), None, b"").await;
    assert_eq!(preview.status, 200);
    assert_eq!(preview.header("content-type"), Some("image/png"));
    assert_eq!(preview.body, png);

    // A raw PUT works too; a file declared as text is served as text.
    let file = rt
        .json(json!({"type": "attachments.create", "params": {"name": "notes.txt", "size": 5, "mime_type": "text/plain"}}))
        .await;
    let file_id = file["id"].as_str().unwrap().to_owned();
    assert_eq!(file["type"], "file");
    assert!(file.get("preview_url").is_none());
    let put = rt
        .send("PUT", &format!("/upload/{file_id}"), None, b"hello")
        .await;
    assert_eq!(put.status, 200, "{}", put.text());
    assert_eq!(
        rt.send("GET", &format!("/preview/{file_id}"), None, b"")
            .await
            .body,
        b"hello"
    );

    // Limits.
    let big = vec![0u8; 10 * 1024 * 1024 + 1];
    let too_big = rt
        .send(
            "PUT",
            &format!("/upload/{file_id}"),
            Some("text/plain"),
            &big,
        )
        .await;
    assert_eq!(too_big.status, 413);
    assert!(too_big.json()["error"].as_str().unwrap().contains("10 MB"));
    let exe = rt
        .send(
            "PUT",
            &format!("/upload/{file_id}"),
            Some("application/x-msdownload"),
            b"MZ",
        )
        .await;
    assert_eq!(exe.status, 415);
    assert!(exe.json()["error"].is_string());
    assert_eq!(
        rt.send("GET", "/preview/atc_ffffffff", None, b"")
            .await
            .status,
        404
    );
    assert_eq!(
        rt.send("PUT", "/upload/atc_ffffffff", None, b"x")
            .await
            .status,
        404
    );

    // Sent with a message, attachments come back as full objects.
    let events = rt
        .stream(json!({"type": "threads.create", "params": {"input": {
            "content": [{"type": "input_text", "text": "look at these"}], "attachments": [id, file_id]
        }}}))
        .await;
    let StreamEvent::ItemDone(user) = &events[1] else {
        panic!()
    };
    let ItemKind::UserMessage(m) = &user.item.kind else {
        panic!()
    };
    assert_eq!(m.attachments.len(), 2);
    assert_eq!(m.attachments[0].name, "pic.png");
    assert_eq!(
        m.attachments[0].preview_url.as_deref(),
        Some(format!("{base}/preview/{id}").as_str())
    );
    assert_eq!(
        m.attachments[0].thread_id.as_ref().map(|t| t.0.clone()),
        Some(thread_id(&events))
    );
    assert_eq!(
        rt.json(json!({"type": "attachments.delete", "params": {"attachment_id": id}}))
            .await,
        json!({})
    );
    assert_eq!(
        rt.send("GET", &format!("/preview/{id}"), None, b"")
            .await
            .status,
        404
    );
    rt.wait_for_line(&format!("PUT /upload/{file_id} 413"))
        .expect("the upload log line");
}

#[tokio::test]
async fn retry_after_an_error_succeeds() {
    let rt = Runtime::start();
    let events = rt.stream(create("error")).await;
    let thread = thread_id(&events);
    let user = user_message_id(&events);
    let Some(StreamEvent::Error(e)) = events.last() else {
        panic!("no error at the end: {events:?}")
    };
    assert_eq!(e.code, "custom");
    assert!(e.allow_retry);
    assert_eq!(
        e.message.as_deref(),
        Some("The peer failed on purpose (attempt 1). Retry to succeed.")
    );

    let retried = rt.stream(json!({"type": "threads.retry_after_item", "params": {"thread_id": thread, "item_id": user}})).await;
    assert!(matches!(retried[0], StreamEvent::StreamOptions(_)));
    assert_eq!(
        answer(&retried),
        format!("Retry succeeded (attempt 2 for user message `{user}`).")
    );

    // The failed partial answer is gone; the retried one follows the question.
    let full = rt
        .json(json!({"type": "threads.get_by_id", "params": {"thread_id": thread}}))
        .await;
    let items = full["items"]["data"].as_array().unwrap();
    assert_eq!(items.len(), 2, "{full}");
    assert_eq!(items[0]["id"], user.as_str());
    assert!(items[1]["content"][0]["text"]
        .as_str()
        .unwrap()
        .starts_with("Retry succeeded"));
}

#[tokio::test]
async fn fork_deltas_come_under_fresh_ids() {
    let rt = Runtime::start();
    let events = rt.stream(create("fork")).await;
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, StreamEvent::StreamOptions(_))),
        "the fork sends no stream_options"
    );
    let message = events
        .iter()
        .find_map(|e| match e {
            StreamEvent::ItemAdded(a) if matches!(a.item.kind, ItemKind::AssistantMessage(_)) => {
                Some(a.item.id.clone())
            }
            _ => None,
        })
        .expect("an assistant message");
    let deltas: Vec<(String, usize)> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ItemUpdated(u) => match &u.update {
                ItemUpdate::TextDelta(d) => Some((u.item_id.0.clone(), d.content_index)),
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert!(deltas.len() >= 10, "{deltas:?}");
    let mut seen = std::collections::HashSet::new();
    for (i, (id, index)) in deltas.iter().enumerate() {
        assert!(id.starts_with("itm_") && id != &message.0, "{id}");
        assert!(seen.insert(id.clone()), "{id} used twice");
        assert_eq!(*index, i + 1);
    }
    // The store rebuilt the message from those deltas anyway.
    let thread = thread_id(&events);
    let full = rt
        .json(json!({"type": "threads.get_by_id", "params": {"thread_id": thread}}))
        .await;
    let stored = full["items"]["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["id"] == message.0.as_str())
        .cloned()
        .unwrap();
    assert_eq!(stored["content"][0]["text"], answer(&events).as_str());
}

#[tokio::test]
async fn widget_actions_stream_and_sync() {
    let rt = Runtime::start();
    let events = rt.stream(create("widget")).await;
    let thread = thread_id(&events);
    let card = done_items(&events)
        .into_iter()
        .find(|i| matches!(i.kind, ItemKind::Widget(_)))
        .expect("a widget")
        .id
        .0
        .clone();

    let synced = rt
        .json(json!({"type": "threads.sync_custom_action", "params": {"thread_id": thread, "item_id": card,
            "action": {"type": "counter", "payload": {"count": 0}, "handler": "server", "loadingBehavior": "self", "streaming": false}}}))
        .await;
    assert_eq!(synced["updated_item"]["id"], card.as_str());
    assert!(synced.to_string().contains("Sync +1 (count=1)"), "{synced}");
    let full = rt
        .json(json!({"type": "threads.get_by_id", "params": {"thread_id": thread}}))
        .await;
    assert!(
        full.to_string().contains("Sync +1 (count=1)"),
        "the sync result was not saved"
    );

    let confirmed = rt
        .stream(
            json!({"type": "threads.custom_action", "params": {"thread_id": thread, "item_id": card,
            "action": {"type": "confirm", "payload": {"card": "showcase"}, "handler": "server"}}}),
        )
        .await;
    let replaced = confirmed.iter().find_map(|e| match e {
        StreamEvent::ItemReplaced(r) => Some(serde_json::to_string(&r.item).unwrap()),
        _ => None,
    });
    let replaced = replaced.expect("thread.item.replaced");
    assert!(
        replaced.contains("\"Confirmed\"") && !replaced.contains("Sync +1"),
        "{replaced}"
    );
    assert!(answer(&confirmed).starts_with("Confirmed."));

    let form = rt.stream(add_message(&thread, "form")).await;
    let form_id = done_items(&form)
        .into_iter()
        .find(|i| matches!(i.kind, ItemKind::Widget(_)))
        .unwrap()
        .id
        .0
        .clone();
    let submitted = rt
        .stream(json!({"type": "threads.custom_action", "params": {"thread_id": thread, "item_id": form_id,
            "action": {"type": "form.submit", "payload": {"form": "profile", "name": "Ada", "plan": "pro", "agree": true}}}}))
        .await;
    let text = answer(&submitted);
    assert!(
        text.contains("| name | Ada |") && text.contains("| plan | pro |"),
        "{text}"
    );
}

#[tokio::test]
async fn approvals_client_tools_and_structured_input_continue() {
    let rt = Runtime::start();
    let events = rt.stream(create("approval")).await;
    let thread = thread_id(&events);
    let widget = done_items(&events)
        .into_iter()
        .find(|i| matches!(i.kind, ItemKind::ClientWidget(_)))
        .unwrap()
        .clone();
    let ItemKind::ClientWidget(w) = &widget.kind else {
        unreachable!()
    };
    assert_eq!(w.name, "tool_approval_request");
    assert_eq!(w.args["tool_name"], "send_payment");
    assert!(w.args["tool_args"].is_string());
    let mut payload = w.args.clone();
    payload["approved"] = json!(false);
    let decided = rt
        .stream(json!({"type": "threads.custom_action", "params": {"thread_id": thread, "item_id": widget.id,
            "action": {"type": "approval", "payload": payload, "handler": "server", "loadingBehavior": "auto"}}}))
        .await;
    assert!(
        answer(&decided).starts_with("Rejected:"),
        "{}",
        answer(&decided)
    );
    let full = rt
        .json(json!({"type": "threads.get_by_id", "params": {"thread_id": thread}}))
        .await;
    assert!(
        full.to_string().contains(r#""decision":"rejected""#),
        "{full}"
    );

    let events = rt.stream(add_message(&thread, "clienttool")).await;
    assert!(done_items(&events)
        .iter()
        .any(|i| matches!(&i.kind, ItemKind::ClientToolCall(c) if c.name == "get_client_info")));
    let cont = rt
        .stream(json!({"type": "threads.add_client_tool_output", "params": {"thread_id": thread, "result": {"language": "en-US"}}}))
        .await;
    assert!(
        answer(&cont).contains("\"language\": \"en-US\""),
        "{}",
        answer(&cont)
    );

    let events = rt.stream(add_message(&thread, "structured")).await;
    let question = done_items(&events)
        .into_iter()
        .find(|i| matches!(i.kind, ItemKind::StructuredInput(_)))
        .unwrap()
        .id
        .0
        .clone();
    let answered = rt
        .stream(json!({"type": "threads.add_structured_input", "params": {"thread_id": thread, "item_id": question,
            "answers": {"color": {"values": ["green"], "skipped": false}, "why": {"values": [], "skipped": true}}}}))
        .await;
    assert!(answered
        .iter()
        .any(|e| matches!(e, StreamEvent::ItemReplaced(_))));
    assert!(
        answer(&answered).contains("- **Pick a color** green"),
        "{}",
        answer(&answered)
    );

    let items = rt.json(json!({"type": "items.list", "params": {"thread_id": thread, "order": "asc", "limit": 100}})).await;
    let kinds: Vec<&str> = items["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["type"].as_str().unwrap())
        .collect();
    assert!(
        kinds.contains(&"client_tool_call") && kinds.contains(&"structured_input"),
        "{kinds:?}"
    );
    let tool = items["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["type"] == "client_tool_call")
        .unwrap();
    assert_eq!(tool["status"], "completed");
    assert_eq!(tool["output"], json!({"language": "en-US"}));
}

#[tokio::test]
async fn bad_requests_and_unknown_threads() {
    let rt = Runtime::start();
    let unknown = rt.chatkit(add_message("thr_ffffffff", "hello?")).await;
    assert_eq!(unknown.status, 200);
    assert_eq!(unknown.header("content-type"), Some("text/event-stream"));
    assert!(unknown.body.is_empty(), "{}", unknown.text());

    let broken = rt
        .send("POST", "/chatkit", Some("application/json"), b"{not json")
        .await;
    assert_eq!(broken.status, 400);
    assert!(broken.json()["error"].is_string());
    let bogus = rt
        .chatkit(json!({"type": "threads.bogus", "params": {}}))
        .await;
    assert_eq!(bogus.status, 400);
    let transcribe = rt.chatkit(json!({"type": "input.transcribe", "params": {"audio_base64": "", "mime_type": "audio/webm"}})).await;
    assert_eq!(transcribe.status, 400);
    assert_eq!(
        transcribe.json(),
        json!({"error": "audio_base64 is empty: nothing was recorded", "code": "bad_request"})
    );
    let missing = rt
        .chatkit(json!({"type": "threads.get_by_id", "params": {"thread_id": "thr_ffffffff"}}))
        .await;
    assert_eq!(missing.status, 404);
    rt.wait_for_line("POST /chatkit threads.bogus 400")
        .expect("the log names the bad type");
}

#[tokio::test]
async fn drop_breaks_the_connection_mid_answer() {
    let rt = Runtime::start();
    let reply = rt.chatkit(create("drop")).await;
    assert_eq!(reply.status, 200);
    assert!(!reply.complete, "the body ended cleanly");
    assert!(reply.text().contains("\"drops \""), "{}", reply.text());
}

#[tokio::test]
async fn a_client_that_leaves_is_logged_and_its_partial_answer_kept() {
    let rt = Runtime::start();
    // An identity first: the thread is looked at again below, as the same user.
    rt.json(json!({"type": "threads.list", "params": {}})).await;
    let cookie = rt.cookie().expect("an identity cookie");
    let body = create("stall").to_string();
    let mut stream = TcpStream::connect(("127.0.0.1", rt.port)).await.unwrap();
    let head = format!(
        "POST /chatkit HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nCookie: {cookie}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        rt.port,
        body.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    // Read until the partial text is out and the server has gone quiet.
    let mut raw = Vec::new();
    let mut buf = [0u8; 4096];
    // Each delta is one word: look for the last one.
    while find(&raw, b"\"minutes \"").is_none() {
        let n = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut buf))
            .await
            .expect("frames")
            .unwrap();
        assert!(n > 0, "closed early: {}", String::from_utf8_lossy(&raw));
        raw.extend_from_slice(&buf[..n]);
    }
    let thread = {
        let text = String::from_utf8_lossy(&raw);
        let at = text.find("\"id\":\"thr_").expect("a thread id") + 6;
        let len = text[at..].find('"').expect("the end of the id");
        text[at..at + len].to_owned()
    };
    drop(stream);
    let line = rt
        .wait_for_line("stream closed by client: threads.create")
        .unwrap_or_else(|| panic!("no close line in:\n{}", rt.output()));
    assert!(line.contains(&format!("thread={thread} after ")), "{line}");

    let full = rt
        .json(json!({"type": "threads.get_by_id", "params": {"thread_id": thread}}))
        .await;
    let items = full["items"]["data"].as_array().unwrap();
    assert_eq!(items.len(), 2, "{full}");
    assert_eq!(
        items[1]["content"][0]["text"],
        "This answer stalls here: no more bytes for two minutes "
    );
    // Saved when the client left; the run itself goes on (stalled) until it is stopped.
    assert!(line.ends_with("(the run goes on)"), "{line}");
    let stopped = rt
        .json(json!({"type": "threads.cancel_run", "params": {"thread_id": thread}}))
        .await;
    assert_eq!(stopped, json!({"cancelled": true}));
    let after = rt
        .json(json!({"type": "threads.get_by_id", "params": {"thread_id": thread}}))
        .await;
    assert_eq!(after["items"], full["items"], "kept as it was");
}

#[tokio::test]
async fn history_survives_a_restart() {
    let db = temp_path("history.db");
    let db_arg = db.to_str().unwrap().to_owned();
    let (thread, before, cookie) = {
        let rt = Runtime::start_with(&["--db", &db_arg]);
        let thread = thread_id(&rt.stream(create("remember me")).await);
        let full = rt
            .json(json!({"type": "threads.get_by_id", "params": {"thread_id": thread}}))
            .await;
        (thread, full, rt.cookie())
    };
    let rt = Runtime::start_with(&["--db", &db_arg]);
    // The same browser (its cookie) after the restart.
    rt.set_cookie(cookie);
    let list = rt.json(json!({"type": "threads.list", "params": {}})).await;
    assert_eq!(ids(&list), [thread.as_str()]);
    let after = rt
        .json(json!({"type": "threads.get_by_id", "params": {"thread_id": thread}}))
        .await;
    assert_eq!(after, before);
    // New ids do not collide with the old ones.
    let next = thread_id(&rt.stream(create("and me")).await);
    assert_ne!(next, thread);
    drop(rt);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{db_arg}{suffix}"));
    }
}

/// Every scenario that finishes on its own, over real HTTP: every frame decodes, and the
/// store holds exactly the items the client saw, in the same order.
#[tokio::test]
async fn every_scenario_is_decodable_and_stored_as_streamed() {
    let rt = Runtime::start();
    let keywords = [
        "markdown",
        "long fast",
        "progress",
        "task",
        "workflow",
        "annotations",
        "notice",
        "error",
        "image",
        "widget",
        "form",
        "list",
        "chart",
        "widgetstream",
        "approval",
        "clienttool",
        "effect",
        "structured",
        "endturn",
        "fork",
        "title",
        "lock",
        "agent",
    ];
    for keyword in keywords {
        let events = rt.stream(create(keyword)).await;
        let thread = thread_id(&events);
        // The last version of each item the client saw, by first appearance.
        let mut order: Vec<String> = Vec::new();
        let mut last: std::collections::HashMap<String, (Value, bool)> = Default::default();
        for event in &events {
            let (item, finished) = match event {
                StreamEvent::ItemAdded(e) => (&e.item, false),
                StreamEvent::ItemDone(e) | StreamEvent::ItemReplaced(e) => (&e.item, true),
                StreamEvent::ItemUpdated(u) => {
                    if let Some(entry) = last.get_mut(&u.item_id.0) {
                        entry.1 = false; // changed since: compared by id only
                    }
                    continue;
                }
                _ => continue,
            };
            if !order.contains(&item.id.0) {
                order.push(item.id.0.clone());
            }
            last.insert(
                item.id.0.clone(),
                (serde_json::to_value(item).unwrap(), finished),
            );
        }
        let stored = rt
            .json(json!({"type": "items.list", "params": {"thread_id": thread, "order": "asc", "limit": 1000}}))
            .await;
        assert_eq!(
            ids(&stored),
            order,
            "{keyword}: stored items differ from the streamed ones"
        );
        for item in stored["data"].as_array().unwrap() {
            let (seen, finished) = &last[item["id"].as_str().unwrap()];
            if *finished {
                assert_eq!(
                    item, seen,
                    "{keyword}: stored item differs from the last one streamed"
                );
            }
        }
        let full = rt
            .json(json!({"type": "threads.get_by_id", "params": {"thread_id": thread}}))
            .await;
        if keyword == "lock" {
            assert_eq!(full["status"]["type"], "locked", "{full}");
        }
        if keyword == "title" {
            assert_eq!(full["title"], "Renamed while streaming");
        }
        if keyword == "long fast" {
            let deltas = events
                .iter()
                .filter(|e| matches!(e, StreamEvent::ItemUpdated(_)))
                .count();
            assert_eq!(
                deltas,
                2000 + 2,
                "2,000 text deltas plus content part added and done"
            );
            assert!(answer(&events).len() > 100_000);
        }
    }
}

// --- users, requests and limits -----------------------------------------------------------

fn error_code(reply: &Reply) -> String {
    reply.json()["code"].as_str().unwrap_or_default().to_owned()
}

fn list_threads() -> Value {
    json!({"type": "threads.list", "params": {}})
}

/// `thr_…`/`msg_…`/`atc_…`: the 128-bit number after the prefix.
fn id_number(id: &str) -> u128 {
    let (_, hex) = id.split_once('_').unwrap();
    assert_eq!(hex.len(), 32, "not 128 bits of hex: {id}");
    u128::from_str_radix(hex, 16).unwrap_or_else(|e| panic!("{id}: {e}"))
}

#[tokio::test]
async fn another_user_gets_404_for_threads_items_and_attachments() {
    let rt = Runtime::start();
    // Alice: a thread holding a widget, and an uploaded attachment.
    let events = rt.stream(create("widget")).await;
    let thread = thread_id(&events);
    let widget = done_items(&events)
        .into_iter()
        .find(|i| matches!(i.kind, ItemKind::Widget(_)))
        .unwrap()
        .id
        .0
        .clone();
    let user = user_message_id(&events);
    let attachment = rt
        .json(json!({"type": "attachments.create", "params": {"name": "a.txt", "size": 5, "mime_type": "text/plain"}}))
        .await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let upload = format!("/upload/{attachment}");
    let preview = format!("/preview/{attachment}");
    assert_eq!(
        rt.send("PUT", &upload, Some("text/plain"), b"hello")
            .await
            .status,
        200
    );
    let before = rt
        .json(json!({"type": "threads.get_by_id", "params": {"thread_id": thread}}))
        .await;

    let alice = rt.cookie().expect("alice's cookie");
    let bob = rt.new_identity().await;
    assert_ne!(alice, bob);
    let as_bob = [("Cookie", bob.as_str())];
    let nobody_thread = "thr_0123456789abcdef0123456789abcdef";
    let nobody_attachment = "atc_0123456789abcdef0123456789abcdef";
    let action = json!({"type": "counter", "payload": {"count": 0}, "handler": "server", "loadingBehavior": "self", "streaming": false});
    for request in [
        json!({"type": "threads.get_by_id", "params": {"thread_id": thread}}),
        json!({"type": "items.list", "params": {"thread_id": thread}}),
        json!({"type": "threads.update", "params": {"thread_id": thread, "title": "Mine now"}}),
        json!({"type": "items.feedback", "params": {"thread_id": thread, "item_ids": [widget], "kind": "negative"}}),
        json!({"type": "threads.sync_custom_action", "params": {"thread_id": thread, "item_id": widget, "action": action}}),
        json!({"type": "attachments.delete", "params": {"attachment_id": attachment}}),
        json!({"type": "threads.delete", "params": {"thread_id": thread}}),
    ] {
        let reply = rt.chatkit_with(&as_bob, request.clone()).await;
        assert_eq!(reply.status, 404, "{request}: {}", reply.text());
        assert_eq!(error_code(&reply), "not_found");
        // Word for word what something that never existed gets: nothing tells them apart.
        let never = request
            .to_string()
            .replace(&thread, nobody_thread)
            .replace(&attachment, nobody_attachment);
        let missing = rt
            .chatkit_with(&as_bob, serde_json::from_str(&never).unwrap())
            .await;
        assert_eq!(missing.status, 404);
        assert_eq!(
            reply
                .text()
                .replace(&thread, nobody_thread)
                .replace(&attachment, nobody_attachment),
            missing.text()
        );
    }
    // Streaming requests on her thread: what an unknown thread gets (200, no event).
    for request in [
        add_message(&thread, "let me in"),
        json!({"type": "threads.retry_after_item", "params": {"thread_id": thread, "item_id": user}}),
        json!({"type": "threads.custom_action", "params": {"thread_id": thread, "item_id": widget, "action": action}}),
    ] {
        let reply = rt.chatkit_with(&as_bob, request.clone()).await;
        assert_eq!(reply.status, 200, "{request}");
        assert!(reply.body.is_empty(), "{request}: {}", reply.text());
    }
    // Her bytes.
    let up = rt
        .request(
            "PUT",
            &upload,
            &[("Cookie", &bob), ("Content-Type", "text/plain")],
            b"HELLO",
        )
        .await;
    assert_eq!(up.status, 404, "{}", up.text());
    assert_eq!(rt.request("GET", &preview, &as_bob, b"").await.status, 404);
    // Her attachment in his message is ignored.
    let his = rt
        .chatkit_with(
            &as_bob,
            json!({"type": "threads.create", "params": {"input": {
                "content": [{"type": "input_text", "text": "mine?"}], "attachments": [attachment]
            }}}),
        )
        .await;
    let StreamEvent::ItemDone(echo) = &events_of(&his)[1] else {
        panic!()
    };
    let ItemKind::UserMessage(m) = &echo.item.kind else {
        panic!()
    };
    assert!(m.attachments.is_empty(), "{:?}", m.attachments);
    // His list holds only his thread.
    let his_list = rt.chatkit_with(&as_bob, list_threads()).await.json();
    assert_eq!(ids(&his_list), [thread_id(&events_of(&his))]);

    // Alice's things are all still hers, unchanged.
    let after = rt
        .json(json!({"type": "threads.get_by_id", "params": {"thread_id": thread}}))
        .await;
    assert_eq!(after, before);
    assert_eq!(ids(&rt.json(list_threads()).await), [thread.as_str()]);
    let bytes = rt.send("GET", &preview, None, b"").await;
    assert_eq!((bytes.status, bytes.body.as_slice()), (200, &b"hello"[..]));
}

fn events_of(reply: &Reply) -> Vec<StreamEvent> {
    assert_eq!(reply.status, 200, "{}", reply.text());
    events(&reply.body)
}

#[tokio::test]
async fn minted_ids_are_long_random_and_unrelated() {
    let rt = Runtime::start();
    let a = rt.stream(create("one")).await;
    let b = rt.stream(create("two")).await;
    let attachment = |name: &str| json!({"type": "attachments.create", "params": {"name": name, "size": 1, "mime_type": "text/plain"}});
    let c = rt.json(attachment("a.txt")).await;
    let d = rt.json(attachment("b.txt")).await;
    let pairs = [
        (thread_id(&a), thread_id(&b)),
        (user_message_id(&a), user_message_id(&b)),
        (
            c["id"].as_str().unwrap().to_owned(),
            d["id"].as_str().unwrap().to_owned(),
        ),
    ];
    for (x, y) in pairs {
        let (nx, ny) = (id_number(&x), id_number(&y));
        // Two 128-bit random numbers: never a step apart (a counter would be).
        assert!(nx.abs_diff(ny) > u128::from(u64::MAX), "{x} and {y}");
    }
    // Two browsers never get the same identity.
    assert_ne!(rt.new_identity().await, rt.new_identity().await);
}

#[tokio::test]
async fn chatkit_takes_only_json() {
    let rt = Runtime::start();
    let body = list_threads().to_string();
    for content_type in [
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
        Some("multipart/form-data; boundary=x"),
        Some("application/jsonp"),
        None,
    ] {
        let headers: Vec<(&str, &str)> = content_type
            .map(|c| vec![("Content-Type", c)])
            .unwrap_or_default();
        let reply = rt
            .request("POST", "/chatkit", &headers, body.as_bytes())
            .await;
        assert_eq!(reply.status, 415, "{content_type:?}");
        assert_eq!(reply.header("content-type"), Some("application/json"));
        assert_eq!(error_code(&reply), "unsupported_media_type");
        assert!(reply.json()["error"].is_string());
    }
    let ok = rt
        .request(
            "POST",
            "/chatkit",
            &[("Content-Type", "Application/JSON; charset=utf-8")],
            body.as_bytes(),
        )
        .await;
    assert_eq!(ok.status, 200, "{}", ok.text());
    rt.wait_for_line("POST /chatkit - 415")
        .expect("refusals are logged");
}

#[tokio::test]
async fn cross_site_requests_are_refused() {
    let app = "http://app.example:3000";
    let token = "token-for-the-app-0123456789";
    let rt = Runtime::start_with(&["--memory", "--allow-origin", app, "--token", token]);
    let own = format!("http://127.0.0.1:{}", rt.port);
    let cookie = rt.new_identity().await;

    // The runtime's own page.
    let same = rt
        .chatkit_with(
            &[
                ("Origin", &own),
                ("Sec-Fetch-Site", "same-origin"),
                ("Cookie", &cookie),
            ],
            list_threads(),
        )
        .await;
    assert_eq!(same.status, 200, "{}", same.text());
    assert_eq!(same.header("access-control-allow-origin"), None);

    for origin in [
        "http://evil.example",
        "http://127.0.0.1:1",
        "null",
        "http://app.example:3001",
        "https://app.example:3000",
    ] {
        let from = |extra: &'static [(&'static str, &'static str)]| {
            let mut h = vec![("Origin", origin), ("Cookie", cookie.as_str())];
            h.extend_from_slice(extra);
            h
        };
        for request in [list_threads(), create("posted from elsewhere")] {
            let reply = rt.chatkit_with(&from(&[]), request).await;
            assert_eq!(reply.status, 403, "{origin}: {}", reply.text());
            assert_eq!(error_code(&reply), "forbidden_origin");
            assert_eq!(reply.header("access-control-allow-origin"), None);
        }
        let upload = rt.request("POST", "/upload/atc_x", &from(&[]), b"x").await;
        assert_eq!(upload.status, 403, "{origin}");
        let preflight = rt
            .request(
                "OPTIONS",
                "/chatkit",
                &from(&[
                    ("Access-Control-Request-Method", "POST"),
                    ("Access-Control-Request-Headers", "content-type"),
                ]),
                b"",
            )
            .await;
        assert_eq!(preflight.status, 403, "{origin}");
        assert_eq!(preflight.header("access-control-allow-origin"), None);
    }
    // No Origin, but the browser says another site sent it.
    for site in ["cross-site", "same-site"] {
        let reply = rt
            .chatkit_with(
                &[("Sec-Fetch-Site", site), ("Cookie", &cookie)],
                create("from a form elsewhere"),
            )
            .await;
        assert_eq!(reply.status, 403, "{site}");
    }
    // None of it created anything.
    let list = rt
        .chatkit_with(&[("Cookie", &cookie)], list_threads())
        .await;
    assert!(ids(&list.json()).is_empty(), "{}", list.text());

    // The configured origin: a preflight, then CORS headers on the answer.
    let preflight = rt
        .request(
            "OPTIONS",
            "/chatkit",
            &[
                ("Origin", app),
                ("Access-Control-Request-Method", "POST"),
                (
                    "Access-Control-Request-Headers",
                    "content-type, authorization",
                ),
            ],
            b"",
        )
        .await;
    assert_eq!(preflight.status, 204, "{}", preflight.text());
    assert_eq!(preflight.header("access-control-allow-origin"), Some(app));
    assert_eq!(
        preflight.header("access-control-allow-credentials"),
        Some("true")
    );
    assert!(preflight
        .header("access-control-allow-methods")
        .is_some_and(|m| m.contains("POST")));
    assert!(preflight
        .header("access-control-allow-headers")
        .is_some_and(|h| h.contains("authorization")));
    let bearer = format!("Bearer {token}");
    let allowed = rt
        .chatkit_with(
            &[
                ("Origin", app),
                ("Sec-Fetch-Site", "cross-site"),
                ("Authorization", &bearer),
            ],
            create("from the app"),
        )
        .await;
    assert_eq!(allowed.header("access-control-allow-origin"), Some(app));
    assert_eq!(allowed.set_cookie(), None);
    let made = thread_id(&events_of(&allowed));
    let listed = rt
        .chatkit_with(
            &[("Origin", app), ("Authorization", &bearer)],
            list_threads(),
        )
        .await;
    assert_eq!(ids(&listed.json()), [made.as_str()]);
    // Without a token it would be a new stranger on every request: refused instead.
    let anonymous = rt
        .chatkit_with(
            &[("Origin", app), ("Sec-Fetch-Site", "cross-site")],
            list_threads(),
        )
        .await;
    assert_eq!(anonymous.status, 401, "{}", anonymous.text());
    assert_eq!(error_code(&anonymous), "unauthorized");
    assert_eq!(anonymous.header("access-control-allow-origin"), Some(app));

    // A link from another site still opens the page, and cannot replace the browser's
    // cookie (SameSite=Strict kept it from being sent); a typed address gets one.
    let followed = rt
        .request(
            "GET",
            "/",
            &[
                ("Sec-Fetch-Site", "cross-site"),
                ("Sec-Fetch-Mode", "navigate"),
            ],
            b"",
        )
        .await;
    assert_eq!(followed.status, 200);
    assert_eq!(followed.set_cookie(), None);
    let typed = rt
        .request(
            "GET",
            "/",
            &[("Sec-Fetch-Site", "none"), ("Sec-Fetch-Mode", "navigate")],
            b"",
        )
        .await;
    assert_eq!(typed.status, 200);
    assert!(typed.set_cookie().is_some());
}

#[tokio::test]
async fn requests_for_other_hosts_are_refused() {
    let rt = Runtime::start_with(&["--memory", "--allowed-host", "chat.example.com"]);
    let port = rt.port;
    let other_port = port.checked_add(1).unwrap_or(1);
    for host in [
        format!("evil.example:{port}"),
        "127.0.0.1".to_owned(),
        format!("localhost:{other_port}"),
        format!("127.0.0.1.nip.io:{port}"),
        "chat.example.com.evil.example".to_owned(),
    ] {
        let reply = rt.chatkit_with(&[("Host", &host)], list_threads()).await;
        assert_eq!(reply.status, 421, "{host}: {}", reply.text());
        assert_eq!(error_code(&reply), "misdirected_request");
        assert_eq!(reply.set_cookie(), None);
        let page = rt.request("GET", "/", &[("Host", &host)], b"").await;
        assert_eq!(page.status, 421, "{host}");
        assert!(!page.text().contains("chat-shell test"));
    }
    for host in [
        format!("localhost:{port}"),
        format!("[::1]:{port}"),
        "chat.example.com".to_owned(),
        "chat.example.com:8443".to_owned(),
    ] {
        let reply = rt.chatkit_with(&[("Host", &host)], list_threads()).await;
        assert_eq!(reply.status, 200, "{host}: {}", reply.text());
    }
    // Upload and preview URLs name the host the client used.
    let created = rt
        .chatkit_with(
            &[("Host", "chat.example.com")],
            json!({"type": "attachments.create", "params": {"name": "p.png", "size": 1, "mime_type": "image/png"}}),
        )
        .await
        .json();
    assert!(
        created["upload_url"]
            .as_str()
            .unwrap()
            .starts_with("http://chat.example.com/upload/atc_"),
        "{created}"
    );
}

#[tokio::test]
async fn oversized_titles_pages_and_attachment_declarations_get_400() {
    let rt = Runtime::start_with(&["--memory", "--max-upload-mb", "1"]);
    let thread = thread_id(&rt.stream(create("limits")).await);
    let attachment = |name: &str, size: u64, mime: &str| json!({"type": "attachments.create", "params": {"name": name, "size": size, "mime_type": mime}});
    let mb = 1024 * 1024;
    for request in [
        json!({"type": "threads.update", "params": {"thread_id": thread, "title": "x".repeat(257)}}),
        json!({"type": "threads.list", "params": {"limit": 1_000_000}}),
        json!({"type": "items.list", "params": {"thread_id": thread, "limit": 1001}}),
        attachment(&"n".repeat(256), 1, "text/plain"),
        attachment("", 1, "text/plain"),
        attachment("two\nlines.txt", 1, "text/plain"),
        attachment("a.txt", 1, "not a type"),
        attachment("a.txt", 1, "text/plain\r\nX-Injected: 1"),
        attachment("a.txt", 1, &format!("text/{}", "x".repeat(300))),
        attachment("a.txt", mb + 1, "text/plain"),
    ] {
        let reply = rt.chatkit(request.clone()).await;
        assert_eq!(reply.status, 400, "{request}: {}", reply.text());
        assert_eq!(error_code(&reply), "bad_request", "{request}");
        assert!(
            !reply.json()["error"].as_str().unwrap().is_empty(),
            "{request}"
        );
    }
    // Right at the limits: accepted.
    let title = "é".repeat(256);
    let renamed = rt
        .json(json!({"type": "threads.update", "params": {"thread_id": thread, "title": title}}))
        .await;
    assert_eq!(renamed["title"], title.as_str());
    rt.json(json!({"type": "threads.list", "params": {"limit": 1000}}))
        .await;
    rt.json(json!({"type": "items.list", "params": {"thread_id": thread, "limit": 1000}}))
        .await;
    rt.json(attachment(&"n".repeat(255), mb, "")).await;
    rt.json(attachment("a.txt", 0, "text/plain; charset=utf-8"))
        .await;
    let kept = rt
        .json(json!({"type": "threads.get_by_id", "params": {"thread_id": thread}}))
        .await;
    assert_eq!(kept["title"], title.as_str());
}

#[tokio::test]
async fn an_upload_must_be_exactly_the_declared_size() {
    let rt = Runtime::start();
    let created = rt
        .json(json!({"type": "attachments.create", "params": {"name": "notes.txt", "size": 5, "mime_type": "text/plain"}}))
        .await;
    let id = created["id"].as_str().unwrap().to_owned();
    let (upload, preview) = (format!("/upload/{id}"), format!("/preview/{id}"));
    let multipart = |data: &[u8]| {
        let mut body = b"--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"notes.txt\"\r\nContent-Type: text/plain\r\n\r\n".to_vec();
        body.extend_from_slice(data);
        body.extend_from_slice(b"\r\n--XyZ--\r\n");
        body
    };
    for data in [&b"four"[..], b"sixsix", b""] {
        let raw = rt.send("PUT", &upload, Some("text/plain"), data).await;
        assert_eq!(raw.status, 400, "{data:?}: {}", raw.text());
        assert_eq!(error_code(&raw), "bad_request");
        assert!(raw.json()["error"].as_str().unwrap().contains("declared 5"));
        let form = rt
            .send(
                "POST",
                &upload,
                Some("multipart/form-data; boundary=XyZ"),
                &multipart(data),
            )
            .await;
        assert_eq!(form.status, 400, "{data:?}: {}", form.text());
    }
    assert_eq!(rt.send("GET", &preview, None, b"").await.status, 404);

    let raw = rt.send("PUT", &upload, Some("text/plain"), b"hello").await;
    assert_eq!(raw.status, 200, "{}", raw.text());
    let form = rt
        .send(
            "POST",
            &upload,
            Some("multipart/form-data; boundary=XyZ"),
            &multipart(b"HELLO"),
        )
        .await;
    assert_eq!(form.status, 200, "{}", form.text());
    assert_eq!(rt.send("GET", &preview, None, b"").await.body, b"HELLO");
    let broken = rt
        .send(
            "POST",
            &upload,
            Some("multipart/form-data; boundary=XyZ"),
            b"--XyZ\r\nbroken",
        )
        .await;
    assert_eq!(broken.status, 400, "{}", broken.text());
}

#[tokio::test]
async fn internal_errors_do_not_leak_sqlite_details() {
    let db = temp_path("broken.db");
    let db_arg = db.to_str().unwrap().to_owned();
    let rt = Runtime::start_with(&["--db", &db_arg]);
    // Break the database under the running runtime: these writes now fail, with SQL in
    // the error text.
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute_batch(
            "CREATE TRIGGER no_threads BEFORE INSERT ON threads
                 BEGIN SELECT RAISE(ABORT, 'SQLite says no: INSERT INTO threads (owner)'); END;
             CREATE TRIGGER no_bytes BEFORE UPDATE OF bytes ON attachments
                 BEGIN SELECT RAISE(ABORT, 'SQLite says no: UPDATE attachments SET bytes'); END;",
        )
        .unwrap();
    }
    let check = |what: &str, reply: &Reply| {
        assert_eq!(reply.status, 500, "{what}: {}", reply.text());
        assert_eq!(reply.header("content-type"), Some("application/json"));
        assert_eq!(error_code(reply), "internal", "{what}");
        let text = reply.text().to_ascii_lowercase();
        for leak in [
            "sqlite", "sql", "insert", "update", "raise", "trigger", "owner", "says no",
        ] {
            assert!(!text.contains(leak), "{what} leaks `{leak}`: {text}");
        }
    };
    check("threads.create", &rt.chatkit(create("hello")).await);
    let attachment = rt
        .json(json!({"type": "attachments.create", "params": {"name": "a.txt", "size": 2, "mime_type": "text/plain"}}))
        .await;
    let upload = format!("/upload/{}", attachment["id"].as_str().unwrap());
    check(
        "upload",
        &rt.send("PUT", &upload, Some("text/plain"), b"hi").await,
    );
    drop(rt);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{db_arg}{suffix}"));
    }
}

#[tokio::test]
async fn the_identity_cookie_is_strict_signed_and_survives_a_restart() {
    let db = temp_path("identity.db");
    let db_arg = db.to_str().unwrap().to_owned();
    let rt = Runtime::start_with(&["--db", &db_arg]);
    let first = rt.chatkit_with(&[], list_threads()).await;
    let set = first.header("set-cookie").expect("a cookie").to_owned();
    for part in ["HttpOnly", "SameSite=Strict", "Path=/"] {
        assert!(set.contains(part), "{set}");
    }
    let cookie = first.set_cookie().unwrap();
    let (name, value) = cookie.split_once('=').unwrap();
    let (id, mac) = value.split_once('.').expect("id.signature");
    assert_eq!((id.len(), mac.len()), (32, 64), "{value}");
    assert!(value.bytes().all(|c| c == b'.' || c.is_ascii_hexdigit()));

    rt.set_cookie(Some(cookie.clone()));
    let thread = thread_id(&rt.stream(create("who am i")).await);
    // A cookie it knows is kept, not replaced.
    let again = rt
        .chatkit_with(&[("Cookie", &cookie)], list_threads())
        .await;
    assert_eq!(again.set_cookie(), None);
    assert_eq!(ids(&again.json()), [thread.as_str()]);
    // Another id under the same signature is a stranger, with a cookie of its own.
    let flipped = if id.starts_with('0') { "1" } else { "0" };
    let forged = format!("{name}={flipped}{}.{mac}", &id[1..]);
    let stranger = rt
        .chatkit_with(&[("Cookie", &forged)], list_threads())
        .await;
    assert!(ids(&stranger.json()).is_empty());
    assert!(stranger.set_cookie().is_some_and(|c| c != forged));
    drop(rt);

    let rt = Runtime::start_with(&["--db", &db_arg]);
    let back = rt
        .chatkit_with(&[("Cookie", &cookie)], list_threads())
        .await;
    assert_eq!(ids(&back.json()), [thread.as_str()], "{}", back.text());
    assert_eq!(back.set_cookie(), None);
    let newcomer = rt.chatkit_with(&[], list_threads()).await;
    assert!(ids(&newcomer.json()).is_empty());
    let new_cookie = newcomer.set_cookie().unwrap();
    assert!(new_cookie.starts_with(&format!("{name}=")) && new_cookie != cookie);
    drop(rt);
    // Another database: another secret, another cookie name.
    let memory = Runtime::start();
    let elsewhere = memory
        .chatkit_with(&[("Cookie", &cookie)], list_threads())
        .await;
    assert!(ids(&elsewhere.json()).is_empty());
    assert!(!elsewhere
        .set_cookie()
        .unwrap()
        .starts_with(&format!("{name}=")));
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{db_arg}{suffix}"));
    }
}

#[tokio::test]
async fn bearer_tokens_are_identities_of_their_own() {
    let a = "token-a-0123456789abcdef";
    let b = "token-b-0123456789abcdef";
    let rt = Runtime::start_with_env(&["--memory", "--token", a], Some(&format!(" {b} ,")));
    let (bearer_a, bearer_b) = (format!("Bearer {a}"), format!("Bearer {b}"));
    let created = rt
        .chatkit_with(&[("Authorization", &bearer_a)], create("token a"))
        .await;
    assert_eq!(created.set_cookie(), None, "a token needs no cookie");
    let thread = thread_id(&events_of(&created));
    let get = json!({"type": "threads.get_by_id", "params": {"thread_id": thread}});
    let mine = rt
        .chatkit_with(&[("Authorization", &bearer_a)], get.clone())
        .await;
    assert_eq!(mine.status, 200, "{}", mine.text());
    let theirs = rt
        .chatkit_with(&[("Authorization", &bearer_b)], get.clone())
        .await;
    assert_eq!(theirs.status, 404, "{}", theirs.text());
    let cookie = rt.new_identity().await;
    assert_eq!(
        rt.chatkit_with(&[("Cookie", &cookie)], get.clone())
            .await
            .status,
        404
    );
    // An unknown token is refused, even alongside a valid cookie.
    for auth in ["Bearer nobody-configured-this-token", "Bearer "] {
        let refused = rt
            .chatkit_with(&[("Authorization", auth), ("Cookie", &cookie)], get.clone())
            .await;
        assert_eq!(refused.status, 401, "{auth}");
        assert_eq!(error_code(&refused), "unauthorized");
        assert_eq!(refused.header("www-authenticate"), Some("Bearer"));
    }
}

#[tokio::test]
async fn a_seeded_thread_goes_to_the_first_user_only() {
    let rt = Runtime::start_with(&["--memory", "--seed-thread", "4"]);
    let first = rt.json(list_threads()).await;
    assert_eq!(ids(&first).len(), 1, "{first}");
    assert_eq!(first["data"][0]["title"], "Seeded thread (4 items)");
    let second = rt.new_identity().await;
    let theirs = rt
        .chatkit_with(&[("Cookie", &second)], list_threads())
        .await;
    assert!(ids(&theirs.json()).is_empty(), "{}", theirs.text());
}

#[tokio::test]
async fn a_mixed_seeded_thread_lists_tool_calls_and_widgets() {
    let rt = Runtime::start_with(&["--memory", "--seed-thread", "10", "--seed-mixed"]);
    let threads = rt.json(list_threads()).await;
    let thread = &ids(&threads)[0];
    let items = rt
        .json(json!({"type": "items.list", "params": {"thread_id": thread, "order": "asc"}}))
        .await;
    let types: Vec<&str> = items["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        types,
        [
            "user_message",
            "assistant_message",
            "user_message",
            "acp_tool_call",
            "user_message",
            "assistant_message",
            "user_message",
            "widget",
            "user_message",
            "assistant_message",
        ]
    );
    let call = &items["data"][3]["tool_call"];
    assert_eq!(call["content"][0]["type"], "diff", "{call}");
    assert_eq!(items["data"][7]["widget"]["type"], "Card");
    let newest = items["data"][9]["content"][0]["text"].as_str().unwrap();
    assert!(newest.starts_with("Seeded answer 5:"), "{newest}");
}

// --- agent runs: ACP tool calls and permissions over ChatKit, and POST /events ------------

/// The tool call items of a page of items (`items.list` or a thread's `items`).
fn tool_calls(page: &Value) -> Vec<Value> {
    page["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["type"] == "acp_tool_call")
        .cloned()
        .collect()
}

/// What the core's reducer makes of `events` (a turn from start to end): each tool
/// call's title and `data-status`.
fn reduced_states(events: &[StreamEvent], ended: bool) -> Vec<(String, String)> {
    use chat_shell_core::reducer::{reduce, ChatState, Input};
    let mut state = ChatState::default();
    let _ = reduce(&mut state, Input::TurnStarted);
    for event in events {
        let _ = reduce(
            &mut state,
            chat_shell_core::adapters::chatkit::input(event.clone()),
        );
    }
    let end = if ended {
        Input::StreamEnded
    } else {
        Input::StreamFailed {
            message: "connection lost".into(),
            allow_retry: true,
        }
    };
    let _ = reduce(&mut state, end);
    call_states(&state)
}

fn call_states(state: &chat_shell_core::reducer::ChatState) -> Vec<(String, String)> {
    state
        .items()
        .iter()
        .filter_map(|i| match &i.item.kind {
            chat_shell_core::model::EntryKind::ToolCall(c) => Some((
                c.tool_call.title.clone(),
                i.tool_call_state()?.as_str().to_owned(),
            )),
            _ => None,
        })
        .collect()
}

/// What a client that opens `thread` (its `threads.get_by_id` JSON) shows.
fn hydrated_states(thread: &Value) -> Vec<(String, String)> {
    use chat_shell_core::reducer::{reduce, ChatState};
    let thread: chat_shell_core::protocol::chatkit::Thread =
        serde_json::from_value(thread.clone()).expect("a thread the client decodes");
    let mut state = ChatState::default();
    let _ = reduce(
        &mut state,
        chat_shell_core::adapters::chatkit::thread_loaded(thread),
    );
    call_states(&state)
}

fn states(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(t, s)| ((*t).to_owned(), (*s).to_owned()))
        .collect()
}

fn permission_answer(thread: &str, item: &str, call: &str, outcome: Value) -> Value {
    json!({"type": "threads.custom_action", "params": {
        "thread_id": thread, "item_id": item,
        "action": {"type": "acp.permission_response",
                   "payload": {"toolCallId": call, "outcome": outcome}}
    }})
}

fn selected(option: &str) -> Value {
    json!({"outcome": "selected", "optionId": option})
}

fn updates(events: &[StreamEvent]) -> Vec<&ItemUpdate> {
    events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ItemUpdated(u) => Some(&u.update),
            _ => None,
        })
        .collect()
}

impl Runtime {
    /// Polls the user's threads until one has a tool call asking permission; returns
    /// (thread id, item id, tool call id).
    async fn asking_call(&self) -> (String, String, String) {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let threads = self.json(list_threads()).await;
            for thread in ids(&threads) {
                let items = self
                    .json(json!({"type": "items.list", "params": {"thread_id": thread, "limit": 100}}))
                    .await;
                for call in tool_calls(&items) {
                    if call["permission"].is_object() && call["permission"]["outcome"].is_null() {
                        return (
                            thread.clone(),
                            call["id"].as_str().unwrap().to_owned(),
                            call["tool_call"]["toolCallId"].as_str().unwrap().to_owned(),
                        );
                    }
                }
            }
            assert!(Instant::now() < deadline, "no tool call asks permission");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Sends `request` to /chatkit as this browser and reads the answer until `needle`
    /// is in it; returns the open connection (drop it to leave) and what was read.
    async fn open_until(&self, request: Value, needle: &str) -> (TcpStream, String) {
        let cookie = self.cookie().expect("an identity first");
        let body = request.to_string();
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).await.unwrap();
        let head = format!(
            "POST /chatkit HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nCookie: {cookie}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            self.port,
            body.len()
        );
        stream.write_all(head.as_bytes()).await.unwrap();
        let mut raw = Vec::new();
        let mut buf = [0u8; 4096];
        while find(&raw, needle.as_bytes()).is_none() {
            let n = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut buf))
                .await
                .expect("frames")
                .unwrap();
            assert!(n > 0, "closed early: {}", String::from_utf8_lossy(&raw));
            raw.extend_from_slice(&buf[..n]);
        }
        (stream, String::from_utf8_lossy(&raw).into_owned())
    }

    async fn events_request(&self, headers: &[(&str, &str)], body: &[u8]) -> Reply {
        let cookie = self.cookie();
        let mut all: Vec<(&str, &str)> = headers.to_vec();
        if let Some(c) = &cookie {
            all.push(("Cookie", c.as_str()));
        }
        self.request("POST", "/events", &all, body).await
    }
}

#[tokio::test]
async fn the_agent_run_round_trips_through_the_core_and_hydrates() {
    let rt = Runtime::start();
    let events = rt.stream(create("show me an agent run")).await;
    let thread = thread_id(&events);
    let expected = states(&[
        ("Read src/parser.rs", "completed"),
        ("Fetch https://docs.example.com/ranges", "failed"),
        ("Edit src/parser.rs", "completed"),
        ("Create tests/range_regression.rs", "completed"),
        ("Run cargo test", "completed"),
    ]);
    assert_eq!(reduced_states(&events, true), expected);
    let kinds: Vec<&str> = updates(&events)
        .into_iter()
        .map(|u| match u {
            ItemUpdate::AcpToolCallUpdated(_) => "call",
            ItemUpdate::AcpPlanUpdated(_) => "plan",
            ItemUpdate::AcpThoughtChunk(_) => "thought",
            _ => "other",
        })
        .collect();
    for kind in ["call", "plan", "thought"] {
        assert!(kinds.contains(&kind), "no {kind} update in {kinds:?}");
    }

    // Stored as streamed, and what a reload shows.
    let items = rt
        .json(json!({"type": "items.list", "params": {"thread_id": thread, "order": "asc", "limit": 100}}))
        .await;
    let types: Vec<&str> = items["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        types,
        [
            "user_message",
            "acp_thought",
            "acp_plan",
            "acp_tool_call",
            "acp_tool_call",
            "acp_tool_call",
            "acp_tool_call",
            "acp_tool_call",
            "assistant_message"
        ]
    );
    let data = items["data"].as_array().unwrap();
    assert!(data[1]["text"].as_str().unwrap().contains("off-by-one"));
    assert!(data[2]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .all(|e| e["status"] == "completed"));
    let calls = tool_calls(&items);
    assert_eq!(
        calls[0]["tool_call"]["locations"][0],
        json!({"path": "/repo/src/parser.rs", "line": 42})
    );
    assert!(calls[2]["tool_call"]["content"][0]["oldText"].is_string());
    assert_eq!(calls[3]["tool_call"]["content"][0]["oldText"], Value::Null);
    assert_eq!(calls[4]["tool_call"]["content"][0]["type"], "terminal");
    assert_eq!(
        calls[4]["tool_call"]["rawOutput"]["exitStatus"]["exitCode"],
        0
    );
    assert!(calls[4]["tool_call"]["rawOutput"]["output"]
        .as_str()
        .unwrap()
        .contains("\u{1b}[32mok\u{1b}[0m"));
    let full = rt
        .json(json!({"type": "threads.get_by_id", "params": {"thread_id": thread}}))
        .await;
    assert_eq!(hydrated_states(&full), expected);
    assert_eq!(full["title"], "show me an agent run");
}

#[tokio::test]
async fn agentcut_drops_mid_tool_and_keeps_the_call_in_progress() {
    let rt = Runtime::start();
    let reply = rt.chatkit(create("agentcut")).await;
    assert_eq!(reply.status, 200);
    assert!(!reply.complete, "the body ended cleanly");
    let events = events(&reply.body);
    assert_eq!(
        reduced_states(&events, false),
        states(&[("Run cargo build --release", "interrupted")])
    );
    let thread = thread_id(&events);
    let items = rt
        .json(json!({"type": "items.list", "params": {"thread_id": thread}}))
        .await;
    let calls = tool_calls(&items);
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0]["tool_call"]["status"], "in_progress");
    assert!(calls[0]["tool_call"]["rawOutput"]["output"]
        .as_str()
        .unwrap()
        .contains("Compiling demo"));
}

/// The stream that asked waits (keepalives and all) for the answer; the answer is checked,
/// saved once, and the waiting stream goes on with the tool run.
#[tokio::test]
async fn a_permission_answer_continues_the_waiting_stream_and_is_decided_once() {
    let rt = Runtime::start();
    rt.json(list_threads()).await;
    let asked = rt.stream(create("permission please"));
    let answering = async {
        let (thread, item, call) = rt.asking_call().await;
        // Refused: an option not offered, another tool call's id, an unknown outcome,
        // no item, another user.
        let bad = rt
            .chatkit(permission_answer(&thread, &item, &call, selected("sudo")))
            .await;
        assert_eq!(
            (bad.status, error_code(&bad)),
            (400, "unknown_option".into())
        );
        let bad = rt
            .chatkit(permission_answer(
                &thread,
                &item,
                "call_other",
                selected("allow-once"),
            ))
            .await;
        assert_eq!(
            (bad.status, error_code(&bad)),
            (400, "wrong_tool_call".into())
        );
        let bad = rt
            .chatkit(permission_answer(
                &thread,
                &item,
                &call,
                json!({"outcome": "maybe"}),
            ))
            .await;
        assert_eq!(bad.status, 400, "{}", bad.text());
        let mut no_item = permission_answer(&thread, &item, &call, selected("allow-once"));
        no_item["params"]["item_id"] = Value::Null;
        assert_eq!(rt.chatkit(no_item).await.status, 400);
        let missing = rt
            .chatkit(permission_answer(
                &thread,
                "tc_ffff",
                &call,
                selected("allow-once"),
            ))
            .await;
        assert_eq!(missing.status, 404);
        let stranger = rt.new_identity().await;
        let other = rt
            .request(
                "POST",
                "/chatkit",
                &[("Content-Type", "application/json"), ("Cookie", &stranger)],
                permission_answer(&thread, &item, &call, selected("allow-once"))
                    .to_string()
                    .as_bytes(),
            )
            .await;
        assert_eq!(
            (other.status, error_code(&other)),
            (404, "not_found".into())
        );
        // Still asking after all that.
        let still = rt
            .json(json!({"type": "items.list", "params": {"thread_id": thread}}))
            .await;
        assert!(tool_calls(&still)[0]["permission"]["outcome"].is_null());

        let confirmed = rt
            .stream(permission_answer(
                &thread,
                &item,
                &call,
                selected("allow-once"),
            ))
            .await;
        // The waiting stream runs the tool: this answer only confirms.
        assert_eq!(confirmed.len(), 1, "{confirmed:?}");
        assert!(matches!(
            updates(&confirmed)[..],
            [ItemUpdate::AcpPermissionResolved(_)]
        ));
        let again = rt
            .chatkit(permission_answer(
                &thread,
                &item,
                &call,
                selected("reject-once"),
            ))
            .await;
        assert_eq!(
            (again.status, error_code(&again)),
            (409, "already_decided".into())
        );
        assert!(again.json()["error"]
            .as_str()
            .unwrap()
            .contains("selected allow-once"));
        let cancel = rt
            .chatkit(permission_answer(
                &thread,
                &item,
                &call,
                json!({"outcome": "cancelled"}),
            ))
            .await;
        assert_eq!(cancel.status, 409);
        (thread, item)
    };
    let (events, (thread, item)) = tokio::join!(asked, answering);
    assert_eq!(
        reduced_states(&events, true),
        states(&[("Remove the incremental build cache", "completed")])
    );
    let kinds: Vec<&str> = updates(&events)
        .into_iter()
        .filter_map(|u| match u {
            ItemUpdate::AcpPermissionRequested(_) => Some("requested"),
            ItemUpdate::AcpPermissionResolved(_) => Some("resolved"),
            ItemUpdate::AcpToolCallUpdated(_) => Some("update"),
            _ => None,
        })
        .collect();
    assert_eq!(kinds, ["requested", "resolved", "update", "update"]);
    assert!(
        answer(&events).contains("Allow once"),
        "{}",
        answer(&events)
    );
    rt.wait_for_line("(the asking stream goes on)")
        .expect("the decision is logged");

    // Hydration: the decision and the finished call.
    let full = rt
        .json(json!({"type": "threads.get_by_id", "params": {"thread_id": thread}}))
        .await;
    let calls = tool_calls(&full["items"]);
    assert_eq!(calls[0]["id"], item.as_str());
    assert_eq!(calls[0]["permission"]["outcome"], selected("allow-once"));
    assert_eq!(
        calls[0]["permission"]["options"].as_array().unwrap().len(),
        4
    );
    assert_eq!(calls[0]["tool_call"]["status"], "completed");
    assert_eq!(
        hydrated_states(&full),
        states(&[("Remove the incremental build cache", "completed")])
    );
}

/// A run stopped while it asks (Stop: `threads.cancel_run`) is answered later: the
/// answer's own stream carries what the decision leads to. A reject and a cancel, each
/// saved and shown on reload. (A client that only left does not stop the run: see
/// tests/runs.rs.)
#[tokio::test]
async fn a_permission_answered_after_the_stream_ended_continues_in_its_answer() {
    let rt = Runtime::start();
    rt.json(list_threads()).await;
    for (outcome, status, says, state) in [
        (
            selected("reject-always"),
            "failed",
            Some("Always reject"),
            "rejected",
        ),
        (json!({"outcome": "cancelled"}), "failed", None, "cancelled"),
    ] {
        let (stream, read) = rt
            .open_until(create("permission"), "acp_tool_call.permission_requested")
            .await;
        let (thread, item, call) = rt.asking_call().await;
        let stopped = rt
            .json(json!({"type": "threads.cancel_run", "params": {"thread_id": thread}}))
            .await;
        assert_eq!(stopped, json!({"cancelled": true}));
        // The stopped stream ends: its last chunk comes (the connection is kept alive).
        let (mut stream, mut rest) = (stream, read.into_bytes());
        while find(&rest, b"\r\n0\r\n\r\n").is_none() {
            let mut buf = [0u8; 4096];
            let n = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut buf))
                .await
                .expect("the stopped stream ends")
                .unwrap();
            assert!(n > 0, "cut: {}", String::from_utf8_lossy(&rest));
            rest.extend_from_slice(&buf[..n]);
        }
        rt.wait_for_line(&format!("run cancelled: threads.create thread={thread}"))
            .unwrap_or_else(|| panic!("the runtime logged the cancel:\n{}", rt.output()));
        let events = rt
            .stream(permission_answer(&thread, &item, &call, outcome.clone()))
            .await;
        assert!(matches!(events[0], StreamEvent::StreamOptions(_)));
        assert!(matches!(
            updates(&events)[0],
            ItemUpdate::AcpPermissionResolved(_)
        ));
        let text = answer(&events);
        match says {
            Some(name) => assert!(text.contains(name), "{text}"),
            None => assert_eq!(text, "", "a cancelled request gets no answer"),
        }
        let full = rt
            .json(json!({"type": "threads.get_by_id", "params": {"thread_id": thread}}))
            .await;
        let calls = tool_calls(&full["items"]);
        assert_eq!(calls[0]["permission"]["outcome"], outcome);
        assert_eq!(calls[0]["tool_call"]["status"], status);
        assert_eq!(
            hydrated_states(&full),
            states(&[("Remove the incremental build cache", state)])
        );
        let again = rt
            .chatkit(permission_answer(
                &thread,
                &item,
                &call,
                selected("allow-once"),
            ))
            .await;
        assert_eq!(again.status, 409);
    }
    rt.wait_for_line("(this answer goes on)")
        .expect("the decision is logged");
}

/// An `event: message` SSE body as envelopes (`[DONE]` kept as is); comments skipped.
fn envelopes(body: &[u8]) -> Vec<String> {
    let text = std::str::from_utf8(body).unwrap();
    assert!(
        text.is_empty() || text.ends_with("\n\n"),
        "unterminated frame"
    );
    text.split_terminator("\n\n")
        .filter(|frame| !frame.starts_with(':'))
        .map(|frame| {
            let data = frame
                .strip_prefix("event: message\ndata: ")
                .unwrap_or_else(|| panic!("not an event: message frame: {frame:?}"));
            assert!(!data.contains('\n'), "a multi-line frame: {frame}");
            data.to_owned()
        })
        .collect()
}

fn events_body(text: &str) -> Vec<u8> {
    json!({"messages": [{"role": "user", "content": text}]})
        .to_string()
        .into_bytes()
}

#[tokio::test]
async fn events_streams_envelopes_the_core_decodes() {
    use chat_shell_core::protocol::events::{decode_envelope, EventKind};
    let rt = Runtime::start();
    let json_type = [("Content-Type", "application/json")];
    for keyword in [
        "hello", "tools", "budget", "agents", "hint", "longtool", "error",
    ] {
        let reply = rt.events_request(&json_type, &events_body(keyword)).await;
        assert_eq!(reply.status, 200, "{keyword}: {}", reply.text());
        assert_eq!(reply.header("content-type"), Some("text/event-stream"));
        assert_eq!(reply.header("cache-control"), Some("no-cache"));
        assert!(reply.complete, "{keyword}");
        let frames = envelopes(&reply.body);
        assert_eq!(
            frames.last().map(String::as_str),
            Some("[DONE]"),
            "{keyword}"
        );
        let decoded: Vec<EventKind> = frames[..frames.len() - 1]
            .iter()
            .map(|f| {
                let e = decode_envelope(f).unwrap_or_else(|e| panic!("{keyword}: {e}"));
                assert!(e.unknown_fields.is_empty(), "{keyword}: {f}");
                assert!(!matches!(e.event, EventKind::Other(_)), "{keyword}: {f}");
                e.event
            })
            .collect();
        let count = |f: fn(&EventKind) -> bool| decoded.iter().filter(|e| f(e)).count();
        assert!(
            count(|e| matches!(e, EventKind::Content(_))) > 0,
            "{keyword}"
        );
        match keyword {
            "tools" => {
                let results: Vec<Option<bool>> = decoded
                    .iter()
                    .filter_map(|e| match e {
                        EventKind::ToolResult(r) => Some(r.payload.success),
                        _ => None,
                    })
                    .collect();
                assert_eq!(results, [Some(true), Some(false), None]);
            }
            "budget" => assert!(matches!(
                decoded.last(),
                Some(EventKind::BudgetExhausted(b)) if b.message.as_deref() == Some("Tool-call budget reached (3 of 3)")
            )),
            "agents" => {
                assert_eq!(count(|e| matches!(e, EventKind::Agent(_))), 2);
                assert_eq!(count(|e| matches!(e, EventKind::Orchestration(_))), 3);
                assert_eq!(count(|e| matches!(e, EventKind::LoaderHint(_))), 2);
            }
            "hint" => assert_eq!(count(|e| matches!(e, EventKind::LoaderHint(_))), 2),
            "longtool" => assert_eq!(count(|e| matches!(e, EventKind::Keepalive(_))), 4),
            "error" => assert_eq!(count(|e| matches!(e, EventKind::Error(_))), 1),
            _ => {}
        }
    }
    // The cut: a tool call, then the connection breaks: no result, no [DONE].
    let cut = rt.events_request(&json_type, &events_body("cut")).await;
    assert_eq!(cut.status, 200);
    assert!(!cut.complete, "the body ended cleanly");
    let frames = envelopes(&cut.body);
    assert!(
        frames.last().unwrap().contains("\"tool_call\""),
        "{frames:?}"
    );
    rt.wait_for_line("POST /events tools 200")
        .expect("runs are logged by name");
}

#[tokio::test]
async fn events_refuses_what_is_not_a_conversation() {
    let rt = Runtime::start();
    let json_type = [("Content-Type", "application/json")];
    for content_type in ["text/plain", "application/x-www-form-urlencoded"] {
        let reply = rt
            .events_request(&[("Content-Type", content_type)], &events_body("hi"))
            .await;
        assert_eq!(reply.status, 415, "{content_type}");
        assert_eq!(error_code(&reply), "unsupported_media_type");
    }
    for body in [
        json!({"type": "threads.list", "params": {}}),
        json!({"messages": []}),
        json!({"messages": [{"role": "system", "content": "obey"}]}),
        json!({"messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]}),
        json!({"messages": [{"role": "user", "content": 7}]}),
        json!({"messages": [{"role": "user", "content": "a"}], "threadId": "t".repeat(300)}),
        json!({"messages": (0..501).map(|_| json!({"role": "user", "content": "a"})).collect::<Vec<_>>()}),
    ] {
        let reply = rt
            .events_request(&json_type, body.to_string().as_bytes())
            .await;
        assert_eq!(reply.status, 400, "{body}: {}", reply.text());
        assert_eq!(error_code(&reply), "bad_request");
    }
    let reply = rt.events_request(&json_type, b"{not json").await;
    assert_eq!(reply.status, 400);
    let huge = json!({"messages": [{"role": "user", "content": "x".repeat(1024 * 1024)}]});
    let reply = rt
        .events_request(&json_type, huge.to_string().as_bytes())
        .await;
    assert_eq!(reply.status, 413, "{}", reply.text());
    // The guard applies as for /chatkit: another site is refused.
    let reply = rt
        .request(
            "POST",
            "/events",
            &[
                ("Content-Type", "application/json"),
                ("Origin", "https://evil.example"),
            ],
            &events_body("hi"),
        )
        .await;
    assert_eq!(reply.status, 403);
    let reply = rt
        .request(
            "POST",
            "/events",
            &[
                ("Content-Type", "application/json"),
                ("Sec-Fetch-Site", "cross-site"),
            ],
            &events_body("hi"),
        )
        .await;
    assert_eq!(reply.status, 403);
    // A conversation with history, metadata and a thread id is fine.
    let ok = json!({"messages": [
        {"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"},
        {"role": "user", "content": "tools"}
    ], "threadId": "thr_1", "metadata": {"tenant": "acme"}});
    let reply = rt
        .events_request(&json_type, ok.to_string().as_bytes())
        .await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    rt.wait_for_line("POST /events - 415")
        .expect("refusals are logged");
}

// --- error bodies, page headers, labels -----------------------------------------------------

/// `reply` is an error in the runtime's JSON shape, with `code`.
fn assert_json_error(what: &str, reply: &Reply, status: u16, code: &str) {
    assert_eq!(reply.status, status, "{what}: {}", reply.text());
    assert_eq!(
        reply.header("content-type"),
        Some("application/json"),
        "{what}"
    );
    let body = reply.json();
    assert_eq!(body["code"], code, "{what}: {body}");
    assert!(
        !body["error"].as_str().unwrap_or_default().is_empty(),
        "{what}: {body}"
    );
}

#[tokio::test]
async fn every_error_answers_json_with_the_code_of_its_status() {
    let rt = Runtime::start_with(&["--memory", "--max-upload-mb", "1"]);
    let wrong_method = rt.send("GET", "/chatkit", None, b"").await;
    assert_json_error("GET /chatkit", &wrong_method, 405, "method_not_allowed");
    assert_eq!(wrong_method.header("allow"), Some("POST"));
    let put = rt
        .send("PUT", "/events", Some("application/json"), b"{}")
        .await;
    assert_json_error("PUT /events", &put, 405, "method_not_allowed");
    let missing = rt.send("GET", "/no-such-file.js", None, b"").await;
    assert_json_error("a missing file", &missing, 404, "not_found");
    let huge = json!({"type": "threads.list", "params": {}, "pad": "x".repeat(2 * 1024 * 1024)});
    for path in ["/chatkit", "/events", "/agent-ui"] {
        let reply = rt
            .send(
                "POST",
                path,
                Some("application/json"),
                huge.to_string().as_bytes(),
            )
            .await;
        assert_json_error(path, &reply, 413, "payload_too_large");
    }
    let attachment = rt
        .json(json!({"type": "attachments.create", "params": {"name": "a.txt", "size": 1, "mime_type": "text/plain"}}))
        .await;
    let upload = format!("/upload/{}", attachment["id"].as_str().unwrap());
    let too_big = rt
        .send(
            "PUT",
            &upload,
            Some("text/plain"),
            &vec![b'x'; 1024 * 1024 + 1],
        )
        .await;
    assert_json_error("an upload", &too_big, 413, "payload_too_large");
    let no_boundary = rt
        .send("POST", &upload, Some("multipart/form-data"), b"x")
        .await;
    assert_json_error("multipart", &no_boundary, 400, "bad_request");
    let text = rt.send("POST", "/chatkit", Some("text/plain"), b"{}").await;
    assert_json_error("text/plain", &text, 415, "unsupported_media_type");
    let unknown = rt
        .chatkit(json!({"type": "threads.get_by_id", "params": {"thread_id": "thr_nope"}}))
        .await;
    assert_json_error("an unknown thread", &unknown, 404, "not_found");
}

#[tokio::test]
async fn every_answer_carries_a_strict_policy_nosniff_and_a_referrer_policy() {
    let rt = Runtime::start();
    std::fs::write(rt.dist.join("app.js"), "export {};").unwrap();
    let page = rt.send("GET", "/", None, b"").await;
    assert_eq!(page.status, 200);
    assert_eq!(
        page.header("content-type"),
        Some("text/html"),
        "{:?}",
        page.headers
    );
    let api = rt.chatkit(list_threads()).await;
    let refused = rt.send("GET", "/chatkit", None, b"").await;
    let script = rt.send("GET", "/app.js", None, b"").await;
    for (what, reply) in [
        ("the page", &page),
        ("a script", &script),
        ("a JSON answer", &api),
        ("an error", &refused),
    ] {
        let csp = reply
            .header("content-security-policy")
            .unwrap_or_else(|| panic!("{what}: no policy in {:?}", reply.headers));
        let directives: Vec<&str> = csp.split(';').map(str::trim).collect();
        for wanted in [
            "default-src 'self'",
            "script-src 'self' 'wasm-unsafe-eval'",
            "style-src 'self'",
            "object-src 'none'",
            "base-uri 'none'",
            "frame-ancestors 'none'",
        ] {
            assert!(directives.contains(&wanted), "{what}: {wanted} in {csp}");
        }
        assert!(
            !csp.contains("unsafe-inline") && !csp.contains("'unsafe-eval'"),
            "{what}: {csp}"
        );
        assert_eq!(
            reply.header("x-content-type-options"),
            Some("nosniff"),
            "{what}"
        );
        assert_eq!(
            reply.header("referrer-policy"),
            Some("same-origin"),
            "{what}"
        );
    }

    // Who may frame the pages, and the rest of the policy, are the operator's choice.
    let embedded = Runtime::start_with(&[
        "--memory",
        "--frame-ancestors",
        "'self' https://app.example.com",
        "--csp",
        "default-src 'self'; script-src 'self' 'unsafe-inline'",
    ]);
    let page = embedded.send("GET", "/", None, b"").await;
    assert_eq!(
        page.header("content-security-policy"),
        Some("default-src 'self'; script-src 'self' 'unsafe-inline'; frame-ancestors 'self' https://app.example.com")
    );
}

#[tokio::test]
async fn titles_and_names_with_control_or_bidi_characters_are_refused_or_cleaned() {
    let rt = Runtime::start();
    let events = rt
        .stream(create("hello\u{0} \u{1b}[2Jthere \u{202e}gpj.exe\r\nnow"))
        .await;
    let thread = thread_id(&events);
    let titled = rt
        .json(json!({"type": "threads.get_by_id", "params": {"thread_id": thread}}))
        .await;
    // A title made from the message has them removed.
    assert_eq!(titled["title"], "hello [2Jthere gpj.exe now", "{titled}");
    for bad in [
        "a\u{0}b",
        "a\r\nb",
        "a\u{1b}[31mb",
        "a\u{202e}b",
        "a\u{2066}b\u{2069}",
        "\u{200f}",
    ] {
        let reply = rt
            .chatkit(
                json!({"type": "threads.update", "params": {"thread_id": thread, "title": bad}}),
            )
            .await;
        assert_json_error(&format!("title {bad:?}"), &reply, 400, "bad_request");
        let reply = rt
            .chatkit(json!({"type": "attachments.create", "params": {"name": format!("{bad}.txt"), "size": 1, "mime_type": "text/plain"}}))
            .await;
        assert_json_error(&format!("name {bad:?}"), &reply, 400, "bad_request");
    }
    let kept = rt
        .json(json!({"type": "threads.get_by_id", "params": {"thread_id": thread}}))
        .await;
    assert_eq!(kept["title"], titled["title"]);
    // Other scripts, accents and emoji are fine.
    let fine = "Résumé עברית 日本語 👩‍💻";
    let renamed = rt
        .json(json!({"type": "threads.update", "params": {"thread_id": thread, "title": fine}}))
        .await;
    assert_eq!(renamed["title"], fine);
    let named = rt
        .json(json!({"type": "attachments.create", "params": {"name": format!("{fine}.txt"), "size": 1, "mime_type": "text/plain"}}))
        .await;
    assert_eq!(named["name"], format!("{fine}.txt"));
}

#[tokio::test]
async fn a_message_over_the_length_limit_is_refused_and_not_stored() {
    let rt = Runtime::start();
    let long = "x".repeat(200_001);
    let events = rt.stream(create(&long)).await;
    let error = events.iter().find_map(|e| match e {
        StreamEvent::Error(e) => e.message.clone(),
        _ => None,
    });
    let error = error.expect("an error event");
    assert!(
        error.contains("200001 characters") && error.contains("200000"),
        "{error}"
    );
    assert!(done_items(&events).is_empty(), "nothing stored or answered");
    // At the limit, it goes.
    let events = rt.stream(create(&"y".repeat(200_000))).await;
    assert!(!done_items(&events).is_empty());
}
