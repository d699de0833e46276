//! One thread channel's queue of frames, bounded by frames and bytes.
//!
//! The thread's views (`channel::publish`) and its runs (`runs`) hand each frame to every
//! open channel of the thread as one shared `Bytes`: a frame is serialized once, never
//! copied per channel. A channel whose client does not read fast enough fills its queue:
//! it is then closed (what it queued is released at once, its HTTP stream ends) and the
//! element reconnects from its cursor (`after`), re-reading from the store what it missed.

use axum::body::Bytes;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::Notify;

/// A channel with this many frames waiting for its client is closed.
pub const MAX_QUEUED_FRAMES: usize = 4096;
/// A channel with this many bytes waiting for its client is closed; a frame larger than
/// this still goes to a channel with nothing waiting (a view may be up to [`MAX_LINE`]).
pub const MAX_QUEUED_BYTES: usize = 4 * 1024 * 1024;
/// The longest line the element reads on a channel (its `maxEventBytes` by default): a
/// longer one would end its decoding. Every frame here is one `data:` line.
pub const MAX_LINE: usize = chat_shell_core::sse::DEFAULT_MAX_EVENT_BYTES;

/// Whether `frame` (one line and its blank line) is short enough for the element.
pub fn fits(frame: &[u8]) -> bool {
    frame.len() <= MAX_LINE + 2
}

/// Why a channel's queue stopped taking frames.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Closed {
    /// Its client fell behind.
    Behind,
    /// Its stream ended, or a newer channel of the same identity took its place.
    Closed,
}

pub struct Outbox {
    /// The channel's thread, for the log.
    thread: String,
    queue: Mutex<Queue>,
    ready: Notify,
}

#[derive(Default)]
struct Queue {
    frames: VecDeque<Bytes>,
    bytes: usize,
    closed: Option<Closed>,
}

impl Outbox {
    pub fn new(thread: &str) -> Arc<Self> {
        Arc::new(Outbox {
            thread: thread.to_owned(),
            queue: Mutex::default(),
            ready: Notify::new(),
        })
    }

    fn lock(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Queues `frame` (a clone of the shared bytes); `false` once the channel is closed,
    /// which this may do if the frame does not fit.
    pub fn push(&self, frame: &Bytes) -> bool {
        let mut q = self.lock();
        if q.closed.is_some() {
            return false;
        }
        let full = q.frames.len() >= MAX_QUEUED_FRAMES
            || (!q.frames.is_empty() && q.bytes + frame.len() > MAX_QUEUED_BYTES);
        if full {
            let (frames, bytes) = (q.frames.len(), q.bytes);
            Self::shut(&mut q, Closed::Behind);
            drop(q);
            self.ready.notify_one();
            println!(
                "channel fell behind: thread={} closed with {frames} frames ({bytes} bytes) \
                 unread; it reconnects from its cursor",
                self.thread
            );
            return false;
        }
        q.bytes += frame.len();
        q.frames.push_back(frame.clone());
        drop(q);
        self.ready.notify_one();
        true
    }

    fn shut(q: &mut Queue, why: Closed) {
        q.closed.get_or_insert(why);
        q.frames = VecDeque::new();
        q.bytes = 0;
    }

    /// Closes the channel: nothing more is queued, what was is dropped.
    pub fn close(&self) {
        Self::shut(&mut self.lock(), Closed::Closed);
        self.ready.notify_one();
    }

    pub fn is_closed(&self) -> bool {
        self.lock().closed.is_some()
    }

    /// The next frame, waiting for one; `Err` once the channel is closed.
    pub async fn next(&self) -> Result<Bytes, Closed> {
        loop {
            {
                let mut q = self.lock();
                if let Some(why) = q.closed {
                    return Err(why);
                }
                if let Some(frame) = q.frames.pop_front() {
                    q.bytes -= frame.len();
                    return Ok(frame);
                }
            }
            // One reader: a notification sent meanwhile is kept as a permit.
            self.ready.notified().await;
        }
    }

    #[cfg(test)]
    pub fn queued(&self) -> (usize, usize) {
        let q = self.lock();
        (q.frames.len(), q.bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_channel_that_falls_behind_is_closed_and_its_queue_released() {
        let outbox = Outbox::new("thr_1");
        let big = Bytes::from(vec![b'x'; MAX_QUEUED_BYTES + 10]);
        // A large frame goes to a channel with nothing waiting.
        assert!(outbox.push(&big));
        assert_eq!(outbox.next().await, Ok(big.clone()));
        let frame = Bytes::from_static(b"data: {}\n\n");
        for _ in 0..MAX_QUEUED_FRAMES {
            assert!(outbox.push(&frame));
        }
        assert_eq!(outbox.queued().0, MAX_QUEUED_FRAMES);
        assert!(!outbox.push(&frame), "one frame too many");
        assert_eq!(outbox.queued(), (0, 0), "released at once");
        assert_eq!(outbox.next().await, Err(Closed::Behind));
        assert!(!outbox.push(&frame));
        // By bytes: a second frame over the budget closes it too.
        let outbox = Outbox::new("thr_1");
        assert!(outbox.push(&big));
        assert!(!outbox.push(&frame));
        assert_eq!(outbox.next().await, Err(Closed::Behind));
        let outbox = Outbox::new("thr_1");
        outbox.close();
        assert_eq!(outbox.next().await, Err(Closed::Closed));
    }

    #[test]
    fn frames_are_shared_not_copied() {
        let outbox = Outbox::new("thr_1");
        let frame = Bytes::from(vec![b'x'; 1024]);
        outbox.push(&frame);
        let queued = outbox.lock().frames[0].clone();
        assert_eq!(queued.as_ptr(), frame.as_ptr());
    }
}
