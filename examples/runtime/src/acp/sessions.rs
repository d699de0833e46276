//! The bridge's side of the session controls (`handlers::session`): a thread's session
//! opened ahead of a turn, a user's draft session (opened before the first message and
//! adopted by the user's next new thread), a control set through `session/set_mode` or
//! `session/set_config_option`, the agent's own sessions listed (`session/list`) and
//! opened again (`session/load`, whose replay becomes the thread's items, or
//! `session/resume`).

use super::bridge::{Conn, Draft};
use super::session::{self, Held, Target};
use super::turn::SESSION_KEY;
use super::{error_text, Bridge, Incoming, SETUP_TIMEOUT};
use crate::clients::{Client, Clients, Kind, Refused};
use crate::store::UserStore;
use agent_client_protocol::v1::schema::{
    CloseSessionRequest, ContentBlock as AcpBlock, CreateElicitationResponse, ElicitationAction,
    ListSessionsRequest, LoadSessionRequest, NewSessionRequest, RequestPermissionOutcome,
    RequestPermissionResponse, ResumeSessionRequest, SessionConfigOptionValue, SessionUpdate,
    SetSessionConfigOptionRequest, SetSessionModeRequest,
};
use chat_shell_core::protocol::chatkit::{AgentSession, SessionState, Thread};
use serde_json::Value;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// How long a draft session counts for its client when nobody takes it up.
const DRAFT_KEPT: Duration = Duration::from_secs(10 * 60);

/// Why no draft session was opened.
pub(crate) enum DraftRefused {
    /// The agent could not (its error, for the answer).
    Agent(String),
    /// The client holds as many drafts as its cap.
    TooMany(Refused),
}

/// The agent has this long to answer a change of a control.
pub const SET_TIMEOUT: Duration = Duration::from_secs(30);
/// At most this many replayed messages become a thread's items.
pub const MAX_REPLAY_MESSAGES: usize = 2000;
/// At most this much replayed text (in bytes) becomes a thread's items.
pub const MAX_REPLAY_BYTES: usize = 8 * 1024 * 1024;
/// At most this many sessions of one `session/list` page are passed on.
pub const MAX_LISTED: usize = 200;

/// A thread's session, open in the running agent.
pub(crate) struct Opening {
    pub id: String,
    /// What the reader should know (an earlier session that could not be reopened).
    pub notices: Vec<String>,
    /// The thread's metadata changed (a new session id): save it.
    pub changed: bool,
}

/// Why a change was not made.
pub(crate) enum SetError {
    /// Not a control of the session, or not a value it takes.
    Invalid(String),
    /// The agent did not answer in time, or is gone.
    Agent(String),
}

/// Why the agent did not open a session again.
#[derive(Debug)]
pub(crate) enum Unopened {
    /// It answered with an error (for one, that it has no such session).
    Refused(String),
    /// It did not answer in time.
    Late,
    /// It could not be started.
    Unavailable(String),
}

impl Unopened {
    /// What the reader of a thread whose earlier session did not open is told.
    fn sentence(&self) -> String {
        match self {
            Unopened::Refused(why) | Unopened::Unavailable(why) => format!(
                "The agent could not load this thread's earlier session ({why}); it starts a new one without that context."
            ),
            Unopened::Late => "The agent did not load this thread's earlier session in time; it starts a new one without that context.".into(),
        }
    }
}

/// One message of a replayed session: the user's (`true`) or the agent's, its text.
pub(crate) type Replayed = Vec<(bool, String)>;

