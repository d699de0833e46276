//! The runtime of one `<chat-shell>`: owns the state, runs requests, carries out the
//! reducer's effects, and publishes what changed to the views once per animation frame.

// Each concern's behaviour: `impl Runtime` blocks, which may call into the chunks.
mod actions;
mod ag_ui;
mod attachments;
mod branches;
mod channel;
pub(crate) mod dictation;
mod elicitation;
mod http;
mod intents;
mod loading;
mod local_threads;
mod mentions;
mod session;
mod stream;
mod threads;
pub mod transport;

// What the runtime holds for each concern. It names no `Runtime`, so `Runtime`'s fields
// can be typed by it while this file depends on none of the files above.
mod held;

pub use actions::{error_text, from_js, to_js};
pub use held::actions::{
    ActionDone, ClientTool, ClientWidgetContext, ClientWidgetRenderer, Handler, RustHandler,
    RustTool, RustWidget, ToolFuture,
};
pub(crate) use held::ag_ui::Shared as AgUiShared;
pub use held::attachments::{TrayEntry, TraySignals, UploadStatus};
pub use held::channel::{OpenArtifact, ViewsSignals, ARTIFACT_TAB};
pub use held::session::SessionSignals;
pub use held::threads::{HistorySignals, OlderItems, ThreadList, ThreadRow};
pub use held::Shell;
pub use intents::SendOptions;

use chat_shell_core::model::EntryKind;
use chat_shell_core::protocol::chatkit::ItemId;

use chat_shell_core::host_events::ChatEvent;
use chat_shell_core::options::{Options, Setting};
use chat_shell_core::reducer::{
    listed, reduce, ChatState, Effect, EntryState, Input, Listed, Notice, Outcome, Progress,
    ThreadInfo, TurnError,
};
use leptos::prelude::*;
use serde::Serialize;
use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use web_sys::{AbortController, CustomEvent, CustomEventInit, HtmlElement};

thread_local! {
    static RUNTIMES: RefCell<HashMap<u32, Rc<Runtime>>> = RefCell::new(HashMap::new());
    static NEXT_ID: Cell<u32> = const { Cell::new(1) };
}

impl Shell {
    pub fn get(self) -> Option<Rc<Runtime>> {
        RUNTIMES.with(|r| r.borrow().get(&self.0).cloned())
    }

    /// Run `f` with the runtime, if it still exists.
    pub fn with<R>(self, f: impl FnOnce(&Rc<Runtime>) -> R) -> Option<R> {
        self.get().map(|rt| f(&rt))
    }

    pub fn signals(self) -> Option<ViewSignals> {
        self.with(|rt| rt.signals)
    }
}

/// A visible item as the list knows it: its id and which view shows it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ItemKey {
    pub id: ItemId,
    pub view: EntryView,
    /// The folded tool calls of an `EntryView::ToolCallSummary` entry (`id` is the first); empty
    /// for any other.
    pub members: Vec<ItemId>,
}

impl ItemKey {
    /// The key of a list entry: a folded call keeps the key it had before it was folded,
    /// so folding re-renders none of them.
    fn of(listed: &Listed<'_>) -> Self {
        match listed {
            Listed::Item(i) | Listed::Folded(i) => ItemKey {
                id: i.entry.id.clone(),
                view: EntryView::of(&i.entry.kind),
                members: Vec::new(),
            },
            Listed::Summary(calls) => ItemKey {
                id: calls[0].entry.id.clone(),
                view: EntryView::ToolCallSummary,
                members: calls.iter().map(|c| c.entry.id.clone()).collect(),
            },
        }
    }
}

