//! Where an `@` finds what it can mention: the host's `entities.onTagSearch(query)`
//! (chatkit-js's option), or else, where the runtime says it can (`file_mentions` in the
//! agent session's state), the agent's workspace files (`acp.files.search`). Its code comes
//! with the channel's (`crate::chunks::runtime::mention_search`).

use super::{transport, Runtime};
use chat_shell_core::mentions::{entities, Entity};
use leptos::prelude::*;
use serde_json::json;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// The most files the runtime is asked for.
const FILE_LIMIT: u32 = 20;

impl Runtime {
    /// Whether an `@` can search anything here.
    pub(crate) fn can_mention(&self) -> bool {
        self.tag_search.borrow().is_some()
            || self
                .signals
                .session
                .state
                .with_untracked(|s| s.as_ref().is_some_and(|s| s.file_mentions))
    }

    /// The entities `query` finds, or why there are none (a message for the list).
    pub(crate) async fn search_mentions(
        self: Rc<Self>,
        query: String,
    ) -> Result<Vec<Entity>, String> {
        let host = self.tag_search.borrow().clone();
        let answer = match host {
            Some(search) => {
                let out = search
                    .call1(&wasm_bindgen::JsValue::NULL, &query.as_str().into())
                    .map_err(|_| "the search failed".to_owned())?;
                let out = match out.dyn_into::<js_sys::Promise>() {
                    Ok(promise) => JsFuture::from(promise)
                        .await
                        .map_err(|_| "the search failed".to_owned())?,
                    Err(value) => value,
                };
                serde_wasm_bindgen::from_value::<serde_json::Value>(out)
                    .map_err(|_| "the search answered something unreadable".to_owned())?
            }
            None => {
                let thread_id = self.state.borrow().thread_id().cloned();
                let request = json!({
                    "type": "acp.files.search",
                    "params": {"thread_id": thread_id, "query": query, "limit": FILE_LIMIT},
                });
                let body = self.envelope_of(&request);
                let http = self.http().await.map_err(|e| e.user_message())?;
                let abort = web_sys::AbortController::new()
                    .map_err(|_| "this browser cannot send requests".to_owned())?;
                transport::post_json(&http, &body, &abort.signal())
                    .await
                    .map_err(|e| e.user_message())?
            }
        };
        Ok(entities(&answer))
    }
}