impl Bridge {
    /// Opens `thread`'s session in `conn`: the one open already, the saved one
    /// (`session/resume` when `prefer_resume` and the agent offers it, else
    /// `session/load`) if the thread still holds it, the user's draft (`adopt`: a new
    /// thread), or a new one. Without `create` (a request that is not a turn) only an
    /// existing session is opened: `None` for a saved one that cannot be reopened (the next
    /// turn opens a new one and says so) or none at all.
    pub(crate) async fn open_thread(
        &self,
        conn: &Conn,
        user: &str,
        thread: &mut Thread,
        prefer_resume: bool,
        create: bool,
        adopt: bool,
    ) -> Result<Option<Opening>, String> {
        let key = thread.id.to_string();
        let opening = self.slot(&key, |s| s.opening.clone());
        let _opening = opening.lock().await;
        let (open, turn) = self.slot(&key, |s| {
            let turn = s.turn.as_ref().is_some_and(|t| !t.is_closed());
            (s.session.clone(), turn)
        });
        if let Some((generation, id)) = open {
            // A state given up for the owner's newer sessions is opened again, unless a
            // turn is using the session.
            if generation == conn.generation && (turn || self.held().contains(&id)) {
                return Ok(Some(Opening {
                    id,
                    notices: Vec::new(),
                    changed: false,
                }));
            }
        }
        let mut notices = Vec::new();
        let saved = thread
            .metadata
            .get(SESSION_KEY)
            .and_then(Value::as_str)
            .map(str::to_owned);
        if let Some(id) = saved {
            let (claimed, thread_id) = (id.clone(), thread.id.clone());
            let held = self
                .records(user, move |db| db.claim_session(&claimed, &thread_id))
                .await?;
            let reopened = if held {
                self.reopen(conn, &id, prefer_resume).await
            } else {
                Err(Unopened::Refused("it is no longer this thread's".into()))
            };
            match reopened {
                Ok(Some((answer, how))) => {
                    println!("ACP: thread {key} {how} session {id}");
                    self.opened(conn, user, Some(&key), &id, &answer);
                    return Ok(Some(Opening {
                        id,
                        notices,
                        changed: false,
                    }));
                }
                Ok(None) => notices.push(
                    "The agent was restarted and cannot load earlier sessions (no session/load): it does not remember this thread's earlier messages.".into(),
                ),
                Err(e) => notices.push(e.sentence()),
            }
        }
        if !create {
            return Ok(None);
        }
        // The user's draft session, set up before this first message of a new thread, if
        // it is of this agent process.
        let draft = if !adopt {
            None
        } else {
            let mut drafts = self.drafts.lock().unwrap_or_else(|e| e.into_inner());
            match drafts.get(user) {
                Some(draft) if draft.generation == conn.generation => drafts.remove(user),
                _ => None,
            }
        };
        let adopted = match draft {
            Some(Draft { id, .. }) => {
                let (claimed, thread_id) = (id.clone(), thread.id.clone());
                let claimed = self
                    .records(user, move |db| db.claim_session(&claimed, &thread_id))
                    .await?;
                claimed.then_some(id)
            }
            None => None,
        };
        let id = match adopted {
            Some(id) => {
                println!("ACP: thread {key} adopted the draft session {id}");
                self.change(&id, |held| {
                    held.thread = Some(key.clone());
                    true
                });
                id
            }
            None => {
                let (id, answer) = self.new_session(conn).await?;
                let (recorded, thread_id) = (id.clone(), thread.id.clone());
                self.records(user, move |db| {
                    db.record_session(&recorded, Some(&thread_id))
                })
                .await?;
                self.opened(conn, user, Some(&key), &id, &answer);
                id
            }
        };
        self.slot(&key, |s| s.session = Some((conn.generation, id.clone())));
        thread
            .metadata
            .insert(SESSION_KEY.into(), Value::String(id.clone()));
        Ok(Some(Opening {
            id,
            notices,
            changed: true,
        }))
    }

    /// `session/new`: its id and its answer (as JSON).
    async fn new_session(&self, conn: &Conn) -> Result<(String, Value), String> {
        let new = NewSessionRequest::new(self.cwd.clone());
        let created = tokio::time::timeout(SETUP_TIMEOUT, conn.cx.send_request(new).block_task())
            .await
            .map_err(|_| "no answer to session/new".to_owned())?
            .map_err(|e| error_text(&e))?;
        let id = created.session_id.0.to_string();
        Ok((id, serde_json::to_value(&created).unwrap_or_default()))
    }

