//! The agent's process: started (and initialized) on demand, started again once it has
//! ended, with the capabilities the runtime announces.

use super::bridge::Conn;
use super::client::Handlers;
use super::{error_text, stdio, Bridge, SETUP_TIMEOUT};
use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema::{
    BooleanConfigOptionCapabilities, ClientCapabilities, ClientSessionCapabilities,
    CompactionCapabilities, ElicitationCapabilities, ElicitationFormCapabilities,
    ElicitationUrlCapabilities, FileSystemCapabilities, Implementation, InitializeRequest,
    SessionConfigOptionsCapabilities,
};
use agent_client_protocol::LineDirection;
use std::io::Write;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use tokio::sync::{oneshot, watch};

impl Bridge {
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

    pub(super) fn capabilities(&self) -> ClientCapabilities {
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

    pub(super) async fn start(&self) -> Result<Conn, String> {
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
            bridge: self.weak(),
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
    pub(super) fn kill_terminals(&self, session: &str) {
        if let Some(terminals) = &self.terminals {
            terminals.kill_session(session);
        }
    }
}
