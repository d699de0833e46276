//! The open channels of this instance ([`Hub`], held by the app state): by thread, the
//! changes they are sent; by user, the cap on how many one identity holds. Each change's
//! frame is made once and shared by every channel that queues or replays it.

use super::outbox::{self, Outbox};
use crate::auth::User;
use crate::store::{self, pg::Pg, ViewRecord};
use axum::body::Bytes;
use chat_shell_core::protocol::chatkit::SessionState;
use serde_json::Value;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, Weak};

/// The frame cache is swept of frames nobody holds once it has this many entries.
const FRAME_CACHE_SWEEP: usize = 256;

/// The open channels: by thread (the changes they are sent) and by user (the cap).
#[derive(Default)]
pub struct Hub {
    inner: Mutex<HubInner>,
}

#[derive(Default)]
pub(super) struct HubInner {
    pub(super) threads: HashMap<String, Vec<Arc<Outbox>>>,
    /// Each user's open channels, oldest first.
    pub(super) users: HashMap<String, VecDeque<Arc<Outbox>>>,
    /// The frame of each (thread, view type) change still held somewhere (a channel's
    /// queue, or hyper's buffer): a replay of the same change shares it.
    frames: HashMap<(String, String), (u64, Weak<String>)>,
    /// On a shared database: the last seq sent to the channels of each thread.
    pub(super) seqs: HashMap<String, u64>,
}

impl HubInner {
    /// The frame of `record` (a change of `thread`), shared with any other holder of it.
    pub(super) fn frame(&mut self, thread: &str, record: &ViewRecord) -> Bytes {
        let key = (thread.to_owned(), record.view_type.clone());
        if let Some(shared) = self
            .frames
            .get(&key)
            .filter(|(seq, _)| *seq == record.seq)
            .and_then(|(_, frame)| frame.upgrade())
        {
            return Bytes::from_owner(SharedOwner(shared));
        }
        let shared = Arc::new(view_frame(record));
        if self.frames.len() >= FRAME_CACHE_SWEEP {
            self.frames.retain(|_, (_, f)| f.strong_count() > 0);
        }
        self.frames
            .insert(key, (record.seq, Arc::downgrade(&shared)));
        Bytes::from_owner(SharedOwner(shared))
    }
}

/// A frame's text, shared by every `Bytes` made of it.
struct SharedOwner(Arc<String>);

impl AsRef<[u8]> for SharedOwner {
    fn as_ref(&self) -> &[u8] {
        self.0.as_bytes()
    }
}

impl Hub {
    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, HubInner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Forgets `outbox`, a channel of `user` on `thread` that ended.
    pub(super) fn release(&self, user: &User, thread: &str, outbox: &Arc<Outbox>) {
        let mut hub = self.lock();
        if let Some(list) = hub.threads.get_mut(thread) {
            list.retain(|o| !Arc::ptr_eq(o, outbox) && !o.is_closed());
            if list.is_empty() {
                hub.threads.remove(thread);
                hub.seqs.remove(thread);
            }
        }
        if let Some(list) = hub.users.get_mut(&user.0) {
            list.retain(|o| !Arc::ptr_eq(o, outbox) && !o.is_closed());
            if list.is_empty() {
                hub.users.remove(&user.0);
            }
        }
    }

    /// The threads with a channel open here.
    pub fn threads(&self) -> Vec<String> {
        self.lock().threads.keys().cloned().collect()
    }

    #[cfg(test)]
    pub(super) fn open_threads(&self) -> usize {
        self.lock().threads.len()
    }
}

/// [`catch_up`] under the hub's lock: channels see changes in seq order, each once.
pub(super) fn catch_up_locked(
    hub: &mut HubInner,
    pg: &Pg,
    thread: &str,
) -> Result<(), store::Error> {
    let Some(&after) = hub.seqs.get(thread) else {
        return Ok(());
    };
    let mut latest = after;
    for record in pg.views_since(thread, after)? {
        latest = latest.max(record.seq);
        let frame = hub.frame(thread, &record);
        if !outbox::fits(&frame) {
            continue;
        }
        if let Some(list) = hub.threads.get_mut(thread) {
            list.retain(|o| o.push(&frame));
        }
    }
    hub.seqs.insert(thread.to_owned(), latest);
    Ok(())
}

/// The SSE frame of `thread.session.updated` (the ACP session controls), if it fits a
/// channel line.
pub(crate) fn session_frame(session: &SessionState) -> Option<Bytes> {
    let json = serde_json::to_string(session).ok()?;
    let frame = Bytes::from(format!(
        "data: {{\"type\":\"thread.session.updated\",\"session\":{json}}}\n\n"
    ));
    if outbox::fits(&frame) {
        Some(frame)
    } else {
        eprintln!("chat-shell-runtime: a session state is too long for a channel: not sent");
        None
    }
}

impl Hub {
    /// Sends `session` (the ACP session's controls, whole) to the channels open on
    /// `thread`: not stored, not numbered (the page replaces what it holds).
    pub fn session_updated(&self, thread: &str, session: &SessionState) {
        let Some(frame) = session_frame(session) else {
            return;
        };
        let mut hub = self.lock();
        if let Some(list) = hub.threads.get_mut(thread) {
            list.retain(|o| o.push(&frame));
        }
    }
}

/// The SSE frame of one change.
pub(super) fn view_frame(record: &ViewRecord) -> String {
    let view_type = Value::from(record.view_type.as_str());
    if record.cleared() {
        format!(
            "data: {{\"type\":\"thread.view.cleared\",\"seq\":{},\"view_type\":{view_type}}}\n\n",
            record.seq
        )
    } else {
        let updated_at = Value::from(record.updated_at.as_str());
        format!(
            "data: {{\"type\":\"thread.view.updated\",\"seq\":{},\"view_type\":{view_type},\
             \"content\":{},\"updated_at\":{updated_at}}}\n\n",
            record.seq, record.content_json
        )
    }
}
