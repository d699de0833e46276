//! AG-UI conversations kept in this browser (IndexedDB, `local_threads.js`), per endpoint:
//! AG-UI has no thread list, so History lists what was said here, opens it, renames and
//! deletes it; the end of every run saves its thread. A host that keeps the threads itself
//! (`setOptions({threads: {list, load, rename?, delete?}})`) is asked instead, and nothing
//! is kept here. All of it runs in chunks (the
//! history's and the adapters'), called through `crate::chunks`.

use super::held::threads::{ThreadList, ThreadRow};
use super::Runtime;
use chat_shell_core::adapters::ag_ui::{restored, stored_messages, Conversation};
use chat_shell_core::protocol::chatkit::{Page, Thread, ThreadId};
use chat_shell_core::protocol::decode::Decode;
use chat_shell_core::reducer::Input;
use js_sys::Promise;
use leptos::prelude::{Set, Update};
use serde_json::{json, Value};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

#[wasm_bindgen(module = "/src/runtime/local_threads.js")]
extern "C" {
    #[wasm_bindgen(js_name = listThreads, catch)]
    fn list_threads(endpoint: &str) -> Result<Promise, JsValue>;
    #[wasm_bindgen(js_name = loadThread, catch)]
    fn load_thread(endpoint: &str, id: &str) -> Result<Promise, JsValue>;
    #[wasm_bindgen(js_name = saveThread, catch)]
    fn save_thread(endpoint: &str, record: &str) -> Result<Promise, JsValue>;
    #[wasm_bindgen(js_name = deleteThread, catch)]
    fn delete_thread(endpoint: &str, id: &str) -> Result<Promise, JsValue>;
    #[wasm_bindgen(js_name = renameThread, catch)]
    fn rename_thread(endpoint: &str, id: &str, title: &str) -> Result<Promise, JsValue>;
}

/// The largest record kept (bytes of JSON): a longer conversation is not saved, and says so
/// in the console (it still works until the page goes).
const MAX_RECORD: usize = 8 << 20;

/// A store call's answer as JSON, or why there is none (no IndexedDB, private mode…).
async fn settle(call: Result<Promise, JsValue>) -> Result<Value, String> {
    let why = |e: JsValue| {
        js_sys::Reflect::get(&e, &"message".into())
            .ok()
            .and_then(|m| m.as_string())
            .unwrap_or_else(|| "this browser keeps no conversations".into())
    };
    let answer = JsFuture::from(call.map_err(why)?).await.map_err(why)?;
    serde_wasm_bindgen::from_value(answer).map_err(|e| e.to_string())
}

fn text(value: &Value, key: &str) -> String {
    value[key].as_str().unwrap_or_default().to_owned()
}

impl Runtime {
    fn endpoint(&self) -> String {
        self.options(|o| o.endpoint.clone())
    }

    /// A call of the host's thread list (`threads.<name>(args…)`, its answer as a promise)
    /// when the host gave one; `Some(Err)` when it lacks that function.
    fn host_call(&self, name: &str, args: &[JsValue]) -> Option<Result<Promise, JsValue>> {
        let host = self.ag_ui.host_threads.borrow().clone()?;
        let function = js_sys::Reflect::get(&host, &name.into())
            .ok()
            .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
        let Some(function) = function else {
            return Some(Err(js_sys::Error::new(&format!(
                "threads.{name} is not given"
            ))
            .into()));
        };
        let args: js_sys::Array = args.iter().collect();
        Some(
            function
                .apply(&host, &args)
                .map(|answer| Promise::resolve(&answer)),
        )
    }

    /// History's list: the threads kept here, newest first, all at once.
    pub(crate) async fn list_local_threads(self: Rc<Self>, token: u64) {
        let call = self
            .host_call("list", &[])
            .unwrap_or_else(|| list_threads(&self.endpoint()));
        let listed = settle(call).await;
        if self.threads.list_token.get() != token {
            return;
        }
        let untitled =
            self.with_strings(|s| s.get(chat_shell_core::strings::Text::Untitled).to_owned());
        self.signals.history.list.update(|l| {
            *l = ThreadList {
                loaded: true,
                ..ThreadList::default()
            };
            match listed {
                Ok(Value::Array(threads)) => {
                    l.rows = threads
                        .iter()
                        .map(|t| {
                            let title = text(t, "title");
                            ThreadRow {
                                id: ThreadId(text(t, "id")),
                                titled: !title.trim().is_empty(),
                                label: if title.trim().is_empty() {
                                    untitled.clone()
                                } else {
                                    title
                                },
                                created_at: text(t, "createdAt"),
                            }
                        })
                        .collect()
                }
                Ok(_) => {}
                Err(why) => l.error = Some(why),
            }
        });
    }

