//! chat-shell: an embeddable chat UI for AI agents, as a `<chat-shell>` custom element and
//! a Leptos component.
//!
//! This crate is the browser half: `runtime` (owns the store, carries out effects, talks
//! to the server), `ui` (the Leptos views, by what the user sees), `chunks` (the code cut
//! out of the first wasm module and its loading), `element` (the custom element glue) and
//! `component` (the Leptos component), with `client` (the types a Rust app hands the chat).
//! Natively, for a server-rendered app's server build (`ssr`), there are only `ChatShell`,
//! which renders the chat's early frame, and `client`. Everything that needs
//! no DOM lives in the `chat-shell-core` crate, re-exported here under the same module
//! names so apps depend on this crate alone.

pub use chat_shell_core::{
    attachments, citations, history, markdown, options, pacing, protocol, reducer, sse, strings,
    widgets,
};

#[cfg(target_arch = "wasm32")]
mod chunks;
pub mod client;
pub mod component;
#[cfg(target_arch = "wasm32")]
pub mod element;
#[cfg(target_arch = "wasm32")]
pub mod runtime;
mod stylesheet;
#[cfg(target_arch = "wasm32")]
pub mod ui;
/// Natively (a server-rendered app's server build) the views are only the early frame the
/// server renders.
#[cfg(not(target_arch = "wasm32"))]
mod ui {
    pub(crate) mod frame;
    pub(crate) mod glyphs;
}

pub use component::{ChatEvent, ChatShell};
pub use stylesheet::STYLESHEET;

/// Registers `<chat-shell>`. With the default `custom-element` feature this runs when the
/// module loads; Rust apps that use the Leptos component turn the feature off and keep
/// their own `main`.
#[cfg(target_arch = "wasm32")]
#[cfg_attr(feature = "custom-element", wasm_bindgen::prelude::wasm_bindgen(start))]
pub fn start() {
    element::register();
}
