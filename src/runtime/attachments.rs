//! Files in the composer's tray: a local preview at once, then the two-phase upload
//! (`attachments.create`, then the bytes, with progress), retry, removal (deleted on the
//! server when it was created there), and what comes back when a message was not sent.

use super::held::attachments::{InFlight, TrayEntry, UploadStatus};
use super::Runtime;
use chat_shell_core::attachments::{effective_mime, is_previewable_image, FileFacts};
use chat_shell_core::host_events::{ChatError, ChatEvent, ErrorKind};
use chat_shell_core::protocol::chatkit::{Attachment, AttachmentId, AttachmentKind, RequestBody};
use chat_shell_core::strings::Text;
use leptos::prelude::*;
use serde_json::Value;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use web_sys::{File, FormData, ProgressEvent, Url, XmlHttpRequest};

impl Runtime {
    /// Offer files to the tray (picker, drop or paste): those within the limits join it
    /// with a local preview and start uploading; the others are refused with a message.
    /// The code that does it may come in a chunk of its own (`crate::chunks`): if that cannot
    /// be fetched, the tray says so and the files are not taken.
    pub fn add_files(self: &Rc<Self>, files: Vec<File>) {
        // Drops and pastes too: with attachments turned off, files are not taken.
        if files.is_empty() || !self.options(|o| o.attachments_enabled) {
            return;
        }
        let this = Rc::clone(self);
        wasm_bindgen_futures::spawn_local(async move {
            if crate::chunks::runtime::add_files(Rc::clone(&this), files)
                .await
                .is_err()
            {
                // Its code could not be fetched: the files are not taken.
                let message = this.with_strings(|s| {
                    s.format(
                        Text::UploadFailed,
                        &[("error", s.get(Text::ConnectionLost))],
                    )
                });
                this.signals.tray.error.set(Some(message));
            }
        });
    }

    /// [`Runtime::add_files`], once its code is there.
    pub(crate) fn offer_files(self: &Rc<Self>, files: Vec<File>) {
        let facts: Vec<FileFacts> = files
            .iter()
            .map(|f| FileFacts {
                name: f.name(),
                size: f.size().max(0.0) as u64,
                mime_type: f.type_(),
            })
            .collect();
        let limits = self.options(|o| o.attachment_limits.clone());
        let already = self.signals.tray.entries.with_untracked(Vec::len);
        let checked = self.with_strings(|s| limits.check(already, &facts, s));
        self.signals
            .tray
            .error
            .set((!checked.refused.is_empty()).then(|| checked.refused.join(" ")));
        for i in checked.accepted {
            let (file, facts) = (files[i].clone(), &facts[i]);
            let mime_type = effective_mime(&facts.name, &facts.mime_type);
            let local = self.uploads.next.get() + 1;
            self.uploads.next.set(local);
            let preview = is_previewable_image(&mime_type)
                .then(|| Url::create_object_url_with_blob(&file).ok())
                .flatten();
            self.signals.tray.entries.update(|e| {
                e.push(TrayEntry {
                    local,
                    name: facts.name.clone(),
                    size: facts.size,
                    mime_type: mime_type.clone(),
                    preview,
                    status: UploadStatus::Creating,
                    attachment: None,
                })
            });
            self.uploads.files.borrow_mut().insert(local, file);
            self.emit(&ChatEvent::AttachmentAdded {
                name: facts.name.clone(),
                size: facts.size,
                mime_type: mime_type.clone(),
            });
            self.start_upload(local);
        }
    }

    /// Upload a tray entry: create the attachment if it is not yet, then send the bytes.
    fn start_upload(self: &Rc<Self>, local: u64) {
        let this = Rc::clone(self);
        wasm_bindgen_futures::spawn_local(async move {
            match crate::chunks::runtime::upload(Rc::clone(&this), local).await {
                Ok(upload) => upload.await,
                // Its code could not be fetched: a failure the tray offers to retry.
                Err(_) => this.update_entry_status(
                    local,
                    UploadStatus::Failed(this.text(Text::UploadConnectionLost)),
                ),
            }
        });
    }

