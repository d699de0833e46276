//! The element's JavaScript API: `setOptions(options)` (and the `options` property) for
//! what attributes cannot carry, and the methods a host page calls. Methods that do work
//! return a Promise that settles when it is done.

use crate::runtime::{Runtime, SendOptions, Shell};
use chat_shell_core::options::{parse_starter_prompts, StarterPrompt};
use chat_shell_core::protocol::chatkit::{Attachment, ThreadId};
use chat_shell_core::protocol::JsonMap;
use chat_shell_core::strings::Strings;
use js_sys::{Function, Object, Promise, Reflect};
use leptos::prelude::*;
use serde_json::Value;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::{future_to_promise, JsFuture};
use web_sys::HtmlElement;

/// How long a Promise may wait for the chat to settle before it rejects (ms).
const SETTLE_TIMEOUT_MS: f64 = 120_000.0;

/// Dispatch one method call from the element class.
pub(super) fn call(host: HtmlElement, method: String, arg: JsValue) -> Result<JsValue, JsValue> {
    let shell = super::shell_of(&host);
    let rt = shell
        .get()
        .ok_or_else(|| JsValue::from_str("chat-shell: this element is gone"))?;
    match method.as_str() {
        "setOptions" => {
            apply_options(&rt, &host, &arg)?;
            Ok(JsValue::UNDEFINED)
        }
        "sendUserMessage" => send_user_message(rt, &arg),
        "setThreadId" => Ok(set_thread_id(rt, arg.as_string()).into()),
        "focusComposer" => {
            let focused = host
                .shadow_root()
                .and_then(|root| root.query_selector("textarea").ok().flatten())
                .map(|el| el.unchecked_into::<HtmlElement>().focus().is_ok())
                .unwrap_or(false);
            Ok(focused.into())
        }
        "setComposerValue" => {
            rt.signals.draft.set(arg.as_string().unwrap_or_default());
            Ok(JsValue::UNDEFINED)
        }
        "showHistory" => {
            rt.open_history();
            Ok(JsValue::UNDEFINED)
        }
        "hideHistory" => {
            rt.close_history();
            Ok(JsValue::UNDEFINED)
        }
        "fetchUpdates" => {
            let Some(current) = rt.with_state(|s| s.thread_id().cloned()) else {
                return Ok(Promise::resolve(&JsValue::UNDEFINED).into());
            };
            rt.refresh_thread();
            Ok(opened(rt, current).into())
        }
        other => Err(JsValue::from_str(&format!(
            "chat-shell: unknown method {other}"
        ))),
    }
}

/// `sendUserMessage({text, attachments?, newThread?, ghost?, metadata?})`: resolves with
/// `{threadId}` once the answer has finished; rejects if the message could not be sent.
fn send_user_message(rt: Rc<Runtime>, arg: &JsValue) -> Result<JsValue, JsValue> {
    let message: Value = serde_wasm_bindgen::from_value(arg.clone())
        .map_err(|e| JsValue::from_str(&format!("chat-shell: sendUserMessage: {e}")))?;
    let text = message
        .get("text")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let attachments: Vec<Attachment> = match message.get("attachments") {
        Some(Value::Array(list)) => list
            .iter()
            .map(|a| serde_json::from_value(a.clone()))
            .collect::<Result<_, _>>()
            .map_err(|e| JsValue::from_str(&format!("chat-shell: attachments: {e}")))?,
        _ => Vec::new(),
    };
    let options = SendOptions {
        ghost: message
            .get("ghost")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        metadata: message.get("metadata").and_then(Value::as_object).cloned(),
        attachments,
    };
    if message
        .get("newThread")
        .and_then(Value::as_bool)
        .unwrap_or(false)
    {
        rt.new_chat();
    }
    if !rt.send_message_with(text, options) {
        return Ok(Promise::reject(&JsValue::from_str(
            "chat-shell: the message was not sent (empty, or an answer is still streaming)",
        ))
        .into());
    }
    Ok(future_to_promise(async move {
        settle(&rt, |rt| !rt.is_streaming()).await?;
        let thread = rt.with_state(|s| s.thread_id().map(|t| t.0.clone()));
        let result = Object::new();
        Reflect::set(
            &result,
            &"threadId".into(),
            &thread.map_or(JsValue::NULL, JsValue::from),
        )?;
        Ok(result.into())
    })
    .into())
}

