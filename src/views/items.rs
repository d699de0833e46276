//! One view per item kind, chosen by the item's kind tag; widgets, client widgets, client
//! tool calls and structured input live in `widgets`. A kind this client does not know
//! shows an honest "unsupported content" card.

use super::message::{AssistantMessageView, UserMessageView};
use super::widgets::{ClientWidgetView, StructuredInputView, ToolCallView, WidgetView};
use crate::markdown;
use crate::protocol::{ItemId, ItemKind, StatusIndicator, Task};
use crate::reducer::ItemStatus;
use crate::runtime::{ItemKey, Shell};
use leptos::prelude::*;

#[component]
pub fn ItemView(shell: Shell, key: ItemKey) -> impl IntoView {
    let id = key.id;
    match key.kind {
        "user_message" => view! { <UserMessageView shell=shell id=id /> }.into_any(),
        "assistant_message" => view! { <AssistantMessageView shell=shell id=id /> }.into_any(),
        "task" | "workflow" => view! { <ProcessView shell=shell id=id /> }.into_any(),
        "generated_image" => view! { <GeneratedImageView shell=shell id=id /> }.into_any(),
        "widget" => view! { <WidgetView shell=shell id=id /> }.into_any(),
        "client_widget" => view! { <ClientWidgetView shell=shell id=id /> }.into_any(),
        "client_tool_call" => view! { <ToolCallView shell=shell id=id /> }.into_any(),
        "structured_input" => view! { <StructuredInputView shell=shell id=id /> }.into_any(),
        // Closes a turn; nothing to see.
        "end_of_turn" => ().into_any(),
        _ => view! { <UnsupportedView shell=shell id=id /> }.into_any(),
    }
}

/// A task or a workflow (a group of tasks).
#[component]
fn ProcessView(shell: Shell, id: ItemId) -> impl IntoView {
    let rev = shell.with(|rt| rt.item_rev(&id));
    let snapshot = Memo::new(move |_| {
        if let Some(rev) = rev {
            rev.track();
        }
        shell
            .with(|rt| rt.with_item(&id, |i| (i.item.kind.clone(), i.status)))
            .flatten()
    });
    move || {
        let (kind, status) = snapshot.get()?;
        Some(match kind {
            ItemKind::Task(t) => task_view(&t.task, status == ItemStatus::Streaming).into_any(),
            ItemKind::Workflow(w) => {
                let running = status == ItemStatus::Streaming;
                let title = match &w.workflow.summary {
                    Some(crate::protocol::WorkflowSummary::Title { title, .. }) => title.clone(),
                    Some(crate::protocol::WorkflowSummary::Duration { duration }) => {
                        format!("Worked for {}s", duration.round() as i64)
                    }
                    None if running => "Working…".to_owned(),
                    None => "Worked".to_owned(),
                };
                let tasks = w
                    .workflow
                    .tasks
                    .iter()
                    .map(|t| task_view(t, false))
                    .collect_view();
                view! {
                    <details class="cs-workflow" data-part="workflow" open=running || w.workflow.expanded>
                        <summary class="cs-workflow__summary">{title}</summary>
                        <div class="cs-workflow__tasks">{tasks}</div>
                    </details>
                }
                .into_any()
            }
            _ => ().into_any(),
        })
    }
}

fn task_view(task: &Task, newest: bool) -> impl IntoView {
    let title = task.title().unwrap_or("Working").to_owned();
    let status = match task.status_indicator {
        StatusIndicator::None => "none",
        StatusIndicator::Loading => "loading",
        StatusIndicator::Complete => "complete",
    };
    let content = match &task.kind {
        crate::protocol::TaskKind::Custom(c) => c.content.clone(),
        crate::protocol::TaskKind::Thought(t) => Some(t.content.clone()),
        _ => None,
    }
    .filter(|c| !c.trim().is_empty())
    .map(|c| markdown::render(&c));
    view! {
        <div class="cs-task" data-part="task" data-status=status class:cs-shimmer=newest>
            {match content {
                Some(html) => view! {
                    <details class="cs-task__details">
                        <summary class="cs-task__title">{title}</summary>
                        <div class="cs-md" inner_html=html.into_string()></div>
                    </details>
                }
                .into_any(),
                None => view! { <div class="cs-task__title">{title}</div> }.into_any(),
            }}
        </div>
    }
}

/// Content this version cannot show yet: said plainly, never dropped silently.
#[component]
fn UnsupportedView(shell: Shell, id: ItemId) -> impl IntoView {
    let kind = shell
        .with(|rt| {
            rt.with_item(&id, |i| match &i.item.kind {
                ItemKind::Other(u) => u.type_name().to_owned(),
                other => crate::runtime::kind_tag(other).to_owned(),
            })
        })
        .flatten()
        .unwrap_or_default();
    view! {
        <div class="cs-unsupported" data-part="unsupported" role="note">
            "Unsupported content" {(!kind.is_empty()).then(|| format!(" ({kind})"))}
        </div>
    }
}

/// An image being generated: a progress bar until there is an image, then the image.
#[component]
fn GeneratedImageView(shell: Shell, id: ItemId) -> impl IntoView {
    let rev = shell.with(|rt| rt.item_rev(&id));
    let snapshot = Memo::new(move |_| {
        if let Some(rev) = rev {
            rev.track();
        }
        shell
            .with(|rt| {
                rt.with_item(&id, |i| match &i.item.kind {
                    ItemKind::GeneratedImage(g) => (
                        g.image
                            .as_ref()
                            .and_then(|img| markdown::safe_image_url(&img.url)),
                        i.progress,
                        i.status,
                    ),
                    _ => (None, None, i.status),
                })
            })
            .flatten()
    });
    move || {
        let (src, progress, status) = snapshot.get()?;
        let done = status != ItemStatus::Streaming;
        let percent = progress.map(|p| (p.clamp(0.0, 1.0) * 100.0).round() as u32);
        Some(view! {
            <figure class="cs-image" data-part="generated-image" aria-busy=(!done).to_string()>
                {src.map(|src| view! { <img src=src alt="Generated image" /> })}
                {(!done).then(|| view! {
                    <div
                        class="cs-image__progress"
                        role="progressbar"
                        aria-label="Generating image"
                        aria-valuemin="0"
                        aria-valuemax="100"
                        aria-valuenow=percent.map(|p| p.to_string())
                    >
                        <div class="cs-image__bar" style:width=format!("{}%", percent.unwrap_or(10))></div>
                    </div>
                })}
            </figure>
        })
    }
}
