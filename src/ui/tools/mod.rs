//! What agents and tools do in the thread: an agent's tool calls with their permission
//! cards, and the tool-pushed views' tab strip and panels.

pub(crate) mod call;
pub(crate) mod permission;
pub(crate) mod tabs;

/// A path of the agent's as the reader needs it: relative to the session's working
/// directory when it lies inside it, the full path kept for a tooltip.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ShownPath {
    pub shown: String,
    pub full: String,
}

impl ShownPath {
    pub fn new(path: &str, cwd: Option<&str>) -> Self {
        ShownPath {
            shown: chat_shell_core::tool_output::relative_path(path, cwd).to_owned(),
            full: path.to_owned(),
        }
    }

    /// The tooltip: the full path, when it is not what is shown.
    pub fn title(&self) -> Option<String> {
        (self.shown != self.full).then(|| self.full.clone())
    }
}

/// The session's working directory, as the runtime said it (read once: it does not change
/// under a session, and a usage update must not redraw every path).
pub(crate) fn session_cwd(shell: crate::runtime::Shell) -> Option<String> {
    use leptos::prelude::WithUntracked;
    shell
        .signals()?
        .session
        .state
        .with_untracked(|s| s.as_ref()?.cwd.clone())
}
