//! ShellHeader: the thread's title and the thread controls (Find, Export, New chat,
//! History). On a narrow screen Find and Export fold into "More" (the stylesheet shows one
//! or the other); the menus themselves come with their chunk (`crate::chunks::views`).

use super::tr;
use crate::runtime::Shell;
use crate::ui::glyphs::{glyph, Glyph};
use crate::ui::use_shell;
use chat_shell_core::strings::Text;
use leptos::html;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// `history_button` is shared with the history view, which gives focus back to it when
/// it closes.
#[component]
pub fn ShellHeader(history_button: NodeRef<html::Button>) -> impl IntoView {
    let shell = use_shell();
    let signals = shell.signals().expect("runtime exists while mounted");
    let title = move || {
        signals
            .thread
            .with(|t| t.as_ref().and_then(|t| t.title.clone()))
            .filter(|t| !t.trim().is_empty())
            .unwrap_or_else(|| tr(shell, Text::NewChat).get())
    };
    let open = move || signals.history.open.get();
    // The tab strip's code comes with the view panels' (`crate::chunks`): a thread has views
    // only once the channel pushed one.
    let views = super::has_views(shell);
    let has_views = Memo::new(move |_| views.get());
    let has_usage = Memo::new(move |_| {
        signals.session.state.with(|s| {
            s.as_ref()
                .and_then(|s| s.usage.as_ref())
                .and_then(chat_shell_core::session::checked_usage)
                .is_some()
        })
    });
    let export_button = NodeRef::<html::Button>::new();
    let export_open = RwSignal::new(false);
    let more_button = NodeRef::<html::Button>::new();
    let more_open = RwSignal::new(false);
    view! {
        <header class="cs-header" part="header">
            <h2 class="cs-header__title" data-part="thread-title">{title}</h2>
            {move || has_views.get().then(|| crate::chunks::views::view_tabs(shell))}
            {move || has_usage.get().then(|| crate::chunks::views::usage_meter(shell))}
            <div class="cs-header__actions">
                <button
                    type="button"
                    class="cs-button cs-button--ghost cs-header__wide"
                    aria-label=tr(shell, Text::FindInConversation)
                    title=tr(shell, Text::FindInConversation)
                    aria-expanded=move || signals.find_open.get().to_string()
                    data-part="find-toggle"
                    on:click=move |_| signals.find_open.update(|o| *o = !*o)
                >
                    {crate::ui::glyphs::glyph(crate::ui::glyphs::Glyph::Search)}
                </button>
                {menu_button(shell, export_button, export_open, Text::Export, Glyph::Download, "export-toggle", "cs-header__wide", crate::chunks::views::export_menu)}
                <button
                    type="button"
                    class="cs-button cs-button--ghost"
                    aria-label=tr(shell, Text::NewChat)
                    title=tr(shell, Text::NewChat)
                    on:click=move |e: web_sys::MouseEvent| {
                        shell.with(|rt| rt.new_chat());
                        super::focus_next(e.current_target(), &["textarea"]);
                    }
                >
                    {crate::ui::glyphs::glyph(crate::ui::glyphs::Glyph::Plus)}
                    <span class="cs-button__label">{tr(shell, Text::NewChat)}</span>
                </button>
                <button
                    type="button"
                    class="cs-button cs-button--ghost"
                    node_ref=history_button
                    aria-label=tr(shell, Text::History)
                    title=tr(shell, Text::History)
                    aria-expanded=move || open().to_string()
                    aria-controls=move || open().then_some("cs-history")
                    data-part="history-toggle"
                    on:click=move |_| {
                        shell.with(|rt| rt.toggle_history());
                    }
                >
                    {crate::ui::glyphs::glyph(crate::ui::glyphs::Glyph::History)}
                    <span class="cs-button__label">{tr(shell, Text::History)}</span>
                </button>
                {menu_button(shell, more_button, more_open, Text::More, Glyph::More, "more-toggle", "cs-header__narrow", crate::chunks::views::more_menu)}
            </div>
        </header>
    }
}

/// A header button that opens a menu under it (`menu` builds the menu while it is open):
/// a click or ArrowDown opens it; leaving the button and its menu closes it.
#[allow(clippy::too_many_arguments)]
fn menu_button(
    shell: Shell,
    button: NodeRef<html::Button>,
    open: RwSignal<bool>,
    label: Text,
    icon: Glyph,
    part: &'static str,
    class: &'static str,
    menu: fn(Shell, NodeRef<html::Button>, RwSignal<bool>) -> AnyView,
) -> impl IntoView {
    let on_focusout = move |e: web_sys::FocusEvent| {
        let inside = e
            .related_target()
            .zip(e.current_target())
            .is_some_and(|(to, this)| {
                this.unchecked_ref::<web_sys::Node>()
                    .contains(to.dyn_ref::<web_sys::Node>())
            });
        if !inside {
            open.set(false);
        }
    };
    view! {
        <span class=format!("cs-header__menu {class}") on:focusout=on_focusout>
            <button
                type="button"
                class="cs-button cs-button--ghost"
                node_ref=button
                aria-label=tr(shell, label)
                title=tr(shell, label)
                aria-haspopup="menu"
                aria-expanded=move || open.get().to_string()
                data-part=part
                on:click=move |_| open.update(|o| *o = !*o)
                on:keydown=move |e: web_sys::KeyboardEvent| {
                    if e.key() == "ArrowDown" && !open.get_untracked() {
                        e.prevent_default();
                        open.set(true);
                    }
                }
            >
                {glyph(icon)}
            </button>
            {move || open.get().then(|| menu(shell, button, open))}
        </span>
    }
}
