//! Activities (`ACTIVITY_SNAPSHOT`, `ACTIVITY_DELTA`) as items, and the JSON patches and
//! merges that keep them and the agent's shared state.

use crate::model::EntryKind;
use crate::protocol::acp::{PlanEntry, PlanEntryStatus};
use crate::protocol::Unknown;
use serde_json::{json, Value};

/// `value` with an RFC 6902 patch applied, or why not (the value stays as it was).
pub(super) fn patched(value: &Value, patch: &Value) -> Result<Value, String> {
    let patch: json_patch::Patch =
        serde_json::from_value(patch.clone()).map_err(|e| format!("not a JSON Patch: {e}"))?;
    let mut next = value.clone();
    json_patch::patch(&mut next, &patch).map_err(|e| e.to_string())?;
    Ok(next)
}

/// A snapshot that does not replace: its fields over the old ones.
pub(super) fn merged(old: &Value, new: &Value) -> Value {
    match (old, new) {
        (Value::Object(old), Value::Object(new)) => {
            let mut out = old.clone();
            out.extend(new.iter().map(|(k, v)| (k.clone(), v.clone())));
            Value::Object(out)
        }
        (_, new) => new.clone(),
    }
}

/// An activity's item: `steps` (strings, or objects with a title and a status) read as a
/// plan; anything else is kept whole and shown as content this client does not know.
pub(super) fn activity_kind(kind: &str, content: &Value) -> EntryKind {
    let steps = content.get("steps").and_then(Value::as_array);
    if let Some(steps) = steps.filter(|_| kind.eq_ignore_ascii_case("plan")) {
        let entries = steps
            .iter()
            .filter_map(|s| {
                let (text, status) = match s {
                    Value::String(t) => (t.clone(), None),
                    other => (
                        ["title", "content", "description"]
                            .iter()
                            .find_map(|k| other.get(*k).and_then(Value::as_str))?
                            .to_owned(),
                        other.get("status").and_then(Value::as_str),
                    ),
                };
                Some(PlanEntry {
                    content: text,
                    priority: Default::default(),
                    status: match status {
                        Some("completed" | "done") => PlanEntryStatus::Completed,
                        Some("in_progress" | "running") => PlanEntryStatus::InProgress,
                        _ => PlanEntryStatus::Pending,
                    },
                })
            })
            .collect();
        return EntryKind::Plan(crate::model::Plan { entries });
    }
    EntryKind::Unsupported(Unknown(json!({
        "type": format!("activity: {kind}"),
        "activityType": kind,
        "content": content,
    })))
}