/// Open a thread (or, with `None`, a new empty chat); resolves once it is shown.
fn set_thread_id(rt: Rc<Runtime>, id: Option<String>) -> Promise {
    match id.filter(|i| !i.is_empty()) {
        None => {
            rt.new_chat();
            Promise::resolve(&JsValue::UNDEFINED)
        }
        Some(id) => {
            let want = ThreadId(id);
            rt.select_thread(want.clone());
            opened(rt, want)
        }
    }
}

/// Resolves once the thread `want` is shown; rejects with the reason if it could not be.
fn opened(rt: Rc<Runtime>, want: ThreadId) -> Promise {
    future_to_promise(async move {
        settle(&rt, |rt| !rt.is_loading_thread()).await?;
        if rt.with_state(|s| s.thread_id() == Some(&want)) {
            Ok(JsValue::UNDEFINED)
        } else {
            let why = rt.signals.history.open_error.get_untracked();
            Err(JsValue::from_str(&why.unwrap_or_else(|| {
                format!("chat-shell: thread {want} was not opened")
            })))
        }
    })
}

/// Wait (one animation-frame-sized tick at a time) until `done` holds.
async fn settle(rt: &Rc<Runtime>, done: impl Fn(&Rc<Runtime>) -> bool) -> Result<(), JsValue> {
    let started = js_sys::Date::now();
    while !done(rt) {
        if js_sys::Date::now() - started > SETTLE_TIMEOUT_MS {
            return Err(JsValue::from_str(
                "chat-shell: timed out waiting for the chat",
            ));
        }
        let tick = Promise::new(&mut |resolve, _| {
            if let Some(window) = web_sys::window() {
                let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 30);
            }
        });
        JsFuture::from(tick).await?;
    }
    Ok(())
}

