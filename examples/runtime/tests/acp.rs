//! `chat-shell-runtime --acp` against the scripted ACP agent (`examples/acp-agent`): the
//! real binaries, over HTTP/1.1 on a TcpStream, streams read as they come.
//!
//! The agent binary is `target/<profile>/chat-shell-acp-agent`, next to the runtime's
//! (`cargo test --workspace` builds it; alone: `cargo build -p chat-shell-acp-agent`), or
//! `CHAT_SHELL_ACP_AGENT_BIN`.

mod common;

use common::{agent_bin, Request, Runtime, Stream};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn temp_dir(name: &str) -> PathBuf {
    common::temp_dir("acp", name)
}

/// The agent command for `--acp`.
fn agent(extra: &str) -> String {
    format!("{} --pace-ms 2 {extra}", agent_bin().display())
}

/// The file's runtimes and requests, as one browser ([`Runtime::post`]).
impl Runtime {
    fn start(args: &[&str]) -> Runtime {
        Runtime::start_env(args, &[])
    }

    fn start_env(args: &[&str], env: &[(&str, &str)]) -> Runtime {
        Runtime::builder()
            .args(&["--dist", "/nonexistent"])
            .args(args)
            .envs(env)
            .start()
    }

    async fn json(&self, request: Value) -> Value {
        self.post(request).await.json().await
    }

    /// A message in a new thread (`None`) or `thread`; returns the open stream.
    async fn say(&self, thread: Option<&str>, text: &str) -> Stream {
        let input = json!({"content": [{"type": "input_text", "text": text}], "attachments": [], "inference_options": {}});
        let request = match thread {
            None => json!({"type": "threads.create", "params": {"input": input}}),
            Some(t) => {
                json!({"type": "threads.add_user_message", "params": {"thread_id": t, "input": input}})
            }
        };
        self.post(request).await
    }

    async fn items(&self, thread: &str) -> Vec<Value> {
        let page = self
            .json(json!({"type": "items.list", "params": {"thread_id": thread, "limit": 1000, "order": "asc"}}))
            .await;
        page["data"].as_array().unwrap().clone()
    }

    async fn thread(&self, thread: &str) -> Value {
        self.json(json!({"type": "threads.get_by_id", "params": {"thread_id": thread}}))
            .await
    }

    /// An uploaded attachment (`attachments.create`, then `PUT /upload/{id}`): its JSON.
    async fn attach(&self, name: &str, mime: &str, bytes: &[u8]) -> Value {
        let created = self
            .json(json!({"type": "attachments.create", "params": {"name": name, "size": bytes.len(), "mime_type": mime}}))
            .await;
        let id = created["id"].as_str().unwrap();
        let mut put = self
            .browse(
                Request::new("PUT", &format!("/upload/{id}"))
                    .content_type(Some(mime))
                    .body(bytes),
            )
            .await;
        assert_eq!(put.status(), 200);
        put.read_to_end().await;
        created
    }

    /// The thread's Diff view as its channel replays it (`None` when it has none).
    async fn diff_view(&self, thread: &str) -> Option<Value> {
        let mut s = self
            .post(json!({"type": "threads.subscribe", "params": {"thread_id": thread, "after": null}}))
            .await;
        let events = s
            .until("thread.channel.ready", |e| {
                e["type"] == "thread.channel.ready"
            })
            .await;
        events
            .into_iter()
            .filter(|e| e["type"] == "thread.view.updated" && e["view_type"] == "diff")
            .map(|e| e["content"].clone())
            .next_back()
    }

    async fn answer(
        &self,
        thread: &str,
        item: &str,
        tool_call: &str,
        outcome: Value,
    ) -> Vec<Value> {
        let mut s = self
            .post(json!({"type": "threads.custom_action", "params": {
                "thread_id": thread, "item_id": item,
                "action": {"type": "acp.permission_response", "payload": {"toolCallId": tool_call, "outcome": outcome}}
            }}))
            .await;
        s.rest().await
    }
}

fn thread_id(events: &[Value]) -> String {
    events
        .iter()
        .find(|e| e["type"] == "thread.created")
        .map(|e| e["thread"]["id"].as_str().unwrap().to_owned())
        .expect("thread.created")
}

/// Asks the scripted agent for a permission; the stream, stopped at the request.
async fn asked_permission(rt: &Runtime) -> (Stream, Value) {
    let mut s = rt.say(None, "permission please").await;
    let seen = s.until("a permission request", permission_requested).await;
    let mut request = seen.last().unwrap().clone();
    // The request's thread, for the caller.
    request["thread_id"] = json!(thread_id(&seen));
    (s, request)
}

/// A permission request's thread, item and tool call ids.
fn permission_ids(request: &Value) -> (String, String, String) {
    let text = |v: &Value| v.as_str().unwrap().to_owned();
    (
        text(&request["thread_id"]),
        text(&request["item_id"]),
        text(&request["update"]["request"]["toolCall"]["toolCallId"]),
    )
}

fn is_error(code: &str) -> impl Fn(&Value) -> bool + '_ {
    move |e: &Value| e["type"] == "error" && e["code"] == code
}

fn permission_requested(e: &Value) -> bool {
    e["type"] == "thread.item.updated"
        && e["update"]["type"] == "acp_tool_call.permission_requested"
}

/// The text of every assistant message.
fn said(items: &[Value]) -> String {
    items
        .iter()
        .filter(|i| i["type"] == "assistant_message")
        .map(|i| i["content"][0]["text"].as_str().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("|")
}

fn tool_calls(items: &[Value]) -> Vec<&Value> {
    items
        .iter()
        .filter(|i| i["type"] == "acp_tool_call")
        .collect()
}

fn by_title<'a>(items: &'a [Value], title: &str) -> &'a Value {
    items
        .iter()
        .find(|i| i["type"] == "acp_tool_call" && i["tool_call"]["title"] == title)
        .unwrap_or_else(|| panic!("no tool call {title:?}"))
}

// --- the scenarios ------------------------------------------------------------------------

/// A runtime on the scripted agent with a fresh workspace and terminals.
fn in_workspace(name: &str) -> Runtime {
    let ws = temp_dir(name);
    Runtime::start(&[
        "--memory",
        "--acp",
        &agent(""),
        "--workspace",
        ws.to_str().unwrap(),
        "--allow-terminal",
    ])
}

