//! The ACP session controls on `POST /chatkit` (`acp.session.get`, `acp.session.set`,
//! `acp.sessions.list`, `acp.sessions.open`; `chat_shell_core::protocol::chatkit::session`
//! is the spec): JSON answers, scoped to the user like every thread request (another
//! user's thread is the same 404 as an unknown one). Without `--acp`, `acp.session.get`
//! answers `{"session": null}` (nothing to show) and the others 400 `no_agent`.
//!
//! - `get {thread_id}`: the thread's session opened in the running agent if it is not
//!   (`session/resume`, else `session/load`), and its state. A thread whose saved session
//!   cannot be reopened, or that has none yet, answers `null` (its next message opens a
//!   new session, and says so if it had one). `thread_id: null` is the user's
//!   draft session, opened ahead of the first message and adopted by the user's next new
//!   thread.
//! - `set {thread_id, control_id, value}`: a select takes one of its choices (a string),
//!   a boolean `true`/`false`; the agent is asked (`session/set_mode` for the modes,
//!   `session/set_config_option` otherwise) and the answer is the whole state it now
//!   reports, with `refused` (the agent's message) when it refused. A control the session
//!   does not offer, or a value it does not take, is 400; an agent that does not answer
//!   in time 504; one that cannot start 502.
//! - `list {cursor}`: a page of the agent's `session/list` (400 `not_supported` if it does
//!   not list), each naming the user's thread that holds it already. Listed: the user's
//!   own sessions, and with `--share-agent-sessions` the sessions no identity holds (the
//!   agent had them before); never another user's, nor one whose thread was deleted.
//! - `open {session_id}`: that thread, or a new one: `session/load` (its replay stored as
//!   the thread's user and assistant messages) or `session/resume` (nothing replayed). A
//!   session nobody holds is claimed by the first user to open it. A session the user
//!   may not open is the same 404 as one that does not exist.

use crate::acp::{self, session::clip, DraftRefused, SetError, Unopened};
use crate::auth::User;
use crate::clients::Client;
use crate::errors::{bad_request, json_error, not_found};
use crate::labels;
use crate::state::AppState;
use crate::store::{now_iso, Whose};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use chat_shell_core::protocol::chatkit::{
    AgentSession, AssistantContent, AssistantMessage, InputText, ItemId, ItemKind, OpenedSession,
    SessionAnswer, SessionList, SessionRequest, SetAnswer, Thread, ThreadId, ThreadItem,
    UserContent, UserMessage,
};
use serde_json::Value;
use std::sync::Arc;

/// The longest control id, value, cursor and session id taken, in characters.
pub const MAX_CONTROL_ID_CHARS: usize = 256;
pub const MAX_VALUE_CHARS: usize = 256;
pub const MAX_CURSOR_CHARS: usize = 4096;
pub const MAX_SESSION_ID_CHARS: usize = 256;
/// The thread metadata key holding the ACP session id.
const SESSION_KEY: &str = "acp_session_id";

/// An `acp.*` request (`request` is the whole body).
pub async fn request(
    state: &Arc<AppState>,
    user: User,
    client: Client,
    request: &Value,
) -> Response {
    let request = match serde_json::from_value::<SessionRequest>(request.clone()) {
        Ok(request) => request,
        Err(e) => return bad_request(&format!("invalid request: {e}")),
    };
    if let Err(why) = check(&request) {
        return bad_request(&why);
    }
    let Some(bridge) = state.acp.clone() else {
        return match request {
            SessionRequest::Get { .. } => Json(SessionAnswer { session: None }).into_response(),
            _ => json_error(
                StatusCode::BAD_REQUEST,
                "no_agent",
                "no ACP agent runs behind this endpoint (start the runtime with --acp)",
            ),
        };
    };
    match request {
        SessionRequest::Get { thread_id } => {
            let session = match session_of(&bridge, state, &user, client, thread_id.as_ref()).await
            {
                Ok(session) => session,
                Err(response) => return response,
            };
            let session = session.and_then(|s| bridge.session_state(&s));
            Json(SessionAnswer { session }).into_response()
        }
        SessionRequest::Set {
            thread_id,
            control_id,
            value,
        } => {
            let session = match session_of(&bridge, state, &user, client, thread_id.as_ref()).await
            {
                Ok(Some(session)) => session,
                Ok(None) => {
                    return json_error(
                        StatusCode::CONFLICT,
                        "no_session",
                        "this thread's agent session is not open (send a message first)",
                    )
                }
                Err(response) => return response,
            };
            match bridge.set(&session, &control_id, &value).await {
                Ok((session, refused)) => {
                    if let Some(why) = &refused {
                        println!("ACP: the agent refused {control_id}: {why}");
                    }
                    Json(SetAnswer { session, refused }).into_response()
                }
                Err(SetError::Invalid(why)) => bad_request(&why),
                Err(SetError::Agent(why)) => agent_error(&why),
            }
        }
        SessionRequest::List { cursor } => match bridge.list(cursor).await {
            Ok(Ok((sessions, next_cursor))) => {
                let shared = bridge.shares_sessions();
                let found = state
                    .db(&user, move |db| {
                        let ids: Vec<String> =
                            sessions.iter().map(|s| s.session_id.clone()).collect();
                        let whose = db.whose_sessions(&ids)?;
                        Ok(sessions
                            .into_iter()
                            .zip(whose)
                            .filter_map(|(mut session, whose)| match whose {
                                Whose::Mine(thread) => {
                                    session.thread_id = thread;
                                    Some(session)
                                }
                                Whose::Nobody if shared => Some(session),
                                Whose::Nobody | Whose::Unavailable => None,
                            })
                            .collect::<Vec<AgentSession>>())
                    })
                    .await;
                match found {
                    Ok(sessions) => Json(SessionList {
                        sessions,
                        next_cursor,
                    })
                    .into_response(),
                    Err(response) => response,
                }
            }
            Ok(Err(why)) => json_error(StatusCode::BAD_REQUEST, "not_supported", &why),
            Err(why) => agent_error(&why),
        },
        SessionRequest::Open { session_id } => open(&bridge, state, &user, session_id).await,
    }
}

