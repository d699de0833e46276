//! What the views render: the thread, its items in order, the turn in progress, and what
//! the runs and the team around them said. Types only, with the queries the views make and
//! the bookkeeping the transitions share (positions, changes); nothing here imports the
//! reducer's other files, which all build on it.

mod item;
mod queue;
mod run;
mod team;

pub use item::{EntryState, ItemStatus, PermissionState, ToolCallMark, ToolCallState};
pub use queue::{QueuedTurn, RunQueue};
pub use run::{
    AgentInfo, Budget, Diagnostics, Orchestration, OrchestrationStep, OrchestrationUpdate,
    RunError, SequenceGap, Unrecognized,
};
pub use team::{
    status_rank, Member, MemberUpdate, Team, TranscriptLine, TranscriptPage, TRANSCRIPT_MAX,
};

use crate::model::{Entry, EntryKind};
use crate::protocol::chatkit::{ItemId, NoticeEvent, Thread, ThreadId, ThreadStatus};
use crate::protocol::JsonMap;
use std::collections::HashMap;

/// The whole conversation state of one `<chat-shell>`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChatState {
    /// The open thread, once the server has created or loaded it.
    pub thread: Option<ThreadInfo>,
    pub(crate) items: Vec<EntryState>,
    pub(crate) positions: HashMap<ItemId, usize>,
    /// The answer being streamed, if any.
    pub turn: Option<Turn>,
    /// The ephemeral `progress_update` text, shown only while nothing newer arrived.
    pub progress: Option<Progress>,
    pub notices: Vec<Notice>,
    /// The error of the last turn, shown inline after the item where it happened.
    pub error: Option<TurnError>,
    /// The items before the first one held: a loaded thread shows its newest first.
    pub older: OlderPages,
    pub(crate) next_local: u64,
    /// The id the next notice gets: never reused, also across threads, since views key
    /// notices by id.
    pub(crate) next_notice: u64,
    /// Pending client tool calls that arrived in this turn's streams and have not been
    /// asked for yet, oldest first (see `Effect::InvokeClientTool`).
    pub(crate) tool_queue: Vec<ItemId>,
    /// Recoverable errors of the runs (the `events` protocol's `error`), each shown inline
    /// after the item it follows; the runs went on. Cleared with the thread.
    pub run_errors: Vec<RunError>,
    /// The harness stopped the run on a limit: a banner naming it. The composer stays
    /// usable; the banner goes when the next run starts.
    pub budget: Option<Budget>,
    /// The agent that owns the bubbles arriving now (multi-agent runs); each new item
    /// records it in [`EntryState::agent`]. Cleared when a run starts.
    pub agent: Option<AgentInfo>,
    /// The coordinator's plan and status of this run, for the process area (never the
    /// answer). Cleared when a run starts.
    pub orchestration: Option<Orchestration>,
    /// The agent's shared state (AG-UI `STATE_SNAPSHOT`/`STATE_DELTA`), for the host
    /// (`el.agentState`); `None` until the agent sends one. Cleared with the thread.
    pub agent_state: Option<serde_json::Value>,
    /// The team of agents of this conversation (Agent UI), as the runtime described it.
    /// Kept across runs; cleared with the thread.
    pub team: Option<Team>,
    /// A sequence gap of the run in flight: the client waits for the missing events
    /// ("resyncing"). Cleared when they arrive or a run starts.
    pub resync: Option<SequenceGap>,
    /// Queue and steer: what the running run offers, and the turns queued after it.
    pub run_queue: RunQueue,
    /// When the stream of the run in flight last showed life (any frame, keepalives
    /// included), on the runtime's clock in ms: "connected · last event Ns ago".
    pub last_event_ms: Option<f64>,
    /// What the client met and did not understand, counted; kept for the element's life.
    pub diagnostics: Diagnostics,
    pub(crate) changes: Changes,
}

/// The thread's own fields (its items live in [`ChatState`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ThreadInfo {
    pub id: ThreadId,
    pub title: Option<String>,
    pub created_at: String,
    pub status: ThreadStatus,
    pub metadata: JsonMap,
    /// The server keeps the thread as a tree of branches: messages can be edited and
    /// answers regenerated beside the old ones (`Thread::branching`).
    pub branching: bool,
}

