//! The Leptos component for Rust apps: `<ChatShell endpoint="/chatkit" />`, the same chat as
//! the custom element, with typed props and callbacks instead of attributes and DOM events.

use crate::runtime::{
    ClientTool, ClientWidgetRenderer, Handler, Runtime, RustHandler, RustTool, RustWidget,
};
use crate::ui::ShellRoot;
pub use chat_shell_core::host_events::ChatEvent;
use chat_shell_core::options::{Setting, StarterPrompt};
use chat_shell_core::protocol::JsonMap;
use leptos::html;
use leptos::prelude::*;
use std::rc::Rc;
use wasm_bindgen::JsCast;

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
    /// `light`, `dark`, or `auto` (the default: follows `prefers-color-scheme`).
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
    starter_prompts: Vec<StarterPrompt>,
    /// Offer attachments (default true).
    #[prop(optional, into)]
    allow_attachments: MaybeProp<bool>,
    /// Show resize handles (edges, corners, keyboard).
    #[prop(optional, into)]
    resizable: MaybeProp<bool>,
    /// Ask for the agent session's controls (Mode, Model, …) before a new chat's first
    /// message (an ACP runtime; see the README).
    #[prop(optional, into)]
    session_controls: MaybeProp<bool>,
    /// Client tools in Rust, by name: called with the tool call's arguments, their result
    /// (or error message) goes back to the server.
    #[prop(optional)]
    client_tools: Vec<(String, RustTool)>,
    /// Client widgets in Rust, by name: render a `client_widget` item.
    #[prop(optional)]
    client_widgets: Vec<(String, RustWidget)>,
    /// Handlers of client-side widget actions, by action type: `(action, context)`.
    #[prop(optional)]
    client_actions: Vec<(String, RustHandler)>,
    /// Handlers of `client_effect`s, by name: `(data, name)`.
    #[prop(optional)]
    effects: Vec<(String, RustHandler)>,
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
        rt.apply_settings([
            Setting::StreamTimeout(stream_timeout_secs.map(f64::from)),
            Setting::Metadata(metadata),
            Setting::StarterPrompts(starter_prompts),
            Setting::Strings(strings.unwrap_or_default()),
        ]);
        for (name, tool) in client_tools {
            rt.register_client_tool(&name, Some(ClientTool::Rust(tool)));
        }
        for (name, widget) in client_widgets {
            rt.register_client_widget(&name, Some(ClientWidgetRenderer::Rust(widget)));
        }
        for (name, handler) in client_actions {
            rt.register_client_action(&name, Some(Handler::Rust(handler)));
        }
        for (name, handler) in effects {
            rt.register_effect(&name, Some(Handler::Rust(handler)));
        }
        rt.add_listener(Rc::new(move |event: &ChatEvent| {
            match event {
                ChatEvent::MessageSent { text, .. } => {
                    if let Some(cb) = on_message_sent {
                        cb.run(text.clone());
                    }
                }
                ChatEvent::ThreadChange { thread_id } => {
                    if let Some(cb) = on_thread_change {
                        cb.run(thread_id.as_ref().map(|t| t.0.clone()));
                    }
                }
                ChatEvent::ResponseEnd => {
                    if let Some(cb) = on_response_end {
                        cb.run(());
                    }
                }
                ChatEvent::Error(error) => {
                    if let Some(cb) = on_error {
                        cb.run(error.message.clone());
                    }
                }
                _ => {}
            }
            if let Some(cb) = on_event {
                cb.run(event.clone());
            }
        }));
    });
    // Reactive props: each change is one more setting, as an attribute change would be.
    Effect::new(move |_| {
        let settings = [
            Setting::Endpoint(Some(endpoint.get())),
            Setting::Locale(locale.get()),
            Setting::Greeting(greeting.get()),
            Setting::Placeholder(placeholder.get()),
            Setting::AttachmentsEnabled(allow_attachments.get()),
            Setting::Resizable(resizable.get()),
            Setting::SessionControls(session_controls.get()),
        ];
        shell.with(|rt| rt.apply_settings(settings));
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
