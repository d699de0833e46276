//! What a run's task shares with the hub and the permission registry ([`Run`]), its
//! thread's place in the hub ([`Slot`]), and its own hold on its thread ([`RunHandle`]):
//! publishing an event folds it and sends it to the channels in one step.

use super::fold::{apply_update, RunItems};
use super::frames::event_frame;
use super::seats::Seat;
use super::{lock, Key};
use crate::channel::outbox::Outbox;
use crate::shared::Journal;
use chat_shell_core::protocol::chatkit::{ItemId, ItemUpdatedEvent, StreamEvent, ThreadItem};
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::watch;

/// What the run's task shares with the hub and the permission registry.
pub struct Run {
    pub(super) items: Mutex<RunItems>,
    /// `true` once asked to stop (`threads.cancel_run`, or the client of a run tied to its
    /// request leaving).
    pub(super) cancel: watch::Sender<bool>,
    pub(super) ended: watch::Sender<bool>,
    /// Where the thread's run goes to the shared store (see `shared`).
    pub(super) journal: Option<Arc<Journal>>,
}

impl Run {
    pub(super) fn new(journal: Option<Arc<Journal>>) -> Self {
        Run {
            items: Mutex::new(RunItems::default()),
            cancel: watch::Sender::new(false),
            ended: watch::Sender::new(false),
            journal,
        }
    }

    /// Tells the other instances the permission request of `item` waits for an answer
    /// (`None`: it waits no more).
    pub fn waiting(&self, item: Option<&ItemId>) {
        if let Some(journal) = &self.journal {
            journal.waiting(item);
        }
    }

    pub(super) fn items(&self) -> MutexGuard<'_, RunItems> {
        self.items.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Still running and not asked to stop: an answer handed to it will be used.
    pub fn is_live(&self) -> bool {
        !*self.cancel.borrow() && !*self.ended.borrow()
    }

    pub fn cancel_requested(&self) -> watch::Receiver<bool> {
        self.cancel.subscribe()
    }

    /// Asks the run to stop; `false` if it was asked already.
    pub fn request_cancel(&self) -> bool {
        !self.cancel.send_replace(true)
    }
}

/// One thread: its run, and its channels.
#[derive(Default)]
pub(super) struct Slot {
    pub(super) active: Option<Arc<Run>>,
    /// The open channels; each gets the run's frames as `thread.run.*` events.
    pub(super) listeners: Vec<Arc<Outbox>>,
    /// The run of another instance the channels follow: its id and the last event sent.
    pub(super) remote: Option<(String, i32)>,
}

/// The run's task's hold on its run: the shared part, and its thread's slot while it is
/// the thread's run.
pub struct RunHandle {
    pub run: Arc<Run>,
    pub(super) slot: Option<Arc<Mutex<Slot>>>,
    pub(super) key: Key,
    pub(super) _seat: Seat,
}

impl RunHandle {
    /// Whether this run is its thread's run (else it is tied to its request).
    pub fn attached(&self) -> bool {
        self.slot.is_some()
    }

    /// Follows `item`, streamed earlier, whose updates this run sends.
    pub fn track(&self, item: ThreadItem) {
        self.run.items().track(item);
    }

    /// The item `update` applies to, with it applied; the run's items do not change.
    pub fn folded(&self, update: &ItemUpdatedEvent) -> Option<ThreadItem> {
        let items = self.run.items();
        let (id, foreign) = items.target(update)?;
        let mut item = items.get(&id)?.clone();
        apply_update(&mut item, &update.update, foreign);
        Some(item)
    }

    /// The current state of the items among `ids` still in progress.
    pub fn pending(&self, ids: impl IntoIterator<Item = ItemId>) -> Vec<ThreadItem> {
        let items = self.run.items();
        ids.into_iter()
            .filter_map(|id| items.get(&id).cloned())
            .collect()
    }

    /// The assistant messages in progress with no text yet.
    pub fn empty_messages(&self) -> Vec<ItemId> {
        self.run.items().empty_messages()
    }

    /// Folds `event` (`json`, serialized) into the run's items and sends it to the
    /// thread's channels, in one step; `folded`: the updated item, computed already (see
    /// [`RunHandle::folded`]). Returns the id of the item an update changed.
    pub fn publish(
        &self,
        event: &StreamEvent,
        json: &str,
        folded: Option<ThreadItem>,
    ) -> Option<ItemId> {
        let Some(slot) = &self.slot else {
            return self.run.items().fold(event, folded);
        };
        let mut inner = lock(slot);
        let changed = self.run.items().fold(event, folded);
        if let Some(journal) = &self.run.journal {
            if !journal.event(json) {
                self.run.request_cancel();
            }
        }
        if !inner.listeners.is_empty() {
            // Serialized once; every channel queues the same bytes.
            if let Some(frame) = event_frame(json) {
                inner.listeners.retain(|o| o.push(&frame));
            }
        }
        changed
    }
}
