//! The runtime as an ACP (Agent Client Protocol) client (`--acp`): any ACP agent answers
//! in the browser.
//!
//! The agent is spawned on the first message and spoken to over its stdio through the
//! official `agent-client-protocol` crate; each of its messages is read under a size limit
//! (`--max-agent-message-mb`), large ones with their lists clipped as they are decoded
//! (`stdio.rs`). A thread is an ACP session (`session/new` with
//! the workspace as `cwd`; after a restart `session/load` where the agent supports it; its
//! id is kept in the thread's metadata as `acp_session_id`). A user message is one
//! `session/prompt`, whose `session/update`s become the ChatKit items of the ACP extension
//! (`acp_tool_call`, `acp_plan`, `acp_thought`, assistant messages), streamed and saved like
//! any other (`turn.rs`). `session/request_permission` becomes the tool call's permission
//! card; the answer comes back as `threads.custom_action` (`acp.permission_response`).
//! Stop (the client closing the stream, or answering a permission `cancelled`) sends
//! `session/cancel`, answers every pending permission request `cancelled` and kills the
//! session's terminals. An agent that exits mid-turn ends the turn with a clear error; the
//! next message starts it again.
//!
//! Client capabilities are announced only when enabled: `fs/*` with `--workspace`
//! (confined to it, `fs.rs`), `terminal/*` with `--allow-terminal` (`terminal.rs`). Always:
//! elicitation (form and url: `elicitation/create` becomes an `acp_elicitation` item of the
//! running turn, `turn/elicit.rs`; no turn, `cancel`) and boolean config options.
//! With `--workspace`, the workspace's files are what `@` offers (`acp.files.search`,
//! `files.rs`, ranked by `fuzzy.rs`); a mentioned file goes in the prompt as a
//! `resource_link`, checked again when the message is sent (`turn`).
//!
//! What a session offers beside the conversation (modes, config options, slash commands,
//! usage, title) is kept per session whether or not a turn runs (`session.rs`), sent to
//! the thread's channels as `thread.session.updated` when it changes, and read and set
//! through `acp.session.*` (`handlers::session`, `sessions.rs`: a user's draft session
//! opened before the first message and adopted by the next new thread, the agent's own
//! sessions listed with `session/list` and opened with `session/load` or
//! `session/resume`). Sessions belong to the identity that made or first opened them (the
//! store records it with the thread); deleting the thread ends its session (`session/close`
//! where the agent offers it). The states kept are bounded per owner (`held.rs`).

pub(crate) mod files;
mod fs;
mod fuzzy;
mod held;
pub(crate) mod session;
mod sessions;
mod stdio;
mod terminal;
mod turn;

use crate::auth::User;
use crate::state::AppState;
use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema::{
    BooleanConfigOptionCapabilities, ClientCapabilities, ClientSessionCapabilities,
    CompactionCapabilities, CompleteElicitationNotification, CreateElicitationRequest,
    CreateElicitationResponse, CreateTerminalRequest, CreateTerminalResponse, ElicitationAction,
    ElicitationCapabilities, ElicitationFormCapabilities, ElicitationMode, ElicitationScope,
    ElicitationUrlCapabilities, FileSystemCapabilities, Implementation, InitializeRequest,
    KillTerminalRequest, KillTerminalResponse, PromptCapabilities, ReadTextFileRequest,
    ReadTextFileResponse, ReleaseTerminalRequest, ReleaseTerminalResponse,
    RequestPermissionOutcome, RequestPermissionRequest, RequestPermissionResponse,
    SessionConfigOptionsCapabilities, SessionNotification, SessionUpdate, TerminalExitStatus,
    TerminalOutputRequest, TerminalOutputResponse, WaitForTerminalExitRequest,
    WaitForTerminalExitResponse, WriteTextFileRequest, WriteTextFileResponse,
};
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{AcpAgent, AcpAgentConfig, Agent, Client, Error, LineDirection};
use axum::response::Response;
use chat_shell_core::protocol::chatkit::RequestBody;
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot, watch};

