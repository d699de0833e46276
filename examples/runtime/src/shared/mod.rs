//! One conversation across instances: runs and views shared through PostgreSQL.
//!
//! With `--database postgres://…` every instance writes what its runs emit to the store as
//! it happens (a [`Journal`] per run: the `runs` row, then its events in `run_events`, in
//! order, batched) and says so with `NOTIFY chat_shell`, carrying ids only:
//! `KIND INSTANCE THREAD ID`, where KIND is `v` (the thread's views changed), `r` (run ID
//! started, emitted events or ended), `c` (Stop asked for run ID) or `p` (the permission
//! request of item ID was answered). Each instance `LISTEN`s on its own connection and
//! reads the rows named from the store: the channels it serves follow a run of another
//! instance (`runs::Runs::follow`) and its views (`channel`), Stop reaches the run where it
//! runs, and a permission answer continues the run that asked.
//!
//! Each instance renews a lease (`instances.heartbeat`, every `lease / 4`) and ends as
//! `interrupted` the runs of instances whose lease ran out, saving the items their events
//! had built (nothing a reader saw is lost). Times are the database's, so the instances'
//! clocks do not matter.
//!
//! Bounded: a run's journal queues at most [`JOURNAL_MAX_EVENTS`] events (the run is
//! stopped past it: the database cannot keep up); the listener hands notifications to
//! their handler through a bounded queue (the server keeps the rest); ended runs' rows go
//! after [`KEEP_ENDED`].
//!
//! The lease and the listener, which act on the app's runs and channels, are in `listen`.

mod listen;

use crate::runs::{self, Outcome};
use crate::store::{self, pg::Pg, Store};
use chat_shell_core::protocol::chatkit::{ItemId, StreamEvent, ThreadId};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::Notify;

/// The notification channel every instance listens on.
const CHANNEL: &str = "chat_shell";
/// Events one run may have waiting for the database.
pub const JOURNAL_MAX_EVENTS: usize = 10_000;
/// Rows of ended runs (and their events) are kept this long for readers still catching up.
const KEEP_ENDED: &str = "10 minutes";
/// Notifications taken at once: repeated ones (a run's burst of events) are read once.
const BATCH: usize = 256;
/// Events read from the store per query when a channel catches up with a run.
pub const EVENTS_PAGE: i64 = 256;
/// The default `--lease-secs`.
pub const DEFAULT_LEASE_SECS: u64 = 10;

/// This instance's part in the shared database.
pub struct Shared {
    store: Arc<Store>,
    /// A random id, new at each start.
    pub instance: String,
    lease: Duration,
    /// The listener is connected (readiness).
    listening: AtomicBool,
    /// Journals still writing (shutdown waits for them).
    journals: AtomicUsize,
    journals_done: Notify,
}

impl Shared {
    /// `None` unless the store is PostgreSQL.
    pub fn new(store: &Arc<Store>, lease: Duration) -> Option<Arc<Shared>> {
        store.pg()?;
        Some(Arc::new(Shared {
            store: store.clone(),
            instance: store::new_id("ins"),
            lease,
            listening: AtomicBool::new(false),
            journals: AtomicUsize::new(0),
            journals_done: Notify::new(),
        }))
    }

    pub fn pg(&self) -> &Pg {
        // `new` made sure.
        self.store.pg().expect("a shared store is PostgreSQL")
    }

    pub fn listening(&self) -> bool {
        self.listening.load(Ordering::Relaxed)
    }

    /// Tells every instance (this one too) about `kind` on `thread` (blocking).
    pub fn notify(&self, kind: char, thread: &str, id: &str) -> store::Result<()> {
        self.notify_as(kind, &self.instance, thread, id)
    }

    /// [`Shared::notify`] in the name of `instance` (a run's, ended by another).
    fn notify_as(&self, kind: char, instance: &str, thread: &str, id: &str) -> store::Result<()> {
        let payload = format!("{kind} {instance} {thread} {id}");
        self.pg()
            .conn()?
            .execute("SELECT pg_notify($1, $2)", &[&CHANNEL, &payload])?;
        Ok(())
    }

