//! What the user asks for (send, retry, stop, new chat, feedback), turned into reducer
//! inputs and requests.

use super::Runtime;
use crate::protocol::{FeedbackKind, ItemId, ItemKind, RequestBody, UserMessageInput};
use crate::reducer::{Input, OutgoingMessage};
use crate::transport;
use leptos::prelude::*;
use std::rc::Rc;
use web_sys::AbortController;

impl Runtime {
    /// Send what the user typed. Returns false if nothing was sent.
    pub fn send_message(self: &Rc<Self>, text: String, ghost: bool) -> bool {
        if text.trim().is_empty() || self.is_streaming() {
            return false;
        }
        let input = UserMessageInput::text(text.clone(), Vec::new());
        let body = match self.state.borrow().thread_id().cloned() {
            Some(thread_id) => RequestBody::AddUserMessage { thread_id, input },
            None => RequestBody::ThreadsCreate { input },
        };
        self.apply(Input::SendStarted(OutgoingMessage {
            text,
            attachments: Vec::new(),
            ghost,
        }));
        self.start_stream(body);
        true
    }

    /// Retry the failed answer.
    pub fn retry(self: &Rc<Self>) {
        let (thread_id, item_id) = {
            let state = self.state.borrow();
            let Some(thread_id) = state.thread_id().cloned() else {
                return;
            };
            let Some(item_id) = state.error.as_ref().and_then(|e| e.retry_after.clone()) else {
                return;
            };
            (thread_id, item_id)
        };
        self.apply(Input::RetryStarted {
            user_message: item_id.clone(),
        });
        self.start_stream(RequestBody::RetryAfterItem { thread_id, item_id });
    }

    /// Retry the answer `item_id` belongs to: everything after the user message before it
    /// is dropped and answered again.
    pub fn retry_item(self: &Rc<Self>, item_id: &ItemId) {
        if self.is_streaming() {
            return;
        }
        let (thread_id, user_message) = {
            let state = self.state.borrow();
            let Some(thread_id) = state.thread_id().cloned() else {
                return;
            };
            let items = state.items();
            let Some(at) = items.iter().position(|i| &i.item.id == item_id) else {
                return;
            };
            let Some(user) = items[..at]
                .iter()
                .rev()
                .find(|i| matches!(i.item.kind, ItemKind::UserMessage(_)))
            else {
                return;
            };
            (thread_id, user.item.id.clone())
        };
        self.apply(Input::RetryStarted {
            user_message: user_message.clone(),
        });
        self.start_stream(RequestBody::RetryAfterItem {
            thread_id,
            item_id: user_message,
        });
    }

    /// Send Good/Bad response feedback for an item. Resolves to whether the server took it.
    pub async fn feedback(self: Rc<Self>, item_id: ItemId, kind: FeedbackKind) -> bool {
        let Some(thread_id) = self.state.borrow().thread_id().cloned() else {
            return false;
        };
        let request = self.envelope(RequestBody::Feedback {
            thread_id,
            item_ids: vec![item_id],
            kind,
        });
        let endpoint = self.signals.endpoint.get_untracked();
        let Ok(abort) = AbortController::new() else {
            return false;
        };
        let result =
            transport::post_json::<serde_json::Value>(&endpoint, &request, &[], &abort.signal())
                .await;
        if let Err(e) = &result {
            self.emit(
                "chat.error",
                &serde_json::json!({ "kind": "feedback", "message": e.user_message() }),
            );
        }
        result.is_ok()
    }

    /// Stop the answer: close the connection, keep what arrived.
    pub fn stop(self: &Rc<Self>) {
        if !self.is_streaming() {
            return;
        }
        self.abort_in_flight();
        self.apply(Input::Cancelled);
    }

    /// Start a new, empty conversation.
    pub fn new_chat(self: &Rc<Self>) {
        self.abort_in_flight();
        self.apply(Input::Reset);
    }

    pub fn dismiss_notice(self: &Rc<Self>, id: u64) {
        self.apply(Input::NoticeDismissed(id));
    }
}
