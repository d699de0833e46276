//! ShellRoot: the whole component for one runtime (header, conversation, composer, the
//! view panel and the history over it, resize handles), which provides the Shell to every
//! view below it; files dropped anywhere on it join the tray.

use super::{composer, conversation, has_views, header, provide_shell, use_shell};
use super::{CHAT_PANEL, CHAT_TAB};
use crate::chunks;
use crate::runtime::Shell;
use chat_shell_core::strings::Text;
use leptos::html;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

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
    let has_views = has_views(shell);
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
    // Ctrl+F (⌘F) inside the element finds in the whole conversation, which the page's
    // own find cannot (a long thread mounts a window of its items); pressed again in the
    // find bar, it is the browser's.
    let on_keydown = move |e: web_sys::KeyboardEvent| {
        let find_key =
            (e.ctrl_key() || e.meta_key()) && !e.alt_key() && e.key().eq_ignore_ascii_case("f");
        let in_find = e
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .and_then(|t| t.closest("[data-part=find]").ok().flatten())
            .is_some();
        if find_key && !in_find {
            e.prevent_default();
            if signals.find_open.get_untracked() {
                focus_find(&e);
            } else {
                signals.find_open.set(true);
            }
        }
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
            on:keydown=on_keydown
        >
            <header::ShellHeader history_button=history_button />
            <div class="cs-body" part="body">
                // Hidden, not unmounted, while a view covers it: its scroll position,
                // rendered messages and draft stay as they were. The history is a panel
                // over it, beside which it stays in sight.
                <div
                    class="cs-conversation"
                    class:cs-conversation--covered=view_shown
                    id=CHAT_PANEL
                    role=move || has_views.get().then_some("tabpanel")
                    aria-labelledby=move || has_views.get().then_some(CHAT_TAB)
                >
                    {move || signals.find_open.get().then(|| chunks::views::find_bar(shell))}
                    <conversation::viewport::StreamViewport />
                    <conversation::run::RunBar />
                    <composer::ComposerDock />
                </div>
                <ViewPanel />
                <Show when=history_open>
                    {chunks::views::history(shell, history_button)}
                </Show>
            </div>
            <div class="cs-sr-only" role="status" aria-live="polite" aria-atomic="true">
                {move || signals.announce.with(|answer| crate::chunks::renderer::announcement(answer))}
            </div>
            {move || signals.options.with(|o| o.resizable).then(|| chunks::views::resize_handles(shell))}
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
        {move || shown().map(|view_type| chunks::views::view_panel(shell, view_type))}
    }
}

/// Focus the open find bar's field (Ctrl+F again while it is open, focus elsewhere).
fn focus_find(e: &web_sys::KeyboardEvent) {
    if let Some(field) = e
        .current_target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .and_then(|shell| shell.query_selector(".cs-find__input").ok().flatten())
        .and_then(|f| f.dyn_into::<web_sys::HtmlElement>().ok())
    {
        let _ = field.focus();
    }
}
