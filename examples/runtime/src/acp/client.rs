//! The runtime's side as the agent's client: the requests and notifications the agent
//! sends (`session/update`, permission requests, elicitations, `fs/*`, `terminal/*`),
//! each answered at once or handed to the session's running turn.

use super::bridge::MAX_URL_ELICITATIONS;
use super::{fs, stdio, terminal, Bridge, Incoming, Routes, Workspace};
use agent_client_protocol::v1::schema::{
    CompleteElicitationNotification, CreateElicitationRequest, CreateElicitationResponse,
    CreateTerminalRequest, CreateTerminalResponse, ElicitationAction, ElicitationMode,
    ElicitationScope, KillTerminalRequest, KillTerminalResponse, ReadTextFileRequest,
    ReadTextFileResponse, ReleaseTerminalRequest, ReleaseTerminalResponse,
    RequestPermissionOutcome, RequestPermissionRequest, RequestPermissionResponse,
    SessionNotification, TerminalExitStatus, TerminalOutputRequest, TerminalOutputResponse,
    WaitForTerminalExitRequest, WaitForTerminalExitResponse, WriteTextFileRequest,
    WriteTextFileResponse,
};
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::{Agent, Client, Error};
use std::sync::{Arc, Weak};
use tokio::sync::{mpsc, oneshot};

/// What the connection's handlers share. They run in the connection's dispatch loop: each
/// returns at once, and whatever waits (a permission answer, a command's exit) is handed
/// to a turn or a task.
#[derive(Clone)]
pub(super) struct Handlers {
    /// The bridge, for what it keeps whether or not a turn runs (weak: it holds them).
    pub(super) bridge: Weak<Bridge>,
    pub(super) routes: Routes,
    pub(super) workspace: Option<Workspace>,
    pub(super) terminals: Option<Arc<terminal::Terminals>>,
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

    pub(super) async fn connect(
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
                    if let Some(bridge) = h1.bridge.upgrade() {
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
                    let session = h11
                        .bridge
                        .upgrade()
                        .and_then(|b| b.elicitation_session(&id));
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
                        if let Some(bridge) = h10.bridge.upgrade() {
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

impl Bridge {
    pub(super) fn remember_elicitation(&self, id: &str, session: &str) {
        let mut all = self.elicitations.lock().unwrap_or_else(|e| e.into_inner());
        if all.len() >= MAX_URL_ELICITATIONS {
            all.clear();
        }
        all.insert(id.to_owned(), session.to_owned());
    }

    pub(super) fn elicitation_session(&self, id: &str) -> Option<String> {
        self.elicitations
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(id)
    }
}
