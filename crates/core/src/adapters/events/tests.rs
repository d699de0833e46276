//! The adapter, one test per envelope type, and the request body.

use super::*;
use crate::reducer::{reduce, ChatState, OutgoingMessage};
use serde_json::json;

fn feed(adapter: &mut EventsAdapter, envelope: Value) -> Vec<Input> {
    adapter.data(&envelope.to_string())
}

fn added(input: &Input) -> &Entry {
    match input {
        Input::Stream(Streamed::ItemAdded(item)) => item,
        other => panic!("expected an added item, got {other:?}"),
    }
}

fn delta(input: &Input) -> (&ItemId, &str) {
    match input {
        Input::Stream(Streamed::ItemChanged {
            item_id,
            change: ItemChange::TextDelta { delta, .. },
        }) => (item_id, delta.as_str()),
        other => panic!("expected a text delta, got {other:?}"),
    }
}

#[test]
fn content_opens_one_bubble_and_streams_into_it() {
    let mut a = EventsAdapter::new(3);
    let first = feed(&mut a, json!({"type": "content", "content": "Hello "}));
    assert_eq!(first.len(), 2, "{first:?}");
    let bubble = added(&first[0]);
    assert!(matches!(bubble.kind, EntryKind::AssistantText(_)));
    assert_eq!(bubble.id, ItemId::from("ev3_msg1"));
    assert_eq!(delta(&first[1]), (&bubble.id, "Hello "));
    let second = feed(&mut a, json!({"type": "content", "content": "world!"}));
    assert_eq!(second.len(), 1);
    assert_eq!(delta(&second[0]), (&bubble.id, "world!"));
}

#[test]
fn a_message_id_names_the_bubble() {
    let mut a = EventsAdapter::new(0);
    let one = feed(
        &mut a,
        json!({"type": "content", "content": "A", "messageId": "m1"}),
    );
    assert_eq!(added(&one[0]).id, ItemId::from("m1"));
    let two = feed(
        &mut a,
        json!({"type": "content", "content": "B", "messageId": "m2"}),
    );
    assert_eq!(added(&two[0]).id, ItemId::from("m2"));
    // Back to a bubble already open: no second add (that would wipe its text).
    let back = feed(
        &mut a,
        json!({"type": "content", "content": "C", "messageId": "m1"}),
    );
    assert_eq!(back.len(), 1);
    assert_eq!(delta(&back[0]), (&ItemId::from("m1"), "C"));
}

#[test]
fn broken_known_types_are_malformed_with_their_payload_and_unknown_types_are_not() {
    let mut a = EventsAdapter::new(0);
    for broken in [
        json!({"type": "content"}),
        json!({"type": "content", "content": 5}),
        json!({"type": "tool_call", "payload": {"id": "c1"}}),
        json!({"type": "tool_result", "payload": {"success": "yes"}}),
        json!({"type": "error", "message": ["no"]}),
    ] {
        let raw = broken.to_string();
        let inputs = a.data(&raw);
        assert!(
            matches!(&inputs[..], [Input::Malformed(e)] if e.raw == raw),
            "{broken}: {inputs:?}"
        );
    }
    assert!(matches!(&a.data("not json")[..], [Input::Malformed(_)]));
    let unknown = feed(&mut a, json!({"type": "telemetry", "tokens": 12}));
    assert_eq!(
        unknown,
        [Input::Unrecognized(Unrecognized::EventType(
            "telemetry".into()
        ))]
    );
}

#[test]
fn unknown_fields_are_counted_and_the_event_still_applies() {
    let mut a = EventsAdapter::new(0);
    let inputs = feed(
        &mut a,
        json!({"type": "content", "content": "Hi", "seq": 4, "taskId": "t1"}),
    );
    assert_eq!(
        inputs[0],
        Input::Unrecognized(Unrecognized::Field {
            event_type: "content".into(),
            field: "seq".into()
        })
    );
    assert_eq!(
        inputs.len(),
        3,
        "the field, the bubble and the delta: {inputs:?}"
    );
}

