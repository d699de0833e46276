//! Attachment bytes: `POST|PUT /upload/{id}` (multipart field `file` or a raw body) with
//! size and type limits, and `GET /preview/{id}` to serve them back.

use crate::server::{json_error, AppState};
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;
use std::sync::Arc;

/// The largest file accepted.
pub const MAX_UPLOAD_BYTES: usize = 10 * 1024 * 1024;
/// Room for multipart boundaries and part headers around the file.
const MULTIPART_OVERHEAD: usize = 64 * 1024;
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
    Path(id): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let record = match state.store.attachment(&id) {
        Ok(Some(r)) => r,
        Ok(None) => return json_error(StatusCode::NOT_FOUND, &format!("unknown attachment {id}")),
        Err(e) => return json_error(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
    };
    let content_type = header_str(&headers, header::CONTENT_TYPE).unwrap_or_default();
    let declared_len =
        header_str(&headers, header::CONTENT_LENGTH).and_then(|v| v.parse::<usize>().ok());
    if declared_len.is_some_and(|n| n > DRAIN_LIMIT) {
        return too_large();
    }
    let Some(bytes) = read_body(body, MAX_UPLOAD_BYTES + MULTIPART_OVERHEAD).await else {
        return too_large();
    };
    let (data, part_type) = if mime_essence(&content_type) == "multipart/form-data" {
        match parse_multipart(&content_type, &bytes) {
            Ok(part) => (part.data, part.content_type),
            Err(e) => return json_error(StatusCode::BAD_REQUEST, &e),
        }
    } else {
        (bytes, Some(content_type))
    };
    if data.len() > MAX_UPLOAD_BYTES {
        return too_large();
    }
    let mime = effective_mime(part_type.as_deref(), &record.mime_type, &record.name);
    if !ALLOWED_TYPES.contains(&mime.as_str()) {
        return json_error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            &format!(
                "file type `{mime}` is not allowed; allowed: {}",
                ALLOWED_TYPES.join(", ")
            ),
        );
    }
    match state.store.store_upload(&id, &mime, &data) {
        Ok(_) => {
            let mut record = record;
            record.mime_type = mime;
            record.size = data.len() as u64;
            record.uploaded = true;
            let base = crate::server::base_url(&state, &headers);
            axum::Json(crate::server::attachment_object(&record, &base, false)).into_response()
        }
        Err(e) => json_error(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
    }
}

