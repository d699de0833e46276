//! What every request passes before a handler sees it:
//!
//! 1. `Host` must be one this runtime answers to (DNS rebinding): by default
//!    `127.0.0.1:<port>`, `localhost:<port>`, `[::1]:<port>` and the address it is bound
//!    to, plus every `--allowed-host`. Else 421.
//! 2. A request from another site is refused (403): an `Origin` that is neither the
//!    runtime's own (`http(s)://` + the `Host` it was reached at) nor an `--allow-origin`;
//!    or, where there is no `Origin`, a state-changing request that `Sec-Fetch-Site` says
//!    came from another site. Configured origins get CORS headers and preflights; nobody
//!    else does.
//! 3. Identity (see `auth`): a configured bearer token, a cookie this runtime issued, or a
//!    new cookie identity, set on the response. Unknown tokens get 401, and so does a
//!    request from an `--allow-origin` page that brings neither a token nor our cookie.
//!    The client address (see `clients`) is set too; new identities are minted at a
//!    bounded rate per address (429 past it). A host app that embeds the runtime may say
//!    who is asking instead (`auth::Identify`): what it refuses gets 401.
//!
//! Embedded, the address is the host app's connection info (`ConnectInfo<SocketAddr>`)
//! when it serves with it; without it every request counts as one client.
//!
//! `POST /callback` (tools pushing views, server to server) passes only step 1: its
//! handler checks the callback token itself.

pub(crate) mod policy;

use crate::auth::{self, Credential, User};
use crate::clients;
use crate::connections::Peer;
use crate::errors::json_error;
use crate::state::AppState;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::atomic::Ordering;
use std::sync::Arc;

fn header_str<'a>(headers: &'a HeaderMap, name: &header::HeaderName) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// The request's `Host` (or, over HTTP/2, its URI's authority).
fn request_host(req: &Request) -> Option<String> {
    header_str(req.headers(), &header::HOST)
        .map(str::to_owned)
        .or_else(|| req.uri().authority().map(|a| a.to_string()))
}

/// The middleware: checks, identifies, then runs the handler.
pub async fn check(State(state): State<Arc<AppState>>, mut req: Request, next: Next) -> Response {
    let policy = &state.policy;
    let Some(host) = request_host(&req).filter(|h| policy.host_allowed(h)) else {
        return json_error(
            StatusCode::MISDIRECTED_REQUEST,
            "misdirected_request",
            "this runtime does not answer to that Host (see --allowed-host)",
        );
    };

    // Tools calling back (server to server) prove themselves with the callback token,
    // checked by the handler: no browser origin or identity rules apply.
    if req.uri().path() == "/callback" {
        return next.run(req).await;
    }

    // 2. Where the request comes from.
    let headers = req.headers();
    let origin = header_str(headers, &header::ORIGIN).map(str::to_owned);
    let fetch_site = header_str(headers, &header::HeaderName::from_static("sec-fetch-site"))
        .unwrap_or_default()
        .to_ascii_lowercase();
    let cross_origin = match &origin {
        None => None,
        Some(o) if is_own_origin(o, &host) => None,
        Some(o) if policy.origin_allowed(o) => Some(o.clone()),
        Some(_) => {
            return json_error(
                StatusCode::FORBIDDEN,
                "forbidden_origin",
                "cross-origin requests are refused (see --allow-origin)",
            );
        }
    };
    let safe = matches!(*req.method(), Method::GET | Method::HEAD);
    if origin.is_none() && !safe && matches!(fetch_site.as_str(), "cross-site" | "same-site") {
        return json_error(
            StatusCode::FORBIDDEN,
            "forbidden_origin",
            "requests from other sites are refused",
        );
    }
    if let Some(origin) = &cross_origin {
        if req.method() == Method::OPTIONS
            && req
                .headers()
                .contains_key(header::ACCESS_CONTROL_REQUEST_METHOD)
        {
            return with_cors(preflight(req.headers()), origin);
        }
    }

    // 3. Who is asking, and from where: the caps of `clients` count by the address.
    let peer = match req.extensions().get::<Peer>() {
        Some(Peer(peer)) => *peer,
        None => match req.extensions().get::<ConnectInfo<SocketAddr>>() {
            Some(ConnectInfo(address)) => address.ip(),
            None => IpAddr::V4(Ipv4Addr::UNSPECIFIED),
        },
    };
    let client = clients::forwarded(peer, req.headers(), &state.trusted_proxies);
    req.extensions_mut().insert(client);
    let mut new_cookie = None;
    if let Some(identify) = &state.identify {
        // The host app's own login says who this is: no token, no cookie of ours.
        let (parts, body) = req.into_parts();
        let user = identify(&parts).and_then(|id| auth::app_user(&id));
        req = Request::from_parts(parts, body);
        let Some(user) = user else {
            let refused = json_error(
                StatusCode::UNAUTHORIZED,
                "unauthorized",
                "the app does not say who is asking",
            );
            return finish(refused, cross_origin.as_deref(), None);
        };
        claim_unowned(&state, &user).await;
        req.extensions_mut().insert(user);
        return finish(next.run(req).await, cross_origin.as_deref(), None);
    }
    let user = match state.auth.credential(req.headers()) {
        Credential::Token(user) | Credential::Cookie(user) => Some(user),
        Credential::BadToken => {
            let mut refused = json_error(
                StatusCode::UNAUTHORIZED,
                "unauthorized",
                "unknown bearer token",
            );
            refused
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            return finish(refused, cross_origin.as_deref(), None);
        }
        // A page of another origin sends no cookie of ours unless it asks to (and never
        // across sites): a fresh identity per request would lose everything it makes.
        Credential::None if cross_origin.is_some() => {
            let refused = json_error(
                StatusCode::UNAUTHORIZED,
                "unauthorized",
                "cross-origin requests need a bearer token (see --token)",
            );
            return finish(refused, cross_origin.as_deref(), None);
        }
        Credential::None => {
            // A client that drops its cookie gets a new identity each time: at a bounded
            // rate, so that the caps per identity still mean something. Only where it can
            // write: an identity that only reads files (a page, a CDN) costs nothing.
            let minted = if safe {
                Ok(())
            } else {
                state.clients.mint(client, std::time::Instant::now())
            };
            if let Err(wait) = minted {
                let mut refused = json_error(
                    StatusCode::TOO_MANY_REQUESTS,
                    "too_many_identities",
                    "this client address has been given too many new identities: keep the \
                     cookie, or try again shortly (--max-new-identities-per-minute)",
                );
                clients::retry_after_header(refused.headers_mut(), wait);
                return finish(refused, cross_origin.as_deref(), None);
            }
            let (user, cookie) = state.auth.issue();
            // A page another site navigated to arrives without our SameSite=Strict cookie
            // even when the browser has one: a new cookie would replace it. Such a request
            // gets a throwaway identity that owns nothing.
            if fetch_site != "cross-site" {
                new_cookie = Some(cookie);
                Some(user)
            } else {
                req.extensions_mut().insert(user);
                None
            }
        }
    };
    if let Some(user) = user {
        claim_unowned(&state, &user).await;
        req.extensions_mut().insert(user);
    }
    let response = next.run(req).await;
    finish(
        response,
        cross_origin.as_deref(),
        new_cookie.map(|c| state.auth.set_cookie(&c)),
    )
}

