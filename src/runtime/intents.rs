//! What the user asks for (send, retry, stop, new chat, feedback), turned into reducer
//! inputs and requests.

use super::transport;
use super::Runtime;
use chat_shell_core::composer_choice::inference_options;
use chat_shell_core::host_events::{ChatError, ChatEvent, ErrorKind};
use chat_shell_core::model::EntryKind;
use chat_shell_core::options::{merge_metadata, Protocol};
use chat_shell_core::protocol::chatkit::{
    Attachment, FeedbackKind, ItemId, RequestBody, ThreadId, UserMessageInput,
};
use chat_shell_core::protocol::JsonMap;
use chat_shell_core::reducer::{Input, OutgoingMessage, GHOST_OPTION};
use leptos::prelude::*;
use serde_json::Value;
use std::rc::Rc;
use web_sys::AbortController;

/// How a message is sent, beyond its text.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SendOptions {
    /// Sent to the server but never shown, now or after a reload. The mark travels in the
    /// message's `inference_options` (`{"ghost": true}`), which servers store with it.
    pub ghost: bool,
    /// This message's metadata, over the configured metadata (its keys win).
    pub metadata: Option<JsonMap>,
    /// Uploaded attachments sent with it.
    pub attachments: Vec<Attachment>,
    /// The mentions in its text, sent as `input_tag` parts.
    pub mentions: Vec<chat_shell_core::mentions::Mention>,
}

impl Runtime {
    /// Send a message. Returns false if nothing was sent.
    pub fn send_message(self: &Rc<Self>, text: String, ghost: bool) -> bool {
        self.send_message_with(
            text,
            SendOptions {
                ghost,
                ..SendOptions::default()
            },
        )
    }

    /// Whether a message can go out now: no answer streaming, no thread being opened, and
    /// the thread is neither locked nor closed.
    pub fn can_send(&self) -> bool {
        let blocked = self
            .state
            .borrow()
            .thread
            .as_ref()
            .is_some_and(|t| t.status.blocked_reason().is_some());
        !blocked && !self.is_streaming() && self.signals.history.opening.get_untracked().is_none()
    }

    /// Send a message with its options. Returns false if nothing was sent.
    pub fn send_message_with(self: &Rc<Self>, text: String, options: SendOptions) -> bool {
        if (text.trim().is_empty() && options.attachments.is_empty()) || !self.can_send() {
            return false;
        }
        let ids = options.attachments.iter().map(|a| a.id.clone()).collect();
        let mut input = UserMessageInput::text(text.clone(), ids);
        // A draft has mentions only once their code is there (`ui::composer::mentions`).
        let content = crate::chunks::views::mention_hooks()
            .filter(|_| !options.mentions.is_empty())
            .map(|h| h.content(&text, &options.mentions))
            .unwrap_or_default();
        if !content.is_empty() {
            input.content = content.clone();
        }
        // The composer's model and tool (ChatKit's `inference_options`).
        let picked = self.signals.composer_pick.get_untracked();
        input.inference_options =
            self.options(|o| inference_options(&o.composer_models, &o.composer_tools, &picked));
        if options.ghost {
            input
                .inference_options
                .insert(GHOST_OPTION.into(), Value::Bool(true));
        }
        let body = match self.state.borrow().thread_id().cloned() {
            Some(thread_id) => RequestBody::AddUserMessage { thread_id, input },
            None => RequestBody::ThreadsCreate { input },
        };
        let metadata =
            self.options(|o| merge_metadata(o.metadata.as_ref(), options.metadata.as_ref()));
        if !options.ghost {
            self.signals.sent.update(|n| *n += 1);
        }
        self.dispatch(Input::SendStarted(OutgoingMessage {
            content,
            text,
            attachments: options.attachments,
            ghost: options.ghost,
        }));
        match self.options(|o| o.protocol) {
            Protocol::Events => self.start_events(metadata),
            Protocol::AgentUi => self.start_agent_ui(metadata, None),
            Protocol::AgUi => self.start_ag_ui(Vec::new()),
            Protocol::ChatKit => self.start_request(body.with_metadata(metadata)),
        }
        true
    }

