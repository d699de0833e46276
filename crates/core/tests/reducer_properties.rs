//! Properties of the decoder + reducer pipeline: arbitrary bytes and arbitrary JSON events
//! (known types with wrong field types included) never panic, chunking never changes the
//! resulting state, and the reducer's invariants hold after every input of sequences whose
//! ids collide across item kinds.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use chat_shell_core::adapters::chatkit as chatkit_adapter;
use chat_shell_core::host_events::{ChatEvent, ErrorKind};
use chat_shell_core::model::{Entry, EntryKind};
use chat_shell_core::protocol::acp::PermissionOutcome;
use chat_shell_core::protocol::chatkit::{decode_event, ClientToolStatus, ItemId, Page, Thread};
use chat_shell_core::reducer::{
    reduce, AgentInfo, ChatState, Effect, Input, OrchestrationUpdate, Outcome, OutgoingMessage,
    Streamed, Unrecognized,
};
use common::*;
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;
use serde_json::{json, Value};
use std::collections::HashSet;

const TYPES: &[&str] = &[
    "thread.created",
    "thread.updated",
    "thread.item.added",
    "thread.item.updated",
    "thread.item.done",
    "thread.item.removed",
    "thread.item.replaced",
    "stream_options",
    "progress_update",
    "client_effect",
    "error",
    "notice",
    "something.new",
];
const ITEM_TYPES: &[&str] = &[
    "user_message",
    "assistant_message",
    "client_tool_call",
    "widget",
    "client_widget",
    "generated_image",
    "structured_input",
    "workflow",
    "task",
    "end_of_turn",
    "acp_tool_call",
    "acp_plan",
    "acp_thought",
    "hologram",
];
const UPDATE_TYPES: &[&str] = &[
    "assistant_message.content_part.added",
    "assistant_message.content_part.text_delta",
    "assistant_message.content_part.annotation_added",
    "assistant_message.content_part.done",
    "widget.streaming_text.value_delta",
    "widget.component.updated",
    "widget.root.updated",
    "workflow.task.added",
    "workflow.task.updated",
    "generated_image.updated",
    "acp_tool_call.update",
    "acp_tool_call.permission_requested",
    "acp_tool_call.permission_resolved",
    "acp_plan.update",
    "acp_thought.chunk",
    "x.y",
];

