//! The live channel of a thread, and the views tools push into it.
//!
//! A tool (anything holding the callback token) POSTs a `view_update` to `/callback`
//! (`crate::handlers::callback`):
//! `{"type": "view_update", "group_id": <thread id>, "view_type": "diff", "content": {…}}`.
//! The runtime keeps the latest content of each (thread, view type) verbatim, numbered
//! with a per-thread sequence (`seq`), and broadcasts it to every open channel of the
//! thread ([`publish`]). An empty object clears the view.
//!
//! A browser opens a thread's channel with the ChatKit extension request
//! `threads.subscribe` (`{"thread_id", "after": null | N}`) on `POST /chatkit`: an SSE
//! stream that replays the thread's views (all active ones for `after: null`, every change
//! after `N` otherwise), says `thread.channel.ready` with the latest seq, then forwards
//! each change as it comes, with a `: keepalive` comment when idle, until the client
//! leaves. The thread's runs come on the same stream (`runs`): the snapshot of the one under
//! way right after `thread.channel.ready`, then their events as `thread.run.event` and
//! their end as `thread.run.ended`. With `--acp`, the thread's session controls come too
//! (`thread.session.updated`, whole, unnumbered): once after `thread.channel.ready` when
//! the thread's session is open, then at each change (`session_updated`).
//!
//! Bounded: each change is serialized once and queued, shared, for every channel of the
//! thread (`outbox`); a channel whose client falls behind is closed and reconnects from its
//! cursor. A replay goes out one frame at a time, each released once sent, and channels
//! replaying the same change share its frame. One identity has at most
//! `runs::Limits::channels` channels open: a newer one closes the oldest, which reconnects
//! if it is still wanted.
//!
//! On a shared PostgreSQL database (`shared`), changes are numbered by the store for all
//! instances: the hub keeps the last seq its channels of each thread were sent, and after
//! each change (its own, or one another instance announced) it sends them what the store
//! holds past it ([`catch_up`]). A channel of a thread whose run is under way elsewhere
//! replays the run's events from the store, a page at a time, then follows it.

pub(crate) mod hub;
pub mod outbox;

use hub::{catch_up_locked, session_frame, view_frame};

use crate::auth::User;
use crate::clients::{Client, Kind, Share};
use crate::errors::{bad_request, internal, not_found};
use crate::runs::{Joined, RUN_STARTED};
use crate::sse::sse;
use crate::state::AppState;
use crate::store::ViewRecord;
use axum::body::{Body, Bytes};
use axum::response::Response;
use chat_shell_core::protocol::chatkit::{StreamEvent, ThreadId};
use outbox::Outbox;
use serde_json::Value;
use std::collections::VecDeque;
use std::sync::Arc;
use tokio::sync::watch;
use tokio::time::Instant as TokioInstant;

/// The default pause before an idle channel gets a `: keepalive` comment.
pub const DEFAULT_KEEPALIVE_MS: u64 = 15_000;
/// How long a channel lives before it is closed, unless `--channel-lifetime-secs` says
/// otherwise: held channels cost a connection each, so none is held for ever. The element
/// reconnects from its cursor.
pub const DEFAULT_LIFETIME: std::time::Duration = std::time::Duration::from_secs(30 * 60);
/// Sends the channels of `thread` the changes of its views they have not had (on a shared
/// database; blocking).
pub fn catch_up(state: &AppState, thread: &str) -> Result<(), crate::store::Error> {
    let Some(pg) = state.store.pg() else {
        return Ok(());
    };
    catch_up_locked(&mut state.channels.lock(), pg, thread)
}

/// A validated `view_update`.
#[derive(Debug, PartialEq)]
pub struct ViewUpdate {
    pub group_id: String,
    pub view_type: String,
    /// The content object, serialized as received.
    pub content_json: String,
}

/// The longest line a change of `view_type` with `content_len` bytes of content makes on
/// a channel (with the longest seq and timestamp).
pub(crate) fn view_line_len(view_type: &str, content_len: usize) -> usize {
    let frame = view_frame(&ViewRecord {
        view_type: view_type.to_owned(),
        seq: u64::MAX,
        content_json: String::new(),
        updated_at: "0".repeat(32),
    });
    frame.len() - 2 + content_len
}

