//! The conversation shown, for the reader to keep: Markdown for people (what was said, the
//! answers' own markdown, tool calls as one line each, widgets as their text) and JSON of
//! the neutral model for machines. Both follow the items a view shows, in order.

use crate::model::EntryKind;
use crate::protocol::acp::ToolCallStatus;
use crate::protocol::chatkit::{ClientToolStatus, WidgetComponent};
use crate::reducer::{assistant_text, ChatState, EntryState};
use crate::strings::{Strings, Text};
use serde_json::{json, Value};

/// What an export is written as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Markdown,
    Json,
}

impl Format {
    /// `"markdown"` or `"json"` (the host API's names); `None` for anything else.
    pub fn from_name(name: &str) -> Option<Format> {
        match name {
            "markdown" | "md" => Some(Format::Markdown),
            "json" => Some(Format::Json),
            _ => None,
        }
    }

    /// The file's extension and type, for a download.
    pub fn file(self) -> (&'static str, &'static str) {
        match self {
            Format::Markdown => ("md", "text/markdown;charset=utf-8"),
            Format::Json => ("json", "application/json"),
        }
    }
}

/// The conversation shown, as `format`.
pub fn export(state: &ChatState, strings: &Strings, format: Format) -> String {
    match format {
        Format::Markdown => markdown(state, strings),
        Format::Json => serde_json::to_string_pretty(&json_model(state)).unwrap_or_default(),
    }
}

/// A file name for the export: the thread's title with only letters, digits, `-` and `_`
/// (others become `-`), or `conversation`.
pub fn file_name(state: &ChatState, format: Format) -> String {
    let title = state
        .thread
        .as_ref()
        .and_then(|t| t.title.as_deref())
        .unwrap_or("");
    let mut name = String::new();
    for c in title.trim().chars().take(80) {
        if c.is_alphanumeric() || c == '-' || c == '_' {
            name.push(c);
        } else if !name.ends_with('-') {
            name.push('-');
        }
    }
    let name = name.trim_matches('-');
    let name = if name.is_empty() {
        "conversation"
    } else {
        name
    };
    format!("{name}.{}", format.file().0)
}

/// Who said an item, for Markdown's headings.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Speaker {
    User,
    Assistant,
}

fn markdown(state: &ChatState, strings: &Strings) -> String {
    let title = state
        .thread
        .as_ref()
        .and_then(|t| t.title.clone())
        .filter(|t| !t.trim().is_empty())
        .unwrap_or_else(|| strings.get(Text::NewChat).to_owned());
    let mut out = format!("# {}\n", one_line(&title));
    let mut speaker = None;
    for item in state.visible_items() {
        let Some((who, text)) = item_markdown(item, strings) else {
            continue;
        };
        if speaker != Some(who) {
            speaker = Some(who);
            let heading = match who {
                Speaker::User => strings.get(Text::ExportYou),
                Speaker::Assistant => strings.get(Text::ExportAssistant),
            };
            out.push_str(&format!("\n## {heading}\n"));
        }
        out.push('\n');
        out.push_str(text.trim_end());
        out.push('\n');
    }
    out
}

/// An item's Markdown and who said it; `None` for what an export leaves out (turn ends,
/// thoughts, notes, images, tasks).
fn item_markdown(item: &EntryState, strings: &Strings) -> Option<(Speaker, String)> {
    let status = |done: bool, failed: bool| {
        strings.get(if failed {
            Text::ExportFailed
        } else if done {
            Text::ExportDone
        } else {
            Text::ExportUnfinished
        })
    };
    let line = |title: &str, status: &str| {
        format!(
            "- {}",
            strings.format(
                Text::ExportToolCall,
                &[("title", &one_line(title)), ("status", status)]
            )
        )
    };
    Some(match &item.entry.kind {
        EntryKind::UserMessage(m) => {
            let mut text = m.text();
            let names: Vec<&str> = m.attachments.iter().map(|a| a.name.as_str()).collect();
            if !names.is_empty() {
                text.push_str(&format!(
                    "\n\n{}",
                    strings.format(Text::ExportAttachments, &[("names", &names.join(", "))])
                ));
            }
            (Speaker::User, text)
        }
        EntryKind::AssistantText(_) => (Speaker::Assistant, assistant_text(item)?),
        EntryKind::ToolCall(t) => {
            let s = &t.tool_call.status;
            let status = status(
                *s == ToolCallStatus::Completed,
                *s == ToolCallStatus::Failed,
            );
            (Speaker::Assistant, line(&t.tool_call.title, status))
        }
        EntryKind::ClientToolCall(t) => (
            Speaker::Assistant,
            line(
                &t.name,
                status(t.status == ClientToolStatus::Completed, false),
            ),
        ),
        EntryKind::Widget(w) => {
            let text = match &w.copy_text {
                Some(copy) if !copy.trim().is_empty() => copy.clone(),
                _ => widget_text(&w.widget),
            };
            (!text.trim().is_empty()).then_some((Speaker::Assistant, text))?
        }
        _ => return None,
    })
}

/// The text a widget shows, one line per text component, in order.
fn widget_text(node: &WidgetComponent) -> String {
    fn walk(node: &WidgetComponent, out: &mut Vec<String>) {
        for key in ["value", "label", "title", "text"] {
            if let Some(text) = node.props.get(key).and_then(Value::as_str) {
                if !text.trim().is_empty() {
                    out.push(text.trim().to_owned());
                }
                break;
            }
        }
        for child in &node.children {
            walk(child, out);
        }
    }
    let mut lines = Vec::new();
    walk(node, &mut lines);
    lines.join("\n")
}

