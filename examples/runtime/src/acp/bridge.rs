//! The bridge: what the runtime keeps of the ACP agent for as long as it serves (its
//! process, each thread's session and turn, the sessions' offers, the workspace's files).
//! The app state owns it (`AppState::acp`), so handlers reach it through their state; it
//! holds what it needs of the app (the store, the thread channels), never the app itself.

use super::{files, held, session, terminal, turn, ChangeSet, Config, Routes};
use crate::channel::hub::Hub;
use crate::clients::Share;
use crate::store::Store;
use agent_client_protocol::v1::schema::PromptCapabilities;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::Agent;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, Weak};
use std::time::Instant;
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

/// One running agent process.
pub(crate) struct Conn {
    pub cx: ConnectionTo<Agent>,
    /// Counts agent processes: a session belongs to one.
    pub generation: u64,
    pub load_session: bool,
    /// `sessionCapabilities.list`: `session/list`.
    pub list_sessions: bool,
    /// `sessionCapabilities.resume`: `session/resume`.
    pub resume_session: bool,
    /// `sessionCapabilities.close`: `session/close`.
    pub close_session: bool,
    /// What the agent takes in a prompt besides text and links.
    pub prompt: PromptCapabilities,
    /// Why the connection ended, once it has.
    pub ended: watch::Receiver<Option<String>>,
}

impl Conn {
    pub fn alive(&self) -> bool {
        self.ended.borrow().is_none() && !self.cx.is_incoming_closed()
    }
}

/// A user's draft session: of which agent process, its id, and its client's place.
pub(crate) struct Draft {
    pub(super) generation: u64,
    pub(super) id: String,
    pub(super) made: Instant,
    pub(super) share: Share,
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
    pub(super) drafts: Mutex<HashMap<String, Draft>>,
    /// Taken while a draft session is being opened.
    pub(super) draft_lock: tokio::sync::Mutex<()>,
    /// Session-level updates of sessions not held yet (sent before the answer that opens
    /// them was read), by session id; bounded.
    pub(super) early: Mutex<HashMap<String, session::Held>>,
    /// Open URL elicitations: elicitation id -> session id (for `elicitation/complete`).
    pub(super) elicitations: Mutex<HashMap<String, String>>,
    /// The agent advertised `sessionCapabilities.list` (as of its last start).
    pub(super) lists_sessions: std::sync::atomic::AtomicBool,
    /// Where the sessions' owners are recorded.
    pub(super) store: Arc<Store>,
    /// The thread channels, told when a session's controls change.
    pub(super) channels: Arc<Hub>,
}

/// Updates are kept for at most this many sessions not held yet.
pub(super) const MAX_EARLY_SESSIONS: usize = 64;
/// At most this many URL elicitations are remembered for `elicitation/complete`.
pub(super) const MAX_URL_ELICITATIONS: usize = 1024;

impl Bridge {
    /// The bridge of `--acp`, recording in `store` and telling `channels`; the agent starts
    /// with the first message.
    pub fn new(
        config: Config,
        store: Arc<Store>,
        channels: Arc<Hub>,
        shutdown: watch::Receiver<bool>,
    ) -> Arc<Self> {
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
            store,
            channels,
        })
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
