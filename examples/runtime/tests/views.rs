//! Views pushed by tools (`POST /callback`) and the live channel of a thread
//! (`threads.subscribe`), against the real binary over HTTP/1.1.

mod common;

use common::{create, Reply, Runtime, Stream};
use serde_json::{json, Value};
use std::time::Duration;

const TOKEN: &str = "0123456789abcdef-tool-token";

/// The file's runtimes and requests.
impl Runtime {
    /// In memory, no pacing, the callback on with [`TOKEN`].
    fn start() -> Runtime {
        Runtime::start_with(&["--callback-token", TOKEN], None)
    }

    fn start_with(extra: &[&str], env_token: Option<&str>) -> Runtime {
        let mut builder = Runtime::builder()
            .args(&["--memory", "--dist", "/nonexistent"])
            .args(extra)
            .quiet();
        if let Some(token) = env_token {
            builder = builder.env("CHAT_SHELL_CALLBACK_TOKEN", token);
        }
        builder.start()
    }

    async fn callback(&self, body: &Value) -> Reply {
        let auth = format!("Bearer {TOKEN}");
        self.request(
            "POST",
            "/callback",
            &[
                ("Content-Type", "application/json"),
                ("Authorization", &auth),
            ],
            body.to_string().as_bytes(),
        )
        .await
    }

    async fn push(&self, thread: &str, view_type: &str, content: Value) -> u64 {
        let reply = self
            .callback(&json!({"type": "view_update", "group_id": thread, "view_type": view_type, "content": content}))
            .await;
        assert_eq!(reply.status, 200, "{}", reply.text());
        let v = reply.json();
        assert_eq!(v["ok"], true);
        v["seq"].as_u64().unwrap()
    }

    async fn chatkit(&self, cookie: Option<&str>, request: &Value) -> Reply {
        self.open(cookie, request).await.reply().await
    }

    /// A new browser's thread, answered with `text`: (cookie, thread id, SSE body).
    async fn thread(&self, text: &str) -> (String, String, String) {
        let reply = self.chatkit(None, &create(text)).await;
        assert_eq!(reply.status, 200);
        let cookie = reply.cookie().expect("a cookie");
        let body = reply.text();
        let thread = body
            .split("\"thread\":{\"id\":\"")
            .nth(1)
            .and_then(|r| r.split('"').next())
            .expect("thread.created")
            .to_owned();
        (cookie, thread, body)
    }

    /// Opens `thread`'s channel for `cookie`.
    async fn subscribe(&self, cookie: &str, thread: &str, after: Value) -> Channel {
        let request =
            json!({"type": "threads.subscribe", "params": {"thread_id": thread, "after": after}});
        Channel(self.open(Some(cookie), &request).await)
    }
}

/// An open thread channel, read frame by frame.
struct Channel(Stream);

impl Channel {
    fn status(&self) -> u16 {
        self.0.status()
    }

    /// The next frame (`data: …` as JSON, or a `: comment` as a string value).
    async fn next_frame(&mut self) -> Value {
        let Some(frame) = self.0.next_frame(Duration::from_secs(20)).await else {
            assert!(!self.0.ended, "the channel closed");
            panic!("nothing on the channel for 20 s");
        };
        if let Some(comment) = frame.strip_prefix(": ") {
            return Value::String(comment.to_owned());
        }
        let data = frame.strip_prefix("data: ").expect("a data frame");
        serde_json::from_str(data).unwrap()
    }

    /// The next event, keepalives skipped.
    async fn next_event(&mut self) -> Value {
        loop {
            let frame = self.next_frame().await;
            if !frame.is_string() {
                return frame;
            }
        }
    }

    /// The next view event: the thread's run events (`thread.run.*`) are skipped.
    async fn next_view_event(&mut self) -> Value {
        loop {
            let event = self.next_event().await;
            if !event["type"]
                .as_str()
                .unwrap_or("")
                .starts_with("thread.run.")
            {
                return event;
            }
        }
    }

    /// Events up to and including `thread.channel.ready`.
    async fn replay(&mut self) -> Vec<Value> {
        let mut events = Vec::new();
        loop {
            let event = self.next_event().await;
            let ready = event["type"] == "thread.channel.ready";
            events.push(event);
            if ready {
                return events;
            }
        }
    }
}