#[tokio::test]
async fn tools_thoughts_and_plan_stream_and_are_saved() {
    let rt = in_workspace("tools");
    let events = rt.say(None, "show me the tools").await.rest().await;
    let thread = thread_id(&events);
    assert!(!events.iter().any(|e| e["type"] == "error"), "{events:#?}");
    let items = rt.items(&thread).await;
    let calls = tool_calls(&items);
    let kinds: Vec<&str> = calls
        .iter()
        .map(|c| c["tool_call"]["kind"].as_str().unwrap())
        .collect();
    for kind in [
        "read",
        "search",
        "edit",
        "delete",
        "move",
        "think",
        "fetch",
        "switch_mode",
        "other",
        "execute",
    ] {
        assert!(kinds.contains(&kind), "{kind} missing from {kinds:?}");
    }
    // Saved as they ended, with the agent's statuses and content.
    let failed: Vec<&str> = calls
        .iter()
        .filter(|c| c["tool_call"]["status"] == "failed")
        .map(|c| c["tool_call"]["title"].as_str().unwrap())
        .collect();
    assert_eq!(failed, ["Run the linter"]);
    let new_file = by_title(&items, "Create src/greeting.rs");
    assert_eq!(new_file["tool_call"]["content"][0]["oldText"], Value::Null);
    assert_eq!(new_file["tool_call"]["content"][0]["type"], "diff");
    let deleted = by_title(&items, "Delete old-notes.txt");
    assert_eq!(deleted["tool_call"]["content"][0]["newText"], "");
    // The terminal ran through the runtime, in the workspace.
    let term = by_title(&items, "Run `echo tools done; exit 0`");
    assert_eq!(term["tool_call"]["status"], "completed");
    assert_eq!(term["tool_call"]["content"][0]["type"], "terminal");
    assert_eq!(term["tool_call"]["rawOutput"]["output"], "tools done\n");
    assert!(said(&items).contains("All tool kinds ran"));
    // The thread got a title and remembers its session.
    let shown = rt.thread(&thread).await;
    assert_eq!(shown["title"], "show me the tools");
    assert!(shown["metadata"]["acp_session_id"].is_string());

    let events = rt.say(Some(&thread), "make a plan").await.rest().await;
    assert!(events
        .iter()
        .any(|e| e["update"]["type"] == "acp_plan.update"));
    assert!(events
        .iter()
        .any(|e| e["update"]["type"] == "acp_thought.chunk"));
    let items = rt.items(&thread).await;
    let plan = items.iter().find(|i| i["type"] == "acp_plan").unwrap();
    let statuses: Vec<&str> = plan["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["completed", "completed", "completed"]);
    let thought = items.iter().find(|i| i["type"] == "acp_thought").unwrap();
    assert!(thought["text"].as_str().unwrap().contains("First a plan"));
    // One agent process served both turns.
    assert_eq!(
        rt.output().matches("ACP agent").count(),
        1,
        "{}",
        rt.output()
    );
}

#[tokio::test]
async fn a_permission_answered_after_a_long_wait_and_always_is_remembered() {
    let rt = Runtime::start(&["--memory", "--acp", &agent("")]);
    let (mut s, request) = asked_permission(&rt).await;
    let (thread, item, tool_call) = permission_ids(&request);
    let kinds: Vec<&str> = request["update"]["request"]["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["allow_once", "allow_always", "reject_once", "reject_always"]
    );
    // The card is saved while it asks.
    let saved = rt.items(&thread).await;
    let asking = saved.iter().find(|i| i["id"] == item).unwrap();
    assert!(asking["permission"]["options"].is_array());
    assert!(asking["permission"].get("outcome").is_none());

    // A long wait: the stream stays open with keepalives.
    let nothing = s.next_event(Duration::from_secs(12)).await;
    assert!(nothing.is_none(), "{nothing:?}");
    assert!(s.keepalives >= 1);

    // A wrong option is refused; the right one is confirmed on the answer's stream.
    let refused = rt
        .answer(
            &thread,
            &item,
            &tool_call,
            json!({"outcome": "selected", "optionId": "nope"}),
        )
        .await;
    assert!(refused.iter().any(is_error("stream.error")), "{refused:#?}");
    assert!(!refused.iter().any(|e| e["type"] == "thread.item.updated"));
    let confirmed = rt
        .answer(
            &thread,
            &item,
            &tool_call,
            json!({"outcome": "selected", "optionId": "allow-always"}),
        )
        .await;
    assert_eq!(confirmed.len(), 1, "{confirmed:#?}");
    assert_eq!(
        confirmed[0]["update"]["type"],
        "acp_tool_call.permission_resolved"
    );
    assert_eq!(
        confirmed[0]["update"]["outcome"]["optionId"],
        "allow-always"
    );
    let rest = s.rest().await;
    assert!(!rest.iter().any(|e| e["type"] == "error"), "{rest:#?}");
    let items = rt.items(&thread).await;
    let call = items.iter().find(|i| i["id"] == item).unwrap();
    assert_eq!(call["tool_call"]["status"], "completed");
    assert_eq!(call["permission"]["outcome"]["optionId"], "allow-always");

    // "Always" is remembered for the session: no second question.
    let events = rt.say(Some(&thread), "permission again").await.rest().await;
    assert!(!events.iter().any(permission_requested), "{events:#?}");
    let items = rt.items(&thread).await;
    assert!(said(&items).contains("not asking again"));
}

#[tokio::test]
async fn a_cancel_during_a_permission_request_answers_it_cancelled() {
    let rt = Runtime::start(&["--memory", "--acp", &agent("")]);
    // The client leaves (a reload, or Stop from a client that only aborts its request)
    // while the agent asks: the turn waits on.
    let mut s = rt.say(None, "permission").await;
    let seen = s.until("a permission request", permission_requested).await;
    let thread = thread_id(&seen);
    let item = seen.last().unwrap()["item_id"].as_str().unwrap().to_owned();
    let tool_call = seen.last().unwrap()["update"]["request"]["toolCall"]["toolCallId"]
        .as_str()
        .unwrap()
        .to_owned();
    drop(s);
    // The cancelled answer the client sends on Stop arrives after: the turn takes it.
    let late = rt
        .answer(&thread, &item, &tool_call, json!({"outcome": "cancelled"}))
        .await;
    assert!(!late.iter().any(|e| e["type"] == "error"), "{late:#?}");
    // The next message waits for the cancelled turn, then runs normally.
    let events = rt.say(Some(&thread), "hello").await.rest().await;
    assert!(!events.iter().any(|e| e["type"] == "error"), "{events:#?}");
    let items = rt.items(&thread).await;
    let call = items.iter().find(|i| i["id"] == item).unwrap();
    assert_eq!(call["permission"]["outcome"]["outcome"], "cancelled");
    assert_eq!(call["tool_call"]["status"], "failed");
    assert!(said(&items).contains("You said: “hello”"));

    // The other order: the cancelled answer first, while the stream is still open.
    let mut s = rt.say(Some(&thread), "permission").await;
    let seen = s.until("a permission request", permission_requested).await;
    let item = seen.last().unwrap()["item_id"].as_str().unwrap().to_owned();
    let tool_call = seen.last().unwrap()["update"]["request"]["toolCall"]["toolCallId"]
        .as_str()
        .unwrap()
        .to_owned();
    let answered = rt
        .answer(&thread, &item, &tool_call, json!({"outcome": "cancelled"}))
        .await;
    assert_eq!(answered[0]["update"]["outcome"]["outcome"], "cancelled");
    drop(s);
    let events = rt.say(Some(&thread), "hello again").await.rest().await;
    assert!(!events.iter().any(|e| e["type"] == "error"), "{events:#?}");
    let items = rt.items(&thread).await;
    let call = items.iter().find(|i| i["id"] == item).unwrap();
    assert_eq!(call["permission"]["outcome"]["outcome"], "cancelled");
    assert!(rt.output().contains("session/cancel"), "{}", rt.output());
}

#[tokio::test]
async fn the_agent_exiting_mid_turn_is_an_error_and_the_next_message_restarts_it() {
    let rt = Runtime::start(&["--memory", "--acp", &agent("")]);
    let events = rt.say(None, "crash now").await.rest().await;
    let thread = thread_id(&events);
    let error = events
        .iter()
        .find(|e| e["type"] == "error")
        .unwrap_or_else(|| panic!("{events:#?}"));
    assert_eq!(error["code"], "acp.agent_exited");
    let message = error["message"].as_str().unwrap();
    assert!(message.contains("exit status: 3"), "{message}");
    assert!(message.contains("start it again"), "{message}");
    assert_eq!(error["allow_retry"], true);
    // What it said before dying is kept.
    let items = rt.items(&thread).await;
    assert!(said(&items).contains("exits on purpose"));
    // And how the turn ended, for a reload.
    let end = items.last().unwrap();
    assert_eq!(
        (&end["type"], &end["stop_reason"]),
        (&json!("end_of_turn"), &json!("error"))
    );
    assert!(
        end["message"].as_str().unwrap().contains("exit status: 3"),
        "{end}"
    );

    // The thread stays usable: a new agent process, a new session (this agent keeps no
    // state across processes, so it says it cannot load the old one).
    let events = rt.say(Some(&thread), "hello").await.rest().await;
    assert!(
        events
            .iter()
            .any(|e| e["type"] == "notice"
                && e["message"].as_str().unwrap().contains("could not load")),
        "{events:#?}"
    );
    assert!(!events.iter().any(|e| e["type"] == "error"), "{events:#?}");
    assert!(said(&rt.items(&thread).await).contains("You said: “hello”"));
    assert_eq!(
        rt.output().matches("ACP agent").count(),
        2,
        "{}",
        rt.output()
    );

    // A JSON-RPC error for the prompt is shown too, and the agent lives on.
    let events = rt.say(Some(&thread), "broken").await.rest().await;
    assert!(events.iter().any(is_error("acp.error")), "{events:#?}");
    let events = rt.say(Some(&thread), "fine").await.rest().await;
    assert!(!events.iter().any(|e| e["type"] == "error"), "{events:#?}");

    // An agent that cannot start at all says so.
    let bad = Runtime::start(&["--memory", "--acp", "/nonexistent/agent --flag"]);
    let events = bad.say(None, "hello").await.rest().await;
    let error = events.iter().find(|e| e["type"] == "error").unwrap();
    assert_eq!(error["code"], "acp.agent_unavailable");
    assert!(error["message"]
        .as_str()
        .unwrap()
        .contains("/nonexistent/agent"));
}

#[tokio::test]
async fn stop_reasons_say_so_and_are_kept_with_the_thread() {
    let rt = Runtime::start(&["--memory", "--acp", &agent("")]);
    for (text, reason) in [
        ("max tokens", "max_tokens"),
        ("max turn", "max_turn_requests"),
        ("refuse this", "refusal"),
    ] {
        let events = rt.say(None, text).await.rest().await;
        // Not an error: the turn ended, and its end-of-turn item says how.
        assert!(!events.iter().any(|e| e["type"] == "error"), "{events:#?}");
        let end = events
            .iter()
            .find(|e| e["type"] == "thread.item.done" && e["item"]["type"] == "end_of_turn")
            .unwrap_or_else(|| panic!("no end_of_turn in {events:#?}"));
        assert_eq!(end["item"]["stop_reason"], reason);
        let items = rt.items(&thread_id(&events)).await;
        let stored = items.last().unwrap();
        assert_eq!(stored["type"], "end_of_turn");
        assert_eq!(stored["stop_reason"], reason);
    }
    // A normal end stores no reason.
    let events = rt.say(None, "hello").await.rest().await;
    let items = rt.items(&thread_id(&events)).await;
    assert!(
        items.iter().all(|i| i["type"] != "end_of_turn"),
        "{items:#?}"
    );
}

#[tokio::test]
async fn stop_cancels_a_long_run_and_keeps_what_was_said() {
    let rt = Runtime::start(&["--memory", "--acp", &agent("")]);
    let mut s = rt.say(None, "a long run please").await;
    let seen = s
        .until("a step", |e| {
            e["update"]["delta"]
                .as_str()
                .is_some_and(|d| d.starts_with("3…"))
        })
        .await;
    let thread = thread_id(&seen);
    // Leaving (a reload) does not stop it: the turn goes on, saved as it goes, and a
    // channel picks it up.
    drop(s);
    rt.wait_for_line(&format!(
        "ACP: the client left thread {thread} (the turn goes on)"
    ))
    .unwrap_or_else(|| panic!("no leave line in:\n{}", rt.output()));
    let mut channel = rt
        .post(json!({"type": "threads.subscribe", "params": {"thread_id": thread, "after": null}}))
        .await;
    let opened = channel
        .until("the snapshot's message", |e| {
            e["type"] == "thread.run.event" && e["event"]["item"]["type"] == "assistant_message"
        })
        .await;
    assert!(opened.iter().any(|e| e["type"] == "thread.channel.ready"));
    channel
        .until("step 5", |e| {
            e["event"]["update"]["delta"]
                .as_str()
                .is_some_and(|d| d.starts_with("5…"))
        })
        .await;
    // Stop: `threads.cancel_run`.
    let started = Instant::now();
    let stopped = rt
        .json(json!({"type": "threads.cancel_run", "params": {"thread_id": thread}}))
        .await;
    assert_eq!(stopped, json!({"cancelled": true}));
    let ended = channel
        .until("the end", |e| e["type"] == "thread.run.ended")
        .await;
    assert_eq!(ended.last().unwrap()["outcome"], "cancelled");
    let events = rt.say(Some(&thread), "hello").await.rest().await;
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "{:?}",
        started.elapsed()
    );
    assert!(!events.iter().any(|e| e["type"] == "error"), "{events:#?}");
    let items = rt.items(&thread).await;
    assert!(said(&items).contains("step 5"), "{}", said(&items));
    // The call in flight when Stop came was ended by the agent, and saved so.
    assert!(tool_calls(&items)
        .iter()
        .all(|c| c["tool_call"]["status"] != "in_progress"));
}