/// Refuses what no honest client sends.
fn check(request: &SessionRequest) -> Result<(), String> {
    let bounded = |what: &str, s: &str, max: usize| {
        let n = s.chars().count();
        if n == 0 || n > max || labels::has_forbidden(s) || s.chars().any(char::is_control) {
            Err(format!(
                "{what} has 1 to {max} characters, none of them control characters"
            ))
        } else {
            Ok(())
        }
    };
    match request {
        SessionRequest::Get { .. } => Ok(()),
        SessionRequest::Set {
            control_id, value, ..
        } => {
            bounded("control_id", control_id, MAX_CONTROL_ID_CHARS)?;
            match value {
                Value::String(s) => bounded("value", s, MAX_VALUE_CHARS),
                Value::Bool(_) => Ok(()),
                _ => Err("value is a string (a choice) or a boolean".into()),
            }
        }
        SessionRequest::List { cursor } => match cursor {
            Some(c) => bounded("cursor", c, MAX_CURSOR_CHARS),
            None => Ok(()),
        },
        SessionRequest::Open { session_id } => {
            bounded("session_id", session_id, MAX_SESSION_ID_CHARS)
        }
    }
}

/// 502 (the agent could not be reached), or 504 when it did not answer in time.
fn agent_error(why: &str) -> Response {
    if why.contains("did not answer") {
        json_error(StatusCode::GATEWAY_TIMEOUT, "agent_timeout", why)
    } else {
        json_error(StatusCode::BAD_GATEWAY, "agent_unavailable", why)
    }
}

/// The ACP session a request is about: `thread`'s (opened if it is not; 404 for a thread
/// that is not the user's), or the user's draft. `None`: the thread's saved session
/// cannot be reopened.
async fn session_of(
    bridge: &acp::Bridge,
    state: &Arc<AppState>,
    user: &User,
    client: Client,
    thread: Option<&ThreadId>,
) -> Result<Option<String>, Response> {
    let Some(thread_id) = thread else {
        return match bridge.draft(&user.0, &state.clients, client).await {
            Ok(id) => Ok(Some(id)),
            Err(DraftRefused::Agent(e)) => Err(agent_error(&e)),
            Err(DraftRefused::TooMany(refused)) => Err(state.clients.too_many(refused)),
        };
    };
    let id = thread_id.clone();
    let thread = match state.db(user, move |db| db.thread(&id)).await? {
        Some(thread) => thread,
        None => return Err(not_found(&format!("unknown thread {thread_id}"))),
    };
    let conn = bridge.connection().await.map_err(|e| agent_error(&e))?;
    let mut thread = thread;
    let opening = bridge
        .open_thread(&conn, &user.0, &mut thread, true, false, false)
        .await
        .map_err(|e| agent_error(&e))?;
    let Some(opening) = opening else {
        return Ok(None);
    };
    if opening.changed {
        let saved = thread.clone();
        state
            .db(user, move |db| db.save_thread(&saved).map(drop))
            .await?;
    }
    Ok(Some(opening.id))
}

