//! The host's request options (headers, fixed or from a function, and its own `fetch`).
//! What a request is sent with is made from them in `runtime::http`.

use js_sys::{Function, Object};
use wasm_bindgen::{JsCast, JsValue};

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
