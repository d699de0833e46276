//! The Agent UI envelope's ids and the payloads of the event types chat-shell reads
//! ([flow and taxonomy](https://limecloud.github.io/agentui/en/reference/flow-and-taxonomy)).
//! Only the fields the core's adapter reads are named; others are ignored.
//!
//! The spec leaves every payload to its producer, so each field reads leniently: absent,
//! `null` or of another type, it is absent (`None`, empty), never an error. A text field
//! (a label, a title, a message) with nothing but blanks is absent too; an id is absent
//! when empty. A list keeps the items that decode and skips the rest. What the producer sent
//! as its own JSON (a tool's input or output, an action's input) is kept raw, `null`
//! included.

use crate::chatkit::StructuredInputField;
use crate::decode::{Decode, Error};
use crate::JsonMap;
use serde::Serialize;
use serde_json::Value;

/// Text to show: a string with more than blanks, else absent.
fn non_blank(value: &Value) -> Result<Option<String>, Error> {
    Ok(value
        .as_str()
        .filter(|s| !s.trim().is_empty())
        .map(str::to_owned))
}

/// An id: a non-empty string, else absent.
fn non_empty(value: &Value) -> Result<Option<String>, Error> {
    Ok(value.as_str().filter(|s| !s.is_empty()).map(str::to_owned))
}

/// A `T`, or absent when the value is not one.
fn lenient<T: Decode>(value: &Value) -> Result<Option<T>, Error> {
    Ok(T::decode(value).ok())
}

/// The value as sent, `null` included: a present `null` is not an absent field.
fn raw(value: &Value) -> Result<Option<Value>, Error> {
    Ok(Some(value.clone()))
}

/// The items of a list that decode as `T`; anything but a list is empty.
fn items<T: Decode>(value: &Value) -> Result<Vec<T>, Error> {
    Ok(items_if_any(value)?.unwrap_or_default())
}

/// The items of a list that decode as `T`; anything but a list is `None` (no list, where
/// an empty one would say something).
fn items_if_any<T: Decode>(value: &Value) -> Result<Option<Vec<T>>, Error> {
    Ok(value
        .as_array()
        .map(|list| list.iter().filter_map(|v| T::decode(v).ok()).collect()))
}

/// The ids an envelope carries beside its payload, each a non-empty string or absent.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct Ids {
    /// The run the event belongs to; its sequence counts per run.
    #[serde(default, deserialize_with = "non_empty")]
    pub run_id: Option<String>,
    /// The agent that owns the fact (a bubble, a tool call, a card, a roster row).
    #[serde(default, deserialize_with = "non_empty")]
    pub agent_id: Option<String>,
    /// The assistant message a text or reasoning event streams into.
    #[serde(default, deserialize_with = "non_empty")]
    pub message_id: Option<String>,
    /// The tool call a `tool.*` event (or an action on it) is about.
    #[serde(default, deserialize_with = "non_empty")]
    pub tool_call_id: Option<String>,
    /// The human-in-the-loop action an `action.*` event is about.
    #[serde(default, deserialize_with = "non_empty")]
    pub action_id: Option<String>,
    /// The artifact an `artifact.*` event creates or replaces.
    #[serde(default, deserialize_with = "non_empty")]
    pub artifact_id: Option<String>,
    /// The agent's session (a teammate's own, for team events).
    #[serde(default, deserialize_with = "non_empty")]
    pub session_id: Option<String>,
    /// The session that spawned this agent's (lineage).
    #[serde(default, deserialize_with = "non_empty")]
    pub parent_session_id: Option<String>,
    /// The thread that spawned this agent's session (lineage).
    #[serde(default, deserialize_with = "non_empty")]
    pub parent_thread_id: Option<String>,
    /// The task a teammate works on.
    #[serde(default, deserialize_with = "non_empty")]
    pub task_id: Option<String>,
    /// `team.changed`'s topology, where a producer puts it beside the ids instead of in the
    /// payload ([`TeamChanged::topology`] comes first).
    #[serde(default, deserialize_with = "non_empty")]
    pub topology: Option<String>,
}

/// `run.started`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct RunStarted {
    /// What the run takes while it runs (`"queue"`, `"steer"`, …); non-strings skipped.
    /// Absent (or not a list): the run says nothing about its controls.
    #[serde(default, deserialize_with = "items_if_any")]
    pub controls: Option<Vec<String>>,
}