pub use fs::Workspace;
pub(crate) use sessions::{DraftRefused, SetError, Unopened};
pub use stdio::DEFAULT_MAX_MESSAGE_MB;

/// The agent must answer `initialize` and `session/new` within this.
const SETUP_TIMEOUT: Duration = Duration::from_secs(60);
/// Environment variable naming a file to record the ACP traffic in (JSON lines).
pub const RECORD_ENV: &str = "CHAT_SHELL_ACP_RECORD";

/// What the command line says about ACP.
#[derive(Clone, Debug)]
pub struct Config {
    /// The agent command as given (`--acp`).
    pub command: String,
    pub agent: AcpAgentConfig,
    /// `--workspace`: the session `cwd`, and where `fs/*` and terminals may go.
    pub workspace: Option<Workspace>,
    /// `--allow-terminal`.
    pub allow_terminal: bool,
    /// What the agent and its terminals see of the runtime's environment (`--pass-env`).
    pub env: crate::contain::EnvPolicy,
    /// Where the ACP traffic is recorded, if anywhere.
    pub record: Option<PathBuf>,
    /// `--share-agent-sessions`: the agent's sessions no identity holds are listed to
    /// every user, and the first to open one gets it.
    pub share_sessions: bool,
    /// The longest message read from the agent, in bytes (`--max-agent-message-mb`).
    pub max_message: usize,
}

impl Config {
    /// Reads `--acp COMMAND`, `--workspace DIR` and `--allow-terminal`.
    pub fn new(
        command: &str,
        workspace: Option<&Path>,
        allow_terminal: bool,
    ) -> Result<Config, String> {
        let agent = AcpAgent::from_str(command)
            .map_err(|e| format!("--acp: cannot read the agent command `{command}`: {e}"))?
            .into_config();
        let workspace = workspace.map(Workspace::new).transpose()?;
        if allow_terminal && workspace.is_none() {
            return Err("--allow-terminal needs --workspace (terminals run there)".into());
        }
        Ok(Config {
            command: command.to_owned(),
            agent,
            workspace,
            allow_terminal,
            env: Default::default(),
            record: std::env::var_os(RECORD_ENV).map(PathBuf::from),
            share_sessions: false,
            max_message: stdio::DEFAULT_MAX_MESSAGE_MB << 20,
        })
    }

    /// The session's `cwd`: the workspace, or the runtime's own folder.
    fn cwd(&self) -> PathBuf {
        match &self.workspace {
            Some(ws) => ws.root().to_path_buf(),
            None => std::env::current_dir()
                .and_then(|d| d.canonicalize())
                .unwrap_or_else(|_| PathBuf::from("/")),
        }
    }
}

static BRIDGE: OnceLock<Arc<Bridge>> = OnceLock::new();

/// Turns ACP on for this process (`--acp`).
pub fn install(config: Config, shutdown: watch::Receiver<bool>) {
    let _ = BRIDGE.set(Arc::new(Bridge::new(config, shutdown)));
}

/// The bridge, when `--acp` is on.
pub fn bridge() -> Option<Arc<Bridge>> {
    BRIDGE.get().cloned()
}

/// A streaming ChatKit request, answered by the agent when it is one ACP handles (a
/// message, a retry, a permission answer); otherwise handed back.
pub async fn stream(
    state: &Arc<AppState>,
    user: User,
    base: String,
    body: RequestBody,
    seat: &crate::runs::Seat,
) -> Result<Response, RequestBody> {
    match bridge() {
        Some(bridge) => turn::stream(bridge, state, user, base, body, seat).await,
        None => Err(body),
    }
}

/// What the connection hands a session's turn.
pub(crate) enum Incoming {
    Update(Box<SessionUpdate>),
    Permission(
        Box<(
            RequestPermissionRequest,
            Responder<RequestPermissionResponse>,
        )>,
    ),
    /// The agent wrote a file (`fs/write_text_file`): its content now, and before.
    Wrote(Box<(fs::Written, String)>),
    /// The agent asks the user (`elicitation/create`).
    Elicitation(
        Box<(
            CreateElicitationRequest,
            Responder<CreateElicitationResponse>,
        )>,
    ),
    /// The agent says a URL elicitation is done (`elicitation/complete`): its id.
    ElicitationComplete(String),
}

