//! Tasks and workflows (groups of tasks): what the agent is doing, with its sources and
//! search queries, a workflow open while it runs and archived into its summary once done.

use crate::runtime::Shell;
use crate::ui::icons::icon;
use crate::ui::strings;
use crate::ui::{item_memo, use_shell};
use chat_shell_core::markdown;
use chat_shell_core::model::EntryKind;
use chat_shell_core::protocol::chatkit::{
    ItemId, Source, SourceKind, StatusIndicator, Task, TaskKind, WorkflowKind, WorkflowSummary,
};
use chat_shell_core::reducer::ItemStatus;
use chat_shell_core::strings::Text;
use leptos::prelude::*;

/// A task or a workflow (a group of tasks). The workflow's `<details>` stays the same
/// element across updates: open while it runs, closed once done (the running process is
/// visible, the finished one archived into its summary), and toggled freely by the reader.
#[component]
pub(crate) fn TasksView(id: ItemId) -> impl IntoView {
    let shell = use_shell();
    let signals = shell.signals().expect("runtime exists while mounted");
    let snapshot = item_memo(shell, id.clone(), |i| {
        Some((i.entry.kind.clone(), i.status))
    });
    // Shimmer only while this is the newest thing in a thread that is still answering.
    let newest = Memo::new(move |_| {
        signals.streaming.get().is_some()
            && signals.order.with(|o| o.last().is_some_and(|k| k.id == id))
    });
    let is_workflow = snapshot.with_untracked(|s| matches!(s, Some((EntryKind::Workflow(_), _))));
    if !is_workflow {
        return (move || {
            let (kind, _) = snapshot.get()?;
            let EntryKind::Task(t) = kind else {
                return None;
            };
            Some(task_view(shell, &t.task, newest.get()))
        })
        .into_any();
    }
    let running =
        Memo::new(move |_| snapshot.with(|s| matches!(s, Some((_, ItemStatus::Streaming)))));
    let open = RwSignal::new(
        running.get_untracked()
            || snapshot.with_untracked(
                |s| matches!(s, Some((EntryKind::Workflow(w), _)) if w.workflow.expanded),
            ),
    );
    // Running → done: archive (collapse) it, once.
    Effect::new(move |was_running: Option<bool>| {
        let now = running.get();
        if was_running == Some(true) && !now {
            open.set(false);
        } else if now {
            open.set(true);
        }
        now
    });
    let summary = move || {
        let strings = strings(shell);
        snapshot.with(|s| {
            let Some((EntryKind::Workflow(w), status)) = s else {
                return (String::new(), None);
            };
            let reasoning = w.workflow.kind == WorkflowKind::Reasoning;
            // (reasoning, other work)
            let pick = |(thought, worked): (Text, Text)| if reasoning { thought } else { worked };
            match &w.workflow.summary {
                Some(WorkflowSummary::Title { title, icon }) => (title.clone(), icon.clone()),
                Some(WorkflowSummary::Duration { duration }) => {
                    let seconds = (duration.round().max(0.0) as i64).to_string();
                    (
                        strings.format(
                            pick((Text::ThoughtFor, Text::WorkedFor)),
                            &[("seconds", &seconds)],
                        ),
                        None,
                    )
                }
                None if *status == ItemStatus::Streaming => (
                    strings
                        .get(pick((Text::Thinking, Text::Working)))
                        .to_owned(),
                    None,
                ),
                None => (
                    strings.get(pick((Text::Thought, Text::Worked))).to_owned(),
                    None,
                ),
            }
        })
    };
    let tasks = move || {
        snapshot.with(|s| match s {
            Some((EntryKind::Workflow(w), _)) => {
                let last = w.workflow.tasks.len().saturating_sub(1);
                w.workflow
                    .tasks
                    .iter()
                    .enumerate()
                    .map(|(i, t)| task_view(shell, t, i == last && running.get()))
                    .collect_view()
                    .into_any()
            }
            _ => ().into_any(),
        })
    };
    view! {
        <details
            class="cs-workflow"
            data-part="workflow"
            data-running=move || running.get().to_string()
            prop:open=move || open.get()
            on:toggle=move |ev| {
                let el: web_sys::HtmlDetailsElement = wasm_bindgen::JsCast::unchecked_into(event_target::<web_sys::HtmlElement>(&ev));
                open.set(el.open());
            }
        >
            <summary class="cs-workflow__summary" class:cs-shimmer=move || newest.get()>
                {move || summary().1.map(|i| icon(&i, Some("sm"), None))}
                <span>{move || summary().0}</span>
            </summary>
            <div class="cs-workflow__tasks">{tasks}</div>
        </details>
    }
    .into_any()
}