#[test]
fn a_tool_call_is_an_acp_tool_call_item_and_closes_the_bubble() {
    let mut a = EventsAdapter::new(0);
    feed(&mut a, json!({"type": "content", "content": "Checking. "}));
    let inputs = feed(
        &mut a,
        json!({"type": "tool_call", "payload": {"id": "c1", "name": "read_file", "arguments": {"path": "README.md"}}}),
    );
    let item = added(&inputs[0]);
    let EntryKind::ToolCall(call) = &item.kind else {
        panic!("{item:?}");
    };
    let call = &call.tool_call;
    assert_eq!(call.tool_call_id, ToolCallId::from("c1"));
    assert_eq!(call.title, "read_file");
    assert_eq!(call.kind, ToolKind::Other);
    assert_eq!(call.status, ToolCallStatus::InProgress);
    assert_eq!(call.raw_input, Some(json!({"path": "README.md"})));
    let after = feed(&mut a, json!({"type": "content", "content": "Done."}));
    assert_eq!(
        after.len(),
        2,
        "text after a tool call is a new bubble: {after:?}"
    );
    assert_ne!(added(&after[0]).id, ItemId::from("ev0_msg1"));
}

#[test]
fn tool_results_pair_by_id_else_with_the_latest_open_call() {
    let mut a = EventsAdapter::new(0);
    let c1 = added(
        &feed(
            &mut a,
            json!({"type": "tool_call", "payload": {"id": "c1", "name": "a"}}),
        )[0],
    )
    .id
    .clone();
    let c2 = added(
        &feed(
            &mut a,
            json!({"type": "tool_call", "payload": {"name": "b"}}),
        )[0],
    )
    .id
    .clone();
    let c3 = added(
        &feed(
            &mut a,
            json!({"type": "tool_call", "payload": {"name": "c"}}),
        )[0],
    )
    .id
    .clone();
    let result = |a: &mut EventsAdapter, payload: Value| match &feed(
        a,
        json!({"type": "tool_result", "payload": payload}),
    )[..]
    {
        [Input::ToolResult {
            item_id,
            success,
            output,
        }] => (item_id.clone(), *success, output.clone()),
        other => panic!("{other:?}"),
    };
    assert_eq!(
        result(
            &mut a,
            json!({"id": "c1", "success": true, "data": {"content": "# Hi"}})
        ),
        (c1, Some(true), Some(json!({"content": "# Hi"})))
    );
    // No id: the latest call without a result; a missing `success` stays unknown.
    assert_eq!(
        result(&mut a, json!({"data": 1})),
        (c3, None, Some(json!(1)))
    );
    assert_eq!(
        result(&mut a, json!({"success": false, "error": "denied"})),
        (c2, Some(false), Some(json!("denied")))
    );
    // A result for no call still shows, under an id of its own.
    let (orphan, success, _) = result(&mut a, json!({"success": true}));
    assert!(orphan.0.starts_with("ev0_result"), "{orphan}");
    assert_eq!(success, Some(true));
    // An empty result: an unknown outcome.
    let bare = feed(&mut a, json!({"type": "tool_result"}));
    assert!(matches!(
        &bare[..],
        [Input::ToolResult {
            success: None,
            output: None,
            ..
        }]
    ));
}

