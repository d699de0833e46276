//! Extension (chat-shell, not in the ChatKit SDK): the controls an agent session offers
//! beside the conversation (modes, models and other options, slash commands, context
//! usage, the agent's own list of sessions), carried over ChatKit's endpoint.
//!
//! The runtime speaks ACP to the agent and hands the page one neutral shape,
//! [`SessionState`], so the page never decides between ACP's two ways of offering a mode:
//! where the agent sends both `modes` and `configOptions`, the config options win (ACP
//! says so) and the runtime lists one Mode control. Every state is whole: the page
//! replaces what it holds.
//!
//! Requests (JSON answers, on the ChatKit endpoint; a server without them answers an error,
//! and the page then shows no controls):
//!
//! ```json
//! {"type": "acp.session.get", "params": {"thread_id": "thr_1"}}
//! {"type": "acp.session.set", "params": {"thread_id": "thr_1", "control_id": "mode", "value": "plan"}}
//! {"type": "acp.sessions.list", "params": {"cursor": null}}
//! {"type": "acp.sessions.open", "params": {"session_id": "sess_9"}}
//! ```
//!
//! - `acp.session.get` answers [`SessionAnswer`]. With `thread_id: null` it is the user's
//!   draft session: opened ahead of the first message so the controls can be set before
//!   it, and adopted by the user's next new thread.
//! - `acp.session.set` answers [`SetAnswer`]: the state as the agent now reports it, and
//!   `refused` with the agent's reason when it refused (the state then shows the value it
//!   kept). The page shows what comes back, never what was clicked.
//! - `acp.sessions.list` answers [`SessionList`] (only where
//!   [`SessionState::lists_sessions`]).
//! - `acp.sessions.open` answers [`OpenedSession`]: the thread that now holds that agent
//!   session (loaded or resumed), which the page opens like any thread.
//!
//! Live changes (an `available_commands_update`, a `usage_update`, a mode the agent
//! switched by itself) come on the thread channel as
//! `{"type": "thread.session.updated", "session": {…}}` ([`SessionUpdated`]), also sent
//! once after `thread.channel.ready` when the thread has a session.

use super::{acp, ThreadId, Unknown};
use crate::decode::Decode;
use crate::tagged::{null_as_default, tolerant_tagged};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What an agent session offers the page now.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct SessionState {
    /// The selectors beside the composer, in the agent's order (the Mode control, if any,
    /// first).
    #[serde(default, deserialize_with = "null_as_default")]
    pub controls: Vec<Control>,
    /// The slash commands, names without the `/`.
    #[serde(default, deserialize_with = "null_as_default")]
    pub commands: Vec<Command>,
    /// The context window as the agent last reported it; `None`: it reported nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// The session's title, as the agent named it (`session_info_update`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The agent lists its own sessions (`sessionCapabilities.list`): History shows them.
    #[serde(default)]
    pub lists_sessions: bool,
    /// The runtime lists the agent's workspace files for @-mentions
    /// (`{"type": "acp.files.search", "params": {"thread_id", "query", "limit"}}`, answered
    /// `{"data": [entity, …], "truncated": bool}`; docs/runtime.md); a file mentioned in a
    /// message goes to the agent as a `resource_link`.
    #[serde(default)]
    pub file_mentions: bool,
    /// The session's working directory: the agent's paths under it are shown relative to
    /// it (the full path stays in a tooltip).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
}

/// One selector: an ACP config option, or the session modes.
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct Control {
    /// What `acp.session.set` names (`mode` for the session modes).
    pub id: String,
    /// The agent's label for it.
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// ACP's category: `mode`, `model`, `model_config`, `thought_level`, or another word.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    #[serde(flatten)]
    pub kind: ControlKind,
}

/// What a control's value is.
#[derive(Clone, Debug, PartialEq)]
pub enum ControlKind {
    Select(SelectControl),
    Boolean(BooleanControl),
    /// A kind this client does not know: shown as unsupported, never as a known control.
    Other(Unknown),
}

tolerant_tagged!(ControlKind {
    "select" => Select,
    "boolean" => Boolean,
});

