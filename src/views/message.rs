//! User and assistant messages, each an `article` with `data-role`.

use super::markdown::{handle_code_copy, MarkdownDom};
use crate::protocol::{ItemId, ItemKind};
use crate::reducer::ItemStatus;
use crate::runtime::Shell;
use leptos::html;
use leptos::prelude::*;

#[component]
pub fn UserMessageView(shell: Shell, id: ItemId) -> impl IntoView {
    let rev = shell.with(|rt| rt.item_rev(&id));
    let item_id = id.clone();
    let content = Memo::new(move |_| {
        if let Some(rev) = rev {
            rev.track();
        }
        shell
            .with(|rt| {
                rt.with_item(&item_id, |i| match &i.item.kind {
                    ItemKind::UserMessage(m) => (
                        m.text(),
                        m.attachments
                            .iter()
                            .map(|a| a.name.clone())
                            .collect::<Vec<_>>(),
                    ),
                    _ => (String::new(), Vec::new()),
                })
            })
            .flatten()
            .unwrap_or_default()
    });
    view! {
        <article class="cs-msg cs-msg--user" data-role="user" part="message" aria-label="You said">
            <div class="cs-msg__bubble">{move || content.with(|c| c.0.clone())}</div>
            <ul class="cs-msg__attachments" aria-label="Attachments">
                {move || {
                    content
                        .with(|c| c.1.clone())
                        .into_iter()
                        .map(|name| view! { <li class="cs-badge">{name}</li> })
                        .collect_view()
                }}
            </ul>
        </article>
    }
}

#[component]
pub fn AssistantMessageView(shell: Shell, id: ItemId) -> impl IntoView {
    let rev = shell.with(|rt| rt.item_rev(&id));
    let body = NodeRef::<html::Div>::new();
    let status_id = id.clone();
    let status = Memo::new(move |_| {
        if let Some(rev) = rev {
            rev.track();
        }
        shell
            .with(|rt| rt.with_item(&status_id, |i| i.status))
            .flatten()
            .unwrap_or(ItemStatus::Done)
    });
    // One markdown renderer per content part, fed only what is new each frame.
    let mut parts: Vec<MarkdownDom> = Vec::new();
    Effect::new(move |_| {
        if let Some(rev) = rev {
            rev.track();
        }
        let Some(container) = body.get() else { return };
        shell.with(|rt| {
            rt.with_item(&id, |item| {
                let ItemKind::AssistantMessage(m) = &item.item.kind else {
                    return;
                };
                let streaming = item.status == ItemStatus::Streaming;
                for (i, part) in m.content.iter().enumerate() {
                    if i == parts.len() {
                        let Some(document) = container.owner_document() else {
                            return;
                        };
                        let Ok(el) = document.create_element("div") else {
                            return;
                        };
                        el.set_class_name("cs-md");
                        let _ = container.append_child(&el);
                        let Some(dom) = MarkdownDom::new(wasm_bindgen::JsCast::unchecked_into(el))
                        else {
                            return;
                        };
                        parts.push(dom);
                    }
                    parts[i].sync(&part.text, streaming);
                }
            });
        });
    });
    let label = move || match status.get() {
        ItemStatus::Streaming => "Assistant is answering",
        ItemStatus::Stopped => "Assistant's answer (stopped)",
        ItemStatus::Failed => "Assistant's answer (incomplete)",
        ItemStatus::Done => "Assistant said",
    };
    view! {
        <article
            class="cs-msg cs-msg--assistant"
            data-role="assistant"
            part="message"
            aria-label=label
            aria-busy=move || (status.get() == ItemStatus::Streaming).to_string()
            class:cs-msg--streaming=move || status.get() == ItemStatus::Streaming
            data-status=move || format!("{:?}", status.get()).to_lowercase()
        >
            <div class="cs-msg__body" node_ref=body on:click=move |ev| handle_code_copy(&ev)></div>
            {move || {
                (status.get() == ItemStatus::Stopped)
                    .then(|| view! { <p class="cs-msg__note" data-part="stopped">"Stopped"</p> })
            }}
        </article>
    }
}
