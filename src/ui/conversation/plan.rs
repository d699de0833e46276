//! An agent's (ACP) plan and thoughts. Every string from the server is shown as text,
//! except the thoughts' markdown, which goes through the one sanitizer.

use crate::ui::{item_memo, use_shell};
use crate::ui::{markdown, strings, tr};
use chat_shell_core::model::EntryKind;
use chat_shell_core::protocol::chatkit::ItemId;
use chat_shell_core::strings::Text;
use leptos::prelude::*;

/// An agent's plan: its entries with their status.
#[component]
pub fn PlanView(id: ItemId) -> impl IntoView {
    let shell = use_shell();
    let entries = item_memo(shell, id.clone(), |i| match &i.entry.kind {
        EntryKind::Plan(p) => p.entries.clone(),
        _ => Vec::new(),
    });
    view! {
        <div class="cs-agent-plan" data-part="plan">
            <p class="cs-agent-plan__title">{tr(shell, Text::AgentPlan)}</p>
            <ol class="cs-agent-plan__entries">
                {move || entries.get().into_iter().map(|e| view! {
                    <li data-status=e.status.as_str().to_owned() data-priority=e.priority.as_str().to_owned()>{e.content}</li>
                }).collect_view()}
            </ol>
        </div>
    }
}

/// An agent's thoughts: collapsed reasoning, never answer text.
#[component]
pub fn ThoughtView(id: ItemId) -> impl IntoView {
    let shell = use_shell();
    let text = item_memo(shell, id.clone(), |i| match &i.entry.kind {
        EntryKind::Thought(t) => t.text.clone(),
        _ => String::new(),
    });
    let html = move || markdown::render(&text.get(), &strings(shell));
    view! {
        <details class="cs-agent-thought" data-part="thought">
            <summary>{tr(shell, Text::AgentThought)}</summary>
            <div class="cs-md" inner_html=html></div>
        </details>
    }
}
