//! Scripted, model-free answers: a keyword in the user's text picks a scenario, and a small
//! builder turns it into the timed stream events the SSE writer sends.
//!
//! A keyword matches at the start of a word (`widgets` picks `widget`, `information` does
//! not pick `form`); when several match, the one found first in the text wins (the longer
//! one on a tie, so `widgetstream` beats `widget`). The shapes mirror the recorded SDK
//! fixtures in `tests/fixtures/chatkit/`.

use crate::agent;
use crate::sandbox::EditOp;
use crate::store::{now_iso, Store};
use chat_shell_core::protocol::chatkit::{
    Action, Annotation, AssistantContent, AssistantMessage, ChoiceOption, ClientEffectEvent,
    ClientToolCall, ClientToolStatus, ClientWidget, ContentPartEvent, CustomTask, EndOfTurn,
    EntitySource, ErrorEvent, FileSource, FileTask, GeneratedImage, GeneratedImageItem,
    GeneratedImageUpdated, ImageTask, ItemEvent, ItemId, ItemKind, ItemUpdate, ItemUpdatedEvent,
    NoticeEvent, NoticeLevel, Page, ProgressUpdateEvent, Source, SourceKind, StatusBody,
    StatusIndicator, StreamEvent, StreamOptions, StreamOptionsEvent, StructuredInput,
    StructuredInputField, StructuredInputStatus, Task, TaskItem, TaskKind, TextDelta, ThoughtTask,
    Thread, ThreadEvent, ThreadItem, ThreadStatus, UrlSource, WebSearchTask, WidgetComponent,
    WidgetComponentUpdated, WidgetItem, WidgetRootUpdated, WidgetTextDelta, Workflow, WorkflowItem,
    WorkflowKind, WorkflowSummary, WorkflowTaskEvent,
};
use chat_shell_core::protocol::JsonMap;
use serde_json::{json, Value};
use std::time::Duration;

/// One thing the SSE writer does, in order.
// Nearly every step is an `Emit`: boxing the event would only add an allocation per step.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum Step {
    /// Wait `delay`, then send `event`.
    Emit { delay: Duration, event: StreamEvent },
    /// Wait `delay`, then abort the connection mid-body.
    Drop { delay: Duration },
    /// Send nothing at all, not even keepalives, for this long (or until the run is stopped).
    Stall(Duration),
    /// Wait, with keepalives, for the answer to the permission request of tool call item
    /// `item_id` (sent earlier in this run), at most `timeout`. Once it is decided the
    /// run goes on with what the decision leads to (`agent::permission_decided`); if it
    /// never comes (or the run is stopped), the run ends with the request still open, and
    /// the answer's own stream carries the rest.
    AwaitPermission { item_id: ItemId, timeout: Duration },
    /// Wait `delay`, then let the `edit` tool change the thread's scratch folder and push
    /// its diff view (see `sandbox`); nothing is streamed.
    Tool { delay: Duration, op: EditOp },
}

/// Builds the steps of one streamed answer.
pub struct Script<'a> {
    store: &'a Store,
    pace: Duration,
    thread: Thread,
    steps: Vec<Step>,
    /// Delay owed before the next step.
    delay: Duration,
    /// An error, drop or stall ends the answer: nothing may follow it.
    ended: bool,
    /// Whether tools can push views (`--callback-token` is set).
    callback: bool,
}

impl<'a> Script<'a> {
    pub fn new(store: &'a Store, pace: Duration, thread: Thread) -> Self {
        Script {
            store,
            pace,
            thread,
            steps: Vec::new(),
            delay: Duration::ZERO,
            ended: false,
            callback: false,
        }
    }

    /// Says whether tools can push views (`--callback-token`): the `edit` answer tells.
    pub fn set_callback(&mut self, configured: bool) {
        self.callback = configured;
    }

    /// Lets the `edit` tool do `op` (see [`Step::Tool`]).
    pub fn tool(&mut self, op: EditOp) -> &mut Self {
        let delay = std::mem::take(&mut self.delay);
        self.steps.push(Step::Tool { delay, op });
        self
    }

    pub fn into_steps(self) -> Vec<Step> {
        self.steps
    }

    #[cfg(test)]
    pub fn steps(&self) -> &[Step] {
        &self.steps
    }

    /// The gap between streamed deltas (`--pace-ms`).
    pub fn pace(&self) -> Duration {
        self.pace
    }

    /// A pause between visible steps (tasks, workflow steps): ten deltas long, so
    /// `--pace-ms 0` makes tests instant.
    pub fn beat(&self) -> Duration {
        self.pace * 10
    }

    pub fn id(&self, prefix: &str) -> ItemId {
        ItemId(self.store.next_id(prefix))
    }

    pub fn item(&self, prefix: &str, kind: ItemKind) -> ThreadItem {
        self.item_with_id(self.id(prefix), kind)
    }

    pub fn item_with_id(&self, id: ItemId, kind: ItemKind) -> ThreadItem {
        ThreadItem {
            id,
            thread_id: Some(self.thread.id.clone()),
            created_at: now_iso(),
            kind,
        }
    }

    pub fn wait(&mut self, d: Duration) -> &mut Self {
        self.delay += d;
        self
    }

    pub fn emit(&mut self, event: StreamEvent) -> &mut Self {
        let delay = std::mem::take(&mut self.delay);
        self.steps.push(Step::Emit { delay, event });
        self
    }

    pub fn added(&mut self, item: &ThreadItem) -> &mut Self {
        self.emit(StreamEvent::ItemAdded(ItemEvent { item: item.clone() }))
    }

    pub fn done(&mut self, item: &ThreadItem) -> &mut Self {
        self.emit(StreamEvent::ItemDone(ItemEvent { item: item.clone() }))
    }

    pub fn replaced(&mut self, item: &ThreadItem) -> &mut Self {
        self.emit(StreamEvent::ItemReplaced(ItemEvent { item: item.clone() }))
    }

    pub fn update(&mut self, item_id: &ItemId, update: ItemUpdate) -> &mut Self {
        self.emit(StreamEvent::ItemUpdated(ItemUpdatedEvent {
            item_id: item_id.clone(),
            update,
        }))
    }

    pub fn stream_options(&mut self, allow_cancel: bool) -> &mut Self {
        self.emit(StreamEvent::StreamOptions(StreamOptionsEvent {
            stream_options: StreamOptions { allow_cancel },
        }))
    }

    pub fn progress(&mut self, icon: Option<&str>, text: &str) -> &mut Self {
        self.emit(StreamEvent::ProgressUpdate(ProgressUpdateEvent {
            icon: icon.map(str::to_owned),
            text: text.to_owned(),
        }))
    }

    pub fn notice(&mut self, level: NoticeLevel, title: Option<&str>, message: &str) -> &mut Self {
        self.emit(StreamEvent::Notice(NoticeEvent {
            level,
            message: message.to_owned(),
            title: title.map(str::to_owned),
        }))
    }

    pub fn effect(&mut self, name: &str, data: Value) -> &mut Self {
        self.emit(StreamEvent::ClientEffect(ClientEffectEvent {
            name: name.to_owned(),
            data: object(data),
        }))
    }

    pub fn error(&mut self, code: &str, message: Option<String>, allow_retry: bool) {
        self.emit(StreamEvent::Error(ErrorEvent {
            code: code.to_owned(),
            message,
            allow_retry,
        }));
        self.ended = true;
    }

    pub fn drop_connection(&mut self) {
        let delay = std::mem::take(&mut self.delay);
        self.steps.push(Step::Drop { delay });
        self.ended = true;
    }

    pub fn stall(&mut self, d: Duration) {
        self.steps.push(Step::Stall(d));
        self.ended = true;
    }

    /// Waits for the answer to the permission request of `item_id` (see
    /// [`Step::AwaitPermission`]); what follows is sent after the decision's events.
    pub fn await_permission(&mut self, item_id: &ItemId, timeout: Duration) {
        self.steps.push(Step::AwaitPermission {
            item_id: item_id.clone(),
            timeout,
        });
    }

    fn thread_updated(&mut self) {
        let mut thread = self.thread.clone();
        thread.items = Some(Page::default());
        self.emit(StreamEvent::ThreadUpdated(ThreadEvent { thread }));
    }

