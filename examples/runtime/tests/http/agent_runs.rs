//! Agent runs: ACP tool calls and permissions over ChatKit, and `POST /events`.

use super::*;

/// The tool call items of a page of items (`items.list` or a thread's `items`).
fn tool_calls(page: &Value) -> Vec<Value> {
    page["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["type"] == "acp_tool_call")
        .cloned()
        .collect()
}

/// What the core's reducer makes of `events` (a turn from start to end): each tool
/// call's title and `data-status`.
fn reduced_states(events: &[StreamEvent], ended: bool) -> Vec<(String, String)> {
    use chat_shell_core::reducer::{reduce, ChatState, Input};
    let mut state = ChatState::default();
    let _ = reduce(&mut state, Input::TurnStarted);
    for event in events {
        let _ = reduce(
            &mut state,
            chat_shell_core::adapters::chatkit::input(event.clone()),
        );
    }
    let end = if ended {
        Input::StreamEnded
    } else {
        Input::StreamFailed {
            message: "connection lost".into(),
            allow_retry: true,
        }
    };
    let _ = reduce(&mut state, end);
    call_states(&state)
}

fn call_states(state: &chat_shell_core::reducer::ChatState) -> Vec<(String, String)> {
    state
        .items()
        .iter()
        .filter_map(|i| match &i.entry.kind {
            chat_shell_core::model::EntryKind::ToolCall(c) => Some((
                c.tool_call.title.clone(),
                i.tool_call_state()?.as_str().to_owned(),
            )),
            _ => None,
        })
        .collect()
}

/// What a client that opens `thread` (its `threads.get_by_id` JSON) shows.
fn hydrated_states(thread: &Value) -> Vec<(String, String)> {
    use chat_shell_core::reducer::{reduce, ChatState};
    let thread: chat_shell_core::protocol::chatkit::Thread =
        serde_json::from_value(thread.clone()).expect("a thread the client decodes");
    let mut state = ChatState::default();
    let _ = reduce(
        &mut state,
        chat_shell_core::adapters::chatkit::thread_loaded(thread),
    );
    call_states(&state)
}

fn states(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(t, s)| ((*t).to_owned(), (*s).to_owned()))
        .collect()
}

fn permission_answer(thread: &str, item: &str, call: &str, outcome: Value) -> Value {
    json!({"type": "threads.custom_action", "params": {
        "thread_id": thread, "item_id": item,
        "action": {"type": "acp.permission_response",
                   "payload": {"toolCallId": call, "outcome": outcome}}
    }})
}

fn selected(option: &str) -> Value {
    json!({"outcome": "selected", "optionId": option})
}

fn updates(events: &[StreamEvent]) -> Vec<&ItemUpdate> {
    events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ItemUpdated(u) => Some(&u.update),
            _ => None,
        })
        .collect()
}

