//! The reducer's invariants, each pinned on the input that used to break it: item ids stay
//! unique, a ghost stays hidden when replaced, notices do not follow a thread switch, a
//! replacement with fewer content parts drops the extra ones, and every pending client tool
//! call of a turn runs, in order. `reducer_properties.rs` checks the same after every input
//! of random sequences.
#![cfg(not(target_arch = "wasm32"))]

use chat_shell_core::adapters::chatkit as chatkit_adapter;
use chat_shell_core::model::EntryKind;
use chat_shell_core::protocol::chatkit::*;
use chat_shell_core::protocol::JsonMap;
use chat_shell_core::reducer::{reduce, ChatState, Effect, Input, Outcome, GHOST_OPTION};
use serde_json::{json, Value};

fn ev(value: Value) -> Input {
    chat_shell_core::adapters::chatkit::input(decode_event(&value.to_string()).unwrap())
}

fn item(value: Value) -> ThreadItem {
    serde_json::from_value(value).unwrap()
}

fn user(id: &str, text: &str, ghost: bool) -> Value {
    json!({"id": id, "type": "user_message", "content": [{"type": "input_text", "text": text}],
           "attachments": [], "inference_options": if ghost { json!({GHOST_OPTION: true}) } else { json!({}) }})
}

fn answer(id: &str, parts: &[&str]) -> Value {
    let content: Vec<Value> = parts
        .iter()
        .map(|t| json!({"type": "output_text", "text": t}))
        .collect();
    json!({"id": id, "type": "assistant_message", "content": content})
}

fn tool_call(id: &str, name: &str, status: &str) -> Value {
    json!({"id": id, "type": "client_tool_call", "status": status, "call_id": format!("call_{id}"),
           "name": name, "arguments": {"n": name}})
}

fn delta(id: &str, text: &str) -> Value {
    json!({"type": "thread.item.updated", "item_id": id,
           "update": {"type": "assistant_message.content_part.text_delta", "content_index": 0, "delta": text}})
}

fn thread(id: &str, items: Vec<Value>) -> Thread {
    Thread {
        branching: false,
        id: id.into(),
        title: None,
        created_at: String::new(),
        status: ThreadStatus::default(),
        metadata: JsonMap::new(),
        items: Some(Page {
            data: items.into_iter().map(item).collect(),
            has_more: false,
            after: None,
        }),
    }
}

fn ids(state: &ChatState) -> Vec<&str> {
    state.items().iter().map(|i| i.entry.id.as_str()).collect()
}

fn invoked(outcome: &Outcome) -> Vec<&str> {
    outcome
        .effects
        .iter()
        .filter_map(|e| match e {
            Effect::InvokeClientTool { item_id, .. } => Some(item_id.as_str()),
            _ => None,
        })
        .collect()
}

fn parts(state: &ChatState, id: &str) -> Vec<String> {
    match &state.item(&ItemId::from(id)).expect(id).entry.kind {
        EntryKind::AssistantText(m) => m.content.iter().map(|p| p.text.clone()).collect(),
        other => panic!("{id} is not an assistant message: {other:?}"),
    }
}

#[test]
fn a_text_delta_for_a_user_message_id_is_a_warning_not_a_second_item() {
    for turn in [false, true] {
        let mut state = ChatState::new();
        if turn {
            reduce(&mut state, Input::TurnStarted);
        }
        reduce(
            &mut state,
            ev(json!({"type": "thread.item.done", "item": user("a", "hi", false)})),
        );
        let out = reduce(&mut state, ev(delta("a", "text")));
        assert_eq!(ids(&state), ["a"], "turn: {turn}");
        assert!(
            matches!(&state.items()[0].entry.kind, EntryKind::UserMessage(m) if m.text() == "hi"),
            "{:?}",
            state.items()[0]
        );
        assert_eq!(out.warnings.len(), 1, "{:?}", out.warnings);
    }
}

#[test]
fn every_message_update_for_a_widget_id_leaves_one_item() {
    let widget = json!({"id": "w", "type": "widget", "widget": {"type": "Card", "children": []}});
    for update in [
        json!({"type": "assistant_message.content_part.added", "content_index": 0,
               "content": {"type": "output_text", "text": "x"}}),
        json!({"type": "assistant_message.content_part.text_delta", "content_index": 0, "delta": "x"}),
        json!({"type": "assistant_message.content_part.annotation_added", "content_index": 0,
               "annotation_index": 0, "annotation": {"source": {"type": "url", "url": "https://x", "title": "x"}}}),
        json!({"type": "assistant_message.content_part.done", "content_index": 0,
               "content": {"type": "output_text", "text": "x"}}),
    ] {
        let mut state = ChatState::new();
        reduce(
            &mut state,
            ev(json!({"type": "thread.item.done", "item": widget})),
        );
        let out = reduce(
            &mut state,
            ev(json!({"type": "thread.item.updated", "item_id": "w", "update": update})),
        );
        assert_eq!(ids(&state), ["w"], "{update}");
        assert!(matches!(state.items()[0].entry.kind, EntryKind::Widget(_)));
        assert!(!out.warnings.is_empty(), "{update}");
    }
}

