//! Connections: accepted up to a cap, and up to a share of it per client address, each
//! request's head and body read within a time limit, and all of them finished gracefully
//! on shutdown. Past the cap, a few more are taken for one request each, so probes are
//! always answered.
//!
//! A client that opens connections and sends nothing, half a request head or a body that
//! stops coming would otherwise hold a socket and a task for as long as it likes. The
//! limits never cut a long answer (an SSE run, a thread channel): hyper reads no request
//! head while a response is being written, and the body limit is on request bodies only.
//!
//! HTTP/1.1 only, as before: browsers speak HTTP/2 only over TLS, which the runtime does
//! not terminate.

use crate::clients::{Client, Clients, Kind};
use crate::errors::json_error;
use axum::http::StatusCode;
use axum::response::Response;
use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::{watch, Semaphore};
use tower::Layer;
use tower_http::timeout::{RequestBodyTimeout, TimeoutError};

/// Open connections at most, unless `--max-connections` says otherwise. Browsers open at
/// most 6 per host; the runtime's other files (SQLite, an agent's pipes) need room under
/// the usual limit of 1024 descriptors.
pub const DEFAULT_MAX_CONNECTIONS: usize = 512;
/// Time to send a whole request head, and the longest a kept-alive connection may idle.
pub const DEFAULT_HEADER_TIMEOUT_MS: u64 = 10_000;
/// The longest a request body may pause between two pieces.
pub const DEFAULT_BODY_TIMEOUT_MS: u64 = 30_000;
/// Connections taken past `--max-connections`, each for one request: probes are answered,
/// anything else gets 503. Many clients together can fill the cap; a load balancer must
/// still learn that the instance lives.
const PAST_THE_CAP: usize = 32;
/// A connection past the cap has this long to send its request head.
const PAST_THE_CAP_HEADER_TIMEOUT: Duration = Duration::from_secs(2);

/// What `serve` holds connections to.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    pub max_connections: usize,
    pub header_timeout: Duration,
    pub body_timeout: Duration,
}

/// The address a connection came from (before any `--trust-proxy` forwarding).
#[derive(Clone, Copy, Debug)]
pub struct Peer(pub IpAddr);

/// Serves `app` on `listener` until `stop` turns true, then lets open requests finish (the
/// caller bounds how long it waits for that). Each client address holds at most its share
/// of connections (`clients`), except the `trusted` proxies, which carry many clients.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: Limits,
    clients: Arc<Clients>,
    trusted: Vec<IpAddr>,
    mut stop: watch::Receiver<bool>,
) {
    let permits = Arc::new(Semaphore::new(limits.max_connections));
    let past_the_cap = Arc::new(Semaphore::new(PAST_THE_CAP));
    let graceful = GracefulShutdown::new();
    let mut http = http1::Builder::new();
    // hyper applies the head limit only with a timer; it also closes idle kept-alive
    // connections, whose next head never comes.
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout);
    let mut probe_http = http1::Builder::new();
    probe_http
        .timer(TokioTimer::new())
        .header_read_timeout(PAST_THE_CAP_HEADER_TIMEOUT.min(limits.header_timeout))
        .keep_alive(false);
    // Each said once each time its cap is reached, not once per refused connection.
    let mut refusing = false;
    let mut refusing_client = None;
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => Some(accepted),
            _ = stop.wait_for(|stop| *stop) => None,
        };
        let (tcp, peer) = match accepted {
            None => break,
            Some(Ok((tcp, peer))) => (tcp, peer.ip()),
            // Out of descriptors or a connection reset before it was accepted: wait a
            // little rather than spin, then go on.
            Some(Err(_)) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let client = Client::of(peer);
        let share = if trusted.contains(&peer) {
            None
        } else {
            match clients.take(Kind::Connection, client) {
                Ok(share) => Some(share),
                Err(_) => {
                    if refusing_client != Some(client) {
                        println!(
                            "connections refused: {client} holds {} (--max-connections-per-client)",
                            clients.limits().connections
                        );
                        refusing_client = Some(client);
                    }
                    drop(tcp);
                    continue;
                }
            }
        };
        let app = axum::Extension(Peer(peer)).layer(app.clone());
        let Ok(permit) = permits.clone().try_acquire_owned() else {
            if !refusing {
                println!(
                    "connections refused: {} are open (--max-connections); probes still answered",
                    limits.max_connections
                );
                refusing = true;
            }
            let Ok(permit) = past_the_cap.clone().try_acquire_owned() else {
                // Closed at once: waiting in the backlog would hold the client to no end.
                drop(tcp);
                continue;
            };
            let service = TowerToHyperService::new(tower::util::service_fn(move |req| {
                probes_only(app.clone(), req)
            }));
            let conn = graceful.watch(probe_http.serve_connection(TokioIo::new(tcp), service));
            tokio::spawn(async move {
                let _ = conn.await;
                drop((permit, share));
            });
            continue;
        };
        refusing = false;
        let service = TowerToHyperService::new(RequestBodyTimeout::new(app, limits.body_timeout));
        let conn = graceful.watch(http.serve_connection(TokioIo::new(tcp), service));
        tokio::spawn(async move {
            // A client that leaves or breaks the protocol ends only its own connection.
            let _ = conn.await;
            drop((permit, share));
        });
    }
    drop(listener);
    graceful.shutdown().await;
}

/// A request on a connection past the cap: `/healthz` and `/readyz` as always, anything
/// else 503 with `Retry-After`.
async fn probes_only<S>(
    app: S,
    req: axum::http::Request<hyper::body::Incoming>,
) -> Result<Response, std::convert::Infallible>
where
    S: tower::Service<
        axum::http::Request<hyper::body::Incoming>,
        Response = Response,
        Error = std::convert::Infallible,
    >,
{
    use tower::ServiceExt;
    if matches!(req.uri().path(), "/healthz" | "/readyz") {
        return app.oneshot(req).await;
    }
    let mut busy = json_error(
        StatusCode::SERVICE_UNAVAILABLE,
        "busy",
        "the server holds as many connections as it takes (--max-connections): try again shortly",
    );
    crate::clients::retry_after_header(busy.headers_mut(), Duration::from_secs(1));
    Ok(busy)
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