    pub fn set_title(&mut self, title: &str) {
        self.thread.title = Some(title.to_owned());
        self.thread_updated();
    }

    pub fn set_status(&mut self, status: ThreadStatus) {
        self.thread.status = status;
        self.thread_updated();
    }

    /// Titles an untitled thread from its first message, as the last event of a complete
    /// answer.
    pub fn finish(&mut self, first_text: &str) {
        if !self.ended && self.thread.title.is_none() {
            self.set_title(&title_from(first_text));
        }
    }

    /// A short assistant message streamed word by word at the configured pace.
    pub fn text(&mut self, text: &str) -> ThreadItem {
        let pace = self.pace;
        self.message(text, word_chunks(text), pace, Vec::new())
    }

    /// An assistant message the way the SDK streams one: added (empty), content part added,
    /// the deltas, annotations, content part done, item done.
    pub fn message(
        &mut self,
        text: &str,
        chunks: Vec<String>,
        gap: Duration,
        annotations: Vec<Annotation>,
    ) -> ThreadItem {
        let mut item = self.start_message();
        for chunk in chunks {
            self.wait(gap).update(&item.id, delta(chunk));
        }
        for (i, annotation) in annotations.iter().enumerate() {
            self.update(
                &item.id,
                ItemUpdate::AnnotationAdded(chat_shell_core::protocol::chatkit::AnnotationAdded {
                    content_index: 0,
                    annotation_index: Some(i),
                    annotation: annotation.clone(),
                }),
            );
        }
        let content = AssistantContent {
            kind: "output_text".into(),
            text: text.to_owned(),
            annotations,
        };
        self.update(
            &item.id,
            ItemUpdate::ContentPartDone(ContentPartEvent {
                content_index: 0,
                content: content.clone(),
            }),
        );
        item.kind = ItemKind::AssistantMessage(AssistantMessage {
            content: vec![content],
        });
        self.done(&item);
        item
    }

    fn start_message(&mut self) -> ThreadItem {
        let item = self.item(
            "msg",
            ItemKind::AssistantMessage(AssistantMessage::default()),
        );
        self.added(&item);
        self.update(
            &item.id,
            ItemUpdate::ContentPartAdded(ContentPartEvent {
                content_index: 0,
                content: AssistantContent::text(""),
            }),
        );
        item
    }

    /// The start of a message that never finishes (before an error, drop or stall).
    pub fn partial(&mut self, text: &str) -> ItemId {
        let item = self.start_message();
        for chunk in word_chunks(text) {
            let pace = self.pace;
            self.wait(pace).update(&item.id, delta(chunk));
        }
        item.id
    }
}

fn delta(chunk: String) -> ItemUpdate {
    ItemUpdate::TextDelta(TextDelta {
        content_index: 0,
        delta: chunk,
    })
}

// --- choosing a scenario ---------------------------------------------------------------

/// What the runtime answers with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scenario {
    Markdown,
    Long,
    Slow,
    NoCancel,
    Progress,
    Task,
    Workflow,
    Annotations,
    Notice,
    Error,
    Drop,
    Stall,
    Image,
    Widget,
    Form,
    List,
    Chart,
    WidgetStream,
    Approval,
    ClientTool,
    Effect,
    Structured,
    EndTurn,
    Fork,
    Title,
    Lock,
    /// An agent run: thoughts, a plan, ACP tool calls of several kinds (see `agent`).
    Agent,
    /// An ACP tool call that asks permission; the stream waits for the answer.
    Permission,
    /// An ACP tool call in progress, then the connection drops.
    AgentCut,
    /// A tool edits files in a scratch folder and pushes the thread's `diff` view after
    /// each edit (through `POST /callback`).
    Edit,
}

/// Keywords and what they pick. Anything else gets the markdown answer.
pub const KEYWORDS: &[(&str, Scenario)] = &[
    ("markdown", Scenario::Markdown),
    ("long", Scenario::Long),
    ("slow", Scenario::Slow),
    ("nocancel", Scenario::NoCancel),
    ("progress", Scenario::Progress),
    ("task", Scenario::Task),
    ("workflow", Scenario::Workflow),
    ("annotation", Scenario::Annotations),
    ("notice", Scenario::Notice),
    ("error", Scenario::Error),
    ("drop", Scenario::Drop),
    ("stall", Scenario::Stall),
    ("image", Scenario::Image),
    ("widgetstream", Scenario::WidgetStream),
    ("widget", Scenario::Widget),
    ("form", Scenario::Form),
    ("list", Scenario::List),
    ("chart", Scenario::Chart),
    ("approval", Scenario::Approval),
    ("clienttool", Scenario::ClientTool),
    ("effect", Scenario::Effect),
    ("structured", Scenario::Structured),
    ("endturn", Scenario::EndTurn),
    ("fork", Scenario::Fork),
    ("title", Scenario::Title),
    ("lock", Scenario::Lock),
    ("agentcut", Scenario::AgentCut),
    ("agent", Scenario::Agent),
    ("permission", Scenario::Permission),
    ("edit", Scenario::Edit),
];

impl Scenario {
    pub fn pick(text: &str) -> Scenario {
        pick_keyword(KEYWORDS, text).unwrap_or(Scenario::Markdown)
    }
}

/// The entry of `table` whose keyword `text` holds at the start of a word; the one found
/// first wins, the longer one on a tie (see the module's documentation).
pub fn pick_keyword<T: Copy>(table: &[(&str, T)], text: &str) -> Option<T> {
    let lower = text.to_lowercase();
    // (position, keyword length, value) of the best match so far.
    let mut best: Option<(usize, usize, T)> = None;
    for &(keyword, value) in table {
        let at_word_start = lower
            .match_indices(keyword)
            .map(|(pos, _)| pos)
            .find(|&pos| {
                lower[..pos]
                    .chars()
                    .next_back()
                    .is_none_or(|c| !c.is_alphanumeric())
            });
        if let Some(pos) = at_word_start {
            let better = match best {
                None => true,
                Some((p, len, _)) => pos < p || (pos == p && keyword.len() > len),
            };
            if better {
                best = Some((pos, keyword.len(), value));
            }
        }
    }
    best.map(|(_, _, value)| value)
}

// --- answers to a user message -----------------------------------------------------------

