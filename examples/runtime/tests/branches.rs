//! Branches over HTTP (the ChatKit extension requests `threads.edit_user_message`,
//! `threads.regenerate_after_item`, `threads.select_branch`) against the real binary:
//! what a page sees, another identity's attempts, and a runtime whose agent keeps the
//! conversation (`--acp`), which offers no branches.

mod common;

use common::{add_message, agent_bin, create, Runtime};
use serde_json::{json, Value};

fn start(extra: &[&str]) -> Runtime {
    let mut args = vec!["--memory", "--dist", "/nonexistent"];
    args.extend_from_slice(extra);
    Runtime::spawn(&args)
}

/// The events of a streamed request as `cookie`.
async fn stream(rt: &Runtime, cookie: &str, request: Value) -> Vec<Value> {
    let mut s = rt.open(Some(cookie), &request).await;
    assert_eq!(s.status(), 200);
    s.rest().await
}

/// A JSON request as `cookie`: its status and body.
async fn json_request(rt: &Runtime, cookie: &str, request: Value) -> (u16, Value) {
    let mut s = rt.open(Some(cookie), &request).await;
    (s.status(), s.json().await)
}

/// The last `thread.item.done` of a user message.
fn user_done(events: &[Value]) -> &Value {
    events
        .iter()
        .rev()
        .find(|e| e["type"] == "thread.item.done" && e["item"]["type"] == "user_message")
        .map(|e| &e["item"])
        .expect("the user message")
}

/// The first answer's text and item.
fn first_answer(events: &[Value]) -> &Value {
    events
        .iter()
        .find(|e| e["type"] == "thread.item.done" && e["item"]["type"] == "assistant_message")
        .map(|e| &e["item"])
        .expect("an answer")
}

fn edit(thread: &str, item: &str, text: &str) -> Value {
    json!({"type": "threads.edit_user_message", "params": {"thread_id": thread, "item_id": item,
        "input": {"content": [{"type": "input_text", "text": text}], "attachments": [], "inference_options": {}}}})
}

/// The texts of the items of the branch shown, in order.
async fn shown(rt: &Runtime, cookie: &str, thread: &str) -> Vec<String> {
    let (status, body) = json_request(
        rt,
        cookie,
        json!({"type": "threads.get_by_id", "params": {"thread_id": thread}}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["branching"], true, "{body}");
    texts(&body["items"]["data"])
}

fn texts(items: &Value) -> Vec<String> {
    items
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            i["content"][0]["text"]
                .as_str()
                .unwrap_or_default()
                .chars()
                .take(40)
                .collect()
        })
        .collect()
}