/// Stores `update` and sends it to the thread's open channels: the one way a view changes
/// (the tool callback, and the runtime's own pushes such as an ACP agent's writes).
/// `None` for an unknown thread.
pub async fn publish(
    state: &Arc<AppState>,
    update: ViewUpdate,
) -> Result<Option<ViewRecord>, String> {
    if view_line_len(&update.view_type, update.content_json.len()) > outbox::MAX_LINE {
        return Err(format!(
            "the {} view is too large for a channel line ({} bytes of content)",
            update.view_type,
            update.content_json.len()
        ));
    }
    let state = state.clone();
    let stored = tokio::task::spawn_blocking(move || {
        // Stored and sent under the hub's lock: channels see changes in seq order, and
        // one opening meanwhile either reads this change or receives it.
        let mut hub = state.channels.lock();
        let record =
            state
                .store
                .put_view(&update.group_id, &update.view_type, &update.content_json)?;
        drop(update.content_json);
        if let (Some(shared), Some(_)) = (&state.shared, &record) {
            // The store numbers changes for every instance: the channels here get what it
            // holds past what they had (another instance's changes too), the others are told.
            catch_up_locked(&mut hub, shared.pg(), &update.group_id)?;
            drop(hub);
            shared.notify('v', &update.group_id, "-")?;
        } else if let Some(record) = &record {
            if hub.threads.contains_key(&update.group_id) {
                // Serialized once: every channel queues the same bytes.
                let frame = hub.frame(&update.group_id, record);
                if let Some(list) = hub.threads.get_mut(&update.group_id) {
                    list.retain(|o| o.push(&frame));
                }
            }
        }
        Ok::<_, crate::store::Error>(record.map(|r| (update.group_id, r)))
    })
    .await
    .map_err(|e| e.to_string())?
    .map_err(|e| e.to_string())?;
    Ok(stored.map(|(thread, record)| {
        println!(
            "view {} of thread={thread}: seq {}{}",
            record.view_type,
            record.seq,
            if record.cleared() { " (cleared)" } else { "" }
        );
        record
    }))
}

/// `threads.subscribe` on `POST /chatkit` (`request` is the whole body): the thread's
/// channel, for `user`'s threads only.
pub async fn subscribe(
    state: &Arc<AppState>,
    user: User,
    client: Client,
    request: &Value,
) -> Response {
    let share = match state.clients.take(Kind::Channel, client) {
        Ok(share) => share,
        Err(refused) => return state.clients.too_many(refused),
    };
    let params = request.get("params").unwrap_or(&Value::Null);
    let Some(thread_id) = params.get("thread_id").and_then(Value::as_str) else {
        return bad_request("invalid request: threads.subscribe needs params.thread_id");
    };
    let after = match params.get("after") {
        None | Some(Value::Null) => None,
        Some(v) => match v.as_u64() {
            Some(n) => Some(n),
            None => {
                return bad_request(
                    "invalid request: params.after must be null or a sequence number",
                )
            }
        },
    };
    let thread = ThreadId::from(thread_id);
    let outbox = Outbox::new(thread.as_str());
    let opened = {
        let (state, user, thread, outbox) =
            (state.clone(), user.clone(), thread.clone(), outbox.clone());
        tokio::task::spawn_blocking(move || {
            let mut hub = state.channels.lock();
            // Shared: the channels already open are caught up first; this one replays
            // up to the same seq, and gets what comes later with them.
            let caught_up = match state.store.pg() {
                Some(pg) => {
                    catch_up_locked(&mut hub, pg, thread.as_str())?;
                    hub.seqs.get(thread.as_str()).copied()
                }
                None => None,
            };
            let Some((mut records, mut latest)) =
                state.store.user(&user.0).views_after(&thread, after)?
            else {
                return Ok(None);
            };
            if let Some(upto) = caught_up {
                records.retain(|r| r.seq <= upto);
                latest = upto;
            } else if state.store.pg().is_some() {
                hub.seqs.insert(thread.to_string(), latest);
            }
            // `after: null`: what is shown now, so the cleared views are left out. Each
            // record becomes its frame (shared with any other holder) and is dropped.
            let replay: VecDeque<Bytes> = records
                .into_iter()
                .filter(|r| after.is_some() || !r.cleared())
                .map(|r| hub.frame(thread.as_str(), &r))
                .filter(|frame| {
                    // Stored before views were held to the line limit: skipped, not sent.
                    let fits = outbox::fits(frame);
                    if !fits {
                        eprintln!(
                            "chat-shell-runtime: a stored view is too long for a channel: not sent"
                        );
                    }
                    fits
                })
                .collect();
            hub.threads
                .entry(thread.to_string())
                .or_default()
                .push(outbox.clone());
            let cap = state.runs.limits().channels;
            let mine = hub.users.entry(user.0.clone()).or_default();
            mine.retain(|o| !o.is_closed());
            while mine.len() >= cap.max(1) {
                if let Some(oldest) = mine.pop_front() {
                    oldest.close();
                }
            }
            mine.push_back(outbox.clone());
            drop(hub);
            // After the views' check above: only the user's own threads are listened to.
            let joined = state.runs.listen(&user, &thread, &outbox)?;
            Ok::<_, crate::store::Error>(Some((replay, latest, joined)))
        })
        .await
    };
    let (mut prelude, latest, joined) = match opened {
        Ok(Ok(Some(opened))) => opened,
        Ok(Ok(None)) => return not_found(&format!("unknown thread {thread}")),
        Ok(Err(e)) => return internal(e),
        Err(e) => return internal(e),
    };
    let (snapshot, remote) = match joined {
        Joined::Idle => (None, None),
        Joined::Local(snapshot) => (Some(snapshot), None),
        Joined::Remote { run, upto } => (Some(Vec::new()), Some((run, 0, upto))),
    };
    prelude.push_back(Bytes::from(format!(
        "data: {{\"type\":\"thread.channel.ready\",\"seq\":{latest}}}\n\n"
    )));
    // The ACP session's controls, when the thread's session is open.
    if let Some(session) = state
        .acp
        .as_ref()
        .and_then(|b| b.thread_state(thread.as_str()))
    {
        prelude.extend(session_frame(&session));
    }
    if snapshot.is_some() {
        prelude.push_back(Bytes::from_static(RUN_STARTED.as_bytes()));
    }
    let feed = Feed {
        state: state.clone(),
        user,
        thread,
        outbox,
        prelude,
        snapshot: snapshot.unwrap_or_default().into(),
        remote,
        last_write: TokioInstant::now(),
        expires: TokioInstant::now() + state.channel_lifetime,
        shutdown: state.shutdown.clone(),
        _share: share,
    };
    sse(Body::from_stream(futures_util::stream::unfold(
        feed,
        |mut feed| async move {
            let frame = feed.next().await?;
            Some((Ok::<_, std::io::Error>(frame), feed))
        },
    )))
}

