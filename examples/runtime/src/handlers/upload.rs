//! Attachment bytes: `POST|PUT /upload/{id}` (multipart field `file`, read by axum's
//! extractor, or a raw body) with size and type limits, and `GET /preview/{id}` to serve
//! them back. Both only ever see the requesting user's attachments.

use super::attachments::MAX_MIME_CHARS;
use super::request::mime_essence;
use crate::auth::User;
use crate::errors::{bad_request, body_timeout, json_error, not_found, status_error};
use crate::state::AppState;
use axum::body::Body;
use axum::extract::multipart::MultipartError;
use axum::extract::{Extension, FromRequest, Multipart, Path, Request, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;
use std::sync::Arc;

/// The largest file accepted unless `--max-upload-mb` says otherwise.
pub const DEFAULT_MAX_UPLOAD_MB: usize = 10;
/// Room for multipart boundaries and part headers around the file.
pub const MULTIPART_OVERHEAD: usize = 64 * 1024;
/// Beyond this the body is no longer drained (see [`read_body`]).
const DRAIN_LIMIT: usize = 64 * 1024 * 1024;

pub const ALLOWED_TYPES: &[&str] = &[
    "image/png",
    "image/jpeg",
    "image/gif",
    "image/webp",
    "application/pdf",
    "text/plain",
    "text/markdown",
    "text/csv",
    "application/json",
];

pub async fn upload(
    State(state): State<Arc<AppState>>,
    Extension(user): Extension<User>,
    Path(id): Path<String>,
    req: Request,
) -> Response {
    if crate::labels::bad_id(&id) {
        return bad_request("the attachment id holds a NUL");
    }
    let max = state.max_upload;
    let lookup = id.clone();
    let record = match state.db(&user, move |db| db.attachment(&lookup)).await {
        Ok(Some(r)) => r,
        Ok(None) => return not_found(&format!("unknown attachment {id}")),
        Err(response) => return response,
    };
    let headers = req.headers().clone();
    let content_type = header_str(&headers, header::CONTENT_TYPE).unwrap_or_default();
    let declared_len =
        header_str(&headers, header::CONTENT_LENGTH).and_then(|v| v.parse::<usize>().ok());
    if declared_len.is_some_and(|n| n > DRAIN_LIMIT) {
        return too_large(max);
    }
    let (data, part_type) = if mime_essence(&content_type) == "multipart/form-data" {
        if declared_len.is_some_and(|n| n > max + MULTIPART_OVERHEAD) {
            // Drained before answering, as in `read_body`.
            if let Err(refused) = read_body(req.into_body(), 0).await {
                return refused;
            }
            return too_large(max);
        }
        match read_multipart(req, &state).await {
            Ok(part) => part,
            Err(response) => return response,
        }
    } else {
        match read_body(req.into_body(), max).await {
            Ok(Some(bytes)) => (bytes, Some(content_type)),
            Ok(None) => return too_large(max),
            Err(refused) => return refused,
        }
    };
    if data.len() > max {
        return too_large(max);
    }
    let mime = effective_mime(part_type.as_deref(), &record.mime_type, &record.name);
    if !ALLOWED_TYPES.contains(&mime.as_str()) {
        return json_error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
            &format!(
                "file type `{mime}` is not allowed; allowed: {}",
                ALLOWED_TYPES.join(", ")
            ),
        );
    }
    if data.len() as u64 != record.size {
        return bad_request(&format!(
            "the upload is {} bytes but attachments.create declared {}",
            data.len(),
            record.size
        ));
    }
    let size = data.len() as u64;
    let (stored_id, stored_mime) = (id.clone(), mime.clone());
    let stored = state
        .db(&user, move |db| {
            db.store_upload(&stored_id, &stored_mime, &data)
        })
        .await;
    match stored {
        Ok(true) => {
            let mut record = record;
            record.mime_type = mime;
            record.size = size;
            record.uploaded = true;
            let base = super::request::base_url(&state.authority, &state.prefix, &headers);
            axum::Json(super::attachments::attachment_object(&record, &base, false)).into_response()
        }
        // Deleted while the bytes were on their way.
        Ok(false) => not_found(&format!("unknown attachment {id}")),
        Err(response) => response,
    }
}

/// The `file` field of a multipart body (or, failing that, the first field with a file
/// name) and its content type.
async fn read_multipart(
    req: Request,
    state: &Arc<AppState>,
) -> Result<(Vec<u8>, Option<String>), Response> {
    let max = state.max_upload;
    let mut multipart = Multipart::from_request(req, state)
        .await
        .map_err(|e| status_error(e.status(), &e.body_text()))?;
    let mut fallback = None;
    loop {
        let field = match multipart.next_field().await {
            Ok(Some(field)) => field,
            Ok(None) => break,
            Err(e) => return Err(multipart_error(e, max)),
        };
        let is_file = field.name() == Some("file");
        if !is_file && (field.file_name().is_none() || fallback.is_some()) {
            continue; // the next `next_field` skips its bytes
        }
        let content_type = field.content_type().map(str::to_owned);
        let data = field.bytes().await.map_err(|e| multipart_error(e, max))?;
        if is_file {
            return Ok((data.to_vec(), content_type));
        }
        fallback = Some((data.to_vec(), content_type));
    }
    fallback.ok_or_else(|| bad_request("multipart body without a `file` field"))
}

fn multipart_error(e: MultipartError, max: usize) -> Response {
    if crate::connections::body_timed_out(&e) {
        body_timeout()
    } else if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
        too_large(max)
    } else {
        bad_request(&format!("malformed multipart body: {}", e.body_text()))
    }
}

