//! The routes, and the layers every request passes: the guard (Host, Origin, identity),
//! JSON error bodies and the request log.

use crate::errors::status_error;
use crate::guard;
use crate::handlers::request::{self, Logged};
use crate::handlers::{ag_ui, agent_ui, callback, chatkit, events, health, upload};
use crate::state::AppState;
use crate::static_files;
use axum::extract::{DefaultBodyLimit, Request};
use axum::http::header;
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

/// The runtime's routes on `state`, with the pages of `dist` (the binary's `--dist`) for
/// every other path; a host app that nests the routes serves its own pages (`None`).
pub fn router(state: Arc<AppState>, dist: Option<&Path>) -> Router {
    // Multipart uploads are read through axum's extractor, which stops at this limit.
    let upload_limit = DefaultBodyLimit::max(state.max_upload + upload::MULTIPART_OVERHEAD);
    let routes = Router::new()
        .route("/chatkit", post(chatkit::chatkit))
        .route(
            "/events",
            post(events::events).layer(DefaultBodyLimit::max(events::MAX_BODY)),
        )
        .route(
            "/agent-ui",
            post(agent_ui::agent_ui).layer(DefaultBodyLimit::max(events::MAX_BODY)),
        )
        .route(
            "/ag-ui",
            post(ag_ui::ag_ui).layer(DefaultBodyLimit::max(events::MAX_BODY)),
        )
        .route(
            "/upload/{id}",
            post(upload::upload).put(upload::upload).layer(upload_limit),
        )
        .route("/preview/{id}", get(upload::preview))
        .route(
            "/callback",
            post(callback::callback).layer(DefaultBodyLimit::max(callback::MAX_CALLBACK_BODY)),
        );
    let routes = match dist {
        Some(dist) => routes.fallback_service(static_files::service(dist)),
        None => routes,
    };
    routes
        .layer(middleware::from_fn_with_state(state.clone(), guard::check))
        .layer(middleware::map_response(
            static_files::no_cookie_for_everyone,
        ))
        // After the guard: a load balancer probes by address, with no identity.
        .route("/healthz", get(health::healthz))
        .route("/readyz", get(health::readyz))
        .layer(middleware::map_response(json_errors))
        .layer(middleware::from_fn(log_requests))
        .with_state(state)
}

/// One line per request; `/chatkit` logs its request type itself, unless it was refused
/// before reaching the handler.
async fn log_requests(req: Request, next: Next) -> Response {
    let path = req.uri().path().to_owned();
    let method = req.method().clone();
    let started = Instant::now();
    let response = next.run(req).await;
    let status = response.status().as_u16();
    if response.extensions().get::<Logged>().is_some() {
        return response;
    }
    if path == "/chatkit" || path.starts_with("/upload/") || path.starts_with("/preview/") {
        println!(
            "{method} {path} {status} {}ms",
            started.elapsed().as_millis()
        );
    } else {
        println!("{method} {path} {status}");
    }
    response
}

/// Errors that axum or tower-http answer by themselves (405 for a wrong method, 404 for a
/// missing file, an extractor's plain-text refusal) get the JSON shape of all the others,
/// keeping their headers (`Allow`, …) and any message.
async fn json_errors(response: Response) -> Response {
    let status = response.status();
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| request::mime_essence(v) == "application/json");
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return response;
    }
    let (parts, body) = response.into_parts();
    // These bodies are a line of text at most; anything longer is not a message.
    let text = axum::body::to_bytes(body, 4096)
        .await
        .ok()
        .and_then(|b| String::from_utf8(b.to_vec()).ok())
        .map(|t| t.trim().to_owned())
        .filter(|t| !t.is_empty());
    let message = text.unwrap_or_else(|| {
        status
            .canonical_reason()
            .unwrap_or("error")
            .to_ascii_lowercase()
    });
    let mut answer = status_error(status, &message);
    for (name, value) in &parts.headers {
        if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
            answer.headers_mut().append(name, value.clone());
        }
    }
    answer.extensions_mut().extend(parts.extensions);
    answer
}