impl From<Thread> for ThreadInfo {
    fn from(t: Thread) -> Self {
        ThreadInfo {
            id: t.id,
            title: t.title,
            created_at: t.created_at,
            status: t.status,
            metadata: t.metadata,
            branching: t.branching,
        }
    }
}

/// The answer in flight.
#[derive(Clone, Debug, PartialEq)]
pub struct Turn {
    pub allow_cancel: bool,
    /// The assistant message that text deltas go to when their id or index points at
    /// nothing (the fork sends a fresh id per delta).
    pub streaming_message: Option<ItemId>,
    /// The user message that started the turn: what a retry retries after.
    pub user_message: Option<ItemId>,
    /// Whether the server sent any event yet: a stream that ends without one is an error.
    pub saw_event: bool,
    /// The next echoed user message is a ghost.
    pub ghost: bool,
}

impl Turn {
    /// Whether Stop is offered. Only once the server has said something: SDK servers
    /// send `stream_options` (maybe `allow_cancel: false`) before any content, the fork
    /// never sends it, so waiting for the first event avoids flashing Stop on answers that
    /// cannot be cancelled.
    pub fn can_cancel(&self) -> bool {
        self.allow_cancel && self.saw_event
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Progress {
    pub icon: Option<String>,
    pub text: String,
    /// Increments with each update, so views can rotate between them.
    pub seq: u64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Notice {
    pub id: u64,
    pub event: NoticeEvent,
}

/// Why a turn failed, and whether it can be retried.
#[derive(Clone, Debug, PartialEq)]
pub struct TurnError {
    pub message: String,
    pub code: String,
    pub allow_retry: bool,
    /// The user message a retry sends `threads.retry_after_item` for.
    pub retry_after: Option<ItemId>,
    /// Shown after this item (the partial answer), or at the end.
    pub after_item: Option<ItemId>,
    /// The agent itself said its run failed (AG-UI `RUN_ERROR`), not the connection.
    pub by_agent: bool,
}

/// The open thread's items before the first one held (`items.list`, order `desc`): the
/// cursor while the server has more, and whether a page is on its way. The one place this
/// is kept; the history's signal is published from it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OlderPages {
    pub cursor: Option<String>,
    pub loading: bool,
}

impl OlderPages {
    /// The server has more.
    pub fn more(&self) -> bool {
        self.cursor.is_some()
    }
}

/// What changed since the views last looked: drained once per animation frame.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Changes {
    /// `older` changed.
    pub older: bool,
    /// Items whose content changed, in order of first change.
    pub items: Vec<ItemId>,
    /// Items were added, removed or reordered.
    pub order: bool,
    pub thread: bool,
    pub turn: bool,
    pub progress: bool,
    pub notices: bool,
    pub error: bool,
    /// `run_errors`, `budget`, `agent`, `orchestration` or `diagnostics` changed.
    pub run: bool,
    /// `last_event_ms` changed (every frame: keep what it re-renders small).
    pub liveness: bool,
}

impl Changes {
    pub fn is_empty(&self) -> bool {
        *self == Changes::default()
    }

    fn item(&mut self, id: &ItemId) {
        // Usually the same item changes many times per frame: check the last one first.
        if self.items.last() != Some(id) && !self.items.contains(id) {
            self.items.push(id.clone());
        }
    }
}

impl ChatState {
    pub fn new() -> Self {
        Self::default()
    }

    /// All items in thread order, hidden ones included.
    pub fn items(&self) -> &[EntryState] {
        &self.items
    }

    /// The items a view shows, in order.
    pub fn visible_items(&self) -> impl Iterator<Item = &EntryState> {
        self.items.iter().filter(|i| !i.hidden)
    }

    pub fn item(&self, id: &ItemId) -> Option<&EntryState> {
        self.positions.get(id).map(|&i| &self.items[i])
    }

    pub fn thread_id(&self) -> Option<&ThreadId> {
        self.thread.as_ref().map(|t| &t.id)
    }

    pub fn is_streaming(&self) -> bool {
        self.turn.is_some()
    }

