//! The `RunAgentInput` of a run: the whole conversation as AG-UI messages (the user's
//! words, the assistant's with the tool calls it made and their results, reasoning that
//! must travel back), the shared state, the page's tools and what the run answers.

use super::conversation::Conversation;
use crate::model::EntryKind;
use crate::protocol::acp::ToolCallStatus;
use crate::protocol::ag_ui::{
    Context, FunctionCall, Message, Resume, RunAgentInput, Tool, ToolCall,
};
use crate::protocol::chatkit::{Attachment, ClientToolStatus};
use crate::reducer::{ChatState, EntryState};
use serde_json::{json, Value};

/// What a run sends besides the conversation.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunSetup {
    pub run_id: String,
    /// The page's declared client tools.
    pub tools: Vec<Tool>,
    /// The interrupts this run answers.
    pub resume: Vec<Resume>,
    /// The host's `metadata` option, passed to the agent as it is.
    pub forwarded_props: Option<Value>,
    pub context: Vec<Context>,
}

/// The request of a run, for the state as it is right after `SendStarted` (or after a
/// client tool's result, or with an interrupt's answer).
pub fn request(state: &ChatState, conversation: &Conversation, setup: RunSetup) -> RunAgentInput {
    RunAgentInput {
        thread_id: conversation.thread_id.clone(),
        run_id: setup.run_id,
        protocol_version: crate::protocol::ag_ui::PROTOCOL_VERSION.into(),
        parent_run_id: None,
        state: match &conversation.state {
            Value::Null => json!({}),
            state => state.clone(),
        },
        messages: messages(state.items(), conversation, false),
        tools: setup.tools,
        context: setup.context,
        forwarded_props: setup.forwarded_props.unwrap_or_else(|| json!({})),
        resume: setup.resume,
    }
}

/// The conversation as it is kept in the browser between visits: the messages a run
/// sends, with all reasoning (to show it again) and calls still without a result.
pub fn stored_messages(state: &ChatState, conversation: &Conversation) -> Vec<Message> {
    messages(state.items(), conversation, true)
}

/// The items as AG-UI messages; `kept` adds what only the stored copy holds.
pub(super) fn messages(
    items: &[EntryState],
    conversation: &Conversation,
    kept: bool,
) -> Vec<Message> {
    let mut messages: Vec<Message> = Vec::new();
    // Where the current turn's messages start: tool calls join an assistant message of it.
    let mut turn_start = 0;
    for i in items {
        let id = i.entry.id.0.clone();
        match &i.entry.kind {
            EntryKind::UserMessage(m) => {
                turn_start = messages.len() + 1;
                messages.push(Message::User {
                    id,
                    content: user_content(&m.text(), &m.attachments),
                });
            }
            EntryKind::AssistantText(_) => {
                let Some(text) = crate::reducer::assistant_text(i).filter(|t| !t.trim().is_empty())
                else {
                    continue;
                };
                messages.push(Message::Assistant {
                    encrypted_value: conversation.encrypted_of(&id),
                    id,
                    content: Some(text),
                    tool_calls: Vec::new(),
                });
            }
            EntryKind::ToolCall(call) => {
                let call = &call.tool_call;
                // An interrupt's own card is no call of the agent's.
                if call.tool_call_id.0.starts_with("interrupt-") {
                    continue;
                }
                // A call with no result goes back only while an interrupt waits on it (the
                // agent resumes it); otherwise it cannot be sent back alone.
                let awaited = conversation
                    .interrupts
                    .iter()
                    .any(|i| i.tool_call_id.as_deref() == Some(call.tool_call_id.0.as_str()));
                if call.raw_output.is_none() && !awaited && !kept {
                    continue;
                }
                let output = call.raw_output.as_ref();
                let failed = call.status == ToolCallStatus::Failed;
                let arguments = call.raw_input.clone().unwrap_or(json!({}));
                push_call(
                    &mut messages,
                    turn_start,
                    conversation,
                    &id,
                    &call.tool_call_id.0,
                    &call.title,
                    &arguments,
                    output,
                    failed,
                );
            }
            EntryKind::ClientToolCall(call) if call.status == ClientToolStatus::Completed => {
                let output = call.output.clone().unwrap_or(Value::Null);
                let failed = output.get("error").is_some();
                push_call(
                    &mut messages,
                    turn_start,
                    conversation,
                    &id,
                    &call.call_id,
                    &call.name,
                    &call.arguments,
                    Some(&output),
                    failed,
                );
            }
            EntryKind::Thought(t) => {
                // Reasoning goes back only where the agent asked for it (its encrypted value).
                let encrypted_value = conversation.encrypted_of(&id);
                if encrypted_value.is_some() || kept {
                    messages.push(Message::Reasoning {
                        id,
                        content: t.text.clone(),
                        encrypted_value,
                    });
                }
            }
            _ => {}
        }
    }
    messages
}

/// A user message's content: its text, or its text and files as input parts (a file read
/// in the page is a data URL: its bytes go as `data`; another URL as `url`).
fn user_content(text: &str, attachments: &[Attachment]) -> Value {
    if attachments.is_empty() {
        return Value::String(text.to_owned());
    }
    let mut parts: Vec<Value> = Vec::new();
    if !text.is_empty() {
        parts.push(json!({"type": "text", "text": text}));
    }
    for a in attachments {
        let Some(url) = a.preview_url.as_deref() else {
            continue;
        };
        let kind = match a.mime_type.split('/').next() {
            Some("image") => "image",
            Some("audio") => "audio",
            Some("video") => "video",
            _ => "document",
        };
        let source = match url
            .strip_prefix("data:")
            .and_then(|r| r.split_once(";base64,"))
        {
            Some((mime, data)) => json!({"type": "data", "value": data, "mimeType": mime}),
            None => json!({"type": "url", "value": url, "mimeType": a.mime_type}),
        };
        parts.push(json!({"type": kind, "source": source, "metadata": {"name": a.name}}));
    }
    Value::Array(parts)
}

/// A tool call and its result: the call joins the turn's last assistant message (one is
/// made for it if there is none), the result (if any) follows as a `tool` message.
#[allow(clippy::too_many_arguments)]
fn push_call(
    messages: &mut Vec<Message>,
    turn_start: usize,
    conversation: &Conversation,
    item_id: &str,
    call_id: &str,
    name: &str,
    arguments: &Value,
    output: Option<&Value>,
    failed: bool,
) {
    let call = ToolCall {
        id: call_id.to_owned(),
        kind: "function".into(),
        function: FunctionCall {
            name: name.to_owned(),
            arguments: match arguments {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            },
        },
        encrypted_value: conversation.encrypted_of(call_id),
    };
    let host = messages[turn_start.min(messages.len())..]
        .iter()
        .rposition(|m| matches!(m, Message::Assistant { .. }))
        .map(|at| at + turn_start.min(messages.len()));
    match host.map(|at| &mut messages[at]) {
        Some(Message::Assistant { tool_calls, .. }) => tool_calls.push(call),
        _ => messages.push(Message::Assistant {
            id: format!("{item_id}-call"),
            content: None,
            tool_calls: vec![call],
            encrypted_value: None,
        }),
    }
    let Some(output) = output else {
        return;
    };
    let text = match output {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    messages.push(Message::Tool {
        id: format!("{item_id}-result"),
        tool_call_id: call_id.to_owned(),
        content: Value::String(text.clone()),
        error: failed.then_some(text),
    });
}