/// What the views subscribe to. Item contents are not copied into signals (an answer can
/// be long): views read them from the state when their item's revision ticks.
#[derive(Clone, Copy)]
pub struct ViewSignals {
    /// Every plain option the host set (attributes, `setOptions`, props): the one copy.
    pub options: RwSignal<Options>,
    pub order: RwSignal<Vec<ItemKey>>,
    /// Folded tool calls: each one's summary (the id of the run's first call).
    pub folds: RwSignal<HashMap<ItemId, ItemId>>,
    /// The summaries the reader opened (by the id of their first call): view state only.
    pub open_folds: RwSignal<HashSet<ItemId>>,
    pub thread: RwSignal<Option<ThreadInfo>>,
    /// `Some(can_cancel)` while an answer streams (see `Turn::can_cancel`).
    pub streaming: RwSignal<Option<bool>>,
    pub progress: RwSignal<Option<Progress>>,
    pub notices: RwSignal<Vec<Notice>>,
    pub error: RwSignal<Option<TurnError>>,
    pub draft: RwSignal<String>,
    /// The mentions in the draft (`core::mentions`): where each `@title` is.
    pub mentions: RwSignal<Vec<chat_shell_core::mentions::Mention>>,
    /// The last finished answer's markdown; the polite live region reads its plain text.
    pub announce: RwSignal<String>,
    /// Ticks once per animation frame while some view asked for one (`want_frame`): the
    /// runtime's one animation loop, shared by every message still revealing text.
    pub tick: RwSignal<u64>,
    /// Thread history, opening threads, older items.
    pub history: HistorySignals,
    /// The composer's attachments.
    pub tray: TraySignals,
    /// Every UI string, for the options' locale and overrides (derived from `options`
    /// when those change, so views do not rebuild the table per read).
    pub strings: RwSignal<chat_shell_core::strings::Strings>,
    /// Ticks when the run-level state changes (run errors, budget, agent, orchestration):
    /// views read it from the state.
    pub run: RwSignal<u64>,
    /// When the answer stream last showed life (runtime clock, ms).
    pub last_event: RwSignal<Option<f64>>,
    /// Tool-pushed views of the thread and the channel that brings them.
    pub views: ViewsSignals,
    /// The agent session's controls.
    pub session: SessionSignals,
    /// The model and tool picked in ChatKit's composer (`composer.models`, `.tools`).
    pub composer_pick: RwSignal<chat_shell_core::composer_choice::Picked>,
    /// Ticks when this page sends a message (not a ghost one): the conversation goes back
    /// to its end, where the message and its answer show.
    pub sent: RwSignal<u64>,
    /// Whether the find bar is open (view state only).
    pub find_open: RwSignal<bool>,
    /// The item find stepped to: the conversation mounts it, opens its fold and brings it
    /// into view (view state only).
    pub reveal: RwSignal<Option<ItemId>>,
}

/// A Rust listener for `chat.*` events.
pub type EventListener = Rc<dyn Fn(&ChatEvent)>;

pub struct Runtime {
    /// The host's request options (headers, custom fetch).
    pub(crate) http_options: RefCell<held::http::HttpOptions>,
    /// The host's `entities.onTagSearch(query)`: the entities an `@` offers.
    pub(crate) tag_search: RefCell<Option<js_sys::Function>>,
    pub shell: Shell,
    /// Where `chat.*` DOM events are dispatched (the custom element, or the Leptos
    /// component's root once mounted).
    host: RefCell<Option<HtmlElement>>,
    /// Rust listeners for the same events (the Leptos component's callbacks).
    listeners: RefCell<Vec<EventListener>>,
    state: RefCell<ChatState>,
    pub signals: ViewSignals,
    revs: RefCell<HashMap<ItemId, RwSignal<u64>>>,
    /// Revision signals of items that left the state: disposed at the next frame, once
    /// the views that read them are gone.
    retired_revs: RefCell<Vec<RwSignal<u64>>>,
    abort: RefCell<Option<AbortController>>,
    /// Bumped whenever in-flight answers must stop counting (Stop, new chat, unmount).
    generation: Cell<u64>,
    frame_pending: Cell<bool>,
    /// A view asked for the next frame's `tick`.
    animating: Cell<bool>,
    pending_tools: RefCell<Vec<(ItemId, String, String)>>,
    /// Answer streams of the `events` protocol so far: each one's adapter gets the next
    /// number, so the item ids it makes never collide.
    events_runs: Cell<u64>,
    /// Client widgets, tools, action and effect handlers; actions awaiting their answer.
    registry: held::actions::Registry,
    /// AG-UI's conversation facts and declared tools.
    ag_ui: held::ag_ui::AgUi,
    threads: held::threads::Threads,
    uploads: held::attachments::Uploads,
    channel: held::channel::Channel,
    session: held::session::Session,
    owner: Owner,
}