/// Session id -> the running turn's inbox.
type Routes = Arc<Mutex<HashMap<String, mpsc::UnboundedSender<Incoming>>>>;

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

/// A thread's ACP side.
#[derive(Default)]
struct ThreadSlot {
    /// `(generation, session id)` once a session is open in that agent process.
    session: Option<(u64, String)>,
    /// The running turn's command inbox.
    turn: Option<mpsc::UnboundedSender<turn::Command>>,
    /// Taken by a turn for its whole life: one turn per thread at a time.
    lock: Arc<tokio::sync::Mutex<()>>,
    /// Taken while the thread's session is being opened (by a turn or `acp.session.*`).
    opening: Arc<tokio::sync::Mutex<()>>,
    /// The files the agent wrote in this thread (since the runtime started), for its
    /// Diff view.
    changes: Arc<Mutex<ChangeSet>>,
}

/// The files an agent changed: each one's content before its first write, and now.
#[derive(Debug, Default)]
pub(crate) struct ChangeSet {
    /// Only files that existed before their first write.
    before: std::collections::BTreeMap<String, String>,
    after: std::collections::BTreeMap<String, String>,
}

impl ChangeSet {
    /// Records a write; returns the whole change set as a git diff (empty when every file
    /// is back to how it was).
    /// Texts over [`fs::MAX_DIFF_BYTES`] are kept as a line with their size and digest.
    pub(crate) fn wrote(&mut self, written: fs::Written, content: String) -> String {
        if !self.after.contains_key(&written.relative) {
            if let Some(before) = written.before {
                self.before
                    .insert(written.relative.clone(), fs::diff_text(before));
            }
        }
        self.after.insert(written.relative, fs::diff_text(content));
        crate::sandbox::diff(&self.before, &self.after)
    }
}

pub struct Bridge {
    config: Config,
    cwd: PathBuf,
    conn: tokio::sync::Mutex<Option<Arc<Conn>>>,
    generation: AtomicU64,
    routes: Routes,
    threads: Mutex<HashMap<String, ThreadSlot>>,
    terminals: Option<Arc<terminal::Terminals>>,
    /// The workspace's files for @-mentions (with `--workspace`).
    files: Option<files::Files>,
    recorder: Option<Arc<Mutex<std::fs::File>>>,
    shutdown: watch::Receiver<bool>,
    /// What each ACP session offers (`session`), by session id, bounded per owner.
    sessions: Mutex<held::HeldSessions>,
    /// Each user's draft session (`acp.session.get` without a thread), by user.
    drafts: Mutex<HashMap<String, sessions::Draft>>,
    /// Taken while a draft session is being opened.
    draft_lock: tokio::sync::Mutex<()>,
    /// Session-level updates of sessions not held yet (sent before the answer that opens
    /// them was read), by session id; bounded.
    early: Mutex<HashMap<String, session::Held>>,
    /// Open URL elicitations: elicitation id -> session id (for `elicitation/complete`).
    elicitations: Mutex<HashMap<String, String>>,
    /// The agent advertised `sessionCapabilities.list` (as of its last start).
    lists_sessions: std::sync::atomic::AtomicBool,
    /// The app, for the thread channels (set by the first request that reaches the bridge).
    app: OnceLock<Weak<AppState>>,
}

/// Updates are kept for at most this many sessions not held yet.
const MAX_EARLY_SESSIONS: usize = 64;
/// At most this many URL elicitations are remembered for `elicitation/complete`.
const MAX_URL_ELICITATIONS: usize = 1024;

impl Bridge {
    pub fn new(config: Config, shutdown: watch::Receiver<bool>) -> Self {
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
        Bridge {
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
        }
    }

    /// Remembers the app (for the thread channels); every request reaching the bridge
    /// calls it.
    pub(crate) fn attach(&self, state: &Arc<AppState>) {
        let _ = self.app.set(Arc::downgrade(state));
    }