impl Runtime {
    /// Polls the user's threads until one has a tool call asking permission; returns
    /// (thread id, item id, tool call id).
    async fn asking_call(&self) -> (String, String, String) {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let threads = self.json(list_threads()).await;
            for thread in ids(&threads) {
                let items = self
                    .json(json!({"type": "items.list", "params": {"thread_id": thread, "limit": 100}}))
                    .await;
                for call in tool_calls(&items) {
                    if call["permission"].is_object() && call["permission"]["outcome"].is_null() {
                        return (
                            thread.clone(),
                            call["id"].as_str().unwrap().to_owned(),
                            call["tool_call"]["toolCallId"].as_str().unwrap().to_owned(),
                        );
                    }
                }
            }
            assert!(Instant::now() < deadline, "no tool call asks permission");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// A `POST /events` with `headers` and the browser's cookie, if it has one (the one
    /// the answer may set is not kept).
    async fn events_request(&self, headers: &[(&str, &str)], body: &[u8]) -> Reply {
        let cookie = self.cookie();
        self.fetch(
            Request::post("/events")
                .headers(headers)
                .cookie(cookie.as_deref())
                .body(body),
        )
        .await
        .reply()
        .await
    }
}

#[tokio::test]
async fn the_agent_run_round_trips_through_the_core_and_hydrates() {
    let rt = Runtime::start();
    let events = rt.stream(create("show me an agent run")).await;
    let thread = thread_id(&events);
    let expected = states(&[
        ("Read src/parser.rs", "completed"),
        ("Fetch https://docs.example.com/ranges", "failed"),
        ("Edit src/parser.rs", "completed"),
        ("Create tests/range_regression.rs", "completed"),
        ("Run cargo test", "completed"),
    ]);
    assert_eq!(reduced_states(&events, true), expected);
    let kinds: Vec<&str> = updates(&events)
        .into_iter()
        .map(|u| match u {
            ItemUpdate::AcpToolCallUpdated(_) => "call",
            ItemUpdate::AcpPlanUpdated(_) => "plan",
            ItemUpdate::AcpThoughtChunk(_) => "thought",
            _ => "other",
        })
        .collect();
    for kind in ["call", "plan", "thought"] {
        assert!(kinds.contains(&kind), "no {kind} update in {kinds:?}");
    }

    // Stored as streamed, and what a reload shows.
    let items = rt
        .json(json!({"type": "items.list", "params": {"thread_id": thread, "order": "asc", "limit": 100}}))
        .await;
    let types: Vec<&str> = items["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        types,
        [
            "user_message",
            "acp_thought",
            "acp_plan",
            "acp_tool_call",
            "acp_tool_call",
            "acp_tool_call",
            "acp_tool_call",
            "acp_tool_call",
            "assistant_message"
        ]
    );
    let data = items["data"].as_array().unwrap();
    assert!(data[1]["text"].as_str().unwrap().contains("off-by-one"));
    assert!(data[2]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .all(|e| e["status"] == "completed"));
    let calls = tool_calls(&items);
    assert_eq!(
        calls[0]["tool_call"]["locations"][0],
        json!({"path": "/repo/src/parser.rs", "line": 42})
    );
    assert!(calls[2]["tool_call"]["content"][0]["oldText"].is_string());
    assert_eq!(calls[3]["tool_call"]["content"][0]["oldText"], Value::Null);
    assert_eq!(calls[4]["tool_call"]["content"][0]["type"], "terminal");
    assert_eq!(
        calls[4]["tool_call"]["rawOutput"]["exitStatus"]["exitCode"],
        0
    );
    assert!(calls[4]["tool_call"]["rawOutput"]["output"]
        .as_str()
        .unwrap()
        .contains("\u{1b}[32mok\u{1b}[0m"));
    let full = rt
        .json(json!({"type": "threads.get_by_id", "params": {"thread_id": thread}}))
        .await;
    assert_eq!(hydrated_states(&full), expected);
    assert_eq!(full["title"], "show me an agent run");
}

#[tokio::test]
async fn agentcut_drops_mid_tool_and_keeps_the_call_in_progress() {
    let rt = Runtime::start();
    let reply = rt.chatkit(create("agentcut")).await;
    assert_eq!(reply.status, 200);
    assert!(!reply.complete, "the body ended cleanly");
    let events = events(&reply.body);
    assert_eq!(
        reduced_states(&events, false),
        states(&[("Run cargo build --release", "interrupted")])
    );
    let thread = thread_id(&events);
    let items = rt
        .json(json!({"type": "items.list", "params": {"thread_id": thread}}))
        .await;
    let calls = tool_calls(&items);
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0]["tool_call"]["status"], "in_progress");
    assert!(calls[0]["tool_call"]["rawOutput"]["output"]
        .as_str()
        .unwrap()
        .contains("Compiling demo"));
}