/// `acp.sessions.open`: the user's thread holding `session_id`, or a new one holding it.
/// A session that is not the user's to open (another user's, one whose thread was deleted,
/// one the agent had before unless sessions are shared, one another user claimed first)
/// gets the answer of a session that does not exist.
async fn open(
    bridge: &acp::Bridge,
    state: &Arc<AppState>,
    user: &User,
    session_id: String,
) -> Response {
    let id = session_id.clone();
    let whose = state
        .db(user, move |db| db.whose_sessions(&[id]))
        .await
        .map(|w| w.into_iter().next());
    match whose {
        Ok(Some(Whose::Mine(Some(thread_id)))) => {
            return Json(OpenedSession { thread_id }).into_response()
        }
        Ok(_) => {}
        Err(response) => return response,
    }
    // Whatever the session, an agent that cannot open sessions again says so first.
    match bridge.reopens().await {
        Ok(true) => {}
        Ok(false) => return cannot_reopen(),
        Err(why) => return agent_error(&why),
    }
    match whose {
        Ok(Some(Whose::Mine(None))) => {}
        Ok(Some(Whose::Nobody)) if bridge.shares_sessions() => {}
        _ => return unknown_session(),
    }
    // The thread first: its id names the session's slot and holds the claim.
    let thread = match state.db(user, |db| db.create_thread()).await {
        Ok(thread) => thread,
        Err(response) => return response,
    };
    let (claimed, thread_id) = (session_id.clone(), thread.id.clone());
    let claim = state
        .db(user, move |db| db.claim_session(&claimed, &thread_id))
        .await;
    if !matches!(claim, Ok(true)) {
        let id = thread.id.clone();
        let _ = state
            .db(user, move |db| db.delete_thread(&id).map(drop))
            .await;
        // Claimed by another identity in the meantime: as if it did not exist.
        return claim.err().unwrap_or_else(unknown_session);
    }
    let replayed = match bridge
        .open_listed(&user.0, thread.id.as_str(), &session_id)
        .await
    {
        Ok(Some(replayed)) => replayed,
        failed => {
            // The claim is given up before the thread goes (deleting a thread ends its
            // session for everyone).
            let (released, id) = (session_id.clone(), thread.id.clone());
            let _ = state
                .db(user, move |db| {
                    db.release_session(&released, &id)?;
                    db.delete_thread(&id).map(drop)
                })
                .await;
            return match failed {
                Ok(_) => cannot_reopen(),
                Err(Unopened::Refused(why)) => {
                    println!("ACP: the agent did not open session {session_id}: {why}");
                    unknown_session()
                }
                Err(Unopened::Late) => agent_error("the agent did not answer in time"),
                Err(Unopened::Unavailable(why)) => agent_error(&why),
            };
        }
    };
    println!(
        "ACP: thread {} opened session {session_id} ({} messages replayed)",
        thread.id,
        replayed.len()
    );
    let title = bridge.title_of(&session_id).or_else(|| {
        replayed
            .iter()
            .find(|(user, _)| *user)
            .map(|(_, text)| crate::scripts::title_from(text))
    });
    let saved = {
        let mut thread: Thread = thread.clone();
        thread
            .metadata
            .insert(SESSION_KEY.into(), Value::String(session_id.clone()));
        thread.title = title.map(|t| clip(&t, 256));
        let items: Vec<ThreadItem> = replayed
            .into_iter()
            .map(|(from_user, text)| item(&thread.id, from_user, text))
            .collect();
        state
            .db(user, move |db| {
                db.save_thread(&thread)?;
                items.iter().try_for_each(|i| db.save_item(i).map(drop))
            })
            .await
    };
    match saved {
        Ok(()) => Json(OpenedSession {
            thread_id: thread.id,
        })
        .into_response(),
        Err(response) => response,
    }
}

/// A session this user cannot open, whether it exists or not: one answer for both.
fn unknown_session() -> Response {
    not_found("unknown session")
}

fn cannot_reopen() -> Response {
    json_error(
        StatusCode::BAD_REQUEST,
        "not_supported",
        "the agent can neither load nor resume its sessions",
    )
}

/// A replayed message as a thread item.
fn item(thread: &ThreadId, from_user: bool, text: String) -> ThreadItem {
    let (prefix, kind) = if from_user {
        (
            "msg",
            ItemKind::UserMessage(UserMessage {
                content: vec![UserContent::InputText(InputText { text })],
                attachments: Vec::new(),
                quoted_text: None,
                inference_options: None,
            }),
        )
    } else {
        (
            "msg",
            ItemKind::AssistantMessage(AssistantMessage {
                content: vec![AssistantContent::text(text)],
            }),
        )
    };
    ThreadItem {
        branches: Vec::new(),
        id: ItemId(crate::store::new_id(prefix)),
        thread_id: Some(thread.clone()),
        created_at: now_iso(),
        kind,
    }
}
