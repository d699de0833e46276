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

/// A patch of three files: an edit (one word changed, the path is markup), a 300-line new
/// file, and a file after it, far below the first screen.
fn diff_patch(word: &str) -> String {
    let long: String = (1..=300).map(|i| format!("+line {i}\n")).collect();
    format!(
        "diff --git a/<img src=x>.rs b/<img src=x>.rs\n--- a/<img src=x>.rs\n+++ b/<img src=x>.rs\n\
         @@ -1,2 +1,2 @@\n keep\n-let x = 1;\n+let x = {word};\n\
         diff --git a/long.txt b/long.txt\nnew file mode 100644\n--- /dev/null\n+++ b/long.txt\n\
         @@ -0,0 +1,300 @@\n{long}\
         diff --git a/last.rs b/last.rs\n--- a/last.rs\n+++ b/last.rs\n@@ -1 +1 @@\n-a\n+b\n"
    )
}

#[wasm_bindgen_test]
async fn the_diff_view_shows_a_patch_as_text_builds_rows_near_view_and_updates_in_place() {
    use chat_shell::runtime::Runtime;
    use chat_shell::ui::{provide_shell, DiffView};
    use leptos::prelude::*;

    let style = document().create_element("style").unwrap();
    // The element's styles and the diff's own (a chunk's, `style/chunks/items.css`).
    style.set_text_content(Some(concat!(
        include_str!("../style/chat-shell.css"),
        include_str!("../style/chunks/items.css")
    )));
    document().head().unwrap().append_child(&style).unwrap();
    let host: HtmlElement = document().create_element("div").unwrap().unchecked_into();
    host.set_class_name("cs-host");
    host.set_attribute("style", "height: 400px").unwrap();
    document().body().unwrap().append_child(&host).unwrap();
    let shell = Runtime::create(None);
    let patch = RwSignal::new(diff_patch("2"));
    let mounted = leptos::mount::mount_to(host.clone(), move || {
        provide_shell(shell);
        view! { <DiffView patch=patch /> }
    });
    settle().await;
    let all = |selector: &str| {
        let list = host.query_selector_all(selector).unwrap();
        (0..list.length())
            .map(|i| list.item(i).unwrap().unchecked_into::<web_sys::Element>())
            .collect::<Vec<_>>()
    };
    let files = all("[data-part=diff-file]");
    let attr = |el: &web_sys::Element, name: &str| el.get_attribute(name).unwrap_or_default();
    assert_eq!(
        files
            .iter()
            .map(|f| attr(f, "data-status"))
            .collect::<Vec<_>>(),
        ["M", "A", "M"]
    );
    assert_eq!(attr(&files[0], "data-path"), "<img src=x>.rs");
    assert!(
        host.query_selector("img").unwrap().is_none(),
        "paths are text"
    );
    assert_eq!(all("[data-part=diff-file-list] button").len(), 3);
    let marks: Vec<String> = all("mark")
        .iter()
        .map(|m| m.text_content().unwrap())
        .collect();
    assert_eq!(marks, ["1", "2"], "only the changed token is marked");
    // The last file is far below: a placeholder until it comes near.
    let last = &files[2];
    assert!(last
        .query_selector("[data-part=diff-line]")
        .unwrap()
        .is_none());
    assert!(last
        .query_selector(".cs-diff__placeholder")
        .unwrap()
        .is_some());
    let scroller = host
        .query_selector(".cs-diff-view__scroll")
        .unwrap()
        .unwrap();
    scroller.set_scroll_top(scroller.scroll_height());
    settle().await;
    assert_eq!(
        all("[data-part=diff-file]")[2]
            .query_selector_all("[data-part=diff-line]")
            .unwrap()
            .length(),
        2
    );

    // Collapse the long file, go side by side, then a new patch: both choices stay.
    let toggle: HtmlElement = files[1]
        .query_selector("[data-part=diff-file-toggle]")
        .unwrap()
        .unwrap()
        .unchecked_into();
    toggle.click();
    let side: HtmlElement = all("[data-part=diff-layout] button")[1]
        .clone()
        .unchecked_into();
    side.click();
    settle().await;
    patch.set(diff_patch("3"));
    settle().await;
    let files = all("[data-part=diff-file]");
    let toggle = files[1]
        .query_selector("[data-part=diff-file-toggle]")
        .unwrap()
        .unwrap();
    assert_eq!(attr(&toggle, "aria-expanded"), "false");
    assert_eq!(attr(&side, "aria-pressed"), "true");
    let sides = files[0]
        .query_selector_all(".cs-diff__side[data-part=diff-line]")
        .unwrap()
        .length();
    assert_eq!(sides, 4, "the kept line on both sides, then the pair");
    let marks: Vec<String> = all("mark")
        .iter()
        .map(|m| m.text_content().unwrap())
        .collect();
    assert_eq!(marks, ["1", "3"]);
    drop(mounted);
    host.remove();
    style.remove();
    Runtime::dispose(shell);
}
