//! Thread items (messages, tasks, workflows, widgets, tool calls, …) and what they contain.

use super::tagged::{null_as_default, tolerant_tagged};
use super::widgets::WidgetRoot;
use super::{acp, AcpElicitationItem, AttachmentId, ItemId, JsonMap, ThreadId, Unknown};
use crate::decode::Decode;
use serde::Serialize;
use serde_json::Value;

/// One entry of a thread. The fields every item has, plus what its `type` carries.
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct ThreadItem {
    pub id: ItemId,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread_id: Option<ThreadId>,
    #[serde(default, deserialize_with = "null_as_default")]
    pub created_at: String,
    #[serde(flatten)]
    pub kind: ItemKind,
    /// Extension: where the item is one of several branches (answers to one message, or
    /// edits of one message), every branch's first item, oldest first, itself included.
    /// Absent where there is only one (see `Thread::branching`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub branches: Vec<ItemId>,
}

/// What an item is.
// Each item is held once, in place; boxing the tool call (the largest) would add a
// pointer hop to every render of the most frequent agent item.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum ItemKind {
    UserMessage(UserMessage),
    AssistantMessage(AssistantMessage),
    ClientToolCall(ClientToolCall),
    Widget(WidgetItem),
    ClientWidget(ClientWidget),
    GeneratedImage(GeneratedImageItem),
    StructuredInput(StructuredInput),
    Workflow(WorkflowItem),
    Task(TaskItem),
    EndOfTurn(EndOfTurn),
    /// Extension: an ACP tool call (see [`AcpToolCallItem`]).
    AcpToolCall(AcpToolCallItem),
    /// Extension: an ACP plan (see [`AcpPlanItem`]).
    AcpPlan(AcpPlanItem),
    /// Extension: the agent's thoughts, collapsed reasoning (see [`AcpThoughtItem`]).
    AcpThought(AcpThoughtItem),
    /// Extension: an agent's question to the user, a form (see [`AcpElicitationItem`]).
    AcpElicitation(AcpElicitationItem),
    /// Extension: an Agent UI process fact in the conversation's order (see [`Note`]).
    Note(Note),
    /// An item type this client does not know: rendered as "unsupported content".
    Other(Unknown),
}

tolerant_tagged!(ItemKind {
    "user_message" => UserMessage,
    "assistant_message" => AssistantMessage,
    "client_tool_call" => ClientToolCall,
    "widget" => Widget,
    "client_widget" => ClientWidget,
    "generated_image" => GeneratedImage,
    "structured_input" => StructuredInput,
    "workflow" => Workflow,
    "task" => Task,
    "end_of_turn" => EndOfTurn,
    "acp_tool_call" => AcpToolCall,
    "acp_plan" => AcpPlan,
    "acp_thought" => AcpThought,
    "acp_elicitation" => AcpElicitation,
    "note" => Note,
});

/// A message the user sent.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct UserMessage {
    #[serde(default, deserialize_with = "null_as_default")]
    pub content: Vec<UserContent>,
    #[serde(default, deserialize_with = "null_as_default")]
    pub attachments: Vec<Attachment>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quoted_text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inference_options: Option<Value>,
}

impl UserMessage {
    /// The plain text of the message (tags shown by their text).
    pub fn text(&self) -> String {
        let mut out = String::new();
        for part in &self.content {
            match part {
                UserContent::InputText(t) => out.push_str(&t.text),
                UserContent::InputTag(t) => out.push_str(&t.text),
                UserContent::Other(_) => {}
            }
        }
        out
    }
}

/// One part of a user message.
#[derive(Clone, Debug, PartialEq)]
pub enum UserContent {
    InputText(InputText),
    InputTag(InputTag),
    Other(Unknown),
}

tolerant_tagged!(UserContent {
    "input_text" => InputText,
    "input_tag" => InputTag,
});

#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct InputText {
    pub text: String,
}

/// A mention/tag inserted in the composer.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct InputTag {
    pub id: String,
    pub text: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub data: JsonMap,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    #[serde(default)]
    pub interactive: bool,
}

