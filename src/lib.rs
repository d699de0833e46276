//! chat-shell: an embeddable chat UI for AI agents speaking the ChatKit protocol.
//!
//! The crate has two halves. The core (`protocol`, `sse`, `reducer`, `markdown`) is plain
//! Rust with no DOM and no I/O, tested natively. The browser half (`transport`, `runtime`,
//! `views`, `element`) exists only on `wasm32` and is the only code that touches the page.

pub mod attachments;
pub mod citations;
pub mod history;
pub mod markdown;
pub mod options;
pub mod pacing;
pub mod protocol;
pub mod reducer;
pub mod sse;
pub mod strings;
pub mod widgets;

#[cfg(target_arch = "wasm32")]
pub mod component;
#[cfg(target_arch = "wasm32")]
pub mod element;
#[cfg(target_arch = "wasm32")]
pub mod runtime;
#[cfg(target_arch = "wasm32")]
pub mod transport;
#[cfg(target_arch = "wasm32")]
pub mod views;

#[cfg(target_arch = "wasm32")]
pub use component::{ChatEvent, ChatShell};

/// Registers `<chat-shell>`. With the default `custom-element` feature this runs when the
/// module loads; Rust apps that use the Leptos component turn the feature off and keep
/// their own `main`.
#[cfg(target_arch = "wasm32")]
#[cfg_attr(feature = "custom-element", wasm_bindgen::prelude::wasm_bindgen(start))]
pub fn start() {
    element::register();
}
