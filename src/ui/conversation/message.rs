//! User and assistant messages, each an `article` with `data-role`.

use crate::ui::markdown::{
    handle_code_copy, now_ms, reduced_motion, CodeLabels, MarkdownDom, Pacer,
};
use crate::ui::tr;
use crate::ui::{item_memo, use_shell};
use chat_shell_core::citations::number_sources;
use chat_shell_core::model::EntryKind;
use chat_shell_core::protocol::chatkit::{Annotation, ItemId};
use chat_shell_core::reducer::ItemStatus;
use chat_shell_core::strings::Text;
use leptos::html;
use leptos::prelude::*;

#[component]
pub fn UserMessageView(id: ItemId) -> impl IntoView {
    let shell = use_shell();
    let item_id = id.clone();
    // Its text in parts: (text, whether it is a mention's title).
    let content = item_memo(shell, item_id, |i| match &i.entry.kind {
        EntryKind::UserMessage(m) => (parts_of(m), m.attachments.clone()),
        _ => (Vec::new(), Vec::new()),
    });
    let bubble = move || {
        content.with(|c| {
            c.0.iter()
                .map(|(text, mention)| {
                    if *mention {
                        view! { <span class="cs-mention" data-part="mention">{format!("@{text}")}</span> }
                            .into_any()
                    } else {
                        text.clone().into_any()
                    }
                })
                .collect_view()
        })
    };
    // Edit and the branches: only where the thread branches, once the server has the
    // message (their code comes in a chunk).
    let editing = RwSignal::new(false);
    let signals = shell.signals().expect("runtime exists while mounted");
    let echoed = item_memo(shell, id.clone(), |i| !i.local);
    let forked = item_memo(shell, id.clone(), |i| i.entry.branch_position().is_some());
    let final_ids = shell.with(|rt| rt.names_messages()).unwrap_or(false);
    let tools = move || {
        let branching = signals
            .thread
            .with(|t| t.as_ref().is_some_and(|t| t.branching));
        // Edit takes no room (it shows beside the bubble); the picker's room is taken at
        // once: its code comes in a chunk, and a message that grew when it arrived would
        // move the reader.
        (branching && (final_ids || echoed.get())).then(|| {
            view! {
                <div class="cs-msg__tools-slot" data-branches=move || forked.get().then_some("")>
                    {crate::chunks::views::user_message_tools(shell, id.clone(), editing)}
                </div>
            }
        })
    };
    view! {
        <article class="cs-msg cs-msg--user" data-role="user" part="message" aria-label=tr(shell, Text::YouSaid)>
            <Show when=move || !editing.get() && content.with(|c| c.0.iter().any(|(t, _)| !t.is_empty()))>
                <div class="cs-msg__bubble">{bubble}</div>
            </Show>
            <super::attachments::SentAttachments
                attachments=Signal::derive(move || content.with(|c| c.1.clone()))
            />
            {tools}
        </article>
    }
}

/// A user message's text parts: its text, and each mention's title (shown as a chip).
fn parts_of(m: &chat_shell_core::protocol::chatkit::UserMessage) -> Vec<(String, bool)> {
    use chat_shell_core::protocol::chatkit::UserContent;
    m.content
        .iter()
        .filter_map(|part| match part {
            UserContent::InputText(t) => Some((t.text.clone(), false)),
            UserContent::InputTag(t) => Some((t.text.clone(), true)),
            UserContent::Other(_) => None,
        })
        .collect()
}

