//! The app's page: its own bar (who is signed in, Sign out) and the chat, with a client
//! tool written in Rust. Rendered by the server, hydrated in the browser.

use chat_shell::client::{RustTool, ToolFuture};
use chat_shell::options::StarterPrompt;
use chat_shell::ChatShell;
use leptos::prelude::*;
use std::rc::Rc;

/// The whole document the server sends: the head links chat-shell's stylesheet (served by
/// the app), so the chat's frame is styled before any wasm runs, and names the user for
/// the browser build (which renders the same page).
#[cfg(feature = "ssr")]
pub fn shell(options: leptos::config::LeptosOptions, user: String) -> impl IntoView {
    use leptos::hydration::HydrationScripts;
    // A strict Content-Security-Policy: the only inline script is Leptos's hydration script,
    // which carries this response's nonce; chat-shell needs no inline style or eval.
    if let (Some(nonce), Some(response)) = (
        leptos::nonce::use_nonce(),
        use_context::<leptos_axum::ResponseOptions>(),
    ) {
        let policy = format!(
            "default-src 'self'; script-src 'self' 'nonce-{nonce}' 'wasm-unsafe-eval'; \
             style-src 'self'; img-src 'self' blob: data:; object-src 'none'; base-uri 'none'; \
             form-action 'self'; frame-ancestors 'none'"
        );
        if let Ok(value) = axum::http::HeaderValue::from_str(&policy) {
            response.insert_header(axum::http::header::CONTENT_SECURITY_POLICY, value);
        }
    }
    view! {
        <!DOCTYPE html>
        <html lang="en">
            <head>
                <meta charset="utf-8" />
                <meta name="viewport" content="width=device-width, initial-scale=1" />
                <meta name="app-user" content=user.clone() />
                <link rel="icon" href="data:," />
                <link rel="stylesheet" href="/chat-shell.css" />
                <link rel="stylesheet" href="/app.css" />
                <title>"Acme workspace"</title>
                <HydrationScripts options />
            </head>
            <body>
                <App user />
            </body>
        </html>
    }
}

/// Who the server said is signed in (the page's `app-user`), for the browser build.
#[cfg(feature = "hydrate")]
pub fn page_user() -> String {
    web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.query_selector(r#"meta[name="app-user"]"#).ok().flatten())
        .and_then(|meta| meta.get_attribute("content"))
        .unwrap_or_default()
}

#[component]
pub fn App(user: String) -> impl IntoView {
    view! {
        <div class="app">
            <header class="app__bar">
                <h1>"Acme workspace"</h1>
                <p class="app__user">"Signed in as " <strong data-testid="user">{user}</strong></p>
                <form method="post" action="/logout">
                    <button type="submit">"Sign out"</button>
                </form>
            </header>
            <main class="app__chat">
                <ChatShell
                    endpoint="/chat/chatkit"
                    greeting="Ask the workspace assistant"
                    starter_prompts=vec![StarterPrompt {
                        title: "Show me a workflow".into(),
                        prompt: "workflow".into(),
                        icon: None,
                    }]
                    client_tools=vec![("get_client_info".to_owned(), client_info())]
                />
            </main>
        </div>
    }
}

/// A client tool in Rust: the agent asks, the browser answers.
fn client_info() -> RustTool {
    Rc::new(|args: serde_json::Value| -> ToolFuture {
        Box::pin(async move {
            Ok(serde_json::json!({
                "answeredBy": "rust",
                "app": "fullstack",
                "language": browser_language(),
                "asked": args["fields"],
            }))
        })
    })
}

#[cfg(feature = "hydrate")]
fn browser_language() -> String {
    web_sys::window()
        .and_then(|w| w.navigator().language())
        .unwrap_or_default()
}

/// The tool runs in the browser only.
#[cfg(not(feature = "hydrate"))]
fn browser_language() -> String {
    String::new()
}