/// An uploaded file or image.
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct Attachment {
    pub id: AttachmentId,
    #[serde(default, deserialize_with = "null_as_default")]
    pub name: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub mime_type: String,
    #[serde(rename = "type", default)]
    pub kind: AttachmentKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preview_url: Option<String>,
    /// Where to send the bytes (the fork and SDK ≤ 1.4): a multipart POST.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upload_url: Option<String>,
    /// Where and how to send the bytes (SDK 1.6).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upload_descriptor: Option<UploadDescriptor>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread_id: Option<ThreadId>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Decode)]
#[serde(rename_all = "snake_case")]
pub enum AttachmentKind {
    #[default]
    File,
    Image,
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct UploadDescriptor {
    pub url: String,
    #[serde(default = "default_upload_method")]
    pub method: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub headers: serde_json::Map<String, Value>,
}

fn default_upload_method() -> String {
    "POST".to_owned()
}

/// A message from the assistant: one or more text parts.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct AssistantMessage {
    #[serde(default, deserialize_with = "null_as_default")]
    pub content: Vec<AssistantContent>,
}

/// One text part of an assistant message (`output_text`).
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct AssistantContent {
    #[serde(rename = "type", default = "output_text")]
    pub kind: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub text: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub annotations: Vec<Annotation>,
}

fn output_text() -> String {
    "output_text".to_owned()
}

impl AssistantContent {
    pub fn text(text: impl Into<String>) -> Self {
        AssistantContent {
            kind: output_text(),
            text: text.into(),
            annotations: Vec::new(),
        }
    }
}

/// A citation attached to assistant text.
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct Annotation {
    #[serde(rename = "type", default = "annotation_type")]
    pub kind: String,
    pub source: Source,
    /// Character offset in the text where the marker goes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<u64>,
}

fn annotation_type() -> String {
    "annotation".to_owned()
}

/// Where a citation points.
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct Source {
    #[serde(default, deserialize_with = "null_as_default")]
    pub title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    #[serde(flatten)]
    pub kind: SourceKind,
}

#[derive(Clone, Debug, PartialEq)]
pub enum SourceKind {
    Url(UrlSource),
    File(FileSource),
    Entity(EntitySource),
    Other(Unknown),
}

tolerant_tagged!(SourceKind {
    "url" => Url,
    "file" => File,
    "entity" => Entity,
});

#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct UrlSource {
    pub url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attribution: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct FileSource {
    pub filename: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct EntitySource {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icon: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inline_label: Option<String>,
    #[serde(default)]
    pub interactive: bool,
    #[serde(default, deserialize_with = "null_as_default")]
    pub data: JsonMap,
}

/// A tool the client runs: pending until the client sends `threads.add_client_tool_output`.
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct ClientToolCall {
    #[serde(default)]
    pub status: ClientToolStatus,
    pub call_id: String,
    pub name: String,
    #[serde(default)]
    pub arguments: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<Value>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Decode)]
#[serde(rename_all = "snake_case")]
pub enum ClientToolStatus {
    #[default]
    Pending,
    Completed,
}

/// A server-defined widget.
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct WidgetItem {
    pub widget: WidgetRoot,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub copy_text: Option<String>,
}

/// A widget the client renders from its own registry, by name (the fork).
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct ClientWidget {
    pub name: String,
    #[serde(default)]
    pub args: Value,
}

/// An image being generated; `image` appears when there is something to show.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct GeneratedImageItem {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<GeneratedImage>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct GeneratedImage {
    pub id: String,
    pub url: String,
}

/// Questions the user answers with `threads.add_structured_input`.
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct StructuredInput {
    #[serde(default)]
    pub status: StructuredInputStatus,
    #[serde(default, deserialize_with = "null_as_default")]
    pub inputs: Vec<StructuredInputField>,
    /// Extension (Agent UI `actionType: "input"`): the `actionId` the answers go back
    /// with (`metadata.agentUi.respond`), instead of `threads.add_structured_input`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action_id: Option<String>,
}

impl StructuredInput {
    /// Takes `answers` (by question id, `{values, skipped}`): each question given one
    /// takes it, and the input is answered, or skipped when every question was.
    pub fn take_answers(&mut self, answers: &super::super::JsonMap) {
        for field in &mut self.inputs {
            if let Some(answer) = answers.get(&field.id) {
                field.answer = StructuredAnswer::decode(answer).ok();
            }
        }
        let all_skipped = self
            .inputs
            .iter()
            .all(|f| f.answer.as_ref().is_none_or(|a| a.skipped));
        self.status = if all_skipped {
            StructuredInputStatus::Skipped
        } else {
            StructuredInputStatus::Answered
        };
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Decode)]
#[serde(rename_all = "snake_case")]
pub enum StructuredInputStatus {
    #[default]
    Pending,
    Answered,
    Skipped,
}

