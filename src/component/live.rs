//! The live chat behind `ChatShell`: its runtime, given the props and kept in step with
//! them, and (`hydrate`) the take-over of the server-rendered frame.

use super::props::Chat;
use crate::runtime::{ClientTool, ClientWidgetRenderer, Handler, Runtime, Shell};
use chat_shell_core::host_events::ChatEvent;
use chat_shell_core::options::Setting;
use leptos::html;
use leptos::prelude::*;
use std::rc::Rc;
use wasm_bindgen::JsCast;

/// Creates the chat's runtime from `chat`, bound to the host `root` once it is there.
pub(super) fn start(chat: Chat, root: NodeRef<html::Div>) -> Shell {
    let shell = Runtime::create(None);
    shell.with(|rt| {
        rt.apply_settings([
            Setting::StreamTimeout(chat.stream_timeout_secs.map(f64::from)),
            Setting::Metadata(chat.metadata),
            Setting::StarterPrompts(chat.starter_prompts),
            Setting::Strings(chat.strings.unwrap_or_default()),
        ]);
        for (name, tool) in chat.client_tools {
            rt.register_client_tool(&name, Some(ClientTool::Rust(tool)));
        }
        for (name, widget) in chat.client_widgets {
            rt.register_client_widget(&name, Some(ClientWidgetRenderer::Rust(widget)));
        }
        for (name, handler) in chat.client_actions {
            rt.register_client_action(&name, Some(Handler::Rust(handler)));
        }
        for (name, handler) in chat.effects {
            rt.register_effect(&name, Some(Handler::Rust(handler)));
        }
        rt.add_listener(Rc::new(move |event: &ChatEvent| {
            match event {
                ChatEvent::MessageSent { text, .. } => {
                    if let Some(cb) = chat.on_message_sent {
                        cb.run(text.clone());
                    }
                }
                ChatEvent::ThreadChange { thread_id } => {
                    if let Some(cb) = chat.on_thread_change {
                        cb.run(thread_id.as_ref().map(|t| t.0.clone()));
                    }
                }
                ChatEvent::ResponseEnd => {
                    if let Some(cb) = chat.on_response_end {
                        cb.run(());
                    }
                }
                ChatEvent::Error(error) => {
                    if let Some(cb) = chat.on_error {
                        cb.run(error.message.clone());
                    }
                }
                _ => {}
            }
            if let Some(cb) = chat.on_event {
                cb.run(event.clone());
            }
        }));
    });
    // Reactive props: each change is one more setting, as an attribute change would be.
    Effect::new(move |_| {
        let settings = [
            Setting::Endpoint(Some(chat.endpoint.get())),
            Setting::Locale(chat.locale.get()),
            Setting::Greeting(chat.greeting.get()),
            Setting::Placeholder(chat.placeholder.get()),
            Setting::AttachmentsEnabled(chat.allow_attachments.get()),
            Setting::Resizable(chat.resizable.get()),
            Setting::SessionControls(chat.session_controls.get()),
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
    shell
}

/// Once the server's early frame is hydrated (effects run after hydration), mounts the live chat
/// in the host in its place and gives it what was typed in the frame. The frame's nodes
/// stay Leptos's: unmounting the component removes them (already gone) and the live chat.
#[cfg(feature = "hydrate")]
pub(super) fn take_over(chat: Chat, root: NodeRef<html::Div>) {
    use crate::element::{give_early, take_early};
    use crate::ui::ShellRoot;
    let shell = start(chat, root);
    let mounted = StoredValue::new_local(None::<Box<dyn std::any::Any>>);
    Effect::new(move |_| {
        let Some(host) = root.get() else {
            return;
        };
        if mounted.with_value(Option::is_some) {
            return;
        }
        let host: web_sys::HtmlElement = host.unchecked_into();
        let taken = take_early(&host);
        let handle =
            leptos::mount::mount_to(host.clone(), move || view! { <ShellRoot shell=shell /> });
        mounted.set_value(Some(Box::new(handle)));
        if !taken.is_null() {
            give_early(&host, &taken);
        }
    });
    // Dropping the handle unmounts the live chat and disposes of its views' scope.
    on_cleanup(move || mounted.set_value(None));
}

/// Outside a shadow root the stylesheet goes to the document (once).
#[cfg(not(feature = "hydrate"))]
pub(super) fn adopt_document_stylesheet() {
    let Some(sheet) = crate::stylesheet::stylesheet() else {
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
