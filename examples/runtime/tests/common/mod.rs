//! What the runtime's end-to-end tests share: the binary started on a free port with its
//! log collected ([`Runtime`], `runtime.rs`), and one HTTP client to speak to it
//! ([`Request`], [`Stream`], [`Reply`]: hyper's HTTP/1.1 client, `client.rs`), streamed
//! answers read frame by frame as they come. Tests that need raw sockets on purpose (slow
//! heads, stalled readers, connection caps) get them from [`Runtime::connect`].

// Each test crate uses its own part of this module.
#![allow(dead_code)]

mod client;
mod runtime;

// Each test crate uses its own part of these too.
#[allow(unused_imports)]
pub use client::{Reply, Request, Stream};
#[allow(unused_imports)]
pub use runtime::{rss_mib, Runtime};

use serde_json::{json, Value};

/// Where `needle` first is in `haystack`.
pub fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// `threads.create` with `text` as the first message.
pub fn create(text: &str) -> Value {
    json!({"type": "threads.create", "params": {"input": {
        "content": [{"type": "input_text", "text": text}], "attachments": [], "inference_options": {}
    }}})
}

/// `threads.add_user_message` of `text` on `thread`.
pub fn add_message(thread: &str, text: &str) -> Value {
    json!({"type": "threads.add_user_message", "params": {"thread_id": thread, "input": {
        "content": [{"type": "input_text", "text": text}], "attachments": [], "inference_options": {}
    }}})
}

/// `threads.subscribe` of `thread` from its start.
pub fn subscribe(thread: &str) -> Value {
    json!({"type": "threads.subscribe", "params": {"thread_id": thread, "after": null}})
}

/// The scripted ACP agent's binary beside the runtime's (`CHAT_SHELL_ACP_AGENT_BIN`
/// overrides it).
pub fn agent_bin() -> std::path::PathBuf {
    if let Some(bin) = std::env::var_os("CHAT_SHELL_ACP_AGENT_BIN") {
        return bin.into();
    }
    let runtime = std::path::PathBuf::from(env!("CARGO_BIN_EXE_chat-shell-runtime"));
    let bin = runtime.with_file_name(format!(
        "chat-shell-acp-agent{}",
        std::env::consts::EXE_SUFFIX
    ));
    assert!(
        bin.exists(),
        "{} is missing: run `cargo build -p chat-shell-acp-agent` (cargo test --workspace builds it)",
        bin.display()
    );
    bin
}

/// A new empty folder for one test (`name` and the process id in its name), canonical.
pub fn temp_dir(prefix: &str, name: &str) -> std::path::PathBuf {
    static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!(
        "chat-shell-{prefix}-test-{name}-{}-{n}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.canonicalize().unwrap()
}

/// The URL of a fresh schema (named after `prefix`, one per call) on the test PostgreSQL
/// server of `CHAT_SHELL_TEST_DATABASE_URL`; `None` (said once on stderr) when none is
/// given. Blocking: call it from `spawn_blocking` in an async test.
pub fn postgres_schema(prefix: &str) -> Option<String> {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let Ok(url) = std::env::var("CHAT_SHELL_TEST_DATABASE_URL") else {
        eprintln!("note: CHAT_SHELL_TEST_DATABASE_URL is not set: PostgreSQL is skipped");
        return None;
    };
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let schema = format!("{prefix}_{}_{n}", std::process::id());
    let mut admin = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    admin
        .batch_execute(&format!(
            "DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}"
        ))
        .unwrap();
    let sep = if url.contains('?') { '&' } else { '?' };
    Some(format!("{url}{sep}options=-csearch_path%3D{schema}"))
}
