use super::*;
use serde_json::json;

fn call(value: Value) -> ToolCall {
    serde_json::from_value(value).expect("tool call decodes")
}

#[test]
fn a_full_tool_call_decodes_with_acp_field_names() {
    let c = call(json!({
        "toolCallId": "call_1",
        "title": "Edit main.rs",
        "kind": "edit",
        "status": "in_progress",
        "content": [
            {"type": "content", "content": {"type": "text", "text": "Applying"}},
            {"type": "diff", "path": "/src/new.rs", "oldText": null, "newText": "fn main() {}"},
            {"type": "diff", "path": "/src/old.rs", "oldText": "a", "newText": "b"},
            {"type": "terminal", "terminalId": "term_1"}
        ],
        "locations": [{"path": "/src/main.rs", "line": 42}, {"path": "/src/lib.rs"}],
        "rawInput": {"path": "/src/main.rs"},
        "rawOutput": {"ok": true}
    }));
    assert_eq!(c.tool_call_id, ToolCallId::from("call_1"));
    assert_eq!(
        (c.kind.data_kind(), &c.status),
        ("edit", &ToolCallStatus::InProgress)
    );
    assert_eq!(c.content.len(), 4);
    let ToolCallContent::Diff(new) = &c.content[1] else {
        panic!("{:?}", c.content[1]);
    };
    assert!(new.is_new_file());
    let ToolCallContent::Diff(old) = &c.content[2] else {
        panic!("{:?}", c.content[2]);
    };
    assert!(!old.is_new_file());
    assert!(matches!(&c.content[3], ToolCallContent::Terminal(t) if t.terminal_id == "term_1"));
    let labels: Vec<String> = c.locations.iter().map(ToolCallLocation::label).collect();
    assert_eq!(labels, ["/src/main.rs:42", "/src/lib.rs"]);
    assert_eq!(c.raw_input, Some(json!({"path": "/src/main.rs"})));
    // And back, with ACP's names (a new file keeps its explicit null).
    let back = serde_json::to_value(&c).unwrap();
    assert_eq!(back["toolCallId"], "call_1");
    assert_eq!(back["content"][1]["oldText"], Value::Null);
    assert_eq!(back["content"][1]["type"], "diff");
    assert_eq!(back["rawOutput"], json!({"ok": true}));
}

#[test]
fn defaults_follow_acp() {
    let c = call(json!({"toolCallId": "c", "title": "t"}));
    assert_eq!(c.kind, ToolKind::Other);
    assert_eq!(c.status, ToolCallStatus::Pending);
    assert!(c.content.is_empty() && c.locations.is_empty());
    assert_eq!(c.raw_input, None);
}

#[test]
fn unknown_enum_values_are_kept_not_errors() {
    let c = call(json!({"toolCallId": "c", "title": "t", "kind": "teleport", "status": "paused"}));
    assert_eq!(c.kind, ToolKind::Unknown("teleport".into()));
    assert_eq!(c.kind.data_kind(), "other");
    assert_eq!(c.status, ToolCallStatus::Unknown("paused".into()));
    assert!(!c.status.is_unfinished());
    // Kept as sent on the way back.
    assert_eq!(serde_json::to_value(&c).unwrap()["status"], "paused");
    let o: PermissionOption = serde_json::from_value(
        json!({"optionId": "x", "name": "Maybe", "kind": "allow_sometimes"}),
    )
    .unwrap();
    assert!(!o.kind.is_allow() && !o.kind.is_reject());
    assert_eq!(o.kind.data_kind(), "unknown");
}

#[test]
fn unknown_does_not_hide_malformed_known() {
    // Unknown content types are kept whole…
    let unknown: ToolCallContent =
        serde_json::from_value(json!({"type": "hologram", "beam": 3})).unwrap();
    assert!(matches!(&unknown, ToolCallContent::Other(u) if u.0["beam"] == 3));
    // …but a known type with a broken body is an error, not `Other`.
    for broken in [
        json!({"type": "diff", "path": "/a"}),
        json!({"type": "terminal"}),
        json!({"type": "content", "content": {"type": "text"}}),
    ] {
        let err = serde_json::from_value::<ToolCallContent>(broken.clone());
        assert!(err.is_err(), "{broken} decoded as {err:?}");
    }
    assert!(serde_json::from_value::<ContentBlock>(json!({"type": "image"})).is_err());
    assert!(serde_json::from_value::<PermissionOutcome>(json!({"outcome": "selected"})).is_err());
    // A tool call without its id is broken.
    assert!(serde_json::from_value::<ToolCall>(json!({"title": "t"})).is_err());
}

