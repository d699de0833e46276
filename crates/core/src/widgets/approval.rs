//! The fork's `tool_approval_request` client widget: what the card shows (tool name,
//! arguments pretty-printed, the decision once the server states it) and the
//! `approval` action its buttons send.

use crate::protocol::chatkit::Action;

use crate::protocol::JsonMap;
use crate::strings::{Strings, Text};
use serde_json::Value;

/// The client widget name the fork uses for human-in-the-loop approvals.
pub const NAME: &str = "tool_approval_request";

/// A decision the server stated (never inferred from a click).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    Approved,
    Rejected,
    /// Some other word the server used, shown as is.
    Other(String),
}

impl Decision {
    /// What the card says: Approved / Rejected in the words of `strings`, another word as is.
    pub fn label(&self, strings: &Strings) -> String {
        match self {
            Decision::Approved => strings.get(Text::Approved).to_owned(),
            Decision::Rejected => strings.get(Text::Rejected).to_owned(),
            Decision::Other(s) => s.clone(),
        }
    }

    pub fn tag(&self) -> &'static str {
        match self {
            Decision::Approved => "approved",
            Decision::Rejected => "rejected",
            Decision::Other(_) => "other",
        }
    }
}

/// An approval request, read from the client widget's `args`.
#[derive(Clone, Debug, PartialEq)]
pub struct ApprovalRequest {
    pub tool_name: String,
    /// The arguments for display: JSON pretty-printed, or the raw text if not JSON.
    pub arguments: String,
    pub call_id: Value,
    pub request_id: Value,
    /// `tool_args` as sent (a JSON string in the fork's spec, an object in its traces):
    /// echoed back unchanged in the action.
    pub tool_args: Value,
    pub decision: Option<Decision>,
}

impl ApprovalRequest {
    pub fn from_args(args: &Value) -> Self {
        let get = |k: &str| args.get(k).cloned().unwrap_or(Value::Null);
        let tool_args = get("tool_args");
        ApprovalRequest {
            tool_name: args
                .get("tool_name")
                .and_then(Value::as_str)
                .filter(|s| !s.trim().is_empty())
                .unwrap_or("a tool")
                .to_owned(),
            arguments: pretty(&tool_args),
            call_id: get("call_id"),
            request_id: get("request_id"),
            tool_args,
            decision: decision(args),
        }
    }

    /// The call this request is about (to match later items that state a decision).
    pub fn call_id(&self) -> Option<&str> {
        self.call_id.as_str()
    }

    /// `threads.custom_action`'s action for a click on Approve (`true`) or Reject.
    pub fn action(&self, approved: bool) -> Action {
        let mut payload = JsonMap::new();
        payload.insert("tool_name".into(), Value::String(self.tool_name.clone()));
        payload.insert("tool_args".into(), self.tool_args.clone());
        payload.insert("approved".into(), Value::Bool(approved));
        payload.insert("call_id".into(), self.call_id.clone());
        payload.insert("request_id".into(), self.request_id.clone());
        Action {
            kind: "approval".into(),
            payload: Value::Object(payload),
            handler: Some("server".into()),
            loading_behavior: Some("auto".into()),
            streaming: None,
        }
    }
}

/// The decision stated in `args`: `decision` ("approved", "rejected", …) or `approved`.
pub fn decision(args: &Value) -> Option<Decision> {
    if let Some(word) = args.get("decision").and_then(Value::as_str) {
        let w = word.trim().to_ascii_lowercase();
        return Some(match w.as_str() {
            "approved" | "approve" | "accepted" | "accept" | "allowed" | "yes" => {
                Decision::Approved
            }
            "rejected" | "reject" | "denied" | "deny" | "declined" | "no" => Decision::Rejected,
            "" => return None,
            _ => Decision::Other(word.trim().to_owned()),
        });
    }
    match args.get("approved").and_then(Value::as_bool) {
        Some(true) => Some(Decision::Approved),
        Some(false) => Some(Decision::Rejected),
        None => None,
    }
}

