//! Agent runs through the reducer, fed as a ChatKit server using the documented extension
//! would send them: ACP tool calls and their partial updates, permission requests decided
//! only by the server and cancelled on Stop, plans, thoughts, agent ownership, liveness,
//! banner, inline errors and diagnostics.

use chat_shell_core::adapters::chatkit as chatkit_adapter;
use chat_shell_core::model::EntryKind;
use chat_shell_core::protocol::acp::{PermissionOutcome, ToolCallStatus};
use chat_shell_core::protocol::chatkit::{decode_event, ItemId, Thread};
use chat_shell_core::reducer::{
    assistant_text, listed, reduce, AgentInfo, ChatState, Effect, Input, Listed, Outcome,
    OutgoingMessage, PermissionState, ToolCallState, ToolCallSummary,
};
use serde_json::{json, Value};

fn server(state: &mut ChatState, event: Value) -> Outcome {
    let event = decode_event(&event.to_string()).expect("event decodes");
    reduce(state, chat_shell_core::adapters::chatkit::input(event))
}

fn streaming() -> ChatState {
    let mut state = ChatState::new();
    reduce(
        &mut state,
        Input::SendStarted(OutgoingMessage {
            content: Vec::new(),
            text: "Fix the build".into(),
            ..Default::default()
        }),
    );
    state
}

fn add_call(state: &mut ChatState, id: &str, tool_call: Value) {
    server(
        state,
        json!({"type": "thread.item.added", "item": {
            "id": id, "thread_id": "thr_1", "created_at": "2025-01-01T00:00:00",
            "type": "acp_tool_call", "tool_call": tool_call
        }}),
    );
}

fn update(state: &mut ChatState, id: &str, update: Value) -> Outcome {
    server(
        state,
        json!({"type": "thread.item.updated", "item_id": id, "update": update}),
    )
}

fn call_state(state: &ChatState, id: &str) -> ToolCallState {
    state
        .item(&ItemId::from(id))
        .and_then(|i| i.tool_call_state())
        .unwrap_or_else(|| panic!("no tool call {id}"))
}

fn tool_call<'a>(state: &'a ChatState, id: &str) -> &'a chat_shell_core::model::ToolCall {
    match &state.item(&ItemId::from(id)).expect("item").entry.kind {
        EntryKind::ToolCall(c) => c,
        other => panic!("{other:?}"),
    }
}

fn answers(out: &Outcome) -> Vec<(String, PermissionOutcome)> {
    out.effects
        .iter()
        .filter_map(|e| match e {
            Effect::AnswerPermission {
                item_id,
                tool_call_id,
                outcome,
            } => {
                assert!(!tool_call_id.0.is_empty());
                Some((item_id.0.clone(), outcome.clone()))
            }
            _ => None,
        })
        .collect()
}

fn request_permission(state: &mut ChatState, id: &str) {
    update(
        state,
        id,
        json!({"type": "acp_tool_call.permission_requested", "request": {
            "sessionId": "s1",
            "toolCall": {"toolCallId": id, "rawInput": {"command": "rm -rf target", "cwd": "/repo"}},
            "options": [
                {"optionId": "once", "name": "Allow once", "kind": "allow_once"},
                {"optionId": "always", "name": "Always allow rm", "kind": "allow_always"},
                {"optionId": "no", "name": "Reject", "kind": "reject_once"},
                {"optionId": "never", "name": "Never", "kind": "reject_always"},
                {"optionId": "odd", "name": "Ask my manager", "kind": "escalate"}
            ]
        }}),
    );
}

fn resolve(state: &mut ChatState, id: &str, option: &str) {
    update(
        state,
        id,
        json!({"type": "acp_tool_call.permission_resolved",
               "outcome": {"outcome": "selected", "optionId": option}}),
    );
}