#[tokio::test]
async fn the_workspace_confines_files_and_terminals() {
    let base = temp_dir("confine");
    let ws = base.join("ws");
    let outside = base.join("outside");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), "secret").unwrap();
    std::fs::write(base.join("outside-the-workspace.txt"), "outside").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(&outside, ws.join("escape-link")).unwrap();
    let rt = Runtime::start(&[
        "--memory",
        "--acp",
        &agent(""),
        "--workspace",
        ws.to_str().unwrap(),
        "--allow-terminal",
    ]);
    let events = rt.say(None, "files").await.rest().await;
    let thread = thread_id(&events);
    let items = rt.items(&thread).await;
    let status = |title: &str| by_title(&items, title)["tool_call"]["status"].clone();
    assert_eq!(status("Write chat-shell-notes.txt"), "completed");
    assert_eq!(status("Read chat-shell-notes.txt"), "completed");
    for refused in [
        "Read ../outside-the-workspace.txt",
        "Read escape-link/secret.txt",
        "Write /tmp/chat-shell-escape.txt",
    ] {
        let call = by_title(&items, refused);
        assert_eq!(call["tool_call"]["status"], "failed", "{refused}");
        let text = call["tool_call"]["content"][0]["content"]["text"]
            .as_str()
            .unwrap();
        assert!(text.contains("outside the workspace"), "{refused}: {text}");
    }
    assert!(std::fs::read_to_string(ws.join("chat-shell-notes.txt"))
        .unwrap()
        .contains("fs/write_text_file"));
    assert!(!Path::new("/tmp/chat-shell-escape.txt").exists());
    // The write is in the thread's Diff view: a new file with its line; the refused
    // write is not.
    let patch = rt.diff_view(&thread).await.expect("a Diff view");
    let patch = patch["patch"].as_str().unwrap();
    assert!(
        patch.contains("diff --git a/chat-shell-notes.txt b/chat-shell-notes.txt\nnew file mode"),
        "{patch}"
    );
    assert!(
        patch.contains("+Notes written by the scripted agent through fs/write_text_file."),
        "{patch}"
    );
    assert!(!patch.contains("escape"), "{patch}");

    // A terminal runs in the workspace; Stop kills a command that would run a minute.
    let events = rt.say(Some(&thread), "terminal").await.rest().await;
    assert!(!events.iter().any(|e| e["type"] == "error"));
    let items = rt.items(&thread).await;
    let call = by_title(&items, "Run `echo hello from the workspace; pwd; exit 3`");
    assert_eq!(call["tool_call"]["status"], "failed");
    assert_eq!(call["tool_call"]["rawOutput"]["exitStatus"]["exitCode"], 3);
    let output = call["tool_call"]["rawOutput"]["output"].as_str().unwrap();
    assert!(output.contains(ws.to_str().unwrap()), "{output}");

    let mut s = rt.say(Some(&thread), "slow terminal").await;
    s.until("the terminal", |e| {
        e["update"]["update"]["content"][0]["type"] == "terminal"
    })
    .await;
    // Its output streams into the call while it runs (the command then sleeps a minute).
    let live = s
        .until("the live output", |e| {
            e["update"]["update"]["rawOutput"]["output"]
                .as_str()
                .is_some_and(|o| o.contains("sleeping"))
        })
        .await;
    let raw = &live.last().unwrap()["update"]["update"]["rawOutput"];
    assert!(raw.get("exitStatus").is_none(), "still running: {raw}");
    // Stop once the process is asleep.
    wait_for_sleep_in(&ws).await;
    let stopped = rt
        .json(json!({"type": "threads.cancel_run", "params": {"thread_id": thread}}))
        .await;
    assert_eq!(stopped, json!({"cancelled": true}));
    drop(s);
    let started = Instant::now();
    let events = rt.say(Some(&thread), "hello").await.rest().await;
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "{:?}",
        started.elapsed()
    );
    assert!(!events.iter().any(|e| e["type"] == "error"), "{events:#?}");
    let items = rt.items(&thread).await;
    let call = by_title(&items, "Run `echo sleeping; sleep 60; echo woke up`");
    assert_eq!(call["tool_call"]["status"], "failed");
    assert_eq!(
        call["tool_call"]["rawOutput"]["output"]
            .as_str()
            .unwrap()
            .trim(),
        "sleeping"
    );
    let _ = std::fs::remove_dir_all(&base);
}