    /// Opens the agent's session `id` again: its answer (as JSON), `None` when the agent
    /// can neither load nor resume, or why it failed.
    async fn reopen(
        &self,
        conn: &Conn,
        id: &str,
        prefer_resume: bool,
    ) -> Result<Option<(Value, &'static str)>, Unopened> {
        let resume = conn.resume_session && (prefer_resume || !conn.load_session);
        let how = if resume { "resumed" } else { "loaded" };
        let answer = if resume {
            let request = ResumeSessionRequest::new(id.to_owned(), self.cwd.clone());
            tokio::time::timeout(SETUP_TIMEOUT, conn.cx.send_request(request).block_task())
                .await
                .map(|r| r.map(|a| serde_json::to_value(&a).unwrap_or_default()))
        } else if conn.load_session {
            let request = LoadSessionRequest::new(id.to_owned(), self.cwd.clone());
            tokio::time::timeout(SETUP_TIMEOUT, conn.cx.send_request(request).block_task())
                .await
                .map(|r| r.map(|a| serde_json::to_value(&a).unwrap_or_default()))
        } else {
            return Ok(None);
        };
        match answer {
            Ok(Ok(answer)) => Ok(Some((answer, how))),
            Ok(Err(e)) => Err(Unopened::Refused(error_text(&e))),
            Err(_) => Err(Unopened::Late),
        }
    }

    /// `owner`'s session `id` is open in `conn` (for `thread`, if any): what it offers is
    /// kept.
    fn opened(&self, conn: &Conn, owner: &str, thread: Option<&str>, id: &str, answer: &Value) {
        let mut held = Held::from_answer(answer, thread.map(str::to_owned));
        // Reopened: the title and commands it had are kept until the agent says others.
        if let Some(old) = self.held_copy(id) {
            held.keep_reported(&old);
        }
        self.hold(owner, id, held);
        if let Some(thread) = thread {
            self.slot(thread, |s| {
                s.session = Some((conn.generation, id.to_owned()))
            });
        }
    }

    /// `user`'s draft session: the one open in the running agent, or a new one, counted
    /// for `client` (refused at its cap: a client minting identities would otherwise make
    /// the agent open a session for each).
    pub(crate) async fn draft(
        &self,
        user: &str,
        clients: &Arc<Clients>,
        client: Client,
    ) -> Result<String, DraftRefused> {
        let conn = self.connection().await.map_err(DraftRefused::Agent)?;
        let _drafting = self.draft_lock.lock().await;
        let share = {
            let mut drafts = self.drafts.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(draft) = drafts.get(user) {
                if draft.generation == conn.generation && self.held_copy(&draft.id).is_some() {
                    return Ok(draft.id.clone());
                }
            }
            drafts.remove(user);
            // Drafts nobody took up in a while give their client's place back.
            drafts.retain(|_, d| d.made.elapsed() < DRAFT_KEPT || d.share.client() != client);
            clients
                .take(Kind::Draft, client)
                .map_err(DraftRefused::TooMany)?
        };
        let (id, answer) = self.new_session(&conn).await.map_err(DraftRefused::Agent)?;
        let recorded = id.clone();
        self.records(user, move |db| db.record_session(&recorded, None))
            .await
            .map_err(DraftRefused::Agent)?;
        self.opened(&conn, user, None, &id, &answer);
        println!("ACP: a draft session {id} is open");
        self.drafts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(
                user.to_owned(),
                Draft {
                    generation: conn.generation,
                    id: id.clone(),
                    made: Instant::now(),
                    share,
                },
            );
        Ok(id)
    }

