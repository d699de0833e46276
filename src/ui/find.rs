//! The find bar: searches every loaded item of the conversation (`core::find`), not only
//! the window of them that is mounted, and steps through the matches, the conversation
//! bringing each one into view (`ViewSignals::reveal`). In the chunk of the views a first
//! screen does not need (`crate::chunks::views::find_bar`).

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
            if let Some(root) = input.get_untracked().map(|i| i.get_root_node()) {
                mark_words(root, query.get_untracked(), 0);
            }
        } else {
            set_marks(None);
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
        set_marks(None);
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

/// The name the matched words are marked under (`::highlight(cs-find)` in the stylesheet).
const MARKS: &str = "cs-find";

/// Marks every occurrence of `query` in the item find stepped to (`.cs-found` under
/// `root`) with the CSS Custom Highlight API, which changes no DOM, and opens the folded
/// thought or tool call the first match is in. Tried again for a few frames: the item may
/// still be on its way into view.
fn mark_words(root: web_sys::Node, query: String, tries: u32) {
    request_animation_frame(move || {
        let found = root
            .dyn_ref::<web_sys::ShadowRoot>()
            .and_then(|r| r.query_selector(".cs-found").ok().flatten())
            .or_else(|| {
                root.dyn_ref::<web_sys::Document>()
                    .and_then(|d| d.query_selector(".cs-found").ok().flatten())
            });
        let (Some(found), Some(document)) = (
            found,
            root.owner_document()
                .or_else(|| root.dyn_ref::<web_sys::Document>().cloned()),
        ) else {
            if tries < 40 {
                mark_words(root, query, tries + 1);
            }
            return;
        };
        let needle = query.trim().to_lowercase();
        if needle.is_empty() {
            return set_marks(None);
        }
        let ranges = js_sys::Array::new();
        let mut first: Option<web_sys::Node> = None;
        let mut texts = Vec::new();
        text_nodes(&found, &mut texts);
        for node in texts {
            let Some(text) = node.text_content() else {
                continue;
            };
            let lower = text.to_lowercase();
            // Offsets only line up where lowercasing keeps every byte where it was.
            if lower.len() != text.len() {
                continue;
            }
            for (at, _) in lower.match_indices(&needle) {
                // A Range counts UTF-16 units.
                let start = text[..at].encode_utf16().count() as u32;
                let end = start + text[at..at + needle.len()].encode_utf16().count() as u32;
                if let Ok(range) = document.create_range() {
                    if range.set_start(&node, start).is_ok() && range.set_end(&node, end).is_ok() {
                        ranges.push(&range);
                        first.get_or_insert_with(|| node.clone());
                    }
                }
            }
        }
        // A match inside a folded thought or tool call opens it.
        let mut at = first.and_then(|n| n.parent_element());
        while let Some(el) = at {
            if el.tag_name().eq_ignore_ascii_case("details") && !el.has_attribute("open") {
                let _ = el.set_attribute("open", "");
            }
            if el == found {
                break;
            }
            at = el.parent_element();
        }
        set_marks(Some(&ranges));
    });
}

/// Every text node under `node`, in order.
fn text_nodes(node: &web_sys::Node, out: &mut Vec<web_sys::Node>) {
    let children = node.child_nodes();
    for i in 0..children.length() {
        let Some(child) = children.item(i) else {
            continue;
        };
        if child.node_type() == web_sys::Node::TEXT_NODE {
            out.push(child);
        } else {
            text_nodes(&child, out);
        }
    }
}

/// `CSS.highlights.set(MARKS, new Highlight(...ranges))`, or its delete for `None`. A
/// browser without the API shows the marked item alone.
fn set_marks(ranges: Option<&js_sys::Array>) {
    use js_sys::{Function, Reflect};
    let global = js_sys::global();
    let Some(highlights) = Reflect::get(&global, &"CSS".into())
        .ok()
        .filter(|css| !css.is_undefined())
        .and_then(|css| Reflect::get(&css, &"highlights".into()).ok())
        .filter(|h| !h.is_undefined())
    else {
        return;
    };
    let method = |name: &str| {
        Reflect::get(&highlights, &name.into())
            .ok()
            .and_then(|f| f.dyn_into::<Function>().ok())
    };
    match ranges {
        Some(ranges) => {
            let made = Reflect::get(&global, &"Highlight".into())
                .ok()
                .and_then(|c| c.dyn_into::<Function>().ok())
                .and_then(|c| Reflect::construct(&c, ranges).ok());
            if let (Some(set), Some(made)) = (method("set"), made) {
                let _ = set.call2(&highlights, &MARKS.into(), &made);
            }
        }
        None => {
            if let Some(delete) = method("delete") {
                let _ = delete.call1(&highlights, &MARKS.into());
            }
        }
    }
}
