//! The numbered sources under an answer (its citations), in a chunk: only answers that
//! cite load it.

use crate::ui::{tr, use_shell};
use chat_shell_core::citations::Citation;
use chat_shell_core::host_events::ChatEvent;
use chat_shell_core::markdown::safe_url;
use chat_shell_core::protocol::chatkit::SourceKind;
use chat_shell_core::strings::Text;
use leptos::prelude::*;

/// The numbered sources under a message.
#[component]
pub(crate) fn SourcesList(cited: Vec<Citation>) -> impl IntoView {
    let shell = use_shell();
    let rows = cited
        .into_iter()
        .map(|c| {
            let number = format!("[{}]", c.number);
            let title = if c.source.title.trim().is_empty() { None } else { Some(c.source.title.clone()) };
            let row = match &c.source.kind {
                SourceKind::Url(u) => {
                    let label = title.unwrap_or_else(|| u.url.clone());
                    match safe_url(&u.url) {
                        Some(href) => view! {
                            <a href=href target="_blank" rel="noopener noreferrer nofollow">{label}</a>
                            {u.attribution.clone().map(|a| view! { <span class="cs-source__meta">{a}</span> })}
                        }
                        .into_any(),
                        None => view! { <span>{label}</span> }.into_any(),
                    }
                }
                SourceKind::File(f) => view! {
                    <span class="cs-source__file">{title.unwrap_or_else(|| f.filename.clone())}</span>
                    <span class="cs-source__meta">{f.filename.clone()}</span>
                }
                .into_any(),
                SourceKind::Entity(e) => {
                    let label = title.or_else(|| e.label.clone()).unwrap_or_else(|| e.id.clone());
                    let detail = serde_json::to_value(&c.source).unwrap_or_default();
                    let icon = e.icon.clone().map(|i| view! { <span class="cs-source__icon" data-icon=i aria-hidden="true"></span> });
                    view! {
                        {icon}
                        <button
                            type="button"
                            class="cs-link-button"
                            on:click=move |_| {
                                shell.with(|rt| rt.emit(&ChatEvent::EntityClick(detail.clone())));
                            }
                        >
                            {label}
                        </button>
                    }
                    .into_any()
                }
                SourceKind::Other(_) => view! { <span>{title.unwrap_or_default()}</span> }.into_any(),
            };
            view! { <li class="cs-source" data-part="source"><span class="cs-source__number">{number}</span>" "{row}</li> }
        })
        .collect_view();
    view! { <ol class="cs-sources" aria-label=tr(shell, Text::Sources) data-part="sources">{rows}</ol> }
}
