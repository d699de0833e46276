//! What every request carries besides its body: the endpoint, the host's headers (fixed,
//! or from an async function asked before each request, e.g. for fresh auth tokens), and
//! the host's own `fetch` if it gave one.

use super::transport::{Http, TransportError};
use super::Runtime;
use js_sys::{Function, Object, Promise};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// The host's request options (`headers`, `fetch`).
#[derive(Default)]
pub struct HttpOptions {
    /// The `headers` option as the host gave it (read back by `options`).
    given: Option<JsValue>,
    pub headers: Vec<(String, String)>,
    /// `async () => ({ Authorization: … })`, called before each request.
    pub headers_fn: Option<Function>,
    pub fetch: Option<Function>,
}

impl HttpOptions {
    /// From the `headers` option: an object of strings, or a function returning one.
    pub fn set_headers(&mut self, value: &JsValue) {
        self.given = (!value.is_null() && !value.is_undefined()).then(|| value.clone());
        self.headers_fn = value.dyn_ref::<Function>().cloned();
        self.headers = if self.headers_fn.is_some() {
            Vec::new()
        } else {
            header_pairs(value)
        };
    }
}

impl HttpOptions {
    /// The `headers` option as given, if any.
    pub fn given_headers(&self) -> Option<JsValue> {
        self.given.clone()
    }
}

/// The string entries of a plain object, as header pairs (other values are skipped).
pub fn header_pairs(value: &JsValue) -> Vec<(String, String)> {
    let Some(object) = value.dyn_ref::<Object>() else {
        return Vec::new();
    };
    Object::entries(object)
        .iter()
        .filter_map(|entry| {
            let pair = js_sys::Array::from(&entry);
            Some((pair.get(0).as_string()?, pair.get(1).as_string()?))
        })
        .collect()
}

impl Runtime {
    /// Everything a request needs, with the host's header function asked now.
    pub(crate) async fn http(&self) -> Result<Http, TransportError> {
        let (mut headers, headers_fn, fetch) = {
            let options = self.http_options.borrow();
            (
                options.headers.clone(),
                options.headers_fn.clone(),
                options.fetch.clone(),
            )
        };
        if let Some(get) = headers_fn {
            let failed = |e: JsValue| {
                let why = e.as_string().or_else(|| {
                    js_sys::Reflect::get(&e, &"message".into())
                        .ok()
                        .and_then(|m| m.as_string())
                });
                TransportError::Network(format!(
                    "the page's headers function failed: {}",
                    why.unwrap_or_default()
                ))
            };
            let value = get.call0(&JsValue::NULL).map_err(failed)?;
            let value = JsFuture::from(Promise::resolve(&value))
                .await
                .map_err(failed)?;
            headers.extend(header_pairs(&value));
        }
        Ok(Http {
            endpoint: self.options(|o| o.endpoint.clone()),
            // The same silence limit as a stream's: a server that accepts the request
            // and never answers gets no longer than one that stops mid-answer.
            first_byte_ms: self.options(|o| o.stream_timeout_ms()),
            headers,
            fetch,
        })
    }
}