/// Any JSON value, shallow: the wrong type for whatever field it lands in, most of the time.
fn any_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        "[a-z_0-9 ]{0,12}".prop_map(Value::from),
        prop::sample::select(vec!["m1", "m2", "w1", "t1"]).prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::btree_map(
                "[a-z_]{1,8}|id|type|text|content|delta|widget|children|task|tasks",
                inner,
                0..5
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// An event that is often well formed and often not.
fn any_event() -> impl Strategy<Value = Value> {
    (
        prop::sample::select(TYPES),
        prop::sample::select(ITEM_TYPES),
        prop::sample::select(UPDATE_TYPES),
        prop::sample::select(vec!["m1", "m2", "w1", "t1", "itm_9"]),
        any_value(),
        any_value(),
        0usize..4,
        any::<bool>(),
    )
        .prop_map(|(ty, item_ty, update_ty, id, a, b, index, well_formed)| {
            let item = if well_formed {
                json!({"id": id, "type": item_ty, "content": [{"type": "output_text", "text": "x"}],
                       "task": {"type": "custom", "title": "t"}, "workflow": {"type": "custom", "tasks": []},
                       "widget": {"type": "Card", "children": [{"type": "Text", "id": "c1", "value": "v"}]},
                       "name": "n", "call_id": "c", "inputs": []})
            } else {
                json!({"id": id, "type": item_ty, "content": a, "task": b})
            };
            let update = if well_formed {
                json!({"type": update_ty, "content_index": index, "delta": "d", "component_id": "c1",
                       "task_index": index, "task": {"type": "thought", "content": "c"},
                       "content": {"type": "output_text", "text": "t"}, "done": true,
                       "annotation": {"source": {"type": "url", "url": "https://x", "title": "x"}},
                       "widget": {"type": "Card"}, "component": {"type": "Text", "id": "c1"},
                       "image": {"id": "i", "url": "https://x/i.png"}})
            } else {
                json!({"type": update_ty, "content_index": a, "delta": b})
            };
            json!({"type": ty, "item": item, "item_id": id, "update": update,
                   "thread": {"id": "thr_1", "status": {"type": "active"}},
                   "text": "p", "name": "e", "data": a, "message": "m", "level": "info",
                   "stream_options": {"allow_cancel": well_formed}})
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 60_000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_events_never_panic(events in prop::collection::vec(any_event(), 1..6)) {
        let mut state = ChatState::new();
        reduce(&mut state, Input::SendStarted(OutgoingMessage { text: "hi".into(), ..Default::default() }));
        for event in events {
            let input = match decode_event(&event.to_string()) {
                Ok(e) => chat_shell_core::adapters::chatkit::input(e),
                Err(e) => Input::Malformed(e),
            };
            reduce(&mut state, input);
        }
        reduce(&mut state, Input::StreamEnded);
        prop_assert!(state.turn.is_none());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40_000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(
        prop_oneof![Just(b'\n'), Just(b'\r'), Just(b':'), Just(b'{'), Just(b'"'), any::<u8>()], 0..200)
    ) {
        let mut framed = b"data: ".to_vec();
        framed.extend_from_slice(&bytes);
        let mut state = ChatState::new();
        replay_into(&mut state, Input::TurnStarted, &framed, &[7], |_| None);
        replay_into(&mut state, Input::TurnStarted, &bytes, &[3], |_| None);
        prop_assert!(state.turn.is_none());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn chunking_never_changes_the_state(
        name in prop::sample::select(vec!["forkquirks.sse", "markdown.sse", "widget.sse", "workflow.sse", "annotations.sse", "error.sse"]),
        sizes in prop::collection::vec(1usize..96, 1..8),
    ) {
        let bytes = fixture(name);
        let run = |sizes: &[usize]| {
            let mut state = ChatState::new();
            let start = Input::SendStarted(OutgoingMessage { text: name.into(), ..Default::default() });
            replay_into(&mut state, start, &bytes, sizes, |_| None);
            state
        };
        prop_assert_eq!(run(&[usize::MAX]), run(&sizes));
    }
}

#[test]
fn every_fixture_gives_the_same_state_split_at_every_offset() {
    for name in fixture_names(".sse") {
        let bytes = fixture(&name);
        if bytes.len() > 64 * 1024 {
            continue; // long.sse: covered by the random chunking above and the benchmark
        }
        let run = |split: usize| {
            let mut state = ChatState::new();
            let start = Input::SendStarted(OutgoingMessage {
                content: Vec::new(),
                text: name.clone(),
                ..Default::default()
            });
            replay_into(&mut state, start, &bytes, &[split, usize::MAX], |_| None);
            state
        };
        let whole = run(bytes.len());
        // Every offset of the small fixtures; about 400 evenly spread ones of the larger
        // (the SSE decoder's own test covers every offset of every fixture).
        for split in (1..bytes.len()).step_by((bytes.len() / 400).max(1)) {
            assert_eq!(run(split), whole, "{name} split at {split}");
        }
    }
}

/// The small id pool every generated item, update and removal draws from, so ids collide
/// across item kinds all the time.
const IDS: &[&str] = &["a", "b", "c"];
const THREADS: &[&str] = &["thr_1", "thr_2"];

/// A well-formed item of some kind under one of [`IDS`].
fn pool_item() -> impl Strategy<Value = Value> {
    let id = prop::sample::select(IDS);
    prop_oneof![
        (id.clone(), any::<bool>()).prop_map(|(id, ghost)| json!({
            "id": id, "type": "user_message", "content": [{"type": "input_text", "text": "u"}],
            "attachments": [], "inference_options": if ghost { json!({"ghost": true}) } else { json!({}) }
        })),
        (id.clone(), prop::collection::vec("[xyz]{0,3}", 0..4)).prop_map(|(id, parts)| json!({
            "id": id, "type": "assistant_message",
            "content": parts.iter().map(|t| json!({"type": "output_text", "text": t})).collect::<Vec<_>>()
        })),
        (id.clone(), any::<bool>(), "[pq]").prop_map(|(id, pending, name)| json!({
            "id": id, "type": "client_tool_call", "status": if pending { "pending" } else { "completed" },
            "call_id": format!("call_{name}"), "name": name, "arguments": {"k": name}
        })),
        id.clone().prop_map(|id| json!({
            "id": id, "type": "widget",
            "widget": {"type": "Card", "children": [{"type": "Text", "id": "c1", "value": "v"}]}
        })),
        id.clone().prop_map(|id| json!({
            "id": id, "type": "workflow", "workflow": {"type": "custom", "tasks": []}
        })),
        (id.clone(), acp_status(), prop::option::of(prop::option::of(option_id())))
            .prop_map(|(id, status, permission)| {
                let mut item = json!({
                    "id": id, "type": "acp_tool_call",
                    "tool_call": {"toolCallId": format!("call_{id}"), "title": "t", "status": status}
                });
                if let Some(outcome) = permission {
                    item["permission"] = json!({"options": acp_options(), "outcome": outcome
                        .map(|o| json!({"outcome": "selected", "optionId": o}))});
                }
                item
            }),
        id.clone().prop_map(|id| json!({"id": id, "type": "acp_plan", "entries": [{"content": "p"}]})),
        id.prop_map(|id| json!({"id": id, "type": "acp_thought", "text": "hm"})),
    ]
}

/// ACP statuses, an unknown one included.
fn acp_status() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "pending",
        "in_progress",
        "completed",
        "failed",
        "paused",
    ])
}

/// The ids of [`acp_options`], and one no request offers.
fn option_id() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["yes", "no", "odd", "absent"])
}

