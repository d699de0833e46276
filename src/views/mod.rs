//! The Leptos views. The tree follows the spec: ChatShell → ShellHeader, ShellBody →
//! StreamViewport, ComposerDock → AttachmentTray, Composer. Views read state through the
//! runtime and never mutate it except through its intent methods.

mod composer;
mod header;
mod items;
mod markdown;
mod message;
mod viewport;

use crate::runtime::Shell;
use leptos::prelude::*;

/// The whole component for one runtime.
#[component]
pub fn ShellRoot(shell: Shell) -> impl IntoView {
    let Some(signals) = shell.signals() else {
        return view! { <div class="cs-shell" part="shell">"This chat is no longer available."</div> }
            .into_any();
    };
    view! {
        <div class="cs-shell" part="shell">
            <header::ShellHeader shell=shell />
            <div class="cs-body" part="body">
                <viewport::StreamViewport shell=shell />
                <composer::ComposerDock shell=shell />
            </div>
            <div class="cs-sr-only" role="status" aria-live="polite" aria-atomic="true">
                {move || signals.announce.get()}
            </div>
        </div>
    }
    .into_any()
}
