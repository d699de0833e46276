//! `input.transcribe` against the real binary over hand-written HTTP/1.1: audio in, a
//! deterministic `{text}` out; broken base64, a type that is not audio and audio over the
//! limit are refused with the runtime's JSON errors, and the log names the request.

mod common;

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use common::Runtime;
use serde_json::{json, Value};

/// The runtime's limit (`handlers::transcribe::MAX_AUDIO_BYTES`).
const MAX_AUDIO_BYTES: usize = 1024 * 1024;

fn start() -> Runtime {
    Runtime::builder()
        .args(&["--memory", "--dist", "/nonexistent"])
        .quiet()
        .start()
}

fn transcribe(audio_base64: &str, mime_type: &str) -> Value {
    json!({
        "type": "input.transcribe",
        "params": {"audio_base64": audio_base64, "mime_type": mime_type},
    })
}

/// Status and JSON body of one request, as a fresh browser (a new identity).
async fn ask(rt: &Runtime, cookie: &str, request: &Value) -> (u16, Value) {
    let mut reply = rt.open(Some(cookie), request).await;
    let status = reply.status();
    (status, reply.json().await)
}

fn assert_refused(what: &str, (status, body): (u16, Value), needle: &str) {
    assert_eq!(status, 400, "{what}: {body}");
    assert_eq!(body["code"], "bad_request", "{what}: {body}");
    let message = body["error"].as_str().unwrap_or_default();
    assert!(message.contains(needle), "{what}: {message}");
}

#[tokio::test]
async fn audio_in_deterministic_text_out() {
    let rt = start();
    let cookie = rt.new_identity().await;
    let audio: Vec<u8> = (0..12_345u32).map(|i| (i * 7) as u8).collect();
    let request = transcribe(&BASE64.encode(&audio), "audio/webm;codecs=opus");
    let (status, body) = ask(&rt, &cookie, &request).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, json!({"text": "heard 12345 bytes of audio/webm"}));
    // The same audio, the same answer; metadata is taken like every request's.
    let mut with_metadata = request.clone();
    with_metadata["metadata"] = json!({"tenant": "acme"});
    assert_eq!(ask(&rt, &cookie, &with_metadata).await, (200, body));
    // Any audio type; its parameters are not part of the answer.
    let (_, ogg) = ask(
        &rt,
        &cookie,
        &transcribe("T2dnUw==", "audio/ogg; codecs=opus"),
    )
    .await;
    assert_eq!(ogg["text"], "heard 4 bytes of audio/ogg");
    rt.wait_for_line("POST /chatkit input.transcribe 200")
        .expect("the log names the request");
}

#[tokio::test]
async fn broken_base64_and_data_urls_are_refused() {
    let rt = start();
    let cookie = rt.new_identity().await;
    for bad in ["AAA", "AA=A", "not base64!", "QUJD\nRA=="] {
        let reply = ask(&rt, &cookie, &transcribe(bad, "audio/webm")).await;
        assert_refused(bad, reply, "not valid base64");
    }
    let data_url = ask(
        &rt,
        &cookie,
        &transcribe("data:audio/webm;base64,QUJD", "audio/webm"),
    )
    .await;
    assert_refused("a data: URL", data_url, "not a data: URL");
    let empty = ask(&rt, &cookie, &transcribe("", "audio/webm")).await;
    assert_refused("no audio", empty, "empty");
    // A request without its params is no request at all.
    let missing = json!({"type": "input.transcribe", "params": {"mime_type": "audio/webm"}});
    let (status, body) = ask(&rt, &cookie, &missing).await;
    assert_eq!(status, 400, "{body}");
    assert!(
        body["error"].as_str().unwrap().contains("audio_base64"),
        "{body}"
    );
}

#[tokio::test]
async fn only_audio_types_are_taken() {
    let rt = start();
    let cookie = rt.new_identity().await;
    for mime in [
        "",
        "video/webm",
        "text/plain",
        "application/octet-stream",
        "audio",
        "audio/",
        "audio/webm\r\nX-Evil: 1",
        "<script>/webm",
    ] {
        let reply = ask(&rt, &cookie, &transcribe("QUJD", mime)).await;
        assert_refused(mime, reply, "mime_type must be an audio type");
    }
}

#[tokio::test]
async fn audio_over_the_limit_is_refused() {
    let rt = start();
    let cookie = rt.new_identity().await;
    let at_limit = BASE64.encode(vec![1u8; MAX_AUDIO_BYTES]);
    let (status, body) = ask(&rt, &cookie, &transcribe(&at_limit, "audio/webm")).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["text"],
        format!("heard {MAX_AUDIO_BYTES} bytes of audio/webm")
    );

    let over = BASE64.encode(vec![1u8; MAX_AUDIO_BYTES + 1]);
    let reply = ask(&rt, &cookie, &transcribe(&over, "audio/webm")).await;
    assert_refused("one byte over", reply, "over the 1 MiB limit");
    // Past the endpoint's body limit the request is not even read.
    let huge = BASE64.encode(vec![1u8; 2 * MAX_AUDIO_BYTES]);
    let (status, body) = ask(&rt, &cookie, &transcribe(&huge, "audio/webm")).await;
    assert_eq!(status, 413, "{body}");
    assert_eq!(body["code"], "payload_too_large", "{body}");
}