    /// When `id` is the last answer of its turn (no other answer before the next user
    /// message): every answer of that turn in order, and whether it is the conversation's
    /// last turn. `None` for any other item. The turn's one action bar goes there.
    pub fn turn_answers(&self, id: &ItemId) -> Option<(Vec<ItemId>, bool)> {
        let at = *self.positions.get(id)?;
        let is_answer =
            |i: &EntryState| matches!(i.entry.kind, EntryKind::AssistantText(_)) && !i.hidden;
        let is_user =
            |i: &EntryState| matches!(i.entry.kind, EntryKind::UserMessage(_)) && !i.hidden;
        if !is_answer(&self.items[at]) {
            return None;
        }
        let after = &self.items[at + 1..];
        let next_user = after.iter().position(is_user);
        if after[..next_user.unwrap_or(after.len())]
            .iter()
            .any(is_answer)
        {
            return None;
        }
        let start = self.items[..at]
            .iter()
            .rposition(is_user)
            .map_or(0, |u| u + 1);
        let answers = self.items[start..=at]
            .iter()
            .filter(|i| is_answer(i))
            .map(|i| i.entry.id.clone())
            .collect();
        Some((answers, next_user.is_none()))
    }

    /// The first entry of the turn `answer` belongs to (what follows its user message),
    /// where that entry is one of several branches (answers regenerated).
    pub fn turn_branches(&self, answer: &ItemId) -> Option<&Entry> {
        let at = *self.positions.get(answer)?;
        let start = self.items[..at]
            .iter()
            .rposition(|i| matches!(i.entry.kind, EntryKind::UserMessage(_)))?;
        let first = &self.items.get(start + 1)?.entry;
        first.branch_position().map(|_| first)
    }

    /// Whether the turn under way has shown anything since the user's message: a word of
    /// an answer, a tool call, a widget… (an empty answer bubble is nothing yet).
    pub fn turn_has_content(&self) -> bool {
        self.items
            .iter()
            .rev()
            .take_while(|i| !matches!(i.entry.kind, EntryKind::UserMessage(_)))
            .any(|i| match &i.entry.kind {
                EntryKind::AssistantText(m) => m.content.iter().any(|p| !p.text.is_empty()),
                EntryKind::EndOfTurn(_) => false,
                _ => !i.hidden,
            })
    }

    /// Whether the turn under way waits on the user: a permission request or an agent's
    /// question since the last user message is unanswered. A silent stream is then no
    /// sign of trouble.
    pub fn waits_on_user(&self) -> bool {
        self.items
            .iter()
            .rev()
            .take_while(|i| !matches!(i.entry.kind, EntryKind::UserMessage(_)))
            .any(|i| match &i.entry.kind {
                EntryKind::Elicitation(e) => e.outcome.is_none(),
                _ => i.tool_call_state() == Some(ToolCallState::AwaitingPermission),
            })
    }

    /// The newest item where the agent `agent` (a teammate's id, or its name where it has
    /// no id) waits on the user: its unanswered question, form or permission request.
    /// `None`: nothing of its is open in the loaded items.
    pub fn asking(&self, agent: &str) -> Option<&ItemId> {
        self.items
            .iter()
            .rev()
            .filter(|i| {
                i.agent
                    .as_ref()
                    .is_some_and(|a| a.id.as_deref().unwrap_or(&a.name) == agent)
            })
            .find(|i| match &i.entry.kind {
                EntryKind::Elicitation(e) => e.outcome.is_none(),
                EntryKind::Note(crate::protocol::chatkit::Note::Question { answer, .. }) => {
                    answer.is_none()
                }
                EntryKind::StructuredInput(s) => {
                    s.status == crate::protocol::chatkit::StructuredInputStatus::Pending
                }
                _ => i.tool_call_state() == Some(ToolCallState::AwaitingPermission),
            })
            .map(|i| &i.entry.id)
    }

    /// What changed since the last call.
    pub fn take_changes(&mut self) -> Changes {
        std::mem::take(&mut self.changes)
    }

    pub(crate) fn item_mut(&mut self, id: &ItemId) -> Option<&mut EntryState> {
        let &i = self.positions.get(id)?;
        self.changes.item(id);
        Some(&mut self.items[i])
    }

