//! The `<chat-shell>` custom element: a small JS class whose lifecycle callbacks call
//! into Rust, which mounts the Leptos views into the element's open shadow root.

mod api;
mod registration;

use crate::runtime::{Runtime, Shell};
use crate::ui::ShellRoot;
use chat_shell_core::host_events::ChatEvent;
use chat_shell_core::options::{Setting, ATTRIBUTES};
use std::cell::RefCell;
use std::collections::HashMap;
use wasm_bindgen::prelude::*;
use web_sys::{HtmlElement, ShadowRoot};

#[wasm_bindgen(inline_js = r#"
// An element the page dropped and the garbage collector took: its runtime goes too.
let forgetting = null;
// Every element not collected yet (in the document or not), told when the module fails.
const elements = new Map();
export function watchElement(element, key) {
  elements.set(key, new WeakRef(element));
  forgetting?.register(element, key);
}
// A panic (the module is broken from here on): one line, and `chat.error` on each
// element once the failed call is over (a listener may call the element again).
export function reportPanic(message) {
  console.error(`chat-shell: internal error: ${message}`);
  const detail = { kind: 'panic', message };
  queueMicrotask(() => {
    for (const element of elements.values()) {
      element.deref()?.dispatchEvent(new CustomEvent('chat.error', { bubbles: true, composed: true, detail }));
    }
  });
}
// The early frame under `root` (the element's shadow root, or a hydrated `ChatShell`'s host,
// src/component/live.rs): what was typed in it. The frame goes.
export function takeEarly(root) {
  const frame = [...root.children].find((child) => child.hasAttribute('data-early'));
  if (!frame) return null;
  const t = frame.querySelector('textarea');
  const taken = {
    value: t.value, start: t.selectionStart, end: t.selectionEnd, direction: t.selectionDirection,
    focused: (root.activeElement ?? root.ownerDocument.activeElement) === t,
    send: frame.dataset.send === 'true',
  };
  frame.remove();
  return taken;
}
// ...given to the live composer, and sent if Enter was pressed meanwhile.
export function giveEarly(root, taken) {
  const t = root.querySelector('textarea.cs-composer__input');
  if (!t) return;
  if (taken.value) {
    t.value = taken.value;
    t.dispatchEvent(new Event('input', { bubbles: true }));
  }
  const select = () => t.setSelectionRange(taken.start, taken.end, taken.direction);
  select();
  if (taken.focused) t.focus();
  // The element writes the draft back once its effects run, which puts the caret at the
  // end: the selection goes back where it was, unless the text changed since.
  setTimeout(() => t.value === taken.value && select());
  if (taken.send) t.form?.requestSubmit();
}
export function defineElement(tag, observed, connect, disconnect, attribute, register, call, forget) {
  if (customElements.get(tag)) return;
  forgetting = new FinalizationRegistry((key) => { elements.delete(key); forget(key); });
  class ChatShellElement extends HTMLElement {
    static get observedAttributes() { return observed; }
    // The shadow root may hold the frame src/chat-shell.js drew before the module came.
    constructor() { super(); if (!this.shadowRoot) this.attachShadow({ mode: 'open' }); }
    connectedCallback() {
      const taken = takeEarly(this.shadowRoot);
      connect(this, this.shadowRoot);
      if (taken) giveEarly(this.shadowRoot, taken);
    }
    disconnectedCallback() { disconnect(this); }
    attributeChangedCallback(name, oldValue, value) {
      if (oldValue !== value) attribute(this, name, value);
    }
    /** Render `client_widget` items named `name`: `(args, context) => Node`, or the tag
     *  name of a custom element that receives `args` and `context` as properties. */
    registerClientWidget(name, fnOrTagName) { register(this, 'widget', name, fnOrTagName); }
    /** Run `client_tool_call`s named `name`: `async (args, context) => result`. With
     *  `{description, parameters}` (AG-UI) the tool is declared to the agent too. */
    registerClientTool(name, fn, declaration) {
      register(this, 'tool', name, fn && declaration ? { ...declaration, handler: fn } : fn);
    }
    /** Handle widget actions of type `type` whose handler is "client": `(action, context)`. */
    registerClientAction(type, fn) { register(this, 'action', type, fn); }
    /** Handle `client_effect`s named `name`: `(data, name)`. */
    registerEffect(name, fn) { register(this, 'effect', name, fn); }
    /** Merge `options` into the current ones (see the README for the keys). The runtime
     *  keeps the only copy; a call with a wrong value throws and changes nothing. */
    setOptions(options) { call(this, 'setOptions', options); }
    get options() { return call(this, 'getOptions', null); }
    /** The agent's shared state (AG-UI), or `null` before it sends one. */
    get agentState() { return call(this, 'getAgentState', null); }
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
    /** The conversation shown, `{format: "markdown" | "json"}`: resolves with its text. */
    exportConversation(options) { return call(this, 'exportConversation', options ?? {}); }
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
        forget: &JsValue,
    );
    #[wasm_bindgen(js_name = watchElement)]
    fn watch_element(element: &HtmlElement, key: u32);
    #[wasm_bindgen(js_name = reportPanic)]
    fn report_panic(message: &str);
    /// What was typed in the early frame under `root` (`null`: none), which is removed.
    #[cfg(feature = "hydrate")]
    #[wasm_bindgen(js_name = takeEarly)]
    pub(crate) fn take_early(root: &web_sys::Node) -> JsValue;
    /// Gives what `take_early` took to the live composer under `root`.
    #[cfg(feature = "hydrate")]
    #[wasm_bindgen(js_name = giveEarly)]
    pub(crate) fn give_early(root: &web_sys::Node, taken: &JsValue);
}

