//! `MESSAGES_SNAPSHOT`: the agent's messages as the conversation's items. The user's
//! and the assistant's words, the assistant's tool calls with the results that answer them,
//! and reasoning; system and developer messages are instructions, not shown.

use crate::model::{Entry, EntryKind, Thought, ToolCall as ToolCallEntry};
use crate::protocol::acp::{ToolCall, ToolCallId, ToolCallStatus, ToolKind};
use crate::protocol::ag_ui::Message;
use crate::protocol::chatkit::{
    AssistantContent, AssistantMessage, Attachment, AttachmentId, AttachmentKind, InputText,
    ItemId, UserContent, UserMessage,
};
use serde_json::Value;

/// The items of stored (or snapshot) AG-UI messages, in their order.
pub fn restored(messages: &[Value]) -> Vec<Entry> {
    entries(messages)
}

/// A tool call's arguments: the JSON they spell, or the text as it came.
pub(super) fn arguments(text: &str) -> Value {
    if text.trim().is_empty() {
        return Value::Null;
    }
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned()))
}

/// The items of a snapshot, in its order; a message this client cannot read is skipped.
pub(super) fn entries(messages: &[Value]) -> Vec<Entry> {
    let messages: Vec<Message> = messages
        .iter()
        .filter_map(Message::decode_lenient)
        .collect();
    let mut out: Vec<Entry> = Vec::new();
    for message in &messages {
        match message {
            Message::User { id, content } => out.push(Entry::new(
                ItemId(id.clone()),
                EntryKind::UserMessage(UserMessage {
                    content: vec![UserContent::InputText(InputText {
                        text: text_of(content),
                    })],
                    attachments: files(id, content),
                    ..UserMessage::default()
                }),
            )),
            Message::Assistant {
                id,
                content,
                tool_calls,
                ..
            } => {
                if let Some(text) = content.as_ref().filter(|t| !t.trim().is_empty()) {
                    out.push(Entry::new(
                        ItemId(id.clone()),
                        EntryKind::AssistantText(AssistantMessage {
                            content: vec![AssistantContent::text(text)],
                        }),
                    ));
                }
                for call in tool_calls {
                    let answer = messages.iter().find_map(|m| match m {
                        Message::Tool {
                            tool_call_id,
                            content,
                            error,
                            ..
                        } if tool_call_id == &call.id => Some((content, error)),
                        _ => None,
                    });
                    let status = match answer {
                        Some((_, Some(_))) => ToolCallStatus::Failed,
                        Some(_) => ToolCallStatus::Completed,
                        // Asked for and never answered: how it ended is not known.
                        None => ToolCallStatus::Pending,
                    };
                    out.push(Entry::new(
                        ItemId(call.id.clone()),
                        EntryKind::ToolCall(ToolCallEntry {
                            tool_call: ToolCall {
                                tool_call_id: ToolCallId(call.id.clone()),
                                title: call.function.name.clone(),
                                kind: ToolKind::Other,
                                status,
                                content: Vec::new(),
                                locations: Vec::new(),
                                raw_input: Some(arguments(&call.function.arguments))
                                    .filter(|a| !a.is_null()),
                                raw_output: answer.map(|(content, error)| match error {
                                    Some(e) => Value::String(e.clone()),
                                    None => content.clone(),
                                }),
                            },
                            permission: None,
                        }),
                    ));
                }
            }
            Message::Reasoning { id, content, .. } if !content.trim().is_empty() => {
                out.push(Entry::new(
                    ItemId(id.clone()),
                    EntryKind::Thought(Thought {
                        text: content.clone(),
                    }),
                ))
            }
            // Answers are with their calls; instructions are not shown.
            _ => {}
        }
    }
    out
}

/// The files of a user message's input parts, as attachments (their data as a data URL).
fn files(message_id: &str, content: &Value) -> Vec<Attachment> {
    let Some(parts) = content.as_array() else {
        return Vec::new();
    };
    parts
        .iter()
        .filter(|p| p["type"] != "text")
        .enumerate()
        .filter_map(|(i, p)| {
            let source = &p["source"];
            let mime = source["mimeType"].as_str().unwrap_or_default().to_owned();
            let value = source["value"].as_str()?;
            let url = match source["type"].as_str() {
                Some("data") => format!("data:{mime};base64,{value}"),
                Some("url") => value.to_owned(),
                _ => return None,
            };
            Some(Attachment {
                id: AttachmentId(format!("{message_id}-file-{i}")),
                name: p["metadata"]["name"].as_str().unwrap_or("file").to_owned(),
                kind: if p["type"] == "image" {
                    AttachmentKind::Image
                } else {
                    AttachmentKind::File
                },
                mime_type: mime,
                preview_url: Some(url),
                upload_url: None,
                upload_descriptor: None,
                thread_id: None,
            })
        })
        .collect()
}

/// The text of a message's content: a string, or the text of its parts.
pub fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}
