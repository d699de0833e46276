//! Answering an agent's elicitation: `threads.custom_action` with
//! `acp_elicitation_action` on the elicitation's item, sent as the permission card's
//! answer is (`stream.rs`): with no answer streaming, its stream is the turn going on;
//! beside a run still streaming, its events are applied as they come.

use super::transport;
use super::Runtime;
use chat_shell_core::protocol::acp::ElicitationOutcome;
use chat_shell_core::protocol::chatkit::{acp_elicitation_action, ItemId, RequestBody};
use chat_shell_core::reducer::Input;
use chat_shell_core::sse::SseDecoder;
use std::rc::Rc;
use web_sys::AbortController;

impl Runtime {
    /// Sends the answer; `settled` hears why when it could not go, or `None` once an
    /// answer sent beside the run has its whole reply (the form takes input again unless
    /// the reply resolved it). What the agent made of it shows once the server confirms
    /// it (`acp_elicitation.resolved`).
    pub(crate) fn answer_elicitation(
        self: &Rc<Self>,
        item_id: ItemId,
        outcome: ElicitationOutcome,
        settled: impl FnOnce(Option<String>) + 'static,
    ) {
        // AG-UI: the form is an interrupt's, answered by a resumed run.
        if self.options(|o| o.protocol) == chat_shell_core::options::Protocol::AgUi {
            self.answer_interrupt_form(&item_id, &outcome);
            return settled(None);
        }
        let Some(thread_id) = self.state.borrow().thread_id().cloned() else {
            return settled(Some("no thread".into()));
        };
        let body = RequestBody::CustomAction {
            thread_id,
            item_id: Some(item_id),
            action: acp_elicitation_action(&outcome),
        };
        if !self.is_streaming() {
            self.dispatch(Input::TurnStarted);
            return self.start_stream(body);
        }
        let request = self.envelope(body);
        let this = Rc::clone(self);
        wasm_bindgen_futures::spawn_local(async move {
            let Ok(abort) = AbortController::new() else {
                return settled(Some("this browser cannot send requests".into()));
            };
            let stall_ms = this.options(|o| o.stream_timeout_ms());
            let opened = match this.http().await {
                Ok(http) => {
                    transport::post_stream(&http, &request, &abort.signal(), stall_ms).await
                }
                Err(e) => Err(e),
            };
            let mut stream = match opened {
                Ok(s) => s,
                Err(e) => return settled(Some(this.with_strings(|s| e.message_in(s)))),
            };
            let mut decoder = SseDecoder::with_limit(this.options(|o| o.max_event_bytes));
            while let Ok(Some(bytes)) = stream.next_chunk().await {
                for frame in decoder.push(&bytes) {
                    if let Ok(inputs) = crate::chunks::runtime::chatkit_frame(frame).await {
                        inputs.into_iter().for_each(|input| this.dispatch(input));
                    }
                }
            }
            settled(None);
        });
    }
}