/// The stream that asked waits (keepalives and all) for the answer; the answer is checked,
/// saved once, and the waiting stream goes on with the tool run.
#[tokio::test]
async fn a_permission_answer_continues_the_waiting_stream_and_is_decided_once() {
    let rt = Runtime::start();
    rt.json(list_threads()).await;
    let asked = rt.stream(create("permission please"));
    let answering = async {
        let (thread, item, call) = rt.asking_call().await;
        // Refused: an option not offered, another tool call's id, an unknown outcome,
        // no item, another user.
        let bad = rt
            .chatkit(permission_answer(&thread, &item, &call, selected("sudo")))
            .await;
        assert_eq!(
            (bad.status, error_code(&bad)),
            (400, "unknown_option".into())
        );
        let bad = rt
            .chatkit(permission_answer(
                &thread,
                &item,
                "call_other",
                selected("allow-once"),
            ))
            .await;
        assert_eq!(
            (bad.status, error_code(&bad)),
            (400, "wrong_tool_call".into())
        );
        let bad = rt
            .chatkit(permission_answer(
                &thread,
                &item,
                &call,
                json!({"outcome": "maybe"}),
            ))
            .await;
        assert_eq!(bad.status, 400, "{}", bad.text());
        let mut no_item = permission_answer(&thread, &item, &call, selected("allow-once"));
        no_item["params"]["item_id"] = Value::Null;
        assert_eq!(rt.chatkit(no_item).await.status, 400);
        let missing = rt
            .chatkit(permission_answer(
                &thread,
                "tc_ffff",
                &call,
                selected("allow-once"),
            ))
            .await;
        assert_eq!(missing.status, 404);
        let stranger = rt.new_identity().await;
        let other = rt
            .request(
                "POST",
                "/chatkit",
                &[("Content-Type", "application/json"), ("Cookie", &stranger)],
                permission_answer(&thread, &item, &call, selected("allow-once"))
                    .to_string()
                    .as_bytes(),
            )
            .await;
        assert_eq!(
            (other.status, error_code(&other)),
            (404, "not_found".into())
        );
        // Still asking after all that.
        let still = rt
            .json(json!({"type": "items.list", "params": {"thread_id": thread}}))
            .await;
        assert!(tool_calls(&still)[0]["permission"]["outcome"].is_null());

        let confirmed = rt
            .stream(permission_answer(
                &thread,
                &item,
                &call,
                selected("allow-once"),
            ))
            .await;
        // The waiting stream runs the tool: this answer only confirms.
        assert_eq!(confirmed.len(), 1, "{confirmed:?}");
        assert!(matches!(
            updates(&confirmed)[..],
            [ItemUpdate::AcpPermissionResolved(_)]
        ));
        let again = rt
            .chatkit(permission_answer(
                &thread,
                &item,
                &call,
                selected("reject-once"),
            ))
            .await;
        assert_eq!(
            (again.status, error_code(&again)),
            (409, "already_decided".into())
        );
        assert!(again.json()["error"]
            .as_str()
            .unwrap()
            .contains("selected allow-once"));
        let cancel = rt
            .chatkit(permission_answer(
                &thread,
                &item,
                &call,
                json!({"outcome": "cancelled"}),
            ))
            .await;
        assert_eq!(cancel.status, 409);
        (thread, item)
    };
    let (events, (thread, item)) = tokio::join!(asked, answering);
    assert_eq!(
        reduced_states(&events, true),
        states(&[("Remove the incremental build cache", "completed")])
    );
    let kinds: Vec<&str> = updates(&events)
        .into_iter()
        .filter_map(|u| match u {
            ItemUpdate::AcpPermissionRequested(_) => Some("requested"),
            ItemUpdate::AcpPermissionResolved(_) => Some("resolved"),
            ItemUpdate::AcpToolCallUpdated(_) => Some("update"),
            _ => None,
        })
        .collect();
    assert_eq!(kinds, ["requested", "resolved", "update", "update"]);
    assert!(
        answer(&events).contains("Allow once"),
        "{}",
        answer(&events)
    );
    rt.wait_for_line("(the asking stream goes on)")
        .expect("the decision is logged");

    // Hydration: the decision and the finished call.
    let full = rt
        .json(json!({"type": "threads.get_by_id", "params": {"thread_id": thread}}))
        .await;
    let calls = tool_calls(&full["items"]);
    assert_eq!(calls[0]["id"], item.as_str());
    assert_eq!(calls[0]["permission"]["outcome"], selected("allow-once"));
    assert_eq!(
        calls[0]["permission"]["options"].as_array().unwrap().len(),
        4
    );
    assert_eq!(calls[0]["tool_call"]["status"], "completed");
    assert_eq!(
        hydrated_states(&full),
        states(&[("Remove the incremental build cache", "completed")])
    );
}

