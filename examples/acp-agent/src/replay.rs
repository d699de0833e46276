//! `--replay FILE`: plays back ACP traffic the runtime recorded, instead of a script.

use serde_json::Value;
use std::collections::HashMap;
use std::path::Path;

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