/// Streams the answer to the user message `user_id` whose text is `text`. `attempt` counts
/// how many times this message has been answered (1 for the first time).
pub fn respond(s: &mut Script<'_>, user_id: &ItemId, text: &str, attempt: u32) {
    let scenario = Scenario::pick(text);
    match scenario {
        // The fork never sends stream_options.
        Scenario::Fork => {}
        Scenario::NoCancel => {
            s.stream_options(false);
        }
        _ => {
            s.stream_options(true);
        }
    }
    let pace = s.pace();
    let slow = Duration::from_millis(400);
    match scenario {
        Scenario::Markdown => {
            let md = default_markdown(text);
            s.message(&md, ragged_chunks(&md), pace, Vec::new());
        }
        Scenario::Long => {
            let gap = if text.to_lowercase().contains("fast") {
                Duration::ZERO
            } else {
                pace
            };
            let long = long_text();
            s.message(&long, even_chunks(&long, 2000), gap, Vec::new());
        }
        Scenario::Slow => {
            let md = default_markdown(text);
            s.message(&md, ragged_chunks(&md), slow, Vec::new());
        }
        Scenario::NoCancel => {
            let t = "This answer cannot be stopped: the server sent `stream_options` with \
                     `allow_cancel: false` first. It streams one word every 400 ms, so you \
                     have time to check that the Stop button is not offered.";
            s.message(t, word_chunks(t), slow, Vec::new());
        }
        Scenario::Progress => progress(s),
        Scenario::Task => task(s),
        Scenario::Workflow => workflow(s),
        Scenario::Annotations => annotations(s),
        Scenario::Notice => {
            s.notice(
                NoticeLevel::Info,
                Some("Heads up"),
                "An **info** notice with a [link](https://example.com).",
            );
            s.notice(
                NoticeLevel::Warning,
                None,
                "A warning notice without a title.",
            );
            s.notice(
                NoticeLevel::Danger,
                Some("Limit reached"),
                "You've reached your limit of 100 messages. [Upgrade](https://example.com/upgrade) to continue.",
            );
            s.text("Three notices were sent: info, warning, danger.");
        }
        Scenario::Error => {
            if attempt <= 1 {
                s.progress(Some("atom"), "Working...");
                s.partial("This answer will fail halfway ");
                s.error(
                    "custom",
                    Some(format!(
                        "The peer failed on purpose (attempt {attempt}). Retry to succeed."
                    )),
                    true,
                );
            } else {
                s.text(&format!(
                    "Retry succeeded (attempt {attempt} for user message `{user_id}`)."
                ));
            }
        }
        Scenario::Drop => {
            s.partial("This answer is cut off: the server drops the connection right after ");
            s.wait(pace).drop_connection();
        }
        Scenario::Stall => {
            s.partial("This answer stalls here: no more bytes for two minutes ");
            s.stall(Duration::from_secs(120));
        }
        Scenario::Image => image(s),
        Scenario::Widget => {
            let card = widget(showcase_card());
            s.done(&widget_item(s, card, Some("Widget showcase")));
            s.text("A widget card: **Confirm** replaces it, the client action stays in the page, and **Sync +1** is answered as JSON.");
        }
        Scenario::Form => {
            s.done(&widget_item(s, widget(form_card()), Some("Profile form")));
            s.text("Fill in the form and submit it: the values come back to the server in the action payload.");
        }
        Scenario::List => {
            s.done(&widget_item(
                s,
                widget(list_view()),
                Some("Recent documents"),
            ));
            s.text("A list view: click a row.");
        }
        Scenario::Chart => {
            s.done(&widget_item(s, widget(chart_card()), Some("Chart")));
            s.text("A chart with bar, line and area series.");
        }
        Scenario::WidgetStream => widget_stream(s),
        Scenario::Edit => edit(s),
        Scenario::Approval => {
            s.text("Sending this payment needs your approval first.");
            let call_id = s.id("call").0;
            let args = json!({
                "tool_name": "send_payment",
                "tool_args": r#"{"amount":42.5,"currency":"EUR","recipient":"ACME Corp","memo":"Invoice 1042"}"#,
                "call_id": call_id,
                "request_id": s.id("req").0,
            });
            let item = s.item(
                "wdg",
                ItemKind::ClientWidget(ClientWidget {
                    name: "tool_approval_request".into(),
                    args,
                }),
            );
            s.done(&item);
        }
        Scenario::ClientTool => {
            s.text("Asking the client to run `get_client_info`...");
            let call = s.item(
                "tc",
                ItemKind::ClientToolCall(ClientToolCall {
                    status: ClientToolStatus::Pending,
                    call_id: s.id("call").0,
                    name: "get_client_info".into(),
                    arguments: json!({ "fields": ["userAgent", "language", "timeZone"] }),
                    output: None,
                }),
            );
            s.added(&call).done(&call);
        }
        Scenario::Effect => {
            s.effect(
                "peer.toast",
                json!({ "text": "Hello from a client_effect", "level": "success" }),
            );
            s.effect(
                "peer.navigate",
                json!({ "href": "#/settings", "replace": false }),
            );
            s.effect("peer.no_data", json!({}));
            s.text(
                "Three client_effect events were sent (peer.toast, peer.navigate, peer.no_data).",
            );
        }
        Scenario::Structured => {
            let item = s.item("msg", ItemKind::StructuredInput(structured_questions()));
            s.done(&item);
        }
        Scenario::EndTurn => {
            s.text("A message followed by an end_of_turn item.");
            let end = s.item("msg", ItemKind::EndOfTurn(EndOfTurn::default()));
            s.done(&end);
        }
        Scenario::Fork => fork(s),
        Scenario::Title => {
            let title = "Renamed while streaming";
            let mut item = s.item(
                "msg",
                ItemKind::AssistantMessage(AssistantMessage::default()),
            );
            s.added(&item);
            s.set_title(title);
            s.update(
                &item.id,
                ItemUpdate::ContentPartAdded(ContentPartEvent {
                    content_index: 0,
                    content: AssistantContent::text(""),
                }),
            );
            let text = format!("The thread title is now **{title}** (see thread.updated).");
            for chunk in word_chunks(&text) {
                s.wait(pace).update(&item.id, delta(chunk));
            }
            let content = AssistantContent::text(text);
            s.update(
                &item.id,
                ItemUpdate::ContentPartDone(ContentPartEvent {
                    content_index: 0,
                    content: content.clone(),
                }),
            );
            item.kind = ItemKind::AssistantMessage(AssistantMessage {
                content: vec![content],
            });
            s.done(&item);
        }
        Scenario::Agent => agent::agent_run(s),
        Scenario::Permission => agent::permission_ask(s),
        Scenario::AgentCut => agent::agent_cut(s),
        Scenario::Lock => {
            s.text("Locking this thread: the composer should be disabled now.");
            s.set_status(ThreadStatus::Locked(StatusBody {
                reason: Some("Locked by the reference runtime (scenario `lock`).".into()),
            }));
        }
    }
}

