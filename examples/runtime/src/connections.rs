//! Connections: accepted up to a cap, each request's head and body read within a time
//! limit, and all of them finished gracefully on shutdown.
//!
//! A client that opens connections and sends nothing, half a request head or a body that
//! stops coming would otherwise hold a socket and a task for as long as it likes. The
//! limits never cut a long answer (an SSE run, a thread channel): hyper reads no request
//! head while a response is being written, and the body limit is on request bodies only.
//!
//! HTTP/1.1 only, as before: browsers speak HTTP/2 only over TLS, which the runtime does
//! not terminate.

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::{watch, Semaphore};
use tower_http::timeout::{RequestBodyTimeout, TimeoutError};

/// Open connections at most, unless `--max-connections` says otherwise. Browsers open at
/// most 6 per host; the runtime's other files (SQLite, an agent's pipes) need room under
/// the usual limit of 1024 descriptors.
pub const DEFAULT_MAX_CONNECTIONS: usize = 512;
/// Time to send a whole request head, and the longest a kept-alive connection may idle.
pub const DEFAULT_HEADER_TIMEOUT_MS: u64 = 10_000;
/// The longest a request body may pause between two pieces.
pub const DEFAULT_BODY_TIMEOUT_MS: u64 = 30_000;

/// What `serve` holds connections to.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub max_connections: usize,
    pub header_timeout: Duration,
    pub body_timeout: Duration,
}

/// Serves `app` on `listener` until `stop` turns true, then lets open requests finish (the
/// caller bounds how long it waits for that).
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: Limits,
    mut stop: watch::Receiver<bool>,
) {
    let permits = Arc::new(Semaphore::new(limits.max_connections));
    let graceful = GracefulShutdown::new();
    let mut http = http1::Builder::new();
    // hyper applies the head limit only with a timer; it also closes idle kept-alive
    // connections, whose next head never comes.
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout);
    // Said once each time the cap is reached, not once per refused connection.
    let mut refusing = false;
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => Some(accepted),
            _ = stop.wait_for(|stop| *stop) => None,
        };
        let tcp = match accepted {
            None => break,
            Some(Ok((tcp, _))) => tcp,
            // Out of descriptors or a connection reset before it was accepted: wait a
            // little rather than spin, then go on.
            Some(Err(_)) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Ok(permit) = permits.clone().try_acquire_owned() else {
            if !refusing {
                println!(
                    "connections refused: {} are open (--max-connections)",
                    limits.max_connections
                );
                refusing = true;
            }
            // Closed at once: waiting in the backlog would hold the client to no end.
            drop(tcp);
            continue;
        };
        refusing = false;
        let service =
            TowerToHyperService::new(RequestBodyTimeout::new(app.clone(), limits.body_timeout));
        let conn = graceful.watch(http.serve_connection(TokioIo::new(tcp), service));
        tokio::spawn(async move {
            // A client that leaves or breaks the protocol ends only its own connection.
            let _ = conn.await;
            drop(permit);
        });
    }
    drop(listener);
    graceful.shutdown().await;
}

/// Whether `error` (a body read's, through any wrapping) is a request body that stopped
/// arriving: answered 408, not as a malformed or oversized body.
pub fn body_timed_out(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut next = Some(error);
    while let Some(error) = next {
        if error.is::<TimeoutError>() {
            return true;
        }
        next = error.source();
    }
    false
}
