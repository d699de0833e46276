//! A scripted, model-free ACP agent, built with the official `agent-client-protocol`
//! crate, for chat-shell's reference runtime (`chat-shell-runtime --acp`). A keyword in the
//! prompt picks what it does (see [`KEYWORDS`]): every tool call kind, diffs (a new file, a
//! change, a deletion), a terminal through the client's terminal capability, file access
//! through the client's `fs/*`, a failing tool, permission requests with all four option
//! kinds ("always" is remembered for the session), a plan that updates, thoughts, a long
//! run to Stop, each honest stop reason, and an agent that exits mid-turn.
//!
//! It offers the session controls too (src/controls.rs): modes `ask`/`code` and config
//! options `mode`, `model` (`scripted-locked` is refused, with the reason in the error's
//! `data`), `thought_level` (`high` on `scripted-fast` is adjusted to `medium`) and, for a
//! client that takes booleans, `auto_approve`; the prompt words `options+`/`options-` add and
//! remove a `verbosity` option; slash commands `web`, `test`, `plan` (`commands-` withdraws
//! `web` and adds `review`, `commands+` restores them; a prompt `/name args` says what ran);
//! a `usage_update` after each turn; a title after the first; `elicit` (a form) and
//! `elicit-url` (a link, then `elicitation/complete`) for clients that advertise them.
//!
//! Sessions support `session/list` (paged by `--page-size`), `session/load` (replays the
//! transcript), `session/resume` (no replay) and `session/close` (cancels its turn and
//! forgets it in memory): with `--sessions DIR` (alias of `--state-dir`) their history is
//! kept in `DIR/<sessionId>.json`, so a new agent process (after a runtime restart), or
//! this one after a close, lists and loads them; without it they live in memory.

mod controls;

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema::{
    AgentCapabilities, CancelNotification, ClientCapabilities, CloseSessionRequest,
    CloseSessionResponse, CompleteElicitationNotification, CreateElicitationRequest,
    CreateTerminalRequest, InitializeRequest, InitializeResponse, ListSessionsRequest,
    ListSessionsResponse, LoadSessionRequest, LoadSessionResponse, NewSessionRequest,
    NewSessionResponse, PermissionOptionKind, PromptRequest, PromptResponse, ReadTextFileRequest,
    ReleaseTerminalRequest, RequestPermissionOutcome, RequestPermissionRequest,
    ResumeSessionRequest, ResumeSessionResponse, SessionId, SessionNotification, SessionUpdate,
    SetSessionConfigOptionRequest, SetSessionConfigOptionResponse, SetSessionModeRequest,
    SetSessionModeResponse, StopReason, TerminalOutputRequest, WaitForTerminalExitRequest,
    WriteTextFileRequest,
};
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::{Agent, Client, Error, Stdio};
use controls::Controls;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::Notify;

/// The scripts, by the keyword that picks them (the first found in the prompt wins).
pub const KEYWORDS: &[&str] = &[
    "tour",
    "crash",
    "broken",
    "max tokens",
    "max turn",
    "refuse",
    "slow terminal",
    "long",
    "permission",
    "terminal",
    "files",
    "tools",
    "plan",
    "think",
    "recall",
    "compact",
    "fs read",
    "fs write",
    "huge reply",
    "huge choices",
    "odd values",
];

/// A scripted ACP agent on stdin/stdout (no model): a keyword in the prompt picks the script.
// A flag given twice takes its last value.
#[derive(Clone, Debug, PartialEq, clap::Parser)]
#[command(
    name = "chat-shell-acp-agent",
    args_override_self = true,
    after_help = "Keywords: tools, terminal, files, permission, plan, think, long, slow terminal, \
recall,\n  compact, max tokens, max turn, refuse, crash, broken; `fs read PATH` and `fs write \
PATH`\n  (the whole prompt) make one file call; huge reply (a 25 MB message),\n  huge \
choices (an option of 100,000 choices) and odd values (usage out of range, labels with \
bidi\n  controls) test the client's limits; anything else is echoed. A prompt starting \
`shell:`\n  runs the rest with `sh -c` in a client terminal; one starting `peek:` asks the \
client for\n  the output of the terminal id that follows (tests).\n\nSession controls: \
options+ / options- (a Verbosity option),\n  commands- / commands+ \
(/web withdrawn, /review added, and back), `/name args` (says\n  which command ran), elicit \
(a form), elicit-url (a link). Model scripted-locked is refused;\n  Thinking high on \
scripted-fast becomes medium."
)]
pub struct Options {
    /// Delay between streamed chunks
    #[arg(long = "pace-ms", value_name = "MS", default_value = "30", value_parser = pace)]
    pub pace: Duration,
    /// Keep each session's history in DIR, so session/list and session/load work in a new
    /// process
    #[arg(long, visible_alias = "sessions", value_name = "DIR")]
    pub state_dir: Option<PathBuf>,
    /// Sessions per page of session/list
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub page_size: usize,
    /// No script: replay ACP traffic the runtime recorded (CHAT_SHELL_ACP_RECORD=FILE)
    #[arg(long, value_name = "FILE")]
    pub replay: Option<PathBuf>,
}

fn pace(v: &str) -> Result<Duration, String> {
    v.parse()
        .map(Duration::from_millis)
        .map_err(|_| "not a number of milliseconds".into())
}

/// What the agent remembers of one session.
#[derive(Default)]
struct Session {
    cwd: PathBuf,
    /// `("user" | "agent", text)`, oldest first.
    history: Vec<(String, String)>,
    /// Remembered `*_always` choices, by tool kind: true = allow.
    always: HashMap<String, bool>,
    /// Modes, options, commands, usage and title.
    controls: Controls,
    cancel: Arc<Cancel>,
}

/// The cancel flag of a session's current turn.
#[derive(Default)]
struct Cancel {
    flag: AtomicBool,
    notify: Notify,
}

impl Cancel {
    fn set(&self) {
        self.flag.store(true, Ordering::SeqCst);
        self.notify.notify_waiters();
    }

    fn is_set(&self) -> bool {
        self.flag.load(Ordering::SeqCst)
    }

