//! The pure reducer: `reduce(state, input) -> Outcome { effects, warnings }`.
//!
//! Every server event and every client-side happening (send, stop, stream end, load) is
//! an [`Input`]; one exhaustive `match` sends each to a named function. Nothing here does
//! I/O or touches the DOM, and nothing panics or ends the stream: surprises become
//! warnings or visible error state. Side effects come back as [`Effect`] values that the
//! browser runtime carries out.

mod conversation;
mod queue;
mod run;
mod state;
mod team;

pub use crate::model::GHOST_OPTION;
pub use conversation::assistant_text;
pub use queue::{QueuedTurn, RunQueue};
pub use team::{
    action_card_id, status_rank, Member, MemberUpdate, Team, TranscriptLine, TranscriptPage,
    TRANSCRIPT_MAX,
};

pub use run::{
    listed, AgentInfo, Budget, Diagnostics, Listed, Orchestration, OrchestrationStep,
    OrchestrationUpdate, PermissionState, RunError, ToolCallMark, ToolCallState, ToolCallSummary,
    Unrecognized,
};
pub use state::{
    Changes, ChatState, ItemState, ItemStatus, Notice, Progress, ThreadInfo, Turn, TurnError,
};

use crate::host_events::ChatEvent;
use crate::model::Entry;
use crate::protocol::acp::{
    ContentBlock, ElicitationOutcome, PermissionOptionId, PermissionOutcome, PlanEntry,
    RequestPermission, ToolCallId, ToolCallUpdate,
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
    /// A new, empty conversation.
    Reset,
    /// The user dismissed a notice.
    NoticeDismissed(u64),
    /// An item was replaced by an action's JSON answer (`threads.sync_custom_action`).
    ItemSynced(Entry),
    /// A frame of the answer stream arrived at `at_ms` (the runtime's clock, ms): any
    /// frame, keepalives and SSE comments included. Sent by the runtime for both
    /// protocols; drives [`ChatState::last_event_ms`], never counts as an answer event.
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
    /// Something the client did not understand: counted in [`ChatState::diagnostics`].
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

/// Events of a run are missing after `after`: the client asked for them again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SequenceGap {
    pub run_id: String,
    /// The last sequence applied in order.
    pub after: u64,
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

/// A side effect for the runtime to carry out.
#[derive(Clone, Debug, PartialEq)]
pub enum Effect {
    /// Dispatch a `chat.*` event (a DOM `CustomEvent`, and the Leptos callback).
    Emit(ChatEvent),
    /// Run the client tool registered under `name` and send its result back. Comes with
    /// the end of a stream (`StreamEnded`), at most one per stream: the pending calls of a
    /// turn are asked for one after another, in the order they arrived, each by the end of
    /// the stream that answered the previous one's output.
    InvokeClientTool {
        item_id: ItemId,
        call_id: String,
        name: String,
        arguments: Value,
    },
    /// Hand a `client_effect` to the registered handlers; never stored.
    ClientEffect { name: String, data: JsonMap },
    /// Announce a finished answer in the polite live region: its markdown, which the live
    /// region reads as `markdown::announcement` (the plain text of its start). The renderer
    /// makes that text, so the element's first module need not link a markdown parser.
    Announce(String),
    /// The message never reached the server: put its text and attachments back in the
    /// composer so nothing typed is lost.
    RestoreDraft {
        text: String,
        attachments: Vec<Attachment>,
    },
    /// Answer the permission request of this ACP tool call item. For ChatKit, send
    /// `threads.custom_action` with `protocol::chatkit::acp_permission_action` and the
    /// item id (its answer is a stream, like any action). Comes when the user picks an
    /// option, and on Stop with `Cancelled` for every request still asking. The card
    /// shows a `Selected` decision only once the server confirms it.
    AnswerPermission {
        item_id: ItemId,
        tool_call_id: ToolCallId,
        outcome: PermissionOutcome,
    },
}

/// Something surprising that did not stop the stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warning {
    pub message: String,
    /// The raw payload, when there was one.
    pub raw: Option<String>,
}

