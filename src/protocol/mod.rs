//! The ChatKit wire model: serde types that mirror the JSON of requests, stream events,
//! items and widgets, as the official SDK (openai-chatkit 1.6.5) and the fork send them.
//!
//! Accept unknown, reject broken known: every tagged union has an `Other` variant that
//! keeps the raw JSON of a type it does not know, while a known type with a malformed
//! body is a decode error that carries the raw payload.

mod events;
mod ids;
mod items;
mod requests;
mod tagged;
mod thread;
mod widgets;

pub use events::*;
pub use ids::*;
pub use items::*;
pub use requests::*;
pub use tagged::Unknown;
pub use thread::*;
pub use widgets::*;

/// A JSON object, as carried in `metadata`, `data` and `args` fields.
pub type JsonMap = serde_json::Map<String, serde_json::Value>;
