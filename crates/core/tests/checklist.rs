//! The Agent UI validation checklist ([Agent UI's flow and taxonomy](https://limecloud.github.io/agentui/en/reference/flow-and-taxonomy)) for the formats
//! other than agent-ui, as far as each can express a check: ChatKit (with chat-shell's ACP
//! extension items) and the `events` envelope. A golden event log goes through the
//! decoder (or adapter) and the reducer; the state is checked. Tests are named
//! `check_NN_<format>_…` after the spec's number (scripts/checklist.mjs makes docs/agent-ui.md's
//! table from these names).

use chat_shell_core::adapters::chatkit as chatkit_adapter;
use chat_shell_core::adapters::events::EventsAdapter;
use chat_shell_core::model::EntryKind;
use chat_shell_core::protocol::acp::{PermissionOptionId, PermissionOutcome};
use chat_shell_core::protocol::chatkit::decode_event;
use chat_shell_core::reducer::{
    assistant_text, listed, reduce, ChatState, Effect, Input, Listed, OutgoingMessage,
    ToolCallState,
};

fn sent() -> ChatState {
    let mut state = ChatState::default();
    reduce(
        &mut state,
        Input::SendStarted(OutgoingMessage {
            content: Vec::new(),
            text: "go".into(),
            ..OutgoingMessage::default()
        }),
    );
    state
}

/// ChatKit events, one JSON object per line.
fn chatkit(state: &mut ChatState, log: &str) -> Vec<Effect> {
    let mut effects = Vec::new();
    for line in log.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let input = match decode_event(line) {
            Ok(event) => chat_shell_core::adapters::chatkit::input(event),
            Err(e) => Input::Malformed(e),
        };
        effects.extend(reduce(state, input).effects);
    }
    effects
}

/// `events` envelopes, one per line.
fn events(state: &mut ChatState, log: &str) {
    let mut adapter = EventsAdapter::new(1);
    for line in log.lines().map(str::trim).filter(|l| !l.is_empty()) {
        for input in adapter.data(line) {
            reduce(state, input);
        }
    }
}

fn answers(state: &ChatState) -> Vec<String> {
    state.items().iter().filter_map(assistant_text).collect()
}

fn kinds(state: &ChatState) -> Vec<&'static str> {
    state
        .items()
        .iter()
        .map(|i| match &i.entry.kind {
            EntryKind::UserMessage(_) => "user",
            EntryKind::AssistantText(_) => "answer",
            EntryKind::ToolCall(_) => "tool",
            EntryKind::Task(_) | EntryKind::Workflow(_) => "process",
            EntryKind::Thought(_) => "thought",
            _ => "other",
        })
        .collect()
}

fn tool_states(state: &ChatState) -> Vec<ToolCallState> {
    state
        .items()
        .iter()
        .filter_map(|i| i.tool_call_state())
        .collect()
}

const CK_PROGRESS: &str = r#"{"type":"progress_update","text":"Searching the docs"}"#;
const CK_RUN: &str = r#"
{"type":"thread.item.added","item":{"id":"th1","thread_id":"t","created_at":"2025-01-01T00:00:00","type":"acp_thought","text":"Looking it up."}}
{"type":"thread.item.added","item":{"id":"tc1","thread_id":"t","created_at":"2025-01-01T00:00:00","type":"acp_tool_call","tool_call":{"toolCallId":"c1","title":"Search","kind":"search","status":"in_progress","content":[],"locations":[]}}}
{"type":"thread.item.updated","item_id":"tc1","update":{"type":"acp_tool_call.updated","update":{"toolCallId":"c1","status":"completed","rawOutput":"SECRET TOOL OUTPUT"}}}
{"type":"thread.item.added","item":{"id":"tc2","thread_id":"t","created_at":"2025-01-01T00:00:00","type":"acp_tool_call","tool_call":{"toolCallId":"c2","title":"Fetch","kind":"fetch","status":"in_progress","content":[],"locations":[]}}}
{"type":"thread.item.updated","item_id":"tc2","update":{"type":"acp_tool_call.updated","update":{"toolCallId":"c2","status":"failed","rawOutput":"HTTP 503"}}}
{"type":"thread.item.added","item":{"id":"m1","thread_id":"t","created_at":"2025-01-01T00:00:00","type":"assistant_message","content":[{"type":"output_text","text":"","annotations":[]}]}}
{"type":"thread.item.updated","item_id":"m1","update":{"type":"assistant_message.content_part.text_delta","content_index":0,"delta":"The limit is "}}
{"type":"thread.item.updated","item_id":"m1","update":{"type":"assistant_message.content_part.text_delta","content_index":0,"delta":"100 a minute."}}
{"type":"thread.item.done","item":{"id":"m1","thread_id":"t","created_at":"2025-01-01T00:00:00","type":"assistant_message","content":[{"type":"output_text","text":"The limit is 100 a minute.","annotations":[]}]}}
"#;

