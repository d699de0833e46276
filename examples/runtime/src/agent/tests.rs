//! The scripted agent runs and the permission protocol, fed to the core's reducer as a
//! client would.

use super::answer::{decide, parse_answer, PermissionAnswer, Refusal};
use super::permission::{call_id, permission_ask, permission_decided, permission_options};
use super::scenarios::{agent_cut, agent_run};
use crate::scripts::{Script, Step};
use crate::store::Store;
use chat_shell_core::model::EntryKind;
use chat_shell_core::protocol::acp::{
    PermissionOptionId, PermissionOutcome, PlanEntryStatus, ToolCallContent, ToolCallId, ToolKind,
};
use chat_shell_core::protocol::chatkit::{
    decode_event, AcpPermission, ItemKind, ItemUpdate, StreamEvent, ThreadItem,
};
use chat_shell_core::reducer::{self, ChatState, Input, ToolCallState};
use serde_json::json;
use std::time::Duration;

fn events(steps: &[Step]) -> Vec<StreamEvent> {
    steps
        .iter()
        .filter_map(|s| match s {
            Step::Emit { event, .. } => Some(event.clone()),
            _ => None,
        })
        .collect()
}

/// Feeds `events`, serialized and decoded as a client would, to the core's reducer.
fn reduce(state: &mut ChatState, events: &[StreamEvent]) {
    for event in events {
        let json = serde_json::to_string(event).unwrap();
        let back = decode_event(&json).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(&back, event, "round trip of {json}");
        reducer::reduce(state, chat_shell_core::adapters::chatkit::input(back));
    }
}

fn states(state: &ChatState) -> Vec<(String, &'static str)> {
    state
        .items()
        .iter()
        .filter_map(|i| {
            let EntryKind::ToolCall(c) = &i.entry.kind else {
                return None;
            };
            Some((c.tool_call.title.clone(), i.tool_call_state()?.as_str()))
        })
        .collect()
}

fn started() -> ChatState {
    let mut state = ChatState::default();
    reducer::reduce(&mut state, Input::TurnStarted);
    state
}

#[test]
fn the_agent_run_reduces_to_every_kind_of_call() {
    let store = Store::open_in_memory().unwrap();
    let thread = store.user("t").create_thread().unwrap();
    let mut s = Script::new(&store, Duration::ZERO, thread);
    agent_run(&mut s);
    let evs = events(s.steps());
    let mut state = started();
    reduce(&mut state, &evs);
    reducer::reduce(&mut state, Input::StreamEnded);
    assert_eq!(
        states(&state),
        [
            ("Read src/parser.rs".to_owned(), "completed"),
            ("Fetch https://docs.example.com/ranges".to_owned(), "failed"),
            ("Edit src/parser.rs".to_owned(), "completed"),
            ("Create tests/range_regression.rs".to_owned(), "completed"),
            ("Run cargo test".to_owned(), "completed"),
        ]
    );
    let kinds: Vec<&str> = state
        .items()
        .iter()
        .filter_map(|i| match &i.entry.kind {
            EntryKind::ToolCall(c) => Some(c.tool_call.kind.as_str()),
            EntryKind::Plan(_) => Some("plan"),
            EntryKind::Thought(_) => Some("thought"),
            EntryKind::AssistantText(_) => Some("answer"),
            _ => None,
        })
        .collect();
    assert_eq!(
        kinds,
        ["thought", "plan", "read", "fetch", "edit", "edit", "execute", "answer"]
    );
    for item in state.items() {
        match &item.entry.kind {
            EntryKind::Plan(p) => assert!(p
                .entries
                .iter()
                .all(|e| e.status == PlanEntryStatus::Completed)),
            EntryKind::Thought(t) => assert!(t.text.contains("off-by-one")),
            EntryKind::ToolCall(c) if c.tool_call.kind == ToolKind::Execute => {
                let (out, cut) =
                    chat_shell_core::tool_output::terminal_output(c.tool_call.raw_output.as_ref())
                        .unwrap();
                assert!(out.contains("4 passed") && !cut);
                assert_eq!(
                    c.tool_call.raw_output.as_ref().unwrap()["exitStatus"]["exitCode"],
                    0
                );
                assert!(matches!(
                    c.tool_call.content[..],
                    [ToolCallContent::Terminal(_)]
                ));
            }
            EntryKind::ToolCall(c) if c.tool_call.title.starts_with("Create") => {
                let [ToolCallContent::Diff(d)] = &c.tool_call.content[..] else {
                    panic!("{:?}", c.tool_call.content)
                };
                assert!(d.is_new_file());
            }
            EntryKind::ToolCall(c) if c.tool_call.title.starts_with("Edit") => {
                let [ToolCallContent::Diff(d)] = &c.tool_call.content[..] else {
                    panic!("{:?}", c.tool_call.content)
                };
                assert!(!d.is_new_file());
            }
            EntryKind::ToolCall(c) if c.tool_call.kind == ToolKind::Read => {
                let labels: Vec<String> = c.tool_call.locations.iter().map(|l| l.label()).collect();
                assert_eq!(labels, ["/repo/src/parser.rs:42", "/repo/src/parser.rs:46"]);
            }
            _ => {}
        }
    }
}

