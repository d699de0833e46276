//! @-mentions of workspace files through `chat-shell-runtime --acp --workspace` and the
//! scripted agent (`examples/acp-agent`), the real binaries over HTTP/1.1:
//! `acp.files.search` (listing, ranking, confinement, bounds, scoping) and a mention sent
//! in a message reaching the agent as a `resource_link` (the scripted agent says what it
//! received: "a link to NAME (MIME)").
//!
//! The agent binary is `target/<profile>/chat-shell-acp-agent` (`cargo build -p
//! chat-shell-acp-agent`), or `CHAT_SHELL_ACP_AGENT_BIN`.
#![cfg(target_os = "linux")]

mod common;

use common::{agent_bin, Runtime};
use serde_json::{json, Value};
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn temp_dir(name: &str) -> PathBuf {
    common::temp_dir("mentions", name)
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// The file's runtimes and requests, as one browser with its identity.
impl Runtime {
    async fn start(args: &[&str]) -> Runtime {
        let mut all = vec!["--dist", "/nonexistent", "--memory"];
        all.extend_from_slice(args);
        let rt = Runtime::spawn(&all);
        rt.set_cookie(Some(rt.new_identity().await));
        rt
    }

    /// The runtime on the scripted agent with `workspace`.
    async fn in_workspace(workspace: &Path) -> Runtime {
        let agent = format!("{} --pace-ms 2", agent_bin().display());
        Runtime::start(&["--acp", &agent, "--workspace", workspace.to_str().unwrap()]).await
    }

    /// A JSON request as this identity, answered within 10 s: its status and body.
    async fn call(&self, request: Value) -> (u16, Value) {
        self.call_as(&self.identity(), request).await
    }

    async fn call_as(&self, cookie: &str, request: Value) -> (u16, Value) {
        tokio::time::timeout(Duration::from_secs(10), async {
            let mut s = self.open(Some(cookie), &request).await;
            let status = s.status();
            (status, s.json().await)
        })
        .await
        .unwrap_or_else(|_| panic!("no answer to {request} within 10 s"))
    }

    async fn search(&self, thread: Option<&str>, query: &str, limit: Option<u32>) -> Value {
        let (status, body) = self.call(search(thread, query, limit)).await;
        assert_eq!(status, 200, "{body}");
        body
    }

    /// A message with `content` in a new thread: the thread and the agent's answer.
    async fn send(&self, content: Value) -> (String, String) {
        let request = json!({"type": "threads.create", "params": {"input": {
            "content": content, "attachments": [], "inference_options": {}
        }}});
        let events = self
            .open(Some(&self.identity()), &request)
            .await
            .rest()
            .await;
        assert!(!events.iter().any(|e| e["type"] == "error"), "{events:#?}");
        let thread = events
            .iter()
            .find(|e| e["type"] == "thread.created")
            .and_then(|e| e["thread"]["id"].as_str())
            .expect("thread.created")
            .to_owned();
        let answer = events
            .iter()
            .filter(|e| e["type"] == "thread.item.done" && e["item"]["type"] == "assistant_message")
            .filter_map(|e| e["item"]["content"][0]["text"].as_str())
            .collect::<Vec<_>>()
            .join("|");
        (thread, answer)
    }
}

fn search(thread: Option<&str>, query: &str, limit: Option<u32>) -> Value {
    let mut params = json!({"thread_id": thread, "query": query});
    if let Some(limit) = limit {
        params["limit"] = json!(limit);
    }
    json!({"type": "acp.files.search", "params": params})
}

fn paths(answer: &Value) -> Vec<String> {
    answer["data"]
        .as_array()
        .unwrap_or_else(|| panic!("no data in {answer}"))
        .iter()
        .map(|e| e["data"]["path"].as_str().unwrap().to_owned())
        .collect()
}

/// A file mention as the page sends it.
fn mention(path: &str) -> Value {
    let name = path.rsplit('/').next().unwrap();
    json!({"type": "input_tag", "id": format!("file:{path}"), "text": name,
           "data": {"type": "file", "path": path}, "interactive": false})
}

fn text(t: &str) -> Value {
    json!({"type": "input_text", "text": t})
}

#[tokio::test]
async fn the_search_lists_the_workspace_s_files_ranked_and_relative() {
    let ws = temp_dir("ranked");
    for file in [
        "src/main.rs",
        "src/lib.rs",
        "src/mirrors.rs",
        "docs/mrs-notes/x.txt",
        "README.md",
        "Cargo.toml",
        ".git/config",
        ".git/mrs",
        "node_modules/mrs/index.js",
        "target/debug/mrs",
    ] {
        write(&ws.join(file), "x");
    }
    let rt = Runtime::in_workspace(&ws).await;

    // The page learns it can ask.
    let (_, session) = rt
        .call(json!({"type": "acp.session.get", "params": {"thread_id": null}}))
        .await;
    assert_eq!(session["session"]["file_mentions"], true, "{session}");

    let found = rt.search(None, "mrs", None).await;
    let listed = paths(&found);
    assert_eq!(listed[0], "src/main.rs", "{found:#}");
    assert_eq!(found["truncated"], false);
    for hidden in [".git", "node_modules", "target"] {
        assert!(!listed.iter().any(|p| p.starts_with(hidden)), "{listed:?}");
    }
    assert_eq!(
        found["data"][0],
        json!({"id": "file:src/main.rs", "title": "main.rs", "group": "src",
               "interactive": false, "data": {"type": "file", "path": "src/main.rs"}})
    );
    // At the top, no group.
    let top = rt.search(None, "readme", None).await;
    assert_eq!(
        top["data"][0],
        json!({"id": "file:README.md", "title": "README.md", "interactive": false,
               "data": {"type": "file", "path": "README.md"}})
    );
    // `limit` holds; an empty query lists files too.
    assert_eq!(
        paths(&rt.search(None, "mrs", Some(1)).await),
        ["src/main.rs"]
    );
    assert_eq!(paths(&rt.search(None, "", Some(2)).await).len(), 2);
    assert_eq!(paths(&rt.search(None, "", None).await).len(), 6);
    assert!(paths(&rt.search(None, "zzz", None).await).is_empty());

    // Relative paths only: the server's own folder never shows.
    let root = ws.display().to_string();
    for query in ["", "mrs", "s", "/", "."] {
        let answer = rt.search(None, query, Some(50)).await.to_string();
        assert!(!answer.contains(&root), "{answer}");
        assert!(!answer.contains("\"/"), "{answer}");
    }
    let _ = std::fs::remove_dir_all(&ws);
}

#[tokio::test]
async fn the_search_is_validated_and_scoped_to_the_user() {
    let ws = temp_dir("scoped");
    write(&ws.join("a.txt"), "");
    let rt = Runtime::in_workspace(&ws).await;
    for (request, why) in [
        (search(None, "a", Some(0)), "limit 0"),
        (search(None, "a", Some(51)), "limit 51"),
        (search(None, &"a".repeat(257), None), "a long query"),
        (search(None, "a\u{7}", None), "a control character"),
        (json!({"type": "acp.files.search"}), "no params"),
        (
            json!({"type": "acp.files.search", "params": {"query": 3}}),
            "a query that is not text",
        ),
    ] {
        let (status, body) = rt.call(request).await;
        assert_eq!(
            (status, &body["code"]),
            (400, &json!("bad_request")),
            "{why}: {body}"
        );
    }
    assert_eq!(
        paths(&rt.search(None, &"a".repeat(256), None).await).len(),
        0
    );

    // A thread of the user's: listed; another user's, or none: the same 404.
    let (thread, _) = rt.send(json!([text("hello")])).await;
    assert_eq!(paths(&rt.search(Some(&thread), "a", None).await), ["a.txt"]);
    let other = rt.new_identity().await;
    let (status, body) = rt.call_as(&other, search(Some(&thread), "a", None)).await;
    assert_eq!(
        (status, &body["code"]),
        (404, &json!("not_found")),
        "{body}"
    );
    let (status, unknown) = rt.call(search(Some("thr_nope"), "a", None)).await;
    assert_eq!((status, &unknown["code"]), (404, &json!("not_found")));
    assert_eq!(
        body["error"].as_str().unwrap().replace(&thread, "ID"),
        unknown["error"].as_str().unwrap().replace("thr_nope", "ID"),
        "the same answer"
    );
    // The other user's draft lists the same workspace.
    let (status, theirs) = rt.call_as(&other, search(None, "a", None)).await;
    assert_eq!((status, paths(&theirs)), (200, vec!["a.txt".to_owned()]));
    let _ = std::fs::remove_dir_all(&ws);
}

#[tokio::test]
async fn without_a_workspace_or_an_agent_there_are_no_file_mentions() {
    let agent = format!("{} --pace-ms 2", agent_bin().display());
    let rt = Runtime::start(&["--acp", &agent]).await;
    let (status, body) = rt.call(search(None, "a", None)).await;
    assert_eq!(
        (status, &body["code"]),
        (400, &json!("no_workspace")),
        "{body}"
    );
    let (_, session) = rt
        .call(json!({"type": "acp.session.get", "params": {"thread_id": null}}))
        .await;
    assert_eq!(session["session"]["file_mentions"], false, "{session}");

    let scripted = Runtime::start(&[]).await;
    let (status, body) = scripted.call(search(None, "a", None)).await;
    assert_eq!((status, &body["code"]), (400, &json!("no_agent")), "{body}");
}

#[tokio::test]
async fn the_listing_keeps_to_the_workspace_and_opens_no_file() {
    let base = temp_dir("confined");
    let ws = base.join("ws");
    write(&ws.join("src/main.rs"), "fn main() {}\n");
    write(&base.join("outside/secret-dir-file.txt"), "secret");
    write(&base.join("secret-file.txt"), "secret");
    symlink(base.join("outside"), ws.join("linked-dir")).unwrap();
    symlink(base.join("secret-file.txt"), ws.join("linked-out.txt")).unwrap();
    symlink("../secret-file.txt", ws.join("linked-up.txt")).unwrap();
    symlink("src/main.rs", ws.join("linked-in.rs")).unwrap();
    // A hard link to an outside file is a name in the workspace, but its other names may
    // be anywhere: like `fs/read_text_file`, the listing leaves it out.
    std::fs::hard_link(base.join("secret-file.txt"), ws.join("hard-linked.txt")).unwrap();
    rustix::fs::mknodat(
        rustix::fs::CWD,
        ws.join("a-fifo"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    symlink("a-fifo", ws.join("linked-fifo")).unwrap();
    // 1 GiB, sparse: reading it would take seconds; listing never reads.
    std::fs::File::create(ws.join("huge.bin"))
        .unwrap()
        .set_len(1 << 30)
        .unwrap();
    let rt = Runtime::in_workspace(&ws).await;

    let started = Instant::now();
    let all = rt.search(None, "", Some(50)).await;
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    let mut listed = paths(&all);
    listed.sort();
    assert_eq!(
        listed,
        ["huge.bin", "linked-in.rs", "src/main.rs"],
        "{all:#}"
    );
    let answer = all.to_string();
    assert!(!answer.contains("secret") && !answer.contains(base.to_str().unwrap()));
    let _ = std::fs::remove_dir_all(&base);
}

#[tokio::test]
async fn a_walk_over_its_bound_answers_in_time_truncated() {
    let ws = temp_dir("bound");
    std::fs::create_dir_all(ws.join("many")).unwrap();
    for i in 0..20_010 {
        std::fs::File::create(ws.join(format!("many/f{i:05}.txt"))).unwrap();
    }
    write(&ws.join("main.rs"), "");
    let rt = Runtime::in_workspace(&ws).await;
    let started = Instant::now();
    let found = rt.search(None, "f1", Some(50)).await;
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(found["truncated"], true, "{found}");
    assert_eq!(paths(&found).len(), 50);
    // Breadth first: the top's files are in.
    assert_eq!(paths(&rt.search(None, "main.rs", None).await), ["main.rs"]);
    let _ = std::fs::remove_dir_all(&ws);
}

#[tokio::test]
async fn a_mentioned_file_reaches_the_agent_as_a_link_and_a_hostile_one_does_not() {
    let base = temp_dir("sent");
    let ws = base.join("ws");
    write(&ws.join("src/main.rs"), "fn main() {}\n");
    write(&base.join("secret.rs"), "secret");
    symlink("src/main.rs", ws.join("swap.rs")).unwrap();
    rustix::fs::mknodat(
        rustix::fs::CWD,
        ws.join("pipe"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    let rt = Runtime::in_workspace(&ws).await;

    // Listed while it points inside…
    assert_eq!(paths(&rt.search(None, "swap", None).await), ["swap.rs"]);
    // …then swapped to point outside before the message is sent.
    std::fs::remove_file(ws.join("swap.rs")).unwrap();
    symlink(base.join("secret.rs"), ws.join("swap.rs")).unwrap();

    let content = json!([
        text("look at "),
        mention("src/main.rs"),
        text(", "),
        mention("../../etc/passwd"),
        text(", "),
        mention("/etc/hostname"),
        text(", "),
        mention("swap.rs"),
        text(", "),
        mention("pipe"),
        text(" and "),
        mention("gone.rs"),
    ]);
    let sent = tokio::time::timeout(Duration::from_secs(20), rt.send(content.clone()));
    let (thread, answer) = sent
        .await
        .expect("the turn ends (the FIFO is never opened)");
    // One link, the file inside; every mention stays in the text as `@name`.
    assert!(
        answer.contains("I received a link to main.rs (text/x-rust). "),
        "{answer}"
    );
    assert!(!answer.contains("; a link"), "only one link: {answer}");
    assert!(
        answer.contains(
            "You said: “look at @main.rs, @passwd, @hostname, @swap.rs, @pipe and @gone.rs”"
        ),
        "{answer}"
    );
    // The message is kept as sent: its mentions are `input_tag`s.
    let (_, items) = rt
        .call(json!({"type": "items.list", "params": {"thread_id": thread, "order": "asc"}}))
        .await;
    assert_eq!(items["data"][0]["content"], content);

    // Back inside, the same mention is a link again: the check is made at each send.
    std::fs::remove_file(ws.join("swap.rs")).unwrap();
    symlink("src/main.rs", ws.join("swap.rs")).unwrap();
    let (_, answer) = rt.send(json!([mention("swap.rs")])).await;
    assert!(
        answer.contains("I received a link to swap.rs (text/x-rust). "),
        "{answer}"
    );
    let _ = std::fs::remove_dir_all(&base);
}