#[test]
fn a_loaded_page_with_a_repeated_id_holds_it_once() {
    let mut state = ChatState::new();
    reduce(
        &mut state,
        chatkit_adapter::thread_loaded(thread(
            "thr_1",
            vec![
                user("a", "one", false),
                answer("b", &["x"]),
                user("a", "two", false),
            ],
        )),
    );
    assert_eq!(ids(&state), ["a", "b"]);
    for (i, held) in state.items().iter().enumerate() {
        assert_eq!(state.item(&held.entry.id), Some(&state.items()[i]));
    }
    reduce(
        &mut state,
        chatkit_adapter::older_items(Page {
            data: [
                answer("c", &["y"]),
                answer("c", &["z"]),
                answer("b", &["old"]),
            ]
            .into_iter()
            .map(item)
            .collect(),
            has_more: false,
            after: None,
        }),
    );
    assert_eq!(ids(&state), ["c", "a", "b"]);
    assert_eq!(
        parts(&state, "b"),
        ["x"],
        "a held item is not replaced by an older copy"
    );
}

#[test]
fn a_local_message_never_takes_an_id_the_server_already_uses() {
    let mut state = ChatState::new();
    reduce(&mut state, Input::TurnStarted);
    reduce(
        &mut state,
        ev(json!({"type": "thread.item.done", "item": answer("local_0", &["x"])})),
    );
    reduce(&mut state, Input::StreamEnded);
    reduce(
        &mut state,
        Input::SendStarted(chat_shell_core::reducer::OutgoingMessage {
            content: Vec::new(),
            text: "hi".into(),
            ..Default::default()
        }),
    );
    let ids = ids(&state);
    assert_eq!(ids.len(), 2, "{ids:?}");
    assert_ne!(ids[0], ids[1]);
    assert_eq!(parts(&state, "local_0"), ["x"]);
}

#[test]
fn a_replaced_ghost_stays_hidden() {
    // Replaced by the same message with and without its ghost mark (servers need not echo
    // `inference_options` in a replacement).
    for ghost_mark in [true, false] {
        let mut state = ChatState::new();
        reduce(
            &mut state,
            chatkit_adapter::thread_loaded(thread("thr_1", vec![user("g", "secret", true)])),
        );
        assert!(state.items()[0].hidden);
        reduce(
            &mut state,
            ev(json!({"type": "thread.item.replaced", "item": user("g", "secret 2", ghost_mark)})),
        );
        assert_eq!(state.items().len(), 1);
        assert!(
            state.items()[0].hidden,
            "ghost mark in the replacement: {ghost_mark}"
        );
        assert_eq!(state.visible_items().count(), 0);
    }
    // A ghost sent from here and echoed, then replaced.
    let mut state = ChatState::new();
    reduce(
        &mut state,
        Input::SendStarted(chat_shell_core::reducer::OutgoingMessage {
            content: Vec::new(),
            text: "secret".into(),
            ghost: true,
            ..Default::default()
        }),
    );
    reduce(
        &mut state,
        ev(json!({"type": "thread.item.done", "item": user("g", "secret", false)})),
    );
    reduce(
        &mut state,
        ev(json!({"type": "thread.item.replaced", "item": user("g", "again", false)})),
    );
    assert_eq!(state.visible_items().count(), 0);
    // And a synced copy (an action's answer) keeps it hidden too.
    reduce(
        &mut state,
        chatkit_adapter::item_synced(item(user("g", "synced", false))),
    );
    assert_eq!(state.visible_items().count(), 0);
}

#[test]
fn a_thread_switch_drops_the_old_threads_notices() {
    let notice = json!({"type": "notice", "level": "warning", "message": "about thread 1"});
    let mut state = ChatState::new();
    reduce(
        &mut state,
        chatkit_adapter::thread_loaded(thread("thr_1", vec![])),
    );
    reduce(&mut state, Input::TurnStarted);
    reduce(&mut state, ev(notice.clone()));
    reduce(&mut state, Input::StreamEnded);
    assert_eq!(state.notices.len(), 1);
    state.take_changes();
    reduce(
        &mut state,
        chatkit_adapter::thread_loaded(thread("thr_2", vec![])),
    );
    assert!(state.notices.is_empty(), "{:?}", state.notices);
    assert!(state.take_changes().notices, "the views must hear of it");

    // A thread the stream switches to (created or updated under another id).
    for switch in ["thread.created", "thread.updated"] {
        let mut state = ChatState::new();
        reduce(
            &mut state,
            chatkit_adapter::thread_loaded(thread("thr_1", vec![])),
        );
        reduce(&mut state, Input::TurnStarted);
        reduce(&mut state, ev(notice.clone()));
        reduce(
            &mut state,
            ev(
                json!({"type": switch, "thread": {"id": "thr_2", "created_at": "", "status": {"type": "active"}}}),
            ),
        );
        assert!(state.notices.is_empty(), "{switch}: {:?}", state.notices);
        // Notices of the new thread are kept.
        reduce(&mut state, ev(notice.clone()));
        assert_eq!(state.notices.len(), 1);
    }
}