/// One channel's stream: its replay (each frame released once taken), `ready`, the run's
/// snapshot (serialized as it goes), then what its queue gets, with keepalives, until its
/// client leaves (hyper drops it), the queue is closed, or the server stops.
struct Feed {
    state: Arc<AppState>,
    user: User,
    thread: ThreadId,
    outbox: Arc<Outbox>,
    prelude: VecDeque<Bytes>,
    snapshot: VecDeque<StreamEvent>,
    /// Another instance's run to replay from the store: its id, the last event sent, the
    /// last to send (later ones come through the queue).
    remote: Option<(String, i32, i32)>,
    last_write: TokioInstant,
    /// When the channel is closed (at the next pause in its thread's runs).
    expires: TokioInstant,
    shutdown: watch::Receiver<bool>,
    /// The channel's count for its client address.
    _share: Share,
}

impl Feed {
    async fn next(&mut self) -> Option<Bytes> {
        let frame = self.take().await?;
        self.last_write = TokioInstant::now();
        Some(frame)
    }

    async fn take(&mut self) -> Option<Bytes> {
        if let Some(frame) = self.prelude.pop_front() {
            return Some(frame);
        }
        while let Some(event) = self.snapshot.pop_front() {
            if let Some(frame) = run_frame(&event) {
                return Some(frame);
            }
        }
        while self.prelude.is_empty() && self.remote.is_some() {
            self.replay_page().await;
            if let Some(frame) = self.prelude.pop_front() {
                return Some(frame);
            }
        }
        let keepalive = self.state.channel_keepalive;
        loop {
            if *self.shutdown.borrow() {
                return None;
            }
            tokio::select! {
                next = self.outbox.next() => match next {
                    Ok(frame) => return Some(frame),
                    // Said in the log when it fell behind.
                    Err(outbox::Closed::Behind) => return None,
                    Err(outbox::Closed::Closed) => {
                        println!(
                            "channel replaced: thread={} closed (over {} channels for one identity)",
                            self.thread,
                            self.state.runs.limits().channels
                        );
                        return None;
                    }
                },
                _ = tokio::time::sleep_until(self.last_write + keepalive) => {
                    return Some(Bytes::from_static(b": keepalive\n\n"));
                }
                _ = tokio::time::sleep_until(self.expires) => {
                    // Not in the middle of a run the channel shows, unless that run has
                    // outlasted a second lifetime.
                    let overdue = self.expires + self.state.channel_lifetime;
                    if !self.state.runs.under_way(&self.user, &self.thread)
                        || TokioInstant::now() >= overdue
                    {
                        println!("channel expired: thread={} (--channel-lifetime-secs)", self.thread);
                        return None;
                    }
                    self.expires = TokioInstant::now() + keepalive;
                }
                changed = self.shutdown.changed() => {
                    if changed.is_err() {
                        return None;
                    }
                }
            }
        }
    }
}

