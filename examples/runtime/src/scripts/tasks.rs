//! Scenarios of tasks and workflows: `edit` (a scratch folder's diff view), `progress`,
//! `task`, `workflow`.

use super::texts::word_chunks;
use super::Script;
use crate::sandbox::EditOp;
use chat_shell_core::protocol::chatkit::{
    CustomTask, FileSource, FileTask, ImageTask, ItemKind, ItemUpdate, Source, SourceKind,
    StatusIndicator, Task, TaskItem, TaskKind, ThoughtTask, ThreadItem, UrlSource, WebSearchTask,
    Workflow, WorkflowItem, WorkflowKind, WorkflowSummary, WorkflowTaskEvent,
};
use std::time::Duration;

/// The `edit` scenario: three edits (a change, a new file and a rename, a deletion), each
/// followed by a push of the whole diff as the thread's `diff` view.
pub(super) fn edit(s: &mut Script<'_>) {
    let beat = s.beat();
    if !s.callback {
        s.text(
            "The `edit` tool would change files in a scratch folder and push the diff as this \
             thread's `diff` view, but the tool callback is off: start the runtime with \
             `--callback-token TOKEN` (or `CHAT_SHELL_CALLBACK_TOKEN`). Nothing was pushed.",
        );
        return;
    }
    s.progress(Some("write"), "Editing files in a scratch folder...");
    s.tool(EditOp::Reset);
    s.wait(beat).tool(EditOp::Write {
        path: "src/main.rs".into(),
        content:
            "fn main() {\n    let name = std::env::args().nth(1).unwrap_or(\"world\".into());\n    \
                  println!(\"hello {name}\");\n}\n"
                .into(),
    });
    s.progress(Some("write"), "Edited src/main.rs");
    s.wait(beat).tool(EditOp::Write {
        path: "src/greet.rs".into(),
        content: "/// The greeting.\npub fn greet(name: &str) -> String {\n    format!(\"hello {name}\")\n}\n"
            .into(),
    });
    s.tool(EditOp::Rename {
        from: "README.md".into(),
        to: "docs/README.md".into(),
    });
    s.progress(
        Some("write"),
        "Created src/greet.rs, moved README.md to docs/",
    );
    s.wait(beat).tool(EditOp::Delete {
        path: "notes.txt".into(),
    });
    s.progress(Some("write"), "Deleted notes.txt");
    s.wait(beat).text(
        "Done: the tool changed `src/main.rs`, created `src/greet.rs`, moved `README.md` to \
         `docs/README.md` and deleted `notes.txt`, pushing the whole diff as this thread's \
         `diff` view after each edit.",
    );
}

pub(super) fn progress(s: &mut Script<'_>) {
    let gap = Duration::from_millis(300);
    s.progress(Some("search"), "Searching the knowledge base...");
    s.wait(gap)
        .progress(Some("book-open"), "Reading 3 documents...");
    s.wait(gap)
        .progress(None, "Progress update without an icon...");
    s.wait(gap)
        .progress(Some("sparkle"), "Writing the answer...");
    s.wait(gap);
    s.text("Done - four `progress_update` events preceded this message.");
}

pub(super) fn custom_task(
    status: StatusIndicator,
    title: &str,
    icon: &str,
    content: Option<&str>,
) -> Task {
    Task {
        status_indicator: status,
        kind: TaskKind::Custom(CustomTask {
            title: Some(title.into()),
            icon: Some(icon.into()),
            content: content.map(str::to_owned),
        }),
    }
}

pub(super) fn task(s: &mut Script<'_>) {
    let beat = s.beat();
    let mut first = s.item(
        "tsk",
        ItemKind::Task(TaskItem {
            task: custom_task(
                StatusIndicator::Loading,
                "Fetching records...",
                "search",
                None,
            ),
        }),
    );
    s.added(&first);
    first.kind = ItemKind::Task(TaskItem {
        task: custom_task(
            StatusIndicator::Complete,
            "Found 56 records",
            "check-circle-filled",
            Some("Scanned **3 tables**:\n\n| table | rows |\n|---|---|\n| users | 40 |\n| orders | 16 |\n"),
        ),
    });
    s.wait(beat).done(&first);
    let mut second = s.item(
        "tsk",
        ItemKind::Task(TaskItem {
            task: custom_task(
                StatusIndicator::None,
                "Checking permissions...",
                "keys",
                None,
            ),
        }),
    );
    s.done(&second);
    second.kind = ItemKind::Task(TaskItem {
        task: custom_task(
            StatusIndicator::None,
            "Permissions OK (replaced)",
            "check",
            None,
        ),
    });
    s.wait(beat).replaced(&second);
    s.text("Two task items: the first went added -> done, the second done -> replaced.");
}

pub(super) fn url_source(
    title: &str,
    url: &str,
    attribution: Option<&str>,
    group: Option<&str>,
) -> Source {
    Source {
        title: title.into(),
        description: None,
        timestamp: None,
        group: group.map(str::to_owned),
        kind: SourceKind::Url(UrlSource {
            url: url.into(),
            attribution: attribution.map(str::to_owned),
        }),
    }
}

pub(super) fn file_source(title: &str, filename: &str, description: Option<&str>) -> Source {
    Source {
        title: title.into(),
        description: description.map(str::to_owned),
        timestamp: None,
        group: None,
        kind: SourceKind::File(FileSource {
            filename: filename.into(),
        }),
    }
}

pub(super) fn workflow_item(s: &Script<'_>, workflow: Workflow) -> ThreadItem {
    s.item("wf", ItemKind::Workflow(WorkflowItem { workflow }))
}

