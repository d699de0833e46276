//! Stream events (the `data:` payloads of an SSE answer) and item updates.

use super::items::{Annotation, AssistantContent, GeneratedImage, Task, ThreadItem};
use super::tagged::{null_as_default, tolerant_tagged};
use super::widgets::{WidgetComponent, WidgetRoot};
use super::{acp, AcpElicitationResolved, ItemId, JsonMap, Thread, Unknown};
use crate::decode::Decode;
use serde::{Deserialize, Serialize};
use std::fmt;

/// One event of a streamed answer.
#[derive(Clone, Debug, PartialEq)]
pub enum StreamEvent {
    ThreadCreated(ThreadEvent),
    ThreadUpdated(ThreadEvent),
    ItemAdded(ItemEvent),
    ItemUpdated(ItemUpdatedEvent),
    ItemDone(ItemEvent),
    ItemRemoved(ItemRemovedEvent),
    ItemReplaced(ItemEvent),
    StreamOptions(StreamOptionsEvent),
    ProgressUpdate(ProgressUpdateEvent),
    ClientEffect(ClientEffectEvent),
    Error(ErrorEvent),
    Notice(NoticeEvent),
    /// An event type this client does not know; ignored with a warning.
    Other(Unknown),
}

tolerant_tagged!(StreamEvent {
    "thread.created" => ThreadCreated,
    "thread.updated" => ThreadUpdated,
    "thread.item.added" => ItemAdded,
    "thread.item.updated" => ItemUpdated,
    "thread.item.done" => ItemDone,
    "thread.item.removed" => ItemRemoved,
    "thread.item.replaced" => ItemReplaced,
    "stream_options" => StreamOptions,
    "progress_update" => ProgressUpdate,
    "client_effect" => ClientEffect,
    "error" => Error,
    "notice" => Notice,
});

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct ThreadEvent {
    pub thread: Thread,
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct ItemEvent {
    pub item: ThreadItem,
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct ItemUpdatedEvent {
    pub item_id: ItemId,
    pub update: ItemUpdate,
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct ItemRemovedEvent {
    pub item_id: ItemId,
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct StreamOptionsEvent {
    pub stream_options: StreamOptions,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Decode)]
pub struct StreamOptions {
    #[serde(default = "yes")]
    pub allow_cancel: bool,
}

fn yes() -> bool {
    true
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct ProgressUpdateEvent {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icon: Option<String>,
    pub text: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct ClientEffectEvent {
    pub name: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub data: JsonMap,
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct ErrorEvent {
    /// `stream.error`, `custom`, or another code.
    #[serde(default, deserialize_with = "null_as_default")]
    pub code: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(default)]
    pub allow_retry: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct NoticeEvent {
    #[serde(default)]
    pub level: NoticeLevel,
    /// Markdown.
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Decode)]
#[serde(rename_all = "snake_case")]
pub enum NoticeLevel {
    #[default]
    Info,
    Warning,
    Danger,
}

/// The `update` of a `thread.item.updated` event.
#[derive(Clone, Debug, PartialEq)]
pub enum ItemUpdate {
    ContentPartAdded(ContentPartEvent),
    TextDelta(TextDelta),
    AnnotationAdded(AnnotationAdded),
    ContentPartDone(ContentPartEvent),
    WidgetTextDelta(WidgetTextDelta),
    WidgetComponentUpdated(WidgetComponentUpdated),
    WidgetRootUpdated(WidgetRootUpdated),
    WorkflowTaskAdded(WorkflowTaskEvent),
    WorkflowTaskUpdated(WorkflowTaskEvent),
    GeneratedImageUpdated(GeneratedImageUpdated),
    /// Extension: an ACP `tool_call_update` for an `acp_tool_call` item.
    AcpToolCallUpdated(AcpToolCallUpdated),
    /// Extension: the agent asks permission for the item's tool call.
    AcpPermissionRequested(AcpPermissionRequested),
    /// Extension: the server confirms the decision on the item's permission request.
    AcpPermissionResolved(acp::PermissionResponse),
    /// Extension: an ACP `plan` update for an `acp_plan` item (replaces the entries).
    AcpPlanUpdated(acp::Plan),
    /// Extension: an ACP `agent_thought_chunk` for an `acp_thought` item.
    AcpThoughtChunk(AcpThoughtChunk),
    /// Extension: the server confirms the answer to an `acp_elicitation` item.
    AcpElicitationResolved(AcpElicitationResolved),
    Other(Unknown),
}

tolerant_tagged!(ItemUpdate {
    "assistant_message.content_part.added" => ContentPartAdded,
    "assistant_message.content_part.text_delta" => TextDelta,
    "assistant_message.content_part.annotation_added" => AnnotationAdded,
    "assistant_message.content_part.done" => ContentPartDone,
    "widget.streaming_text.value_delta" => WidgetTextDelta,
    "widget.component.updated" => WidgetComponentUpdated,
    "widget.root.updated" => WidgetRootUpdated,
    "workflow.task.added" => WorkflowTaskAdded,
    "workflow.task.updated" => WorkflowTaskUpdated,
    "generated_image.updated" => GeneratedImageUpdated,
    "acp_tool_call.update" => AcpToolCallUpdated,
    "acp_tool_call.permission_requested" => AcpPermissionRequested,
    "acp_tool_call.permission_resolved" => AcpPermissionResolved,
    "acp_plan.update" => AcpPlanUpdated,
    "acp_thought.chunk" => AcpThoughtChunk,
    "acp_elicitation.resolved" => AcpElicitationResolved,
});

/// `{"type": "acp_tool_call.update", "update": {"toolCallId": "call_1", "status":
/// "completed", "rawOutput": {…}}}`: the ACP `tool_call_update` verbatim; only the fields
/// it carries change, lists replace whole. For an item this client never saw, a tool call
/// is made from the update, so nothing the server says is dropped.
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct AcpToolCallUpdated {
    pub update: acp::ToolCallUpdate,
}

/// `{"type": "acp_tool_call.permission_requested", "request": {"toolCall": {…},
/// "options": [{"optionId": "…", "name": "…", "kind": "allow_once"}]}}`: the ACP
/// `session/request_permission` params verbatim (`sessionId` optional). Its `toolCall`
/// (the command, cwd or diff it would apply) is merged into the item's tool call. The
/// client answers with [`acp_permission_action`]; the decision is shown once the server
/// confirms it with `{"type": "acp_tool_call.permission_resolved", "outcome":
/// {"outcome": "selected", "optionId": "…"}}` (the ACP response verbatim).
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct AcpPermissionRequested {
    pub request: acp::RequestPermission,
}

/// `{"type": "acp_thought.chunk", "content": {"type": "text", "text": "…"}}`: the ACP
/// `agent_thought_chunk` verbatim.
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct AcpThoughtChunk {
    pub content: acp::ContentBlock,
}

/// The `threads.custom_action` action that answers a permission request, sent with the
/// tool call's item id: `{"type": "acp.permission_response", "payload": {"toolCallId":
/// "call_1", "outcome": {"outcome": "selected", "optionId": "allow"}}}` (the payload's
/// `outcome` is ACP's `RequestPermissionResponse.outcome`).
pub fn acp_permission_action(
    tool_call_id: &acp::ToolCallId,
    outcome: &acp::PermissionOutcome,
) -> super::Action {
    super::Action {
        kind: ACP_PERMISSION_ACTION.to_owned(),
        payload: serde_json::json!({"toolCallId": tool_call_id, "outcome": outcome}),
        handler: None,
        loading_behavior: None,
        streaming: None,
    }
}

/// The action type of [`acp_permission_action`].
pub const ACP_PERMISSION_ACTION: &str = "acp.permission_response";

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct ContentPartEvent {
    #[serde(default)]
    pub content_index: usize,
    pub content: AssistantContent,
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct TextDelta {
    #[serde(default)]
    pub content_index: usize,
    pub delta: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct AnnotationAdded {
    #[serde(default)]
    pub content_index: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotation_index: Option<usize>,
    pub annotation: Annotation,
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct WidgetTextDelta {
    pub component_id: String,
    pub delta: String,
    #[serde(default)]
    pub done: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct WidgetComponentUpdated {
    pub component_id: String,
    pub component: WidgetComponent,
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct WidgetRootUpdated {
    pub widget: WidgetRoot,
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct WorkflowTaskEvent {
    pub task_index: usize,
    pub task: Task,
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct GeneratedImageUpdated {
    pub image: GeneratedImage,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub progress: Option<f64>,
}

/// A `data:` payload that is not a usable event: not JSON, or a known type with a
/// malformed body. Carries the raw payload so it can be reported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError {
    pub message: String,
    pub raw: String,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const SHOWN: usize = 200;
        let mut end = self.raw.len().min(SHOWN);
        while !self.raw.is_char_boundary(end) {
            end -= 1;
        }
        write!(f, "{} (payload: {}", self.message, &self.raw[..end])?;
        if end < self.raw.len() {
            f.write_str("…")?;
        }
        f.write_str(")")
    }
}

/// Decode one `data:` payload. Unknown types are `Ok(StreamEvent::Other)`.
pub fn decode_event(data: &str) -> Result<StreamEvent, DecodeError> {
    if let Some(event) = text_delta_event(data) {
        return Ok(event);
    }
    crate::decode::from_str(data).map_err(|e| DecodeError {
        message: e.to_string(),
        raw: data.to_owned(),
    })
}

/// The event an answer sends thousands of times, a text delta, decoded straight into its
/// structs: the general path goes through two `type`-tagged unions, each building a
/// `serde_json::Value` first. `None` for anything else (or anything odd about it), which
/// then takes the general path; both give the same event.
fn text_delta_event(data: &str) -> Option<StreamEvent> {
    const TAG: &str = "\"assistant_message.content_part.text_delta\"";
    if !data.contains(TAG) {
        return None;
    }
    #[derive(Deserialize)]
    struct Wire {
        #[serde(rename = "type")]
        kind: String,
        item_id: String,
        update: WireUpdate,
    }
    #[derive(Deserialize)]
    struct WireUpdate {
        #[serde(rename = "type")]
        kind: String,
        #[serde(default)]
        content_index: usize,
        delta: String,
    }
    let wire: Wire = serde_json::from_str(data).ok()?;
    (wire.kind == "thread.item.updated"
        && wire.update.kind == "assistant_message.content_part.text_delta")
        .then_some(StreamEvent::ItemUpdated(ItemUpdatedEvent {
            item_id: ItemId(wire.item_id),
            update: ItemUpdate::TextDelta(TextDelta {
                content_index: wire.update.content_index,
                delta: wire.update.delta,
            }),
        }))
}
