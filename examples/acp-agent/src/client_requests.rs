//! What the agent asks of the client: `fs/read_text_file` and `fs/write_text_file`, and a
//! command in a client terminal; with the scripts built on them (`terminal`, `shell:`,
//! `peek:`, `slow terminal`, `files`, `fs read`, `fs write`).

use crate::turn::{ended, text, Turn};
use agent_client_protocol::v1::schema::{
    CreateTerminalRequest, ReadTextFileRequest, ReleaseTerminalRequest, SessionId, StopReason,
    TerminalOutputRequest, WaitForTerminalExitRequest, WriteTextFileRequest,
};
use agent_client_protocol::Error;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::Duration;

// Workspace files go through the client: it decides what the agent may see.
impl Turn<'_> {
    /// `fs/read_text_file`; refused here when the client did not announce it.
    pub(crate) async fn read(&self, path: &str) -> Result<String, Error> {
        if !self.client.fs.read_text_file {
            return Err(Error::new(
                -32601,
                "the client did not announce fs/read_text_file",
            ));
        }
        let request = ReadTextFileRequest::new(self.session.clone(), PathBuf::from(path));
        Ok(self.cx.send_request(request).block_task().await?.content)
    }

    /// `fs/write_text_file`; refused here when the client did not announce it.
    pub(crate) async fn write(&self, path: &str, content: &str) -> Result<(), Error> {
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

/// Runs `script` with `sh -c` through the client's terminal capability. False: cancelled.
pub(crate) async fn terminal(turn: &mut Turn<'_>, script: &str) -> Result<bool, Error> {
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
pub(crate) async fn peek(turn: &mut Turn<'_>, id: &str) -> Result<StopReason, Error> {
    let request = TerminalOutputRequest::new(SessionId::from(turn.session.clone()), id.to_owned());
    let answer = match turn.cx.send_request(request).block_task().await {
        Ok(output) => format!("The terminal answered: {}", output.output),
        Err(e) => format!("The terminal was refused: {}", e.message),
    };
    Ok(ended(turn.say(&answer).await?))
}

pub(crate) async fn slow_terminal(turn: &mut Turn<'_>) -> Result<StopReason, Error> {
    let done = turn
        .say("Running a command that sleeps a minute: press Stop to kill it. ")
        .await?
        && terminal(turn, "echo sleeping; sleep 60; echo woke up").await?;
    Ok(ended(done))
}

pub(crate) async fn files(turn: &mut Turn<'_>) -> Result<StopReason, Error> {
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
pub(crate) async fn fs_probe(
    turn: &mut Turn<'_>,
    prompt: &str,
    write: bool,
) -> Result<StopReason, Error> {
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