fn acp_options() -> Value {
    json!([
        {"optionId": "yes", "name": "Allow", "kind": "allow_once"},
        {"optionId": "no", "name": "Reject", "kind": "reject_always"},
        {"optionId": "odd", "name": "Escalate", "kind": "escalate"}
    ])
}

/// An update of any kind, aimed at an id of the pool (or at one no item has).
fn pool_update() -> impl Strategy<Value = Value> {
    let update = prop_oneof![
        (0usize..4).prop_map(|i| json!({"type": "assistant_message.content_part.added", "content_index": i,
                                        "content": {"type": "output_text", "text": "n"}})),
        (0usize..4).prop_map(|i| json!({"type": "assistant_message.content_part.text_delta",
                                        "content_index": i, "delta": "d"})),
        (0usize..4).prop_map(|i| json!({"type": "assistant_message.content_part.annotation_added",
                                        "content_index": i, "annotation_index": 0,
                                        "annotation": {"source": {"type": "url", "url": "https://x", "title": "x"}}})),
        (0usize..4).prop_map(|i| json!({"type": "assistant_message.content_part.done", "content_index": i,
                                        "content": {"type": "output_text", "text": "final"}})),
        Just(json!({"type": "widget.root.updated", "widget": {"type": "Card"}})),
        Just(json!({"type": "widget.streaming_text.value_delta", "component_id": "c1", "delta": "d", "done": false})),
        (0usize..3).prop_map(|i| json!({"type": "workflow.task.added", "task_index": i,
                                        "task": {"type": "thought", "content": "c"}})),
        Just(json!({"type": "generated_image.updated", "image": {"id": "i", "url": "https://x/i.png"}})),
        (prop::option::of(acp_status()), any::<bool>()).prop_map(|(status, locations)| {
            let mut update = json!({"toolCallId": "u", "title": "updated"});
            if let Some(status) = status {
                update["status"] = json!(status);
            }
            if locations {
                update["locations"] = json!([{"path": "/p", "line": 1}]);
            }
            json!({"type": "acp_tool_call.update", "update": update})
        }),
        Just(json!({"type": "acp_tool_call.permission_requested",
                    "request": {"toolCall": {"toolCallId": "u", "rawInput": {"command": "ls"}},
                                "options": acp_options()}})),
        prop::option::of(option_id()).prop_map(|option| json!({
            "type": "acp_tool_call.permission_resolved",
            "outcome": match option {
                Some(o) => json!({"outcome": "selected", "optionId": o}),
                None => json!({"outcome": "cancelled"}),
            }
        })),
        Just(json!({"type": "acp_plan.update", "entries": [{"content": "q", "status": "completed"}]})),
        Just(json!({"type": "acp_thought.chunk", "content": {"type": "text", "text": "t"}})),
    ];
    (prop::sample::select(vec!["a", "b", "c", "fresh"]), update).prop_map(
        |(id, update)| json!({"type": "thread.item.updated", "item_id": id, "update": update}),
    )
}

