//! The thread channel (`protocol::chatkit::channel`): while a thread is shown, one
//! long-lived `threads.subscribe` stream brings its tool-pushed views and the answer the
//! server is running on it (started by another tab, or by this page before a reload). It
//! reconnects from its cursor with backoff; against a server without it, views are absent
//! and only a `chat.diagnostic` says so.

use super::held::channel::{RunMode, ARTIFACT_TAB};
use super::transport::{self, TransportError};
use super::Runtime;
use chat_shell_core::host_events::ChatEvent;
use chat_shell_core::options::Protocol;
use chat_shell_core::protocol::chatkit::{
    decode_channel_event, is_run_event, CancelRunRequest, ChannelEvent, SubscribeRequest, ThreadId,
};
use chat_shell_core::reducer::Input;
use chat_shell_core::sse::{SseDecoder, SseFrame};
use chat_shell_core::views::{ChannelStatus, ThreadViews, KNOWN_VIEWS};
use leptos::prelude::*;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use web_sys::AbortController;

/// A silent channel is dead after this long (the runtime sends a keepalive every 15 s).
const CHANNEL_STALL_MS: u32 = 45_000;
impl Runtime {
    /// Follow the thread shown: close the old channel, open the new thread's.
    pub(crate) fn sync_channel(&self) {
        let want = self.state.borrow().thread_id().cloned();
        let chatkit =
            self.options(|o| o.protocol == Protocol::ChatKit) && transport::channel_offered();
        let want = want.filter(|_| chatkit);
        if *self.channel.thread.borrow() == want {
            return;
        }
        self.close_channel();
        *self.channel.thread.borrow_mut() = want.clone();
        *self.channel.views.borrow_mut() = match &want {
            Some(_) => ThreadViews::new(),
            None => ThreadViews::without_channel(),
        };
        self.publish_views();
        self.signals.views.tab.set(None);
        self.signals.views.artifact.set(None);
        if let (Some(id), Some(this), false) = (want, self.shell.get(), self.channel.paused.get()) {
            this.connect_channel(id);
        }
    }

    /// The element left the page: its channel closes (no connection or timer is left
    /// behind) and keeps its views and cursor for `resume_channel`.
    pub(crate) fn pause_channel(&self) {
        if self.channel.paused.replace(true) {
            return;
        }
        self.close_channel();
    }

    /// The element is back: the channel reopens from its cursor.
    pub(crate) fn resume_channel(self: &Rc<Self>) {
        if !self.channel.paused.replace(false) {
            return;
        }
        let thread = self.channel.thread.borrow().clone();
        if let Some(id) = thread {
            self.connect_channel(id);
        }
    }

    /// Stop listening (another thread, unmount).
    pub(crate) fn close_channel(&self) {
        let channel = &self.channel;
        channel.generation.set(channel.generation.get() + 1);
        if let Some(abort) = channel.abort.borrow_mut().take() {
            abort.abort();
        }
        if let (Some(timer), Some(window)) = (channel.timer.take(), web_sys::window()) {
            window.clear_timeout_with_handle(timer);
        }
        // A run shown goes on on the server; whoever closed the channel ended its turn here.
        channel.run.set(RunMode::None);
    }

    fn publish_views(&self) {
        let (views, status) = {
            let v = self.channel.views.borrow();
            (v.views().clone(), v.status())
        };
        if self.signals.views.views.with_untracked(|now| now != &views) {
            // A tab whose view was cleared goes back to the conversation.
            if let Some(tab) = self.signals.views.tab.get_untracked() {
                if tab != ARTIFACT_TAB && !views.contains_key(&tab) {
                    self.signals.views.tab.set(None);
                }
            }
            self.signals.views.views.set(views);
        }
        if self.signals.views.status.get_untracked() != status {
            self.signals.views.status.set(status);
        }
    }

    fn connect_channel(self: &Rc<Self>, thread_id: ThreadId) {
        let generation = self.channel.generation.get();
        let Ok(abort) = AbortController::new() else {
            return;
        };
        let signal = abort.signal();
        *self.channel.abort.borrow_mut() = Some(abort);
        let request = SubscribeRequest::Subscribe {
            thread_id,
            after: self.channel.views.borrow().cursor(),
        };
        let this = Rc::clone(self);
        wasm_bindgen_futures::spawn_local(async move {
            // Its code may come in a chunk of its own (`crate::chunks`): if that cannot be
            // fetched, the channel is dropped and tried again after the backoff.
            match crate::chunks::runtime::channel(Rc::clone(&this), generation, request, signal)
                .await
            {
                Ok(follow) => follow.await,
                Err(_) => this.channel_dropped(generation),
            }
        });
    }

