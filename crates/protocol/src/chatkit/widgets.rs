//! Server-defined widgets: one node shape for roots (Card, ListView, Basic) and components.
//!
//! Widgets are an open catalog (unknown component types are legal and later SDKs add
//! props), so a node keeps its `type`, `id`, `key` and `children` as fields and every other
//! prop as raw JSON; the renderer reads props through the typed accessors below.

use super::JsonMap;
use crate::decode::{self, Decode};
use serde::Serialize;
use serde_json::Value;

/// The root of a widget item. Same shape as any component.
pub type WidgetRoot = WidgetComponent;

/// The components of the openai-chatkit 1.6.5 catalog (roots included).
pub const KNOWN_COMPONENTS: &[&str] = &[
    "Card",
    "ListView",
    "Basic",
    "Text",
    "Title",
    "Caption",
    "Markdown",
    "Badge",
    "Box",
    "Row",
    "Col",
    "Divider",
    "Icon",
    "Image",
    "ListViewItem",
    "Button",
    "Checkbox",
    "Spacer",
    "Select",
    "DatePicker",
    "Form",
    "Input",
    "Label",
    "RadioGroup",
    "Textarea",
    "Transition",
    "Chart",
];

/// One node of a widget tree.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WidgetComponent {
    /// The `type`, e.g. `"Card"` or `"Text"`; empty when the server sent none.
    pub kind: String,
    pub id: Option<String>,
    pub key: Option<String>,
    pub children: Vec<WidgetComponent>,
    /// Every other field, as sent (numbers may be floats: `"padding": 3.0`).
    pub props: JsonMap,
}

impl WidgetComponent {
    /// Whether the renderer knows this component type.
    pub fn is_known(&self) -> bool {
        KNOWN_COMPONENTS.contains(&self.kind.as_str())
    }

    pub fn prop(&self, name: &str) -> Option<&Value> {
        self.props.get(name).filter(|v| !v.is_null())
    }

    pub fn prop_str(&self, name: &str) -> Option<&str> {
        self.prop(name).and_then(Value::as_str)
    }

    pub fn prop_f64(&self, name: &str) -> Option<f64> {
        self.prop(name).and_then(Value::as_f64)
    }

    pub fn prop_bool(&self, name: &str) -> Option<bool> {
        self.prop(name).and_then(Value::as_bool)
    }

    /// The node with this `id`, searching depth-first.
    pub fn find_mut(&mut self, id: &str) -> Option<&mut WidgetComponent> {
        if self.id.as_deref() == Some(id) {
            return Some(self);
        }
        self.children.iter_mut().find_map(|c| c.find_mut(id))
    }

    /// Append streamed text to the `value` of the node with this id. False if none has it.
    pub fn append_value(&mut self, id: &str, delta: &str) -> bool {
        let Some(node) = self.find_mut(id) else {
            return false;
        };
        let mut value = node.prop_str("value").unwrap_or_default().to_owned();
        value.push_str(delta);
        node.props.insert("value".to_owned(), Value::String(value));
        true
    }

    /// Replace the node with this id. False if none has it.
    pub fn replace(&mut self, id: &str, with: WidgetComponent) -> bool {
        match self.find_mut(id) {
            Some(node) => {
                *node = with;
                true
            }
            None => false,
        }
    }

    fn from_value(value: &Value) -> Result<Self, String> {
        let Value::Object(fields) = value else {
            return Err(format!("a widget component must be an object, got {value}"));
        };
        let text = |name: &str| match fields.get(name) {
            Some(Value::String(s)) => Ok(Some(s.clone())),
            None | Some(Value::Null) => Ok(None),
            Some(other) => Err(format!("widget `{name}` must be a string, got {other}")),
        };
        let kind = text("type")?.unwrap_or_default();
        let id = text("id")?;
        let key = text("key")?;
        let mut props = JsonMap::new();
        let mut children = Vec::new();
        for (name, v) in fields {
            match (name.as_str(), v) {
                ("type" | "id" | "key", _) | ("children", Value::Null) => {}
                ("children", Value::Array(items)) => {
                    children = items
                        .iter()
                        .map(Self::from_value)
                        .collect::<Result<_, _>>()?;
                }
                // Not a component list: kept as a prop so nothing is lost.
                _ => {
                    props.insert(name.clone(), v.clone());
                }
            }
        }
        Ok(WidgetComponent {
            kind,
            id,
            key,
            children,
            props,
        })
    }

    fn to_value(&self) -> Value {
        let mut map = self.props.clone();
        if !self.kind.is_empty() {
            map.insert("type".to_owned(), Value::String(self.kind.clone()));
        }
        if let Some(id) = &self.id {
            map.insert("id".to_owned(), Value::String(id.clone()));
        }
        if let Some(key) = &self.key {
            map.insert("key".to_owned(), Value::String(key.clone()));
        }
        if !self.children.is_empty() {
            map.insert(
                "children".to_owned(),
                Value::Array(self.children.iter().map(Self::to_value).collect()),
            );
        }
        Value::Object(map)
    }
}

impl Decode for WidgetComponent {
    fn decode(value: &Value) -> Result<Self, decode::Error> {
        Self::from_value(value).map_err(decode::Error::new)
    }
}

decode::deserialize_by_decode!(WidgetComponent);

impl Serialize for WidgetComponent {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_value().serialize(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_component_reads_its_tree_and_keeps_every_other_field_as_a_prop() {
        let node = WidgetComponent::decode(&json!({
            "type": "Card", "id": "c", "size": "md",
            "children": [{"type": "Text", "value": "hi", "key": "k"}, {"type": "Divider"}],
        }))
        .unwrap();
        assert_eq!(
            (node.kind.as_str(), node.id.as_deref(), node.key.as_deref()),
            ("Card", Some("c"), None)
        );
        assert_eq!(
            node.props,
            json!({"size": "md"}).as_object().unwrap().clone()
        );
        assert_eq!(node.children.len(), 2);
        assert_eq!(node.children[0].key.as_deref(), Some("k"));
        assert_eq!(node.children[0].prop("value"), Some(&json!("hi")));
        // `children` that is not a component list stays a prop; `null` is no children.
        let odd =
            WidgetComponent::decode(&json!({"type": "Box", "children": {"type": "Text"}})).unwrap();
        assert!(odd.children.is_empty());
        assert_eq!(odd.prop("children"), Some(&json!({"type": "Text"})));
        let none = WidgetComponent::decode(&json!({"type": "Box", "children": null})).unwrap();
        assert!(none.children.is_empty() && none.props.is_empty());
        // A broken child or a non-string type is an error, never a guess.
        assert!(WidgetComponent::decode(&json!({"type": 3})).is_err());
        assert!(WidgetComponent::decode(&json!({"type": "Box", "children": [1]})).is_err());
        // Written back, it is the same JSON.
        let wire =
            json!({"type": "Card", "id": "c", "children": [{"type": "Text", "value": "hi"}]});
        assert_eq!(WidgetComponent::decode(&wire).unwrap().to_value(), wire);
    }
}