#[test]
fn partial_updates_change_only_their_fields_and_lists_replace() {
    let mut state = streaming();
    add_call(
        &mut state,
        "tc_1",
        json!({"toolCallId": "call_1", "title": "Edit lib.rs", "kind": "edit", "status": "pending",
               "locations": [{"path": "/repo/src/lib.rs", "line": 3}, {"path": "/repo/src/a.rs"}]}),
    );
    assert_eq!(call_state(&state, "tc_1"), ToolCallState::Pending);
    update(
        &mut state,
        "tc_1",
        json!({"type": "acp_tool_call.update", "update": {"toolCallId": "call_1", "status": "in_progress",
               "content": [{"type": "diff", "path": "/repo/src/lib.rs", "oldText": "a", "newText": "b"}]}}),
    );
    assert_eq!(call_state(&state, "tc_1"), ToolCallState::InProgress);
    update(
        &mut state,
        "tc_1",
        json!({"type": "acp_tool_call.update", "update": {"toolCallId": "call_1", "status": "completed",
               "locations": [{"path": "/repo/src/lib.rs", "line": 9}]}}),
    );
    let call = &tool_call(&state, "tc_1").tool_call;
    assert_eq!(call.title, "Edit lib.rs", "unchanged fields stay");
    assert_eq!(call.content.len(), 1, "content was not in the update");
    let locations: Vec<String> = call.locations.iter().map(|l| l.label()).collect();
    assert_eq!(locations, ["/repo/src/lib.rs:9"], "a list replaces whole");
    assert_eq!(call_state(&state, "tc_1"), ToolCallState::Completed);
    assert_eq!(call.kind.data_kind(), "edit");
}

#[test]
fn an_unknown_status_stays_unknown_even_when_the_run_ends() {
    let mut state = streaming();
    add_call(
        &mut state,
        "tc_1",
        json!({"toolCallId": "c", "title": "t", "kind": "teleport", "status": "paused"}),
    );
    assert_eq!(call_state(&state, "tc_1"), ToolCallState::Unknown);
    assert_eq!(
        tool_call(&state, "tc_1").tool_call.kind.data_kind(),
        "other"
    );
    reduce(&mut state, Input::StreamEnded);
    assert_eq!(call_state(&state, "tc_1"), ToolCallState::Unknown);
}

#[test]
fn unfinished_calls_are_interrupted_when_the_run_ends_however_it_ends() {
    let ends = [
        Input::StreamEnded,
        Input::Cancelled,
        Input::StreamFailed {
            message: "network".into(),
            allow_retry: true,
        },
    ];
    for end in ends {
        let mut state = streaming();
        add_call(
            &mut state,
            "a",
            json!({"toolCallId": "a", "title": "a", "status": "pending"}),
        );
        add_call(
            &mut state,
            "b",
            json!({"toolCallId": "b", "title": "b", "status": "in_progress"}),
        );
        add_call(
            &mut state,
            "c",
            json!({"toolCallId": "c", "title": "c", "status": "completed"}),
        );
        add_call(
            &mut state,
            "d",
            json!({"toolCallId": "d", "title": "d", "status": "failed"}),
        );
        reduce(&mut state, end.clone());
        let states: Vec<ToolCallState> = ["a", "b", "c", "d"]
            .iter()
            .map(|id| call_state(&state, id))
            .collect();
        assert_eq!(
            states,
            [
                ToolCallState::Interrupted,
                ToolCallState::Interrupted,
                ToolCallState::Completed,
                ToolCallState::Failed
            ],
            "{end:?}"
        );
        // The server knows better: a later status clears the mark.
        update(
            &mut state,
            "b",
            json!({"type": "acp_tool_call.update", "update": {"toolCallId": "b", "status": "completed"}}),
        );
        assert_eq!(call_state(&state, "b"), ToolCallState::Completed);
    }
}

#[test]
fn a_turn_waits_on_the_user_while_a_permission_is_unanswered() {
    let mut state = streaming();
    assert!(!state.waits_on_user());
    add_call(
        &mut state,
        "tc_1",
        json!({"toolCallId": "tc_1", "title": "rm -rf target", "kind": "execute"}),
    );
    assert!(!state.waits_on_user(), "a running call waits on nobody");
    request_permission(&mut state, "tc_1");
    assert!(state.waits_on_user());
    resolve(&mut state, "tc_1", "once");
    assert!(!state.waits_on_user(), "answered");
}

