//! The app's own login, which the chat takes as its identity: two fixed users, a session
//! cookie naming a random token, the tokens in memory. (A real app has its own accounts;
//! what matters here is that the chat asks the app who is signed in.)

use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::get;
use axum::{Form, Router};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The users and their passwords.
const USERS: [(&str, &str); 2] = [("ada", "lovelace"), ("grace", "hopper")];
const COOKIE: &str = "acme_session";

/// Signed-in sessions: token → user.
#[derive(Default)]
pub struct Sessions(Mutex<HashMap<String, String>>);

impl Sessions {
    /// Who the request's session cookie names, if anyone.
    pub fn user(&self, headers: &HeaderMap) -> Option<String> {
        let token = session_token(headers)?;
        self.0.lock().ok()?.get(token).cloned()
    }

    fn sign_in(&self, user: &str, password: &str) -> Option<String> {
        USERS
            .iter()
            .any(|(u, p)| *u == user && *p == password)
            .then_some(())?;
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).ok()?;
        let token: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        self.0.lock().ok()?.insert(token.clone(), user.to_owned());
        Some(token)
    }

    fn sign_out(&self, headers: &HeaderMap) {
        if let (Some(token), Ok(mut sessions)) = (session_token(headers), self.0.lock()) {
            sessions.remove(token);
        }
    }
}

fn session_token(headers: &HeaderMap) -> Option<&str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|pair| pair.trim().strip_prefix(COOKIE)?.strip_prefix('='))
}

/// `GET /login`, `POST /login` and `POST /logout`.
pub fn routes(sessions: Arc<Sessions>) -> Router {
    Router::new()
        .route("/login", get(|| async { page(None) }).post(sign_in))
        .route("/logout", axum::routing::post(sign_out))
        .with_state(sessions)
}

#[derive(serde::Deserialize)]
struct Credentials {
    user: String,
    password: String,
}

async fn sign_in(State(sessions): State<Arc<Sessions>>, Form(form): Form<Credentials>) -> Response {
    match sessions.sign_in(&form.user, &form.password) {
        Some(token) => (
            [(
                header::SET_COOKIE,
                format!("{COOKIE}={token}; Path=/; HttpOnly; SameSite=Lax"),
            )],
            Redirect::to("/"),
        )
            .into_response(),
        None => (
            StatusCode::UNAUTHORIZED,
            page(Some("Wrong user or password.")),
        )
            .into_response(),
    }
}

async fn sign_out(State(sessions): State<Arc<Sessions>>, headers: HeaderMap) -> Response {
    sessions.sign_out(&headers);
    (
        [(header::SET_COOKIE, format!("{COOKIE}=; Path=/; Max-Age=0"))],
        Redirect::to("/login"),
    )
        .into_response()
}

fn page(error: Option<&str>) -> Html<String> {
    let error = error
        .map(|e| format!(r#"<p class="login__error" role="alert">{e}</p>"#))
        .unwrap_or_default();
    Html(format!(
        r#"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,"><link rel="stylesheet" href="/app.css"><title>Sign in · Acme workspace</title></head>
<body><form class="login" method="post" action="/login">
<h1>Acme workspace</h1>{error}
<label>User <input name="user" autocomplete="username" required></label>
<label>Password <input name="password" type="password" autocomplete="current-password" required></label>
<button type="submit">Sign in</button>
<p>Users: <code>ada</code> (password <code>lovelace</code>) and <code>grace</code> (<code>hopper</code>).</p>
</form></body></html>"#
    ))
}
