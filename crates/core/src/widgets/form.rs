//! Form fields and actions: which components are fields, what a form submits (values by
//! field `name`, merged into the action's payload), how a field keeps what the user typed
//! across re-renders, and which element shows that an action is running.

use crate::protocol::chatkit::{Action, WidgetComponent};
use crate::protocol::decode::Decode;

use crate::protocol::JsonMap;
use serde_json::Value;
use std::collections::HashMap;

/// The value of one field as the user left it.
#[derive(Clone, Debug, PartialEq)]
pub enum FieldValue {
    Text(String),
    Bool(bool),
}

impl FieldValue {
    pub fn to_json(&self) -> Value {
        match self {
            FieldValue::Text(s) => Value::String(s.clone()),
            FieldValue::Bool(b) => Value::Bool(*b),
        }
    }

    pub fn as_text(&self) -> Option<&str> {
        match self {
            FieldValue::Text(s) => Some(s),
            FieldValue::Bool(_) => None,
        }
    }
}

/// What the user typed, by field identity. Kept by the widget's view, so a re-render of
/// the widget (streamed updates, a replaced root) shows the same values.
pub type TypedValues = HashMap<String, FieldValue>;

/// The form components of the catalog.
pub const FIELD_KINDS: &[&str] = &[
    "Input",
    "Textarea",
    "Select",
    "Checkbox",
    "RadioGroup",
    "DatePicker",
];

/// The `name` a field submits under: form components' `name`, or an editable Text's
/// `editable.name`.
pub fn field_name(node: &WidgetComponent) -> Option<&str> {
    if FIELD_KINDS.contains(&node.kind.as_str()) {
        return node.prop_str("name").filter(|n| !n.is_empty());
    }
    if node.kind == "Text" {
        return node
            .prop("editable")
            .and_then(|e| e.get("name"))
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty());
    }
    None
}

/// Who a field is across re-renders: its `id`, else its `key`, else its name. A field
/// whose id/key changes is a new field and starts from its default again.
pub fn field_identity(node: &WidgetComponent) -> Option<String> {
    let name = field_name(node)?;
    Some(match (&node.id, &node.key) {
        (Some(id), _) => format!("id:{id}"),
        (None, Some(key)) => format!("key:{key}"),
        (None, None) => format!("name:{name}"),
    })
}

/// The value a field starts with (`defaultValue`, `defaultChecked`, an editable Text's
/// text); `None` for an empty Select/RadioGroup/DatePicker.
pub fn default_value(node: &WidgetComponent) -> Option<FieldValue> {
    match node.kind.as_str() {
        "Checkbox" => Some(FieldValue::Bool(
            node.prop_bool("defaultChecked").unwrap_or(false),
        )),
        "Input" | "Textarea" => Some(FieldValue::Text(scalar_text(node.prop("defaultValue")))),
        "Text" => Some(FieldValue::Text(scalar_text(node.prop("value")))),
        "Select" | "RadioGroup" | "DatePicker" => node
            .prop("defaultValue")
            .map(|v| scalar_text(Some(v)))
            .filter(|s| !s.is_empty())
            .map(|s| {
                if node.kind == "DatePicker" {
                    FieldValue::Text(date_only(&s))
                } else {
                    FieldValue::Text(s)
                }
            }),
        _ => None,
    }
}

/// A string or number prop as text (`null`/objects as empty).
pub fn scalar_text(value: Option<&Value>) -> String {
    match value {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        Some(Value::Bool(b)) => b.to_string(),
        _ => String::new(),
    }
}

/// `2024-05-08T00:00:00` → `2024-05-08`: a date input takes the date part of the SDK's
/// datetimes; anything not shaped like a date is dropped.
pub fn date_only(s: &str) -> String {
    let date = s.get(..10).unwrap_or("");
    let b = date.as_bytes();
    let shaped = b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit());
    if shaped {
        date.to_owned()
    } else {
        String::new()
    }
}

/// The current value of a field: what the user typed, else its default.
pub fn current_value(node: &WidgetComponent, typed: &TypedValues) -> Option<FieldValue> {
    field_identity(node)
        .and_then(|id| typed.get(&id).cloned())
        .or_else(|| default_value(node))
}