fn kinds(events: &[Value]) -> Vec<(String, u64)> {
    events
        .iter()
        .map(|e| {
            (
                e["type"].as_str().unwrap().to_owned(),
                e["seq"].as_u64().unwrap(),
            )
        })
        .collect()
}

// --- POST /callback -----------------------------------------------------------------------

#[tokio::test]
async fn the_callback_is_off_without_a_token() {
    let rt = Runtime::start_with(&[], None);
    let (_, thread, _) = rt.thread("hello").await;
    let reply = rt
        .callback(
            &json!({"type": "view_update", "group_id": thread, "view_type": "diff", "content": {}}),
        )
        .await;
    let message = reply.assert_error(404, "callback_disabled");
    assert!(message.contains("--callback-token"), "{message}");
    // And the edit scenario says so instead of pushing.
    let (_, _, body) = rt.thread("edit something").await;
    assert!(body.contains("the tool callback is off"), "{body}");
}

#[tokio::test]
async fn the_callback_token_comes_from_the_environment_too() {
    let rt = Runtime::start_with(&[], Some(TOKEN));
    let (_, thread, _) = rt.thread("hello").await;
    assert_eq!(rt.push(&thread, "diff", json!({"patch": "x"})).await, 1);
}

#[tokio::test]
async fn the_callback_needs_the_bearer_token() {
    let rt = Runtime::start();
    let (_, thread, _) = rt.thread("hello").await;
    let body =
        json!({"type": "view_update", "group_id": thread, "view_type": "diff", "content": {}})
            .to_string();
    for auth in [
        None,
        Some("Bearer wrong-token-0123456789abc"),
        Some("Bearer 0123456789abcdef-tool-toke"),
        Some("Basic 0123456789abcdef-tool-token"),
    ] {
        let mut headers = vec![("Content-Type", "application/json")];
        if let Some(a) = auth {
            headers.push(("Authorization", a));
        }
        let reply = rt
            .request("POST", "/callback", &headers, body.as_bytes())
            .await;
        reply.assert_error(401, "unauthorized");
        assert_eq!(reply.header("www-authenticate"), Some("Bearer"));
    }
    // A browser's cookie is no credential here, and no cookie is handed out.
    let (cookie, _, _) = rt.thread("hi").await;
    let reply = rt
        .request(
            "POST",
            "/callback",
            &[("Content-Type", "application/json"), ("Cookie", &cookie)],
            body.as_bytes(),
        )
        .await;
    assert_eq!(reply.status, 401);
    assert_eq!(reply.cookie(), None);
    // The Host check still applies.
    let auth = format!("Bearer {TOKEN}");
    let reply = rt
        .request(
            "POST",
            "/callback",
            &[
                ("Content-Type", "application/json"),
                ("Authorization", &auth),
                ("Host", "evil.example:80"),
            ],
            body.as_bytes(),
        )
        .await;
    assert_eq!(reply.status, 421);
}

