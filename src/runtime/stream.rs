//! Streamed answers: one request at a time, its SSE body decoded chunk by chunk into the
//! reducer (ChatKit events, or envelopes through an `EventsAdapter` for `protocol="events"`);
//! every frame and SSE comment counts as life; stale answers (after Stop, a new chat or a
//! thread switch) are dropped. Permission answers go out here too.

use super::held::ag_ui::Shared;
use super::transport::{self, EventStream, TransportError};
use super::Runtime;
use chat_shell_core::adapters::ag_ui::AgUiAdapter;
use chat_shell_core::adapters::agent_ui::AgentUiAdapter;
use chat_shell_core::adapters::events::{self as events_adapter, EventsAdapter};
use chat_shell_core::protocol::acp::{PermissionOutcome, ToolCallId};
use chat_shell_core::protocol::agent_ui;
use chat_shell_core::protocol::chatkit::{acp_permission_action, ChatRequest, ItemId, RequestBody};
use chat_shell_core::protocol::events::{EventsMessage, EventsRequest, Role};
use chat_shell_core::protocol::JsonMap;
use chat_shell_core::reducer::Input;
use chat_shell_core::sse::{SseDecoder, SseFrame};
use leptos::prelude::{GetUntracked, Set};
use serde::Serialize;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use web_sys::AbortController;

/// How the frames of one answer stream become reducer inputs.
pub(crate) enum Frames {
    ChatKit,
    /// One adapter per stream, with its own run number (its item ids are unique).
    Events(Box<EventsAdapter>),
    /// One adapter per run: the stream that fills a gap feeds the same one.
    AgentUi(Box<AgentUiAdapter>),
    /// One adapter per run, with the conversation's facts it updates (`held::ag_ui`).
    AgUi(Box<AgUiAdapter>, Shared),
}

impl Frames {
    /// `Err` only when the code that decodes the frames could not be fetched (`crate::chunks`).
    async fn inputs(&mut self, frame: SseFrame) -> Result<Vec<Input>, TransportError> {
        let inputs = match self {
            Frames::ChatKit => crate::chunks::runtime::chatkit_frame(frame).await,
            Frames::Events(adapter) => crate::chunks::runtime::events(adapter, frame).await,
            Frames::AgentUi(adapter) => crate::chunks::runtime::agent_ui(adapter, frame).await,
            Frames::AgUi(adapter, shared) => {
                crate::chunks::runtime::ag_ui(adapter, Rc::clone(shared), frame).await
            }
        };
        inputs.map_err(|_| {
            TransportError::Network("the stream's decoder could not be fetched".into())
        })
    }
}

/// The runtime's clock for liveness, in ms.
fn now_ms() -> f64 {
    js_sys::Date::now()
}

/// How many times one Agent UI run asks again for events missing after a gap.
const MAX_RESUMES: u32 = 2;

/// Longest stretch of decoding and reducing in one task before the browser gets a turn.
const SLICE_MS: f64 = 6.0;

