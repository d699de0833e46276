//! Requests to the one ChatKit endpoint (`{type, params, metadata?}`) and their JSON answers.

use super::items::{Action, ThreadItem, UserContent};
use super::{AttachmentId, ItemId, JsonMap, ThreadId};
use crate::decode::Decode;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A request envelope: what is POSTed to the endpoint.
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
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
    /// Extension (where `Thread::branching`): the user message `item_id` edited. The new
    /// message becomes a branch beside it, and is answered; the old one keeps its answers.
    #[serde(rename = "threads.edit_user_message")]
    EditUserMessage {
        thread_id: ThreadId,
        item_id: ItemId,
        input: UserMessageInput,
    },
    /// Extension (where `Thread::branching`): the user message `item_id` answered again,
    /// as a new branch beside its answer (which `threads.retry_after_item` deletes).
    #[serde(rename = "threads.regenerate_after_item")]
    RegenerateAfterItem {
        thread_id: ThreadId,
        item_id: ItemId,
    },
    /// Extension (where `Thread::branching`): show the branch that starts at `item_id`
    /// (its newest end). Answered with the thread and its first page of items, as
    /// `threads.get_by_id`.
    #[serde(rename = "threads.select_branch")]
    SelectBranch {
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
                | RequestBody::EditUserMessage { .. }
                | RequestBody::RegenerateAfterItem { .. }
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
            RequestBody::EditUserMessage { .. } => "threads.edit_user_message",
            RequestBody::RegenerateAfterItem { .. } => "threads.regenerate_after_item",
            RequestBody::SelectBranch { .. } => "threads.select_branch",
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
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
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

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Decode)]
#[serde(rename_all = "snake_case")]
pub enum ListOrder {
    Asc,
    Desc,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Decode)]
#[serde(rename_all = "snake_case")]
pub enum FeedbackKind {
    Positive,
    Negative,
}

