//! The `<chat-shell>` custom element: a small JS class whose lifecycle callbacks call
//! into Rust, which mounts the Leptos views into the element's open shadow root.

mod api;

pub use api::shell_of_element;

use crate::runtime::{Runtime, Shell};
use crate::views::ShellRoot;
use std::cell::RefCell;
use std::collections::HashMap;
use wasm_bindgen::prelude::*;
use web_sys::{HtmlElement, ShadowRoot};

/// The component's stylesheet, adopted by each shadow root (no inline `<style>`: pages
/// with a strict Content-Security-Policy allow constructed stylesheets).
const STYLESHEET: &str = include_str!("../../style/chat-shell.css");

/// Attributes the element reacts to.
const OBSERVED: &[&str] = &[
    "endpoint",
    "stream-timeout",
    "resizable",
    "persist-size",
    // Start screen, attachments and metadata: handled by `Runtime::set_option`.
    "greeting",
    "starter-prompts",
    "accept",
    "max-attachment-size",
    "max-attachments",
    "metadata",
    // Language, wording and composer: handled here.
    "locale",
    "placeholder",
    "allow-attachments",
];

#[wasm_bindgen(inline_js = r#"
export function defineElement(tag, observed, connect, disconnect, attribute, register, call) {
  if (customElements.get(tag)) return;
  class ChatShellElement extends HTMLElement {
    static get observedAttributes() { return observed; }
    constructor() { super(); this.attachShadow({ mode: 'open' }); }
    connectedCallback() { connect(this, this.shadowRoot); }
    disconnectedCallback() { disconnect(this); }
    attributeChangedCallback(name, oldValue, value) {
      if (oldValue !== value) attribute(this, name, value);
    }
    /** Render `client_widget` items named `name`: `(args, context) => Node`, or the tag
     *  name of a custom element that receives `args` and `context` as properties. */
    registerClientWidget(name, fnOrTagName) { register(this, 'widget', name, fnOrTagName); }
    /** Run `client_tool_call`s named `name`: `async (args, context) => result`. */
    registerClientTool(name, fn) { register(this, 'tool', name, fn); }
    /** Handle widget actions of type `type` whose handler is "client": `(action, context)`. */
    registerClientAction(type, fn) { register(this, 'action', type, fn); }
    /** Handle `client_effect`s named `name`: `(data, name)`. */
    registerEffect(name, fn) { register(this, 'effect', name, fn); }
    /** Merge `options` into the current ones (see the README for the keys). */
    setOptions(options) {
      // Apply only what changed; remember it only if it was accepted.
      call(this, 'setOptions', options || {});
      this._options = { ...(this._options || {}), ...(options || {}) };
    }
    get options() { return { ...(this._options || {}) }; }
    set options(options) { this.setOptions(options); }
    /** `{text, attachments?, newThread?, ghost?, metadata?}`; resolves with `{threadId}`
     *  when the answer has finished. */
    sendUserMessage(message) { return call(this, 'sendUserMessage', message); }
    /** Open a thread by id (`null`: a new chat); resolves once it is shown. */
    setThreadId(id) { return call(this, 'setThreadId', id ?? null); }
    focusComposer() { return call(this, 'focusComposer', null); }
    setComposerValue(text) { call(this, 'setComposerValue', String(text ?? '')); }
    showHistory() { call(this, 'showHistory', null); }
    hideHistory() { call(this, 'hideHistory', null); }
    /** Reload the open thread from the server; resolves when done. */
    fetchUpdates() { return call(this, 'fetchUpdates', null); }
  }
  customElements.define(tag, ChatShellElement);
}
"#)]
extern "C" {
    #[wasm_bindgen(js_name = defineElement)]
    fn define_element(
        tag: &str,
        observed: &js_sys::Array,
        connect: &JsValue,
        disconnect: &JsValue,
        attribute: &JsValue,
        register: &JsValue,
        call: &JsValue,
    );
}

/// One element's runtime and, while it is in the document, its mounted view.
struct Instance {
    shell: Shell,
    mounted: Option<Box<dyn std::any::Any>>,
    /// Bumped on each connect, so a pending disposal can tell the element came back.
    connections: u64,
}

thread_local! {
    static INSTANCES: RefCell<HashMap<u32, Instance>> = RefCell::new(HashMap::new());
    static SHEET: RefCell<Option<web_sys::CssStyleSheet>> = const { RefCell::new(None) };
}

