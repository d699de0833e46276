//! A NUL in a thread, item, attachment or session id, or in a cursor, is a 400 on both
//! stores (PostgreSQL refuses NUL in text: it was a 500 there). The real binary over
//! HTTP/1.1, on SQLite and, when `CHAT_SHELL_TEST_DATABASE_URL` names a server, on
//! PostgreSQL.

mod common;

use common::{add_message, create, Request, Runtime};
use serde_json::{json, Value};

/// Every request naming an id or a cursor, with `id` there.
fn requests(thread: &str, id: &str) -> Vec<Value> {
    let input = json!({"content": [{"type": "input_text", "text": "hi"}],
                       "attachments": [], "inference_options": {}});
    let with_attachment = json!({"content": [{"type": "input_text", "text": "hi"}],
                                 "attachments": [id], "inference_options": {}});
    vec![
        json!({"type": "threads.get_by_id", "params": {"thread_id": id}}),
        json!({"type": "threads.update", "params": {"thread_id": id, "title": "t"}}),
        json!({"type": "threads.delete", "params": {"thread_id": id}}),
        json!({"type": "threads.list", "params": {"limit": 5, "after": id}}),
        json!({"type": "items.list", "params": {"thread_id": id}}),
        json!({"type": "items.list", "params": {"thread_id": thread, "after": id}}),
        json!({"type": "items.list", "params": {"thread_id": thread, "before": id}}),
        json!({"type": "items.feedback", "params": {"thread_id": thread, "item_ids": [id], "kind": "negative"}}),
        json!({"type": "attachments.delete", "params": {"attachment_id": id}}),
        json!({"type": "threads.add_user_message", "params": {"thread_id": id, "input": input}}),
        json!({"type": "threads.add_user_message", "params": {"thread_id": thread, "input": with_attachment}}),
        json!({"type": "threads.create", "params": {"input": with_attachment}}),
        json!({"type": "threads.retry_after_item", "params": {"thread_id": thread, "item_id": id}}),
        json!({"type": "threads.custom_action", "params": {"thread_id": thread, "item_id": id,
               "action": {"type": "x", "payload": {}}}}),
        json!({"type": "threads.sync_custom_action", "params": {"thread_id": thread, "item_id": id,
               "action": {"type": "x", "payload": {}}}}),
        json!({"type": "threads.add_client_tool_output", "params": {"thread_id": id, "result": {}}}),
        json!({"type": "threads.subscribe", "params": {"thread_id": id, "after": null}}),
        json!({"type": "threads.cancel_run", "params": {"thread_id": id}}),
        json!({"type": "acp.session.get", "params": {"thread_id": id}}),
    ]
}

async fn nul_ids_are_refused(args: &[&str]) {
    let mut all = vec!["--dist", "/nonexistent"];
    all.extend_from_slice(args);
    let rt = Runtime::spawn(&all);
    let mut first = rt.open(None, &create("hello")).await;
    let cookie = first.cookie().expect("an identity");
    let events = first.rest().await;
    let thread = events
        .iter()
        .find(|e| e["type"] == "thread.created")
        .and_then(|e| e["thread"]["id"].as_str())
        .expect("thread.created")
        .to_owned();
    for (nul, plain) in requests(&thread, "thr_\0x")
        .into_iter()
        .zip(requests(&thread, "thr_x"))
    {
        let mut answer = rt.open(Some(&cookie), &nul).await;
        let status = answer.status();
        answer.read_to_end().await;
        assert_eq!(status, 400, "{nul}");
        // The same request without the NUL is one the runtime reads: the 400 is the NUL's.
        let mut answer = rt.open(Some(&cookie), &plain).await;
        let status = answer.status();
        answer.read_to_end().await;
        assert_ne!(status, 400, "{plain}");
        assert!(status < 500, "{plain}: {status}");
    }
    // The attachment routes take the id in their path.
    for (method, path) in [("POST", "/upload/att_%00x"), ("GET", "/preview/att_%00x")] {
        let answer = rt
            .fetch(Request::new(method, path).cookie(Some(&cookie)))
            .await;
        assert_eq!(answer.status(), 400, "{method} {path}");
    }
    // Nothing broke: the thread is still there.
    let mut answer = rt.open(Some(&cookie), &add_message(&thread, "again")).await;
    assert_eq!(answer.status(), 200);
    answer.read_to_end().await;
}

#[tokio::test]
async fn a_nul_in_an_id_or_cursor_is_a_400_on_sqlite() {
    nul_ids_are_refused(&["--memory"]).await;
}

#[tokio::test]
async fn a_nul_in_an_id_or_cursor_is_a_400_on_postgres() {
    let Some(url) = tokio::task::spawn_blocking(|| common::postgres_schema("nul_ids"))
        .await
        .unwrap()
    else {
        return;
    };
    nul_ids_are_refused(&["--database", &url]).await;
}