/// The JSON answer of `threads.sync_custom_action`.
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct SyncCustomActionResponse {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_item: Option<ThreadItem>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn wire(body: RequestBody, metadata: Option<JsonMap>) -> Value {
        serde_json::to_value(body.with_metadata(metadata)).unwrap()
    }

    #[test]
    fn threads_create_matches_the_spec_example() {
        let input =
            UserMessageInput::text("can you pay this bill for me", vec!["atc_c02562d2".into()]);
        let mut metadata = JsonMap::new();
        metadata.insert("tenant".into(), json!("acme"));
        assert_eq!(
            wire(RequestBody::ThreadsCreate { input }, Some(metadata)),
            json!({
                "type": "threads.create",
                "params": {"input": {
                    "content": [{"type": "input_text", "text": "can you pay this bill for me"}],
                    "attachments": ["atc_c02562d2"],
                    "inference_options": {}
                }},
                "metadata": {"tenant": "acme"}
            })
        );
    }

    #[test]
    fn every_request_type_has_its_wire_name_and_params() {
        let t = ThreadId::from("thr_1");
        let i = ItemId::from("msg_1");
        let action = Action {
            kind: "approval".into(),
            payload: json!({"approved": true}),
            handler: None,
            loading_behavior: None,
            streaming: None,
        };
        let cases = vec![
            (
                RequestBody::ThreadsCreate {
                    input: UserMessageInput::text("x", vec![]),
                },
                "threads.create",
                true,
            ),
            (
                RequestBody::AddUserMessage {
                    thread_id: t.clone(),
                    input: UserMessageInput::text("x", vec![]),
                },
                "threads.add_user_message",
                true,
            ),
            (
                RequestBody::AddClientToolOutput {
                    thread_id: t.clone(),
                    result: json!({"ok": 1}),
                },
                "threads.add_client_tool_output",
                true,
            ),
            (
                RequestBody::AddStructuredInput {
                    thread_id: t.clone(),
                    item_id: i.clone(),
                    answers: JsonMap::new(),
                },
                "threads.add_structured_input",
                true,
            ),
            (
                RequestBody::RetryAfterItem {
                    thread_id: t.clone(),
                    item_id: i.clone(),
                },
                "threads.retry_after_item",
                true,
            ),
            (
                RequestBody::EditUserMessage {
                    thread_id: t.clone(),
                    item_id: i.clone(),
                    input: UserMessageInput::text("again", Vec::new()),
                },
                "threads.edit_user_message",
                true,
            ),
            (
                RequestBody::RegenerateAfterItem {
                    thread_id: t.clone(),
                    item_id: i.clone(),
                },
                "threads.regenerate_after_item",
                true,
            ),
            (
                RequestBody::SelectBranch {
                    thread_id: t.clone(),
                    item_id: i.clone(),
                },
                "threads.select_branch",
                false,
            ),
            (
                RequestBody::CustomAction {
                    thread_id: t.clone(),
                    item_id: None,
                    action: action.clone(),
                },
                "threads.custom_action",
                true,
            ),
            (
                RequestBody::GetThread {
                    thread_id: t.clone(),
                },
                "threads.get_by_id",
                false,
            ),
            (
                RequestBody::ListThreads {
                    limit: Some(20),
                    after: None,
                    order: Some(ListOrder::Desc),
                },
                "threads.list",
                false,
            ),
            (
                RequestBody::ListItems {
                    thread_id: t.clone(),
                    limit: Some(50),
                    after: Some("msg_0".into()),
                    order: Some(ListOrder::Asc),
                },
                "items.list",
                false,
            ),
            (
                RequestBody::Feedback {
                    thread_id: t.clone(),
                    item_ids: vec![i.clone()],
                    kind: FeedbackKind::Positive,
                },
                "items.feedback",
                false,
            ),
            (
                RequestBody::CreateAttachment {
                    name: "a.png".into(),
                    size: 3,
                    mime_type: "image/png".into(),
                },
                "attachments.create",
                false,
            ),
            (
                RequestBody::DeleteAttachment {
                    attachment_id: "atc_1".into(),
                },
                "attachments.delete",
                false,
            ),
            (
                RequestBody::UpdateThread {
                    thread_id: t.clone(),
                    title: "T".into(),
                },
                "threads.update",
                false,
            ),
            (
                RequestBody::DeleteThread {
                    thread_id: t.clone(),
                },
                "threads.delete",
                false,
            ),
            (
                RequestBody::SyncCustomAction {
                    thread_id: t.clone(),
                    item_id: Some(i.clone()),
                    action,
                },
                "threads.sync_custom_action",
                false,
            ),
            (
                RequestBody::Transcribe {
                    audio_base64: "AA==".into(),
                    mime_type: "audio/webm".into(),
                },
                "input.transcribe",
                false,
            ),
        ];
        for (body, name, streaming) in cases {
            assert_eq!(body.type_name(), name);
            assert_eq!(body.is_streaming(), streaming, "{name}");
            let value = wire(body.clone(), None);
            assert_eq!(value["type"], name);
            assert!(value["params"].is_object(), "{name}: {value}");
            assert!(
                value.get("metadata").is_none(),
                "{name}: empty metadata is omitted"
            );
            let back: ChatRequest = serde_json::from_value(value).unwrap();
            assert_eq!(back.body, body, "{name} round-trips");
        }
        let action = wire(
            RequestBody::CustomAction {
                thread_id: t,
                item_id: Some(i),
                action: Action {
                    kind: "approval".into(),
                    payload: json!({"approved": false}),
                    handler: None,
                    loading_behavior: Some("self".into()),
                    streaming: None,
                },
            },
            None,
        );
        assert_eq!(
            action["params"]["action"],
            json!({"type": "approval", "payload": {"approved": false}, "loadingBehavior": "self"})
        );
        assert_eq!(action["params"]["item_id"], "msg_1");
    }
}

crate::decode::via_serde!(RequestBody);