    /// Open a thread kept here: its items, and its conversation's facts for the next run.
    pub(crate) async fn open_local_thread(
        self: Rc<Self>,
        id: ThreadId,
        token: u64,
    ) -> Result<(), String> {
        let call = self
            .host_call("load", &[JsValue::from_str(&id.0)])
            .unwrap_or_else(|| load_thread(&self.endpoint(), &id.0));
        let record = settle(call).await?;
        if self.threads.load_token.get() != token {
            return Ok(());
        }
        self.signals.history.opening.set(None);
        if record.is_null() {
            return Err("this conversation is no longer kept in this browser".into());
        }
        let items = restored(
            record["messages"]
                .as_array()
                .map(Vec::as_slice)
                .unwrap_or_default(),
        );
        // A host's record may give only `state` beside its messages.
        let mut conversation = Conversation::decode(&record["conversation"])
            .unwrap_or_else(|_| Conversation::new(id.0.clone()));
        conversation.thread_id = id.0.clone();
        if conversation.state.is_null() || !record["state"].is_null() {
            conversation.state = record["state"].clone();
        }
        let thread = Thread {
            branching: true,
            id,
            title: record["title"].as_str().map(str::to_owned),
            created_at: text(&record, "createdAt"),
            status: Default::default(),
            metadata: Default::default(),
            items: None,
        };
        let state = conversation.state.clone();
        *self.ag_ui.conversation.borrow_mut() = Some(conversation);
        self.dispatch(Input::ThreadLoaded {
            thread,
            items: Page {
                data: items,
                has_more: false,
                after: None,
            },
        });
        if !state.is_null() && state != json!({}) {
            self.dispatch(Input::AgentState(state));
        }
        self.mark_ag_ui_branches();
        Ok(())
    }

    /// Keep the open thread as it is now (after a run).
    pub(crate) fn save_local_thread(self: &Rc<Self>) {
        // A host that lists the threads keeps them.
        if self.ag_ui.host_threads.borrow().is_some() {
            return;
        }
        let Some(conversation) = self.ag_ui.conversation.borrow().clone() else {
            return;
        };
        let record = self.with_state(|s| {
            let thread = s.thread.as_ref()?;
            (thread.id.0 == conversation.thread_id).then(|| {
                let now = js_sys::Date::new_0().to_iso_string().as_string();
                json!({
                    "id": conversation.thread_id,
                    "title": thread.title,
                    "createdAt": thread.created_at,
                    "updatedAt": now,
                    "messages": stored_messages(s, &conversation),
                    "conversation": conversation,
                })
            })
        });
        let Some(record) = record else {
            return;
        };
        // Written once, as JSON: measured here, read back by the store.
        let record = record.to_string();
        if record.len() > MAX_RECORD {
            web_sys::console::warn_1(
                &"chat-shell: this conversation is too long to keep in this browser".into(),
            );
            return;
        }
        let endpoint = self.endpoint();
        wasm_bindgen_futures::spawn_local(async move {
            if let Err(why) = settle(save_thread(&endpoint, &record)).await {
                web_sys::console::warn_1(
                    &format!("chat-shell: the conversation was not kept: {why}").into(),
                );
            }
        });
    }

    pub(crate) async fn rename_local_thread(&self, id: &ThreadId, title: &str) -> bool {
        let call = self
            .host_call(
                "rename",
                &[JsValue::from_str(&id.0), JsValue::from_str(title)],
            )
            .unwrap_or_else(|| rename_thread(&self.endpoint(), &id.0, title));
        matches!(settle(call).await, Ok(Value::Bool(true)))
    }

    pub(crate) async fn delete_local_thread(&self, id: &ThreadId) -> bool {
        let call = self
            .host_call("delete", &[JsValue::from_str(&id.0)])
            .unwrap_or_else(|| delete_thread(&self.endpoint(), &id.0));
        settle(call).await.is_ok()
    }
}
