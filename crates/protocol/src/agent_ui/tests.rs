//! The envelope's strict parts and the payloads' lenient ones.

use super::*;
use serde_json::json;

fn envelope(value: Value) -> Envelope {
    decode(&value.to_string()).expect("an envelope")
}

#[test]
fn the_envelope_is_strict_its_ids_are_not() {
    assert!(decode("[1]").is_err(), "not an object");
    assert!(decode(r#"{"sequence": 1}"#).is_err(), "no type");
    assert!(decode(r#"{"type": "x", "sequence": -1}"#).is_err());
    let e = envelope(
        json!({"type": "x", "sequence": null, "runId": "r", "agentId": "",
        "messageId": 7, "toolCallId": " ", "payload": {"a": 1}}),
    );
    assert_eq!((e.kind.as_str(), e.sequence), ("x", None));
    assert_eq!(e.ids.run_id.as_deref(), Some("r"));
    assert_eq!(e.ids.agent_id, None, "empty");
    assert_eq!(e.ids.message_id, None, "not a string");
    assert_eq!(
        e.ids.tool_call_id.as_deref(),
        Some(" "),
        "an id may be blank"
    );
    assert_eq!(e.payload(), &json!({"a": 1}));
    assert_eq!(envelope(json!({"type": "x"})).payload(), &Value::Null);
}

#[test]
fn a_payload_that_is_not_an_object_names_nothing() {
    for payload in [json!(null), json!("text"), json!([1]), json!(3)] {
        let e = envelope(json!({"type": "run.status", "payload": payload}));
        assert_eq!(e.payload_as::<RunStatus>(), RunStatus::default());
    }
}

#[test]
fn a_field_of_the_wrong_type_is_absent_and_the_rest_reads() {
    let e = envelope(json!({"type": "agent.changed", "payload": {
        "agentName": 3, "role": "  ", "model": "m", "remote": "yes", "hasMore": true,
        "messages": [{"id": "1", "text": "a"}, {"id": 2, "text": "b"}, "c", {"id": "3"},
            {"id": "", "text": ""}],
        "unknown": {"ignored": true},
    }}));
    let p: AgentChanged = e.payload_as();
    assert_eq!(p.agent_name, None);
    assert_eq!(p.role, None, "blank text is absent");
    assert_eq!(p.model.as_deref(), Some("m"));
    assert_eq!(p.remote, None);
    assert_eq!(p.has_more, Some(true));
    let ids: Vec<&str> = p.messages.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids, ["1", ""], "the messages that have both strings");
}

#[test]
fn raw_fields_keep_a_present_null() {
    let args = |payload: Value| {
        envelope(json!({"type": "tool.args", "payload": payload})).payload_as::<ToolArgs>()
    };
    assert_eq!(args(json!({"input": null})).input, Some(Value::Null));
    assert_eq!(args(json!({})).input, None);
    assert_eq!(args(json!({"input": [1]})).input, Some(json!([1])));
}

#[test]
fn lists_keep_what_decodes_and_a_non_list_is_no_list() {
    let run = |payload: Value| {
        envelope(json!({"type": "run.started", "payload": payload})).payload_as::<RunStarted>()
    };
    assert_eq!(run(json!({"controls": "queue"})).controls, None);
    assert_eq!(
        run(json!({"controls": ["queue", 1, null, "steer"]})).controls,
        Some(vec!["queue".to_owned(), "steer".to_owned()])
    );
    let queue: QueueChanged = envelope(json!({"type": "queue.changed", "payload": {
        "queued": [{"turnId": "t1", "text": 5, "status": "queued"}, {"text": "no id"}],
        "steer": {"text": "no id"},
    }}))
    .payload_as();
    let queued = queue.queued.expect("a list");
    assert_eq!(queued.len(), 1);
    assert_eq!(
        (queued[0].text.as_ref(), queued[0].status.as_deref()),
        (None, Some("queued"))
    );
    assert_eq!(queue.steer, None, "a steer names its turn");
}

#[test]
fn an_action_reads_its_input_both_ways() {
    let p: ActionRequired = envelope(json!({"type": "action.required", "payload": {
        "actionType": "input", "title": "Pick",
        "options": [{"id": "ok", "label": 1}, {"label": "no id"}],
        "input": {"placeholder": "e.g. 2", "questions": [{"id": "q", "question": "?"}, 7]},
    }}))
    .payload_as();
    assert_eq!(p.options.len(), 1);
    assert_eq!(p.options[0].label, None);
    let input = p.input_fields();
    assert_eq!(input.placeholder.as_deref(), Some("e.g. 2"));
    assert_eq!(input.questions.len(), 1);
    assert_eq!(
        p.input.as_ref().and_then(|i| i.get("placeholder")),
        Some(&json!("e.g. 2"))
    );
    let bare = ActionRequired {
        input: Some(json!("text")),
        ..ActionRequired::default()
    };
    assert_eq!(bare.input_fields(), ActionInput::default());
}

#[test]
fn a_hydrated_session_is_a_page_and_a_budget_is_whole() {
    let p: SessionHydrated = envelope(json!({"type": "session.hydrated", "payload": {
        "agentName": "Ada", "messages": [{"id": "m", "text": "hi"}], "hasMore": false,
        "before": "m9", "budget": {"used": 1, "limit": 2},
    }}))
    .payload_as();
    assert_eq!(p.messages.len(), 1);
    assert_eq!((p.has_more, p.before.as_deref()), (Some(false), Some("m9")));
    let agent: AgentChanged = envelope(json!({"type": "session.hydrated", "payload": {
        "agentName": "Ada", "before": "m9",
    }}))
    .payload_as();
    assert_eq!(agent.agent_name.as_deref(), Some("Ada"));
    let context: ContextChanged = envelope(json!({"type": "context.changed", "payload": {
        "budget": {"used": 1, "limit": -2}, "missing": ["a", 1],
    }}))
    .payload_as();
    assert_eq!(context.budget, None, "both numbers whole, or no budget");
    assert_eq!(context.missing, ["a"]);
}
