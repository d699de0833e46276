//! The scripts about tool calls: one of each kind (`tools`), a long run of them to Stop
//! (`long`), and a write that asks permission first, its "always" choices remembered for
//! the session (`permission`).

use crate::client_requests::terminal;
use crate::turn::{ended, text, Turn};
use agent_client_protocol::v1::schema::{
    PermissionOptionKind, RequestPermissionOutcome, RequestPermissionRequest, StopReason,
};
use agent_client_protocol::Error;
use serde_json::{json, Value};
use std::time::Duration;

pub(crate) async fn long_run(turn: &mut Turn<'_>) -> Result<StopReason, Error> {
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

pub(crate) async fn permission(turn: &mut Turn<'_>) -> Result<StopReason, Error> {
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

pub(crate) async fn tools(turn: &mut Turn<'_>) -> Result<StopReason, Error> {
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