/// Tool arguments for display: a JSON string is pretty-printed in the order it was
/// written (shown raw if it is not a JSON object or array), any other value
/// pretty-printed, nothing as `{}`.
pub fn pretty(args: &Value) -> String {
    match args {
        Value::String(raw) => match serde_json::from_str::<Value>(raw) {
            Ok(Value::Object(_) | Value::Array(_)) => reindent(raw),
            _ => raw.clone(),
        },
        Value::Null => "{}".into(),
        other => serde_json::to_string_pretty(other).unwrap_or_default(),
    }
}

/// Re-indent valid JSON text two spaces per level, keeping its key order (parsing into a
/// `Value` would sort the keys).
fn reindent(json: &str) -> String {
    let mut out = String::with_capacity(json.len() * 2);
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    let mut chars = json.chars().peekable();
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        out.push_str(&"  ".repeat(depth));
    };
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '{' | '[' => {
                out.push(c);
                // An empty object or array stays on one line.
                while chars.peek().is_some_and(|n| n.is_whitespace()) {
                    chars.next();
                }
                if matches!(chars.peek(), Some('}') | Some(']')) {
                    if let Some(close) = chars.next() {
                        out.push(close);
                    }
                } else {
                    depth += 1;
                    newline(&mut out, depth);
                }
            }
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(c);
            }
            ',' => {
                out.push(c);
                newline(&mut out, depth);
            }
            ':' => out.push_str(": "),
            c if c.is_whitespace() => {}
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn string_arguments_are_parsed_and_pretty_printed() {
        let r = ApprovalRequest::from_args(&json!({
            "tool_name": "processPayment",
            "tool_args": "{\"account_id\":\"1010\",\"amount\":100}",
            "call_id": "call_1",
            "request_id": null
        }));
        assert_eq!(r.tool_name, "processPayment");
        assert_eq!(
            r.arguments,
            "{\n  \"account_id\": \"1010\",\n  \"amount\": 100\n}"
        );
        assert_eq!(r.decision, None);
        let a = r.action(true);
        assert_eq!(a.kind, "approval");
        assert_eq!(
            a.payload,
            json!({"tool_name": "processPayment",
                   "tool_args": "{\"account_id\":\"1010\",\"amount\":100}",
                   "approved": true, "call_id": "call_1", "request_id": null})
        );
        let wire = serde_json::to_value(&a).unwrap();
        assert_eq!(wire["handler"], "server");
        assert_eq!(wire["loadingBehavior"], "auto");
    }

    #[test]
    fn object_and_broken_arguments() {
        let r = ApprovalRequest::from_args(&json!({"tool_args": {"a": 1}}));
        assert_eq!(r.arguments, "{\n  \"a\": 1\n}");
        assert_eq!(r.tool_name, "a tool");
        assert_eq!(r.action(false).payload["tool_args"], json!({"a": 1}));
        let r = ApprovalRequest::from_args(&json!({"tool_args": "not json {"}));
        assert_eq!(r.arguments, "not json {");
        let r = ApprovalRequest::from_args(&json!({"tool_args": "42"}));
        assert_eq!(r.arguments, "42");
        // Key order as written; strings with braces, commas and escapes untouched.
        let r = ApprovalRequest::from_args(&json!({
            "tool_args": "{\"z\":1, \"a\":{\"s\":\"x, {y}: \\\"q\\\"\",\"e\":[],\"o\":{}},\"l\":[1,2]}"
        }));
        assert_eq!(
            r.arguments,
            "{\n  \"z\": 1,\n  \"a\": {\n    \"s\": \"x, {y}: \\\"q\\\"\",\n    \"e\": [],\n    \"o\": {}\n  },\n  \"l\": [\n    1,\n    2\n  ]\n}"
        );
        assert_eq!(ApprovalRequest::from_args(&json!(null)).arguments, "{}");
    }

    #[test]
    fn decisions_come_only_from_the_server_args() {
        assert_eq!(
            decision(&json!({"decision": "approved"})),
            Some(Decision::Approved)
        );
        assert_eq!(
            decision(&json!({"decision": "Rejected"})),
            Some(Decision::Rejected)
        );
        assert_eq!(
            decision(&json!({"decision": "escalated"})),
            Some(Decision::Other("escalated".into()))
        );
        assert_eq!(
            decision(&json!({"approved": false})),
            Some(Decision::Rejected)
        );
        assert_eq!(decision(&json!({"decision": " "})), None);
        assert_eq!(decision(&json!({"tool_name": "x"})), None);
    }
}
