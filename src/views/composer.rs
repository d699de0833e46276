//! ComposerDock: the attachment tray and the composer (textarea + Send/Stop).

use crate::runtime::Shell;
use leptos::html;
use leptos::prelude::*;

/// The composer grows with its text up to this height (px), then scrolls.
const MAX_HEIGHT_PX: i32 = 200;

#[component]
pub fn ComposerDock(shell: Shell) -> impl IntoView {
    view! {
        <div class="cs-dock" part="composer">
            <AttachmentTray />
            <Composer shell=shell />
        </div>
    }
}

/// Files waiting to be sent with the next message (filled by the attachments work).
#[component]
fn AttachmentTray() -> impl IntoView {
    view! { <ul class="cs-tray" part="attachment-tray" aria-label="Attachments" hidden=true></ul> }
}

#[component]
fn Composer(shell: Shell) -> impl IntoView {
    let signals = shell.signals().expect("runtime exists while mounted");
    let textarea = NodeRef::<html::Textarea>::new();
    let blocked = move || {
        signals.thread.with(|t| {
            t.as_ref().and_then(|t| {
                t.status
                    .blocked_reason()
                    .map(|r| r.unwrap_or("").to_owned())
            })
        })
    };
    let send = move || {
        let text = signals.draft.get_untracked();
        let sent = shell
            .with(|rt| rt.send_message(text, false))
            .unwrap_or(false);
        if sent {
            signals.draft.set(String::new());
        }
    };
    let grow = move || {
        if let Some(t) = textarea.get_untracked() {
            let style = wasm_bindgen::JsCast::unchecked_ref::<web_sys::HtmlElement>(&t).style();
            let _ = style.set_property("height", "auto");
            let _ = style.set_property(
                "height",
                &format!("{}px", t.scroll_height().min(MAX_HEIGHT_PX)),
            );
        }
    };
    let on_keydown = move |ev: web_sys::KeyboardEvent| {
        // Enter sends; Shift+Enter is a newline; composing (IME) text is never sent.
        if ev.key() == "Enter" && !ev.shift_key() && !ev.is_composing() && ev.key_code() != 229 {
            ev.prevent_default();
            if signals.streaming.get_untracked().is_none() {
                send();
            }
        }
    };
    let streaming = move || signals.streaming.get().is_some();
    let can_stop = move || signals.streaming.get() == Some(true);
    view! {
        <form
            class="cs-composer"
            data-part="composer"
            on:submit=move |ev| {
                ev.prevent_default();
                send();
            }
        >
            {move || blocked().map(|reason| {
                let text = if reason.is_empty() { "This conversation is closed.".to_owned() } else { reason };
                view! { <p class="cs-composer__blocked" data-part="composer-blocked" role="status">{text}</p> }
            })}
            <textarea
                class="cs-composer__input"
                node_ref=textarea
                rows="1"
                aria-label="Message"
                placeholder="Message the assistant"
                prop:value=move || signals.draft.get()
                disabled=move || blocked().is_some()
                on:input=move |ev| {
                    signals.draft.set(event_target_value(&ev));
                    grow();
                }
                on:keydown=on_keydown
            ></textarea>
            <Show
                when=can_stop
                fallback=move || view! {
                    <button
                        type="submit"
                        class="cs-button cs-button--primary"
                        disabled=move || streaming() || blocked().is_some() || signals.draft.with(|d| d.trim().is_empty())
                    >
                        "Send"
                    </button>
                }
            >
                <button
                    type="button"
                    class="cs-button cs-button--primary"
                    on:click=move |_| {
                        shell.with(|rt| rt.stop());
                    }
                >
                    "Stop"
                </button>
            </Show>
        </form>
    }
}
