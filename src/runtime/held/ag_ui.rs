//! What the runtime keeps for AG-UI: the open conversation's facts (shared with the
//! stream's adapter), the declared client tools, the host's thread list. Runs are started
//! and answered in `runtime::ag_ui`.

use chat_shell_core::adapters::ag_ui::Conversation;
use chat_shell_core::protocol::ag_ui::Tool;
use std::cell::RefCell;
use std::rc::Rc;

/// The open conversation's facts, shared by the runtime and the stream's adapter.
pub(crate) type Shared = Rc<RefCell<Option<Conversation>>>;

/// What the runtime keeps for AG-UI.
#[derive(Default)]
pub(crate) struct AgUi {
    /// The open conversation's facts; shared with the stream's adapter, which updates them.
    pub(crate) conversation: Shared,
    /// The page's declared client tools (`registerClientTool(name, fn, {description,
    /// parameters})`), sent with every run.
    pub(crate) declared: RefCell<Vec<Tool>>,
    /// The host's thread list (`setOptions({threads: {list, load, rename?, delete?}})`):
    /// History's, instead of the threads kept in this browser.
    pub(crate) host_threads: RefCell<Option<wasm_bindgen::JsValue>>,
}
