//! Wire formats: serde types that mirror each format's JSON, one module per format. Nothing
//! of chat-shell above the wire: where a format becomes the thread's state is the core's
//! `adapters`.
//!
//! Accept unknown, reject broken known: every tagged union has an `Other` variant that
//! keeps the raw JSON of a type it does not know, while a known type with a malformed
//! body is a decode error that carries the raw payload.

// derive(Decode) names its paths `::chat_shell_protocol::decode`, which must resolve here too.
extern crate self as chat_shell_protocol;

pub mod acp;
pub mod ag_ui;
pub mod agent_ui;
pub mod chatkit;
pub mod decode;
pub mod events;
mod tagged;

pub use tagged::Unknown;

/// A JSON object, as carried in `metadata`, `data` and `args` fields.
pub type JsonMap = serde_json::Map<String, serde_json::Value>;