#[test]
fn check_01_chatkit_the_listener_is_bound_before_submit() {
    let mut state = sent();
    assert!(state.turn.is_some());
    chatkit(&mut state, CK_PROGRESS);
    assert!(state.turn.is_some());
}

#[test]
fn check_02_chatkit_status_before_the_first_text() {
    let mut state = sent();
    chatkit(&mut state, CK_PROGRESS);
    assert_eq!(
        state.progress.as_ref().map(|p| p.text.as_str()),
        Some("Searching the docs")
    );
    assert_eq!(kinds(&state), ["user"]);
}

#[test]
fn check_03_chatkit_parts_in_event_order() {
    let mut state = sent();
    chatkit(&mut state, CK_RUN);
    assert_eq!(kinds(&state), ["user", "thought", "tool", "tool", "answer"]);
}

#[test]
fn check_04_chatkit_running_visible_then_folded() {
    let mut state = sent();
    let first_two: String = CK_RUN.lines().take(3).collect::<Vec<_>>().join("\n");
    chatkit(&mut state, &first_two);
    assert_eq!(tool_states(&state), [ToolCallState::InProgress]);
    assert!(listed(&state).iter().all(|l| matches!(l, Listed::Item(_))));
    let mut state = sent();
    chatkit(&mut state, CK_RUN);
    reduce(&mut state, Input::StreamEnded);
    assert!(listed(&state)
        .iter()
        .any(|l| matches!(l, Listed::Summary(calls) if calls.len() == 2)));
}

#[test]
fn check_05_chatkit_final_text_reconciled() {
    let mut state = sent();
    chatkit(&mut state, CK_RUN);
    assert_eq!(answers(&state), ["The limit is 100 a minute."]);
}

#[test]
fn check_06_chatkit_tool_state_never_in_the_answer() {
    let mut state = sent();
    chatkit(&mut state, CK_RUN);
    let all = answers(&state).join(" ");
    assert!(!all.contains("SECRET TOOL OUTPUT") && !all.contains("HTTP 503"));
}

#[test]
fn check_07_chatkit_permission_decided_only_when_the_server_confirms() {
    let mut state = sent();
    chatkit(
        &mut state,
        r#"
{"type":"thread.item.added","item":{"id":"tc1","thread_id":"t","created_at":"2025-01-01T00:00:00","type":"acp_tool_call","tool_call":{"toolCallId":"c1","title":"Run","kind":"execute","status":"pending","content":[],"locations":[]}}}
{"type":"thread.item.updated","item_id":"tc1","update":{"type":"acp_tool_call.permission_requested","request":{"toolCall":{"toolCallId":"c1"},"options":[{"optionId":"ok","name":"Allow once","kind":"allow_once"}]}}}
"#,
    );
    let id = state.items()[1].entry.id.clone();
    let out = reduce(
        &mut state,
        Input::PermissionChosen {
            item_id: id.clone(),
            option_id: PermissionOptionId("ok".into()),
        },
    );
    assert!(out
        .effects
        .iter()
        .any(|e| matches!(e, Effect::AnswerPermission { .. })));
    assert_eq!(tool_states(&state), [ToolCallState::AwaitingPermission]);
    chatkit(
        &mut state,
        r#"{"type":"thread.item.updated","item_id":"tc1","update":{"type":"acp_tool_call.permission_resolved","outcome":{"outcome":"selected","optionId":"ok"}}}"#,
    );
    let EntryKind::ToolCall(call) = &state.item(&id).unwrap().entry.kind else {
        panic!()
    };
    assert_eq!(
        call.permission.as_ref().unwrap().outcome,
        Some(PermissionOutcome::Selected {
            option_id: PermissionOptionId("ok".into())
        })
    );
}