    /// Sets `control` of `session` to `value` as the agent takes it: the state it now
    /// reports, and the agent's reason when it refused.
    pub(crate) async fn set(
        &self,
        session: &str,
        control: &str,
        value: &Value,
    ) -> Result<(SessionState, Option<String>), SetError> {
        let conn = self.connection().await.map_err(SetError::Agent)?;
        let held = self
            .held_copy(session)
            .ok_or_else(|| SetError::Agent("the session is no longer open".into()))?;
        let target = held.target(control, value).map_err(SetError::Invalid)?;
        let late = || SetError::Agent(format!("the agent did not answer within {SET_TIMEOUT:?}"));
        let refused = match target {
            Target::Mode => {
                let mode = value.as_str().unwrap_or_default().to_owned();
                let request = SetSessionModeRequest::new(session.to_owned(), mode.clone());
                match tokio::time::timeout(SET_TIMEOUT, conn.cx.send_request(request).block_task())
                    .await
                {
                    Err(_) => return Err(late()),
                    Ok(Err(e)) => Some(error_text(&e)),
                    Ok(Ok(_)) => {
                        self.change(session, |held| held.set_mode(&mode));
                        None
                    }
                }
            }
            Target::Select | Target::Boolean => {
                let value = match value {
                    Value::Bool(b) => SessionConfigOptionValue::boolean(*b),
                    other => SessionConfigOptionValue::value_id(
                        other.as_str().unwrap_or_default().to_owned(),
                    ),
                };
                let request = SetSessionConfigOptionRequest::new(
                    session.to_owned(),
                    control.to_owned(),
                    value,
                );
                match tokio::time::timeout(SET_TIMEOUT, conn.cx.send_request(request).block_task())
                    .await
                {
                    Err(_) => return Err(late()),
                    Ok(Err(e)) => Some(error_text(&e)),
                    Ok(Ok(answer)) => {
                        let answer = serde_json::to_value(&answer).unwrap_or_default();
                        let options = answer.get("configOptions").cloned().unwrap_or_default();
                        self.change(session, |held| held.set_options(&options));
                        None
                    }
                }
            }
        };
        let state = self.session_state(session).unwrap_or_default();
        Ok((
            state,
            refused.map(|r| session::clip(&r, session::MAX_TEXT_CHARS)),
        ))
    }

    /// One page of the agent's own sessions (`session/list`), newest first as it lists
    /// them, and the cursor of the next; `Err` when it lists none or failed.
    pub(crate) async fn list(
        &self,
        cursor: Option<String>,
    ) -> Result<Result<(Vec<AgentSession>, Option<String>), String>, String> {
        let conn = self.connection().await?;
        if !conn.list_sessions {
            return Ok(Err("the agent does not list its sessions".into()));
        }
        let request = ListSessionsRequest::new()
            .cwd(self.cwd.clone())
            .cursor(cursor);
        let answer =
            tokio::time::timeout(SETUP_TIMEOUT, conn.cx.send_request(request).block_task())
                .await
                .map_err(|_| "the agent did not answer session/list".to_owned())?
                .map_err(|e| error_text(&e))?;
        let sessions = answer
            .sessions
            .iter()
            .filter(|s| s.session_id.0.chars().count() <= session::MAX_ID_CHARS)
            .take(MAX_LISTED)
            .map(|s| AgentSession {
                session_id: s.session_id.0.to_string(),
                title: s
                    .title
                    .as_deref()
                    .map(|t| session::clip(t, session::MAX_LABEL_CHARS)),
                updated_at: s.updated_at.as_deref().map(|t| session::clip(t, 64)),
                thread_id: None,
            })
            .collect();
        let next = answer.next_cursor.filter(|c| c.len() <= 4096);
        Ok(Ok((sessions, next)))
    }

    /// Whether the running agent can open its sessions again (`session/load` or
    /// `session/resume`).
    pub(crate) async fn reopens(&self) -> Result<bool, String> {
        let conn = self.connection().await?;
        Ok(conn.load_session || conn.resume_session)
    }

