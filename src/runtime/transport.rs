//! HTTP to the one endpoint: a POST whose SSE body is read chunk by chunk, or a POST with
//! a JSON answer. No state, no parsing beyond bytes and JSON; the body is whatever the
//! protocol sends (a ChatKit request, an events request).

use chat_shell_core::strings::{Strings, Text};
use js_sys::{Promise, Reflect, Uint8Array};
use serde::Serialize;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortSignal, ReadableStreamDefaultReader};

/// The response header by which a server says it has the thread channel (the reference
/// runtime sends it; the official SDK does not).
const CHANNEL_HEADER: &str = "x-chat-shell-channel";

thread_local! {
    static CHANNEL_OFFERED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether a server answered with [`CHANNEL_HEADER`]: only then is the channel opened, so a
/// server without it is never sent a request it would refuse.
pub fn channel_offered() -> bool {
    CHANNEL_OFFERED.with(|c| c.get())
}

/// Why a request failed, in words a user can read.
#[derive(Clone, Debug, PartialEq)]
pub enum TransportError {
    /// The request was aborted (Stop, thread switch, unmount).
    Aborted,
    /// The server answered with an error status.
    Status { status: u16, message: String },
    /// No bytes arrived for longer than the stall timeout.
    Stalled { seconds: u32 },
    /// The server accepted the request but sent no answer (not even headers) in time.
    NoAnswer { seconds: u32 },
    /// One event of the answer was larger than the limit; what came before is kept.
    Oversized { limit: usize },
    /// The connection failed or dropped.
    Network(String),
    /// The answer was not what the protocol says.
    Protocol(String),
}

impl TransportError {
    /// In English: for `chat.error` events and logs.
    pub fn user_message(&self) -> String {
        self.message_in(&Strings::default())
    }

    /// What the user reads, in the element's language.
    pub fn message_in(&self, strings: &Strings) -> String {
        match self {
            TransportError::Aborted => strings.get(Text::RequestCancelled).to_owned(),
            TransportError::Status { status, message } if message.is_empty() => {
                strings.format(Text::ServerError, &[("status", &status.to_string())])
            }
            TransportError::Status { status, message } => strings.format(
                Text::ServerErrorDetail,
                &[("status", &status.to_string()), ("message", message)],
            ),
            TransportError::Stalled { seconds } => {
                strings.format(Text::AnswerStalled, &[("seconds", &seconds.to_string())])
            }
            TransportError::NoAnswer { seconds } => {
                strings.format(Text::ServerSilent, &[("seconds", &seconds.to_string())])
            }
            TransportError::Oversized { limit } => strings.format(
                Text::AnswerTooLarge,
                &[("megabytes", &format!("{:.0}", *limit as f64 / 1_048_576.0))],
            ),
            TransportError::Network(_) => strings.get(Text::ConnectionLost).to_owned(),
            TransportError::Protocol(detail) => {
                strings.format(Text::UnreadableAnswer, &[("detail", detail)])
            }
        }
    }

    /// Whether sending the same request again may help.
    pub fn retryable(&self) -> bool {
        !matches!(self, TransportError::Aborted)
    }
}

fn js_error_text(e: &JsValue) -> String {
    Reflect::get(e, &"message".into())
        .ok()
        .and_then(|m| m.as_string())
        .or_else(|| e.as_string())
        // Not `{e:?}`: the element's release build formats no `Debug` (scripts/build.sh).
        .unwrap_or_else(|| "unknown error".to_string())
}

fn is_abort(e: &JsValue) -> bool {
    Reflect::get(e, &"name".into())
        .ok()
        .and_then(|n| n.as_string())
        .as_deref()
        == Some("AbortError")
}

fn from_gloo(e: gloo_net::Error, signal: &AbortSignal) -> TransportError {
    if signal.aborted() {
        return TransportError::Aborted;
    }
    match e {
        gloo_net::Error::JsError(js) if js.name == "AbortError" => TransportError::Aborted,
        other => TransportError::Network(other.to_string()),
    }
}

/// Where and how requests go: the endpoint, extra headers (auth tokens…), optionally the
/// host page's own `fetch`, and how long a server may take to start answering.
#[derive(Clone, Debug, Default)]
pub struct Http {
    pub endpoint: String,
    pub headers: Vec<(String, String)>,
    pub fetch: Option<js_sys::Function>,
    /// Milliseconds from sending to the answer's headers (and, for JSON, its whole body).
    pub first_byte_ms: u32,
}

/// A time limit on one request: aborts it unless cleared first. Tied to the caller's
/// signal, so Stop still aborts it too.
struct Deadline {
    signal: AbortSignal,
    own: web_sys::AbortController,
    timer: i32,
    ms: u32,
}

impl Deadline {
    fn start(parent: &AbortSignal, ms: u32) -> Result<Self, TransportError> {
        let own = web_sys::AbortController::new()
            .map_err(|e| TransportError::Network(js_error_text(&e)))?;
        let signal = AbortSignal::any(&js_sys::Array::of2(parent, &own.signal()));
        let abort = Closure::once_into_js({
            let own = own.clone();
            move || own.abort()
        });
        let timer = web_sys::window()
            .and_then(|w| {
                w.set_timeout_with_callback_and_timeout_and_arguments_0(
                    abort.unchecked_ref(),
                    ms.min(i32::MAX as u32) as i32,
                )
                .ok()
            })
            .unwrap_or_default();
        Ok(Deadline {
            signal,
            own,
            timer,
            ms,
        })
    }

    /// In time: the request is no longer limited.
    fn clear(&self) {
        if let Some(window) = web_sys::window() {
            window.clear_timeout_with_handle(self.timer);
        }
    }

    /// The error to report: the deadline's own when it is what aborted the request.
    fn explain(&self, error: TransportError) -> TransportError {
        match error {
            TransportError::Aborted | TransportError::Network(_) if self.own.signal().aborted() => {
                TransportError::NoAnswer {
                    seconds: self.ms.div_ceil(1000),
                }
            }
            other => other,
        }
    }
}

/// POST `request`; resolves once the answer's headers are in (and were a success).
async fn post(
    http: &Http,
    request: &impl Serialize,
    accept: &str,
    signal: &AbortSignal,
) -> Result<gloo_net::http::Response, TransportError> {
    let mut builder = gloo_net::http::Request::post(&http.endpoint)
        .header("Accept", accept)
        .abort_signal(Some(signal));
    for (name, value) in &http.headers {
        builder = builder.header(name, value);
    }
    let request = builder
        .json(request)
        .map_err(|e| TransportError::Protocol(e.to_string()))?;
    let response = match &http.fetch {
        Some(fetch) => custom_fetch(fetch, request.into(), signal).await?,
        None => request.send().await.map_err(|e| from_gloo(e, signal))?,
    };
    if response.headers().get(CHANNEL_HEADER).is_some() {
        CHANNEL_OFFERED.with(|c| c.set(true));
    }
    if !response.ok() {
        let status = response.status();
        let body = response.text().await.unwrap_or_default();
        return Err(TransportError::Status {
            status,
            message: readable_error(&body),
        });
    }
    Ok(response)
}

/// Send through the page's own `fetch(request)`, which must resolve to a `Response`.
async fn custom_fetch(
    fetch: &js_sys::Function,
    request: web_sys::Request,
    signal: &AbortSignal,
) -> Result<gloo_net::http::Response, TransportError> {
    let called = fetch
        .call1(&JsValue::NULL, &request)
        .map_err(|e| TransportError::Network(js_error_text(&e)))?;
    let answer = JsFuture::from(Promise::resolve(&called))
        .await
        .map_err(|e| {
            if signal.aborted() || is_abort(&e) {
                TransportError::Aborted
            } else {
                TransportError::Network(js_error_text(&e))
            }
        })?;
    answer
        .dyn_into::<web_sys::Response>()
        .map(Into::into)
        .map_err(|_| {
            TransportError::Protocol("the custom fetch did not resolve to a Response".into())
        })
}

/// The `error`/`message` of a JSON error body, or a short plain-text body.
fn readable_error(body: &str) -> String {
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(body) {
        for key in ["error", "message", "detail"] {
            if let Some(s) = v.get(key).and_then(|s| s.as_str()) {
                return s.to_owned();
            }
        }
    }
    let text = body.trim();
    if text.len() <= 200 && !text.starts_with('<') {
        text.to_owned()
    } else {
        String::new()
    }
}

/// POST a JSON request and parse its JSON answer, all within `first_byte_ms`. The caller
/// decodes it into its type (`chunks::runtime::answer`: the decoders are not in the first
/// module).
pub async fn post_json(
    http: &Http,
    request: &impl Serialize,
    signal: &AbortSignal,
) -> Result<serde_json::Value, TransportError> {
    let text = post_text(http, request, signal).await?;
    serde_json::from_str::<serde_json::Value>(&text)
        .map_err(|e| TransportError::Protocol(e.to_string()))
}

/// POST a JSON request and read its answer's body as text, within `first_byte_ms`, for
/// callers whose decoder takes the text (one parse, not two).
pub async fn post_text(
    http: &Http,
    request: &impl Serialize,
    signal: &AbortSignal,
) -> Result<String, TransportError> {
    let deadline = Deadline::start(signal, http.first_byte_ms)?;
    let answer = async {
        let response = post(http, request, "application/json", &deadline.signal).await?;
        response
            .text()
            .await
            .map_err(|e| from_gloo(e, &deadline.signal))
    }
    .await;
    deadline.clear();
    answer.map_err(|e| deadline.explain(e))
}

/// An open SSE answer, read chunk by chunk.
pub struct EventStream {
    reader: ReadableStreamDefaultReader,
    signal: AbortSignal,
    stall_ms: u32,
    watch: StallWatch,
}

/// One timer per answer, not one per read (a fast answer brings hundreds of reads a
/// second): each read stamps when it started, and the timer, when it fires, waits out
/// what is left of `stall_ms` since then or, when a read has been pending that long,
/// cancels the reader, so that read ends and is told apart from the answer's end by
/// `stalled`. Time between reads (the page applying a chunk) never counts.
struct StallWatch {
    state: std::rc::Rc<StallState>,
}

struct StallState {
    stall_ms: f64,
    /// When the pending read started (`None`: no read pending).
    reading_since: std::cell::Cell<Option<f64>>,
    stalled: std::cell::Cell<bool>,
    handle: std::cell::Cell<Option<i32>>,
    /// The timer's callback; taken out when the answer is dropped (it holds this state).
    tick: std::cell::RefCell<Option<Closure<dyn FnMut()>>>,
    reader: ReadableStreamDefaultReader,
}

impl StallState {
    fn arm(&self, ms: f64) {
        let tick = self.tick.borrow();
        let (Some(window), Some(tick)) = (web_sys::window(), tick.as_ref()) else {
            return;
        };
        let ms = ms.clamp(0.0, i32::MAX as f64) as i32;
        self.handle.set(
            window
                .set_timeout_with_callback_and_timeout_and_arguments_0(
                    tick.as_ref().unchecked_ref(),
                    ms,
                )
                .ok(),
        );
    }
}

impl StallWatch {
    fn start(reader: &ReadableStreamDefaultReader, stall_ms: u32) -> Self {
        let state = std::rc::Rc::new(StallState {
            stall_ms: f64::from(stall_ms),
            reading_since: std::cell::Cell::new(None),
            stalled: std::cell::Cell::new(false),
            handle: std::cell::Cell::new(None),
            tick: std::cell::RefCell::new(None),
            reader: reader.clone(),
        });
        let weak = std::rc::Rc::downgrade(&state);
        let tick = Closure::<dyn FnMut()>::new(move || {
            let Some(state) = weak.upgrade() else { return };
            state.handle.set(None);
            let quiet = state
                .reading_since
                .get()
                .map_or(0.0, |since| js_sys::Date::now() - since);
            if quiet < state.stall_ms {
                state.arm(state.stall_ms - quiet);
                return;
            }
            state.stalled.set(true);
            cancel_reader(&state.reader);
        });
        *state.tick.borrow_mut() = Some(tick);
        state.arm(f64::from(stall_ms));
        StallWatch { state }
    }

    /// A read starts (`true`) or ends.
    fn reading(&self, pending: bool) {
        self.state
            .reading_since
            .set(pending.then(js_sys::Date::now));
    }

    fn stalled(&self) -> bool {
        self.state.stalled.get()
    }
}

impl Drop for StallWatch {
    fn drop(&mut self) {
        if let (Some(handle), Some(window)) = (self.state.handle.take(), web_sys::window()) {
            window.clear_timeout_with_handle(handle);
        }
        self.state.tick.borrow_mut().take();
    }
}

/// Cancel a reader: the server sees the client go away. The promise rejects when the
/// request was aborted already: handled, not a page error.
fn cancel_reader(reader: &ReadableStreamDefaultReader) {
    let cancelled = reader.cancel();
    wasm_bindgen_futures::spawn_local(async move {
        let _ = JsFuture::from(cancelled).await;
    });
}

/// POST a streaming request; the answer's body is returned unread.
pub async fn post_stream(
    http: &Http,
    request: &impl Serialize,
    signal: &AbortSignal,
    stall_ms: u32,
) -> Result<EventStream, TransportError> {
    let deadline = Deadline::start(signal, http.first_byte_ms)?;
    let response = post(http, request, "text/event-stream", &deadline.signal).await;
    deadline.clear();
    let response = response.map_err(|e| deadline.explain(e))?;
    let body = response
        .body()
        .ok_or_else(|| TransportError::Protocol("the streamed answer has no body".into()))?;
    let reader: ReadableStreamDefaultReader = body.get_reader().dyn_into().map_err(|_| {
        TransportError::Protocol("the answer body cannot be read as a stream".into())
    })?;
    Ok(EventStream {
        watch: StallWatch::start(&reader, stall_ms),
        reader,
        signal: signal.clone(),
        stall_ms,
    })
}

impl EventStream {
    /// The next chunk of bytes; `Ok(None)` at the end. Any bytes (keepalives included)
    /// count as life: only a read that takes longer than the stall timeout fails.
    pub async fn next_chunk(&mut self) -> Result<Option<Vec<u8>>, TransportError> {
        self.watch.reading(true);
        let result = JsFuture::from(self.reader.read()).await;
        self.watch.reading(false);
        if self.watch.stalled() {
            return Err(TransportError::Stalled {
                seconds: self.stall_ms / 1000,
            });
        }
        let result = match result {
            Ok(r) => r,
            Err(e) if self.signal.aborted() || is_abort(&e) => return Err(TransportError::Aborted),
            Err(e) => return Err(TransportError::Network(js_error_text(&e))),
        };
        let done = Reflect::get(&result, &"done".into())
            .ok()
            .and_then(|d| d.as_bool())
            .unwrap_or(true);
        if done {
            return Ok(None);
        }
        let value = Reflect::get(&result, &"value".into()).unwrap_or(JsValue::UNDEFINED);
        Ok(Some(
            value
                .dyn_into::<Uint8Array>()
                .map(|a| a.to_vec())
                .unwrap_or_default(),
        ))
    }

    /// Close the connection: the server sees the client go away.
    pub fn cancel(&self) {
        cancel_reader(&self.reader);
    }
}
