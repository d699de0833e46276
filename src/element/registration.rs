//! A page's registry entry (`registerClientWidget`, `registerClientTool`,
//! `registerClientAction`, `registerEffect`, or `setOptions`'s registries), checked before
//! it is applied so a wrong one throws and changes nothing.

use crate::runtime::{ClientTool, ClientWidgetRenderer, Handler, Runtime};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// One checked registry entry; a `None` handler unregisters the name.
pub(crate) enum Registration {
    Widget(String, Option<ClientWidgetRenderer>),
    /// A client tool and, for AG-UI, its declaration to the agent.
    Tool(
        String,
        Option<ClientTool>,
        Option<chat_shell_core::protocol::ag_ui::Tool>,
    ),
    Action(String, Option<Handler>),
    Effect(String, Option<Handler>),
}

impl Registration {
    pub(crate) fn apply(self, rt: &Runtime) {
        match self {
            Registration::Widget(name, r) => rt.register_client_widget(&name, r),
            Registration::Tool(name, t, declared) => {
                rt.register_client_tool(&name, t);
                rt.declare_client_tool(&name, declared);
            }
            Registration::Action(name, h) => rt.register_client_action(&name, h),
            Registration::Effect(name, h) => rt.register_effect(&name, h),
        }
    }
}

/// Check a page's registry entry without applying it (a `TypeError` when it is wrong).
pub(crate) fn check(kind: &str, name: String, value: &JsValue) -> Result<Registration, JsValue> {
    if name.is_empty() {
        return Err(js_sys::TypeError::new("chat-shell: a name is required").into());
    }
    let remove = value.is_null() || value.is_undefined();
    let mut function = value.dyn_ref::<js_sys::Function>().cloned();
    // A tool may come as `{handler, description, parameters}`: declared to the agent.
    let mut declaration = None;
    if kind == "tool" && function.is_none() && value.is_object() {
        let handler = js_sys::Reflect::get(value, &"handler".into()).unwrap_or_default();
        function = handler.dyn_ref::<js_sys::Function>().cloned();
        let text = |key: &str| {
            js_sys::Reflect::get(value, &key.into())
                .ok()
                .and_then(|v| v.as_string())
        };
        let parameters = js_sys::Reflect::get(value, &"parameters".into())
            .ok()
            .filter(|p| !p.is_undefined() && !p.is_null())
            .map(serde_wasm_bindgen::from_value::<serde_json::Value>)
            .transpose()
            .map_err(|_| {
                js_sys::TypeError::new(&format!(
                    "chat-shell: tool `{name}`: `parameters` must be a JSON Schema object"
                ))
            })?;
        declaration = Some(chat_shell_core::protocol::ag_ui::Tool {
            name: name.clone(),
            description: text("description").unwrap_or_default(),
            parameters,
        });
    }
    let type_error = |what: &str| -> Result<Registration, JsValue> {
        Err(js_sys::TypeError::new(&format!("chat-shell: {kind} `{name}` needs {what}")).into())
    };
    if kind == "widget" {
        let renderer = match (&function, value.as_string()) {
            (Some(f), _) => Some(ClientWidgetRenderer::Js(f.clone())),
            (None, Some(tag)) if is_custom_element_name(&tag) => {
                Some(ClientWidgetRenderer::Tag(tag))
            }
            _ if remove => None,
            _ => return type_error("a function or a custom element tag name"),
        };
        return Ok(Registration::Widget(name, renderer));
    }
    if function.is_none() && !remove {
        return type_error("a function");
    }
    match kind {
        "tool" => Ok(Registration::Tool(
            name,
            function.map(ClientTool::Js),
            declaration,
        )),
        "action" => Ok(Registration::Action(name, function.map(Handler::Js))),
        "effect" => Ok(Registration::Effect(name, function.map(Handler::Js))),
        _ => type_error("a known registry"),
    }
}

/// A valid custom element name: lowercase ASCII letter first, a hyphen, no uppercase.
fn is_custom_element_name(tag: &str) -> bool {
    tag.starts_with(|c: char| c.is_ascii_lowercase())
        && tag.contains('-')
        && tag
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "-._".contains(c))
}