fn asked() -> (Store, ThreadItem, Vec<StreamEvent>) {
    let store = Store::open_in_memory().unwrap();
    let thread = store.user("t").create_thread().unwrap();
    let mut s = Script::new(&store, Duration::ZERO, thread);
    permission_ask(&mut s);
    assert!(matches!(
        s.steps().last(),
        Some(Step::AwaitPermission { .. })
    ));
    let evs = events(s.steps());
    let item = evs
        .iter()
        .find_map(|e| match e {
            StreamEvent::ItemAdded(e) if matches!(e.item.kind, ItemKind::AcpToolCall(_)) => {
                Some(e.item.clone())
            }
            _ => None,
        })
        .unwrap();
    (store, item, evs)
}

/// The item as the store keeps it once asked: the request's fields and options.
fn asking(mut item: ThreadItem) -> ThreadItem {
    if let ItemKind::AcpToolCall(c) = &mut item.kind {
        c.permission = Some(AcpPermission {
            options: permission_options(),
            outcome: None,
            action_id: None,
            action_type: None,
        });
    }
    item
}

fn answer(item: &ThreadItem, outcome: PermissionOutcome) -> PermissionAnswer {
    PermissionAnswer {
        tool_call_id: call_id(item),
        outcome,
    }
}

fn selected(id: &str) -> PermissionOutcome {
    PermissionOutcome::Selected {
        option_id: PermissionOptionId::from(id),
    }
}

#[test]
fn each_decision_leads_where_the_client_expects() {
    for (choice, expected, says) in [
        (Some("allow-once"), "completed", Some("Allow once")),
        (Some("allow-always"), "completed", Some("Always allow")),
        (Some("reject-once"), "rejected", Some("Reject")),
        (Some("reject-always"), "rejected", Some("Always reject")),
        (None, "cancelled", None),
    ] {
        let (store, item, evs) = asked();
        let mut state = started();
        reduce(&mut state, &evs);
        assert_eq!(states(&state)[0].1, "awaiting_permission");
        let mut decided = asking(item.clone());
        let outcome = choice.map_or(PermissionOutcome::Cancelled, selected);
        decide(&mut decided, &answer(&item, outcome)).unwrap();
        let thread = store.user("t").create_thread().unwrap();
        let mut s = Script::new(&store, Duration::ZERO, thread);
        permission_decided(&mut s, &decided);
        let more = events(s.steps());
        assert!(matches!(
            &more[0],
            StreamEvent::ItemUpdated(u) if matches!(u.update, ItemUpdate::AcpPermissionResolved(_))
        ));
        reduce(&mut state, &more);
        reducer::reduce(&mut state, Input::StreamEnded);
        assert_eq!(states(&state)[0].1, expected, "{choice:?}");
        let last_text = state
            .items()
            .iter()
            .rev()
            .find_map(reducer::assistant_text)
            .unwrap_or_default();
        match says {
            Some(name) => assert!(last_text.contains(name), "{last_text}"),
            None => assert!(last_text.starts_with("Cleaning"), "{last_text}"),
        }
        // The item done at the end is what the store keeps: the decision and status.
        let StreamEvent::ItemDone(done) = more
            .iter()
            .rfind(|e| matches!(e, StreamEvent::ItemDone(d) if d.item.id == item.id))
            .unwrap()
        else {
            unreachable!()
        };
        let mut hydrated = ChatState::default();
        reducer::reduce(
            &mut hydrated,
            chat_shell_core::adapters::chatkit::thread_loaded(
                chat_shell_core::protocol::chatkit::Thread {
                    branching: false,
                    items: Some(chat_shell_core::protocol::chatkit::Page {
                        data: vec![done.item.clone()],
                        has_more: false,
                        after: None,
                    }),
                    ..store.user("t").create_thread().unwrap()
                },
            ),
        );
        assert_eq!(states(&hydrated)[0].1, expected, "hydrated {choice:?}");
    }
}

