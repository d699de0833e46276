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
        matches!(
            self.options(|o| o.protocol),
            Protocol::ChatKit | Protocol::AgUi
        ) && self
            .state
            .borrow()
            .thread
            .as_ref()
            .is_some_and(|t| t.branching)
    }

    /// Whether the client names its own messages (AG-UI): they are final as sent, never
    /// waiting for a server's copy.
    pub(crate) fn names_messages(&self) -> bool {
        self.options(|o| o.protocol) == Protocol::AgUi
    }

    /// Sends `text` as an edit of the user message `edited`: a new branch beside it, then
    /// its answer. The edited message's attachments go with it. False if nothing was sent.
    pub fn edit_message(self: &Rc<Self>, edited: &ItemId, text: String) -> bool {
        if text.trim().is_empty() || !self.can_send() || !self.offers_branches() {
            return false;
        }
        let final_ids = self.names_messages();
        let found = self.with_state(|s| {
            let thread_id = s.thread_id().cloned()?;
            let at = s.items().iter().position(|i| &i.entry.id == edited)?;
            let item = &s.items()[at];
            match &item.entry.kind {
                EntryKind::UserMessage(m) if final_ids || !item.local => {
                    Some((thread_id, at, m.attachments.clone()))
                }
                _ => None,
            }
        });
        let Some((thread_id, at, attachments)) = found else {
            return false;
        };
        if final_ids {
            self.edit_ag_ui(edited.clone(), at, text, attachments);
            return true;
        }
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

    /// AG-UI: the branch shown from the message on is kept, then the edit goes as a new
    /// message in its place.
    fn edit_ag_ui(
        self: &Rc<Self>,
        edited: ItemId,
        at: usize,
        text: String,
        attachments: Vec<chat_shell_core::protocol::chatkit::Attachment>,
    ) {
        self.signals.sent.update(|n| *n += 1);
        let this = Rc::clone(self);
        wasm_bindgen_futures::spawn_local(async move {
            // Without the code to keep it, the old branch is replaced.
            let _ = crate::chunks::runtime::ag_ui_fork(Rc::clone(&this), at).await;
            this.dispatch(Input::EditStarted {
                edited,
                message: OutgoingMessage {
                    text,
                    attachments,
                    ..OutgoingMessage::default()
                },
            });
            this.start_ag_ui(Vec::new());
        });
    }

    /// Shows the branch that starts at `item`: as the server then has it, or (AG-UI) as
    /// the client kept it.
    pub fn select_branch(self: &Rc<Self>, item: ItemId) {
        if !self.can_send() || !self.offers_branches() {
            return;
        }
        if self.names_messages() {
            let this = Rc::clone(self);
            wasm_bindgen_futures::spawn_local(async move {
                let _ = crate::chunks::runtime::ag_ui_switch(this, item).await;
            });
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
