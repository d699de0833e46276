//! What the agent remembers: each session's history, remembered permission choices and
//! controls, the cancel flag of its turn, and the `--state-dir` files that outlive the
//! process.

use crate::controls::Controls;
use crate::options::Options;
use agent_client_protocol::v1::schema::ClientCapabilities;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::Notify;

/// What the agent remembers of one session.
#[derive(Default)]
pub(crate) struct Session {
    pub(crate) cwd: PathBuf,
    /// `("user" | "agent", text)`, oldest first.
    pub(crate) history: Vec<(String, String)>,
    /// Remembered `*_always` choices, by tool kind: true = allow.
    pub(crate) always: HashMap<String, bool>,
    /// Modes, options, commands, usage and title.
    pub(crate) controls: Controls,
    pub(crate) cancel: Arc<Cancel>,
}

/// The cancel flag of a session's current turn.
#[derive(Default)]
pub(crate) struct Cancel {
    flag: AtomicBool,
    notify: Notify,
}

impl Cancel {
    pub(crate) fn set(&self) {
        self.flag.store(true, Ordering::SeqCst);
        self.notify.notify_waiters();
    }

    fn is_set(&self) -> bool {
        self.flag.load(Ordering::SeqCst)
    }

    /// Sleeps `d`; false when cancelled first.
    pub(crate) async fn sleep(&self, d: Duration) -> bool {
        if self.is_set() {
            return false;
        }
        let notified = self.notify.notified();
        tokio::select! {
            _ = tokio::time::sleep(d) => !self.is_set(),
            _ = notified => false,
        }
    }
}

pub(crate) struct State {
    pub(crate) options: Options,
    pub(crate) client: Mutex<ClientCapabilities>,
    pub(crate) sessions: Mutex<HashMap<String, Session>>,
    pub(crate) next: AtomicU64,
}

impl State {
    fn state_file(&self, id: &str) -> Option<PathBuf> {
        let safe = id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        let dir = self.options.state_dir.as_ref()?;
        safe.then(|| dir.join(format!("{id}.json")))
    }

    pub(crate) fn save(&self, id: &str) {
        let Some(path) = self.state_file(id) else {
            return;
        };
        let sessions = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        let Some(session) = sessions.get(id) else {
            return;
        };
        let doc = json!({
            "cwd": session.cwd,
            "history": session.history,
            "always": session.always,
            "controls": session.controls,
        });
        if let Some(dir) = path.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        if let Err(e) = std::fs::write(&path, doc.to_string()) {
            eprintln!("chat-shell-acp-agent: cannot save {}: {e}", path.display());
        }
    }

    fn load(&self, id: &str) -> Option<Session> {
        let text = std::fs::read_to_string(self.state_file(id)?).ok()?;
        let doc: Value = serde_json::from_str(&text).ok()?;
        Some(Session {
            cwd: PathBuf::from(doc["cwd"].as_str().unwrap_or("/")),
            history: serde_json::from_value(doc["history"].clone()).unwrap_or_default(),
            always: serde_json::from_value(doc["always"].clone()).unwrap_or_default(),
            controls: serde_json::from_value(doc["controls"].clone()).unwrap_or_default(),
            cancel: Arc::default(),
        })
    }

    /// The client takes boolean config options (it said so in `initialize`).
    pub(crate) fn booleans(&self) -> bool {
        let client = self.client.lock().unwrap_or_else(|e| e.into_inner());
        client
            .session
            .as_ref()
            .and_then(|s| s.config_options.as_ref())
            .is_some_and(|c| c.boolean.is_some())
    }

    /// The session `id`, from memory or from its file; `f` sees it (and may change it).
    pub(crate) fn with_session<T>(&self, id: &str, f: impl FnOnce(&mut Session) -> T) -> Option<T> {
        let mut sessions = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        if !sessions.contains_key(id) {
            let loaded = self.load(id)?;
            sessions.insert(id.to_owned(), loaded);
        }
        sessions.get_mut(id).map(f)
    }

    /// Every session this agent knows with a turn in it (in memory, and saved in
    /// `--state-dir`), newest first:
    /// `(id, cwd, title, updated)`.
    pub(crate) fn listed(&self) -> Vec<(String, PathBuf, Option<String>, String)> {
        let mut all: HashMap<String, (PathBuf, Option<String>, String)> = HashMap::new();
        if let Some(dir) = &self.options.state_dir {
            for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                let Some(id) = name.strip_suffix(".json") else {
                    continue;
                };
                if let Some(s) = self.load(id).filter(|s| !s.history.is_empty()) {
                    all.insert(
                        id.to_owned(),
                        (s.cwd, s.controls.title, s.controls.updated_at),
                    );
                }
            }
        }
        let sessions = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        // A session nobody spoke in yet (a client's draft) is not history.
        for (id, s) in sessions.iter().filter(|(_, s)| !s.history.is_empty()) {
            all.insert(
                id.clone(),
                (
                    s.cwd.clone(),
                    s.controls.title.clone(),
                    s.controls.updated_at.clone(),
                ),
            );
        }
        let mut all: Vec<_> = all
            .into_iter()
            .map(|(id, (cwd, title, updated))| (id, cwd, title, updated))
            .collect();
        all.sort_by(|a, b| b.3.cmp(&a.3).then_with(|| b.0.cmp(&a.0)));
        all
    }
}

/// The path a `--state-dir` keeps `session`'s history in (for tests).
pub fn state_file(dir: &Path, session: &str) -> PathBuf {
    dir.join(format!("{session}.json"))
}
