//! Fair shares per client: what one client address may hold at once (connections, thread
//! channels, runs, draft agent sessions) and how fast it may mint identities.
//!
//! Identities come from a cookie, and a client that drops its cookie gets a new one, so a
//! cap per identity binds nobody who wants to get around it. The caps here count by the
//! address the request came from: the peer's, or with `--trust-proxy` the address the
//! proxy forwarded. IPv6 addresses count by their /64, which one host usually has whole.
//! On top of them, runs have one cap for everyone, so that no mix of clients can start
//! more agent work than the operator planned for.

use axum::body::Body;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Where a request came from, as the caps count it. Set by `connections` for the peer,
/// replaced by the guard with the forwarded address when the peer is a trusted proxy.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Client(IpAddr);

impl Client {
    pub fn of(ip: IpAddr) -> Client {
        let ip = match ip {
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => IpAddr::V4(v4),
                None => {
                    let mut octets = v6.octets();
                    octets[8..].fill(0);
                    IpAddr::V6(octets.into())
                }
            },
            v4 => v4,
        };
        Client(ip)
    }
}

impl std::fmt::Display for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// What one client may hold (`--max-*-per-client`), and the cap on runs for everyone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub connections: usize,
    pub channels: usize,
    pub runs: usize,
    pub drafts: usize,
    /// New identities a minute; as many at once.
    pub identities_per_minute: u32,
    /// Runs under way on this instance, for all clients together.
    pub runs_total: usize,
}

pub const DEFAULT_CONNECTIONS: usize = 64;
pub const DEFAULT_CHANNELS: usize = 48;
pub const DEFAULT_RUNS: usize = 16;
pub const DEFAULT_DRAFTS: usize = 8;
pub const DEFAULT_IDENTITIES_PER_MINUTE: u32 = 120;
pub const DEFAULT_RUNS_TOTAL: usize = 128;

impl Default for Limits {
    fn default() -> Self {
        Limits {
            connections: DEFAULT_CONNECTIONS,
            channels: DEFAULT_CHANNELS,
            runs: DEFAULT_RUNS,
            drafts: DEFAULT_DRAFTS,
            identities_per_minute: DEFAULT_IDENTITIES_PER_MINUTE,
            runs_total: DEFAULT_RUNS_TOTAL,
        }
    }
}

/// What a share is of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    Connection,
    Channel,
    Run,
    Draft,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Connection => "connections",
            Kind::Channel => "thread channels",
            Kind::Run => "answers under way",
            Kind::Draft => "draft agent sessions",
        }
    }

    fn flag(self) -> &'static str {
        match self {
            Kind::Connection => "--max-connections-per-client",
            Kind::Channel => "--max-channels-per-client",
            Kind::Run => "--max-runs-per-client",
            Kind::Draft => "--max-drafts-per-client",
        }
    }
}

/// The counts of every client, and its identity budget.
pub struct Clients {
    limits: Limits,
    held: Mutex<Held>,
}

#[derive(Default)]
struct Held {
    counts: HashMap<(Kind, Client), usize>,
    runs_total: usize,
    /// Each client's identity budget: tokens left, and when it was last refilled.
    mints: HashMap<Client, (f64, Instant)>,
}

/// Why a share was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    /// The client holds as many as its cap.
    Client(Kind),
    /// Every client together holds as many runs as the instance takes.
    Everyone,
}

/// The budget of identities is swept of full, idle entries past this many clients.
const MINT_SWEEP: usize = 4096;

impl Default for Clients {
    fn default() -> Self {
        Clients {
            limits: Limits::default(),
            held: Mutex::new(Held::default()),
        }
    }
}

impl Clients {
    pub fn new(limits: Limits) -> Arc<Clients> {
        Arc::new(Clients {
            limits,
            held: Mutex::new(Held::default()),
        })
    }

    pub fn limits(&self) -> Limits {
        self.limits
    }

    fn lock(&self) -> MutexGuard<'_, Held> {
        self.held.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn cap(&self, kind: Kind) -> usize {
        match kind {
            Kind::Connection => self.limits.connections,
            Kind::Channel => self.limits.channels,
            Kind::Run => self.limits.runs,
            Kind::Draft => self.limits.drafts,
        }
    }