    /// Opens `owner`'s agent session `id` for a new thread `thread`: `session/load` (its
    /// replay: the user's and the agent's messages) or `session/resume` (nothing
    /// replayed). `Ok(None)`: the agent can do neither.
    pub(crate) async fn open_listed(
        &self,
        owner: &str,
        thread: &str,
        id: &str,
    ) -> Result<Option<Replayed>, Unopened> {
        let conn = self.connection().await.map_err(Unopened::Unavailable)?;
        if !conn.load_session && !conn.resume_session {
            return Ok(None);
        }
        // The replay comes as updates of that session, before the answer: caught here.
        let (tx, mut rx) = mpsc::unbounded_channel();
        let previous = self
            .routes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id.to_owned(), tx);
        let answer = self.reopen(&conn, id, false).await;
        {
            let mut routes = self.routes.lock().unwrap_or_else(|e| e.into_inner());
            routes.remove(id);
            if let Some(previous) = previous {
                routes.insert(id.to_owned(), previous);
            }
        }
        let answer = match answer {
            Ok(Some((answer, _))) => answer,
            Ok(None) => return Ok(None),
            Err(e) => return Err(e),
        };
        let mut replayed: Replayed = Vec::new();
        let mut bytes = 0;
        while let Ok(incoming) = rx.try_recv() {
            let (user, block) = match incoming {
                Incoming::Update(update) => match *update {
                    SessionUpdate::UserMessageChunk(c) => (true, c.content),
                    SessionUpdate::AgentMessageChunk(c) => (false, c.content),
                    _ => continue,
                },
                // Nobody can answer during a replay.
                Incoming::Permission(asked) => {
                    let _ = asked.1.respond(RequestPermissionResponse::new(
                        RequestPermissionOutcome::Cancelled,
                    ));
                    continue;
                }
                Incoming::Elicitation(asked) => {
                    let _ = asked
                        .1
                        .respond(CreateElicitationResponse::new(ElicitationAction::Cancel));
                    continue;
                }
                _ => continue,
            };
            let Some(text) = text_of(&block) else {
                continue;
            };
            if bytes + text.len() > MAX_REPLAY_BYTES {
                break;
            }
            bytes += text.len();
            let count = replayed.len();
            match replayed.last_mut() {
                Some((was_user, so_far)) if *was_user == user => so_far.push_str(&text),
                _ if count >= MAX_REPLAY_MESSAGES => break,
                _ => replayed.push((user, text)),
            }
        }
        self.opened(&conn, owner, Some(thread), id, &answer);
        Ok(Some(replayed))
    }

    /// `f` on `user`'s view of the store, where the sessions' owners are recorded.
    async fn records<T: Send + 'static>(
        &self,
        user: &str,
        f: impl FnOnce(&UserStore<'_>) -> crate::store::Result<T> + Send + 'static,
    ) -> Result<T, String> {
        crate::store::blocking(self.store.clone(), user.to_owned(), f)
            .await
            .map_err(|e| {
                eprintln!("chat-shell-runtime: cannot record an agent session's owner: {e}");
                "the agent session's owner could not be recorded".to_owned()
            })
    }

    /// Whether the agent's sessions no identity holds are offered to every user.
    pub(crate) fn shares_sessions(&self) -> bool {
        self.config.share_sessions
    }

    /// `thread` was deleted: its session is forgotten, and closed in the agent where the
    /// agent offers `session/close`.
    pub(crate) fn thread_deleted(self: &Arc<Self>, thread: &str) {
        let open = self
            .threads
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(thread)
            .and_then(|slot| slot.session);
        let Some((generation, id)) = open else {
            return;
        };
        self.held().remove(&id);
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let bridge = self.clone();
        runtime.spawn(async move {
            let Some(conn) = bridge.conn.lock().await.clone() else {
                return;
            };
            if !conn.alive() || conn.generation != generation || !conn.close_session {
                return;
            }
            let request = CloseSessionRequest::new(id.clone());
            match tokio::time::timeout(SET_TIMEOUT, conn.cx.send_request(request).block_task())
                .await
            {
                Ok(Ok(_)) => println!("ACP: session {id} closed (its thread was deleted)"),
                Ok(Err(e)) => eprintln!(
                    "chat-shell-runtime: the agent did not close session {id}: {}",
                    error_text(&e)
                ),
                Err(_) => {
                    eprintln!("chat-shell-runtime: the agent did not close session {id} in time")
                }
            }
        });
    }

    /// The title the agent gave session `id`, if it did.
    pub(crate) fn title_of(&self, id: &str) -> Option<String> {
        self.held_copy(id)
            .and_then(|h| h.title().map(str::to_owned))
    }
}

/// The text of a replayed chunk (text, or a link as a markdown link).
fn text_of(block: &AcpBlock) -> Option<String> {
    let value = serde_json::to_value(block).ok()?;
    match value.get("type")?.as_str()? {
        "text" => value.get("text")?.as_str().map(str::to_owned),
        "resource_link" => {
            let uri = value.get("uri")?.as_str()?;
            let name = value
                .get("title")
                .or_else(|| value.get("name"))
                .and_then(Value::as_str)
                .unwrap_or(uri);
            Some(format!("[{name}]({uri})"))
        }
        _ => None,
    }
}