/// The `edit` scenario: three edits (a change, a new file and a rename, a deletion), each
/// followed by a push of the whole diff as the thread's `diff` view.
fn edit(s: &mut Script<'_>) {
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

fn progress(s: &mut Script<'_>) {
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

fn custom_task(status: StatusIndicator, title: &str, icon: &str, content: Option<&str>) -> Task {
    Task {
        status_indicator: status,
        kind: TaskKind::Custom(CustomTask {
            title: Some(title.into()),
            icon: Some(icon.into()),
            content: content.map(str::to_owned),
        }),
    }
}

fn task(s: &mut Script<'_>) {
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

fn url_source(title: &str, url: &str, attribution: Option<&str>, group: Option<&str>) -> Source {
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

fn file_source(title: &str, filename: &str, description: Option<&str>) -> Source {
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

fn workflow_item(s: &Script<'_>, workflow: Workflow) -> ThreadItem {
    s.item("wf", ItemKind::Workflow(WorkflowItem { workflow }))
}

fn task_update(added: bool, task_index: usize, task: Task) -> ItemUpdate {
    let event = WorkflowTaskEvent { task_index, task };
    if added {
        ItemUpdate::WorkflowTaskAdded(event)
    } else {
        ItemUpdate::WorkflowTaskUpdated(event)
    }
}

fn workflow(s: &mut Script<'_>) {
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

fn annotations(s: &mut Script<'_>) {
    let text = "ChatKit is documented on GitHub [1], the spec file is attached [2], and the account entity is ACME [3].";
    // Each marker's annotation points just after it, like the SDK fixture.
    let after = |marker: &str| text.find(marker).map(|i| (i + marker.len()) as u64);
    let entity = Source {
        title: "ACME Corp".into(),
        description: Some("customer account".into()),
        timestamp: None,
        group: None,
        kind: SourceKind::Entity(EntitySource {
            id: "acct_42".into(),
            icon: Some("suitcase".into()),
            label: Some("Account".into()),
            inline_label: Some("ACME".into()),
            interactive: true,
            data: object(json!({ "account_id": 42, "tier": "gold" })),
        }),
    };
    let mut github = url_source(
        "openai/chatkit-python",
        "https://github.com/openai/chatkit-python",
        Some("github.com"),
        None,
    );
    github.description = Some("SDK source".into());
    let annotation = |source: Source, index: Option<u64>| Annotation {
        kind: "annotation".into(),
        source,
        index,
    };
    let list = vec![
        annotation(github, after("[1]")),
        annotation(
            file_source("Protocol spec", "spec.md", Some("attached file")),
            after("[2]"),
        ),
        annotation(entity, after("[3]")),
        annotation(
            url_source(
                "No index example",
                "https://example.com/no-index",
                None,
                Some("extra"),
            ),
            None,
        ),
    ];
    let pace = s.pace();
    s.message(text, word_chunks(text), pace, list);
}

fn image(s: &mut Script<'_>) {
    let mut item = s.item(
        "msg",
        ItemKind::GeneratedImage(GeneratedImageItem { image: None }),
    );
    s.added(&item);
    let image_id = s.id("img").0;
    let beat = s.beat();
    let stages = [(8, Some(0.33)), (4, Some(0.66)), (1, None)];
    let mut last = None;
    for (block, progress) in stages {
        let image = GeneratedImage {
            id: image_id.clone(),
            url: sample_png(block),
        };
        s.wait(beat).update(
            &item.id,
            ItemUpdate::GeneratedImageUpdated(GeneratedImageUpdated {
                image: image.clone(),
                progress,
            }),
        );
        last = Some(image);
    }
    item.kind = ItemKind::GeneratedImage(GeneratedImageItem { image: last });
    s.done(&item);
    s.text("An image generated in three steps (33 %, 66 %, final).");
}

fn widget_stream(s: &mut Script<'_>) {
    let pace = s.pace();
    let card = |title: &str, text: &str, text_streaming: bool, md: &str, badge: Value| {
        widget(json!({
            "type": "Card", "key": "ws", "children": [
                {"id": "ws_title", "type": "Title", "value": title},
                {"id": "ws_text", "type": "Text", "value": text, "streaming": text_streaming},
                {"id": "ws_md", "type": "Markdown", "value": md},
                badge,
            ]
        }))
    };
    let running =
        json!({"id": "ws_badge", "type": "Badge", "label": "running", "color": "warning"});
    let finished = json!({"id": "ws_badge", "type": "Badge", "label": "done", "color": "success"});
    let mut item = widget_item(
        s,
        card("Streaming widget", "", true, "", running.clone()),
        None,
    );
    s.added(&item);
    let text = "Text streamed into a widget component, word by word.";
    for chunk in word_chunks(text) {
        s.wait(pace).update(
            &item.id,
            ItemUpdate::WidgetTextDelta(WidgetTextDelta {
                component_id: "ws_text".into(),
                delta: chunk,
                done: false,
            }),
        );
    }
    s.update(
        &item.id,
        ItemUpdate::WidgetRootUpdated(WidgetRootUpdated {
            widget: card("Streaming widget", text, false, "", running),
        }),
    );
    // Markdown streamed with done: true on every delta (the SDK does that when
    // `streaming` is unset); later deltas still append.
    let md = "**Markdown** streamed with `streaming` unset:\n\n- one\n- two\n";
    for chunk in word_chunks(md) {
        s.wait(pace).update(
            &item.id,
            ItemUpdate::WidgetTextDelta(WidgetTextDelta {
                component_id: "ws_md".into(),
                delta: chunk,
                done: true,
            }),
        );
    }
    s.update(
        &item.id,
        ItemUpdate::WidgetComponentUpdated(WidgetComponentUpdated {
            component_id: "ws_badge".into(),
            component: widget(finished.clone()),
        }),
    );
    let last = card(
        "Streaming widget (root replaced)",
        text,
        false,
        md,
        finished,
    );
    s.update(
        &item.id,
        ItemUpdate::WidgetRootUpdated(WidgetRootUpdated {
            widget: last.clone(),
        }),
    );
    item.kind = ItemKind::Widget(WidgetItem {
        widget: last,
        copy_text: Some(text.into()),
    });
    s.done(&item);
}

fn structured_questions() -> StructuredInput {
    let options = |values: &[(&str, Option<&str>)]| {
        values
            .iter()
            .map(|(v, l)| ChoiceOption {
                value: (*v).into(),
                label: l.map(str::to_owned),
            })
            .collect::<Vec<_>>()
    };
    StructuredInput {
        status: StructuredInputStatus::Pending,
        inputs: vec![
            StructuredInputField {
                id: "color".into(),
                question: "Pick a color".into(),
                kind: "multiple_choice".into(),
                description: None,
                options: options(&[("red", None), ("green", None), ("blue", None)]),
                multiple: false,
                answer: None,
            },
            StructuredInputField {
                id: "toppings".into(),
                question: "Pick toppings".into(),
                kind: "multiple_choice".into(),
                description: None,
                options: options(&[
                    ("cheese", Some("Cheese")),
                    ("olives", Some("Olives")),
                    ("basil", Some("Fresh basil")),
                ]),
                multiple: true,
                answer: None,
            },
            StructuredInputField {
                id: "why".into(),
                question: "Why?".into(),
                kind: "freeform".into(),
                description: Some("Free text".into()),
                options: vec![],
                multiple: false,
                answer: None,
            },
        ],
        action_id: None,
    }
}

/// The fork's wire shape (`forkquirks.sse`): no stream_options, a task added twice under
/// one id, the first chunk inside `thread.item.added`, every later delta under a fresh
/// `itm_` id with a growing `content_index`, and an approval `client_widget`.
fn fork(s: &mut Script<'_>) {
    let pace = s.pace();
    let beat = s.beat();
    s.progress(Some("atom"), "Processing your request ...");
    let call_id = s.id("call");
    let task = |title: &str, icon: &str| {
        ItemKind::Task(TaskItem {
            task: custom_task(StatusIndicator::None, title, icon, None),
        })
    };
    let mut t = s.item_with_id(
        call_id.clone(),
        task("Extracting data from the uploaded image...", "search"),
    );
    s.added(&t);
    t.kind = task(
        "Data extracted from the uploaded image",
        "check-circle-filled",
    );
    t.created_at = now_iso();
    s.wait(beat).added(&t);

    let text = "I've extracted the following details:\n\n| Field | Value |\n|---|---|\n| Payee | GORI |\n| Amount | 85.20 |\n";
    let chunks = word_chunks(text);
    let mut msg = s.item(
        "msg",
        ItemKind::AssistantMessage(AssistantMessage {
            content: vec![AssistantContent::text(chunks[0].clone())],
        }),
    );
    s.added(&msg);
    for (i, chunk) in chunks.into_iter().enumerate().skip(1) {
        let fresh = s.id("itm");
        s.wait(pace).update(
            &fresh,
            ItemUpdate::TextDelta(TextDelta {
                content_index: i,
                delta: chunk,
            }),
        );
    }
    msg.kind = ItemKind::AssistantMessage(AssistantMessage {
        content: vec![AssistantContent::text(text)],
    });
    s.done(&msg);
    let approval = s.item(
        "wdg",
        ItemKind::ClientWidget(ClientWidget {
            name: "tool_approval_request".into(),
            args: json!({
                "tool_name": "processPayment",
                "tool_args": {"account_id": "1010", "amount": 85.2},
                "call_id": call_id.0,
                "request_id": call_id.0,
            }),
        }),
    );
    s.done(&approval);
}

// --- continuations ----------------------------------------------------------------------

/// After `threads.add_client_tool_output`: `call` is the tool call, now completed.
pub fn client_tool_output(s: &mut Script<'_>, call: &ClientToolCall) {
    s.stream_options(true);
    let output = call.output.clone().unwrap_or(Value::Null);
    let pretty = serde_json::to_string_pretty(&output).unwrap_or_default();
    s.text(&format!(
        "Client tool `{}` (call `{}`) returned:\n\n```json\n{pretty}\n```\n",
        call.name, call.call_id
    ));
}

/// After `threads.add_structured_input`: `item` is the structured input, now answered.
pub fn structured_answered(s: &mut Script<'_>, item: &ThreadItem) {
    s.stream_options(true);
    s.replaced(item);
    let ItemKind::StructuredInput(input) = &item.kind else {
        return;
    };
    let mut text = format!("Structured input `{}` was **answered**:\n\n", item.id);
    for field in &input.inputs {
        let answer = match &field.answer {
            Some(a) if a.skipped => "skipped".to_owned(),
            Some(a) if !a.values.is_empty() => a.values.join(", "),
            _ => "no answer".to_owned(),
        };
        text.push_str(&format!("- **{}** {answer}\n", field.question));
    }
    s.text(&text);
}

/// `threads.custom_action`: `sender` is the widget (or client widget) the action came from.
pub fn custom_action(s: &mut Script<'_>, sender: Option<&ThreadItem>, action: &Action) {
    s.stream_options(true);
    match action.kind.as_str() {
        "approval" => approval(s, sender, &action.payload),
        "confirm" => {
            if let Some(item) = sender {
                if let ItemKind::Widget(w) = &item.kind {
                    let mut confirmed = item.clone();
                    confirmed.kind = ItemKind::Widget(WidgetItem {
                        widget: confirm_widget(w.widget.clone()),
                        copy_text: w.copy_text.clone(),
                    });
                    s.replaced(&confirmed);
                }
            }
            s.text("Confirmed. The card above was replaced by its confirmed version.");
        }
        "form.submit" => {
            let mut text = String::from("Form received:\n\n| Field | Value |\n|---|---|\n");
            if let Value::Object(fields) = &action.payload {
                for (name, value) in fields {
                    let shown = match value {
                        Value::String(v) if v.is_empty() => "*(empty)*".to_owned(),
                        Value::String(v) => v.replace('|', "\\|").replace('\n', " "),
                        other => format!("`{other}`"),
                    };
                    text.push_str(&format!("| {name} | {shown} |\n"));
                }
            }
            s.text(&text);
        }
        "list.select" => {
            let title = action
                .payload
                .get("title")
                .and_then(Value::as_str)
                .unwrap_or("a row");
            s.text(&format!("You picked **{title}** from the list."));
        }
        _ => {
            let mut received = JsonMap::new();
            received.insert("type".into(), Value::String(action.kind.clone()));
            received.insert("payload".into(), action.payload.clone());
            if let Some(item) = sender {
                received.insert("sender".into(), Value::String(item.id.0.clone()));
            }
            let pretty = serde_json::to_string_pretty(&received).unwrap_or_default();
            s.text(&format!("action() received:\n\n```json\n{pretty}\n```\n"));
        }
    }
}

fn approval(s: &mut Script<'_>, sender: Option<&ThreadItem>, payload: &Value) {
    let approved = payload
        .get("approved")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let tool = payload
        .get("tool_name")
        .and_then(Value::as_str)
        .unwrap_or("the tool")
        .to_owned();
    let call_id = payload
        .get("call_id")
        .and_then(Value::as_str)
        .unwrap_or("unknown")
        .to_owned();
    // tool_args is a JSON string in the fork's spec and an object in its traces.
    let args = match payload.get("tool_args") {
        Some(Value::String(raw)) => {
            serde_json::from_str::<Value>(raw).unwrap_or(Value::String(raw.clone()))
        }
        Some(other) => other.clone(),
        None => Value::Null,
    };
    if let Some(item) = sender {
        if let ItemKind::ClientWidget(w) = &item.kind {
            let mut args = w.args.clone();
            if let Value::Object(map) = &mut args {
                let decision = if approved { "approved" } else { "rejected" };
                map.insert("decision".into(), Value::String(decision.into()));
            }
            let mut decided = item.clone();
            decided.kind = ItemKind::ClientWidget(ClientWidget {
                name: w.name.clone(),
                args,
            });
            s.replaced(&decided);
        }
    }
    if approved {
        let beat = s.beat();
        let running = format!("Running {tool}...");
        let mut t = s.item(
            "tsk",
            ItemKind::Task(TaskItem {
                task: custom_task(StatusIndicator::Loading, &running, "search", None),
            }),
        );
        s.added(&t);
        t.kind = ItemKind::Task(TaskItem {
            task: custom_task(
                StatusIndicator::Complete,
                &format!("{tool} finished"),
                "check-circle-filled",
                None,
            ),
        });
        s.wait(beat).done(&t);
        s.text(&format!(
            "Approved: `{tool}` ran with `{args}` (call `{call_id}`)."
        ));
    } else {
        s.text(&format!(
            "Rejected: `{tool}` was not run (call `{call_id}`). Nothing was sent."
        ));
    }
}

/// `threads.sync_custom_action`: the widget item after the action, answered as JSON.
pub fn sync_action(sender: &ThreadItem, action: &Action) -> ThreadItem {
    let mut item = sender.clone();
    if let ItemKind::Widget(w) = &mut item.kind {
        if action.kind == "counter" {
            let count = action
                .payload
                .get("count")
                .and_then(Value::as_u64)
                .unwrap_or(0)
                + 1;
            if let Some(button) = find_by_key(&mut w.widget, "counter") {
                button.props.insert(
                    "label".into(),
                    Value::String(format!("Sync +1 (count={count})")),
                );
                if let Some(Value::Object(a)) = button.props.get_mut("onClickAction") {
                    a.insert("payload".into(), json!({ "count": count }));
                }
            }
        }
    }
    item
}

fn find_by_key<'w>(node: &'w mut WidgetComponent, key: &str) -> Option<&'w mut WidgetComponent> {
    if node.key.as_deref() == Some(key) {
        return Some(node);
    }
    node.children.iter_mut().find_map(|c| find_by_key(c, key))
}

/// The showcase card once confirmed: its buttons give way to a confirmation line.
fn confirm_widget(mut root: WidgetComponent) -> WidgetComponent {
    let done = widget(json!({
        "type": "Row", "key": "actions", "gap": 2, "align": "center", "children": [
            {"type": "Icon", "name": "check-circle-filled", "color": "success"},
            {"type": "Text", "value": "Confirmed", "weight": "semibold"},
        ]
    }));
    match find_by_key(&mut root, "actions") {
        Some(actions) => *actions = done,
        None => root.children.push(done),
    }
    if let Some(badge) = find_by_key(&mut root, "status") {
        badge.props.insert("label".into(), json!("confirmed"));
        badge.props.insert("color".into(), json!("success"));
    }
    root
}

// --- widgets ----------------------------------------------------------------------------

fn widget(value: Value) -> WidgetComponent {
    serde_json::from_value(value).expect("scripted widgets are valid components")
}

fn widget_item(s: &Script<'_>, widget: WidgetComponent, copy_text: Option<&str>) -> ThreadItem {
    s.item(
        "msg",
        ItemKind::Widget(WidgetItem {
            widget,
            copy_text: copy_text.map(str::to_owned),
        }),
    )
}

fn action(kind: &str, payload: Value, handler: &str, loading: &str, streaming: bool) -> Value {
    json!({ "type": kind, "payload": payload, "handler": handler, "loadingBehavior": loading, "streaming": streaming })
}

fn showcase_card() -> Value {
    json!({
        "type": "Card", "key": "showcase", "size": "md",
        "status": {"text": "Reference runtime", "icon": "sparkle"},
        "children": [
            {"type": "Row", "align": "center", "gap": 2, "children": [
                {"type": "Icon", "name": "sparkle", "color": "primary", "size": "lg"},
                {"type": "Title", "value": "Widget showcase", "size": "md"},
                {"type": "Spacer"},
                {"type": "Badge", "key": "status", "label": "pending", "color": "info", "variant": "soft", "pill": true},
            ]},
            {"type": "Caption", "value": "Built by the chat-shell reference runtime"},
            {"type": "Text", "value": "Plain Text component: <b>not bold</b>, shown as typed.", "color": "secondary"},
            {"type": "Markdown", "value": "**Markdown** component with a [link](https://openai.github.io/chatkit-js/) and `code`.\n\n- one\n- two"},
            {"type": "Divider", "spacing": 2},
            {"type": "Row", "align": "center", "gap": 3, "children": [
                {"type": "Image", "src": sample_png(1), "alt": "generated sample", "radius": "md", "frame": true, "size": 64},
                {"type": "Col", "flex": 1, "gap": 1, "children": [
                    {"type": "Text", "value": "Row > Col layout", "weight": "semibold"},
                    {"type": "Caption", "value": "The Box below has padding, radius, border and background"},
                ]},
            ]},
            {"type": "Box", "direction": "row", "align": "center", "gap": 2, "padding": 3.0, "border": 1,
             "radius": "lg", "background": "surface-secondary", "children": [
                {"type": "Icon", "name": "info"},
                {"type": "Text", "value": "Box direction=row", "size": "sm"},
            ]},
            {"type": "Divider"},
            {"type": "Row", "key": "actions", "wrap": "wrap", "gap": 2, "children": [
                {"type": "Button", "label": "Confirm", "style": "primary",
                 "onClickAction": action("confirm", json!({"card": "showcase"}), "server", "auto", true)},
                {"type": "Button", "label": "Client action", "variant": "outline",
                 "onClickAction": action("client.toast", json!({"text": "Handled in the page"}), "client", "auto", true)},
                {"type": "Button", "key": "counter", "label": "Sync +1 (count=0)", "iconStart": "plus", "variant": "soft",
                 "onClickAction": action("counter", json!({"count": 0}), "server", "self", false)},
            ]},
        ]
    })
}

fn form_card() -> Value {
    json!({
        "type": "Card", "key": "form", "size": "md", "children": [
            {"type": "Title", "value": "Tell us about you", "size": "sm"},
            {"type": "Form", "direction": "col", "gap": 3,
             "onSubmitAction": action("form.submit", json!({"form": "profile"}), "server", "auto", true),
             "children": [
                {"type": "Label", "value": "Name", "fieldName": "name"},
                {"type": "Input", "name": "name", "required": true, "placeholder": "Ada Lovelace"},
                {"type": "Label", "value": "Email", "fieldName": "email"},
                {"type": "Input", "name": "email", "inputType": "email", "placeholder": "ada@example.com"},
                {"type": "Label", "value": "Plan", "fieldName": "plan"},
                {"type": "Select", "name": "plan", "placeholder": "Choose a plan", "defaultValue": "free", "options": [
                    {"value": "free", "label": "Free"},
                    {"value": "pro", "label": "Pro", "description": "Paid plan"},
                    {"value": "old", "label": "Legacy", "disabled": true},
                ]},
                {"type": "Label", "value": "Notes", "fieldName": "notes"},
                {"type": "Textarea", "name": "notes", "placeholder": "Anything else?", "rows": 3},
                {"type": "Checkbox", "name": "agree", "label": "I agree to the terms", "defaultChecked": false},
                {"type": "RadioGroup", "name": "size", "direction": "row", "defaultValue": "m", "options": [
                    {"label": "Small", "value": "s"},
                    {"label": "Medium", "value": "m"},
                    {"label": "Large", "value": "l"},
                ]},
                {"type": "Label", "value": "Start date", "fieldName": "when"},
                {"type": "DatePicker", "name": "when", "placeholder": "Pick a date"},
                {"type": "Row", "gap": 2, "children": [
                    {"type": "Button", "submit": true, "label": "Submit", "style": "primary"},
                ]},
            ]},
        ]
    })
}

fn list_view() -> Value {
    let rows: Vec<Value> = (1..=5)
        .map(|n| {
            let title = format!("Document {n}");
            json!({
                "type": "ListViewItem", "key": format!("row{n}"), "gap": 2,
                "onClickAction": action("list.select", json!({"row": n, "title": title}), "server", "auto", true),
                "children": [
                    {"type": "Icon", "name": "document"},
                    {"type": "Text", "value": title},
                    {"type": "Spacer"},
                    {"type": "Caption", "value": format!("{n} min ago")},
                ]
            })
        })
        .collect();
    json!({ "type": "ListView", "limit": 3, "status": {"text": "Recent documents", "icon": "clock"}, "children": rows })
}

fn chart_card() -> Value {
    json!({
        "type": "Card", "key": "chart", "children": [
            {"type": "Title", "value": "Visits, sign-ups and churn", "size": "sm"},
            {"type": "Chart", "height": 180, "xAxis": "month", "showLegend": true,
             "data": [
                {"month": "Jan", "visits": 120, "signups": 30, "churn": 5},
                {"month": "Feb", "visits": 150, "signups": 42, "churn": 7},
                {"month": "Mar", "visits": 90, "signups": 25, "churn": 9},
                {"month": "Apr", "visits": 180, "signups": 51, "churn": 4},
             ],
             "series": [
                {"type": "bar", "label": "Visits", "dataKey": "visits"},
                {"type": "line", "label": "Sign-ups", "dataKey": "signups"},
                {"type": "area", "label": "Churn", "dataKey": "churn"},
             ]},
        ]
    })
}

fn object(value: Value) -> JsonMap {
    match value {
        Value::Object(map) => map,
        _ => JsonMap::new(),
    }
}

// --- texts ------------------------------------------------------------------------------

/// A thread title from the first message: its first ~40 characters, cut at a word.
pub fn title_from(text: &str) -> String {
    // Titles hold no control or bidi formatting characters (see `labels`).
    let words: Vec<String> = text
        .split_whitespace()
        .map(crate::labels::strip)
        .filter(|w| !w.is_empty())
        .collect();
    let flat = words.join(" ");
    if flat.is_empty() {
        return "New conversation".into();
    }
    if flat.chars().count() <= 40 {
        return flat;
    }
    let cut: String = flat.chars().take(40).collect();
    let cut = match cut.rfind(' ') {
        Some(i) if i >= 20 => &cut[..i],
        _ => &cut[..],
    };
    format!("{}…", cut.trim_end())
}

/// The default answer: every common markdown construct, mentioning what the user said.
pub fn default_markdown(user_text: &str) -> String {
    let mut quoted: String = user_text.split_whitespace().collect::<Vec<_>>().join(" ");
    if quoted.chars().count() > 80 {
        quoted = quoted.chars().take(80).collect::<String>() + "…";
    }
    format!(
        "You said: “{quoted}”. Here is a scripted answer from the reference runtime.\n\
\n\
## A streamed markdown answer\n\
\n\
It arrives in small deltas that cut through words and **markdown tokens**, so the \
renderer has to cope with half-open syntax.\n\
\n\
- Text with **bold**, *italic* and `inline code`\n\
- A nested list:\n  - first\n  - second\n\
- A link to [the ChatKit docs](https://openai.github.io/chatkit-js/)\n\
\n\
| Feature | Status | Notes |\n\
|:--------|:------:|------:|\n\
| Streaming | done | text deltas |\n\
| Tables | done | GFM |\n\
| Code | done | fenced |\n\
\n\
```rust\n\
fn main() {{\n    let greeting = \"hello\";\n    println!(\"{{greeting}}, ChatKit!\");\n}}\n\
```\n\
\n\
> Other scenarios: try `long`, `widget`, `form`, `workflow`, `task`, `image`, `error`, \
`approval`, `clienttool` or `structured`.\n"
    )
}

/// About 100 kB of paragraphs, lists, tables and code, always the same.
pub fn long_text() -> String {
    const WORDS: &[&str] = &[
        "stream", "delta", "thread", "widget", "render", "client", "server", "token", "layout",
        "browser", "signal", "buffer", "update", "message", "reducer", "cursor", "element",
        "shadow", "scroll", "frame", "event", "parser", "table", "answer", "virtual", "history",
        "latency", "payload", "schema", "runtime",
    ];
    let mut rng = Lcg(0x5eed);
    let sentence = |rng: &mut Lcg| {
        let n = 8 + rng.below(9);
        let mut words: Vec<&str> = (0..n).map(|_| WORDS[rng.below(WORDS.len())]).collect();
        let first = words[0];
        let capital = first[..1].to_uppercase() + &first[1..];
        words[0] = "";
        format!("{capital}{}.", words.join(" "))
    };
    let mut out = String::from(
        "# A long answer\n\nAbout 100 kB in 2,000 deltas, to measure how the renderer copes.\n\n",
    );
    let mut section = 1;
    while out.len() < 100_000 {
        out.push_str(&format!("## Section {section}\n\n"));
        for _ in 0..2 {
            let n = 4 + rng.below(3);
            let para: Vec<String> = (0..n).map(|_| sentence(&mut rng)).collect();
            out.push_str(&para.join(" "));
            out.push_str("\n\n");
        }
        for i in 1..=4 {
            out.push_str(&format!("- Point {section}.{i}: {}\n", sentence(&mut rng)));
        }
        out.push('\n');
        if section % 3 == 0 {
            out.push_str(&format!(
                "```rust\nfn section_{section}(input: &str) -> usize {{\n    input.split_whitespace().filter(|w| w.len() > {}).count()\n}}\n```\n\n",
                section % 7
            ));
        }
        if section % 4 == 0 {
            out.push_str("| Metric | Value |\n|---|---:|\n");
            for m in ["deltas", "bytes", "frames"] {
                out.push_str(&format!("| {m} | {} |\n", rng.below(10_000)));
            }
            out.push('\n');
        }
        section += 1;
    }
    out
}

/// A tiny deterministic pseudo-random generator (no crate needed for repeatable chunking).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) as usize) % n
    }
}

/// Words with their trailing whitespace ("This ", "answer "), as the SDK fixtures stream.
pub fn word_chunks(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        current.push(c);
        if c.is_whitespace() && chars.peek().is_some_and(|n| !n.is_whitespace()) {
            out.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// Chunks of 4 to 12 characters that cut anywhere, even through markdown tokens.
pub fn ragged_chunks(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut rng = Lcg(chars.len() as u64);
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let n = (4 + rng.below(9)).min(chars.len() - i);
        out.push(chars[i..i + n].iter().collect());
        i += n;
    }
    out
}

/// `n` chunks of nearly equal length.
pub fn even_chunks(text: &str, n: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let n = n.clamp(1, chars.len().max(1));
    let (base, extra) = (chars.len() / n, chars.len() % n);
    let mut out = Vec::with_capacity(n);
    let mut i = 0;
    for k in 0..n {
        let len = base + usize::from(k < extra);
        out.push(chars[i..i + len].iter().collect());
        i += len;
    }
    out
}

// --- a generated PNG ----------------------------------------------------------------------

/// A 48×32 gradient as a `data:` URL; `block` > 1 pixelates it (the early, blurry stages of
/// a generated image).
pub fn sample_png(block: usize) -> String {
    let (w, h) = (48usize, 32usize);
    let block = block.max(1);
    let mut raw = Vec::with_capacity(h * (1 + w * 3));
    for y in 0..h {
        raw.push(0); // filter: none
        for x in 0..w {
            let (bx, by) = (x / block * block, y / block * block);
            let dx = bx as i64 - 24;
            let dy = by as i64 - 16;
            let ring = ((dx * dx + dy * dy) as f64).sqrt() as i64 % 12 < 6;
            raw.push((bx * 255 / (w - 1)) as u8);
            raw.push((by * 255 / (h - 1)) as u8);
            raw.push(if ring { 230 } else { 120 });
        }
    }
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&(w as u32).to_be_bytes());
    ihdr.extend_from_slice(&(h as u32).to_be_bytes());
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]); // 8-bit RGB
    png_chunk(&mut png, b"IHDR", &ihdr);
    png_chunk(&mut png, b"IDAT", &zlib_stored(&raw));
    png_chunk(&mut png, b"IEND", &[]);
    format!("data:image/png;base64,{}", base64(&png))
}

