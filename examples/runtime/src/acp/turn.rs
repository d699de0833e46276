//! One ACP turn: a user message becomes `session/prompt`, its `session/update`s become
//! ChatKit events (saved, then sent to the thread's channels and to the client that asked,
//! as they come), its permission requests become permission cards;
//! `threads.cancel_run`, a crash or the end of the turn close it. The turn is its thread's
//! run (`runs`): its client leaving does not stop it, unless another run of the thread was
//! under way when it started (it is then tied to its request, as every turn was before).

use super::{error_text, terminal, Bridge, ChangeSet, Conn, Incoming};
use crate::auth::User;
use crate::runs::{Outcome, RunHandle};
use crate::server::{self, AppState};
use crate::store::{self, now_iso, Store, UserStore};
use crate::views;
use agent_client_protocol::v1::schema::{
    CancelNotification, ContentBlock as AcpBlock, LoadSessionRequest, NewSessionRequest,
    PromptCapabilities, PromptRequest, RequestPermissionOutcome, RequestPermissionResponse,
    SessionUpdate, StopReason, TextContent,
};
use agent_client_protocol::v1::Responder;
use axum::body::{Body, Bytes};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use chat_shell_core::protocol::acp;
use chat_shell_core::protocol::chatkit::{
    AcpPermission, AcpPermissionRequested, AcpPlanItem, AcpThoughtChunk, AcpThoughtItem,
    AcpToolCallItem, AcpToolCallUpdated, Action, AssistantContent, AssistantMessage,
    ContentPartEvent, EndOfTurn, ErrorEvent, ItemEvent, ItemId, ItemKind, ItemUpdate,
    ItemUpdatedEvent, Note, NoticeEvent, NoticeLevel, Page, ProgressUpdateEvent, RequestBody,
    StreamEvent, TextDelta, Thread, ThreadEvent, ThreadId, ThreadItem, UserMessageInput,
    ACP_PERMISSION_ACTION,
};
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, oneshot};

/// A silent stream gets a keepalive comment this often (a permission may wait for long).
const KEEPALIVE: Duration = Duration::from_secs(10);
/// Text and thought deltas are saved at most this often.
const FLUSH_EVERY: Duration = Duration::from_millis(250);
/// A running command's output is put into its tool call at most this often.
const TERMINAL_EVERY: Duration = Duration::from_millis(250);
/// After `session/cancel`, the agent has this long to end its turn.
const CANCEL_GRACE: Duration = Duration::from_secs(10);
/// The thread metadata key holding the ACP session id.
pub const SESSION_KEY: &str = "acp_session_id";

type Frame = Result<Bytes, std::io::Error>;

/// What the HTTP side asks of a running turn.
pub(crate) enum Command {
    /// The user's answer to a permission request: the events that confirm it, or why not.
    Answer {
        tool_call_id: String,
        outcome: acp::PermissionOutcome,
        reply: oneshot::Sender<Result<Vec<StreamEvent>, Refused>>,
    },
}

/// Why an answer was not passed on.
pub(crate) enum Refused {
    /// Nothing asks for it (any more).
    NotPending(String),
    /// Not an answer to what is asked.
    Invalid(String),
}

