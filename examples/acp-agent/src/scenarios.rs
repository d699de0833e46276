//! The other scripted scenarios: the `tour`, a `plan` that updates, a compaction, each
//! early stop reason, and the values that test a client's limits (`huge reply`, `huge
//! choices`, `odd values`).

use crate::client_requests::terminal;
use crate::tool_calls::permission;
use crate::turn::{ended, text, Turn};
use crate::wire::notify;
use agent_client_protocol::v1::schema::StopReason;
use agent_client_protocol::Error;
use serde_json::{json, Value};
use std::time::Duration;

pub(crate) async fn stop_early(
    turn: &mut Turn<'_>,
    reason: StopReason,
) -> Result<StopReason, Error> {
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

/// `compact`: the agent compacts its context (ACP `compaction_update`, its summary in
/// chunks), when the client announced it shows compactions; then it answers.
pub(crate) async fn compact(turn: &mut Turn<'_>) -> Result<StopReason, Error> {
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

/// One message of 25 MB between two ordinary ones: the client's limit on a message.
pub(crate) async fn huge_reply(turn: &mut Turn<'_>) -> Result<StopReason, Error> {
    turn.say("Before the huge message. ").await?;
    turn.update(json!({
        "sessionUpdate": "agent_message_chunk",
        "content": {"type": "text", "text": "x".repeat(25 << 20)}
    }))?;
    Ok(ended(turn.say("After the huge message.").await?))
}

/// A config option of 100,000 choices (about 4 MB): the client clips lists as it reads.
pub(crate) async fn huge_choices(turn: &mut Turn<'_>) -> Result<StopReason, Error> {
    let choices: Vec<Value> = (0..100_000)
        .map(|i| json!({"value": format!("c{i}"), "name": format!("{i}")}))
        .collect();
    turn.update(json!({"sessionUpdate": "config_option_update", "configOptions": [
        {"id": "huge", "name": "Huge", "type": "select", "currentValue": "c0", "options": choices}
    ]}))?;
    Ok(ended(turn.say("I offered 100,000 choices.").await?))
}

/// Usage out of any sane range, and labels holding bidi overrides and controls.
pub(crate) async fn odd_values(turn: &mut Turn<'_>) -> Result<StopReason, Error> {
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

/// A `plan` update: each step (content, priority) with its status.
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
pub(crate) async fn tour(turn: &mut Turn<'_>) -> Result<StopReason, Error> {
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

pub(crate) async fn plan(turn: &mut Turn<'_>) -> Result<StopReason, Error> {
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