    /// Open the channel and apply what it brings until it ends, breaks or is closed.
    pub(crate) async fn follow_channel(
        self: Rc<Self>,
        generation: u64,
        request: SubscribeRequest,
        signal: web_sys::AbortSignal,
    ) {
        let this = self;
        let live = || this.channel.generation.get() == generation;
        let opened = match this.http().await {
            Ok(http) => {
                let request = this.envelope_of(&request);
                transport::post_stream(&http, &request, &signal, CHANNEL_STALL_MS).await
            }
            Err(e) => Err(e),
        };
        if !live() {
            return;
        }
        let mut stream = match opened {
            Ok(s) => s,
            Err(TransportError::Aborted) => return,
            // A server that refuses the request itself, before the channel ever
            // worked, does not have it (the official SDK): nothing to show or retry. One
            // that says to come back later (429, 503: a limit reached) is tried again.
            Err(TransportError::Status { status, .. })
                if !matches!(status, 429 | 503)
                    && this.channel.views.borrow().cursor().is_none() =>
            {
                this.channel.views.borrow_mut().unsupported();
                this.publish_views();
                let name = this.channel.thread.borrow().clone().unwrap_or_default();
                this.emit(&ChatEvent::Diagnostic {
                    kind: "channel_unsupported",
                    name: name.to_string(),
                });
                return;
            }
            Err(_) => return this.channel_dropped(generation),
        };
        this.channel.views.borrow_mut().opened();
        this.publish_views();
        let mut decoder = SseDecoder::with_limit(this.options(|o| o.max_event_bytes));
        loop {
            let chunk = stream.next_chunk().await;
            if !live() {
                return stream.cancel();
            }
            match chunk {
                Ok(Some(bytes)) => {
                    let mut oversized = None;
                    for frame in decoder.push(&bytes) {
                        match frame {
                            SseFrame::Oversized { limit } => oversized = Some(limit),
                            frame => this.channel_frame(frame),
                        }
                    }
                    this.publish_views();
                    // The decoder reads nothing past a line over the limit: this
                    // connection is of no more use. Stale, and back from the cursor.
                    if let Some(limit) = oversized {
                        web_sys::console::warn_1(
                            &format!(
                                "chat-shell: a thread channel event was over maxEventBytes \
                                 ({limit}); reconnecting"
                            )
                            .into(),
                        );
                        stream.cancel();
                        return this.channel_dropped(generation);
                    }
                }
                Ok(None) | Err(_) => {
                    stream.cancel();
                    return this.channel_dropped(generation);
                }
            }
        }
    }

    /// The request body with the configured metadata, as every request has it.
    pub(super) fn envelope_of<T: serde::Serialize>(&self, request: &T) -> serde_json::Value {
        let mut value = serde_json::to_value(request).unwrap_or_default();
        if let (Some(map), Some(metadata)) =
            (value.as_object_mut(), self.options(|o| o.metadata.clone()))
        {
            map.insert("metadata".into(), serde_json::Value::Object(metadata));
        }
        value
    }

    fn channel_frame(&self, frame: SseFrame) {
        let SseFrame::Event { data, .. } = frame else {
            return;
        };
        // This page's own answer comes on its own request too: the channel's copy of each
        // event is dropped undecoded.
        if self.channel.run.get() == RunMode::Ignoring && is_run_event(&data) {
            return;
        }
        let event = match decode_channel_event(&data) {
            Ok(e) => e,
            Err(_) => return self.channel.views.borrow_mut().unreadable(),
        };
        match event {
            ChannelEvent::RunStarted(_) => {
                // Streaming on its own (or just started to): this is that answer.
                let mode = if self.is_streaming() || self.channel.run.get() == RunMode::Ignoring {
                    RunMode::Ignoring
                } else {
                    self.dispatch(Input::TurnStarted);
                    RunMode::Showing
                };
                self.channel.run.set(mode);
            }
            ChannelEvent::RunEvent(run) => {
                if self.channel.run.get() == RunMode::Showing {
                    self.dispatch(Input::Alive {
                        at_ms: js_sys::Date::now(),
                    });
                    self.dispatch(chat_shell_core::adapters::chatkit::input(*run.event));
                }
            }
            ChannelEvent::RunEnded(ended) => match self.channel.run.replace(RunMode::None) {
                RunMode::Showing => match ended.outcome.as_str() {
                    "done" => self.dispatch(Input::StreamEnded),
                    "cancelled" => self.dispatch(Input::Cancelled),
                    // The instance writing it died: said as such, not as an error of the
                    // answer (what it stored is kept).
                    outcome => {
                        let message = self.text(if outcome == "interrupted" {
                            chat_shell_core::strings::Text::AnswerInterrupted
                        } else {
                            chat_shell_core::strings::Text::AnswerFailed
                        });
                        self.dispatch(Input::StreamFailed {
                            message,
                            allow_retry: true,
                        });
                    }
                },
                // This page's own answer, stopped from another page: its stream just ends
                // (ChatKit has no word for it), so the channel says it was stopped.
                RunMode::Ignoring if ended.outcome == "cancelled" && self.is_streaming() => {
                    self.abort_in_flight();
                    self.dispatch(Input::Cancelled);
                }
                _ => {}
            },
            ChannelEvent::SessionUpdated(e) => {
                let thread = self.channel.thread.borrow().clone();
                self.session_updated(thread.as_ref(), e.session);
            }
            ChannelEvent::ViewUpdated(ref e) if !KNOWN_VIEWS.contains(&e.view_type.as_str()) => {
                let name = e.view_type.clone();
                self.channel.views.borrow_mut().apply(event);
                if self.channel.reported.borrow_mut().insert(name.clone()) {
                    self.emit(&ChatEvent::Diagnostic {
                        kind: "unknown_view",
                        name,
                    });
                }
            }
            event => {
                self.channel.views.borrow_mut().apply(event);
            }
        }
    }

