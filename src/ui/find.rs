//! The find bar: searches every loaded item of the conversation (`core::find`), not only
//! the window of them that is mounted, and steps through the matches, the conversation
//! bringing each one into view (`ViewSignals::reveal`). In the chunk of the views a first
//! screen does not need (`crate::parts::views::find_bar`).

use super::{tr, trf, use_shell};
use crate::ui::glyphs::{glyph, Glyph};
use chat_shell_core::find;
use chat_shell_core::strings::Text;
use leptos::ev;
use leptos::html;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

#[component]
pub(crate) fn FindBar() -> impl IntoView {
    let shell = use_shell();
    let signals = shell.signals().expect("runtime exists while mounted");
    let query = RwSignal::new(String::new());
    let current = RwSignal::new(None::<usize>);
    let input = NodeRef::<html::Input>::new();
    // Again when the query or the list of items changes (a page of older items, a new
    // answer, another thread).
    let matches = Memo::new(move |_| {
        signals.order.track();
        query
            .with(|q| shell.with(|rt| rt.with_state(|s| find::find(s, q))))
            .unwrap_or_default()
    });
    let go = move |index: Option<usize>| {
        current.set(index);
        let id = index.and_then(|i| matches.with_untracked(|m| m.get(i).cloned()));
        if id.is_some() {
            signals.reveal.set(id);
        }
    };
    // A new query shows its newest match: the reader is most often at the end.
    // (Only the query is tracked: a list that changes under it leaves the match alone.)
    Effect::new(move |_| {
        query.track();
        go(find::step(None, matches.with_untracked(Vec::len), false));
    });
    let step = move |forward: bool| {
        let count = matches.with_untracked(Vec::len);
        let at = current.get_untracked().filter(|&i| i < count);
        go(find::step(at, count, forward));
    };
    let close = move || {
        signals.find_open.set(false);
        signals.reveal.set(None);
        // Focus goes back to the button that opened the bar.
        if let Some(button) = input
            .get_untracked()
            .map(|i| i.get_root_node())
            .and_then(|root| root.dyn_into::<web_sys::ShadowRoot>().ok())
            .and_then(|root| {
                root.query_selector("[data-part=find-toggle]")
                    .ok()
                    .flatten()
            })
            .and_then(|b| b.dyn_into::<web_sys::HtmlElement>().ok())
        {
            let _ = button.focus();
        }
    };
    let on_keydown = move |e: ev::KeyboardEvent| match e.key().as_str() {
        "Enter" => {
            e.prevent_default();
            step(!e.shift_key());
        }
        "Escape" => {
            e.prevent_default();
            close();
        }
        _ => {}
    };
    Effect::new(move |_| {
        if let Some(el) = input.get() {
            let _ = el.focus();
        }
    });
    let status = move || {
        let total = matches.with(Vec::len);
        if query.with(|q| q.trim().is_empty()) {
            String::new()
        } else if total == 0 {
            tr(shell, Text::FindNone).get()
        } else {
            let at = current.get().filter(|&i| i < total).map_or(0, |i| i + 1);
            trf(
                shell,
                Text::FindCount,
                vec![("current", at.to_string()), ("total", total.to_string())],
            )
            .get()
        }
    };
    let none = move || matches.with(Vec::is_empty);
    view! {
        <div class="cs-find" role="search" data-part="find">
            <input
                type="search"
                class="cs-find__input"
                node_ref=input
                aria-label=tr(shell, Text::FindInConversation)
                placeholder=tr(shell, Text::FindInConversation)
                prop:value=move || query.get()
                on:input=move |e| query.set(event_target_value(&e))
                on:keydown=on_keydown
            />
            <span class="cs-find__status" role="status" aria-live="polite">{status}</span>
            {icon_button(shell, Text::FindPrevious, Glyph::ArrowUp, Signal::derive(none), move || step(false))}
            {icon_button(shell, Text::FindNext, Glyph::ArrowDown, Signal::derive(none), move || step(true))}
            {icon_button(shell, Text::FindClose, Glyph::Close, Signal::from(false), close)}
        </div>
    }
}

/// A button shown as an icon, named (and titled) by `name`.
fn icon_button(
    shell: crate::runtime::Shell,
    name: Text,
    icon: Glyph,
    disabled: Signal<bool>,
    on_click: impl Fn() + 'static,
) -> impl IntoView {
    view! {
        <button
            type="button"
            class="cs-button cs-button--ghost"
            aria-label=tr(shell, name)
            title=tr(shell, name)
            disabled=disabled
            on:click=move |_| on_click()
        >
            {glyph(icon)}
        </button>
    }
}
