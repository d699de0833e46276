//! ChatKit's composer choices: the models (`composer.models`) and tools (`composer.tools`)
//! the host offers, as chatkit-js names them, and what the user picked, as the next
//! message's `inference_options` (`{model, tool_choice: {id}}`).

use crate::protocol::JsonMap;
use serde::Serialize;
use serde_json::{json, Map, Value};

/// One model of the picker.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ModelOption {
    pub id: String,
    /// What the picker shows (the id when blank). Text, never markup.
    pub label: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Preselected (the first such model; else the first model).
    pub default: bool,
}

/// One tool of the tool menu.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ToolOption {
    pub id: String,
    /// What the menu shows (the id when blank). Text, never markup.
    pub label: String,
    /// What the chip shows once chosen (else the label).
    #[serde(rename = "shortLabel", skip_serializing_if = "Option::is_none")]
    pub short_label: Option<String>,
    /// A ChatKit icon name, a short symbol or an image URL.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub icon: Option<String>,
}

impl ToolOption {
    /// What the chip shows.
    pub fn chip_label(&self) -> &str {
        self.short_label.as_deref().unwrap_or(&self.label)
    }
}

/// What the user picked in the composer; `None`: nothing picked (the default model).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Picked {
    pub model: Option<String>,
    pub tool: Option<String>,
}

/// The objects of the array `value` (`null`: none), each read by `read`.
fn entries<T>(
    value: &Value,
    what: &str,
    mut read: impl FnMut(&Map<String, Value>) -> Result<T, String>,
    id_of: impl Fn(&T) -> &str,
) -> Result<Vec<T>, String> {
    let list = match value {
        Value::Null => return Ok(Vec::new()),
        Value::Array(list) => list,
        _ => return Err(format!("`{what}` must be an array")),
    };
    let mut out: Vec<T> = Vec::new();
    for entry in list {
        let Value::Object(map) = entry else {
            return Err(format!("`{what}` must be an array of objects"));
        };
        let parsed = read(map).map_err(|e| format!("`{what}`: {e}"))?;
        // A repeated id would make two entries one choice: the first wins.
        if !out.iter().any(|o| id_of(o) == id_of(&parsed)) {
            out.push(parsed);
        }
    }
    Ok(out)
}

fn text(map: &Map<String, Value>, key: &str, required: bool) -> Result<Option<String>, String> {
    match map.get(key) {
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(Some(s.clone())),
        None | Some(Value::Null) | Some(Value::String(_)) if !required => Ok(None),
        _ if required => Err(format!("`{key}` must be a non-empty string")),
        _ => Err(format!("`{key}` must be a string")),
    }
}

/// `composer.models`: `[{id, label, description?, default?}]`; `null` is none.
pub fn parse_models(value: &Value) -> Result<Vec<ModelOption>, String> {
    entries(
        value,
        "models",
        |map| {
            let id = text(map, "id", true)?.unwrap_or_default();
            let label = text(map, "label", false)?.unwrap_or_else(|| id.clone());
            let default = match map.get("default") {
                None | Some(Value::Null) => false,
                Some(Value::Bool(b)) => *b,
                Some(_) => return Err("`default` must be a boolean".into()),
            };
            Ok(ModelOption {
                description: text(map, "description", false)?,
                id,
                label,
                default,
            })
        },
        |m| &m.id,
    )
}

/// `composer.tools`: `[{id, label, shortLabel?, icon?}]`; `null` is none.
pub fn parse_tools(value: &Value) -> Result<Vec<ToolOption>, String> {
    entries(
        value,
        "tools",
        |map| {
            let id = text(map, "id", true)?.unwrap_or_default();
            let label = text(map, "label", false)?.unwrap_or_else(|| id.clone());
            Ok(ToolOption {
                short_label: text(map, "shortLabel", false)?,
                icon: text(map, "icon", false)?,
                id,
                label,
            })
        },
        |t| &t.id,
    )
}

/// The model in effect: the picked one while it is offered, else the default, else the
/// first; `None` when no model is offered.
pub fn current_model<'a>(
    models: &'a [ModelOption],
    picked: Option<&str>,
) -> Option<&'a ModelOption> {
    picked
        .and_then(|id| models.iter().find(|m| m.id == id))
        .or_else(|| models.iter().find(|m| m.default))
        .or_else(|| models.first())
}

