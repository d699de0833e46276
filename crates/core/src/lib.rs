//! chat-shell-core: the DOM-free half of chat-shell. Plain Rust with no DOM, no I/O and no
//! web dependency, so the compiler keeps browser code out and everything here is tested
//! natively: SSE decoding (`sse`), where each wire format (`protocol`, the
//! chat-shell-protocol crate) becomes reducer input (`adapters`), the one reducer (`reducer`)
//! and the `chat.*` events it emits (`host_events`),
//! markdown and the sanitizer (`markdown`), and the rules the views follow (`strings`,
//! `pacing`, `options`, `citations`, `widgets`, `attachments`, `history`, `diff` for agent
//! tool calls and tool-pushed patches, and `tool_output`).

pub mod adapters;
pub mod ansi;
pub mod attachments;
pub mod composer_choice;
pub mod dictation;
pub mod diff;
pub mod export;
pub mod find;
pub mod form;
pub mod highlight;
pub mod history;
pub mod host_events;
pub mod labels;
pub mod markdown;
pub mod mentions;
pub mod model;
/// Citations are the renderer's: their markers are the one markup it trusts in a text.
pub use markdown::citations;
pub mod number;
pub mod options;
pub mod pacing;
pub mod reducer;
pub mod session;
pub mod sse;
pub mod strings;
#[cfg(test)]
mod test_threads;
pub mod tool_output;
pub mod views;
pub mod widgets;
pub mod window;

/// The wire formats, a crate of their own so that nothing in them can reach up here.
pub use chat_shell_protocol as protocol;