/// One question. `type` is `multiple_choice` or `freeform`; unknown kinds keep their fields.
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct StructuredInputField {
    pub id: String,
    #[serde(default, deserialize_with = "null_as_default")]
    pub question: String,
    #[serde(rename = "type", default, deserialize_with = "null_as_default")]
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(
        default,
        deserialize_with = "null_as_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub options: Vec<ChoiceOption>,
    #[serde(default)]
    pub multiple: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<StructuredAnswer>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct ChoiceOption {
    pub value: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct StructuredAnswer {
    #[serde(default, deserialize_with = "null_as_default")]
    pub values: Vec<String>,
    #[serde(default)]
    pub skipped: bool,
}

/// A group of tasks shown as one collapsible block.
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct WorkflowItem {
    pub workflow: Workflow,
}

#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct Workflow {
    #[serde(rename = "type", default)]
    pub kind: WorkflowKind,
    #[serde(default, deserialize_with = "null_as_default")]
    pub tasks: Vec<Task>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<WorkflowSummary>,
    #[serde(default)]
    pub expanded: bool,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Decode)]
#[serde(rename_all = "snake_case")]
pub enum WorkflowKind {
    #[default]
    Custom,
    Reasoning,
}

/// What a collapsed workflow shows: a title (and icon), or how long it took.
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
#[serde(untagged)]
pub enum WorkflowSummary {
    Duration {
        duration: f64,
    },
    Title {
        title: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        icon: Option<String>,
    },
}

/// A standalone task item.
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct TaskItem {
    pub task: Task,
}

/// One step the agent took, shown with an icon, a title and a status.
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct Task {
    #[serde(default)]
    pub status_indicator: StatusIndicator,
    #[serde(flatten)]
    pub kind: TaskKind,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Decode)]
#[serde(rename_all = "snake_case")]
pub enum StatusIndicator {
    #[default]
    None,
    Loading,
    Complete,
}

#[derive(Clone, Debug, PartialEq)]
pub enum TaskKind {
    Custom(CustomTask),
    WebSearch(WebSearchTask),
    Thought(ThoughtTask),
    File(FileTask),
    Image(ImageTask),
    Other(Unknown),
}

tolerant_tagged!(TaskKind {
    "custom" => Custom,
    "web_search" => WebSearch,
    "thought" => Thought,
    "file" => File,
    "image" => Image,
});

#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct CustomTask {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icon: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct WebSearchTask {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title_query: Option<String>,
    #[serde(default, deserialize_with = "null_as_default")]
    pub queries: Vec<String>,
    #[serde(default, deserialize_with = "null_as_default")]
    pub sources: Vec<Source>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct ThoughtTask {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, deserialize_with = "null_as_default")]
    pub content: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct FileTask {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, deserialize_with = "null_as_default")]
    pub sources: Vec<Source>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct ImageTask {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

impl Task {
    /// The title to show, whatever the kind.
    pub fn title(&self) -> Option<&str> {
        match &self.kind {
            TaskKind::Custom(t) => t.title.as_deref(),
            TaskKind::WebSearch(t) => t.title.as_deref().or(t.title_query.as_deref()),
            TaskKind::Thought(t) => t.title.as_deref(),
            TaskKind::File(t) => t.title.as_deref(),
            TaskKind::Image(t) => t.title.as_deref(),
            TaskKind::Other(u) => u.0.get("title").and_then(Value::as_str),
        }
    }
}

/// Extension (chat-shell, not in the ChatKit SDK): an ACP tool call as a thread item, so
/// any ChatKit server can stream and persist one. The ACP payloads are held verbatim
/// (camelCase inside, as ACP sends them); `permission` is present once the agent asked.
/// A server that never sends it is unaffected, and `threads.get_by_id` / `items.list`
/// hydrate it like any item:
///
/// ```json
/// {"id": "tc_1", "thread_id": "thr_1", "created_at": "2025-01-01T00:00:00",
///  "type": "acp_tool_call",
///  "tool_call": {"toolCallId": "call_1", "title": "Run tests", "kind": "execute",
///                "status": "in_progress", "content": [], "locations": [],
///                "rawInput": {"command": "cargo test", "cwd": "/repo"}},
///  "permission": {"options": [{"optionId": "allow", "name": "Allow once",
///                              "kind": "allow_once"}],
///                 "outcome": {"outcome": "selected", "optionId": "allow"}}}
/// ```
///
/// Its updates are `thread.item.updated` events (see `ItemUpdate::AcpToolCallUpdated`,
/// `AcpPermissionRequested`, `AcpPermissionResolved`).
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct AcpToolCallItem {
    pub tool_call: acp::ToolCall,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission: Option<AcpPermission>,
}

/// A permission request on a tool call: the answers offered, and the outcome once the
/// server has confirmed one (`None`: still asking).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct AcpPermission {
    #[serde(default, deserialize_with = "acp::valid_items")]
    pub options: Vec<acp::PermissionOption>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<acp::PermissionOutcome>,
    /// Extension (Agent UI): the `actionId` the answer goes back with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action_id: Option<String>,
    /// Extension (Agent UI): what is decided (`actionType`: `plan_decision`, a
    /// permission…), as the runtime named it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action_type: Option<String>,
}