/// A run stopped while it asks (Stop: `threads.cancel_run`) is answered later: the
/// answer's own stream carries what the decision leads to. A reject and a cancel, each
/// saved and shown on reload. (A client that only left does not stop the run: see
/// tests/runs.rs.)
#[tokio::test]
async fn a_permission_answered_after_the_stream_ended_continues_in_its_answer() {
    let rt = Runtime::start();
    rt.json(list_threads()).await;
    for (outcome, status, says, state) in [
        (
            selected("reject-always"),
            "failed",
            Some("Always reject"),
            "rejected",
        ),
        (json!({"outcome": "cancelled"}), "failed", None, "cancelled"),
    ] {
        let mut stream = rt
            .open_until(create("permission"), "acp_tool_call.permission_requested")
            .await;
        let (thread, item, call) = rt.asking_call().await;
        let stopped = rt
            .json(json!({"type": "threads.cancel_run", "params": {"thread_id": thread}}))
            .await;
        assert_eq!(stopped, json!({"cancelled": true}));
        // The stopped stream ends: its last chunk comes (the connection is kept alive).
        while tokio::time::timeout(Duration::from_secs(5), stream.fill())
            .await
            .expect("the stopped stream ends")
        {}
        assert!(stream.complete, "cut: {}", stream.text());
        rt.wait_for_line(&format!("run cancelled: threads.create thread={thread}"))
            .unwrap_or_else(|| panic!("the runtime logged the cancel:\n{}", rt.output()));
        let events = rt
            .stream(permission_answer(&thread, &item, &call, outcome.clone()))
            .await;
        assert!(matches!(events[0], StreamEvent::StreamOptions(_)));
        assert!(matches!(
            updates(&events)[0],
            ItemUpdate::AcpPermissionResolved(_)
        ));
        let text = answer(&events);
        match says {
            Some(name) => assert!(text.contains(name), "{text}"),
            None => assert_eq!(text, "", "a cancelled request gets no answer"),
        }
        let full = rt
            .json(json!({"type": "threads.get_by_id", "params": {"thread_id": thread}}))
            .await;
        let calls = tool_calls(&full["items"]);
        assert_eq!(calls[0]["permission"]["outcome"], outcome);
        assert_eq!(calls[0]["tool_call"]["status"], status);
        assert_eq!(
            hydrated_states(&full),
            states(&[("Remove the incremental build cache", state)])
        );
        let again = rt
            .chatkit(permission_answer(
                &thread,
                &item,
                &call,
                selected("allow-once"),
            ))
            .await;
        assert_eq!(again.status, 409);
    }
    rt.wait_for_line("(this answer goes on)")
        .expect("the decision is logged");
}

/// An `event: message` SSE body as envelopes (`[DONE]` kept as is); comments skipped.
fn envelopes(body: &[u8]) -> Vec<String> {
    let text = std::str::from_utf8(body).unwrap();
    assert!(
        text.is_empty() || text.ends_with("\n\n"),
        "unterminated frame"
    );
    text.split_terminator("\n\n")
        .filter(|frame| !frame.starts_with(':'))
        .map(|frame| {
            let data = frame
                .strip_prefix("event: message\ndata: ")
                .unwrap_or_else(|| panic!("not an event: message frame: {frame:?}"));
            assert!(!data.contains('\n'), "a multi-line frame: {frame}");
            data.to_owned()
        })
        .collect()
}

fn events_body(text: &str) -> Vec<u8> {
    json!({"messages": [{"role": "user", "content": text}]})
        .to_string()
        .into_bytes()
}