#[test]
fn a_permission_is_decided_only_when_the_server_confirms_it() {
    let mut state = streaming();
    add_call(
        &mut state,
        "tc_1",
        json!({"toolCallId": "tc_1", "title": "rm -rf target", "kind": "execute"}),
    );
    request_permission(&mut state, "tc_1");
    assert_eq!(
        call_state(&state, "tc_1"),
        ToolCallState::AwaitingPermission
    );
    let call = tool_call(&state, "tc_1");
    assert_eq!(
        call.tool_call.raw_input,
        Some(json!({"command": "rm -rf target", "cwd": "/repo"})),
        "the card shows the exact command it would run"
    );
    assert_eq!(call.permission.as_ref().unwrap().options.len(), 5);

    // An option the server did not offer: nothing is sent.
    let out = reduce(
        &mut state,
        Input::PermissionChosen {
            item_id: "tc_1".into(),
            option_id: "yolo".into(),
        },
    );
    assert!(answers(&out).is_empty() && !out.warnings.is_empty());

    let out = reduce(
        &mut state,
        Input::PermissionChosen {
            item_id: "tc_1".into(),
            option_id: "once".into(),
        },
    );
    assert_eq!(
        answers(&out),
        [(
            "tc_1".into(),
            PermissionOutcome::Selected {
                option_id: "once".into()
            }
        )]
    );
    let item = state.item(&ItemId::from("tc_1")).unwrap();
    assert_eq!(
        item.permission_state(),
        Some(PermissionState::Asking {
            sent: Some(&"once".into())
        }),
        "sent, not decided"
    );
    assert_eq!(
        call_state(&state, "tc_1"),
        ToolCallState::AwaitingPermission
    );
    // A second click sends nothing.
    let again = reduce(
        &mut state,
        Input::PermissionChosen {
            item_id: "tc_1".into(),
            option_id: "no".into(),
        },
    );
    assert!(answers(&again).is_empty());

    resolve(&mut state, "tc_1", "once");
    let item = state.item(&ItemId::from("tc_1")).unwrap();
    assert!(matches!(
        item.permission_state(),
        Some(PermissionState::Decided(PermissionOutcome::Selected { .. }))
    ));
    assert_eq!(
        call_state(&state, "tc_1"),
        ToolCallState::Pending,
        "allowed: the agent's status again"
    );
    update(
        &mut state,
        "tc_1",
        json!({"type": "acp_tool_call.update", "update": {"toolCallId": "tc_1", "status": "in_progress"}}),
    );
    assert_eq!(call_state(&state, "tc_1"), ToolCallState::InProgress);
}

#[test]
fn a_confirmed_reject_is_rejected_and_an_unknown_kind_is_not_an_allow_or_a_reject() {
    let mut state = streaming();
    for id in ["r", "u"] {
        add_call(
            &mut state,
            id,
            json!({"toolCallId": id, "title": id, "status": "pending"}),
        );
        request_permission(&mut state, id);
    }
    resolve(&mut state, "r", "never");
    resolve(&mut state, "u", "odd");
    assert_eq!(call_state(&state, "r"), ToolCallState::Rejected);
    // A later `failed` from the agent does not hide that the user said no.
    update(
        &mut state,
        "r",
        json!({"type": "acp_tool_call.update", "update": {"toolCallId": "r", "status": "failed"}}),
    );
    assert_eq!(call_state(&state, "r"), ToolCallState::Rejected);
    assert_eq!(call_state(&state, "u"), ToolCallState::Pending);
    let odd = &tool_call(&state, "u").permission.as_ref().unwrap().options[4];
    assert!(!odd.kind.is_allow() && !odd.kind.is_reject());
    assert_eq!(odd.kind.data_kind(), "unknown");
}

