//! The Leptos views, by what the user sees. The tree follows the spec: ChatShell →
//! ShellHeader, ShellBody → HistoryView (in place of the conversation while open),
//! StreamViewport, ComposerDock → AttachmentTray, Composer. Views read state through the
//! runtime and never mutate it except through its intent methods.
//!  - `conversation`: the viewport and its items (messages, tasks, images, plans and
//!    thoughts, the run's errors and banner, sent attachments);
//!  - `composer`: the composer dock and the attachment tray;
//!  - `history`: past conversations; `team`: the roster and the team's notes;
//!  - `tools`: agents' tool calls and permission cards, the view tabs and their panels;
//!  - `widgets`: server and client widgets, client tool calls, structured input;
//!  - `diff`: the Diff view and the one diff row renderer;
//!  - the shell's frame: `header`, `resize`; shared pieces: `markdown`, `sentinel`.
//!
//! Views the first screen does not need are built by `crate::parts::views` once their part
//! is loaded.

pub(crate) mod composer;
pub(crate) mod conversation;
mod diff;
mod header;
pub(crate) mod history;
pub(crate) mod markdown;
mod resize;
pub(crate) mod sentinel;
pub(crate) mod team;
pub(crate) mod tools;
pub(crate) mod widgets;

use crate::parts;
use crate::runtime::Shell;
use chat_shell_core::protocol::chatkit::ItemId;
use chat_shell_core::reducer::ItemState;
use chat_shell_core::strings::{Strings, Text};
pub use diff::DiffView;
use leptos::html;
use leptos::prelude::*;
use tools::tabs;

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
    read: impl Fn(&ItemState) -> T + Send + Sync + 'static,
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

/// Whether a drag carries files (not text or a link dragged within the page).
fn drags_files(ev: &web_sys::DragEvent) -> bool {
    ev.data_transfer().is_some_and(|dt| {
        dt.types()
            .iter()
            .any(|t| t.as_string().as_deref() == Some("Files"))
    })
}

/// The whole component for one runtime.
#[component]
pub fn ShellRoot(shell: Shell) -> impl IntoView {
    provide_shell(shell);
    let Some(signals) = shell.signals() else {
        return view! { <div class="cs-shell" part="shell">{Text::ChatUnavailable.english()}</div> }
            .into_any();
    };
    let history_button = NodeRef::<html::Button>::new();
    let history_open = move || signals.history.open.get();
    let view_shown = move || signals.views.tab.with(Option::is_some);
    let has_views = tabs::has_views(shell);
    // Files dropped anywhere on the component join the tray.
    let dragging = RwSignal::new(false);
    let on_dragover = move |ev: web_sys::DragEvent| {
        if history_open() || !drags_files(&ev) {
            return;
        }
        ev.prevent_default();
        if let Some(dt) = ev.data_transfer() {
            dt.set_drop_effect("copy");
        }
        dragging.set(true);
    };
    let on_dragleave = move |ev: web_sys::DragEvent| {
        // Leaving for a child is not leaving the component.
        let inside = ev
            .related_target()
            .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Node>(t).ok())
            .zip(ev.current_target())
            .is_some_and(|(to, this)| {
                wasm_bindgen::JsCast::unchecked_ref::<web_sys::Node>(&this).contains(Some(&to))
            });
        if !inside {
            dragging.set(false);
        }
    };
    let on_drop = move |ev: web_sys::DragEvent| {
        dragging.set(false);
        if history_open() || !drags_files(&ev) {
            return;
        }
        ev.prevent_default();
        let files = composer::files_of(ev.data_transfer().and_then(|dt| dt.files()));
        shell.with(|rt| rt.add_files(files));
    };
    view! {
        <div
            class="cs-shell"
            part="shell"
            // A right-to-left locale lays the chat out right to left; otherwise the
            // direction is inherited from the page.
            dir=move || signals.strings.with(|s| (s.direction() == "rtl").then_some("rtl"))
            lang=move || signals.options.with(|o| o.locale.clone())
            class:cs-shell--dragging=move || dragging.get()
            on:dragover=on_dragover
            on:dragleave=on_dragleave
            on:drop=on_drop
        >
            <header::ShellHeader history_button=history_button />
            <div class="cs-body" part="body">
                // Hidden, not unmounted, while the history covers it: its scroll position,
                // rendered messages and draft stay as they were.
                <div
                    class="cs-conversation"
                    class:cs-conversation--covered=move || history_open() || view_shown()
                    id=tabs::CHAT_PANEL
                    role=move || has_views.get().then_some("tabpanel")
                    aria-labelledby=move || has_views.get().then_some("cs-tab-chat")
                >
                    <conversation::viewport::StreamViewport />
                    <conversation::run::RunBar />
                    <composer::ComposerDock />
                </div>
                <ViewPanel />
                <Show when=history_open>
                    {parts::views::history(shell, history_button)}
                </Show>
            </div>
            <div class="cs-sr-only" role="status" aria-live="polite" aria-atomic="true">
                {move || signals.announce.with(|answer| crate::parts::renderer::announcement(answer))}
            </div>
            <resize::ResizeHandles />
        </div>
    }
    .into_any()
}

/// The panel of the view shown, over the conversation.
#[component]
fn ViewPanel() -> impl IntoView {
    let shell = use_shell();
    let signals = shell.signals().expect("runtime exists while mounted");
    let views = signals.views;
    let shown = move || views.tab.get();
    view! {
        {move || shown().map(|view_type| parts::views::view_panel(shell, view_type))}
    }
}
