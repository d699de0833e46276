//! Driving a turn: the session opened or loaded, `session/prompt` sent, and what comes back
//! while it runs (updates, permission requests, a cancel, the agent exiting) routed to
//! `Out`.

use super::out::Out;
use super::prompt::{Prepared, Prompt};
use super::*;
use crate::acp::{error_text, Bridge, Conn};
use crate::runs::Outcome;
use crate::state::AppState;
use agent_client_protocol::v1::schema::{
    CancelNotification, PromptRequest, RequestPermissionOutcome, RequestPermissionResponse,
    StopReason,
};
use agent_client_protocol::v1::Responder;
use chat_shell_core::protocol::acp;
use chat_shell_core::protocol::chatkit::{
    ItemId, ItemUpdate, ItemUpdatedEvent, ProgressUpdateEvent, StreamEvent,
};
use serde_json::json;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

pub(super) async fn run(
    state: Arc<AppState>,
    bridge: Arc<Bridge>,
    mut out: Out,
    prepared: Prepared,
) {
    let outcome = turn(&bridge, &mut out, prepared).await;
    // The origin ends first: once a cancel is answered, so is the stream it stopped.
    out.sink = None;
    state.runs.end(&out.run, outcome);
}

pub(super) async fn turn(bridge: &Bridge, out: &mut Out, prepared: Prepared) -> Outcome {
    out.created = prepared
        .first
        .iter()
        .any(|e| matches!(e, StreamEvent::ThreadCreated(_)));
    for event in prepared.first {
        let is_error = matches!(event, StreamEvent::Error(_));
        out.emit(event).await;
        if is_error {
            return Outcome::Failed;
        }
    }
    let thread = out.thread.id.to_string();
    // One turn per thread: a new message waits for the previous turn to wind down.
    let lock = bridge.slot(&thread, |s| s.lock.clone());
    let _turn = lock.lock().await;
    let (cmd_tx, cmd_rx) = mpsc::unbounded_channel();
    bridge.slot(&thread, |s| s.turn = Some(cmd_tx));
    let ended = drive(bridge, out, prepared.prompt, cmd_rx).await;
    bridge.slot(&thread, |s| s.turn = None);
    let cancelled = matches!(ended, Ended::Stop(StopReason::Cancelled));
    out.finish(ended).await;
    if cancelled {
        Outcome::Cancelled
    } else if out.failed {
        Outcome::Failed
    } else {
        Outcome::Done
    }
}

/// A pending permission request.
pub(super) struct Pending {
    pub(super) item: ItemId,
    pub(super) options: Vec<acp::PermissionOption>,
    pub(super) responder: Responder<RequestPermissionResponse>,
}

pub(super) fn respond(
    responder: Responder<RequestPermissionResponse>,
    outcome: &acp::PermissionOutcome,
) {
    let outcome = serde_json::from_value::<RequestPermissionOutcome>(json!(outcome))
        .unwrap_or(RequestPermissionOutcome::Cancelled);
    if let Err(e) = responder.respond(RequestPermissionResponse::new(outcome)) {
        eprintln!(
            "chat-shell-runtime: cannot answer a permission request: {}",
            error_text(&e)
        );
    }
}

/// Removes the session's route when the turn ends, however it ends.
pub(super) struct Route<'a> {
    pub(super) bridge: &'a Bridge,
    pub(super) session: String,
}

impl Drop for Route<'_> {
    fn drop(&mut self) {
        self.bridge
            .routes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&self.session);
    }
}

