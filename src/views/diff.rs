//! Placeholder until the Diff view lands: the patch as text.
use crate::runtime::Shell;
use leptos::prelude::*;

#[component]
pub fn DiffView(shell: Shell, patch: Signal<String>) -> impl IntoView {
    let _ = shell;
    view! { <pre class="cs-diff" data-part="diff-view">{move || patch.get()}</pre> }
}