/// One element's runtime and, while it is in the document, its mounted view. The runtime
/// (options, registries, conversation) lives as long as the element object does, in or
/// out of the document.
struct Instance {
    shell: Shell,
    mounted: Option<Box<dyn std::any::Any>>,
    /// Bumped on each connect, so a pending disposal can tell the element came back.
    connections: u64,
}

thread_local! {
    static INSTANCES: RefCell<HashMap<u32, Instance>> = RefCell::new(HashMap::new());
}

/// Register `<chat-shell>` (idempotent).
pub fn register() {
    // A panic traps: the page sees only `RuntimeError: unreachable`, so say what failed
    // first (the release build keeps panic messages for this).
    std::panic::set_hook(Box::new(|info| {
        report_panic(info.payload_as_str().unwrap_or("a panic"));
    }));
    let connect = Closure::<dyn FnMut(HtmlElement, ShadowRoot)>::new(connected);
    let disconnect = Closure::<dyn FnMut(HtmlElement)>::new(disconnected);
    let attribute =
        Closure::<dyn FnMut(HtmlElement, String, Option<String>)>::new(attribute_changed);
    let register_handler = Closure::<
        dyn FnMut(HtmlElement, String, String, JsValue) -> Result<(), JsValue>,
    >::new(register_from_page);
    let call = Closure::<dyn FnMut(HtmlElement, String, JsValue) -> Result<JsValue, JsValue>>::new(
        |host: HtmlElement, method, arg| api::call(shell_of(&host), host, method, arg),
    );
    let forget = Closure::<dyn FnMut(u32)>::new(forget);
    let observed: js_sys::Array = ATTRIBUTES.iter().map(|a| JsValue::from_str(a)).collect();
    define_element(
        "chat-shell",
        &observed,
        connect.as_ref(),
        disconnect.as_ref(),
        attribute.as_ref(),
        register_handler.as_ref(),
        call.as_ref(),
        forget.as_ref(),
    );
    // The element class calls these for as long as the page lives.
    connect.forget();
    disconnect.forget();
    attribute.forget();
    register_handler.forget();
    call.forget();
    forget.forget();
}

/// The element of `key` was garbage-collected.
fn forget(key: u32) {
    if let Some(instance) = INSTANCES.with(|all| all.borrow_mut().remove(&key)) {
        Runtime::dispose(instance.shell);
    }
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
    watch_element(host, key);
    key
}

/// The instance of `host`, created on first use (attributes arrive before connection).
fn shell_of(host: &HtmlElement) -> Shell {
    let key = element_key(host);
    INSTANCES.with(|all| {
        let mut all = all.borrow_mut();
        all.entry(key)
            .or_insert_with(|| {
                let shell = Runtime::create(None);
                Instance {
                    shell,
                    mounted: None,
                    connections: 0,
                }
            })
            .shell
    })
}

// Attributes need no replay here: the browser reports each one present before the first
// connect, and the runtime keeps every option across moves and detaches.
fn connected(host: HtmlElement, root: ShadowRoot) {
    let shell = shell_of(&host);
    shell.with(|rt| rt.set_host(Some(host.clone())));
    crate::stylesheet::adopt(&root);
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
    shell.with(|rt| {
        rt.resume_channel();
        if first == Some(true) {
            rt.emit(&ChatEvent::Ready);
        }
    });
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
    // An element moved in the page reconnects at once and keeps everything. One that
    // stays out of the document stops what is in flight, closes its thread channel and
    // lets go of the element, so the page can drop it (see `forget`); its options and
    // conversation wait for a reconnect.
    let shell = INSTANCES.with(|all| all.borrow().get(&key).map(|i| i.shell));
    let detached = Closure::once_into_js(move || {
        let still_out = INSTANCES.with(|all| {
            all.borrow()
                .get(&key)
                .is_some_and(|i| i.mounted.is_none() && i.connections == connections)
        });
        if still_out {
            if let Some(shell) = shell {
                shell.with(|rt| {
                    rt.stop();
                    rt.pause_channel();
                    rt.set_host(None);
                });
            }
        }
    });
    if let Some(window) = web_sys::window() {
        let _ = window
            .set_timeout_with_callback_and_timeout_and_arguments_0(detached.unchecked_ref(), 0);
    }
}

fn attribute_changed(host: HtmlElement, name: String, value: Option<String>) {
    let Some((setting, warning)) = Setting::from_attribute(&name, value.as_deref()) else {
        return;
    };
    if let Some(warning) = warning {
        web_sys::console::warn_1(&format!("chat-shell: {warning}").into());
    }
    shell_of(&host).with(|rt| rt.apply_settings([setting]));
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
    let registration = registration::check(&kind, name, &value)?;
    shell_of(&host).with(|rt| registration.apply(rt));
    Ok(())
}

/// Test hook and Rust access: the shell of an element.
pub fn shell_of_element(host: &HtmlElement) -> Shell {
    shell_of(host)
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
    shell.with(|rt| rt.options(|o| o.endpoint.clone()))
}