#[test]
fn check_10_chatkit_citations_come_from_annotations() {
    let mut state = sent();
    chatkit(
        &mut state,
        r#"
{"type":"thread.item.added","item":{"id":"m1","thread_id":"t","created_at":"2025-01-01T00:00:00","type":"assistant_message","content":[{"type":"output_text","text":"See the docs.","annotations":[]}]}}
{"type":"thread.item.updated","item_id":"m1","update":{"type":"assistant_message.content_part.annotation_added","content_index":0,"annotation":{"type":"annotation","source":{"type":"url","title":"Docs","url":"https://example.com/docs"}}}}
"#,
    );
    let EntryKind::AssistantText(m) = &state.items()[1].entry.kind else {
        panic!()
    };
    assert_eq!(m.content[0].annotations.len(), 1);
    assert_eq!(m.content[0].annotations[0].source.title, "Docs");
}

#[test]
fn check_17_chatkit_missing_facts_stay_unknown() {
    let mut state = sent();
    chatkit(
        &mut state,
        r#"
{"type":"thread.item.added","item":{"id":"tc1","thread_id":"t","created_at":"2025-01-01T00:00:00","type":"acp_tool_call","tool_call":{"toolCallId":"c1","title":"Run","kind":"execute","status":"in_progress","content":[],"locations":[]}}}
{"type":"thread.item.added","item":{"id":"tc2","thread_id":"t","created_at":"2025-01-01T00:00:00","type":"acp_tool_call","tool_call":{"toolCallId":"c2","title":"Odd","kind":"other","status":"paused_by_gremlins","content":[],"locations":[]}}}
"#,
    );
    reduce(&mut state, Input::StreamEnded);
    assert_eq!(
        tool_states(&state),
        [ToolCallState::Interrupted, ToolCallState::Unknown]
    );
}