#[test]
fn stop_answers_every_pending_request_cancelled() {
    let mut state = streaming();
    for id in ["p1", "p2", "done"] {
        add_call(&mut state, id, json!({"toolCallId": id, "title": id}));
        request_permission(&mut state, id);
    }
    resolve(&mut state, "done", "once");
    // Chosen but unconfirmed: its request dies with the stream, so it is cancelled too.
    reduce(
        &mut state,
        Input::PermissionChosen {
            item_id: "p2".into(),
            option_id: "always".into(),
        },
    );
    let out = reduce(&mut state, Input::Cancelled);
    assert_eq!(
        answers(&out),
        [
            ("p1".into(), PermissionOutcome::Cancelled),
            ("p2".into(), PermissionOutcome::Cancelled)
        ]
    );
    assert_eq!(call_state(&state, "p1"), ToolCallState::Cancelled);
    assert_eq!(call_state(&state, "p2"), ToolCallState::Cancelled);
    assert_eq!(call_state(&state, "done"), ToolCallState::Interrupted);
    assert!(answers(&reduce(&mut state, Input::Cancelled)).is_empty());
}

#[test]
fn a_clean_end_keeps_a_pending_request_asking() {
    let mut state = streaming();
    add_call(&mut state, "p", json!({"toolCallId": "p", "title": "p"}));
    request_permission(&mut state, "p");
    let out = reduce(&mut state, Input::StreamEnded);
    assert!(answers(&out).is_empty());
    assert_eq!(call_state(&state, "p"), ToolCallState::AwaitingPermission);
}

#[test]
fn updates_for_calls_never_announced_show_up_and_other_items_are_left_alone() {
    let mut state = streaming();
    request_permission(&mut state, "ghost");
    assert_eq!(
        call_state(&state, "ghost"),
        ToolCallState::AwaitingPermission
    );
    update(
        &mut state,
        "late",
        json!({"type": "acp_tool_call.update", "update": {"toolCallId": "late", "title": "grep", "status": "failed"}}),
    );
    assert_eq!(call_state(&state, "late"), ToolCallState::Failed);
    server(
        &mut state,
        json!({"type": "thread.item.added", "item": {"id": "msg", "created_at": "", "type": "assistant_message", "content": []}}),
    );
    let out = update(
        &mut state,
        "msg",
        json!({"type": "acp_tool_call.update", "update": {"toolCallId": "x", "status": "failed"}}),
    );
    assert!(!out.warnings.is_empty());
    assert!(matches!(
        state.item(&ItemId::from("msg")).unwrap().entry.kind,
        EntryKind::AssistantText(_)
    ));
}

#[test]
fn tool_results_without_success_are_unknown_and_false_is_failed() {
    let mut state = streaming();
    for id in ["ok", "bad", "meh"] {
        add_call(
            &mut state,
            id,
            json!({"toolCallId": id, "title": id, "status": "in_progress"}),
        );
    }
    for (id, success) in [("ok", Some(true)), ("bad", Some(false)), ("meh", None)] {
        reduce(
            &mut state,
            Input::ToolResult {
                item_id: id.into(),
                success,
                output: Some(json!({"n": 1})),
            },
        );
    }
    reduce(&mut state, Input::StreamEnded);
    let states: Vec<ToolCallState> = ["ok", "bad", "meh"]
        .iter()
        .map(|id| call_state(&state, id))
        .collect();
    assert_eq!(
        states,
        [
            ToolCallState::Completed,
            ToolCallState::Failed,
            ToolCallState::Unknown
        ],
        "a result without success is never guessed, nor interrupted"
    );
    assert_eq!(
        tool_call(&state, "meh").tool_call.raw_output,
        Some(json!({"n": 1}))
    );
    assert_eq!(
        tool_call(&state, "meh").tool_call.status,
        ToolCallStatus::InProgress
    );
}

