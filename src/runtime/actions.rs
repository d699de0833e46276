//! Widget actions and the page's client-side handlers: custom actions (streamed or
//! `threads.sync_custom_action`), client action handlers, client tools, `client_effect`
//! handlers and client widgets, registered by name from JavaScript (functions, or a
//! custom element tag for widgets) or from Rust.

use super::held::actions::{ActionDone, ClientTool, ClientWidgetRenderer, Handler};
use super::transport;
use super::Runtime;
use chat_shell_core::host_events::{ChatError, ChatEvent, ErrorKind};
use chat_shell_core::model::EntryKind;
use chat_shell_core::protocol::chatkit::{
    Action, ClientToolStatus, ItemId, RequestBody, SyncCustomActionResponse, ThreadId,
};
use chat_shell_core::protocol::JsonMap;
use chat_shell_core::reducer::Input;
use chat_shell_core::widgets::form::{route, Route};
use leptos::prelude::*;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::AbortController;

impl Runtime {
    // ---- registries -----------------------------------------------------------------

    pub fn register_client_widget(&self, name: &str, renderer: Option<ClientWidgetRenderer>) {
        let mut widgets = self.registry.widgets.borrow_mut();
        match renderer {
            Some(r) => widgets.insert(name.to_owned(), r),
            None => widgets.remove(name),
        };
        drop(widgets);
        self.client_widgets_rev().update(|r| *r += 1);
    }

    /// Unregister every entry the page gave one registry (`kind`: `widget`, `tool`,
    /// `action` or `effect`); Rust entries stay.
    pub fn clear_js_registry(&self, kind: &str) {
        match kind {
            "widget" => {
                let mut widgets = self.registry.widgets.borrow_mut();
                widgets.retain(|_, w| matches!(w, ClientWidgetRenderer::Rust(_)));
                drop(widgets);
                self.client_widgets_rev().update(|r| *r += 1);
            }
            "tool" => self
                .registry
                .tools
                .borrow_mut()
                .retain(|_, t| matches!(t, ClientTool::Rust(_))),
            "action" => self
                .registry
                .actions
                .borrow_mut()
                .retain(|_, h| matches!(h, Handler::Rust(_))),
            _ => self
                .registry
                .effects
                .borrow_mut()
                .retain(|_, h| matches!(h, Handler::Rust(_))),
        }
    }

    /// The page's registries as the `options` property shows them: option name → an
    /// object of name → function (or tag name).
    pub fn js_registries(&self) -> Vec<(&'static str, js_sys::Object)> {
        let object = |entries: Vec<(String, JsValue)>| {
            let object = js_sys::Object::new();
            for (name, value) in entries {
                let _ = js_sys::Reflect::set(&object, &name.into(), &value);
            }
            object
        };
        let handlers = |map: &HashMap<String, Handler>| {
            map.iter()
                .filter_map(|(n, h)| match h {
                    Handler::Js(f) => Some((n.clone(), JsValue::from(f))),
                    Handler::Rust(_) => None,
                })
                .collect::<Vec<_>>()
        };
        let widgets = self
            .registry
            .widgets
            .borrow()
            .iter()
            .filter_map(|(n, w)| match w {
                ClientWidgetRenderer::Js(f) => Some((n.clone(), JsValue::from(f))),
                ClientWidgetRenderer::Tag(t) => Some((n.clone(), JsValue::from_str(t))),
                ClientWidgetRenderer::Rust(_) => None,
            })
            .collect();
        let tools = self
            .registry
            .tools
            .borrow()
            .iter()
            .filter_map(|(n, t)| match t {
                ClientTool::Js(f) => Some((n.clone(), JsValue::from(f))),
                ClientTool::Rust(_) => None,
            })
            .collect();
        vec![
            ("clientWidgets", object(widgets)),
            ("clientTools", object(tools)),
            (
                "clientActions",
                object(handlers(&self.registry.actions.borrow())),
            ),
            ("effects", object(handlers(&self.registry.effects.borrow()))),
        ]
    }

    pub fn register_client_tool(&self, name: &str, tool: Option<ClientTool>) {
        let mut tools = self.registry.tools.borrow_mut();
        match tool {
            Some(t) => tools.insert(name.to_owned(), t),
            None => tools.remove(name),
        };
    }

    pub fn register_client_action(&self, kind: &str, handler: Option<Handler>) {
        let mut actions = self.registry.actions.borrow_mut();
        match handler {
            Some(h) => actions.insert(kind.to_owned(), h),
            None => actions.remove(kind),
        };
    }

    pub fn register_effect(&self, name: &str, handler: Option<Handler>) {
        let mut effects = self.registry.effects.borrow_mut();
        match handler {
            Some(h) => effects.insert(name.to_owned(), h),
            None => effects.remove(name),
        };
    }

    /// The renderer registered for a client widget name.
    pub fn client_widget(&self, name: &str) -> Option<ClientWidgetRenderer> {
        self.registry.widgets.borrow().get(name).cloned()
    }

