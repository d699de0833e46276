//! The agent session's controls (`protocol::chatkit::session`): what the shown thread's
//! agent session offers (selectors, slash commands, usage), changes to them, and the
//! agent's own list of sessions for History.
//!
//! A thread's state comes on its channel (`thread.session.updated`), so a server without
//! sessions gets no request at all. A new chat asks `acp.session.get` for the draft
//! session only where the host set `sessionControls`, or once this page has seen a server
//! that has them. What shows is always what the server last said: a change disables its
//! control until the answer, which is then shown, refused or adjusted as it came back.

use super::transport;
use super::Runtime;
use chat_shell_core::host_events::ChatEvent;
use chat_shell_core::protocol::chatkit::{
    OpenedSession, SessionAnswer, SessionList, SessionRequest, SessionState, SetAnswer, ThreadId,
};
use chat_shell_core::protocol::decode::Decode;
use chat_shell_core::strings::Text;
use leptos::prelude::*;
use serde_json::Value;
use std::rc::Rc;
use web_sys::AbortController;

impl Runtime {
    /// Follow the thread shown: its state comes on its channel; a new chat asks for the
    /// draft session where that is wanted.
    pub(crate) fn sync_session(self: &Rc<Self>) {
        let thread = self.state.borrow().thread_id().cloned();
        if self.session.shown.borrow().as_ref() != Some(&thread) {
            *self.session.shown.borrow_mut() = Some(thread.clone());
            self.session.asked.set(false);
            self.signals.session.state.set(None);
            self.signals.session.note.set(None);
            self.signals.session.pending.set(None);
        }
        let ask = self.options(|o| o.session_controls) || self.session.known.get();
        if thread.is_none() && ask && !self.session.asked.replace(true) {
            self.session_request(SessionRequest::Get { thread_id: None });
        }
    }

    /// `thread.session.updated` on the channel of `thread`.
    pub(crate) fn session_updated(&self, thread: Option<&ThreadId>, state: SessionState) {
        self.session.known.set(true);
        if self.session.shown.borrow().as_ref() == Some(&thread.cloned()) {
            self.signals
                .session
                .state
                .set(Some(chat_shell_core::session::clean_labels(state)));
        }
    }

    /// Change a control: `value` is a select's value or a boolean.
    pub fn set_control(self: &Rc<Self>, control_id: String, value: Value) {
        if self.signals.session.pending.get_untracked().is_some() {
            return;
        }
        self.signals.session.pending.set(Some(control_id.clone()));
        self.signals.session.note.set(None);
        let thread_id = self.state.borrow().thread_id().cloned();
        self.session_request(SessionRequest::Set {
            thread_id,
            control_id,
            value,
        });
    }

    /// History's list of the agent's sessions: the first page, or the next one.
    pub fn list_agent_sessions(self: &Rc<Self>, more: bool) {
        let cursor = if more {
            self.signals.session.next.get_untracked()
        } else {
            None
        };
        if more && cursor.is_none() {
            return;
        }
        self.session_request(SessionRequest::List { cursor });
    }

    /// Open one of the agent's sessions as a thread.
    pub fn open_agent_session(self: &Rc<Self>, session_id: String) {
        self.session_request(SessionRequest::Open { session_id });
    }

    fn session_request(self: &Rc<Self>, request: SessionRequest) {
        let this = Rc::clone(self);
        wasm_bindgen_futures::spawn_local(async move {
            // Its code comes with the channel's (`crate::chunks`).
            match crate::chunks::runtime::session(Rc::clone(&this), request.clone()).await {
                Ok(task) => task.await,
                Err(_) => this.session_failed(&request, "connection lost".into()),
            }
        });
    }

    /// Sends `request` and shows its answer (`chunks::runtime::session`).
    pub(crate) async fn send_session(self: Rc<Self>, request: SessionRequest) {
        let asked_for = self.state.borrow().thread_id().cloned();
        let answer = async {
            let body = self.envelope_of(&request);
            let http = self.http().await?;
            let abort = AbortController::new().map_err(|_| {
                transport::TransportError::Network("this browser cannot send requests".into())
            })?;
            transport::post_json(&http, &body, &abort.signal()).await
        }
        .await;
        let answer = match answer {
            Ok(answer) => answer,
            Err(e) => return self.session_failed(&request, e.user_message()),
        };
        // An answer for a thread no longer shown is stale.
        let current = self.state.borrow().thread_id().cloned() == asked_for;
        let s = self.signals.session;
        match request {
            SessionRequest::Get { .. } => {
                let Ok(answer) = SessionAnswer::decode(&answer) else {
                    return self.session_failed(&request, "unreadable answer".into());
                };
                if let Some(state) = answer.session.filter(|_| current) {
                    self.session.known.set(true);
                    s.state
                        .set(Some(chat_shell_core::session::clean_labels(state)));
                }
            }
            SessionRequest::Set {
                ref control_id,
                ref value,
                ..
            } => {
                s.pending.set(None);
                let Ok(answer) = SetAnswer::decode(&answer) else {
                    return self.session_failed(&request, "unreadable answer".into());
                };
                if current {
                    let note = self.signals.strings.with_untracked(|strings| {
                        chat_shell_core::session::change_note(
                            &answer.session,
                            control_id,
                            value,
                            answer.refused.as_deref(),
                            strings,
                        )
                    });
                    s.state
                        .set(Some(chat_shell_core::session::clean_labels(answer.session)));
                    s.note.set(note);
                }
            }
            SessionRequest::List { ref cursor } => {
                let Ok(page) = SessionList::decode(&answer) else {
                    return self.session_failed(&request, "unreadable answer".into());
                };
                s.list_error.set(None);
                if cursor.is_some() {
                    s.listed.update(|l| l.extend(page.sessions));
                } else {
                    s.listed.set(page.sessions);
                }
                s.next.set(page.next_cursor);
            }
            SessionRequest::Open { .. } => {
                let Ok(opened) = OpenedSession::decode(&answer) else {
                    return self.session_failed(&request, "unreadable answer".into());
                };
                self.close_history();
                self.select_thread(opened.thread_id);
            }
        }
    }

    /// A request that got no usable answer: said where its control or list is. A draft
    /// session that a server does not offer is no error: nothing shows.
    fn session_failed(&self, request: &SessionRequest, reason: String) {
        let s = self.signals.session;
        let strings = self.signals.strings;
        match request {
            SessionRequest::Get { .. } => self.emit(&ChatEvent::Diagnostic {
                kind: "no_agent_session",
                name: reason,
            }),
            SessionRequest::Set { control_id, .. } => {
                s.pending.set(None);
                let name = s
                    .state
                    .with_untracked(|st| {
                        st.as_ref()?
                            .controls
                            .iter()
                            .find(|c| &c.id == control_id)
                            .map(|c| {
                                strings.with_untracked(|t| {
                                    chat_shell_core::session::control_name(c, t)
                                })
                            })
                    })
                    .unwrap_or_else(|| control_id.clone());
                s.note.set(Some(strings.with_untracked(|t| {
                    t.format(Text::ControlFailed, &[("name", &name), ("reason", &reason)])
                })));
            }
            SessionRequest::List { .. } | SessionRequest::Open { .. } => {
                s.list_error.set(Some(strings.with_untracked(|t| {
                    t.format(Text::SessionsFailed, &[("reason", &reason)])
                })));
            }
        }
    }
}
