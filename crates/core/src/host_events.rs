//! The `chat.*` events a host sees: one enum with a typed detail per event. The element
//! dispatches each as a DOM `CustomEvent` named [`ChatEvent::name`] with
//! [`ChatEvent::detail`] as its JSON detail; the Leptos component hands the enum itself to
//! `on_event`.

use crate::protocol::chatkit::{ItemId, NoticeLevel, ThreadId};
use crate::protocol::JsonMap;
use serde_json::{json, Value};

/// One event, as the host receives it.
#[derive(Clone, Debug, PartialEq)]
pub enum ChatEvent {
    /// The element mounted for the first time.
    Ready,
    MessageSent {
        text: String,
        ghost: bool,
    },
    ThreadCreated {
        thread_id: ThreadId,
    },
    /// The open thread changed; `None` for a new, empty chat.
    ThreadChange {
        thread_id: Option<ThreadId>,
    },
    ResponseStart,
    /// An answer finished: streamed to the end, stopped or failed.
    ResponseEnd,
    /// An answer streamed to its end.
    ThreadDone {
        thread_id: Option<ThreadId>,
    },
    Error(ChatError),
    Notice {
        level: NoticeLevel,
        message: String,
        title: Option<String>,
    },
    Effect {
        name: String,
        data: JsonMap,
    },
    AttachmentAdded {
        name: String,
        size: u64,
        mime_type: String,
    },
    AttachmentRemoved {
        name: String,
        id: Option<String>,
    },
    /// A widget action handled on the client.
    Action {
        action: Value,
        item_id: Option<ItemId>,
    },
    Resize {
        width: f64,
        height: f64,
    },
    /// The reader clicked an entity source; the detail is the source as the server sent it.
    EntityClick(Value),
    /// The harness stopped the run on a limit; `message` names it. The answer ends as
    /// usual; the composer stays usable.
    BudgetExhausted {
        message: String,
    },
    /// The client met something it does not understand, for the first time in this
    /// element: `kind` is `unknown_type` (an event type) or `unknown_field`
    /// (`type.field`). Never fatal; counts are in the state's diagnostics.
    Diagnostic {
        kind: &'static str,
        name: String,
    },
    /// The agent's shared state changed (AG-UI): the whole of it.
    AgentState {
        state: Value,
    },
    /// An AG-UI `CUSTOM` event, for the host: never shown.
    Custom {
        name: String,
        value: Value,
    },
    /// An AG-UI `RAW` event (a framework's own event passed through), for the host.
    Raw {
        event: Value,
        source: Option<String>,
    },
}

/// What went wrong, for `chat.error`.
#[derive(Clone, Debug, PartialEq)]
pub struct ChatError {
    pub kind: ErrorKind,
    /// Readable, for a person.
    pub message: String,
    /// The server's error code, for a failed answer.
    pub code: Option<String>,
    /// Whether the server allows a retry, for a failed answer.
    pub allow_retry: Option<bool>,
    /// The undecodable payload, for a malformed event.
    pub raw: Option<String>,
    /// The HTTP status, for a failed upload.
    pub status: Option<u16>,
}

/// Which operation failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The answer failed (server error event, dropped connection, stall, HTTP error).
    Turn,
    /// One stream event could not be read and was skipped; the answer went on.
    Decode,
    /// The server reported a recoverable error inside the answer; the answer went on.
    Run,
    Action,
    Feedback,
    Upload,
    AttachmentDelete,
    History,
    ThreadUpdate,
    ThreadDelete,
    ThreadLoad,
    ItemsList,
}

impl ErrorKind {
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::Turn => "turn",
            ErrorKind::Decode => "decode",
            ErrorKind::Run => "run",
            ErrorKind::Action => "action",
            ErrorKind::Feedback => "feedback",
            ErrorKind::Upload => "upload",
            ErrorKind::AttachmentDelete => "attachments.delete",
            ErrorKind::History => "history",
            ErrorKind::ThreadUpdate => "thread.update",
            ErrorKind::ThreadDelete => "thread.delete",
            ErrorKind::ThreadLoad => "thread.load",
            ErrorKind::ItemsList => "items.list",
        }
    }
}

impl ChatError {
    /// An error with only a kind and a message.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        ChatError {
            kind,
            message: message.into(),
            code: None,
            allow_retry: None,
            raw: None,
            status: None,
        }
    }
}

