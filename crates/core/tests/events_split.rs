#![cfg(not(target_arch = "wasm32"))]
//! The `events` protocol end to end: the recorded envelopes decode to the same reducer
//! inputs and the same state whole, split in two at any offset, and in random chunks;
//! and the replay shows what the spec means (bubbles, tool outcomes, agents, banner…).

use std::fs;
use std::path::PathBuf;

use chat_shell_core::adapters::events::EventsAdapter;
use chat_shell_core::model::EntryKind;
use chat_shell_core::protocol::chatkit::ItemId;
use chat_shell_core::reducer::{
    assistant_text, reduce, ChatState, Effect, Input, OutgoingMessage, ToolCallState,
};
use chat_shell_core::sse::SseDecoder;
use proptest::prelude::*;

mod common;

fn fixture(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/events")
        .join(name);
    fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// What the runtime does: decode chunks, give every frame an `Alive` (the frame's index
/// stands in for the clock) and the adapter's inputs, then end the stream at EOF.
fn inputs(chunks: &[&[u8]]) -> Vec<Input> {
    let mut decoder = SseDecoder::new();
    let mut adapter = EventsAdapter::new(1);
    let mut frames = Vec::new();
    for chunk in chunks {
        frames.extend(decoder.push(chunk));
    }
    frames.extend(decoder.finish());
    let mut out = Vec::new();
    for (i, frame) in frames.into_iter().enumerate() {
        out.push(Input::Alive { at_ms: i as f64 });
        out.extend(adapter.push(frame));
    }
    out.push(Input::StreamEnded);
    out
}

fn replay(inputs: Vec<Input>) -> (ChatState, Vec<Effect>, Vec<String>) {
    let mut state = ChatState::new();
    let mut effects = Vec::new();
    let mut warnings = Vec::new();
    let start = Input::SendStarted(OutgoingMessage {
        content: Vec::new(),
        text: "Who holds the license?".into(),
        ..Default::default()
    });
    for input in std::iter::once(start).chain(inputs) {
        let out = reduce(&mut state, input);
        effects.extend(out.effects);
        warnings.extend(out.warnings.into_iter().map(|w| w.message));
    }
    state.take_changes();
    (state, effects, warnings)
}

fn sized(bytes: &[u8], sizes: &[usize]) -> Vec<Input> {
    inputs(&common::chunks(bytes, sizes))
}

#[test]
fn every_split_gives_the_same_inputs() {
    for name in ["run.sse", "cut_mid_tool.sse"] {
        let bytes = fixture(name);
        let whole = inputs(&[&bytes]);
        assert!(whole.len() > 10, "{name}: {whole:?}");
        for at in 0..=bytes.len() {
            let (a, b) = bytes.split_at(at);
            assert_eq!(inputs(&[a, b]), whole, "{name} split at {at}");
        }
    }
}

proptest! {
    #[test]
    fn random_chunks_give_the_same_state(sizes in prop::collection::vec(1usize..40, 1..20)) {
        for name in ["run.sse", "cut_mid_tool.sse"] {
            let bytes = fixture(name);
            let whole = replay(inputs(&[&bytes]));
            prop_assert_eq!(replay(sized(&bytes, &sizes)), whole, "{}", name);
        }
    }
}

fn tool_states(state: &ChatState) -> Vec<(String, ToolCallState)> {
    state
        .items()
        .iter()
        .filter_map(|i| match &i.entry.kind {
            EntryKind::ToolCall(c) => Some((c.tool_call.title.clone(), i.tool_call_state()?)),
            _ => None,
        })
        .collect()
}

#[test]
fn the_run_replays_as_the_spec_means() {
    let (state, effects, warnings) = replay(inputs(&[&fixture("run.sse")]));
    assert!(!state.is_streaming());
    assert!(
        state.error.is_none(),
        "a recoverable error does not fail the run"
    );
    assert!(state.progress.is_none(), "loader hints are never kept");
    // The bubbles, in order, each with the agent that owned it.
    let shown: Vec<(&str, Option<&str>)> = state
        .items()
        .iter()
        .map(|i| {
            let kind = match &i.entry.kind {
                EntryKind::UserMessage(_) => "user",
                EntryKind::AssistantText(_) => "assistant",
                EntryKind::ToolCall(_) => "tool",
                other => panic!("unexpected {other:?}"),
            };
            (kind, i.agent.as_ref().map(|a| a.name.as_str()))
        })
        .collect();
    assert_eq!(
        shown,
        [
            ("user", None),
            ("assistant", Some("researcher")),
            ("tool", Some("researcher")),
            ("tool", Some("researcher")),
            ("tool", Some("researcher")),
            ("assistant", Some("writer")),
        ]
    );
    let texts: Vec<String> = state.items().iter().filter_map(assistant_text).collect();
    assert_eq!(
        texts,
        [
            "I'll check the docs first — 📄 README and LICENSE. ",
            "Here's the summary: the project is **MIT** licensed (© 2024 Steerable).",
        ]
    );
    assert_eq!(state.items()[5].entry.id, ItemId::from("m_writer_1"));
    assert_eq!(
        tool_states(&state),
        [
            ("read_file".into(), ToolCallState::Completed),
            ("search".into(), ToolCallState::Failed),
            ("fetch".into(), ToolCallState::Unknown),
        ]
    );
    assert_eq!(state.run_errors.len(), 1);
    assert_eq!(state.run_errors[0].code.as_deref(), Some("tool_degraded"));
    assert_eq!(
        state.run_errors[0].after_item.as_ref(),
        Some(&state.items()[3].entry.id),
        "inline, after the failed search"
    );
    assert_eq!(
        state.budget.as_ref().map(|b| b.message.as_str()),
        Some("Tool-call budget reached (3 of 3)")
    );
    let o = state.orchestration.as_ref().expect("orchestration");
    assert_eq!(o.status.as_deref(), Some("delegating"));
    assert_eq!(o.plan.len(), 2, "a status update keeps the plan");
    assert_eq!(state.diagnostics.unknown_types.get("telemetry"), Some(&1));
    assert_eq!(
        state.diagnostics.unknown_fields.get("content.seq"),
        Some(&2)
    );
    assert!(state.last_event_ms.is_some());
    let ends = effects
        .iter()
        .filter(|e| matches!(e, Effect::Emit(ev) if ev.name() == "chat.response.end"))
        .count();
    assert_eq!(ends, 1, "done, [DONE] and EOF end the answer once");
    assert!(
        warnings.iter().all(|w| !w.contains("malformed")),
        "{warnings:?}"
    );
}

#[test]
fn a_stream_cut_mid_tool_leaves_the_call_interrupted() {
    let (state, effects, _) = replay(inputs(&[&fixture("cut_mid_tool.sse")]));
    assert_eq!(
        tool_states(&state),
        [("run_tests".into(), ToolCallState::Interrupted)]
    );
    assert!(state.progress.is_none());
    let decode_errors = effects
        .iter()
        .filter(|e| matches!(e, Effect::Emit(ev) if ev.detail()["kind"] == "decode"))
        .count();
    assert_eq!(decode_errors, 1, "the half frame is reported, not fatal");
    assert!(state.error.is_none());
}
