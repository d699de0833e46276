//! What each ACP session offers beside the conversation (modes, config options, slash
//! commands, usage, title): kept by the bridge whether or not a turn runs, bounded per
//! owner, and sent to the thread's channels when it changes.

use super::bridge::MAX_EARLY_SESSIONS;
use super::{held, session, Bridge};
use agent_client_protocol::v1::schema::SessionUpdate;
use chat_shell_core::protocol::chatkit::SessionState;
use std::sync::atomic::Ordering;

impl Bridge {
    pub(super) fn held(&self) -> std::sync::MutexGuard<'_, held::HeldSessions> {
        self.sessions.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Keeps what `owner`'s `session` offers now (a `session/new`, `load` or `resume`
    /// answer) and tells the thread's channels.
    pub(crate) fn hold(&self, owner: &str, session: &str, mut held: session::Held) {
        let early = self
            .early
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(session);
        if let Some(early) = early {
            held.overlay(&early);
        }
        let thread = held.thread.clone();
        let state = self.state_of(&held);
        self.held().insert(owner, session, held);
        if let Some(thread) = thread {
            self.publish(&thread, &state);
        }
    }

    /// Changes what `session` offers; publishes the new state when it changed.
    pub(crate) fn change(&self, session: &str, f: impl FnOnce(&mut session::Held) -> bool) {
        let changed = {
            let mut all = self.held();
            match all.get_mut(session) {
                Some(held) => {
                    if f(held) {
                        held.thread.clone().map(|t| (t, self.state_of(held)))
                    } else {
                        None
                    }
                }
                None => None,
            }
        };
        if let Some((thread, state)) = changed {
            self.publish(&thread, &state);
        }
    }

    /// The state of `session`, if the bridge holds it.
    pub(crate) fn session_state(&self, session: &str) -> Option<SessionState> {
        self.held().get_mut(session).map(|h| self.state_of(h))
    }

    /// What the page is told of `held`, with what the runtime itself offers.
    pub(super) fn state_of(&self, held: &session::Held) -> SessionState {
        let mut state = held.state(self.lists_sessions());
        state.file_mentions = self.files.is_some();
        state.cwd = Some(self.cwd.display().to_string());
        state
    }

    /// A copy of what `session` offers.
    pub(crate) fn held_copy(&self, session: &str) -> Option<session::Held> {
        self.held().get(session).cloned()
    }

    pub(super) fn lists_sessions(&self) -> bool {
        self.lists_sessions.load(Ordering::Relaxed)
    }

    /// The state of `thread`'s session in the running agent, if it has one open.
    pub(crate) fn thread_state(&self, thread: &str) -> Option<SessionState> {
        let (generation, session) = self
            .threads
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(thread)
            .and_then(|s| s.session.clone())?;
        if generation != self.generation.load(Ordering::SeqCst) {
            return None;
        }
        self.session_state(&session)
    }

    /// Sends `state` to the channels open on `thread`.
    pub(super) fn publish(&self, thread: &str, state: &SessionState) {
        self.channels.session_updated(thread, state);
    }

    /// A session-level `session/update` (modes, options, commands, usage, title): kept
    /// whether or not a turn runs.
    pub(super) fn session_update(&self, session: &str, update: &SessionUpdate) {
        let relevant = matches!(
            update,
            SessionUpdate::CurrentModeUpdate(_)
                | SessionUpdate::ConfigOptionUpdate(_)
                | SessionUpdate::AvailableCommandsUpdate(_)
                | SessionUpdate::UsageUpdate(_)
                | SessionUpdate::SessionInfoUpdate(_)
        );
        if !relevant {
            return;
        }
        let Ok(update) = serde_json::to_value(update) else {
            return;
        };
        let held = self.held().contains(session);
        if held {
            self.change(session, |held| held.apply(&update));
        } else {
            // Perhaps the session whose opening answer is being read: kept for it.
            let mut early = self.early.lock().unwrap_or_else(|e| e.into_inner());
            if early.len() >= MAX_EARLY_SESSIONS && !early.contains_key(session) {
                early.clear();
            }
            early.entry(session.to_owned()).or_default().apply(&update);
        }
    }
}