impl Runtime {
    /// Create the runtime of a host element. Its signals live in their own owner, so they
    /// survive the view being unmounted and mounted again (the element moved in the page).
    pub fn create(host: Option<HtmlElement>) -> Shell {
        let id = NEXT_ID.with(|n| {
            let id = n.get();
            n.set(id + 1);
            id
        });
        let owner = Owner::new();
        let signals = owner.with(|| ViewSignals {
            options: RwSignal::new(Options::default()),
            order: RwSignal::new(Vec::new()),
            folds: RwSignal::new(HashMap::new()),
            open_folds: RwSignal::new(HashSet::new()),
            thread: RwSignal::new(None),
            streaming: RwSignal::new(None),
            progress: RwSignal::new(None),
            notices: RwSignal::new(Vec::new()),
            error: RwSignal::new(None),
            draft: RwSignal::new(String::new()),
            mentions: RwSignal::new(Vec::new()),
            announce: RwSignal::new(String::new()),
            tick: RwSignal::new(0),
            strings: RwSignal::new(chat_shell_core::strings::Strings::with_table("en", None)),
            history: HistorySignals::new(),
            tray: TraySignals::new(),
            run: RwSignal::new(0),
            last_event: RwSignal::new(None),
            views: ViewsSignals::new(),
            session: SessionSignals::new(),
            composer_pick: RwSignal::new(Default::default()),
            sent: RwSignal::new(0),
            find_open: RwSignal::new(false),
            reveal: RwSignal::new(None),
        });
        let shell = Shell(id);
        let runtime = Runtime {
            shell,
            http_options: RefCell::new(Default::default()),
            tag_search: RefCell::new(None),
            host: RefCell::new(host),
            listeners: RefCell::new(Vec::new()),
            state: RefCell::new(ChatState::new()),
            signals,
            revs: RefCell::new(HashMap::new()),
            retired_revs: RefCell::new(Vec::new()),
            abort: RefCell::new(None),
            generation: Cell::new(0),
            frame_pending: Cell::new(false),
            animating: Cell::new(false),
            pending_tools: RefCell::new(Vec::new()),
            events_runs: Cell::new(0),
            registry: Default::default(),
            ag_ui: Default::default(),
            threads: Default::default(),
            uploads: Default::default(),
            channel: Default::default(),
            session: Default::default(),
            owner,
        };
        RUNTIMES.with(|r| r.borrow_mut().insert(id, Rc::new(runtime)));
        shell
    }

    /// Forget this runtime: abort what is in flight and free its signals.
    pub fn dispose(shell: Shell) {
        if let Some(rt) = RUNTIMES.with(|r| r.borrow_mut().remove(&shell.0)) {
            rt.abort_in_flight();
            rt.close_channel();
            rt.release_uploads();
            rt.owner.cleanup();
        }
    }

    /// Read the state (views call this when a signal they track changes).
    pub fn with_state<R>(&self, f: impl FnOnce(&ChatState) -> R) -> R {
        f(&self.state.borrow())
    }

    pub fn with_item<R>(&self, id: &ItemId, f: impl FnOnce(&EntryState) -> R) -> Option<R> {
        self.state.borrow().item(id).map(f)
    }

    /// The revision signal of one item: ticks when that item changes, and only then.
    pub fn item_rev(&self, id: &ItemId) -> RwSignal<u64> {
        let mut revs = self.revs.borrow_mut();
        *revs
            .entry(id.clone())
            .or_insert_with(|| self.owner.with(|| RwSignal::new(0)))
    }

    pub fn is_streaming(&self) -> bool {
        self.state.borrow().is_streaming()
    }

    // ---- state and effects --------------------------------------------------------

    /// Fold an input into the state, carry out its effects, and schedule a view update.
    pub fn dispatch(&self, input: Input) {
        let outcome = reduce(&mut self.state.borrow_mut(), input);
        self.carry_out(outcome);
        self.settle_actions();
        self.schedule_frame();
    }

    fn carry_out(&self, outcome: Outcome) {
        for warning in outcome.warnings {
            web_sys::console::warn_1(&format!("chat-shell: {}", warning.message).into());
        }
        for effect in outcome.effects {
            match effect {
                Effect::Emit(event) => self.emit(&event),
                Effect::Announce(text) => self.signals.announce.set(text),
                Effect::RestoreDraft { text, attachments } => self.restore_draft(text, attachments),
                Effect::InvokeClientTool {
                    item_id,
                    call_id,
                    name,
                    ..
                } => self
                    .pending_tools
                    .borrow_mut()
                    .push((item_id, call_id, name)),
                // The page also gets it as the `chat.effect` event emitted with it.
                Effect::ClientEffect { name, data } => self.run_effect(&name, &data),
                // Sent once this input is folded in (a pick may start a turn).
                Effect::AnswerPermission {
                    item_id,
                    tool_call_id,
                    outcome,
                } => self.send_permission_answer(item_id, tool_call_id, outcome),
            }
        }
    }

    /// The element (or component root) the chat lives in.
    pub fn host(&self) -> Option<HtmlElement> {
        self.host.borrow().clone()
    }