/// The icon a task shows when the server names none.
fn default_icon(kind: &TaskKind) -> &'static str {
    match kind {
        TaskKind::WebSearch(_) => "globe",
        TaskKind::Thought(_) => "lightbulb",
        TaskKind::File(_) => "document",
        TaskKind::Image(_) => "images",
        TaskKind::Custom(_) | TaskKind::Other(_) => "dot",
    }
}

fn task_view(shell: Shell, task: &Task, newest: bool) -> AnyView {
    let strings = strings(shell);
    let title = task
        .title()
        .unwrap_or(strings.get(Text::TaskUntitled))
        .to_owned();
    let status = match task.status_indicator {
        StatusIndicator::None => "none",
        StatusIndicator::Loading => "loading",
        StatusIndicator::Complete => "complete",
    };
    let icon_name = match &task.kind {
        TaskKind::Custom(c) => c.icon.clone(),
        _ => None,
    }
    .unwrap_or_else(|| default_icon(&task.kind).to_owned());
    let content = match &task.kind {
        TaskKind::Custom(c) => c.content.clone(),
        TaskKind::Thought(t) => Some(t.content.clone()),
        _ => None,
    }
    .filter(|c| !c.trim().is_empty());
    // Search queries and the sources a search or file task found.
    let (queries, sources) = match &task.kind {
        TaskKind::WebSearch(w) => (w.queries.clone(), w.sources.clone()),
        TaskKind::File(f) => (Vec::new(), f.sources.clone()),
        _ => (Vec::new(), Vec::new()),
    };
    let extra = (!queries.is_empty() || !sources.is_empty()).then(|| {
        let queries = queries
            .into_iter()
            .map(|q| view! { <li class="cs-task__query">{q}</li> })
            .collect_view();
        let sources = sources.into_iter().map(source_view).collect_view();
        view! {
            <ul class="cs-task__queries" aria-label=strings.get(Text::Searches).to_owned()>{queries}</ul>
            <ul class="cs-task__sources" aria-label=strings.get(Text::SourcesFound).to_owned()>{sources}</ul>
        }
    });
    let status_label = match task.status_indicator {
        StatusIndicator::None => None,
        StatusIndicator::Loading => Some(strings.get(Text::TaskInProgress).to_owned()),
        StatusIndicator::Complete => Some(strings.get(Text::TaskComplete).to_owned()),
    };
    let has_details = content.is_some() || extra.is_some();
    let head = view! {
        <span class="cs-task__icon">{icon(&icon_name, Some("sm"), None)}</span>
        <span class="cs-task__label" class:cs-shimmer=newest>{title}</span>
        <span class="cs-task__status" data-part="task-status" aria-label=status_label></span>
    };
    view! {
        <div class="cs-task" data-part="task" data-status=status data-newest=newest.to_string()>
            {if has_details {
                view! {
                    <details class="cs-task__details">
                        <summary class="cs-task__title">{head}</summary>
                        {content.map(|c| {
                            let strings = strings.clone();
                            view! { <div class="cs-md" inner_html=move || crate::ui::markdown::render(&c, &strings)></div> }
                        })}
                        {extra}
                    </details>
                }
                .into_any()
            } else {
                view! { <div class="cs-task__title">{head}</div> }.into_any()
            }}
        </div>
    }
    .into_any()
}

/// One source a task found: a safe link, or its title.
fn source_view(source: Source) -> impl IntoView {
    let title = if source.title.trim().is_empty() {
        None
    } else {
        Some(source.title.clone())
    };
    match &source.kind {
        SourceKind::Url(u) => match markdown::safe_url(&u.url) {
            Some(href) => {
                let label = title.unwrap_or_else(|| u.url.clone());
                view! { <li><a href=href target="_blank" rel="noopener noreferrer nofollow">{label}</a></li> }.into_any()
            }
            None => view! { <li>{title.unwrap_or_default()}</li> }.into_any(),
        },
        SourceKind::File(f) => {
            view! { <li>{title.unwrap_or_else(|| f.filename.clone())}</li> }.into_any()
        }
        SourceKind::Entity(e) => {
            view! { <li>{title.or_else(|| e.label.clone()).unwrap_or_default()}</li> }.into_any()
        }
        SourceKind::Other(_) => view! { <li>{title.unwrap_or_default()}</li> }.into_any(),
    }
}
