//! ShellHeader: the thread's title and the thread controls (New chat, History).

use crate::runtime::Shell;
use leptos::html;
use leptos::prelude::*;

/// `history_button` is shared with the history view, which gives focus back to it when
/// it closes.
#[component]
pub fn ShellHeader(shell: Shell, history_button: NodeRef<html::Button>) -> impl IntoView {
    let signals = shell.signals().expect("runtime exists while mounted");
    let title = move || {
        signals
            .thread
            .with(|t| t.as_ref().and_then(|t| t.title.clone()))
            .filter(|t| !t.trim().is_empty())
            .unwrap_or_else(|| "New chat".to_owned())
    };
    let open = move || signals.history.open.get();
    view! {
        <header class="cs-header" part="header">
            <h2 class="cs-header__title" data-part="thread-title">{title}</h2>
            <div class="cs-header__actions">
                <button
                    type="button"
                    class="cs-button cs-button--ghost"
                    aria-label="New chat"
                    title="New chat"
                    on:click=move |_| {
                        shell.with(|rt| rt.new_chat());
                    }
                >
                    <span aria-hidden="true">"+"</span>
                    <span class="cs-button__label">"New chat"</span>
                </button>
                <button
                    type="button"
                    class="cs-button cs-button--ghost"
                    node_ref=history_button
                    aria-label="History"
                    title="History"
                    aria-expanded=move || open().to_string()
                    aria-controls=move || open().then_some("cs-history")
                    data-part="history-toggle"
                    on:click=move |_| {
                        shell.with(|rt| rt.toggle_history());
                    }
                >
                    <span aria-hidden="true">"☰"</span>
                    <span class="cs-button__label">"History"</span>
                </button>
            </div>
        </header>
    }
}