    /// Set where DOM events go (the Leptos component knows its root only once mounted).
    pub fn set_host(&self, host: Option<HtmlElement>) {
        *self.host.borrow_mut() = host;
    }

    /// Apply option changes, whichever way they came (attributes, `setOptions`, props).
    /// The one place options take effect; callers validate first, so this never fails.
    pub fn apply_settings(&self, settings: impl IntoIterator<Item = Setting>) {
        let settings: Vec<Setting> = settings.into_iter().collect();
        if settings.is_empty() {
            return;
        }
        let before = self.signals.options.get_untracked();
        let mut after = before.clone();
        for setting in settings {
            after.set(setting);
        }
        if after == before {
            return;
        }
        if after.protocol != before.protocol
            && after.protocol != chat_shell_core::options::Protocol::ChatKit
        {
            // Their first answer needs the other envelopes' adapters: fetch them now.
            self.prefetch_adapters();
        }
        if (&after.locale, &after.strings) != (&before.locale, &before.strings) {
            self.load_strings(&after);
        }
        self.signals.options.set(after);
    }

    /// Run `f` in the runtime's reactive owner (what it creates lives as long as the runtime).
    pub fn in_owner<R>(&self, f: impl FnOnce() -> R) -> R {
        self.owner.with(f)
    }

    /// Read the options without subscribing.
    pub fn options<R>(&self, f: impl FnOnce(&Options) -> R) -> R {
        self.signals.options.with_untracked(f)
    }

    /// A UI string in the element's language (read without subscribing).
    pub fn text(&self, text: chat_shell_core::strings::Text) -> String {
        self.with_strings(|s| s.get(text).to_owned())
    }

    /// Read the element's strings without subscribing.
    pub fn with_strings<R>(&self, f: impl FnOnce(&chat_shell_core::strings::Strings) -> R) -> R {
        self.signals.strings.with_untracked(f)
    }

    /// Also hand every `chat.*` event to a Rust listener.
    pub fn add_listener(&self, listener: EventListener) {
        self.listeners.borrow_mut().push(listener);
    }

    /// Dispatch a `chat.*` event: a DOM `CustomEvent` from the host (bubbles, crosses the
    /// shadow root) and a call to each Rust listener.
    pub fn emit(&self, event: &ChatEvent) {
        let listeners = self.listeners.borrow().clone();
        for listener in &listeners {
            listener(event);
        }
        let Some(host) = self.host.borrow().clone() else {
            return;
        };
        let detail = event
            .detail()
            .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
            .unwrap_or(JsValue::NULL);
        let init = CustomEventInit::new();
        init.set_bubbles(true);
        init.set_composed(true);
        init.set_detail(&detail);
        if let Ok(dom_event) = CustomEvent::new_with_event_init_dict(event.name(), &init) {
            let _ = host.dispatch_event(&dom_event);
        }
    }

    /// Ask for one more `tick` next frame. However many views ask, and however often,
    /// the runtime runs one animation frame callback per frame.
    pub fn want_frame(&self) {
        self.animating.set(true);
        self.schedule_frame();
    }

    /// Batch all changes of this frame into one view update.
    fn schedule_frame(&self) {
        if self.frame_pending.replace(true) {
            return;
        }
        let shell = self.shell;
        let flush = Closure::once_into_js(move || {
            shell.with(|rt| rt.flush());
        });
        let Some(window) = web_sys::window() else {
            return;
        };
        // Hidden pages get no animation frames; a timer keeps a background tab current.
        let hidden = window.document().is_some_and(|d| d.hidden());
        let scheduled = if hidden {
            window
                .set_timeout_with_callback_and_timeout_and_arguments_0(flush.unchecked_ref(), 50)
                .is_ok()
        } else {
            window
                .request_animation_frame(flush.unchecked_ref())
                .is_ok()
        };
        if !scheduled {
            self.frame_pending.set(false);
        }
    }