    /// The stream ended or broke: stale, and back after the backoff.
    fn channel_dropped(self: &Rc<Self>, generation: u64) {
        if self.channel.generation.get() != generation {
            return;
        }
        if self.channel.run.replace(RunMode::None) == RunMode::Showing {
            // What it showed stays; the run's end will be in the thread when it is back.
            self.dispatch(Input::StreamFailed {
                message: self.text(chat_shell_core::strings::Text::ConnectionLost),
                allow_retry: false,
            });
        }
        let wait = self.channel.views.borrow_mut().dropped();
        self.publish_views();
        let (Some(wait), Some(window)) = (wait, web_sys::window()) else {
            return;
        };
        let shell = self.shell;
        let reconnect = Closure::once_into_js(move || {
            shell.with(|rt| {
                if rt.channel.generation.get() != generation {
                    return;
                }
                rt.channel.timer.set(None);
                let thread = rt.channel.thread.borrow().clone();
                if let Some(id) = thread {
                    rt.connect_channel(id);
                }
            });
        });
        let timer = window
            .set_timeout_with_callback_and_timeout_and_arguments_0(
                reconnect.unchecked_ref(),
                wait as i32,
            )
            .ok();
        self.channel.timer.set(timer);
    }

    /// This page starts an answer of its own: the channel's copy of it is not shown.
    pub(crate) fn own_run_started(&self) {
        self.channel.run.set(RunMode::Ignoring);
    }

    pub(crate) fn own_run_refused(&self) {
        if self.channel.run.get() == RunMode::Ignoring {
            self.channel.run.set(RunMode::None);
        }
    }

    /// Stop pressed: the server is told (it keeps an answer going when a page merely
    /// leaves, so a reload can pick it up). Not sent to a server without the channel.
    pub(crate) fn cancel_run(self: &Rc<Self>) {
        let Some(thread_id) = self.state.borrow().thread_id().cloned() else {
            return;
        };
        if self.channel.views.borrow().status() == ChannelStatus::Unsupported
            || self.options(|o| o.protocol != Protocol::ChatKit)
            || !transport::channel_offered()
        {
            return;
        }
        if self.channel.run.get() == RunMode::Showing {
            self.channel.run.set(RunMode::Ignoring);
        }
        let this = Rc::clone(self);
        wasm_bindgen_futures::spawn_local(async move {
            // Its code comes with the channel's (`crate::chunks`).
            match crate::chunks::runtime::cancel_run(Rc::clone(&this), thread_id).await {
                Ok(sending) => sending.await,
                Err(_) => not_told_to_stop(&TransportError::Network(String::new())),
            }
        });
    }

    /// Stop's word to the server: `threads.cancel_run` (`cancel_run`).
    pub(crate) async fn send_cancel_run(self: Rc<Self>, thread_id: ThreadId) {
        let request = self.envelope_of(&CancelRunRequest::CancelRun { thread_id });
        let Ok(http) = self.http().await else {
            return;
        };
        let Ok(abort) = AbortController::new() else {
            return;
        };
        if let Err(e) = transport::post_json(&http, &request, &abort.signal()).await {
            not_told_to_stop(&e);
        }
    }
}

fn not_told_to_stop(e: &TransportError) {
    web_sys::console::warn_1(
        &format!(
            "chat-shell: the server was not told to stop: {}",
            e.user_message()
        )
        .into(),
    );
}
