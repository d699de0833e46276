//! The ACP session controls (`acp.session.*`, `acp.sessions.*`, `thread.session.updated`,
//! `acp_elicitation` items) through `chat-shell-runtime --acp` and the scripted agent
//! (`examples/acp-agent`): the real binaries over HTTP/1.1.
//!
//! The agent binary is `target/<profile>/chat-shell-acp-agent` (`cargo build -p
//! chat-shell-acp-agent`), or `CHAT_SHELL_ACP_AGENT_BIN`.

mod common;

use common::{agent_bin, Runtime, Stream};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::time::Duration;

fn temp_dir(name: &str) -> PathBuf {
    common::temp_dir("controls", name)
}

/// The agent command for `--acp`.
fn agent(extra: &str) -> String {
    format!("{} --pace-ms 2 {extra}", agent_bin().display())
}

/// The file's runtimes and requests, as one browser.
impl Runtime {
    fn start(args: &[&str]) -> Runtime {
        let mut all = vec!["--dist", "/nonexistent"];
        all.extend_from_slice(args);
        Runtime::spawn(&all)
    }

    fn acp() -> Runtime {
        Runtime::start(&["--memory", "--acp", &agent("")])
    }

    /// A JSON request: its status and body.
    async fn call(&self, request: Value) -> (u16, Value) {
        let mut s = self.post(request).await;
        let status = s.status();
        (status, s.json().await)
    }

    async fn ok(&self, request: Value) -> Value {
        let (status, body) = self.call(request.clone()).await;
        assert_eq!(status, 200, "{request} -> {body}");
        body
    }

    async fn get(&self, thread: Option<&str>) -> Value {
        self.ok(json!({"type": "acp.session.get", "params": {"thread_id": thread}}))
            .await["session"]
            .clone()
    }

    async fn set(&self, thread: Option<&str>, control: &str, value: Value) -> Value {
        self.ok(json!({"type": "acp.session.set", "params": {
            "thread_id": thread, "control_id": control, "value": value
        }}))
        .await
    }

    async fn say(&self, thread: Option<&str>, text: &str) -> Stream {
        self.post(match thread {
            None => common::create(text),
            Some(t) => common::add_message(t, text),
        })
        .await
    }

    async fn items(&self, thread: &str) -> Vec<Value> {
        let page = self
            .ok(json!({"type": "items.list", "params": {"thread_id": thread, "limit": 1000, "order": "asc"}}))
            .await;
        page["data"].as_array().unwrap().clone()
    }

    async fn elicitation_response(&self, thread: &str, item: &str, payload: Value) -> Vec<Value> {
        self.post(json!({"type": "threads.custom_action", "params": {
            "thread_id": thread, "item_id": item,
            "action": {"type": "acp.elicitation_response", "payload": payload}
        }}))
        .await
        .rest()
        .await
    }
}

fn thread_id(events: &[Value]) -> String {
    events
        .iter()
        .find(|e| e["type"] == "thread.created")
        .map(|e| e["thread"]["id"].as_str().unwrap().to_owned())
        .expect("thread.created")
}