fn server(event: Value) -> Input {
    chat_shell_core::adapters::chatkit::input(
        decode_event(&event.to_string()).expect("generated events are well formed"),
    )
}

fn thread(id: &str, items: Vec<Value>) -> Thread {
    serde_json::from_value(
        json!({"id": id, "created_at": "", "status": {"type": "active"},
                                  "items": {"data": items, "has_more": false}}),
    )
    .unwrap()
}

/// Any input, server events and client happenings alike, over the id pool.
fn pool_input() -> impl Strategy<Value = Input> {
    let thread_id = prop::sample::select(THREADS);
    prop_oneof![
        6 => pool_item().prop_map(|item| server(json!({"type": "thread.item.added", "item": item}))),
        6 => pool_item().prop_map(|item| server(json!({"type": "thread.item.done", "item": item}))),
        4 => pool_item().prop_map(|item| server(json!({"type": "thread.item.replaced", "item": item}))),
        2 => prop::sample::select(IDS)
            .prop_map(|id| server(json!({"type": "thread.item.removed", "item_id": id}))),
        8 => pool_update().prop_map(server),
        2 => (prop::sample::select(vec!["thread.created", "thread.updated"]), thread_id.clone())
            .prop_map(|(ty, id)| server(json!({"type": ty, "thread": {"id": id, "created_at": "",
                                                                     "status": {"type": "active"}}}))),
        2 => Just(server(json!({"type": "notice", "level": "info", "message": "n"}))),
        1 => Just(server(json!({"type": "progress_update", "text": "p"}))),
        1 => Just(server(json!({"type": "error", "code": "custom", "allow_retry": true}))),
        2 => any::<bool>().prop_map(|ghost| Input::SendStarted(OutgoingMessage {
            content: Vec::new(),
            text: "hi".into(),
            ghost,
            ..Default::default()
        })),
        3 => Just(Input::TurnStarted),
        1 => prop::sample::select(vec!["a", "b", "local_0"])
            .prop_map(|id| Input::RetryStarted { user_message: ItemId::from(id) }),
        4 => Just(Input::StreamEnded),
        1 => Just(Input::StreamFailed { message: "x".into(), allow_retry: true }),
        1 => Just(Input::Cancelled),
        2 => (thread_id, prop::collection::vec(pool_item(), 0..4))
            .prop_map(|(id, items)| chatkit_adapter::thread_loaded(thread(id, items))),
        1 => prop::collection::vec(pool_item(), 0..4).prop_map(|items| chatkit_adapter::older_items(Page {
            data: items.into_iter().map(|i| serde_json::from_value(i).unwrap()).collect(),
            has_more: false,
            after: None,
        })),
        1 => Just(Input::Reset),
        1 => (0u64..4).prop_map(Input::NoticeDismissed),
        1 => pool_item().prop_map(|i| chatkit_adapter::item_synced(serde_json::from_value(i).unwrap())),
        1 => (0u32..100).prop_map(|t| Input::Alive { at_ms: f64::from(t) }),
        2 => (prop::sample::select(vec!["a", "b", "c", "fresh"]), prop::option::of(any::<bool>()))
            .prop_map(|(id, success)| Input::ToolResult {
                item_id: ItemId::from(id),
                success,
                output: Some(json!({"out": 1})),
            }),
        1 => Just(Input::RunError { message: "e".into(), code: Some("c".into()) }),
        1 => Just(Input::BudgetExhausted { message: "limit".into() }),
        1 => prop::sample::select(vec!["planner", "coder"]).prop_map(|name| {
            Input::AgentChanged(AgentInfo { name: name.into(), id: None, payload: None })
        }),
        1 => Just(Input::Orchestration(OrchestrationUpdate {
            status: Some("s".into()),
            ..Default::default()
        })),
        3 => (prop::sample::select(IDS), option_id()).prop_map(|(id, option)| {
            Input::PermissionChosen { item_id: ItemId::from(id), option_id: option.into() }
        }),
        1 => Just(Input::Unrecognized(Unrecognized::EventType("t".into()))),
    ]
}

