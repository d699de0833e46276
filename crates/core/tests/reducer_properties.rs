//! Properties of the decoder + reducer pipeline: arbitrary bytes and arbitrary JSON events
//! (known types with wrong field types included) never panic, and chunking never changes
//! the resulting state.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use chat_shell_core::protocol::chatkit::decode_event;
use chat_shell_core::reducer::{reduce, ChatState, Input, OutgoingMessage};
use common::*;
use proptest::prelude::*;
use serde_json::{json, Value};

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
                Ok(e) => Input::Server(e),
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
