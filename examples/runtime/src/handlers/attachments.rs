//! Attachments: `attachments.create` (where to send the bytes, see `upload`),
//! `attachments.delete`, and their wire form.

use crate::errors::not_found;
use crate::store::{self, AttachmentRecord, UserStore};
use axum::response::{IntoResponse, Response};
use axum::Json;
use chat_shell_core::protocol::chatkit::{Attachment, AttachmentKind, ThreadId, UploadDescriptor};
use serde_json::json;

/// Longest declared mime type (RFC 6838 allows 127 characters per part; this is the whole).
pub const MAX_MIME_CHARS: usize = 255;

/// The wire form of a stored attachment; `with_upload` adds where to send the bytes (the
/// answer to `attachments.create`): both the SDK 1.6 descriptor and the fork's `upload_url`.
pub fn attachment_object(record: &AttachmentRecord, base: &str, with_upload: bool) -> Attachment {
    let is_image = record.mime_type.starts_with("image/");
    let upload_url = format!("{base}/upload/{}", record.id);
    Attachment {
        id: record.id.as_str().into(),
        name: record.name.clone(),
        mime_type: record.mime_type.clone(),
        kind: if is_image {
            AttachmentKind::Image
        } else {
            AttachmentKind::File
        },
        preview_url: is_image.then(|| format!("{base}/preview/{}", record.id)),
        upload_url: with_upload.then(|| upload_url.clone()),
        upload_descriptor: with_upload.then(|| UploadDescriptor {
            url: upload_url.clone(),
            method: "POST".into(),
            headers: serde_json::Map::new(),
        }),
        thread_id: record.thread_id.as_deref().map(ThreadId::from),
    }
}

/// `attachments.create`: the record (checked by `chatkit::check_bounds`) and where to send
/// its bytes.
pub(crate) fn create(
    store: &UserStore<'_>,
    base: &str,
    name: &str,
    mime_type: &str,
    size: u64,
) -> store::Result<Response> {
    let record = store.create_attachment(name, mime_type, size)?;
    Ok(Json(attachment_object(&record, base, true)).into_response())
}

/// `attachments.delete`.
pub(crate) fn delete(store: &UserStore<'_>, attachment_id: &str) -> store::Result<Response> {
    Ok(if store.delete_attachment(attachment_id)? {
        Json(json!({})).into_response()
    } else {
        not_found(&format!("unknown attachment {attachment_id}"))
    })
}
