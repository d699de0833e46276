//! Branches of the conversation: a message edited, an answer regenerated beside the old
//! one, and the branch shown. The server keeps the tree (`Thread::branching`, the
//! ChatKit extension requests in `protocol::chatkit::requests`); the page shows the branch
//! the server says is shown, with each item's branches.

use super::Runtime;
use chat_shell_core::composer_choice::inference_options;
use chat_shell_core::host_events::ErrorKind;
use chat_shell_core::model::EntryKind;
use chat_shell_core::options::Protocol;
use chat_shell_core::protocol::chatkit::{ItemId, RequestBody, Thread, UserMessageInput};
use chat_shell_core::reducer::{Input, OutgoingMessage};
use chat_shell_core::strings::Text;
use leptos::prelude::*;
use std::rc::Rc;

impl Runtime {
    /// Whether the thread shown branches: its messages can be edited and its answers
    /// regenerated beside the old ones. Servers without the extension never say so.
    pub fn offers_branches(&self) -> bool {
        self.options(|o| o.protocol) == Protocol::ChatKit
            && self
                .state
                .borrow()
                .thread
                .as_ref()
                .is_some_and(|t| t.branching)
    }

    /// Sends `text` as an edit of the user message `edited`: a new branch beside it, then
    /// its answer. The edited message's attachments go with it. False if nothing was sent.
    pub fn edit_message(self: &Rc<Self>, edited: &ItemId, text: String) -> bool {
        if text.trim().is_empty() || !self.can_send() || !self.offers_branches() {
            return false;
        }
        let found = self.with_state(|s| {
            let thread_id = s.thread_id().cloned()?;
            s.visible_items()
                .find(|i| &i.item.id == edited && !i.local)
                .and_then(|i| match &i.item.kind {
                    EntryKind::UserMessage(m) => Some((thread_id, m.attachments.clone())),
                    _ => None,
                })
        });
        let Some((thread_id, attachments)) = found else {
            return false;
        };
        let ids = attachments.iter().map(|a| a.id.clone()).collect();
        let mut input = UserMessageInput::text(text.clone(), ids);
        let picked = self.signals.composer_pick.get_untracked();
        input.inference_options =
            self.options(|o| inference_options(&o.composer_models, &o.composer_tools, &picked));
        self.signals.sent.update(|n| *n += 1);
        self.dispatch(Input::EditStarted {
            edited: edited.clone(),
            message: OutgoingMessage {
                text,
                attachments,
                ..OutgoingMessage::default()
            },
        });
        self.start_stream(RequestBody::EditUserMessage {
            thread_id,
            item_id: edited.clone(),
            input,
        });
        true
    }

    /// Shows the branch that starts at `item`, as the server then has it.
    pub fn select_branch(self: &Rc<Self>, item: ItemId) {
        if !self.can_send() || !self.offers_branches() {
            return;
        }
        let Some(thread_id) = self.with_state(|s| s.thread_id().cloned()) else {
            return;
        };
        let this = Rc::clone(self);
        wasm_bindgen_futures::spawn_local(async move {
            let selected = this
                .json_request::<Thread>(RequestBody::SelectBranch {
                    thread_id,
                    item_id: item,
                })
                .await;
            match selected {
                // Loaded as any thread is: its newest page first.
                Ok(_) => this.refresh_thread(),
                Err(e) => {
                    let message = this.with_strings(|s| {
                        s.format(Text::BranchNotShown, &[("error", &e.message_in(s))])
                    });
                    this.signals.history.open_error.set(Some(message));
                    this.report(ErrorKind::ThreadLoad, &e);
                }
            }
        });
    }
}