    /// One more `kind` for `client`, held until the share is dropped; refused at its cap.
    pub fn take(self: &Arc<Self>, kind: Kind, client: Client) -> Result<Share, Refused> {
        let mut held = self.lock();
        let n = held.counts.get(&(kind, client)).copied().unwrap_or(0);
        if n >= self.cap(kind) {
            return Err(Refused::Client(kind));
        }
        if kind == Kind::Run {
            if held.runs_total >= self.limits.runs_total {
                return Err(Refused::Everyone);
            }
            held.runs_total += 1;
        }
        held.counts.insert((kind, client), n + 1);
        Ok(Share {
            clients: self.clone(),
            kind,
            client,
        })
    }

    /// How many `kind` `client` holds now.
    #[cfg(test)]
    pub fn holds(&self, kind: Kind, client: Client) -> usize {
        self.lock()
            .counts
            .get(&(kind, client))
            .copied()
            .unwrap_or(0)
    }

    /// Whether `client` may mint one more identity now; else how long until it may.
    pub fn mint(&self, client: Client, now: Instant) -> Result<(), Duration> {
        let per_minute = f64::from(self.limits.identities_per_minute.max(1));
        let per_sec = per_minute / 60.0;
        let mut held = self.lock();
        if held.mints.len() >= MINT_SWEEP {
            // A full budget is what a client nobody has seen gets anyway.
            held.mints.retain(|_, (tokens, at)| {
                *tokens + now.saturating_duration_since(*at).as_secs_f64() * per_sec < per_minute
            });
        }
        let (tokens, at) = held.mints.entry(client).or_insert((per_minute, now));
        *tokens =
            (*tokens + now.saturating_duration_since(*at).as_secs_f64() * per_sec).min(per_minute);
        *at = now;
        if *tokens >= 1.0 {
            *tokens -= 1.0;
            Ok(())
        } else {
            Err(Duration::from_secs_f64((1.0 - *tokens) / per_sec))
        }
    }
}

/// One connection, channel, run or draft session of a client, counted while it lives.
pub struct Share {
    clients: Arc<Clients>,
    kind: Kind,
    client: Client,
}

impl Share {
    pub fn client(&self) -> Client {
        self.client
    }

    /// One more of the same, not checked against the caps: the same thing held by a second
    /// owner (a run's admission, then the run).
    pub fn again(&self) -> Share {
        let mut held = self.clients.lock();
        *held.counts.entry((self.kind, self.client)).or_default() += 1;
        if self.kind == Kind::Run {
            held.runs_total += 1;
        }
        Share {
            clients: self.clients.clone(),
            kind: self.kind,
            client: self.client,
        }
    }
}

impl Drop for Share {
    fn drop(&mut self) {
        let mut held = self.clients.lock();
        let key = (self.kind, self.client);
        if let Some(n) = held.counts.get_mut(&key) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                held.counts.remove(&key);
            }
        }
        if self.kind == Kind::Run {
            held.runs_total = held.runs_total.saturating_sub(1);
        }
    }
}

impl Clients {
    /// The answer to a refused share: 429 with `Retry-After`, saying which cap and its flag.
    pub fn too_many(&self, refused: Refused) -> Response {
        let limits = &self.limits;
        let (code, message, retry) = match refused {
            Refused::Client(kind) => (
                "too_many_for_client",
                format!(
                    "this client address holds {} {} already ({}): wait for one to end",
                    self.cap(kind),
                    kind.name(),
                    kind.flag()
                ),
                match kind {
                    Kind::Run => Duration::from_secs(5),
                    _ => Duration::from_secs(10),
                },
            ),
            Refused::Everyone => (
                "busy",
                format!(
                    "{} answers are under way on this server (--max-runs-total): try again \
                     shortly",
                    limits.runs_total
                ),
                Duration::from_secs(5),
            ),
        };
        let mut response = crate::errors::json_error(StatusCode::TOO_MANY_REQUESTS, code, &message);
        retry_after_header(response.headers_mut(), retry);
        response
    }
}

/// `response` holding `share` until its body is dropped: a stream that ends when its client
/// leaves counts for as long as it is written.
pub fn held(response: Response, share: Share) -> Response {
    use futures_util::StreamExt;
    let (parts, body) = response.into_parts();
    let stream = body.into_data_stream().map(move |chunk| {
        let _held = &share;
        chunk
    });
    Response::from_parts(parts, Body::from_stream(stream))
}

pub fn retry_after_header(headers: &mut HeaderMap, after: Duration) {
    let secs = after.as_secs_f64().ceil().max(1.0) as u64;
    if let Ok(v) = HeaderValue::from_str(&secs.to_string()) {
        headers.insert(header::RETRY_AFTER, v);
    }
}

