//! The component's one stylesheet, shared by every shadow root and the document. Its text
//! is on every target (a server-rendered page links it); adopting it is the browser's.

#[cfg(target_arch = "wasm32")]
use std::cell::RefCell;
#[cfg(target_arch = "wasm32")]
use wasm_bindgen::JsCast;
#[cfg(target_arch = "wasm32")]
use web_sys::ShadowRoot;

/// The component's stylesheet. A server-rendered page links it (served by the app) so the
/// early frame `ChatShell` renders is styled before any wasm runs; the custom element and a
/// client-rendered `ChatShell` adopt it (no inline `<style>`: pages with a strict
/// Content-Security-Policy allow constructed stylesheets). In the element's packaged build
/// (`split`) it is not in the wasm: src/chat-shell.js builds it from chat-shell-style.js
/// (scripts/build.sh) before the wasm arrives, for the early frame it draws.
pub const STYLESHEET: &str = include_str!("../style/chat-shell.css");

#[cfg(target_arch = "wasm32")]
thread_local! {
    static SHEET: RefCell<Option<web_sys::CssStyleSheet>> = const { RefCell::new(None) };
}

/// The stylesheet src/chat-shell.js built, when it loaded this module.
#[cfg(target_arch = "wasm32")]
fn shared_sheet() -> Option<web_sys::CssStyleSheet> {
    let key = js_sys::Symbol::for_("chat-shell.stylesheet");
    js_sys::Reflect::get(&js_sys::global(), &key)
        .ok()?
        .dyn_into::<web_sys::CssStyleSheet>()
        .ok()
}

#[cfg(target_arch = "wasm32")]
pub(crate) fn adopt(root: &ShadowRoot) {
    if let Some(sheet) = stylesheet() {
        root.set_adopted_style_sheets(&js_sys::Array::of1(&sheet));
    }
}

/// The component's stylesheet, built once per page and shared by every instance.
#[cfg(target_arch = "wasm32")]
pub(crate) fn stylesheet() -> Option<web_sys::CssStyleSheet> {
    SHEET.with(|s| {
        let mut s = s.borrow_mut();
        if s.is_none() {
            *s = shared_sheet().or_else(built_stylesheet);
        }
        s.clone()
    })
}

#[cfg(all(target_arch = "wasm32", not(feature = "split")))]
fn built_stylesheet() -> Option<web_sys::CssStyleSheet> {
    let sheet = web_sys::CssStyleSheet::new().ok()?;
    sheet.replace_sync(STYLESHEET).ok()?;
    Some(sheet)
}

#[cfg(all(target_arch = "wasm32", feature = "split"))]
fn built_stylesheet() -> Option<web_sys::CssStyleSheet> {
    None
}