/// The tool in effect: the picked one while it is offered.
pub fn current_tool<'a>(tools: &'a [ToolOption], picked: Option<&str>) -> Option<&'a ToolOption> {
    picked.and_then(|id| tools.iter().find(|t| t.id == id))
}

/// The next user message's `inference_options`: `model` whenever models are offered (the
/// default too), `tool_choice: {id}` only while a tool is chosen.
pub fn inference_options(models: &[ModelOption], tools: &[ToolOption], picked: &Picked) -> JsonMap {
    let mut out = JsonMap::new();
    if let Some(model) = current_model(models, picked.model.as_deref()) {
        out.insert("model".into(), Value::String(model.id.clone()));
    }
    if let Some(tool) = current_tool(tools, picked.tool.as_deref()) {
        out.insert("tool_choice".into(), json!({"id": tool.id}));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn models() -> Vec<ModelOption> {
        parse_models(&json!([
            {"id": "fast", "label": "Fast"},
            {"id": "smart", "label": "Smart", "description": "Slower", "default": true},
            {"id": "smart", "label": "Again"},
        ]))
        .unwrap()
    }

    fn tools() -> Vec<ToolOption> {
        parse_tools(&json!([
            {"id": "search", "label": "Search the web", "shortLabel": "Search", "icon": "globe"},
            {"id": "draw", "label": "<b>Draw</b>"},
        ]))
        .unwrap()
    }

    #[test]
    fn models_and_tools_parse_with_their_optional_fields() {
        let m = models();
        assert_eq!(m.len(), 2, "a repeated id is dropped");
        assert_eq!(m[1].description.as_deref(), Some("Slower"));
        assert!(m[1].default && !m[0].default);
        let t = tools();
        assert_eq!(t[0].chip_label(), "Search");
        assert_eq!(t[1].chip_label(), "<b>Draw</b>", "labels stay text");
        assert_eq!(t[0].icon.as_deref(), Some("globe"));
        assert_eq!(parse_models(&Value::Null).unwrap(), vec![]);
        // A blank label falls back to the id.
        let m = parse_models(&json!([{"id": "x", "label": " "}])).unwrap();
        assert_eq!(m[0].label, "x");
    }

    #[test]
    fn wrong_shapes_are_errors() {
        for bad in [
            json!({"id": "x"}),
            json!(["x"]),
            json!([{"label": "No id"}]),
            json!([{"id": 3, "label": "x"}]),
            json!([{"id": "x", "label": 3}]),
            json!([{"id": "x", "default": "yes"}]),
            json!([{"id": "x", "description": false}]),
        ] {
            assert!(parse_models(&bad).is_err(), "{bad}");
        }
        assert!(parse_tools(&json!([{"id": "x", "shortLabel": 1}])).is_err());
        assert!(parse_tools(&json!([{"id": "x", "icon": []}])).is_err());
        assert!(parse_tools(&json!("search")).is_err());
    }

    #[test]
    fn the_default_model_goes_out_until_another_is_picked() {
        let (m, t) = (models(), tools());
        let none = Picked::default();
        assert_eq!(
            Value::Object(inference_options(&m, &t, &none)),
            json!({"model": "smart"})
        );
        let picked = Picked {
            model: Some("fast".into()),
            tool: Some("search".into()),
        };
        assert_eq!(
            Value::Object(inference_options(&m, &t, &picked)),
            json!({"model": "fast", "tool_choice": {"id": "search"}})
        );
        // A pick no longer offered falls back; a tool no longer offered is not sent.
        let stale = Picked {
            model: Some("gone".into()),
            tool: Some("gone".into()),
        };
        assert_eq!(
            Value::Object(inference_options(&m, &t, &stale)),
            json!({"model": "smart"})
        );
        // Without a default, the first model.
        let plain =
            parse_models(&json!([{"id": "a", "label": "A"}, {"id": "b", "label": "B"}])).unwrap();
        assert_eq!(current_model(&plain, None).unwrap().id, "a");
    }

    #[test]
    fn nothing_offered_sends_nothing() {
        let picked = Picked {
            model: Some("fast".into()),
            tool: Some("search".into()),
        };
        assert!(inference_options(&[], &[], &picked).is_empty());
        // A tool alone: tool_choice without a model.
        assert_eq!(
            Value::Object(inference_options(&[], &tools(), &picked)),
            json!({"tool_choice": {"id": "search"}})
        );
    }
}
