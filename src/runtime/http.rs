//! What every request carries besides its body: the endpoint, the host's headers (fixed,
//! or from an async function asked before each request, e.g. for fresh auth tokens), and
//! the host's own `fetch` if it gave one.

use super::held::http::header_pairs;
use super::transport::{Http, TransportError};
use super::Runtime;
use js_sys::Promise;
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;

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
