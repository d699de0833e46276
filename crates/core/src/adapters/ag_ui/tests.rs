//! The adapter event by event, the ordering rules, interrupts and their answers, and the
//! request built back from the conversation.

use super::*;
use crate::model::{Entry, EntryKind};
use crate::protocol::acp::{PermissionOptionId, PermissionOutcome, ToolCallStatus};
use crate::protocol::ag_ui::{Message, Resume, ResumeStatus};
use crate::protocol::chatkit::{ClientToolCall, ClientToolStatus, ItemId};
use crate::reducer::{reduce, ChatState, Effect, Input, OutgoingMessage, Streamed};
use crate::sse::SseFrame;
use serde_json::{json, Value};
use std::collections::HashSet;

fn adapter() -> AgUiAdapter {
    AgUiAdapter::new(HashSet::new(), vec!["get_weather".into()], Vec::new())
}

fn feed(a: &mut AgUiAdapter, c: &mut Conversation, events: &[Value]) -> Vec<Input> {
    events
        .iter()
        .flat_map(|e| {
            a.push(
                SseFrame::Event {
                    event: None,
                    data: e.to_string(),
                    id: None,
                },
                c,
            )
        })
        .collect()
}

fn started() -> Value {
    json!({"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"})
}

fn finished() -> Value {
    json!({"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"})
}

/// A conversation in which the user said `text`, then the inputs.
fn replay(text: &str, inputs: Vec<Input>) -> (ChatState, Vec<Effect>) {
    let mut state = ChatState::new();
    let mut effects = Vec::new();
    let start = Input::SendStarted(OutgoingMessage {
        text: text.into(),
        ..Default::default()
    });
    for input in std::iter::once(start).chain(inputs) {
        effects.extend(reduce(&mut state, input).effects);
    }
    (state, effects)
}

fn kinds(state: &ChatState) -> Vec<&'static str> {
    state
        .items()
        .iter()
        .map(|i| match &i.entry.kind {
            EntryKind::UserMessage(_) => "user",
            EntryKind::AssistantText(_) => "answer",
            EntryKind::ToolCall(_) => "tool",
            EntryKind::ClientToolCall(_) => "client tool",
            EntryKind::Thought(_) => "thought",
            EntryKind::Elicitation(_) => "form",
            EntryKind::Plan(_) => "plan",
            EntryKind::Unsupported(_) => "unknown",
            _ => "other",
        })
        .collect()
}

#[test]
fn text_streams_into_one_bubble_and_an_empty_pair_shows_nothing() {
    let (mut a, mut c) = (adapter(), Conversation::new("t1".into()));
    let mut inputs = feed(
        &mut a,
        &mut c,
        &[
            started(),
            json!({"type": "TEXT_MESSAGE_START", "messageId": "empty", "role": "assistant"}),
            json!({"type": "TEXT_MESSAGE_END", "messageId": "empty"}),
            json!({"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"}),
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "Hello "}),
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "<b>there</b>"}),
            json!({"type": "TEXT_MESSAGE_END", "messageId": "m1"}),
            finished(),
        ],
    );
    inputs.push(Input::StreamEnded);
    let (state, _) = replay("hi", inputs);
    assert_eq!(kinds(&state), ["user", "answer"]);
    let answer = &state.items()[1];
    assert_eq!(answer.entry.id.0, "m1");
    assert_eq!(
        crate::reducer::assistant_text(answer).as_deref(),
        Some("Hello <b>there</b>"),
        "kept as the markdown it is (the renderer sanitizes it)"
    );
}

#[test]
fn chunks_open_a_message_and_a_tool_call_without_start_events() {
    let (mut a, mut c) = (adapter(), Conversation::new("t1".into()));
    let mut inputs = feed(
        &mut a,
        &mut c,
        &[
            started(),
            json!({"type": "TEXT_MESSAGE_CHUNK", "messageId": "m1", "role": "assistant", "delta": "One "}),
            json!({"type": "TEXT_MESSAGE_CHUNK", "delta": "two."}),
            json!({"type": "TOOL_CALL_CHUNK", "toolCallId": "c1", "toolCallName": "search", "delta": "{\"q\":"}),
            json!({"type": "TOOL_CALL_CHUNK", "delta": "\"x\"}"}),
            json!({"type": "TOOL_CALL_RESULT", "messageId": "r", "toolCallId": "c1", "content": "found"}),
            finished(),
        ],
    );
    inputs.push(Input::StreamEnded);
    let (state, _) = replay("go", inputs);
    assert_eq!(kinds(&state), ["user", "answer", "tool"]);
    assert_eq!(
        crate::reducer::assistant_text(&state.items()[1]).as_deref(),
        Some("One two.")
    );
    let EntryKind::ToolCall(call) = &state.items()[2].entry.kind else {
        panic!()
    };
    assert_eq!(call.tool_call.raw_input, Some(json!({"q": "x"})));
    assert_eq!(call.tool_call.raw_output, Some(json!("found")));
    assert_eq!(call.tool_call.status, ToolCallStatus::Completed);
}