pub async fn preview(
    State(state): State<Arc<AppState>>,
    Extension(user): Extension<User>,
    Path(id): Path<String>,
) -> Response {
    if crate::labels::bad_id(&id) {
        return bad_request("the attachment id holds a NUL");
    }
    let lookup = id.clone();
    match state.db(&user, move |db| db.upload(&lookup)).await {
        Ok(Some((mime, bytes))) => (
            [
                (header::CONTENT_TYPE, mime),
                (header::CACHE_CONTROL, "private, max-age=3600".to_owned()),
                // Uploaded text must never be sniffed into something executable.
                (header::X_CONTENT_TYPE_OPTIONS, "nosniff".to_owned()),
            ],
            bytes,
        )
            .into_response(),
        Ok(None) => not_found(&format!("nothing uploaded for {id}")),
        Err(response) => response,
    }
}

fn too_large(max: usize) -> Response {
    json_error(
        StatusCode::PAYLOAD_TOO_LARGE,
        "payload_too_large",
        &format!("file is larger than the {} limit", describe_size(max)),
    )
}

/// `10 MB` for whole mebibytes, else bytes.
pub fn describe_size(bytes: usize) -> String {
    const MB: usize = 1024 * 1024;
    if bytes.is_multiple_of(MB) {
        format!("{} MB", bytes / MB)
    } else {
        format!("{bytes} bytes")
    }
}

/// What `attachments.create` may declare as `mime_type`: nothing (unknown), or
/// `type/subtype` made of RFC 6838 characters, optionally with parameters.
pub fn valid_mime_declaration(value: &str) -> bool {
    if value.is_empty() {
        return true;
    }
    if value.len() > MAX_MIME_CHARS || !value.bytes().all(|c| c.is_ascii_graphic() || c == b' ') {
        return false;
    }
    let token = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|c| c.is_ascii_alphanumeric() || b"!#$&^_.+-".contains(&c))
    };
    let essence = value.split(';').next().unwrap_or_default().trim();
    matches!(essence.split_once('/'), Some((kind, sub)) if token(kind) && token(sub))
}

fn header_str(headers: &HeaderMap, name: header::HeaderName) -> Option<String> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

/// Reads the whole body, keeping at most `keep` bytes (`None` if there were more). An
/// oversized body is still drained (up to [`DRAIN_LIMIT`]) before answering: a browser
/// that is still sending when the server answers and closes reports a network error
/// instead of the 413. A body that breaks off or stops arriving is refused.
// The refusal is the response itself, built once per request: boxing it saves nothing.
#[allow(clippy::result_large_err)]
async fn read_body(body: Body, keep: usize) -> Result<Option<Vec<u8>>, Response> {
    let mut stream = body.into_data_stream();
    let mut kept = Vec::new();
    let mut total = 0usize;
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| {
            if crate::connections::body_timed_out(&e) {
                body_timeout()
            } else {
                bad_request("the body broke off")
            }
        })?;
        total += chunk.len();
        if total <= keep {
            kept.extend_from_slice(&chunk);
        } else if total > DRAIN_LIMIT {
            break;
        }
    }
    Ok((total <= keep).then_some(kept))
}

/// The type the bytes were sent with, unless that says nothing (browsers send
/// `application/octet-stream` or nothing for unknown extensions): then the type declared in
/// `attachments.create`, then the file name's extension.
fn effective_mime(sent: Option<&str>, declared: &str, name: &str) -> String {
    // curl sends raw bodies as form-urlencoded by default: that says nothing about a file.
    let vague = |m: &str| {
        m.is_empty() || m == "application/octet-stream" || m == "application/x-www-form-urlencoded"
    };
    let sent = sent.map(mime_essence).unwrap_or_default();
    if !vague(&sent) {
        return sent;
    }
    let declared = mime_essence(declared);
    if !vague(&declared) {
        return declared;
    }
    let ext = name
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "pdf" => "application/pdf",
        "txt" => "text/plain",
        "md" | "markdown" => "text/markdown",
        "csv" => "text/csv",
        "json" => "application/json",
        _ => "application/octet-stream",
    }
    .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mime_declarations_have_a_shape() {
        for ok in [
            "",
            "image/png",
            "text/plain; charset=utf-8",
            "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        ] {
            assert!(valid_mime_declaration(ok), "{ok}");
        }
        let long = format!("text/{}", "x".repeat(MAX_MIME_CHARS));
        for bad in [
            "png",
            "/png",
            "image/",
            "image png",
            "a/b/c",
            "text/\nhtml",
            &long,
        ] {
            assert!(!valid_mime_declaration(bad), "{bad}");
        }
        assert!(!valid_mime_declaration("text/plain\r\nX-Evil: 1"));
        assert_eq!(describe_size(10 * 1024 * 1024), "10 MB");
        assert_eq!(describe_size(1000), "1000 bytes");
    }

    #[test]
    fn mime_falls_back_from_vague_types() {
        assert_eq!(
            effective_mime(Some("text/plain; charset=utf-8"), "", "a.bin"),
            "text/plain"
        );
        assert_eq!(
            effective_mime(Some("application/octet-stream"), "image/png", "a"),
            "image/png"
        );
        assert_eq!(effective_mime(None, "", "notes.MD"), "text/markdown");
        assert_eq!(
            effective_mime(Some(""), "", "tool.exe"),
            "application/octet-stream"
        );
        assert_eq!(
            effective_mime(Some("application/x-www-form-urlencoded"), "text/csv", "a"),
            "text/csv"
        );
    }
}
