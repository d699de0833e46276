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
//! (confined to it, `fs/`), `terminal/*` with `--allow-terminal` (`terminal.rs`). Always:
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
//!
//! The bridge itself (`bridge.rs`) is owned by the app state; around it: the agent's
//! process (`connection.rs`), the requests the agent sends (`client.rs`), what sessions
//! offer (`offers.rs`) and the files an agent changed (`changes.rs`).

pub(crate) mod bridge;
mod changes;
mod client;
mod connection;
pub(crate) mod files;
mod fs;
mod fuzzy;
mod held;
mod offers;
pub(crate) mod session;
mod sessions;
mod stdio;
mod terminal;
mod turn;

use agent_client_protocol::v1::schema::{
    CreateElicitationRequest, CreateElicitationResponse, RequestPermissionRequest,
    RequestPermissionResponse, SessionUpdate,
};
use agent_client_protocol::v1::Responder;
use agent_client_protocol::{AcpAgent, AcpAgentConfig, Error};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;

pub use bridge::Bridge;
pub(crate) use bridge::Conn;
pub(crate) use changes::ChangeSet;
pub use fs::Workspace;
pub(crate) use sessions::{DraftRefused, SetError, Unopened};
pub use stdio::DEFAULT_MAX_MESSAGE_MB;
pub(crate) use turn::stream;

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

/// A readable text for an ACP error: its message and data.
pub(crate) fn error_text(e: &Error) -> String {
    match &e.data {
        Some(serde_json::Value::String(s)) if !s.is_empty() => format!("{}: {s}", e.message),
        Some(data) if !data.is_null() => format!("{} ({data})", e.message),
        _ => e.message.clone(),
    }
}