#[test]
fn a_backend_tool_shows_its_arguments_as_they_stream_then_its_result() {
    let (mut a, mut c) = (adapter(), Conversation::new("t1".into()));
    let first = feed(
        &mut a,
        &mut c,
        &[
            started(),
            json!({"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "search_docs", "parentMessageId": "m0"}),
            json!({"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "{\"query\":"}),
        ],
    );
    let (state, _) = replay("find", first.clone());
    assert_eq!(kinds(&state), ["user", "tool"]);
    let EntryKind::ToolCall(call) = &state.items()[1].entry.kind else {
        panic!()
    };
    assert_eq!(call.tool_call.title, "search_docs");
    assert_eq!(call.tool_call.status, ToolCallStatus::InProgress);
    assert_eq!(
        call.tool_call.raw_input,
        Some(json!("{\"query\":")),
        "as it streams"
    );
    let rest = feed(
        &mut a,
        &mut c,
        &[
            json!({"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "\"notes\"}"}),
            json!({"type": "TOOL_CALL_END", "toolCallId": "c1"}),
            json!({"type": "TOOL_CALL_RESULT", "messageId": "r1", "toolCallId": "c1", "content": "3 results", "role": "tool"}),
            finished(),
        ],
    );
    let (state, _) = replay("find", first.into_iter().chain(rest).collect());
    let EntryKind::ToolCall(call) = &state.items()[1].entry.kind else {
        panic!()
    };
    assert_eq!(call.tool_call.raw_input, Some(json!({"query": "notes"})));
    assert_eq!(call.tool_call.raw_output, Some(json!("3 results")));
    assert_eq!(call.tool_call.status, ToolCallStatus::Completed);
}

#[test]
fn a_declared_client_tool_waits_for_the_page_which_runs_it_when_the_stream_ends() {
    let (mut a, mut c) = (adapter(), Conversation::new("t1".into()));
    let mut inputs = feed(
        &mut a,
        &mut c,
        &[
            started(),
            json!({"type": "TOOL_CALL_START", "toolCallId": "w1", "toolCallName": "get_weather"}),
            json!({"type": "TOOL_CALL_ARGS", "toolCallId": "w1", "delta": "{\"city\":\"Paris\"}"}),
            json!({"type": "TOOL_CALL_END", "toolCallId": "w1"}),
            finished(),
        ],
    );
    inputs.push(Input::StreamEnded);
    let (state, effects) = replay("weather?", inputs);
    assert_eq!(kinds(&state), ["user", "client tool"]);
    let asked: Vec<_> = effects
        .iter()
        .filter_map(|e| match e {
            Effect::InvokeClientTool {
                name, arguments, ..
            } => Some((name.as_str(), arguments.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(asked, [("get_weather", json!({"city": "Paris"}))]);
}

#[test]
fn reasoning_is_a_thought_apart_from_the_answer_old_names_too_and_encrypted_is_kept_unshown() {
    for (start, content, end) in [
        (
            "REASONING_START",
            "REASONING_MESSAGE_CONTENT",
            "REASONING_END",
        ),
        (
            "THINKING_START",
            "THINKING_TEXT_MESSAGE_CONTENT",
            "THINKING_END",
        ),
    ] {
        let (mut a, mut c) = (adapter(), Conversation::new("t1".into()));
        let mut inputs = feed(
            &mut a,
            &mut c,
            &[
                started(),
                json!({"type": start, "messageId": "r1"}),
                json!({"type": content, "messageId": "r1", "delta": "Let me think."}),
                json!({"type": "REASONING_ENCRYPTED_VALUE", "subtype": "message", "entityId": "r1", "encryptedValue": "enc-1"}),
                json!({"type": end, "messageId": "r1"}),
                json!({"type": "TEXT_MESSAGE_START", "messageId": "m1"}),
                json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "The answer."}),
                finished(),
            ],
        );
        inputs.push(Input::StreamEnded);
        let (state, _) = replay("why", inputs);
        assert_eq!(kinds(&state), ["user", "thought", "answer"], "{start}");
        let EntryKind::Thought(t) = &state.items()[1].entry.kind else {
            panic!()
        };
        assert_eq!(t.text, "Let me think.");
        assert_eq!(
            crate::reducer::assistant_text(&state.items()[2]).as_deref(),
            Some("The answer.")
        );
        assert_eq!(c.encrypted_of("r1").as_deref(), Some("enc-1"));
        // It goes back with the reasoning, and the reasoning only because of it.
        let sent = request(&state, &c, RunSetup::default());
        assert!(
            sent.messages.iter().any(|m| matches!(m,
            Message::Reasoning { id, encrypted_value: Some(v), .. } if id == "r1" && v == "enc-1"))
        );
    }
}

#[test]
fn state_snapshots_and_patches_are_kept_and_a_broken_patch_changes_nothing() {
    let (mut a, mut c) = (adapter(), Conversation::new("t1".into()));
    let inputs = feed(
        &mut a,
        &mut c,
        &[
            started(),
            json!({"type": "STATE_SNAPSHOT", "snapshot": {"counter": 1, "items": ["a"]}}),
            json!({"type": "STATE_DELTA", "delta": [{"op": "add", "path": "/items/-", "value": "b"}, {"op": "replace", "path": "/counter", "value": 2}]}),
            json!({"type": "STATE_DELTA", "delta": [{"op": "remove", "path": "/nope"}]}),
            json!({"type": "STATE_DELTA", "delta": {"not": "a patch"}}),
        ],
    );
    assert_eq!(c.state, json!({"counter": 2, "items": ["a", "b"]}));
    let states: Vec<&Value> = inputs
        .iter()
        .filter_map(|i| match i {
            Input::AgentState(v) => Some(v),
            _ => None,
        })
        .collect();
    assert_eq!(states.len(), 2);
    let refused = inputs
        .iter()
        .filter(|i| {
            matches!(
                i,
                Input::DiagnosticFact {
                    kind: "ag_ui_state_delta_refused",
                    ..
                }
            )
        })
        .count();
    assert_eq!(refused, 2);
    let (state, _) = replay("count", inputs);
    assert_eq!(
        state.agent_state,
        Some(json!({"counter": 2, "items": ["a", "b"]}))
    );
    assert_eq!(request(&state, &c, RunSetup::default()).state, c.state);
}

#[test]
fn an_event_after_the_end_without_a_new_start_is_a_protocol_error_said_once() {
    let (mut a, mut c) = (adapter(), Conversation::new("t1".into()));
    let mut inputs = feed(
        &mut a,
        &mut c,
        &[
            started(),
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "Before."}),
            finished(),
            json!({"type": "TEXT_MESSAGE_START", "messageId": "m2"}),
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m2", "delta": "After the end"}),
            json!({"type": "SOMETHING_NEW"}),
            // A second run in the same stream is fine.
            json!({"type": "RUN_STARTED", "threadId": "t1", "runId": "r2"}),
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m3", "delta": "Second run."}),
            json!({"type": "RUN_FINISHED", "threadId": "t1", "runId": "r2"}),
        ],
    );
    let errors: Vec<_> = inputs
        .iter()
        .filter_map(|i| match i {
            Input::RunError { code, message } => Some((code.clone(), message.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].0.as_deref(), Some("ag_ui.order"));
    assert!(errors[0].1.contains("TEXT_MESSAGE_START"));
    inputs.push(Input::StreamEnded);
    let (state, _) = replay("twice", inputs);
    let texts: Vec<String> = state
        .items()
        .iter()
        .filter_map(crate::reducer::assistant_text)
        .collect();
    assert_eq!(texts, ["Before.", "Second run."]);
}

#[test]
fn run_error_keeps_the_message_and_offers_retry_and_a_broken_connection_is_a_failure() {
    let (mut a, mut c) = (adapter(), Conversation::new("t1".into()));
    let inputs = feed(
        &mut a,
        &mut c,
        &[
            started(),
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "Starting"}),
            json!({"type": "RUN_ERROR", "message": "The model is overloaded", "code": "overloaded"}),
        ],
    );
    let (state, effects) = replay("fail please", inputs);
    let error = state.error.as_ref().expect("the turn failed");
    assert!(error.by_agent && error.allow_retry);
    assert_eq!(error.message, "The model is overloaded");
    assert_eq!(error.code, "overloaded");
    assert!(
        error.retry_after.is_some(),
        "Retry runs the same messages again"
    );
    assert_eq!(kinds(&state)[0], "user", "the message stays");
    assert!(!effects
        .iter()
        .any(|e| matches!(e, Effect::RestoreDraft { .. })));
    // A stream that ends mid-run: the connection broke.
    let (mut a, mut c) = (adapter(), Conversation::new("t1".into()));
    feed(&mut a, &mut c, &[started()]);
    assert!(matches!(
        &a.end(&mut c)[..],
        [Input::StreamFailed {
            allow_retry: true,
            ..
        }]
    ));
    let mut done = adapter();
    feed(&mut done, &mut c, &[started(), finished()]);
    assert!(done.end(&mut c).is_empty());
}

#[test]
fn an_approval_interrupt_is_a_card_resolved_when_the_answering_run_starts() {
    let (mut a, mut c) = (adapter(), Conversation::new("t1".into()));
    let inputs = feed(
        &mut a,
        &mut c,
        &[
            started(),
            json!({"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1", "outcome": {"type": "interrupt", "interrupts": [{"id": "int-1", "reason": "approval", "message": "Delete 3 files?"}]}}),
        ],
    );
    let action = inputs.iter().find_map(|i| match i {
        Input::ActionRequired {
            item_id,
            request,
            action_id,
            ..
        } => Some((item_id.clone(), request.clone(), action_id.clone())),
        _ => None,
    });
    let (item_id, request, action_id) = action.expect("a card");
    assert_eq!(item_id, interrupt_item("int-1"));
    assert_eq!(action_id, "int-1");
    let names: Vec<&str> = request.options.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(names, ["Approve", "Reject"]);
    assert_eq!(c.interrupts.len(), 1);
    assert!(c.interrupt_of(&item_id).is_some());
    let (mut state, _) = replay("delete", inputs);
    assert_eq!(kinds(&state), ["user", "tool"]);
    // The answer goes with the next run; the card is answered once that run starts.
    let resume = Resume {
        interrupt_id: "int-1".into(),
        status: ResumeStatus::Resolved,
        payload: Some(json!({"approved": false})),
    };
    let mut next = AgUiAdapter::new(HashSet::new(), Vec::new(), vec![resume.clone()]);
    let sent = super::request(
        &state,
        &c,
        RunSetup {
            resume: vec![resume],
            ..RunSetup::default()
        },
    );
    assert_eq!(sent.resume[0].interrupt_id, "int-1");
    assert!(
        sent.messages
            .iter()
            .all(|m| !matches!(m, Message::Assistant { tool_calls, .. } if !tool_calls.is_empty())),
        "the card is no tool call of the agent's"
    );
    for input in feed(&mut next, &mut c, &[started()]) {
        reduce(&mut state, input);
    }
    assert!(c.interrupts.is_empty());
    let EntryKind::ToolCall(card) = &state.items()[1].entry.kind else {
        panic!()
    };
    assert_eq!(
        card.permission.as_ref().and_then(|p| p.outcome.clone()),
        Some(PermissionOutcome::Selected {
            option_id: PermissionOptionId(REJECT.into())
        })
    );
}

#[test]
fn an_interrupt_with_a_schema_is_a_form() {
    let (mut a, mut c) = (adapter(), Conversation::new("t1".into()));
    let inputs = feed(
        &mut a,
        &mut c,
        &[
            started(),
            json!({"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1", "outcome": {"type": "interrupt", "interrupts": [{"id": "int-f", "reason": "input", "message": "Which city?", "responseSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}]}}),
        ],
    );
    let (state, _) = replay("book", inputs);
    assert_eq!(kinds(&state), ["user", "form"]);
    let EntryKind::Elicitation(e) = &state.items()[1].entry.kind else {
        panic!()
    };
    assert_eq!(e.request.message, "Which city?");
    assert_eq!(e.request.elicitation_id.as_deref(), Some("int-f"));
}

#[test]
fn the_request_sends_the_whole_conversation_with_calls_and_results_in_order() {
    let (mut a, mut c) = (adapter(), Conversation::new("thread-9".into()));
    let mut inputs = feed(
        &mut a,
        &mut c,
        &[
            started(),
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "Let me look."}),
            json!({"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "search_docs"}),
            json!({"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "{\"query\":\"x\"}"}),
            json!({"type": "TOOL_CALL_END", "toolCallId": "c1"}),
            json!({"type": "TOOL_CALL_RESULT", "messageId": "r1", "toolCallId": "c1", "content": "3 results"}),
            json!({"type": "TOOL_CALL_START", "toolCallId": "w1", "toolCallName": "get_weather"}),
            json!({"type": "TOOL_CALL_ARGS", "toolCallId": "w1", "delta": "{\"city\":\"Paris\"}"}),
            json!({"type": "TOOL_CALL_END", "toolCallId": "w1"}),
            finished(),
        ],
    );
    inputs.push(Input::StreamEnded);
    let (mut state, _) = replay("what now?", inputs);
    // The page ran the client tool.
    reduce(
        &mut state,
        Input::Stream(Streamed::ItemDone(Entry::new(
            ItemId("w1".into()),
            EntryKind::ClientToolCall(ClientToolCall {
                status: ClientToolStatus::Completed,
                call_id: "w1".into(),
                name: "get_weather".into(),
                arguments: json!({"city": "Paris"}),
                output: Some(json!({"sky": "clear"})),
            }),
        ))),
    );
    let sent = request(
        &state,
        &c,
        RunSetup {
            run_id: "run-2".into(),
            tools: vec![crate::protocol::ag_ui::Tool {
                name: "get_weather".into(),
                description: "The weather".into(),
                parameters: None,
            }],
            ..RunSetup::default()
        },
    );
    let value = serde_json::to_value(&sent).unwrap();
    assert_eq!(value["threadId"], "thread-9");
    assert_eq!(value["runId"], "run-2");
    assert_eq!(value["tools"][0]["name"], "get_weather");
    let roles: Vec<&str> = value["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "assistant", "tool", "tool"]);
    let assistant = &value["messages"][1];
    assert_eq!(assistant["content"], "Let me look.");
    let calls: Vec<&str> = assistant["toolCalls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["function"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(calls, ["search_docs", "get_weather"]);
    assert_eq!(
        assistant["toolCalls"][1]["function"]["arguments"],
        r#"{"city":"Paris"}"#
    );
    assert_eq!(value["messages"][2]["toolCallId"], "c1");
    assert_eq!(value["messages"][2]["content"], "3 results");
    assert_eq!(value["messages"][3]["toolCallId"], "w1");
    assert_eq!(value["messages"][3]["content"], r#"{"sky":"clear"}"#);
    assert_eq!(value["messages"][0]["content"], "what now?");
}

#[test]
fn a_messages_snapshot_replaces_the_items_and_an_activity_shows_as_a_plan_or_as_unknown() {
    let (mut a, mut c) = (adapter(), Conversation::new("t1".into()));
    let mut inputs = feed(
        &mut a,
        &mut c,
        &[
            started(),
            json!({"type": "MESSAGES_SNAPSHOT", "messages": [
                {"id": "u0", "role": "user", "content": "Earlier question"},
                {"id": "a0", "role": "assistant", "content": "Earlier answer", "toolCalls": [
                    {"id": "c0", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}]},
                {"id": "t0", "role": "tool", "toolCallId": "c0", "content": "ok"},
                {"id": "s0", "role": "system", "content": "be brief"},
                {"id": "x0", "role": "activity", "activityType": "PLAN", "content": {}}
            ]}),
            json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "act-1", "activityType": "PLAN", "content": {"steps": ["one", "two"]}}),
            json!({"type": "ACTIVITY_DELTA", "messageId": "act-1", "activityType": "PLAN", "patch": [{"op": "add", "path": "/steps/-", "value": "three"}]}),
            json!({"type": "ACTIVITY_SNAPSHOT", "messageId": "act-2", "activityType": "mystery_widget", "content": {"x": 1}}),
            json!({"type": "CUSTOM", "name": "confetti", "value": {"count": 3}}),
            json!({"type": "RAW", "event": {"anything": true}, "source": "test"}),
            finished(),
        ],
    );
    inputs.push(Input::StreamEnded);
    let (state, effects) = replay("show me", inputs);
    assert_eq!(kinds(&state), ["user", "answer", "tool", "plan", "unknown"]);
    let EntryKind::Plan(plan) = &state.items()[3].entry.kind else {
        panic!()
    };
    let steps: Vec<&str> = plan.entries.iter().map(|e| e.content.as_str()).collect();
    assert_eq!(steps, ["one", "two", "three"]);
    let host: Vec<&str> = effects
        .iter()
        .filter_map(|e| match e {
            Effect::Emit(ev) => Some(ev.name()),
            _ => None,
        })
        .filter(|n| ["chat.custom", "chat.raw"].contains(n))
        .collect();
    assert_eq!(host, ["chat.custom", "chat.raw"]);
}

#[test]
fn ids_an_agent_reuses_get_items_of_their_own() {
    let known: HashSet<String> = ["m1".to_owned()].into();
    let mut a = AgUiAdapter::new(known, Vec::new(), Vec::new());
    let mut c = Conversation::new("t1".into());
    let inputs = feed(
        &mut a,
        &mut c,
        &[
            started(),
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "again"}),
        ],
    );
    let Input::Stream(Streamed::ItemAdded(entry)) = &inputs[0] else {
        panic!("{inputs:?}")
    };
    assert_eq!(entry.id.0, "m1~2");
}

#[test]
fn broken_known_events_are_malformed_and_unknown_ones_are_ignored() {
    let (mut a, mut c) = (adapter(), Conversation::new("t1".into()));
    let inputs = feed(
        &mut a,
        &mut c,
        &[
            started(),
            json!({"type": "TOOL_CALL_START", "toolCallId": "c1"}),
            json!({"type": "SUBAGENT_STARTED", "whatever": 1}),
        ],
    );
    assert!(matches!(&inputs[..], [Input::Malformed(_)]), "{inputs:?}");
    let huge = "x".repeat(MAX_ARGS + 10);
    let inputs = feed(
        &mut a,
        &mut c,
        &[
            json!({"type": "TOOL_CALL_START", "toolCallId": "c2", "toolCallName": "big"}),
            json!({"type": "TOOL_CALL_ARGS", "toolCallId": "c2", "delta": huge}),
        ],
    );
    assert_eq!(inputs.len(), 1, "the oversized piece is not kept");
    assert!(a.open_args().all(|args| args.len() <= MAX_ARGS));
}

#[test]
fn a_call_an_interrupt_waits_on_goes_back_without_a_result() {
    let (mut a, mut c) = (adapter(), Conversation::new("t1".into()));
    let mut inputs = feed(
        &mut a,
        &mut c,
        &[
            started(),
            json!({"type": "TOOL_CALL_START", "toolCallId": "d1", "toolCallName": "delete_files"}),
            json!({"type": "TOOL_CALL_ARGS", "toolCallId": "d1", "delta": "{\"count\":3}"}),
            json!({"type": "TOOL_CALL_END", "toolCallId": "d1"}),
            json!({"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1", "outcome": {"type": "interrupt", "interrupts": [
                {"id": "int-d1", "reason": "tool_call", "toolCallId": "d1", "message": "Approve delete_files?",
                 "responseSchema": {"type": "object", "properties": {"approved": {"type": "boolean"}}, "required": ["approved"]}}]}}),
        ],
    );
    inputs.push(Input::StreamEnded);
    let (state, _) = replay("approve it", inputs);
    // A decision, not a form: the card is on the call itself.
    assert_eq!(kinds(&state), ["user", "tool"]);
    let EntryKind::ToolCall(call) = &state.items()[1].entry.kind else {
        panic!()
    };
    assert!(call.permission.is_some(), "the call asks");
    assert_eq!(
        call.tool_call.title, "delete_files",
        "its name stays: it goes back"
    );
    let sent = serde_json::to_value(request(&state, &c, RunSetup::default())).unwrap();
    let roles: Vec<&str> = sent["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "assistant"]);
    assert_eq!(sent["messages"][1]["toolCalls"][0]["id"], "d1");
    assert!(
        sent["messages"][1].get("content").is_none(),
        "no null content"
    );
}

#[test]
fn a_stored_conversation_comes_back_as_it_was_shown() {
    let (mut a, mut c) = (adapter(), Conversation::new("t1".into()));
    let mut inputs = feed(
        &mut a,
        &mut c,
        &[
            started(),
            json!({"type": "REASONING_MESSAGE_CONTENT", "messageId": "r1", "delta": "Plain reasoning."}),
            json!({"type": "REASONING_END", "messageId": "r1"}),
            json!({"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "search_docs"}),
            json!({"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "{\"query\":\"x\"}"}),
            json!({"type": "TOOL_CALL_RESULT", "messageId": "m9", "toolCallId": "c1", "content": "3 results"}),
            json!({"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "**Done.**"}),
            finished(),
        ],
    );
    inputs.push(Input::StreamEnded);
    let (state, _) = replay("look it up", inputs);
    let stored = serde_json::to_value(stored_messages(&state, &c)).unwrap();
    let back = restored(stored.as_array().unwrap());
    let mut again = ChatState::new();
    reduce(&mut again, Input::ItemsReplaced(back));
    assert_eq!(kinds(&again), ["user", "thought", "tool", "answer"]);
    assert_eq!(kinds(&again), kinds(&state));
    let EntryKind::ToolCall(call) = &again.items()[2].entry.kind else {
        panic!()
    };
    assert_eq!(call.tool_call.raw_output, Some(json!("3 results")));
    assert_eq!(
        crate::reducer::assistant_text(&again.items()[3]).as_deref(),
        Some("**Done.**")
    );
    // Reasoning without an encrypted value is kept here, never sent.
    assert!(!request(&state, &c, RunSetup::default())
        .messages
        .iter()
        .any(|m| matches!(m, Message::Reasoning { .. })));
}

#[test]
fn files_go_as_input_parts_and_come_back_from_the_stored_copy() {
    use crate::protocol::chatkit::{Attachment, AttachmentId, AttachmentKind};
    let mut state = ChatState::new();
    let file = |name: &str, mime: &str, url: &str| Attachment {
        id: AttachmentId(format!("local-{name}")),
        name: name.into(),
        mime_type: mime.into(),
        kind: AttachmentKind::File,
        preview_url: Some(url.into()),
        upload_url: None,
        upload_descriptor: None,
        thread_id: None,
    };
    reduce(
        &mut state,
        Input::SendStarted(OutgoingMessage {
            text: "look".into(),
            attachments: vec![
                file("a.png", "image/png", "data:image/png;base64,iVBORw0K"),
                file("b.pdf", "application/pdf", "https://files.example/b.pdf"),
            ],
            ..Default::default()
        }),
    );
    let c = Conversation::new("t1".into());
    let sent = serde_json::to_value(request(&state, &c, RunSetup::default())).unwrap();
    let content = &sent["messages"][0]["content"];
    assert_eq!(content[0], json!({"type": "text", "text": "look"}));
    assert_eq!(content[1]["type"], "image");
    assert_eq!(
        content[1]["source"],
        json!({"type": "data", "value": "iVBORw0K", "mimeType": "image/png"})
    );
    assert_eq!(content[2]["type"], "document");
    assert_eq!(content[2]["source"]["type"], "url");
    let back = restored(std::slice::from_ref(&sent["messages"][0]));
    let EntryKind::UserMessage(m) = &back[0].kind else {
        panic!()
    };
    assert_eq!(m.text(), "look");
    let urls: Vec<_> = m
        .attachments
        .iter()
        .map(|a| a.preview_url.clone().unwrap())
        .collect();
    assert_eq!(
        urls,
        [
            "data:image/png;base64,iVBORw0K",
            "https://files.example/b.pdf"
        ]
    );
    assert_eq!(m.attachments[0].name, "a.png");
}

#[test]
fn an_approval_s_options_are_named_in_the_reader_s_language() {
    let mut a = adapter().with_labels("Approuver".into(), "Refuser".into());
    let mut c = Conversation::new("t1".into());
    let inputs = feed(
        &mut a,
        &mut c,
        &[
            started(),
            json!({"type": "RUN_FINISHED", "outcome": {"type": "interrupt", "interrupts": [{"id": "i1", "reason": "approval"}]}}),
        ],
    );
    let names: Vec<String> = inputs
        .iter()
        .find_map(|i| match i {
            Input::ActionRequired { request, .. } => {
                Some(request.options.iter().map(|o| o.name.clone()).collect())
            }
            _ => None,
        })
        .expect("a card");
    assert_eq!(names, ["Approuver", "Refuser"]);
}