    /// On the way out, once the runs have ended: waits (at most `wait`) for their journals,
    /// ends what is left as interrupted and gives up the lease.
    pub async fn leave(self: &Arc<Self>, wait: Duration) {
        let drained = async {
            loop {
                let notified = self.journals_done.notified();
                if self.journals.load(Ordering::SeqCst) == 0 {
                    return;
                }
                notified.await;
            }
        };
        let _ = tokio::time::timeout(wait, drained).await;
        let me = self.clone();
        let left = tokio::task::spawn_blocking(move || {
            let rows = me.pg().conn()?.query(
                "UPDATE runs SET outcome = 'interrupted', ended_at = now()
                 WHERE instance = $1 AND outcome IS NULL RETURNING id, thread_id, owner, instance",
                &[&me.instance],
            )?;
            for row in &rows {
                me.recover(row)?;
            }
            me.pg()
                .conn()?
                .execute("DELETE FROM instances WHERE id = $1", &[&me.instance])?;
            Ok::<_, store::Error>(())
        })
        .await;
        if let Ok(Err(e)) = left {
            eprintln!("chat-shell-runtime: cannot leave the shared database cleanly: {e}");
        }
    }

    /// Saves the items that the events of a run (interrupted: `row` is its id, thread,
    /// owner and instance) had built, and tells the readers it ended.
    fn recover(&self, row: &postgres::Row) -> store::Result<()> {
        let (run, thread, owner, instance): (String, String, String, String) =
            (row.get(0), row.get(1), row.get(2), row.get(3));
        let mut c = self.pg().conn()?;
        let mut after = 0;
        let mut items = runs::Folder::default();
        loop {
            let rows = c.query(
                "SELECT seq, json FROM run_events WHERE run_id = $1 AND seq > $2
                 ORDER BY seq LIMIT $3",
                &[&run, &after, &EVENTS_PAGE],
            )?;
            for row in &rows {
                after = row.get(0);
                if let Ok(event) = serde_json::from_str::<StreamEvent>(row.get(1)) {
                    items.fold(&event);
                }
            }
            if (rows.len() as i64) < EVENTS_PAGE {
                break;
            }
        }
        drop(c);
        let db = self.store.user(&owner);
        for item in items.into_items() {
            db.save_item(&item)?;
        }
        println!("run interrupted: thread={thread} (its instance stopped answering)");
        // In the run's instance's name: every other instance (this one too) follows it.
        self.notify_as('r', &instance, &thread, &run)
    }

    /// Ends as interrupted the runs of instances whose lease ran out (blocking).
    fn reap(&self) -> store::Result<()> {
        let lease = self.lease.as_secs_f64();
        let rows = self.pg().conn()?.query(
            "UPDATE runs SET outcome = 'interrupted', ended_at = now()
             WHERE outcome IS NULL AND NOT EXISTS (
                 SELECT 1 FROM instances i WHERE i.id = runs.instance
                 AND i.heartbeat > now() - make_interval(secs => $1))
             RETURNING id, thread_id, owner, instance",
            &[&lease],
        )?;
        for row in &rows {
            self.recover(row)?;
        }
        Ok(())
    }