pub(super) async fn drive(
    bridge: &Bridge,
    out: &mut Out,
    prompt: Prompt,
    mut commands: mpsc::UnboundedReceiver<Command>,
) -> Ended {
    // A runtime status before the agent's first word: starting its process and opening a
    // session can take seconds, and the reader should see the turn was taken.
    let status = if bridge.connected().await {
        "Waiting for the agent"
    } else {
        "Starting the agent"
    };
    out.emit(StreamEvent::ProgressUpdate(ProgressUpdateEvent {
        icon: None,
        text: status.into(),
    }))
    .await;
    let conn = match bridge.connection().await {
        Ok(conn) => conn,
        Err(e) => {
            return Ended::Failed {
                code: "acp.agent_unavailable",
                message: format!("The agent could not start: {e}"),
            }
        }
    };
    let session = match open_session(bridge, &conn, out).await {
        Ok(session) => session,
        Err(e) => {
            return Ended::Failed {
                code: "acp.session",
                message: format!("The agent could not open a session: {e}"),
            }
        }
    };
    let (in_tx, mut inbox) = mpsc::unbounded_channel();
    bridge
        .routes
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(session.clone(), in_tx);
    let _route = Route {
        bridge,
        session: session.clone(),
    };
    let request = PromptRequest::new(session.clone(), prompt.blocks(&conn.prompt));
    let mut prompt = Box::pin(conn.cx.send_request(request).block_task());
    let mut pending: HashMap<String, Pending> = HashMap::new();
    // The client's end of the stream: closed is Stop for a turn tied to its request.
    let mut watch_sink = out.sink.clone();
    let mut cancel_requested = out.run.run.cancel_requested();
    let mut cancelled = false;
    let mut deadline: Option<Instant> = None;
    let mut ended = conn.ended.clone();
    let mut shutdown = bridge.shutdown.clone();
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    let mut terminal_tick = tokio::time::interval(TERMINAL_EVERY);
    let result: Result<_, String> = loop {
        tokio::select! {
            biased;
            Some(incoming) = inbox.recv() => {
                out.incoming(incoming, &mut pending, cancelled).await;
            }
            result = &mut prompt => break Ok(result),
            Some(command) = commands.recv() => match command {
                Command::Elicit { item, outcome, reply } => {
                    let _ = reply.send(out.answer_elicitation(&item, outcome).await);
                }
                Command::Answer { tool_call_id, outcome, reply } => {
                    let answered = answer_pending(out, &mut pending, &tool_call_id, &outcome).await;
                    let _ = reply.send(answered);
                    if outcome == acp::PermissionOutcome::Cancelled && !cancelled {
                        println!(
                            "ACP: a permission request of thread {} was cancelled: session/cancel",
                            out.thread.id
                        );
                        cancel(bridge, &conn, &session, &mut pending, out).await;
                        cancelled = true;
                        deadline = Some(Instant::now() + CANCEL_GRACE);
                    }
                }
            },
            _ = closed(&watch_sink), if !cancelled => {
                watch_sink = None;
                if out.run.attached() {
                    out.sink = None;
                    // A reload hydrates from the store: what was sent so far is saved now.
                    out.flush().await;
                    println!("ACP: the client left thread {} (the turn goes on)", out.thread.id);
                } else {
                    println!("ACP: the client left thread {}: session/cancel", out.thread.id);
                    cancel(bridge, &conn, &session, &mut pending, out).await;
                    cancelled = true;
                    deadline = Some(Instant::now() + CANCEL_GRACE);
                }
            }
            _ = async { drop(cancel_requested.wait_for(|c| *c).await) }, if !cancelled => {
                println!("ACP: the run of thread {} was cancelled: session/cancel", out.thread.id);
                cancel(bridge, &conn, &session, &mut pending, out).await;
                cancelled = true;
                deadline = Some(Instant::now() + CANCEL_GRACE);
            }
            why = async { ended.wait_for(Option::is_some).await.ok().and_then(|w| w.clone()) } => {
                break Err(why.unwrap_or_default());
            }
            _ = async { drop(shutdown.wait_for(|stop| *stop).await) }, if !cancelled => {
                cancel(bridge, &conn, &session, &mut pending, out).await;
                cancelled = true;
                deadline = Some(Instant::now() + Duration::from_secs(1));
            }
            _ = terminal_tick.tick(), if !out.live_terminals.is_empty() => {
                if let Some(terminals) = &bridge.terminals {
                    out.stream_terminals(terminals, &session).await;
                }
            }
            _ = tick.tick() => {
                out.keepalive().await;
                if deadline.is_some_and(|d| Instant::now() >= d) {
                    break Err("it did not end its turn after session/cancel".to_owned());
                }
            }
        }
    };
    // What came before the answer is still to be shown.
    while let Ok(incoming) = inbox.try_recv() {
        out.incoming(incoming, &mut pending, true).await;
    }
    for (_, p) in pending.drain() {
        respond(p.responder, &acp::PermissionOutcome::Cancelled);
        out.resolve(&p.item, acp::PermissionOutcome::Cancelled)
            .await;
    }
    out.cancel_elicitations().await;
    let exited = |why: String| Ended::Failed {
        code: "acp.agent_exited",
        message: format!(
            "The agent stopped mid-turn: {why}. Send a message (or retry) to start it again."
        ),
    };
    match result {
        Ok(Ok(answer)) => Ended::Stop(answer.stop_reason),
        Ok(Err(e)) => {
            // A crash fails the request before the process is reaped: wait for the reason.
            let mut ended = conn.ended.clone();
            let why = tokio::time::timeout(Duration::from_secs(3), ended.wait_for(Option::is_some))
                .await
                .ok()
                .and_then(|r| r.ok().and_then(|w| w.clone()));
            match why {
                Some(why) => exited(why),
                None if cancelled => Ended::Stop(StopReason::Cancelled),
                None => Ended::Failed {
                    code: "acp.error",
                    message: format!("The agent failed this turn: {}", error_text(&e)),
                },
            }
        }
        Err(why) if cancelled && conn.alive() => {
            eprintln!("chat-shell-runtime: ACP agent: {why}");
            Ended::Stop(StopReason::Cancelled)
        }
        Err(why) => exited(why),
    }
}

