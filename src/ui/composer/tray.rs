//! The attachment tray's list of files: local previews, upload progress, errors, retry
//! and remove. Its code comes in the chunk that takes files (`crate::chunks`).

use crate::runtime::{Shell, TrayEntry, UploadStatus};
use crate::ui::use_shell;
use crate::ui::{tr, trf};
use chat_shell_core::attachments::{extension, is_previewable_image};
use chat_shell_core::markdown::safe_image_url;
use chat_shell_core::strings::Text;
use leptos::prelude::*;

/// The tray's list of files.
pub(crate) fn tray_list(shell: Shell) -> AnyView {
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
                children=move |local| view! { <TrayItem local=local /> }
            />
        </ul>
    }
    .into_any()
}

/// One file in the tray. Its facts are read by local id, so progress updates re-render
/// only the parts that change (the thumbnail is not reloaded).
#[component]
fn TrayItem(local: u64) -> impl IntoView {
    let shell = use_shell();
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
                // Named by its own (visually hidden) text: the item's text then differs
                // from the thumbnail's alternative, which would otherwise read twice.
                <button
                    type="button"
                    class="cs-tray__remove"
                    title=remove_label
                    on:click=move |_| {
                        shell.with(|rt| rt.remove_attachment(local));
                    }
                >
                    {crate::ui::glyphs::glyph(crate::ui::glyphs::Glyph::Close)}
                    <span class="cs-sr-only">{remove_label}</span>
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
