//! Runs: answers that live on their own task, not on the request that started them.
//!
//! A streamed answer registers as its thread's run in the [`Runs`] hub, one per (user,
//! thread). The run folds every event it emits into [`RunItems`] and sends it to the
//! thread's open channels (`threads.subscribe`) in the same step, under the thread's lock;
//! a channel opening mid-run takes its snapshot and starts listening under that lock, so
//! it misses nothing and gets nothing twice. The HTTP response that started the run is one
//! more reader: when its client leaves, the run goes on to its end and is stored as usual.
//! `threads.cancel_run` stops it the way a client leaving used to.
//!
//! A second answer started on a thread whose run is under way is not registered: it stays
//! tied to its request, as every answer was before (its client leaving stops it).
//!
//! Bounded ([`Limits`]): each frame goes to the channels as one shared `Bytes`, into each
//! channel's bounded queue (`outbox`); one identity has at most `runs` runs under way (a
//! streamed request past that is refused with 429 before it changes anything); a run that
//! nobody reads (its client left or stopped reading, no channel open) is stopped after
//! `abandoned_run`, so an agent that never ends its turn does not hold it for ever.
//!
//! On a shared PostgreSQL database (`shared`), a thread's run also goes to the store as it
//! happens (its journal), and a channel of a thread whose run is under way on another
//! instance replays it from the store, then follows it ([`Runs::follow`]).

use crate::auth::User;
use crate::channel::outbox::{self, Outbox};
use crate::clients::{self, Client, Clients, Kind, Share};
use crate::errors::{bad_request, json_error, not_found};
use crate::shared::{Journal, Shared};
use crate::sse::Frame;
use crate::state::AppState;
use crate::store;
use axum::body::Bytes;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use chat_shell_core::protocol::chatkit::{
    AcpPermission, AssistantContent, CancelRunRequest, ItemEvent, ItemId, ItemKind, ItemUpdate,
    ItemUpdatedEvent, StreamEvent, ThreadId, ThreadItem,
};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::{mpsc, watch};

/// The `Retry-After` of a run refused at a limit.
const RUN_RETRY: Duration = Duration::from_secs(5);

/// `threads.cancel_run` answers once the run has stopped and saved, or after this long.
const CANCEL_WAIT: Duration = Duration::from_secs(5);

/// What one identity may hold open (`--max-channels`, `--max-runs`, `--abandoned-run-secs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Open thread channels; a newer one closes the oldest.
    pub channels: usize,
    /// Runs under way; a streamed request past it is refused (429).
    pub runs: usize,
    /// How long a run nobody reads lives on.
    pub abandoned_run: Duration,
}

pub const DEFAULT_MAX_CHANNELS: usize = 16;
pub const DEFAULT_MAX_RUNS: usize = 8;
pub const DEFAULT_ABANDONED_RUN: Duration = Duration::from_secs(60);

impl Default for Limits {
    fn default() -> Self {
        Limits {
            channels: DEFAULT_MAX_CHANNELS,
            runs: DEFAULT_MAX_RUNS,
            abandoned_run: DEFAULT_ABANDONED_RUN,
        }
    }
}

/// (user, thread).
type Key = (String, String);

/// The threads with a run under way or a channel open.
#[derive(Default)]
pub struct Runs {
    slots: Mutex<HashMap<Key, Arc<Mutex<Slot>>>>,
    /// Runs under way (and streamed requests admitted), by user.
    seats: Arc<Mutex<HashMap<String, usize>>>,
    limits: Limits,
    /// What each client address may have under way, and everyone together.
    clients: Arc<Clients>,
    /// The database shared with other instances, if any.
    shared: Option<Arc<Shared>>,
}

/// One thread: its run, and its channels.
#[derive(Default)]
struct Slot {
    active: Option<Arc<Run>>,
    /// The open channels; each gets the run's frames as `thread.run.*` events.
    listeners: Vec<Arc<Outbox>>,
    /// The run of another instance the channels follow: its id and the last event sent.
    remote: Option<(String, i32)>,
}

/// What a channel opening on a thread gets of its run.
pub enum Joined {
    /// No run under way.
    Idle,
    /// This instance's run: its snapshot.
    Local(Vec<StreamEvent>),
    /// Another instance's run: its events up to `upto` are read from the store.
    Remote { run: String, upto: i32 },
}

/// One of a user's runs (or a request admitted to start one), counted while it lives, for
/// its identity and for its client address.
pub struct Seat {
    seats: Arc<Mutex<HashMap<String, usize>>>,
    user: String,
    _share: Share,
}

impl Seat {
    /// Counts one more seat of `user`, unless `cap` of them are taken.
    fn count(seats: &Mutex<HashMap<String, usize>>, user: &str, cap: Option<usize>) -> bool {
        let mut all = lock(seats);
        let n = all.entry(user.to_owned()).or_default();
        if cap.is_some_and(|cap| *n >= cap) {
            if *n == 0 {
                all.remove(user);
            }
            return false;
        }
        *n += 1;
        true
    }