#[tokio::test]
async fn callback_bodies_are_checked() {
    let rt = Runtime::start();
    let (_, thread, _) = rt.thread("hello").await;
    let auth = format!("Bearer {TOKEN}");
    let ok = json!({"type": "view_update", "group_id": thread, "view_type": "diff", "content": {"patch": "p"}});
    // Not JSON: 415.
    let reply = rt
        .request(
            "POST",
            "/callback",
            &[("Content-Type", "text/plain"), ("Authorization", &auth)],
            ok.to_string().as_bytes(),
        )
        .await;
    reply.assert_error(415, "unsupported_media_type");
    // Over 8 MiB: 413.
    let big = json!({"type": "view_update", "group_id": thread, "view_type": "diff",
                     "content": {"patch": "x".repeat(8 * 1024 * 1024)}});
    let reply = rt.callback(&big).await;
    assert_eq!(reply.status, 413, "{}", reply.text());
    // Bad fields: 400.
    let bad = [
        json!([]),
        json!({"type": "view_updated", "group_id": thread, "view_type": "diff", "content": {}}),
        json!({"group_id": thread, "view_type": "diff", "content": {}}),
        json!({"type": "view_update", "view_type": "diff", "content": {}}),
        json!({"type": "view_update", "group_id": 7, "view_type": "diff", "content": {}}),
        json!({"type": "view_update", "group_id": thread, "view_type": "", "content": {}}),
        json!({"type": "view_update", "group_id": thread, "view_type": "a b", "content": {}}),
        json!({"type": "view_update", "group_id": thread, "view_type": "x".repeat(65), "content": {}}),
        json!({"type": "view_update", "group_id": thread, "view_type": "diff/../x", "content": {}}),
        json!({"type": "view_update", "group_id": thread, "view_type": "diff"}),
        json!({"type": "view_update", "group_id": thread, "view_type": "diff", "content": null}),
        json!({"type": "view_update", "group_id": thread, "view_type": "diff", "content": "patch"}),
        json!({"type": "view_update", "group_id": thread, "view_type": "diff", "content": [1]}),
    ];
    for body in bad {
        rt.callback(&body).await.assert_error(400, "bad_request");
    }
    let reply = rt
        .request(
            "POST",
            "/callback",
            &[
                ("Content-Type", "application/json"),
                ("Authorization", &auth),
            ],
            b"{not json",
        )
        .await;
    reply.assert_error(400, "bad_request");
    // An unknown thread: 404.
    let reply = rt
        .callback(
            &json!({"type": "view_update", "group_id": "thr_00000000000000000000000000000000",
                          "view_type": "diff", "content": {}}),
        )
        .await;
    reply.assert_error(404, "not_found");
    // The longest view type is fine, and so is the good body.
    assert_eq!(rt.push(&thread, &"x".repeat(64), json!({})).await, 1);
    assert_eq!(rt.callback(&ok).await.json(), json!({"ok": true, "seq": 2}));
}

// --- the channel --------------------------------------------------------------------------

#[tokio::test]
async fn views_overwrite_clear_and_replay() {
    let rt = Runtime::start();
    let (cookie, thread, _) = rt.thread("hello").await;
    // Nothing yet: ready at 0.
    let mut empty = rt.subscribe(&cookie, &thread, Value::Null).await;
    assert_eq!(empty.status(), 200);
    assert_eq!(
        empty.0.header("content-type"),
        Some("text/event-stream"),
        "an SSE stream"
    );
    assert_eq!(
        kinds(&empty.replay().await),
        [("thread.channel.ready".into(), 0)]
    );
    drop(empty);

    assert_eq!(rt.push(&thread, "diff", json!({"patch": "one"})).await, 1);
    assert_eq!(rt.push(&thread, "notes", json!({"text": "n"})).await, 2);
    // Overwrite: kept verbatim, key order included.
    let content = json!({"patch": "two", "z": [1, {"b": 2, "a": 1}], "a": null});
    assert_eq!(rt.push(&thread, "diff", content.clone()).await, 3);
    // Clear.
    assert_eq!(rt.push(&thread, "notes", json!({})).await, 4);
    assert_eq!(rt.push(&thread, "plan", json!({"steps": []})).await, 5);

    // after: null: the active views only, then ready with the latest seq.
    let mut channel = rt.subscribe(&cookie, &thread, Value::Null).await;
    let replay = channel.replay().await;
    assert_eq!(
        kinds(&replay),
        [
            ("thread.view.updated".into(), 3),
            ("thread.view.updated".into(), 5),
            ("thread.channel.ready".into(), 5)
        ]
    );
    assert_eq!(replay[0]["view_type"], "diff");
    assert_eq!(replay[0]["content"], content);
    assert_eq!(
        serde_json::to_string(&replay[0]["content"]).unwrap(),
        content.to_string(),
        "the content goes out as it came in"
    );
    assert!(replay[0]["updated_at"].as_str().unwrap().len() >= 19);
    assert_eq!(replay[1]["view_type"], "plan");

    // after: N: every change since, a cleared view included.
    let mut channel = rt.subscribe(&cookie, &thread, json!(2)).await;
    let replay = channel.replay().await;
    assert_eq!(
        kinds(&replay),
        [
            ("thread.view.updated".into(), 3),
            ("thread.view.cleared".into(), 4),
            ("thread.view.updated".into(), 5),
            ("thread.channel.ready".into(), 5)
        ]
    );
    assert_eq!(
        replay[1],
        json!({"type": "thread.view.cleared", "seq": 4, "view_type": "notes"})
    );
    let mut channel = rt.subscribe(&cookie, &thread, json!(5)).await;
    assert_eq!(
        kinds(&channel.replay().await),
        [("thread.channel.ready".into(), 5)]
    );
    // Still live after the replay.
    assert_eq!(rt.push(&thread, "diff", json!({})).await, 6);
    assert_eq!(
        channel.next_event().await,
        json!({"type": "thread.view.cleared", "seq": 6, "view_type": "diff"})
    );
}