fn control<'a>(session: &'a Value, id: &str) -> &'a Value {
    session["controls"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no control {id} in {session:#}"))
}

fn command_names(session: &Value) -> Vec<String> {
    session["commands"]
        .as_array()
        .map(|c| {
            c.iter()
                .map(|c| c["name"].as_str().unwrap().to_owned())
                .collect()
        })
        .unwrap_or_default()
}

fn said(items: &[Value]) -> String {
    items
        .iter()
        .filter(|i| i["type"] == "assistant_message")
        .map(|i| i["content"][0]["text"].as_str().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("|")
}

// --- without an agent ---------------------------------------------------------------------

#[tokio::test]
async fn without_an_agent_there_is_no_session() {
    let rt = Runtime::start(&["--memory"]);
    assert_eq!(rt.get(None).await, Value::Null);
    let (status, body) = rt
        .call(json!({"type": "acp.session.set", "params": {"thread_id": null, "control_id": "mode", "value": "code"}}))
        .await;
    assert_eq!((status, body["code"].as_str()), (400, Some("no_agent")));
    let (status, _) = rt
        .call(json!({"type": "acp.sessions.list", "params": {"cursor": null}}))
        .await;
    assert_eq!(status, 400);
    // Broken requests are 400 before anything else.
    let (status, _) = rt
        .call(json!({"type": "acp.session.set", "params": {"thread_id": null, "control_id": "mode", "value": 3}}))
        .await;
    assert_eq!(status, 400);
    let (status, _) = rt
        .call(json!({"type": "acp.sessions.open", "params": {"session_id": "x".repeat(300)}}))
        .await;
    assert_eq!(status, 400);
}

// --- modes and options --------------------------------------------------------------------

#[tokio::test]
async fn a_mode_change_is_confirmed_and_a_refused_model_rolls_back() {
    let rt = Runtime::acp();
    let session = rt.get(None).await;
    assert!(session.is_object(), "{session}");
    // One Mode control, first; a Model and a thought level.
    let ids: Vec<&str> = session["controls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids.iter().filter(|id| **id == "mode").count(), 1, "{ids:?}");
    assert_eq!(ids[0], "mode", "{ids:?}");
    assert!(ids.contains(&"model"), "{ids:?}");
    assert_eq!(control(&session, "mode")["value"], "ask");

    let answer = rt.set(None, "mode", json!("code")).await;
    assert_eq!(answer["refused"], Value::Null, "{answer:#}");
    assert_eq!(control(&answer["session"], "mode")["value"], "code");

    let model = control(&session, "model")["value"].clone();
    let answer = rt.set(None, "model", json!("scripted-locked")).await;
    assert!(answer["refused"].is_string(), "{answer:#}");
    assert_eq!(control(&answer["session"], "model")["value"], model);
    // Still so when asked again.
    assert_eq!(control(&rt.get(None).await, "model")["value"], model);

    // Not a choice, not a control, not a string: 400.
    for (id, value) in [
        ("mode", json!("nope")),
        ("nothing", json!("x")),
        ("mode", json!(true)),
    ] {
        let (status, body) = rt
            .call(json!({"type": "acp.session.set", "params": {"thread_id": null, "control_id": id, "value": value}}))
            .await;
        assert_eq!(status, 400, "{id} {value}: {body}");
    }
}

#[tokio::test]
async fn the_draft_session_is_adopted_by_the_first_message() {
    let rt = Runtime::acp();
    rt.get(None).await;
    let answer = rt.set(None, "mode", json!("code")).await;
    assert_eq!(control(&answer["session"], "mode")["value"], "code");
    let events = rt.say(None, "hello there").await.rest().await;
    assert!(!events.iter().any(|e| e["type"] == "error"), "{events:#?}");
    let thread = thread_id(&events);
    assert!(
        rt.output().contains("adopted the draft session"),
        "{}",
        rt.output()
    );
    // The thread's session is the draft, with the mode set before the message.
    let session = rt.get(Some(&thread)).await;
    assert_eq!(control(&session, "mode")["value"], "code");
    // The next draft is a new session.
    let draft = rt.get(None).await;
    assert_eq!(control(&draft, "mode")["value"], "ask");
}

#[tokio::test]
async fn the_channel_carries_the_session_state() {
    let rt = Runtime::acp();
    let events = rt.say(None, "hello").await.rest().await;
    let thread = thread_id(&events);
    let cookie = rt.identity();
    let mut channel = rt.open(Some(&cookie), &common::subscribe(&thread)).await;
    let seen = channel
        .until("thread.session.updated", |e| {
            e["type"] == "thread.session.updated"
        })
        .await;
    let ready = seen
        .iter()
        .position(|e| e["type"] == "thread.channel.ready")
        .expect("ready first");
    assert_eq!(ready, seen.len() - 2, "{seen:#?}");
    let first = seen.last().unwrap()["session"].clone();
    // Usage after the turn; the commands the agent offers.
    assert!(first["usage"]["size"].as_u64().unwrap() > 0, "{first:#}");
    let commands = command_names(&first);
    assert!(commands.contains(&"web".to_owned()), "{commands:?}");

    // A turn that withdraws commands: the channel says so while no one asked.
    rt.say(Some(&thread), "commands-").await.rest().await;
    let mut changed = None;
    for _ in 0..20 {
        match channel.next_event(Duration::from_secs(10)).await {
            Some(e) if e["type"] == "thread.session.updated" => {
                if command_names(&e["session"]) != commands {
                    changed = Some(e["session"].clone());
                    break;
                }
            }
            Some(_) => {}
            None => break,
        }
    }
    let changed = changed.expect("a thread.session.updated with other commands");
    assert_ne!(command_names(&changed), commands);
    // And `get` agrees.
    let now = rt.get(Some(&thread)).await;
    assert_eq!(command_names(&now), command_names(&changed));
}

#[tokio::test]
async fn options_added_mid_session_appear_and_go() {
    let rt = Runtime::acp();
    let events = rt.say(None, "options+").await.rest().await;
    let thread = thread_id(&events);
    let session = rt.get(Some(&thread)).await;
    control(&session, "verbosity");
    rt.say(Some(&thread), "options-").await.rest().await;
    let session = rt.get(Some(&thread)).await;
    assert!(
        !session["controls"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["id"] == "verbosity"),
        "{session:#}"
    );
}

#[tokio::test]
async fn another_user_cannot_touch_a_thread_session() {
    let rt = Runtime::acp();
    let events = rt.say(None, "hello").await.rest().await;
    let thread = thread_id(&events);
    assert!(rt.get(Some(&thread)).await.is_object());
    let other = rt.new_identity().await;
    for request in [
        json!({"type": "acp.session.get", "params": {"thread_id": thread}}),
        json!({"type": "acp.session.set", "params": {"thread_id": thread, "control_id": "mode", "value": "code"}}),
    ] {
        let mut s = rt.open(Some(&other), &request).await;
        assert_eq!(s.status(), 404, "{request}");
        assert_eq!(s.json().await["code"], "not_found");
    }
    // Unchanged for its owner.
    assert_eq!(
        control(&rt.get(Some(&thread)).await, "mode")["value"],
        "ask"
    );
    // An unknown thread is the same answer.
    let (status, _) = rt
        .call(json!({"type": "acp.session.get", "params": {"thread_id": "thr_nope"}}))
        .await;
    assert_eq!(status, 404);
}

// --- elicitation --------------------------------------------------------------------------

/// Starts a turn that elicits; the stream, its thread and the elicitation item.
async fn elicited(rt: &Runtime, prompt: &str) -> (Stream, String, Value) {
    let mut s = rt.say(None, prompt).await;
    let seen = s
        .until("an elicitation", |e| {
            e["type"] == "thread.item.added" && e["item"]["type"] == "acp_elicitation"
        })
        .await;
    let item = seen.last().unwrap()["item"].clone();
    (s, thread_id(&seen), item)
}

fn resolved(events: &[Value]) -> Option<Value> {
    events
        .iter()
        .find(|e| e["update"]["type"] == "acp_elicitation.resolved")
        .map(|e| e["update"]["outcome"].clone())
}

#[tokio::test]
async fn an_elicitation_is_accepted_declined_and_cancelled() {
    let rt = Runtime::acp();
    // Accepted, with content: the agent gets it, the turn goes on to its end.
    let (mut s, thread, item) = elicited(&rt, "elicit").await;
    assert!(item["request"]["message"].is_string(), "{item:#}");
    assert!(item["request"]["requestedSchema"].is_object(), "{item:#}");
    assert!(item.get("outcome").is_none() || item["outcome"].is_null());
    let item_id = item["id"].as_str().unwrap();
    // Content that is not a form's is refused, and the question stays.
    let refused = rt
        .elicitation_response(
            &thread,
            item_id,
            json!({"action": "accept", "content": "x"}),
        )
        .await;
    assert!(refused.iter().any(|e| e["type"] == "error"), "{refused:#?}");
    let properties = item["request"]["requestedSchema"]["properties"]
        .as_object()
        .unwrap();
    let mut content = serde_json::Map::new();
    for (name, schema) in properties {
        let value = match schema["type"].as_str() {
            Some("boolean") => json!(true),
            Some("integer") | Some("number") => json!(1),
            Some("array") => json!([]),
            _ => match schema["enum"].as_array().and_then(|e| e.first()) {
                Some(first) => first.clone(),
                None => json!("postgres"),
            },
        };
        content.insert(name.clone(), value);
    }
    let answer = rt
        .elicitation_response(
            &thread,
            item_id,
            json!({"action": "accept", "content": content}),
        )
        .await;
    let outcome = resolved(&answer).unwrap_or_else(|| panic!("{answer:#?}"));
    assert_eq!(outcome["action"], "accept");
    let rest = s.rest().await;
    assert!(!rest.iter().any(|e| e["type"] == "error"), "{rest:#?}");
    let items = rt.items(&thread).await;
    let stored = items
        .iter()
        .find(|i| i["type"] == "acp_elicitation")
        .unwrap();
    assert_eq!(stored["outcome"]["action"], "accept");
    assert!(!said(&items).is_empty());

    // Declined.
    let (mut s, thread, item) = elicited(&rt, "elicit").await;
    let answer = rt
        .elicitation_response(
            &thread,
            item["id"].as_str().unwrap(),
            json!({"action": "decline"}),
        )
        .await;
    assert_eq!(resolved(&answer).unwrap()["action"], "decline");
    let rest = s.rest().await;
    assert!(!rest.iter().any(|e| e["type"] == "error"), "{rest:#?}");
    let items = rt.items(&thread).await;
    let stored = items.iter().find(|i| i["id"] == item["id"]).unwrap();
    assert_eq!(stored["outcome"]["action"], "decline");

    // Cancelled by Stop: the pending question is answered cancel.
    let (mut s, thread, item) = elicited(&rt, "elicit").await;
    let stopped = rt
        .ok(json!({"type": "threads.cancel_run", "params": {"thread_id": thread}}))
        .await;
    assert_eq!(stopped["cancelled"], true);
    s.rest().await;
    let items = rt.items(&thread).await;
    let stored = items
        .iter()
        .find(|i| i["id"] == item["id"])
        .expect("the elicitation item");
    assert_eq!(stored["outcome"]["action"], "cancel", "{stored:#}");
    // An answer that comes too late: settled, and said.
    let late = rt
        .elicitation_response(
            &thread,
            item["id"].as_str().unwrap(),
            json!({"action": "decline"}),
        )
        .await;
    assert!(
        late.iter()
            .any(|e| e["type"] == "error" && e["code"] == "acp.elicitation_expired"),
        "{late:#?}"
    );
}

#[tokio::test]
async fn an_elicitation_cancelled_by_the_user() {
    let rt = Runtime::acp();
    let (mut s, thread, item) = elicited(&rt, "elicit").await;
    let answer = rt
        .elicitation_response(
            &thread,
            item["id"].as_str().unwrap(),
            json!({"action": "cancel"}),
        )
        .await;
    assert_eq!(resolved(&answer).unwrap()["action"], "cancel");
    let rest = s.rest().await;
    assert!(!rest.iter().any(|e| e["type"] == "error"), "{rest:#?}");
    let items = rt.items(&thread).await;
    let stored = items.iter().find(|i| i["id"] == item["id"]).unwrap();
    assert_eq!(stored["outcome"]["action"], "cancel");
}

// --- the agent's own sessions -------------------------------------------------------------

#[tokio::test]
async fn sessions_are_listed_and_opened_after_a_restart() {
    let base = temp_dir("sessions");
    let db = base.join("history.db");
    let sessions = base.join("agent-sessions");
    let command = agent(&format!("--sessions {}", sessions.display()));
    let args = ["--db", db.to_str().unwrap(), "--acp", command.as_str()];
    let (thread, cookie) = {
        let rt = Runtime::start(&args);
        let events = rt.say(None, "my first words").await.rest().await;
        let cookie = rt.cookie();
        (thread_id(&events), cookie)
    };
    let session_id = {
        // A restarted runtime: its user lists the agent's sessions, its thread named.
        let rt = Runtime::start(&args);
        rt.set_cookie(cookie);
        let draft = rt.get(None).await;
        assert_eq!(draft["lists_sessions"], true, "{draft:#}");
        let list = rt
            .ok(json!({"type": "acp.sessions.list", "params": {"cursor": null}}))
            .await;
        let listed = list["sessions"].as_array().unwrap();
        let mine = listed
            .iter()
            .find(|s| s["thread_id"] == thread.as_str())
            .unwrap_or_else(|| panic!("{list:#}"));
        let session_id = mine["session_id"].as_str().unwrap().to_owned();
        let opened = rt
            .ok(json!({"type": "acp.sessions.open", "params": {"session_id": session_id}}))
            .await;
        assert_eq!(opened["thread_id"], thread.as_str());
        // Another user neither sees nor opens it.
        let other = rt.new_identity().await;
        let mut s = rt
            .open(
                Some(&other),
                &json!({"type": "acp.sessions.list", "params": {"cursor": null}}),
            )
            .await;
        let theirs = s.json().await;
        assert!(
            !theirs["sessions"]
                .as_array()
                .unwrap()
                .iter()
                .any(|s| s["session_id"] == session_id.as_str()),
            "{theirs:#}"
        );
        let s = rt
            .open(
                Some(&other),
                &json!({"type": "acp.sessions.open", "params": {"session_id": session_id}}),
            )
            .await;
        assert_eq!(s.status(), 404);
        session_id
    };

    // A runtime with a new store (the agent keeps its sessions) that shares them: the
    // session is nobody's thread; opening it makes one, with the replayed history as its
    // items.
    let rt = Runtime::start(&[
        "--memory",
        "--acp",
        command.as_str(),
        "--share-agent-sessions",
    ]);
    let list = rt
        .ok(json!({"type": "acp.sessions.list", "params": {"cursor": null}}))
        .await;
    let listed = list["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["session_id"] == session_id.as_str())
        .unwrap_or_else(|| panic!("{list:#}"));
    assert!(listed.get("thread_id").is_none(), "{listed:#}");
    let opened = rt
        .ok(json!({"type": "acp.sessions.open", "params": {"session_id": session_id}}))
        .await;
    let theirs = opened["thread_id"].as_str().unwrap().to_owned();
    let items = rt.items(&theirs).await;
    let user_text: Vec<&str> = items
        .iter()
        .filter(|i| i["type"] == "user_message")
        .map(|i| i["content"][0]["text"].as_str().unwrap())
        .collect();
    assert_eq!(user_text, ["my first words"], "{items:#?}\n{}", rt.output());
    assert!(
        items.iter().any(|i| i["type"] == "assistant_message"),
        "{items:#?}"
    );
    let shown = rt
        .ok(json!({"type": "threads.get_by_id", "params": {"thread_id": theirs}}))
        .await;
    assert!(shown["title"].is_string(), "{shown:#}");
    assert_eq!(shown["metadata"]["acp_session_id"], session_id.as_str());
    // Opened again: the same thread.
    let again = rt
        .ok(json!({"type": "acp.sessions.open", "params": {"session_id": session_id}}))
        .await;
    assert_eq!(again["thread_id"], theirs.as_str());
    // It goes on like any thread.
    let events = rt.say(Some(&theirs), "and more").await.rest().await;
    assert!(!events.iter().any(|e| e["type"] == "error"), "{events:#?}");
    let _ = std::fs::remove_dir_all(&base);
}

#[tokio::test]
async fn a_url_elicitation_is_a_link_to_open() {
    let rt = Runtime::acp();
    let (mut s, thread, item) = elicited(&rt, "elicit-url").await;
    assert_eq!(item["request"]["mode"], "url", "{item:#}");
    assert!(item["request"]["url"].is_string(), "{item:#}");
    assert!(item["request"]["elicitationId"].is_string(), "{item:#}");
    let answer = rt
        .elicitation_response(
            &thread,
            item["id"].as_str().unwrap(),
            json!({"action": "accept"}),
        )
        .await;
    assert_eq!(resolved(&answer).unwrap()["action"], "accept");
    let rest = s.rest().await;
    assert!(!rest.iter().any(|e| e["type"] == "error"), "{rest:#?}");
    // Where the agent says it is done (`elicitation/complete`), the item says so.
    let completed = rest
        .iter()
        .rev()
        .find(|e| e["update"]["type"] == "acp_elicitation.resolved")
        .map(|e| e["update"]["outcome"]["action"].clone())
        .filter(|a| a != "accept");
    let items = rt.items(&thread).await;
    let stored = items.iter().find(|i| i["id"] == item["id"]).unwrap();
    match completed {
        Some(action) => {
            assert_eq!(action, "complete");
            assert_eq!(stored["outcome"]["action"], "complete");
        }
        None => assert_eq!(stored["outcome"]["action"], "accept"),
    }
}