#[component]
pub fn AssistantMessageView(id: ItemId) -> impl IntoView {
    let shell = use_shell();
    let rev = shell.with(|rt| rt.item_rev(&id));
    let body = NodeRef::<html::Div>::new();
    let meta_id = id.clone();
    // Small, slowly changing facts about the message (not its text).
    let meta = Memo::new(move |_| {
        if let Some(rev) = rev {
            rev.track();
        }
        shell
            .with(|rt| {
                rt.with_item(&meta_id, |i| {
                    let annotations: Vec<Annotation> = match &i.entry.kind {
                        EntryKind::AssistantText(m) => m
                            .content
                            .iter()
                            .flat_map(|p| p.annotations.iter().cloned())
                            .collect(),
                        _ => Vec::new(),
                    };
                    (i.status, annotations)
                })
            })
            .flatten()
            .unwrap_or((ItemStatus::Done, Vec::new()))
    });
    // True while the pacer is still revealing text that already arrived: the message
    // shows as streaming until the reader has seen all of it.
    let revealing = RwSignal::new(false);
    let status = Memo::new(move |_| match meta.with(|m| m.0) {
        ItemStatus::Done if revealing.get() => ItemStatus::Streaming,
        other => other,
    });
    let render_id = id.clone();
    // One markdown renderer (and pacer) per content part, fed only what is new each frame.
    let mut parts: Vec<(MarkdownDom, Pacer)> = Vec::new();
    // The runtime's frame tick is followed only while text waits to be revealed, so a
    // finished message costs nothing per frame.
    let tick = shell.signals().map(|s| s.tick);
    Effect::new(move |_| {
        if let Some(rev) = rev {
            rev.track();
        }
        // Rendered again once the markdown renderer has loaded (plain text until then).
        crate::chunks::renderer::ready();
        let Some(container) = body.get() else { return };
        let mut more = false;
        shell.with(|rt| {
            rt.with_item(&render_id, |item| {
                let EntryKind::AssistantText(m) = &item.entry.kind else {
                    return;
                };
                let final_text = item.status != ItemStatus::Streaming;
                for (i, part) in m.content.iter().enumerate() {
                    if i == parts.len() {
                        let labels = rt.signals.strings.with_untracked(CodeLabels::new);
                        let Some(dom) = MarkdownDom::append_to(&container, labels) else {
                            return;
                        };
                        parts.push((dom, Pacer::new(!reduced_motion())));
                    }
                    let (dom, pacer) = &mut parts[i];
                    let before = dom.text_len();
                    let started = now_ms();
                    let (shown, pending) = pacer.next(&part.text, item.status, item.live, started);
                    // Citation markers go in once the text is final and fully shown
                    // (annotations arrive last).
                    if final_text && !pending && part.annotations.iter().any(|a| a.index.is_some())
                    {
                        dom.sync_cited(&part.text, &part.annotations);
                    } else {
                        dom.sync(shown, !final_text || pending);
                        // What this render cost sizes the slices of a backlog.
                        pacer.measured(shown.len().saturating_sub(before), now_ms() - started);
                    }
                    more |= pending;
                }
                // A replacement with fewer parts: the extra ones leave the page.
                for (dom, _) in parts.drain(m.content.len().min(parts.len())..) {
                    dom.remove();
                }
            });
        });
        if revealing.get_untracked() != more {
            revealing.set(more);
        }
        // Subscribed in the run that found text still to reveal (a subscription decided
        // from the previous run would miss an answer that arrived in one piece).
        if let (true, Some(tick)) = (more, tick) {
            tick.track();
            shell.with(|rt| rt.want_frame());
        }
    });
    let label = move || match status.get() {
        ItemStatus::Streaming => tr(shell, Text::AssistantAnswering).get(),
        ItemStatus::Stopped => tr(shell, Text::AnswerStopped).get(),
        ItemStatus::Failed => tr(shell, Text::AnswerIncomplete).get(),
        ItemStatus::Done => tr(shell, Text::AssistantSaid).get(),
    };
    let sources = move || {
        let cited = meta.with(|m| number_sources(&m.1));
        (!cited.is_empty()).then(|| crate::chunks::views::sources(shell, cited))
    };
    let actions_id = id.clone();
    let signals = shell.signals().expect("runtime exists while mounted");
    // One bar per finished turn, in its last answer: none mid-turn, none after each
    // fragment of an agent's or a team's turn. A memo: a new page of older items changes
    // the order, not this answer's turn, and must not rebuild its bar.
    let turn = {
        let id = id.clone();
        Memo::new(move |_| {
            signals.order.track();
            shell
                .with(|rt| rt.with_state(|s| s.turn_answers(&id)))
                .flatten()
        })
    };
    // The agent that owns this bubble in a multi-agent run: its id (or name) as
    // `data-agent`, its name shown as text.
    let agent_id = id.clone();
    let agent = item_memo(shell, agent_id, |i| {
        i.agent.as_ref().map(|a| {
            (
                a.id.clone().unwrap_or_else(|| a.name.clone()),
                a.name.clone(),
            )
        })
    });
    view! {
        <article
            class="cs-msg cs-msg--assistant"
            data-role="assistant"
            data-agent=move || agent.with(|a| a.as_ref().map(|a| a.0.clone()))
            part="message"
            aria-label=label
            aria-busy=move || (status.get() == ItemStatus::Streaming).to_string()
            class:cs-msg--streaming=move || status.get() == ItemStatus::Streaming
            data-status=move || status.get().as_str()
        >
            {move || agent.with(|a| a.as_ref().map(|a| a.1.clone())).map(|name| view! {
                <p class="cs-msg__agent" data-part="agent-name">{name}</p>
            })}
            <div class="cs-msg__body" node_ref=body on:click=move |ev| handle_code_copy(&ev, &shell.with(|rt| rt.text(Text::Copied)).unwrap_or_default())></div>
            {sources}
            {move || {
                (status.get() == ItemStatus::Stopped)
                    .then(|| view! { <p class="cs-msg__note" data-part="stopped">{tr(shell, Text::Stopped)}</p> })
            }}
            {move || {
                let (answers, latest) = turn.get()?;
                let done = status.get() != ItemStatus::Streaming
                    && !(latest && signals.streaming.get().is_some());
                // The bar's room is taken at once: its code comes in a chunk, and an answer
                // that grew when it arrived would move a reader following the end.
                done.then(|| view! {
                    <div class="cs-msg__actions">
                        {crate::chunks::views::message_actions(shell, actions_id.clone(), answers, latest)}
                    </div>
                })
            }}
        </article>
    }
}
