//! The attachments of a sent message: image previews, file badges, "+N more".

use crate::runtime::Shell;
use crate::ui::use_shell;
use crate::ui::{tr, trf};
use chat_shell_core::attachments::{extension, is_previewable_image};
use chat_shell_core::markdown::safe_image_url;
use chat_shell_core::protocol::chatkit::{Attachment, AttachmentKind};
use chat_shell_core::strings::Text;
use leptos::prelude::*;

/// A sent message shows this many attachments before "+N more".
const SHOWN_BEFORE_MORE: usize = 3;

/// The attachments of a sent message: images as previews, other files as badges with
/// their extension; beyond three, the rest behind "+N more".
#[component]
pub fn SentAttachments(attachments: Signal<Vec<Attachment>>) -> impl IntoView {
    let shell = use_shell();
    let expanded = RwSignal::new(false);
    move || {
        let all = attachments.get();
        if all.is_empty() {
            return None;
        }
        let hidden = if expanded.get() {
            0
        } else {
            all.len().saturating_sub(SHOWN_BEFORE_MORE)
        };
        let more = all.len().saturating_sub(SHOWN_BEFORE_MORE);
        let shown = all.len() - hidden;
        let items = all
            .into_iter()
            .take(shown)
            .map(|a| view! { <li class="cs-msg__attachment">{sent_attachment(shell, &a)}</li> })
            .collect_view();
        Some(view! {
            <ul class="cs-msg__attachments" data-part="sent-attachments" aria-label=tr(shell, Text::Attachments)>
                {items}
                {(more > 0).then(|| view! {
                    <li class="cs-msg__attachment">
                        <button
                            type="button"
                            class="cs-badge cs-badge--button"
                            data-part="attachments-more"
                            aria-expanded=move || expanded.get().to_string()
                            on:click=move |_| expanded.update(|e| *e = !*e)
                        >
                            {if hidden > 0 {
                                trf(shell, Text::MoreAttachments, vec![("count", hidden.to_string())])
                            } else {
                                tr(shell, Text::ShowFewer)
                            }}
                        </button>
                    </li>
                })}
            </ul>
        })
    }
}

fn sent_attachment(shell: Shell, attachment: &Attachment) -> impl IntoView {
    let is_image =
        attachment.kind == AttachmentKind::Image || is_previewable_image(&attachment.mime_type);
    // The local copy while the conversation still holds it; else the server's preview.
    let src = is_image
        .then(|| {
            shell
                .with(|rt| rt.local_preview(&attachment.id))
                .flatten()
                .or_else(|| attachment.preview_url.as_deref().and_then(safe_image_url))
        })
        .flatten();
    let name = attachment.name.clone();
    match src {
        Some(src) => view! {
            <img class="cs-msg__image" data-part="attachment-image" src=src alt=name.clone() title=name.clone() />
        }
        .into_any(),
        None => {
            let ext = extension(&name).map(str::to_ascii_uppercase);
            let title = name.clone();
            view! {
                <span class="cs-badge cs-badge--file" data-part="attachment-file" title=title>
                    {ext.map(|e| view! { <span class="cs-badge__ext">{e}</span> })}
                    <span class="cs-badge__name">{name}</span>
                </span>
            }
            .into_any()
        }
    }
}