pub async fn preview(State(state): State<Arc<AppState>>, Path(id): Path<String>) -> Response {
    match state.store.upload(&id) {
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
        Ok(None) => json_error(StatusCode::NOT_FOUND, &format!("nothing uploaded for {id}")),
        Err(e) => json_error(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
    }
}

fn too_large() -> Response {
    json_error(
        StatusCode::PAYLOAD_TOO_LARGE,
        &format!(
            "file is larger than the {} MB limit",
            MAX_UPLOAD_BYTES / (1024 * 1024)
        ),
    )
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
/// instead of the 413.
async fn read_body(body: Body, keep: usize) -> Option<Vec<u8>> {
    let mut stream = body.into_data_stream();
    let mut kept = Vec::new();
    let mut total = 0usize;
    while let Some(chunk) = stream.next().await {
        let Ok(chunk) = chunk else { return None };
        total += chunk.len();
        if total <= keep {
            kept.extend_from_slice(&chunk);
        } else if total > DRAIN_LIMIT {
            break;
        }
    }
    (total <= keep).then_some(kept)
}

/// `text/plain; charset=utf-8` → `text/plain`.
fn mime_essence(value: &str) -> String {
    value
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase()
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

/// The `file` field of a multipart body.
#[derive(Debug, PartialEq, Eq)]
pub struct Part {
    pub content_type: Option<String>,
    pub data: Vec<u8>,
}

/// A minimal multipart/form-data reader: finds the part named `file` (or, failing that, the
/// first part with a filename).
pub fn parse_multipart(content_type: &str, body: &[u8]) -> Result<Part, String> {
    let boundary = content_type
        .split(';')
        .filter_map(|p| p.trim().split_once('='))
        .find(|(k, _)| k.trim().eq_ignore_ascii_case("boundary"))
        .map(|(_, v)| v.trim().trim_matches('"').to_owned())
        .filter(|b| !b.is_empty())
        .ok_or("multipart body without a boundary")?;
    let delimiter = format!("--{boundary}").into_bytes();
    let mut fallback = None;
    let mut rest = body;
    // Skip the preamble up to the first delimiter.
    let start = find(rest, &delimiter).ok_or("multipart body without its boundary")?;
    rest = &rest[start + delimiter.len()..];
    loop {
        if rest.starts_with(b"--") {
            break; // the closing delimiter
        }
        rest = rest
            .strip_prefix(b"\r\n")
            .ok_or("malformed multipart delimiter line")?;
        let head_end = find(rest, b"\r\n\r\n").ok_or("multipart part without headers")?;
        let head = String::from_utf8_lossy(&rest[..head_end]).into_owned();
        rest = &rest[head_end + 4..];
        let mut close = b"\r\n".to_vec();
        close.extend_from_slice(&delimiter);
        let end = find(rest, &close).ok_or("multipart part without a closing boundary")?;
        let data = &rest[..end];
        rest = &rest[end + close.len()..];

        let mut name = None;
        let mut has_filename = false;
        let mut part_type = None;
        for line in head.split("\r\n") {
            let Some((key, value)) = line.split_once(':') else {
                continue;
            };
            let key = key.trim().to_ascii_lowercase();
            if key == "content-disposition" {
                for param in value.split(';').skip(1) {
                    if let Some((k, v)) = param.trim().split_once('=') {
                        match k.trim().to_ascii_lowercase().as_str() {
                            "name" => name = Some(v.trim().trim_matches('"').to_owned()),
                            "filename" => has_filename = true,
                            _ => {}
                        }
                    }
                }
            } else if key == "content-type" {
                part_type = Some(value.trim().to_owned());
            }
        }
        let part = || Part {
            content_type: part_type.clone(),
            data: data.to_vec(),
        };
        if name.as_deref() == Some("file") {
            return Ok(part());
        }
        if has_filename && fallback.is_none() {
            fallback = Some(part());
        }
    }
    fallback.ok_or_else(|| "multipart body without a `file` field".to_owned())
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(parts: &[(&str, Option<&str>, &[u8])]) -> Vec<u8> {
        let mut out = b"preamble\r\n".to_vec();
        for (name, ty, data) in parts {
            out.extend_from_slice(b"--XyZ\r\n");
            out.extend_from_slice(
                format!(
                    "Content-Disposition: form-data; name=\"{name}\"; filename=\"{name}.bin\"\r\n"
                )
                .as_bytes(),
            );
            if let Some(ty) = ty {
                out.extend_from_slice(format!("Content-Type: {ty}\r\n").as_bytes());
            }
            out.extend_from_slice(b"\r\n");
            out.extend_from_slice(data);
            out.extend_from_slice(b"\r\n");
        }
        out.extend_from_slice(b"--XyZ--\r\n");
        out
    }

    #[test]
    fn finds_the_file_field() {
        let data: &[u8] = b"\x89PNG\r\n--X\r\nnot a boundary";
        let b = body(&[
            ("other", None, b"ignored"),
            ("file", Some("image/png"), data),
        ]);
        let part = parse_multipart("multipart/form-data; boundary=XyZ", &b).unwrap();
        assert_eq!(
            part,
            Part {
                content_type: Some("image/png".into()),
                data: data.to_vec()
            }
        );
        let quoted = parse_multipart("multipart/form-data; boundary=\"XyZ\"", &b).unwrap();
        assert_eq!(quoted.data, data);
    }

    #[test]
    fn falls_back_to_any_file_and_rejects_garbage() {
        let b = body(&[("upload", Some("text/plain"), b"hello")]);
        assert_eq!(
            parse_multipart("multipart/form-data; boundary=XyZ", &b)
                .unwrap()
                .data,
            b"hello"
        );
        assert!(parse_multipart("multipart/form-data", &b).is_err());
        assert!(parse_multipart("multipart/form-data; boundary=Other", &b).is_err());
        assert!(parse_multipart("multipart/form-data; boundary=XyZ", b"--XyZ\r\nbroken").is_err());
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