#[test]
fn items_hydrate_from_history_and_an_official_unknown_type_is_other() {
    let thread: Thread = serde_json::from_value(json!({
        "id": "thr_1", "created_at": "2025-01-01T00:00:00", "status": {"type": "active"},
        "items": {"data": [
            {"id": "tc_1", "created_at": "", "type": "acp_tool_call",
             "tool_call": {"toolCallId": "c1", "title": "rm", "kind": "delete", "status": "failed"},
             "permission": {"options": [{"optionId": "no", "name": "No", "kind": "reject_once"}],
                            "outcome": {"outcome": "selected", "optionId": "no"}}},
            {"id": "pl_1", "created_at": "", "type": "acp_plan",
             "entries": [{"content": "Read", "priority": "high", "status": "completed"}]},
            {"id": "th_1", "created_at": "", "type": "acp_thought", "text": "Hmm."},
            {"id": "x_1", "created_at": "", "type": "computer_call", "action": {}},
            {"id": "tc_2", "created_at": "", "type": "acp_tool_call",
             "tool_call": {"toolCallId": "c2", "title": "build", "kind": "execute", "status": "in_progress"}},
            {"id": "tc_3", "created_at": "", "type": "acp_tool_call",
             "tool_call": {"toolCallId": "c3", "title": "rm", "kind": "execute", "status": "pending"},
             "permission": {"options": [{"optionId": "ok", "name": "Allow", "kind": "allow_once"}]}}
        ], "has_more": false}
    }))
    .unwrap();
    let wire = thread.items.clone().unwrap().data;
    let mut state = ChatState::new();
    reduce(&mut state, chatkit_adapter::thread_loaded(thread));
    assert_eq!(call_state(&state, "tc_1"), ToolCallState::Rejected);
    // A call its run left in progress is interrupted, not spinning forever; one still
    // asking permission keeps asking.
    assert_eq!(call_state(&state, "tc_2"), ToolCallState::Interrupted);
    assert_eq!(
        call_state(&state, "tc_3"),
        ToolCallState::AwaitingPermission
    );
    let kinds: Vec<bool> = state
        .items()
        .iter()
        .map(|i| matches!(i.entry.kind, EntryKind::Unsupported(_)))
        .collect();
    assert_eq!(kinds, [false, false, false, true, false, false]);
    // And they serialize back as sent (what a server persists is what comes back).
    assert_eq!(
        state.items()[0].entry,
        chatkit_adapter::entry(wire[0].clone())
    );
    let back = serde_json::to_value(&wire[0]).unwrap();
    assert_eq!(back["type"], "acp_tool_call");
    assert_eq!(back["tool_call"]["toolCallId"], "c1");
    assert_eq!(back["permission"]["outcome"]["optionId"], "no");
}

#[test]
fn plans_replace_and_thoughts_are_not_answer_text() {
    let mut state = streaming();
    update(
        &mut state,
        "pl",
        json!({"type": "acp_plan.update", "entries": [{"content": "A"}, {"content": "B"}]}),
    );
    update(
        &mut state,
        "pl",
        json!({"type": "acp_plan.update", "entries": [{"content": "C", "status": "in_progress"}]}),
    );
    let EntryKind::Plan(plan) = &state.item(&"pl".into()).unwrap().entry.kind else {
        panic!();
    };
    assert_eq!(plan.entries.len(), 1);
    assert_eq!(plan.entries[0].content, "C");
    for chunk in ["Let me ", "think."] {
        update(
            &mut state,
            "th",
            json!({"type": "acp_thought.chunk", "content": {"type": "text", "text": chunk}}),
        );
    }
    let thought = state.item(&"th".into()).unwrap();
    assert!(matches!(&thought.entry.kind, EntryKind::Thought(t) if t.text == "Let me think."));
    assert_eq!(assistant_text(thought), None);
    reduce(&mut state, Input::StreamEnded);
    assert!(state.items().iter().all(|i| assistant_text(i).is_none()));
}

