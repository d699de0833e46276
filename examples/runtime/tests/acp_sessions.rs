//! Agent sessions belong to their users (`chat-shell-runtime --acp` with the scripted agent
//! of `examples/acp-agent`, the real binaries over HTTP/1.1): a deleted thread's session
//! is gone for everyone, a session nobody holds goes to the first user to open it, another
//! user's session answers exactly like one that does not exist, the sessions the agent had
//! before are offered only with `--share-agent-sessions`, and one user's sessions never
//! push another's session state out.

mod common;

use common::{agent_bin, Runtime};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The agent command for `--acp`, keeping its sessions in `sessions` if given.
fn agent(sessions: Option<&Path>) -> String {
    let mut command = format!("{} --pace-ms 1", agent_bin().display());
    if let Some(dir) = sessions {
        command.push_str(&format!(" --sessions {}", dir.display()));
    }
    command
}

fn start(agent: &str, more: &[&str]) -> Runtime {
    let mut args = vec!["--dist", "/nonexistent", "--memory", "--acp", agent];
    args.extend_from_slice(more);
    Runtime::spawn(&args)
}

/// A JSON request as `cookie`: its status and raw body.
async fn call(rt: &Runtime, cookie: &str, request: Value) -> (u16, Vec<u8>) {
    let mut s = rt.open(Some(cookie), &request).await;
    let status = s.status();
    s.read_to_end().await;
    (status, s.body)
}

async fn ok(rt: &Runtime, cookie: &str, request: Value) -> Value {
    let (status, body) = call(rt, cookie, request.clone()).await;
    let body: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(status, 200, "{request} -> {body}");
    body
}

fn open_request(session: &str) -> Value {
    json!({"type": "acp.sessions.open", "params": {"session_id": session}})
}

/// The session ids `cookie` is offered by `acp.sessions.list`, with their threads.
async fn listed(rt: &Runtime, cookie: &str) -> Vec<(String, Option<String>)> {
    let list = ok(
        rt,
        cookie,
        json!({"type": "acp.sessions.list", "params": {"cursor": null}}),
    )
    .await;
    list["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["session_id"].as_str().unwrap().to_owned(),
                s["thread_id"].as_str().map(str::to_owned),
            )
        })
        .collect()
}

/// A new thread of `cookie` after one message: its id and its agent session's.
async fn thread_with_session(rt: &Runtime, cookie: &str, text: &str) -> (String, String) {
    let events = rt
        .open(Some(cookie), &common::create(text))
        .await
        .rest()
        .await;
    let thread = events
        .iter()
        .find(|e| e["type"] == "thread.created")
        .and_then(|e| e["thread"]["id"].as_str())
        .expect("thread.created")
        .to_owned();
    let shown = ok(
        rt,
        cookie,
        json!({"type": "threads.get_by_id", "params": {"thread_id": thread}}),
    )
    .await;
    let session = shown["metadata"]["acp_session_id"]
        .as_str()
        .unwrap_or_else(|| panic!("{shown:#}"))
        .to_owned();
    (thread, session)
}

/// What opening a session that does not exist answers.
async fn not_found(rt: &Runtime, cookie: &str) -> (u16, Vec<u8>) {
    let answer = call(rt, cookie, open_request("sess-0-404")).await;
    assert_eq!(answer.0, 404, "{}", String::from_utf8_lossy(&answer.1));
    answer
}

/// An agent session made by a runtime that is gone (its agent keeps it in `dir`).
async fn session_from_before(dir: &Path) -> String {
    let rt = start(&agent(Some(dir)), &[]);
    let cookie = rt.new_identity().await;
    thread_with_session(&rt, &cookie, "words from before")
        .await
        .1
}

fn temp_dir(name: &str) -> PathBuf {
    common::temp_dir("sessions", name)
}