fn is_pending_call(item: &Entry) -> bool {
    matches!(&item.kind, EntryKind::ClientToolCall(c) if c.status == ClientToolStatus::Pending)
}

/// What a test remembers across inputs: the pending client tool calls that arrived in the
/// current turn's streams and were not asked for yet, oldest first.
#[derive(Default)]
struct Model {
    pending_calls: Vec<ItemId>,
}

/// The invariants after one input: `before` is the state it was applied to.
fn check(
    model: &mut Model,
    before: &ChatState,
    input: &Input,
    state: &ChatState,
    out: &Outcome,
) -> Result<(), TestCaseError> {
    // Item ids are unique, and looking an item up by id finds that very item.
    let ids: Vec<&ItemId> = state.items().iter().map(|i| &i.entry.id).collect();
    prop_assert_eq!(
        ids.iter().collect::<HashSet<_>>().len(),
        ids.len(),
        "ids {:?}",
        ids
    );
    for held in state.items() {
        prop_assert!(std::ptr::eq(state.item(&held.entry.id).unwrap(), held));
    }

    // Ghosts are hidden, only user messages are hidden, and a hidden message stays hidden
    // whatever replaces it under its id (short of another thread or a new chat).
    for held in state.items() {
        prop_assert!(
            !held.entry.is_ghost() || held.hidden,
            "ghost shown: {:?}",
            held
        );
        prop_assert!(
            !held.hidden || matches!(held.entry.kind, EntryKind::UserMessage(_)),
            "hidden non-message: {:?}",
            held
        );
    }
    if !matches!(input, Input::ThreadLoaded { .. } | Input::Reset) {
        for was in before.items().iter().filter(|i| i.hidden) {
            if let Some(now) = state.item(&was.entry.id) {
                prop_assert!(
                    now.hidden || !matches!(now.entry.kind, EntryKind::UserMessage(_)),
                    "hidden message {} shown again",
                    was.entry.id
                );
            }
        }
    }

    // Notices have unique ids and do not outlive their thread.
    let notice_ids: HashSet<u64> = state.notices.iter().map(|n| n.id).collect();
    prop_assert_eq!(notice_ids.len(), state.notices.len());
    let switched = matches!(input, Input::ThreadLoaded { .. } | Input::Reset)
        || before
            .thread_id()
            .is_some_and(|was| state.thread_id() != Some(was));
    if switched {
        for old in &before.notices {
            prop_assert!(
                !notice_ids.contains(&old.id),
                "notice {} kept across threads",
                old.id
            );
        }
    }

    // An item that arrives whole is held exactly as it arrived: no content part, task or
    // field of what was there before survives it.
    let arrived = match input {
        Input::Stream(
            Streamed::ItemAdded(item) | Streamed::ItemDone(item) | Streamed::ItemReplaced(item),
        ) => Some(item),
        Input::ItemSynced(item) => Some(item),
        _ => None,
    };
    if let Some(item) = arrived {
        prop_assert_eq!(
            &state.item(&item.id).expect("arrived item held").entry,
            item
        );
    }

    // Client tool calls: every clean end of a stream asks for the oldest pending call that
    // arrived in this turn and was not asked for yet, and nothing else ever asks for one.
    let failed = out
        .effects
        .iter()
        .any(|e| matches!(e, Effect::Emit(ChatEvent::Error(err)) if err.kind == ErrorKind::Turn));
    let new_turn = matches!(
        input,
        Input::SendStarted(_)
            | Input::RetryStarted { .. }
            | Input::ThreadLoaded { .. }
            | Input::Reset
    );
    let stopped = matches!(input, Input::Cancelled) && before.turn.is_some();
    if failed || new_turn || stopped {
        model.pending_calls.clear();
    }
    if let Some(item) = arrived.filter(|_| matches!(input, Input::Stream(_))) {
        if is_pending_call(item) && !model.pending_calls.contains(&item.id) {
            model.pending_calls.push(item.id.clone());
        }
    }
    model
        .pending_calls
        .retain(|id| state.item(id).is_some_and(|i| is_pending_call(&i.entry)));
    let mut asked = Vec::new();
    for effect in &out.effects {
        if let Effect::InvokeClientTool {
            item_id,
            call_id,
            name,
            arguments,
        } = effect
        {
            let held = state.item(item_id).map(|i| &i.entry.kind);
            prop_assert!(
                matches!(held, Some(EntryKind::ClientToolCall(c))
                    if c.status == ClientToolStatus::Pending && &c.call_id == call_id
                        && &c.name == name && &c.arguments == arguments),
                "asked for {}, not a pending call as held: {:?}",
                item_id,
                held
            );
            asked.push(item_id);
        }
    }
    let clean_end = matches!(input, Input::StreamEnded) && before.turn.is_some() && !failed;
    let expected: Vec<&ItemId> = if clean_end {
        model.pending_calls.first().into_iter().collect()
    } else {
        Vec::new()
    };
    prop_assert_eq!(
        &asked,
        &expected,
        "pending calls {:?}",
        &model.pending_calls
    );
    if clean_end && !model.pending_calls.is_empty() {
        model.pending_calls.remove(0);
    }
    check_agent_runs(before, input, state, out)
}