/// How a turn ended.
enum Ended {
    Stop(StopReason),
    Failed { code: &'static str, message: String },
}

fn sse(body: Body) -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

fn frame(event: &StreamEvent) -> Option<Bytes> {
    match serde_json::to_string(event) {
        Ok(json) => Some(Bytes::from(format!("data: {json}\n\n"))),
        Err(e) => {
            eprintln!("chat-shell-runtime: cannot serialize an event: {e}");
            None
        }
    }
}

fn fixed_stream(events: &[StreamEvent]) -> Response {
    let body: Vec<u8> = events
        .iter()
        .filter_map(frame)
        .flat_map(|b| b.to_vec())
        .collect();
    sse(Body::from(body))
}

pub(crate) async fn stream(
    bridge: Arc<Bridge>,
    state: &Arc<AppState>,
    user: User,
    base: String,
    body: RequestBody,
) -> Result<Response, RequestBody> {
    let start = match body {
        RequestBody::ThreadsCreate { input } => Start::Message(None, input),
        RequestBody::AddUserMessage { thread_id, input } => Start::Message(Some(thread_id), input),
        RequestBody::RetryAfterItem { thread_id, item_id } => Start::Retry(thread_id, item_id),
        RequestBody::CustomAction {
            thread_id,
            item_id,
            action,
        } if action.kind == ACP_PERMISSION_ACTION => {
            return Ok(answer(bridge, state, user, thread_id, item_id, action).await);
        }
        other => return Err(other),
    };
    let prepared = {
        let (store, user) = (state.store.clone(), user.clone());
        tokio::task::spawn_blocking(move || prepare(&store.user(&user.0), &base, start)).await
    };
    let prepared = match prepared {
        Ok(Ok(Some(p))) => p,
        // An unknown thread (or someone else's): 200 and no event, like the scripted runtime.
        Ok(Ok(None)) => return Ok(sse(Body::empty())),
        Ok(Err(e)) => return Ok(server::internal(e)),
        Err(e) => return Ok(server::internal(e)),
    };
    let (tx, rx) = mpsc::channel::<Frame>(64);
    // Registered before the response goes out: a cancel sent right after it finds the run.
    let handle = state.runs.start(&user, &prepared.thread.id, &tx);
    let changes = bridge.slot(prepared.thread.id.as_str(), |s| s.changes.clone());
    let out = Out::new(
        state.clone(),
        user,
        prepared.thread.clone(),
        tx,
        handle,
        changes,
    );
    tokio::spawn(run(state.clone(), bridge, out, prepared));
    Ok(sse(Body::from_stream(futures_util::stream::unfold(
        rx,
        |mut rx| async move { rx.recv().await.map(|frame| (frame, rx)) },
    ))))
}

enum Start {
    /// A new message, in a new thread (`None`) or an existing one.
    Message(Option<ThreadId>, UserMessageInput),
    /// Answer this user message again.
    Retry(ThreadId, ItemId),
}

struct Prepared {
    thread: Thread,
    /// Sent before the agent is asked anything.
    first: Vec<StreamEvent>,
    prompt: Prompt,
}

/// What a user message asks the agent: its text and its files. Made into ACP content
/// once the agent's prompt capabilities are known ([`Prompt::blocks`]).
#[derive(Default)]
struct Prompt {
    text: String,
    files: Vec<PromptFile>,
}

/// An attachment of the message, with its bytes when they were uploaded.
struct PromptFile {
    name: String,
    mime_type: String,
    /// Where it can be fetched (its preview URL), or an `attachment:` id.
    uri: String,
    bytes: Option<Vec<u8>>,
}

/// The largest file given to the agent inline (as an image or an embedded resource);
/// a larger one goes as a link.
const INLINE_MAX: usize = 4 * 1024 * 1024;

impl Prompt {
    /// The ACP content of the prompt: the text, then each file as an image (when the agent
    /// takes images), as an embedded resource (when it takes embedded context: text as
    /// text, anything else as a blob), or as a resource link, which every agent takes.
    fn blocks(self, caps: &PromptCapabilities) -> Vec<AcpBlock> {
        let mut blocks = vec![AcpBlock::Text(TextContent::new(self.text))];
        for file in self.files {
            let inline = file.bytes.as_ref().filter(|b| b.len() <= INLINE_MAX);
            let block = match inline {
                Some(bytes) if caps.image && file.mime_type.starts_with("image/") => json!({
                    "type": "image", "data": BASE64.encode(bytes), "mimeType": file.mime_type,
                    "uri": file.uri,
                }),
                Some(bytes) if caps.embedded_context => match std::str::from_utf8(bytes) {
                    Ok(text) => json!({"type": "resource", "resource": {
                        "uri": file.uri, "mimeType": file.mime_type, "text": text,
                    }}),
                    Err(_) => json!({"type": "resource", "resource": {
                        "uri": file.uri, "mimeType": file.mime_type, "blob": BASE64.encode(bytes),
                    }}),
                },
                _ => json!({
                    "type": "resource_link", "uri": file.uri, "name": file.name,
                    "mimeType": file.mime_type,
                    "size": file.bytes.as_ref().map(Vec::len),
                }),
            };
            match serde_json::from_value(block) {
                Ok(block) => blocks.push(block),
                Err(e) => eprintln!("chat-shell-runtime: an attachment as ACP content: {e}"),
            }
        }
        blocks
    }
}

/// Saves the user message (or drops what followed the one retried). Blocking thread.
fn prepare(db: &UserStore<'_>, base: &str, start: Start) -> store::Result<Option<Prepared>> {
    let mut first = Vec::new();
    let (thread, message) = match start {
        Start::Message(thread_id, input) => {
            let thread = match thread_id {
                Some(id) => match db.thread(&id)? {
                    Some(thread) => thread,
                    None => return Ok(None),
                },
                None => {
                    let thread = db.create_thread()?;
                    let mut shown = thread.clone();
                    shown.items = Some(Page::default());
                    first.push(StreamEvent::ThreadCreated(ThreadEvent { thread: shown }));
                    thread
                }
            };
            let message = server::user_message(db, base, &thread.id, input)?;
            db.save_item(&message)?;
            first.push(StreamEvent::ItemDone(ItemEvent {
                item: message.clone(),
            }));
            (thread, message)
        }
        Start::Retry(thread_id, item_id) => {
            let Some(thread) = db.thread(&thread_id)? else {
                return Ok(None);
            };
            match db.item(&thread_id, &item_id)? {
                Some(item) if matches!(item.kind, ItemKind::UserMessage(_)) => {
                    db.delete_items_after(&thread_id, &item_id)?;
                    (thread, item)
                }
                _ => {
                    first.push(StreamEvent::Error(ErrorEvent {
                        code: "stream.error".into(),
                        message: Some(format!("{item_id} is not a user message")),
                        allow_retry: false,
                    }));
                    return Ok(Some(Prepared {
                        thread,
                        first,
                        prompt: Prompt::default(),
                    }));
                }
            }
        }
    };
    Ok(Some(Prepared {
        thread,
        first,
        prompt: prompt_of(db, &message)?,
    }))
}

/// What the user message asks: its text (with what it quotes) and its attachments, with
/// their bytes (the user's own uploads only).
fn prompt_of(db: &UserStore<'_>, message: &ThreadItem) -> store::Result<Prompt> {
    let ItemKind::UserMessage(m) = &message.kind else {
        return Ok(Prompt::default());
    };
    let mut text = m.text();
    if let Some(quoted) = m.quoted_text.as_deref().filter(|q| !q.is_empty()) {
        text = format!("> {}\n\n{text}", quoted.replace('\n', "\n> "));
    }
    let mut files = Vec::new();
    for a in &m.attachments {
        let upload = db.upload(&a.id.0)?;
        files.push(PromptFile {
            name: a.name.clone(),
            mime_type: upload
                .as_ref()
                .map_or_else(|| a.mime_type.clone(), |(mime, _)| mime.clone()),
            uri: a
                .preview_url
                .clone()
                .unwrap_or_else(|| format!("attachment:{}", a.id.0)),
            bytes: upload.map(|(_, bytes)| bytes),
        });
    }
    Ok(Prompt { text, files })
}

async fn run(state: Arc<AppState>, bridge: Arc<Bridge>, mut out: Out, prepared: Prepared) {
    let outcome = turn(&bridge, &mut out, prepared).await;
    // The origin ends first: once a cancel is answered, so is the stream it stopped.
    out.sink = None;
    state.runs.end(&out.run, outcome);
}

async fn turn(bridge: &Bridge, out: &mut Out, prepared: Prepared) -> Outcome {
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
struct Pending {
    item: ItemId,
    options: Vec<acp::PermissionOption>,
    responder: Responder<RequestPermissionResponse>,
}

fn respond(responder: Responder<RequestPermissionResponse>, outcome: &acp::PermissionOutcome) {
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
struct Route<'a> {
    bridge: &'a Bridge,
    session: String,
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

async fn drive(
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

async fn closed(sink: &Option<mpsc::Sender<Frame>>) {
    match sink {
        Some(tx) => tx.closed().await,
        None => std::future::pending().await,
    }
}

async fn answer_pending(
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
async fn cancel(
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
    bridge.kill_terminals(session);
    out.sink = None;
}

/// The thread's session in this agent process: the one already open, the one saved in the
/// thread's metadata (`session/load`), or a new one.
async fn open_session(bridge: &Bridge, conn: &Conn, out: &mut Out) -> Result<String, String> {
    let thread = out.thread.id.to_string();
    if let Some((generation, id)) = bridge.slot(&thread, |s| s.session.clone()) {
        if generation == conn.generation {
            return Ok(id);
        }
    }
    let saved = out
        .thread
        .metadata
        .get(SESSION_KEY)
        .and_then(Value::as_str)
        .map(str::to_owned);
    if let Some(id) = saved {
        if conn.load_session {
            // The history it replays is already in the store: no route, so it is dropped.
            let load = LoadSessionRequest::new(id.clone(), bridge.cwd.clone());
            let loaded = tokio::time::timeout(
                super::SETUP_TIMEOUT,
                conn.cx.send_request(load).block_task(),
            )
            .await;
            match loaded {
                Ok(Ok(_)) => {
                    println!("ACP: thread {thread} loaded session {id}");
                    bridge.slot(&thread, |s| s.session = Some((conn.generation, id.clone())));
                    return Ok(id);
                }
                Ok(Err(e)) => {
                    out.notice(format!(
                        "The agent could not load this thread's earlier session ({}); it starts a new one without that context.",
                        error_text(&e)
                    ))
                    .await
                }
                Err(_) => {
                    out.notice("The agent did not load this thread's earlier session in time; it starts a new one without that context.".into())
                        .await
                }
            }
        } else {
            out.notice("The agent was restarted and cannot load earlier sessions (no session/load): it does not remember this thread's earlier messages.".into())
                .await;
        }
    }
    let new = NewSessionRequest::new(bridge.cwd.clone());
    let created =
        tokio::time::timeout(super::SETUP_TIMEOUT, conn.cx.send_request(new).block_task())
            .await
            .map_err(|_| "no answer to session/new".to_owned())?
            .map_err(|e| error_text(&e))?;
    let id = created.session_id.0.to_string();
    bridge.slot(&thread, |s| s.session = Some((conn.generation, id.clone())));
    out.thread
        .metadata
        .insert(SESSION_KEY.into(), Value::String(id.clone()));
    let thread_copy = out.thread.clone();
    out.save_with(move |db| db.save_thread(&thread_copy).map(drop))
        .await;
    Ok(id)
}

/// The answer to `threads.custom_action` `acp.permission_response`.
async fn answer(
    bridge: Arc<Bridge>,
    state: &Arc<AppState>,
    user: User,
    thread_id: ThreadId,
    item_id: Option<ItemId>,
    action: Action,
) -> Response {
    let tool_call_id = action
        .payload
        .get("toolCallId")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let outcome = action
        .payload
        .get("outcome")
        .cloned()
        .and_then(|o| serde_json::from_value::<acp::PermissionOutcome>(o).ok());
    let error = |message: String| {
        fixed_stream(&[StreamEvent::Error(ErrorEvent {
            code: "stream.error".into(),
            message: Some(message),
            allow_retry: false,
        })])
    };
    let Some(outcome) = outcome else {
        return error("acp.permission_response needs payload.outcome".into());
    };
    // Only the owner's threads: the same answer as for a thread that does not exist.
    let owned = {
        let (id, item) = (thread_id.clone(), item_id.clone());
        state
            .db(&user, move |db| {
                let thread = db.thread(&id)?;
                let item = match (&thread, &item) {
                    (Some(_), Some(item)) => db.item(&id, item)?,
                    _ => None,
                };
                Ok((thread, item))
            })
            .await
    };
    let (thread, item) = match owned {
        Ok((Some(thread), item)) => (thread, item),
        Ok((None, _)) => return sse(Body::empty()),
        Err(response) => return response,
    };
    let turn = bridge.slot(thread.id.as_str(), |s| s.turn.clone());
    let mut why = "the agent's turn has ended".to_owned();
    if let Some(turn) = turn {
        let (reply_tx, reply_rx) = oneshot::channel();
        let sent = turn.send(Command::Answer {
            tool_call_id: tool_call_id.clone(),
            outcome: outcome.clone(),
            reply: reply_tx,
        });
        if sent.is_ok() {
            match tokio::time::timeout(Duration::from_secs(10), reply_rx).await {
                Ok(Ok(Ok(events))) => return fixed_stream(&events),
                Ok(Ok(Err(Refused::Invalid(e)))) => return error(e),
                Ok(Ok(Err(Refused::NotPending(e)))) => why = e,
                _ => {}
            }
        }
    }
    // Nothing is waiting for this answer (the turn ended, the runtime restarted): a card
    // still asking is settled as cancelled, so it stops asking.
    let mut events = Vec::new();
    if let Some(mut item) = item {
        if let ItemKind::AcpToolCall(call) = &mut item.kind {
            if let Some(permission) = call.permission.as_mut().filter(|p| p.outcome.is_none()) {
                permission.outcome = Some(acp::PermissionOutcome::Cancelled);
                let saved = item.clone();
                let _ = state.db(&user, move |db| db.save_item(&saved)).await;
                events.push(resolved(&item.id, acp::PermissionOutcome::Cancelled));
            }
        }
    }
    if outcome != acp::PermissionOutcome::Cancelled {
        events.push(StreamEvent::Error(ErrorEvent {
            code: "acp.permission_expired".into(),
            message: Some(format!(
                "The agent is no longer waiting for this answer: {why}."
            )),
            allow_retry: false,
        }));
    }
    fixed_stream(&events)
}

fn resolved(item: &ItemId, outcome: acp::PermissionOutcome) -> StreamEvent {
    StreamEvent::ItemUpdated(ItemUpdatedEvent {
        item_id: item.clone(),
        update: ItemUpdate::AcpPermissionResolved(acp::PermissionResponse { outcome }),
    })
}

/// SDK value -> the core's mirror of the same JSON.
fn mirror<T: serde::de::DeserializeOwned>(value: &impl serde::Serialize) -> Option<T> {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| serde_json::from_value(v).ok())
}

/// The turn's output: the store, the thread's channels, and the client's stream (while it
/// listens).
pub(crate) struct Out {
    state: Arc<AppState>,
    store: Arc<Store>,
    user: User,
    pub thread: Thread,
    pub sink: Option<mpsc::Sender<Frame>>,
    /// This turn as its thread's run.
    run: RunHandle,
    /// An error event was sent.
    failed: bool,
    last_write: Instant,
    /// Every item of this turn, as last sent.
    items: HashMap<ItemId, ThreadItem>,
    /// ACP tool call id -> item id.
    tool_items: HashMap<String, ItemId>,
    message: Option<ItemId>,
    thought: Option<ItemId>,
    plan: Option<ItemId>,
    dirty: HashSet<ItemId>,
    last_flush: Instant,
    /// The files the agent wrote in this thread: its Diff view.
    changes: Arc<Mutex<ChangeSet>>,
    /// Terminals (ours, `terminal/*`) that this turn's tool calls show: their output is
    /// streamed into the call while the command runs.
    live_terminals: HashMap<String, LiveTerminal>,
    /// Context compactions (ACP `compaction_update`) by id: the boundary item, its status
    /// and its summary so far.
    compactions: HashMap<String, Compaction>,
}

/// A context compaction the agent reported: a boundary in the conversation.
struct Compaction {
    item: ItemId,
    status: String,
    summary: String,
}

impl Compaction {
    /// The boundary's text: what happened to the context, and the agent's summary.
    fn text(&self) -> String {
        let what = match self.status.as_str() {
            "in_progress" => "Compacting the context".to_owned(),
            "completed" => "Context compacted".to_owned(),
            "failed" => "Context compaction failed".to_owned(),
            "cancelled" => "Context compaction cancelled".to_owned(),
            other => format!("Context compaction: {other}"),
        };
        match self.summary.trim() {
            "" => what,
            summary => format!("{what}: {summary}"),
        }
    }
}

/// A terminal shown in a tool call.
struct LiveTerminal {
    item: ItemId,
    tool_call_id: String,
    /// The raw output last put in the call; the agent setting its own ends the watch.
    shown: Option<Value>,
}

impl Out {
    fn new(
        state: Arc<AppState>,
        user: User,
        thread: Thread,
        sink: mpsc::Sender<Frame>,
        run: RunHandle,
        changes: Arc<Mutex<ChangeSet>>,
    ) -> Self {
        Out {
            store: state.store.clone(),
            state,
            changes,
            live_terminals: HashMap::new(),
            user,
            thread,
            sink: Some(sink),
            run,
            failed: false,
            last_write: Instant::now(),
            items: HashMap::new(),
            tool_items: HashMap::new(),
            compactions: HashMap::new(),
            message: None,
            thought: None,
            plan: None,
            dirty: HashSet::new(),
            last_flush: Instant::now(),
        }
    }

    /// Sends `event` (saved already, as far as it needs) to the thread's channels and the
    /// client.
    async fn emit(&mut self, event: StreamEvent) {
        let json = match serde_json::to_string(&event) {
            Ok(json) => json,
            Err(e) => {
                eprintln!("chat-shell-runtime: cannot serialize an event: {e}");
                return;
            }
        };
        self.failed |= matches!(event, StreamEvent::Error(_));
        self.run.publish(&event, &json, None);
        let Some(tx) = &self.sink else {
            return;
        };
        if tx
            .send(Ok(Bytes::from(format!("data: {json}\n\n"))))
            .await
            .is_err()
        {
            self.sink = None;
        } else {
            self.last_write = Instant::now();
        }
    }

    async fn keepalive(&mut self) {
        if self.last_write.elapsed() < KEEPALIVE {
            return;
        }
        if let Some(tx) = &self.sink {
            if tx
                .send(Ok(Bytes::from_static(b": keepalive\n\n")))
                .await
                .is_err()
            {
                self.sink = None;
            }
            self.last_write = Instant::now();
        }
    }

    async fn notice(&mut self, message: String) {
        self.emit(StreamEvent::Notice(NoticeEvent {
            level: NoticeLevel::Warning,
            message,
            title: None,
        }))
        .await;
    }

    async fn save_with(
        &self,
        f: impl FnOnce(&UserStore<'_>) -> store::Result<()> + Send + 'static,
    ) {
        if let Err(e) = server::blocking(self.store.clone(), self.user.clone(), f).await {
            eprintln!("chat-shell-runtime: cannot save the ACP turn: {e}");
        }
    }

    async fn save(&mut self, id: &ItemId) {
        self.dirty.remove(id);
        if let Some(item) = self.items.get(id).cloned() {
            self.save_with(move |db| db.save_item(&item)).await;
        }
    }

    async fn flush(&mut self) {
        let items: Vec<ThreadItem> = std::mem::take(&mut self.dirty)
            .into_iter()
            .filter_map(|id| self.items.get(&id).cloned())
            .collect();
        if !items.is_empty() {
            self.save_with(move |db| items.iter().try_for_each(|i| db.save_item(i)))
                .await;
        }
        self.last_flush = Instant::now();
    }

    async fn touched(&mut self, id: ItemId) {
        self.dirty.insert(id);
        if self.last_flush.elapsed() >= FLUSH_EVERY {
            self.flush().await;
        }
    }

    fn new_item(&self, prefix: &str, kind: ItemKind) -> ThreadItem {
        ThreadItem {
            id: ItemId(self.store.next_id(prefix)),
            thread_id: Some(self.thread.id.clone()),
            created_at: now_iso(),
            kind,
        }
    }

    /// Adds `item`: saved, then sent.
    async fn add(&mut self, item: ThreadItem) -> ItemId {
        let id = item.id.clone();
        self.items.insert(id.clone(), item.clone());
        self.save(&id).await;
        self.emit(StreamEvent::ItemAdded(ItemEvent { item })).await;
        id
    }

    async fn update(&mut self, id: &ItemId, update: ItemUpdate) {
        self.emit(StreamEvent::ItemUpdated(ItemUpdatedEvent {
            item_id: id.clone(),
            update,
        }))
        .await;
    }

    /// Ends the message or thought being streamed (something else comes next).
    async fn close_text(&mut self) {
        if let Some(id) = self.message.take() {
            let content = match self.items.get(&id).map(|i| &i.kind) {
                Some(ItemKind::AssistantMessage(m)) => m.content.first().cloned(),
                _ => None,
            };
            if let Some(content) = content {
                self.update(
                    &id,
                    ItemUpdate::ContentPartDone(ContentPartEvent {
                        content_index: 0,
                        content,
                    }),
                )
                .await;
            }
            self.done(&id).await;
        }
        if let Some(id) = self.thought.take() {
            self.done(&id).await;
        }
    }

    async fn done(&mut self, id: &ItemId) {
        self.save(id).await;
        if let Some(item) = self.items.get(id).cloned() {
            self.emit(StreamEvent::ItemDone(ItemEvent { item })).await;
        }
    }

    async fn incoming(
        &mut self,
        incoming: Incoming,
        pending: &mut HashMap<String, Pending>,
        cancelled: bool,
    ) {
        match incoming {
            Incoming::Update(update) => self.session_update(*update).await,
            Incoming::Wrote(wrote) => {
                let (written, content) = *wrote;
                let patch = self
                    .changes
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .wrote(written, content);
                let content = if patch.is_empty() {
                    json!({})
                } else {
                    json!({ "patch": patch })
                };
                let update = views::ViewUpdate {
                    group_id: self.thread.id.to_string(),
                    view_type: "diff".into(),
                    content_json: content.to_string(),
                };
                if let Err(e) = views::publish(&self.state, update).await {
                    eprintln!("chat-shell-runtime: cannot update the Diff view: {e}");
                }
            }
            Incoming::Permission(asked) => {
                let (request, responder) = *asked;
                let Some(request) = mirror::<acp::RequestPermission>(&request) else {
                    eprintln!("chat-shell-runtime: an unreadable permission request: cancelled");
                    return respond(responder, &acp::PermissionOutcome::Cancelled);
                };
                let id = self.tool_item(request.tool_call.clone()).await;
                if let Some(ItemKind::AcpToolCall(call)) =
                    self.items.get_mut(&id).map(|i| &mut i.kind)
                {
                    call.tool_call.apply(request.tool_call.clone());
                    call.permission = Some(AcpPermission {
                        options: request.options.clone(),
                        outcome: None,
                        action_id: None,
                        action_type: None,
                    });
                }
                self.save(&id).await;
                let options = request.options.clone();
                let tool_call_id = request.tool_call.tool_call_id.0.clone();
                self.update(
                    &id,
                    ItemUpdate::AcpPermissionRequested(AcpPermissionRequested { request }),
                )
                .await;
                if cancelled {
                    respond(responder, &acp::PermissionOutcome::Cancelled);
                    self.resolve(&id, acp::PermissionOutcome::Cancelled).await;
                } else if let Some(old) = pending.insert(
                    tool_call_id,
                    Pending {
                        item: id,
                        options,
                        responder,
                    },
                ) {
                    // The same call asked twice: the first question is void.
                    respond(old.responder, &acp::PermissionOutcome::Cancelled);
                }
            }
        }
    }

    /// The item of an ACP tool call, made from `update` if it is new.
    async fn tool_item(&mut self, update: acp::ToolCallUpdate) -> ItemId {
        if let Some(id) = self.tool_items.get(&update.tool_call_id.0) {
            return id.clone();
        }
        self.close_text().await;
        let key = update.tool_call_id.0.clone();
        let call = acp::ToolCall::from_update(update);
        let item = self.new_item(
            "tc",
            ItemKind::AcpToolCall(AcpToolCallItem {
                tool_call: call,
                permission: None,
            }),
        );
        let id = self.add(item).await;
        self.tool_items.insert(key, id.clone());
        id
    }

    /// Settles the permission card of `id`: saved, sent; returns the event.
    async fn resolve(&mut self, id: &ItemId, outcome: acp::PermissionOutcome) -> StreamEvent {
        if let Some(ItemKind::AcpToolCall(call)) = self.items.get_mut(id).map(|i| &mut i.kind) {
            call.permission
                .get_or_insert_with(AcpPermission::default)
                .outcome = Some(outcome.clone());
        }
        self.save(id).await;
        let event = resolved(id, outcome);
        self.emit(event.clone()).await;
        event
    }

    async fn session_update(&mut self, update: SessionUpdate) {
        match update {
            SessionUpdate::AgentMessageChunk(chunk) => {
                let Some(text) = block_text(&chunk.content) else {
                    return;
                };
                if let Some(thought) = self.thought.take() {
                    self.done(&thought).await;
                }
                let id = match self.message.clone() {
                    Some(id) => id,
                    None => {
                        let item = self.new_item(
                            "msg",
                            ItemKind::AssistantMessage(AssistantMessage {
                                content: vec![AssistantContent::text("")],
                            }),
                        );
                        let id = self.add(item).await;
                        self.update(
                            &id,
                            ItemUpdate::ContentPartAdded(ContentPartEvent {
                                content_index: 0,
                                content: AssistantContent::text(""),
                            }),
                        )
                        .await;
                        self.message = Some(id.clone());
                        id
                    }
                };
                if let Some(ItemKind::AssistantMessage(m)) =
                    self.items.get_mut(&id).map(|i| &mut i.kind)
                {
                    if let Some(part) = m.content.first_mut() {
                        part.text.push_str(&text);
                    }
                }
                self.update(
                    &id,
                    ItemUpdate::TextDelta(TextDelta {
                        content_index: 0,
                        delta: text,
                    }),
                )
                .await;
                self.touched(id).await;
            }
            SessionUpdate::AgentThoughtChunk(chunk) => {
                let Some(content) = mirror::<acp::ContentBlock>(&chunk.content) else {
                    return;
                };
                let Some(text) = content.text().map(str::to_owned) else {
                    return;
                };
                if self.message.is_some() {
                    let thought = self.thought.take();
                    self.close_text().await;
                    self.thought = thought;
                }
                let id = match self.thought.clone() {
                    Some(id) => id,
                    None => {
                        let item =
                            self.new_item("th", ItemKind::AcpThought(AcpThoughtItem::default()));
                        let id = self.add(item).await;
                        self.thought = Some(id.clone());
                        id
                    }
                };
                if let Some(ItemKind::AcpThought(t)) = self.items.get_mut(&id).map(|i| &mut i.kind)
                {
                    t.text.push_str(&text);
                }
                self.update(
                    &id,
                    ItemUpdate::AcpThoughtChunk(AcpThoughtChunk { content }),
                )
                .await;
                self.touched(id).await;
            }
            SessionUpdate::ToolCall(call) => {
                let Some(call) = mirror::<acp::ToolCall>(&call) else {
                    return eprintln!("chat-shell-runtime: an unreadable tool_call, skipped");
                };
                let key = call.tool_call_id.0.clone();
                if let Some(id) = self.tool_items.get(&key).cloned() {
                    // Announced again: the whole call is the new one.
                    let update: Option<acp::ToolCallUpdate> = mirror(&call);
                    if let Some(update) = update {
                        self.tool_update(&id, update).await;
                    }
                    return;
                }
                self.close_text().await;
                let item = self.new_item(
                    "tc",
                    ItemKind::AcpToolCall(AcpToolCallItem {
                        tool_call: call,
                        permission: None,
                    }),
                );
                let id = self.add(item).await;
                self.watch_terminals(&id);
                self.tool_items.insert(key, id);
            }
            SessionUpdate::ToolCallUpdate(update) => {
                let Some(update) = mirror::<acp::ToolCallUpdate>(&update) else {
                    return eprintln!(
                        "chat-shell-runtime: an unreadable tool_call_update, skipped"
                    );
                };
                match self.tool_items.get(&update.tool_call_id.0).cloned() {
                    Some(id) => self.tool_update(&id, update).await,
                    None => {
                        let id = self.tool_item(update.clone()).await;
                        self.tool_update(&id, update).await;
                    }
                }
            }
            SessionUpdate::Plan(plan) => {
                let Some(plan) = mirror::<acp::Plan>(&plan) else {
                    return;
                };
                match self.plan.clone() {
                    Some(id) => {
                        if let Some(ItemKind::AcpPlan(p)) =
                            self.items.get_mut(&id).map(|i| &mut i.kind)
                        {
                            p.entries = plan.entries.clone();
                        }
                        self.save(&id).await;
                        self.update(&id, ItemUpdate::AcpPlanUpdated(plan)).await;
                    }
                    None => {
                        self.close_text().await;
                        let item = self.new_item(
                            "plan",
                            ItemKind::AcpPlan(AcpPlanItem {
                                entries: plan.entries,
                            }),
                        );
                        let id = self.add(item).await;
                        self.plan = Some(id);
                    }
                }
            }
            // A compaction is a boundary in the order of the conversation, never a hidden
            // change to the text: a note, with its status and the agent's summary.
            SessionUpdate::CompactionUpdate(update) => {
                let status = serde_json::to_value(&update.status)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_else(|| "unknown".into());
                let summary = match &update.summary {
                    agent_client_protocol::schema::MaybeUndefined::Value(blocks) => Some(
                        blocks
                            .iter()
                            .filter_map(block_text)
                            .collect::<Vec<_>>()
                            .concat(),
                    ),
                    // `null` clears the summary; absent leaves it.
                    agent_client_protocol::schema::MaybeUndefined::Null => Some(String::new()),
                    agent_client_protocol::schema::MaybeUndefined::Undefined => None,
                };
                self.compaction(
                    update.compaction_id.to_string(),
                    Some(status),
                    summary,
                    None,
                )
                .await;
            }
            SessionUpdate::CompactionSummaryChunk(chunk) => {
                let more = block_text(&chunk.content);
                self.compaction(chunk.compaction_id.to_string(), None, None, more)
                    .await;
            }
            // Metrics (context use, cost) stay out of the conversation.
            SessionUpdate::UsageUpdate(_) => {}
            // The user's own words are already in the thread; the rest has no surface yet.
            _ => {}
        }
    }

    /// Compaction `id` changed: its status, its whole summary, or more of its summary.
    async fn compaction(
        &mut self,
        id: String,
        status: Option<String>,
        summary: Option<String>,
        more: Option<String>,
    ) {
        if !self.compactions.contains_key(&id) {
            self.close_text().await;
            let item = self.new_item(
                "note",
                ItemKind::Note(Note::Context {
                    text: String::new(),
                }),
            );
            let compaction = Compaction {
                item: item.id.clone(),
                status: "in_progress".into(),
                summary: String::new(),
            };
            self.items.insert(item.id.clone(), item);
            self.compactions.insert(id.clone(), compaction);
        }
        let Some(c) = self.compactions.get_mut(&id) else {
            return;
        };
        if let Some(status) = status {
            c.status = status;
        }
        if let Some(summary) = summary {
            c.summary = summary;
        }
        if let Some(more) = more {
            c.summary.push_str(&more);
        }
        let (item, text) = (c.item.clone(), c.text());
        if let Some(ItemKind::Note(Note::Context { text: shown })) =
            self.items.get_mut(&item).map(|i| &mut i.kind)
        {
            *shown = text;
        }
        self.done(&item).await;
    }

    async fn tool_update(&mut self, id: &ItemId, update: acp::ToolCallUpdate) {
        if let Some(ItemKind::AcpToolCall(call)) = self.items.get_mut(id).map(|i| &mut i.kind) {
            call.tool_call.apply(update.clone());
        }
        self.watch_terminals(id);
        self.save(id).await;
        self.update(
            id,
            ItemUpdate::AcpToolCallUpdated(AcpToolCallUpdated { update }),
        )
        .await;
    }

    /// Starts watching the terminals tool call `id` shows.
    fn watch_terminals(&mut self, id: &ItemId) {
        let Some(ItemKind::AcpToolCall(call)) = self.items.get(id).map(|i| &i.kind) else {
            return;
        };
        for content in &call.tool_call.content {
            if let acp::ToolCallContent::Terminal(t) = content {
                self.live_terminals
                    .entry(t.terminal_id.clone())
                    .or_insert_with(|| LiveTerminal {
                        item: id.clone(),
                        tool_call_id: call.tool_call.tool_call_id.0.clone(),
                        shown: None,
                    });
            }
        }
    }

    /// Puts each watched terminal's output so far into its tool call (shaped like a
    /// `terminal/output` answer), when it changed. A terminal stops being watched once its
    /// command has ended and that is shown, once it is released, or once the agent sets
    /// the call's raw output itself (the agent knows best). Only `session`'s own terminals
    /// are shown: an id of another session's is unknown here too.
    async fn stream_terminals(&mut self, terminals: &terminal::Terminals, session: &str) {
        let mut updates = Vec::new();
        self.live_terminals.retain(|terminal_id, live| {
            let current = match self.items.get(&live.item).map(|i| &i.kind) {
                Some(ItemKind::AcpToolCall(call)) => call.tool_call.raw_output.as_ref(),
                _ => return false,
            };
            if current.is_some() && current != live.shown.as_ref() {
                return false;
            }
            let Ok((output, truncated, exit)) = terminals.output(session, terminal_id) else {
                return false;
            };
            let mut raw = json!({ "output": output, "truncated": truncated });
            if let Some(exit) = &exit {
                raw["exitStatus"] = json!({ "exitCode": exit.code, "signal": exit.signal });
            }
            if live.shown.as_ref() != Some(&raw) {
                live.shown = Some(raw.clone());
                updates.push((live.item.clone(), live.tool_call_id.clone(), raw));
            }
            exit.is_none()
        });
        for (item, tool_call_id, raw) in updates {
            let update = serde_json::from_value::<acp::ToolCallUpdate>(
                json!({ "toolCallId": tool_call_id, "rawOutput": raw }),
            );
            if let Ok(update) = update {
                self.tool_update(&item, update).await;
            }
        }
    }

    async fn finish(&mut self, ended: Ended) {
        self.close_text().await;
        self.flush().await;
        let failed = matches!(ended, Ended::Failed { .. });
        if !failed && self.thread.title.is_none() {
            let thread_id = self.thread.id.clone();
            let first = server::blocking(self.store.clone(), self.user.clone(), move |db| {
                Ok(db
                    .all_items(&thread_id)?
                    .into_iter()
                    .find_map(|i| match &i.kind {
                        ItemKind::UserMessage(m)
                            if !chat_shell_core::adapters::chatkit::is_ghost(&i) =>
                        {
                            Some(m.text())
                        }
                        _ => None,
                    }))
            })
            .await
            .ok()
            .flatten();
            if let Some(first) = first {
                self.thread.title = Some(crate::scripts::title_from(&first));
                let thread = self.thread.clone();
                self.save_with(move |db| db.save_thread(&thread).map(drop))
                    .await;
                let mut shown = self.thread.clone();
                shown.items = Some(Page::default());
                self.emit(StreamEvent::ThreadUpdated(ThreadEvent { thread: shown }))
                    .await;
            }
        }
        // A turn that did not end normally says how in its stored end-of-turn item, so a
        // reload still says it; a failure is also an error the client can retry.
        let (reason, message) = match &ended {
            Ended::Stop(StopReason::EndTurn) => return,
            Ended::Stop(reason) => (stop_reason_name(reason), None),
            Ended::Failed { message, .. } => ("error".to_owned(), Some(message.clone())),
        };
        println!("ACP: thread {} ended: {reason}", self.thread.id);
        let end = self.new_item(
            "end",
            ItemKind::EndOfTurn(EndOfTurn {
                stop_reason: Some(reason),
                message,
            }),
        );
        let id = end.id.clone();
        self.items.insert(id.clone(), end);
        self.done(&id).await;
        if let Ended::Failed { code, message } = ended {
            self.emit(StreamEvent::Error(ErrorEvent {
                code: code.into(),
                message: Some(message),
                allow_retry: true,
            }))
            .await;
        }
    }
}

/// The wire name of an ACP stop reason (`max_tokens`, `refusal`, …).
fn stop_reason_name(reason: &StopReason) -> String {
    serde_json::to_value(reason)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_else(|| "unknown".to_owned())
}

/// The text a message chunk adds: text as is, a link as a markdown link.
fn block_text(block: &AcpBlock) -> Option<String> {
    match mirror::<acp::ContentBlock>(block)? {
        acp::ContentBlock::Text(t) => Some(t.text),
        acp::ContentBlock::ResourceLink(r) => {
            let label = r.title.clone().unwrap_or_else(|| r.name.clone());
            Some(format!("[{label}]({})", r.uri))
        }
        acp::ContentBlock::Resource(r) => r.resource.text.map(|t| format!("\n```\n{t}\n```\n")),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prompt() -> Prompt {
        let file = |name: &str, mime: &str, bytes: Option<&[u8]>| PromptFile {
            name: name.into(),
            mime_type: mime.into(),
            uri: format!("attachment:{name}"),
            bytes: bytes.map(<[u8]>::to_vec),
        };
        Prompt {
            text: "look".into(),
            files: vec![
                file("a.png", "image/png", Some(b"png")),
                file("b.txt", "text/plain", Some(b"text")),
                file("c.txt", "text/plain", None),
            ],
        }
    }

    fn kinds(blocks: &[AcpBlock]) -> Vec<String> {
        blocks
            .iter()
            .map(|b| {
                serde_json::to_value(b).unwrap()["type"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect()
    }

    #[test]
    fn attachments_go_as_the_agent_can_take_them() {
        // Every agent takes text and links.
        let none = prompt().blocks(&PromptCapabilities::new());
        assert_eq!(
            kinds(&none),
            ["text", "resource_link", "resource_link", "resource_link"]
        );
        let link = serde_json::to_value(&none[1]).unwrap();
        assert_eq!(
            (&link["name"], &link["mimeType"], &link["size"]),
            (&json!("a.png"), &json!("image/png"), &json!(3))
        );
        // Images inline; text embedded; a file whose bytes never came stays a link.
        let all = prompt().blocks(&PromptCapabilities::new().image(true).embedded_context(true));
        assert_eq!(kinds(&all), ["text", "image", "resource", "resource_link"]);
        let image = serde_json::to_value(&all[1]).unwrap();
        assert_eq!(image["data"], BASE64.encode(b"png"));
        let text = serde_json::to_value(&all[2]).unwrap();
        assert_eq!(text["resource"]["text"], "text");
    }
}