    /// [`Runtime::start_upload`], once its code is there. Phase one, `attachments.create`
    /// (unless done before a retry), then the bytes.
    pub(crate) async fn upload(self: Rc<Self>, local: u64) {
        let Some(entry) = self.tray_entry(local) else {
            return;
        };
        if self.options(|o| o.protocol) == chat_shell_core::options::Protocol::AgUi {
            return self.read_for_ag_ui(local, entry).await;
        }
        if entry.attachment.is_some() {
            return self.upload_bytes(local);
        }
        self.update_entry(local, |e| e.status = UploadStatus::Creating);
        let this = self;
        let result = this
            .json_request::<Attachment>(RequestBody::CreateAttachment {
                name: entry.name.clone(),
                size: entry.size,
                mime_type: entry.mime_type.clone(),
            })
            .await;
        match result {
            Ok(attachment) => {
                let kept = this.update_entry(local, |e| {
                    e.attachment = Some(attachment.clone());
                });
                if kept {
                    this.upload_bytes(local);
                } else {
                    // Removed while it was being created: it must not linger there.
                    this.delete_on_server(attachment.id);
                }
            }
            Err(e) => {
                let message = this
                    .with_strings(|s| s.format(Text::UploadFailed, &[("error", &e.message_in(s))]));
                this.update_entry(local, |entry| entry.status = UploadStatus::Failed(message));
            }
        }
    }

    /// AG-UI has no upload: the file goes with the message, as the input content of the
    /// user's message, read here (a data URL, which also previews it).
    async fn read_for_ag_ui(self: Rc<Self>, local: u64, entry: TrayEntry) {
        let Some(file) = self.uploads.files.borrow().get(&local).cloned() else {
            return self
                .update_entry_status(local, UploadStatus::Failed(self.text(Text::UploadFileGone)));
        };
        self.update_entry_status(local, UploadStatus::Uploading(None));
        let bytes = match wasm_bindgen_futures::JsFuture::from(file.array_buffer()).await {
            Ok(buffer) => js_sys::Uint8Array::new(&buffer).to_vec(),
            Err(_) => {
                return self.update_entry_status(
                    local,
                    UploadStatus::Failed(self.text(Text::UploadFileGone)),
                )
            }
        };
        let data = format!(
            "data:{};base64,{}",
            entry.mime_type,
            chat_shell_core::dictation::base64(&bytes)
        );
        let image = entry.mime_type.starts_with("image/");
        let attachment = Attachment {
            id: AttachmentId(format!("local-{local}")),
            name: entry.name.clone(),
            mime_type: entry.mime_type.clone(),
            kind: if image {
                AttachmentKind::Image
            } else {
                AttachmentKind::File
            },
            preview_url: Some(data),
            upload_url: None,
            upload_descriptor: None,
            thread_id: None,
        };
        self.update_entry(local, |e| {
            e.attachment = Some(attachment);
            e.status = UploadStatus::Ready;
        });
    }

    /// Phase two: the bytes, to the `upload_descriptor` (its method and headers, the raw
    /// file as the body) or else the `upload_url` (multipart, field `file`). XHR rather than
    /// fetch: only it reports upload progress.
    fn upload_bytes(self: &Rc<Self>, local: u64) {
        let Some(attachment) = self.tray_entry(local).and_then(|e| e.attachment) else {
            return;
        };
        let Some(file) = self.uploads.files.borrow().get(&local).cloned() else {
            return self
                .update_entry_status(local, UploadStatus::Failed(self.text(Text::UploadFileGone)));
        };
        let (method, url, headers, multipart) =
            match (&attachment.upload_descriptor, &attachment.upload_url) {
                (Some(d), _) => (d.method.clone(), d.url.clone(), d.headers.clone(), false),
                (None, Some(url)) => ("POST".to_owned(), url.clone(), Default::default(), true),
                // Nowhere to send bytes: the server needs none.
                (None, None) => return self.update_entry_status(local, UploadStatus::Ready),
            };
        let Ok(xhr) = XmlHttpRequest::new() else {
            return self.update_entry_status(
                local,
                UploadStatus::Failed(self.text(Text::UploadUnsupported)),
            );
        };
        if xhr.open_with_async(&method, &url, true).is_err() {
            return self.update_entry_status(
                local,
                UploadStatus::Failed(self.text(Text::UploadBadAddress)),
            );
        }
        for (name, value) in &headers {
            if let Some(value) = value.as_str() {
                let _ = xhr.set_request_header(name, value);
            }
        }
        let shell = self.shell;
        let progress = Closure::<dyn FnMut(ProgressEvent)>::new(move |ev: ProgressEvent| {
            let percent = (ev.length_computable() && ev.total() > 0.0)
                .then(|| ((ev.loaded() / ev.total()) * 100.0).clamp(0.0, 100.0) as u8);
            shell.with(|rt| rt.update_entry_status(local, UploadStatus::Uploading(percent)));
        });
        if let Ok(upload) = xhr.upload() {
            upload.set_onprogress(Some(progress.as_ref().unchecked_ref()));
        }
        let done_xhr = xhr.clone();
        // `loadend` follows load, error, abort and timeout alike, exactly once.
        let done = Closure::once_into_js(move || {
            let Some(rt) = shell.get() else { return };
            let removed = rt.uploads.in_flight.borrow_mut().remove(&local);
            if removed.is_none() {
                return; // removed or retried meanwhile: this answer no longer counts
            }
            let status = done_xhr.status().unwrap_or(0);
            let next = if (200..300).contains(&status) {
                UploadStatus::Ready
            } else if status == 0 {
                UploadStatus::Failed(rt.text(Text::UploadConnectionLost))
            } else {
                UploadStatus::Failed(rt.with_strings(|s| {
                    s.format(Text::UploadFailedHttp, &[("status", &status.to_string())])
                }))
            };
            if let UploadStatus::Failed(message) = &next {
                rt.emit(&ChatEvent::Error(ChatError {
                    status: Some(status),
                    ..ChatError::new(ErrorKind::Upload, message.clone())
                }));
            }
            rt.update_entry_status(local, next);
        });
        xhr.set_onloadend(Some(done.unchecked_ref()));
        self.update_entry_status(local, UploadStatus::Uploading(Some(0)));
        let sent = if multipart {
            FormData::new().and_then(|form| {
                form.append_with_blob_and_filename("file", &file, &file.name())?;
                xhr.send_with_opt_form_data(Some(&form))
            })
        } else {
            xhr.send_with_opt_blob(Some(&file))
        };
        if sent.is_err() {
            return self
                .update_entry_status(local, UploadStatus::Failed(self.text(Text::UploadNotSent)));
        }
        self.uploads.in_flight.borrow_mut().insert(
            local,
            InFlight {
                xhr,
                _progress: progress,
            },
        );
    }

