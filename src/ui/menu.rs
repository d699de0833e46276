//! The header's menus: "Export" (Markdown, JSON) and, on narrow screens, "More" (Find in
//! conversation, and Export's two). Each is a `role="menu"` under its button: arrow keys,
//! Home and End move, Enter or Space chooses, Escape closes it and gives the focus back to
//! the button, and Tab or a click elsewhere closes it (the header's wrapper).

use crate::runtime::Shell;
use crate::ui::{tr, use_shell};
use chat_shell_core::export::{export, file_name, Format};
use chat_shell_core::strings::Text;
use leptos::html;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// What a menu item does.
#[derive(Clone, Copy)]
enum Action {
    Find,
    Export(Format),
}

/// The "Export" menu.
#[component]
pub fn ExportMenu(button: NodeRef<html::Button>, open: RwSignal<bool>) -> impl IntoView {
    let shell = use_shell();
    view! {
        <div class="cs-menu" role="menu" data-part="export-menu" aria-label=tr(shell, Text::Export)
            node_ref=focus_first() on:keydown=move |e| on_key(e, button, open)>
            {item(shell, button, open, Action::Export(Format::Markdown))}
            {item(shell, button, open, Action::Export(Format::Json))}
        </div>
    }
}

/// The "More" menu of a narrow header: what does not fit in it.
#[component]
pub fn MoreMenu(button: NodeRef<html::Button>, open: RwSignal<bool>) -> impl IntoView {
    let shell = use_shell();
    view! {
        <div class="cs-menu" role="menu" data-part="more-menu" aria-label=tr(shell, Text::More)
            node_ref=focus_first() on:keydown=move |e| on_key(e, button, open)>
            {item(shell, button, open, Action::Find)}
            <div class="cs-menu__group" role="group" aria-labelledby="cs-menu-export">
                <p class="cs-menu__label" id="cs-menu-export" role="presentation">{tr(shell, Text::Export)}</p>
                {item(shell, button, open, Action::Export(Format::Markdown))}
                {item(shell, button, open, Action::Export(Format::Json))}
            </div>
        </div>
    }
}

/// A menu's node ref that focuses its first item once it is drawn.
fn focus_first() -> NodeRef<html::Div> {
    let menu = NodeRef::<html::Div>::new();
    menu.on_load(|menu| {
        request_animation_frame(move || {
            if let Some(first) = items(&menu).first() {
                let _ = first.focus();
            }
        });
    });
    menu
}

fn items(menu: &web_sys::HtmlDivElement) -> Vec<web_sys::HtmlElement> {
    let Ok(found) = menu.query_selector_all("[role=menuitem]") else {
        return Vec::new();
    };
    (0..found.length())
        .filter_map(|i| found.get(i)?.dyn_into::<web_sys::HtmlElement>().ok())
        .collect()
}

fn close(button: NodeRef<html::Button>, open: RwSignal<bool>, refocus: bool) {
    open.set(false);
    if refocus {
        if let Some(b) = button.get_untracked() {
            let _ = b.focus();
        }
    }
}

fn on_key(e: web_sys::KeyboardEvent, button: NodeRef<html::Button>, open: RwSignal<bool>) {
    let Some(menu) = e
        .current_target()
        .and_then(|t| t.dyn_into::<web_sys::HtmlDivElement>().ok())
    else {
        return;
    };
    let all = items(&menu);
    if all.is_empty() {
        return;
    }
    let active = menu
        .get_root_node()
        .dyn_into::<web_sys::ShadowRoot>()
        .ok()
        .and_then(|root| root.active_element())
        .or_else(|| web_sys::window()?.document()?.active_element());
    let at = all
        .iter()
        .position(|i| active.as_ref() == Some(i.unchecked_ref::<web_sys::Element>()));
    let n = all.len();
    let next = match e.key().as_str() {
        "ArrowDown" => at.map_or(0, |i| (i + 1) % n),
        "ArrowUp" => at.map_or(n - 1, |i| (i + n - 1) % n),
        "Home" => 0,
        "End" => n - 1,
        "Escape" => {
            e.prevent_default();
            e.stop_propagation();
            close(button, open, true);
            return;
        }
        "Tab" => {
            close(button, open, false);
            return;
        }
        _ => return,
    };
    e.prevent_default();
    let _ = all[next].focus();
}

fn item(
    shell: Shell,
    button: NodeRef<html::Button>,
    open: RwSignal<bool>,
    action: Action,
) -> impl IntoView {
    let (label, part) = match action {
        Action::Find => (Text::FindInConversation, "menu-find"),
        Action::Export(Format::Markdown) => (Text::ExportMarkdown, "export-markdown"),
        Action::Export(Format::Json) => (Text::ExportJson, "export-json"),
    };
    view! {
        <button type="button" class="cs-menu__item" role="menuitem" tabindex="-1" data-part=part
            on:click=move |_| {
                match action {
                    Action::Find => {
                        close(button, open, false);
                        if let Some(signals) = shell.signals() {
                            signals.find_open.set(true);
                        }
                    }
                    Action::Export(format) => {
                        download(shell, format);
                        close(button, open, true);
                    }
                }
            }
        >
            {tr(shell, label)}
        </button>
    }
}

/// The conversation shown, as `format`.
pub(crate) fn exported(shell: Shell, format: Format) -> Option<String> {
    let strings = shell.signals()?.strings;
    shell.with(|rt| rt.with_state(|s| strings.with_untracked(|t| export(s, t, format))))
}

/// Downloads the conversation shown as a file of `format`.
fn download(shell: Shell, format: Format) {
    let Some(text) = exported(shell, format) else {
        return;
    };
    let Some(name) = shell.with(|rt| rt.with_state(|s| file_name(s, format))) else {
        return;
    };
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(&text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(format.file().1);
    let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options) else {
        return;
    };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else {
        return;
    };
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    if let Ok(a) = document.create_element("a") {
        let _ = a.set_attribute("href", &url);
        let _ = a.set_attribute("download", &name);
        a.unchecked_ref::<web_sys::HtmlElement>().click();
    }
    // The download has the bytes once it started; the URL may go a little later.
    set_timeout(
        move || {
            let _ = web_sys::Url::revoke_object_url(&url);
        },
        std::time::Duration::from_secs(30),
    );
}