    fn held(&self) -> std::sync::MutexGuard<'_, held::HeldSessions> {
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
    pub(crate) fn session_state(
        &self,
        session: &str,
    ) -> Option<chat_shell_core::protocol::chatkit::SessionState> {
        self.held().get_mut(session).map(|h| self.state_of(h))
    }

    /// What the page is told of `held`, with what the runtime itself offers.
    fn state_of(&self, held: &session::Held) -> chat_shell_core::protocol::chatkit::SessionState {
        let mut state = held.state(self.lists_sessions());
        state.file_mentions = self.files.is_some();
        state.cwd = Some(self.cwd.display().to_string());
        state
    }

    /// The workspace's files for @-mentions, with `--workspace`.
    pub(crate) fn files(&self) -> Option<&files::Files> {
        self.files.as_ref()
    }

    /// A copy of what `session` offers.
    pub(crate) fn held_copy(&self, session: &str) -> Option<session::Held> {
        self.held().get(session).cloned()
    }

    fn lists_sessions(&self) -> bool {
        self.lists_sessions.load(Ordering::Relaxed)
    }

    /// The state of `thread`'s session in the running agent, if it has one open.
    pub(crate) fn thread_state(
        &self,
        thread: &str,
    ) -> Option<chat_shell_core::protocol::chatkit::SessionState> {
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
    fn publish(&self, thread: &str, state: &chat_shell_core::protocol::chatkit::SessionState) {
        if let Some(app) = self.app.get().and_then(Weak::upgrade) {
            crate::channel::session_updated(&app, thread, state);
        }
    }

    /// A session-level `session/update` (modes, options, commands, usage, title): kept
    /// whether or not a turn runs.
    fn session_update(&self, session: &str, update: &SessionUpdate) {
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

    fn remember_elicitation(&self, id: &str, session: &str) {
        let mut all = self.elicitations.lock().unwrap_or_else(|e| e.into_inner());
        if all.len() >= MAX_URL_ELICITATIONS {
            all.clear();
        }
        all.insert(id.to_owned(), session.to_owned());
    }

    fn elicitation_session(&self, id: &str) -> Option<String> {
        self.elicitations
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(id)
    }

    fn slot<T>(&self, thread: &str, f: impl FnOnce(&mut ThreadSlot) -> T) -> T {
        let mut threads = self.threads.lock().unwrap_or_else(|e| e.into_inner());
        f(threads.entry(thread.to_owned()).or_default())
    }

    /// The agent's process is up (a turn need not start it).
    pub(crate) async fn connected(&self) -> bool {
        self.conn.lock().await.as_ref().is_some_and(|c| c.alive())
    }

    /// The running agent, started (and initialized) if there is none or it ended.
    pub(crate) async fn connection(&self) -> Result<Arc<Conn>, String> {
        let mut current = self.conn.lock().await;
        if let Some(conn) = current.as_ref().filter(|c| c.alive()) {
            return Ok(conn.clone());
        }
        let conn = Arc::new(self.start().await?);
        *current = Some(conn.clone());
        Ok(conn)
    }

    fn capabilities(&self) -> ClientCapabilities {
        let fs = self.config.workspace.is_some();
        ClientCapabilities::new()
            .fs(FileSystemCapabilities::new()
                .read_text_file(fs)
                .write_text_file(fs))
            .terminal(self.terminals.is_some())
            // Compactions are shown as boundaries in the conversation; config options
            // may be booleans (a switch beside the composer).
            .session(
                ClientSessionCapabilities::new()
                    .compaction(CompactionCapabilities::new())
                    .config_options(
                        SessionConfigOptionsCapabilities::new()
                            .boolean(BooleanConfigOptionCapabilities::new()),
                    ),
            )
            // Elicitations are forms (or links) in the conversation.
            .elicitation(
                ElicitationCapabilities::new()
                    .form(ElicitationFormCapabilities::new())
                    .url(ElicitationUrlCapabilities::new()),
            )
    }

    async fn start(&self) -> Result<Conn, String> {
        let generation = self.generation.fetch_add(1, Ordering::SeqCst) + 1;
        let mut agent = stdio::AgentProcess::new(
            crate::contain::agent(&self.config.agent, &self.config.env),
            self.config.max_message,
        );
        if let Some(recorder) = self.recorder.clone() {
            agent = agent.with_debug(move |line, direction| {
                let dir = match direction {
                    LineDirection::Stdin => "client",
                    LineDirection::Stdout => "agent",
                    LineDirection::Stderr => "stderr",
                };
                let record = serde_json::json!({"from": dir, "line": line});
                let mut file = recorder.lock().unwrap_or_else(|e| e.into_inner());
                let _ = writeln!(file, "{record}");
            });
        }
        let (cx_tx, cx_rx) = oneshot::channel();
        let (ended_tx, ended_rx) = watch::channel(None);
        let handlers = Handlers {
            routes: self.routes.clone(),
            workspace: self.config.workspace.clone(),
            terminals: self.terminals.clone(),
        };
        let command = self.config.command.clone();
        let exit = agent.exit();
        tokio::spawn(async move {
            let result = handlers.connect(agent, cx_tx).await;
            // A clean end (the end of the agent's output) waited for its exit: how it
            // exited is the better reason.
            let exit_error = exit.borrow().clone().and_then(Result::err);
            let why = match (result, exit_error) {
                (Err(e), _) | (Ok(()), Some(e)) => error_text(&e),
                (Ok(()), None) => "the agent closed its output".to_owned(),
            };
            eprintln!("chat-shell-runtime: ACP agent `{command}` ended: {why}");
            let _ = ended_tx.send(Some(why));
        });
        let mut ended = ended_rx.clone();
        let cx = tokio::select! {
            cx = cx_rx => cx.map_err(|_| "the agent did not start".to_owned()),
            why = async { ended.wait_for(Option::is_some).await.ok().and_then(|w| w.clone()) } => {
                Err(why.unwrap_or_default())
            }
        }
        .map_err(|e| format!("cannot start `{}`: {e}", self.config.command))?;
        let init = InitializeRequest::new(ProtocolVersion::V1)
            .client_capabilities(self.capabilities())
            .client_info(Implementation::new(
                "chat-shell-runtime",
                env!("CARGO_PKG_VERSION"),
            ));
        let answered = tokio::time::timeout(SETUP_TIMEOUT, cx.send_request(init).block_task())
            .await
            .map_err(|_| "the agent did not answer `initialize`".to_owned())?
            .map_err(|e| {
                let why = ended_rx.borrow().clone();
                format!(
                    "`{}` failed to initialize: {}",
                    self.config.command,
                    why.unwrap_or_else(|| error_text(&e))
                )
            })?;
        let load_session = answered.agent_capabilities.load_session;
        let prompt = answered.agent_capabilities.prompt_capabilities.clone();
        let sessions = &answered.agent_capabilities.session_capabilities;
        let (list_sessions, resume_session) = (sessions.list.is_some(), sessions.resume.is_some());
        let close_session = sessions.close.is_some();
        self.lists_sessions.store(list_sessions, Ordering::Relaxed);
        println!(
            "ACP agent `{}` started (load_session={load_session}, list={list_sessions}, resume={resume_session})",
            self.config.command
        );
        Ok(Conn {
            cx,
            generation,
            load_session,
            list_sessions,
            resume_session,
            close_session,
            prompt,
            ended: ended_rx,
        })
    }

    /// Kills the terminals of `session` (its turn was cancelled).
    fn kill_terminals(&self, session: &str) {
        if let Some(terminals) = &self.terminals {
            terminals.kill_session(session);
        }
    }
}

/// A readable text for an ACP error: its message and data.
pub(crate) fn error_text(e: &Error) -> String {
    match &e.data {
        Some(serde_json::Value::String(s)) if !s.is_empty() => format!("{}: {s}", e.message),
        Some(data) if !data.is_null() => format!("{} ({data})", e.message),
        _ => e.message.clone(),
    }
}

/// What the connection's handlers share. They run in the connection's dispatch loop: each
/// returns at once, and whatever waits (a permission answer, a command's exit) is handed
/// to a turn or a task.
#[derive(Clone)]
struct Handlers {
    routes: Routes,
    workspace: Option<Workspace>,
    terminals: Option<Arc<terminal::Terminals>>,
}

impl Handlers {
    fn route(&self, session: &str) -> Option<mpsc::UnboundedSender<Incoming>> {
        self.routes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(session)
            .cloned()
    }

    fn workspace(&self) -> Result<&Workspace, Error> {
        self.workspace.as_ref().ok_or_else(|| {
            Error::method_not_found().data("fs/* is off: start the runtime with --workspace")
        })
    }

    fn terminals(&self) -> Result<&Arc<terminal::Terminals>, Error> {
        self.terminals.as_ref().ok_or_else(|| {
            Error::method_not_found()
                .data("terminal/* is off: start the runtime with --allow-terminal")
        })
    }

    async fn connect(
        self,
        agent: stdio::AgentProcess,
        cx_tx: oneshot::Sender<ConnectionTo<Agent>>,
    ) -> Result<(), Error> {
        let (h1, h2, h3, h4, h5, h6, h7, h8) = (
            self.clone(),
            self.clone(),
            self.clone(),
            self.clone(),
            self.clone(),
            self.clone(),
            self.clone(),
            self.clone(),
        );
        let (h9, h10, h11) = (self.clone(), self.clone(), self.clone());
        let exit = agent.exit();
        Client
            .v1()
            .name("chat-shell-runtime")
            .on_receive_notification(
                async move |n: SessionNotification, _cx| {
                    // The session's offer changes whether or not a turn runs.
                    if let Some(bridge) = bridge() {
                        bridge.session_update(&n.session_id.0, &n.update);
                    }
                    if let Some(route) = h1.route(&n.session_id.0) {
                        let _ = route.send(Incoming::Update(Box::new(n.update)));
                    }
                    Ok(())
                },
                agent_client_protocol::on_receive_notification!(),
            )
            .on_receive_notification(
                async move |n: CompleteElicitationNotification, _cx| {
                    let id = n.elicitation_id.0.to_string();
                    let session = bridge().and_then(|b| b.elicitation_session(&id));
                    if let Some(route) = session.and_then(|s| h11.route(&s)) {
                        let _ = route.send(Incoming::ElicitationComplete(id));
                    }
                    Ok(())
                },
                agent_client_protocol::on_receive_notification!(),
            )
            .on_receive_request(
                async move |request: CreateElicitationRequest, responder, _cx| {
                    let cancel = || CreateElicitationResponse::new(ElicitationAction::Cancel);
                    // Only a session's elicitation has a turn to show it in.
                    let session = match request.scope() {
                        ElicitationScope::Session(s) => Some(s.session_id.0.to_string()),
                        _ => None,
                    };
                    let Some((session, route)) =
                        session.and_then(|s| h10.route(&s).map(|r| (s, r)))
                    else {
                        // No turn is running in that session: nobody can answer.
                        return responder.respond(cancel());
                    };
                    if let ElicitationMode::Url(url) = &request.mode {
                        if let Some(bridge) = bridge() {
                            bridge.remember_elicitation(&url.elicitation_id.0, &session);
                        }
                    }
                    if let Err(mpsc::error::SendError(Incoming::Elicitation(lost))) =
                        route.send(Incoming::Elicitation(Box::new((request, responder))))
                    {
                        return lost.1.respond(cancel());
                    }
                    Ok(())
                },
                agent_client_protocol::on_receive_request!(),
            )
            .on_receive_request(
                async move |request: RequestPermissionRequest, responder, _cx| {
                    let Some(route) = h2.route(&request.session_id.0) else {
                        // No turn is running in that session: nobody can answer.
                        return responder.respond(RequestPermissionResponse::new(
                            RequestPermissionOutcome::Cancelled,
                        ));
                    };
                    if let Err(mpsc::error::SendError(Incoming::Permission(lost))) =
                        route.send(Incoming::Permission(Box::new((request, responder))))
                    {
                        return lost.1.respond(RequestPermissionResponse::new(
                            RequestPermissionOutcome::Cancelled,
                        ));
                    }
                    Ok(())
                },
                agent_client_protocol::on_receive_request!(),
            )
            .on_receive_request(
                async move |request: ReadTextFileRequest, responder, _cx| {
                    let ws = match h3.workspace() {
                        Ok(ws) => ws.clone(),
                        Err(e) => return responder.respond_with_error(e),
                    };
                    // Off the dispatch loop: a slow file must not hold other requests.
                    tokio::spawn(async move {
                        let shown = request.path.display().to_string();
                        let read = fs::off_loop(fs::TIMEOUT, &shown, move || {
                            ws.read(&request.path, request.line, request.limit)
                        })
                        .await;
                        let _ = match read {
                            Ok(text) => responder.respond(ReadTextFileResponse::new(text)),
                            Err(e) => {
                                responder.respond_with_error(Error::new(e.code(), e.message()))
                            }
                        };
                    });
                    Ok(())
                },
                agent_client_protocol::on_receive_request!(),
            )
            .on_receive_request(
                async move |request: WriteTextFileRequest, responder, _cx| {
                    let ws = match h4.workspace() {
                        Ok(ws) => ws.clone(),
                        Err(e) => return responder.respond_with_error(e),
                    };
                    let routes = h4.clone();
                    // Off the dispatch loop: a slow file must not hold other requests.
                    tokio::spawn(async move {
                        let session = request.session_id.0.clone();
                        let shown = request.path.display().to_string();
                        let written = fs::off_loop(fs::TIMEOUT, &shown, move || {
                            ws.write(&request.path, &request.content)
                                .map(|w| (w, fs::diff_text(request.content)))
                        })
                        .await;
                        let _ = match written {
                            Ok(written) => {
                                // The turn updates the thread's Diff view.
                                if let Some(route) = routes.route(&session) {
                                    let _ = route.send(Incoming::Wrote(Box::new(written)));
                                }
                                responder.respond(WriteTextFileResponse::new())
                            }
                            Err(e) => {
                                responder.respond_with_error(Error::new(e.code(), e.message()))
                            }
                        };
                    });
                    Ok(())
                },
                agent_client_protocol::on_receive_request!(),
            )
            .on_receive_request(
                async move |request: CreateTerminalRequest, responder, _cx| {
                    let terminals = match h5.terminals() {
                        Ok(t) => t.clone(),
                        Err(e) => return responder.respond_with_error(e),
                    };
                    let spec = terminal::Spec {
                        command: request.command,
                        args: request.args,
                        env: request.env.into_iter().map(|v| (v.name, v.value)).collect(),
                        cwd: request.cwd,
                        output_byte_limit: request.output_byte_limit,
                    };
                    // Starting the command's reaper must not hold the dispatch loop.
                    tokio::spawn(async move {
                        let _ = match terminals.create(&request.session_id.0, spec).await {
                            Ok(id) => responder.respond(CreateTerminalResponse::new(id)),
                            Err(e) => responder.respond_with_error(Error::new(-32603, e)),
                        };
                    });
                    Ok(())
                },
                agent_client_protocol::on_receive_request!(),
            )
            .on_receive_request(
                async move |request: TerminalOutputRequest, responder, _cx| {
                    let terminals = match h6.terminals() {
                        Ok(t) => t.clone(),
                        Err(e) => return responder.respond_with_error(e),
                    };
                    match terminals.output(&request.session_id.0, &request.terminal_id.0) {
                        Ok((output, truncated, exit)) => responder.respond(
                            TerminalOutputResponse::new(output, truncated)
                                .exit_status(exit.map(exit_status)),
                        ),
                        Err(e) => responder.respond_with_error(Error::new(-32002, e)),
                    }
                },
                agent_client_protocol::on_receive_request!(),
            )
            .on_receive_request(
                async move |request: WaitForTerminalExitRequest, responder, _cx| {
                    let terminals = match h7.terminals() {
                        Ok(t) => t.clone(),
                        Err(e) => return responder.respond_with_error(e),
                    };
                    // Waiting must not hold the dispatch loop.
                    tokio::spawn(async move {
                        let _ = match terminals
                            .wait(&request.session_id.0, &request.terminal_id.0)
                            .await
                        {
                            Ok(exit) => responder
                                .respond(WaitForTerminalExitResponse::new(exit_status(exit))),
                            Err(e) => responder.respond_with_error(Error::new(-32002, e)),
                        };
                    });
                    Ok(())
                },
                agent_client_protocol::on_receive_request!(),
            )
            .on_receive_request(
                async move |request: KillTerminalRequest, responder, _cx| {
                    let terminals = match h8.terminals() {
                        Ok(t) => t.clone(),
                        Err(e) => return responder.respond_with_error(e),
                    };
                    match terminals.kill(&request.session_id.0, &request.terminal_id.0) {
                        Ok(()) => responder.respond(KillTerminalResponse::new()),
                        Err(e) => responder.respond_with_error(Error::new(-32002, e)),
                    }
                },
                agent_client_protocol::on_receive_request!(),
            )
            .on_receive_request(
                async move |request: ReleaseTerminalRequest, responder, _cx| {
                    let terminals = match h9.terminals() {
                        Ok(t) => t.clone(),
                        Err(e) => return responder.respond_with_error(e),
                    };
                    match terminals.release(&request.session_id.0, &request.terminal_id.0) {
                        Ok(()) => responder.respond(ReleaseTerminalResponse::new()),
                        Err(e) => responder.respond_with_error(Error::new(-32002, e)),
                    }
                },
                agent_client_protocol::on_receive_request!(),
            )
            .connect_with(agent, async move |cx: ConnectionTo<Agent>| {
                let _ = cx_tx.send(cx.clone());
                cx.incoming_closed().await;
                stdio::exit_after_output(exit).await;
                Ok(())
            })
            .await
    }
}

fn exit_status(exit: terminal::Exit) -> TerminalExitStatus {
    TerminalExitStatus::new()
        .exit_code(exit.code)
        .signal(exit.signal)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(path: &str, before: Option<&str>) -> fs::Written {
        fs::Written {
            relative: path.into(),
            before: before.map(str::to_owned),
        }
    }

    #[test]
    fn the_change_set_diffs_each_file_against_its_first_content() {
        let mut changes = ChangeSet::default();
        let patch = changes.wrote(written("new.txt", None), "one\n".into());
        assert!(patch.contains("new file mode"), "{patch}");
        assert!(patch.contains("+one"), "{patch}");
        // A file that existed: against its content before the first write, however
        // many writes follow.
        changes.wrote(written("old.txt", Some("a\nb\n")), "a\nB\n".into());
        let patch = changes.wrote(written("old.txt", Some("a\nB\n")), "a\nC\n".into());
        assert!(patch.contains("-b\n+C\n"), "{patch}");
        assert!(!patch.contains("B"), "{patch}");
        assert!(patch.contains("+one"), "both files: {patch}");
        // Back to how it was: that file leaves the diff.
        let patch = changes.wrote(written("old.txt", Some("a\nC\n")), "a\nb\n".into());
        assert!(!patch.contains("old.txt"), "{patch}");
        assert!(patch.contains("new.txt"), "{patch}");
    }

    #[test]
    fn the_change_set_keeps_no_huge_text() {
        let mut changes = ChangeSet::default();
        let huge = "line\n".repeat(4 * 1024 * 1024);
        let patch = changes.wrote(written("big.txt", Some(&huge)), format!("{huge}more\n"));
        let held: usize = changes
            .before
            .values()
            .chain(changes.after.values())
            .map(String::len)
            .sum();
        assert!(held < 1024, "{held} bytes held");
        // Still a change, shown by size and digest.
        assert!(patch.contains("too large to show"), "{patch}");
        assert!(patch.len() < 2048, "{} bytes of patch", patch.len());
        // Back to how it was: out of the diff.
        let patch = changes.wrote(written("big.txt", None), huge);
        assert!(!patch.contains("big.txt"), "{patch}");
    }
}
