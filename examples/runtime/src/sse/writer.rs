//! The writer: one run's task, sending its steps to the store (`saver`), the thread's
//! channels and the response that started it, and waiting for permission answers.

use super::saver::Saver;
use super::{Frame, KEEPALIVE};
use crate::agent;
use crate::auth::User;
use crate::runs::{Outcome, Run, RunHandle, Seat};
use crate::scripts::{Script, Step};
use crate::state::{AppState, Waiter};
use axum::body::{Body, Bytes};
use chat_shell_core::protocol::chatkit::{
    ItemId, ItemUpdate, StreamEvent, Thread, ThreadId, ThreadItem,
};
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Weak};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot, watch};
use tokio::time::Instant as TokioInstant;

/// A streamed answer, ready to be written.
pub(crate) struct Prepared {
    pub(crate) thread: Thread,
    pub(crate) steps: Vec<Step>,
    /// Items streamed earlier whose updates this answer sends: saved as they change.
    pub(crate) tracked: Vec<ThreadItem>,
}

/// Starts `p` as a run (see `runs`) on its own task; the returned body yields the frames
/// of the response that started it. When its client goes away hyper drops the body, which
/// closes the channel: that is how the run learns its client left.
pub(crate) fn spawn_writer(
    state: Arc<AppState>,
    user: User,
    kind: &'static str,
    p: Prepared,
    seat: &Seat,
) -> Body {
    let (tx, rx) = mpsc::channel::<Frame>(16);
    // Registered before the response goes out: a cancel sent right after it finds the run.
    let run = state.runs.start(&user, &p.thread.id, &tx, seat);
    tokio::spawn(write_stream(state, user, kind, p, run, tx));
    Body::from_stream(futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|frame| (frame, rx))
    }))
}

/// Why a run stopped before the end of its steps.
enum Stop {
    Cancelled,
    Shutdown,
    /// `Step::Drop`: the response that started it failed on purpose.
    Dropped,
}

/// What a wait of a run woke up for.
enum Woke<T> {
    Ready(T),
    Tick,
    Left,
    Shutdown,
}

/// One run's task: its steps go to the store, the thread's channels and the response that
/// started it (the origin), while its client reads it.
struct Writer {
    kind: &'static str,
    thread: ThreadId,
    saver: Saver,
    origin: Option<mpsc::Sender<Frame>>,
    last_write: TokioInstant,
    /// Events the origin was sent.
    sent: usize,
    /// The origin's client left (a reload, a closed tab, an old client's Stop).
    left: bool,
    cancel: watch::Receiver<bool>,
    shutdown: watch::Receiver<bool>,
}

impl Writer {
    /// Waits until `deadline` or until `until` is ready, with keepalive comments on the
    /// origin if `keepalive`; `Ok(None)` at the deadline, `Err` when the run must stop.
    async fn wait<F: std::future::Future>(
        &mut self,
        deadline: TokioInstant,
        keepalive: bool,
        until: F,
    ) -> Result<Option<F::Output>, Stop> {
        tokio::pin!(until);
        loop {
            if *self.cancel.borrow() {
                return Err(Stop::Cancelled);
            }
            if *self.shutdown.borrow() {
                return Err(Stop::Shutdown);
            }
            if TokioInstant::now() >= deadline {
                return Ok(None);
            }
            let keepalive = keepalive && self.origin.is_some();
            let wake = if keepalive {
                deadline.min(self.last_write + KEEPALIVE)
            } else {
                deadline
            };
            let woke = tokio::select! {
                out = &mut until => Woke::Ready(out),
                _ = tokio::time::sleep_until(wake) => Woke::Tick,
                _ = closed(&self.origin) => Woke::Left,
                _ = self.cancel.changed() => Woke::Tick,
                changed = self.shutdown.changed() => {
                    if changed.is_err() { Woke::Shutdown } else { Woke::Tick }
                }
            };
            match woke {
                Woke::Ready(out) => return Ok(Some(out)),
                Woke::Tick => {
                    if keepalive && TokioInstant::now() >= self.last_write + KEEPALIVE {
                        self.send(Bytes::from_static(b": keepalive\n\n")).await;
                    }
                }
                Woke::Left => self.origin_left().await,
                Woke::Shutdown => return Err(Stop::Shutdown),
            }
        }
    }

    /// Sends `frame` to the origin, if its client is still there; `true` if it was sent.
    async fn send(&mut self, frame: Bytes) -> bool {
        let Some(tx) = &self.origin else {
            return false;
        };
        // A client that stops reading must not hold up a cancel; one that reads gets every
        // event published (stored) before the cancel.
        let sent = tokio::select! {
            biased;
            sent = tx.send(Ok(frame)) => sent.is_ok(),
            _ = self.cancel.wait_for(|c| *c) => return false,
        };
        if sent {
            self.last_write = TokioInstant::now();
        } else {
            self.origin_left().await;
        }
        sent
    }

