#![cfg(not(target_arch = "wasm32"))]
//! AG-UI end to end in the core: streams recorded from a server built on the official SDK
//! decode to the same reducer inputs and the same state whole, split in two at any offset
//! and in random chunks; and the replays show what the protocol means (the ordering rule,
//! two runs in one stream, reasoning apart, the state, an interrupt's card).

use std::collections::HashSet;
use std::fs;
use std::path::PathBuf;

use chat_shell_core::adapters::ag_ui::{AgUiAdapter, Conversation};
use chat_shell_core::model::EntryKind;
use chat_shell_core::reducer::{assistant_text, reduce, ChatState, Input, OutgoingMessage};
use chat_shell_core::sse::SseDecoder;
use proptest::prelude::*;

mod common;

const NAMES: &[&str] = &[
    "tool", "think", "ponder", "state", "approve", "twice", "disorder", "chunk", "hostile",
    "weather", "activity", "snapshot", "fail",
];

fn fixture(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/ag-ui")
        .join(format!("{name}.sse"));
    fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// What the runtime does: decode chunks, feed every frame to one run's adapter, then the
/// adapter's end and the stream's end.
fn inputs(chunks: &[&[u8]]) -> (Vec<Input>, Conversation) {
    let mut decoder = SseDecoder::new();
    let mut adapter = AgUiAdapter::new(HashSet::new(), vec!["get_weather".into()], Vec::new());
    let mut conversation = Conversation::new("thread-rec".into());
    let mut frames = Vec::new();
    for chunk in chunks {
        frames.extend(decoder.push(chunk));
    }
    frames.extend(decoder.finish());
    let mut out = Vec::new();
    for frame in frames {
        out.extend(adapter.push(frame, &mut conversation));
    }
    out.extend(adapter.end(&mut conversation));
    out.push(Input::StreamEnded);
    (out, conversation)
}

fn replay(inputs: Vec<Input>) -> ChatState {
    let mut state = ChatState::new();
    let start = Input::SendStarted(OutgoingMessage {
        text: "go".into(),
        ..Default::default()
    });
    for input in std::iter::once(start).chain(inputs) {
        reduce(&mut state, input);
    }
    state.take_changes();
    state
}

fn sized(bytes: &[u8], sizes: &[usize]) -> (Vec<Input>, Conversation) {
    inputs(&common::chunks(bytes, sizes))
}

#[test]
fn every_split_gives_the_same_inputs_and_state() {
    for name in NAMES {
        let bytes = fixture(name);
        let (whole, conversation) = inputs(&[&bytes]);
        assert!(
            !whole.iter().any(|i| matches!(i, Input::Malformed(_))),
            "{name}: a recorded event did not decode"
        );
        let state = replay(whole.clone());
        for at in 0..=bytes.len() {
            let (head, tail) = bytes.split_at(at);
            let (split, split_conversation) = inputs(&[head, tail]);
            assert_eq!(split, whole, "{name}: split at {at}");
            assert_eq!(split_conversation, conversation, "{name}: split at {at}");
        }
        assert_eq!(replay(sized(&bytes, &[1]).0), state, "{name}: byte by byte");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
    #[test]
    fn random_chunks_give_the_same_state(
        which in 0..NAMES.len(),
        sizes in proptest::collection::vec(1usize..200, 1..20),
    ) {
        let bytes = fixture(NAMES[which]);
        let (whole, _) = inputs(&[&bytes]);
        prop_assert_eq!(replay(sized(&bytes, &sizes).0), replay(whole));
    }
}

fn texts(state: &ChatState) -> Vec<String> {
    state.items().iter().filter_map(assistant_text).collect()
}

#[test]
fn the_replays_show_what_the_protocol_means() {
    // Two runs in one stream: both answers.
    let twice = replay(inputs(&[&fixture("twice")]).0);
    assert_eq!(texts(&twice), ["First run.", "Second run."]);
    // After the end, without a new start: one protocol error, the rest not shown.
    let disorder = replay(inputs(&[&fixture("disorder")]).0);
    assert_eq!(texts(&disorder), ["Before the end."]);
    let codes: Vec<_> = disorder.run_errors.iter().map(|e| e.code.clone()).collect();
    assert_eq!(codes, [Some("ag_ui.order".to_owned())]);
    // Reasoning is a thought, apart; its encrypted value is kept for the next run.
    let (think, conversation) = inputs(&[&fixture("think")]);
    let think = replay(think);
    assert!(think.items().iter().any(
        |i| matches!(&i.entry.kind, EntryKind::Thought(t) if t.text.contains("Let me think"))
    ));
    assert!(texts(&think).iter().all(|t| !t.contains("Let me think")));
    assert!(!conversation.encrypted.is_empty());
    // The state as the snapshot and the patch left it.
    let (_, conversation) = inputs(&[&fixture("state")]);
    assert_eq!(
        conversation.state,
        serde_json::json!({"counter": 2, "items": ["a", "b"]})
    );
    // An interrupt waits, with its card.
    let (approve, conversation) = inputs(&[&fixture("approve")]);
    assert_eq!(conversation.interrupts.len(), 1);
    assert!(approve
        .iter()
        .any(|i| matches!(i, Input::ActionRequired { .. })));
    // The page's tool waits for the page.
    let weather = replay(inputs(&[&fixture("weather")]).0);
    assert!(weather
        .items()
        .iter()
        .any(|i| matches!(&i.entry.kind, EntryKind::ClientToolCall(c) if c.name == "get_weather")));
    // A run error fails the turn, the agent's word, with Retry.
    let fail = replay(inputs(&[&fixture("fail")]).0);
    assert!(fail
        .error
        .as_ref()
        .is_some_and(|e| e.by_agent && e.allow_retry));
}
