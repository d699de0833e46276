//! What the `Runtime` holds for each concern (registries, AG-UI's facts, the tray, the
//! threads, the channel, the session, the request options), and the signal types the
//! views read. Plain data: the behaviour is in each concern's own file (`impl Runtime`),
//! so the runtime's struct can name these without depending on that behaviour.

pub(crate) mod actions;
pub(crate) mod ag_ui;
pub(crate) mod attachments;
pub(crate) mod channel;
pub(crate) mod http;
pub(crate) mod session;
pub(crate) mod threads;

pub use crate::client::Shell;