fn png_chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let start = out.len();
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let crc = crc32(&out[start..]);
    out.extend_from_slice(&crc.to_be_bytes());
}

/// A zlib stream of uncompressed deflate blocks: valid, and trivial to write.
fn zlib_stored(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x78, 0x01];
    let blocks: Vec<&[u8]> = data.chunks(65_535).collect();
    for (i, block) in blocks.iter().enumerate() {
        out.push(u8::from(i + 1 == blocks.len()));
        let len = block.len() as u16;
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(block);
    }
    let (mut a, mut b) = (1u32, 0u32);
    for &byte in data {
        a = (a + u32::from(byte)) % 65_521;
        b = (b + a) % 65_521;
    }
    out.extend_from_slice(&((b << 16) | a).to_be_bytes());
    out
}

fn crc32(data: &[u8]) -> u32 {
    let mut crc = 0xffff_ffffu32;
    for &byte in data {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

fn base64(data: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, &b)| acc | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use chat_shell_core::protocol::chatkit::decode_event;

    fn thread(store: &Store) -> Thread {
        store.user("test").create_thread().unwrap()
    }

    fn events(steps: &[Step]) -> Vec<StreamEvent> {
        steps
            .iter()
            .filter_map(|s| match s {
                Step::Emit { event, .. } => Some(event.clone()),
                _ => None,
            })
            .collect()
    }

    /// Serializes every event and decodes it back as a client would: no `Other` anywhere.
    fn assert_round_trips(events: &[StreamEvent]) {
        for event in events {
            let json = serde_json::to_string(event).unwrap();
            let back = decode_event(&json).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(&back, event, "round trip of {json}");
            assert!(!matches!(back, StreamEvent::Other(_)), "{json}");
            let item = match &back {
                StreamEvent::ItemAdded(e)
                | StreamEvent::ItemDone(e)
                | StreamEvent::ItemReplaced(e) => Some(&e.item),
                _ => None,
            };
            if let Some(item) = item {
                assert!(!matches!(item.kind, ItemKind::Other(_)), "{json}");
            }
            if let StreamEvent::ItemUpdated(u) = &back {
                assert!(!matches!(u.update, ItemUpdate::Other(_)), "{json}");
            }
        }
    }

    #[test]
    fn keywords_pick_scenarios() {
        assert_eq!(Scenario::pick("hello"), Scenario::Markdown);
        assert_eq!(Scenario::pick("hello markdown"), Scenario::Markdown);
        assert_eq!(Scenario::pick("Show me a WIDGET"), Scenario::Widget);
        assert_eq!(Scenario::pick("widgets please"), Scenario::Widget);
        assert_eq!(Scenario::pick("widgetstream"), Scenario::WidgetStream);
        assert_eq!(Scenario::pick("some information"), Scenario::Markdown);
        assert_eq!(Scenario::pick("a form widget"), Scenario::Form);
        assert_eq!(Scenario::pick("long fast"), Scenario::Long);
        assert_eq!(Scenario::pick("please error out"), Scenario::Error);
        assert_eq!(Scenario::pick("clock block"), Scenario::Markdown);
        assert_eq!(Scenario::pick("nocancel"), Scenario::NoCancel);
        assert_eq!(Scenario::pick("(fork)"), Scenario::Fork);
        assert_eq!(Scenario::pick("an agent run"), Scenario::Agent);
        assert_eq!(Scenario::pick("agents"), Scenario::Agent);
        assert_eq!(Scenario::pick("agentcut please"), Scenario::AgentCut);
        assert_eq!(Scenario::pick("ask permission"), Scenario::Permission);
        assert_eq!(Scenario::pick("reagent"), Scenario::Markdown);
    }

    #[test]
    fn chunkers_keep_every_character() {
        let text = "Héllo **wörld**, a `table` | x |\n\n```rust\nfn x() {}\n```";
        for chunks in [word_chunks(text), ragged_chunks(text), even_chunks(text, 7)] {
            assert_eq!(chunks.concat(), text);
            assert!(chunks.iter().all(|c| !c.is_empty()));
        }
        let ragged = ragged_chunks(&default_markdown("hi"));
        let sizes: Vec<usize> = ragged.iter().map(|c| c.chars().count()).collect();
        assert!(
            sizes[..sizes.len() - 1]
                .iter()
                .all(|n| (4..=12).contains(n)),
            "{sizes:?}"
        );
        assert!(sizes.iter().collect::<std::collections::HashSet<_>>().len() > 3);
        assert_eq!(
            word_chunks("This answer  will\n\nfail"),
            ["This ", "answer  ", "will\n\n", "fail"]
        );
        assert_eq!(even_chunks("abcdefg", 3), ["abc", "de", "fg"]);
    }

    #[test]
    fn long_text_is_about_100_kb_in_2000_deltas() {
        let text = long_text();
        assert!((100_000..120_000).contains(&text.len()), "{}", text.len());
        assert_eq!(text, long_text(), "deterministic");
        assert!(
            text.contains("```rust") && text.contains("| Metric |") && text.contains("\n- Point")
        );
        let chunks = even_chunks(&text, 2000);
        assert_eq!(chunks.len(), 2000);
        assert_eq!(chunks.concat(), text);
    }

    #[test]
    fn titles_come_from_the_first_words() {
        assert_eq!(title_from("  hello\n world "), "hello world");
        assert_eq!(title_from(""), "New conversation");
        let t =
            title_from("Please explain how the streaming protocol handles cancellation of answers");
        assert!(t.ends_with('…') && t.chars().count() <= 41, "{t}");
        assert!(t.starts_with("Please explain how the streaming"));
    }

    #[test]
    fn titles_drop_control_and_bidi_formatting_characters() {
        assert_eq!(
            title_from("read\0 me\u{1b}[2J now \u{202e}gpj.exe\r\nplease"),
            "read me[2J now gpj.exe please"
        );
        assert_eq!(title_from("\u{202e}\u{2066} \0"), "New conversation");
    }

    #[test]
    fn every_scenario_builds_decodable_events() {
        let store = Store::open_in_memory().unwrap();
        for &(keyword, scenario) in KEYWORDS {
            let mut s = Script::new(&store, Duration::ZERO, thread(&store));
            let user = ItemId::from("msg_00000001");
            respond(&mut s, &user, keyword, 1);
            s.finish(keyword);
            let evs = events(s.steps());
            assert!(!evs.is_empty(), "{keyword}");
            assert_round_trips(&evs);
            let has_options = matches!(evs[0], StreamEvent::StreamOptions(_));
            assert_eq!(has_options, scenario != Scenario::Fork, "{keyword}");
            let ends_early = matches!(s.steps().last(), Some(Step::Drop { .. } | Step::Stall(_)))
                || matches!(evs.last(), Some(StreamEvent::Error(_)));
            let early = matches!(
                scenario,
                Scenario::Error | Scenario::Drop | Scenario::Stall | Scenario::AgentCut
            );
            assert_eq!(ends_early, early, "{keyword}");
            if !early {
                let titled = evs.iter().any(
                    |e| matches!(e, StreamEvent::ThreadUpdated(t) if t.thread.title.is_some()),
                );
                assert!(titled, "{keyword} never titles the thread");
            }
        }
    }

    #[test]
    fn error_fails_first_and_succeeds_on_retry() {
        let store = Store::open_in_memory().unwrap();
        let user = ItemId::from("msg_00000009");
        let mut s = Script::new(&store, Duration::ZERO, thread(&store));
        respond(&mut s, &user, "error", 1);
        let evs = events(s.steps());
        let Some(StreamEvent::Error(e)) = evs.last() else {
            panic!("no error at the end")
        };
        assert_eq!(e.code, "custom");
        assert!(e.allow_retry);
        assert_eq!(
            e.message.as_deref(),
            Some("The peer failed on purpose (attempt 1). Retry to succeed.")
        );
        assert!(
            !evs.iter().any(|e| matches!(e, StreamEvent::ItemDone(_))),
            "the partial item is never done"
        );
        let mut s = Script::new(&store, Duration::ZERO, thread(&store));
        respond(&mut s, &user, "error", 2);
        let evs = events(s.steps());
        let done = evs.iter().rev().find_map(|e| match e {
            StreamEvent::ItemDone(ItemEvent {
                item:
                    ThreadItem {
                        kind: ItemKind::AssistantMessage(m),
                        ..
                    },
            }) => Some(m.content[0].text.clone()),
            _ => None,
        });
        assert_eq!(
            done.as_deref(),
            Some("Retry succeeded (attempt 2 for user message `msg_00000009`).")
        );
    }

    #[test]
    fn fork_deltas_use_fresh_ids_and_growing_indexes() {
        let store = Store::open_in_memory().unwrap();
        let mut s = Script::new(&store, Duration::ZERO, thread(&store));
        respond(&mut s, &ItemId::from("msg_1"), "fork", 1);
        let evs = events(s.steps());
        let deltas: Vec<(String, usize)> = evs
            .iter()
            .filter_map(|e| match e {
                StreamEvent::ItemUpdated(ItemUpdatedEvent {
                    item_id,
                    update: ItemUpdate::TextDelta(d),
                }) => Some((item_id.0.clone(), d.content_index)),
                _ => None,
            })
            .collect();
        assert!(deltas.len() > 5);
        let ids: std::collections::HashSet<_> = deltas.iter().map(|(id, _)| id.clone()).collect();
        assert_eq!(ids.len(), deltas.len());
        assert!(ids.iter().all(|id| id.starts_with("itm_")));
        assert_eq!(
            deltas.iter().map(|d| d.1).collect::<Vec<_>>(),
            (1..=deltas.len()).collect::<Vec<_>>()
        );
        let task_ids: Vec<&ItemId> = evs
            .iter()
            .filter_map(|e| match e {
                StreamEvent::ItemAdded(ItemEvent { item })
                    if matches!(item.kind, ItemKind::Task(_)) =>
                {
                    Some(&item.id)
                }
                _ => None,
            })
            .collect();
        assert_eq!(task_ids.len(), 2);
        assert_eq!(task_ids[0], task_ids[1]);
    }

    #[test]
    fn continuations_answer_actions() {
        let store = Store::open_in_memory().unwrap();
        let th = thread(&store);
        // A confirm replaces the widget with its confirmed version.
        let mut s = Script::new(&store, Duration::ZERO, th.clone());
        let card = widget_item(&s, widget(showcase_card()), None);
        let confirm = Action {
            kind: "confirm".into(),
            payload: json!({}),
            handler: None,
            loading_behavior: None,
            streaming: None,
        };
        custom_action(&mut s, Some(&card), &confirm);
        let evs = events(s.steps());
        assert_round_trips(&evs);
        let Some(StreamEvent::ItemReplaced(r)) = evs.get(1) else {
            panic!("{evs:?}")
        };
        let json = serde_json::to_string(&r.item).unwrap();
        assert!(
            json.contains("Confirmed") && !json.contains("Sync +1"),
            "{json}"
        );
        // A sync counter click increments the count.
        let counter = Action {
            kind: "counter".into(),
            payload: json!({"count": 4}),
            handler: None,
            loading_behavior: None,
            streaming: Some(false),
        };
        let json = serde_json::to_string(&sync_action(&card, &counter)).unwrap();
        assert!(
            json.contains("Sync +1 (count=5)") && json.contains(r#""count":5"#),
            "{json}"
        );
        // A form submission lists the values.
        let mut s = Script::new(&store, Duration::ZERO, th.clone());
        let submit = Action {
            kind: "form.submit".into(),
            payload: json!({"form": "profile", "name": "Ada", "agree": true}),
            handler: None,
            loading_behavior: None,
            streaming: None,
        };
        custom_action(&mut s, Some(&card), &submit);
        let text = last_text(&events(s.steps()));
        assert!(
            text.contains("| name | Ada |") && text.contains("| agree | `true` |"),
            "{text}"
        );
        // An approval records the decision and answers.
        for (approved, word) in [(true, "Approved:"), (false, "Rejected:")] {
            let mut s = Script::new(&store, Duration::ZERO, th.clone());
            let approval = s.item(
                "wdg",
                ItemKind::ClientWidget(ClientWidget {
                    name: "tool_approval_request".into(),
                    args: json!({"tool_name": "send_payment", "call_id": "call_1"}),
                }),
            );
            let act = Action {
                kind: "approval".into(),
                payload: json!({"approved": approved, "call_id": "call_1", "request_id": null, "tool_name": "send_payment", "tool_args": "{\"amount\":42.5}"}),
                handler: Some("server".into()),
                loading_behavior: None,
                streaming: None,
            };
            custom_action(&mut s, Some(&approval), &act);
            let evs = events(s.steps());
            assert_round_trips(&evs);
            let decision = if approved { "approved" } else { "rejected" };
            assert!(evs.iter().any(|e| matches!(e, StreamEvent::ItemReplaced(r) if serde_json::to_string(&r.item).unwrap().contains(&format!(r#""decision":"{decision}""#)))));
            assert!(last_text(&evs).starts_with(word), "{}", last_text(&evs));
        }
        // A structured input answer is replaced and summarised.
        let mut s = Script::new(&store, Duration::ZERO, th);
        let mut questions = structured_questions();
        questions.status = StructuredInputStatus::Answered;
        questions.inputs[0].answer = Some(chat_shell_core::protocol::chatkit::StructuredAnswer {
            values: vec!["green".into()],
            skipped: false,
        });
        let item = s.item("msg", ItemKind::StructuredInput(questions));
        structured_answered(&mut s, &item);
        assert!(last_text(&events(s.steps())).contains("- **Pick a color** green"));
    }

    fn last_text(evs: &[StreamEvent]) -> String {
        evs.iter()
            .rev()
            .find_map(|e| match e {
                StreamEvent::ItemDone(ItemEvent {
                    item:
                        ThreadItem {
                            kind: ItemKind::AssistantMessage(m),
                            ..
                        },
                }) => Some(m.content[0].text.clone()),
                _ => None,
            })
            .unwrap_or_default()
    }

    #[test]
    fn sample_png_is_a_valid_png() {
        let url = sample_png(4);
        assert!(url.starts_with("data:image/png;base64,iVBORw0KGgo"));
        assert_eq!(base64(b"Man"), "TWFu");
        assert_eq!(base64(b"Ma"), "TWE=");
        assert_eq!(base64(b"M"), "TQ==");
        assert_eq!(crc32(b"IEND"), 0xae42_6082);
        assert_ne!(sample_png(8), sample_png(1));
    }
}
