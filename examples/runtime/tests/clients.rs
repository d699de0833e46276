//! One client cannot lock everyone out: what a client address may hold (connections,
//! channels, runs, new identities) is capped whatever cookies it brings, while another
//! address keeps being answered. The clients are distinct loopback source addresses
//! (127.0.0.2, 127.0.0.3, …) against the real binary.

mod common;

use common::{create, subscribe, Request, Runtime, Stream};
use serde_json::{json, Value};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const ATTACKER: [u8; 4] = [127, 0, 0, 2];
const OTHER: [u8; 4] = [127, 0, 0, 3];
const THIRD: [u8; 4] = [127, 0, 0, 4];

fn start(extra: &[&str]) -> Runtime {
    let mut args = vec!["--memory", "--dist", "/nonexistent"];
    args.extend_from_slice(extra);
    Runtime::spawn(&args)
}

fn list() -> Value {
    json!({"type": "threads.list", "params": {}})
}

/// A new identity from `from` with a thread of its own: (cookie, thread id).
async fn identity_with_thread(rt: &Runtime, from: [u8; 4]) -> (String, String) {
    let mut created = rt.open_from(from, None, &create("hello")).await;
    assert_eq!(created.status(), 200);
    let cookie = created.cookie().expect("a new identity");
    let events = created.rest().await;
    let thread = events
        .iter()
        .find(|e| e["type"] == "thread.created")
        .expect("thread.created")["thread"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    (cookie, thread)
}

/// Whether the server closes `tcp` within `within` without answering.
async fn closed_unanswered(tcp: &mut TcpStream, within: Duration) -> bool {
    let mut buf = [0u8; 1024];
    matches!(
        tokio::time::timeout(within, tcp.read(&mut buf)).await,
        Ok(Ok(0)) | Ok(Err(_))
    )
}

/// Whether a `GET /healthz` from `from` is answered (not closed at once): by hand, as a
/// connection past the cap is closed before any answer.
async fn answered_from(rt: &Runtime, from: [u8; 4]) -> bool {
    let mut tcp = rt.connect_from(from).await;
    let head = format!(
        "GET /healthz HTTP/1.1\r\nHost: {}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        rt.host()
    );
    if tcp.write_all(head.as_bytes()).await.is_err() {
        return false;
    }
    let mut buf = [0u8; 64];
    matches!(
        tokio::time::timeout(Duration::from_secs(2), tcp.read(&mut buf)).await,
        Ok(Ok(n)) if n > 0 && buf[..n].starts_with(b"HTTP/1.1 200")
    )
}

/// A request with `X-Forwarded-For: forwarded_for`, from `from`.
async fn send_with(
    rt: &Runtime,
    from: [u8; 4],
    cookie: Option<&str>,
    forwarded_for: &str,
    request: &Value,
) -> Stream {
    rt.fetch(
        Request::post("/chatkit")
            .json(request)
            .cookie(cookie)
            .header("X-Forwarded-For", forwarded_for)
            .from(from),
    )
    .await
}

/// A 429 with a usable `Retry-After`.
fn assert_too_many(stream: &mut Stream) {
    assert_eq!(stream.status(), 429);
    let retry: u64 = stream
        .header("retry-after")
        .expect("a Retry-After")
        .parse()
        .expect("Retry-After in seconds");
    assert!((1..=60).contains(&retry), "Retry-After {retry}");
}

#[tokio::test]
async fn one_address_cannot_hold_every_channel_or_connection_while_another_is_answered() {
    let rt = start(&[
        "--max-channels-per-client",
        "6",
        "--max-connections-per-client",
        "8",
        "--max-connections",
        "32",
        // A client that left is noticed at the next write.
        "--channel-keepalive-ms",
        "200",
    ]);
    // Identities minted at will, each opening a channel: the address's cap binds them all.
    let mut held = Vec::new();
    let mut refused = 0;
    for _ in 0..10 {
        let (cookie, thread) = identity_with_thread(&rt, ATTACKER).await;
        let mut channel = rt
            .open_from(ATTACKER, Some(&cookie), &subscribe(&thread))
            .await;
        if channel.status() == 200 {
            held.push(channel);
        } else {
            assert_too_many(&mut channel);
            let body = channel.json().await;
            assert_eq!(body["code"], "too_many_for_client", "{body}");
            refused += 1;
        }
    }
    assert_eq!((held.len(), refused), (6, 4));

    // Idle sockets: two more fit under the address's connection cap, the next is closed.
    // The server gives a finished connection's place back a moment after closing it, so
    // a socket closed while the earlier ones were still counted is tried again.
    let mut idle = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(10);
    while idle.len() < 2 {
        let mut tcp = rt.connect_from(ATTACKER).await;
        tcp.write_all(b"GET / HTTP/1.1\r\n").await.unwrap();
        if closed_unanswered(&mut tcp, Duration::from_secs(1)).await {
            assert!(
                Instant::now() < deadline,
                "only {} idle sockets fit",
                idle.len()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        } else {
            idle.push(tcp);
        }
    }
    // Six channels and two sockets: nothing else is counted, so the next is refused.
    let mut extra = rt.connect_from(ATTACKER).await;
    assert!(
        closed_unanswered(&mut extra, Duration::from_secs(2)).await,
        "a connection past the address's cap is closed at once"
    );
    rt.wait_for_line("connections refused: 127.0.0.2 holds 8 (--max-connections-per-client)")
        .expect("the refusal is logged");

    // Meanwhile another address is answered, opens a channel and probes answer.
    let (cookie, thread) = identity_with_thread(&rt, OTHER).await;
    let mut listed = rt.open_from(OTHER, Some(&cookie), &list()).await;
    assert_eq!(listed.status(), 200);
    listed.read_to_end().await;
    let mut channel = rt
        .open_from(OTHER, Some(&cookie), &subscribe(&thread))
        .await;
    assert_eq!(channel.status(), 200);
    channel
        .until("ready", |e| e["type"] == "thread.channel.ready")
        .await;
    let health = rt.fetch(Request::get("/healthz")).await;
    assert_eq!(health.status(), 200);

    // A channel that ends gives its place back.
    drop(idle);
    drop(held.pop());
    // Until the server has seen them go, the address is still at its connection cap.
    let deadline = Instant::now() + Duration::from_secs(5);
    while !answered_from(&rt, ATTACKER).await {
        assert!(Instant::now() < deadline, "connections never came back");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let (cookie, thread) = identity_with_thread(&rt, ATTACKER).await;
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let again = rt
            .open_from(ATTACKER, Some(&cookie), &subscribe(&thread))
            .await;
        if again.status() == 200 {
            break;
        }
        assert!(Instant::now() < deadline, "the place never came back");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn past_the_cap_probes_are_answered_and_the_rest_told_to_come_back() {
    let rt = start(&[
        "--max-connections",
        "4",
        "--max-connections-per-client",
        "2",
        "--header-timeout-ms",
        "5000",
    ]);
    // Two addresses fill the server with half-sent heads.
    let mut slow = Vec::new();
    for from in [ATTACKER, THIRD] {
        for _ in 0..2 {
            let mut tcp = rt.connect_from(from).await;
            tcp.write_all(b"GET / HTTP/1.1\r\n").await.unwrap();
            slow.push(tcp);
        }
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    for probe in ["/healthz", "/readyz"] {
        let answer = rt.fetch(Request::get(probe).from(OTHER)).await;
        assert_eq!(answer.status(), 200, "{probe} past the cap");
    }
    let mut busy = rt
        .fetch(
            Request::post("/chatkit")
                .content_type(Some("application/json"))
                .body("{}")
                .from(OTHER),
        )
        .await;
    assert_eq!(busy.status(), 503);
    assert_eq!(busy.header("retry-after"), Some("1"));
    assert_eq!(busy.json().await["code"], "busy");
    rt.wait_for_line("connections refused: 4 are open (--max-connections); probes still answered")
        .expect("the refusal is logged");
    drop(slow);
    // The places come back.
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let mut listed = rt.open_from(OTHER, None, &list()).await;
        if listed.status() == 200 {
            break;
        }
        listed.read_to_end().await;
        assert!(Instant::now() < deadline, "never answered again");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn cookie_less_runs_from_one_address_are_mostly_refused_and_abandoned_ones_stopped() {
    let rt = start(&["--abandoned-run-secs", "1"]);
    let mut running = Vec::new();
    let mut codes = std::collections::BTreeMap::<String, usize>::new();
    for _ in 0..500 {
        let mut run = rt.open_from(ATTACKER, None, &create("stall")).await;
        if run.status() == 200 {
            running.push(run);
        } else {
            assert_too_many(&mut run);
            let code = run.json().await["code"].as_str().unwrap_or("?").to_owned();
            *codes.entry(code).or_default() += 1;
        }
    }
    // The address's cap (16 by default), whatever the identities.
    assert_eq!(running.len(), 16, "refused: {codes:?}");
    assert_eq!(codes.values().sum::<usize>(), 484, "{codes:?}");
    assert!(
        codes.contains_key("too_many_for_client") && codes.contains_key("too_many_identities"),
        "{codes:?}"
    );
    // Another address starts its run meanwhile.
    let mut other = rt.open_from(OTHER, None, &create("stall")).await;
    assert_eq!(other.status(), 200);
    other
        .until("the thread", |e| e["type"] == "thread.created")
        .await;

    // The client leaves: its runs are stopped once nobody has read them for the bound, and
    // its place comes back.
    let cookie = running[0].cookie().expect("an identity");
    drop(running);
    let deadline = Instant::now() + Duration::from_secs(10);
    while rt
        .lines()
        .iter()
        .filter(|l| l.starts_with("run abandoned:"))
        .count()
        < 16
    {
        assert!(
            Instant::now() < deadline,
            "abandoned runs still running:\n{}",
            rt.output()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let mut again = rt.open_from(ATTACKER, Some(&cookie), &create("hi")).await;
        if again.status() == 200 {
            again.read_to_end().await;
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the address's runs never came back"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // The run that is read goes on.
    while other.next_event(Duration::from_millis(200)).await.is_some() {}
    assert!(!other.ended, "a read run is never stopped");
}

#[tokio::test]
async fn runs_have_a_cap_for_everyone() {
    let rt = start(&["--max-runs-total", "3", "--max-runs-per-client", "2"]);
    let mut held = Vec::new();
    for from in [ATTACKER, ATTACKER, OTHER] {
        let run = rt.open_from(from, None, &create("stall")).await;
        assert_eq!(run.status(), 200);
        held.push(run);
    }
    let mut refused = rt.open_from(THIRD, None, &create("stall")).await;
    assert_too_many(&mut refused);
    assert_eq!(refused.json().await["code"], "busy");
    // The other envelopes' streamed answers count too.
    let events = json!({"messages": [{"role": "user", "content": "hello"}]});
    let mut refused = rt
        .fetch(Request::post("/events").json(&events).from(THIRD))
        .await;
    assert_eq!(refused.status(), 429);
    assert_eq!(refused.json().await["code"], "busy");
}

#[tokio::test]
async fn new_identities_are_minted_at_a_bounded_rate_per_address() {
    let rt = start(&["--max-new-identities-per-minute", "5"]);
    // Reading files writes nothing: such requests do not spend the budget.
    for _ in 0..10 {
        let page = rt.fetch(Request::get("/index.html").from(ATTACKER)).await;
        assert_ne!(page.status(), 429);
    }
    let mut first = None;
    for _ in 0..5 {
        let mut listed = rt.open_from(ATTACKER, None, &list()).await;
        assert_eq!(listed.status(), 200);
        first.get_or_insert(listed.cookie().expect("a new identity"));
        listed.read_to_end().await;
    }
    let mut refused = rt.open_from(ATTACKER, None, &list()).await;
    assert_too_many(&mut refused);
    assert!(refused.cookie().is_none(), "no identity with a refusal");
    assert_eq!(refused.json().await["code"], "too_many_identities");
    // Identities it has keep working, and another address has its own budget.
    let mut known = rt.open_from(ATTACKER, first.as_deref(), &list()).await;
    assert_eq!(known.status(), 200);
    known.read_to_end().await;
    let other = rt.open_from(OTHER, None, &list()).await;
    assert_eq!(other.status(), 200);
}

#[tokio::test]
async fn behind_a_trusted_proxy_the_forwarded_address_counts() {
    let rt = start(&[
        "--max-new-identities-per-minute",
        "2",
        "--trust-proxy",
        "127.0.0.2",
    ]);
    let forwarded = |ip: &str| format!("6.6.6.6, {ip}");
    for _ in 0..2 {
        let s = send_with(&rt, ATTACKER, None, &forwarded("203.0.113.5"), &list()).await;
        assert_eq!(s.status(), 200);
    }
    let s = send_with(&rt, ATTACKER, None, &forwarded("203.0.113.5"), &list()).await;
    assert_eq!(s.status(), 429, "the forwarded client's budget is spent");
    let s = send_with(&rt, ATTACKER, None, &forwarded("203.0.113.6"), &list()).await;
    assert_eq!(s.status(), 200, "another client behind the same proxy");
    // From an address that is no trusted proxy, the header is the client's own claim.
    for n in 0..3 {
        let s = send_with(
            &rt,
            OTHER,
            None,
            &forwarded(&format!("198.51.100.{n}")),
            &list(),
        )
        .await;
        assert_eq!(s.status(), if n < 2 { 200 } else { 429 }, "request {n}");
    }
}

#[tokio::test]
async fn channels_are_closed_after_their_lifetime() {
    let rt = start(&[
        "--channel-lifetime-secs",
        "1",
        "--channel-keepalive-ms",
        "200",
    ]);
    let (cookie, thread) = identity_with_thread(&rt, OTHER).await;
    let opened = Instant::now();
    let mut channel = rt
        .open_from(OTHER, Some(&cookie), &subscribe(&thread))
        .await;
    assert_eq!(channel.status(), 200);
    channel.read_to_end().await;
    let lived = opened.elapsed();
    assert!(
        lived >= Duration::from_millis(900) && lived < Duration::from_secs(5),
        "lived {lived:?}"
    );
    assert!(channel.ended);
    rt.wait_for_line(&format!("channel expired: thread={thread}"))
        .expect("the expiry is logged");
}
