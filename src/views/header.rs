//! ShellHeader: the thread's title and the thread controls.

use crate::runtime::Shell;
use leptos::prelude::*;

#[component]
pub fn ShellHeader(shell: Shell) -> impl IntoView {
    let signals = shell.signals().expect("runtime exists while mounted");
    let title = move || {
        signals
            .thread
            .with(|t| t.as_ref().and_then(|t| t.title.clone()))
            .filter(|t| !t.trim().is_empty())
            .unwrap_or_else(|| "New chat".to_owned())
    };
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
            </div>
        </header>
    }
}