    /// Try a failed upload again: the bytes only, if the attachment was created.
    pub fn retry_upload(self: &Rc<Self>, local: u64) {
        let Some(entry) = self.tray_entry(local) else {
            return;
        };
        self.cancel_upload(local);
        if entry.attachment.is_none() {
            self.update_entry(local, |e| e.status = UploadStatus::Creating);
        }
        self.start_upload(local);
    }

    /// Take a file out of the tray: stop its upload, free its preview, and delete it on
    /// the server if it was created there.
    pub fn remove_attachment(self: &Rc<Self>, local: u64) {
        let mut removed = None;
        self.signals.tray.entries.update(|entries| {
            if let Some(at) = entries.iter().position(|e| e.local == local) {
                removed = Some(entries.remove(at));
            }
        });
        let Some(entry) = removed else { return };
        self.signals.tray.error.set(None);
        self.emit(&ChatEvent::AttachmentRemoved {
            name: entry.name.clone(),
            id: entry.attachment.as_ref().map(|a| a.id.to_string()),
        });
        self.discard_tray(vec![entry]);
    }

    /// Forget tray entries for good (removed, or their thread deleted).
    pub(crate) fn discard_tray(self: &Rc<Self>, entries: Vec<TrayEntry>) {
        for entry in entries {
            self.cancel_upload(entry.local);
            self.uploads.files.borrow_mut().remove(&entry.local);
            if let Some(url) = &entry.preview {
                let _ = Url::revoke_object_url(url);
            }
            // AG-UI's files never left the page.
            let ag_ui = self.options(|o| o.protocol) == chat_shell_core::options::Protocol::AgUi;
            if let Some(attachment) = entry.attachment.filter(|_| !ag_ui) {
                self.delete_on_server(attachment.id);
            }
        }
    }

    fn cancel_upload(&self, local: u64) {
        // Out of the map first: `abort()` runs the loadend listener, which looks there.
        let flight = self.uploads.in_flight.borrow_mut().remove(&local);
        if let Some(flight) = flight {
            if let Ok(upload) = flight.xhr.upload() {
                upload.set_onprogress(None);
            }
            let _ = flight.xhr.abort();
        }
    }

    fn delete_on_server(self: &Rc<Self>, id: AttachmentId) {
        let this = Rc::clone(self);
        wasm_bindgen_futures::spawn_local(async move {
            let result = this
                .json_request::<Value>(RequestBody::DeleteAttachment { attachment_id: id })
                .await;
            if let Err(e) = result {
                this.emit(&ChatEvent::Error(ChatError::new(
                    ErrorKind::AttachmentDelete,
                    e.user_message(),
                )));
            }
        });
    }

    /// Why the tray holds the message back, if it does.
    pub fn tray_blocker(entries: &[TrayEntry]) -> Option<Text> {
        if entries
            .iter()
            .any(|e| matches!(e.status, UploadStatus::Failed(_)))
        {
            Some(Text::UploadsFailed)
        } else if entries.iter().any(|e| e.status != UploadStatus::Ready) {
            Some(Text::UploadsPending)
        } else {
            None
        }
    }

