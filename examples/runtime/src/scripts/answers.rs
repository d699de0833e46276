//! Choosing a scenario by keyword, and the answer to a user message.

use crate::agent;

use super::rich::{annotations, fork, image, structured_questions, widget_stream};
use super::tasks::{edit, progress, task, workflow};
use super::texts::{
    code_markdown, default_markdown, even_chunks, long_text, ragged_chunks, word_chunks,
};
use super::widgets::{chart_card, form_card, list_view, showcase_card, widget, widget_item};
use super::{delta, Script};
use chat_shell_core::protocol::chatkit::{
    AssistantContent, AssistantMessage, ClientToolCall, ClientToolStatus, ClientWidget,
    ContentPartEvent, EndOfTurn, ItemId, ItemKind, ItemUpdate, NoticeLevel, StatusBody,
    ThreadStatus,
};
use serde_json::json;
use std::time::Duration;

// --- choosing a scenario ---------------------------------------------------------------

/// What the runtime answers with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scenario {
    Markdown,
    Code,
    /// Formulas, inline and displayed, in each of the four delimiters (`$…$`, `\(…\)`,
    /// `$$…$$`, `\[…\]`), and one that does not parse.
    Math,
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
    ("code", Scenario::Code),
    ("math", Scenario::Math),
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

/// The `math` answer.
const MATH_MARKDOWN: &str = "Euler's identity, $e^{i\\pi} + 1 = 0$, and the same with \
other delimiters: \\(a^2 + b^2 = c^2\\).

The quadratic formula:

$$x = \\frac{-b \\pm \\sqrt{b^2 - 4ac}}{2a}$$

A sum:

\\[\\sum_{k=1}^{n} k = \\frac{n(n+1)}{2}\\]

This one does not parse: $\\frac{1}$. Money is not math: it costs $5 or $10.
";

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
            let mut md = default_markdown(text);
            // Answered again (a retry, an answer regenerated): said first, so the two
            // answers differ.
            if attempt > 1 {
                md = format!("Answer {attempt} to this message.\n\n{md}");
            }
            s.message(&md, ragged_chunks(&md), pace, Vec::new());
        }
        Scenario::Math => {
            let md = MATH_MARKDOWN;
            s.message(md, ragged_chunks(md), pace, Vec::new());
        }
        Scenario::Code => {
            // `code big`: one 2,000-line block, streamed fast (the highlighting benchmark).
            let lower = text.to_lowercase();
            let md = code_markdown(if lower.contains("big") { 2000 } else { 0 });
            let gap = if lower.contains("fast") {
                Duration::from_millis(5)
            } else {
                pace
            };
            s.message(
                &md,
                even_chunks(&md, md.len().div_ceil(40).max(1)),
                gap,
                Vec::new(),
            );
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