/// Whether an ACP tool call item's permission request is still asking.
fn asking(kind: &EntryKind) -> bool {
    matches!(kind, EntryKind::ToolCall(c)
        if c.permission.as_ref().is_some_and(|p| p.outcome.is_none()))
}

/// ACP tool calls and permission requests.
fn check_agent_runs(
    before: &ChatState,
    input: &Input,
    state: &ChatState,
    out: &Outcome,
) -> Result<(), TestCaseError> {
    // When a run ends, however it ends, no tool call is left looking as if it still runs.
    let run_ended = before.turn.is_some()
        && state.turn.is_none()
        && !matches!(input, Input::ThreadLoaded { .. } | Input::Reset);
    if run_ended {
        for held in state.items() {
            if let Some(s) = held.tool_call_state() {
                prop_assert!(
                    !s.is_running(),
                    "{} still {:?} after the run",
                    held.entry.id,
                    s
                );
            }
        }
    }
    // A decision is only ever shown when the server sent it: picking an option changes
    // nothing the card shows as decided.
    if let Input::PermissionChosen { item_id, .. } = input {
        prop_assert_eq!(
            before.item(item_id).map(|i| &i.entry),
            state.item(item_id).map(|i| &i.entry)
        );
    }
    // Answers go out only for a user's pick of an offered option on a request that is
    // asking, or as `cancelled` for every request still asking when the user stops.
    let answered: Vec<(&ItemId, &PermissionOutcome)> = out
        .effects
        .iter()
        .filter_map(|e| match e {
            Effect::AnswerPermission {
                item_id, outcome, ..
            } => Some((item_id, outcome)),
            _ => None,
        })
        .collect();
    match input {
        Input::Cancelled if before.turn.is_some() => {
            let was_asking: Vec<&ItemId> = before
                .items()
                .iter()
                .filter(|i| asking(&i.entry.kind))
                .map(|i| &i.entry.id)
                .collect();
            let cancelled: Vec<&ItemId> = answered
                .iter()
                .filter(|(_, o)| **o == PermissionOutcome::Cancelled)
                .map(|(id, _)| *id)
                .collect();
            prop_assert_eq!(cancelled.len(), answered.len());
            prop_assert_eq!(cancelled, was_asking);
            prop_assert!(state.items().iter().all(|i| !asking(&i.entry.kind)));
        }
        Input::PermissionChosen { item_id, option_id } => {
            let offered = before.item(item_id).is_some_and(|i| {
                i.permission_choice.is_none()
                    && matches!(&i.entry.kind, EntryKind::ToolCall(c) if c.permission.as_ref()
                        .is_some_and(|p| p.outcome.is_none() && p.option(option_id).is_some()))
            });
            let expected = if offered { 1 } else { 0 };
            prop_assert_eq!(answered.len(), expected, "{:?}", answered);
        }
        _ => prop_assert!(answered.is_empty(), "{:?}", answered),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4_000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn invariants_hold_after_every_input(inputs in prop::collection::vec(pool_input(), 1..40)) {
        let mut state = ChatState::new();
        let mut model = Model::default();
        for input in inputs {
            let before = state.clone();
            let out = reduce(&mut state, input.clone());
            check(&mut model, &before, &input, &state, &out)
                .map_err(|e| TestCaseError::fail(format!("after {input:?}: {e}")))?;
        }
    }
}
