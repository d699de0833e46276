//! Who is asking. Every thread, item and attachment belongs to a user id, which comes from
//! either
//!
//! - a bearer token (`Authorization: Bearer <token>`) the operator configured with
//!   `--token` or `CHAT_SHELL_RUNTIME_TOKENS`: the user id is `t_` + an HMAC of the token,
//!   so the database never holds the token itself; an unknown token is refused (401); or
//! - a cookie the runtime issues to each browser: `<128 random bits>.<HMAC-SHA-256 of
//!   them>` in hex, `HttpOnly; SameSite=Strict; Path=/`. The user id is `c_` + the random
//!   part. Nothing is stored per user: a valid signature proves the runtime issued the id.
//!
//! A host app that embeds the runtime (`Chat::builder`) may say who is asking instead
//! ([`Identify`], from its own session): the user id is then `a_` + the id it gives, and
//! neither tokens nor cookies are read.
//!
//! Both HMACs use a 256-bit secret made at random once per database and kept in it, so a
//! browser keeps its identity, and its history, across restarts; a new database (or
//! `--memory`) invalidates every cookie. The cookie's name carries a fingerprint of that
//! secret, so two runtimes on one host (ports do not separate cookies) never overwrite
//! each other's cookie.

use crate::store::{hex, random_bytes};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap};
use hmac::{Hmac, Mac};
use sha2::Sha256;
use std::collections::HashSet;

type HmacSha256 = Hmac<Sha256>;

/// Browsers keep the cookie this long (400 days, the most Chrome allows).
const COOKIE_MAX_AGE_SECS: u64 = 400 * 24 * 3600;
/// Shorter tokens are refused at start: they could be guessed.
pub const MIN_TOKEN_CHARS: usize = 16;

/// The owner of what a request reads and writes (`c_…`, `t_…` or `a_…`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct User(pub String);

/// A host app's word on who is asking, read from the request's head (its own session
/// cookie, a header its proxy sets): the user's id, or `None` to refuse the request (401).
pub type Identify = dyn Fn(&Parts) -> Option<String> + Send + Sync;

/// The longest id a host app may give.
pub const MAX_APP_ID_CHARS: usize = 256;

/// The user a host app's id stands for (`a_` + the id, so it never reads as a token's or a
/// cookie's); `None` for an id that is empty, too long, or holds control characters.
pub fn app_user(id: &str) -> Option<User> {
    let fine = !id.is_empty()
        && id.chars().count() <= MAX_APP_ID_CHARS
        && !id.chars().any(char::is_control);
    fine.then(|| User(format!("a_{id}")))
}

/// What a request's headers say about who sent it.
#[derive(Debug, PartialEq, Eq)]
pub enum Credential {
    /// A configured bearer token.
    Token(User),
    /// A cookie this runtime (this database) issued.
    Cookie(User),
    /// `Authorization: Bearer` with a token nobody configured.
    BadToken,
    /// Neither: a new identity is due.
    None,
}

pub struct Auth {
    secret: [u8; 32],
    cookie_name: String,
    /// The user ids of the configured tokens.
    token_users: HashSet<String>,
}

impl Auth {
    pub fn new(secret: [u8; 32], tokens: &[String]) -> Auth {
        let mut auth = Auth {
            secret,
            cookie_name: String::new(),
            token_users: HashSet::new(),
        };
        auth.cookie_name = format!("chat_shell_id_{}", &hex(&auth.mac(b"cookie-name"))[..8]);
        auth.token_users = tokens.iter().map(|t| auth.token_user(t)).collect();
        auth
    }

    fn hmac(&self) -> HmacSha256 {
        // HMAC takes keys of any length: this cannot fail.
        HmacSha256::new_from_slice(&self.secret).expect("an HMAC key")
    }

    fn mac(&self, data: &[u8]) -> [u8; 32] {
        let mut mac = self.hmac();
        mac.update(data);
        mac.finalize().into_bytes().into()
    }

    fn token_user(&self, token: &str) -> String {
        let mac = self.mac(format!("token:{}", token.trim()).as_bytes());
        format!("t_{}", &hex(&mac)[..32])
    }

    /// A new identity: the user and the cookie value that proves it.
    pub fn issue(&self) -> (User, String) {
        let id = hex(&random_bytes::<16>());
        let mac = hex(&self.mac(format!("cookie:{id}").as_bytes()));
        (User(format!("c_{id}")), format!("{id}.{mac}"))
    }