    /// Put `state` where the item with its id is, or append it: ids stay unique whatever
    /// arrives.
    pub(crate) fn upsert_item(&mut self, state: EntryState) {
        let id = state.entry.id.clone();
        match self.positions.get(&id) {
            Some(&i) => self.items[i] = state,
            None => {
                self.positions.insert(id.clone(), self.items.len());
                self.items.push(state);
                self.changes.order = true;
            }
        }
        self.changes.item(&id);
    }

    /// Replace the item at `old`'s position with `state` (which may have a new id).
    pub(crate) fn replace_at(&mut self, old: &ItemId, state: EntryState) -> bool {
        let Some(i) = self.positions.remove(old) else {
            return false;
        };
        let id = state.entry.id.clone();
        if let Some(dup) = self.positions.get(&id).copied() {
            // The new id is already elsewhere: keep one copy, at the old position.
            self.items.remove(dup);
            self.reindex();
            return self.replace_at_index(if dup < i { i - 1 } else { i }, state);
        }
        self.replace_at_index(i, state)
    }

    fn replace_at_index(&mut self, i: usize, state: EntryState) -> bool {
        let id = state.entry.id.clone();
        self.positions.insert(id.clone(), i);
        self.items[i] = state;
        self.changes.item(&id);
        self.changes.order = true;
        true
    }

    pub(crate) fn remove_item(&mut self, id: &ItemId) -> Option<EntryState> {
        let i = self.positions.remove(id)?;
        let removed = self.items.remove(i);
        self.reindex_from(i);
        self.changes.order = true;
        Some(removed)
    }

    /// Drop every item after `id` (a retry). Returns how many were dropped.
    pub(crate) fn truncate_after(&mut self, id: &ItemId) -> usize {
        match self.positions.get(id) {
            Some(&i) => self.truncate_at(i + 1),
            None => 0,
        }
    }

    /// Drop `id` and every item after it (an edit). Returns how many were dropped.
    pub(crate) fn truncate_from(&mut self, id: &ItemId) -> usize {
        match self.positions.get(id) {
            Some(&i) => self.truncate_at(i),
            None => 0,
        }
    }

    fn truncate_at(&mut self, i: usize) -> usize {
        let dropped: Vec<EntryState> = self.items.drain(i..).collect();
        for d in &dropped {
            self.positions.remove(&d.entry.id);
        }
        if !dropped.is_empty() {
            self.changes.order = true;
        }
        dropped.len()
    }

    /// Replace all items (a thread loaded from the server). An id the page repeats is held
    /// once, where it first appears, as its last copy says.
    pub(crate) fn set_items(&mut self, items: Vec<EntryState>) {
        self.items = Vec::with_capacity(items.len());
        self.positions.clear();
        for item in items {
            match self.positions.get(&item.entry.id) {
                Some(&i) => self.items[i] = item,
                None => {
                    self.positions
                        .insert(item.entry.id.clone(), self.items.len());
                    self.items.push(item);
                }
            }
        }
        self.changes.order = true;
        self.changes
            .items
            .extend(self.items.iter().map(|i| i.entry.id.clone()));
    }

    /// Put older items in front (history scrolled up). Ids already held, or repeated in the
    /// page, are kept once: the copy held (or the page's first) wins.
    pub(crate) fn prepend_items(&mut self, older: Vec<EntryState>) {
        let mut seen = std::collections::HashSet::new();
        let older: Vec<EntryState> = older
            .into_iter()
            .filter(|i| {
                !self.positions.contains_key(&i.entry.id) && seen.insert(i.entry.id.clone())
            })
            .collect();
        if older.is_empty() {
            return;
        }
        self.changes
            .items
            .extend(older.iter().map(|i| i.entry.id.clone()));
        self.items.splice(0..0, older);
        self.reindex();
        self.changes.order = true;
    }

    pub(crate) fn mark(&mut self) -> &mut Changes {
        &mut self.changes
    }

    pub(crate) fn last_item_id(&self) -> Option<&ItemId> {
        self.items.last().map(|i| &i.entry.id)
    }

    fn reindex(&mut self) {
        self.positions.clear();
        self.reindex_from(0);
    }

    fn reindex_from(&mut self, from: usize) {
        for (i, item) in self.items.iter().enumerate().skip(from) {
            self.positions.insert(item.entry.id.clone(), i);
        }
    }
}
