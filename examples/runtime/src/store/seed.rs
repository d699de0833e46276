//! The seeded thread of `--seed-thread N` (benchmarks): questions and answers in turn, or
//! with `--seed-mixed` the kinds an agent thread has (answers with code, tool calls with
//! diffs, widgets).

use super::*;
use chat_shell_core::protocol::chatkit::{
    AssistantContent, AssistantMessage, InputText, ItemId, ItemKind, Thread, ThreadId, ThreadItem,
    ThreadStatus, UserContent, UserMessage,
};
use chat_shell_core::protocol::decode::Decode;
use chat_shell_core::protocol::JsonMap;
use rusqlite::params;
use serde_json::{json, Value};

impl Store {
    /// Creates a titled thread holding `n` items, questions and answers in turn (`mixed`:
    /// some answers are tool calls or widgets, see [`items`]). One transaction, so
    /// thousands take milliseconds. It has no owner: the first identity to use the runtime
    /// claims it.
    pub fn seed_thread(&self, n: usize, mixed: bool) -> Result<ThreadId> {
        let thread = Thread {
            branching: false,
            id: ThreadId(new_id("thr")),
            title: Some(format!("Seeded thread ({n} items)")),
            created_at: now_iso(),
            status: ThreadStatus::default(),
            metadata: JsonMap::new(),
            items: None,
        };
        let items = items(&thread.id, n, mixed);
        if let Some(pg) = self.pg() {
            pg.seed_thread(&thread, &items)?;
            return Ok(thread.id);
        }
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        tx.execute(
            "INSERT INTO threads (id, title, created_at, status_json, metadata_json) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                thread.id.as_str(),
                thread.title,
                thread.created_at,
                to_json(&thread.status)?,
                to_json(&thread.metadata)?
            ],
        )?;
        {
            let mut insert = tx.prepare(
                "INSERT INTO items (id, thread_id, seq, created_at, json) VALUES (?1, ?2, ?3, ?4, ?5)",
            )?;
            for (i, item) in items.iter().enumerate() {
                insert.execute(params![
                    item.id.as_str(),
                    thread.id.as_str(),
                    i as i64 + 1,
                    item.created_at,
                    to_json(item)?
                ])?;
            }
        }
        tx.commit()?;
        Ok(thread.id)
    }
}

/// The `n` items of the seeded thread: item `2k` is the user's "Seeded question k+1", item
/// `2k+1` the assistant's "Seeded answer k+1: …". With `mixed`, pair `k` answers with an
/// `acp_tool_call` editing a file when `k % 4 == 1`, a widget when `k % 4 == 3`, and every
/// third answer carries a code block; the newest answer is always a plain message, so a
/// benchmark finds "Seeded answer N/2:" at the end.
fn items(thread: &ThreadId, n: usize, mixed: bool) -> Vec<ThreadItem> {
    (0..n)
        .map(|i| {
            let pair = i / 2;
            let turn = pair + 1;
            let newest_answer = i + 2 >= n;
            let (prefix, kind) = if i % 2 == 0 {
                ("msg", question(turn))
            } else if !mixed || newest_answer {
                ("asst", answer(turn, false))
            } else {
                match pair % 4 {
                    1 => ("call", tool_call(turn)),
                    3 => ("wdg", widget(turn)),
                    _ => ("asst", answer(turn, pair % 3 == 2)),
                }
            };
            ThreadItem {
                branches: Vec::new(),
                id: ItemId(new_id(prefix)),
                thread_id: Some(thread.clone()),
                created_at: now_iso(),
                kind,
            }
        })
        .collect()
}

fn question(turn: usize) -> ItemKind {
    ItemKind::UserMessage(UserMessage {
        content: vec![UserContent::InputText(InputText {
            text: format!("Seeded question {turn}"),
        })],
        ..Default::default()
    })
}

fn answer(turn: usize, with_code: bool) -> ItemKind {
    let mut text = format!(
        "Seeded answer {turn}: a **short** reply with a [link](https://example.com/{turn}) \
         and a list:\n\n- one\n- two"
    );
    if with_code {
        text.push_str(&format!(
            "\n\nIn Rust:\n\n```rust\n\
             /// The sum of the first `n` squares.\n\
             fn sum_of_squares(n: u64) -> u64 {{\n    \
                 let mut total = 0;\n    \
                 for i in 1..=n {{\n        \
                     total += i * i;\n    \
                 }}\n    \
                 total\n\
             }}\n\
             \n\
             fn main() {{\n    \
                 println!(\"{{}}\", sum_of_squares({turn}));\n\
             }}\n```"
        ));
    }
    ItemKind::AssistantMessage(AssistantMessage {
        content: vec![AssistantContent::text(text)],
    })
}

/// A completed edit of `src/lib.rs`: a 40-line file of which a few lines change.
fn tool_call(turn: usize) -> ItemKind {
    let old: Vec<String> = (1..=40)
        .map(|j| format!("pub fn step_{j}(x: u32) -> u32 {{ x + {j} }}"))
        .collect();
    let changed = 3 + turn % 20;
    let mut new = old.clone();
    for j in [changed, changed + 1] {
        new[j] = format!("pub fn step_{}(x: u32) -> u32 {{ x * {} }}", j + 1, j + 1);
    }
    new.insert(changed + 15, format!("// Checked in turn {turn}."));
    kind(json!({
        "type": "acp_tool_call",
        "tool_call": {
            "toolCallId": new_id("call"),
            "title": "Edit src/lib.rs",
            "kind": "edit",
            "status": "completed",
            "content": [{
                "type": "diff",
                "path": "src/lib.rs",
                "oldText": old.join("\n") + "\n",
                "newText": new.join("\n") + "\n",
            }],
        },
    }))
}

