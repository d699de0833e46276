//! The history's rows and signals, drafts, and what the runtime keeps for threads (load
//! tokens, drafts, previews). Loading and opening threads is in `runtime::threads`.

use super::attachments::TrayEntry;
use chat_shell_core::protocol::chatkit::ThreadId;
use leptos::prelude::*;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;

/// One row of the history list.
#[derive(Clone, Debug, PartialEq)]
pub struct ThreadRow {
    pub id: ThreadId,
    /// The title, or what stands in for it (see `core::history::thread_label`, and
    /// `Runtime::want_preview` for threads the server sent without a title).
    pub label: String,
    /// Whether `label` is the server's title.
    pub titled: bool,
    /// Naive ISO timestamp, UTC.
    pub created_at: String,
}

/// The history list as far as it was loaded.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ThreadList {
    pub rows: Vec<ThreadRow>,
    /// The cursor for the next page, when `has_more`.
    pub after: Option<String>,
    pub has_more: bool,
    /// A page is on its way.
    pub loading: bool,
    /// The first page arrived: until then an empty list does not mean "no conversations".
    pub loaded: bool,
    pub error: Option<String>,
}

/// Whether the open thread has older items to load, and whether a page is on its way:
/// published from the reducer's `ChatState::older`, which alone keeps them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OlderItems {
    pub more: bool,
    pub loading: bool,
}

/// What the history view and the viewport subscribe to.
#[derive(Clone, Copy)]
pub struct HistorySignals {
    /// The history view replaces the conversation while this is true.
    pub open: RwSignal<bool>,
    pub list: RwSignal<ThreadList>,
    /// The thread being opened, until its items arrive.
    pub opening: RwSignal<Option<ThreadId>>,
    /// Why the last thread could not be opened.
    pub open_error: RwSignal<Option<String>>,
    pub older: RwSignal<OlderItems>,
}

impl HistorySignals {
    /// Call inside the runtime's owner.
    pub(crate) fn new() -> Self {
        HistorySignals {
            open: RwSignal::new(false),
            list: RwSignal::new(ThreadList::default()),
            opening: RwSignal::new(None),
            open_error: RwSignal::new(None),
            older: RwSignal::new(OlderItems::default()),
        }
    }
}

/// What was typed and attached for one thread (or for the new chat) and not sent.
#[derive(Clone, Debug, Default)]
pub(crate) struct Draft {
    pub text: String,
    pub tray: Vec<TrayEntry>,
}

impl Draft {
    pub(crate) fn is_empty(&self) -> bool {
        self.text.is_empty() && self.tray.is_empty()
    }
}

/// The runtime's bookkeeping for threads.
#[derive(Default)]
pub(crate) struct Threads {
    /// Bumped when a thread is opened or a new chat starts.
    pub load_token: Cell<u64>,
    /// Bumped when the history list restarts from its first page.
    pub(crate) list_token: Cell<u64>,
    /// Drafts of the threads not shown; the key `None` is the new chat.
    pub drafts: RefCell<HashMap<Option<ThreadId>, Draft>>,
    /// The first user message of untitled threads (`None`: it has none), as far as known.
    pub(crate) previews: RefCell<HashMap<ThreadId, Option<String>>>,
}
