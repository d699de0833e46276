//! Where each wire format becomes the thread's state: one sans-IO adapter per format, fed
//! decoded frames, giving reducer inputs. No I/O, no DOM: the runtime feeds the frames.

pub mod agent_ui;
pub mod events;