    /// The same seat held a second time, not checked against the caps (the run itself,
    /// after the request that was admitted to start it).
    fn again(&self) -> Seat {
        Seat::count(&self.seats, &self.user, None);
        Seat {
            seats: self.seats.clone(),
            user: self.user.clone(),
            _share: self._share.again(),
        }
    }
}

impl Drop for Seat {
    fn drop(&mut self) {
        let mut all = lock(&self.seats);
        if let Some(n) = all.get_mut(&self.user) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                all.remove(&self.user);
            }
        }
    }
}

/// How a run ended, as `thread.run.ended` says it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Done,
    Cancelled,
    /// A dropped connection, an error event, the runtime stopping.
    Failed,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Done => "done",
            Outcome::Cancelled => "cancelled",
            Outcome::Failed => "failed",
        }
    }
}

/// The frame of `thread.run.ended` (`outcome` as stored: another instance's run may also
/// have ended `interrupted`).
fn ended_frame(outcome: &str) -> Bytes {
    Bytes::from(format!(
        "data: {}\n\n",
        json!({"type": "thread.run.ended", "outcome": outcome})
    ))
}

/// The frame of one event (its JSON) of a thread's run; `None` if too long for a channel.
pub fn event_frame(json: &str) -> Option<Bytes> {
    let frame = Bytes::from(format!(
        "data: {{\"type\":\"thread.run.event\",\"event\":{json}}}\n\n"
    ));
    if outbox::fits(&frame) {
        Some(frame)
    } else {
        eprintln!(
            "chat-shell-runtime: a run event of {} bytes is too long for a channel: not sent",
            frame.len()
        );
        None
    }
}

/// What the run's task shares with the hub and the permission registry.
pub struct Run {
    items: Mutex<RunItems>,
    /// `true` once asked to stop (`threads.cancel_run`, or the client of a run tied to its
    /// request leaving).
    cancel: watch::Sender<bool>,
    ended: watch::Sender<bool>,
    /// Where the thread's run goes to the shared store (see `shared`).
    journal: Option<Arc<Journal>>,
}