#[tokio::test]
async fn edits_regenerations_and_the_branch_shown_over_http() {
    let rt = start(&[]);
    let me = rt.new_identity().await;
    let created = stream(&rt, &me, create("first question")).await;
    let thread = created
        .iter()
        .find(|e| e["type"] == "thread.created")
        .expect("thread.created")["thread"]
        .clone();
    assert_eq!(thread["branching"], true, "advertised: {thread}");
    let thread = thread["id"].as_str().unwrap().to_owned();
    let first = user_done(&created)["id"].as_str().unwrap().to_owned();
    let second = stream(&rt, &me, add_message(&thread, "second question")).await;
    let second_id = user_done(&second)["id"].as_str().unwrap().to_owned();
    assert!(
        user_done(&second).get("branches").is_none(),
        "one branch: none said"
    );

    // An edit: a branch beside the message, answered.
    let edited = stream(
        &rt,
        &me,
        edit(&thread, &second_id, "second question, reworded"),
    )
    .await;
    let new = user_done(&edited);
    let new_id = new["id"].as_str().unwrap().to_owned();
    assert_ne!(new_id, second_id);
    assert_eq!(new["branches"], json!([second_id, new_id]));
    let answer = first_answer(&edited)["content"][0]["text"]
        .as_str()
        .unwrap();
    assert!(answer.contains("“second question, reworded”"), "{answer}");
    let now = shown(&rt, &me, &thread).await;
    assert_eq!(now.len(), 4, "{now:?}");
    assert_eq!(now[2], "second question, reworded");

    // Back to the first branch, as the answer says and as a reload reads it.
    let (status, body) = json_request(
        &rt,
        &me,
        json!({"type": "threads.select_branch", "params": {"thread_id": thread, "item_id": second_id}}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(texts(&body["items"]["data"])[2], "second question");
    assert_eq!(
        body["items"]["data"][2]["branches"],
        json!([second_id, new_id])
    );
    assert_eq!(shown(&rt, &me, &thread).await[2], "second question");

    // Regenerating the first answer: a branch beside it; the rest of the thread is kept
    // behind the old answer.
    let again = stream(
        &rt,
        &me,
        json!({"type": "threads.regenerate_after_item", "params": {"thread_id": thread, "item_id": first}}),
    )
    .await;
    let answer = first_answer(&again);
    assert!(answer["content"][0]["text"]
        .as_str()
        .unwrap()
        .starts_with("Answer 2 to this message."));
    assert_eq!(
        answer["branches"].as_array().map(Vec::len),
        Some(2),
        "{answer}"
    );
    let now = shown(&rt, &me, &thread).await;
    assert_eq!(now.len(), 2, "{now:?}");
    let old_answer = answer["branches"][0].as_str().unwrap().to_owned();
    let (status, _) = json_request(
        &rt,
        &me,
        json!({"type": "threads.select_branch", "params": {"thread_id": thread, "item_id": old_answer}}),
    )
    .await;
    assert_eq!(status, 200);
    let back = shown(&rt, &me, &thread).await;
    // Below it, the newest branch shows: the edit made last.
    assert_eq!(
        back.len(),
        4,
        "the old answer's branch, to its newest end: {back:?}"
    );
    assert_eq!(back[2], "second question, reworded");
}

#[tokio::test]
async fn another_identity_reaches_no_branch_and_bad_requests_are_refused() {
    let rt = start(&[]);
    let me = rt.new_identity().await;
    let created = stream(&rt, &me, create("mine")).await;
    let thread = created
        .iter()
        .find(|e| e["type"] == "thread.created")
        .unwrap()["thread"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let mine = user_done(&created)["id"].as_str().unwrap().to_owned();
    let answer = first_answer(&created)["id"].as_str().unwrap().to_owned();

    let other = rt.new_identity().await;
    let (status, _) = json_request(
        &rt,
        &other,
        json!({"type": "threads.select_branch", "params": {"thread_id": thread, "item_id": mine}}),
    )
    .await;
    assert_eq!(status, 404);
    // An unknown thread: what the SDK answers, no event.
    assert!(stream(&rt, &other, edit(&thread, &mine, "taken"))
        .await
        .is_empty());
    assert_eq!(shown(&rt, &me, &thread).await.len(), 2);

    // An answer is not a message to edit; an unknown item is not a branch.
    let refused = stream(&rt, &me, edit(&thread, &answer, "no")).await;
    assert_eq!(refused.last().unwrap()["type"], "error", "{refused:?}");
    let (status, _) = json_request(
        &rt,
        &me,
        json!({"type": "threads.select_branch", "params": {"thread_id": thread, "item_id": "msg_nope"}}),
    )
    .await;
    assert_eq!(status, 404);
    assert_eq!(shown(&rt, &me, &thread).await.len(), 2);
}

#[tokio::test]
async fn an_agent_that_keeps_the_conversation_offers_no_branches() {
    let agent = agent_bin();
    let command = format!("{} --pace-ms 1", agent.display());
    let rt = start(&["--acp", &command]);
    let me = rt.new_identity().await;
    let created = stream(&rt, &me, create("hello agent")).await;
    let thread = created
        .iter()
        .find(|e| e["type"] == "thread.created")
        .expect("thread.created")["thread"]
        .clone();
    assert!(thread.get("branching").is_none(), "{thread}");
    let id = thread["id"].as_str().unwrap().to_owned();
    let user = user_done(&created)["id"].as_str().unwrap().to_owned();
    let refused = stream(&rt, &me, edit(&id, &user, "again")).await;
    let last = refused.last().expect("an answer");
    assert_eq!(last["type"], "error", "{refused:?}");
    assert!(
        last["message"].as_str().unwrap().contains("cannot branch"),
        "{last}"
    );
    let (status, _) = json_request(
        &rt,
        &me,
        json!({"type": "threads.select_branch", "params": {"thread_id": id, "item_id": user}}),
    )
    .await;
    assert_eq!(status, 400);
}
