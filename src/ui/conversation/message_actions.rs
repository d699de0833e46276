//! The bar under an answer: Copy, Good response / Bad response, Retry, and the branch
//! picker where the thread branches. In a chunk, placed once the answer is there.

use crate::runtime::EntryView;
use crate::ui::glyphs::{glyph, Glyph};
use crate::ui::{tr, use_shell};
use chat_shell_core::protocol::chatkit::{FeedbackKind, ItemId};
use chat_shell_core::reducer::assistant_text;
use chat_shell_core::strings::Text;
use leptos::prelude::*;

/// Copy, Good response / Bad response, and Retry for the last answer. After a failed
/// answer the error owns the one Retry (and offers none when the server forbids it).
#[component]
pub(crate) fn MessageActions(id: ItemId, answers: Vec<ItemId>, latest: bool) -> impl IntoView {
    let shell = use_shell();
    let signals = shell.signals().expect("runtime exists while mounted");
    let feedback = RwSignal::new(None::<FeedbackKind>);
    let copied = RwSignal::new(false);
    // Copy takes the whole turn's answer, every fragment in order.
    let copy = move |_| {
        let text = shell
            .with(|rt| {
                answers
                    .iter()
                    .filter_map(|a| rt.with_item(a, assistant_text).flatten())
                    .filter(|t| !t.is_empty())
                    .collect::<Vec<_>>()
                    .join("\n\n")
            })
            .filter(|t| !t.is_empty());
        if let (Some(text), Some(window)) = (text, web_sys::window()) {
            let _ = window.navigator().clipboard().write_text(&text);
            copied.set(true);
        }
    };
    let send_feedback = {
        let id = id.clone();
        move |kind: FeedbackKind| {
            let id = id.clone();
            let Some(rt) = shell.get() else { return };
            wasm_bindgen_futures::spawn_local(async move {
                // The message's view may be gone by the answer (the element removed).
                if rt.feedback(id, kind).await {
                    feedback.try_set(Some(kind));
                }
            });
        }
    };
    let good = send_feedback.clone();
    let is_last = {
        let id = id.clone();
        move || {
            signals.order.with(|o| {
                o.iter()
                    .rev()
                    .find(|k| k.view == EntryView::AssistantText)
                    .is_some_and(|k| k.id == id)
            })
        }
    };
    let retry_id = id.clone();
    // Where the thread branches every answer can be regenerated (the old one stays).
    let branching = move || {
        signals
            .thread
            .with(|t| t.as_ref().is_some_and(|t| t.branching))
    };
    let offers_retry =
        move || (branching() || is_last()) && !(is_last() && signals.error.with(Option::is_some));
    // The branches of the turn's first item (answers regenerated).
    let turn_id = id.clone();
    let first = Memo::new(move |_| {
        signals.order.track();
        shell
            .with(|rt| rt.with_state(|s| s.turn_branches(&turn_id).map(|e| e.id.clone())))
            .flatten()
    });
    view! {
        <div class="cs-actions" data-part="message-actions" data-latest=latest.to_string()>
            {move || first.get().map(|id| view! { <super::branches::BranchPicker id=id /> })}
            <button type="button" class="cs-button cs-button--ghost" on:click=copy>
                {move || glyph(if copied.get() { Glyph::Check } else { Glyph::Copy })}
                <span>{move || tr(shell, if copied.get() { Text::Copied } else { Text::Copy }).get()}</span>
            </button>
            <button
                type="button"
                class="cs-button cs-button--ghost"
                aria-label=tr(shell, Text::GoodResponse)
                aria-pressed=move || (feedback.get() == Some(FeedbackKind::Positive)).to_string()
                on:click=move |_| good(FeedbackKind::Positive)
            >
                {thumb(false)}
            </button>
            <button
                type="button"
                class="cs-button cs-button--ghost"
                aria-label=tr(shell, Text::BadResponse)
                aria-pressed=move || (feedback.get() == Some(FeedbackKind::Negative)).to_string()
                on:click=move |_| send_feedback(FeedbackKind::Negative)
            >
                {thumb(true)}
            </button>
            <Show when=offers_retry>
                <button
                    type="button"
                    class="cs-button cs-button--ghost"
                    disabled=move || signals.streaming.get().is_some()
                    on:click={
                        let retry_id = retry_id.clone();
                        move |_| {
                            shell.with(|rt| rt.retry_item(&retry_id));
                        }
                    }
                >
                    {glyph(Glyph::Retry)}
                    <span>{tr(shell, Text::Retry)}</span>
                </button>
            </Show>
        </div>
    }
}

/// A thumbs-up outline (flipped for thumbs-down): drawn, so it shows the same everywhere
/// (emoji fonts vary). Decorative: the button carries the name.
fn thumb(down: bool) -> impl IntoView {
    // The path is built on its own (a path written inline in `view!` gets wrapped in a
    // `<g>`), so the icon is the same plain svg + path as every other icon.
    let path = view! { <path d="M7 10v10H4V10zM7 10l4-7a2 2 0 0 1 3 2l-1 4h5a2 2 0 0 1 2 2.3l-1.3 7A2 2 0 0 1 16.7 20H7"></path> };
    view! {
        <svg
            class="cs-glyph"
            class:cs-glyph--flip=down
            viewBox="0 0 24 24"
            aria-hidden="true"
            focusable="false"
        >
            {path}
        </svg>
    }
}
