//! Streamed answers: one request at a time, its SSE body decoded chunk by chunk into the
//! reducer; stale answers (after Stop, a new chat or a thread switch) are dropped.

use super::Runtime;
use crate::transport::{self, TransportError};
use chat_shell_core::protocol::chatkit::{ChatRequest, RequestBody};
use chat_shell_core::reducer::Input;
use chat_shell_core::sse::{SseDecoder, SseFrame};
use std::rc::Rc;
use web_sys::AbortController;

impl Runtime {
    pub(crate) fn abort_in_flight(&self) {
        self.generation.set(self.generation.get() + 1);
        if let Some(abort) = self.abort.borrow_mut().take() {
            abort.abort();
        }
    }

    pub(crate) fn envelope(&self, body: RequestBody) -> ChatRequest {
        body.with_metadata(self.options(|o| o.metadata.clone()))
    }

    pub(crate) fn start_stream(self: &Rc<Self>, body: RequestBody) {
        let request = self.envelope(body);
        self.start_request(request);
    }

    /// Stream the answer to an envelope built by the caller (a message with its own
    /// metadata).
    pub(crate) fn start_request(self: &Rc<Self>, request: ChatRequest) {
        self.abort_in_flight();
        let generation = self.generation.get();
        let Ok(abort) = AbortController::new() else {
            return self.apply(Input::StreamFailed {
                message: self.text(chat_shell_core::strings::Text::StreamingUnsupported),
                allow_retry: false,
            });
        };
        let signal = abort.signal();
        *self.abort.borrow_mut() = Some(abort);
        let stall_ms = self.options(|o| o.stream_timeout_ms());
        let this = Rc::clone(self);
        wasm_bindgen_futures::spawn_local(async move {
            let live = || this.generation.get() == generation;
            let opened = match this.http().await {
                Ok(http) => transport::post_stream(&http, &request, &signal, stall_ms).await,
                Err(e) => Err(e),
            };
            let mut stream = match opened {
                Ok(s) => s,
                Err(e) => return this.stream_error(generation, e),
            };
            let mut decoder = SseDecoder::with_limit(this.options(|o| o.max_event_bytes));
            loop {
                match stream.next_chunk().await {
                    Ok(Some(bytes)) if live() => {
                        for frame in decoder.push(&bytes) {
                            if let SseFrame::Oversized { limit } = frame {
                                // What arrived before it stays; the rest is not read.
                                stream.cancel();
                                let error = TransportError::Oversized { limit };
                                return this.stream_error(generation, error);
                            }
                            this.apply_frame(frame);
                        }
                    }
                    Ok(Some(_)) => return stream.cancel(),
                    Ok(None) => {
                        if !live() {
                            return;
                        }
                        for frame in decoder.finish() {
                            this.apply_frame(frame);
                        }
                        this.apply(Input::StreamEnded);
                        // A host may send from its `chat.response.end` handler: then that
                        // request is the live one, and this answer has nothing left to do.
                        if live() {
                            this.after_stream();
                        }
                        return;
                    }
                    Err(e) => return this.stream_error(generation, e),
                }
            }
        });
    }

    fn stream_error(self: &Rc<Self>, generation: u64, error: TransportError) {
        if self.generation.get() != generation || error == TransportError::Aborted {
            return;
        }
        self.apply(Input::StreamFailed {
            message: self.with_strings(|s| error.message_in(s)),
            allow_retry: error.retryable(),
        });
    }

    pub(crate) fn apply_frame(&self, frame: SseFrame) {
        let input = match frame {
            SseFrame::Event { data, .. } => {
                match chat_shell_core::protocol::chatkit::decode_event(&data) {
                    Ok(event) => Input::Server(event),
                    Err(e) => Input::Malformed(e),
                }
            }
            SseFrame::Done | SseFrame::Oversized { .. } => return,
        };
        self.apply(input);
    }

    /// After an answer: the client tool call it asked for runs (the SDK pauses the turn on
    /// one pending call), and its result, or `{"error": …}` when the tool is missing or
    /// throws, goes back with `threads.add_client_tool_output`; the answer continues.
    fn after_stream(self: &Rc<Self>) {
        let Some(thread_id) = self.state.borrow().thread_id().cloned() else {
            return;
        };
        // One tool at a time, in the order the server asked; the answer to each result
        // ends with this again, and the next one runs.
        let next = {
            let mut pending = self.pending_tools.borrow_mut();
            (!pending.is_empty()).then(|| pending.remove(0))
        };
        let Some((item_id, _call_id, name)) = next else {
            return;
        };
        let arguments = self.tool_arguments(&item_id);
        // The turn goes on while the tool runs: Stop is offered and ends it.
        self.apply(Input::TurnStarted);
        let generation = self.generation.get();
        let this = Rc::clone(self);
        wasm_bindgen_futures::spawn_local(async move {
            let result = this.call_client_tool(&item_id, &name, arguments).await;
            if this.generation.get() != generation {
                // Stopped, or another thread opened, while the tool ran: nothing is sent.
                this.complete_tool_call(
                    &item_id,
                    serde_json::json!({ "error": "Stopped before the result was sent." }),
                );
                return;
            }
            let result = result.unwrap_or_else(|message| serde_json::json!({ "error": message }));
            this.complete_tool_call(&item_id, result.clone());
            this.start_stream(RequestBody::AddClientToolOutput { thread_id, result });
        });
    }
}
