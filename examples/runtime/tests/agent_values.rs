//! What an ACP agent says is read under bounds and shown clean: a message over the limit
//! is refused without being held (the runtime's memory stays near its idle size), a list
//! of 100,000 choices is clipped as it is read, usage out of range is dropped and labels
//! lose their bidi controls. The real binaries (`chat-shell-runtime --acp` and the scripted
//! agent, `examples/acp-agent`) over HTTP/1.1.

mod common;

use common::{agent_bin, rss_mib, Runtime};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// What one 25 MB message may add to the runtime's memory while it is read, in MiB (held
/// whole and decoded it took about 550).
const PEAK_BOUND_MIB: f64 = 64.0;
/// What it may leave behind, in MiB.
const AFTER_BOUND_MIB: f64 = 32.0;

/// The file's runtime and requests, as one browser.
impl Runtime {
    fn acp() -> Runtime {
        let agent = format!("{} --pace-ms 1", agent_bin().display());
        Runtime::spawn(&["--dist", "/nonexistent", "--memory", "--acp", &agent])
    }

    /// Sends `request`; the events (or the JSON body) of the answer.
    async fn call(&self, request: Value) -> (u16, Vec<Value>) {
        let mut stream = self.post(request).await;
        let status = stream.status();
        let streamed = stream
            .header("content-type")
            .is_some_and(|t| t.contains("event-stream"));
        if streamed {
            (status, stream.rest().await)
        } else {
            (status, vec![stream.json().await])
        }
    }

    async fn say(&self, thread: Option<&str>, text: &str) -> (String, Vec<Value>) {
        let request = match thread {
            None => common::create(text),
            Some(t) => common::add_message(t, text),
        };
        let (status, events) = self.call(request).await;
        assert_eq!(status, 200, "{events:#?}");
        let thread = match thread {
            Some(t) => t.to_owned(),
            None => events
                .iter()
                .find(|e| e["type"] == "thread.created")
                .and_then(|e| e["thread"]["id"].as_str())
                .expect("thread.created")
                .to_owned(),
        };
        (thread, events)
    }

    async fn session(&self, thread: &str) -> Value {
        let (status, body) = self
            .call(json!({"type": "acp.session.get", "params": {"thread_id": thread}}))
            .await;
        assert_eq!(status, 200, "{body:#?}");
        body[0]["session"].clone()
    }

    /// Samples the runtime's memory until stopped; the highest seen.
    fn sample_peak(&self) -> (Arc<AtomicBool>, tokio::task::JoinHandle<f64>) {
        let stop = Arc::new(AtomicBool::new(false));
        let (pid, stopped) = (self.pid(), stop.clone());
        let peak = tokio::spawn(async move {
            let mut peak: f64 = 0.0;
            while !stopped.load(Ordering::Relaxed) {
                peak = peak.max(rss_mib(pid));
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            peak.max(rss_mib(pid))
        });
        (stop, peak)
    }
}

fn said(events: &[Value]) -> String {
    events
        .iter()
        .filter_map(|e| e["update"]["delta"].as_str())
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_25_mb_agent_message_is_refused_and_memory_stays_near_its_idle_size() {
    let rt = Runtime::acp();
    // The agent runs, and the runtime has answered once: its idle size.
    let (thread, _) = rt.say(None, "hello").await;
    let idle = rt.rss_mib();
    let (stop, peak) = rt.sample_peak();
    let (_, events) = rt.say(Some(&thread), "huge reply").await;
    stop.store(true, Ordering::Relaxed);
    let peak = peak.await.unwrap();
    // The message is refused and logged; what came before and after is there, and the
    // turn ended as the agent said.
    assert!(
        rt.output().contains("ACP: refused a message of the agent"),
        "{}",
        rt.output()
    );
    let text = said(&events);
    assert!(text.contains("Before the huge message."), "{text}");
    assert!(text.contains("After the huge message."), "{text}");
    assert!(!text.contains("xxxx"), "{}", text.len());
    assert!(!events.iter().any(|e| e["type"] == "error"), "{events:#?}");
    assert!(
        peak - idle < PEAK_BOUND_MIB,
        "idle {idle:.1} MiB, peak {peak:.1} MiB"
    );
    // Three more bursts leave nothing behind.
    for _ in 0..3 {
        rt.say(Some(&thread), "huge reply").await;
    }
    let after = rt.rss_mib();
    assert!(
        after - idle < AFTER_BOUND_MIB,
        "idle {idle:.1} MiB, after {after:.1} MiB"
    );
    // The session goes on.
    let (_, events) = rt.say(Some(&thread), "hello again").await;
    assert!(said(&events).contains("hello again"), "{events:#?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_option_of_100k_choices_is_clipped_as_it_is_read() {
    let rt = Runtime::acp();
    let (thread, _) = rt.say(None, "hello").await;
    let idle = rt.rss_mib();
    let (stop, peak) = rt.sample_peak();
    let (_, events) = rt.say(Some(&thread), "huge choices").await;
    stop.store(true, Ordering::Relaxed);
    let peak = peak.await.unwrap();
    assert!(said(&events).contains("100,000 choices"), "{events:#?}");
    // Offered, with its first choices.
    let session = rt.session(&thread).await;
    let huge = session["controls"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "huge")
        .unwrap_or_else(|| panic!("{session:#}"));
    let choices = huge["options"].as_array().unwrap();
    assert!(
        !choices.is_empty() && choices.len() <= 256,
        "{}",
        choices.len()
    );
    assert_eq!(choices[0]["value"], "c0");
    // Decoded whole it took the runtime from 7 to 189 MiB.
    assert!(
        peak - idle < PEAK_BOUND_MIB,
        "idle {idle:.1} MiB, peak {peak:.1} MiB"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn usage_out_of_range_is_dropped_and_labels_lose_their_bidi_controls() {
    let rt = Runtime::acp();
    let (thread, _) = rt.say(None, "odd values").await;
    // The odd usage comes after the turn's own.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let session = rt.session(&thread).await;
    let text = session.to_string();
    for hidden in ["\u{202e}", "\u{2066}", "\u{1b}"] {
        assert!(!text.contains(hidden), "{hidden:?} in {session:#}");
    }
    let odd = session["controls"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "odd")
        .unwrap_or_else(|| panic!("{session:#}"));
    assert_eq!(odd["name"], "ddO");
    assert_eq!(odd["options"][0]["name"], "eciohC");
    assert_eq!(session["commands"][0]["description"], "txet");
    // The turn's usage stays: `used` past any context window and a cost below zero are
    // not a usage.
    let usage = &session["usage"];
    assert!(usage["used"].as_u64().unwrap() < 1 << 40, "{usage}");
    let cost = &usage["cost"];
    assert!(
        cost.is_null() || cost["amount"].as_f64().unwrap() >= 0.0,
        "{usage}"
    );
    assert!(!text.contains("DSU"), "{session:#}");
}
