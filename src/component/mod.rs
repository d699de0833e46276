//! The Leptos component for Rust apps: `<ChatShell endpoint="/chatkit" />`, the same chat as
//! the custom element, with typed props and callbacks instead of attributes and DOM events.
//!
//! How it renders follows the crate's Leptos feature:
//! - `csr`: the live chat, mounted where the component is;
//! - `ssr` (natively): the chat's early frame and composer (`ui::frame`), in the server's
//!   HTML;
//! - `hydrate`: that early frame, hydrated as the server rendered it, then the live chat mounted
//!   in its place with what was typed meanwhile (`live::take_over`).
//!
//! Server-rendered pages link the component's stylesheet, [`crate::STYLESHEET`], themselves
//! (the early frame must be styled before any wasm runs); client-rendered ones get it adopted.

#[cfg(target_arch = "wasm32")]
mod live;
mod props;

use crate::client::{RustHandler, RustTool, RustWidget};
pub use chat_shell_core::host_events::ChatEvent;
use chat_shell_core::options::StarterPrompt;
use chat_shell_core::protocol::JsonMap;
use leptos::html;
use leptos::prelude::*;
use props::Chat;

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
    let chat = Chat {
        endpoint,
        stream_timeout_secs,
        metadata,
        locale,
        strings,
        greeting,
        placeholder,
        starter_prompts,
        allow_attachments,
        resizable,
        session_controls,
        client_tools,
        client_widgets,
        client_actions,
        effects,
        on_event,
        on_message_sent,
        on_thread_change,
        on_response_end,
        on_error,
    };
    render(chat, theme)
}

/// The live chat, mounted at once (`csr`).
#[cfg(all(target_arch = "wasm32", not(feature = "hydrate")))]
fn render(chat: Chat, theme: MaybeProp<String>) -> impl IntoView {
    let root = NodeRef::<html::Div>::new();
    let shell = live::start(chat, root);
    live::adopt_document_stylesheet();
    view! {
        <div class="cs-host" node_ref=root data-theme=move || theme.get()>
            <crate::ui::ShellRoot shell=shell />
        </div>
    }
}

/// The early frame: the server's HTML (`ssr`), or that HTML hydrated and then taken over by the
/// live chat (`hydrate`).
#[cfg(any(not(target_arch = "wasm32"), feature = "hydrate"))]
fn render(chat: Chat, theme: MaybeProp<String>) -> impl IntoView {
    use crate::ui::frame::frame;
    let root = NodeRef::<html::Div>::new();
    let text = chat.frame_text();
    #[cfg(target_arch = "wasm32")]
    live::take_over(chat, root);
    #[cfg(not(target_arch = "wasm32"))]
    let _ = (chat, &root);
    view! {
        <div class="cs-host" node_ref=root data-theme=move || theme.get()>
            {frame(text)}
        </div>
    }
}