#[test]
fn notice_ids_are_not_reused_after_a_thread_switch() {
    let notice = json!({"type": "notice", "level": "info", "message": "n"});
    let mut state = ChatState::new();
    reduce(&mut state, Input::TurnStarted);
    reduce(&mut state, ev(notice.clone()));
    let first = state.notices[0].id;
    reduce(
        &mut state,
        chatkit_adapter::thread_loaded(thread("thr_2", vec![])),
    );
    reduce(&mut state, Input::TurnStarted);
    reduce(&mut state, ev(notice));
    // Views key notices by id: a new notice under an old id would show the old text.
    assert_ne!(state.notices[0].id, first);
}

#[test]
fn a_replacement_with_fewer_content_parts_drops_the_rest() {
    for last in ["thread.item.done", "thread.item.replaced"] {
        let mut state = ChatState::new();
        reduce(&mut state, Input::TurnStarted);
        reduce(
            &mut state,
            ev(json!({"type": "thread.item.added", "item": answer("m", &["a", "b", "c"])})),
        );
        reduce(&mut state, ev(delta("m", "!")));
        reduce(
            &mut state,
            ev(json!({"type": last, "item": answer("m", &["only"])})),
        );
        assert_eq!(parts(&state, "m"), ["only"], "{last}");
        reduce(
            &mut state,
            ev(json!({"type": last, "item": answer("m", &[])})),
        );
        assert!(parts(&state, "m").is_empty(), "{last}");
    }
}

#[test]
fn every_pending_client_tool_call_of_a_turn_runs_in_order() {
    // The runtime as it is: it runs the client tool call a finished stream asked for, sends
    // its output (`threads.add_client_tool_output` takes one), and that answer is a new
    // stream. So each stream may ask for one call, and the turn's other pending calls must
    // be asked for by the streams that follow.
    let mut state = ChatState::new();
    let mut stream = vec![reduce(&mut state, Input::TurnStarted)];
    for id in ["t1", "t2", "t3"] {
        let call = tool_call(id, &format!("tool_{id}"), "pending");
        stream.push(reduce(
            &mut state,
            ev(json!({"type": "thread.item.added", "item": call})),
        ));
        stream.push(reduce(
            &mut state,
            ev(json!({"type": "thread.item.done", "item": call})),
        ));
    }
    let mut ran = Vec::new();
    for round in 0..5 {
        stream.push(reduce(&mut state, Input::StreamEnded));
        let asked: Vec<&str> = stream.iter().flat_map(invoked).collect();
        assert!(
            asked.len() <= 1,
            "round {round}: one call per stream, got {asked:?}"
        );
        let Some(id) = asked.first().map(|id| ItemId::from(*id)) else {
            break;
        };
        ran.push(id.to_string());
        stream = vec![reduce(&mut state, Input::TurnStarted)];
        let mut done = state.item(&id).unwrap().entry.clone();
        if let EntryKind::ClientToolCall(c) = &mut done.kind {
            c.status = ClientToolStatus::Completed;
        }
        stream.push(reduce(&mut state, Input::ItemSynced(done)));
        let reply = answer(&format!("a_{id}"), &["ok"]);
        stream.push(reduce(
            &mut state,
            ev(json!({"type": "thread.item.done", "item": reply})),
        ));
    }
    assert_eq!(ran, ["t1", "t2", "t3"]);
}

#[test]
fn pending_client_tool_calls_do_not_run_after_stop_failure_or_removal() {
    let run = |end: Input| {
        let mut state = ChatState::new();
        reduce(&mut state, Input::TurnStarted);
        for id in ["t1", "t2"] {
            reduce(
                &mut state,
                ev(json!({"type": "thread.item.done", "item": tool_call(id, "x", "pending")})),
            );
        }
        let mut all = Vec::new();
        let out = reduce(&mut state, end);
        all.extend(invoked(&out).into_iter().map(str::to_owned));
        // A later turn that ends cleanly runs nothing left over from the stopped one.
        reduce(&mut state, Input::TurnStarted);
        reduce(
            &mut state,
            ev(json!({"type": "progress_update", "text": "p"})),
        );
        let out = reduce(&mut state, Input::StreamEnded);
        all.extend(invoked(&out).into_iter().map(str::to_owned));
        all
    };
    assert!(run(Input::Cancelled).is_empty());
    assert!(run(Input::StreamFailed {
        message: "x".into(),
        allow_retry: true
    })
    .is_empty());

    let mut state = ChatState::new();
    reduce(&mut state, Input::TurnStarted);
    for id in ["t1", "t2"] {
        reduce(
            &mut state,
            ev(json!({"type": "thread.item.done", "item": tool_call(id, "x", "pending")})),
        );
    }
    reduce(
        &mut state,
        ev(json!({"type": "thread.item.removed", "item_id": "t1"})),
    );
    reduce(
        &mut state,
        ev(json!({"type": "thread.item.replaced", "item": tool_call("t2", "x", "completed")})),
    );
    assert!(invoked(&reduce(&mut state, Input::StreamEnded)).is_empty());
}