/// `threads.get_by_id` answers with the newest page; `items.list` (order `desc`) brings
/// older pages on demand. That an answer for a thread the reader already left is dropped
/// is the element's load token, proven in the browser (`tests/e2e/threads.test.mjs`,
/// "switching quickly").
#[test]
fn check_18_chatkit_history_hydrates_newest_first_then_older_pages_in_front() {
    use chat_shell_core::protocol::chatkit::{Page, Thread, ThreadItem};
    use serde_json::{json, Value};
    // A user message or an answer, saying its own id.
    let value = |id: &str| -> Value {
        let mut item = json!({"id": id, "thread_id": "thr_1", "created_at": "2025-01-01T00:00:00"});
        let body = if id.starts_with('u') {
            json!({"type": "user_message", "content": [{"type": "input_text", "text": id}], "attachments": [], "inference_options": {}})
        } else {
            json!({"type": "assistant_message", "content": [{"type": "output_text", "text": id, "annotations": []}]})
        };
        item.as_object_mut()
            .unwrap()
            .extend(body.as_object().unwrap().clone());
        item
    };
    let item = |id: &str| -> ThreadItem { serde_json::from_value(value(id)).unwrap() };
    let ids = |state: &ChatState| -> Vec<String> {
        state
            .items()
            .iter()
            .map(|i| i.entry.id.to_string())
            .collect()
    };
    let mut state = ChatState::default();
    let thread: Thread = serde_json::from_value(json!({
        "id": "thr_1", "created_at": "2025-01-01T00:00:00", "status": {"type": "active"},
        "items": {"data": [value("u3"), value("a3")], "has_more": true, "after": "u3"}
    }))
    .unwrap();
    reduce(&mut state, chatkit_adapter::thread_loaded(thread));
    // The newest window first, with where to go on from.
    assert_eq!(ids(&state), ["u3", "a3"]);
    assert_eq!(state.older.cursor.as_deref(), Some("u3"));
    // Older pages (newest first on the wire) go in front, in order.
    reduce(
        &mut state,
        chatkit_adapter::older_items(Page {
            data: vec![item("a2"), item("u2")],
            has_more: true,
            after: Some("u2".into()),
        }),
    );
    assert_eq!(ids(&state), ["u2", "a2", "u3", "a3"]);
    reduce(
        &mut state,
        chatkit_adapter::older_items(Page {
            data: vec![item("u1")],
            has_more: false,
            after: Some("u1".into()),
        }),
    );
    assert_eq!(ids(&state), ["u1", "u2", "a2", "u3", "a3"]);
    assert_eq!(state.older.cursor, None, "nothing older is asked for");
    // A new chat forgets where the old one would go on from.
    reduce(&mut state, Input::Reset);
    assert!(state.items().is_empty() && state.older.cursor.is_none());
}

#[test]
fn check_19_chatkit_unknown_events_are_diagnostics_not_content() {
    let mut state = sent();
    chatkit(
        &mut state,
        r#"{"type":"brand_new.metric","value":42}
{"type":"progress_update","text":"still going"}"#,
    );
    assert_eq!(
        state.diagnostics.unknown_types.get("brand_new.metric"),
        Some(&1)
    );
    assert_eq!(kinds(&state), ["user"]);
}

const EV_RUN: &str = r#"
{"type":"loader-hint","hint":"Reading the tickets"}
{"type":"agent","payload":{"name":"researcher","id":"researcher@team"}}
{"type":"content","content":"Found "}
{"type":"tool_call","payload":{"id":"t1","name":"search","arguments":{"q":"x"}}}
{"type":"tool_result","payload":{"id":"t1","success":true,"data":"RAW TOOL DATA"}}
{"type":"tool_call","payload":{"id":"t2","name":"lint","arguments":{}}}
{"type":"tool_result","payload":{"id":"t2","data":"no success flag"}}
{"type":"agent","payload":{"name":"writer","id":"writer@team"}}
{"type":"content","content":"Drafted the notes."}
"#;

const EV_DONE: &str = r#"{"type":"done"}"#;

#[test]
fn check_01_events_the_listener_is_bound_before_submit() {
    let mut state = sent();
    assert!(state.turn.is_some());
    events(&mut state, EV_RUN);
    assert!(state.turn.is_some());
}

#[test]
fn check_02_events_status_before_the_first_text() {
    let mut state = sent();
    events(
        &mut state,
        EV_RUN
            .lines()
            .take(2)
            .collect::<Vec<_>>()
            .join("\n")
            .as_str(),
    );
    assert_eq!(
        state.progress.as_ref().map(|p| p.text.as_str()),
        Some("Reading the tickets")
    );
    assert_eq!(kinds(&state), ["user"]);
}

#[test]
fn check_03_events_parts_in_event_order() {
    let mut state = sent();
    events(&mut state, EV_RUN);
    assert_eq!(kinds(&state), ["user", "answer", "tool", "tool", "answer"]);
}

