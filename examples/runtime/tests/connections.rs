//! Slow and greedy clients against the real binary: request heads and bodies that never
//! finish are closed after their time limits, connections past the cap are answered 503 and closed,
//! and meanwhile normal requests are answered and long answers (a stalled run, a thread
//! channel) go on past every limit.

mod common;

use common::{create, find, Runtime};
use serde_json::json;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

fn start(extra: &[&str]) -> Runtime {
    let mut args = vec!["--memory", "--dist", "/nonexistent"];
    args.extend_from_slice(extra);
    Runtime::spawn(&args)
}

/// How long until the server closes `tcp` (EOF or reset), with what it sent first; `None`
/// if it is still open after `within`.
async fn closed_within(tcp: &mut TcpStream, within: Duration) -> Option<(Duration, Vec<u8>)> {
    let started = Instant::now();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match tokio::time::timeout_at((started + within).into(), tcp.read(&mut buf)).await {
            Err(_) => return None,
            Ok(Ok(0)) | Ok(Err(_)) => return Some((started.elapsed(), got)),
            Ok(Ok(n)) => got.extend_from_slice(&buf[..n]),
        }
    }
}

/// A `threads.list` on `tcp`, kept alive (by hand: the connection is then left idle);
/// returns the status once the whole answer is in.
async fn list_threads(rt: &Runtime, tcp: &mut TcpStream) -> u16 {
    let body = json!({"type": "threads.list", "params": {}}).to_string();
    let head = format!(
        "POST /chatkit HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        rt.port,
        body.len()
    );
    tcp.write_all(head.as_bytes()).await.unwrap();
    tcp.write_all(body.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    let mut buf = [0u8; 4096];
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(end) = find(&raw, b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&raw[..end]).to_ascii_lowercase();
            let length: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .expect("a JSON answer has a length")
                .trim()
                .parse()
                .unwrap();
            if raw.len() >= end + 4 + length {
                return head.split(' ').nth(1).unwrap().parse().unwrap();
            }
        }
        let n = tokio::time::timeout_at(deadline.into(), tcp.read(&mut buf))
            .await
            .expect("an answer within 10 s")
            .unwrap();
        assert!(
            n > 0,
            "closed before the answer: {}",
            String::from_utf8_lossy(&raw)
        );
        raw.extend_from_slice(&buf[..n]);
    }
}

/// A normal request on a fresh connection, answered within 10 s.
async fn answered(rt: &Runtime) -> bool {
    let list = json!({"type": "threads.list", "params": {}});
    let reply = tokio::time::timeout(Duration::from_secs(10), async {
        rt.open(None, &list).await.reply().await
    })
    .await
    .expect("an answer within 10 s");
    reply.status == 200
}

