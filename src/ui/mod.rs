//! The Leptos views, by what the user sees. The tree follows the spec: ChatShell →
//! ShellHeader, ShellBody → HistoryView (in place of the conversation while open),
//! StreamViewport, ComposerDock → AttachmentTray, Composer. Views read state through the
//! runtime and never mutate it except through its intent methods.
//!  - `conversation`: the viewport and its items (messages, tasks, images, plans and
//!    thoughts, the run's errors and banner, sent attachments);
//!  - `composer`: the composer dock and the attachment tray;
//!  - `history`: past conversations; `team`: the roster and the team's notes;
//!  - `menu`: the header's menus (Export, and More on narrow screens);
//!  - `tools`: agents' tool calls and permission cards, the view tabs and their panels;
//!  - `widgets`: server and client widgets, client tool calls, structured input;
//!  - `diff`: the Diff view and the one diff row renderer;
//!  - the shell's frame: `shell` (ShellRoot), `header`, `resize`; shared pieces:
//!    `markdown`, `sentinel`, `icons` (the widget icon set, also the starter prompts'), and here the Shell's context, `item_memo` and the strings.
//!
//! Views the first screen does not need are built by `crate::chunks::views` once their chunk
//! is loaded; this module (the helpers every view uses) never asks for a chunk.

pub(crate) mod composer;
pub(crate) mod conversation;
mod diff;
pub(crate) mod find;
pub(crate) mod frame;
pub(crate) mod glyphs;
pub(crate) mod header;
pub(crate) mod history;
pub(crate) mod icons;
pub(crate) mod markdown;
pub(crate) mod menu;
pub(crate) mod resize;
pub(crate) mod sentinel;
mod shell;
pub(crate) mod style;
pub(crate) mod team;
pub(crate) mod tools;
pub(crate) mod usage;
pub(crate) mod widgets;

use crate::runtime::Shell;
use chat_shell_core::protocol::chatkit::ItemId;
use chat_shell_core::reducer::EntryState;
use chat_shell_core::strings::{Strings, Text};
pub use diff::DiffView;
use leptos::prelude::*;
pub use shell::ShellRoot;

/// The runtime of the chat these views show: provided once, by [`ShellRoot`], and read by
/// every view that needs it (call it where the view is built, not in an event handler).
pub(crate) fn use_shell() -> Shell {
    expect_context::<Shell>()
}

/// Makes `shell` the runtime of the views built below (as [`ShellRoot`] does): for a view
/// mounted by itself, such as [`DiffView`].
pub fn provide_shell(shell: Shell) {
    provide_context(shell);
}

/// What a view shows of one item, read again only when that item changes: `read` of the
/// item, or the default once the item has left the state.
pub(crate) fn item_memo<T>(
    shell: Shell,
    id: ItemId,
    read: impl Fn(&EntryState) -> T + Send + Sync + 'static,
) -> Memo<T>
where
    T: Default + PartialEq + Send + Sync + 'static,
{
    let rev = shell.with(|rt| rt.item_rev(&id));
    Memo::new(move |_| {
        if let Some(rev) = rev {
            rev.track();
        }
        shell
            .with(|rt| rt.with_item(&id, &read))
            .flatten()
            .unwrap_or_default()
    })
}

/// A UI string in the element's language, reactive to locale and override changes.
pub(crate) fn tr(shell: Shell, text: Text) -> Signal<String> {
    let signals = shell.signals();
    Signal::derive(move || match signals {
        Some(s) => s.strings.with(|t| t.get(text).to_owned()),
        None => text.english().to_owned(),
    })
}

/// `tr` with `{name}` placeholders filled in.
pub(crate) fn trf(shell: Shell, text: Text, args: Vec<(&'static str, String)>) -> Signal<String> {
    let signals = shell.signals();
    Signal::derive(move || {
        let args: Vec<(&str, &str)> = args.iter().map(|(k, v)| (*k, v.as_str())).collect();
        match signals {
            Some(s) => s.strings.with(|t| t.format(text, &args)),
            None => Strings::default().format(text, &args),
        }
    })
}

/// The element's strings (tracked when read in a reactive context), for the core's
/// functions that take them.
pub(crate) fn strings(shell: Shell) -> Strings {
    shell.signals().map(|s| s.strings.get()).unwrap_or_default()
}

/// After this frame's re-render, moves the focus to the first element of `from`'s root
/// (the element's shadow root, or the page for the Leptos component) that matches one of
/// `selectors`, tried in order: an action that takes its own control away (a permission
/// answered, a conversation replaced) never leaves the focus on `<body>`.
pub(crate) fn focus_next(from: Option<web_sys::EventTarget>, selectors: &'static [&'static str]) {
    use wasm_bindgen::JsCast;
    let Some(from) = from.and_then(|t| t.dyn_into::<web_sys::Node>().ok()) else {
        return;
    };
    let root = from.get_root_node();
    let find = move |selector: &str| -> Option<web_sys::Element> {
        match root.dyn_ref::<web_sys::ShadowRoot>() {
            Some(shadow) => shadow.query_selector(selector).ok().flatten(),
            None => root
                .dyn_ref::<web_sys::Document>()
                .and_then(|d| d.query_selector(selector).ok().flatten()),
        }
    };
    request_animation_frame(move || {
        if let Some(el) = selectors
            .iter()
            .find_map(|s| find(s))
            .and_then(|el| el.dyn_into::<web_sys::HtmlElement>().ok())
        {
            let _ = el.focus();
        }
    });
}

/// Whether the thread has a view (the tab strip is shown).
pub(crate) fn has_views(shell: Shell) -> Signal<bool> {
    let signals = shell.signals();
    Signal::derive(move || {
        signals.is_some_and(|s| {
            s.views.views.with(|v| !v.is_empty()) || s.views.artifact.with(Option::is_some)
        })
    })
}

/// The id of the conversation's panel (the "Chat" tab controls it).
pub(crate) const CHAT_PANEL: &str = "cs-conversation";
/// The id of the "Chat" tab, which labels the conversation's panel.
pub(crate) const CHAT_TAB: &str = "cs-tab-chat";