    /// Publish what changed since the last frame.
    pub fn flush(&self) {
        self.frame_pending.set(false);
        if self.animating.replace(false) {
            self.signals.tick.update(|t| *t += 1);
        }
        for rev in self.retired_revs.take() {
            rev.dispose();
        }
        let (order, thread, streaming, progress, notices, error, last_event, older, changes) = {
            let mut state = self.state.borrow_mut();
            let changes = state.take_changes();
            // A turn's end may fold its tool calls: the list is re-derived then too.
            let order = (changes.order || changes.turn).then(|| {
                let listed = listed(&state);
                let folds: HashMap<ItemId, ItemId> = listed
                    .iter()
                    .filter_map(|l| match l {
                        Listed::Summary(calls) => Some(calls),
                        _ => None,
                    })
                    .flat_map(|calls| {
                        let summary = calls[0].entry.id.clone();
                        calls
                            .iter()
                            .map(move |c| (c.entry.id.clone(), summary.clone()))
                    })
                    .collect();
                (listed.iter().map(ItemKey::of).collect::<Vec<_>>(), folds)
            });
            if changes.order {
                let mut retired = self.retired_revs.borrow_mut();
                self.revs.borrow_mut().retain(|id, rev| {
                    let keep = state.item(id).is_some();
                    if !keep {
                        retired.push(*rev);
                    }
                    keep
                });
            }
            (
                order,
                changes.thread.then(|| state.thread.clone()),
                changes
                    .turn
                    .then(|| state.turn.as_ref().map(|t| t.can_cancel())),
                changes.progress.then(|| state.progress.clone()),
                changes.notices.then(|| state.notices.clone()),
                changes.error.then(|| state.error.clone()),
                changes.liveness.then_some(state.last_event_ms),
                changes.older.then(|| OlderItems {
                    more: state.older.more(),
                    loading: state.older.loading,
                }),
                changes,
            )
        };
        if let Some((order, folds)) = order {
            if self.signals.folds.with_untracked(|now| now != &folds) {
                self.signals.folds.set(folds);
            }
            if self.signals.order.with_untracked(|now| now != &order) {
                self.signals.order.set(order);
            }
        }
        for id in &changes.items {
            if let Some(rev) = self.revs.borrow().get(id) {
                rev.update(|r| *r += 1);
            }
        }
        if let Some(v) = thread {
            self.signals.thread.set(v);
            self.sync_channel();
            if let Some(this) = self.shell.get() {
                this.sync_session();
            }
        }
        if let Some(v) = streaming {
            self.signals.streaming.set(v);
        }
        if let Some(v) = progress {
            self.signals.progress.set(v);
        }
        if let Some(v) = notices {
            self.signals.notices.set(v);
        }
        if let Some(v) = error {
            self.signals.error.set(v);
        }
        if let Some(v) = last_event {
            self.signals.last_event.set(v);
        }
        if let Some(v) = older {
            self.signals.history.older.set(v);
        }
        if changes.run {
            self.signals.run.update(|r| *r += 1);
        }
    }
}

/// Which view shows an entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EntryView {
    UserMessage,
    AssistantText,
    /// A task, or a workflow (a group of tasks).
    Tasks,
    GeneratedImage,
    Widget,
    ClientWidget,
    ClientToolCall,
    StructuredInput,
    /// An agent's tool call, with its permission card.
    ToolCall,
    /// An agent's plan.
    Plan,
    /// An agent's thoughts, collapsed.
    Thought,
    /// A finished turn's tool calls, folded into one summary line.
    ToolCallSummary,
    /// Closes a turn; nothing to see.
    EndOfTurn,
    /// An Agent UI note: a worker's result, a handoff, a boundary, an artifact.
    Note,
    /// An agent's question (ACP elicitation): a form or a link to open.
    Elicitation,
    /// A kind this version does not know: said plainly, never dropped.
    Unsupported,
}

impl EntryView {
    pub fn of(kind: &EntryKind) -> Self {
        match kind {
            EntryKind::UserMessage(_) => EntryView::UserMessage,
            EntryKind::AssistantText(_) => EntryView::AssistantText,
            EntryKind::Task(_) | EntryKind::Workflow(_) => EntryView::Tasks,
            EntryKind::GeneratedImage(_) => EntryView::GeneratedImage,
            EntryKind::Widget(_) => EntryView::Widget,
            EntryKind::ClientWidget(_) => EntryView::ClientWidget,
            EntryKind::ClientToolCall(_) => EntryView::ClientToolCall,
            EntryKind::StructuredInput(_) => EntryView::StructuredInput,
            EntryKind::EndOfTurn(_) => EntryView::EndOfTurn,
            EntryKind::ToolCall(_) => EntryView::ToolCall,
            EntryKind::Plan(_) => EntryView::Plan,
            EntryKind::Thought(_) => EntryView::Thought,
            EntryKind::Note(_) => EntryView::Note,
            EntryKind::Elicitation(_) => EntryView::Elicitation,
            EntryKind::Unsupported(_) => EntryView::Unsupported,
        }
    }
}
