//! What the runtime keeps for widget actions and the page's handlers: the registries by
//! name (client widgets, tools, action and effect handlers) and the actions awaiting the
//! end of the answer they started. The registering and calling are in `runtime::actions`.

pub use crate::client::{ClientWidgetContext, RustHandler, RustTool, RustWidget, ToolFuture};
use leptos::prelude::*;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;

/// What renders a `client_widget` item of a given name.
#[derive(Clone)]
pub enum ClientWidgetRenderer {
    /// `(args, context) => Node`.
    Js(js_sys::Function),
    /// A custom element created by tag name; it receives `args` (and `context`) as
    /// properties.
    Tag(String),
    Rust(RustWidget),
}

/// A client tool: called with its arguments, its result goes back to the server.
#[derive(Clone)]
pub enum ClientTool {
    /// `async (args, context) => result`.
    Js(js_sys::Function),
    Rust(RustTool),
}

/// A handler of client actions or of client effects.
#[derive(Clone)]
pub enum Handler {
    Js(js_sys::Function),
    Rust(RustHandler),
}

/// How an action ended, for whoever shows that it is running.
pub type ActionDone = Box<dyn FnOnce(bool)>;

/// The registries of one runtime and the actions waiting for their answer to end.
#[derive(Default)]
pub struct Registry {
    pub(crate) widgets: RefCell<HashMap<String, ClientWidgetRenderer>>,
    pub(crate) tools: RefCell<HashMap<String, ClientTool>>,
    pub(crate) actions: RefCell<HashMap<String, Handler>>,
    pub(crate) effects: RefCell<HashMap<String, Handler>>,
    /// Ticks when a client widget is (un)registered, so items already shown re-render.
    pub(crate) widgets_rev: Cell<Option<RwSignal<u64>>>,
    /// Streamed actions, told how they ended once the turn they started is over.
    pub(crate) waiting: RefCell<Vec<ActionDone>>,
}
