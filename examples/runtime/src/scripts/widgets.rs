//! The widgets the scenarios send.

use super::png::sample_png;
use super::Script;
use chat_shell_core::protocol::chatkit::{ItemKind, ThreadItem, WidgetComponent, WidgetItem};
use serde_json::{json, Value};

// --- widgets ----------------------------------------------------------------------------

pub(super) fn widget(value: Value) -> WidgetComponent {
    serde_json::from_value(value).expect("scripted widgets are valid components")
}

pub(super) fn widget_item(
    s: &Script<'_>,
    widget: WidgetComponent,
    copy_text: Option<&str>,
) -> ThreadItem {
    s.item(
        "msg",
        ItemKind::Widget(WidgetItem {
            widget,
            copy_text: copy_text.map(str::to_owned),
        }),
    )
}

pub(super) fn action(
    kind: &str,
    payload: Value,
    handler: &str,
    loading: &str,
    streaming: bool,
) -> Value {
    json!({ "type": kind, "payload": payload, "handler": handler, "loadingBehavior": loading, "streaming": streaming })
}

pub(super) fn showcase_card() -> Value {
    json!({
        "type": "Card", "key": "showcase", "size": "md",
        "status": {"text": "Reference runtime", "icon": "sparkle"},
        "children": [
            {"type": "Row", "align": "center", "gap": 2, "children": [
                {"type": "Icon", "name": "sparkle", "color": "primary", "size": "lg"},
                {"type": "Title", "value": "Widget showcase", "size": "md"},
                {"type": "Spacer"},
                {"type": "Badge", "key": "status", "label": "pending", "color": "info", "variant": "soft", "pill": true},
            ]},
            {"type": "Caption", "value": "Built by the chat-shell reference runtime"},
            {"type": "Text", "value": "Plain Text component: <b>not bold</b>, shown as typed.", "color": "secondary"},
            {"type": "Markdown", "value": "**Markdown** component with a [link](https://openai.github.io/chatkit-js/) and `code`.\n\n- one\n- two"},
            {"type": "Divider", "spacing": 2},
            {"type": "Row", "align": "center", "gap": 3, "children": [
                {"type": "Image", "src": sample_png(1), "alt": "generated sample", "radius": "md", "frame": true, "size": 64},
                {"type": "Col", "flex": 1, "gap": 1, "children": [
                    {"type": "Text", "value": "Row > Col layout", "weight": "semibold"},
                    {"type": "Caption", "value": "The Box below has padding, radius, border and background"},
                ]},
            ]},
            {"type": "Box", "direction": "row", "align": "center", "gap": 2, "padding": 3.0, "border": 1,
             "radius": "lg", "background": "surface-secondary", "children": [
                {"type": "Icon", "name": "info"},
                {"type": "Text", "value": "Box direction=row", "size": "sm"},
            ]},
            {"type": "Divider"},
            {"type": "Row", "key": "actions", "wrap": "wrap", "gap": 2, "children": [
                {"type": "Button", "label": "Confirm", "style": "primary",
                 "onClickAction": action("confirm", json!({"card": "showcase"}), "server", "auto", true)},
                {"type": "Button", "label": "Client action", "variant": "outline",
                 "onClickAction": action("client.toast", json!({"text": "Handled in the page"}), "client", "auto", true)},
                {"type": "Button", "key": "counter", "label": "Sync +1 (count=0)", "iconStart": "plus", "variant": "soft",
                 "onClickAction": action("counter", json!({"count": 0}), "server", "self", false)},
            ]},
        ]
    })
}

pub(super) fn form_card() -> Value {
    json!({
        "type": "Card", "key": "form", "size": "md", "children": [
            {"type": "Title", "value": "Tell us about you", "size": "sm"},
            {"type": "Form", "direction": "col", "gap": 3,
             "onSubmitAction": action("form.submit", json!({"form": "profile"}), "server", "auto", true),
             "children": [
                {"type": "Label", "value": "Name", "fieldName": "name"},
                {"type": "Input", "name": "name", "required": true, "placeholder": "Ada Lovelace"},
                {"type": "Label", "value": "Email", "fieldName": "email"},
                {"type": "Input", "name": "email", "inputType": "email", "placeholder": "ada@example.com"},
                {"type": "Label", "value": "Plan", "fieldName": "plan"},
                {"type": "Select", "name": "plan", "placeholder": "Choose a plan", "defaultValue": "free", "options": [
                    {"value": "free", "label": "Free"},
                    {"value": "pro", "label": "Pro", "description": "Paid plan"},
                    {"value": "old", "label": "Legacy", "disabled": true},
                ]},
                {"type": "Label", "value": "Notes", "fieldName": "notes"},
                {"type": "Textarea", "name": "notes", "placeholder": "Anything else?", "rows": 3},
                {"type": "Checkbox", "name": "agree", "label": "I agree to the terms", "defaultChecked": false},
                {"type": "RadioGroup", "name": "size", "direction": "row", "defaultValue": "m", "options": [
                    {"label": "Small", "value": "s"},
                    {"label": "Medium", "value": "m"},
                    {"label": "Large", "value": "l"},
                ]},
                {"type": "Label", "value": "Start date", "fieldName": "when"},
                {"type": "DatePicker", "name": "when", "placeholder": "Pick a date"},
                {"type": "Row", "gap": 2, "children": [
                    {"type": "Button", "submit": true, "label": "Submit", "style": "primary"},
                ]},
            ]},
        ]
    })
}

pub(super) fn list_view() -> Value {
    let rows: Vec<Value> = (1..=5)
        .map(|n| {
            let title = format!("Document {n}");
            json!({
                "type": "ListViewItem", "key": format!("row{n}"), "gap": 2,
                "onClickAction": action("list.select", json!({"row": n, "title": title}), "server", "auto", true),
                "children": [
                    {"type": "Icon", "name": "document"},
                    {"type": "Text", "value": title},
                    {"type": "Spacer"},
                    {"type": "Caption", "value": format!("{n} min ago")},
                ]
            })
        })
        .collect();
    json!({ "type": "ListView", "limit": 3, "status": {"text": "Recent documents", "icon": "clock"}, "children": rows })
}

pub(super) fn chart_card() -> Value {
    json!({
        "type": "Card", "key": "chart", "children": [
            {"type": "Title", "value": "Visits, sign-ups and churn", "size": "sm"},
            {"type": "Chart", "height": 180, "xAxis": "month", "showLegend": true,
             "data": [
                {"month": "Jan", "visits": 120, "signups": 30, "churn": 5},
                {"month": "Feb", "visits": 150, "signups": 42, "churn": 7},
                {"month": "Mar", "visits": 90, "signups": 25, "churn": 9},
                {"month": "Apr", "visits": 180, "signups": 51, "churn": 4},
             ],
             "series": [
                {"type": "bar", "label": "Visits", "dataKey": "visits"},
                {"type": "line", "label": "Sign-ups", "dataKey": "signups"},
                {"type": "area", "label": "Churn", "dataKey": "churn"},
             ]},
        ]
    })
}
