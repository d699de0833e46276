//! The bridge: what the runtime keeps of the ACP agent for as long as it serves (its
//! process, each thread's session and turn, the sessions' offers, the workspace's files).
//! The app state owns it (`AppState::acp`), so handlers reach it through their state.

use super::{files, held, session, sessions, terminal, turn, ChangeSet, Config, Conn, Routes};
use crate::state::AppState;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, OnceLock, Weak};
use tokio::sync::{mpsc, watch};

/// A thread's ACP side.
#[derive(Default)]
pub(super) struct ThreadSlot {
    /// `(generation, session id)` once a session is open in that agent process.
    pub(super) session: Option<(u64, String)>,
    /// The running turn's command inbox.
    pub(super) turn: Option<mpsc::UnboundedSender<turn::Command>>,
    /// Taken by a turn for its whole life: one turn per thread at a time.
    pub(super) lock: Arc<tokio::sync::Mutex<()>>,
    /// Taken while the thread's session is being opened (by a turn or `acp.session.*`).
    pub(super) opening: Arc<tokio::sync::Mutex<()>>,
    /// The files the agent wrote in this thread (since the runtime started), for its
    /// Diff view.
    pub(super) changes: Arc<Mutex<ChangeSet>>,
}

/// The runtime's side of the ACP agent, one per process with `--acp`.
pub struct Bridge {
    /// Itself, for the connection's handlers (the app state holds the bridge).
    this: Weak<Bridge>,
    pub(super) config: Config,
    pub(super) cwd: PathBuf,
    pub(super) conn: tokio::sync::Mutex<Option<Arc<Conn>>>,
    pub(super) generation: AtomicU64,
    pub(super) routes: Routes,
    pub(super) threads: Mutex<HashMap<String, ThreadSlot>>,
    pub(super) terminals: Option<Arc<terminal::Terminals>>,
    /// The workspace's files for @-mentions (with `--workspace`).
    pub(super) files: Option<files::Files>,
    pub(super) recorder: Option<Arc<Mutex<std::fs::File>>>,
    pub(super) shutdown: watch::Receiver<bool>,
    /// What each ACP session offers (`session`), by session id, bounded per owner.
    pub(super) sessions: Mutex<held::HeldSessions>,
    /// Each user's draft session (`acp.session.get` without a thread), by user.
    pub(super) drafts: Mutex<HashMap<String, sessions::Draft>>,
    /// Taken while a draft session is being opened.
    pub(super) draft_lock: tokio::sync::Mutex<()>,
    /// Session-level updates of sessions not held yet (sent before the answer that opens
    /// them was read), by session id; bounded.
    pub(super) early: Mutex<HashMap<String, session::Held>>,
    /// Open URL elicitations: elicitation id -> session id (for `elicitation/complete`).
    pub(super) elicitations: Mutex<HashMap<String, String>>,
    /// The agent advertised `sessionCapabilities.list` (as of its last start).
    pub(super) lists_sessions: std::sync::atomic::AtomicBool,
    /// The app, for the thread channels (set by the first request that reaches the bridge).
    pub(super) app: OnceLock<Weak<AppState>>,
}

/// Updates are kept for at most this many sessions not held yet.
pub(super) const MAX_EARLY_SESSIONS: usize = 64;
/// At most this many URL elicitations are remembered for `elicitation/complete`.
pub(super) const MAX_URL_ELICITATIONS: usize = 1024;

impl Bridge {
    /// The bridge of `--acp`; the agent starts with the first message.
    pub fn new(config: Config, shutdown: watch::Receiver<bool>) -> Arc<Self> {
        let terminals = match (&config.workspace, config.allow_terminal) {
            (Some(ws), true) => Some(Arc::new(terminal::Terminals::new(
                ws.clone(),
                config.env.clone(),
            ))),
            _ => None,
        };
        let recorder = config
            .record
            .as_ref()
            .and_then(|path| match std::fs::File::create(path) {
                Ok(file) => Some(Arc::new(Mutex::new(file))),
                Err(e) => {
                    eprintln!(
                        "chat-shell-runtime: cannot record ACP traffic to {}: {e}",
                        path.display()
                    );
                    None
                }
            });
        Arc::new_cyclic(|this| Bridge {
            this: this.clone(),
            cwd: config.cwd(),
            files: config.workspace.clone().map(files::Files::new),
            config,
            conn: tokio::sync::Mutex::new(None),
            generation: AtomicU64::new(0),
            routes: Arc::default(),
            threads: Mutex::new(HashMap::new()),
            terminals,
            recorder,
            shutdown,
            sessions: Mutex::default(),
            drafts: Mutex::new(HashMap::new()),
            draft_lock: tokio::sync::Mutex::new(()),
            elicitations: Mutex::new(HashMap::new()),
            early: Mutex::new(HashMap::new()),
            lists_sessions: Default::default(),
            app: OnceLock::new(),
        })
    }

    /// Remembers the app (for the thread channels); every request reaching the bridge
    /// calls it.
    pub(crate) fn attach(&self, state: &Arc<AppState>) {
        let _ = self.app.set(Arc::downgrade(state));
    }

    /// The workspace's files for @-mentions, with `--workspace`.
    pub(crate) fn files(&self) -> Option<&files::Files> {
        self.files.as_ref()
    }

    /// `f` on `thread`'s slot, made if it has none.
    pub(super) fn slot<T>(&self, thread: &str, f: impl FnOnce(&mut ThreadSlot) -> T) -> T {
        let mut threads = self.threads.lock().unwrap_or_else(|e| e.into_inner());
        f(threads.entry(thread.to_owned()).or_default())
    }

    /// The bridge as the connection's handlers hold it.
    pub(super) fn weak(&self) -> Weak<Bridge> {
        self.this.clone()
    }
}
