//! The element's JavaScript API: `setOptions(options)` (and the `options` property) for
//! what attributes cannot carry, and the methods a host page calls (`exportConversation`
//! resolves with the conversation shown as Markdown or JSON). Methods that do work
//! return a Promise that settles when it is done.

use crate::runtime::{Runtime, SendOptions, Shell};
use chat_shell_core::options::{OptionError, Options, Setting};
use chat_shell_core::protocol::chatkit::{Attachment, ThreadId};
use chat_shell_core::protocol::decode::Decode;
use js_sys::{Function, Object, Promise, Reflect};
use leptos::prelude::*;
use serde::Serialize;
use serde_json::Value;
use std::cell::Cell;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::{future_to_promise, JsFuture};
use web_sys::HtmlElement;

/// How long a Promise may wait for the chat to settle before it rejects (ms).
const SETTLE_TIMEOUT_MS: i32 = 120_000;

/// Dispatch one method call from the element class.
pub(super) fn call(
    shell: Shell,
    host: HtmlElement,
    method: String,
    arg: JsValue,
) -> Result<JsValue, JsValue> {
    let rt = shell
        .get()
        .ok_or_else(|| JsValue::from_str("chat-shell: this element is gone"))?;
    match method.as_str() {
        "setOptions" => {
            apply_options(&rt, &host, &arg)?;
            Ok(JsValue::UNDEFINED)
        }
        "getOptions" => read_options(&rt),
        "getAgentState" => Ok(rt
            .agent_state()
            .and_then(|s| {
                s.serialize(&serde_wasm_bindgen::Serializer::json_compatible())
                    .ok()
            })
            .unwrap_or(JsValue::NULL)),
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
        "exportConversation" => {
            // `{format: "markdown" | "json"}`, Markdown when absent.
            let format = Reflect::get(&arg, &"format".into())
                .ok()
                .and_then(|f| f.as_string())
                .unwrap_or_else(|| "markdown".to_owned());
            Ok(future_to_promise(async move {
                match crate::chunks::views::exported(shell, format.clone()).await {
                    Ok(Some(text)) => Ok(JsValue::from_str(&text)),
                    Ok(None) => Err(js_sys::TypeError::new(&format!(
                        "chat-shell: exportConversation: format must be \"markdown\" or \"json\", not \"{format}\""
                    ))
                    .into()),
                    Err(_) => Err(JsValue::from_str(
                        "chat-shell: the export's code could not be loaded; try again",
                    )),
                }
            })
            .into())
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
            .map(Attachment::decode)
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
        mentions: Vec::new(),
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

/// Wait until `done` holds. It is checked when the state it reads changes (the answer
/// streaming, the thread being opened), not on a timer; it gives up after a while.
async fn settle(
    rt: &Rc<Runtime>,
    done: impl Fn(&Runtime) -> bool + 'static,
) -> Result<(), JsValue> {
    if done(rt) {
        return Ok(());
    }
    let (shell, signals) = (rt.shell, rt.signals);
    let done = Rc::new(done);
    let promise = Promise::new(&mut |resolve, reject| {
        let watcher: Rc<Cell<Option<Effect<LocalStorage>>>> = Rc::default();
        // The time limit's timer, cleared once settled: no timer outlives the wait.
        let timer: Rc<Cell<Option<i32>>> = Rc::default();
        let stop = {
            let (watcher, timer) = (watcher.clone(), timer.clone());
            move || {
                if let Some(effect) = watcher.take() {
                    effect.stop();
                }
                if let (Some(t), Some(window)) = (timer.take(), web_sys::window()) {
                    window.clear_timeout_with_handle(t);
                }
            }
        };
        let effect = rt.in_owner(|| {
            let (done, stop) = (done.clone(), stop.clone());
            Effect::watch(
                move || (signals.streaming.get(), signals.history.opening.get()),
                move |_, _, _: Option<()>| {
                    if shell.with(|rt| done(rt)).unwrap_or(true) {
                        // The state is there; the view shows it after the next frame.
                        after_next_frame(resolve.clone());
                        stop();
                    }
                },
                false,
            )
        });
        watcher.set(Some(effect));
        let give_up = Closure::once_into_js(move || {
            let _ = reject.call1(
                &JsValue::NULL,
                &JsValue::from_str("chat-shell: timed out waiting for the chat"),
            );
            stop();
        });
        if let Some(window) = web_sys::window() {
            let handle = window.set_timeout_with_callback_and_timeout_and_arguments_0(
                give_up.unchecked_ref(),
                SETTLE_TIMEOUT_MS,
            );
            timer.set(handle.ok());
        }
    });
    JsFuture::from(promise).await.map(drop)
}

/// Call `resolve` once the runtime has published the current state to the view: it
/// flushes on the next animation frame (on a short timer in a hidden page).
fn after_next_frame(resolve: Function) {
    let Some(window) = web_sys::window() else {
        let _ = resolve.call0(&JsValue::NULL);
        return;
    };
    let hidden = window.document().is_some_and(|d| d.hidden());
    let scheduled = if hidden {
        window.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 100)
    } else {
        window.request_animation_frame(&resolve)
    };
    if scheduled.is_err() {
        let _ = resolve.call0(&JsValue::NULL);
    }
}

/// One change `setOptions` asked for, checked and ready to apply.
enum Change {
    Plain(Setting),
    Headers(JsValue),
    Fetch(Option<Function>),
    /// `entities.onTagSearch`.
    TagSearch(Option<Function>),
    /// `threads: {list, load, rename?, delete?}` (AG-UI's thread list, the host's).
    Threads(Option<JsValue>),
    Register(super::registration::Registration),
    /// `null` for a whole registry: the page's entries go.
    ClearRegistry(&'static str),
}

/// `setOptions(options)`: merge `options` into the current ones. Every key is checked
/// before any applies, so a call that throws (a `TypeError` naming the key) changes
/// nothing. `null` restores a key's default; unknown keys are ignored.
fn apply_options(rt: &Rc<Runtime>, host: &HtmlElement, options: &JsValue) -> Result<(), JsValue> {
    let Some(object) = options
        .dyn_ref::<Object>()
        .filter(|_| !options.is_function())
    else {
        return Err(js_sys::TypeError::new("chat-shell: setOptions expects an object").into());
    };
    let type_error = |message: String| -> JsValue {
        js_sys::TypeError::new(&format!("chat-shell: {message}")).into()
    };
    let mut changes = Vec::new();
    for entry in Object::entries(object).iter() {
        let pair = js_sys::Array::from(&entry);
        let (key, value) = (pair.get(0).as_string().unwrap_or_default(), pair.get(1));
        let cleared = value.is_null() || value.is_undefined();
        match key.as_str() {
            "headers" => {
                if !cleared && !value.is_object() && !value.is_function() {
                    return Err(type_error(
                        "option `headers` must be an object or a function".into(),
                    ));
                }
                changes.push(Change::Headers(value));
            }
            "fetch" => {
                let fetch = value.dyn_ref::<Function>().cloned();
                if fetch.is_none() && !cleared {
                    return Err(type_error("option `fetch` must be a function".into()));
                }
                changes.push(Change::Fetch(fetch));
            }
            "entities" => {
                // chatkit-js's `entities: {onTagSearch(query) → Promise<Entity[]>}`.
                let search = Reflect::get(&value, &"onTagSearch".into()).unwrap_or_default();
                let function = search.dyn_ref::<Function>().cloned();
                if function.is_none() && !cleared && !search.is_undefined() && !search.is_null() {
                    return Err(type_error(
                        "option `entities.onTagSearch` must be a function".into(),
                    ));
                }
                changes.push(Change::TagSearch(function));
            }
            "threads" => {
                // AG-UI keeps no threads: a host that does gives History its list.
                let has =
                    |name: &str| Reflect::get(&value, &name.into()).is_ok_and(|f| f.is_function());
                let given = has("list") && has("load");
                if !(cleared || given) {
                    return Err(type_error(
                        "option `threads` must be {list(), load(id)} (async functions; \
                         rename(id, title) and delete(id) optional)"
                            .into(),
                    ));
                }
                changes.push(Change::Threads((!cleared).then(|| value.clone())));
            }
            "clientWidgets" | "clientTools" | "clientActions" | "effects" => {
                let kind = match key.as_str() {
                    "clientWidgets" => "widget",
                    "clientTools" => "tool",
                    "clientActions" => "action",
                    _ => "effect",
                };
                if cleared {
                    changes.push(Change::ClearRegistry(kind));
                    continue;
                }
                let Some(registry) = value.dyn_ref::<Object>() else {
                    return Err(type_error(format!(
                        "option `{key}` must be an object of name → handler"
                    )));
                };
                for entry in Object::entries(registry).iter() {
                    let pair = js_sys::Array::from(&entry);
                    let name = pair.get(0).as_string().unwrap_or_default();
                    changes.push(Change::Register(super::registration::check(
                        kind,
                        name,
                        &pair.get(1),
                    )?));
                }
            }
            _ => {
                // Plain values cross as JSON; a value JSON cannot carry is the wrong type.
                let json = if value.is_undefined() {
                    Value::Null
                } else {
                    serde_wasm_bindgen::from_value::<Value>(value).map_err(|_| {
                        type_error(format!("option `{key}` has a value of the wrong type"))
                    })?
                };
                let settings =
                    Setting::from_option(&key, &json).map_err(|OptionError(m)| type_error(m))?;
                changes.extend(settings.into_iter().map(Change::Plain));
            }
        }
    }
    let mut plain = Vec::new();
    for change in changes {
        match change {
            Change::Plain(setting) => {
                if let Setting::Theme(theme) = &setting {
                    apply_theme(host, theme);
                }
                plain.push(setting);
            }
            Change::Headers(value) => rt.http_options.borrow_mut().set_headers(&value),
            Change::Fetch(fetch) => rt.http_options.borrow_mut().fetch = fetch,
            Change::TagSearch(search) => *rt.tag_search.borrow_mut() = search,
            Change::Threads(threads) => rt.set_host_threads(threads),
            Change::Register(registration) => registration.apply(rt),
            Change::ClearRegistry(kind) => rt.clear_js_registry(kind),
        }
    }
    rt.apply_settings(plain);
    Ok(())
}

/// The `options` property: the runtime's one copy of every option, plain values as
/// JSON plus the functions and registries the host gave.
fn read_options(rt: &Rc<Runtime>) -> Result<JsValue, JsValue> {
    let plain = rt.options(Options::to_json);
    let object = plain
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| JsValue::from_str(&e.to_string()))?;
    let http = rt.http_options.borrow();
    if let Some(headers) = http.given_headers() {
        Reflect::set(&object, &"headers".into(), &headers)?;
    }
    if let Some(fetch) = &http.fetch {
        Reflect::set(&object, &"fetch".into(), fetch)?;
    }
    for (key, registry) in rt.js_registries() {
        Reflect::set(&object, &key.into(), &registry)?;
    }
    Ok(object)
}

/// `theme`: `"light" | "dark" | "auto"`, or `{colorScheme, accent, variables: {"--cs-…": …}}`.
/// Colors and sizes go in as CSS custom properties through the CSSOM (no inline style
/// attribute, so a strict CSP is fine); only `--cs-` names are accepted.
fn apply_theme(host: &HtmlElement, theme: &Value) {
    let style = host.style();
    let scheme = match theme {
        Value::String(scheme) => Some(scheme.as_str()),
        other => other.get("colorScheme").and_then(Value::as_str),
    };
    let _ = match scheme {
        Some(scheme) => host.set_attribute("theme", scheme),
        None => host.remove_attribute("theme"),
    };
    let _ = match theme.get("accent").and_then(Value::as_str) {
        Some(accent) => style.set_property("--cs-accent", accent),
        None => style.remove_property("--cs-accent").map(drop),
    };
    if let Some(vars) = theme.get("variables").and_then(Value::as_object) {
        for (name, value) in vars {
            if let (true, Some(value)) = (name.starts_with("--cs-"), value.as_str()) {
                let _ = style.set_property(name, value);
            }
        }
    }
}