    /// Asks the run of `owner`'s `thread` under way on another instance to stop; waits (at
    /// most `wait`) for it to end. `false`: no such run.
    pub async fn cancel(self: &Arc<Self>, owner: &str, thread: &ThreadId, wait: Duration) -> bool {
        let me = self.clone();
        let (owner, thread) = (owner.to_owned(), thread.to_string());
        let asked = tokio::task::spawn_blocking(move || {
            let row = me.pg().conn()?.query_opt(
                "UPDATE runs SET cancel_requested = true
                 WHERE thread_id = $1 AND owner = $2 AND outcome IS NULL AND instance <> $3
                 RETURNING id",
                &[&thread, &owner, &me.instance],
            )?;
            let Some(row) = row else {
                return Ok(None);
            };
            let run: String = row.get(0);
            me.notify('c', &thread, &run)?;
            Ok::<_, store::Error>(Some(run))
        })
        .await;
        let run = match asked {
            Ok(Ok(Some(run))) => run,
            Ok(Ok(None)) => return false,
            Ok(Err(e)) => {
                eprintln!("chat-shell-runtime: cannot ask a run to stop: {e}");
                return false;
            }
            Err(_) => return false,
        };
        // Answered once the run has stopped and saved, as on one instance.
        let deadline = tokio::time::Instant::now() + wait;
        while tokio::time::Instant::now() < deadline {
            if self.outcome(&run).await.is_some() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        true
    }

    async fn outcome(self: &Arc<Self>, run: &str) -> Option<String> {
        let (me, run) = (self.clone(), run.to_owned());
        tokio::task::spawn_blocking(move || {
            me.pg()
                .conn()
                .ok()?
                .query_opt("SELECT outcome FROM runs WHERE id = $1", &[&run])
                .ok()?
                .and_then(|r| r.get::<_, Option<String>>(0))
        })
        .await
        .ok()
        .flatten()
    }

    /// Whether `run` of `thread`, under way on this instance, has Stop asked in its row
    /// (blocking). A notification alone is not trusted: anyone who can reach the database
    /// can send one.
    fn stop_asked(&self, thread: &str, run: &str) -> store::Result<bool> {
        let row = self.pg().conn()?.query_opt(
            "SELECT 1 FROM runs WHERE id = $1 AND thread_id = $2 AND instance = $3
             AND cancel_requested AND outcome IS NULL",
            &[&run, &thread, &self.instance],
        )?;
        Ok(row.is_some())
    }

    /// Whether a run of another instance is waiting for the answer to `item`'s permission
    /// request; if so it is told (blocking).
    pub fn hand_permission(&self, owner: &str, thread: &ThreadId, item: &ItemId) -> bool {
        let found = self.pg().conn().and_then(|mut c| {
            Ok(c.query_opt(
                "SELECT id FROM runs WHERE thread_id = $1 AND owner = $2 AND outcome IS NULL
                 AND NOT cancel_requested AND waiting_item = $3 AND instance <> $4",
                &[&thread.as_str(), &owner, &item.as_str(), &self.instance],
            )?)
        });
        match found {
            Ok(Some(_)) => match self.notify('p', thread.as_str(), item.as_str()) {
                Ok(()) => true,
                Err(e) => {
                    eprintln!("chat-shell-runtime: cannot pass on a permission answer: {e}");
                    false
                }
            },
            Ok(None) => false,
            Err(e) => {
                eprintln!("chat-shell-runtime: cannot look for the asking run: {e}");
                false
            }
        }
    }

    /// Starts the journal of a run of `owner` on `thread`.
    pub fn journal(self: &Arc<Self>, owner: &str, thread: &ThreadId) -> Arc<Journal> {
        let journal = Arc::new(Journal {
            run: store::new_id("run"),
            thread: thread.to_string(),
            owner: owner.to_owned(),
            queue: Mutex::default(),
            wake: Notify::new(),
        });
        self.journals.fetch_add(1, Ordering::SeqCst);
        tokio::spawn(write_journal(self.clone(), journal.clone()));
        journal
    }
}

/// What a run's journal has to write, in order.
enum Entry {
    Event(String),
    /// The permission request the run waits for (`None`: no more).
    Waiting(Option<String>),
    End(Outcome),
}

/// One run as the store keeps it for the other instances.
pub struct Journal {
    pub run: String,
    thread: String,
    owner: String,
    queue: Mutex<Queue>,
    wake: Notify,
}

#[derive(Default)]
struct Queue {
    entries: VecDeque<Entry>,
    events: usize,
    /// The queue overflowed: later events are dropped, the run is being stopped.
    overflowed: bool,
}

impl Journal {
    fn lock(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Queues one event (its JSON); `false` if the queue is full (the run must stop).
    pub fn event(&self, json: &str) -> bool {
        let mut q = self.lock();
        if q.overflowed {
            return false;
        }
        if q.events >= JOURNAL_MAX_EVENTS {
            q.overflowed = true;
            eprintln!(
                "chat-shell-runtime: the database is {JOURNAL_MAX_EVENTS} events behind run {}: \
                 it is stopped",
                self.run
            );
            return false;
        }
        q.events += 1;
        q.entries.push_back(Entry::Event(json.to_owned()));
        drop(q);
        self.wake.notify_one();
        true
    }

    pub fn waiting(&self, item: Option<&ItemId>) {
        self.push(Entry::Waiting(item.map(|i| i.to_string())));
    }

    pub fn end(&self, outcome: Outcome) {
        self.push(Entry::End(outcome));
    }

    fn push(&self, entry: Entry) {
        self.lock().entries.push_back(entry);
        self.wake.notify_one();
    }
}

/// The journal's task: the run's row, then its entries as they come, a batch per
/// round trip, each batch announced; ends with the run.
async fn write_journal(shared: Arc<Shared>, journal: Arc<Journal>) {
    let opened = {
        let (shared, journal) = (shared.clone(), journal.clone());
        tokio::task::spawn_blocking(move || open_run(&shared, &journal)).await
    };
    let open = match opened {
        Ok(Ok(open)) => open,
        Ok(Err(e)) => {
            eprintln!("chat-shell-runtime: cannot share a run: {e}");
            false
        }
        Err(_) => false,
    };
    if !open {
        println!(
            "run not shared: thread={} has a run on another instance",
            journal.thread
        );
    }
    let mut seq = 0i32;
    loop {
        let batch: Vec<Entry> = loop {
            let notified = journal.wake.notified();
            {
                let mut q = journal.lock();
                if !q.entries.is_empty() {
                    q.events = 0;
                    break q.entries.drain(..).collect();
                }
            }
            notified.await;
        };
        let ended = batch.iter().any(|e| matches!(e, Entry::End(_)));
        if open {
            let (s, j) = (shared.clone(), journal.clone());
            let first = seq;
            seq += batch
                .iter()
                .filter(|e| matches!(e, Entry::Event(_)))
                .count() as i32;
            let written =
                tokio::task::spawn_blocking(move || write_batch(&s, &j, first, batch)).await;
            if let Ok(Err(e)) = written {
                eprintln!("chat-shell-runtime: cannot write a run's events: {e}");
            }
        }
        if ended {
            break;
        }
    }
    if shared.journals.fetch_sub(1, Ordering::SeqCst) == 1 {
        shared.journals_done.notify_waiters();
    }
}

/// Inserts the run's row; `false` if the thread has a live run elsewhere (then this one is
/// not shared). A run left by an instance whose lease ran out is ended first.
fn open_run(shared: &Shared, journal: &Journal) -> store::Result<bool> {
    let lease = shared.lease.as_secs_f64();
    let mut c = shared.pg().conn()?;
    let mut tx = c.transaction()?;
    let stale = tx.query(
        "UPDATE runs SET outcome = 'interrupted', ended_at = now()
         WHERE thread_id = $1 AND outcome IS NULL AND NOT EXISTS (
             SELECT 1 FROM instances i WHERE i.id = runs.instance
             AND i.heartbeat > now() - make_interval(secs => $2))
         RETURNING id, thread_id, owner, instance",
        &[&journal.thread, &lease],
    )?;
    let inserted = tx.execute(
        "INSERT INTO runs (id, thread_id, owner, instance) VALUES ($1, $2, $3, $4)
         ON CONFLICT DO NOTHING",
        &[
            &journal.run,
            &journal.thread,
            &journal.owner,
            &shared.instance,
        ],
    )?;
    tx.commit()?;
    drop(c);
    for row in &stale {
        shared.recover(row)?;
    }
    if inserted == 1 {
        shared.notify('r', &journal.thread, &journal.run)?;
    }
    Ok(inserted == 1)
}

fn write_batch(
    shared: &Shared,
    journal: &Journal,
    first: i32,
    batch: Vec<Entry>,
) -> store::Result<()> {
    let mut seqs = Vec::new();
    let mut events = Vec::new();
    let mut waiting = None;
    let mut outcome = None;
    for entry in batch {
        match entry {
            Entry::Event(json) => {
                seqs.push(first + seqs.len() as i32 + 1);
                events.push(json);
            }
            Entry::Waiting(item) => waiting = Some(item),
            Entry::End(o) => outcome = Some(o),
        }
    }
    let mut c = shared.pg().conn()?;
    let mut tx = c.transaction()?;
    if !events.is_empty() {
        tx.execute(
            "INSERT INTO run_events (run_id, seq, json)
             SELECT $1, s, j FROM UNNEST($2::INTEGER[], $3::TEXT[]) AS e (s, j)",
            &[&journal.run, &seqs, &events],
        )?;
    }
    if let Some(item) = waiting {
        tx.execute(
            "UPDATE runs SET waiting_item = $2 WHERE id = $1",
            &[&journal.run, &item],
        )?;
    }
    if let Some(outcome) = outcome {
        // A run already ended as interrupted (its lease ran out meanwhile) keeps that.
        tx.execute(
            "UPDATE runs SET outcome = $2, ended_at = now(), waiting_item = NULL
             WHERE id = $1 AND outcome IS NULL",
            &[&journal.run, &outcome.as_str()],
        )?;
    }
    // Delivered at commit: whoever reads finds the rows.
    let payload = format!("r {} {} {}", shared.instance, journal.thread, journal.run);
    tx.execute("SELECT pg_notify($1, $2)", &[&CHANNEL, &payload])?;
    tx.commit()?;
    Ok(())
}
