//! A `session/prompt`: the keyword that picks the script ([`KEYWORDS`]), what the prompt
//! carries, the scripts too small for a module of their own, and the end of every turn.

use crate::client_requests::{files, fs_probe, peek, slow_terminal, terminal};
use crate::control_scripts::controls_script;
use crate::scenarios::{compact, huge_choices, huge_reply, odd_values, plan, stop_early, tour};
use crate::session::State;
use crate::tool_calls::{long_run, permission, tools};
use crate::turn::{ended, Turn};
use agent_client_protocol::v1::schema::{PromptRequest, StopReason};
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::{Client, Error};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

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

pub(crate) async fn prompt(
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
