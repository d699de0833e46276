//! The ChatKit requests: streamed answers, threads and items by the page, uploads, retry,
//! forks, widgets and approvals, a client that leaves, every scenario as streamed and
//! stored, history across a restart.

use super::*;

#[tokio::test]
async fn create_streams_a_markdown_answer_and_lists_the_thread() {
    let rt = Runtime::start();
    let events = rt.stream(create("hello markdown")).await;
    let thread = thread_id(&events);

    let StreamEvent::ItemDone(user) = &events[1] else {
        panic!("{:?}", events[1])
    };
    let ItemKind::UserMessage(m) = &user.item.kind else {
        panic!("not the user message")
    };
    assert_eq!(m.text(), "hello markdown");
    assert_eq!(m.inference_options, Some(json!({})));
    assert!(matches!(&events[2], StreamEvent::StreamOptions(o) if o.stream_options.allow_cancel));

    let deltas = events
        .iter()
        .filter(|e| matches!(e, StreamEvent::ItemUpdated(u) if matches!(u.update, ItemUpdate::TextDelta(_))))
        .count();
    assert!(deltas > 20, "only {deltas} deltas");
    let text = answer(&events);
    assert!(text.starts_with("You said: “hello markdown”"), "{text}");
    assert!(
        text.contains("\n## ") && text.contains("\n- ") && text.contains("```rust"),
        "{text}"
    );
    assert!(
        text.contains("| Feature |") && text.contains("|:--------|"),
        "no table: {text}"
    );
    assert!(
        text.contains("[the ChatKit docs](https://openai.github.io/chatkit-js/)"),
        "no link: {text}"
    );
    // The thread gets its title from the first message, after the answer.
    let Some(StreamEvent::ThreadUpdated(last)) = events.last() else {
        panic!("no thread.updated at the end")
    };
    assert_eq!(last.thread.title.as_deref(), Some("hello markdown"));

    let list = rt.json(json!({"type": "threads.list", "params": {}})).await;
    assert_eq!(ids(&list), [thread.as_str()]);
    assert_eq!(list["data"][0]["title"], "hello markdown");
    assert_eq!(
        list["data"][0]["items"],
        json!({"data": [], "has_more": false})
    );

    let full = rt
        .json(json!({"type": "threads.get_by_id", "params": {"thread_id": thread}}))
        .await;
    let items = &full["items"]["data"];
    assert_eq!(items.as_array().unwrap().len(), 2, "{full}");
    assert_eq!(items[1]["content"][0]["text"], text.as_str());

    rt.wait_for_line("POST /chatkit threads.create 200")
        .expect("the request log line");
    rt.wait_for_line("POST /chatkit threads.list 200")
        .expect("the request log line");

    let page = rt.send("GET", "/", None, b"").await;
    assert_eq!(page.status, 200);
    assert!(page.text().contains("chat-shell test"));
    rt.wait_for_line("GET / 200")
        .expect("the static file log line");
}

#[tokio::test]
async fn threads_and_items_paginate() {
    let rt = Runtime::start();
    let first = thread_id(&rt.stream(create("one")).await);
    rt.stream(add_message(&first, "two")).await;
    rt.stream(add_message(&first, "three")).await;
    let second = thread_id(&rt.stream(create("another thread")).await);

    let all = rt.json(json!({"type": "items.list", "params": {"thread_id": first, "order": "asc", "limit": 100}})).await;
    let all = ids(&all);
    assert_eq!(all.len(), 6, "three questions and three answers: {all:?}");

    let p1 = rt.json(json!({"type": "items.list", "params": {"thread_id": first, "order": "asc", "limit": 4}})).await;
    assert_eq!(ids(&p1), all[..4]);
    assert_eq!(p1["has_more"], true);
    assert_eq!(p1["after"], all[3].as_str());
    let p2 = rt
        .json(json!({"type": "items.list", "params": {"thread_id": first, "order": "asc", "limit": 4, "after": p1["after"]}}))
        .await;
    assert_eq!(ids(&p2), all[4..]);
    assert_eq!(p2["has_more"], false);

    let desc = rt.json(json!({"type": "items.list", "params": {"thread_id": first, "order": "desc", "limit": 3}})).await;
    let expected: Vec<String> = all.iter().rev().take(3).cloned().collect();
    assert_eq!(ids(&desc), expected);

    let threads = rt
        .json(json!({"type": "threads.list", "params": {"limit": 1}}))
        .await;
    assert_eq!(ids(&threads), [second.as_str()], "newest first");
    assert_eq!(threads["has_more"], true);
    let older = rt
        .json(json!({"type": "threads.list", "params": {"limit": 1, "after": threads["after"]}}))
        .await;
    assert_eq!(ids(&older), [first.as_str()]);
    assert_eq!(older["has_more"], false);

    let renamed = rt
        .json(json!({"type": "threads.update", "params": {"thread_id": first, "title": "Renamed"}}))
        .await;
    assert_eq!(renamed["title"], "Renamed");
    assert_eq!(
        rt.json(json!({"type": "threads.delete", "params": {"thread_id": second}}))
            .await,
        json!({})
    );
    let left = rt.json(json!({"type": "threads.list", "params": {}})).await;
    assert_eq!(ids(&left), [first.as_str()]);
    let gone = rt
        .chatkit(json!({"type": "items.list", "params": {"thread_id": second}}))
        .await;
    assert_eq!(gone.status, 404);
    assert!(gone.json()["error"].is_string());
}