/// What one input produced besides the new state.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outcome {
    pub effects: Vec<Effect>,
    pub warnings: Vec<Warning>,
}

impl Outcome {
    pub(crate) fn emit(&mut self, event: ChatEvent) {
        self.effects.push(Effect::Emit(event));
    }

    pub(crate) fn warn(&mut self, message: impl Into<String>, raw: Option<String>) {
        self.warnings.push(Warning {
            message: message.into(),
            raw,
        });
    }
}

/// Fold one input into the state.
pub fn reduce(state: &mut ChatState, input: Input) -> Outcome {
    let mut out = Outcome::default();
    match input {
        Input::Stream(event) => conversation::streamed(state, event, &mut out),
        Input::Malformed(error) => conversation::malformed(state, error, &mut out),
        Input::SendStarted(message) => conversation::send_started(state, message, &mut out),
        Input::TurnStarted => conversation::turn_started(state, &mut out),
        Input::RetryStarted { user_message } => {
            conversation::retry_started(state, &user_message, &mut out)
        }
        Input::EditStarted { edited, message } => {
            conversation::edit_started(state, &edited, message, &mut out)
        }
        Input::StreamEnded => conversation::stream_ended(state, &mut out),
        Input::StreamFailed {
            message,
            allow_retry,
        } => conversation::stream_failed(state, message, allow_retry, &mut out),
        Input::Cancelled => conversation::cancelled(state, &mut out),
        Input::ThreadLoaded { thread, items } => {
            conversation::thread_loaded(state, thread, items, &mut out)
        }
        Input::OlderItems(page) => conversation::older_items(state, page, &mut out),
        Input::Reset => conversation::reset(state, &mut out),
        Input::NoticeDismissed(id) => conversation::notice_dismissed(state, id),
        Input::ItemSynced(item) => conversation::item_synced(state, item, &mut out),
        Input::Alive { at_ms } => run::alive(state, at_ms),
        Input::ToolResult {
            item_id,
            success,
            output,
        } => run::tool_result(state, item_id, success, output, &mut out),
        Input::RunError { message, code } => run::run_error(state, message, code, &mut out),
        Input::RunFailed { message, code } => {
            conversation::run_failed(state, message, code, &mut out)
        }
        Input::AgentState(value) => {
            out.emit(ChatEvent::AgentState {
                state: value.clone(),
            });
            state.agent_state = Some(value);
        }
        Input::ItemsReplaced(entries) => conversation::items_replaced(state, entries),
        Input::BranchesMarked(marks) => conversation::branches_marked(state, marks),
        Input::ForHost(event) => out.emit(event),
        Input::BudgetExhausted { message } => run::budget_exhausted(state, message, &mut out),
        Input::AgentChanged(agent) => run::agent_changed(state, agent),
        Input::Orchestration(update) => run::orchestration(state, update),
        Input::PermissionChosen { item_id, option_id } => {
            run::permission_chosen(state, item_id, option_id, &mut out)
        }
        Input::PermissionNotSent { item_id, message } => {
            run::permission_not_sent(state, item_id, message, &mut out)
        }
        Input::Unrecognized(what) => run::unrecognized(state, what, &mut out),
        Input::TeamChanged { name, topology } => team::team_changed(state, name, topology),
        Input::MemberChanged(update) => team::member_changed(state, update),
        Input::TranscriptPage(page) => team::transcript_page(state, page),
        Input::ActionRequired {
            item_id,
            request,
            action_id,
            action_type,
        } => team::action_required(state, &item_id, request, action_id, action_type, &mut out),
        Input::ActionResolved {
            action_id,
            outcome,
            answer,
            answers,
        } => team::action_resolved(state, &action_id, outcome, answer, answers, &mut out),
        Input::Resync(gap) => team::resync(state, gap, &mut out),
        Input::DiagnosticFact { kind, name } => team::diagnostic_fact(state, kind, name, &mut out),
        Input::RunControls { run_id, controls } => queue::run_controls(state, run_id, controls),
        Input::QueueChanged(queued) => queue::queue_changed(state, queued),
        Input::QueuedTurnStarted { turn, run_id } => queue::turn_started(state, turn, &run_id),
    }
    out
}
