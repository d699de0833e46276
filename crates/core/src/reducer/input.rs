//! What the reducer takes: every server event and every client-side happening is an
//! [`Input`]; what an answer stream says is a [`Streamed`], and how an item changed an
//! [`ItemChange`], in the reducer's words whatever the wire format.

use super::state::{
    AgentInfo, MemberUpdate, OrchestrationUpdate, QueuedTurn, SequenceGap, TranscriptPage,
    Unrecognized,
};
use crate::host_events::ChatEvent;
use crate::model::Entry;
use crate::protocol::acp::{
    ContentBlock, ElicitationOutcome, PermissionOptionId, PermissionOutcome, PlanEntry,
    RequestPermission, ToolCallUpdate,
};
use crate::protocol::chatkit::{
    Annotation, AssistantContent, Attachment, DecodeError, GeneratedImage, ItemId, NoticeEvent,
    Page, Task, Thread, UserContent, WidgetComponent, WidgetRoot,
};
use crate::protocol::{JsonMap, Unknown};
use serde_json::Value;

/// Everything that can change the state.
#[derive(Clone, Debug, PartialEq)]
pub enum Input {
    /// What an event of the answer stream said, as its format's adapter (`crate::adapters`)
    /// read it. Every one counts as an answer event.
    Stream(Streamed),
    /// A `data:` payload that could not be decoded.
    Malformed(DecodeError),
    /// The user sent a message; the request is about to go out.
    SendStarted(OutgoingMessage),
    /// A streaming request that is not a user message went out (tool output, action).
    TurnStarted,
    /// The user retries the answer after this user message.
    RetryStarted { user_message: ItemId },
    /// The user sent an edit of the message `edited`: the new message goes in its place,
    /// as a branch of its own (the server keeps the old one and what followed it).
    EditStarted {
        edited: ItemId,
        message: OutgoingMessage,
    },
    /// The answer stream ended cleanly (EOF or `[DONE]`).
    StreamEnded,
    /// The answer stream broke (network, HTTP status, stall); `message` says why.
    StreamFailed { message: String, allow_retry: bool },
    /// The user pressed Stop.
    Cancelled,
    /// A thread was loaded. Its `items` page holds the newest items, oldest first;
    /// `has_more` and `after` say whether there are older ones and the `items.list`
    /// (order `desc`) cursor to fetch them.
    /// The thread's own fields (its `items` left out: they come as `items`, entries).
    ThreadLoaded { thread: Thread, items: Page<Entry> },
    /// Older items of the open thread (`items.list`, order `desc`: newest first).
    OlderItems(Page<Entry>),
    /// A page of older items was asked for.
    OlderRequested,
    /// The older page asked for will not come (failed, or dropped as stale).
    OlderEnded,
    /// A new, empty conversation.
    Reset,
    /// The user dismissed a notice.
    NoticeDismissed(u64),
    /// An item was replaced by an action's JSON answer (`threads.sync_custom_action`).
    ItemSynced(Entry),
    /// A frame of the answer stream arrived at `at_ms` (the runtime's clock, ms): any
    /// frame, keepalives and SSE comments included. Sent by the runtime for both
    /// protocols; drives [`ChatState::last_event_ms`](super::ChatState::last_event_ms),
    /// never counts as an answer event.
    Alive { at_ms: f64 },
    /// A tool call's result (the `events` protocol's `tool_result`): `success` `true` is
    /// completed, `false` failed, absent an unknown outcome (never guessed).
    ToolResult {
        item_id: ItemId,
        success: Option<bool>,
        output: Option<Value>,
    },
    /// A recoverable error inside the run: shown inline with its code; the run goes on.
    RunError {
        message: String,
        code: Option<String>,
    },
    /// The harness stopped the run; `message` names the limit. A banner, not an error:
    /// the stream still ends as usual and the composer stays usable.
    BudgetExhausted { message: String },
    /// The agent that owns the bubbles that follow.
    AgentChanged(AgentInfo),
    /// The coordinator's plan or status, for the process area.
    Orchestration(OrchestrationUpdate),
    /// The user picked an option of the permission card of this tool call item.
    PermissionChosen {
        item_id: ItemId,
        option_id: PermissionOptionId,
    },
    /// The answer to a permission request was not delivered, or the server refused it
    /// (`message` says why, in the reader's language).
    PermissionNotSent { item_id: ItemId, message: String },
    /// Something the client did not understand: counted in
    /// [`ChatState::diagnostics`](super::ChatState::diagnostics).
    Unrecognized(Unrecognized),
    /// The team's name or topology (Agent UI `team.changed`).
    TeamChanged {
        name: Option<String>,
        topology: Option<String>,
    },
    /// A teammate appeared or changed (Agent UI `agent.*`, `session.hydrated`).
    MemberChanged(MemberUpdate),
    /// An older page of a teammate's transcript, loaded on demand.
    TranscriptPage(TranscriptPage),
    /// The runtime paused for a decision (Agent UI `action.required`): the permission card
    /// of tool call `item_id`, answered with `action_id`.
    ActionRequired {
        item_id: ItemId,
        request: crate::protocol::acp::RequestPermission,
        action_id: String,
        action_type: Option<String>,
    },
    /// The owner confirmed how the action `action_id` ended (Agent UI `action.resolved`);
    /// `answer` is the text it took, for a question.
    ActionResolved {
        action_id: String,
        outcome: PermissionOutcome,
        answer: Option<String>,
        /// The answers it took, for structured input (by question id).
        answers: Option<JsonMap>,
    },
    /// The agent said its run failed (AG-UI `RUN_ERROR`): shown with Retry; the user's
    /// message stays.
    RunFailed {
        message: String,
        code: Option<String>,
    },
    /// The agent's shared state, whole (AG-UI).
    AgentState(Value),
    /// The conversation's items replaced whole by the agent's (AG-UI `MESSAGES_SNAPSHOT`),
    /// or by another branch the client kept.
    ItemsReplaced(Vec<Entry>),
    /// The entries that start a branch, with every branch beside them (branches the
    /// client keeps, for AG-UI).
    BranchesMarked(Vec<(ItemId, Vec<ItemId>)>),
    /// An event for the host only (AG-UI `CUSTOM` and `RAW`): emitted, never shown.
    ForHost(ChatEvent),
    /// A sequence gap opened (`Some`) or was filled (`None`).
    Resync(Option<SequenceGap>),
    /// A runtime diagnostic or metric (`kind` names which): for the host, not the page.
    DiagnosticFact { kind: &'static str, name: String },
    /// Run `run_id` started and offers these controls (`queue`, `steer`, …).
    RunControls {
        run_id: String,
        controls: Vec<String>,
    },
    /// The turns the runtime holds for after the run, as it listed them.
    QueueChanged(Vec<QueuedTurn>),
    /// The runtime started a queued turn as run `run_id`.
    QueuedTurnStarted { turn: QueuedTurn, run_id: String },
}

/// What one event of an answer stream says, in the reducer's words. Each adapter maps its
/// wire format onto these (ChatKit's stream events one to one).
#[derive(Clone, Debug, PartialEq)]
pub enum Streamed {
    /// The server made a thread for the conversation: it is the open thread now.
    ThreadCreated(Thread),
    /// The open thread's title, status or metadata changed.
    ThreadUpdated(Thread),
    /// An item starts streaming (or arrived whole, and is still the answer's).
    ItemAdded(Entry),
    /// An item is complete as given.
    ItemDone(Entry),
    /// A part of an item changed.
    ItemChanged {
        item_id: ItemId,
        change: ItemChange,
    },
    ItemRemoved(ItemId),
    /// An item replaced whole, in its place.
    ItemReplaced(Entry),
    /// Whether Stop may cancel the answer.
    AllowCancel(bool),
    /// A status line until the next item or update.
    Progress {
        icon: Option<String>,
        text: String,
    },
    /// An effect for the host's handlers, never stored.
    ClientEffect {
        name: String,
        data: JsonMap,
    },
    /// The answer failed (`message` absent: a generic one).
    Failed {
        message: Option<String>,
        code: String,
        allow_retry: bool,
    },
    Notice(NoticeEvent),
    /// An event of a type the adapter does not know: counted and ignored.
    Unknown(Unknown),
}

/// How a part of an item changed.
#[derive(Clone, Debug, PartialEq)]
pub enum ItemChange {
    /// A message part inserted at `index`.
    PartAdded {
        index: usize,
        part: AssistantContent,
    },
    /// Text appended to the message part at `index`.
    TextDelta { index: usize, delta: String },
    /// A citation of the message part at `index`: replaces the one `at`, else appended.
    Annotation {
        index: usize,
        at: Option<usize>,
        annotation: Annotation,
    },
    /// The message part at `index` complete as given.
    PartDone {
        index: usize,
        part: AssistantContent,
    },
    /// Text appended to a streaming widget component's value.
    WidgetText { component_id: String, delta: String },
    /// A widget component replaced.
    WidgetComponent {
        component_id: String,
        component: WidgetComponent,
    },
    /// The widget replaced whole.
    WidgetRoot(WidgetRoot),
    /// A workflow task inserted at `index`.
    TaskAdded { index: usize, task: Task },
    /// The workflow task at `index` replaced (appended if there is none).
    TaskUpdated { index: usize, task: Task },
    /// A generated image (partial or final).
    Image {
        image: GeneratedImage,
        progress: Option<f64>,
    },
    /// A partial update of a tool call: only the fields it carries change.
    ToolCall(ToolCallUpdate),
    /// The agent asks permission for the item's tool call.
    PermissionRequested(RequestPermission),
    /// The server confirms the decision on the item's permission request.
    PermissionResolved(PermissionOutcome),
    /// A plan's entries, replaced whole.
    Plan(Vec<PlanEntry>),
    /// A chunk of the agent's thought.
    Thought(ContentBlock),
    /// The server confirms how the item's elicitation ended.
    ElicitationResolved(ElicitationOutcome),
    /// A change of a kind the adapter does not know: ignored with a warning.
    Unknown(Unknown),
}

/// A user message as the client shows it before the server echoes it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OutgoingMessage {
    pub text: String,
    /// The message's parts when it has more than its text (mentions); empty: the text.
    pub content: Vec<UserContent>,
    pub attachments: Vec<Attachment>,
    /// Sent but never shown.
    pub ghost: bool,
}