#[test]
fn answers_are_checked_and_the_first_decision_stands() {
    let (_store, item, _) = asked();
    let mut target = item.clone();
    assert_eq!(
        decide(&mut target, &answer(&item, selected("allow-once"))),
        Err(Refusal::NotAsking)
    );
    let mut target = asking(item.clone());
    assert_eq!(
        decide(&mut target, &answer(&item, selected("sudo"))),
        Err(Refusal::UnknownOption("sudo".into()))
    );
    let wrong = PermissionAnswer {
        tool_call_id: ToolCallId::from("call_other"),
        outcome: PermissionOutcome::Cancelled,
    };
    assert_eq!(decide(&mut target, &wrong), Err(Refusal::WrongToolCall));
    decide(&mut target, &answer(&item, selected("reject-once"))).unwrap();
    assert_eq!(
        decide(&mut target, &answer(&item, selected("allow-once"))),
        Err(Refusal::Decided(selected("reject-once")))
    );
    assert_eq!(
        decide(&mut target, &answer(&item, PermissionOutcome::Cancelled)),
        Err(Refusal::Decided(selected("reject-once")))
    );
    let ItemKind::AcpToolCall(c) = &target.kind else {
        unreachable!()
    };
    assert_eq!(
        c.permission.as_ref().unwrap().outcome,
        Some(selected("reject-once"))
    );
}

#[test]
fn answer_payloads_are_read_strictly() {
    let ok = parse_answer(&json!({"toolCallId": "call_1",
        "outcome": {"outcome": "selected", "optionId": "allow-once"}}))
    .unwrap();
    assert_eq!(ok.outcome, selected("allow-once"));
    let cancelled =
        parse_answer(&json!({"toolCallId": "call_1", "outcome": {"outcome": "cancelled"}}))
            .unwrap();
    assert_eq!(cancelled.outcome, PermissionOutcome::Cancelled);
    for bad in [
        json!({"outcome": {"outcome": "cancelled"}}),
        json!({"toolCallId": "", "outcome": {"outcome": "cancelled"}}),
        json!({"toolCallId": "c"}),
        json!({"toolCallId": "c", "outcome": {"outcome": "selected"}}),
        json!({"toolCallId": "c", "outcome": {"outcome": "maybe"}}),
        json!("allow"),
    ] {
        assert!(parse_answer(&bad).is_err(), "{bad}");
    }
}

#[test]
fn the_cut_ends_with_a_call_in_progress() {
    let store = Store::open_in_memory().unwrap();
    let thread = store.user("t").create_thread().unwrap();
    let mut s = Script::new(&store, Duration::ZERO, thread);
    agent_cut(&mut s);
    assert!(matches!(s.steps().last(), Some(Step::Drop { .. })));
    let mut state = started();
    reduce(&mut state, &events(s.steps()));
    assert_eq!(states(&state)[0].1, "in_progress");
    reducer::reduce(
        &mut state,
        Input::StreamFailed {
            message: "connection lost".into(),
            allow_retry: true,
        },
    );
    assert_eq!(states(&state)[0].1, ToolCallState::Interrupted.as_str());
}