#[tokio::test]
async fn attachments_reach_the_agent_as_acp_content() {
    let rt = Runtime::start(&["--memory", "--acp", &agent("")]);
    // The smallest PNG: a 1x1 image.
    let png: &[u8] = &[
        0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52, 0,
        0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 0x1f, 0x15, 0xc4, 0x89, 0, 0, 0, 0x0a, 0x49, 0x44,
        0x41, 0x54, 0x78, 0x9c, 0x63, 0, 1, 0, 0, 5, 0, 1, 0x0d, 0x0a, 0x2d, 0xb4, 0, 0, 0, 0,
        0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
    ];
    let image = rt.attach("dot.png", "image/png", png).await;
    let notes = rt
        .attach("notes.txt", "text/plain", b"hello agent\nsecond line\n")
        .await;
    // A PDF is not text: it goes as a blob.
    let pdf: &[u8] = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n";
    let blob = rt.attach("doc.pdf", "application/pdf", pdf).await;
    let input = json!({
        "content": [{"type": "input_text", "text": "what did I send?"}],
        "attachments": [image["id"], notes["id"], blob["id"]],
        "inference_options": {},
    });
    let events = rt
        .post(json!({"type": "threads.create", "params": {"input": input}}))
        .await
        .rest()
        .await;
    assert!(!events.iter().any(|e| e["type"] == "error"), "{events:#?}");
    let said = said(&rt.items(&thread_id(&events)).await);
    assert!(
        said.contains(&format!("an image (image/png, {} bytes)", png.len())),
        "{said}"
    );
    assert!(
        said.contains("an embedded text (text/plain, 24 characters, starting “hello agent”)"),
        "{said}"
    );
    assert!(
        said.contains(&format!(
            "an embedded blob (application/pdf, {} bytes)",
            pdf.len()
        )),
        "{said}"
    );
}

#[tokio::test]
async fn capabilities_are_announced_only_when_enabled() {
    let rt = Runtime::start(&["--memory", "--acp", &agent("")]);
    let events = rt.say(None, "files").await.rest().await;
    let thread = thread_id(&events);
    let items = rt.items(&thread).await;
    let call = by_title(&items, "Write chat-shell-notes.txt");
    assert_eq!(call["tool_call"]["status"], "failed");
    let events = rt.say(Some(&thread), "terminal").await.rest().await;
    assert!(!events.iter().any(|e| e["type"] == "error"));
    assert!(said(&rt.items(&thread).await).contains("did not announce terminals"));
}

#[tokio::test]
async fn a_thread_loads_its_session_after_a_restart() {
    let base = temp_dir("load");
    let db = base.join("history.db");
    let state = base.join("agent-state");
    let command = agent(&format!("--state-dir {}", state.display()));
    let args = ["--db", db.to_str().unwrap(), "--acp", command.as_str()];
    let (thread, cookie) = {
        let rt = Runtime::start(&args);
        let events = rt.say(None, "my first words").await.rest().await;
        let cookie = rt.cookie();
        (thread_id(&events), cookie)
    };
    let rt = Runtime::start(&args);
    rt.set_cookie(cookie);
    let events = rt.say(Some(&thread), "recall").await.rest().await;
    assert!(!events.iter().any(|e| e["type"] == "notice"), "{events:#?}");
    let items = rt.items(&thread).await;
    assert!(
        said(&items).contains("2 user messages. The first was: “my first words”"),
        "{}",
        said(&items)
    );
    assert!(rt.output().contains("loaded session"), "{}", rt.output());
    // The replayed history did not come back as new items.
    assert_eq!(
        items.iter().filter(|i| i["type"] == "user_message").count(),
        2
    );
    let _ = std::fs::remove_dir_all(&base);
}

