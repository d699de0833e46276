//! The live runs of `/agent-ui` ([`LiveRuns`], held by the app state), by run id: where
//! the turns queued on a run or steering it go, and who may send them.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard};
use tokio::sync::mpsc;

/// Turns a live run holds queued; one more is refused (409), or a client could grow the
/// queue, and every `queue.changed` listing it, without end.
pub(super) const MAX_QUEUED: usize = 20;

/// Whether a turn waits for the run to finish or changes its course now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum TurnKind {
    Queue,
    Steer,
}

impl TurnKind {
    pub(super) fn as_str(self) -> &'static str {
        match self {
            TurnKind::Queue => "queue",
            TurnKind::Steer => "steer",
        }
    }
}

/// A user turn sent to a live run.
#[derive(Debug)]
pub(super) struct Turn {
    pub(super) id: String,
    pub(super) text: String,
}

/// What the task writing a live stream is told.
#[derive(Debug)]
pub(super) enum Command {
    Queue(Turn),
    Steer(Turn),
}

/// A registered live run: where its commands go.
pub(super) struct Entry {
    /// The identity that started it: only it may queue or steer (anyone else is told it is
    /// not active, as for a run that does not exist).
    pub(super) owner: String,
    pub(super) commands: mpsc::UnboundedSender<Command>,
    /// Turns queued on it so far (counted here so a full queue is refused before 202).
    pub(super) queued: usize,
}

/// Why a turn was not accepted.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Refused {
    NotActive,
    QueueFull,
}

/// The live runs of this runtime, by run id. A run is here from before its `run.started`
/// goes out until it has nothing left to stream, or its client leaves.
#[derive(Default)]
pub(crate) struct LiveRuns {
    pub(super) runs: Mutex<HashMap<String, Entry>>,
    pub(super) next_run: AtomicU64,
    pub(super) next_turn: AtomicU64,
}

impl LiveRuns {
    pub(super) fn lock(&self) -> MutexGuard<'_, HashMap<String, Entry>> {
        self.runs.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The number of a new live run (they count every live run of this runtime).
    pub(super) fn next_number(&self) -> u64 {
        self.next_run.fetch_add(1, Ordering::Relaxed) + 1
    }

    pub(super) fn register(
        &self,
        run_id: &str,
        owner: &str,
        commands: &mpsc::UnboundedSender<Command>,
        queued: usize,
    ) {
        self.lock().insert(
            run_id.to_owned(),
            Entry {
                owner: owner.to_owned(),
                commands: commands.clone(),
                queued,
            },
        );
    }

    pub(super) fn remove(&self, run_id: &str) {
        self.lock().remove(run_id);
    }

    /// Hands `text` to live run `run_id` of `owner`; the turn's id. The command is sent under
    /// the lock, so a run that finishes (which it decides under the same lock) either gets
    /// it or was already gone: a 202 is never lost.
    pub(super) fn submit(
        &self,
        owner: &str,
        run_id: &str,
        kind: TurnKind,
        text: String,
    ) -> Result<String, Refused> {
        let mut runs = self.lock();
        let entry = runs
            .get_mut(run_id)
            .filter(|entry| entry.owner == owner)
            .ok_or(Refused::NotActive)?;
        if kind == TurnKind::Queue && entry.queued >= MAX_QUEUED {
            return Err(Refused::QueueFull);
        }
        let id = format!(
            "turn-{}",
            self.next_turn.fetch_add(1, Ordering::Relaxed) + 1
        );
        let turn = Turn {
            id: id.clone(),
            text,
        };
        let command = match kind {
            TurnKind::Queue => Command::Queue(turn),
            TurnKind::Steer => Command::Steer(turn),
        };
        if entry.commands.send(command).is_err() {
            // Its task is gone without saying so: it is not live.
            runs.remove(run_id);
            return Err(Refused::NotActive);
        }
        if kind == TurnKind::Queue {
            entry.queued += 1;
        }
        Ok(id)
    }
}
