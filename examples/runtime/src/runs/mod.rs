//! Runs: answers that live on their own task, not on the request that started them.
//!
//! A streamed answer registers as its thread's run in the [`Runs`] hub, one per (user,
//! thread). The run folds every event it emits into [`RunItems`](fold::RunItems) and sends it to the
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
//!
//! The parts: the hub and its threads ([`registry`]), the seats a run holds ([`seats`]),
//! what a run's task shares ([`run`]), the frames its channels get ([`frames`]), the runs
//! of other instances ([`remote`]), the timer that stops an abandoned run ([`abandoned`]),
//! the fold of its events ([`fold`]) and `threads.cancel_run` ([`cancel`]).

mod abandoned;
mod cancel;
mod fold;
mod frames;
mod registry;
mod remote;
mod run;
mod seats;
#[cfg(test)]
mod tests;

pub use cancel::cancel;
pub use fold::Folder;
pub use frames::{event_frame, RUN_STARTED};
pub use registry::{Joined, Runs};
pub use run::{Run, RunHandle};
pub use seats::Seat;

use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

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

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
