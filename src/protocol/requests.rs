//! Requests to the one ChatKit endpoint (`{type, params, metadata?}`) and their JSON answers.

use super::items::{Action, ThreadItem, UserContent};
use super::{AttachmentId, ItemId, JsonMap, ThreadId};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A request envelope: what is POSTed to the endpoint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    #[serde(flatten)]
    pub body: RequestBody,
    /// Sent with every request when configured; servers may ignore it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<JsonMap>,
}

/// The `type` and `params` of a request.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", content = "params")]
pub enum RequestBody {
    #[serde(rename = "threads.create")]
    ThreadsCreate { input: UserMessageInput },
    #[serde(rename = "threads.add_user_message")]
    AddUserMessage {
        thread_id: ThreadId,
        input: UserMessageInput,
    },
    #[serde(rename = "threads.add_client_tool_output")]
    AddClientToolOutput { thread_id: ThreadId, result: Value },
    #[serde(rename = "threads.add_structured_input")]
    AddStructuredInput {
        thread_id: ThreadId,
        item_id: ItemId,
        /// Answers by question id: `{"color": {"values": ["green"], "skipped": false}}`.
        answers: JsonMap,
    },
    #[serde(rename = "threads.retry_after_item")]
    RetryAfterItem {
        thread_id: ThreadId,
        item_id: ItemId,
    },
    #[serde(rename = "threads.custom_action")]
    CustomAction {
        thread_id: ThreadId,
        item_id: Option<ItemId>,
        action: Action,
    },
    #[serde(rename = "threads.get_by_id")]
    GetThread { thread_id: ThreadId },
    #[serde(rename = "threads.list")]
    ListThreads {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        limit: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        after: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        order: Option<ListOrder>,
    },
    #[serde(rename = "items.list")]
    ListItems {
        thread_id: ThreadId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        limit: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        after: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        order: Option<ListOrder>,
    },
    #[serde(rename = "items.feedback")]
    Feedback {
        thread_id: ThreadId,
        item_ids: Vec<ItemId>,
        kind: FeedbackKind,
    },
    #[serde(rename = "attachments.create")]
    CreateAttachment {
        name: String,
        size: u64,
        mime_type: String,
    },
    #[serde(rename = "attachments.delete")]
    DeleteAttachment { attachment_id: AttachmentId },
    #[serde(rename = "threads.update")]
    UpdateThread { thread_id: ThreadId, title: String },
    #[serde(rename = "threads.delete")]
    DeleteThread { thread_id: ThreadId },
    #[serde(rename = "threads.sync_custom_action")]
    SyncCustomAction {
        thread_id: ThreadId,
        item_id: Option<ItemId>,
        action: Action,
    },
    #[serde(rename = "input.transcribe")]
    Transcribe {
        audio_base64: String,
        mime_type: String,
    },
}

impl RequestBody {
    /// Whether the server answers with Server-Sent Events (otherwise JSON).
    pub fn is_streaming(&self) -> bool {
        matches!(
            self,
            RequestBody::ThreadsCreate { .. }
                | RequestBody::AddUserMessage { .. }
                | RequestBody::AddClientToolOutput { .. }
                | RequestBody::AddStructuredInput { .. }
                | RequestBody::RetryAfterItem { .. }
                | RequestBody::CustomAction { .. }
        )
    }

    /// The wire name, e.g. `threads.create` (for logs).
    pub fn type_name(&self) -> &'static str {
        match self {
            RequestBody::ThreadsCreate { .. } => "threads.create",
            RequestBody::AddUserMessage { .. } => "threads.add_user_message",
            RequestBody::AddClientToolOutput { .. } => "threads.add_client_tool_output",
            RequestBody::AddStructuredInput { .. } => "threads.add_structured_input",
            RequestBody::RetryAfterItem { .. } => "threads.retry_after_item",
            RequestBody::CustomAction { .. } => "threads.custom_action",
            RequestBody::GetThread { .. } => "threads.get_by_id",
            RequestBody::ListThreads { .. } => "threads.list",
            RequestBody::ListItems { .. } => "items.list",
            RequestBody::Feedback { .. } => "items.feedback",
            RequestBody::CreateAttachment { .. } => "attachments.create",
            RequestBody::DeleteAttachment { .. } => "attachments.delete",
            RequestBody::UpdateThread { .. } => "threads.update",
            RequestBody::DeleteThread { .. } => "threads.delete",
            RequestBody::SyncCustomAction { .. } => "threads.sync_custom_action",
            RequestBody::Transcribe { .. } => "input.transcribe",
        }
    }

    /// Wrap in an envelope with the configured metadata (`None` or an empty map: omitted).
    pub fn with_metadata(self, metadata: Option<JsonMap>) -> ChatRequest {
        ChatRequest {
            body: self,
            metadata: metadata.filter(|m| !m.is_empty()),
        }
    }
}

/// What the user typed and attached.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct UserMessageInput {
    pub content: Vec<UserContent>,
    #[serde(default)]
    pub attachments: Vec<AttachmentId>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quoted_text: Option<String>,
    #[serde(default)]
    pub inference_options: JsonMap,
}

impl UserMessageInput {
    /// A plain text message with these attachments.
    pub fn text(text: impl Into<String>, attachments: Vec<AttachmentId>) -> Self {
        UserMessageInput {
            content: vec![UserContent::InputText(super::items::InputText {
                text: text.into(),
            })],
            attachments,
            quoted_text: None,
            inference_options: JsonMap::new(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ListOrder {
    Asc,
    Desc,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FeedbackKind {
    Positive,
    Negative,
}

/// The JSON answer of `threads.sync_custom_action`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SyncCustomActionResponse {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_item: Option<ThreadItem>,
}