#[tokio::test]
async fn channels_are_per_user_and_checked() {
    let rt = Runtime::start();
    let (cookie, thread, _) = rt.thread("hello").await;
    let (other, _, _) = rt.thread("mine").await;
    // Another user's thread and an unknown one look the same: 404.
    for (who, id) in [
        (&other, thread.as_str()),
        (&cookie, "thr_00000000000000000000000000000000"),
    ] {
        let reply = rt
            .chatkit(
                Some(who),
                &json!({"type": "threads.subscribe", "params": {"thread_id": id, "after": null}}),
            )
            .await;
        reply.assert_error(404, "not_found");
    }
    for params in [
        json!({}),
        json!({"thread_id": thread, "after": -1}),
        json!({"thread_id": thread, "after": "3"}),
    ] {
        let reply = rt
            .chatkit(
                Some(&cookie),
                &json!({"type": "threads.subscribe", "params": params}),
            )
            .await;
        reply.assert_error(400, "bad_request");
    }
    // `after` may be left out.
    let mut channel = rt.subscribe(&cookie, &thread, Value::Null).await;
    assert_eq!(channel.status(), 200);
    assert_eq!(
        kinds(&channel.replay().await),
        [("thread.channel.ready".into(), 0)]
    );
}

#[tokio::test]
async fn updates_reach_every_channel_of_the_thread_in_order() {
    let rt = Runtime::start();
    let (cookie, thread, _) = rt.thread("hello").await;
    let (cookie2, thread2, _) = rt.thread("other").await;
    let mut a = rt.subscribe(&cookie, &thread, Value::Null).await;
    let mut b = rt.subscribe(&cookie, &thread, Value::Null).await;
    let mut elsewhere = rt.subscribe(&cookie2, &thread2, Value::Null).await;
    a.replay().await;
    b.replay().await;
    elsewhere.replay().await;
    // Numbering is per thread.
    assert_eq!(rt.push(&thread2, "diff", json!({"patch": "t2"})).await, 1);
    for n in 1..=5u64 {
        assert_eq!(
            rt.push(&thread, "diff", json!({"patch": format!("v{n}")}))
                .await,
            n
        );
    }
    assert_eq!(rt.push(&thread, "diff", json!({})).await, 6);
    for channel in [&mut a, &mut b] {
        for n in 1..=5u64 {
            let event = channel.next_event().await;
            assert_eq!(event["type"], "thread.view.updated");
            assert_eq!(event["seq"], n);
            assert_eq!(event["content"]["patch"], format!("v{n}"));
        }
        assert_eq!(
            channel.next_event().await,
            json!({"type": "thread.view.cleared", "seq": 6, "view_type": "diff"})
        );
    }
    let event = elsewhere.next_event().await;
    assert_eq!(
        (event["seq"].as_u64(), event["content"]["patch"].as_str()),
        (Some(1), Some("t2"))
    );
    // A channel that goes away is closed on the server, and the others go on.
    drop(a);
    assert_eq!(rt.push(&thread, "diff", json!({"patch": "v7"})).await, 7);
    assert_eq!(b.next_event().await["seq"], 7);
    assert!(rt
        .wait_for_line(&format!("channel closed: thread={thread}"))
        .is_some());
}

#[tokio::test]
async fn idle_channels_get_keepalives() {
    let rt = Runtime::start_with(
        &["--callback-token", TOKEN, "--channel-keepalive-ms", "100"],
        None,
    );
    let (cookie, thread, _) = rt.thread("hello").await;
    let mut channel = rt.subscribe(&cookie, &thread, Value::Null).await;
    channel.replay().await;
    assert_eq!(channel.next_frame().await, json!("keepalive"));
    assert_eq!(channel.next_frame().await, json!("keepalive"));
}