impl ChatEvent {
    /// The DOM event's name.
    pub fn name(&self) -> &'static str {
        match self {
            ChatEvent::Ready => "chat.ready",
            ChatEvent::MessageSent { .. } => "chat.message.sent",
            ChatEvent::ThreadCreated { .. } => "chat.thread.created",
            ChatEvent::ThreadChange { .. } => "chat.thread.change",
            ChatEvent::ResponseStart => "chat.response.start",
            ChatEvent::ResponseEnd => "chat.response.end",
            ChatEvent::ThreadDone { .. } => "chat.thread.done",
            ChatEvent::Error(_) => "chat.error",
            ChatEvent::Notice { .. } => "chat.notice",
            ChatEvent::Effect { .. } => "chat.effect",
            ChatEvent::AttachmentAdded { .. } => "chat.attachment.added",
            ChatEvent::AttachmentRemoved { .. } => "chat.attachment.removed",
            ChatEvent::Action { .. } => "chat.action",
            ChatEvent::Resize { .. } => "chat.resize",
            ChatEvent::EntityClick(_) => "chat.entity.click",
            ChatEvent::BudgetExhausted { .. } => "chat.budget.exhausted",
            ChatEvent::Diagnostic { .. } => "chat.diagnostic",
            ChatEvent::AgentState { .. } => "chat.state",
            ChatEvent::Custom { .. } => "chat.custom",
            ChatEvent::Raw { .. } => "chat.raw",
        }
    }

    /// The DOM event's detail, as the README documents it.
    pub fn detail(&self) -> Value {
        match self {
            ChatEvent::Ready | ChatEvent::ResponseStart | ChatEvent::ResponseEnd => json!({}),
            ChatEvent::MessageSent { text, ghost } => json!({ "text": text, "ghost": ghost }),
            ChatEvent::ThreadCreated { thread_id } => json!({ "threadId": thread_id }),
            ChatEvent::ThreadChange { thread_id } | ChatEvent::ThreadDone { thread_id } => {
                json!({ "threadId": thread_id })
            }
            ChatEvent::Error(e) => {
                let mut detail = json!({ "kind": e.kind.name(), "message": e.message });
                let extra = [
                    ("code", e.code.clone().map(Value::from)),
                    ("allowRetry", e.allow_retry.map(Value::from)),
                    ("raw", e.raw.clone().map(Value::from)),
                    ("status", e.status.map(Value::from)),
                ];
                for (key, value) in extra {
                    if let Some(value) = value {
                        detail[key] = value;
                    }
                }
                if matches!(e.kind, ErrorKind::Decode | ErrorKind::Run) {
                    detail["fatal"] = false.into();
                }
                detail
            }
            ChatEvent::Notice {
                level,
                message,
                title,
            } => json!({ "level": level, "message": message, "title": title }),
            ChatEvent::Effect { name, data } => json!({ "name": name, "data": data }),
            ChatEvent::AttachmentAdded {
                name,
                size,
                mime_type,
            } => json!({ "name": name, "size": size, "mimeType": mime_type }),
            ChatEvent::AttachmentRemoved { name, id } => json!({ "name": name, "id": id }),
            ChatEvent::Action { action, item_id } => {
                json!({ "action": action, "itemId": item_id })
            }
            ChatEvent::Resize { width, height } => json!({ "width": width, "height": height }),
            ChatEvent::EntityClick(source) => source.clone(),
            ChatEvent::BudgetExhausted { message } => json!({ "message": message }),
            ChatEvent::Diagnostic { kind, name } => json!({ "kind": kind, "name": name }),
            ChatEvent::AgentState { state } => json!({ "state": state }),
            ChatEvent::Custom { name, value } => json!({ "name": name, "value": value }),
            ChatEvent::Raw { event, source } => json!({ "event": event, "source": source }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_details_match_the_documented_shapes() {
        let thread = ThreadId("thr_1".into());
        let cases = [
            (ChatEvent::Ready, "chat.ready", json!({})),
            (
                ChatEvent::MessageSent {
                    text: "hi".into(),
                    ghost: true,
                },
                "chat.message.sent",
                json!({"text": "hi", "ghost": true}),
            ),
            (
                ChatEvent::ThreadChange { thread_id: None },
                "chat.thread.change",
                json!({"threadId": null}),
            ),
            (
                ChatEvent::ThreadDone {
                    thread_id: Some(thread.clone()),
                },
                "chat.thread.done",
                json!({"threadId": "thr_1"}),
            ),
            (
                ChatEvent::Error(ChatError {
                    code: Some("rate_limited".into()),
                    allow_retry: Some(false),
                    ..ChatError::new(ErrorKind::Turn, "Slow down")
                }),
                "chat.error",
                json!({"kind": "turn", "message": "Slow down", "code": "rate_limited", "allowRetry": false}),
            ),
            (
                ChatEvent::Error(ChatError {
                    raw: Some("{".into()),
                    ..ChatError::new(ErrorKind::Decode, "bad")
                }),
                "chat.error",
                json!({"kind": "decode", "message": "bad", "raw": "{", "fatal": false}),
            ),
            (
                ChatEvent::AttachmentAdded {
                    name: "a.png".into(),
                    size: 3,
                    mime_type: "image/png".into(),
                },
                "chat.attachment.added",
                json!({"name": "a.png", "size": 3, "mimeType": "image/png"}),
            ),
            (
                ChatEvent::Error(ChatError {
                    code: Some("tool_timeout".into()),
                    ..ChatError::new(ErrorKind::Run, "The tool timed out")
                }),
                "chat.error",
                json!({"kind": "run", "message": "The tool timed out", "code": "tool_timeout", "fatal": false}),
            ),
            (
                ChatEvent::BudgetExhausted {
                    message: "Token budget (100k) reached".into(),
                },
                "chat.budget.exhausted",
                json!({"message": "Token budget (100k) reached"}),
            ),
            (
                ChatEvent::Diagnostic {
                    kind: "unknown_type",
                    name: "telemetry".into(),
                },
                "chat.diagnostic",
                json!({"kind": "unknown_type", "name": "telemetry"}),
            ),
        ];
        for (event, name, detail) in cases {
            assert_eq!(event.name(), name);
            assert_eq!(event.detail(), detail, "{name}");
        }
    }
}