#[test]
fn check_04_events_running_visible_then_folded() {
    let mut state = sent();
    let running: String = EV_RUN.lines().take(5).collect::<Vec<_>>().join("\n");
    events(&mut state, &running);
    assert_eq!(tool_states(&state), [ToolCallState::InProgress]);
    assert!(listed(&state).iter().all(|l| matches!(l, Listed::Item(_))));
    let mut state = sent();
    events(&mut state, &format!("{EV_RUN}\n{EV_DONE}"));
    assert!(state.turn.is_none(), "`done` ends the run");
    assert!(listed(&state)
        .iter()
        .any(|l| matches!(l, Listed::Summary(calls) if calls.len() == 2)));
}

#[test]
fn check_05_events_final_text_reconciled() {
    let mut state = sent();
    // `done`, then the end of the stream: the text is what streamed, once.
    events(&mut state, &format!("{EV_RUN}\n{EV_DONE}"));
    reduce(&mut state, Input::StreamEnded);
    assert_eq!(answers(&state), ["Found ", "Drafted the notes."]);
    // A recoverable error mid-answer is its own fact, not text in the answer.
    let mut state = sent();
    events(
        &mut state,
        r#"{"type":"content","content":"Half "}
{"type":"error","message":"rate limited, retrying","code":"rate_limit"}
{"type":"content","content":"and whole."}
{"type":"done"}"#,
    );
    assert_eq!(answers(&state).concat(), "Half and whole.");
}

#[test]
fn check_06_events_tool_state_never_in_the_answer() {
    let mut state = sent();
    events(&mut state, EV_RUN);
    assert!(!answers(&state).join(" ").contains("RAW TOOL DATA"));
}

#[test]
fn check_11_events_bubbles_are_owned_by_the_agent_the_runtime_named() {
    let mut state = sent();
    events(&mut state, EV_RUN);
    let owners: Vec<Option<String>> = state
        .items()
        .iter()
        .filter(|i| matches!(i.entry.kind, EntryKind::AssistantText(_)))
        .map(|i| i.agent.as_ref().and_then(|a| a.id.clone()))
        .collect();
    assert_eq!(
        owners,
        [
            Some("researcher@team".to_owned()),
            Some("writer@team".to_owned())
        ]
    );
}

#[test]
fn check_12_events_the_coordinators_plan_names_its_workers() {
    let mut state = sent();
    events(
        &mut state,
        r#"{"type":"orchestration","orchestrationGroupId":"og-1","payload":{"status":"Delegating to writer","plan":[{"title":"Find the tickets","agent":"researcher","status":"done"},{"title":"Draft the notes","agent":"writer","status":"in_progress"},{"title":"Review"}]}}"#,
    );
    let o = state
        .orchestration
        .as_ref()
        .expect("the coordinator's plan");
    assert_eq!(o.group_id.as_deref(), Some("og-1"));
    assert_eq!(o.status.as_deref(), Some("Delegating to writer"));
    let steps: Vec<(&str, Option<&str>, Option<&str>)> = o
        .plan
        .iter()
        .map(|s| (s.title.as_str(), s.agent.as_deref(), s.status.as_deref()))
        .collect();
    // As given: a step nobody took has no worker and no status.
    assert_eq!(
        steps,
        [
            ("Find the tickets", Some("researcher"), Some("done")),
            ("Draft the notes", Some("writer"), Some("in_progress")),
            ("Review", None, None)
        ]
    );
    assert_eq!(kinds(&state), ["user"], "the plan is not a message");
}

#[test]
fn check_17_events_a_result_without_success_stays_unknown() {
    let mut state = sent();
    events(&mut state, EV_RUN);
    assert_eq!(
        tool_states(&state),
        [ToolCallState::Completed, ToolCallState::Unknown]
    );
}

#[test]
fn check_19_events_unknown_types_are_diagnostics_not_content() {
    let mut state = sent();
    events(&mut state, r#"{"type":"telemetry","payload":{"ms":3}}"#);
    assert_eq!(state.diagnostics.unknown_types.get("telemetry"), Some(&1));
    assert_eq!(kinds(&state), ["user"]);
}
