//! Hydration and ghost messages in the reducer: a loaded thread keeps the cursor for its
//! older items, ghost user messages (marked in `inference_options`) stay hidden whether
//! they are echoed or loaded, and a message that never reached the server comes back with
//! its attachments (a ghost does not: it was never typed).
#![cfg(not(target_arch = "wasm32"))]

use chat_shell_core::adapters::chatkit as chatkit_adapter;
use chat_shell_core::model::EntryKind;
use chat_shell_core::protocol::chatkit::*;
use chat_shell_core::protocol::JsonMap;
use chat_shell_core::reducer::{
    reduce, ChatState, Effect, Input, OlderPages, OutgoingMessage, Streamed, GHOST_OPTION,
};
use serde_json::json;

fn item(value: serde_json::Value) -> ThreadItem {
    serde_json::from_value(value).unwrap()
}

fn user(id: &str, text: &str, ghost: bool) -> ThreadItem {
    let options = if ghost {
        json!({ GHOST_OPTION: true })
    } else {
        json!({})
    };
    item(json!({
        "id": id, "thread_id": "thr_1", "created_at": "2026-01-01T00:00:00", "type": "user_message",
        "content": [{"type": "input_text", "text": text}], "attachments": [],
        "inference_options": options
    }))
}

fn answer(id: &str, text: &str) -> ThreadItem {
    item(json!({
        "id": id, "thread_id": "thr_1", "created_at": "2026-01-01T00:00:00",
        "type": "assistant_message", "content": [{"type": "output_text", "text": text}]
    }))
}

fn thread(items: Vec<ThreadItem>, has_more: bool, after: Option<&str>) -> Thread {
    Thread {
        branching: false,
        id: "thr_1".into(),
        title: Some("T".into()),
        created_at: "2026-01-01T00:00:00".into(),
        status: ThreadStatus::default(),
        metadata: JsonMap::new(),
        items: Some(Page {
            data: items,
            has_more,
            after: after.map(str::to_owned),
        }),
    }
}

fn visible_ids(state: &ChatState) -> Vec<&str> {
    state.visible_items().map(|i| i.entry.id.as_str()).collect()
}

#[test]
fn ghost_marks_are_read_from_inference_options() {
    assert!(chatkit_adapter::entry(user("m", "x", true)).is_ghost());
    assert!(!chatkit_adapter::entry(user("m", "x", false)).is_ghost());
    assert!(!chatkit_adapter::entry(answer("a", "x")).is_ghost());
    let odd = item(
        json!({"id": "m", "type": "user_message", "content": [], "inference_options": {"ghost": "yes"}}),
    );
    assert!(
        !chatkit_adapter::entry(odd).is_ghost(),
        "only a boolean true marks a ghost"
    );
}

#[test]
fn a_loaded_thread_hides_ghosts_and_keeps_the_older_cursor() {
    let mut state = ChatState::new();
    let newest = vec![
        user("m3", "hidden instructions", true),
        answer("a3", "ok"),
        user("m4", "hello", false),
    ];
    reduce(
        &mut state,
        chatkit_adapter::thread_loaded(thread(newest, true, Some("m3"))),
    );
    assert_eq!(visible_ids(&state), ["a3", "m4"]);
    assert_eq!(state.items().len(), 3, "a ghost is kept, only hidden");
    assert_eq!(state.older.cursor.as_deref(), Some("m3"));

    // An older page (newest first) goes in front; the cursor moves on, then runs out.
    reduce(
        &mut state,
        chatkit_adapter::older_items(Page {
            data: vec![answer("a2", "b"), user("m2", "older ghost", true)],
            has_more: true,
            after: Some("m2".into()),
        }),
    );
    assert_eq!(visible_ids(&state), ["a2", "a3", "m4"]);
    assert_eq!(state.older.cursor.as_deref(), Some("m2"));
    reduce(
        &mut state,
        chatkit_adapter::older_items(Page {
            data: vec![user("m1", "first", false)],
            has_more: false,
            after: Some("m1".into()),
        }),
    );
    assert_eq!(visible_ids(&state), ["m1", "a2", "a3", "m4"]);
    assert_eq!(
        state.older.cursor, None,
        "no cursor once the server says there is no more"
    );

    // A complete thread has nothing older; a new chat forgets the cursor.
    reduce(
        &mut state,
        chatkit_adapter::thread_loaded(thread(vec![user("m9", "x", false)], false, Some("m9"))),
    );
    assert_eq!(state.older.cursor, None);
    reduce(
        &mut state,
        chatkit_adapter::thread_loaded(thread(vec![], true, Some("m9"))),
    );
    reduce(&mut state, Input::Reset);
    assert_eq!(state.older.cursor, None);
}