#[tokio::test]
async fn requests_that_never_finish_are_closed_after_the_timeouts() {
    let rt = start(&["--header-timeout-ms", "500", "--body-timeout-ms", "500"]);
    // Sends nothing at all.
    let mut silent = rt.connect().await;
    // Half a request head.
    let mut half_head = rt.connect().await;
    half_head
        .write_all(format!("GET / HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nX-Slow: ", rt.port).as_bytes())
        .await
        .unwrap();
    // A whole head, then 10 of the 100 bytes it announced.
    let body_sent = Instant::now();
    let mut half_body = rt.connect().await;
    half_body
        .write_all(
            format!(
                "POST /chatkit HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"type\": ",
                rt.port
            )
            .as_bytes(),
        )
        .await
        .unwrap();
    // One answered request, then nothing: an idle kept-alive connection.
    let mut idle = rt.connect().await;
    assert_eq!(list_threads(&rt, &mut idle).await, 200);

    // Meanwhile others are answered.
    assert!(answered(&rt).await);

    // The body's pause is answered 408 (JSON, as every error), then the connection closes.
    let (_, got) = closed_within(&mut half_body, Duration::from_secs(5))
        .await
        .expect("half a body: still open after 5 s");
    let after = body_sent.elapsed();
    let got = String::from_utf8_lossy(&got).into_owned();
    assert!(
        after >= Duration::from_millis(400),
        "closed after {after:?}: {got}"
    );
    assert!(after < Duration::from_secs(3), "closed after {after:?}");
    assert!(got.starts_with("HTTP/1.1 408 "), "{got}");
    assert!(got.contains(r#""code":"request_timeout""#), "{got}");
    // The others are closed without an answer.
    for (what, tcp) in [
        ("silent", &mut silent),
        ("half a head", &mut half_head),
        ("idle after an answer", &mut idle),
    ] {
        let (after, got) = closed_within(tcp, Duration::from_secs(5))
            .await
            .unwrap_or_else(|| panic!("{what}: still open after 5 s"));
        assert!(
            after < Duration::from_secs(3),
            "{what}: closed after {after:?}"
        );
        assert!(
            !String::from_utf8_lossy(&got).contains(" 200 "),
            "{what}: {}",
            String::from_utf8_lossy(&got)
        );
    }
    rt.wait_for_line("POST /chatkit - 408")
        .expect("the refusal is logged");
    assert!(answered(&rt).await);
}

#[tokio::test]
async fn connections_past_the_cap_are_closed_while_open_ones_are_answered() {
    let rt = start(&["--max-connections", "3", "--header-timeout-ms", "1500"]);
    // A browser's connection, kept alive.
    let mut browser = rt.connect().await;
    assert_eq!(list_threads(&rt, &mut browser).await, 200);
    // Two that send half a head and wait: the cap is reached.
    let mut slow = Vec::new();
    for _ in 0..2 {
        let mut tcp = rt.connect().await;
        tcp.write_all(b"GET / HTTP/1.1\r\n").await.unwrap();
        slow.push(tcp);
    }
    tokio::time::sleep(Duration::from_millis(200)).await;

    // One more is told to come back (503, Retry-After) and closed at once.
    let mut extra = rt.connect().await;
    let _ = extra
        .write_all(format!("GET / HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n\r\n", rt.port).as_bytes())
        .await;
    let (after, got) = closed_within(&mut extra, Duration::from_secs(5))
        .await
        .expect("the connection past the cap is closed");
    assert!(after < Duration::from_secs(1), "closed after {after:?}");
    let got = String::from_utf8_lossy(&got).to_ascii_lowercase();
    assert!(got.starts_with("http/1.1 503 "), "{got}");
    assert!(got.contains("retry-after: 1\r\n"), "{got}");
    rt.wait_for_line("connections refused: 3 are open (--max-connections)")
        .expect("the refusal is logged");

    // The open connection is still answered.
    assert_eq!(list_threads(&rt, &mut browser).await, 200);

    // The slow ones go at their head timeout, the idle browser one too; then new
    // connections are answered again.
    for tcp in &mut slow {
        closed_within(tcp, Duration::from_secs(5))
            .await
            .expect("a slow connection is closed at its head timeout");
    }
    closed_within(&mut browser, Duration::from_secs(5))
        .await
        .expect("an idle connection is closed at its head timeout");
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        // The last permits come back as their tasks end.
        let mut tcp = rt.connect().await;
        let body = json!({"type": "threads.list", "params": {}}).to_string();
        let head = format!(
            "POST /chatkit HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            rt.port,
            body.len()
        );
        let _ = tcp.write_all(head.as_bytes()).await;
        let (_, got) = closed_within(&mut tcp, Duration::from_secs(5))
            .await
            .unwrap();
        if String::from_utf8_lossy(&got).starts_with("HTTP/1.1 200 ") {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "new connections are not answered again"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn long_answers_outlive_the_timeouts() {
    let rt = start(&[
        "--header-timeout-ms",
        "300",
        "--body-timeout-ms",
        "300",
        "--channel-keepalive-ms",
        "100",
        "--pace-ms",
        "1",
    ]);
    // A run that says nothing for two minutes after its first words.
    let mut stalled = rt.open(None, &create("stall")).await;
    assert_eq!(stalled.status(), 200);
    let cookie = stalled.cookie().expect("an identity cookie");
    let first = stalled
        .until("the thread", |e| e["type"] == "thread.created")
        .await;
    let thread = first.last().unwrap()["thread"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    // The thread's channel: a keepalive every 100 ms.
    let mut channel = rt
        .open(
            Some(&cookie),
            &json!({"type": "threads.subscribe", "params": {"thread_id": thread, "after": null}}),
        )
        .await;
    assert_eq!(channel.status(), 200);
    // A run that streams for over a second, at the same time.
    let started = Instant::now();
    let mut long = rt.open(Some(&cookie), &create("long")).await;
    let events = long.rest().await;
    assert!(
        started.elapsed() > Duration::from_secs(1),
        "the run streamed for {:?}",
        started.elapsed()
    );
    assert!(long.ended && events.len() > 1000, "{} events", events.len());

    // Both others are still open well past both limits.
    let silent_until = Instant::now() + Duration::from_millis(1500);
    while Instant::now() < silent_until {
        let _ = channel.next_event(Duration::from_millis(100)).await;
        assert!(!channel.ended, "the channel was closed");
    }
    assert!(channel.keepalives >= 5, "{} keepalives", channel.keepalives);
    // What the stalled run said before it stalled has long arrived; then nothing.
    while stalled
        .next_event(Duration::from_millis(50))
        .await
        .is_some()
    {}
    assert_eq!(
        stalled.next_event(Duration::from_millis(800)).await,
        None,
        "the stalled run says nothing"
    );
    assert!(!stalled.ended, "the stalled run was closed");
}