/// A small status card.
fn widget(turn: usize) -> ItemKind {
    kind(json!({
        "type": "widget",
        "copy_text": format!("Build {turn}: passed"),
        "widget": {
            "type": "Card", "key": format!("seed-{turn}"), "size": "sm",
            "children": [
                {"type": "Row", "align": "center", "gap": 2, "children": [
                    {"type": "Title", "value": format!("Build {turn}"), "size": "sm"},
                    {"type": "Spacer"},
                    {"type": "Badge", "label": "passed", "color": "success", "variant": "soft", "pill": true},
                ]},
                {"type": "Text", "value": format!("{} checks ran in {} s.", 10 + turn % 90, 5 + turn % 55), "color": "secondary"},
                {"type": "Caption", "value": format!("Seeded widget {turn}")},
            ],
        },
    }))
}

/// The kind of an item written as its wire JSON, `type` and body (the tests check that
/// each reads as the kind it names, not as an unknown one).
fn kind(body: Value) -> ItemKind {
    ItemKind::decode(&body).expect("seeded items are valid")
}

#[cfg(test)]
mod tests {
    use super::*;
    use chat_shell_core::protocol::acp::{ToolCallContent, ToolCallStatus, ToolKind};

    fn thread() -> ThreadId {
        ThreadId("thr_test".into())
    }

    fn text(item: &ThreadItem) -> String {
        match &item.kind {
            ItemKind::UserMessage(m) => m.text(),
            ItemKind::AssistantMessage(m) => m.content.iter().map(|c| c.text.as_str()).collect(),
            other => panic!("not a message: {other:?}"),
        }
    }

    #[test]
    fn a_plain_seed_is_questions_and_answers() {
        let items = items(&thread(), 5, false);
        assert_eq!(items.len(), 5);
        for (i, item) in items.iter().enumerate() {
            let turn = i / 2 + 1;
            if i % 2 == 0 {
                assert_eq!(text(item), format!("Seeded question {turn}"));
            } else {
                assert!(text(item).starts_with(&format!("Seeded answer {turn}:")));
                assert!(!text(item).contains("```"));
            }
        }
    }

    #[test]
    fn a_mixed_seed_has_the_kinds_of_an_agent_thread() {
        let items = items(&thread(), 40, true);
        assert_eq!(items.len(), 40);
        let (mut questions, mut calls, mut widgets, mut answers, mut with_code) = (0, 0, 0, 0, 0);
        for (i, item) in items.iter().enumerate() {
            let turn = i / 2 + 1;
            assert_eq!(item.thread_id, Some(thread()));
            match &item.kind {
                ItemKind::UserMessage(m) => {
                    assert_eq!(i % 2, 0);
                    assert_eq!(m.text(), format!("Seeded question {turn}"));
                    questions += 1;
                }
                ItemKind::AssistantMessage(_) => {
                    assert_eq!(i % 2, 1);
                    let text = text(item);
                    assert!(
                        text.starts_with(&format!("Seeded answer {turn}:")),
                        "{text}"
                    );
                    answers += 1;
                    if text.contains("```rust\n") {
                        assert!(text.lines().count() > 10, "{text}");
                        with_code += 1;
                    }
                }
                ItemKind::AcpToolCall(c) => {
                    assert_eq!(i % 8, 3);
                    let call = &c.tool_call;
                    assert_eq!(call.title, "Edit src/lib.rs");
                    assert_eq!(
                        (&call.kind, &call.status),
                        (&ToolKind::Edit, &ToolCallStatus::Completed)
                    );
                    let [ToolCallContent::Diff(diff)] = call.content.as_slice() else {
                        panic!("{:?}", call.content);
                    };
                    assert_eq!(diff.path, "src/lib.rs");
                    let old = diff.old_text.as_deref().unwrap();
                    assert_eq!(old.lines().count(), 40);
                    assert_eq!(diff.new_text.lines().count(), 41);
                    let new_lines = diff.new_text.lines().filter(|l| !old.contains(l));
                    assert_eq!(new_lines.count(), 3, "{}", diff.new_text);
                    calls += 1;
                }
                ItemKind::Widget(w) => {
                    assert_eq!(i % 8, 7);
                    assert_eq!(w.copy_text, Some(format!("Build {turn}: passed")));
                    assert_eq!(w.widget.kind, "Card");
                    assert!(w.widget.children.iter().all(|c| c.is_known()));
                    widgets += 1;
                }
                other => panic!("item {i}: {other:?}"),
            }
        }
        assert_eq!(questions, 20);
        assert_eq!((calls, widgets), (5, 4));
        assert_eq!(answers, 11);
        assert_eq!(with_code, 3);
        let last = text(items.last().unwrap());
        assert!(
            last.starts_with("Seeded answer 20:") && !last.contains("```"),
            "{last}"
        );
    }

    #[test]
    fn the_newest_answer_of_a_mixed_seed_is_a_plain_message() {
        // Pair 3 (0-based) would be a widget, pair 1 a tool call.
        for n in [8, 4, 7, 3] {
            let items = items(&thread(), n, true);
            let newest = items
                .iter()
                .rposition(|i| !matches!(i.kind, ItemKind::UserMessage(_)));
            assert_eq!(newest, Some((n - 2) | 1), "{n}");
            let text = text(&items[(n - 2) | 1]);
            assert!(
                text.starts_with(&format!("Seeded answer {}:", n / 2)),
                "{text}"
            );
            assert!(!text.contains("```"), "{text}");
        }
    }
}
