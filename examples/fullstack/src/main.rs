//! The app's server: its login, its page rendered by Leptos, the wasm of the browser build,
//! and the chat-shell runtime nested under `/chat`, whose users are the login's.
//!
//!     chat-shell-fullstack [--addr 127.0.0.1:3000] [--site target/site] [--db chat.db]
//!
//! `--site` holds `pkg/`, the browser build (`scripts/fullstack.sh` builds it).

#[cfg(feature = "ssr")]
#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    use axum::body::Body;
    use axum::http::{header, Request};
    use axum::response::{IntoResponse, Redirect};
    use axum::routing::get;
    use axum::Router;
    use chat_shell_fullstack::{app, login::Sessions};
    use chat_shell_runtime::Chat;
    use leptos::config::LeptosOptions;
    use std::net::SocketAddr;
    use std::sync::Arc;

    // The runtime starts an ACP agent through this binary; scripted answers here, but the
    // call costs nothing and keeps `acp_agent` working if the app turns it on.
    chat_shell_runtime::hidden_mode();
    // Leptos's server rendering spawns its tasks on this tokio runtime.
    any_spawner::Executor::init_tokio()?;
    let mut args = std::env::args().skip(1);
    let (mut addr, mut site, mut db) =
        ("127.0.0.1:3000".to_owned(), "target/site".to_owned(), None);
    while let Some(flag) = args.next() {
        let value = args.next().ok_or(format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--addr" => addr = value,
            "--site" => site = value,
            "--db" => db = Some(value),
            _ => return Err(format!("unknown flag {flag}").into()),
        }
    }

    let sessions = Arc::new(Sessions::default());
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    let bound = listener.local_addr()?;
    let builder = Chat::builder().prefix("/chat").authority(bound.to_string());
    let builder = match db {
        Some(path) => builder.sqlite(path),
        None => builder.memory(),
    };
    let chat = builder
        .identity({
            let sessions = sessions.clone();
            move |parts| sessions.user(&parts.headers)
        })
        .build()
        .await?;

    let options = LeptosOptions::builder()
        .output_name("chat_shell_fullstack")
        .site_root(site.as_str())
        .site_pkg_dir("pkg")
        .site_addr(bound)
        .build();
    let page = {
        let sessions = sessions.clone();
        move |request: Request<Body>| {
            let sessions = sessions.clone();
            let options = options.clone();
            async move {
                let Some(user) = sessions.user(request.headers()) else {
                    return Redirect::to("/login").into_response();
                };
                let render = leptos_axum::render_app_to_stream(move || {
                    app::shell(options.clone(), user.clone())
                });
                render(request).await.into_response()
            }
        }
    };
    let css = |text: &'static str| ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], text);
    let app = Router::new()
        .route("/", get(page))
        .route(
            "/chat-shell.css",
            get(move || async move { css(chat_shell::STYLESHEET) }),
        )
        .route(
            "/app.css",
            get(move || async move { css(include_str!("../app.css")) }),
        )
        .nest_service(
            "/pkg",
            tower_http::services::ServeDir::new(format!("{site}/pkg")),
        )
        .merge(chat_shell_fullstack::login::routes(sessions))
        .nest("/chat", chat.router());

    println!("chat-shell-fullstack listening on http://{bound}");
    axum::serve(
        listener,
        app.into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(async {
        let _ = tokio::signal::ctrl_c().await;
    })
    .await?;
    chat.shutdown().await;
    Ok(())
}

/// The server needs the `ssr` feature (`cargo run --features ssr`).
#[cfg(not(feature = "ssr"))]
fn main() {
    eprintln!("chat-shell-fullstack: build with --features ssr");
}
