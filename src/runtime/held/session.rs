//! The agent session's signals and what the runtime keeps of it. Requests and their
//! answers are in `runtime::session`.

use chat_shell_core::protocol::chatkit::{AgentSession, SessionState, ThreadId};
use leptos::prelude::*;
use std::cell::{Cell, RefCell};

/// What the session's views read.
#[derive(Clone, Copy)]
pub struct SessionSignals {
    /// The shown thread's session (`None`: nothing offered, nothing shown).
    pub state: RwSignal<Option<SessionState>>,
    /// The control whose change is on its way.
    pub pending: RwSignal<Option<String>>,
    /// What the last change came to, when not as asked (refused, adjusted, failed).
    pub note: RwSignal<Option<String>>,
    /// The agent's sessions listed so far in History, and the cursor of the next page.
    pub listed: RwSignal<Vec<AgentSession>>,
    pub next: RwSignal<Option<String>>,
    pub list_error: RwSignal<Option<String>>,
}

impl SessionSignals {
    pub(crate) fn new() -> Self {
        SessionSignals {
            state: RwSignal::new(None),
            pending: RwSignal::new(None),
            note: RwSignal::new(None),
            listed: RwSignal::new(Vec::new()),
            next: RwSignal::new(None),
            list_error: RwSignal::new(None),
        }
    }
}

/// The runtime's bookkeeping of the session.
#[derive(Default)]
pub(crate) struct Session {
    /// The server has shown it has agent sessions (a state came).
    pub(crate) known: Cell<bool>,
    /// The thread the state is for (`Some(None)`: the new chat).
    pub(crate) shown: RefCell<Option<Option<ThreadId>>>,
    /// The draft session was asked for, for the new chat shown.
    pub(crate) asked: Cell<bool>,
}
