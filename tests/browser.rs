//! Browser tests (wasm-bindgen-test in headless Chromium): the element's lifecycle and the
//! views rendering recorded traffic, without a server.
#![cfg(target_arch = "wasm32")]

use chat_shell::element;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{Document, HtmlElement, ShadowRoot};

wasm_bindgen_test_configure!(run_in_browser);

fn document() -> Document {
    web_sys::window().unwrap().document().unwrap()
}

/// Let microtasks, effects and one animation frame run.
async fn settle() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let window = web_sys::window().unwrap();
        let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 50);
    });
    wasm_bindgen_futures::JsFuture::from(promise).await.unwrap();
}

fn new_element(endpoint: &str) -> HtmlElement {
    chat_shell::start();
    let el: HtmlElement = document()
        .create_element("chat-shell")
        .unwrap()
        .unchecked_into();
    el.set_attribute("endpoint", endpoint).unwrap();
    document().body().unwrap().append_child(&el).unwrap();
    el
}

fn shadow(el: &HtmlElement) -> ShadowRoot {
    el.shadow_root().expect("open shadow root")
}

#[wasm_bindgen_test]
async fn the_element_mounts_into_its_open_shadow_root_with_its_own_styles() {
    let el = new_element("/chatkit");
    settle().await;
    let root = shadow(&el);
    assert!(element::is_mounted(&el));
    let textarea = root
        .query_selector("textarea[aria-label='Message']")
        .unwrap();
    assert!(
        textarea.is_some(),
        "composer textbox inside the shadow root"
    );
    assert!(root.query_selector("[part=viewport]").unwrap().is_some());
    assert!(root.query_selector("[part=header]").unwrap().is_some());
    // Nothing rendered leaks into the light DOM, and no inline <style> is needed.
    assert_eq!(el.children().length(), 0);
    assert!(root.query_selector("style").unwrap().is_none());
    let sheets = js_sys::Reflect::get(&root, &"adoptedStyleSheets".into()).unwrap();
    assert_eq!(js_sys::Array::from(&sheets).length(), 1);
    // The component's styles stay inside: the page's body font is untouched.
    let page_font = web_sys::window()
        .unwrap()
        .get_computed_style(&document().body().unwrap())
        .unwrap()
        .unwrap();
    assert!(!page_font
        .get_property_value("--cs-accent")
        .unwrap()
        .contains('#'));
    el.remove();
}

#[wasm_bindgen_test]
async fn attribute_changes_reach_the_runtime() {
    let el = new_element("/first");
    settle().await;
    assert_eq!(element::endpoint_of(&el).as_deref(), Some("/first"));
    el.set_attribute("endpoint", "/second").unwrap();
    assert_eq!(element::endpoint_of(&el).as_deref(), Some("/second"));
    el.remove();
}

#[wasm_bindgen_test]
async fn disconnect_unmounts_and_reconnect_mounts_again() {
    let el = new_element("/chatkit");
    settle().await;
    let root = shadow(&el);
    assert!(root.child_element_count() > 0);
    el.remove();
    assert!(!element::is_mounted(&el));
    assert_eq!(
        root.child_element_count(),
        0,
        "the view is gone from the shadow root"
    );
    document().body().unwrap().append_child(&el).unwrap();
    settle().await;
    assert!(element::is_mounted(&el));
    assert!(root
        .query_selector("textarea[aria-label='Message']")
        .unwrap()
        .is_some());
    el.remove();
}

#[wasm_bindgen_test]
async fn two_elements_are_independent() {
    let a = new_element("/a");
    let b = new_element("/b");
    settle().await;
    assert_eq!(element::endpoint_of(&a).as_deref(), Some("/a"));
    assert_eq!(element::endpoint_of(&b).as_deref(), Some("/b"));
    a.remove();
    settle().await;
    assert!(element::is_mounted(&b));
    b.remove();
}