impl AcpPermission {
    pub fn option(&self, id: &acp::PermissionOptionId) -> Option<&acp::PermissionOption> {
        self.options.iter().find(|o| &o.option_id == id)
    }
}

/// Extension: an ACP plan as a thread item, shown in the process area, not the answer.
/// `{"type": "acp_plan", "entries": [{"content": "…", "priority": "high", "status":
/// "pending"}]}`; `acp_plan.update` replaces the entries whole.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct AcpPlanItem {
    #[serde(default, deserialize_with = "acp::valid_items")]
    pub entries: Vec<acp::PlanEntry>,
}

/// Extension: the agent's thoughts (ACP `agent_thought_chunk`s), shown as collapsed
/// reasoning, never as answer text. `{"type": "acp_thought", "text": "markdown…"}`;
/// `acp_thought.chunk` appends.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct AcpThoughtItem {
    #[serde(default, deserialize_with = "null_as_default")]
    pub text: String,
}

/// Extension (Agent UI): a fact that belongs in the conversation's order but is nobody's
/// message: a worker's result, a handoff between agents, a context boundary, an artifact.
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
#[serde(tag = "note", rename_all = "snake_case")]
pub enum Note {
    /// A worker finished, failed or was killed. Never a user message, even when the
    /// runtime's transport carried it on a user-role channel (`channel_role`).
    WorkerNotification {
        agent_id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        task_id: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        status: Option<String>,
        #[serde(default)]
        summary: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        channel_role: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        duration_ms: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool_count: Option<u64>,
    },
    /// The active agent changed: from, to and why. Earlier messages keep their authors.
    Handoff {
        from: String,
        to: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// A context boundary: compaction, a budget, missing context.
    Context { text: String },
    /// The runtime asks the user a question (an Agent UI `clarification` action): answered
    /// with text under `action_id`. `answer` is the answer the owner confirmed (only then
    /// is the question answered); `None` while it waits.
    Question {
        action_id: String,
        question: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        placeholder: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        answer: Option<String>,
    },
    /// The user steered the running run with `text`; `status` as the runtime confirmed it
    /// (`applied`, …). Apart from a queued turn, which waits for the run to end.
    Steer {
        turn_id: String,
        text: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        status: Option<String>,
    },
    /// An artifact: a card in the conversation; its body opens on demand.
    Artifact {
        artifact_id: String,
        title: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        kind: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        body: Option<String>,
    },
}

/// Marks the end of an assistant turn: nothing visible after a normal end.
///
/// Extension: how a turn that did not end normally ended, kept with the thread so a
/// reload still says so (the ACP `stopReason`, or `error`); servers without it send `{}`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct EndOfTurn {
    /// `max_tokens`, `max_turn_requests`, `refusal`, `cancelled`, `error`, or a reason
    /// this client does not know (shown as given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// What went wrong, for `error` (server text: shown as text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// A widget or client action: what a button, list item or form sends.
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct Action {
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub payload: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handler: Option<String>,
    #[serde(
        default,
        rename = "loadingBehavior",
        skip_serializing_if = "Option::is_none"
    )]
    pub loading_behavior: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub streaming: Option<bool>,
}
