//! Views pushed by tools, and the live channel of a thread.
//!
//! A tool (anything holding the callback token) POSTs a `view_update` to `/callback`:
//! `{"type": "view_update", "group_id": <thread id>, "view_type": "diff", "content": {…}}`.
//! The runtime keeps the latest content of each (thread, view type) verbatim, numbered
//! with a per-thread sequence (`seq`), and broadcasts it to every open channel of the
//! thread. An empty object clears the view.
//!
//! A browser opens a thread's channel with the ChatKit extension request
//! `threads.subscribe` (`{"thread_id", "after": null | N}`) on `POST /chatkit`: an SSE
//! stream that replays the thread's views (all active ones for `after: null`, every change
//! after `N` otherwise), says `thread.channel.ready` with the latest seq, then forwards
//! each change as it comes, with a `: keepalive` comment when idle, until the client
//! leaves. The thread's runs come on the same stream (`runs`): the snapshot of the one under
//! way right after `thread.channel.ready`, then their events as `thread.run.event` and
//! their end as `thread.run.ended`.

use crate::auth::User;
use crate::server::{
    bad_request, blocking, internal, json_body, json_error, logged, not_found, sse, AppState, Frame,
};
use crate::store::ViewRecord;
use axum::body::{Body, Bytes};
use axum::extract::rejection::BytesRejection;
use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use chat_shell_core::protocol::chatkit::{StreamEvent, ThreadId};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;
use tokio::sync::{broadcast, mpsc};
use tokio::time::Instant as TokioInstant;

/// The largest callback body: a 50,000-line diff fits; the browser's own limit on one
/// event (`maxEventBytes`) is the same 8 MiB.
pub const MAX_CALLBACK_BODY: usize = 8 * 1024 * 1024;
/// The longest `view_type`.
pub const MAX_VIEW_TYPE_CHARS: usize = 64;
/// Says a run is under way on the thread: its snapshot (to a channel opening meanwhile)
/// or its events follow, then `thread.run.ended`.
pub const RUN_STARTED: &str = "data: {\"type\":\"thread.run.started\"}\n\n";
/// How many changes a channel may fall behind before it re-reads the store.
const CHANNEL_CAPACITY: usize = 64;
/// The default pause before an idle channel gets a `: keepalive` comment.
pub const DEFAULT_KEEPALIVE_MS: u64 = 15_000;
/// Where the callback token comes from when `--callback-token` is not given.
pub const CALLBACK_TOKEN_ENV: &str = "CHAT_SHELL_CALLBACK_TOKEN";

/// The open channels, one broadcast sender per thread that has any.
#[derive(Default)]
pub struct Hub {
    channels: Mutex<HashMap<String, broadcast::Sender<Arc<ViewRecord>>>>,
}

