//! The headers every answer carries: a Content-Security-Policy (with `frame-ancestors`),
//! `X-Content-Type-Options: nosniff` and a `Referrer-Policy`.
//!
//! They matter for the pages served from `--dist`; API answers carry them too, where they
//! cost nothing (a JSON answer opened as a page runs nothing, and nothing may frame it).

use axum::http::header::{CONTENT_SECURITY_POLICY, REFERRER_POLICY, X_CONTENT_TYPE_OPTIONS};
use axum::http::HeaderValue;
use axum::Router;
use tower_http::set_header::SetResponseHeaderLayer;

/// What the demo pages and the element need, nothing more: scripts only from files of
/// this origin (no inline script, no eval) and WebAssembly compilation; styles only from
/// files (the element adopts constructed stylesheets, which a policy does not govern);
/// images from anywhere, `blob:` (attachments before upload) and `data:` (widget images)
/// included (the element's sanitizer decides which image URLs answers may show, and an
/// image runs nothing); requests only to this origin; no plugins, no `<base>`, forms only
/// here.
pub const DEFAULT_CSP: &str = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; \
     style-src 'self'; img-src * blob: data:; connect-src 'self'; object-src 'none'; \
     base-uri 'none'; form-action 'self'";

/// Nothing may frame the runtime's pages: none of them is made to be embedded, and a
/// framed page that holds the identity cookie invites clickjacking.
pub const DEFAULT_FRAME_ANCESTORS: &str = "'none'";

/// Same-origin requests keep their `Referer`; links to other sites get none, so no
/// address of the runtime leaks to them.
const REFERRER: &str = "same-origin";

/// The policy header: `csp` (`--csp`) and `frame-ancestors` (`--frame-ancestors`).
pub fn policy(csp: &str, frame_ancestors: &str) -> Result<HeaderValue, String> {
    let csp = csp.trim().trim_end_matches(';').trim();
    if csp
        .split(';')
        .any(|d| d.trim().to_ascii_lowercase().starts_with("frame-ancestors"))
    {
        return Err("--csp: give frame-ancestors with --frame-ancestors".into());
    }
    check_frame_ancestors(frame_ancestors)?;
    let value = if csp.is_empty() {
        format!("frame-ancestors {}", frame_ancestors.trim())
    } else {
        format!("{csp}; frame-ancestors {}", frame_ancestors.trim())
    };
    // Printable ASCII only: anything else is not a policy (and not a header value).
    if !value.bytes().all(|c| c == b' ' || c.is_ascii_graphic()) {
        return Err("--csp: a policy is printable ASCII on one line".into());
    }
    HeaderValue::from_str(&value).map_err(|e| format!("--csp: {e}"))
}

/// `'none'`, or sources like `'self'`, `https://app.example.com` or `https://*.example.com`,
/// separated by spaces.
pub fn check_frame_ancestors(value: &str) -> Result<(), String> {
    let sources: Vec<&str> = value.split_whitespace().collect();
    let valid = |s: &str| {
        s == "'self'"
            || (!s.starts_with('\'')
                && s.bytes()
                    .all(|c| c.is_ascii_alphanumeric() || b".:/*-_[]".contains(&c)))
    };
    let ok = match sources.as_slice() {
        [] => false,
        ["'none'"] => true,
        many => many.iter().all(|s| valid(s)),
    };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "--frame-ancestors: not 'none' or a list of sources like 'self' https://app.example.com: {value}"
        ))
    }
}

/// `router` with the headers on every answer; a handler that sets its own policy keeps it.
pub fn apply(router: Router, policy: HeaderValue) -> Router {
    router
        .layer(SetResponseHeaderLayer::if_not_present(
            CONTENT_SECURITY_POLICY,
            policy,
        ))
        .layer(SetResponseHeaderLayer::overriding(
            X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ))
        .layer(SetResponseHeaderLayer::if_not_present(
            REFERRER_POLICY,
            HeaderValue::from_static(REFERRER),
        ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_policy_joins_the_csp_and_frame_ancestors() {
        let value = policy(DEFAULT_CSP, DEFAULT_FRAME_ANCESTORS).unwrap();
        let value = value.to_str().unwrap();
        assert!(value.starts_with("default-src 'self'; script-src 'self' 'wasm-unsafe-eval';"));
        assert!(value.ends_with("; frame-ancestors 'none'"), "{value}");
        assert!(!value.contains("unsafe-inline"), "{value}");
        assert_eq!(
            policy("default-src 'self';", "'self' https://app.example.com")
                .unwrap()
                .to_str()
                .unwrap(),
            "default-src 'self'; frame-ancestors 'self' https://app.example.com"
        );
        assert_eq!(
            policy("", "'self'").unwrap().to_str().unwrap(),
            "frame-ancestors 'self'"
        );
    }

    #[test]
    fn broken_policies_and_sources_are_refused() {
        assert!(policy("default-src 'self'; frame-ancestors *", "'none'").is_err());
        assert!(policy("default-src 'self'\r\nX-Evil: 1", "'none'").is_err());
        assert!(policy("default-src 'sélf'", "'none'").is_err());
        for bad in [
            "",
            "'none' 'self'",
            "'unsafe-inline'",
            "https://a.example; script-src *",
            "https://a.example,https://b.example",
        ] {
            assert!(check_frame_ancestors(bad).is_err(), "{bad}");
        }
        for ok in [
            "'none'",
            "'self'",
            "'self' https://app.example.com:8443",
            "https://*.example.com",
        ] {
            assert!(check_frame_ancestors(ok).is_ok(), "{ok}");
        }
    }
}
