//! Two instances on one PostgreSQL database: a Stop passed between them is acted on only
//! once the run's row says it was asked, a permission answer only once the stored item
//! holds it; a forged `NOTIFY` (anyone who can reach the database can send one) stops and
//! answers nothing. The real binary over HTTP/1.1; skipped unless
//! `CHAT_SHELL_TEST_DATABASE_URL` names a server.

mod common;

use common::{create, Runtime, Stream};
use serde_json::{json, Value};
use std::time::Duration;

fn sql(url: &str, f: impl FnOnce(&mut postgres::Client) -> Value + Send + 'static) -> Value {
    let url = url.to_owned();
    std::thread::spawn(move || {
        let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
        f(&mut client)
    })
    .join()
    .unwrap()
}

/// The run of `thread`: `{id, instance, cancel_requested, outcome}`.
fn run_row(url: &str, thread: &str) -> Value {
    let thread = thread.to_owned();
    sql(url, move |c| {
        let row = c
            .query_one(
                "SELECT id, instance, cancel_requested, outcome FROM runs WHERE thread_id = $1",
                &[&thread],
            )
            .unwrap();
        json!({
            "id": row.get::<_, String>(0),
            "instance": row.get::<_, String>(1),
            "cancel_requested": row.get::<_, bool>(2),
            "outcome": row.get::<_, Option<String>>(3),
        })
    })
}

fn delta(event: &Value) -> Option<&str> {
    event["update"]["delta"].as_str()
}

/// Reads `n` more deltas of `stream`; panics if it ends first.
async fn read_deltas(stream: &mut Stream, n: usize) -> Vec<Value> {
    let mut seen = Vec::new();
    while seen.iter().filter(|e| delta(e).is_some()).count() < n {
        let event = stream
            .next_event(Duration::from_secs(20))
            .await
            .unwrap_or_else(|| panic!("the answer ended early: {seen:#?}"));
        seen.push(event);
    }
    seen
}

#[tokio::test(flavor = "multi_thread")]
async fn a_forged_stop_notification_is_ignored_and_a_real_one_stops_the_run() {
    let Some(scoped) = tokio::task::spawn_blocking(|| common::postgres_schema("instances"))
        .await
        .unwrap()
    else {
        return;
    };
    let args = |pace| {
        vec![
            "--dist".to_owned(),
            "/nonexistent".to_owned(),
            "--database".to_owned(),
            scoped.clone(),
            "--pace-ms".to_owned(),
            pace,
        ]
    };
    let start = |args: Vec<String>| {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        Runtime::spawn(&args)
    };
    let a = start(args("20".into()));
    let b = start(args("20".into()));
    let cookie = a.new_identity().await;
    let mut origin = a.open(Some(&cookie), &create("long")).await;
    let read = read_deltas(&mut origin, 5).await;
    let thread = read
        .iter()
        .find(|e| e["type"] == "thread.created")
        .and_then(|e| e["thread"]["id"].as_str())
        .expect("thread.created")
        .to_owned();
    let row = run_row(&scoped, &thread);
    assert_eq!(row["outcome"], Value::Null, "{row}");

    // A Stop notification as another instance would send it, with no row behind it.
    let forged = format!("c ins_forged {thread} {}", row["id"].as_str().unwrap());
    sql(&scoped, move |c| {
        c.execute("SELECT pg_notify('chat_shell', $1)", &[&forged])
            .unwrap();
        Value::Null
    });
    tokio::time::sleep(Duration::from_millis(500)).await;
    // The run goes on, and its row still says nobody asked.
    read_deltas(&mut origin, 5).await;
    let row = run_row(&scoped, &thread);
    assert_eq!(
        (&row["outcome"], &row["cancel_requested"]),
        (&Value::Null, &json!(false)),
        "{row}"
    );

    // Stop asked on the other instance: the row says so, and the run stops.
    let mut reply = b
        .open(
            Some(&cookie),
            &json!({"type": "threads.cancel_run", "params": {"thread_id": thread}}),
        )
        .await;
    assert_eq!(reply.status(), 200);
    reply.read_to_end().await;
    let rest = origin.rest().await;
    assert!(rest.iter().all(|e| e["type"] != "error"), "{rest:#?}");
    let row = run_row(&scoped, &thread);
    assert_eq!(row["cancel_requested"], true, "{row}");
    assert_eq!(row["outcome"], "cancelled", "{row}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_forged_permission_notification_is_ignored_and_the_real_answer_goes_through() {
    let Some(scoped) = tokio::task::spawn_blocking(|| common::postgres_schema("instances"))
        .await
        .unwrap()
    else {
        return;
    };
    let args = [
        "--dist".to_owned(),
        "/nonexistent".to_owned(),
        "--database".to_owned(),
        scoped.clone(),
    ];
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (a, b) = (Runtime::spawn(&args), Runtime::spawn(&args));
    let cookie = a.new_identity().await;
    // A run on A that waits for the answer to a permission request.
    let mut origin = a.open(Some(&cookie), &create("permission")).await;
    let read = origin
        .until("the permission request", |e| {
            e["update"]["type"] == "acp_tool_call.permission_requested"
        })
        .await;
    let thread = read
        .iter()
        .find(|e| e["type"] == "thread.created")
        .and_then(|e| e["thread"]["id"].as_str())
        .expect("thread.created")
        .to_owned();
    let call = read
        .iter()
        .rev()
        .find(|e| e["item"]["type"] == "acp_tool_call")
        .map(|e| e["item"].clone())
        .expect("the tool call");
    let (item, tool_call) = (
        call["id"].as_str().unwrap().to_owned(),
        call["tool_call"]["toolCallId"].as_str().unwrap().to_owned(),
    );

    // "Answered on another instance", forged: nothing is answered in the store.
    let forged = format!("p ins_forged {thread} {item}");
    sql(&scoped, move |c| {
        c.execute("SELECT pg_notify('chat_shell', $1)", &[&forged])
            .unwrap();
        Value::Null
    });
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        !a.output()
            .contains("permission answered on another instance"),
        "{}",
        a.output()
    );

    // The real answer, on B, still reaches the run on A, which goes on to its end.
    let mut answer = b
        .open(Some(&cookie), &json!({"type": "threads.custom_action", "params": {
            "thread_id": thread, "item_id": item,
            "action": {"type": "acp.permission_response",
                       "payload": {"toolCallId": tool_call, "outcome": {"outcome": "selected", "optionId": "allow-once"}}}
        }}))
        .await;
    assert_eq!(answer.status(), 200);
    answer.rest().await;
    a.wait_for_line(&format!(
        "permission answered on another instance: thread={thread} item={item}"
    ))
    .unwrap_or_else(|| panic!("{}", a.output()));
    let rest = origin.rest().await;
    assert!(
        rest.iter().any(|e| e["type"] == "thread.item.updated"
            && e["update"]["type"] == "acp_tool_call.permission_resolved"),
        "{rest:#?}"
    );
}
