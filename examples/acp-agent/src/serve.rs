//! The stdio main loop: one handler per ACP request the agent answers (`initialize`, the
//! `session/*` methods, `session/prompt`, `session/cancel`), and what a session offers once
//! it opens. The wire helpers it shares with the scripts are in `wire`.

use crate::controls::Controls;
use crate::options::Options;
use crate::prompt::prompt;
use crate::session::{Session, State};
use crate::wire::{notify, typed};
use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema::{
    AgentCapabilities, CancelNotification, ClientCapabilities, CloseSessionRequest,
    CloseSessionResponse, InitializeRequest, InitializeResponse, ListSessionsRequest,
    ListSessionsResponse, LoadSessionRequest, LoadSessionResponse, NewSessionRequest,
    NewSessionResponse, PromptRequest, PromptResponse, ResumeSessionRequest, ResumeSessionResponse,
    SetSessionConfigOptionRequest, SetSessionConfigOptionResponse, SetSessionModeRequest,
    SetSessionModeResponse,
};
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::{Agent, Client, Error, Stdio};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

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