/// The values a form (or a card `asForm`) submits: every named field under `root`, by
/// name. Unchecked checkboxes submit `false`, empty text fields `""`, unselected choices
/// nothing.
pub fn collect_values(root: &WidgetComponent, typed: &TypedValues) -> JsonMap {
    let mut out = JsonMap::new();
    collect_into(root, typed, &mut out);
    out
}

fn collect_into(node: &WidgetComponent, typed: &TypedValues, out: &mut JsonMap) {
    if let Some(name) = field_name(node) {
        if let Some(value) = current_value(node, typed) {
            out.insert(name.to_owned(), value.to_json());
        }
    }
    for child in &node.children {
        collect_into(child, typed, out);
    }
}

/// The action with `values` merged into its payload: an object payload gains the fields
/// (they win over payload keys of the same name), a missing payload becomes the values,
/// any other payload is kept under `"value"` next to them.
pub fn with_values(mut action: Action, values: JsonMap) -> Action {
    if values.is_empty() {
        return action;
    }
    action.payload = match std::mem::take(&mut action.payload) {
        Value::Object(mut map) => {
            map.extend(values);
            Value::Object(map)
        }
        Value::Null => Value::Object(values),
        other => {
            let mut map = JsonMap::new();
            map.insert("value".into(), other);
            map.extend(values);
            Value::Object(map)
        }
    };
    action
}

/// An action prop (`onClickAction`, `onSubmitAction`, …), if it is a valid action.
pub fn action_prop(node: &WidgetComponent, prop: &str) -> Option<Action> {
    node.prop(prop).and_then(|v| Action::decode(v).ok())
}

/// What kind of element started an action.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trigger {
    Button,
    ListItem,
    Form,
    /// A field's `onChangeAction`.
    Change,
}

/// What shows that an action is running.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Loading {
    /// Nothing (`loadingBehavior: "none"`).
    None,
    /// The element that triggered it: a spinner on it, and it is disabled.
    Itself,
    /// The whole widget: busy and disabled.
    Container,
}

/// `loadingBehavior` resolved for a trigger. `auto` is the element itself for buttons and
/// rows, the whole widget for a form (every field is part of what was sent) and nothing
/// for a field change (the user keeps typing).
pub fn loading(action: &Action, trigger: Trigger) -> Loading {
    match action.loading_behavior.as_deref() {
        Some("none") => Loading::None,
        Some("self") => Loading::Itself,
        Some("container") => Loading::Container,
        _ => match trigger {
            Trigger::Button | Trigger::ListItem => Loading::Itself,
            Trigger::Form => Loading::Container,
            Trigger::Change => Loading::None,
        },
    }
}

/// Where an action goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// A client action handler in the page (`handler: "client"`).
    Client,
    /// `threads.sync_custom_action`, answered with JSON (`streaming: false`).
    ServerSync,
    /// `threads.custom_action`, answered with a stream.
    ServerStream,
}