#[tokio::test]
async fn uploads_round_trip_and_enforce_limits() {
    let rt = Runtime::start();
    let png: &[u8] = b"\x89PNG\r\n\x1a\n\x00\x01binary\r\n--not-the-boundary";
    let created = rt
        .json(json!({"type": "attachments.create", "params": {"name": "pic.png", "size": png.len(), "mime_type": "image/png"}}))
        .await;
    let id = created["id"].as_str().unwrap().to_owned();
    let base = rt.base_url();
    assert_eq!(created["type"], "image");
    assert_eq!(
        created["upload_descriptor"],
        json!({"url": format!("{base}/upload/{id}"), "method": "POST", "headers": {}})
    );
    assert_eq!(created["upload_url"], format!("{base}/upload/{id}"));
    assert_eq!(created["preview_url"], format!("{base}/preview/{id}"));

    let mut body = b"--B0undary\r\nContent-Disposition: form-data; name=\"file\"; filename=\"pic.png\"\r\nContent-Type: image/png\r\n\r\n".to_vec();
    body.extend_from_slice(png);
    body.extend_from_slice(b"\r\n--B0undary--\r\n");
    let up = rt
        .send(
            "POST",
            &format!("/upload/{id}"),
            Some("multipart/form-data; boundary=B0undary"),
            &body,
        )
        .await;
    assert_eq!(up.status, 200, "{}", up.text());
    let preview = rt.send("GET", &format!("/preview/{id}"), None, b"").await;
    assert_eq!(preview.status, 200);
    assert_eq!(preview.header("content-type"), Some("image/png"));
    assert_eq!(preview.body, png);

    // A raw PUT works too; a file declared as text is served as text.
    let file = rt
        .json(json!({"type": "attachments.create", "params": {"name": "notes.txt", "size": 5, "mime_type": "text/plain"}}))
        .await;
    let file_id = file["id"].as_str().unwrap().to_owned();
    assert_eq!(file["type"], "file");
    assert!(file.get("preview_url").is_none());
    let put = rt
        .send("PUT", &format!("/upload/{file_id}"), None, b"hello")
        .await;
    assert_eq!(put.status, 200, "{}", put.text());
    assert_eq!(
        rt.send("GET", &format!("/preview/{file_id}"), None, b"")
            .await
            .body,
        b"hello"
    );

    // Limits.
    let big = vec![0u8; 10 * 1024 * 1024 + 1];
    let too_big = rt
        .send(
            "PUT",
            &format!("/upload/{file_id}"),
            Some("text/plain"),
            &big,
        )
        .await;
    assert_eq!(too_big.status, 413);
    assert!(too_big.json()["error"].as_str().unwrap().contains("10 MB"));
    let exe = rt
        .send(
            "PUT",
            &format!("/upload/{file_id}"),
            Some("application/x-msdownload"),
            b"MZ",
        )
        .await;
    assert_eq!(exe.status, 415);
    assert!(exe.json()["error"].is_string());
    assert_eq!(
        rt.send("GET", "/preview/atc_ffffffff", None, b"")
            .await
            .status,
        404
    );
    assert_eq!(
        rt.send("PUT", "/upload/atc_ffffffff", None, b"x")
            .await
            .status,
        404
    );

    // Sent with a message, attachments come back as full objects.
    let events = rt
        .stream(json!({"type": "threads.create", "params": {"input": {
            "content": [{"type": "input_text", "text": "look at these"}], "attachments": [id, file_id]
        }}}))
        .await;
    let StreamEvent::ItemDone(user) = &events[1] else {
        panic!()
    };
    let ItemKind::UserMessage(m) = &user.item.kind else {
        panic!()
    };
    assert_eq!(m.attachments.len(), 2);
    assert_eq!(m.attachments[0].name, "pic.png");
    assert_eq!(
        m.attachments[0].preview_url.as_deref(),
        Some(format!("{base}/preview/{id}").as_str())
    );
    assert_eq!(
        m.attachments[0].thread_id.as_ref().map(|t| t.0.clone()),
        Some(thread_id(&events))
    );
    assert_eq!(
        rt.json(json!({"type": "attachments.delete", "params": {"attachment_id": id}}))
            .await,
        json!({})
    );
    assert_eq!(
        rt.send("GET", &format!("/preview/{id}"), None, b"")
            .await
            .status,
        404
    );
    rt.wait_for_line(&format!("PUT /upload/{file_id} 413"))
        .expect("the upload log line");
}