#[test]
fn error_budget_agent_orchestration_and_hints_map_to_their_inputs() {
    let mut a = EventsAdapter::new(0);
    assert_eq!(
        feed(
            &mut a,
            json!({"type": "error", "message": "Search failed", "code": "tool_timeout"})
        ),
        [Input::RunError {
            message: "Search failed".into(),
            code: Some("tool_timeout".into())
        }]
    );
    assert_eq!(
        feed(
            &mut a,
            json!({"type": "budget_exhausted", "message": "Max 20 tool calls reached"})
        ),
        [Input::BudgetExhausted {
            message: "Max 20 tool calls reached".into()
        }]
    );
    assert_eq!(
        feed(
            &mut a,
            json!({"type": "budget_exhausted", "payload": {"limit": "tokens"}})
        ),
        [Input::BudgetExhausted {
            message: "tokens".into()
        }]
    );
    feed(&mut a, json!({"type": "content", "content": "Plan: "}));
    let agent = feed(
        &mut a,
        json!({"type": "agent", "payload": {"name": "researcher", "id": "ag_2"}}),
    );
    let [Input::AgentChanged(info)] = &agent[..] else {
        panic!("{agent:?}");
    };
    assert_eq!(
        (info.name.as_str(), info.id.as_deref()),
        ("researcher", Some("ag_2"))
    );
    let next = feed(&mut a, json!({"type": "content", "content": "Found it."}));
    assert_eq!(
        next.len(),
        2,
        "another agent's words are a new bubble: {next:?}"
    );

    let orchestration = feed(
        &mut a,
        json!({"type": "orchestration", "orchestrationGroupId": "g1", "payload": {
            "status": "delegating",
            "plan": ["Search", {"title": "Summarize", "status": "pending", "agent": "writer"}, 7]
        }}),
    );
    let [Input::Orchestration(o)] = &orchestration[..] else {
        panic!("{orchestration:?}");
    };
    assert_eq!(o.group_id.as_deref(), Some("g1"));
    assert_eq!(o.status.as_deref(), Some("delegating"));
    let plan = o.plan.as_ref().expect("a plan");
    assert_eq!(plan.len(), 2);
    assert_eq!(plan[1].agent.as_deref(), Some("writer"));
    let status_only = feed(
        &mut a,
        json!({"type": "orchestration", "message": "Merging"}),
    );
    assert!(
        matches!(&status_only[..], [Input::Orchestration(o)] if o.plan.is_none() && o.status.as_deref() == Some("Merging"))
    );

    assert_eq!(
        feed(
            &mut a,
            json!({"type": "loader-hint", "hint": "Reading files…"})
        ),
        [Input::Stream(Streamed::Progress {
            icon: None,
            text: "Reading files…".into()
        })]
    );
    assert!(feed(&mut a, json!({"type": "loader-hint", "hint": " "})).is_empty());
    assert!(feed(&mut a, json!({"type": "keepalive"})).is_empty());
}

#[test]
fn done_and_the_done_line_end_the_stream_once() {
    let mut a = EventsAdapter::new(0);
    assert_eq!(feed(&mut a, json!({"type": "done"})), [Input::StreamEnded]);
    assert!(a.is_done());
    assert!(a.push(SseFrame::Done).is_empty());
    assert!(feed(&mut a, json!({"type": "content", "content": "late"})).is_empty());
    let mut b = EventsAdapter::new(0);
    assert_eq!(b.push(SseFrame::Done), [Input::StreamEnded]);
    let mut c = EventsAdapter::new(0);
    assert_eq!(c.data("[DONE]"), [Input::StreamEnded]);
}

#[test]
fn the_request_body_carries_the_conversation() {
    let mut state = ChatState::new();
    reduce(
        &mut state,
        Input::SendStarted(OutgoingMessage {
            content: Vec::new(),
            text: "Summarize the README".into(),
            ..Default::default()
        }),
    );
    let mut a = EventsAdapter::new(0);
    for input in feed(
        &mut a,
        json!({"type": "content", "content": "It describes chat-shell."}),
    )
    .into_iter()
    .chain(feed(
        &mut a,
        json!({"type": "tool_call", "payload": {"name": "x"}}),
    ))
    .chain(a.push(SseFrame::Done))
    {
        reduce(&mut state, input);
    }
    reduce(
        &mut state,
        Input::SendStarted(OutgoingMessage {
            content: Vec::new(),
            text: "And the license?".into(),
            ..Default::default()
        }),
    );
    let mut metadata = JsonMap::new();
    metadata.insert("tenant".into(), json!("acme"));
    let body = request(&state, Some(metadata));
    assert_eq!(
        serde_json::to_value(&body).unwrap(),
        json!({
            "messages": [
                {"role": "user", "content": "Summarize the README"},
                {"role": "assistant", "content": "It describes chat-shell."},
                {"role": "user", "content": "And the license?"}
            ],
            "metadata": {"tenant": "acme"}
        })
    );
}