#[tokio::test]
async fn a_permission_left_asking_by_a_crash_is_settled_after_a_restart() {
    let base = temp_dir("crash");
    let db = base.join("history.db");
    let command = agent("");
    let args = ["--db", db.to_str().unwrap(), "--acp", command.as_str()];
    let (thread, cookie) = {
        let rt = Runtime::start(&args);
        let mut s = rt.say(None, "permission please").await;
        let events = s
            .until("the permission request", permission_requested)
            .await;
        let cookie = rt.cookie();
        (thread_id(&events), cookie)
        // The runtime is killed here, with the card asking.
    };
    let rt = Runtime::start(&args);
    rt.set_cookie(cookie);
    let items = rt.items(&thread).await;
    let asked = tool_calls(&items)
        .into_iter()
        .find(|c| c.get("permission").is_some())
        .expect("the tool call that asked");
    // Nobody waits for that answer any more: the card says so instead of asking.
    assert_eq!(
        asked["permission"]["outcome"]["outcome"], "cancelled",
        "{asked}"
    );
    assert!(
        rt.output().contains("settled as cancelled"),
        "{}",
        rt.output()
    );
    let _ = std::fs::remove_dir_all(&base);
}

/// The ACP traffic of the plan scenario, recorded with `CHAT_SHELL_ACP_RECORD` (see
/// `fixtures/acp-plan.jsonl`), replayed by `chat-shell-acp-agent --replay`: the bridge
/// turns the recorded bytes into the same items, with no script running.
#[tokio::test]
async fn recorded_acp_traffic_replays_natively() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/acp-plan.jsonl");
    let command = format!("{} --replay {}", agent_bin().display(), fixture.display());
    let rt = Runtime::start(&["--memory", "--acp", &command]);
    let events = rt.say(None, "make a plan").await.rest().await;
    assert!(!events.iter().any(|e| e["type"] == "error"), "{events:#?}");
    let thread = thread_id(&events);
    let items = rt.items(&thread).await;
    let kinds: Vec<&str> = items.iter().map(|i| i["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        [
            "user_message",
            "acp_thought",
            "acp_plan",
            "acp_thought",
            "assistant_message"
        ]
    );
    let plan = &items[2]["entries"];
    assert_eq!(plan[2]["content"], "Run the tests");
    assert!(plan
        .as_array()
        .unwrap()
        .iter()
        .all(|e| e["status"] == "completed"));
    assert_eq!(items[1]["text"], "First a plan: read, change, test. ");
    assert_eq!(said(&items), "The plan is done: all three steps completed.");
    // The plan was updated in place, four times, on the stream.
    let updates = events
        .iter()
        .filter(|e| e["update"]["type"] == "acp_plan.update")
        .count();
    assert_eq!(updates, 4);
}