#[tokio::test]
async fn retry_after_an_error_succeeds() {
    let rt = Runtime::start();
    let events = rt.stream(create("error")).await;
    let thread = thread_id(&events);
    let user = user_message_id(&events);
    let Some(StreamEvent::Error(e)) = events.last() else {
        panic!("no error at the end: {events:?}")
    };
    assert_eq!(e.code, "custom");
    assert!(e.allow_retry);
    assert_eq!(
        e.message.as_deref(),
        Some("The peer failed on purpose (attempt 1). Retry to succeed.")
    );

    let retried = rt.stream(json!({"type": "threads.retry_after_item", "params": {"thread_id": thread, "item_id": user}})).await;
    assert!(matches!(retried[0], StreamEvent::StreamOptions(_)));
    assert_eq!(
        answer(&retried),
        format!("Retry succeeded (attempt 2 for user message `{user}`).")
    );

    // The failed partial answer is gone; the retried one follows the question.
    let full = rt
        .json(json!({"type": "threads.get_by_id", "params": {"thread_id": thread}}))
        .await;
    let items = full["items"]["data"].as_array().unwrap();
    assert_eq!(items.len(), 2, "{full}");
    assert_eq!(items[0]["id"], user.as_str());
    assert!(items[1]["content"][0]["text"]
        .as_str()
        .unwrap()
        .starts_with("Retry succeeded"));
}