/// Register `<chat-shell>` (idempotent).
pub fn register() {
    let connect = Closure::<dyn FnMut(HtmlElement, ShadowRoot)>::new(connected);
    let disconnect = Closure::<dyn FnMut(HtmlElement)>::new(disconnected);
    let attribute =
        Closure::<dyn FnMut(HtmlElement, String, Option<String>)>::new(attribute_changed);
    let register_handler = Closure::<
        dyn FnMut(HtmlElement, String, String, JsValue) -> Result<(), JsValue>,
    >::new(register_from_page);
    let call = Closure::<dyn FnMut(HtmlElement, String, JsValue) -> Result<JsValue, JsValue>>::new(
        api::call,
    );
    let observed: js_sys::Array = OBSERVED.iter().map(|a| JsValue::from_str(a)).collect();
    define_element(
        "chat-shell",
        &observed,
        connect.as_ref(),
        disconnect.as_ref(),
        attribute.as_ref(),
        register_handler.as_ref(),
        call.as_ref(),
    );
    // The element class calls these for as long as the page lives.
    connect.forget();
    disconnect.forget();
    attribute.forget();
    register_handler.forget();
    call.forget();
}

/// The key of an element in `INSTANCES`, stored on the element itself.
fn element_key(host: &HtmlElement) -> u32 {
    const PROP: &str = "__chatShellKey";
    let existing = js_sys::Reflect::get(host, &PROP.into())
        .ok()
        .and_then(|v| v.as_f64());
    if let Some(key) = existing {
        return key as u32;
    }
    thread_local!(static NEXT: std::cell::Cell<u32> = const { std::cell::Cell::new(1) });
    let key = NEXT.with(|n| {
        let k = n.get();
        n.set(k + 1);
        k
    });
    let _ = js_sys::Reflect::set(host, &PROP.into(), &JsValue::from(key));
    key
}

/// The instance of `host`, created on first use (attributes arrive before connection).
fn shell_of(host: &HtmlElement) -> Shell {
    let key = element_key(host);
    INSTANCES.with(|all| {
        let mut all = all.borrow_mut();
        all.entry(key)
            .or_insert_with(|| {
                let shell = Runtime::create(Some(host.clone()));
                Instance {
                    shell,
                    mounted: None,
                    connections: 0,
                }
            })
            .shell
    })
}

fn connected(host: HtmlElement, root: ShadowRoot) {
    let shell = shell_of(&host);
    for name in OBSERVED {
        attribute_changed(host.clone(), (*name).to_owned(), host.get_attribute(name));
    }
    adopt_stylesheet(&root);
    let Some(document) = host.owner_document() else {
        return;
    };
    let Ok(container) = document.create_element("div") else {
        return;
    };
    container.set_class_name("cs-root");
    root.set_inner_html("");
    if root.append_child(&container).is_err() {
        return;
    }
    let handle = leptos::mount::mount_to(container.unchecked_into(), move || {
        leptos::view! { <ShellRoot shell=shell /> }
    });
    let key = element_key(&host);
    let first = INSTANCES.with(|all| {
        let mut all = all.borrow_mut();
        let instance = all.get_mut(&key)?;
        instance.mounted = Some(Box::new(handle));
        instance.connections += 1;
        Some(instance.connections == 1)
    });
    if first == Some(true) {
        shell.with(|rt| rt.emit("chat.ready", &serde_json::json!({})));
    }
}

fn disconnected(host: HtmlElement) {
    let key = element_key(&host);
    let connections = INSTANCES.with(|all| {
        let mut all = all.borrow_mut();
        let instance = all.get_mut(&key)?;
        // Dropping the handle unmounts the view and cleans up its reactive scope.
        instance.mounted = None;
        Some(instance.connections)
    });
    let Some(connections) = connections else {
        return;
    };
    if let Some(root) = host.shadow_root() {
        root.set_inner_html("");
    }
    // An element moved in the page reconnects at once and keeps its conversation; one
    // that stays out of the document is disposed.
    let dispose = Closure::once_into_js(move || {
        INSTANCES.with(|all| {
            let mut all = all.borrow_mut();
            let gone = all
                .get(&key)
                .is_some_and(|i| i.mounted.is_none() && i.connections == connections);
            if gone {
                if let Some(instance) = all.remove(&key) {
                    Runtime::dispose(instance.shell);
                }
            }
        });
    });
    if let Some(window) = web_sys::window() {
        let _ = window
            .set_timeout_with_callback_and_timeout_and_arguments_0(dispose.unchecked_ref(), 0);
    }
}

