//! The conversation: the viewport with its items, one view per kind of item (messages,
//! tasks and workflows, generated images, an agent's plan and thoughts, turn ends), the
//! run's inline errors and banner, and the attachments a message was sent with.

pub(crate) mod attachments;
pub(crate) mod branches;
pub(crate) mod elicitation;
pub(crate) mod image;
pub(crate) mod items;
pub(crate) mod message;
pub(crate) mod message_actions;
pub(crate) mod plan;
pub(crate) mod run;
pub(crate) mod sources;
pub(crate) mod tasks;
pub(crate) mod viewport;
pub(crate) mod window;