#[tokio::test]
async fn fork_deltas_come_under_fresh_ids() {
    let rt = Runtime::start();
    let events = rt.stream(create("fork")).await;
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, StreamEvent::StreamOptions(_))),
        "the fork sends no stream_options"
    );
    let message = events
        .iter()
        .find_map(|e| match e {
            StreamEvent::ItemAdded(a) if matches!(a.item.kind, ItemKind::AssistantMessage(_)) => {
                Some(a.item.id.clone())
            }
            _ => None,
        })
        .expect("an assistant message");
    let deltas: Vec<(String, usize)> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ItemUpdated(u) => match &u.update {
                ItemUpdate::TextDelta(d) => Some((u.item_id.0.clone(), d.content_index)),
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert!(deltas.len() >= 10, "{deltas:?}");
    let mut seen = std::collections::HashSet::new();
    for (i, (id, index)) in deltas.iter().enumerate() {
        assert!(id.starts_with("itm_") && id != &message.0, "{id}");
        assert!(seen.insert(id.clone()), "{id} used twice");
        assert_eq!(*index, i + 1);
    }
    // The store rebuilt the message from those deltas anyway.
    let thread = thread_id(&events);
    let full = rt
        .json(json!({"type": "threads.get_by_id", "params": {"thread_id": thread}}))
        .await;
    let stored = full["items"]["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["id"] == message.0.as_str())
        .cloned()
        .unwrap();
    assert_eq!(stored["content"][0]["text"], answer(&events).as_str());
}

#[tokio::test]
async fn widget_actions_stream_and_sync() {
    let rt = Runtime::start();
    let events = rt.stream(create("widget")).await;
    let thread = thread_id(&events);
    let card = done_items(&events)
        .into_iter()
        .find(|i| matches!(i.kind, ItemKind::Widget(_)))
        .expect("a widget")
        .id
        .0
        .clone();

    let synced = rt
        .json(json!({"type": "threads.sync_custom_action", "params": {"thread_id": thread, "item_id": card,
            "action": {"type": "counter", "payload": {"count": 0}, "handler": "server", "loadingBehavior": "self", "streaming": false}}}))
        .await;
    assert_eq!(synced["updated_item"]["id"], card.as_str());
    assert!(synced.to_string().contains("Sync +1 (count=1)"), "{synced}");
    let full = rt
        .json(json!({"type": "threads.get_by_id", "params": {"thread_id": thread}}))
        .await;
    assert!(
        full.to_string().contains("Sync +1 (count=1)"),
        "the sync result was not saved"
    );

    let confirmed = rt
        .stream(
            json!({"type": "threads.custom_action", "params": {"thread_id": thread, "item_id": card,
            "action": {"type": "confirm", "payload": {"card": "showcase"}, "handler": "server"}}}),
        )
        .await;
    let replaced = confirmed.iter().find_map(|e| match e {
        StreamEvent::ItemReplaced(r) => Some(serde_json::to_string(&r.item).unwrap()),
        _ => None,
    });
    let replaced = replaced.expect("thread.item.replaced");
    assert!(
        replaced.contains("\"Confirmed\"") && !replaced.contains("Sync +1"),
        "{replaced}"
    );
    assert!(answer(&confirmed).starts_with("Confirmed."));

    let form = rt.stream(add_message(&thread, "form")).await;
    let form_id = done_items(&form)
        .into_iter()
        .find(|i| matches!(i.kind, ItemKind::Widget(_)))
        .unwrap()
        .id
        .0
        .clone();
    let submitted = rt
        .stream(json!({"type": "threads.custom_action", "params": {"thread_id": thread, "item_id": form_id,
            "action": {"type": "form.submit", "payload": {"form": "profile", "name": "Ada", "plan": "pro", "agree": true}}}}))
        .await;
    let text = answer(&submitted);
    assert!(
        text.contains("| name | Ada |") && text.contains("| plan | pro |"),
        "{text}"
    );
}

#[tokio::test]
async fn approvals_client_tools_and_structured_input_continue() {
    let rt = Runtime::start();
    let events = rt.stream(create("approval")).await;
    let thread = thread_id(&events);
    let widget = done_items(&events)
        .into_iter()
        .find(|i| matches!(i.kind, ItemKind::ClientWidget(_)))
        .unwrap()
        .clone();
    let ItemKind::ClientWidget(w) = &widget.kind else {
        unreachable!()
    };
    assert_eq!(w.name, "tool_approval_request");
    assert_eq!(w.args["tool_name"], "send_payment");
    assert!(w.args["tool_args"].is_string());
    let mut payload = w.args.clone();
    payload["approved"] = json!(false);
    let decided = rt
        .stream(json!({"type": "threads.custom_action", "params": {"thread_id": thread, "item_id": widget.id,
            "action": {"type": "approval", "payload": payload, "handler": "server", "loadingBehavior": "auto"}}}))
        .await;
    assert!(
        answer(&decided).starts_with("Rejected:"),
        "{}",
        answer(&decided)
    );
    let full = rt
        .json(json!({"type": "threads.get_by_id", "params": {"thread_id": thread}}))
        .await;
    assert!(
        full.to_string().contains(r#""decision":"rejected""#),
        "{full}"
    );

    let events = rt.stream(add_message(&thread, "clienttool")).await;
    assert!(done_items(&events)
        .iter()
        .any(|i| matches!(&i.kind, ItemKind::ClientToolCall(c) if c.name == "get_client_info")));
    let cont = rt
        .stream(json!({"type": "threads.add_client_tool_output", "params": {"thread_id": thread, "result": {"language": "en-US"}}}))
        .await;
    assert!(
        answer(&cont).contains("\"language\": \"en-US\""),
        "{}",
        answer(&cont)
    );

    let events = rt.stream(add_message(&thread, "structured")).await;
    let question = done_items(&events)
        .into_iter()
        .find(|i| matches!(i.kind, ItemKind::StructuredInput(_)))
        .unwrap()
        .id
        .0
        .clone();
    let answered = rt
        .stream(json!({"type": "threads.add_structured_input", "params": {"thread_id": thread, "item_id": question,
            "answers": {"color": {"values": ["green"], "skipped": false}, "why": {"values": [], "skipped": true}}}}))
        .await;
    assert!(answered
        .iter()
        .any(|e| matches!(e, StreamEvent::ItemReplaced(_))));
    assert!(
        answer(&answered).contains("- **Pick a color** green"),
        "{}",
        answer(&answered)
    );

    let items = rt.json(json!({"type": "items.list", "params": {"thread_id": thread, "order": "asc", "limit": 100}})).await;
    let kinds: Vec<&str> = items["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["type"].as_str().unwrap())
        .collect();
    assert!(
        kinds.contains(&"client_tool_call") && kinds.contains(&"structured_input"),
        "{kinds:?}"
    );
    let tool = items["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["type"] == "client_tool_call")
        .unwrap();
    assert_eq!(tool["status"], "completed");
    assert_eq!(tool["output"], json!({"language": "en-US"}));
}

#[tokio::test]
async fn bad_requests_and_unknown_threads() {
    let rt = Runtime::start();
    let unknown = rt.chatkit(add_message("thr_ffffffff", "hello?")).await;
    assert_eq!(unknown.status, 200);
    assert_eq!(unknown.header("content-type"), Some("text/event-stream"));
    assert!(unknown.body.is_empty(), "{}", unknown.text());

    let broken = rt
        .send("POST", "/chatkit", Some("application/json"), b"{not json")
        .await;
    assert_eq!(broken.status, 400);
    assert!(broken.json()["error"].is_string());
    let bogus = rt
        .chatkit(json!({"type": "threads.bogus", "params": {}}))
        .await;
    assert_eq!(bogus.status, 400);
    let transcribe = rt.chatkit(json!({"type": "input.transcribe", "params": {"audio_base64": "", "mime_type": "audio/webm"}})).await;
    assert_eq!(transcribe.status, 400);
    assert_eq!(
        transcribe.json(),
        json!({"error": "audio_base64 is empty: nothing was recorded", "code": "bad_request"})
    );
    let missing = rt
        .chatkit(json!({"type": "threads.get_by_id", "params": {"thread_id": "thr_ffffffff"}}))
        .await;
    assert_eq!(missing.status, 404);
    rt.wait_for_line("POST /chatkit threads.bogus 400")
        .expect("the log names the bad type");
}

#[tokio::test]
async fn drop_breaks_the_connection_mid_answer() {
    let rt = Runtime::start();
    let reply = rt.chatkit(create("drop")).await;
    assert_eq!(reply.status, 200);
    assert!(!reply.complete, "the body ended cleanly");
    assert!(reply.text().contains("\"drops \""), "{}", reply.text());
}

#[tokio::test]
async fn a_client_that_leaves_is_logged_and_its_partial_answer_kept() {
    let rt = Runtime::start();
    // An identity first: the thread is looked at again below, as the same user.
    rt.json(json!({"type": "threads.list", "params": {}})).await;
    // Read until the partial text is out and the server has gone quiet.
    // Each delta is one word: look for the last one.
    let stream = rt.open_until(create("stall"), "\"minutes \"").await;
    let thread = {
        let text = stream.text();
        let at = text.find("\"id\":\"thr_").expect("a thread id") + 6;
        let len = text[at..].find('"').expect("the end of the id");
        text[at..at + len].to_owned()
    };
    drop(stream);
    let line = rt
        .wait_for_line("stream closed by client: threads.create")
        .unwrap_or_else(|| panic!("no close line in:\n{}", rt.output()));
    assert!(line.contains(&format!("thread={thread} after ")), "{line}");

    let full = rt
        .json(json!({"type": "threads.get_by_id", "params": {"thread_id": thread}}))
        .await;
    let items = full["items"]["data"].as_array().unwrap();
    assert_eq!(items.len(), 2, "{full}");
    assert_eq!(
        items[1]["content"][0]["text"],
        "This answer stalls here: no more bytes for two minutes "
    );
    // Saved when the client left; the run itself goes on (stalled) until it is stopped.
    assert!(line.ends_with("(the run goes on)"), "{line}");
    let stopped = rt
        .json(json!({"type": "threads.cancel_run", "params": {"thread_id": thread}}))
        .await;
    assert_eq!(stopped, json!({"cancelled": true}));
    let after = rt
        .json(json!({"type": "threads.get_by_id", "params": {"thread_id": thread}}))
        .await;
    assert_eq!(after["items"], full["items"], "kept as it was");
}

#[tokio::test]
async fn history_survives_a_restart() {
    let db = temp_path("history.db");
    let db_arg = db.to_str().unwrap().to_owned();
    let (thread, before, cookie) = {
        let rt = Runtime::start_with(&["--db", &db_arg]);
        let thread = thread_id(&rt.stream(create("remember me")).await);
        let full = rt
            .json(json!({"type": "threads.get_by_id", "params": {"thread_id": thread}}))
            .await;
        (thread, full, rt.cookie())
    };
    let rt = Runtime::start_with(&["--db", &db_arg]);
    // The same browser (its cookie) after the restart.
    rt.set_cookie(cookie);
    let list = rt.json(json!({"type": "threads.list", "params": {}})).await;
    assert_eq!(ids(&list), [thread.as_str()]);
    let after = rt
        .json(json!({"type": "threads.get_by_id", "params": {"thread_id": thread}}))
        .await;
    assert_eq!(after, before);
    // New ids do not collide with the old ones.
    let next = thread_id(&rt.stream(create("and me")).await);
    assert_ne!(next, thread);
    drop(rt);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{db_arg}{suffix}"));
    }
}

/// Every scenario that finishes on its own, over real HTTP: every frame decodes, and the
/// store holds exactly the items the client saw, in the same order.
#[tokio::test]
async fn every_scenario_is_decodable_and_stored_as_streamed() {
    let rt = Runtime::start();
    let keywords = [
        "markdown",
        "long fast",
        "progress",
        "task",
        "workflow",
        "annotations",
        "notice",
        "error",
        "image",
        "widget",
        "form",
        "list",
        "chart",
        "widgetstream",
        "approval",
        "clienttool",
        "effect",
        "structured",
        "endturn",
        "fork",
        "title",
        "lock",
        "agent",
    ];
    for keyword in keywords {
        let events = rt.stream(create(keyword)).await;
        let thread = thread_id(&events);
        // The last version of each item the client saw, by first appearance.
        let mut order: Vec<String> = Vec::new();
        let mut last: std::collections::HashMap<String, (Value, bool)> = Default::default();
        for event in &events {
            let (item, finished) = match event {
                StreamEvent::ItemAdded(e) => (&e.item, false),
                StreamEvent::ItemDone(e) | StreamEvent::ItemReplaced(e) => (&e.item, true),
                StreamEvent::ItemUpdated(u) => {
                    if let Some(entry) = last.get_mut(&u.item_id.0) {
                        entry.1 = false; // changed since: compared by id only
                    }
                    continue;
                }
                _ => continue,
            };
            if !order.contains(&item.id.0) {
                order.push(item.id.0.clone());
            }
            last.insert(
                item.id.0.clone(),
                (serde_json::to_value(item).unwrap(), finished),
            );
        }
        let stored = rt
            .json(json!({"type": "items.list", "params": {"thread_id": thread, "order": "asc", "limit": 1000}}))
            .await;
        assert_eq!(
            ids(&stored),
            order,
            "{keyword}: stored items differ from the streamed ones"
        );
        for item in stored["data"].as_array().unwrap() {
            let (seen, finished) = &last[item["id"].as_str().unwrap()];
            if *finished {
                assert_eq!(
                    item, seen,
                    "{keyword}: stored item differs from the last one streamed"
                );
            }
        }
        let full = rt
            .json(json!({"type": "threads.get_by_id", "params": {"thread_id": thread}}))
            .await;
        if keyword == "lock" {
            assert_eq!(full["status"]["type"], "locked", "{full}");
        }
        if keyword == "title" {
            assert_eq!(full["title"], "Renamed while streaming");
        }
        if keyword == "long fast" {
            let deltas = events
                .iter()
                .filter(|e| matches!(e, StreamEvent::ItemUpdated(_)))
                .count();
            assert_eq!(
                deltas,
                2000 + 2,
                "2,000 text deltas plus content part added and done"
            );
            assert!(answer(&events).len() > 100_000);
        }
    }
}