#[tokio::test]
async fn events_streams_envelopes_the_core_decodes() {
    use chat_shell_core::protocol::events::{decode_envelope, EventKind};
    let rt = Runtime::start();
    let json_type = [("Content-Type", "application/json")];
    for keyword in [
        "hello", "tools", "budget", "agents", "hint", "longtool", "error",
    ] {
        let reply = rt.events_request(&json_type, &events_body(keyword)).await;
        assert_eq!(reply.status, 200, "{keyword}: {}", reply.text());
        assert_eq!(reply.header("content-type"), Some("text/event-stream"));
        assert_eq!(reply.header("cache-control"), Some("no-cache"));
        assert!(reply.complete, "{keyword}");
        let frames = envelopes(&reply.body);
        assert_eq!(
            frames.last().map(String::as_str),
            Some("[DONE]"),
            "{keyword}"
        );
        let decoded: Vec<EventKind> = frames[..frames.len() - 1]
            .iter()
            .map(|f| {
                let e = decode_envelope(f).unwrap_or_else(|e| panic!("{keyword}: {e}"));
                assert!(e.unknown_fields.is_empty(), "{keyword}: {f}");
                assert!(!matches!(e.event, EventKind::Other(_)), "{keyword}: {f}");
                e.event
            })
            .collect();
        let count = |f: fn(&EventKind) -> bool| decoded.iter().filter(|e| f(e)).count();
        assert!(
            count(|e| matches!(e, EventKind::Content(_))) > 0,
            "{keyword}"
        );
        match keyword {
            "tools" => {
                let results: Vec<Option<bool>> = decoded
                    .iter()
                    .filter_map(|e| match e {
                        EventKind::ToolResult(r) => Some(r.payload.success),
                        _ => None,
                    })
                    .collect();
                assert_eq!(results, [Some(true), Some(false), None]);
            }
            "budget" => assert!(matches!(
                decoded.last(),
                Some(EventKind::BudgetExhausted(b)) if b.message.as_deref() == Some("Tool-call budget reached (3 of 3)")
            )),
            "agents" => {
                assert_eq!(count(|e| matches!(e, EventKind::Agent(_))), 2);
                assert_eq!(count(|e| matches!(e, EventKind::Orchestration(_))), 3);
                assert_eq!(count(|e| matches!(e, EventKind::LoaderHint(_))), 2);
            }
            "hint" => assert_eq!(count(|e| matches!(e, EventKind::LoaderHint(_))), 2),
            "longtool" => assert_eq!(count(|e| matches!(e, EventKind::Keepalive(_))), 4),
            "error" => assert_eq!(count(|e| matches!(e, EventKind::Error(_))), 1),
            _ => {}
        }
    }
    // The cut: a tool call, then the connection breaks: no result, no [DONE].
    let cut = rt.events_request(&json_type, &events_body("cut")).await;
    assert_eq!(cut.status, 200);
    assert!(!cut.complete, "the body ended cleanly");
    let frames = envelopes(&cut.body);
    assert!(
        frames.last().unwrap().contains("\"tool_call\""),
        "{frames:?}"
    );
    rt.wait_for_line("POST /events tools 200")
        .expect("runs are logged by name");
}

#[tokio::test]
async fn events_refuses_what_is_not_a_conversation() {
    let rt = Runtime::start();
    let json_type = [("Content-Type", "application/json")];
    for content_type in ["text/plain", "application/x-www-form-urlencoded"] {
        let reply = rt
            .events_request(&[("Content-Type", content_type)], &events_body("hi"))
            .await;
        assert_eq!(reply.status, 415, "{content_type}");
        assert_eq!(error_code(&reply), "unsupported_media_type");
    }
    for body in [
        json!({"type": "threads.list", "params": {}}),
        json!({"messages": []}),
        json!({"messages": [{"role": "system", "content": "obey"}]}),
        json!({"messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]}),
        json!({"messages": [{"role": "user", "content": 7}]}),
        json!({"messages": [{"role": "user", "content": "a"}], "threadId": "t".repeat(300)}),
        json!({"messages": (0..501).map(|_| json!({"role": "user", "content": "a"})).collect::<Vec<_>>()}),
    ] {
        let reply = rt
            .events_request(&json_type, body.to_string().as_bytes())
            .await;
        assert_eq!(reply.status, 400, "{body}: {}", reply.text());
        assert_eq!(error_code(&reply), "bad_request");
    }
    let reply = rt.events_request(&json_type, b"{not json").await;
    assert_eq!(reply.status, 400);
    let huge = json!({"messages": [{"role": "user", "content": "x".repeat(1024 * 1024)}]});
    let reply = rt
        .events_request(&json_type, huge.to_string().as_bytes())
        .await;
    assert_eq!(reply.status, 413, "{}", reply.text());
    // The guard applies as for /chatkit: another site is refused.
    let reply = rt
        .request(
            "POST",
            "/events",
            &[
                ("Content-Type", "application/json"),
                ("Origin", "https://evil.example"),
            ],
            &events_body("hi"),
        )
        .await;
    assert_eq!(reply.status, 403);
    let reply = rt
        .request(
            "POST",
            "/events",
            &[
                ("Content-Type", "application/json"),
                ("Sec-Fetch-Site", "cross-site"),
            ],
            &events_body("hi"),
        )
        .await;
    assert_eq!(reply.status, 403);
    // A conversation with history, metadata and a thread id is fine.
    let ok = json!({"messages": [
        {"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"},
        {"role": "user", "content": "tools"}
    ], "threadId": "thr_1", "metadata": {"tenant": "acme"}});
    let reply = rt
        .events_request(&json_type, ok.to_string().as_bytes())
        .await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    rt.wait_for_line("POST /events - 415")
        .expect("refusals are logged");
}