/// `run.status`: what the run is doing now.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct RunStatus {
    /// The status word (`"thinking"`, …), shown when there is no label.
    #[serde(default, deserialize_with = "non_blank")]
    pub status: Option<String>,
    /// The text to show for it.
    #[serde(default, deserialize_with = "non_blank")]
    pub label: Option<String>,
}

/// `run.failed`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct RunFailed {
    /// What went wrong, for the user.
    #[serde(default, deserialize_with = "non_blank")]
    pub message: Option<String>,
    /// The producer's error code.
    #[serde(default, deserialize_with = "non_blank")]
    pub code: Option<String>,
}

/// `queue.changed`: the runtime's queue of turns sent while a run ran, and a steer it
/// applied. A stream may go on with the run of a started turn: a new `runId` after
/// `run.finished` starts its own order.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct QueueChanged {
    /// The whole queue now (entries without a `turnId` skipped). Absent (or not a list):
    /// the queue did not change.
    #[serde(default, deserialize_with = "items_if_any")]
    pub queued: Option<Vec<QueueEntry>>,
    /// A steer the runtime applied to the run under way.
    #[serde(default, deserialize_with = "lenient")]
    pub steer: Option<Steer>,
}

/// One turn of `queue.changed.queued`.
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct QueueEntry {
    pub turn_id: String,
    /// The user's message.
    #[serde(default, deserialize_with = "lenient")]
    pub text: Option<String>,
    /// `queued`, or how it left the queue: `started` / `promoted` (as run `runId`, becoming a
    /// user message) or `removed`.
    #[serde(default, deserialize_with = "lenient")]
    pub status: Option<String>,
    /// The run a started turn became.
    #[serde(default, deserialize_with = "lenient")]
    pub run_id: Option<String>,
}

/// `queue.changed.steer`: a message the runtime put into the run under way.
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct Steer {
    pub turn_id: String,
    /// The user's message.
    #[serde(default, deserialize_with = "lenient")]
    pub text: Option<String>,
    /// Where the steer is (`applied`, …).
    #[serde(default, deserialize_with = "lenient")]
    pub status: Option<String>,
}

/// `text.delta` (by `messageId`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct TextDelta {
    /// The text to append, as sent (blanks are text here).
    #[serde(default, deserialize_with = "lenient")]
    pub delta: Option<String>,
}

/// `text.final` (by `messageId`): the whole text, replacing what streamed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct TextFinal {
    #[serde(default, deserialize_with = "non_blank")]
    pub text: Option<String>,
}

/// `reasoning.delta` `{delta}` and `reasoning.summary` `{text}` (by `messageId`); either
/// field is read on both, `delta` first.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct Reasoning {
    #[serde(default, deserialize_with = "non_blank")]
    pub delta: Option<String>,
    #[serde(default, deserialize_with = "non_blank")]
    pub text: Option<String>,
}

/// `plan.delta` / `plan.final`: the run's plan, whole each time.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct Plan {
    /// The steps (those without `content` skipped). Absent (or not a list): no plan said.
    #[serde(default, deserialize_with = "items_if_any")]
    pub entries: Option<Vec<PlanEntry>>,
}

/// One step of a [`Plan`].
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct PlanEntry {
    /// What the step does.
    pub content: String,
    /// `pending`, `in_progress`, `completed`, or the producer's word.
    #[serde(default, deserialize_with = "lenient")]
    pub status: Option<String>,
    /// The agent the step is given to.
    #[serde(default, deserialize_with = "lenient")]
    pub agent_id: Option<String>,
}

/// `tool.started` (by `toolCallId`): the call's header. Whichever `tool.*` event comes
/// first for a call is read for it too, so a call that skipped `tool.started` keeps a name.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct ToolStarted {
    /// The tool's name, shown when there is no title.
    #[serde(default, deserialize_with = "non_blank")]
    pub name: Option<String>,
    /// The call as the user reads it.
    #[serde(default, deserialize_with = "non_blank")]
    pub title: Option<String>,
    /// ACP's tool kind (`read`, `edit`, `execute`, …).
    #[serde(default, deserialize_with = "non_blank")]
    pub kind: Option<String>,
}

/// `tool.args` (by `toolCallId`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct ToolArgs {
    /// The call's input, the tool's own JSON.
    #[serde(default, deserialize_with = "raw")]
    pub input: Option<Value>,
}

/// `tool.progress` (by `toolCallId`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct ToolProgress {
    /// What the tool is doing now.
    #[serde(default, deserialize_with = "non_blank")]
    pub message: Option<String>,
}

