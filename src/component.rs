//! The Leptos component for Rust apps: `<ChatShell endpoint="/chatkit" />`, the same chat as
//! the custom element, with typed props and callbacks instead of attributes and DOM events.

use crate::runtime::{Runtime, DEFAULT_STALL_MS};
use crate::views::ShellRoot;
use chat_shell_core::protocol::JsonMap;
use leptos::html;
use leptos::prelude::*;
use std::rc::Rc;
use wasm_bindgen::JsCast;

/// One `chat.*` event: its name (e.g. `chat.response.end`) and its JSON detail, exactly as
/// the custom element dispatches it.
#[derive(Clone, Debug, PartialEq)]
pub struct ChatEvent {
    pub name: String,
    pub detail: serde_json::Value,
}

/// A complete chat bound to a ChatKit endpoint.
#[component]
pub fn ChatShell(
    /// URL of the ChatKit endpoint (one POST endpoint; SSE for streamed answers).
    #[prop(into)]
    endpoint: Signal<String>,
    /// Seconds a streamed answer may stay silent before it is aborted with an error.
    #[prop(optional)]
    stream_timeout_secs: Option<u32>,
    /// Sent as `metadata` with every request.
    #[prop(optional)]
    metadata: Option<JsonMap>,
    /// `light` (default), `dark`, or `auto` (follows `prefers-color-scheme`).
    #[prop(optional, into)]
    theme: MaybeProp<String>,
    /// Language of the UI strings (`en`, `fr`, `de`, `ar`…); right-to-left ones flip the layout.
    #[prop(optional, into)]
    locale: MaybeProp<String>,
    /// Per-string overrides: `{"send": "Go"}` or per locale `{"fr": {"send": "Vas-y"}}`.
    #[prop(optional)]
    strings: Option<serde_json::Value>,
    /// What an empty conversation says.
    #[prop(optional, into)]
    greeting: MaybeProp<String>,
    /// The composer's placeholder.
    #[prop(optional, into)]
    placeholder: MaybeProp<String>,
    /// Suggestions on the start screen; one click sends its prompt.
    #[prop(optional)]
    starter_prompts: Vec<chat_shell_core::options::StarterPrompt>,
    /// Offer attachments (default true).
    #[prop(optional, into)]
    allow_attachments: MaybeProp<bool>,
    /// Show resize handles (edges, corners, keyboard).
    #[prop(optional, into)]
    resizable: MaybeProp<bool>,
    /// Every `chat.*` event.
    #[prop(optional, into)]
    on_event: Option<Callback<ChatEvent>>,
    /// The user sent a message (its text).
    #[prop(optional, into)]
    on_message_sent: Option<Callback<String>>,
    /// The open thread changed (its id; `None` for a new, empty chat).
    #[prop(optional, into)]
    on_thread_change: Option<Callback<Option<String>>>,
    /// An answer finished (streamed to the end, stopped or failed).
    #[prop(optional, into)]
    on_response_end: Option<Callback<()>>,
    /// Something went wrong (a readable message).
    #[prop(optional, into)]
    on_error: Option<Callback<String>>,
) -> impl IntoView {
    adopt_document_stylesheet();
    let shell = Runtime::create(None);
    let root = NodeRef::<html::Div>::new();
    shell.with(|rt| {
        rt.stall_ms
            .set(stream_timeout_secs.map_or(DEFAULT_STALL_MS, |s| s.saturating_mul(1000)));
        *rt.metadata.borrow_mut() = metadata;
        rt.add_listener(Rc::new(move |name: &str, detail: &serde_json::Value| {
            let text = |key: &str| detail.get(key).and_then(|v| v.as_str()).map(str::to_owned);
            match name {
                "chat.message.sent" => {
                    if let Some(cb) = on_message_sent {
                        cb.run(text("text").unwrap_or_default());
                    }
                }
                "chat.thread.change" => {
                    if let Some(cb) = on_thread_change {
                        cb.run(text("threadId"));
                    }
                }
                "chat.response.end" => {
                    if let Some(cb) = on_response_end {
                        cb.run(());
                    }
                }
                "chat.error" => {
                    if let Some(cb) = on_error {
                        cb.run(text("message").unwrap_or_default());
                    }
                }
                _ => {}
            }
            if let Some(cb) = on_event {
                cb.run(ChatEvent {
                    name: name.to_owned(),
                    detail: detail.clone(),
                });
            }
        }));
    });
    shell.with(|rt| rt.signals.starters.set(starter_prompts));
    Effect::new(move |_| {
        let url = endpoint.get();
        shell.with(|rt| rt.signals.endpoint.set(url));
    });
    Effect::new(move |_| {
        let locale = locale.get().unwrap_or_else(|| "en".to_owned());
        let overrides = strings.clone().unwrap_or_default();
        shell.with(|rt| {
            rt.signals
                .strings
                .set(chat_shell_core::strings::Strings::new(&locale).with_overrides(&overrides));
            rt.signals.locale.set(locale);
        });
    });
    Effect::new(move |_| {
        let (greeting, placeholder) = (greeting.get(), placeholder.get());
        let (attachments, resizable) = (allow_attachments.get(), resizable.get());
        shell.with(|rt| {
            rt.set_option("greeting", greeting.as_deref());
            rt.signals.placeholder.set(placeholder);
            rt.signals
                .allow_attachments
                .set(attachments.unwrap_or(true));
            rt.signals.resizable.set(resizable.unwrap_or(false));
        });
    });
    Effect::new(move |_| {
        let host = root
            .get()
            .map(|el| el.unchecked_into::<web_sys::HtmlElement>());
        shell.with(|rt| rt.set_host(host));
    });
    on_cleanup(move || Runtime::dispose(shell));
    view! {
        <div class="cs-host" node_ref=root data-theme=move || theme.get()>
            <ShellRoot shell=shell />
        </div>
    }
}

/// Outside a shadow root the stylesheet goes to the document (once).
fn adopt_document_stylesheet() {
    let Some(sheet) = crate::element::stylesheet() else {
        return;
    };
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let adopted = js_sys::Array::from(
        &js_sys::Reflect::get(&document, &"adoptedStyleSheets".into()).unwrap_or_default(),
    );
    if !adopted.includes(&sheet, 0) {
        adopted.push(&sheet);
        document.set_adopted_style_sheets(&adopted);
    }
}