    /// Ticks whenever the client widget registry changes.
    pub fn client_widgets_rev(&self) -> RwSignal<u64> {
        if let Some(rev) = self.registry.widgets_rev.get() {
            return rev;
        }
        let rev = self.owner.with(|| RwSignal::new(0));
        self.registry.widgets_rev.set(Some(rev));
        rev
    }

    // ---- actions --------------------------------------------------------------------

    /// Run a widget action from item `item_id`: a client handler (`handler: "client"`),
    /// `threads.sync_custom_action` (`streaming: false`) or a streamed
    /// `threads.custom_action`. `done(ok)` is called when it is over (the streamed
    /// answer ended, the JSON arrived, the client handler settled). Returns false, without
    /// calling `done`, when the action cannot run now (an answer is streaming, no thread).
    pub fn send_action(
        self: &Rc<Self>,
        item_id: Option<ItemId>,
        action: Action,
        done: ActionDone,
    ) -> bool {
        match route(&action) {
            Route::Client => {
                self.client_action(item_id, action, done);
                true
            }
            Route::ServerSync => self.sync_action(item_id, action, done),
            Route::ServerStream => {
                self.start_widget_turn(done, |thread_id| RequestBody::CustomAction {
                    thread_id,
                    item_id,
                    action,
                })
            }
        }
    }

    /// Answer a structured input (`answers` by question id); streamed like an action.
    pub fn answer_structured_input(
        self: &Rc<Self>,
        item_id: ItemId,
        answers: JsonMap,
        done: ActionDone,
    ) -> bool {
        let action_id = self
            .with_item(&item_id, |i| match &i.entry.kind {
                EntryKind::StructuredInput(s) => s.action_id.clone(),
                _ => None,
            })
            .flatten();
        if let Some(action_id) = action_id {
            // Agent UI: the answers go back as the action's answer; the run goes on in
            // its stream, and the input shows answered once the runtime confirms them.
            if self.is_streaming() {
                return false;
            }
            self.dispatch(Input::TurnStarted);
            self.registry.waiting.borrow_mut().push(done);
            let write = chat_shell_core::protocol::agent_ui::answers_metadata(&action_id, &answers);
            self.start_agent_ui(None, Some(write));
            return true;
        }
        self.start_widget_turn(done, |thread_id| RequestBody::AddStructuredInput {
            thread_id,
            item_id,
            answers,
        })
    }

    /// Stream the answer to something a widget sent, in the open thread; refused (false)
    /// with no thread or while another answer streams. `done` runs when it ends.
    fn start_widget_turn(
        self: &Rc<Self>,
        done: ActionDone,
        body: impl FnOnce(ThreadId) -> RequestBody,
    ) -> bool {
        let Some(thread_id) = self.state.borrow().thread_id().cloned() else {
            return false;
        };
        if self.is_streaming() {
            return false;
        }
        self.dispatch(Input::TurnStarted);
        self.registry.waiting.borrow_mut().push(done);
        self.start_stream(body(thread_id));
        true
    }

    /// Called after every input: once no answer is streaming, the actions that started
    /// one learn whether it ended well.
    pub(crate) fn settle_actions(&self) {
        if self.is_streaming() || self.registry.waiting.borrow().is_empty() {
            return;
        }
        let ok = self.state.borrow().error.is_none();
        let waiting = std::mem::take(&mut *self.registry.waiting.borrow_mut());
        for done in waiting {
            done(ok);
        }
    }

    fn client_action(self: &Rc<Self>, item_id: Option<ItemId>, action: Action, done: ActionDone) {
        let action_json = serde_json::to_value(&action).unwrap_or(Value::Null);
        let context = json!({ "itemId": item_id });
        self.emit(&ChatEvent::Action {
            action: action_json.clone(),
            item_id: item_id.clone(),
        });
        let handler = self.registry.actions.borrow().get(&action.kind).cloned();
        match handler {
            Some(Handler::Js(f)) => {
                match f.call2(&JsValue::NULL, &to_js(&action_json), &to_js(&context)) {
                    Ok(returned) => {
                        wasm_bindgen_futures::spawn_local(async move {
                            let settled = JsFuture::from(js_sys::Promise::resolve(&returned)).await;
                            if let Err(e) = &settled {
                                warn(&format!(
                                    "client action `{}` failed: {}",
                                    action.kind,
                                    error_text(e)
                                ));
                            }
                            done(settled.is_ok());
                        });
                    }
                    Err(e) => {
                        warn(&format!(
                            "client action `{}` failed: {}",
                            action.kind,
                            error_text(&e)
                        ));
                        done(false);
                    }
                }
            }
            Some(Handler::Rust(f)) => {
                f(&action_json, &context);
                done(true);
            }
            None => done(true),
        }
    }