/// Waits until a `sleep` process runs with `dir` as its working directory: by then the
/// command before it in the same shell line has run.
async fn wait_for_sleep_in(dir: &Path) {
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let sleeping = std::fs::read_dir("/proc")
            .into_iter()
            .flatten()
            .flatten()
            .any(|p| {
                let cmdline = std::fs::read(p.path().join("cmdline")).unwrap_or_default();
                let cwd = std::fs::read_link(p.path().join("cwd")).ok();
                cmdline.starts_with(b"sleep\0") && cwd.as_deref() == Some(dir.as_path())
            });
        if sleeping {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the slow command never started sleeping"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

// --- containment: what agents and their commands see, and how they end --------------------

#[cfg(target_os = "linux")]
mod containment {
    use super::*;

    /// A token-shaped value for the runtime's secrets.
    const SECRET_TOKEN: &str = "secret-bearer-token-0123456789";
    const SECRET_CALLBACK: &str = "secret-callback-token-0123456789";

    /// The workspace and a runtime on the scripted agent with terminals there; `marker` is on
    /// the agent's command line (to find its process).
    fn contained(
        name: &str,
        marker: &str,
        env: &[(&str, &str)],
        extra: &[&str],
    ) -> (Runtime, PathBuf) {
        let ws = temp_dir(name);
        let agent = agent(&format!("--state-dir {}", ws.join(marker).display()));
        let mut args = vec![
            "--memory",
            "--acp",
            &agent,
            "--workspace",
            ws.to_str().unwrap(),
            "--allow-terminal",
        ];
        args.extend_from_slice(extra);
        (Runtime::start_env(&args, env), ws)
    }

    /// Whether `pid` runs (a zombie does not).
    fn alive(pid: u32) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|s| Some(s.rsplit_once(')')?.1.split_whitespace().next()? != "Z"))
            .unwrap_or(false)
    }

    /// Polls for up to 10 s until `pid` no longer runs.
    async fn dies(pid: u32) -> bool {
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if !alive(pid) {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        false
    }

    /// The pid a command wrote to `file`, waiting up to 10 s for it.
    async fn pid_in(file: &Path) -> u32 {
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Some(pid) = std::fs::read_to_string(file)
                .ok()
                .and_then(|s| s.trim().parse().ok())
            {
                return pid;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!("{} never held a pid", file.display());
    }

    /// When the test ends, however it ends: SIGKILLs every process still running in the
    /// workspace (what the commands started, if they outlived what should have ended them).
    struct Reap<'a>(&'a Path);

    impl Drop for Reap<'_> {
        fn drop(&mut self) {
            for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
                let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse().ok()) else {
                    continue;
                };
                let cwd = std::fs::read_link(entry.path().join("cwd")).ok();
                if cwd.is_some_and(|d| d.starts_with(self.0)) {
                    if let Some(pid) = rustix::process::Pid::from_raw(pid) {
                        let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
                    }
                }
            }
        }
    }

    /// The `(name, value)` pairs of a process's environment as it started.
    fn environ_of(pid: u32) -> Vec<String> {
        let raw = std::fs::read(format!("/proc/{pid}/environ")).unwrap();
        raw.split(|b| *b == 0)
            .filter(|v| !v.is_empty())
            .map(|v| String::from_utf8_lossy(v).into_owned())
            .collect()
    }

    /// The scripted agent's process with `marker` among its arguments.
    fn agent_pid(marker: &str) -> u32 {
        let bin = agent_bin().display().to_string();
        std::fs::read_dir("/proc")
            .unwrap()
            .flatten()
            .filter_map(|p| p.file_name().to_str()?.parse::<u32>().ok())
            .find(|pid| {
                let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
                let args: Vec<String> = cmdline
                    .split(|b| *b == 0)
                    .map(|a| String::from_utf8_lossy(a).into_owned())
                    .collect();
                args[0] == bin && args.iter().any(|a| a.contains(marker))
            })
            .expect("the agent's process")
    }

    #[tokio::test]
    async fn neither_the_agent_nor_its_commands_get_the_runtimes_secrets() {
        let marker = format!("agent-env-{}", std::process::id());
        let (rt, ws) = contained(
            "secrets",
            &marker,
            &[
                ("CHAT_SHELL_RUNTIME_TOKENS", SECRET_TOKEN),
                ("CHAT_SHELL_CALLBACK_TOKEN", SECRET_CALLBACK),
                ("CHAT_SHELL_TEST_PASSED", "passed-by-name"),
                ("CHAT_SHELL_TEST_HIDDEN", "hidden-by-default"),
            ],
            &["--pass-env", "CHAT_SHELL_TEST_PASSED"],
        );
        let _reap = Reap(&ws);
        // Only what is asked about: the output kept is bounded.
        let script = "env | grep -e CHAT_SHELL -e ^PATH=";
        let events = rt.say(None, &format!("shell: {script}")).await.rest().await;
        assert!(!events.iter().any(|e| e["type"] == "error"), "{events:#?}");
        let items = rt.items(&thread_id(&events)).await;
        let call = by_title(&items, &format!("Run `{script}`"));
        let output = call["tool_call"]["rawOutput"]["output"].as_str().unwrap();
        let agent = environ_of(agent_pid(&marker)).join("\n");
        for (who, env) in [("the terminal", output), ("the agent", agent.as_str())] {
            assert!(env.contains("PATH="), "{who}: {env}");
            assert!(
                env.contains("CHAT_SHELL_TEST_PASSED=passed-by-name"),
                "{who}: {env}"
            );
            for secret in [
                SECRET_TOKEN,
                SECRET_CALLBACK,
                "CHAT_SHELL_RUNTIME_TOKENS",
                "CHAT_SHELL_CALLBACK_TOKEN",
                "hidden-by-default",
            ] {
                assert!(!env.contains(secret), "{who} sees {secret}: {env}");
            }
        }
        drop(rt);
        let _ = std::fs::remove_dir_all(&ws);
    }

    #[tokio::test]
    async fn a_setsid_child_dies_when_its_terminal_is_stopped() {
        let (rt, ws) = contained("setsid", "state", &[], &[]);
        let _reap = Reap(&ws);
        let mut s = rt
            .say(
                None,
                "shell: setsid sh -c 'echo $$ > setsid.pid; exec sleep 300' & sleep 300",
            )
            .await;
        let seen = s
            .until("the terminal", |e| {
                e["update"]["update"]["content"][0]["type"] == "terminal"
            })
            .await;
        let thread = thread_id(&seen);
        let escaped = pid_in(&ws.join("setsid.pid")).await;
        assert!(alive(escaped));
        // Stop kills the session's terminals; the agent then releases it.
        let stopped = rt
            .json(json!({"type": "threads.cancel_run", "params": {"thread_id": thread}}))
            .await;
        assert_eq!(stopped, json!({"cancelled": true}));
        s.rest().await;
        assert!(dies(escaped).await, "the setsid child outlived Stop");
        drop(rt);
        let _ = std::fs::remove_dir_all(&ws);
    }

    #[tokio::test]
    async fn what_an_ended_command_left_dies_on_release() {
        let (rt, ws) = contained("left", "state", &[], &[]);
        let _reap = Reap(&ws);
        let events = rt
            .say(
                None,
                "shell: sh -c 'echo $$ > left.pid; exec sleep 300' & \
             while [ ! -s left.pid ]; do sleep 0.02; done; echo leader done",
            )
            .await
            .rest()
            .await;
        let left = pid_in(&ws.join("left.pid")).await;
        // The command ended with 0, and the agent released its terminal.
        let items = rt.items(&thread_id(&events)).await;
        assert!(said(&items).contains("exit code 0"), "{}", said(&items));
        assert!(
            dies(left).await,
            "the child of the ended command outlived release"
        );
        drop(rt);
        let _ = std::fs::remove_dir_all(&ws);
    }

    #[tokio::test]
    async fn terminals_die_with_the_runtime_however_it_ends() {
        let (rt, ws) = contained("shutdown", "state", &[], &[]);
        let _reap = Reap(&ws);
        let mut s = rt
            .say(
                None,
                "shell: setsid sh -c 'echo $$ > setsid.pid; exec sleep 300' & sleep 300",
            )
            .await;
        s.until("the terminal", |e| {
            e["update"]["update"]["content"][0]["type"] == "terminal"
        })
        .await;
        let escaped = pid_in(&ws.join("setsid.pid")).await;
        drop(s);
        // SIGKILL: the runtime has no chance to clean up.
        drop(rt);
        assert!(dies(escaped).await, "the setsid child outlived the runtime");
        let _ = std::fs::remove_dir_all(&ws);
    }

    #[tokio::test]
    async fn another_sessions_terminal_is_unknown() {
        let (rt, ws) = contained("peek", "state", &[], &[]);
        let _reap = Reap(&ws);
        let mut s = rt.say(None, "shell: echo private output; sleep 300").await;
        let seen = s
            .until("the terminal", |e| {
                e["update"]["update"]["content"][0]["type"] == "terminal"
            })
            .await;
        let thread = thread_id(&seen);
        let id = seen.last().unwrap()["update"]["update"]["content"][0]["terminalId"]
            .as_str()
            .unwrap()
            .to_owned();
        wait_for_sleep_in(&ws).await;
        // Another thread is another ACP session: it is told the terminal does not exist.
        let events = rt.say(None, &format!("peek: {id}")).await.rest().await;
        let answer = said(&rt.items(&thread_id(&events)).await);
        assert!(answer.contains("The terminal was refused"), "{answer}");
        assert!(!answer.contains("private output"), "{answer}");
        let stopped = rt
            .json(json!({"type": "threads.cancel_run", "params": {"thread_id": thread}}))
            .await;
        assert_eq!(stopped, json!({"cancelled": true}));
        s.rest().await;
        drop(rt);
        let _ = std::fs::remove_dir_all(&ws);
    }
}

// --- the Agent UI checklist, ACP through the runtime ---------------------------------------
// Named `check_NN_acp_…` after [Agent UI's flow and taxonomy](https://limecloud.github.io/agentui/en/reference/flow-and-taxonomy)'s numbers
// (scripts/checklist.mjs makes the README's table from these names).

/// The item types of a turn's stream, in the order they were first added.
fn added_order(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .filter(|e| e["type"] == "thread.item.added" || e["type"] == "thread.item.done")
        .filter_map(|e| {
            let item = &e["item"];
            let id = item["id"].as_str()?;
            Some((id.to_owned(), item["type"].as_str()?.to_owned()))
        })
        .fold(Vec::<(String, String)>::new(), |mut seen, (id, kind)| {
            if !seen.iter().any(|(i, _)| *i == id) {
                seen.push((id, kind));
            }
            seen
        })
        .into_iter()
        .map(|(_, kind)| kind)
        .collect()
}