fn attribute_changed(host: HtmlElement, name: String, value: Option<String>) {
    let shell = shell_of(&host);
    shell.with(|rt| match name.as_str() {
        "endpoint" => {
            use leptos::prelude::Set;
            rt.signals.endpoint.set(value.unwrap_or_default());
        }
        // A boolean attribute: present (any value but "false") means on.
        "resizable" => {
            use leptos::prelude::Set;
            rt.signals
                .resizable
                .set(value.is_some_and(|v| v != "false"));
        }
        "locale" => {
            use leptos::prelude::{GetUntracked, Set};
            let locale = value.unwrap_or_else(|| "en".to_owned());
            // Keep overrides a host set through `setOptions({strings})`.
            let overrides = js_sys::Reflect::get(&host, &"_options".into())
                .ok()
                .and_then(|o| js_sys::Reflect::get(&o, &"strings".into()).ok())
                .and_then(|s| serde_wasm_bindgen::from_value::<serde_json::Value>(s).ok())
                .unwrap_or_default();
            if rt.signals.locale.get_untracked() != locale || !overrides.is_null() {
                rt.signals.strings.set(
                    chat_shell_core::strings::Strings::new(&locale).with_overrides(&overrides),
                );
                rt.signals.locale.set(locale);
            }
        }
        "placeholder" => {
            use leptos::prelude::Set;
            rt.signals.placeholder.set(value);
        }
        "allow-attachments" => {
            use leptos::prelude::Set;
            rt.signals
                .allow_attachments
                .set(value.is_none_or(|v| v != "false"));
        }
        "persist-size" => {
            use leptos::prelude::Set;
            rt.signals.persist_size.set(value.unwrap_or_default());
        }
        "stream-timeout" => {
            let ms = value
                .and_then(|v| v.trim().parse::<f64>().ok())
                .filter(|s| *s > 0.0)
                .map_or(crate::runtime::DEFAULT_STALL_MS, |s| (s * 1000.0) as u32);
            rt.stall_ms.set(ms);
        }
        other => {
            rt.set_option(other, value.as_deref());
        }
    });
}

/// `registerClientWidget` and friends: `kind` is `widget`, `tool`, `action` or `effect`.
/// `null`/`undefined` unregisters; anything else that is not a function (or, for widgets,
/// a custom element name) is a `TypeError` thrown to the caller.
fn register_from_page(
    host: HtmlElement,
    kind: String,
    name: String,
    value: JsValue,
) -> Result<(), JsValue> {
    use crate::runtime::{ClientTool, ClientWidgetRenderer, Handler};
    if name.is_empty() {
        return Err(js_sys::TypeError::new("chat-shell: a name is required").into());
    }
    let remove = value.is_null() || value.is_undefined();
    let function = value.dyn_ref::<js_sys::Function>().cloned();
    let type_error = |what: &str| -> Result<(), JsValue> {
        Err(js_sys::TypeError::new(&format!("chat-shell: {kind} `{name}` needs {what}")).into())
    };
    let shell = shell_of(&host);
    match kind.as_str() {
        "widget" => {
            let renderer = match (&function, value.as_string()) {
                (Some(f), _) => Some(ClientWidgetRenderer::Js(f.clone())),
                (None, Some(tag)) if is_custom_element_name(&tag) => {
                    Some(ClientWidgetRenderer::Tag(tag))
                }
                _ if remove => None,
                _ => return type_error("a function or a custom element tag name"),
            };
            shell.with(|rt| rt.register_client_widget(&name, renderer));
        }
        "tool" | "action" | "effect" => {
            if function.is_none() && !remove {
                return type_error("a function");
            }
            shell.with(|rt| match kind.as_str() {
                "tool" => rt.register_client_tool(&name, function.map(ClientTool::Js)),
                "action" => rt.register_client_action(&name, function.map(Handler::Js)),
                _ => rt.register_effect(&name, function.map(Handler::Js)),
            });
        }
        _ => return type_error("a known registry"),
    }
    Ok(())
}

/// A valid custom element name: lowercase ASCII letter first, a hyphen, no uppercase.
fn is_custom_element_name(tag: &str) -> bool {
    tag.starts_with(|c: char| c.is_ascii_lowercase())
        && tag.contains('-')
        && tag
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "-._".contains(c))
}

fn adopt_stylesheet(root: &ShadowRoot) {
    if let Some(sheet) = stylesheet() {
        root.set_adopted_style_sheets(&js_sys::Array::of1(&sheet));
    }
}

/// The component's stylesheet, built once per page and shared by every instance.
pub(crate) fn stylesheet() -> Option<web_sys::CssStyleSheet> {
    SHEET.with(|s| {
        let mut s = s.borrow_mut();
        if s.is_none() {
            let sheet = web_sys::CssStyleSheet::new().ok()?;
            sheet.replace_sync(STYLESHEET).ok()?;
            *s = Some(sheet);
        }
        s.clone()
    })
}

/// Test hook: whether `host` currently has a mounted view.
pub fn is_mounted(host: &HtmlElement) -> bool {
    let key = element_key(host);
    INSTANCES.with(|all| all.borrow().get(&key).is_some_and(|i| i.mounted.is_some()))
}

/// Test hook: the endpoint the runtime of `host` will use.
pub fn endpoint_of(host: &HtmlElement) -> Option<String> {
    let key = element_key(host);
    let shell = INSTANCES.with(|all| all.borrow().get(&key).map(|i| i.shell))?;
    shell.with(|rt| leptos::prelude::GetUntracked::get_untracked(&rt.signals.endpoint))
}