#[test]
fn the_next_bubble_records_its_agent_and_a_new_run_forgets_it() {
    let mut state = streaming();
    reduce(
        &mut state,
        Input::AgentChanged(AgentInfo {
            name: "coder".into(),
            id: None,
            payload: None,
        }),
    );
    server(
        &mut state,
        json!({"type": "thread.item.added", "item": {"id": "m1", "created_at": "", "type": "assistant_message", "content": []}}),
    );
    server(
        &mut state,
        json!({"type": "thread.item.done", "item": {"id": "m1", "created_at": "", "type": "assistant_message",
               "content": [{"type": "output_text", "text": "Done", "annotations": []}]}}),
    );
    let owner = |state: &ChatState, id: &str| {
        state
            .item(&ItemId::from(id))
            .and_then(|i| i.agent.as_ref())
            .map(|a| a.name.clone())
    };
    assert_eq!(
        owner(&state, "m1").as_deref(),
        Some("coder"),
        "kept through done"
    );
    assert!(
        state.items()[0].agent.is_none(),
        "the user's message has no agent"
    );
    reduce(&mut state, Input::StreamEnded);
    reduce(
        &mut state,
        Input::SendStarted(OutgoingMessage {
            content: Vec::new(),
            text: "Thanks".into(),
            ..Default::default()
        }),
    );
    assert!(state.agent.is_none());
    server(
        &mut state,
        json!({"type": "thread.item.added", "item": {"id": "m2", "created_at": "", "type": "assistant_message", "content": []}}),
    );
    assert_eq!(owner(&state, "m2"), None);
}

#[test]
fn errors_inline_a_budget_banner_and_liveness_do_not_end_the_run() {
    let mut state = streaming();
    reduce(&mut state, Input::Alive { at_ms: 5.0 });
    assert_eq!(state.last_event_ms, Some(5.0));
    reduce(
        &mut state,
        Input::RunError {
            message: "Search failed".into(),
            code: Some("tool_timeout".into()),
        },
    );
    reduce(
        &mut state,
        Input::BudgetExhausted {
            message: "Token budget reached".into(),
        },
    );
    assert!(state.is_streaming(), "the run goes on");
    assert!(state.error.is_none());
    assert_eq!(state.run_errors[0].code.as_deref(), Some("tool_timeout"));
    assert_eq!(
        state.budget.as_ref().unwrap().message,
        "Token budget reached"
    );
    reduce(&mut state, Input::StreamEnded);
    assert!(state.budget.is_some(), "the banner stays after the run");
    reduce(&mut state, Input::Alive { at_ms: 9.0 });
    assert_eq!(state.last_event_ms, Some(5.0), "no life without a run");
    reduce(
        &mut state,
        Input::SendStarted(OutgoingMessage {
            content: Vec::new(),
            text: "Go on".into(),
            ..Default::default()
        }),
    );
    assert!(state.budget.is_none() && state.last_event_ms.is_none());
    assert_eq!(
        state.run_errors.len(),
        1,
        "inline errors stay with their items"
    );
}

#[test]
fn unknown_event_types_are_counted_and_reported_once() {
    let mut state = streaming();
    let diagnostics = |out: &Outcome| {
        out.effects
            .iter()
            .filter(|e| matches!(e, Effect::Emit(ev) if ev.name() == "chat.diagnostic"))
            .count()
    };
    let first = server(&mut state, json!({"type": "thread.telemetry", "n": 1}));
    let second = server(&mut state, json!({"type": "thread.telemetry", "n": 2}));
    assert_eq!((diagnostics(&first), diagnostics(&second)), (1, 0));
    assert_eq!(
        state.diagnostics.unknown_types.get("thread.telemetry"),
        Some(&2)
    );
    assert!(state.is_streaming());
}

/// The list as ids: a summary is its calls' ids joined by `+`, a folded call `~id`.
fn list_ids(state: &ChatState) -> Vec<String> {
    listed(state)
        .iter()
        .map(|l| match l {
            Listed::Item(i) => i.entry.id.0.clone(),
            Listed::Summary(calls) => calls
                .iter()
                .map(|c| c.entry.id.0.as_str())
                .collect::<Vec<_>>()
                .join("+"),
            Listed::Folded(i) => format!("~{}", i.entry.id),
        })
        .collect()
}

