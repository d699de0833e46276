//! Attachments in view: the composer's tray (local previews, upload progress, errors,
//! retry and remove) and the attachments of a sent message (image previews, file badges,
//! "+N more").

use super::{tr, trf};
use crate::runtime::{Shell, TrayEntry, UploadStatus};
use chat_shell_core::attachments::{extension, is_previewable_image};
use chat_shell_core::markdown::safe_image_url;
use chat_shell_core::protocol::chatkit::{Attachment, AttachmentKind};
use chat_shell_core::strings::Text;
use leptos::prelude::*;

/// A sent message shows this many attachments before "+N more".
const SHOWN_BEFORE_MORE: usize = 3;

/// The files waiting to go with the next message, and why some were refused. The list's
/// views come with the code that takes files (`on_demand`), so they are asked for only once
/// the tray has an entry.
#[component]
pub fn AttachmentTray(shell: Shell) -> impl IntoView {
    let signals = shell.signals().expect("runtime exists while mounted");
    let tray = signals.tray;
    let filled = Memo::new(move |_| tray.entries.with(|e| !e.is_empty()));
    view! {
        {move || {
            tray.error.get().map(|message| view! {
                <div class="cs-tray__alert" data-part="attachment-error" role="alert">
                    <span>{message}</span>
                    <button
                        type="button"
                        class="cs-button cs-button--ghost"
                        aria-label=tr(shell, Text::Dismiss)
                        on:click=move |_| tray.error.set(None)
                    >
                        "×"
                    </button>
                </div>
            })
        }}
        {move || filled.get().then(|| super::on_demand::tray(shell))}
    }
}

/// The tray's list of files.
pub(super) fn tray(shell: Shell) -> AnyView {
    let tray = shell.signals().expect("runtime exists while mounted").tray;
    let locals = Memo::new(move |_| {
        tray.entries
            .with(|entries| entries.iter().map(|e| e.local).collect::<Vec<_>>())
    });
    view! {
        <ul
            class="cs-tray"
            part="attachment-tray"
            data-part="attachment-tray"
            aria-label=tr(shell, Text::Attachments)
            hidden=move || locals.with(Vec::is_empty)
        >
            <For
                each=move || locals.get()
                key=|local| *local
                children=move |local| view! { <TrayItem shell=shell local=local /> }
            />
        </ul>
    }
    .into_any()
}

/// One file in the tray. Its facts are read by local id, so progress updates re-render
/// only the parts that change (the thumbnail is not reloaded).
#[component]
fn TrayItem(shell: Shell, local: u64) -> impl IntoView {
    let signals = shell.signals().expect("runtime exists while mounted");
    let entry = Memo::new(move |_| {
        signals
            .tray
            .entries
            .with(|entries| entries.iter().find(|e| e.local == local).cloned())
    });
    let name = entry.with_untracked(|e| e.as_ref().map(|e| e.name.clone()).unwrap_or_default());
    let thumbnail = Memo::new(move |_| entry.with(|e| e.as_ref().and_then(thumbnail_of)));
    let status = Memo::new(move |_| entry.with(|e| e.as_ref().map(|e| e.status.clone())));
    let ext = extension(&name).map(str::to_ascii_uppercase);
    let named = |text: Text| trf(shell, text, vec![("name", name.clone())]);
    let (remove_label, retry_label, progress_label) = (
        named(Text::Remove),
        named(Text::RetryUploadNamed),
        named(Text::UploadingNamed),
    );
    let alt = name.clone();
    view! {
        <li
            class="cs-tray__item"
            data-part="attachment"
            data-status=move || match status.get() {
                Some(UploadStatus::Ready) => "ready",
                Some(UploadStatus::Failed(_)) => "failed",
                _ => "uploading",
            }
        >
            <div class="cs-tray__preview">
                {move || match thumbnail.get() {
                    Some(src) => view! { <img class="cs-tray__thumb" src=src alt=alt.clone() /> }.into_any(),
                    None => view! {
                        <span class="cs-tray__file" aria-hidden="true">{ext.clone().unwrap_or_else(|| tr(shell, Text::FileBadge).get())}</span>
                    }
                    .into_any(),
                }}
                <button
                    type="button"
                    class="cs-tray__remove"
                    aria-label=remove_label
                    title=remove_label
                    on:click=move |_| {
                        shell.with(|rt| rt.remove_attachment(local));
                    }
                >
                    "×"
                </button>
            </div>
            <span class="cs-tray__name" title=name.clone()>{name.clone()}</span>
            {move || match status.get() {
                Some(UploadStatus::Creating) => Some(progress(progress_label, None).into_any()),
                Some(UploadStatus::Uploading(percent)) => {
                    Some(progress(progress_label, percent).into_any())
                }
                Some(UploadStatus::Failed(message)) => {
                    Some(view! {
                        <p class="cs-tray__error" data-part="upload-error">{message}</p>
                        <button
                            type="button"
                            class="cs-button cs-tray__retry"
                            aria-label=retry_label
                            on:click=move |_| {
                                shell.with(|rt| rt.retry_upload(local));
                            }
                        >
                            {tr(shell, Text::RetryUpload)}
                        </button>
                    }
                    .into_any())
                }
                Some(UploadStatus::Ready) | None => None,
            }}
        </li>
    }
}

/// The tray's thumbnail: the local blob (before and after upload), else the server's
/// preview of a restored image.
fn thumbnail_of(entry: &TrayEntry) -> Option<String> {
    entry.preview.clone().or_else(|| {
        let attachment = entry.attachment.as_ref()?;
        if !is_previewable_image(&entry.mime_type) {
            return None;
        }
        attachment.preview_url.as_deref().and_then(safe_image_url)
    })
}

/// A progress bar; without a percent it is indeterminate (no `aria-valuenow`).
fn progress(label: Signal<String>, percent: Option<u8>) -> impl IntoView {
    view! {
        <div
            class="cs-tray__progress"
            data-part="upload-progress"
            role="progressbar"
            aria-label=label
            aria-valuemin="0"
            aria-valuemax="100"
            aria-valuenow=percent.map(|p| p.to_string())
        >
            <div
                class="cs-tray__bar"
                class:cs-tray__bar--indeterminate=percent.is_none()
                style:width=format!("{}%", percent.unwrap_or(30))
            ></div>
        </div>
    }
}

/// The attachments of a sent message: images as previews, other files as badges with
/// their extension; beyond three, the rest behind "+N more".
#[component]
pub fn SentAttachments(shell: Shell, attachments: Signal<Vec<Attachment>>) -> impl IntoView {
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