/// Let the browser run input, rendering and other tasks, then continue: `scheduler.yield()`
/// where there is one (the continuation keeps its priority), else a zero-delay timer.
async fn yield_to_browser() {
    let global = js_sys::global();
    let scheduler = js_sys::Reflect::get(&global, &"scheduler".into()).unwrap_or_default();
    let yield_fn = js_sys::Reflect::get(&scheduler, &"yield".into()).unwrap_or_default();
    let promise = match yield_fn.dyn_ref::<js_sys::Function>() {
        Some(f) => f.call0(&scheduler).ok().and_then(|p| p.dyn_into().ok()),
        None => None,
    };
    let promise = promise.unwrap_or_else(|| {
        js_sys::Promise::new(&mut |resolve, _| {
            if let Some(window) = web_sys::window() {
                let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0);
            }
        })
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

/// Why an answer stopped being read before its end.
enum Stop {
    /// Stop, a new chat or a thread switch made the answer stale: nothing more to do.
    Stale,
    /// The answer failed: said in the conversation.
    Failed(TransportError),
}

/// The reader of one answer stream: the SSE body decoded chunk by chunk, its frames turned
/// into reducer inputs in time slices, and what happens at its end (the last frames, an
/// Agent UI run's gap asked for again, the end of the stream). It stops counting as soon as
/// its request's generation is not the runtime's any more.
struct Reader {
    runtime: Rc<Runtime>,
    generation: u64,
    decoder: SseDecoder,
    frames: Frames,
    /// SSE comments seen so far (keepalives count as life).
    comments: u64,
}

impl Reader {
    fn new(runtime: Rc<Runtime>, generation: u64, frames: Frames) -> Self {
        let decoder = SseDecoder::with_limit(runtime.options(|o| o.max_event_bytes));
        Reader {
            runtime,
            generation,
            decoder,
            frames,
            comments: 0,
        }
    }

    /// Whether this answer is still the one the runtime waits for.
    fn live(&self) -> bool {
        self.runtime.generation.get() == self.generation
    }

    /// Read the body to its end, or until the answer is stale or fails.
    async fn read(mut self, mut body: EventStream) {
        loop {
            match body.next_chunk().await {
                Ok(Some(bytes)) if self.live() => {
                    if let Err(stop) = self.chunk(&bytes).await {
                        body.cancel();
                        return self.stopped(stop);
                    }
                }
                Ok(Some(_)) => return body.cancel(),
                Ok(None) => return self.end().await,
                Err(e) => return self.runtime.stream_error(self.generation, e),
            }
        }
    }

    /// Decode one chunk and apply its frames. A read holding a whole answer is applied
    /// over several tasks, so input and frames get their turn between slices.
    async fn chunk(&mut self, bytes: &[u8]) -> Result<(), Stop> {
        let mut slice_start = now_ms();
        for frame in self.decoder.push(bytes) {
            if now_ms() - slice_start > SLICE_MS {
                yield_to_browser().await;
                if !self.live() {
                    return Err(Stop::Stale);
                }
                slice_start = now_ms();
            }
            if let SseFrame::Oversized { limit } = frame {
                // What arrived before it stays; the rest is not read.
                return Err(Stop::Failed(TransportError::Oversized { limit }));
            }
            self.frame(frame).await?;
        }
        // Keepalive comments are life too, though they are no frame.
        if self.decoder.comments_seen() != self.comments {
            self.comments = self.decoder.comments_seen();
            self.runtime.dispatch(Input::Alive { at_ms: now_ms() });
        }
        Ok(())
    }

    /// One frame: life, then its inputs.
    async fn frame(&mut self, frame: SseFrame) -> Result<(), Stop> {
        self.runtime.dispatch(Input::Alive { at_ms: now_ms() });
        let inputs = self.frames.inputs(frame).await.map_err(Stop::Failed)?;
        inputs.into_iter().for_each(|i| self.runtime.dispatch(i));
        // A first frame may wait for its decoder's code: a Stop meanwhile.
        if self.live() {
            Ok(())
        } else {
            Err(Stop::Stale)
        }
    }

    fn stopped(&self, stop: Stop) {
        if let Stop::Failed(error) = stop {
            self.runtime.stream_error(self.generation, error);
        }
    }

    /// The body ended: its last frames, then the run's gap asked for again or the stream's
    /// end, and what comes after the answer.
    async fn end(mut self) {
        if !self.live() {
            return;
        }
        for frame in self.decoder.finish() {
            if let Err(stop) = self.frame(frame).await {
                return self.stopped(stop);
            }
        }
        let Reader {
            runtime,
            generation,
            frames,
            ..
        } = self;
        match frames {
            Frames::AgentUi(adapter) => {
                if let Some((adapter, write)) = resume_gap(&runtime, adapter) {
                    let request = runtime.agent_ui_request(None, Some(write));
                    return runtime.start_post(request, Frames::AgentUi(adapter));
                }
            }
            // A run the body left unfinished: the connection broke.
            Frames::AgUi(mut adapter, shared) => {
                if let Ok(inputs) = crate::chunks::runtime::ag_ui_end(&mut adapter, shared).await {
                    inputs.into_iter().for_each(|i| runtime.dispatch(i));
                }
                if runtime.generation.get() != generation {
                    return;
                }
            }
            _ => {}
        }
        // After the events' own `done` this changes nothing.
        runtime.dispatch(Input::StreamEnded);
        // AG-UI keeps its conversation in the browser: as it is now, after the run.
        if runtime.options(|o| o.protocol) == chat_shell_core::options::Protocol::AgUi {
            let _ = crate::chunks::runtime::ag_ui_save(Rc::clone(&runtime)).await;
        }
        // A host may send from its `chat.response.end` handler: then that request is the
        // live one, and this answer has nothing left to do.
        if runtime.generation.get() == generation {
            runtime.after_stream();
        }
    }
}

/// A run that ended with a sequence gap asks for what is missing (once more at most), into
/// the same adapter, and the turn goes on: the adapter and the write that asks. A gap left
/// after that is said as the run's error.
fn resume_gap(
    runtime: &Runtime,
    mut adapter: Box<AgentUiAdapter>,
) -> Option<(Box<AgentUiAdapter>, serde_json::Value)> {
    match adapter.gap() {
        Some(gap) if adapter.resumes < MAX_RESUMES => {
            adapter.resumes += 1;
            let write = agent_ui::resume_metadata(&gap.run_id, gap.after);
            Some((adapter, write))
        }
        Some(_) => {
            runtime.dispatch(Input::RunError {
                message: runtime.text(chat_shell_core::strings::Text::EventsMissing),
                code: Some("sequence_gap".into()),
            });
            None
        }
        None => None,
    }
}

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
        self.start_post(request, Frames::ChatKit);
    }

    /// Stream the answer of the `events` endpoint to the conversation as it is now (right
    /// after `SendStarted` or `RetryStarted`).
    pub(crate) fn start_events(self: &Rc<Self>, metadata: Option<JsonMap>) {
        let request = events_adapter::request(&self.state.borrow(), metadata);
        let run = self.events_runs.get() + 1;
        self.events_runs.set(run);
        self.start_post(request, Frames::Events(Box::new(EventsAdapter::new(run))));
    }

    /// Stream the answer of the `agent-ui` endpoint to the conversation as it is now;
    /// `agent_ui` is a controlled write (`metadata.agentUi`: an action's answer).
    pub(crate) fn start_agent_ui(
        self: &Rc<Self>,
        metadata: Option<JsonMap>,
        agent_ui: Option<serde_json::Value>,
    ) {
        let request = self.agent_ui_request(metadata, agent_ui);
        self.start_post(request, Frames::AgentUi(Box::default()));
    }

    pub(super) fn agent_ui_request(
        &self,
        metadata: Option<JsonMap>,
        agent_ui: Option<serde_json::Value>,
    ) -> EventsRequest {
        let mut metadata = metadata.or_else(|| self.options(|o| o.metadata.clone()));
        if let Some(write) = agent_ui {
            metadata
                .get_or_insert_with(JsonMap::new)
                .insert("agentUi".into(), write);
        }
        events_adapter::request(&self.state.borrow(), metadata)
    }

    /// Post `request` and read its answer stream into the state (see [`Reader`]).
    pub(crate) fn start_post(self: &Rc<Self>, request: impl Serialize + 'static, frames: Frames) {
        self.abort_in_flight();
        self.own_run_started();
        let generation = self.generation.get();
        let Ok(abort) = AbortController::new() else {
            return self.dispatch(Input::StreamFailed {
                message: self.text(chat_shell_core::strings::Text::StreamingUnsupported),
                allow_retry: false,
            });
        };
        let signal = abort.signal();
        *self.abort.borrow_mut() = Some(abort);
        let stall_ms = self.options(|o| o.stream_timeout_ms());
        let this = Rc::clone(self);
        wasm_bindgen_futures::spawn_local(async move {
            let opened = match this.http().await {
                Ok(http) => transport::post_stream(&http, &request, &signal, stall_ms).await,
                Err(e) => Err(e),
            };
            match opened {
                Ok(body) => Reader::new(this, generation, frames).read(body).await,
                Err(e) => this.stream_error(generation, e),
            }
        });
    }

    fn stream_error(self: &Rc<Self>, generation: u64, error: TransportError) {
        if self.generation.get() != generation || error == TransportError::Aborted {
            return;
        }
        if let TransportError::Status { .. } = error {
            // Refused: no run started on the server, so none of the channel's is ours.
            self.own_run_refused();
        }
        self.dispatch(Input::StreamFailed {
            message: self.with_strings(|s| error.message_in(s)),
            allow_retry: error.retryable(),
        });
    }

    /// The reducer's `AnswerPermission`: answered by [`Runtime::answer_permission`] once its
    /// code is here (it comes with the permission cards', `crate::chunks`). If that cannot
    /// be fetched, a picked card offers its options again; Stop's `cancelled` is never
    /// shown, sent or not.
    pub(super) fn send_permission_answer(
        &self,
        item_id: ItemId,
        tool_call_id: ToolCallId,
        outcome: PermissionOutcome,
    ) {
        let shell = self.shell;
        wasm_bindgen_futures::spawn_local(async move {
            let Some(rt) = shell.get() else { return };
            let shown = outcome != PermissionOutcome::Cancelled;
            let card = item_id.clone();
            let answer = crate::chunks::runtime::answer_permission(
                Rc::clone(&rt),
                item_id,
                tool_call_id,
                outcome,
            );
            if answer.await.is_err() && shown {
                let message = rt.text(chat_shell_core::strings::Text::ConnectionLost);
                rt.dispatch(Input::PermissionNotSent {
                    item_id: card,
                    message,
                });
            }
        });
    }

    /// Answer an ACP permission request (`threads.custom_action` with the tool call's item
    /// id). A pick with no answer streaming starts a turn whose stream is the answer; a
    /// pick while the run still streams goes out beside it and its events are applied; a
    /// `cancelled` answer (Stop) goes out although the stream it belonged to was aborted,
    /// since ACP requires every pending request to be answered, and its answer is not shown.
    pub(crate) fn answer_permission(
        self: &Rc<Self>,
        item_id: ItemId,
        tool_call_id: ToolCallId,
        outcome: PermissionOutcome,
    ) {
        // Agent UI keeps no server thread: the action id routes the answer; AG-UI's is
        // an interrupt, answered by a resumed run.
        match self.options(|o| o.protocol) {
            chat_shell_core::options::Protocol::AgentUi => {
                return self.answer_action(&item_id, outcome)
            }
            chat_shell_core::options::Protocol::AgUi => {
                return self.answer_interrupt(&item_id, outcome)
            }
            _ => {}
        }
        let Some(thread_id) = self.state.borrow().thread_id().cloned() else {
            web_sys::console::warn_1(
                &"chat-shell: a permission answer needs a thread; not sent".into(),
            );
            return;
        };
        let cancelled = outcome == PermissionOutcome::Cancelled;
        let body = RequestBody::CustomAction {
            thread_id,
            item_id: Some(item_id.clone()),
            action: acp_permission_action(&tool_call_id, &outcome),
        };
        if !cancelled && !self.is_streaming() {
            self.dispatch(Input::TurnStarted);
            return self.start_stream(body);
        }
        let request = self.envelope(body);
        let this = Rc::clone(self);
        wasm_bindgen_futures::spawn_local(async move {
            let Ok(abort) = AbortController::new() else {
                return;
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
                // Stop's `cancelled` is not shown; a pick that went nowhere asks again.
                Err(_) if cancelled => return,
                Err(e) => {
                    let message = this.with_strings(|s| e.message_in(s));
                    return this.dispatch(Input::PermissionNotSent { item_id, message });
                }
            };
            let mut decoder = SseDecoder::with_limit(this.options(|o| o.max_event_bytes));
            // Read to the end so the server finishes its answer; only a pick's is shown.
            while let Ok(Some(bytes)) = stream.next_chunk().await {
                for frame in decoder.push(&bytes) {
                    // The decoders are in by now: the request being answered came through them.
                    if let (false, Ok(inputs)) = (
                        cancelled,
                        crate::chunks::runtime::chatkit_frame(frame).await,
                    ) {
                        inputs.into_iter().for_each(|input| this.dispatch(input));
                    }
                }
            }
        });
    }

    /// Answer an Agent UI action (`action.required`) through the endpoint: the request
    /// carries `metadata.agentUi.respond`, and its stream is the run going on. Stop's
    /// `cancelled` is not sent (the protocol has no such write); the card says cancelled.
    fn answer_action(self: &Rc<Self>, item_id: &ItemId, outcome: PermissionOutcome) {
        let PermissionOutcome::Selected { option_id } = outcome else {
            return;
        };
        let action_id = self
            .state
            .borrow()
            .item(item_id)
            .and_then(|i| match &i.entry.kind {
                chat_shell_core::model::EntryKind::ToolCall(call) => {
                    call.permission.as_ref().and_then(|p| p.action_id.clone())
                }
                _ => None,
            });
        let Some(action_id) = action_id else {
            return self.dispatch(Input::PermissionNotSent {
                item_id: item_id.clone(),
                message: self.text(chat_shell_core::strings::Text::EventsMissing),
            });
        };
        if !self.is_streaming() {
            self.dispatch(Input::TurnStarted);
        }
        let write = agent_ui::respond_metadata(&action_id, &option_id.0);
        self.start_agent_ui(None, Some(write));
    }

    /// Answer the runtime's question (an Agent UI clarification) with `text`: like an
    /// action's answer, the request carries `metadata.agentUi.respond` (with `text`) and
    /// its stream is the run going on. The question shows answered only once the runtime
    /// confirms the text it took.
    pub fn answer_question(self: &Rc<Self>, item_id: &ItemId, text: String) -> bool {
        let action_id = self.with_item(item_id, |i| match &i.entry.kind {
            chat_shell_core::model::EntryKind::Note(
                chat_shell_core::protocol::chatkit::Note::Question {
                    action_id, answer, ..
                },
            ) if answer.is_none() => Some(action_id.clone()),
            _ => None,
        });
        let Some(action_id) = action_id.flatten().filter(|_| !text.trim().is_empty()) else {
            return false;
        };
        if !self.is_streaming() {
            self.dispatch(Input::TurnStarted);
        }
        let write = agent_ui::answer_metadata(&action_id, text.trim());
        self.start_agent_ui(None, Some(write));
        true
    }

    /// Queue the draft after the running run (`steer` false), or steer the run with it
    /// (`steer` true): a controlled write (`metadata.agentUi.queue` / `steer`) beside the
    /// stream, which must go on: the runtime reports the queue or the steer in it. Only
    /// when the run offers that control. The draft leaves the composer when the request
    /// goes out; if the runtime refuses it or it never arrives, the draft comes back with a
    /// notice. Returns false if nothing was sent.
    pub fn send_during_run(self: &Rc<Self>, steer: bool) -> bool {
        let text = self.signals.draft.get_untracked();
        let run_id = self.with_state(|s| {
            let q = &s.run_queue;
            let offered = if steer { q.can_steer } else { q.can_queue };
            q.run_id.clone().filter(|_| offered)
        });
        let Some(run_id) = run_id.filter(|_| self.is_streaming() && !text.trim().is_empty()) else {
            return false;
        };
        let write = if steer {
            agent_ui::steer_metadata(&run_id)
        } else {
            agent_ui::queue_metadata(&run_id)
        };
        let mut request = self.agent_ui_request(None, Some(write));
        request.messages.push(EventsMessage {
            role: Role::User,
            content: text.clone(),
        });
        self.signals.draft.set(String::new());
        let this = Rc::clone(self);
        wasm_bindgen_futures::spawn_local(async move {
            let Ok(abort) = AbortController::new() else {
                return this.restore_draft(text, Vec::new());
            };
            let sent = match this.http().await {
                Ok(http) => transport::post_json(&http, &request, &abort.signal()).await,
                Err(e) => Err(e),
            };
            if sent.is_err() {
                this.restore_draft(text, Vec::new());
                let message = this.text(chat_shell_core::strings::Text::QueueRefused);
                this.dispatch(Input::Stream(chat_shell_core::reducer::Streamed::Notice(
                    chat_shell_core::protocol::chatkit::NoticeEvent {
                        level: chat_shell_core::protocol::chatkit::NoticeLevel::Warning,
                        message,
                        title: None,
                    },
                )));
            }
        });
        true
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
        self.dispatch(Input::TurnStarted);
        let generation = self.generation.get();
        let this = Rc::clone(self);
        wasm_bindgen_futures::spawn_local(async move {
            // The code that runs the tool comes with the widgets' (`crate::chunks`): if it
            // cannot be fetched, the tool did not run, and the server is told so.
            let tool = crate::chunks::runtime::client_tool(
                Rc::clone(&this),
                item_id.clone(),
                name,
                arguments,
            );
            let result = match tool.await {
                Ok(running) => running.await,
                Err(_) => Err("The page could not fetch the code that runs client tools.".into()),
            };
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
            // AG-UI: the result is in the conversation, which the next run carries.
            if this.options(|o| o.protocol) == chat_shell_core::options::Protocol::AgUi {
                return this.start_ag_ui(Vec::new());
            }
            this.start_stream(RequestBody::AddClientToolOutput { thread_id, result });
        });
    }
}
