//! Continuations: what follows a client tool's output, an answered structured input, a
//! widget's action.

use super::tasks::custom_task;
use super::widgets::widget;
use super::Script;
use chat_shell_core::protocol::chatkit::{
    Action, ClientToolCall, ClientWidget, ItemKind, StatusIndicator, TaskItem, ThreadItem,
    WidgetComponent, WidgetItem,
};
use chat_shell_core::protocol::JsonMap;
use serde_json::{json, Value};

// --- continuations ----------------------------------------------------------------------

/// After `threads.add_client_tool_output`: `call` is the tool call, now completed.
pub fn client_tool_output(s: &mut Script<'_>, call: &ClientToolCall) {
    s.stream_options(true);
    let output = call.output.clone().unwrap_or(Value::Null);
    let pretty = serde_json::to_string_pretty(&output).unwrap_or_default();
    s.text(&format!(
        "Client tool `{}` (call `{}`) returned:\n\n```json\n{pretty}\n```\n",
        call.name, call.call_id
    ));
}

/// After `threads.add_structured_input`: `item` is the structured input, now answered.
pub fn structured_answered(s: &mut Script<'_>, item: &ThreadItem) {
    s.stream_options(true);
    s.replaced(item);
    let ItemKind::StructuredInput(input) = &item.kind else {
        return;
    };
    let mut text = format!("Structured input `{}` was **answered**:\n\n", item.id);
    for field in &input.inputs {
        let answer = match &field.answer {
            Some(a) if a.skipped => "skipped".to_owned(),
            Some(a) if !a.values.is_empty() => a.values.join(", "),
            _ => "no answer".to_owned(),
        };
        text.push_str(&format!("- **{}** {answer}\n", field.question));
    }
    s.text(&text);
}

/// `threads.custom_action`: `sender` is the widget (or client widget) the action came from.
pub fn custom_action(s: &mut Script<'_>, sender: Option<&ThreadItem>, action: &Action) {
    s.stream_options(true);
    match action.kind.as_str() {
        "approval" => approval(s, sender, &action.payload),
        "confirm" => {
            if let Some(item) = sender {
                if let ItemKind::Widget(w) = &item.kind {
                    let mut confirmed = item.clone();
                    confirmed.kind = ItemKind::Widget(WidgetItem {
                        widget: confirm_widget(w.widget.clone()),
                        copy_text: w.copy_text.clone(),
                    });
                    s.replaced(&confirmed);
                }
            }
            s.text("Confirmed. The card above was replaced by its confirmed version.");
        }
        "form.submit" => {
            let mut text = String::from("Form received:\n\n| Field | Value |\n|---|---|\n");
            if let Value::Object(fields) = &action.payload {
                for (name, value) in fields {
                    let shown = match value {
                        Value::String(v) if v.is_empty() => "*(empty)*".to_owned(),
                        Value::String(v) => v.replace('|', "\\|").replace('\n', " "),
                        other => format!("`{other}`"),
                    };
                    text.push_str(&format!("| {name} | {shown} |\n"));
                }
            }
            s.text(&text);
        }
        "list.select" => {
            let title = action
                .payload
                .get("title")
                .and_then(Value::as_str)
                .unwrap_or("a row");
            s.text(&format!("You picked **{title}** from the list."));
        }
        _ => {
            let mut received = JsonMap::new();
            received.insert("type".into(), Value::String(action.kind.clone()));
            received.insert("payload".into(), action.payload.clone());
            if let Some(item) = sender {
                received.insert("sender".into(), Value::String(item.id.0.clone()));
            }
            let pretty = serde_json::to_string_pretty(&received).unwrap_or_default();
            s.text(&format!("action() received:\n\n```json\n{pretty}\n```\n"));
        }
    }
}

pub(super) fn approval(s: &mut Script<'_>, sender: Option<&ThreadItem>, payload: &Value) {
    let approved = payload
        .get("approved")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let tool = payload
        .get("tool_name")
        .and_then(Value::as_str)
        .unwrap_or("the tool")
        .to_owned();
    let call_id = payload
        .get("call_id")
        .and_then(Value::as_str)
        .unwrap_or("unknown")
        .to_owned();
    // tool_args is a JSON string in the fork's spec and an object in its traces.
    let args = match payload.get("tool_args") {
        Some(Value::String(raw)) => {
            serde_json::from_str::<Value>(raw).unwrap_or(Value::String(raw.clone()))
        }
        Some(other) => other.clone(),
        None => Value::Null,
    };
    if let Some(item) = sender {
        if let ItemKind::ClientWidget(w) = &item.kind {
            let mut args = w.args.clone();
            if let Value::Object(map) = &mut args {
                let decision = if approved { "approved" } else { "rejected" };
                map.insert("decision".into(), Value::String(decision.into()));
            }
            let mut decided = item.clone();
            decided.kind = ItemKind::ClientWidget(ClientWidget {
                name: w.name.clone(),
                args,
            });
            s.replaced(&decided);
        }
    }
    if approved {
        let beat = s.beat();
        let running = format!("Running {tool}...");
        let mut t = s.item(
            "tsk",
            ItemKind::Task(TaskItem {
                task: custom_task(StatusIndicator::Loading, &running, "search", None),
            }),
        );
        s.added(&t);
        t.kind = ItemKind::Task(TaskItem {
            task: custom_task(
                StatusIndicator::Complete,
                &format!("{tool} finished"),
                "check-circle-filled",
                None,
            ),
        });
        s.wait(beat).done(&t);
        s.text(&format!(
            "Approved: `{tool}` ran with `{args}` (call `{call_id}`)."
        ));
    } else {
        s.text(&format!(
            "Rejected: `{tool}` was not run (call `{call_id}`). Nothing was sent."
        ));
    }
}

/// `threads.sync_custom_action`: the widget item after the action, answered as JSON.
pub fn sync_action(sender: &ThreadItem, action: &Action) -> ThreadItem {
    let mut item = sender.clone();
    if let ItemKind::Widget(w) = &mut item.kind {
        if action.kind == "counter" {
            let count = action
                .payload
                .get("count")
                .and_then(Value::as_u64)
                .unwrap_or(0)
                + 1;
            if let Some(button) = find_by_key(&mut w.widget, "counter") {
                button.props.insert(
                    "label".into(),
                    Value::String(format!("Sync +1 (count={count})")),
                );
                if let Some(Value::Object(a)) = button.props.get_mut("onClickAction") {
                    a.insert("payload".into(), json!({ "count": count }));
                }
            }
        }
    }
    item
}

pub(super) fn find_by_key<'w>(
    node: &'w mut WidgetComponent,
    key: &str,
) -> Option<&'w mut WidgetComponent> {
    if node.key.as_deref() == Some(key) {
        return Some(node);
    }
    node.children.iter_mut().find_map(|c| find_by_key(c, key))
}

/// The showcase card once confirmed: its buttons give way to a confirmation line.
pub(super) fn confirm_widget(mut root: WidgetComponent) -> WidgetComponent {
    let done = widget(json!({
        "type": "Row", "key": "actions", "gap": 2, "align": "center", "children": [
            {"type": "Icon", "name": "check-circle-filled", "color": "success"},
            {"type": "Text", "value": "Confirmed", "weight": "semibold"},
        ]
    }));
    match find_by_key(&mut root, "actions") {
        Some(actions) => *actions = done,
        None => root.children.push(done),
    }
    if let Some(badge) = find_by_key(&mut root, "status") {
        badge.props.insert("label".into(), json!("confirmed"));
        badge.props.insert("color".into(), json!("success"));
    }
    root
}
