//! `input.transcribe`: audio in, text out, deterministically. No model listens: the answer
//! says how many bytes of which audio type arrived (`{"text": "heard 5120 bytes of
//! audio/webm"}`), so a client's whole dictation path can be tested against it. Nothing is
//! stored; the request passes the same guard and identity as every other.

use super::request::mime_essence;
use super::upload::valid_mime_declaration;
use crate::errors::bad_request;
use axum::response::{IntoResponse, Response};
use axum::Json;
use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use serde_json::json;

/// The most audio one request may carry, decoded. Its base64 (4/3 as long) stays well
/// inside `/chatkit`'s 2 MiB body limit, so a longer recording gets this answer (400, with
/// the limit named) rather than a bare 413.
pub const MAX_AUDIO_BYTES: usize = 1024 * 1024;

/// The answer to `input.transcribe {audio_base64, mime_type}`: `{text}`, or 400 saying what
/// is wrong with the audio.
pub(crate) fn transcribe(audio_base64: &str, mime_type: &str) -> Response {
    match heard(audio_base64, mime_type) {
        Ok(text) => Json(json!({ "text": text })).into_response(),
        Err(message) => bad_request(&message),
    }
}

fn heard(audio_base64: &str, mime_type: &str) -> Result<String, String> {
    let essence = mime_essence(mime_type);
    if mime_type.is_empty() || !valid_mime_declaration(mime_type) || !essence.starts_with("audio/")
    {
        return Err("mime_type must be an audio type such as `audio/webm;codecs=opus`".into());
    }
    if audio_base64.is_empty() {
        return Err("audio_base64 is empty: nothing was recorded".into());
    }
    if audio_base64.starts_with("data:") {
        return Err("audio_base64 must be plain base64, not a data: URL".into());
    }
    // Refused before decoding: base64 is 4 characters for every 3 bytes.
    if audio_base64.len() / 4 * 3 > MAX_AUDIO_BYTES + 2 {
        return Err(too_long());
    }
    let audio = BASE64
        .decode(audio_base64)
        .map_err(|_| "audio_base64 is not valid base64".to_owned())?;
    if audio.len() > MAX_AUDIO_BYTES {
        return Err(too_long());
    }
    Ok(format!("heard {} bytes of {essence}", audio.len()))
}

fn too_long() -> String {
    format!(
        "the audio is over the {} MiB limit of one transcription",
        MAX_AUDIO_BYTES / (1024 * 1024)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heard_names_the_size_and_the_essence() {
        assert_eq!(
            heard(&BASE64.encode([7u8; 10]), "Audio/WebM; codecs=opus").unwrap(),
            "heard 10 bytes of audio/webm"
        );
        let at_limit = BASE64.encode(vec![0u8; MAX_AUDIO_BYTES]);
        assert!(heard(&at_limit, "audio/ogg").is_ok());
        let over = BASE64.encode(vec![0u8; MAX_AUDIO_BYTES + 1]);
        assert!(heard(&over, "audio/ogg").unwrap_err().contains("1 MiB"));
        for mime in [
            "",
            "video/webm",
            "audio",
            "audio/",
            "audio/webm\r\nX: 1",
            "text/plain",
        ] {
            assert!(
                heard("AAAA", mime).unwrap_err().contains("mime_type"),
                "{mime}"
            );
        }
        for bad in ["AAA", "AA=A", "A*AA", "data:audio/webm;base64,AAAA"] {
            assert!(heard(bad, "audio/webm").is_err(), "{bad}");
        }
    }
}
