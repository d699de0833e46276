//! Example: a server-rendered Leptos app (the cargo-leptos layout) with chat-shell in its
//! page. The server (`main.rs`, feature `ssr`) has its own login (`login`), nests the
//! chat-shell runtime under `/chat` with that login as the chat's identity, and renders
//! `app::App`, whose `<ChatShell>` draws the chat's frame and composer in the first HTML.
//! The browser build (feature `hydrate`) hydrates the page; `ChatShell` then takes its frame
//! over, with whatever was typed in it.

pub mod app;
#[cfg(feature = "ssr")]
pub mod login;

/// The browser build's entry, called by the script Leptos's `HydrationScripts` writes.
#[cfg(feature = "hydrate")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    let user = app::page_user();
    leptos::mount::hydrate_body(move || leptos::view! { <app::App user=user /> });
}