/// `tool.output.delta` (by `toolCallId`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct ToolOutputDelta {
    /// Output to append to what streamed.
    #[serde(default, deserialize_with = "non_blank")]
    pub delta: Option<String>,
}

/// `tool.result` (by `toolCallId`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct ToolResult {
    /// The call's output, the tool's own JSON.
    #[serde(default, deserialize_with = "raw")]
    pub output: Option<Value>,
}

/// `tool.failed` (by `toolCallId`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct ToolFailed {
    /// Why it failed, the tool's own JSON (usually a string).
    #[serde(default, deserialize_with = "raw")]
    pub error: Option<Value>,
}

/// `action.required` (by `actionId`, on `toolCallId` when given): the run waits for its
/// owner to choose an option, answer a question or fill in structured input.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct ActionRequired {
    /// `clarification` (a question answered with text), `input` (structured input), or
    /// another word for a permission request answered with an option.
    #[serde(default, deserialize_with = "non_blank")]
    pub action_type: Option<String>,
    /// What is asked.
    #[serde(default, deserialize_with = "non_blank")]
    pub title: Option<String>,
    /// The choices of a permission request (those without an `id` skipped).
    #[serde(default, deserialize_with = "items")]
    pub options: Vec<ActionOption>,
    /// The action's input as sent: the call it would run, or what the question needs
    /// ([`ActionRequired::input_fields`]).
    #[serde(default, deserialize_with = "raw")]
    pub input: Option<Value>,
}

impl ActionRequired {
    /// The fields of `input` a question or structured input reads (none unless an object).
    pub fn input_fields(&self) -> ActionInput {
        self.input
            .as_ref()
            .and_then(|input| ActionInput::decode(input).ok())
            .unwrap_or_default()
    }
}

/// `action.required.input`, as a question or structured input reads it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct ActionInput {
    /// A question's answer field hint (`actionType: "clarification"`).
    #[serde(default, deserialize_with = "lenient")]
    pub placeholder: Option<String>,
    /// Structured input's questions, ChatKit's (`actionType: "input"`); those that do not
    /// decode are skipped.
    #[serde(default, deserialize_with = "items")]
    pub questions: Vec<StructuredInputField>,
}

/// A choice of `action.required.options`.
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct ActionOption {
    /// What the answer sends back (`optionId`).
    pub id: String,
    /// The button's text (the id without it).
    #[serde(default, deserialize_with = "lenient")]
    pub label: Option<String>,
    /// `approve` / `allow` / `allow_once`, `allow_always`, `reject` / `deny` /
    /// `reject_once`, `reject_always`, or the producer's word.
    #[serde(default, deserialize_with = "lenient")]
    pub kind: Option<String>,
}

/// `action.resolved` (by `actionId`): what the owner answered.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct ActionResolved {
    /// The option taken; absent, the action was cancelled.
    #[serde(default, deserialize_with = "non_blank")]
    pub option_id: Option<String>,
    /// A question's answer, as the owner took it.
    #[serde(default, deserialize_with = "non_blank")]
    pub text: Option<String>,
    /// Structured input's answers by question id, as the owner took them.
    #[serde(default, deserialize_with = "lenient")]
    pub answers: Option<JsonMap>,
}

/// `team.changed`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct TeamChanged {
    #[serde(default, deserialize_with = "non_blank")]
    pub team_name: Option<String>,
    /// How the team works (`supervisor`, `swarm`, …).
    #[serde(default, deserialize_with = "non_blank")]
    pub topology: Option<String>,
}

/// `agent.spawned` / `agent.changed` / `agent.completed` (by `agentId`, with `sessionId`,
/// `parentSessionId`, `parentThreadId`, `taskId`): a teammate as the roster shows it. Any
/// of them may carry its transcript's recent window; `session.hydrated` without `before`
/// is read as this too (a teammate's window, with whatever roster fields it names).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct AgentChanged {
    /// The name to label its bubbles and row with.
    #[serde(default, deserialize_with = "non_blank")]
    pub agent_name: Option<String>,
    #[serde(default, deserialize_with = "non_blank")]
    pub team_name: Option<String>,
    #[serde(default, deserialize_with = "non_blank")]
    pub role: Option<String>,
    #[serde(default, deserialize_with = "non_blank")]
    pub model: Option<String>,
    /// `running`, `idle`, `completed`, `failed`, or the producer's word.
    #[serde(default, deserialize_with = "non_blank")]
    pub status: Option<String>,
    /// What it last said about itself.
    #[serde(default, deserialize_with = "non_blank")]
    pub message: Option<String>,
    /// It runs elsewhere (another host).
    #[serde(default, deserialize_with = "lenient")]
    pub remote: Option<bool>,
    /// Its session's messages, oldest first (those without `id` and `text` skipped).
    #[serde(default, deserialize_with = "items")]
    pub messages: Vec<TranscriptMessage>,
    /// The session has older messages than these.
    #[serde(default, deserialize_with = "lenient")]
    pub has_more: Option<bool>,
}

