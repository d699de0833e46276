//! chat-shell: an embeddable chat UI for AI agents speaking the ChatKit protocol.
//!
//! The crate has two halves. The core (`protocol`, `sse`, `reducer`, `markdown`) is plain
//! Rust with no DOM and no I/O, tested natively. The browser half (`transport`, `runtime`,
//! `views`, `element`) exists only on `wasm32` and is the only code that touches the page.

pub mod markdown;
pub mod protocol;
pub mod reducer;
pub mod sse;