impl Feed {
    /// The next page of the remote run's events into `prelude`; the replay is over when
    /// it reaches its end (or the store fails: the run's later events still come).
    async fn replay_page(&mut self) {
        let Some((run, after, upto)) = self.remote.clone() else {
            return;
        };
        let store = self.state.store.clone();
        let read = tokio::task::spawn_blocking(move || {
            let Some(pg) = store.pg() else {
                return Ok(Vec::new());
            };
            let rows = pg.conn()?.query(
                "SELECT seq, json FROM run_events WHERE run_id = $1 AND seq > $2 AND seq <= $3
                 ORDER BY seq LIMIT $4",
                &[&run, &after, &upto, &crate::shared::EVENTS_PAGE],
            )?;
            Ok::<_, crate::store::Error>(
                rows.iter()
                    .map(|r| (r.get::<_, i32>(0), r.get::<_, String>(1)))
                    .collect::<Vec<_>>(),
            )
        })
        .await;
        let rows = match read {
            Ok(Ok(rows)) => rows,
            Ok(Err(e)) => {
                eprintln!("chat-shell-runtime: cannot replay a run: {e}");
                Vec::new()
            }
            Err(_) => Vec::new(),
        };
        match rows.last() {
            Some((seq, _)) if *seq < upto => {
                if let Some(remote) = &mut self.remote {
                    remote.1 = *seq;
                }
            }
            _ => self.remote = None,
        }
        self.prelude.extend(
            rows.iter()
                .filter_map(|(_, json)| crate::runs::event_frame(json)),
        );
    }
}

impl Drop for Feed {
    fn drop(&mut self) {
        self.outbox.close();
        self.state
            .channels
            .release(&self.user, self.thread.as_str(), &self.outbox);
        self.state.runs.unlisten(&self.user, &self.thread);
        println!("channel closed: thread={}", self.thread);
    }
}

/// The SSE frame of one event of the thread's run; `None` if it cannot be sent.
fn run_frame(event: &StreamEvent) -> Option<Bytes> {
    match serde_json::to_string(event) {
        Ok(json) => {
            let frame = format!("data: {{\"type\":\"thread.run.event\",\"event\":{json}}}\n\n");
            if outbox::fits(frame.as_bytes()) {
                Some(Bytes::from(frame))
            } else {
                eprintln!(
                    "chat-shell-runtime: a run item of {} bytes is too long for a channel: not sent",
                    frame.len()
                );
                None
            }
        }
        Err(e) => {
            eprintln!("chat-shell-runtime: cannot serialize an event: {e}");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::hub::Hub;
    use super::*;
    use serde_json::json;

    #[test]
    fn frames() {
        let mut r = ViewRecord {
            view_type: "diff".into(),
            seq: 3,
            content_json: r#"{"patch":"p"}"#.into(),
            updated_at: "2025-01-01T00:00:00.000000".into(),
        };
        let frame = view_frame(&r);
        let v: Value = serde_json::from_str(frame.strip_prefix("data: ").unwrap().trim()).unwrap();
        assert_eq!(
            v,
            json!({"type": "thread.view.updated", "seq": 3, "view_type": "diff",
                   "content": {"patch": "p"}, "updated_at": "2025-01-01T00:00:00.000000"})
        );
        r.content_json = "{}".into();
        let frame = view_frame(&r);
        let v: Value = serde_json::from_str(frame.strip_prefix("data: ").unwrap().trim()).unwrap();
        assert_eq!(
            v,
            json!({"type": "thread.view.cleared", "seq": 3, "view_type": "diff"})
        );
        assert_eq!(Hub::default().open_threads(), 0);
    }

    #[test]
    fn the_line_bound_is_never_below_the_real_line() {
        let r = ViewRecord {
            view_type: "diff".into(),
            seq: 12_345,
            content_json: r#"{"patch":"p"}"#.into(),
            updated_at: crate::store::now_iso(),
        };
        let line = view_frame(&r).len() - 2;
        let bound = view_line_len("diff", r.content_json.len());
        assert!(line <= bound && bound - line < 64, "{line} {bound}");
    }
}