impl Hub {
    fn lock(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<String, broadcast::Sender<Arc<ViewRecord>>>> {
        self.channels.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Forgets the sender of `thread` once no channel listens to it any more.
    fn release(&self, thread: &str) {
        let mut channels = self.lock();
        if channels
            .get(thread)
            .is_some_and(|tx| tx.receiver_count() == 0)
        {
            channels.remove(thread);
        }
    }

    #[cfg(test)]
    fn open_threads(&self) -> usize {
        self.lock().len()
    }
}

/// Whether `s` is a valid `view_type`: 1 to 64 of `[A-Za-z0-9_.-]`.
pub fn valid_view_type(s: &str) -> bool {
    (1..=MAX_VIEW_TYPE_CHARS).contains(&s.len())
        && s.bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-'))
}

/// Constant-time comparison of the presented bearer token with the configured one.
fn token_matches(headers: &HeaderMap, expected: &str) -> bool {
    let Some(value) = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
    else {
        return false;
    };
    let value = value.trim();
    let (scheme, token) = value.split_once(' ').unwrap_or((value, ""));
    if !scheme.eq_ignore_ascii_case("bearer") {
        return false;
    }
    let (a, b) = (token.trim().as_bytes(), expected.as_bytes());
    // The length is not secret; the bytes are compared without an early exit.
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// A validated `view_update`.
#[derive(Debug, PartialEq)]
pub struct ViewUpdate {
    pub group_id: String,
    pub view_type: String,
    /// The content object, serialized as received.
    pub content_json: String,
}

/// Checks a callback body; the error is the 400's message.
pub fn parse_update(body: &[u8]) -> Result<ViewUpdate, String> {
    let value: Value =
        serde_json::from_slice(body).map_err(|e| format!("the body is not JSON: {e}"))?;
    let Some(object) = value.as_object() else {
        return Err("the body must be a JSON object".into());
    };
    match object.get("type").and_then(Value::as_str) {
        Some("view_update") => {}
        Some(other) => {
            return Err(format!(
                "type must be \"view_update\", not {:?}",
                other.chars().take(64).collect::<String>()
            ))
        }
        None => return Err("type must be \"view_update\"".into()),
    }
    let group_id = match object.get("group_id").and_then(Value::as_str) {
        Some(id) if !id.is_empty() && id.len() <= 128 => id.to_owned(),
        _ => return Err("group_id must be a thread id".into()),
    };
    let view_type = match object.get("view_type").and_then(Value::as_str) {
        Some(t) if valid_view_type(t) => t.to_owned(),
        _ => {
            return Err(format!(
            "view_type must be 1 to {MAX_VIEW_TYPE_CHARS} characters of A-Z, a-z, 0-9, _, . and -"
        ))
        }
    };
    let content = match object.get("content") {
        Some(c @ Value::Object(_)) => c,
        _ => return Err("content must be a JSON object ({} clears the view)".into()),
    };
    let content_json = serde_json::to_string(content).map_err(|e| e.to_string())?;
    Ok(ViewUpdate {
        group_id,
        view_type,
        content_json,
    })
}

/// `POST /callback`: a tool's `view_update`.
pub async fn callback(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let started = Instant::now();
    let log = |response: Response| logged("/callback", "view_update", started, response);
    let Some(token) = state.callback_token.as_deref() else {
        return log(json_error(
            StatusCode::NOT_FOUND,
            "callback_disabled",
            "the tool callback is off: start the runtime with --callback-token TOKEN \
             (or CHAT_SHELL_CALLBACK_TOKEN) and send it as Authorization: Bearer TOKEN",
        ));
    };
    if !token_matches(&headers, token) {
        let mut refused = json_error(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "POST /callback needs Authorization: Bearer <the --callback-token>",
        );
        refused
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        return log(refused);
    }
    let body = match json_body("/callback", &headers, body) {
        Ok(body) => body,
        Err(refused) => return log(refused),
    };
    let update = match parse_update(&body) {
        Ok(update) => update,
        Err(message) => return log(bad_request(&message)),
    };
    let response = match publish(&state, update).await {
        Ok(Some(record)) => Json(json!({"ok": true, "seq": record.seq})).into_response(),
        Ok(None) => not_found("unknown thread (group_id)"),
        Err(e) => internal(e),
    };
    log(response)
}

/// Stores `update` and sends it to the thread's open channels: the one way a view changes
/// (the tool callback, and the runtime's own pushes such as an ACP agent's writes).
/// `None` for an unknown thread.
pub async fn publish(
    state: &Arc<AppState>,
    update: ViewUpdate,
) -> Result<Option<ViewRecord>, String> {
    let state = state.clone();
    let stored = tokio::task::spawn_blocking(move || {
        // Stored and sent under the hub's lock: channels see changes in seq order, and
        // one opening meanwhile either reads this change or receives it.
        let channels = state.views.lock();
        let record =
            state
                .store
                .put_view(&update.group_id, &update.view_type, &update.content_json)?;
        if let (Some(record), Some(tx)) = (&record, channels.get(&update.group_id)) {
            let _ = tx.send(Arc::new(record.clone()));
        }
        Ok::<_, rusqlite::Error>(record.map(|r| (update.group_id, r)))
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

/// The SSE frame of one change.
fn view_frame(record: &ViewRecord) -> String {
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

/// `threads.subscribe` on `POST /chatkit` (`request` is the whole body): the thread's
/// channel, for `user`'s threads only.
pub async fn subscribe(state: &Arc<AppState>, user: User, request: &Value) -> Response {
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
    let opened = {
        let (state, user, thread) = (state.clone(), user.clone(), thread.clone());
        tokio::task::spawn_blocking(move || {
            let mut channels = state.views.lock();
            let found = state.store.user(&user.0).views_after(&thread, after)?;
            if found.is_none() {
                return Ok(None);
            }
            let rx = channels
                .entry(thread.to_string())
                .or_insert_with(|| broadcast::channel(CHANNEL_CAPACITY).0)
                .subscribe();
            Ok::<_, rusqlite::Error>(found.map(|f| (f, rx)))
        })
        .await
    };
    let ((replay, latest), rx) = match opened {
        Ok(Ok(Some(opened))) => opened,
        Ok(Ok(None)) => return not_found(&format!("unknown thread {thread}")),
        Ok(Err(e)) => return internal(e),
        Err(e) => return internal(e),
    };
    // `after: null`: what is shown now, so the cleared views are left out.
    let replay: Vec<ViewRecord> = replay
        .into_iter()
        .filter(|r| after.is_some() || !r.cleared())
        .collect();
    // After the views' check above: only the user's own threads are listened to.
    let (snapshot, runs) = state.runs.listen(&user, &thread);
    let (tx, frames) = mpsc::channel::<Frame>(16);
    let opened = Opened {
        replay,
        latest,
        views: rx,
        snapshot,
        runs,
    };
    tokio::spawn(write_channel(state.clone(), user, thread, opened, tx));
    sse(Body::from_stream(futures_util::stream::unfold(
        frames,
        |mut rx| async move { rx.recv().await.map(|frame| (frame, rx)) },
    )))
}

/// What a channel starts from: the views to replay and their feed, the run's snapshot and
/// its feed.
struct Opened {
    replay: Vec<ViewRecord>,
    latest: u64,
    views: broadcast::Receiver<Arc<ViewRecord>>,
    /// `Some` while a run is under way (announced with `thread.run.started`).
    snapshot: Option<Vec<StreamEvent>>,
    runs: mpsc::UnboundedReceiver<Bytes>,
}

/// The SSE frame of one event of the thread's run.
fn run_frame(event: &StreamEvent) -> Option<String> {
    match serde_json::to_string(event) {
        Ok(json) => Some(format!(
            "data: {{\"type\":\"thread.run.event\",\"event\":{json}}}\n\n"
        )),
        Err(e) => {
            eprintln!("chat-shell-runtime: cannot serialize an event: {e}");
            None
        }
    }
}

/// Writes one channel until its client leaves or the server stops.
async fn write_channel(
    state: Arc<AppState>,
    user: User,
    thread: ThreadId,
    opened: Opened,
    tx: mpsc::Sender<Frame>,
) {
    let Opened {
        replay,
        latest,
        views: mut rx,
        snapshot,
        mut runs,
    } = opened;
    let send = |frame: String| {
        let tx = tx.clone();
        async move { tx.send(Ok(Bytes::from(frame))).await.is_ok() }
    };
    let mut open = true;
    for record in &replay {
        open = open && send(view_frame(record)).await;
    }
    let mut last = latest;
    open = open
        && send(format!(
            "data: {{\"type\":\"thread.channel.ready\",\"seq\":{last}}}\n\n"
        ))
        .await;
    if let Some(snapshot) = snapshot {
        open = open && send(RUN_STARTED.to_owned()).await;
        for frame in snapshot.iter().filter_map(run_frame) {
            open = open && send(frame).await;
        }
    }
    let keepalive = state.channel_keepalive;
    let mut shutdown = state.shutdown.clone();
    let mut last_write = TokioInstant::now();
    while open && !*shutdown.borrow() {
        tokio::select! {
            received = rx.recv() => match received {
                Ok(record) => {
                    if record.seq > last {
                        last = record.seq;
                        open = send(view_frame(&record)).await;
                        last_write = TokioInstant::now();
                    }
                }
                Err(broadcast::error::RecvError::Lagged(_)) => {
                    // Fell behind: the store has the latest of every view.
                    let (store, user, thread) = (state.store.clone(), user.clone(), thread.clone());
                    let since = last;
                    match blocking(store, user, move |db| db.views_after(&thread, Some(since))).await {
                        Ok(Some((records, _))) => {
                            let since = last;
                            for record in records.iter().filter(|r| r.seq > since) {
                                last = record.seq;
                                open = open && send(view_frame(record)).await;
                            }
                            last_write = TokioInstant::now();
                        }
                        // The thread is gone.
                        Ok(None) => open = false,
                        Err(e) => {
                            eprintln!("chat-shell-runtime: cannot catch a channel up: {e}");
                            open = false;
                        }
                    }
                }
                Err(broadcast::error::RecvError::Closed) => open = false,
            },
            Some(frame) = runs.recv() => {
                open = tx.send(Ok(frame)).await.is_ok();
                last_write = TokioInstant::now();
            }
            _ = tokio::time::sleep_until(last_write + keepalive) => {
                open = tx.send(Ok(Bytes::from_static(b": keepalive\n\n"))).await.is_ok();
                last_write = TokioInstant::now();
            }
            _ = tx.closed() => open = false,
            changed = shutdown.changed() => {
                if changed.is_err() {
                    open = false;
                }
            }
        }
    }
    drop(rx);
    state.views.release(thread.as_str());
    drop(runs);
    state.runs.unlisten(&user, &thread);
    println!("channel closed: thread={thread} at seq {last}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn view_types_are_short_names() {
        for ok in ["diff", "a", "x.y-z_1", &"a".repeat(64)] {
            assert!(valid_view_type(ok), "{ok}");
        }
        for bad in ["", "a b", "diff/x", "é", &"a".repeat(65), "<script>"] {
            assert!(!valid_view_type(bad), "{bad}");
        }
    }

    #[test]
    fn bearer_tokens_compare_whole() {
        let mut h = HeaderMap::new();
        assert!(!token_matches(&h, "secret-token-0123"));
        h.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("Bearer secret-token-0123"),
        );
        assert!(token_matches(&h, "secret-token-0123"));
        assert!(!token_matches(&h, "secret-token-012"));
        assert!(!token_matches(&h, "secret-token-0124"));
        h.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("Basic secret-token-0123"),
        );
        assert!(!token_matches(&h, "secret-token-0123"));
    }

    #[test]
    fn updates_are_checked() {
        let ok = parse_update(
            br#"{"type":"view_update","group_id":"thr_1","view_type":"diff","content":{"patch":"x","a":1}}"#,
        )
        .unwrap();
        assert_eq!(ok.content_json, r#"{"patch":"x","a":1}"#);
        for bad in [
            &br#"[]"#[..],
            br#"{"type":"other","group_id":"thr_1","view_type":"diff","content":{}}"#,
            br#"{"group_id":"thr_1","view_type":"diff","content":{}}"#,
            br#"{"type":"view_update","view_type":"diff","content":{}}"#,
            br#"{"type":"view_update","group_id":"thr_1","view_type":"","content":{}}"#,
            br#"{"type":"view_update","group_id":"thr_1","view_type":"diff","content":[]}"#,
            br#"{"type":"view_update","group_id":"thr_1","view_type":"diff","content":"x"}"#,
            br#"{"type":"view_update","group_id":"thr_1","view_type":"diff"}"#,
            b"nope",
        ] {
            assert!(
                parse_update(bad).is_err(),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }

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
}
