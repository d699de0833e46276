//! The runs of other instances on a shared PostgreSQL database: the channels here follow
//! them from the store's journal, and a Stop asked elsewhere reaches a run of this one.

use super::frames::{ended_frame, event_frame, RUN_STARTED};
use super::registry::Runs;
use super::run::Slot;
use super::{lock, Key};
use crate::shared::Shared;
use crate::store;
use axum::body::Bytes;
use std::sync::{Arc, Mutex};

impl Runs {
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
            let started = Bytes::from_static(RUN_STARTED.as_bytes());
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
}