    /// Send the composer's draft: its text and the attachments in the tray, which must all
    /// be uploaded. The composer empties only if the message went out.
    pub fn send_draft(self: &Rc<Self>) -> bool {
        let text = self.signals.draft.get_untracked();
        let files = self.signals.tray.entries.with_untracked(|e| !e.is_empty());
        // Longer than the server takes: the composer says so; nothing goes.
        let too_long = self
            .options(|o| o.composer_max_length)
            .is_some_and(|limit| text.len() > limit && text.chars().count() > limit);
        if !self.can_send() || (text.trim().is_empty() && !files) || too_long {
            return false;
        }
        let Some(attachments) = self.take_tray() else {
            return false;
        };
        let sent = self.send_message_with(
            text,
            SendOptions {
                attachments,
                mentions: self.signals.mentions.get_untracked(),
                ..SendOptions::default()
            },
        );
        if sent {
            self.signals.mentions.set(Vec::new());
            self.signals.draft.set(String::new());
        }
        sent
    }

    /// Retry the failed answer.
    pub fn retry(self: &Rc<Self>) {
        if self.options(|o| o.protocol) == Protocol::AgUi {
            let failed = self.with_state(|s| s.error.as_ref().and_then(|e| e.retry_after.clone()));
            if let Some(user_message) = failed {
                self.retry_ag_ui(user_message, false);
            }
            return;
        }
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
        // The failed answer is replaced, never kept as a branch (answers beside it stay).
        self.dispatch(Input::RetryStarted {
            user_message: item_id.clone(),
        });
        self.start_stream(RequestBody::RetryAfterItem { thread_id, item_id });
    }

    /// The request that answers the user message `item_id` again: beside the answer it
    /// had where the thread branches (nothing is lost), in its place elsewhere.
    fn answer_again(&self, thread_id: ThreadId, item_id: ItemId) -> RequestBody {
        if self.offers_branches() {
            RequestBody::RegenerateAfterItem { thread_id, item_id }
        } else {
            RequestBody::RetryAfterItem { thread_id, item_id }
        }
    }

    /// Retry the answer `item_id` belongs to: the user message before it is answered
    /// again (beside the old answer where the thread branches, else in its place).
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
            let Some(at) = items.iter().position(|i| &i.entry.id == item_id) else {
                return;
            };
            let Some(user) = items[..at]
                .iter()
                .rev()
                .find(|i| matches!(i.entry.kind, EntryKind::UserMessage(_)))
            else {
                return;
            };
            (thread_id, user.entry.id.clone())
        };
        if self.options(|o| o.protocol) == Protocol::AgUi {
            return self.retry_ag_ui(user_message, true);
        }
        self.dispatch(Input::RetryStarted {
            user_message: user_message.clone(),
        });
        self.start_stream(self.answer_again(thread_id, user_message));
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
        let Ok(abort) = AbortController::new() else {
            return false;
        };
        let result = match self.http().await {
            Ok(http) => transport::post_json(&http, &request, &abort.signal()).await,
            Err(e) => Err(e),
        };
        if let Err(e) = &result {
            self.emit(&ChatEvent::Error(ChatError::new(
                ErrorKind::Feedback,
                e.user_message(),
            )));
        }
        result.is_ok()
    }

    /// Stop the answer: close the connection, keep what arrived.
    pub fn stop(self: &Rc<Self>) {
        if !self.is_streaming() {
            return;
        }
        self.cancel_run();
        self.abort_in_flight();
        self.dispatch(Input::Cancelled);
    }

    /// Start a new, empty conversation (with the new chat's own draft). Loads still on
    /// their way are dropped.
    pub fn new_chat(self: &Rc<Self>) {
        self.close_history();
        self.reset_conversation();
    }

    /// An empty conversation in place of the one shown (with the new chat's draft); the
    /// history stays as it is.
    pub(crate) fn reset_conversation(self: &Rc<Self>) {
        let from = self.draft_owner();
        self.bump_load_token();
        self.signals.history.opening.set(None);
        self.signals.history.open_error.set(None);
        self.abort_in_flight();
        self.release_sent_previews();
        self.signals.views.close_artifact();
        self.dispatch(Input::Reset);
        self.switch_draft(from, None);
    }

    pub fn dismiss_notice(self: &Rc<Self>, id: u64) {
        self.dispatch(Input::NoticeDismissed(id));
    }
}