#[test]
fn a_finished_turns_settled_tool_calls_fold_into_one_summary() {
    let mut state = streaming();
    let call = |id: &str, status: &str| json!({"toolCallId": id, "title": id, "kind": "read", "status": status});
    add_call(&mut state, "a", call("a", "completed"));
    add_call(&mut state, "b", call("b", "failed"));
    add_call(&mut state, "c", call("c", "in_progress"));
    // While the turn runs nothing folds.
    assert!(
        list_ids(&state).iter().all(|id| !id.contains('+')),
        "{:?}",
        list_ids(&state)
    );
    update(
        &mut state,
        "c",
        json!({"type": "acp_tool_call.update", "update": {"toolCallId": "c", "status": "completed"}}),
    );
    assert!(list_ids(&state).iter().all(|id| !id.contains('+')));
    reduce(&mut state, Input::StreamEnded);
    let ids = list_ids(&state);
    let at = ids.iter().position(|id| id == "a+b+c").expect("a summary");
    // The calls stay entries of their own, after their summary.
    assert_eq!(ids[at + 1..at + 4], ["~a", "~b", "~c"], "{ids:?}");
    let calls: Vec<_> = ["a", "b", "c"]
        .iter()
        .map(|id| state.item(&ItemId::from(*id)).unwrap())
        .collect();
    assert_eq!(
        ToolCallSummary::of(calls.iter().copied()),
        ToolCallSummary {
            calls: 3,
            failed: 1,
            unknown: 0
        }
    );
}

#[test]
fn a_lone_call_an_unfinished_one_and_an_anchored_error_break_the_fold() {
    let mut state = streaming();
    let call = |id: &str, status: &str| json!({"toolCallId": id, "title": id, "kind": "execute", "status": status});
    add_call(&mut state, "a", call("a", "completed"));
    add_call(&mut state, "b", call("b", "in_progress"));
    add_call(&mut state, "c", call("c", "completed"));
    add_call(&mut state, "d", call("d", "completed"));
    reduce(&mut state, Input::StreamEnded);
    // `b` ended unfinished: interrupted, which has settled (its outcome is unknown).
    assert_eq!(call_state(&state, "b"), ToolCallState::Interrupted);
    let ids = list_ids(&state);
    assert!(ids.contains(&"a+b+c+d".to_string()), "{ids:?}");
    let all: Vec<_> = ["a", "b", "c", "d"]
        .iter()
        .map(|id| state.item(&ItemId::from(*id)).unwrap())
        .collect();
    assert_eq!(ToolCallSummary::of(all.iter().copied()).unknown, 1);

    // One call alone is never folded; a call still asking permission is not either.
    let mut state = streaming();
    add_call(&mut state, "x", call("x", "completed"));
    reduce(&mut state, Input::StreamEnded);
    assert_eq!(list_ids(&state).last().map(String::as_str), Some("x"));
}

#[test]
fn a_pick_that_went_nowhere_asks_again_and_says_why() {
    let pick = |state: &mut ChatState, option: &str| {
        answers(&reduce(
            state,
            Input::PermissionChosen {
                item_id: "tc_1".into(),
                option_id: option.into(),
            },
        ))
    };
    let mut state = streaming();
    add_call(
        &mut state,
        "tc_1",
        json!({"toolCallId": "tc_1", "title": "rm", "kind": "execute"}),
    );
    request_permission(&mut state, "tc_1");
    assert_eq!(pick(&mut state, "once").len(), 1);
    // Refused (or lost): the choice is undone, nothing is decided, the reason is shown
    // after the call, and the card can answer again.
    reduce(
        &mut state,
        Input::PermissionNotSent {
            item_id: "tc_1".into(),
            message: "Already decided".into(),
        },
    );
    let item = state.item(&ItemId::from("tc_1")).unwrap();
    assert!(item.permission_choice.is_none());
    assert_eq!(
        call_state(&state, "tc_1"),
        ToolCallState::AwaitingPermission
    );
    let error = state.run_errors.last().expect("the reason is shown");
    assert_eq!(error.message, "Already decided");
    assert_eq!(error.after_item, Some(ItemId::from("tc_1")));
    assert_eq!(pick(&mut state, "no").len(), 1, "the card answers again");

    // The run's own stream failing undoes an unconfirmed pick too.
    reduce(
        &mut state,
        Input::StreamFailed {
            message: "Network".into(),
            allow_retry: true,
        },
    );
    assert!(state
        .item(&ItemId::from("tc_1"))
        .unwrap()
        .permission_choice
        .is_none());
    assert_eq!(
        call_state(&state, "tc_1"),
        ToolCallState::AwaitingPermission
    );
}