#[tokio::test]
async fn a_deleted_threads_session_is_neither_listed_nor_opened_by_another_user() {
    let dir = temp_dir("deleted");
    // Even where the sessions nobody holds are shared.
    let rt = start(&agent(Some(&dir)), &["--share-agent-sessions"]);
    let alice = rt.new_identity().await;
    let bob = rt.new_identity().await;
    let (thread, session) = thread_with_session(&rt, &alice, "alice's secret").await;
    ok(
        &rt,
        &alice,
        json!({"type": "threads.delete", "params": {"thread_id": thread}}),
    )
    .await;
    // The agent was told (it offers session/close).
    rt.wait_for_line(&format!("ACP: session {session} closed"))
        .unwrap_or_else(|| panic!("no session/close:\n{}", rt.output()));
    let missing = not_found(&rt, &bob).await;
    for who in [&bob, &alice] {
        let offered = listed(&rt, who).await;
        assert!(!offered.iter().any(|(id, _)| *id == session), "{offered:?}");
        assert_eq!(call(&rt, who, open_request(&session)).await, missing);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn two_identities_racing_to_open_one_session_one_gets_it() {
    let dir = temp_dir("race");
    let session = session_from_before(&dir).await;
    let rt = start(&agent(Some(&dir)), &["--share-agent-sessions"]);
    let mut cookies = Vec::new();
    for _ in 0..4 {
        cookies.push(rt.new_identity().await);
    }
    let missing = not_found(&rt, &cookies[0]).await;
    let answers = futures_util::future::join_all(
        cookies
            .iter()
            .map(|cookie| call(&rt, cookie, open_request(&session))),
    )
    .await;
    let winners: Vec<usize> = (0..answers.len())
        .filter(|&i| answers[i].0 == 200)
        .collect();
    assert_eq!(winners.len(), 1, "{answers:?}");
    let winner = winners[0];
    for (i, answer) in answers.iter().enumerate() {
        if i != winner {
            assert_eq!(*answer, missing);
        }
    }
    let opened: Value = serde_json::from_slice(&answers[winner].1).unwrap();
    // Now the winner's thread; nobody else is offered it.
    for (i, cookie) in cookies.iter().enumerate() {
        let mine = listed(&rt, cookie)
            .await
            .into_iter()
            .find(|(id, _)| *id == session);
        if i == winner {
            assert_eq!(mine.unwrap().1.as_deref(), opened["thread_id"].as_str());
        } else {
            assert_eq!(mine, None);
            assert_eq!(call(&rt, cookie, open_request(&session)).await, missing);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn another_users_session_answers_like_one_that_does_not_exist() {
    for shared in [false, true] {
        let flags: &[&str] = if shared {
            &["--share-agent-sessions"]
        } else {
            &[]
        };
        let rt = start(&agent(None), flags);
        let alice = rt.new_identity().await;
        let bob = rt.new_identity().await;
        let (_, session) = thread_with_session(&rt, &alice, "hello").await;
        // Alice's draft too.
        let draft = ok(
            &rt,
            &alice,
            json!({"type": "acp.session.get", "params": {"thread_id": null}}),
        )
        .await;
        assert!(draft["session"].is_object(), "{draft:#}");
        let missing = not_found(&rt, &bob).await;
        assert_eq!(
            call(&rt, &bob, open_request(&session)).await,
            missing,
            "shared: {shared}"
        );
        let offered = listed(&rt, &bob).await;
        assert!(offered.is_empty(), "{offered:?}");
        // Its owner still opens it.
        let theirs = ok(&rt, &alice, open_request(&session)).await;
        assert!(theirs["thread_id"].is_string(), "{theirs:#}");
    }
}

#[tokio::test]
async fn the_sessions_the_agent_had_before_are_offered_only_when_shared() {
    let dir = temp_dir("before");
    let session = session_from_before(&dir).await;
    {
        let rt = start(&agent(Some(&dir)), &[]);
        let cookie = rt.new_identity().await;
        let offered = listed(&rt, &cookie).await;
        assert!(!offered.iter().any(|(id, _)| *id == session), "{offered:?}");
        let missing = not_found(&rt, &cookie).await;
        assert_eq!(call(&rt, &cookie, open_request(&session)).await, missing);
    }
    let rt = start(&agent(Some(&dir)), &["--share-agent-sessions"]);
    let cookie = rt.new_identity().await;
    let offered = listed(&rt, &cookie).await;
    assert!(offered.contains(&(session.clone(), None)), "{offered:?}");
    let opened = ok(&rt, &cookie, open_request(&session)).await;
    assert!(opened["thread_id"].is_string(), "{opened:#}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The value of control `id` in a session state.
fn control(session: &Value, id: &str) -> Value {
    session["controls"]
        .as_array()
        .unwrap_or_else(|| panic!("no controls: {session:#}"))
        .iter()
        .find(|c| c["id"] == id)
        .map(|c| c["value"].clone())
        .unwrap_or_else(|| panic!("no control {id} in {session:#}"))
}

/// A new thread of `cookie` (its first message says `n`), waiting for a turn of its own
/// when its answers under way are at their limit.
async fn new_thread(rt: &Runtime, cookie: &str, n: usize) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let mut s = rt
            .open(Some(cookie), &common::create(&format!("flood {n}")))
            .await;
        if s.status() == 429 {
            assert!(Instant::now() < deadline, "429 for 30 s: {}", rt.output());
            tokio::time::sleep(Duration::from_millis(20)).await;
            continue;
        }
        let events = s.rest().await;
        assert!(
            events.iter().any(|e| e["type"] == "thread.created"),
            "{events:#?}"
        );
        return;
    }
}

#[tokio::test]
async fn one_users_sessions_never_evict_anothers_session_state() {
    let rt = start(&agent(None), &[]);
    let victim = rt.new_identity().await;
    let flood = rt.new_identity().await;
    // The victim's draft and a thread, each with a control set.
    let (thread, _) = thread_with_session(&rt, &victim, "hello").await;
    for thread in [Value::Null, json!(thread)] {
        let set = ok(
            &rt,
            &victim,
            json!({"type": "acp.session.set", "params": {
                "thread_id": thread, "control_id": "mode", "value": "code"
            }}),
        )
        .await;
        assert_eq!(control(&set["session"], "mode"), "code", "{set:#}");
    }
    // Another user opens more sessions than the runtime used to keep in all.
    const SESSIONS: usize = 300;
    const AT_ONCE: usize = 4;
    for batch in 0..SESSIONS / AT_ONCE {
        let turns = (0..AT_ONCE).map(|i| new_thread(&rt, &flood, batch * AT_ONCE + i));
        futures_util::future::join_all(turns).await;
    }
    for thread in [Value::Null, json!(thread)] {
        let got = ok(
            &rt,
            &victim,
            json!({"type": "acp.session.get", "params": {"thread_id": thread}}),
        )
        .await;
        assert_eq!(control(&got["session"], "mode"), "code", "{got:#}");
    }
}

#[tokio::test]
async fn draft_sessions_are_capped_per_client_address() {
    let rt = start(&agent(None), &["--max-drafts-per-client", "2"]);
    let draft = json!({"type": "acp.session.get", "params": {"thread_id": null}});
    let (attacker, other) = ([127, 0, 0, 2], [127, 0, 0, 3]);
    // Each cookie-less request is a new identity asking for its own draft session.
    let mut statuses = Vec::new();
    let mut kept = None;
    for _ in 0..6 {
        let mut s = rt.open_from(attacker, None, &draft).await;
        statuses.push(s.status());
        if s.status() == 200 {
            kept.get_or_insert(s.cookie().expect("an identity"));
        } else {
            assert!(s.header("retry-after").is_some());
        }
        s.read_to_end().await;
    }
    assert_eq!(statuses, [200, 200, 429, 429, 429, 429]);
    let opened = || {
        rt.lines()
            .iter()
            .filter(|l| l.contains("a draft session") && l.contains("is open"))
            .count()
    };
    assert_eq!(opened(), 2, "the agent was asked for two sessions only");
    // An identity that has its draft gets it again; another address has its own share.
    let mut again = rt.open_from(attacker, kept.as_deref(), &draft).await;
    assert_eq!(again.status(), 200);
    again.read_to_end().await;
    let mut elsewhere = rt.open_from(other, None, &draft).await;
    assert_eq!(elsewhere.status(), 200);
    elsewhere.read_to_end().await;
    // The log is read on a thread of its own: give it a moment.
    let deadline = Instant::now() + Duration::from_secs(5);
    while opened() < 3 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(opened(), 3);
}
