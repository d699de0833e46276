//! The thread channel's signals (its views, status, the tab shown, an artifact opened) and
//! what the runtime keeps for the channel. Following it is in `runtime::channel`.

use chat_shell_core::protocol::chatkit::ThreadId;
use chat_shell_core::views::{ChannelStatus, ThreadViews, View};
use leptos::prelude::*;
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet};
use web_sys::AbortController;

/// What the views of the thread channel read.
#[derive(Clone, Copy)]
pub struct ViewsSignals {
    /// The recognised views with content, by type.
    pub views: RwSignal<BTreeMap<String, View>>,
    pub status: RwSignal<ChannelStatus>,
    /// The tab shown: `None` is the conversation, else a view type (or [`ARTIFACT_TAB`]).
    /// View state only.
    pub tab: RwSignal<Option<String>>,
    /// The artifact the reader opened from its card: its own tab, until another thread.
    pub artifact: RwSignal<Option<OpenArtifact>>,
}

/// The tab of the artifact opened from the conversation (not a tool-pushed view type:
/// those are only `core::views::KNOWN_VIEWS`).
pub const ARTIFACT_TAB: &str = "artifact";

/// An artifact opened in the views area: its card's fields, as the runtime gave them.
#[derive(Clone, Debug, PartialEq)]
pub struct OpenArtifact {
    pub artifact_id: String,
    pub title: String,
    pub kind: Option<String>,
    pub body: String,
}

impl ViewsSignals {
    pub(crate) fn new() -> Self {
        ViewsSignals {
            views: RwSignal::new(BTreeMap::new()),
            // No thread yet, so no channel: `sync_channel` says Connecting once there is one.
            status: RwSignal::new(ChannelStatus::Unsupported),
            tab: RwSignal::new(None),
            artifact: RwSignal::new(None),
        }
    }

    /// Show `artifact` in its tab.
    pub fn open_artifact(&self, artifact: OpenArtifact) {
        self.artifact.set(Some(artifact));
        self.tab.set(Some(ARTIFACT_TAB.to_owned()));
    }

    /// Back to the conversation, with no artifact open (another conversation).
    pub(crate) fn close_artifact(&self) {
        self.artifact.set(None);
        if self.tab.get_untracked().as_deref() == Some(ARTIFACT_TAB) {
            self.tab.set(None);
        }
    }
}

/// Whose answer the channel's run events are.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum RunMode {
    #[default]
    None,
    /// A run this page did not start: its events are shown as an answer streaming.
    Showing,
    /// This page's own answer (it has the events from its own stream), or one it stopped:
    /// the channel's copy is ignored until the run ends.
    Ignoring,
}

pub(crate) struct Channel {
    pub(crate) thread: RefCell<Option<ThreadId>>,
    pub(crate) abort: RefCell<Option<AbortController>>,
    pub(crate) views: RefCell<ThreadViews>,
    /// Bumped when the channel is closed: a connection or timer of an older one stops.
    pub(crate) generation: Cell<u64>,
    pub(crate) timer: Cell<Option<i32>>,
    /// The element is out of the page: no connection until it is back (`resume_channel`).
    pub(crate) paused: Cell<bool>,
    pub(crate) run: Cell<RunMode>,
    /// View types met and not rendered, each reported once.
    pub(crate) reported: RefCell<BTreeSet<String>>,
}

impl Default for Channel {
    /// No thread yet, so no channel: the same status `ViewsSignals` starts with.
    fn default() -> Self {
        Channel {
            thread: RefCell::default(),
            abort: RefCell::default(),
            views: RefCell::new(ThreadViews::without_channel()),
            generation: Cell::default(),
            timer: Cell::default(),
            paused: Cell::default(),
            run: Cell::default(),
            reported: RefCell::default(),
        }
    }
}
