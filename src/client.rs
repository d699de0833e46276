//! What a Rust app gives the chat, typed: its client tools, client widgets and handlers
//! (the `ChatShell` component's props), and the handle of the chat they run in. Plain types
//! on every target: a server-rendered app names them in its server build too.

use chat_shell_core::protocol::chatkit::ItemId;
use leptos::prelude::AnyView;
use serde_json::Value;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

/// A copyable handle to one chat's runtime (views hold this, not the runtime: Leptos
/// view closures must be `Send`, the runtime is not). Its methods, which look the runtime
/// up, are with the runtime (`crate::runtime`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shell(pub(crate) u32);

/// What a client widget sees when it renders.
#[derive(Clone, Debug)]
pub struct ClientWidgetContext {
    pub shell: Shell,
    pub item_id: ItemId,
    pub name: String,
    pub args: Value,
}

/// A client widget from Rust: a function from the widget's context to a view.
pub type RustWidget = Rc<dyn Fn(ClientWidgetContext) -> AnyView>;

/// What a Rust client tool returns: its result, or an error message.
pub type ToolFuture = Pin<Box<dyn Future<Output = Result<Value, String>>>>;

/// A client tool in Rust: called with the tool call's arguments.
pub type RustTool = Rc<dyn Fn(Value) -> ToolFuture>;

/// A Rust handler of client actions (`(action, context)`) or effects (`(data, name)`).
pub type RustHandler = Rc<dyn Fn(&Value, &Value)>;
