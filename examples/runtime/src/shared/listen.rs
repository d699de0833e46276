//! This instance's lease and its listener: the tasks that act on what the other instances
//! say (`NOTIFY`), on the app's channels, runs and waiting permission requests.

use super::{Shared, BATCH, CHANNEL, KEEP_ENDED};
use crate::state::AppState;
use chat_shell_core::protocol::chatkit::ItemId;
use futures_util::StreamExt;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};
use std::time::Duration;
use tokio::sync::watch;

impl Shared {
    /// Starts the lease and the listener; they stop when `shutdown` turns true.
    pub fn start(self: &Arc<Self>, state: Weak<AppState>, shutdown: watch::Receiver<bool>) {
        tokio::spawn(lease(self.clone(), state.clone(), shutdown.clone()));
        tokio::spawn(listen(self.clone(), state, shutdown));
    }
}

/// Renews this instance's lease and ends the runs of instances whose lease ran out.
async fn lease(shared: Arc<Shared>, state: Weak<AppState>, mut shutdown: watch::Receiver<bool>) {
    let every = (shared.lease / 4).max(Duration::from_millis(100));
    loop {
        let me = shared.clone();
        let renewed = tokio::task::spawn_blocking(move || {
            let mut c = me.pg().conn()?;
            c.execute(
                "INSERT INTO instances (id) VALUES ($1)
                 ON CONFLICT (id) DO UPDATE SET heartbeat = now()",
                &[&me.instance],
            )?;
            c.execute(
                &format!(
                    "DELETE FROM runs WHERE outcome IS NOT NULL AND ended_at < now() - interval '{KEEP_ENDED}'"
                ),
                &[],
            )?;
            c.execute(
                "DELETE FROM instances WHERE heartbeat < now() - interval '1 day'",
                &[],
            )?;
            drop(c);
            me.reap()
        })
        .await;
        if let Ok(Err(e)) = renewed {
            eprintln!("chat-shell-runtime: cannot renew the instance's lease: {e}");
        }
        if state.strong_count() == 0 {
            return;
        }
        tokio::select! {
            _ = tokio::time::sleep(every) => {}
            _ = shutdown.wait_for(|s| *s) => return,
        }
    }
}

/// Listens for the other instances' notifications and hands them over, reconnecting
/// (and catching up on what it may have missed) when the connection breaks.
async fn listen(shared: Arc<Shared>, state: Weak<AppState>, mut shutdown: watch::Receiver<bool>) {
    loop {
        match shared.pg().config().connect(tokio_postgres::NoTls).await {
            Ok((client, mut connection)) => {
                let (tx, mut rx) = tokio::sync::mpsc::channel::<String>(4 * BATCH);
                let driver = tokio::spawn(async move {
                    let mut messages =
                        futures_util::stream::poll_fn(move |cx| connection.poll_message(cx));
                    while let Some(Ok(message)) = messages.next().await {
                        if let tokio_postgres::AsyncMessage::Notification(n) = message {
                            if tx.send(n.payload().to_owned()).await.is_err() {
                                return;
                            }
                        }
                    }
                });
                if client
                    .batch_execute(&format!("LISTEN {CHANNEL}"))
                    .await
                    .is_ok()
                {
                    shared.listening.store(true, Ordering::Relaxed);
                    // Whatever was said while not listening is read now.
                    if let Some(state) = state.upgrade() {
                        let _ = tokio::task::spawn_blocking(move || resync(&state)).await;
                    }
                    loop {
                        let first = tokio::select! {
                            first = rx.recv() => first,
                            _ = shutdown.wait_for(|s| *s) => None,
                        };
                        let Some(first) = first else { break };
                        let mut batch = vec![first];
                        while batch.len() < BATCH {
                            match rx.try_recv() {
                                Ok(next) => batch.push(next),
                                Err(_) => break,
                            }
                        }
                        let Some(state) = state.upgrade() else { return };
                        let me = shared.clone();
                        let _ =
                            tokio::task::spawn_blocking(move || handle(&me, &state, batch)).await;
                    }
                    shared.listening.store(false, Ordering::Relaxed);
                }
                driver.abort();
            }
            Err(e) => eprintln!("chat-shell-runtime: cannot listen to the database: {e}"),
        }
        if *shutdown.borrow() {
            return;
        }
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_secs(1)) => {}
            _ = shutdown.wait_for(|s| *s) => return,
        }
    }
}

/// A notification's parts.
struct Said<'a> {
    kind: &'a str,
    instance: &'a str,
    thread: &'a str,
    id: &'a str,
}

fn parse(payload: &str) -> Option<Said<'_>> {
    let mut parts = payload.split(' ');
    let said = Said {
        kind: parts.next()?,
        instance: parts.next()?,
        thread: parts.next()?,
        id: parts.next()?,
    };
    parts.next().is_none().then_some(said)
}

/// Acts on a batch of notifications, each distinct one once, in order (blocking).
fn handle(shared: &Shared, state: &AppState, batch: Vec<String>) {
    let mut seen = std::collections::HashSet::new();
    for payload in &batch {
        if !seen.insert(payload.as_str()) {
            continue;
        }
        let Some(said) = parse(payload) else {
            continue;
        };
        let mine = said.instance == shared.instance;
        let done = match said.kind {
            "v" if !mine => crate::channel::catch_up(state, said.thread),
            "r" if !mine => state.runs.follow(shared, said.thread, said.id),
            "c" if !mine => shared.stop_asked(said.thread, said.id).map(|asked| {
                if asked {
                    state.runs.cancel_shared(said.thread, said.id);
                }
            }),
            "p" if !mine => state.permission_decided(said.thread, &ItemId::from(said.id)),
            _ => Ok(()),
        };
        if let Err(e) = done {
            eprintln!("chat-shell-runtime: cannot follow another instance: {e}");
        }
    }
}

/// Catches up every channel of this instance after the listener (re)connected.
fn resync(state: &AppState) {
    let Some(shared) = &state.shared else { return };
    for thread in state.channels.threads() {
        if let Err(e) = crate::channel::catch_up(state, &thread) {
            eprintln!("chat-shell-runtime: cannot catch up a channel: {e}");
        }
    }
    for (thread, run) in state.runs.followed(shared) {
        if let Err(e) = state.runs.follow(shared, &thread, &run) {
            eprintln!("chat-shell-runtime: cannot catch up a run: {e}");
        }
    }
}