pub fn route(action: &Action) -> Route {
    if action.handler.as_deref() == Some("client") {
        Route::Client
    } else if action.streaming == Some(false) {
        Route::ServerSync
    } else {
        Route::ServerStream
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn node(v: Value) -> WidgetComponent {
        serde_json::from_value(v).unwrap()
    }

    fn form() -> WidgetComponent {
        node(json!({"type": "Form", "children": [
            {"type": "Input", "name": "name", "required": true},
            {"type": "Input", "id": "mail", "name": "email", "defaultValue": "a@b.c"},
            {"type": "Select", "name": "plan", "defaultValue": "free", "options": []},
            {"type": "Select", "name": "empty", "options": []},
            {"type": "Textarea", "name": "notes"},
            {"type": "Checkbox", "name": "agree"},
            {"type": "RadioGroup", "key": "r", "name": "size", "defaultValue": "m"},
            {"type": "DatePicker", "name": "when", "defaultValue": "2024-05-08T00:00:00"},
            {"type": "Row", "children": [
                {"type": "Text", "value": "Title", "editable": {"name": "title"}},
                {"type": "Text", "value": "not a field"},
                {"type": "Button", "label": "Submit", "submit": true}
            ]}
        ]}))
    }

    #[test]
    fn a_form_submits_defaults_and_typed_values_by_name() {
        let f = form();
        let defaults = collect_values(&f, &TypedValues::new());
        assert_eq!(
            Value::Object(defaults),
            json!({"name": "", "email": "a@b.c", "plan": "free", "notes": "", "agree": false,
                   "size": "m", "when": "2024-05-08", "title": "Title"})
        );
        let mut typed = TypedValues::new();
        typed.insert("name:name".into(), FieldValue::Text("Ada".into()));
        typed.insert("id:mail".into(), FieldValue::Text("ada@example.com".into()));
        typed.insert("name:agree".into(), FieldValue::Bool(true));
        typed.insert("key:r".into(), FieldValue::Text("s".into()));
        typed.insert("name:empty".into(), FieldValue::Text("x".into()));
        let values = collect_values(&f, &typed);
        assert_eq!(values["name"], "Ada");
        assert_eq!(values["email"], "ada@example.com");
        assert_eq!(values["agree"], true);
        assert_eq!(values["size"], "s");
        assert_eq!(values["empty"], "x");
    }

    #[test]
    fn identities_prefer_id_then_key_then_name() {
        let f = form();
        let ids: Vec<String> = f.children.iter().filter_map(field_identity).collect();
        assert_eq!(
            ids,
            vec![
                "name:name",
                "id:mail",
                "name:plan",
                "name:empty",
                "name:notes",
                "name:agree",
                "key:r",
                "name:when"
            ]
        );
        assert_eq!(field_identity(&node(json!({"type": "Input"}))), None);
    }

    #[test]
    fn values_merge_into_the_payload() {
        let action = |payload: Value| Action {
            kind: "form.submit".into(),
            payload,
            handler: None,
            loading_behavior: None,
            streaming: None,
        };
        let mut values = JsonMap::new();
        values.insert("name".into(), json!("Ada"));
        values.insert("form".into(), json!("overridden"));
        assert_eq!(
            with_values(action(json!({"form": "profile", "x": 1})), values.clone()).payload,
            json!({"form": "overridden", "x": 1, "name": "Ada"})
        );
        assert_eq!(
            with_values(action(Value::Null), values.clone()).payload,
            json!({"form": "overridden", "name": "Ada"})
        );
        assert_eq!(
            with_values(action(json!("raw")), values).payload,
            json!({"value": "raw", "form": "overridden", "name": "Ada"})
        );
        assert_eq!(
            with_values(action(json!([1])), JsonMap::new()).payload,
            json!([1])
        );
    }

    #[test]
    fn loading_and_routes_follow_the_action() {
        let mut a: Action = serde_json::from_value(json!({"type": "x"})).unwrap();
        assert_eq!(loading(&a, Trigger::Button), Loading::Itself);
        assert_eq!(loading(&a, Trigger::Form), Loading::Container);
        assert_eq!(loading(&a, Trigger::Change), Loading::None);
        assert_eq!(route(&a), Route::ServerStream);
        a.loading_behavior = Some("container".into());
        assert_eq!(loading(&a, Trigger::Button), Loading::Container);
        a.loading_behavior = Some("none".into());
        assert_eq!(loading(&a, Trigger::Form), Loading::None);
        a.streaming = Some(false);
        assert_eq!(route(&a), Route::ServerSync);
        a.handler = Some("client".into());
        assert_eq!(route(&a), Route::Client);
    }

    #[test]
    fn actions_are_read_from_props() {
        let b = node(
            json!({"type": "Button", "onClickAction": {"type": "go", "payload": {"a": 1}, "loadingBehavior": "self"}}),
        );
        let a = action_prop(&b, "onClickAction").unwrap();
        assert_eq!(a.kind, "go");
        assert_eq!(a.loading_behavior.as_deref(), Some("self"));
        assert!(action_prop(
            &node(json!({"type": "Button", "onClickAction": 3})),
            "onClickAction"
        )
        .is_none());
    }

    #[test]
    fn dates_keep_only_a_date_shape() {
        assert_eq!(date_only("2024-05-08T10:00:00Z"), "2024-05-08");
        assert_eq!(date_only("tomorrow"), "");
        assert_eq!(date_only("2024/05/08"), "");
    }
}
