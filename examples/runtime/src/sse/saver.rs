//! The saver: a run's events go to the store as they are sent.

use crate::auth::User;
use crate::runs::RunHandle;
use crate::store::{self, Store, UserStore};
use chat_shell_core::protocol::chatkit::{ItemId, ItemUpdate, StreamEvent, ThreadId, ThreadItem};
use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Partial items are saved at most this often while deltas stream in.
const FLUSH_EVERY: Duration = Duration::from_millis(250);

/// Mirrors the run into the store as it goes, so `threads.get_by_id` returns what the
/// client saw, partial items included. Each write runs on a blocking thread and is awaited
/// before the event goes out. The items' state is the run's (`runs::fold::RunItems`).
pub(crate) struct Saver {
    store: Arc<Store>,
    user: User,
    thread: ThreadId,
    pub(crate) run: RunHandle,
    /// Items in progress changed since they were last saved.
    dirty: HashSet<ItemId>,
    last_flush: Instant,
}

impl Saver {
    pub(crate) fn new(store: Arc<Store>, user: User, thread: ThreadId, run: RunHandle) -> Self {
        Saver {
            store,
            user,
            thread,
            run,
            dirty: HashSet::new(),
            last_flush: Instant::now(),
        }
    }

    /// Runs `f` on the user's store on a blocking thread; a failure is logged (`None`).
    async fn save<T: Send + 'static>(
        &self,
        f: impl FnOnce(&UserStore<'_>) -> store::Result<T> + Send + 'static,
    ) -> Option<T> {
        store::blocking(self.store.clone(), self.user.0.clone(), f)
            .await
            .map_err(|e| eprintln!("chat-shell-runtime: cannot save the stream: {e}"))
            .ok()
    }

    /// Saves the item `event` carries whole, if any, and gives it its branches.
    pub(crate) async fn save_item_of(&mut self, event: &mut StreamEvent) {
        if let StreamEvent::ItemAdded(e) | StreamEvent::ItemDone(e) | StreamEvent::ItemReplaced(e) =
            event
        {
            let item = e.item.clone();
            if let Some(branches) = self.save(move |db| db.save_item(&item)).await {
                e.item.branches = branches;
            }
            self.dirty.remove(&e.item.id);
        }
    }

    /// Saves `event` (`json`, serialized) as far as needed (its whole item is saved by
    /// [`Saver::save_item_of`]), then folds it into the run's items and sends it to the
    /// thread's channels.
    pub(crate) async fn apply(&mut self, event: &StreamEvent, json: &str) {
        let mut folded = None;
        match event {
            StreamEvent::ThreadCreated(e) | StreamEvent::ThreadUpdated(e) => {
                let thread = e.thread.clone();
                self.save(move |db| db.save_thread(&thread)).await;
            }
            StreamEvent::ItemRemoved(e) => {
                let (thread, id) = (self.thread.clone(), e.item_id.clone());
                self.save(move |db| db.delete_item(&thread, &id)).await;
                self.dirty.remove(&e.item_id);
            }
            StreamEvent::ItemUpdated(e) => {
                // A permission request is saved before any client sees it (its answer is
                // checked against the store), and so is its outcome; other changes at
                // most every FLUSH_EVERY.
                let permission = matches!(
                    e.update,
                    ItemUpdate::AcpPermissionRequested(_) | ItemUpdate::AcpPermissionResolved(_)
                );
                if permission || self.last_flush.elapsed() >= FLUSH_EVERY {
                    folded = self.run.folded(e);
                    if let Some(item) = &folded {
                        self.dirty.remove(&item.id);
                        self.flush_with(vec![item.clone()]).await;
                    }
                }
            }
            _ => {}
        }
        let saved = folded.is_some();
        let changed = self.run.publish(event, json, folded);
        if let (Some(id), false) = (changed, saved) {
            self.dirty.insert(id);
        }
    }

    pub(crate) async fn flush(&mut self) {
        self.flush_with(Vec::new()).await;
    }

    /// Saves `items` and every item changed since it was last saved.
    async fn flush_with(&mut self, mut items: Vec<ThreadItem>) {
        items.extend(self.run.pending(std::mem::take(&mut self.dirty)));
        if !items.is_empty() {
            self.save(move |db| {
                items
                    .iter()
                    .try_for_each(|item| db.save_item(item).map(drop))
            })
            .await;
        }
        self.last_flush = Instant::now();
    }

    /// The run was stopped: keep the partial items, except assistant messages with no
    /// text yet (the SDK drops those too).
    pub(crate) async fn cancelled(&mut self) {
        self.flush().await;
        let empty = self.run.empty_messages();
        if !empty.is_empty() {
            let thread = self.thread.clone();
            self.save(move |db| {
                empty
                    .iter()
                    .try_for_each(|id| db.delete_item(&thread, id).map(drop))
            })
            .await;
        }
    }
}
