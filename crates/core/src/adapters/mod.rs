//! Where each wire format becomes reducer input: one sans-IO adapter per format, fed SSE
//! frames (`push`), giving [`Input`](crate::reducer::Input)s. No I/O, no DOM: the runtime
//! reads the bytes and applies the inputs. Nothing else in the core matches a format's
//! stream events.

pub mod acp;
pub mod ag_ui;
pub mod agent_ui;
pub mod chatkit;
pub mod events;