/// One message of a teammate's transcript.
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct TranscriptMessage {
    pub id: String,
    pub text: String,
}

/// `session.hydrated` (by `agentId`): a teammate's session. Without `before` its messages
/// are the recent window, appended as they hydrate (the event is read as [`AgentChanged`]
/// then); with `before` they are the page right before that message, loaded on demand.
/// Kept to the page's fields: the history request's answer is read with this alone.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct SessionHydrated {
    /// The session's messages, oldest first (those without `id` and `text` skipped).
    #[serde(default, deserialize_with = "items")]
    pub messages: Vec<TranscriptMessage>,
    /// The session has older messages than these.
    #[serde(default, deserialize_with = "lenient")]
    pub has_more: Option<bool>,
    /// The id of the message the page ends before.
    #[serde(default, deserialize_with = "non_blank")]
    pub before: Option<String>,
}

/// `agent.handoff`: the work passed from one agent to another.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct AgentHandoff {
    #[serde(default, deserialize_with = "non_blank")]
    pub from: Option<String>,
    #[serde(default, deserialize_with = "non_blank")]
    pub to: Option<String>,
    #[serde(default, deserialize_with = "non_blank")]
    pub reason: Option<String>,
}

/// `worker.notification` (by `agentId`, `taskId`): a teammate's report, a note whatever
/// channel carried it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct WorkerNotification {
    /// `completed`, `failed`, or the producer's word.
    #[serde(default, deserialize_with = "non_blank")]
    pub status: Option<String>,
    /// What it did.
    #[serde(default, deserialize_with = "non_blank")]
    pub summary: Option<String>,
    /// The channel role that carried it (`user`, …): never makes it a user message.
    #[serde(default, deserialize_with = "non_blank")]
    pub role: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub duration_ms: Option<u64>,
    /// How many tools it called.
    #[serde(default, deserialize_with = "lenient")]
    pub tool_count: Option<u64>,
}

/// `context.changed` `{budget?, missing?}` and `context.compaction.completed` `{summary}`;
/// every field is read on both.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct ContextChanged {
    /// The token budget; absent unless both numbers are whole.
    #[serde(default, deserialize_with = "lenient")]
    pub budget: Option<Budget>,
    /// Context the agent lacks (names; non-strings skipped).
    #[serde(default, deserialize_with = "items")]
    pub missing: Vec<String>,
    /// What a compaction kept.
    #[serde(default, deserialize_with = "non_blank")]
    pub summary: Option<String>,
}

/// `context.changed.budget`, in tokens.
#[derive(Clone, Debug, PartialEq, Serialize, Decode)]
pub struct Budget {
    pub used: u64,
    pub limit: u64,
}

/// `artifact.created` / `artifact.updated` / `artifact.changed` (any `artifact.*`, by
/// `artifactId`): a card whose later versions replace it; its body stays out of the
/// transcript.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct Artifact {
    #[serde(default, deserialize_with = "non_blank")]
    pub title: Option<String>,
    /// What it is (`document`, `code`, …).
    #[serde(default, deserialize_with = "non_blank")]
    pub kind: Option<String>,
    #[serde(default, deserialize_with = "non_blank")]
    pub body: Option<String>,
}

/// `evidence.changed`: a source cited by a message; a message links only what evidence says.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
#[serde(rename_all = "camelCase")]
pub struct Evidence {
    /// The link's text (the URL without it).
    #[serde(default, deserialize_with = "non_blank")]
    pub title: Option<String>,
    #[serde(default, deserialize_with = "non_blank")]
    pub url: Option<String>,
    /// The message that cites it (in the payload, not beside the ids).
    #[serde(default, deserialize_with = "non_blank")]
    pub message_id: Option<String>,
}

/// `diagnostic.changed`: for the host, never the transcript.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct Diagnostic {
    #[serde(default, deserialize_with = "non_blank")]
    pub message: Option<String>,
}

/// `metric.changed`: for the host, never the transcript (its `value` is not read).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Decode)]
pub struct Metric {
    #[serde(default, deserialize_with = "non_blank")]
    pub name: Option<String>,
}