pub(super) async fn closed(sink: &Option<mpsc::Sender<Frame>>) {
    match sink {
        Some(tx) => tx.closed().await,
        None => std::future::pending().await,
    }
}

pub(super) async fn answer_pending(
    out: &mut Out,
    pending: &mut HashMap<String, Pending>,
    tool_call_id: &str,
    outcome: &acp::PermissionOutcome,
) -> Result<Vec<StreamEvent>, Refused> {
    let Some(p) = pending.get(tool_call_id) else {
        return Err(Refused::NotPending(format!(
            "no permission request is pending for tool call {tool_call_id}"
        )));
    };
    match outcome {
        acp::PermissionOutcome::Selected { option_id }
            if !p.options.iter().any(|o| &o.option_id == option_id) =>
        {
            return Err(Refused::Invalid(format!(
                "{} is not one of the options offered",
                option_id.0
            )));
        }
        acp::PermissionOutcome::Other(_) => {
            return Err(Refused::Invalid("not a permission outcome".into()))
        }
        _ => {}
    }
    let Some(p) = pending.remove(tool_call_id) else {
        return Err(Refused::NotPending("gone".into()));
    };
    respond(p.responder, outcome);
    let event = out.resolve(&p.item, outcome.clone()).await;
    Ok(vec![event])
}

/// Stop: `session/cancel`, every pending request answered `cancelled`, the session's
/// terminals killed, nothing more sent to the client (the thread's channels see the turn
/// to its end).
pub(super) async fn cancel(
    bridge: &Bridge,
    conn: &Conn,
    session: &str,
    pending: &mut HashMap<String, Pending>,
    out: &mut Out,
) {
    if let Err(e) = conn
        .cx
        .send_notification(CancelNotification::new(session.to_owned()))
    {
        eprintln!(
            "chat-shell-runtime: cannot send session/cancel: {}",
            error_text(&e)
        );
    }
    for (_, p) in pending.drain() {
        respond(p.responder, &acp::PermissionOutcome::Cancelled);
        out.resolve(&p.item, acp::PermissionOutcome::Cancelled)
            .await;
    }
    out.cancel_elicitations().await;
    bridge.kill_terminals(session);
    out.sink = None;
}

/// The thread's session in this agent process: the one already open, the one saved in the
/// thread's metadata (`session/load`), the user's draft, or a new one.
pub(super) async fn open_session(
    bridge: &Bridge,
    conn: &Conn,
    out: &mut Out,
) -> Result<String, String> {
    let mut thread = out.thread.clone();
    let opening = bridge
        .open_thread(conn, &out.user.0, &mut thread, false, true, out.created)
        .await?
        .ok_or_else(|| "no session".to_owned())?;
    for notice in opening.notices {
        out.notice(notice).await;
    }
    if opening.changed {
        out.thread.metadata = thread.metadata;
        let thread_copy = out.thread.clone();
        out.save_with(move |db| db.save_thread(&thread_copy).map(drop))
            .await;
    }
    Ok(opening.id)
}

pub(super) fn resolved(item: &ItemId, outcome: acp::PermissionOutcome) -> StreamEvent {
    StreamEvent::ItemUpdated(ItemUpdatedEvent {
        item_id: item.clone(),
        update: ItemUpdate::AcpPermissionResolved(acp::PermissionResponse { outcome }),
    })
}

/// SDK value -> the core's mirror of the same JSON.
pub(super) fn mirror<T: serde::de::DeserializeOwned>(value: &impl serde::Serialize) -> Option<T> {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| serde_json::from_value(v).ok())
}