fn is_own_origin(origin: &str, host: &str) -> bool {
    let origin = origin.trim().to_ascii_lowercase();
    let host = host.trim().to_ascii_lowercase();
    origin.strip_prefix("http://") == Some(host.as_str())
        || origin.strip_prefix("https://") == Some(host.as_str())
}

/// Threads with no owner (a `--seed-thread`, or history from before owners) go to the first
/// lasting identity that makes a request.
async fn claim_unowned(state: &Arc<AppState>, user: &User) {
    if !state.unclaimed.load(Ordering::Acquire) || !state.unclaimed.swap(false, Ordering::AcqRel) {
        return;
    }
    let store = state.store.clone();
    let owner = user.0.clone();
    match tokio::task::spawn_blocking(move || store.claim_unowned(&owner)).await {
        Ok(Ok(0)) => {}
        Ok(Ok(n)) => println!("{n} thread(s) without an owner now belong to the first user"),
        Ok(Err(e)) => eprintln!("chat-shell-runtime: cannot hand over unowned threads: {e}"),
        Err(e) => eprintln!("chat-shell-runtime: cannot hand over unowned threads: {e}"),
    }
}

/// The answer to a CORS preflight from an allowed origin.
fn preflight(headers: &HeaderMap) -> Response {
    let mut response = StatusCode::NO_CONTENT.into_response();
    let h = response.headers_mut();
    h.insert(
        header::ACCESS_CONTROL_ALLOW_METHODS,
        HeaderValue::from_static("GET, POST, PUT"),
    );
    // The origin is trusted: whatever headers it wants to send (authorization included).
    let asked = header_str(headers, &header::ACCESS_CONTROL_REQUEST_HEADERS)
        .filter(|v| {
            v.bytes()
                .all(|c| c.is_ascii_alphanumeric() || b"-_, ".contains(&c))
        })
        .unwrap_or("content-type");
    if let Ok(v) = HeaderValue::from_str(asked) {
        h.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, v);
    }
    h.insert(
        header::ACCESS_CONTROL_MAX_AGE,
        HeaderValue::from_static("600"),
    );
    h.append(
        header::VARY,
        HeaderValue::from_static("Access-Control-Request-Method, Access-Control-Request-Headers"),
    );
    response
}

fn with_cors(mut response: Response, origin: &str) -> Response {
    let h = response.headers_mut();
    if let Ok(v) = HeaderValue::from_str(origin) {
        h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, v);
        h.insert(
            header::ACCESS_CONTROL_ALLOW_CREDENTIALS,
            HeaderValue::from_static("true"),
        );
    }
    response
}

fn finish(
    mut response: Response,
    cross_origin: Option<&str>,
    set_cookie: Option<String>,
) -> Response {
    if let Some(cookie) = set_cookie.and_then(|c| HeaderValue::from_str(&c).ok()) {
        response.headers_mut().append(header::SET_COOKIE, cookie);
    }
    // Answers differ by Origin (CORS headers or a 403): caches must not mix them.
    response
        .headers_mut()
        .append(header::VARY, HeaderValue::from_static("Origin"));
    match cross_origin {
        Some(origin) => with_cors(response, origin),
        None => response,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_origins_are_the_host_reached() {
        assert!(is_own_origin("http://127.0.0.1:8080", "127.0.0.1:8080"));
        assert!(!is_own_origin("http://127.0.0.1:8081", "127.0.0.1:8080"));
    }
}
