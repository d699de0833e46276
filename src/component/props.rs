//! `ChatShell`'s props as one value, handed to what renders it (`live`, or the frame).

use crate::client::{RustHandler, RustTool, RustWidget};
use chat_shell_core::host_events::ChatEvent;
use chat_shell_core::options::StarterPrompt;
use chat_shell_core::protocol::JsonMap;
use leptos::prelude::*;

/// The component's props, minus the theme (the host's attribute). Natively only the frame's
/// are read.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub(super) struct Chat {
    pub(super) endpoint: Signal<String>,
    pub(super) stream_timeout_secs: Option<u32>,
    pub(super) metadata: Option<JsonMap>,
    pub(super) locale: MaybeProp<String>,
    pub(super) strings: Option<serde_json::Value>,
    pub(super) greeting: MaybeProp<String>,
    pub(super) placeholder: MaybeProp<String>,
    pub(super) starter_prompts: Vec<StarterPrompt>,
    pub(super) allow_attachments: MaybeProp<bool>,
    pub(super) resizable: MaybeProp<bool>,
    pub(super) session_controls: MaybeProp<bool>,
    pub(super) client_tools: Vec<(String, RustTool)>,
    pub(super) client_widgets: Vec<(String, RustWidget)>,
    pub(super) client_actions: Vec<(String, RustHandler)>,
    pub(super) effects: Vec<(String, RustHandler)>,
    pub(super) on_event: Option<Callback<ChatEvent>>,
    pub(super) on_message_sent: Option<Callback<String>>,
    pub(super) on_thread_change: Option<Callback<Option<String>>>,
    pub(super) on_response_end: Option<Callback<()>>,
    pub(super) on_error: Option<Callback<String>>,
}

impl Chat {
    /// What the frame shows: the props as they are when it renders (the live chat follows
    /// their changes).
    #[cfg(any(not(target_arch = "wasm32"), feature = "hydrate"))]
    pub(super) fn frame_text(&self) -> crate::ui::frame::FrameText {
        use chat_shell_core::strings::Strings;
        let locale = self.locale.get_untracked().unwrap_or_else(|| "en".into());
        let strings =
            Strings::new(&locale).with_overrides(&self.strings.clone().unwrap_or_default());
        crate::ui::frame::FrameText {
            strings,
            greeting: self.greeting.get_untracked(),
            placeholder: self.placeholder.get_untracked(),
            starter_prompts: self.starter_prompts.clone(),
            attachments: self.allow_attachments.get_untracked().unwrap_or(true),
        }
    }
}