impl Run {
    fn new(journal: Option<Arc<Journal>>) -> Self {
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

    fn items(&self) -> MutexGuard<'_, RunItems> {
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

/// The run's task's hold on its run: the shared part, and its thread's slot while it is
/// the thread's run.
pub struct RunHandle {
    pub run: Arc<Run>,
    slot: Option<Arc<Mutex<Slot>>>,
    key: Key,
    _seat: Seat,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Runs {
    pub fn new(limits: Limits, clients: Arc<Clients>) -> Self {
        Runs {
            limits,
            clients,
            ..Runs::default()
        }
    }

    /// Shares the threads' runs with the other instances of `shared`'s database.
    pub fn with_shared(mut self, shared: Option<Arc<Shared>>) -> Self {
        self.shared = shared;
        self
    }

    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Lets `user`, asking from `client`, start one more run, or refuses (429) when as many
    /// as a limit are under way (the identity's, the client's, or everyone's); the seat is
    /// held until the request that asked has started its run, which holds one of its own.
    #[allow(clippy::result_large_err)]
    pub fn admit(&self, user: &User, client: Client) -> Result<Seat, Response> {
        let share = self
            .clients
            .take(Kind::Run, client)
            .map_err(|refused| self.clients.too_many(refused))?;
        if !Seat::count(&self.seats, &user.0, Some(self.limits.runs)) {
            let mut refused = json_error(
                StatusCode::TOO_MANY_REQUESTS,
                "too_many_runs",
                &format!(
                    "{} answers are under way for this identity already: wait for one to end \
                     or stop it (threads.cancel_run)",
                    self.limits.runs
                ),
            );
            clients::retry_after_header(refused.headers_mut(), RUN_RETRY);
            return Err(refused);
        }
        Ok(Seat {
            seats: self.seats.clone(),
            user: user.0.clone(),
            _share: share,
        })
    }

    /// Registers a new run of `user` on `thread`: the thread's run if it has none under
    /// way, else one tied to its request (see the module's documentation). `origin`: the
    /// response that started it, watched to tell an abandoned run.
    pub fn start(
        &self,
        user: &User,
        thread: &ThreadId,
        origin: &mpsc::Sender<Frame>,
        admitted: &Seat,
    ) -> RunHandle {
        let key = (user.0.clone(), thread.to_string());
        let mut run = Arc::new(Run::new(None));
        let slot = {
            let mut slots = lock(&self.slots);
            let slot = slots.entry(key.clone()).or_default().clone();
            let mut inner = lock(&slot);
            // A run of another instance the channels here follow counts as under way.
            if inner.active.is_none() && inner.remote.is_none() {
                let journal = self.shared.as_ref().map(|s| s.journal(&user.0, thread));
                run = Arc::new(Run::new(journal));
                inner.active = Some(run.clone());
                let started = Bytes::from_static(crate::channel::RUN_STARTED.as_bytes());
                inner.listeners.retain(|o| o.push(&started));
                drop(inner);
                Some(slot)
            } else {
                None
            }
        };
        tokio::spawn(stop_when_abandoned(
            run.clone(),
            slot.clone(),
            origin.downgrade(),
            self.limits.abandoned_run,
            thread.clone(),
        ));
        RunHandle {
            run,
            slot,
            key,
            _seat: admitted.again(),
        }
    }

    /// Opens a channel's feed of `thread`'s runs into `outbox`: returns the snapshot of the
    /// run under way (if any), taken as the channel starts listening. On a shared
    /// database, a run of another instance is looked up in the store (blocking).
    pub fn listen(
        &self,
        user: &User,
        thread: &ThreadId,
        outbox: &Arc<Outbox>,
    ) -> store::Result<Joined> {
        let slot = {
            // The hub stays locked until the slot is: a slot is only removed under both.
            let mut slots = lock(&self.slots);
            slots
                .entry((user.0.clone(), thread.to_string()))
                .or_default()
                .clone()
        };
        let mut inner = lock(&slot);
        inner.listeners.push(outbox.clone());
        if let Some(run) = &inner.active {
            return Ok(Joined::Local(run.items().snapshot()));
        }
        let Some(shared) = &self.shared else {
            return Ok(Joined::Idle);
        };
        if let Some((run, upto)) = &inner.remote {
            return Ok(Joined::Remote {
                run: run.clone(),
                upto: *upto,
            });
        }
        let found = shared.pg().conn()?.query_opt(
            "SELECT r.id, (SELECT COALESCE(MAX(seq), 0) FROM run_events e WHERE e.run_id = r.id)
             FROM runs r WHERE r.thread_id = $1 AND r.owner = $2 AND r.outcome IS NULL
             AND r.instance <> $3",
            &[&thread.as_str(), &user.0, &shared.instance],
        )?;
        Ok(match found {
            Some(row) => {
                let (run, upto): (String, i32) = (row.get(0), row.get(1));
                inner.remote = Some((run.clone(), upto));
                Joined::Remote { run, upto }
            }
            None => Joined::Idle,
        })
    }

    /// Sends the channels of `thread` on this instance what run `run_id` of another
    /// instance did since they last heard: its start, its events, its end (blocking).
    pub fn follow(&self, shared: &Shared, thread: &str, run_id: &str) -> store::Result<()> {
        let mut c = shared.pg().conn()?;
        let Some(row) = c.query_opt(
            "SELECT owner, instance, outcome FROM runs WHERE id = $1 AND thread_id = $2",
            &[&run_id, &thread],
        )?
        else {
            return Ok(());
        };
        let (owner, instance, outcome): (String, String, Option<String>) =
            (row.get(0), row.get(1), row.get(2));
        if instance == shared.instance {
            return Ok(());
        }
        let Some(slot) = lock(&self.slots).get(&(owner, thread.to_owned())).cloned() else {
            return Ok(());
        };
        let mut inner = lock(&slot);
        inner.listeners.retain(|o| !o.is_closed());
        if inner.listeners.is_empty() {
            inner.remote = None;
            return Ok(());
        }
        if inner.active.is_some() {
            // This instance's own run is the thread's (the other one was not shared).
            return Ok(());
        }
        if let Some((followed, _)) = inner.remote.clone().filter(|(r, _)| r != run_id) {
            // A newer run: the one followed ended unheard.
            let ended: Option<String> = c
                .query_opt("SELECT outcome FROM runs WHERE id = $1", &[&followed])?
                .and_then(|r| r.get(0));
            let frame = ended_frame(ended.as_deref().unwrap_or("interrupted"));
            inner.listeners.retain(|o| o.push(&frame));
            inner.remote = None;
        }
        if inner.remote.is_none() {
            if outcome.is_some() {
                // Over before any channel here heard of it: its items are in the thread.
                return Ok(());
            }
            let started = Bytes::from_static(crate::channel::RUN_STARTED.as_bytes());
            inner.listeners.retain(|o| o.push(&started));
            inner.remote = Some((run_id.to_owned(), 0));
        }
        let mut after = inner.remote.as_ref().map_or(0, |(_, seq)| *seq);
        loop {
            let rows = c.query(
                "SELECT seq, json FROM run_events WHERE run_id = $1 AND seq > $2
                 ORDER BY seq LIMIT $3",
                &[&run_id, &after, &crate::shared::EVENTS_PAGE],
            )?;
            for row in &rows {
                after = row.get(0);
                if let Some(frame) = event_frame(row.get(1)) {
                    inner.listeners.retain(|o| o.push(&frame));
                }
            }
            if (rows.len() as i64) < crate::shared::EVENTS_PAGE {
                break;
            }
        }
        inner.remote = Some((run_id.to_owned(), after));
        // Read before the events: every event of an ended run was there by then.
        if let Some(outcome) = outcome {
            let frame = ended_frame(&outcome);
            inner.listeners.retain(|o| o.push(&frame));
            inner.remote = None;
        }
        Ok(())
    }

    /// The runs of other instances that this instance's channels follow, or should: after
    /// the listener reconnects, each is caught up (blocking).
    pub fn followed(&self, shared: &Shared) -> Vec<(String, String)> {
        let slots: Vec<(Key, Arc<Mutex<Slot>>)> = lock(&self.slots)
            .iter()
            .map(|(k, s)| (k.clone(), s.clone()))
            .collect();
        let mut runs = Vec::new();
        for ((owner, thread), slot) in slots {
            let (remote, idle) = {
                let inner = lock(&slot);
                (
                    inner.remote.clone(),
                    inner.active.is_none() && !inner.listeners.is_empty(),
                )
            };
            if let Some((run, _)) = remote {
                runs.push((thread, run));
            } else if idle {
                let live = shared.pg().conn().and_then(|mut c| {
                    Ok(c.query_opt(
                        "SELECT id FROM runs WHERE thread_id = $1 AND owner = $2 AND outcome IS NULL",
                        &[&thread, &owner],
                    )?)
                });
                if let Ok(Some(row)) = live {
                    runs.push((thread, row.get(0)));
                }
            }
        }
        runs
    }

    /// Another instance asked run `run_id` of `thread` to stop: stops it if it runs here.
    pub fn cancel_shared(&self, thread: &str, run_id: &str) {
        let slots: Vec<Arc<Mutex<Slot>>> = lock(&self.slots)
            .iter()
            .filter(|((_, t), _)| t == thread)
            .map(|(_, s)| s.clone())
            .collect();
        for slot in slots {
            let run = lock(&slot).active.clone();
            if let Some(run) = run.filter(|r| r.journal.as_ref().is_some_and(|j| j.run == run_id)) {
                if run.request_cancel() {
                    println!("run cancelled from another instance: thread={thread}");
                }
            }
        }
    }

    /// A channel of `thread` closed: forgets it (and the thread, once nothing is left).
    pub fn unlisten(&self, user: &User, thread: &ThreadId) {
        let key = (user.0.clone(), thread.to_string());
        let mut slots = lock(&self.slots);
        let Some(slot) = slots.get(&key).cloned() else {
            return;
        };
        let mut inner = lock(&slot);
        inner.listeners.retain(|o| !o.is_closed());
        if inner.listeners.is_empty() && inner.active.is_none() {
            drop(inner);
            slots.remove(&key);
        }
    }

    /// Whether `thread` has a run under way that its channels here show (this instance's,
    /// or one of another instance they follow).
    pub fn under_way(&self, user: &User, thread: &ThreadId) -> bool {
        let key = (user.0.clone(), thread.to_string());
        let Some(slot) = lock(&self.slots).get(&key).cloned() else {
            return false;
        };
        let inner = lock(&slot);
        inner.active.is_some() || inner.remote.is_some()
    }

    /// Asks `thread`'s run to stop; the run if there is one and it was not asked already.
    pub fn cancel(&self, user: &User, thread: &ThreadId) -> Option<Arc<Run>> {
        let key = (user.0.clone(), thread.to_string());
        let slot = lock(&self.slots).get(&key).cloned()?;
        let run = lock(&slot).active.clone()?;
        run.request_cancel().then_some(run)
    }

    /// The run of `handle` is over: its thread's channels are told, and the thread is free.
    pub fn end(&self, handle: &RunHandle, outcome: Outcome) {
        if let Some(slot) = &handle.slot {
            let mut slots = lock(&self.slots);
            let mut inner = lock(slot);
            if inner
                .active
                .as_ref()
                .is_some_and(|a| Arc::ptr_eq(a, &handle.run))
            {
                inner.active = None;
            }
            let frame = ended_frame(outcome.as_str());
            inner.listeners.retain(|o| o.push(&frame));
            if inner.listeners.is_empty() && inner.active.is_none() {
                drop(inner);
                if slots.get(&handle.key).is_some_and(|s| Arc::ptr_eq(s, slot)) {
                    slots.remove(&handle.key);
                }
            }
        }
        if let Some(journal) = &handle.run.journal {
            journal.end(outcome);
        }
        handle.run.ended.send_replace(true);
    }

    #[cfg(test)]
    fn open_threads(&self) -> usize {
        lock(&self.slots).len()
    }
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

/// Stops `run` once nobody has read it for `after`: its response's client left or stopped
/// reading (its queue is full), and no channel of its thread is open.
async fn stop_when_abandoned(
    run: Arc<Run>,
    slot: Option<Arc<Mutex<Slot>>>,
    origin: mpsc::WeakSender<Frame>,
    after: Duration,
    thread: ThreadId,
) {
    let mut ended = run.ended.subscribe();
    let tick = (after / 8).clamp(Duration::from_millis(50), Duration::from_secs(10));
    let mut alone_since: Option<tokio::time::Instant> = None;
    loop {
        tokio::select! {
            _ = ended.wait_for(|e| *e) => return,
            _ = tokio::time::sleep(tick) => {}
        }
        let read = origin
            .upgrade()
            .is_some_and(|tx| !tx.is_closed() && tx.capacity() > 0);
        let watched = slot
            .as_ref()
            .is_some_and(|s| lock(s).listeners.iter().any(|o| !o.is_closed()));
        if read || watched {
            alone_since = None;
            continue;
        }
        let since = *alone_since.get_or_insert_with(tokio::time::Instant::now);
        if since.elapsed() >= after {
            if run.request_cancel() {
                println!(
                    "run abandoned: thread={thread} stopped after {}s with nobody reading it",
                    after.as_secs()
                );
            }
            return;
        }
    }
}

/// The items a run's events built, folded the way the run itself does (to save what an
/// interrupted run of another instance had emitted).
#[derive(Default)]
pub struct Folder(RunItems);

impl Folder {
    pub fn fold(&mut self, event: &StreamEvent) {
        self.0.fold(event, None);
    }

    /// Every item emitted, in order, as it last was.
    pub fn into_items(self) -> Vec<ThreadItem> {
        let mut items = self.0.items;
        self.0
            .order
            .iter()
            .filter_map(|id| items.remove(id))
            .map(|t| t.item)
            .collect()
    }
}

/// What a run has emitted, folded: the state saved as it goes, and the snapshot a channel
/// opening mid-run starts from.
#[derive(Default)]
pub struct RunItems {
    /// Item ids in the order the run first emitted them.
    order: Vec<ItemId>,
    items: HashMap<ItemId, Tracked>,
    /// The assistant message being streamed: the fork's deltas name fresh ids that point
    /// at nothing and belong to it.
    current_message: Option<ItemId>,
}

struct Tracked {
    item: ThreadItem,
    done: bool,
    /// Emitted by this run (a tracked item is shown once the run updates it).
    shown: bool,
}

impl RunItems {
    fn track(&mut self, item: ThreadItem) {
        let tracked = Tracked {
            item,
            done: false,
            shown: false,
        };
        self.items.insert(tracked.item.id.clone(), tracked);
    }

    /// An item in progress.
    fn get(&self, id: &ItemId) -> Option<&ThreadItem> {
        self.items.get(id).filter(|t| !t.done).map(|t| &t.item)
    }

    /// The item in progress `update` applies to, and whether it named another (the fork).
    fn target(&self, update: &ItemUpdatedEvent) -> Option<(ItemId, bool)> {
        if self.get(&update.item_id).is_some() {
            return Some((update.item_id.clone(), false));
        }
        let current = self.current_message.clone()?;
        self.get(&current).is_some().then_some((current, true))
    }

    fn show(&mut self, id: &ItemId) {
        if let Some(t) = self.items.get_mut(id) {
            if !t.shown {
                t.shown = true;
                self.order.push(id.clone());
            }
        }
    }

    fn put(&mut self, item: ThreadItem, done: bool) {
        let id = item.id.clone();
        let shown = self.items.get(&id).is_some_and(|t| t.shown);
        self.items.insert(id.clone(), Tracked { item, done, shown });
        self.show(&id);
    }

    /// Applies `event`; `folded`: an update's result, computed already.
    fn fold(&mut self, event: &StreamEvent, folded: Option<ThreadItem>) -> Option<ItemId> {
        match event {
            StreamEvent::ItemAdded(e) => {
                if matches!(e.item.kind, ItemKind::AssistantMessage(_)) {
                    self.current_message = Some(e.item.id.clone());
                }
                self.put(e.item.clone(), false);
                None
            }
            StreamEvent::ItemDone(e) | StreamEvent::ItemReplaced(e) => {
                self.put(e.item.clone(), true);
                None
            }
            StreamEvent::ItemRemoved(e) => {
                self.items.remove(&e.item_id);
                self.order.retain(|id| id != &e.item_id);
                None
            }
            StreamEvent::ItemUpdated(e) => {
                if let Some(item) = folded {
                    let id = item.id.clone();
                    self.put(item, false);
                    return Some(id);
                }
                let (id, foreign) = self.target(e)?;
                let tracked = self.items.get_mut(&id)?;
                apply_update(&mut tracked.item, &e.update, foreign);
                self.show(&id);
                Some(id)
            }
            _ => None,
        }
    }

    /// One event per item emitted so far, in order: `thread.item.done` for a finished one,
    /// `thread.item.added` with its current state for one in progress.
    fn snapshot(&self) -> Vec<StreamEvent> {
        self.order
            .iter()
            .filter_map(|id| self.items.get(id))
            .map(|t| {
                let e = ItemEvent {
                    item: t.item.clone(),
                };
                if t.done {
                    StreamEvent::ItemDone(e)
                } else {
                    StreamEvent::ItemAdded(e)
                }
            })
            .collect()
    }

    fn empty_messages(&self) -> Vec<ItemId> {
        self.items
            .values()
            .filter(|t| !t.done)
            .filter(|t| {
                matches!(&t.item.kind, ItemKind::AssistantMessage(m)
                    if m.content.iter().all(|c| c.text.trim().is_empty()))
            })
            .map(|t| t.item.id.clone())
            .collect()
    }
}

/// Applies one `thread.item.updated` to an item. `foreign`: the update named another id
/// (the fork), so a text delta appends to the message's last part whatever its index.
pub fn apply_update(item: &mut ThreadItem, update: &ItemUpdate, foreign: bool) {
    fn part(content: &mut Vec<AssistantContent>, index: usize) -> &mut AssistantContent {
        while content.len() <= index {
            content.push(AssistantContent::text(""));
        }
        &mut content[index]
    }
    match (&mut item.kind, update) {
        (ItemKind::AssistantMessage(m), ItemUpdate::ContentPartAdded(p)) => {
            *part(&mut m.content, p.content_index) = p.content.clone();
        }
        (ItemKind::AssistantMessage(m), ItemUpdate::TextDelta(d)) => {
            let index = if foreign {
                m.content.len().saturating_sub(1)
            } else {
                d.content_index
            };
            part(&mut m.content, index).text.push_str(&d.delta);
        }
        (ItemKind::AssistantMessage(m), ItemUpdate::AnnotationAdded(a)) => {
            let annotations = &mut part(&mut m.content, a.content_index).annotations;
            match a.annotation_index {
                Some(i) if i <= annotations.len() => annotations.insert(i, a.annotation.clone()),
                _ => annotations.push(a.annotation.clone()),
            }
        }
        (ItemKind::AssistantMessage(m), ItemUpdate::ContentPartDone(p)) => {
            let target = part(&mut m.content, p.content_index);
            let kept = std::mem::take(&mut target.annotations);
            *target = p.content.clone();
            // Some servers send `annotations: []` here after adding some: keep them.
            if target.annotations.is_empty() {
                target.annotations = kept;
            }
        }
        (ItemKind::Widget(w), ItemUpdate::WidgetTextDelta(d)) => {
            w.widget.append_value(&d.component_id, &d.delta);
        }
        (ItemKind::Widget(w), ItemUpdate::WidgetComponentUpdated(c)) => {
            w.widget.replace(&c.component_id, c.component.clone());
        }
        (ItemKind::Widget(w), ItemUpdate::WidgetRootUpdated(r)) => w.widget = r.widget.clone(),
        (
            ItemKind::Workflow(w),
            ItemUpdate::WorkflowTaskAdded(t) | ItemUpdate::WorkflowTaskUpdated(t),
        ) => {
            let tasks = &mut w.workflow.tasks;
            if t.task_index < tasks.len() {
                tasks[t.task_index] = t.task.clone();
            } else {
                tasks.push(t.task.clone());
            }
        }
        (ItemKind::GeneratedImage(g), ItemUpdate::GeneratedImageUpdated(u)) => {
            g.image = Some(u.image.clone());
        }
        // The ACP extension, as the client's reducer applies it.
        (ItemKind::AcpToolCall(c), ItemUpdate::AcpToolCallUpdated(u)) => {
            c.tool_call.apply(u.update.clone());
        }
        (ItemKind::AcpToolCall(c), ItemUpdate::AcpPermissionRequested(r)) => {
            c.tool_call.apply(r.request.tool_call.clone());
            c.permission = Some(AcpPermission {
                options: r.request.options.clone(),
                outcome: None,
                action_id: None,
                action_type: None,
            });
        }
        (ItemKind::AcpToolCall(c), ItemUpdate::AcpPermissionResolved(r)) => {
            c.permission
                .get_or_insert_with(AcpPermission::default)
                .outcome = Some(r.outcome.clone());
        }
        (ItemKind::AcpElicitation(e), ItemUpdate::AcpElicitationResolved(r)) => {
            e.outcome = Some(r.outcome.clone());
        }
        (ItemKind::AcpPlan(p), ItemUpdate::AcpPlanUpdated(plan)) => {
            p.entries = plan.entries.clone();
        }
        (ItemKind::AcpThought(t), ItemUpdate::AcpThoughtChunk(chunk)) => {
            if let Some(text) = chunk.content.text() {
                t.text.push_str(text);
            }
        }
        _ => {}
    }
}

/// `threads.cancel_run` on `POST /chatkit` (`request` is the whole body): stops the run of
/// one of `user`'s threads and answers once it has stopped and saved.
pub async fn cancel(state: &Arc<AppState>, user: User, request: &Value) -> Response {
    let thread_id = match serde_json::from_value::<CancelRunRequest>(request.clone()) {
        Ok(CancelRunRequest::CancelRun { thread_id }) => thread_id,
        Err(e) => return bad_request(&format!("invalid request: {e}")),
    };
    let id = thread_id.clone();
    match state.db(&user, move |db| db.thread(&id)).await {
        Ok(Some(_)) => {}
        Ok(None) => return not_found(&format!("unknown thread {thread_id}")),
        Err(refused) => return refused,
    }
    let Some(run) = state.runs.cancel(&user, &thread_id) else {
        // Maybe under way on another instance.
        let cancelled = match &state.shared {
            Some(shared) => shared.cancel(&user.0, &thread_id, CANCEL_WAIT).await,
            None => false,
        };
        return Json(json!({"cancelled": cancelled})).into_response();
    };
    let mut ended = run.ended.subscribe();
    if tokio::time::timeout(CANCEL_WAIT, ended.wait_for(|e| *e))
        .await
        .is_err()
    {
        // Asked to stop all the same; it will, and save, when its step ends.
        eprintln!("chat-shell-runtime: the run of thread {thread_id} is slow to stop");
    }
    Json(json!({"cancelled": true})).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;
    use chat_shell_core::protocol::chatkit::{AssistantMessage, ContentPartEvent, TextDelta};

    fn client() -> Client {
        Client::of("127.0.0.2".parse().unwrap())
    }

    fn message(id: &str, text: &str) -> ThreadItem {
        ThreadItem {
            branches: Vec::new(),
            id: ItemId::from(id),
            thread_id: None,
            created_at: String::new(),
            kind: ItemKind::AssistantMessage(AssistantMessage {
                content: vec![AssistantContent::text(text)],
            }),
        }
    }

    fn delta(id: &str, s: &str) -> StreamEvent {
        StreamEvent::ItemUpdated(ItemUpdatedEvent {
            item_id: ItemId::from(id),
            update: ItemUpdate::TextDelta(TextDelta {
                content_index: 0,
                delta: s.into(),
            }),
        })
    }

    fn text(event: &StreamEvent) -> (&'static str, String) {
        let (kind, item) = match event {
            StreamEvent::ItemAdded(e) => ("added", &e.item),
            StreamEvent::ItemDone(e) => ("done", &e.item),
            other => panic!("{other:?}"),
        };
        let ItemKind::AssistantMessage(m) = &item.kind else {
            panic!()
        };
        (kind, m.content[0].text.clone())
    }

    #[test]
    fn the_snapshot_is_each_item_in_order_done_or_in_progress() {
        let mut items = RunItems::default();
        let added = |item| StreamEvent::ItemAdded(ItemEvent { item });
        items.fold(&added(message("msg_1", "")), None);
        items.fold(&delta("msg_1", "one"), None);
        items.fold(
            &StreamEvent::ItemDone(ItemEvent {
                item: message("msg_1", "one"),
            }),
            None,
        );
        items.fold(&added(message("msg_2", "")), None);
        items.fold(&delta("msg_2", "tw"), None);
        // The fork's deltas name fresh ids: they belong to the message being streamed.
        assert_eq!(
            items.fold(&delta("fresh_1", "o"), None),
            Some(ItemId::from("msg_2"))
        );
        let snapshot: Vec<_> = items.snapshot().iter().map(text).collect();
        assert_eq!(
            snapshot,
            [("done", "one".to_owned()), ("added", "two".to_owned())]
        );
        items.fold(
            &StreamEvent::ItemRemoved(chat_shell_core::protocol::chatkit::ItemRemovedEvent {
                item_id: ItemId::from("msg_1"),
            }),
            None,
        );
        assert_eq!(items.snapshot().len(), 1);
    }

    #[test]
    fn a_tracked_item_shows_once_updated_and_a_folded_copy_replaces_it() {
        let mut items = RunItems::default();
        items.track(message("msg_1", "a"));
        assert!(items.snapshot().is_empty(), "not emitted by this run yet");
        let update = delta("msg_1", "b");
        let StreamEvent::ItemUpdated(u) = &update else {
            unreachable!()
        };
        let (id, foreign) = items.target(u).unwrap();
        let mut copy = items.get(&id).unwrap().clone();
        apply_update(&mut copy, &u.update, foreign);
        items.fold(&update, Some(copy));
        assert_eq!(
            items.snapshot().iter().map(text).collect::<Vec<_>>(),
            [("added", "ab".to_owned())]
        );
        assert!(items.empty_messages().is_empty());
    }

    #[tokio::test]
    async fn channels_get_the_snapshot_then_every_later_event_and_the_end() {
        let runs = Runs::default();
        let user = User("u".into());
        let thread = ThreadId::from("thr_1");
        let (origin, _rx) = mpsc::channel(1);
        let seat = runs.admit(&user, client()).unwrap();
        let handle = runs.start(&user, &thread, &origin, &seat);
        assert!(handle.attached());
        assert!(
            !runs.start(&user, &thread, &origin, &seat).attached(),
            "one run per thread"
        );
        let add = StreamEvent::ItemAdded(ItemEvent {
            item: message("msg_1", ""),
        });
        handle.publish(&add, "{}", None);
        let outbox = Outbox::new("thr_1");
        let snapshot = runs.listen(&user, &thread, &outbox);
        assert!(matches!(snapshot, Ok(Joined::Local(s)) if s.len() == 1));
        handle.publish(&delta("msg_1", "x"), "{\"x\":1}", None);
        assert_eq!(
            outbox.next().await.unwrap(),
            Bytes::from("data: {\"type\":\"thread.run.event\",\"event\":{\"x\":1}}\n\n")
        );
        assert!(runs.cancel(&user, &thread).is_some());
        assert!(runs.cancel(&user, &thread).is_none(), "asked once");
        assert!(!handle.run.is_live());
        runs.end(&handle, Outcome::Cancelled);
        assert_eq!(
            outbox.next().await.unwrap(),
            Bytes::from("data: {\"type\":\"thread.run.ended\",\"outcome\":\"cancelled\"}\n\n")
        );
        assert!(runs.cancel(&user, &thread).is_none());
        outbox.close();
        runs.unlisten(&user, &thread);
        assert_eq!(runs.open_threads(), 0);
        // Another user's thread of the same id is another slot.
        assert!(matches!(
            runs.listen(&User("v".into()), &thread, &Outbox::new("thr_1")),
            Ok(Joined::Idle)
        ));
    }

    #[tokio::test]
    async fn runs_per_identity_are_capped_and_counted_until_they_end() {
        let clients = Clients::new(crate::clients::Limits {
            runs: 3,
            runs_total: 4,
            ..Default::default()
        });
        let runs = Runs::new(
            Limits {
                runs: 2,
                ..Limits::default()
            },
            clients.clone(),
        );
        let (u, v, w) = (User("u".into()), User("v".into()), User("w".into()));
        let (origin, _rx) = mpsc::channel(1);
        let seat = runs.admit(&u, client()).unwrap();
        let first = runs.start(&u, &ThreadId::from("thr_1"), &origin, &seat);
        drop(seat);
        let seat = runs.admit(&u, client()).unwrap();
        let second = runs.start(&u, &ThreadId::from("thr_2"), &origin, &seat);
        drop(seat);
        let Err(refused) = runs.admit(&u, client()) else {
            panic!("admitted past the cap")
        };
        assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
        assert!(refused.headers().contains_key("retry-after"));
        // Per identity, and per client address: a new identity from the same address gets
        // the client's last seat, then is refused too; another address is not.
        let third = runs.admit(&v, client()).unwrap();
        let Err(refused) = runs.admit(&w, client()) else {
            panic!("admitted past the client's cap")
        };
        assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
        let other = Client::of("127.0.0.3".parse().unwrap());
        let fourth = runs.admit(&w, other).unwrap();
        // And everyone together.
        let Err(refused) = runs.admit(&User("x".into()), Client::of("127.0.0.4".parse().unwrap()))
        else {
            panic!("admitted past the cap for everyone")
        };
        assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
        drop((third, fourth));
        runs.end(&first, Outcome::Done);
        drop(first);
        assert!(runs.admit(&u, client()).is_ok());
        drop(second);
        assert!(lock(&runs.seats).is_empty());
        assert_eq!(clients.holds(Kind::Run, client()), 0);
    }

    #[tokio::test(start_paused = true)]
    async fn a_run_nobody_reads_is_stopped_after_the_bound() {
        let runs = Runs::new(
            Limits {
                abandoned_run: Duration::from_secs(60),
                ..Limits::default()
            },
            Arc::default(),
        );
        let (user, thread) = (User("u".into()), ThreadId::from("thr_1"));
        let (origin, rx) = mpsc::channel(1);
        let seat = runs.admit(&user, client()).unwrap();
        let handle = runs.start(&user, &thread, &origin, &seat);
        tokio::time::sleep(Duration::from_secs(120)).await;
        assert!(handle.run.is_live(), "its client is there");
        drop(rx);
        let outbox = Outbox::new("thr_1");
        runs.listen(&user, &thread, &outbox).unwrap();
        tokio::time::sleep(Duration::from_secs(120)).await;
        assert!(handle.run.is_live(), "a channel is open");
        outbox.close();
        tokio::time::sleep(Duration::from_secs(50)).await;
        assert!(handle.run.is_live());
        tokio::time::sleep(Duration::from_secs(30)).await;
        assert!(!handle.run.is_live(), "stopped");
    }

    #[test]
    fn foreign_deltas_append_to_the_last_part() {
        let mut item = message("msg_1", "I've ");
        let d = |n, s: &str| {
            ItemUpdate::TextDelta(TextDelta {
                content_index: n,
                delta: s.into(),
            })
        };
        apply_update(&mut item, &d(1, "extracted "), true);
        apply_update(&mut item, &d(2, "it"), true);
        apply_update(&mut item, &d(1, "!"), false);
        let ItemKind::AssistantMessage(m) = &item.kind else {
            unreachable!()
        };
        assert_eq!(m.content[0].text, "I've extracted it");
        assert_eq!(m.content[1].text, "!");
        apply_update(
            &mut item,
            &ItemUpdate::ContentPartDone(ContentPartEvent {
                content_index: 0,
                content: AssistantContent::text("done"),
            }),
            false,
        );
        let ItemKind::AssistantMessage(m) = &item.kind else {
            unreachable!()
        };
        assert_eq!(m.content[0].text, "done");
    }
}