    /// The user a cookie value proves, if this runtime signed it.
    pub fn cookie_user(&self, value: &str) -> Option<User> {
        let (id, mac) = value.split_once('.')?;
        if id.len() != 32 || !id.bytes().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f')) {
            return None;
        }
        let mac = unhex(mac)?;
        let mut check = self.hmac();
        check.update(format!("cookie:{id}").as_bytes());
        // Constant time: the signature cannot be found byte by byte.
        check.verify_slice(&mac).ok()?;
        Some(User(format!("c_{id}")))
    }

    /// The `Set-Cookie` value that hands `value` to the browser.
    pub fn set_cookie(&self, value: &str) -> String {
        format!(
            "{}={value}; Path=/; HttpOnly; SameSite=Strict; Max-Age={COOKIE_MAX_AGE_SECS}",
            self.cookie_name
        )
    }

    /// Reads `Authorization` (which wins) and `Cookie`.
    pub fn credential(&self, headers: &HeaderMap) -> Credential {
        if let Some(value) = headers.get(header::AUTHORIZATION) {
            let value = value.to_str().unwrap_or_default().trim();
            let (scheme, token) = value.split_once(' ').unwrap_or((value, ""));
            if scheme.eq_ignore_ascii_case("bearer") {
                let user = self.token_user(token);
                return if !token.trim().is_empty() && self.token_users.contains(&user) {
                    Credential::Token(User(user))
                } else {
                    Credential::BadToken
                };
            }
        }
        let cookies = headers
            .get_all(header::COOKIE)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(';'));
        for cookie in cookies {
            if let Some((name, value)) = cookie.trim().split_once('=') {
                if name == self.cookie_name {
                    if let Some(user) = self.cookie_user(value.trim()) {
                        return Credential::Cookie(user);
                    }
                }
            }
        }
        Credential::None
    }
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(pairs: &[(header::HeaderName, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn issued_cookies_verify_and_forgeries_do_not() {
        let auth = Auth::new([7; 32], &[]);
        let (user, value) = auth.issue();
        assert!(user.0.starts_with("c_") && user.0.len() == 34, "{user:?}");
        assert_eq!(auth.cookie_user(&value), Some(user.clone()));
        let (other, _) = auth.issue();
        assert_ne!(other, user, "two identities are never the same");

        // Another id under the same signature, a flipped signature bit, another secret.
        let (id, mac) = value.split_once('.').unwrap();
        let mut forged_id = id.to_owned();
        forged_id.replace_range(0..1, if id.starts_with('0') { "1" } else { "0" });
        assert_eq!(auth.cookie_user(&format!("{forged_id}.{mac}")), None);
        let mut flipped = mac.to_owned();
        flipped.replace_range(63..64, if mac.ends_with('0') { "1" } else { "0" });
        assert_eq!(auth.cookie_user(&format!("{id}.{flipped}")), None);
        assert_eq!(Auth::new([8; 32], &[]).cookie_user(&value), None);
        for junk in ["", ".", "abc", &format!("{id}."), &format!("{id}.zz")] {
            assert_eq!(auth.cookie_user(junk), None, "{junk}");
        }
    }

    #[test]
    fn the_cookie_is_strict_http_only_and_named_per_database() {
        let auth = Auth::new([7; 32], &[]);
        let set = auth.set_cookie("v");
        assert!(set.starts_with(&format!("{}=v;", auth.cookie_name)));
        for part in ["HttpOnly", "SameSite=Strict", "Path=/"] {
            assert!(set.contains(part), "{set}");
        }
        assert_ne!(
            auth.cookie_name,
            Auth::new([8; 32], &[]).cookie_name,
            "runtimes with different databases share a cookie name"
        );
        assert_eq!(auth.cookie_name, Auth::new([7; 32], &[]).cookie_name);
    }

    #[test]
    fn credentials_come_from_tokens_then_cookies() {
        let token = "a-long-enough-test-token";
        let auth = Auth::new([7; 32], &[token.to_owned()]);
        let (user, value) = auth.issue();
        let cookie = format!("other=1; {}={value}", auth.cookie_name);

        let Credential::Token(t) = auth.credential(&headers(&[(
            header::AUTHORIZATION,
            &format!("Bearer {token}"),
        )])) else {
            panic!("the token was not recognised")
        };
        assert!(t.0.starts_with("t_") && !t.0.contains(token));
        assert_eq!(
            auth.credential(&headers(&[
                (header::AUTHORIZATION, "Bearer not-the-token"),
                (header::COOKIE, &cookie)
            ])),
            Credential::BadToken
        );
        assert_eq!(
            auth.credential(&headers(&[(header::AUTHORIZATION, "Bearer ")])),
            Credential::BadToken
        );
        assert_eq!(
            auth.credential(&headers(&[(header::COOKIE, &cookie)])),
            Credential::Cookie(user)
        );
        assert_eq!(
            auth.credential(&headers(&[(header::COOKIE, "chat_shell_id_x=1.2")])),
            Credential::None
        );
        assert_eq!(auth.credential(&HeaderMap::new()), Credential::None);
    }

    #[test]
    fn an_apps_ids_are_users_of_their_own() {
        assert_eq!(app_user("alice"), Some(User("a_alice".into())));
        // Never a token's or a cookie's id.
        assert_eq!(app_user("c_123"), Some(User("a_c_123".into())));
        for refused in ["", "a\nb", "\u{7f}", &"x".repeat(MAX_APP_ID_CHARS + 1)] {
            assert_eq!(app_user(refused), None, "{refused:?}");
        }
    }
}