/// `{"type": "select", "value": "…", "options": [{"value", "name", "description"?,
/// "group"?}]}`: one of the options (grouped ones carry their group's name).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct SelectControl {
    pub value: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub options: Vec<Choice>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct Choice {
    pub value: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
}

/// `{"type": "boolean", "value": true}`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct BooleanControl {
    pub value: bool,
}

/// A slash command (ACP's `AvailableCommand`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct Command {
    pub name: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub description: String,
    /// What to type after the command, when it takes input (ACP's `input.hint`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

/// ACP's `usage_update`: `used` of `size` context tokens, and the cost so far if given.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct Usage {
    pub used: u64,
    pub size: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<Cost>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct Cost {
    pub amount: f64,
    pub currency: String,
}

/// The requests of this extension (their own request type, like the channel's: servers
/// without it never parse them).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", content = "params")]
pub enum SessionRequest {
    #[serde(rename = "acp.session.get")]
    Get {
        /// `None`: the user's draft session (see the module's text).
        thread_id: Option<ThreadId>,
    },
    #[serde(rename = "acp.session.set")]
    Set {
        thread_id: Option<ThreadId>,
        control_id: String,
        /// A select's option value (a string) or a boolean.
        value: Value,
    },
    #[serde(rename = "acp.sessions.list")]
    List { cursor: Option<String> },
    #[serde(rename = "acp.sessions.open")]
    Open { session_id: String },
}

/// The answer to `acp.session.get`: `session` is `None` when no agent runs behind the
/// endpoint (nothing to show).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct SessionAnswer {
    #[serde(default)]
    pub session: Option<SessionState>,
}

/// The answer to `acp.session.set`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct SetAnswer {
    pub session: SessionState,
    /// Why the agent refused the change (the state shows the value it kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
}

/// One page of the agent's own sessions, newest first as the agent lists them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct SessionList {
    #[serde(default, deserialize_with = "null_as_default")]
    pub sessions: Vec<AgentSession>,
    /// Ask again with this cursor for the next page; `None`: the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct AgentSession {
    pub session_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// ISO 8601, as the agent gave it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<String>,
    /// The thread already holding this session, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread_id: Option<ThreadId>,
}

/// The answer to `acp.sessions.open`.
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct OpenedSession {
    pub thread_id: ThreadId,
}

/// The thread channel's `thread.session.updated`.
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct SessionUpdated {
    pub session: SessionState,
}

/// Extension: an agent's question to the user (ACP `elicitation/create`) as a thread item,
/// a form in the conversation (or a link to open, `mode: "url"`):
///
/// ```json
/// {"id": "el_1", "type": "acp_elicitation", "created_at": "…",
///  "request": {"message": "Which database?", "mode": "form",
///              "requestedSchema": {"type": "object", "properties": {…}, "required": […]}},
///  "outcome": {"action": "accept", "content": {"db": "postgres"}}}
/// ```
///
/// `request` is ACP's request verbatim (camelCase; `sessionId` optional). The page answers
/// with `threads.custom_action` `acp.elicitation_response` ([`ACP_ELICITATION_ACTION`],
/// payload `{"action": "accept" | "decline" | "cancel", "content"?: {…}}`) on the item;
/// the server confirms with the item update `acp_elicitation.resolved` (`{"outcome": …}`).
/// `outcome` absent: still asking.
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct AcpElicitationItem {
    pub request: acp::ElicitationRequest,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<acp::ElicitationOutcome>,
}

/// `{"type": "acp_elicitation.resolved", "outcome": {…}}`.
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct AcpElicitationResolved {
    pub outcome: acp::ElicitationOutcome,
}

/// The action type that answers an elicitation (see [`AcpElicitationItem`]).
pub const ACP_ELICITATION_ACTION: &str = "acp.elicitation_response";