#[test]
fn invalid_list_items_are_skipped_and_unknown_ones_kept() {
    let c = call(json!({
        "toolCallId": "c",
        "title": "t",
        "content": [
            {"type": "diff", "path": "/a"},
            {"type": "hologram"},
            {"type": "terminal", "terminalId": "t1"},
            7
        ],
        "locations": [{"line": 3}, {"path": "/b", "line": 2}]
    }));
    assert_eq!(c.content.len(), 2, "{:?}", c.content);
    assert!(matches!(c.content[0], ToolCallContent::Other(_)));
    assert!(matches!(c.content[1], ToolCallContent::Terminal(_)));
    assert_eq!(
        c.locations,
        [ToolCallLocation {
            path: "/b".into(),
            line: Some(2)
        }]
    );
}

#[test]
fn updates_change_only_what_they_carry_and_lists_replace() {
    let mut c = call(json!({
        "toolCallId": "c", "title": "Run tests", "kind": "execute",
        "content": [{"type": "terminal", "terminalId": "t1"}],
        "locations": [{"path": "/a"}, {"path": "/b"}],
        "rawInput": {"cmd": "cargo test"}
    }));
    let update: ToolCallUpdate = serde_json::from_value(json!({
        "toolCallId": "c", "status": "completed", "locations": [{"path": "/c"}],
        "content": null
    }))
    .unwrap();
    assert_eq!(update.content, None, "null means unchanged");
    c.apply(update);
    assert_eq!(c.title, "Run tests");
    assert_eq!(c.kind, ToolKind::Execute);
    assert_eq!(c.status, ToolCallStatus::Completed);
    assert_eq!(c.content.len(), 1);
    assert_eq!(
        c.locations,
        [ToolCallLocation {
            path: "/c".into(),
            line: None
        }]
    );
    assert_eq!(c.raw_input, Some(json!({"cmd": "cargo test"})));
    c.apply(serde_json::from_value(json!({"toolCallId": "c", "content": []})).unwrap());
    assert!(c.content.is_empty(), "an empty list replaces too");
}

#[test]
fn a_permission_request_and_its_answers() {
    let r: RequestPermission = serde_json::from_value(json!({
        "sessionId": "s1",
        "toolCall": {"toolCallId": "c", "title": "rm -rf build", "kind": "execute",
                     "rawInput": {"command": "rm -rf build", "cwd": "/repo"}},
        "options": [
            {"optionId": "a1", "name": "Allow once", "kind": "allow_once"},
            {"optionId": "a2", "name": "Always allow", "kind": "allow_always"},
            {"optionId": "r1", "name": "Reject", "kind": "reject_once"},
            {"optionId": "r2", "name": "Never", "kind": "reject_always"},
            {"optionId": "broken"}
        ]
    }))
    .unwrap();
    let kinds: Vec<&str> = r.options.iter().map(|o| o.kind.as_str()).collect();
    assert_eq!(
        kinds,
        ["allow_once", "allow_always", "reject_once", "reject_always"]
    );
    assert!(r.options[1].kind.is_always() && r.options[1].kind.is_allow());
    assert!(r.options[3].kind.is_always() && r.options[3].kind.is_reject());
    let selected = PermissionResponse {
        outcome: PermissionOutcome::Selected {
            option_id: "a1".into(),
        },
    };
    assert_eq!(
        serde_json::to_value(&selected).unwrap(),
        json!({"outcome": {"outcome": "selected", "optionId": "a1"}})
    );
    let cancelled: PermissionResponse =
        serde_json::from_value(json!({"outcome": {"outcome": "cancelled"}})).unwrap();
    assert_eq!(cancelled.outcome, PermissionOutcome::Cancelled);
}

#[test]
fn plans_keep_valid_entries() {
    let p: Plan = serde_json::from_value(json!({"entries": [
        {"content": "Read the code", "priority": "high", "status": "completed"},
        {"content": "Fix it", "priority": "urgent"},
        {"priority": "low"}
    ]}))
    .unwrap();
    assert_eq!(p.entries.len(), 2);
    assert_eq!(
        p.entries[1].priority,
        PlanEntryPriority::Unknown("urgent".into())
    );
    assert_eq!(p.entries[1].status, PlanEntryStatus::Pending);
}