    /// Empty the tray into a message: every entry must be uploaded. The local previews
    /// move to the sent message.
    pub(crate) fn take_tray(&self) -> Option<Vec<Attachment>> {
        let entries = self.signals.tray.entries.get_untracked();
        if Self::tray_blocker(&entries).is_some() {
            return None;
        }
        let mut attachments = Vec::with_capacity(entries.len());
        for entry in entries {
            self.uploads.files.borrow_mut().remove(&entry.local);
            if let Some(attachment) = entry.attachment {
                if let Some(url) = entry.preview {
                    self.uploads
                        .previews
                        .borrow_mut()
                        .insert(attachment.id.clone(), url);
                }
                attachments.push(attachment);
            }
        }
        self.signals.tray.entries.set(Vec::new());
        self.signals.tray.error.set(None);
        Some(attachments)
    }

    /// A message that never reached the server comes back: its text before what was
    /// typed since, its attachments (already uploaded) back in the tray.
    pub(crate) fn restore_draft(&self, text: String, attachments: Vec<Attachment>) {
        self.signals.draft.update(|draft| {
            *draft = if draft.trim().is_empty() {
                text
            } else if text.is_empty() {
                std::mem::take(draft)
            } else {
                format!("{text}\n{draft}")
            };
        });
        if attachments.is_empty() {
            return;
        }
        let restored: Vec<TrayEntry> = attachments
            .into_iter()
            .map(|attachment| {
                let local = self.uploads.next.get() + 1;
                self.uploads.next.set(local);
                TrayEntry {
                    local,
                    name: attachment.name.clone(),
                    size: 0,
                    mime_type: attachment.mime_type.clone(),
                    preview: self.uploads.previews.borrow_mut().remove(&attachment.id),
                    status: UploadStatus::Ready,
                    attachment: Some(attachment),
                }
            })
            .collect();
        self.signals.tray.entries.update(|entries| {
            entries.splice(0..0, restored);
        });
    }

    /// The local preview of a sent attachment, while the conversation still shows it.
    pub fn local_preview(&self, id: &AttachmentId) -> Option<String> {
        self.uploads.previews.borrow().get(id).cloned()
    }

    /// The conversation changes: sent messages' local previews are no longer needed.
    pub(crate) fn release_sent_previews(&self) {
        for (_, url) in self.uploads.previews.borrow_mut().drain() {
            let _ = Url::revoke_object_url(&url);
        }
    }

    /// The runtime goes away: stop every upload and free every local preview. Attachments
    /// already created on the server are left to it: the page may be closing, and no
    /// request started now could be waited for.
    pub(crate) fn release_uploads(&self) {
        let locals: Vec<u64> = self.uploads.in_flight.borrow().keys().copied().collect();
        for local in locals {
            self.cancel_upload(local);
        }
        self.uploads.files.borrow_mut().clear();
        let mut previews: Vec<String> = self
            .signals
            .tray
            .entries
            .with_untracked(|e| e.iter().filter_map(|e| e.preview.clone()).collect());
        previews.extend(
            self.threads
                .drafts
                .borrow()
                .values()
                .flat_map(|d| d.tray.iter().filter_map(|e| e.preview.clone())),
        );
        for url in previews {
            let _ = Url::revoke_object_url(&url);
        }
        self.release_sent_previews();
    }

    // ---- entries in the tray or in a draft put away --------------------------------

    fn tray_entry(&self, local: u64) -> Option<TrayEntry> {
        let found = self
            .signals
            .tray
            .entries
            .with_untracked(|e| e.iter().find(|e| e.local == local).cloned());
        found.or_else(|| {
            self.threads
                .drafts
                .borrow()
                .values()
                .flat_map(|d| d.tray.iter())
                .find(|e| e.local == local)
                .cloned()
        })
    }

    /// Change an entry wherever it is; false if it is gone (removed or sent).
    fn update_entry(&self, local: u64, f: impl FnOnce(&mut TrayEntry)) -> bool {
        let in_tray = self
            .signals
            .tray
            .entries
            .with_untracked(|e| e.iter().any(|e| e.local == local));
        if in_tray {
            self.signals.tray.entries.update(|entries| {
                if let Some(e) = entries.iter_mut().find(|e| e.local == local) {
                    f(e);
                }
            });
            return true;
        }
        let mut drafts = self.threads.drafts.borrow_mut();
        match drafts
            .values_mut()
            .flat_map(|d| d.tray.iter_mut())
            .find(|e| e.local == local)
        {
            Some(entry) => {
                f(entry);
                true
            }
            None => false,
        }
    }

    fn update_entry_status(&self, local: u64, status: UploadStatus) {
        self.update_entry(local, |e| {
            if e.status != status {
                e.status = status;
            }
        });
    }
}
