//! The ChatKit wire model: requests, stream events, items and widgets, as the official SDK
//! (openai-chatkit 1.6.5) and the fork send them.

mod channel;
mod events;
mod ids;
mod items;
mod requests;
mod session;
mod thread;
mod widgets;

pub use channel::*;
pub use events::*;
pub use ids::*;
pub use items::*;
pub use requests::*;
pub use session::*;
pub use thread::*;
pub use widgets::*;

// The children name the shared pieces through `super::`.
use super::{acp, tagged, JsonMap, Unknown};