#[tokio::test]
async fn check_01_acp_the_turn_is_open_before_the_agent_speaks() {
    let rt = Runtime::start(&["--memory", "--acp", &agent("")]);
    let events = rt.say(None, "think first").await.rest().await;
    // The thread and the user's message come first: whatever the agent sends has a turn
    // to land in.
    let shown = |e: &Value| e["type"] == "thread.item.added" || e["type"] == "thread.item.done";
    let first_agent = events
        .iter()
        .position(|e| shown(e) && e["item"]["type"] != "user_message")
        .expect("the agent spoke");
    let user = events
        .iter()
        .position(|e| shown(e) && e["item"]["type"] == "user_message")
        .expect("the user's message");
    let created = events
        .iter()
        .position(|e| e["type"] == "thread.created")
        .expect("a thread");
    assert!(created < user && user < first_agent, "{events:#?}");
}

/// The core's reducer fed `events` (what the element does with the stream).
fn reduced(events: &[Value]) -> chat_shell_core::reducer::ChatState {
    use chat_shell_core::reducer::{reduce, ChatState, Input};
    let mut state = ChatState::default();
    let _ = reduce(&mut state, Input::TurnStarted);
    for event in events {
        let event = serde_json::from_value(event.clone()).expect("an event the client decodes");
        let _ = reduce(&mut state, chat_shell_core::adapters::chatkit::input(event));
    }
    state
}

#[tokio::test]
async fn check_02_acp_a_runtime_status_shows_before_the_agent_speaks() {
    let rt = Runtime::start(&["--memory", "--acp", &agent("")]);
    let statuses = |events: &[Value]| -> Vec<String> {
        events
            .iter()
            .filter(|e| e["type"] == "progress_update")
            .map(|e| e["text"].as_str().unwrap().to_owned())
            .collect()
    };
    let spoke = |e: &Value| e["type"] == "thread.item.added" && e["item"]["type"] != "user_message";
    let events = rt.say(None, "think first").await.rest().await;
    // The agent's process starts with the first turn, and says so.
    assert_eq!(statuses(&events), ["Starting the agent"]);
    let status = events
        .iter()
        .position(|e| e["type"] == "progress_update")
        .unwrap();
    assert!(
        status < events.iter().position(spoke).unwrap(),
        "{events:#?}"
    );
    // What the element shows at that point: the status, and no text yet.
    let state = reduced(&events[..=status]);
    assert_eq!(
        state.progress.as_ref().map(|p| p.text.as_str()),
        Some("Starting the agent")
    );
    assert!(state.items().iter().all(|i| !matches!(
        i.entry.kind,
        chat_shell_core::model::EntryKind::AssistantText(_)
    )));
    // A later turn finds it running.
    let thread = thread_id(&events);
    let events = rt.say(Some(&thread), "think again").await.rest().await;
    assert_eq!(statuses(&events), ["Waiting for the agent"]);
}

#[tokio::test]
async fn check_04_acp_running_calls_stay_visible_then_fold_into_a_summary() {
    use chat_shell_core::reducer::{listed, reduce, Input, Listed, ToolCallState};
    let rt = in_workspace("check04");
    let events = rt.say(None, "tools").await.rest().await;
    let running = events
        .iter()
        .position(|e| e["type"] == "thread.item.added" && e["item"]["type"] == "acp_tool_call")
        .expect("a tool call");
    // While the first call runs: it is shown on its own, running.
    let state = reduced(&events[..=running]);
    let first = state.items().iter().find_map(|i| i.tool_call_state());
    assert!(
        matches!(
            first,
            Some(ToolCallState::InProgress | ToolCallState::Pending)
        ),
        "{first:?}"
    );
    assert!(listed(&state).iter().all(|l| matches!(l, Listed::Item(_))));
    // When the turn is over, the finished calls fold into one summary.
    let mut state = reduced(&events);
    let _ = reduce(&mut state, Input::StreamEnded);
    let calls = tool_calls(&rt.items(&thread_id(&events)).await).len();
    assert!(calls >= 2, "the tools run calls several tools");
    assert!(
        listed(&state)
            .iter()
            .any(|l| matches!(l, Listed::Summary(ids) if ids.len() >= 2)),
        "{:?}",
        listed(&state)
    );
}

#[tokio::test]
async fn check_07_acp_a_permission_keeps_its_ids_and_is_decided_by_the_confirmation() {
    let rt = Runtime::start(&["--memory", "--acp", &agent("")]);
    let (mut s, request) = asked_permission(&rt).await;
    let (thread, item, tool_call) = permission_ids(&request);
    // Undecided while it asks, saved so.
    let saved = rt.items(&thread).await;
    let asking = saved.iter().find(|i| i["id"] == item).unwrap();
    assert!(asking["permission"].get("outcome").is_none());
    // The pick goes back by the same ids; the decision is the runtime's confirmation.
    let confirmed = rt
        .answer(
            &thread,
            &item,
            &tool_call,
            json!({"outcome": "selected", "optionId": "allow-once"}),
        )
        .await;
    assert_eq!(confirmed.len(), 1, "{confirmed:#?}");
    assert_eq!(confirmed[0]["item_id"], item);
    assert_eq!(confirmed[0]["update"]["outcome"]["optionId"], "allow-once");
    s.rest().await;
    let items = rt.items(&thread).await;
    let call = items.iter().find(|i| i["id"] == item).unwrap();
    assert_eq!(call["tool_call"]["toolCallId"], tool_call.as_str());
    assert_eq!(call["permission"]["outcome"]["optionId"], "allow-once");
}

