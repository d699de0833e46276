//! The SSE writer: a streamed answer is a run (`crate::runs`) on its own task, whose steps
//! are saved (`saver`), published to the thread's channels and written to the response that
//! started it (`writer`), with keepalive comments while it is silent.

pub mod saver;
pub mod writer;

use axum::body::{Body, Bytes};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use std::time::Duration;
use tokio::sync::{mpsc, watch};
// The writer's clock is tokio's, so tests can pause time and see keepalives.
use tokio::time::Instant as TokioInstant;

/// A stream silent for this long gets a `: keepalive` comment (proxies drop idle ones).
const KEEPALIVE: Duration = Duration::from_secs(10);

pub(crate) type Frame = Result<Bytes, std::io::Error>;

pub(crate) fn sse(body: Body) -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

pub(crate) enum Waited {
    Ready,
    Closed,
    Shutdown,
}

/// Waits `delay`, sending keepalive comments if allowed; stops early when the client
/// leaves or the server shuts down.
pub(crate) async fn pause(
    delay: Duration,
    keepalive: bool,
    tx: &mpsc::Sender<Frame>,
    last_write: &mut TokioInstant,
    shutdown: &mut watch::Receiver<bool>,
) -> Waited {
    let deadline = TokioInstant::now() + delay;
    loop {
        if tx.is_closed() {
            return Waited::Closed;
        }
        if *shutdown.borrow() {
            return Waited::Shutdown;
        }
        let now = TokioInstant::now();
        if now >= deadline {
            return Waited::Ready;
        }
        let wake = if keepalive {
            deadline.min(*last_write + KEEPALIVE)
        } else {
            deadline
        };
        tokio::select! {
            _ = tokio::time::sleep_until(wake) => {
                if keepalive && TokioInstant::now() >= *last_write + KEEPALIVE {
                    if tx.send(Ok(Bytes::from_static(b": keepalive\n\n"))).await.is_err() {
                        return Waited::Closed;
                    }
                    *last_write = TokioInstant::now();
                }
            }
            _ = tx.closed() => return Waited::Closed,
            changed = shutdown.changed() => {
                if changed.is_err() || *shutdown.borrow() {
                    return Waited::Shutdown;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `pause` on paused time and returns its outcome with the frames it sent.
    async fn paused(delay: Duration, keepalive: bool) -> (&'static str, Vec<Bytes>) {
        let (tx, mut rx) = mpsc::channel::<Frame>(16);
        let (_stop_tx, mut stop) = watch::channel(false);
        let mut last_write = TokioInstant::now();
        let outcome = match pause(delay, keepalive, &tx, &mut last_write, &mut stop).await {
            Waited::Ready => "ready",
            Waited::Closed => "closed",
            Waited::Shutdown => "shutdown",
        };
        drop(tx);
        let mut frames = Vec::new();
        while let Some(Ok(frame)) = rx.recv().await {
            frames.push(frame);
        }
        (outcome, frames)
    }

    #[tokio::test(start_paused = true)]
    async fn silence_longer_than_ten_seconds_gets_keepalives() {
        let (outcome, frames) = paused(Duration::from_secs(25), true).await;
        assert_eq!(outcome, "ready");
        assert_eq!(
            frames,
            [
                Bytes::from_static(b": keepalive\n\n"),
                Bytes::from_static(b": keepalive\n\n")
            ]
        );
        let (_, frames) = paused(Duration::from_secs(9), true).await;
        assert!(frames.is_empty());
        // A stall says nothing at all.
        let (outcome, frames) = paused(Duration::from_secs(120), false).await;
        assert_eq!((outcome, frames.len()), ("ready", 0));
    }

    #[tokio::test(start_paused = true)]
    async fn a_pause_ends_when_the_client_leaves_or_the_server_stops() {
        let (tx, rx) = mpsc::channel::<Frame>(16);
        let (stop_tx, mut stop) = watch::channel(false);
        let mut last_write = TokioInstant::now();
        let leave = tokio::spawn(async move {
            tokio::time::sleep(Duration::from_secs(5)).await;
            drop(rx);
        });
        let started = TokioInstant::now();
        let outcome = pause(
            Duration::from_secs(120),
            false,
            &tx,
            &mut last_write,
            &mut stop,
        )
        .await;
        assert!(matches!(outcome, Waited::Closed));
        assert!(started.elapsed() < Duration::from_secs(6));
        leave.await.unwrap();

        let (tx, _rx) = mpsc::channel::<Frame>(16);
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_secs(1)).await;
            let _ = stop_tx.send(true);
        });
        let outcome = pause(
            Duration::from_secs(120),
            true,
            &tx,
            &mut last_write,
            &mut stop,
        )
        .await;
        assert!(matches!(outcome, Waited::Shutdown));
    }
}