/// The client a request came from through `--trust-proxy` proxies: the rightmost address
/// of `X-Forwarded-For` that is not one of them (what a client writes further left is its
/// own claim); the peer when the peer is no trusted proxy or the header says nothing usable.
pub fn forwarded(peer: IpAddr, headers: &HeaderMap, proxies: &[IpAddr]) -> Client {
    if !proxies.contains(&peer) {
        return Client::of(peer);
    }
    let hops: Vec<IpAddr> = headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map_while(|hop| hop.trim().parse::<IpAddr>().ok())
        .collect();
    let client = hops
        .iter()
        .rev()
        .find(|ip| !proxies.contains(ip))
        .or(hops.first())
        .copied()
        .unwrap_or(peer);
    Client::of(client)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> Limits {
        Limits {
            connections: 2,
            channels: 2,
            runs: 2,
            drafts: 1,
            identities_per_minute: 60,
            runs_total: 3,
        }
    }

    fn at(ip: &str) -> Client {
        Client::of(ip.parse().unwrap())
    }

    #[test]
    fn shares_count_per_client_and_come_back_when_dropped() {
        let clients = Clients::new(limits());
        let (a, b) = (at("127.0.0.2"), at("127.0.0.3"));
        let first = clients.take(Kind::Channel, a).unwrap();
        let _second = clients.take(Kind::Channel, a).unwrap();
        assert_eq!(
            clients.take(Kind::Channel, a).err(),
            Some(Refused::Client(Kind::Channel))
        );
        // Another client, and another kind, are not touched.
        let _other = clients.take(Kind::Channel, b).unwrap();
        let _conn = clients.take(Kind::Connection, a).unwrap();
        drop(first);
        assert_eq!(clients.holds(Kind::Channel, a), 1);
        assert!(clients.take(Kind::Channel, a).is_ok());
    }

    #[test]
    fn runs_have_a_cap_for_everyone() {
        let clients = Clients::new(limits());
        let a1 = clients.take(Kind::Run, at("10.0.0.1")).unwrap();
        let _a2 = a1.again();
        let _b = clients.take(Kind::Run, at("10.0.0.2")).unwrap();
        assert_eq!(
            clients.take(Kind::Run, at("10.0.0.3")).err(),
            Some(Refused::Everyone)
        );
        drop(a1);
        assert!(clients.take(Kind::Run, at("10.0.0.3")).is_ok());
    }

    #[test]
    fn identities_are_minted_at_the_rate_then_refused_with_a_wait() {
        let clients = Clients::new(limits());
        let (a, b) = (at("127.0.0.2"), at("127.0.0.3"));
        let t0 = Instant::now();
        for _ in 0..60 {
            assert!(clients.mint(a, t0).is_ok());
        }
        let wait = clients.mint(a, t0).unwrap_err();
        assert!(wait > Duration::from_millis(900) && wait <= Duration::from_secs(1));
        assert!(
            clients.mint(b, t0).is_ok(),
            "another client has its own budget"
        );
        assert!(clients.mint(a, t0 + Duration::from_secs(1)).is_ok());
        assert!(clients.mint(a, t0 + Duration::from_secs(1)).is_err());
    }

    #[test]
    fn ipv6_counts_by_its_64_and_mapped_v4_as_v4() {
        assert_eq!(at("2001:db8::1"), at("2001:db8::ffff:2"));
        assert_ne!(at("2001:db8::1"), at("2001:db8:0:1::1"));
        assert_eq!(at("::ffff:10.1.2.3"), at("10.1.2.3"));
    }

    #[test]
    fn forwarded_addresses_count_only_through_trusted_proxies() {
        let proxy: IpAddr = "10.0.0.9".parse().unwrap();
        let mut headers = HeaderMap::new();
        headers.insert(
            "x-forwarded-for",
            HeaderValue::from_static("6.6.6.6, 203.0.113.7"),
        );
        // Not through the proxy: the peer, whatever the header claims.
        assert_eq!(
            forwarded("198.51.100.1".parse().unwrap(), &headers, &[proxy]),
            at("198.51.100.1")
        );
        // Through it: the rightmost hop not a proxy (the left one is the client's claim).
        assert_eq!(forwarded(proxy, &headers, &[proxy]), at("203.0.113.7"));
        headers.insert(
            "x-forwarded-for",
            HeaderValue::from_static("203.0.113.7, 10.0.0.9"),
        );
        assert_eq!(forwarded(proxy, &headers, &[proxy]), at("203.0.113.7"));
        assert_eq!(
            forwarded(proxy, &HeaderMap::new(), &[proxy]),
            at("10.0.0.9")
        );
    }
}
