//! Every buffer of the thread channel and of `/callback` is bounded: channels that stop
//! reading, with many runs or with a large view pushed again and again, keep the runtime's
//! memory within a fixed bound over its idle size; an identity's channels past the cap
//! close the oldest; runs past the cap are refused and a run nobody reads is stopped;
//! `/callback` answers a request without its token before the body arrives, and refuses a
//! view too large for a channel line. The real binary over HTTP/1.1.

mod common;

use common::{add_message, create, find, subscribe, Runtime, Stream};
use serde_json::{json, Value};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

const TOKEN: &str = "0123456789abcdef-tool-token";
/// What two stalled channels and many runs may add to the runtime's idle memory, in MiB
/// (each run queued for them would be about 1.4 MiB).
const RUNS_BOUND_MIB: f64 = 40.0;
/// What ten stalled channels of a 7.5 MiB view, and pushes of it, may add, in MiB (one
/// copy of the view per channel would be 75 MiB; the allocator keeps some of what reading
/// and storing each push used).
const VIEW_BOUND_MIB: f64 = 128.0;
/// The element's limit on one line (`maxEventBytes`).
const MAX_LINE: usize = 8 * 1024 * 1024;

/// The file's runtimes and requests, as one browser with its identity.
impl Runtime {
    /// A store on disk (what is kept is not counted as the channels' memory), the callback
    /// on with [`TOKEN`], then `extra`.
    async fn start(name: &str, extra: &[&str]) -> Runtime {
        let dir =
            std::env::temp_dir().join(format!("chat-shell-bounds-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let db = dir.join("runtime.db");
        let mut args = vec![
            "--db",
            db.to_str().unwrap(),
            "--dist",
            "/nonexistent",
            "--callback-token",
            TOKEN,
        ];
        args.extend_from_slice(extra);
        let rt = Runtime::builder().args(&args).owning(dir.clone()).start();
        rt.set_cookie(Some(rt.new_identity().await));
        rt
    }

    async fn json(&self, request: Value) -> Value {
        let mut reply = self.post(request).await;
        assert_eq!(reply.status(), 200);
        reply.json().await
    }

    /// A new thread, answered in full; its id.
    async fn thread(&self) -> String {
        let events = self.post(create("hello")).await.rest().await;
        events
            .iter()
            .find(|e| e["type"] == "thread.created")
            .expect("thread.created")["thread"]["id"]
            .as_str()
            .unwrap()
            .to_owned()
    }

    /// One more answer on `thread`, read to its end.
    async fn answer(&self, thread: &str, text: &str) {
        let events = self.post(add_message(thread, text)).await.rest().await;
        assert!(!events.is_empty());
    }

    /// Opens `thread`'s channel and reads it up to `thread.channel.ready`.
    async fn subscribe(&self, cookie: &str, thread: &str) -> Stream {
        self.open_channel(cookie, thread).await
    }

    /// Opens `thread`'s channel and never reads past its response head: a client that
    /// stopped reading, its socket open (a small receive buffer, so the stall shows soon).
    /// A raw socket on purpose: nothing reads it.
    async fn stalled(&self, thread: &str) -> TcpStream {
        let socket = TcpSocket::new_v4().unwrap();
        socket.set_recv_buffer_size(4096).unwrap();
        let mut tcp = socket.connect(self.addr()).await.unwrap();
        let body = subscribe(thread).to_string();
        let head = format!(
            "POST /chatkit HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Cookie: {}\r\nContent-Length: {}\r\n\r\n",
            self.host(),
            self.identity(),
            body.len()
        );
        tcp.write_all(head.as_bytes()).await.unwrap();
        tcp.write_all(body.as_bytes()).await.unwrap();
        let mut raw = Vec::new();
        while find(&raw, b"\r\n\r\n").is_none() {
            let mut buf = [0u8; 256];
            let n = tokio::time::timeout(Duration::from_secs(10), tcp.read(&mut buf))
                .await
                .expect("the channel's head")
                .unwrap();
            assert!(n > 0, "the channel closed");
            raw.extend_from_slice(&buf[..n]);
        }
        assert!(
            raw.starts_with(b"HTTP/1.1 200"),
            "{}",
            String::from_utf8_lossy(&raw)
        );
        tcp
    }

    /// `POST /callback` with `body` and the token; (status, JSON body).
    async fn callback(&self, body: &[u8]) -> (u16, Value) {
        let auth = format!("Bearer {TOKEN}");
        let reply = self
            .request(
                "POST",
                "/callback",
                &[
                    ("Content-Type", "application/json"),
                    ("Authorization", &auth),
                ],
                body,
            )
            .await;
        let body = serde_json::from_slice(&reply.body).unwrap_or(Value::Null);
        (reply.status, body)
    }

    /// Pushes a `diff` view of `bytes` bytes of patch (`fill` repeated) to `thread`.
    async fn push_big(&self, thread: &str, bytes: usize, fill: char) -> (u16, Value) {
        let body = json!({"type": "view_update", "group_id": thread, "view_type": "diff",
                          "content": {"patch": fill.to_string().repeat(bytes)}});
        self.callback(body.to_string().as_bytes()).await
    }
}

/// The runtime's memory once what it was doing has settled.
async fn settled_rss(rt: &Runtime) -> f64 {
    tokio::time::sleep(Duration::from_millis(500)).await;
    rt.rss_mib()
}

// --- memory under stalled channels ----------------------------------------------------------

#[tokio::test]
async fn stalled_channels_and_many_runs_keep_memory_bounded() {
    let rt = Runtime::start("runs", &[]).await;
    let thread = rt.thread().await;
    // Warm up: what the runs themselves cost is in the idle figure.
    for _ in 0..3 {
        rt.answer(&thread, "long fast").await;
    }
    let idle = settled_rss(&rt).await;
    let _stalled = [rt.stalled(&thread).await, rt.stalled(&thread).await];
    for _ in 0..60 {
        rt.answer(&thread, "long fast").await;
    }
    let loaded = settled_rss(&rt).await;
    println!("RSS: idle {idle:.1} MiB; 2 stalled channels + 60 runs {loaded:.1} MiB");
    assert!(
        loaded - idle < RUNS_BOUND_MIB,
        "idle {idle:.1} MiB, then {loaded:.1} MiB"
    );
    assert!(rt
        .wait_for_line(&format!("channel fell behind: thread={thread}"))
        .is_some());
    // A channel that reads gets what comes next.
    let mut channel = rt.subscribe(&rt.identity(), &thread).await;
    rt.answer(&thread, "hello").await;
    channel
        .until("thread.run.ended", |e| e["type"] == "thread.run.ended")
        .await;
}

#[tokio::test]
async fn stalled_channels_and_a_large_view_pushed_again_keep_memory_bounded() {
    let rt = Runtime::start("view", &[]).await;
    let thread = rt.thread().await;
    const VIEW: usize = 7 * 1024 * 1024 + 512 * 1024;
    // Warm up: pushes of the large view, read by nobody (what reading and storing them
    // leaves in the allocator is in the idle figure).
    for fill in ['w', 'x', 'a'] {
        assert_eq!(rt.push_big(&thread, VIEW, fill).await.0, 200);
    }
    let idle = settled_rss(&rt).await;
    let mut stalled = Vec::new();
    for _ in 0..10 {
        stalled.push(rt.stalled(&thread).await);
    }
    let subscribed = settled_rss(&rt).await;
    for fill in ['b', 'c', 'd'] {
        assert_eq!(rt.push_big(&thread, VIEW, fill).await.0, 200);
    }
    let pushed = settled_rss(&rt).await;
    println!(
        "RSS: idle {idle:.1} MiB; 10 stalled channels replaying a 7.5 MiB view {subscribed:.1} MiB; \
         after 3 more pushes {pushed:.1} MiB"
    );
    assert!(
        subscribed - idle < VIEW_BOUND_MIB && pushed - idle < VIEW_BOUND_MIB,
        "idle {idle:.1} MiB, subscribed {subscribed:.1} MiB, pushed {pushed:.1} MiB"
    );
    // A channel that reads gets the latest.
    let mut channel = rt.open(Some(&rt.identity()), &subscribe(&thread)).await;
    let events = channel
        .until("thread.channel.ready", |e| {
            e["type"] == "thread.channel.ready"
        })
        .await;
    assert_eq!(events[0]["content"]["patch"].as_str().unwrap().len(), VIEW);
    assert!(events[0]["content"]["patch"]
        .as_str()
        .unwrap()
        .starts_with('d'));
}

// --- caps ---------------------------------------------------------------------------------

#[tokio::test]
async fn a_channel_past_the_cap_closes_the_oldest_of_the_identity() {
    let rt = Runtime::start("channels", &[]).await;
    let thread = rt.thread().await;
    let mut channels = Vec::new();
    for _ in 0..16 {
        channels.push(rt.subscribe(&rt.identity(), &thread).await);
    }
    // Another identity's channels are its own.
    let other = rt.new_identity().await;
    let events = rt.open(Some(&other), &create("hello")).await.rest().await;
    let other_thread = events[0]["thread"]["id"].as_str().unwrap().to_owned();
    let mut elsewhere = rt.subscribe(&other, &other_thread).await;
    // The 17th closes the first.
    let mut newest = rt.subscribe(&rt.identity(), &thread).await;
    let mut oldest = channels.remove(0);
    assert_eq!(oldest.next_event(Duration::from_secs(10)).await, None);
    assert!(oldest.ended, "the oldest channel is closed");
    let (status, _) = rt
        .callback(
            json!({"type": "view_update", "group_id": thread, "view_type": "diff",
                   "content": {"patch": "p"}})
            .to_string()
            .as_bytes(),
        )
        .await;
    assert_eq!(status, 200);
    let (second, rest) = channels.split_first_mut().unwrap();
    for channel in [&mut newest, second, rest.last_mut().unwrap()] {
        let event = channel.next_event(Duration::from_secs(10)).await;
        assert_eq!(event.expect("the view")["content"]["patch"], "p");
    }
    assert!(elsewhere
        .next_event(Duration::from_millis(300))
        .await
        .is_none());
    assert!(!elsewhere.ended, "the other identity's channel is open");
}

#[tokio::test]
async fn runs_past_the_cap_are_refused_and_a_run_nobody_reads_is_stopped() {
    let rt = Runtime::start(
        "runs-cap",
        &["--max-runs", "2", "--abandoned-run-secs", "1"],
    )
    .await;
    let (a, b, c) = (rt.thread().await, rt.thread().await, rt.thread().await);
    // `permission` waits ten minutes for an answer, with keepalives.
    let mut first = rt.post(add_message(&a, "permission")).await;
    let mut second = rt.post(add_message(&b, "permission")).await;
    first.next_event(Duration::from_secs(10)).await.unwrap();
    second.next_event(Duration::from_secs(10)).await.unwrap();
    let mut refused = rt.post(add_message(&c, "hello")).await;
    assert_eq!(refused.status(), 429);
    let body = refused.json().await;
    assert_eq!(body["code"], "too_many_runs", "{body}");
    // Nothing was kept of the refused message.
    let items = rt
        .json(json!({"type": "items.list", "params": {"thread_id": c}}))
        .await;
    assert_eq!(items["data"].as_array().unwrap().len(), 2, "{items}");
    // Another identity has its own runs.
    let other = rt.new_identity().await;
    let mut elsewhere = rt.open(Some(&other), &create("hello")).await;
    assert_eq!(elsewhere.status(), 200);
    elsewhere.rest().await;
    // Both clients leave; one thread has a channel open.
    let channel = rt.subscribe(&rt.identity(), &b).await;
    drop(first);
    drop(second);
    // A client's leaving shows at its run's next keepalive (every 10 s).
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let abandoned = format!("run abandoned: thread={a}");
    while !rt.output().contains(&abandoned) {
        assert!(std::time::Instant::now() < deadline, "{}", rt.output());
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(
        rt.json(json!({"type": "threads.cancel_run", "params": {"thread_id": a}}))
            .await["cancelled"],
        false,
        "stopped already"
    );
    // The run with a channel open lives on.
    assert_eq!(
        rt.json(json!({"type": "threads.cancel_run", "params": {"thread_id": b}}))
            .await["cancelled"],
        true
    );
    assert!(!rt.output().contains(&format!("run abandoned: thread={b}")));
    drop(channel);
    // Both over: new runs are taken.
    tokio::time::sleep(Duration::from_millis(500)).await;
    rt.answer(&c, "hello").await;
}

// --- /callback ----------------------------------------------------------------------------

#[tokio::test]
async fn the_callback_refuses_a_missing_or_wrong_token_before_the_body() {
    let rt = Runtime::start("callback", &[]).await;
    for auth in [None, Some("Bearer wrong-token-0123456789abc")] {
        let mut tcp = rt.connect().await;
        let mut head = format!(
            "POST /callback HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Content-Length: 8000000\r\n",
            rt.host()
        );
        if let Some(a) = auth {
            head.push_str(&format!("Authorization: {a}\r\n"));
        }
        head.push_str("\r\n");
        tcp.write_all(head.as_bytes()).await.unwrap();
        // No byte of the body is sent: the answer comes all the same.
        let mut raw = Vec::new();
        while find(&raw, b"\r\n\r\n").is_none() {
            let mut buf = [0u8; 1024];
            let n = tokio::time::timeout(Duration::from_secs(5), tcp.read(&mut buf))
                .await
                .expect("an answer before the body")
                .unwrap();
            assert!(n > 0, "closed without an answer");
            raw.extend_from_slice(&buf[..n]);
        }
        assert!(
            raw.starts_with(b"HTTP/1.1 401"),
            "{}",
            String::from_utf8_lossy(&raw)
        );
    }
}

#[tokio::test]
async fn a_view_too_large_for_a_channel_line_is_refused() {
    let rt = Runtime::start("large", &[]).await;
    let thread = rt.thread().await;
    let mut channel = rt.subscribe(&rt.identity(), &thread).await;
    let wrapper = |patch: usize| {
        json!({"type": "view_update", "group_id": thread, "view_type": "diff",
               "content": {"patch": "x".repeat(patch)}})
        .to_string()
        .len()
            - patch
    };
    // A body of exactly 8 MiB, the most the route reads: its line would be longer.
    let patch = 8 * 1024 * 1024 - wrapper(0);
    let (status, body) = rt.push_big(&thread, patch, 'x').await;
    assert_eq!(status, 413, "{body}");
    assert_eq!(body["code"], "payload_too_large", "{body}");
    assert!(
        body["error"].as_str().unwrap().contains("8388608"),
        "{body}"
    );
    // One a little smaller fits, and reaches the channel whole.
    let (status, body) = rt.push_big(&thread, patch - 256, 'y').await;
    assert_eq!(status, 200, "{body}");
    let event = channel
        .next_event(Duration::from_secs(30))
        .await
        .expect("the view");
    assert_eq!(
        event["content"]["patch"].as_str().unwrap().len(),
        patch - 256
    );
    let line = format!("data: {event}");
    assert!(line.len() <= MAX_LINE, "{}", line.len());
}