/// A heading's or a line's text on one line.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The neutral model of the conversation shown: the thread, then each item with its type
/// and what it says.
fn json_model(state: &ChatState) -> Value {
    let items: Vec<Value> = state.visible_items().filter_map(item_json).collect();
    json!({
        "thread": state.thread.as_ref().map(|t| json!({
            "id": t.id.as_str(),
            "title": t.title,
            "created_at": t.created_at,
        })),
        "items": items,
    })
}

fn item_json(item: &EntryState) -> Option<Value> {
    let entry = &item.entry;
    let mut value = match &entry.kind {
        EntryKind::UserMessage(m) => json!({
            "type": "user_message",
            "text": m.text(),
            "attachments": m.attachments.iter().map(|a| a.name.as_str()).collect::<Vec<_>>(),
        }),
        EntryKind::AssistantText(_) => json!({
            "type": "assistant_message",
            "text": assistant_text(item)?,
        }),
        EntryKind::ToolCall(t) => json!({
            "type": "tool_call",
            "title": t.tool_call.title,
            "kind": t.tool_call.kind.as_str(),
            "status": t.tool_call.status.as_str(),
        }),
        EntryKind::ClientToolCall(t) => json!({
            "type": "client_tool_call",
            "name": t.name,
            "arguments": t.arguments,
            "status": if t.status == ClientToolStatus::Completed { "completed" } else { "pending" },
            "output": t.output,
        }),
        EntryKind::Widget(w) => json!({
            "type": "widget",
            "text": w.copy_text.clone().unwrap_or_else(|| widget_text(&w.widget)),
        }),
        EntryKind::Thought(t) => json!({ "type": "thought", "text": t.text }),
        EntryKind::Plan(p) => json!({
            "type": "plan",
            "entries": p.entries.iter().map(|e| e.content.as_str()).collect::<Vec<_>>(),
        }),
        EntryKind::EndOfTurn(_) => return None,
        _ => json!({ "type": "other" }),
    };
    value["id"] = json!(entry.id.as_str());
    if !entry.created_at.is_empty() {
        value["created_at"] = json!(entry.created_at);
    }
    Some(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    use crate::test_threads::{answer, item, loaded as thread, user};

    fn conversation() -> ChatState {
        thread(
            "Parsing: TOML & JSON?",
            vec![
                user("u1", "How do I parse TOML?"),
                answer(
                    "a1",
                    "Use the `toml` crate:\n\n```rust\ntoml::from_str(s)\n```",
                ),
                item(
                    "w1",
                    json!({"type": "widget", "widget": {"type": "Card", "children": [
                    {"type": "Title", "value": "Crates"},
                    {"type": "Text", "value": "toml 0.8"}]}}),
                ),
                item(
                    "t1",
                    json!({"type": "client_tool_call", "status": "completed",
                    "call_id": "c1", "name": "get_version", "arguments": {}}),
                ),
                answer("a2", "Done."),
                user("u2", "And <b>JSON</b>?"),
                answer("a3", "serde_json."),
            ],
        )
    }

    #[test]
    fn markdown_holds_the_conversation_in_order() {
        let md = export(&conversation(), &Strings::new("en"), Format::Markdown);
        assert_eq!(
            md,
            "# Parsing: TOML & JSON?\n\
             \n## You\n\nHow do I parse TOML?\n\
             \n## Assistant\n\nUse the `toml` crate:\n\n```rust\ntoml::from_str(s)\n```\n\
             \nCrates\ntoml 0.8\n\
             \n- Tool call: get_version (done)\n\
             \nDone.\n\
             \n## You\n\nAnd <b>JSON</b>?\n\
             \n## Assistant\n\nserde_json.\n"
        );
    }

    #[test]
    fn markdown_speaks_the_locale() {
        let md = export(&conversation(), &Strings::new("fr"), Format::Markdown);
        assert!(md.contains("\n## Vous\n"), "{md}");
        assert!(md.contains("Appel d'outil : get_version (terminé)"), "{md}");
    }

    #[test]
    fn json_is_the_neutral_model_in_order() {
        let text = export(&conversation(), &Strings::new("en"), Format::Json);
        let v: Value = serde_json::from_str(&text).expect("JSON");
        assert_eq!(v["thread"]["id"], "thr_1");
        let types: Vec<&str> = v["items"]
            .as_array()
            .expect("items")
            .iter()
            .map(|i| i["type"].as_str().unwrap_or(""))
            .collect();
        assert_eq!(
            types,
            [
                "user_message",
                "assistant_message",
                "widget",
                "client_tool_call",
                "assistant_message",
                "user_message",
                "assistant_message"
            ]
        );
        assert_eq!(v["items"][0]["text"], "How do I parse TOML?");
        assert_eq!(v["items"][0]["id"], "u1");
        assert_eq!(v["items"][2]["text"], "Crates\ntoml 0.8");
        assert_eq!(v["items"][3]["status"], "completed");
    }

    #[test]
    fn file_names_are_safe() {
        let state = conversation();
        assert_eq!(file_name(&state, Format::Markdown), "Parsing-TOML-JSON.md");
        let state = thread("../../etc/passwd", vec![]);
        assert_eq!(file_name(&state, Format::Json), "etc-passwd.json");
        assert_eq!(
            file_name(&ChatState::new(), Format::Markdown),
            "conversation.md"
        );
        assert_eq!(Format::from_name("json"), Some(Format::Json));
        assert_eq!(Format::from_name("pdf"), None);
    }
}