/// The `threads.custom_action` action that answers an elicitation.
pub fn acp_elicitation_action(outcome: &acp::ElicitationOutcome) -> super::Action {
    super::Action {
        kind: ACP_ELICITATION_ACTION.to_owned(),
        payload: serde_json::to_value(outcome).unwrap_or(Value::Null),
        handler: None,
        loading_behavior: None,
        streaming: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_state_reads_known_and_unknown_controls() {
        let wire = json!({
            "controls": [
                {"id": "mode", "name": "Mode", "category": "mode", "type": "select", "value": "ask",
                 "options": [{"value": "ask", "name": "Ask"}, {"value": "code", "name": "Code", "group": "Edit"}]},
                {"id": "fast", "name": "Fast", "type": "boolean", "value": true},
                {"id": "temp", "name": "Temperature", "type": "slider", "min": 0}
            ],
            "commands": [{"name": "web", "description": "Search the web", "hint": "query"}],
            "usage": {"used": 1200, "size": 200000, "cost": {"amount": 0.25, "currency": "USD"}},
            "lists_sessions": true
        });
        let state: SessionState = Decode::decode(&wire).unwrap();
        assert_eq!(state.controls.len(), 3);
        assert!(
            matches!(&state.controls[0].kind, ControlKind::Select(s) if s.value == "ask" && s.options[1].group.as_deref() == Some("Edit"))
        );
        assert!(matches!(
            state.controls[1].kind,
            ControlKind::Boolean(BooleanControl { value: true })
        ));
        assert!(
            matches!(&state.controls[2].kind, ControlKind::Other(u) if u.type_name() == "slider")
        );
        assert_eq!(state.commands[0].hint.as_deref(), Some("query"));
        assert_eq!(state.usage.as_ref().unwrap().size, 200000);
        assert!(state.lists_sessions);
        assert!(!state.file_mentions, "absent: false");
        // Written back as read.
        let again: SessionState = Decode::decode(&serde_json::to_value(&state).unwrap()).unwrap();
        assert_eq!(again, state);
        // A known kind with a broken body is an error, not an unknown one.
        let broken = json!({"controls": [{"id": "m", "name": "M", "type": "select"}]});
        assert!(SessionState::decode(&broken).is_err());
    }

    #[test]
    fn file_mentions_is_read_written_and_false_when_absent() {
        let state: SessionState = Decode::decode(&json!({"file_mentions": true})).unwrap();
        assert!(state.file_mentions);
        assert_eq!(serde_json::to_value(&state).unwrap()["file_mentions"], true);
        // An older runtime's state (no field) decodes, without file mentions.
        let older: SessionState = Decode::decode(&json!({"lists_sessions": true})).unwrap();
        assert!(!older.file_mentions && older.lists_sessions);
        let broken = json!({"file_mentions": "yes"});
        assert!(SessionState::decode(&broken).is_err());
    }

    #[test]
    fn the_requests_are_the_documented_json() {
        let set = SessionRequest::Set {
            thread_id: Some("thr_1".into()),
            control_id: "mode".into(),
            value: json!("plan"),
        };
        let wire = json!({"type": "acp.session.set", "params": {"thread_id": "thr_1", "control_id": "mode", "value": "plan"}});
        assert_eq!(serde_json::to_value(&set).unwrap(), wire);
        assert_eq!(serde_json::from_value::<SessionRequest>(wire).unwrap(), set);
        let get = json!({"type": "acp.session.get", "params": {"thread_id": null}});
        assert_eq!(
            serde_json::from_value::<SessionRequest>(get).unwrap(),
            SessionRequest::Get { thread_id: None }
        );
    }

    #[test]
    fn an_elicitation_item_keeps_its_schema_and_outcome() {
        let item: AcpElicitationItem = Decode::decode(&json!({
            "request": {"message": "Which database?", "mode": "form", "elicitationId": "e1",
                        "requestedSchema": {"type": "object", "properties": {"db": {"type": "string"}}}},
            "outcome": {"action": "accept", "content": {"db": "pg"}}
        }))
        .unwrap();
        assert_eq!(item.request.message, "Which database?");
        assert!(item
            .request
            .requested_schema
            .unwrap()
            .get("properties")
            .is_some());
        assert_eq!(item.outcome.unwrap().content.unwrap()["db"], "pg");
        let action = acp_elicitation_action(&acp::ElicitationOutcome {
            action: "decline".into(),
            content: None,
        });
        assert_eq!(action.payload, json!({"action": "decline"}));
    }
}