    fn sync_action(
        self: &Rc<Self>,
        item_id: Option<ItemId>,
        action: Action,
        done: ActionDone,
    ) -> bool {
        let Some(thread_id) = self.state.borrow().thread_id().cloned() else {
            return false;
        };
        let Ok(abort) = AbortController::new() else {
            return false;
        };
        let request = self.envelope(RequestBody::SyncCustomAction {
            thread_id: thread_id.clone(),
            item_id,
            action,
        });
        let this = Rc::clone(self);
        wasm_bindgen_futures::spawn_local(async move {
            let answer = match this.http().await {
                Ok(http) => match transport::post_json(&http, &request, &abort.signal()).await {
                    Ok(value) => {
                        crate::chunks::runtime::answer::<SyncCustomActionResponse>(value).await
                    }
                    Err(e) => Err(e),
                },
                Err(e) => Err(e),
            };
            match answer {
                Ok(answer) => {
                    // Only into the thread it came from: the user may have moved on.
                    let same_thread = this.state.borrow().thread_id() == Some(&thread_id);
                    if let (true, Some(item)) = (same_thread, answer.updated_item) {
                        this.dispatch(chat_shell_core::adapters::chatkit::item_synced(item));
                    }
                    done(true);
                }
                Err(e) => {
                    this.emit(&ChatEvent::Error(ChatError::new(
                        ErrorKind::Action,
                        e.user_message(),
                    )));
                    done(false);
                }
            }
        });
        true
    }

    // ---- client effects and tools -----------------------------------------------------

    /// A `client_effect`: handed to the handler registered under its name (the page also
    /// gets the `chat.effect` event the reducer emits with it). Never stored.
    pub(crate) fn run_effect(&self, name: &str, data: &JsonMap) {
        let handler = self.registry.effects.borrow().get(name).cloned();
        let data = Value::Object(data.clone());
        match handler {
            Some(Handler::Js(f)) => {
                if let Err(e) = f.call2(&JsValue::NULL, &to_js(&data), &JsValue::from_str(name)) {
                    warn(&format!(
                        "effect handler `{name}` failed: {}",
                        error_text(&e)
                    ));
                }
            }
            Some(Handler::Rust(f)) => f(&data, &Value::String(name.to_owned())),
            None => {}
        }
    }

    /// Run the client tool `name` with `arguments`: its result, or why there is none.
    pub(crate) async fn call_client_tool(
        &self,
        item_id: &ItemId,
        name: &str,
        arguments: Value,
    ) -> Result<Value, String> {
        let tool = self.registry.tools.borrow().get(name).cloned();
        match tool {
            None => Err(format!(
                "No client tool named `{name}` is registered in this page."
            )),
            Some(ClientTool::Rust(f)) => f(arguments).await,
            Some(ClientTool::Js(f)) => {
                let context = json!({ "itemId": item_id, "name": name });
                let returned = f
                    .call2(&JsValue::NULL, &to_js(&arguments), &to_js(&context))
                    .map_err(|e| error_text(&e))?;
                let value = JsFuture::from(js_sys::Promise::resolve(&returned))
                    .await
                    .map_err(|e| error_text(&e))?;
                from_js(&value)
            }
        }
    }

    /// Show a client tool call as finished with `output` (no event from the server says
    /// so: the SDK marks it completed when the output arrives), if it is still shown.
    pub(crate) fn complete_tool_call(&self, item_id: &ItemId, output: Value) {
        let item = self.state.borrow().item(item_id).map(|i| i.entry.clone());
        let Some(mut item) = item else { return };
        if let EntryKind::ClientToolCall(call) = &mut item.kind {
            call.status = ClientToolStatus::Completed;
            call.output = Some(output);
            self.dispatch(Input::ItemSynced(item));
        }
    }

    /// The arguments of a client tool call item.
    pub(crate) fn tool_arguments(&self, item_id: &ItemId) -> Value {
        self.with_item(item_id, |i| match &i.entry.kind {
            EntryKind::ClientToolCall(c) => c.arguments.clone(),
            _ => Value::Null,
        })
        .unwrap_or(Value::Null)
    }
}

/// A JSON value as a plain JS value (objects, not Maps).
pub fn to_js(value: &Value) -> JsValue {
    use serde::Serialize as _;
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .unwrap_or(JsValue::NULL)
}

/// A JS value as JSON, the way `JSON.stringify` sees it (`undefined` is `null`).
pub fn from_js(value: &JsValue) -> Result<Value, String> {
    if value.is_undefined() {
        return Ok(Value::Null);
    }
    let text = js_sys::JSON::stringify(value)
        .map_err(|e| format!("the result is not JSON: {}", error_text(&e)))?;
    match text.as_string() {
        Some(t) => serde_json::from_str(&t).map_err(|e| e.to_string()),
        None => Ok(Value::Null),
    }
}

/// The message of a thrown JS value.
pub fn error_text(e: &JsValue) -> String {
    js_sys::Reflect::get(e, &"message".into())
        .ok()
        .and_then(|m| m.as_string())
        .or_else(|| e.as_string())
        .unwrap_or_else(|| "unknown error".into())
}

fn warn(message: &str) {
    web_sys::console::warn_1(&format!("chat-shell: {message}").into());
}
