//! The early frame, the chat before its runtime starts: header, greeting, starter prompts and a
//! real composer, with the same markup and classes as the live views (`shell`, `header`,
//! `conversation/viewport`, `composer`), so the live chat replaces it without anything
//! moving. A server-rendered app's server renders it (`ChatShell` with `ssr`) and its
//! browser build hydrates it; `src/chat-shell.js` draws the same frame for the custom
//! element before the wasm arrives. What only the live chat can do (the header's actions,
//! the starter prompts, attachments) is there, inert, until it starts; typing works at
//! once, and the live chat takes the draft over (`crate::element::take_early`).

// A client-rendered build (`csr`) never renders the frame: its `ChatShell` mounts the live
// chat at once, and the element's frame is drawn by src/chat-shell.js.
#![cfg_attr(
    all(target_arch = "wasm32", not(feature = "hydrate")),
    allow(dead_code)
)]

use super::glyphs::{glyph, Glyph};
use chat_shell_core::options::StarterPrompt;
use chat_shell_core::strings::{Strings, Text};
use leptos::prelude::*;

/// What the frame says: the chat's props that show before it starts.
pub(crate) struct FrameText {
    pub strings: Strings,
    pub greeting: Option<String>,
    pub placeholder: Option<String>,
    pub starter_prompts: Vec<StarterPrompt>,
    pub attachments: bool,
}

/// The frame, marked `data-early` (the live chat takes over the element carrying it).
pub(crate) fn frame(text: FrameText) -> AnyView {
    let t = text.strings;
    let label = |key: Text| t.get(key).to_owned();
    let action = |key: Text, icon: Glyph, with_label: bool, class: &'static str| {
        let name = label(key);
        let shown =
            with_label.then(|| view! { <span class="cs-button__label">{name.clone()}</span> });
        view! {
            <button type="button" class=class aria-label=name.clone() title=name>
                {glyph(icon)}
                {shown}
            </button>
        }
    };
    let menu = |key: Text, icon: Glyph, class: &'static str| {
        view! { <span class=class>{action(key, icon, false, "cs-button cs-button--ghost")}</span> }
    };
    let titles: Vec<String> = text
        .starter_prompts
        .into_iter()
        .map(|p| {
            if p.title.is_empty() {
                p.prompt
            } else {
                p.title
            }
        })
        .filter(|title| !title.is_empty())
        .collect();
    // Each part is an `AnyView`: the whole frame as one type is too deep for the compiler
    // to lay out its server rendering.
    let prompts = (!titles.is_empty()).then(|| {
        view! {
            <ul class="cs-start__prompts" aria-label=label(Text::Suggestions) inert="">
                {titles
                    .into_iter()
                    .map(|title| {
                        view! {
                            <li>
                                <button type="button" class="cs-start__prompt">
                                    <span class="cs-start__icon"></span>
                                    <span class="cs-start__title">{title}</span>
                                </button>
                            </li>
                        }
                    })
                    .collect_view()}
            </ul>
        }
    });
    let rtl = (t.direction() == "rtl").then_some("rtl");
    let greeting = text.greeting.unwrap_or_else(|| label(Text::Greeting));
    let placeholder = text
        .placeholder
        .unwrap_or_else(|| label(Text::ComposerPlaceholder));
    let header = view! {
        <header class="cs-header" part="header">
            <h2 class="cs-header__title" data-part="thread-title">{label(Text::NewChat)}</h2>
            <div class="cs-header__actions" inert="">
                {action(Text::FindInConversation, Glyph::Search, false, "cs-button cs-button--ghost cs-header__wide")}
                {menu(Text::Export, Glyph::Download, "cs-header__menu cs-header__wide")}
                {action(Text::NewChat, Glyph::Plus, true, "cs-button cs-button--ghost")}
                {action(Text::History, Glyph::History, true, "cs-button cs-button--ghost")}
                {menu(Text::More, Glyph::More, "cs-header__menu cs-header__narrow")}
            </div>
        </header>
    }
    .into_any();
    let dock = view! {
        <div class="cs-dock" part="composer">
            <form class="cs-composer" data-part="composer">
                <p class="cs-composer__blocked" data-part="connecting" role="status" hidden=""></p>
                <button
                    type="button"
                    class="cs-button cs-button--ghost cs-composer__attach"
                    aria-label=label(Text::AddAttachment)
                    title=label(Text::AddAttachment)
                    inert=""
                    hidden=!text.attachments
                >
                    <span class="cs-composer__plus">{glyph(Glyph::Plus)}</span>
                </button>
                <textarea
                    class="cs-composer__input"
                    rows="1"
                    aria-label=label(Text::ComposerLabel)
                    placeholder=placeholder
                ></textarea>
                <button type="submit" class="cs-button cs-button--primary" disabled="">
                    {label(Text::Send)}
                </button>
            </form>
        </div>
    }
    .into_any();
    let conversation = view! {
        <div class="cs-conversation">
            <div class="cs-viewport" part="viewport">
                <div class="cs-viewport__content">
                    <div class="cs-start" data-part="start-screen">
                        <p class="cs-start__greeting">{greeting}</p>
                        {prompts}
                    </div>
                </div>
            </div>
        </div>
    }
    .into_any();
    view! {
        <div class="cs-root" data-early="">
            <div class="cs-shell" part="shell" lang=t.locale().to_owned() dir=rtl>
                {header}
                <div class="cs-body" part="body">
                    {conversation}
                    {dock}
                </div>
            </div>
        </div>
    }
    .into_any()
}