    /// Sleeps `d`; false when cancelled first.
    async fn sleep(&self, d: Duration) -> bool {
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

struct State {
    options: Options,
    client: Mutex<ClientCapabilities>,
    sessions: Mutex<HashMap<String, Session>>,
    next: AtomicU64,
}

impl State {
    fn state_file(&self, id: &str) -> Option<PathBuf> {
        let safe = id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        let dir = self.options.state_dir.as_ref()?;
        safe.then(|| dir.join(format!("{id}.json")))
    }

    fn save(&self, id: &str) {
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
    fn booleans(&self) -> bool {
        let client = self.client.lock().unwrap_or_else(|e| e.into_inner());
        client
            .session
            .as_ref()
            .and_then(|s| s.config_options.as_ref())
            .is_some_and(|c| c.boolean.is_some())
    }

    /// The session `id`, from memory or from its file; `f` sees it (and may change it).
    fn with_session<T>(&self, id: &str, f: impl FnOnce(&mut Session) -> T) -> Option<T> {
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
    fn listed(&self) -> Vec<(String, PathBuf, Option<String>, String)> {
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

/// A typed ACP message from its JSON (the scripts write the wire as ACP documents it).
fn typed<T: serde::de::DeserializeOwned>(value: Value) -> Result<T, Error> {
    serde_json::from_value(value).map_err(|e| Error::internal_error().data(e.to_string()))
}

/// What a session offers besides its turns, sent after it opens (`new`, `load`, `resume`).
fn opened(cx: &ConnectionTo<Client>, id: &str, controls: &Controls) -> Result<(), Error> {
    notify(cx, id, controls.commands_update())?;
    if controls.turns > 0 {
        notify(cx, id, controls.usage_update())?;
    }
    Ok(())
}

/// Serves ACP on this process's stdin and stdout until the client closes it.
pub async fn serve_stdio(options: Options) -> Result<(), Error> {
    let state = Arc::new(State {
        options,
        client: Mutex::new(ClientCapabilities::default()),
        sessions: Mutex::new(HashMap::new()),
        next: AtomicU64::new(1),
    });
    let (s1, s2, s3, s4, s5) = (
        state.clone(),
        state.clone(),
        state.clone(),
        state.clone(),
        state.clone(),
    );
    let (s6, s7, s8, s9) = (state.clone(), state.clone(), state.clone(), state.clone());
    let s10 = state.clone();
    Agent
        .v1()
        .name("chat-shell-acp-agent")
        .on_receive_request(
            async move |init: InitializeRequest, responder, _cx| {
                *s1.client.lock().unwrap_or_else(|e| e.into_inner()) = init.client_capabilities;
                let capabilities: AgentCapabilities = typed(json!({
                    "loadSession": true,
                    "promptCapabilities": {"image": true, "embeddedContext": true},
                    "sessionCapabilities": {"list": {}, "resume": {}, "close": {}},
                }))?;
                responder.respond(
                    InitializeResponse::new(ProtocolVersion::V1).agent_capabilities(capabilities),
                )
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: NewSessionRequest, responder, cx| {
                let n = s2.next.fetch_add(1, Ordering::SeqCst);
                let id = format!("sess-{}-{n}", std::process::id());
                let session = Session {
                    cwd: request.cwd,
                    ..Session::default()
                };
                let controls = session.controls.clone();
                s2.sessions
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(id.clone(), session);
                s2.save(&id);
                let mut answer = controls.session_fields(s2.booleans());
                answer["sessionId"] = json!(id);
                // The commands before the answer: a client that asks for the session's
                // state as soon as it has the id finds them there (the runtime keeps what
                // comes for a session it has not heard of yet).
                opened(&cx, &id, &controls)?;
                responder.respond(typed::<NewSessionResponse>(answer)?)
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: LoadSessionRequest, responder, cx| {
                let id = request.session_id.0.to_string();
                let known = s3.with_session(&id, |s| (s.history.clone(), s.controls.clone()));
                let Some((history, controls)) = known else {
                    return responder
                        .respond_with_error(Error::new(-32002, format!("unknown session {id}")));
                };
                // The history goes back as updates before the answer.
                for (role, text) in history {
                    let kind = if role == "user" {
                        "user_message_chunk"
                    } else {
                        "agent_message_chunk"
                    };
                    notify(
                        &cx,
                        &id,
                        json!({"sessionUpdate": kind, "content": {"type": "text", "text": text}}),
                    )?;
                }
                responder.respond(typed::<LoadSessionResponse>(
                    controls.session_fields(s3.booleans()),
                )?)?;
                opened(&cx, &id, &controls)
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: ResumeSessionRequest, responder, cx| {
                // Like load, without the replay: the client shows what it kept.
                let id = request.session_id.0.to_string();
                let Some(controls) = s6.with_session(&id, |s| s.controls.clone()) else {
                    return responder
                        .respond_with_error(Error::new(-32002, format!("unknown session {id}")));
                };
                responder.respond(typed::<ResumeSessionResponse>(
                    controls.session_fields(s6.booleans()),
                )?)?;
                opened(&cx, &id, &controls)
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: CloseSessionRequest, responder, _cx| {
                let id = request.session_id.0.to_string();
                let closed = s10
                    .sessions
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .remove(&id);
                match closed {
                    Some(session) => {
                        session.cancel.set();
                        responder.respond(CloseSessionResponse::new())
                    }
                    None => responder
                        .respond_with_error(Error::new(-32002, format!("unknown session {id}"))),
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: ListSessionsRequest, responder, _cx| {
                let all = s7.listed();
                let start: usize = match request.cursor.as_deref().map(str::parse) {
                    None => 0,
                    Some(Ok(n)) => n,
                    Some(Err(_)) => {
                        return responder.respond_with_error(Error::invalid_params().data("bad cursor"))
                    }
                };
                let size = s7.options.page_size.max(1);
                let page: Vec<Value> = all
                    .iter()
                    .skip(start)
                    .take(size)
                    .map(|(id, cwd, title, updated)| {
                        json!({"sessionId": id, "cwd": cwd, "title": title, "updatedAt": updated})
                    })
                    .collect();
                let next = (start + size < all.len()).then(|| (start + size).to_string());
                responder.respond(typed::<ListSessionsResponse>(
                    json!({"sessions": page, "nextCursor": next}),
                )?)
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: SetSessionModeRequest, responder, cx| {
                let id = request.session_id.0.to_string();
                let booleans = s8.booleans();
                let mode = json!(request.mode_id.0.as_ref());
                let set = s8.with_session(&id, |s| {
                    s.controls.set("mode", &mode, booleans).map(|()| s.controls.clone())
                });
                match set {
                    None => responder
                        .respond_with_error(Error::new(-32002, format!("unknown session {id}"))),
                    Some(Err(why)) => responder.respond_with_error(Error::invalid_params().data(why)),
                    Some(Ok(controls)) => {
                        s8.save(&id);
                        responder.respond(SetSessionModeResponse::new())?;
                        notify(&cx, &id, json!({"sessionUpdate": "current_mode_update", "currentModeId": controls.mode}))?;
                        notify(&cx, &id, json!({"sessionUpdate": "config_option_update",
                                                "configOptions": controls.config_options(booleans)}))
                    }
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: SetSessionConfigOptionRequest, responder, cx| {
                let id = request.session_id.0.to_string();
                let booleans = s9.booleans();
                let wire = serde_json::to_value(&request).unwrap_or(Value::Null);
                let value = wire.get("value").cloned().unwrap_or(Value::Null);
                let option = request.config_id.0.to_string();
                let set = s9.with_session(&id, |s| {
                    let before = s.controls.mode.clone();
                    s.controls
                        .set(&option, &value, booleans)
                        .map(|()| (s.controls.clone(), before != s.controls.mode))
                });
                match set {
                    None => responder
                        .respond_with_error(Error::new(-32002, format!("unknown session {id}"))),
                    Some(Err(why)) => responder.respond_with_error(Error::invalid_params().data(why)),
                    Some(Ok((controls, mode_changed))) => {
                        s9.save(&id);
                        responder.respond(typed::<SetSessionConfigOptionResponse>(
                            json!({"configOptions": controls.config_options(booleans)}),
                        )?)?;
                        if mode_changed {
                            notify(&cx, &id, json!({"sessionUpdate": "current_mode_update", "currentModeId": controls.mode}))?;
                        }
                        Ok(())
                    }
                }
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: PromptRequest, responder, cx| {
                let state = s4.clone();
                // The turn runs beside the dispatch loop: it waits for the client's answers.
                cx.clone().spawn(async move {
                    match prompt(&state, &cx, request).await {
                        Ok(reason) => responder.respond(PromptResponse::new(reason)),
                        Err(e) => responder.respond_with_error(e),
                    }
                })
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_notification(
            async move |cancel: CancelNotification, _cx| {
                let sessions = s5.sessions.lock().unwrap_or_else(|e| e.into_inner());
                if let Some(session) = sessions.get(cancel.session_id.0.as_ref()) {
                    session.cancel.set();
                }
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .connect_to(Stdio::new())
        .await
}

fn notify(cx: &ConnectionTo<Client>, session: &str, update: Value) -> Result<(), Error> {
    let update: SessionUpdate = serde_json::from_value(update)?;
    cx.send_notification(SessionNotification::new(session.to_owned(), update))
}

/// One turn's context.
struct Turn<'a> {
    state: &'a State,
    cx: &'a ConnectionTo<Client>,
    session: String,
    cwd: PathBuf,
    cancel: Arc<Cancel>,
    client: ClientCapabilities,
    said: String,
    calls: u32,
}

impl Turn<'_> {
    fn update(&self, update: Value) -> Result<(), Error> {
        notify(self.cx, &self.session, update)
    }

    /// Streams `text` word by word; false when cancelled.
    async fn say(&mut self, text: &str) -> Result<bool, Error> {
        for word in text.split_inclusive(' ') {
            if !self.cancel.sleep(self.state.options.pace).await {
                return Ok(false);
            }
            self.said.push_str(word);
            self.update(json!({
                "sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": word}
            }))?;
        }
        Ok(true)
    }

    async fn think(&mut self, text: &str) -> Result<bool, Error> {
        for word in text.split_inclusive(' ') {
            if !self.cancel.sleep(self.state.options.pace).await {
                return Ok(false);
            }
            self.update(json!({
                "sessionUpdate": "agent_thought_chunk",
                "content": {"type": "text", "text": word}
            }))?;
        }
        Ok(true)
    }

    async fn pause(&self) -> bool {
        self.cancel.sleep(self.state.options.pace * 3).await
    }

    fn new_call(&mut self) -> String {
        self.calls += 1;
        format!("call_{}", self.calls)
    }

    /// Announces a tool call (pending); returns its id.
    fn start(&mut self, title: &str, kind: &str, extra: Value) -> Result<String, Error> {
        let id = self.new_call();
        let mut call = json!({
            "sessionUpdate": "tool_call",
            "toolCallId": id,
            "title": title,
            "kind": kind,
            "status": "pending",
        });
        if let (Some(call), Some(extra)) = (call.as_object_mut(), extra.as_object()) {
            call.extend(extra.clone());
        }
        self.update(call)?;
        Ok(id)
    }

    fn set(&self, id: &str, fields: Value) -> Result<(), Error> {
        let mut update = json!({"sessionUpdate": "tool_call_update", "toolCallId": id});
        if let (Some(update), Some(fields)) = (update.as_object_mut(), fields.as_object()) {
            update.extend(fields.clone());
        }
        self.update(update)
    }

    /// A whole tool call: pending, in progress, then `status` with `fields`.
    async fn call(
        &mut self,
        title: &str,
        kind: &str,
        start: Value,
        status: &str,
        end: Value,
    ) -> Result<bool, Error> {
        let id = self.start(title, kind, start)?;
        if !self.pause().await {
            return Ok(false);
        }
        self.set(&id, json!({"status": "in_progress"}))?;
        if !self.pause().await {
            return Ok(false);
        }
        let mut end = end;
        if let Some(end) = end.as_object_mut() {
            end.insert("status".into(), json!(status));
        }
        self.set(&id, end)?;
        Ok(true)
    }

    fn path(&self, relative: &str) -> String {
        self.cwd.join(relative).display().to_string()
    }

    async fn read(&self, path: &str) -> Result<String, Error> {
        if !self.client.fs.read_text_file {
            return Err(Error::new(
                -32601,
                "the client did not announce fs/read_text_file",
            ));
        }
        let request = ReadTextFileRequest::new(self.session.clone(), PathBuf::from(path));
        Ok(self.cx.send_request(request).block_task().await?.content)
    }

    async fn write(&self, path: &str, content: &str) -> Result<(), Error> {
        if !self.client.fs.write_text_file {
            return Err(Error::new(
                -32601,
                "the client did not announce fs/write_text_file",
            ));
        }
        let request = WriteTextFileRequest::new(self.session.clone(), PathBuf::from(path), content);
        self.cx.send_request(request).block_task().await?;
        Ok(())
    }
}

fn text(s: impl Into<String>) -> Value {
    json!([{"type": "content", "content": {"type": "text", "text": s.into()}}])
}

/// What the prompt carries besides text, one phrase per block: the kind the client chose
/// (image, embedded text or blob, link), the type and the size.
fn files_received(request: &PromptRequest) -> Vec<String> {
    let value = serde_json::to_value(&request.prompt).unwrap_or(Value::Null);
    let decoded =
        |b64: &str| b64.len() / 4 * 3 - b64.bytes().rev().take_while(|&c| c == b'=').count();
    let s = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
    value
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|b| match b.get("type").and_then(Value::as_str)? {
            "image" => Some(format!(
                "an image ({}, {} bytes)",
                s(b, "mimeType"),
                decoded(&s(b, "data"))
            )),
            "resource" => {
                let r = b.get("resource")?;
                Some(match r.get("text").and_then(Value::as_str) {
                    Some(text) => format!(
                        "an embedded text ({}, {} characters, starting “{}”)",
                        s(r, "mimeType"),
                        text.chars().count(),
                        text.lines()
                            .next()
                            .unwrap_or("")
                            .chars()
                            .take(40)
                            .collect::<String>()
                    ),
                    None => format!(
                        "an embedded blob ({}, {} bytes)",
                        s(r, "mimeType"),
                        decoded(&s(r, "blob"))
                    ),
                })
            }
            "resource_link" => Some(format!("a link to {} ({})", s(b, "name"), s(b, "mimeType"))),
            _ => None,
        })
        .collect()
}

fn prompt_text(request: &PromptRequest) -> String {
    let value = serde_json::to_value(&request.prompt).unwrap_or(Value::Null);
    value
        .as_array()
        .map(|blocks| {
            blocks
                .iter()
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

async fn prompt(
    state: &State,
    cx: &ConnectionTo<Client>,
    request: PromptRequest,
) -> Result<StopReason, Error> {
    let id = request.session_id.0.to_string();
    let user_text = prompt_text(&request);
    let attached = files_received(&request);
    let (cwd, cancel, history) = {
        let mut sessions = state.sessions.lock().unwrap_or_else(|e| e.into_inner());
        let Some(session) = sessions.get_mut(&id) else {
            return Err(Error::new(-32002, format!("unknown session {id}")));
        };
        // A fresh flag per turn: a cancel belongs to the turn it was sent in.
        session.cancel = Arc::default();
        session.history.push(("user".into(), user_text.clone()));
        (
            session.cwd.clone(),
            session.cancel.clone(),
            session.history.clone(),
        )
    };
    let client = state
        .client
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    let mut turn = Turn {
        state,
        cx,
        session: id.clone(),
        cwd,
        cancel,
        client,
        said: String::new(),
        calls: history.len() as u32 * 100,
    };
    if !attached.is_empty() {
        turn.say(&format!("I received {}. ", attached.join("; ")))
            .await?;
    }
    let lower = user_text.to_lowercase();
    let command = user_text.trim();
    if let Some(reason) = controls_script(&mut turn, command, &lower).await? {
        return finish(state, &mut turn, &user_text, reason);
    }
    let keyword = ["shell:", "peek:"]
        .into_iter()
        .find(|prefix| command.starts_with(prefix))
        .or_else(|| KEYWORDS.iter().find(|k| lower.contains(*k)).copied());
    let reason = match keyword {
        Some("shell:") => terminal(&mut turn, command["shell:".len()..].trim())
            .await
            .map(ended)?,
        Some("peek:") => peek(&mut turn, command["peek:".len()..].trim()).await?,
        Some("crash") => {
            turn.say("Starting, and then this agent process exits on purpose. ")
                .await?;
            tokio::time::sleep(Duration::from_millis(100)).await;
            std::process::exit(3);
        }
        Some("broken") => {
            turn.say("This turn ends with a JSON-RPC error. ").await?;
            return Err(Error::new(-32603, "the scripted agent broke on purpose"));
        }
        Some("max tokens") => stop_early(&mut turn, StopReason::MaxTokens).await?,
        Some("max turn") => stop_early(&mut turn, StopReason::MaxTurnRequests).await?,
        Some("refuse") => stop_early(&mut turn, StopReason::Refusal).await?,
        Some("slow terminal") => slow_terminal(&mut turn).await?,
        Some("long") => long_run(&mut turn).await?,
        Some("permission") => permission(&mut turn).await?,
        Some("terminal") => terminal(&mut turn, "echo hello from the workspace; pwd; exit 3")
            .await
            .map(ended)?,
        Some("files") => files(&mut turn).await?,
        Some("tour") => tour(&mut turn).await?,
        Some("tools") => tools(&mut turn).await?,
        Some("plan") => plan(&mut turn).await?,
        Some("compact") => compact(&mut turn).await?,
        Some("huge reply") => huge_reply(&mut turn).await?,
        Some("huge choices") => huge_choices(&mut turn).await?,
        Some("odd values") => odd_values(&mut turn).await?,
        Some(probe @ ("fs read" | "fs write")) => {
            fs_probe(&mut turn, &user_text, probe == "fs write").await?
        }
        Some("think") => {
            let done = turn
                .think("The user wants to see thoughts. I will think in a few words first, then answer. ")
                .await?
                && turn.say("Here is the answer, after some thinking.").await?;
            // What real agents report after a turn: context use, a metric for the client.
            turn.update(json!({"sessionUpdate": "usage_update", "used": 5120, "size": 200000}))?;
            ended(done)
        }
        Some("recall") => {
            let first = history
                .iter()
                .find(|(role, _)| role == "user")
                .map(|(_, t)| t.clone())
                .unwrap_or_default();
            let turns = history.iter().filter(|(r, _)| r == "user").count();
            let answer =
                format!("This session has {turns} user messages. The first was: “{first}”.");
            ended(turn.say(&answer).await?)
        }
        _ => {
            let answer = format!(
                "You said: “{}”. Try one of: {}.",
                user_text.trim(),
                KEYWORDS.join(", ")
            );
            ended(turn.say(&answer).await?)
        }
    };
    finish(state, &mut turn, &user_text, reason)
}

/// The end of every turn: what was said is kept, the usage grows, the first turn names the
/// session.
fn finish(
    state: &State,
    turn: &mut Turn<'_>,
    user_text: &str,
    reason: StopReason,
) -> Result<StopReason, Error> {
    let said = std::mem::take(&mut turn.said);
    let id = turn.session.clone();
    let controls = state.with_session(&id, |session| {
        if !said.is_empty() {
            session.history.push(("agent".into(), said));
        }
        let named = session.controls.title.is_some();
        session.controls.turn_ended(user_text);
        (session.controls.clone(), !named)
    });
    state.save(&id);
    if let Some((controls, named_now)) = controls {
        turn.update(controls.usage_update())?;
        if named_now {
            turn.update(controls.info_update())?;
        }
    }
    Ok(reason)
}

/// The scripts of the session controls: a slash command, options and commands that change,
/// elicitation. `None`: none of them.
async fn controls_script(
    turn: &mut Turn<'_>,
    command: &str,
    lower: &str,
) -> Result<Option<StopReason>, Error> {
    if let Some(rest) = command.strip_prefix('/') {
        // The ACP way: the prompt is the command's text, `/name args`.
        let (name, args) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        let answer = format!("Ran /{name} with '{}'.", args.trim());
        return Ok(Some(ended(turn.say(&answer).await?)));
    }
    let change = |turn: &Turn<'_>, f: &dyn Fn(&mut Controls)| {
        turn.state
            .with_session(&turn.session, |s| {
                f(&mut s.controls);
                s.controls.clone()
            })
            .unwrap_or_default()
    };
    let booleans = turn.state.booleans();
    if lower.contains("options+") || lower.contains("options-") {
        let add = lower.contains("options+");
        let controls = change(turn, &|c| {
            c.verbosity = add.then(|| c.verbosity.clone().unwrap_or_else(|| "normal".into()))
        });
        turn.update(json!({"sessionUpdate": "config_option_update",
                           "configOptions": controls.config_options(booleans)}))?;
        let said = if add {
            "I added the Verbosity option."
        } else {
            "I removed the Verbosity option."
        };
        return Ok(Some(ended(turn.say(said).await?)));
    }
    if lower.contains("commands-") || lower.contains("commands+") {
        let withdraw = lower.contains("commands-");
        let controls = change(turn, &|c| c.commands_changed = withdraw);
        turn.update(controls.commands_update())?;
        let said = if withdraw {
            "I withdrew /web and added /review."
        } else {
            "/web is back."
        };
        return Ok(Some(ended(turn.say(said).await?)));
    }
    if lower.contains("elicit-url") {
        return elicit_url(turn).await.map(Some);
    }
    if lower.contains("elicit") {
        return elicit_form(turn).await.map(Some);
    }
    Ok(None)
}

/// `elicit`: asks the client to fill a form (when it said it shows forms).
async fn elicit_form(turn: &mut Turn<'_>) -> Result<StopReason, Error> {
    let forms = turn
        .client
        .elicitation
        .as_ref()
        .is_some_and(|e| e.form.is_some());
    if !forms {
        return Ok(ended(
            turn.say("This client does not show forms, so I did not ask.")
                .await?,
        ));
    }
    let request: CreateElicitationRequest = typed(json!({
        "mode": "form",
        "sessionId": turn.session,
        "message": "Set up the project",
        "requestedSchema": controls::project_form(),
    }))?;
    let answer = turn.cx.send_request(request).block_task().await?;
    let answer = serde_json::to_value(&answer).unwrap_or(Value::Null);
    let said = match answer["action"].as_str() {
        Some("accept") => format!("accepted: {}", answer["content"]),
        Some("decline") => "declined".to_owned(),
        Some("cancel") => "cancelled".to_owned(),
        other => format!("answered {}", other.unwrap_or("nothing I know")),
    };
    if answer["action"] == "cancel" {
        return Ok(StopReason::Cancelled);
    }
    Ok(ended(turn.say(&said).await?))
}

/// `elicit-url`: asks the client to open a page, then says the page's work is done.
async fn elicit_url(turn: &mut Turn<'_>) -> Result<StopReason, Error> {
    let urls = turn
        .client
        .elicitation
        .as_ref()
        .is_some_and(|e| e.url.is_some());
    if !urls {
        return Ok(ended(
            turn.say("This client does not open links for me, so I did not ask.")
                .await?,
        ));
    }
    let elicitation = format!("el-{}", turn.new_call());
    let request: CreateElicitationRequest = typed(json!({
        "mode": "url",
        "sessionId": turn.session,
        "elicitationId": elicitation,
        "url": "https://example.com/authorize?client=chat-shell",
        "message": "Authorize the scripted agent",
    }))?;
    let answer = turn.cx.send_request(request).block_task().await?;
    let answer = serde_json::to_value(&answer).unwrap_or(Value::Null);
    match answer["action"].as_str() {
        Some("accept") => {
            turn.cx
                .send_notification(typed::<CompleteElicitationNotification>(
                    json!({"elicitationId": elicitation}),
                )?)?;
            Ok(ended(turn.say("The authorization is complete.").await?))
        }
        Some("cancel") => Ok(StopReason::Cancelled),
        _ => Ok(ended(turn.say("declined").await?)),
    }
}

/// `EndTurn` if the script ran to its end; `Cancelled` if a cancel stopped it.
fn ended(done: bool) -> StopReason {
    if done {
        StopReason::EndTurn
    } else {
        StopReason::Cancelled
    }
}

async fn stop_early(turn: &mut Turn<'_>, reason: StopReason) -> Result<StopReason, Error> {
    let text = match reason {
        StopReason::Refusal => "I can't help with that request. ",
        _ => "This answer is cut short because a limit is reached right about ",
    };
    Ok(if turn.say(text).await? {
        reason
    } else {
        StopReason::Cancelled
    })
}

async fn long_run(turn: &mut Turn<'_>) -> Result<StopReason, Error> {
    if !turn
        .say("A long run: press Stop whenever you like. ")
        .await?
    {
        return Ok(StopReason::Cancelled);
    }
    for step in 1..=400 {
        if step % 5 == 1 {
            let id = turn.start(
                &format!("Step {step}: scan part {step}"),
                "search",
                json!({}),
            )?;
            turn.set(&id, json!({"status": "in_progress"}))?;
            if !turn.cancel.sleep(Duration::from_millis(300)).await {
                turn.set(
                    &id,
                    json!({"status": "failed", "content": text("Stopped: the turn was cancelled.")}),
                )?;
                return Ok(StopReason::Cancelled);
            }
            turn.set(&id, json!({"status": "completed"}))?;
        }
        if !turn.say(&format!("step {step}… ")).await?
            || !turn.cancel.sleep(Duration::from_millis(200)).await
        {
            return Ok(StopReason::Cancelled);
        }
    }
    Ok(StopReason::EndTurn)
}

async fn permission(turn: &mut Turn<'_>) -> Result<StopReason, Error> {
    let path = turn.path("permission-demo.txt");
    let kind = "edit";
    let remembered = {
        let sessions = turn
            .state
            .sessions
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        sessions
            .get(&turn.session)
            .and_then(|s| s.always.get(kind).copied())
    };
    let id = turn.start(
        "Write permission-demo.txt",
        kind,
        json!({
            "locations": [{"path": path}],
            "rawInput": {"path": path, "content": "written after asking\n"},
            "content": [{"type": "diff", "path": path, "oldText": null, "newText": "written after asking\n"}],
        }),
    )?;
    let allowed = match remembered {
        Some(allow) => {
            let note = if allow {
                "You chose “always allow” earlier in this session: not asking again. "
            } else {
                "You chose “always reject” earlier in this session: not asking again. "
            };
            if !turn.say(note).await? {
                return Ok(StopReason::Cancelled);
            }
            allow
        }
        None => {
            let request: RequestPermissionRequest = serde_json::from_value(json!({
                "sessionId": turn.session,
                "toolCall": {"toolCallId": id, "title": "Write permission-demo.txt", "kind": kind,
                             "rawInput": {"path": path}},
                "options": [
                    {"optionId": "allow-once", "name": "Allow once", "kind": "allow_once"},
                    {"optionId": "allow-always", "name": "Always allow", "kind": "allow_always"},
                    {"optionId": "reject-once", "name": "Reject", "kind": "reject_once"},
                    {"optionId": "reject-always", "name": "Always reject", "kind": "reject_always"},
                ],
            }))?;
            let options = request.options.clone();
            let answer = turn.cx.send_request(request).block_task().await?;
            let chosen = match answer.outcome {
                RequestPermissionOutcome::Selected(selected) => options
                    .iter()
                    .find(|o| o.option_id == selected.option_id)
                    .map(|o| o.kind),
                _ => None,
            };
            let Some(chosen) = chosen else {
                // Cancelled (or an option that was never offered): the turn stops.
                turn.set(
                    &id,
                    json!({"status": "failed", "content": text("Not run: the permission request was cancelled.")}),
                )?;
                return Ok(StopReason::Cancelled);
            };
            let allow = matches!(
                chosen,
                PermissionOptionKind::AllowOnce | PermissionOptionKind::AllowAlways
            );
            if matches!(
                chosen,
                PermissionOptionKind::AllowAlways | PermissionOptionKind::RejectAlways
            ) {
                let mut sessions = turn
                    .state
                    .sessions
                    .lock()
                    .unwrap_or_else(|e| e.into_inner());
                if let Some(session) = sessions.get_mut(&turn.session) {
                    session.always.insert(kind.into(), allow);
                }
            }
            allow
        }
    };
    if !allowed {
        turn.set(
            &id,
            json!({"status": "failed", "content": text("Not run: permission was rejected.")}),
        )?;
        let done = turn.say("Understood, I did not write the file.").await?;
        return Ok(ended(done));
    }
    turn.set(&id, json!({"status": "in_progress"}))?;
    let result = if turn.client.fs.write_text_file {
        turn.write(&path, "written after asking\n").await
    } else {
        Ok(())
    };
    match result {
        Ok(()) => turn.set(&id, json!({"status": "completed"}))?,
        Err(e) => turn.set(
            &id,
            json!({"status": "failed", "content": text(format!("The client refused: {}", e.message))}),
        )?,
    }
    let done = turn.say("Done: permission-demo.txt is written.").await?;
    Ok(ended(done))
}

/// `compact`: the agent compacts its context (ACP `compaction_update`, its summary in
/// chunks), when the client announced it shows compactions; then it answers.
async fn compact(turn: &mut Turn<'_>) -> Result<StopReason, Error> {
    let announced = turn
        .client
        .session
        .as_ref()
        .is_some_and(|s| s.compaction.is_some());
    if !announced {
        let done = turn
            .say("The client did not announce compactions; the context stays as it is.")
            .await?;
        return Ok(ended(done));
    }
    let id = turn.new_call().replace("call_", "compaction_");
    let update = |status: &str| json!({"sessionUpdate": "compaction_update", "compactionId": id, "status": status});
    turn.update(update("in_progress"))?;
    for part in [
        "The user reviews the release notes; ",
        "3 issues block the release.",
    ] {
        if !turn.pause().await {
            turn.update(update("cancelled"))?;
            return Ok(StopReason::Cancelled);
        }
        turn.update(json!({
            "sessionUpdate": "compaction_summary_chunk",
            "compactionId": id,
            "content": {"type": "text", "text": part}
        }))?;
    }
    turn.update(update("completed"))?;
    let done = turn
        .say("With the context compacted: three issues still block the release.")
        .await?;
    Ok(ended(done))
}

/// Runs `script` with `sh -c` through the client's terminal capability. False: cancelled.
async fn terminal(turn: &mut Turn<'_>, script: &str) -> Result<bool, Error> {
    if !turn.client.terminal {
        return turn
            .say("The client did not announce terminals (start the runtime with --allow-terminal).")
            .await;
    }
    let id = turn.start(
        &format!("Run `{script}`"),
        "execute",
        json!({"rawInput": {"command": "sh", "args": ["-c", script]}}),
    )?;
    let create: CreateTerminalRequest = serde_json::from_value(json!({
        "sessionId": turn.session,
        "command": "sh",
        "args": ["-c", script],
        "outputByteLimit": 4096,
    }))?;
    let created = match turn.cx.send_request(create).block_task().await {
        Ok(created) => created,
        Err(e) => {
            turn.set(
                &id,
                json!({"status": "failed", "content": text(format!("The client refused the terminal: {}", e.message))}),
            )?;
            return Ok(true);
        }
    };
    let terminal = created.terminal_id.clone();
    turn.set(
        &id,
        json!({"status": "in_progress", "content": [{"type": "terminal", "terminalId": terminal.0.as_ref()}]}),
    )?;
    let session = SessionId::from(turn.session.clone());
    let wait = turn
        .cx
        .send_request(WaitForTerminalExitRequest::new(
            session.clone(),
            terminal.clone(),
        ))
        .block_task();
    let cancel = turn.cancel.clone();
    let cancelled = async move { while cancel.sleep(Duration::from_secs(3600)).await {} };
    let exit = tokio::select! {
        exit = wait => Some(exit?),
        _ = cancelled => None,
    };
    let output = turn
        .cx
        .send_request(TerminalOutputRequest::new(
            session.clone(),
            terminal.clone(),
        ))
        .block_task()
        .await?;
    let _ = turn
        .cx
        .send_request(ReleaseTerminalRequest::new(session, terminal))
        .block_task()
        .await;
    let Some(exit) = exit else {
        turn.set(
            &id,
            json!({"status": "failed", "rawOutput": serde_json::to_value(&output)?}),
        )?;
        return Ok(false);
    };
    let ok = exit.exit_status.exit_code == Some(0);
    turn.set(
        &id,
        json!({
            "status": if ok { "completed" } else { "failed" },
            "rawOutput": serde_json::to_value(&output)?,
        }),
    )?;
    let code = exit
        .exit_status
        .exit_code
        .map_or_else(|| "no exit code".to_owned(), |c| format!("exit code {c}"));
    turn.say(&format!("The command finished with {code}. "))
        .await
}

/// Asks for the output of terminal `id`, which may be another session's, and says what
/// the client answered.
async fn peek(turn: &mut Turn<'_>, id: &str) -> Result<StopReason, Error> {
    let request = TerminalOutputRequest::new(SessionId::from(turn.session.clone()), id.to_owned());
    let answer = match turn.cx.send_request(request).block_task().await {
        Ok(output) => format!("The terminal answered: {}", output.output),
        Err(e) => format!("The terminal was refused: {}", e.message),
    };
    Ok(ended(turn.say(&answer).await?))
}

async fn slow_terminal(turn: &mut Turn<'_>) -> Result<StopReason, Error> {
    let done = turn
        .say("Running a command that sleeps a minute: press Stop to kill it. ")
        .await?
        && terminal(turn, "echo sleeping; sleep 60; echo woke up").await?;
    Ok(ended(done))
}

async fn files(turn: &mut Turn<'_>) -> Result<StopReason, Error> {
    let inside = turn.path("chat-shell-notes.txt");
    let content = "Notes written by the scripted agent through fs/write_text_file.\n";
    let id = turn.start(
        "Write chat-shell-notes.txt",
        "edit",
        json!({"locations": [{"path": inside}], "rawInput": {"path": inside}}),
    )?;
    let old = turn.read(&inside).await.ok();
    let diff = json!([{"type": "diff", "path": inside, "oldText": old, "newText": content}]);
    match turn.write(&inside, content).await {
        Ok(()) => turn.set(&id, json!({"status": "completed", "content": diff}))?,
        Err(e) => turn.set(&id, json!({"status": "failed", "content": text(e.message)}))?,
    }
    let id = turn.start(
        "Read chat-shell-notes.txt",
        "read",
        json!({"locations": [{"path": inside}]}),
    )?;
    match turn.read(&inside).await {
        Ok(read) => turn.set(&id, json!({"status": "completed", "content": text(read)}))?,
        Err(e) => turn.set(&id, json!({"status": "failed", "content": text(e.message)}))?,
    }
    // Two attempts to leave the workspace: the client must refuse both.
    let escape = format!("{}/../outside-the-workspace.txt", turn.cwd.display());
    let id = turn.start(
        "Read ../outside-the-workspace.txt",
        "read",
        json!({"locations": [{"path": escape}]}),
    )?;
    match turn.read(&escape).await {
        Ok(read) => turn.set(&id, json!({"status": "completed", "content": text(read)}))?,
        Err(e) => turn.set(
            &id,
            json!({"status": "failed", "content": text(format!("Refused: {}", e.message))}),
        )?,
    }
    let link = turn.path("escape-link/secret.txt");
    let id = turn.start(
        "Read escape-link/secret.txt",
        "read",
        json!({"locations": [{"path": link}]}),
    )?;
    match turn.read(&link).await {
        Ok(read) => turn.set(&id, json!({"status": "completed", "content": text(read)}))?,
        Err(e) => turn.set(
            &id,
            json!({"status": "failed", "content": text(format!("Refused: {}", e.message))}),
        )?,
    }
    let id = turn.start(
        "Write /tmp/chat-shell-escape.txt",
        "edit",
        json!({"locations": [{"path": "/tmp/chat-shell-escape.txt"}]}),
    )?;
    match turn.write("/tmp/chat-shell-escape.txt", "escaped\n").await {
        Ok(()) => turn.set(&id, json!({"status": "completed"}))?,
        Err(e) => turn.set(
            &id,
            json!({"status": "failed", "content": text(format!("Refused: {}", e.message))}),
        )?,
    }
    let done = turn
        .say("Wrote and read a file in the workspace; every attempt to leave it was refused.")
        .await?;
    Ok(ended(done))
}

/// `fs read PATH` or `fs write PATH` (the whole prompt): one file call on any path
/// (relative ones are the session's), its answer or error in the tool call. For tests of
/// a client's confinement.
async fn fs_probe(turn: &mut Turn<'_>, prompt: &str, write: bool) -> Result<StopReason, Error> {
    let given = prompt
        .trim()
        .splitn(3, ' ')
        .nth(2)
        .unwrap_or_default()
        .trim();
    let path = if Path::new(given).is_absolute() {
        given.to_owned()
    } else {
        turn.path(given)
    };
    let (verb, kind) = if write {
        ("Write", "edit")
    } else {
        ("Read", "read")
    };
    let title = format!("{verb} {given}");
    let id = turn.start(&title, kind, json!({"locations": [{"path": path}]}))?;
    let answer = if write {
        turn.write(&path, "written by fs write\n")
            .await
            .map(|()| "written".to_owned())
    } else {
        turn.read(&path).await
    };
    match answer {
        Ok(answer) => turn.set(&id, json!({"status": "completed", "content": text(answer)}))?,
        Err(e) => turn.set(&id, json!({"status": "failed", "content": text(e.message)}))?,
    }
    Ok(ended(turn.say(&format!("{title}: done.")).await?))
}

async fn tools(turn: &mut Turn<'_>) -> Result<StopReason, Error> {
    let readme = turn.path("README.md");
    let lib = turn.path("src/lib.rs");
    let new_file = turn.path("src/greeting.rs");
    let old_notes = turn.path("old-notes.txt");
    let steps: Vec<(&str, &str, Value, &str, Value)> = vec![
        (
            "Read README.md",
            "read",
            json!({"locations": [{"path": readme, "line": 1}], "rawInput": {"path": readme}}),
            "completed",
            json!({"content": text("# A project\n\nIts readme, **as read**.")}),
        ),
        (
            "Search for `answer`",
            "search",
            json!({"rawInput": {"pattern": "answer"}}),
            "completed",
            json!({"content": text("2 matches in src/lib.rs")}),
        ),
        (
            "Edit src/lib.rs",
            "edit",
            json!({"locations": [{"path": lib, "line": 2}]}),
            "completed",
            json!({"content": [{"type": "diff", "path": lib,
                "oldText": "pub fn answer() -> u32 {\n    41\n}\n",
                "newText": "pub fn answer() -> u32 {\n    42\n}\n"}]}),
        ),
        (
            "Create src/greeting.rs",
            "edit",
            json!({"locations": [{"path": new_file}]}),
            "completed",
            json!({"content": [{"type": "diff", "path": new_file, "oldText": null,
                "newText": "pub fn greet() -> &'static str {\n    \"hello\"\n}\n"}]}),
        ),
        (
            "Delete old-notes.txt",
            "delete",
            json!({"locations": [{"path": old_notes}]}),
            "completed",
            json!({"content": [{"type": "diff", "path": old_notes,
                "oldText": "stale notes\nnobody reads\n", "newText": ""}]}),
        ),
        (
            "Move draft.md to docs/draft.md",
            "move",
            json!({"rawInput": {"from": "draft.md", "to": "docs/draft.md"}}),
            "completed",
            json!({}),
        ),
        (
            "Think about the change",
            "think",
            json!({}),
            "completed",
            json!({"content": text("42 is the answer the tests expect.")}),
        ),
        (
            "Fetch https://example.com/spec",
            "fetch",
            json!({"rawInput": {"url": "https://example.com/spec"}}),
            "completed",
            json!({"content": text("Example Domain (scripted, nothing was fetched)")}),
        ),
        (
            "Switch to code mode",
            "switch_mode",
            json!({}),
            "completed",
            json!({}),
        ),
        ("Something else", "other", json!({}), "completed", json!({})),
        (
            "Run the linter",
            "execute",
            json!({"rawInput": {"command": "cargo clippy"}}),
            "failed",
            json!({"content": text("error: the scripted linter fails on purpose"),
                   "rawOutput": {"output": "error: the scripted linter fails on purpose\n", "truncated": false, "exitStatus": {"exitCode": 101}}}),
        ),
    ];
    if !turn.say("Running one tool call of each kind. ").await? {
        return Ok(StopReason::Cancelled);
    }
    for (title, kind, start, status, end) in steps {
        if !turn.call(title, kind, start, status, end).await? {
            return Ok(StopReason::Cancelled);
        }
    }
    if turn.client.terminal && !terminal(turn, "echo tools done; exit 0").await? {
        return Ok(StopReason::Cancelled);
    }
    let done = turn
        .say("All tool kinds ran; the linter failed on purpose.")
        .await?;
    Ok(ended(done))
}

/// A `plan` update: each step (content, priority) with its status.
/// One message of 25 MB between two ordinary ones: the client's limit on a message.
async fn huge_reply(turn: &mut Turn<'_>) -> Result<StopReason, Error> {
    turn.say("Before the huge message. ").await?;
    turn.update(json!({
        "sessionUpdate": "agent_message_chunk",
        "content": {"type": "text", "text": "x".repeat(25 << 20)}
    }))?;
    Ok(ended(turn.say("After the huge message.").await?))
}

/// A config option of 100,000 choices (about 4 MB): the client clips lists as it reads.
async fn huge_choices(turn: &mut Turn<'_>) -> Result<StopReason, Error> {
    let choices: Vec<Value> = (0..100_000)
        .map(|i| json!({"value": format!("c{i}"), "name": format!("{i}")}))
        .collect();
    turn.update(json!({"sessionUpdate": "config_option_update", "configOptions": [
        {"id": "huge", "name": "Huge", "type": "select", "currentValue": "c0", "options": choices}
    ]}))?;
    Ok(ended(turn.say("I offered 100,000 choices.").await?))
}

/// Usage out of any sane range, and labels holding bidi overrides and controls.
async fn odd_values(turn: &mut Turn<'_>) -> Result<StopReason, Error> {
    let rlo = '\u{202e}';
    turn.update(json!({"sessionUpdate": "config_option_update", "configOptions": [
        {"id": "odd", "name": format!("{rlo}ddO"), "description": format!("a\u{1b}[31m{rlo}b"),
         "type": "select", "currentValue": "v",
         "options": [{"value": "v", "name": format!("{rlo}eciohC"), "description": format!("{rlo}d")}]}
    ]}))?;
    turn.update(json!({"sessionUpdate": "available_commands_update", "availableCommands": [
        {"name": "odd", "description": format!("{rlo}txet"), "input": {"hint": format!("{rlo}tnih")}}
    ]}))?;
    turn.update(
        json!({"sessionUpdate": "session_info_update", "title": format!("{rlo}eltit\u{2066}")}),
    )?;
    let said = ended(turn.say("Odd values sent.").await?);
    // After the turn's own usage (sent at its end).
    let cx = turn.cx.clone();
    let session = turn.session.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(50)).await;
        let _ = notify(
            &cx,
            &session,
            json!({"sessionUpdate": "usage_update",
            "used": u64::MAX, "size": 200_000, "cost": {"amount": -1e308, "currency": format!("{rlo}DSU")}}),
        );
    });
    Ok(said)
}

fn plan_update(steps: &[(&str, &str)], statuses: &[&str]) -> Value {
    let entries: Vec<Value> = steps
        .iter()
        .zip(statuses)
        .map(|((content, priority), status)| {
            json!({"content": content, "priority": priority, "status": status})
        })
        .collect();
    json!({"sessionUpdate": "plan", "entries": entries})
}

/// The first thing to try: a plan, then a file read, edited (the Diff view follows each
/// write), checked with a command, and a write that asks permission first.
async fn tour(turn: &mut Turn<'_>) -> Result<StopReason, Error> {
    if !(turn.client.fs.read_text_file && turn.client.fs.write_text_file) {
        let done = turn
            .say("The tour reads and writes files: start the runtime with --workspace DIR (and --allow-terminal).")
            .await?;
        return Ok(ended(done));
    }
    const STEPS: &[(&str, &str)] = &[
        ("Read tour/hello.rs", "high"),
        ("Make it greet the world", "high"),
        ("Check it with a command", "medium"),
        ("Ask before writing the config", "low"),
    ];
    let entries = |statuses: [&str; 4]| plan_update(STEPS, &statuses);
    if !turn
        .think("A short tour: read a file, change it, check it, then ask before writing another. ")
        .await?
    {
        return Ok(StopReason::Cancelled);
    }
    turn.update(entries(["in_progress", "pending", "pending", "pending"]))?;
    let path = turn.path("tour/hello.rs");
    // Read it; the first tour in a workspace writes it first.
    let old = match turn.read(&path).await {
        Ok(text) => text,
        Err(_) => {
            let first = "fn main() {\n    println!(\"hello\");\n}\n";
            let id = turn.start(
                "Create tour/hello.rs",
                "edit",
                json!({"locations": [{"path": path}]}),
            )?;
            turn.write(&path, first).await?;
            let diff = json!([{"type": "diff", "path": path, "oldText": null, "newText": first}]);
            turn.set(&id, json!({"status": "completed", "content": diff}))?;
            first.to_owned()
        }
    };
    let id = turn.start(
        "Read tour/hello.rs",
        "read",
        json!({"locations": [{"path": path, "line": 1}]}),
    )?;
    turn.set(
        &id,
        json!({"status": "completed", "content": text(format!("```rust\n{old}```"))}),
    )?;
    if !turn.pause().await {
        return Ok(StopReason::Cancelled);
    }
    turn.update(entries(["completed", "in_progress", "pending", "pending"]))?;
    let tours = old.matches("// tour").count() + 1;
    let new = format!(
        "{}// tour {tours}: greets the world\n",
        old.replace("println!(\"hello\");", "println!(\"hello, world\");")
    );
    let id = turn.start(
        "Edit tour/hello.rs",
        "edit",
        json!({"locations": [{"path": path, "line": 2}], "rawInput": {"path": path}}),
    )?;
    match turn.write(&path, &new).await {
        Ok(()) => {
            let diff = json!([{"type": "diff", "path": path, "oldText": old, "newText": new}]);
            turn.set(&id, json!({"status": "completed", "content": diff}))?;
        }
        Err(e) => turn.set(&id, json!({"status": "failed", "content": text(e.message)}))?,
    }
    turn.update(entries([
        "completed",
        "completed",
        "in_progress",
        "pending",
    ]))?;
    if !turn
        .say("Changed: the Diff tab shows the whole change set. ")
        .await?
        || !terminal(turn, "grep -n world tour/hello.rs && wc -l tour/hello.rs").await?
    {
        return Ok(StopReason::Cancelled);
    }
    turn.update(entries([
        "completed",
        "completed",
        "completed",
        "in_progress",
    ]))?;
    let reason = permission(turn).await?;
    if reason == StopReason::EndTurn {
        turn.update(entries([
            "completed",
            "completed",
            "completed",
            "completed",
        ]))?;
    }
    Ok(reason)
}

async fn plan(turn: &mut Turn<'_>) -> Result<StopReason, Error> {
    const STEPS: &[(&str, &str)] = &[
        ("Read the code", "high"),
        ("Make the change", "medium"),
        ("Run the tests", "low"),
    ];
    let entries = |statuses: [&str; 3]| plan_update(STEPS, &statuses);
    if !turn.think("First a plan: read, change, test. ").await? {
        return Ok(StopReason::Cancelled);
    }
    turn.update(entries(["pending", "pending", "pending"]))?;
    let stages = [
        ["in_progress", "pending", "pending"],
        ["completed", "in_progress", "pending"],
        ["completed", "completed", "in_progress"],
        ["completed", "completed", "completed"],
    ];
    let notes = [
        "Reading the code. ",
        "Making the change. ",
        "Running the tests. ",
        "",
    ];
    for (stage, note) in stages.into_iter().zip(notes) {
        if !turn.pause().await {
            return Ok(StopReason::Cancelled);
        }
        turn.update(entries(stage))?;
        if !note.is_empty() && !turn.think(note).await? {
            return Ok(StopReason::Cancelled);
        }
    }
    let done = turn
        .say("The plan is done: all three steps completed.")
        .await?;
    Ok(ended(done))
}

/// Replays a recording (`{"from": "client" | "agent" | "stderr", "line": "…"}` per line)
/// on stdin and stdout, without the SDK: it is the recorded bytes that are under test. Each
/// client line is read and checked against the recorded one (same method, or both a
/// response); each agent line is written, a response carrying the id the client used.
pub fn replay_stdio(path: &Path) -> Result<(), String> {
    use std::io::{BufRead, Write};
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let records: Vec<(String, Value)> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let record: Value = serde_json::from_str(l).map_err(|e| e.to_string())?;
            let line = record["line"].as_str().unwrap_or_default();
            let message = serde_json::from_str(line).map_err(|e| format!("{e}: {line}"))?;
            Ok((
                record["from"].as_str().unwrap_or_default().to_owned(),
                message,
            ))
        })
        .filter(|r| !matches!(r, Ok((from, _)) if from == "stderr"))
        .collect::<Result<_, String>>()?;
    let stdin = std::io::stdin();
    let mut input = stdin.lock().lines();
    let mut stdout = std::io::stdout().lock();
    // Recorded id of a client request -> the id this client gave it.
    let mut ids: HashMap<String, Value> = HashMap::new();
    for (from, recorded) in records {
        if from == "client" {
            let Some(Ok(line)) = input.next() else {
                return Ok(());
            };
            let actual: Value = serde_json::from_str(&line).map_err(|e| e.to_string())?;
            if actual.get("method") != recorded.get("method") {
                return Err(format!(
                    "the client sent {} where the recording has {}",
                    actual, recorded
                ));
            }
            if let (Some(r), Some(a), Some(_)) =
                (recorded.get("id"), actual.get("id"), recorded.get("method"))
            {
                ids.insert(r.to_string(), a.clone());
            }
        } else {
            let mut message = recorded;
            if message.get("method").is_none() {
                if let Some(actual) = message.get("id").and_then(|id| ids.get(&id.to_string())) {
                    message["id"] = actual.clone();
                }
            }
            writeln!(stdout, "{message}").map_err(|e| e.to_string())?;
            stdout.flush().map_err(|e| e.to_string())?;
        }
    }
    // The recording is over: stay until the client closes.
    for line in input {
        if line.is_err() {
            break;
        }
    }
    Ok(())
}

/// The path a `--state-dir` keeps `session`'s history in (for tests).
pub fn state_file(dir: &Path, session: &str) -> PathBuf {
    dir.join(format!("{session}.json"))
}