#[test]
fn a_ghost_echo_stays_hidden_with_or_without_a_local_message() {
    let mut state = ChatState::new();
    reduce(
        &mut state,
        Input::SendStarted(OutgoingMessage {
            content: Vec::new(),
            text: "secret".into(),
            ghost: true,
            ..Default::default()
        }),
    );
    assert!(visible_ids(&state).is_empty());
    reduce(
        &mut state,
        chat_shell_core::adapters::chatkit::input(StreamEvent::ItemDone(ItemEvent {
            item: user("m1", "secret", true),
        })),
    );
    assert!(visible_ids(&state).is_empty());
    assert_eq!(
        state.items().len(),
        1,
        "the echo replaced the local message"
    );
    // An echo nobody sent from here (another tab) is hidden by its mark alone.
    reduce(
        &mut state,
        chat_shell_core::adapters::chatkit::input(StreamEvent::ItemDone(ItemEvent {
            item: user("m2", "from elsewhere", true),
        })),
    );
    assert!(visible_ids(&state).is_empty());
}

#[test]
fn a_failed_message_comes_back_not_an_earlier_one_the_server_never_echoed() {
    // As over the events envelope: the server never echoes, so every sent message stays
    // this client's own.
    let mut state = ChatState::new();
    let send = |state: &mut ChatState, text: &str| {
        reduce(
            state,
            Input::SendStarted(OutgoingMessage {
                content: Vec::new(),
                text: text.into(),
                ..Default::default()
            }),
        )
    };
    for (n, text) in ["first one", "second one"].into_iter().enumerate() {
        send(&mut state, text);
        let id = format!("a{n}");
        reduce(
            &mut state,
            Input::Stream(Streamed::ItemDone(chatkit_adapter::entry(answer(
                &id, "ok",
            )))),
        );
        reduce(&mut state, Input::StreamEnded);
    }
    // Each finished turn's one answer ends it; the second is the latest.
    assert_eq!(
        state.turn_answers(&ItemId::from("a0")),
        Some((vec![ItemId::from("a0")], false))
    );
    assert_eq!(
        state.turn_answers(&ItemId::from("a1")),
        Some((vec![ItemId::from("a1")], true))
    );
    send(&mut state, "the one that failed");
    assert!(
        !state.turn_has_content(),
        "nothing shown yet: the working indicator's time"
    );
    assert_eq!(
        state.turn_answers(&ItemId::from("a1")),
        Some((vec![ItemId::from("a1")], false)),
        "a new turn began"
    );
    let out = reduce(
        &mut state,
        Input::StreamFailed {
            message: "connection lost".into(),
            allow_retry: false,
        },
    );
    let restored: Vec<&str> = out
        .effects
        .iter()
        .filter_map(|e| match e {
            Effect::RestoreDraft { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(restored, ["the one that failed"]);
    let users = state
        .items()
        .iter()
        .filter(|i| matches!(&i.entry.kind, EntryKind::UserMessage(_)))
        .count();
    assert_eq!(users, 2, "the earlier messages stay in the conversation");
}

#[test]
fn a_turn_of_several_answers_has_one_end_and_copies_them_all() {
    let mut state = ChatState::new();
    reduce(
        &mut state,
        Input::SendStarted(OutgoingMessage {
            content: Vec::new(),
            text: "team, go".into(),
            ..Default::default()
        }),
    );
    for id in ["lead", "writer"] {
        reduce(
            &mut state,
            Input::Stream(Streamed::ItemDone(chatkit_adapter::entry(answer(id, id)))),
        );
    }
    assert_eq!(
        state.turn_answers(&ItemId::from("lead")),
        None,
        "not the turn's last"
    );
    assert_eq!(
        state.turn_answers(&ItemId::from("writer")),
        Some((vec![ItemId::from("lead"), ItemId::from("writer")], true))
    );
    assert_eq!(state.turn_answers(&ItemId::from("nope")), None);
}

#[test]
fn a_failed_message_comes_back_with_its_attachments_but_a_ghost_does_not() {
    let attachment: Attachment = serde_json::from_value(json!({
        "id": "atc_1", "name": "a.png", "mime_type": "image/png", "type": "image"
    }))
    .unwrap();
    let mut state = ChatState::new();
    reduce(
        &mut state,
        Input::SendStarted(OutgoingMessage {
            content: Vec::new(),
            text: "with a file".into(),
            attachments: vec![attachment.clone()],
            ghost: false,
        }),
    );
    let out = reduce(
        &mut state,
        Input::StreamFailed {
            message: "HTTP 500".into(),
            allow_retry: true,
        },
    );
    assert!(out.effects.contains(&Effect::RestoreDraft {
        text: "with a file".into(),
        attachments: vec![attachment],
    }));
    assert!(state.items().is_empty());

    reduce(
        &mut state,
        Input::SendStarted(OutgoingMessage {
            content: Vec::new(),
            text: "hidden".into(),
            ghost: true,
            ..Default::default()
        }),
    );
    let out = reduce(
        &mut state,
        Input::StreamFailed {
            message: "HTTP 500".into(),
            allow_retry: true,
        },
    );
    assert!(
        !out.effects
            .iter()
            .any(|e| matches!(e, Effect::RestoreDraft { .. })),
        "a ghost message was put in the composer"
    );
    assert!(state.items().is_empty());
}

#[test]
fn older_pages_are_held_once_one_page_at_a_time() {
    let mut state = ChatState::new();
    reduce(
        &mut state,
        chatkit_adapter::thread_loaded(thread(vec![answer("a3", "ok")], true, Some("a3"))),
    );
    state.take_changes();
    assert!(state.older.more() && !state.older.loading);

    reduce(&mut state, Input::OlderRequested);
    assert!(state.older.loading, "a page is on its way");
    assert!(state.take_changes().older, "the history's signal is told");
    // A second ask while one is on its way changes nothing.
    reduce(&mut state, Input::OlderRequested);
    assert!(!state.take_changes().older);

    // It failed: it can be asked for again, from the same cursor.
    reduce(&mut state, Input::OlderEnded);
    assert!(!state.older.loading);
    assert_eq!(state.older.cursor.as_deref(), Some("a3"));
    assert!(state.take_changes().older);

    // A page in ends the loading and moves the cursor.
    reduce(&mut state, Input::OlderRequested);
    reduce(
        &mut state,
        chatkit_adapter::older_items(Page {
            data: vec![user("m2", "b", false)],
            has_more: false,
            after: Some("m2".into()),
        }),
    );
    assert_eq!(
        state.older,
        OlderPages::default(),
        "nothing older, nothing loading"
    );
    assert!(state.take_changes().older);
    // With nothing older, nothing is asked for.
    reduce(&mut state, Input::OlderRequested);
    assert!(!state.older.loading);

    // A thread loaded while a page was on its way starts from its own cursor.
    reduce(
        &mut state,
        chatkit_adapter::thread_loaded(thread(vec![answer("b9", "x")], true, Some("b9"))),
    );
    reduce(&mut state, Input::OlderRequested);
    reduce(
        &mut state,
        chatkit_adapter::thread_loaded(thread(vec![answer("c9", "y")], true, Some("c9"))),
    );
    assert_eq!(state.older.cursor.as_deref(), Some("c9"));
    assert!(!state.older.loading);
}
