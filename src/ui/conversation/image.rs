//! A generated image: its progress while it is made, then the image.

use crate::ui::tr;
use crate::ui::{item_memo, use_shell};
use chat_shell_core::markdown;
use chat_shell_core::model::EntryKind;
use chat_shell_core::protocol::chatkit::ItemId;
use chat_shell_core::reducer::ItemStatus;
use chat_shell_core::strings::Text;
use leptos::prelude::*;

/// An image being generated: a progress bar until there is an image, then the image.
#[component]
pub(crate) fn GeneratedImageView(id: ItemId) -> impl IntoView {
    let shell = use_shell();
    let snapshot = item_memo(shell, id.clone(), |i| {
        Some(match &i.entry.kind {
            EntryKind::GeneratedImage(g) => (
                g.image
                    .as_ref()
                    .and_then(|img| markdown::safe_image_url(&img.url)),
                i.progress,
                i.status,
            ),
            _ => (None, None, i.status),
        })
    });
    move || {
        let (src, progress, status) = snapshot.get()?;
        let done = status != ItemStatus::Streaming;
        let percent = progress.map(|p| (p.clamp(0.0, 1.0) * 100.0).round() as u32);
        Some(view! {
            <figure class="cs-image" data-part="generated-image" aria-busy=(!done).to_string()>
                {src.map(|src| view! { <img src=src alt=tr(shell, Text::GeneratedImage) /> })}
                {(!done).then(|| view! {
                    <div
                        class="cs-image__progress"
                        role="progressbar"
                        aria-label=tr(shell, Text::GeneratingImage)
                        aria-valuemin="0"
                        aria-valuemax="100"
                        aria-valuenow=percent.map(|p| p.to_string())
                    >
                        <div class="cs-image__bar" style:width=format!("{}%", percent.unwrap_or(10))></div>
                    </div>
                })}
            </figure>
        })
    }
}
