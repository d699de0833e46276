//! The hub of the threads' runs: one slot per (user, thread) with its run under way and
//! its open channels, so that a channel opening mid-run gets the snapshot and every later
//! event under the slot's lock.

use super::abandoned::stop_when_abandoned;
use super::frames::{ended_frame, RUN_STARTED};
use super::run::{Run, RunHandle, Slot};
use super::seats::Seat;
use super::{lock, Key, Limits, Outcome};
use crate::auth::User;
use crate::channel::outbox::Outbox;
use crate::clients::{Client, Clients};
use crate::shared::Shared;
use crate::sse::Frame;
use crate::store;
use axum::body::Bytes;
use axum::response::Response;
use chat_shell_core::protocol::chatkit::{StreamEvent, ThreadId};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc;

/// The threads with a run under way or a channel open.
#[derive(Default)]
pub struct Runs {
    pub(super) slots: Mutex<HashMap<Key, Arc<Mutex<Slot>>>>,
    /// Runs under way (and streamed requests admitted), by user.
    pub(super) seats: Arc<Mutex<HashMap<String, usize>>>,
    pub(super) limits: Limits,
    /// What each client address may have under way, and everyone together.
    pub(super) clients: Arc<Clients>,
    /// The database shared with other instances, if any.
    pub(super) shared: Option<Arc<Shared>>,
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
        Seat::take(&self.seats, &self.clients, self.limits.runs, user, client)
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
                let started = Bytes::from_static(RUN_STARTED.as_bytes());
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
    pub(super) fn open_threads(&self) -> usize {
        lock(&self.slots).len()
    }
}
