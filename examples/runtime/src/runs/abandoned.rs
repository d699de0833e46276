//! The timer that stops a run nobody reads, so an agent that never ends its turn does not
//! hold its seat for ever.

use super::lock;
use super::run::{Run, Slot};
use crate::sse::Frame;
use chat_shell_core::protocol::chatkit::ThreadId;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;

/// Stops `run` once nobody has read it for `after`: its response's client left or stopped
/// reading (its queue is full), and no channel of its thread is open.
pub(super) async fn stop_when_abandoned(
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
