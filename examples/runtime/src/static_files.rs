//! `--dist` as a browser should get it: each file in the smallest encoding the browser
//! takes, from the `.br` and `.gz` copies the build leaves beside it (scripts/build.sh), so
//! nothing is compressed per request; and cached as its name allows. A name with a content
//! hash (`<name>-<16 hex>.<ext>`, scripts/hash.mjs) always stands for the same bytes, so
//! the browser keeps the file a year without asking again. The entry `chat-shell.js` and
//! the pages keep their names from build to build, so the browser asks every time and gets
//! a `304` while its copy, told by its `ETag`, is current.

use axum::body::Body;
use axum::extract::Request;
use axum::http::header::{
    CACHE_CONTROL, CONTENT_LENGTH, ETAG, IF_MODIFIED_SINCE, IF_NONE_MATCH, LAST_MODIFIED,
    SET_COOKIE, VARY,
};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::Router;
use sha2::{Digest, Sha256};
use std::path::Path;
use tower_http::services::ServeDir;

pub const IMMUTABLE: &str = "public, max-age=31536000, immutable";
pub const REVALIDATE: &str = "no-cache";

/// Entries and pages are a few kilobytes; a bigger unhashed file is served without an
/// `ETag` rather than held in memory (the browser still revalidates by `Last-Modified`).
const MAX_TAGGED: u64 = 4 << 20;

/// The files of `dist`, for the router's fallback.
pub fn service(dist: &Path) -> Router {
    Router::new()
        .fallback_service(ServeDir::new(dist).precompressed_br().precompressed_gzip())
        .layer(middleware::from_fn(cache_headers))
}

/// Whether the last segment of `path` carries the build's content hash.
pub fn is_hashed(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or_default();
    let Some((stem, ext)) = name.rsplit_once('.') else {
        return false;
    };
    let Some((_, hash)) = stem.rsplit_once('-') else {
        return false;
    };
    !ext.is_empty()
        && hash.len() == 16
        && hash.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

async fn cache_headers(mut req: Request, next: Next) -> Response {
    let immutable = is_hashed(req.uri().path());
    // HEAD gets no tag: its answer has no bytes to take it from.
    let tagged = !immutable && req.method() == Method::GET;
    let if_none_match = req.headers().get(IF_NONE_MATCH).cloned();
    if tagged && if_none_match.is_some() {
        // The tag decides, as RFC 9110 says; ServeDir would answer by the date alone.
        req.headers_mut().remove(IF_MODIFIED_SINCE);
    }
    let mut response = next.run(req).await;
    let status = response.status();
    if !(status.is_success() || status == StatusCode::NOT_MODIFIED) {
        return response;
    }
    let headers = response.headers_mut();
    // Every file may have .br and .gz copies: a cache must key on the encoding asked for.
    headers.insert(VARY, HeaderValue::from_static("accept-encoding"));
    headers.insert(
        CACHE_CONTROL,
        HeaderValue::from_static(if immutable { IMMUTABLE } else { REVALIDATE }),
    );
    let small = content_length(headers).is_some_and(|n| n <= MAX_TAGGED);
    if !tagged || status != StatusCode::OK || !small {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, MAX_TAGGED as usize).await else {
        return StatusCode::INTERNAL_SERVER_ERROR.into_response();
    };
    // Of the bytes sent, so each encoding has its own tag.
    let digest = Sha256::digest(&bytes);
    let tag = format!("\"{}\"", hex(&digest[..16]));
    let etag = HeaderValue::from_str(&tag).expect("hex in quotes is a header value");
    if if_none_match.is_some_and(|v| matches(&v, &tag)) {
        let mut not_modified = Response::new(Body::empty());
        *not_modified.status_mut() = StatusCode::NOT_MODIFIED;
        for name in [VARY, CACHE_CONTROL, LAST_MODIFIED] {
            if let Some(value) = parts.headers.get(&name) {
                not_modified.headers_mut().insert(name, value.clone());
            }
        }
        not_modified.headers_mut().insert(ETAG, etag);
        return not_modified;
    }
    parts.headers.insert(ETAG, etag);
    Response::from_parts(parts, Body::from(bytes))
}

/// A response any cache may keep carries no `Set-Cookie`: the guard gives a request without
/// a cookie a new identity, and a shared cache (a CDN that strips cookies from requests
/// for files) would hand that one identity to everyone who asks for the file.
pub async fn no_cookie_for_everyone(mut response: Response) -> Response {
    let public = response
        .headers()
        .get(CACHE_CONTROL)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|d| d.trim() == "public"));
    if public {
        response.headers_mut().remove(SET_COOKIE);
    }
    response
}

fn content_length(headers: &HeaderMap) -> Option<u64> {
    headers.get(CONTENT_LENGTH)?.to_str().ok()?.parse().ok()
}

/// Whether an `If-None-Match` value names `tag` (weak comparison, as for GET).
fn matches(value: &HeaderValue, tag: &str) -> bool {
    let Ok(value) = value.to_str() else {
        return false;
    };
    value.trim() == "*"
        || value
            .split(',')
            .map(|t| t.trim().trim_start_matches("W/"))
            .any(|t| t == tag)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashed_names_are_told_apart() {
        assert!(is_hashed("/chat-shell_bg-0123456789abcdef.wasm"));
        assert!(is_hashed("/plain/plain-0123456789abcdef.css"));
        assert!(is_hashed("/chunk_9-0123456789abcdef.wasm"));
        assert!(!is_hashed("/chat-shell.js"));
        assert!(!is_hashed("/"));
        assert!(!is_hashed("/plain/"));
        assert!(!is_hashed(
            "/snippets/chat-shell-0123456789abcdef/inline0.js"
        ));
        assert!(!is_hashed("/x-0123456789ABCDEF.js"));
        assert!(!is_hashed("/x-0123456789abcde.js"));
        assert!(!is_hashed("/x-0123456789abcdef"));
    }

    #[test]
    fn if_none_match_lists_and_weak_tags_match() {
        let tag = "\"abc\"";
        for value in ["\"abc\"", "W/\"abc\"", "\"x\", \"abc\"", "*"] {
            assert!(matches(&HeaderValue::from_static(value), tag), "{value}");
        }
        for value in ["\"abd\"", "abc", ""] {
            assert!(!matches(&HeaderValue::from_static(value), tag), "{value}");
        }
    }
}