/// Apply an options object (already merged with earlier ones by the element class).
/// Unknown keys are ignored; a known key with a wrong type is a `TypeError`.
fn apply_options(rt: &Rc<Runtime>, host: &HtmlElement, options: &JsValue) -> Result<(), JsValue> {
    if !options.is_object() {
        return Err(js_sys::TypeError::new("chat-shell: setOptions expects an object").into());
    }
    let get = |key: &str| {
        Reflect::get(options, &key.into())
            .ok()
            .filter(|v| !v.is_undefined())
    };
    // A key given as `null`/`undefined` turns that option off.
    let cleared = |key: &str| {
        Reflect::has(options, &key.into()).unwrap_or(false)
            && Reflect::get(options, &key.into()).is_ok_and(|v| v.is_null() || v.is_undefined())
    };
    let string = |key: &str| get(key).and_then(|v| v.as_string());
    let json = |key: &str| get(key).and_then(|v| serde_wasm_bindgen::from_value::<Value>(v).ok());
    let type_error = |key: &str, what: &str| -> JsValue {
        js_sys::TypeError::new(&format!("chat-shell: option `{key}` must be {what}")).into()
    };

    if let Some(endpoint) = string("endpoint") {
        rt.signals.endpoint.set(endpoint);
    }
    if cleared("headers") {
        rt.http_options.borrow_mut().set_headers(&JsValue::NULL);
    } else if let Some(headers) = get("headers") {
        if !headers.is_object() && !headers.is_function() {
            return Err(type_error("headers", "an object or a function"));
        }
        rt.http_options.borrow_mut().set_headers(&headers);
    }
    if cleared("fetch") {
        rt.http_options.borrow_mut().fetch = None;
    } else if let Some(fetch) = get("fetch") {
        let fetch = fetch
            .dyn_into::<Function>()
            .map_err(|_| type_error("fetch", "a function"))?;
        rt.http_options.borrow_mut().fetch = Some(fetch);
    }
    if let Some(value) = get("metadata") {
        let metadata: Option<JsonMap> = match serde_wasm_bindgen::from_value::<Value>(value) {
            Ok(Value::Object(map)) => Some(map),
            Ok(Value::Null) => None,
            _ => return Err(type_error("metadata", "an object")),
        };
        *rt.metadata.borrow_mut() = metadata;
    }
    if let Some(prompts) = json("starterPrompts") {
        let prompts: Vec<StarterPrompt> = parse_starter_prompts(&prompts.to_string())
            .map_err(|e| type_error("starterPrompts", &e))?;
        rt.signals.starters.set(prompts);
    }
    if let Some(greeting) = string("greeting") {
        rt.set_option("greeting", Some(&greeting));
    }
    if let Some(placeholder) = string("placeholder") {
        rt.signals.placeholder.set(Some(placeholder));
    }
    if string("locale").is_some() || get("strings").is_some() {
        let locale = string("locale").unwrap_or_else(|| rt.signals.locale.get_untracked());
        rt.signals.locale.set(locale.clone());
        let overrides = json("strings").unwrap_or(Value::Null);
        rt.signals
            .strings
            .set(Strings::new(&locale).with_overrides(&overrides));
    }
    if let Some(attachments) = json("attachments") {
        let enabled = attachments.get("enabled").and_then(Value::as_bool);
        if let Some(enabled) = enabled {
            rt.signals.allow_attachments.set(enabled);
        }
        for (key, attr) in [
            ("accept", "accept"),
            ("maxSize", "max-attachment-size"),
            ("maxCount", "max-attachments"),
        ] {
            if let Some(value) = attachments.get(key) {
                let text = match value {
                    Value::Array(list) => list
                        .iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join(","),
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                rt.set_option(attr, Some(&text));
            }
        }
    }
    if let Some(seconds) = get("streamTimeout")
        .and_then(|v| v.as_f64())
        .filter(|s| *s > 0.0)
    {
        rt.stall_ms.set((seconds * 1000.0) as u32);
    }
    if let Some(on) = get("resizable").and_then(|v| v.as_bool()) {
        rt.signals.resizable.set(on);
    }
    if let Some(key) = string("persistSize") {
        rt.signals.persist_size.set(key);
    }
    if let Some(theme) = get("theme") {
        apply_theme(host, &theme)?;
    }
    for (key, kind) in [
        ("clientWidgets", "widget"),
        ("clientTools", "tool"),
        ("clientActions", "action"),
        ("effects", "effect"),
    ] {
        if let Some(registry) = get(key) {
            let Some(object) = registry.dyn_ref::<Object>() else {
                return Err(type_error(key, "an object of name → handler"));
            };
            for entry in Object::entries(object).iter() {
                let pair = js_sys::Array::from(&entry);
                let name = pair.get(0).as_string().unwrap_or_default();
                super::register_from_page(host.clone(), kind.to_owned(), name, pair.get(1))?;
            }
        }
    }
    Ok(())
}

/// `theme`: `"light" | "dark" | "auto"`, or `{colorScheme, accent, variables: {"--cs-…": …}}`.
/// Colors and sizes go in as CSS custom properties through the CSSOM (no inline style
/// attribute, so a strict CSP is fine); only `--cs-` names are accepted.
fn apply_theme(host: &HtmlElement, theme: &JsValue) -> Result<(), JsValue> {
    if let Some(scheme) = theme.as_string() {
        return host.set_attribute("theme", &scheme);
    }
    let get = |key: &str| {
        Reflect::get(theme, &key.into())
            .ok()
            .filter(|v| !v.is_undefined())
    };
    if let Some(scheme) = get("colorScheme").and_then(|v| v.as_string()) {
        host.set_attribute("theme", &scheme)?;
    }
    let style = host.style();
    if let Some(accent) = get("accent").and_then(|v| v.as_string()) {
        style.set_property("--cs-accent", &accent)?;
    }
    if let Some(vars) = get("variables").and_then(|v| v.dyn_into::<Object>().ok()) {
        for entry in Object::entries(&vars).iter() {
            let pair = js_sys::Array::from(&entry);
            let (Some(name), Some(value)) = (pair.get(0).as_string(), pair.get(1).as_string())
            else {
                continue;
            };
            if name.starts_with("--cs-") {
                style.set_property(&name, &value)?;
            }
        }
    }
    Ok(())
}

/// Test hook and Rust access: the shell of an element.
pub fn shell_of_element(host: &HtmlElement) -> Shell {
    super::shell_of(host)
}