#[tokio::test]
async fn check_03_acp_parts_arrive_and_are_saved_in_event_order() {
    let rt = Runtime::start(&["--memory", "--acp", &agent("")]);
    let events = rt.say(None, "think first").await.rest().await;
    let streamed = added_order(&events);
    // The user's message, the thought, then the answer: as the agent sent them.
    assert_eq!(
        streamed,
        ["user_message", "acp_thought", "assistant_message"],
        "{events:#?}"
    );
    let saved: Vec<String> = rt
        .items(&thread_id(&events))
        .await
        .iter()
        .map(|i| i["type"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(saved, streamed);
}

#[tokio::test]
async fn check_05_acp_the_answer_is_saved_once_and_whole() {
    let rt = Runtime::start(&["--memory", "--acp", &agent("")]);
    let events = rt.say(None, "think first").await.rest().await;
    let items = rt.items(&thread_id(&events)).await;
    assert_eq!(said(&items), "Here is the answer, after some thinking.");
    // The streamed deltas add up to the saved text: nothing appended twice.
    let deltas: String = events
        .iter()
        .filter(|e| e["update"]["type"] == "assistant_message.content_part.text_delta")
        .map(|e| e["update"]["delta"].as_str().unwrap())
        .collect();
    assert_eq!(deltas, said(&items));
}

#[tokio::test]
async fn check_06_acp_tool_output_never_enters_the_answer() {
    let rt = in_workspace("check06");
    let events = rt.say(None, "tools").await.rest().await;
    let items = rt.items(&thread_id(&events)).await;
    let answer = said(&items);
    let term = by_title(&items, "Run `echo tools done; exit 0`");
    assert_eq!(term["tool_call"]["rawOutput"]["output"], "tools done\n");
    assert!(!answer.contains("tools done\n"), "{answer}");
    assert!(!answer.contains("fn greeting"), "{answer}");
}

#[tokio::test]
async fn check_19_acp_the_agents_metrics_stay_out_of_the_conversation() {
    let record = temp_dir("check19").join("acp.jsonl");
    let rt = Runtime::start_env(
        &["--memory", "--acp", &agent("")],
        &[("CHAT_SHELL_ACP_RECORD", record.to_str().unwrap())],
    );
    let events = rt.say(None, "think first").await.rest().await;
    // The agent did report its context use...
    let traffic = std::fs::read_to_string(&record).expect("the recorded traffic");
    assert!(traffic.contains("usage_update"), "{traffic}");
    // ...and none of it reached the stream, the saved thread, or the answer.
    let stream = serde_json::to_string(&events).unwrap();
    assert!(
        !stream.contains("200000") && !stream.contains("5120"),
        "{stream}"
    );
    let items = rt.items(&thread_id(&events)).await;
    let kinds: Vec<&str> = items.iter().map(|i| i["type"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["user_message", "acp_thought", "assistant_message"]);
    assert_eq!(said(&items), "Here is the answer, after some thinking.");
}

#[tokio::test]
async fn check_16_acp_a_compaction_is_a_boundary_not_a_change_to_the_text() {
    let rt = Runtime::start(&["--memory", "--acp", &agent("")]);
    let events = rt.say(None, "compact the context").await.rest().await;
    // The boundary took its place in the order, as the agent reported it, then was done.
    assert_eq!(
        added_order(&events),
        ["user_message", "note", "assistant_message"],
        "{events:#?}"
    );
    let boundary = |item: &Value| item["type"] == "note" && item["note"] == "context";
    let shown: Vec<&str> = events
        .iter()
        .filter(|e| e["type"] == "thread.item.done" && boundary(&e["item"]))
        .map(|e| e["item"]["text"].as_str().unwrap())
        .collect();
    assert_eq!(shown.first().copied(), Some("Compacting the context"));
    let last = "Context compacted: The user reviews the release notes; 3 issues block the release.";
    assert_eq!(shown.last().copied(), Some(last));
    // Saved so: a reload shows the boundary, and the answer is only the answer.
    let items = rt.items(&thread_id(&events)).await;
    let saved = items.iter().find(|i| boundary(i)).expect("the boundary");
    assert_eq!(saved["text"], last);
    let answer = said(&items);
    assert_eq!(
        answer,
        "With the context compacted: three issues still block the release."
    );
    // What the element makes of it: a context note between the messages.
    let state = reduced(&events);
    assert!(state.items().iter().any(|i| matches!(
        &i.entry.kind,
        chat_shell_core::model::EntryKind::Note(
            chat_shell_core::protocol::chatkit::Note::Context { text }
        ) if text == last
    )));
}

#[tokio::test]
async fn check_17_acp_a_call_the_agent_never_finished_is_not_shown_done() {
    let rt = Runtime::start(&["--memory", "--acp", &agent("")]);
    let mut s = rt.say(None, "a long run").await;
    // Stop while the first scan runs.
    let events = s
        .until("a running call", |e| {
            e["update"]["update"]["status"] == "in_progress"
        })
        .await;
    let thread = thread_id(&events);
    let stopped = rt
        .json(json!({"type": "threads.cancel_run", "params": {"thread_id": thread}}))
        .await;
    assert_eq!(stopped, json!({"cancelled": true}));
    s.rest().await;
    let items = rt.items(&thread).await;
    // The runtime claims no completion the agent never reported.
    let calls = tool_calls(&items);
    let last = calls.last().expect("the running call");
    assert_ne!(last["tool_call"]["status"], "completed", "{last}");
    let end = items.last().unwrap();
    assert_eq!(end["stop_reason"], "cancelled", "{end}");
}

/// A file call that cannot finish (a FIFO with no writer) must not hold the agent's other
/// requests: every thread shares its one connection.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_fifo_or_a_device_is_refused_at_once_and_holds_no_other_request() {
    let ws = temp_dir("fifo");
    rustix::fs::mknodat(
        rustix::fs::CWD,
        ws.join("pipe"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    std::os::unix::fs::symlink("/dev/zero", ws.join("zero")).unwrap();
    std::fs::write(ws.join("ok.txt"), "fine\n").unwrap();
    let rt = Runtime::start(&[
        "--memory",
        "--acp",
        &agent(""),
        "--workspace",
        ws.to_str().unwrap(),
    ]);
    let is_call = |title: &'static str| {
        move |e: &Value| {
            e["type"] == "thread.item.added" && e["item"]["tool_call"]["title"] == title
        }
    };
    // One thread writes to the FIFO (the agent asks right after announcing the call)...
    let mut pipe = rt.say(None, "fs write pipe").await;
    let seen = pipe.until("the write's call", is_call("Write pipe")).await;
    let pipe_thread = thread_id(&seen);
    tokio::time::sleep(Duration::from_millis(300)).await;
    // ...while another reads a file: answered all the same.
    let started = Instant::now();
    let events = tokio::time::timeout(Duration::from_secs(15), async {
        rt.say(None, "fs read ok.txt").await.rest().await
    })
    .await
    .expect("a read answered while a FIFO write is pending");
    let items = rt.items(&thread_id(&events)).await;
    let call = by_title(&items, "Read ok.txt");
    assert_eq!(call["tool_call"]["status"], "completed", "{call}");
    assert_eq!(call["tool_call"]["content"][0]["content"]["text"], "fine\n");
    assert!(started.elapsed() < Duration::from_secs(10));
    // The FIFO write itself is refused, as are both calls on /dev/zero behind a symlink.
    tokio::time::timeout(Duration::from_secs(15), pipe.rest())
        .await
        .expect("the FIFO write answered");
    let mut refused = vec![(pipe_thread, "Write pipe")];
    for (prompt, title) in [
        ("fs read pipe", "Read pipe"),
        ("fs read zero", "Read zero"),
        ("fs write zero", "Write zero"),
    ] {
        let events = tokio::time::timeout(Duration::from_secs(15), async {
            rt.say(None, prompt).await.rest().await
        })
        .await
        .unwrap_or_else(|_| panic!("{prompt} answered"));
        refused.push((thread_id(&events), title));
    }
    for (thread, title) in refused {
        let items = rt.items(&thread).await;
        let call = by_title(&items, title);
        assert_eq!(call["tool_call"]["status"], "failed", "{title}: {call}");
        let text = call["tool_call"]["content"][0]["content"]["text"]
            .as_str()
            .unwrap();
        assert!(text.contains("refused"), "{title}: {text}");
    }
    assert!(std::fs::symlink_metadata(ws.join("zero"))
        .unwrap()
        .is_symlink());
    let _ = std::fs::remove_dir_all(&ws);
}
