//! Branches in the reducer: a thread says whether it branches, an item carries its
//! branches to the view, an edit puts the new message in the place of the one edited,
//! and an answer's turn names the branches of its first item.
#![cfg(not(target_arch = "wasm32"))]

use chat_shell_core::adapters::chatkit as chatkit_adapter;
use chat_shell_core::model::EntryKind;
use chat_shell_core::protocol::chatkit::*;
use chat_shell_core::reducer::{reduce, ChatState, Input, OutgoingMessage};
use serde_json::json;

fn item(value: serde_json::Value) -> ThreadItem {
    serde_json::from_value(value).unwrap()
}

fn user(id: &str, branches: &[&str]) -> ThreadItem {
    item(json!({
        "id": id, "thread_id": "thr_1", "created_at": "2026-01-01T00:00:00", "type": "user_message",
        "content": [{"type": "input_text", "text": id}], "attachments": [], "branches": branches
    }))
}

fn answer(id: &str, branches: &[&str]) -> ThreadItem {
    item(json!({
        "id": id, "thread_id": "thr_1", "created_at": "2026-01-01T00:00:00",
        "type": "assistant_message", "content": [{"type": "output_text", "text": id}],
        "branches": branches
    }))
}

fn loaded(branching: bool, items: Vec<ThreadItem>) -> ChatState {
    let thread: Thread = serde_json::from_value(json!({
        "id": "thr_1", "created_at": "2026-01-01T00:00:00", "status": {"type": "active"},
        "metadata": {}, "branching": branching,
        "items": {"data": items, "has_more": false, "after": null}
    }))
    .unwrap();
    let mut state = ChatState::default();
    reduce(&mut state, chatkit_adapter::thread_loaded(thread));
    state
}

fn ids(state: &ChatState) -> Vec<String> {
    state
        .visible_items()
        .map(|i| i.entry.id.as_str().to_owned())
        .collect()
}

#[test]
fn a_thread_says_whether_it_branches_and_items_carry_their_branches() {
    let plain = loaded(false, vec![user("q1", &[]), answer("a1", &[])]);
    assert!(!plain.thread.as_ref().unwrap().branching);
    assert!(plain
        .visible_items()
        .all(|i| i.entry.branch_position().is_none()));

    let state = loaded(
        true,
        vec![user("q1", &["q0", "q1"]), answer("a1", &["a0", "a1", "a2"])],
    );
    assert!(state.thread.as_ref().unwrap().branching);
    let positions: Vec<_> = state
        .visible_items()
        .map(|i| i.entry.branch_position())
        .collect();
    assert_eq!(positions, [Some((2, 2)), Some((2, 3))]);
    // The answer's turn names the branches of its first item.
    let first = state.turn_branches(&"a1".into()).unwrap();
    assert_eq!(first.id.as_str(), "a1");
    assert!(state.turn_branches(&"q1".into()).is_none());
}

#[test]
fn a_lone_branch_or_one_missing_from_its_list_shows_no_position() {
    let state = loaded(true, vec![user("q1", &["q1"]), answer("a1", &["a0", "a2"])]);
    assert!(state
        .visible_items()
        .all(|i| i.entry.branch_position().is_none()));
}

#[test]
fn an_edit_takes_the_place_of_the_message_and_what_followed_it() {
    let mut state = loaded(
        true,
        vec![
            user("q1", &[]),
            answer("a1", &[]),
            user("q2", &[]),
            answer("a2", &[]),
        ],
    );
    reduce(
        &mut state,
        Input::EditStarted {
            edited: "q2".into(),
            message: OutgoingMessage {
                text: "q2, edited".into(),
                ..Default::default()
            },
        },
    );
    assert!(state.is_streaming());
    let shown = ids(&state);
    assert_eq!(shown[..2], ["q1", "a1"]);
    assert_eq!(shown.len(), 3, "{shown:?}");
    let local = state.visible_items().last().unwrap();
    assert!(local.local);
    assert!(
        matches!(&local.entry.kind, EntryKind::UserMessage(m) if m.text() == "q2, edited"),
        "{local:?}"
    );
    // The server's copy replaces it, with the branches it now has.
    reduce(
        &mut state,
        chatkit_adapter::input(StreamEvent::ItemDone(ItemEvent {
            item: user("q3", &["q2", "q3"]),
        })),
    );
    assert_eq!(ids(&state), ["q1", "a1", "q3"]);
    assert_eq!(
        state
            .visible_items()
            .last()
            .unwrap()
            .entry
            .branch_position(),
        Some((2, 2))
    );
}

#[test]
fn an_edit_of_an_unknown_message_still_sends() {
    let mut state = loaded(true, vec![user("q1", &[])]);
    reduce(
        &mut state,
        Input::EditStarted {
            edited: "gone".into(),
            message: OutgoingMessage {
                text: "again".into(),
                ..Default::default()
            },
        },
    );
    assert_eq!(ids(&state).len(), 2);
}
