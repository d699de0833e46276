//! The request handlers, by resource: `POST /chatkit` (`chatkit`) answers the ChatKit
//! requests of `threads` and their `items` and `attachments` as JSON, and streams the
//! answers (`stream`, written by `crate::sse`); `upload` takes and serves attachment bytes;
//! `callback` takes the views tools push; `events` and `agent_ui` answer the other two
//! wire formats; `health` answers load balancers; `request` reads what every handler
//! reads of a request. Thread channels (`threads.subscribe`) are `crate::channel`, runs and
//! their cancel `crate::runs`.

pub mod ag_ui;
pub mod agent_ui;
pub mod attachments;
pub mod callback;
pub mod chatkit;
pub mod events;
pub mod files;
pub mod health;
pub mod items;
pub mod request;
pub mod session;
pub mod stream;
pub mod threads;
pub mod transcribe;
pub mod upload;
