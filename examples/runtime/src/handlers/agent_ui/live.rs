//! Live runs: `long`, generated as it goes, which takes queued and steering turns.

use super::live_runs::{Command, Turn};
use super::writes::{envelope, STATUS_HOLD};
use crate::handlers::events;
use crate::sse::{pause, Frame, Waited};
use crate::state::AppState;
use serde_json::{json, Value};
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, watch};
use tokio::time::Instant as TokioInstant;

// --- live runs: `long`, queue and steer --------------------------------------------------

/// What a live run's `run.started` offers (`payload.controls`).
pub(super) const CONTROLS: [&str; 2] = ["queue", "steer"];
/// The deltas of a live run come this far apart whatever `--pace-ms`: a person (or a test)
/// must have time to queue or steer while it runs.
pub(super) const LIVE_PACE: Duration = Duration::from_millis(150);
/// Steps of the `long` answer (about six seconds).
pub(super) const LONG_STEPS: u32 = 40;
/// Steps of the answer after a steer.
pub(super) const STEER_STEPS: u32 = 10;
/// A queued or steering text is quoted back up to this many characters.
pub(super) const QUOTE_CHARS: usize = 200;
/// The first `QUOTE_CHARS` characters of `text`, trimmed.
pub(super) fn quote(text: &str) -> String {
    text.trim().chars().take(QUOTE_CHARS).collect()
}

/// One run of a live stream: its ids, its last sequence and the message it is writing.
#[derive(Debug)]
pub(super) struct LiveRun {
    pub(super) id: String,
    pub(super) thread_id: String,
    pub(super) sequence: u64,
    /// The run's first message; a steer's message is named after it.
    pub(super) base_message: String,
    pub(super) message_id: String,
    /// What the current message has streamed so far.
    pub(super) text: String,
    pub(super) steers: u32,
    /// The deltas still to send, `LIVE_PACE` apart.
    pub(super) deltas: VecDeque<String>,
    /// The `long` run shows a runtime status before its text.
    pub(super) status: Option<&'static str>,
}

impl LiveRun {
    pub(super) fn new(
        id: String,
        message_id: String,
        thread_id: String,
        deltas: Vec<String>,
    ) -> LiveRun {
        LiveRun {
            id,
            thread_id,
            sequence: 0,
            base_message: message_id.clone(),
            message_id,
            text: String::new(),
            steers: 0,
            deltas: deltas.into(),
            status: None,
        }
    }

    /// `run-long-<n>`: forty steps on `msg-long-<n>`.
    pub(super) fn long(n: u64, thread_id: String) -> LiveRun {
        let steps = (1..=LONG_STEPS)
            .map(|i| format!("Step {i} of {LONG_STEPS}. "))
            .collect();
        LiveRun {
            status: Some("Writing a long answer"),
            ..LiveRun::new(
                format!("run-long-{n}"),
                format!("msg-long-{n}"),
                thread_id,
                steps,
            )
        }
    }

    /// `run-queued-<n>`, answering queued `text` on `msg-run-queued-<n>`.
    pub(super) fn queued(n: u64, thread_id: String, text: &str) -> LiveRun {
        let id = format!("run-queued-{n}");
        let deltas = vec![
            "You queued: ".to_owned(),
            format!("«{}». ", quote(text)),
            "Done.".to_owned(),
        ];
        LiveRun::new(id.clone(), format!("msg-{id}"), thread_id, deltas)
    }

    /// Its next event.
    pub(super) fn event(&mut self, kind: &str, fields: Value) -> String {
        self.sequence += 1;
        envelope(kind, self.sequence, &self.id, &self.thread_id, fields)
    }

    /// Drops the steps not sent yet and starts a new message that changes course.
    pub(super) fn steer(&mut self, text: &str) {
        self.steers += 1;
        self.message_id = format!("{}-steer-{}", self.base_message, self.steers);
        self.text.clear();
        self.deltas = std::iter::once(format!("Changing course: {}. ", quote(text)))
            .chain((1..=STEER_STEPS).map(|i| format!("Step {i} of {STEER_STEPS}. ")))
            .collect();
    }
}

/// The stream ended before its runs did.
#[derive(Debug)]
pub(super) enum Gone {
    /// The client left: like Stop, the run and its queue are dropped.
    Left,
    Shutdown,
}

/// The task writing a live stream: its runs one after the other, queued turns included.
pub(super) struct LiveStream {
    pub(super) state: Arc<AppState>,
    pub(super) owner: String,
    pub(super) tx: mpsc::Sender<Frame>,
    /// Kept to register the next run of the stream with the same channel.
    pub(super) commands_tx: mpsc::UnboundedSender<Command>,
    pub(super) commands: mpsc::UnboundedReceiver<Command>,
    /// Queued turns, in order; they carry over from one run to the next.
    pub(super) queue: VecDeque<Turn>,
    pub(super) run: LiveRun,
    /// When the next delta is due.
    pub(super) next_at: TokioInstant,
    pub(super) last_write: TokioInstant,
    pub(super) shutdown: watch::Receiver<bool>,
    pub(super) sent: usize,
}

impl Drop for LiveStream {
    /// However the task ends, its run is no longer live.
    fn drop(&mut self) {
        self.state.live.remove(&self.run.id);
    }
}

impl LiveStream {
    pub(super) async fn write(mut self) {
        match self.write_runs().await {
            Ok(()) | Err(Gone::Shutdown) => {}
            Err(Gone::Left) => println!(
                "agent-ui stream closed by client: {} after {} events, {} queued turns dropped",
                self.run.id,
                self.sent,
                self.queue.len()
            ),
        }
    }