pub(super) fn task_update(added: bool, task_index: usize, task: Task) -> ItemUpdate {
    let event = WorkflowTaskEvent { task_index, task };
    if added {
        ItemUpdate::WorkflowTaskAdded(event)
    } else {
        ItemUpdate::WorkflowTaskUpdated(event)
    }
}

pub(super) fn workflow(s: &mut Script<'_>) {
    let beat = s.beat();
    // 1. A custom workflow with a task of every type; the duration summary comes at the end.
    let plan = custom_task(StatusIndicator::Loading, "Plan the work", "notebook", None);
    let mut wf = workflow_item(
        s,
        Workflow {
            kind: WorkflowKind::Custom,
            tasks: vec![plan],
            summary: None,
            expanded: true,
        },
    );
    s.added(&wf);
    let planned = custom_task(
        StatusIndicator::Complete,
        "Plan the work",
        "notebook",
        Some("1. search\n2. read files\n3. think"),
    );
    s.wait(beat)
        .update(&wf.id, task_update(false, 0, planned.clone()));
    let search = |status, sources| Task {
        status_indicator: status,
        kind: TaskKind::WebSearch(WebSearchTask {
            title: Some("Searching the web".into()),
            title_query: Some("leptos web component".into()),
            queries: vec!["leptos custom element".into(), "wasm sse".into()],
            sources,
        }),
    };
    s.wait(beat).update(
        &wf.id,
        task_update(true, 1, search(StatusIndicator::Loading, vec![])),
    );
    let found = search(
        StatusIndicator::Complete,
        vec![
            url_source(
                "Leptos book",
                "https://book.leptos.dev/",
                Some("leptos.dev"),
                None,
            ),
            url_source(
                "MDN: Server-sent events",
                "https://developer.mozilla.org/docs/Web/API/Server-sent_events",
                None,
                Some("mdn"),
            ),
        ],
    );
    s.wait(beat)
        .update(&wf.id, task_update(false, 1, found.clone()));
    let files = Task {
        status_indicator: StatusIndicator::Complete,
        kind: TaskKind::File(FileTask {
            title: Some("Read 2 files".into()),
            sources: vec![
                file_source("Spec", "spec.md", None),
                file_source("Notes", "notes.txt", Some("meeting notes")),
            ],
        }),
    };
    let thought = Task {
        status_indicator: StatusIndicator::Complete,
        kind: TaskKind::Thought(ThoughtTask {
            title: Some("Thinking".into()),
            content: "The client must apply **workflow.task.updated** by index.".into(),
        }),
    };
    let image = Task {
        status_indicator: StatusIndicator::Complete,
        kind: TaskKind::Image(ImageTask {
            title: Some("Rendered a chart".into()),
        }),
    };
    s.wait(beat)
        .update(&wf.id, task_update(true, 2, files.clone()));
    s.wait(beat)
        .update(&wf.id, task_update(true, 3, thought.clone()));
    s.wait(beat)
        .update(&wf.id, task_update(true, 4, image.clone()));
    wf.kind = ItemKind::Workflow(WorkflowItem {
        workflow: Workflow {
            kind: WorkflowKind::Custom,
            tasks: vec![planned, found, files, thought, image],
            summary: Some(WorkflowSummary::Duration { duration: 1.0 }),
            expanded: false,
        },
    });
    s.done(&wf);

    // 2. A custom workflow with a title + icon summary from the start.
    let summary = Some(WorkflowSummary::Title {
        title: "Checked 2 sources".into(),
        icon: Some("check-circle".into()),
    });
    let mut wf = workflow_item(
        s,
        Workflow {
            kind: WorkflowKind::Custom,
            tasks: vec![],
            summary: summary.clone(),
            expanded: false,
        },
    );
    s.wait(beat).added(&wf);
    let a = custom_task(StatusIndicator::Complete, "Source A", "globe", None);
    let b = custom_task(
        StatusIndicator::Complete,
        "Source B",
        "document",
        Some("Contents of *B*"),
    );
    s.wait(beat).update(&wf.id, task_update(true, 0, a.clone()));
    s.wait(beat).update(&wf.id, task_update(true, 1, b.clone()));
    wf.kind = ItemKind::Workflow(WorkflowItem {
        workflow: Workflow {
            kind: WorkflowKind::Custom,
            tasks: vec![a, b],
            summary,
            expanded: false,
        },
    });
    s.done(&wf);

    // 3. A reasoning workflow whose thought streams as full-content task updates.
    let mut wf = workflow_item(
        s,
        Workflow {
            kind: WorkflowKind::Reasoning,
            tasks: vec![],
            summary: None,
            expanded: false,
        },
    );
    s.wait(beat).added(&wf);
    let thought = |content: &str| Task {
        status_indicator: StatusIndicator::None,
        kind: TaskKind::Thought(ThoughtTask {
            title: None,
            content: content.into(),
        }),
    };
    let full = "Considering the request. The answer needs a table and two citations.";
    let mut so_far = String::new();
    let pace = s.pace();
    for (i, chunk) in word_chunks(full).into_iter().enumerate() {
        so_far.push_str(&chunk);
        s.wait(pace)
            .update(&wf.id, task_update(i == 0, 0, thought(&so_far)));
    }
    wf.kind = ItemKind::Workflow(WorkflowItem {
        workflow: Workflow {
            kind: WorkflowKind::Reasoning,
            tasks: vec![thought(full)],
            summary: Some(WorkflowSummary::Duration { duration: 1.0 }),
            expanded: false,
        },
    });
    s.done(&wf);
    s.text("Three workflows above: duration summary, title+icon summary, reasoning.");
}
