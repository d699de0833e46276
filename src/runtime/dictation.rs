//! Dictation's microphone and request: a recording with `MediaRecorder` (in one piece, at a
//! speech bit rate), its audio, and `input.transcribe`, which turns the audio into text.
//! Where the text goes, and what a failure says, is the core's (`core::dictation`); the
//! composer's microphone (`ui::composer::dictation`) drives this.
//!
//! The media APIs are reached through `Reflect` rather than web-sys's bindings: each binding
//! is one more import of the first module and one more function in its glue, before the
//! composer is usable (docs/size-history.md), for code that runs only once the user asks.

use super::transport::TransportError;
use super::Runtime;
use chat_shell_core::dictation::{base64, Failure, BITS_PER_SECOND, PREFERRED_TYPES};
use chat_shell_core::protocol::chatkit::RequestBody;
use js_sys::{Array, Function, Object, Promise, Reflect, Uint8Array};
use serde_json::Value;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// One recording in progress: the microphone's stream and its recorder. Its tracks stop
/// (the browser's recording indicator goes off) when it is finished or cancelled.
pub struct Recording {
    recorder: JsValue,
    stream: JsValue,
    /// Settles with the recorder's `dataavailable`: without a time slice it fires once,
    /// with the whole recording, when the recorder stops (asked to, or the microphone went).
    data: Promise,
}

/// What a recording holds: its bytes and their type (the recorder's, e.g.
/// `audio/webm;codecs=opus`).
pub struct Audio {
    pub bytes: Vec<u8>,
    pub mime_type: String,
}

impl Recording {
    /// Asks for the microphone (the browser may prompt) and starts recording.
    pub async fn start() -> Result<Recording, Failure> {
        let window = web_sys::window().ok_or(Failure::Unsupported)?;
        // Both are missing on pages that are not secure and in older browsers.
        let devices = get(&window.navigator(), "mediaDevices");
        let recorder_class = get(&window, "MediaRecorder");
        if !devices.is_object() || !recorder_class.is_function() {
            return Err(Failure::Unsupported);
        }
        let constraints = object(&[("audio", JsValue::TRUE)]);
        let asked = call(&devices, "getUserMedia", &constraints).map_err(|e| failure(&e))?;
        let stream = JsFuture::from(asked.unchecked_into::<Promise>())
            .await
            .map_err(|e| failure(&e))?;
        Self::record(&recorder_class, stream.clone()).map_err(|e| {
            stop_tracks(&stream);
            failure(&e)
        })
    }

    fn record(class: &JsValue, stream: JsValue) -> Result<Recording, JsValue> {
        let supported = |t: &str| {
            call(class, "isTypeSupported", &JsValue::from_str(t)).is_ok_and(|ok| ok.is_truthy())
        };
        let mut options = vec![("audioBitsPerSecond", JsValue::from(BITS_PER_SECOND))];
        if let Some(mime) = PREFERRED_TYPES.iter().find(|t| supported(t)) {
            options.push(("mimeType", JsValue::from_str(mime)));
        }
        let recorder = Reflect::construct(
            class.unchecked_ref::<Function>(),
            &Array::of2(&stream, &object(&options)),
        )?;
        let data = Promise::new(&mut |resolve, _| {
            let _ = Reflect::set(&recorder, &"ondataavailable".into(), &resolve);
        });
        call(&recorder, "start", &JsValue::UNDEFINED)?;
        Ok(Recording {
            recorder,
            stream,
            data,
        })
    }

    fn recording(&self) -> bool {
        get(&self.recorder, "state").as_string().as_deref() != Some("inactive")
    }

    /// Stops recording and hands over the audio.
    pub async fn finish(self) -> Result<Audio, Failure> {
        if self.recording() {
            call(&self.recorder, "stop", &JsValue::UNDEFINED).map_err(|e| failure(&e))?;
        }
        let event = JsFuture::from(self.data.clone()).await;
        stop_tracks(&self.stream);
        let blob = event.map(|e| get(&e, "data")).unwrap_or_default();
        if !blob.is_object() {
            return Err(Failure::Microphone);
        }
        let mime_type = [get(&blob, "type"), get(&self.recorder, "mimeType")]
            .iter()
            .filter_map(JsValue::as_string)
            .find(|t| !t.is_empty())
            .unwrap_or_else(|| "audio/webm".to_owned());
        let read =
            call(&blob, "arrayBuffer", &JsValue::UNDEFINED).map_err(|_| Failure::Microphone)?;
        let buffer = JsFuture::from(read.unchecked_into::<Promise>())
            .await
            .map_err(|_| Failure::Microphone)?;
        Ok(Audio {
            bytes: Uint8Array::new(&buffer).to_vec(),
            mime_type,
        })
    }

    /// Stops recording and drops the audio.
    pub fn cancel(self) {
        let _ = Reflect::set(&self.recorder, &"ondataavailable".into(), &JsValue::NULL);
        if self.recording() {
            let _ = call(&self.recorder, "stop", &JsValue::UNDEFINED);
        }
        stop_tracks(&self.stream);
    }
}

fn get(target: &JsValue, key: &str) -> JsValue {
    Reflect::get(target, &key.into()).unwrap_or_default()
}

/// `target[method](arg)`; an error if it is not a function or it throws.
fn call(target: &JsValue, method: &str, arg: &JsValue) -> Result<JsValue, JsValue> {
    let f = get(target, method);
    if !f.is_function() {
        return Err(JsValue::from_str(method));
    }
    f.unchecked_ref::<Function>().call1(target, arg)
}

fn object(entries: &[(&str, JsValue)]) -> JsValue {
    let o = Object::new();
    for (key, value) in entries {
        let _ = Reflect::set(&o, &(*key).into(), value);
    }
    o.into()
}

fn stop_tracks(stream: &JsValue) {
    if let Ok(tracks) = call(stream, "getTracks", &JsValue::UNDEFINED) {
        for track in tracks.unchecked_into::<Array>().iter() {
            let _ = call(&track, "stop", &JsValue::UNDEFINED);
        }
    }
}

/// The failure a `DOMException` (by its name) stands for.
fn failure(e: &JsValue) -> Failure {
    Failure::from_error_name(&get(e, "name").as_string().unwrap_or_default())
}

impl Runtime {
    /// `input.transcribe`: the audio as plain base64 with its type; the answer's `text`.
    pub(crate) async fn transcribe(&self, audio: Audio) -> Result<String, TransportError> {
        let answer = self
            .json_request::<Value>(RequestBody::Transcribe {
                audio_base64: base64(&audio.bytes),
                mime_type: audio.mime_type,
            })
            .await?;
        answer
            .get("text")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| TransportError::Protocol("input.transcribe answered no text".into()))
    }
}