    pub(super) async fn write_runs(&mut self) -> Result<(), Gone> {
        loop {
            self.write_run().await?;
            let Some(turn) = self.queue.pop_front() else {
                return self.emit("run.finished", finished()).await;
            };
            // The next queued turn becomes a run of its own on this stream; the one that
            // just finished says so first.
            let next = LiveRun::queued(
                self.state.live.next_number(),
                self.run.thread_id.clone(),
                &turn.text,
            );
            let mut queued = vec![json!({
                "turnId": turn.id, "text": turn.text, "status": "started", "runId": next.id
            })];
            queued.extend(self.queued());
            self.emit("queue.changed", queue_changed(json!({ "queued": queued })))
                .await?;
            self.emit("run.finished", finished()).await?;
            self.run = next;
            // Live before its run.started goes out; the turns still queued stay queued.
            self.state.live.register(
                &self.run.id,
                &self.owner,
                &self.commands_tx,
                self.queue.len(),
            );
        }
    }

    /// One run up to its `text.final` (its `run.finished` is the caller's); it is no longer
    /// live once it returns.
    pub(super) async fn write_run(&mut self) -> Result<(), Gone> {
        let started = json!({
            "owner": "runtime",
            "phase": "submitted",
            "payload": { "controls": CONTROLS },
        });
        self.emit("run.started", started).await?;
        self.next_at = TokioInstant::now() + LIVE_PACE;
        if let Some(label) = self.run.status {
            let status = json!({
                "owner": "runtime",
                "surface": "runtime_status",
                "payload": { "status": "working", "label": label },
            });
            self.emit("run.status", status).await?;
            self.next_at = TokioInstant::now() + LIVE_PACE.max(STATUS_HOLD);
        }
        loop {
            if self.run.deltas.is_empty() {
                match self.finish_or_next() {
                    Some(command) => {
                        self.apply(command).await?;
                        continue;
                    }
                    None => break,
                }
            }
            let delay = self.next_at.saturating_duration_since(TokioInstant::now());
            let woke = tokio::select! {
                // A turn is shown as soon as it comes, between two deltas.
                biased;
                Some(command) = self.commands.recv() => Err(command),
                waited = pause(delay, true, &self.tx, &mut self.last_write, &mut self.shutdown) => {
                    Ok(waited)
                }
            };
            match woke {
                Err(command) => self.apply(command).await?,
                Ok(Waited::Ready) => self.delta().await?,
                Ok(Waited::Closed) => return Err(Gone::Left),
                Ok(Waited::Shutdown) => return Err(Gone::Shutdown),
            }
        }
        self.final_text().await
    }

    /// With nothing left to stream, the run is over unless a turn came meanwhile; decided
    /// under the registry's lock, so a turn accepted before that is never lost.
    pub(super) fn finish_or_next(&mut self) -> Option<Command> {
        let mut runs = self.state.live.lock();
        match self.commands.try_recv() {
            Ok(command) => Some(command),
            Err(_) => {
                runs.remove(&self.run.id);
                None
            }
        }
    }

    pub(super) async fn apply(&mut self, command: Command) -> Result<(), Gone> {
        match command {
            Command::Queue(turn) => {
                self.queue.push_back(turn);
                let queued = self.queued();
                self.emit("queue.changed", queue_changed(json!({ "queued": queued })))
                    .await
            }
            Command::Steer(turn) => {
                let payload = json!({
                    "steer": { "turnId": turn.id, "text": turn.text, "status": "applied" },
                    "queued": self.queued(),
                });
                self.emit("queue.changed", queue_changed(payload)).await?;
                // The message so far is final; nothing streamed means no message to close.
                self.final_text().await?;
                self.run.steer(&turn.text);
                self.next_at = TokioInstant::now();
                Ok(())
            }
        }
    }

    /// The next delta of the current message.
    pub(super) async fn delta(&mut self) -> Result<(), Gone> {
        let Some(delta) = self.run.deltas.pop_front() else {
            return Ok(());
        };
        self.run.text.push_str(&delta);
        let event = json!({
            "messageId": self.run.message_id,
            "owner": "model",
            "surface": "conversation",
            "payload": { "delta": delta },
        });
        self.emit("text.delta", event).await?;
        self.next_at = TokioInstant::now() + LIVE_PACE;
        Ok(())
    }

    /// `text.final` of the current message, if it streamed anything.
    pub(super) async fn final_text(&mut self) -> Result<(), Gone> {
        if self.run.text.is_empty() {
            return Ok(());
        }
        let text = std::mem::take(&mut self.run.text);
        let event = json!({
            "messageId": self.run.message_id,
            "owner": "model",
            "payload": { "text": text },
        });
        self.emit("text.final", event).await
    }

    /// The turns still queued, as `queue.changed` lists them.
    pub(super) fn queued(&self) -> Vec<Value> {
        self.queue
            .iter()
            .map(|turn| json!({ "turnId": turn.id, "text": turn.text, "status": "queued" }))
            .collect()
    }

    /// Sends the current run's next event, framed like every `/agent-ui` event.
    pub(super) async fn emit(&mut self, kind: &str, fields: Value) -> Result<(), Gone> {
        let data = self.run.event(kind, fields);
        self.tx
            .send(Ok(events::message_frame(&data)))
            .await
            .map_err(|_| Gone::Left)?;
        self.sent += 1;
        self.last_write = TokioInstant::now();
        Ok(())
    }
}

pub(super) fn queue_changed(payload: Value) -> Value {
    json!({ "owner": "runtime", "surface": "composer", "payload": payload })
}

pub(super) fn finished() -> Value {
    json!({ "owner": "runtime", "phase": "completed", "payload": { "outcome": "completed" } })
}
