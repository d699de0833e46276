//! The prompts that drive the session controls: a slash command, `options+`/`options-`,
//! `commands-`/`commands+`, and the elicitations (`elicit`, `elicit-url`).

use crate::controls::{self, Controls};
use crate::turn::{ended, Turn};
use crate::wire::typed;
use agent_client_protocol::v1::schema::{
    CompleteElicitationNotification, CreateElicitationRequest, StopReason,
};
use agent_client_protocol::Error;
use serde_json::{json, Value};

/// The scripts of the session controls: a slash command, options and commands that change,
/// elicitation. `None`: none of them.
pub(crate) async fn controls_script(
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