    async fn origin_left(&mut self) {
        self.origin = None;
        self.left = true;
        if self.saver.run.attached() {
            // A reload hydrates from the store: what was sent so far is saved now (and
            // before the log says so).
            self.saver.flush().await;
            println!(
                "stream closed by client: {} thread={} after {} events (the run goes on)",
                self.kind, self.thread, self.sent
            );
        } else {
            // A run tied to its request stops with it.
            self.saver.run.run.request_cancel();
        }
    }

    /// `Step::Drop`: the origin's body fails after the frames sent so far.
    async fn drop_origin(&mut self) {
        let Some(tx) = self.origin.take() else {
            return;
        };
        // hyper discards what it has not written yet when the body fails: let it take
        // every frame sent so far, and write them, before breaking.
        while tx.capacity() < tx.max_capacity() && !tx.is_closed() {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        // An error ends the body without its final chunk: the client sees the connection
        // break mid-answer.
        let _ = tx
            .send(Err(std::io::Error::other("connection dropped on purpose")))
            .await;
    }
}

async fn closed(origin: &Option<mpsc::Sender<Frame>>) {
    match origin {
        Some(tx) => tx.closed().await,
        None => std::future::pending().await,
    }
}

async fn write_stream(
    state: Arc<AppState>,
    user: User,
    kind: &'static str,
    p: Prepared,
    run: RunHandle,
    tx: mpsc::Sender<Frame>,
) {
    let Prepared {
        thread,
        steps,
        tracked,
    } = p;
    for item in tracked {
        run.track(item);
    }
    // Permission requests this run sent, waiting for their answer.
    let mut waits = Registrations {
        state: state.clone(),
        user: user.clone(),
        run: Arc::downgrade(&run.run),
        receivers: HashMap::new(),
    };
    let mut w = Writer {
        kind,
        thread: thread.id.clone(),
        cancel: run.run.cancel_requested(),
        saver: Saver::new(state.store.clone(), user.clone(), thread.id.clone(), run),
        origin: Some(tx),
        last_write: TokioInstant::now(),
        sent: 0,
        left: false,
        shutdown: state.shutdown.clone(),
    };
    let mut failed = false;
    let mut steps: VecDeque<Step> = steps.into();
    let stopped = loop {
        let Some(step) = steps.pop_front() else {
            break None;
        };
        let (delay, keepalive) = match &step {
            Step::Emit { delay, .. } | Step::Drop { delay } => (*delay, true),
            Step::Stall(d) => (*d, false),
            Step::AwaitPermission { .. } => (Duration::ZERO, true),
            Step::Tool { delay, .. } => (*delay, true),
        };
        let deadline = TokioInstant::now() + delay;
        if let Err(stop) = w
            .wait(deadline, keepalive, std::future::pending::<()>())
            .await
        {
            break Some(stop);
        }
        match step {
            Step::Emit { mut event, .. } => {
                // Saved before it is sent: whatever a client saw is in the store. A new
                // item learns its branches there.
                w.saver.save_item_of(&mut event).await;
                let json = match serde_json::to_string(&event) {
                    Ok(json) => json,
                    Err(e) => {
                        eprintln!("chat-shell-runtime: cannot serialize an event: {e}");
                        continue;
                    }
                };
                failed |= matches!(event, StreamEvent::Error(_));
                if let StreamEvent::ItemUpdated(u) = &event {
                    if matches!(u.update, ItemUpdate::AcpPermissionRequested(_)) {
                        // Listening before any client can see the request, so no answer
                        // can come before.
                        waits.register(&u.item_id);
                    }
                }
                w.saver.apply(&event, &json).await;
                if w.send(Bytes::from(format!("data: {json}\n\n"))).await {
                    w.sent += 1;
                }
            }
            Step::Drop { .. } => {
                w.saver.flush().await;
                w.drop_origin().await;
                break Some(Stop::Dropped);
            }
            Step::Stall(_) => {}
            Step::Tool { op, .. } => crate::sandbox::run(&state.scratch(), &thread.id, &op).await,
            Step::AwaitPermission { item_id, timeout } => {
                // Nothing unsaved: the answer's handler writes this item meanwhile.
                w.saver.flush().await;
                let Some(decided) = waits.receivers.remove(&item_id) else {
                    continue;
                };
                let waited = w.wait(TokioInstant::now() + timeout, true, decided).await;
                waits.forget(&item_id);
                match waited {
                    Ok(Some(Ok(item))) => {
                        let mut s = Script::new(&state.store, state.pace, thread.clone());
                        agent::permission_decided(&mut s, &item);
                        for step in s.into_steps().into_iter().rev() {
                            steps.push_front(step);
                        }
                    }
                    // Not in time (or the registration is gone: nobody can answer here).
                    Ok(None) | Ok(Some(Err(_))) => {
                        println!(
                            "permission not answered in time: thread={} item={item_id}",
                            thread.id
                        );
                    }
                    Err(stop) => break Some(stop),
                }
            }
        }
    };
    let outcome = match stopped {
        None => {
            w.saver.flush().await;
            if failed {
                Outcome::Failed
            } else {
                Outcome::Done
            }
        }
        Some(Stop::Cancelled) => {
            w.saver.cancelled().await;
            // Stop sends `threads.cancel_run` and drops its stream: whichever the runtime
            // hears first, an explicit cancel is what stopped a run that outlives its
            // request (a tied run is cancelled by the runtime when its client leaves).
            let asked = w.saver.run.attached() && *w.saver.run.run.cancel_requested().borrow();
            if w.left && !asked {
                println!(
                    "stream closed by client: {kind} thread={} after {} events",
                    thread.id, w.sent
                );
            } else {
                println!(
                    "run cancelled: {kind} thread={} after {} events",
                    thread.id, w.sent
                );
            }
            Outcome::Cancelled
        }
        Some(Stop::Shutdown) => {
            w.saver.flush().await;
            Outcome::Failed
        }
        Some(Stop::Dropped) => Outcome::Failed,
    };
    drop(waits);
    let cancelled = outcome == Outcome::Cancelled;
    state.runs.end(&w.saver.run, outcome);
    if cancelled && w.origin.is_some() {
        // Stopped from elsewhere: a ChatKit stream has no word for it and just ends, so
        // the page that started it hears it from its channel first (`thread.run.ended`),
        // and shows the answer stopped rather than finished.
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    w.origin = None;
}

/// The permission requests one run waits for; whatever is left is unregistered when the
/// run ends.
struct Registrations {
    state: Arc<AppState>,
    user: User,
    run: Weak<Run>,
    receivers: HashMap<ItemId, oneshot::Receiver<Box<ThreadItem>>>,
}

impl Registrations {
    fn register(&mut self, item_id: &ItemId) {
        let (decided, receiver) = oneshot::channel();
        let waiter = Waiter {
            decided,
            run: self.run.clone(),
        };
        self.state
            .waits()
            .insert((self.user.0.clone(), item_id.clone()), waiter);
        self.receivers.insert(item_id.clone(), receiver);
        if let Some(run) = self.run.upgrade() {
            run.waiting(Some(item_id));
        }
    }

    fn forget(&self, item_id: &ItemId) {
        self.state
            .waits()
            .remove(&(self.user.0.clone(), item_id.clone()));
        if let Some(run) = self.run.upgrade() {
            run.waiting(None);
        }
    }
}

impl Drop for Registrations {
    fn drop(&mut self) {
        let mut waits = self.state.waits();
        for item_id in self.receivers.keys() {
            waits.remove(&(self.user.0.clone(), item_id.clone()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runs;
    use crate::store::Store;

    /// A run's waits keep its origin alive, go on when its client leaves, and end at once
    /// on a cancel.
    #[tokio::test(start_paused = true)]
    async fn a_run_outlives_its_client_until_it_is_cancelled() {
        let store = Arc::new(Store::open_in_memory().unwrap());
        let hub = runs::Runs::default();
        let (user, thread) = (User("u".into()), ThreadId::from("thr_1"));
        let (tx, mut rx) = mpsc::channel::<Frame>(16);
        let seat = hub
            .admit(&user, crate::clients::Client::of([127, 0, 0, 2].into()))
            .unwrap();
        let handle = hub.start(&user, &thread, &tx, &seat);
        let run = handle.run.clone();
        let (_stop_tx, shutdown) = watch::channel(false);
        let mut w = Writer {
            kind: "threads.create",
            thread: thread.clone(),
            cancel: run.cancel_requested(),
            saver: Saver::new(store, user, thread, handle),
            origin: Some(tx),
            last_write: TokioInstant::now(),
            sent: 0,
            left: false,
            shutdown,
        };
        let later = |s| TokioInstant::now() + Duration::from_secs(s);
        let waited = w.wait(later(25), true, std::future::pending::<()>()).await;
        assert!(matches!(waited, Ok(None)));
        let mut keepalives = 0;
        while let Ok(Ok(frame)) = rx.try_recv() {
            assert_eq!(frame, Bytes::from_static(b": keepalive\n\n"));
            keepalives += 1;
        }
        assert_eq!(keepalives, 2);
        // A stall says nothing.
        assert!(matches!(
            w.wait(later(30), false, std::future::pending::<()>()).await,
            Ok(None)
        ));
        assert!(rx.try_recv().is_err());

        drop(rx);
        let started = TokioInstant::now();
        let waited = w.wait(later(30), true, std::future::pending::<()>()).await;
        assert!(matches!(waited, Ok(None)), "the wait goes on");
        assert!(started.elapsed() >= Duration::from_secs(30));
        assert!(w.left && w.origin.is_none() && run.is_live());

        let cancel = run.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_secs(1)).await;
            cancel.request_cancel();
        });
        let started = TokioInstant::now();
        let waited = w.wait(later(120), true, std::future::pending::<()>()).await;
        assert!(matches!(waited, Err(Stop::Cancelled)));
        assert!(started.elapsed() < Duration::from_secs(2));
        assert!(!run.is_live());
    }
}