#[tokio::test]
async fn the_edit_scenario_pushes_its_diff_to_open_channels() {
    let rt = Runtime::start();
    let (cookie, thread, _) = rt.thread("hello").await;
    let mut channel = rt.subscribe(&cookie, &thread, Value::Null).await;
    channel.replay().await;
    let reply = rt
        .chatkit(
            Some(&cookie),
            &json!({"type": "threads.add_user_message", "params": {"thread_id": thread, "input": {
                "content": [{"type": "input_text", "text": "edit the files"}], "attachments": []
            }}}),
        )
        .await;
    assert_eq!(reply.status, 200);
    assert!(
        reply.text().contains("pushing the whole diff"),
        "{}",
        reply.text()
    );
    // It starts from a clean slate, then pushes after every edit.
    let mut last = 0;
    let mut patch = String::new();
    for _ in 0..5 {
        // The channel also carries the run that edits (tests/runs.rs).
        let event = channel.next_view_event().await;
        assert!(event["seq"].as_u64().unwrap() > last, "{event}");
        last = event["seq"].as_u64().unwrap();
        if event["type"] == "thread.view.updated" {
            assert_eq!(event["view_type"], "diff");
            patch = event["content"]["patch"].as_str().unwrap().to_owned();
            assert!(patch.starts_with("diff --git "), "{patch}");
        }
    }
    for part in [
        "diff --git a/src/main.rs b/src/main.rs\n--- a/src/main.rs\n+++ b/src/main.rs\n@@ ",
        "diff --git a/src/greet.rs b/src/greet.rs\nnew file mode 100644\n--- /dev/null\n+++ b/src/greet.rs\n@@ -0,0 +1,4 @@\n+/// The greeting.\n",
        "diff --git a/README.md b/docs/README.md\nsimilarity index 100%\nrename from README.md\nrename to docs/README.md\n",
        "diff --git a/notes.txt b/notes.txt\ndeleted file mode 100644\n--- a/notes.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-draft notes\n",
    ] {
        assert!(patch.contains(part), "{part} not in\n{patch}");
    }
    // A later subscriber gets the final diff in its replay.
    let mut late = rt.subscribe(&cookie, &thread, Value::Null).await;
    let replay = late.replay().await;
    assert_eq!(replay[0]["content"]["patch"], patch.as_str());
    assert_eq!(replay.last().unwrap()["seq"], last);
}

/// What the runtime sends is what the client's channel state reads: the replay and a live
/// update, through `decode_channel_event` and `ThreadViews`, and a resumed replay changes
/// nothing already applied.
#[tokio::test]
async fn the_channel_round_trips_through_the_clients_view_state() {
    use chat_shell_core::protocol::chatkit::decode_channel_event;
    use chat_shell_core::views::{ChannelStatus, ThreadViews};
    let rt = Runtime::start();
    let (cookie, thread, _) = rt.thread("hello").await;
    rt.push(&thread, "diff", json!({"patch": "diff --git a/x b/x"}))
        .await;
    rt.push(&thread, "mystery", json!({"n": 1})).await;
    let mut views = ThreadViews::new();
    let mut channel = rt.subscribe(&cookie, &thread, Value::Null).await;
    for event in channel.replay().await {
        let event = decode_channel_event(&event.to_string()).expect("the client reads it");
        views.apply(event);
    }
    assert_eq!(views.status(), ChannelStatus::Live);
    assert_eq!(views.cursor(), Some(2));
    assert_eq!(views.views()["diff"].content["patch"], "diff --git a/x b/x");
    assert_eq!(
        views.ignored, 1,
        "an unknown view type is counted, not shown"
    );
    rt.push(&thread, "diff", json!({})).await;
    let live = decode_channel_event(&channel.next_event().await.to_string()).unwrap();
    assert!(views.apply(live), "the cleared view goes");
    assert!(views.views().is_empty());
    // Resuming from the cursor replays nothing already applied.
    let mut again = rt.subscribe(&cookie, &thread, json!(views.cursor())).await;
    for event in again.replay().await {
        assert!(!views.apply(decode_channel_event(&event.to_string()).unwrap()));
    }
}
