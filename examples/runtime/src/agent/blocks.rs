//! The building blocks of the scripted agent's answers: tool call contents, a tool call
//! item that follows its own updates, a plan advanced step by step, a streamed thought.

use crate::scripts::{word_chunks, Script};
use chat_shell_core::protocol::acp::{
    ContentBlock, ContentItem, Diff, Plan, PlanEntry, PlanEntryPriority, PlanEntryStatus, Terminal,
    TextBlock, ToolCall, ToolCallContent, ToolCallId, ToolCallLocation, ToolCallStatus,
    ToolCallUpdate, ToolKind,
};
use chat_shell_core::protocol::chatkit::{
    AcpPlanItem, AcpThoughtChunk, AcpThoughtItem, AcpToolCallItem, AcpToolCallUpdated, ItemKind,
    ItemUpdate, ThreadItem,
};
use serde_json::{json, Value};

/// The repository the scripted agent works in.
pub(super) const REPO: &str = "/repo";

pub(super) fn text(markdown: &str) -> ToolCallContent {
    ToolCallContent::Content(ContentItem {
        content: ContentBlock::Text(TextBlock {
            text: markdown.to_owned(),
            annotations: None,
        }),
    })
}

pub(super) fn diff(path: &str, old: Option<&str>, new: &str) -> ToolCallContent {
    ToolCallContent::Diff(Diff {
        path: path.to_owned(),
        old_text: old.map(str::to_owned),
        new_text: new.to_owned(),
    })
}

pub(super) fn terminal(id: &str) -> ToolCallContent {
    ToolCallContent::Terminal(Terminal {
        terminal_id: id.to_owned(),
    })
}

pub(super) fn location(path: &str, line: Option<u32>) -> ToolCallLocation {
    ToolCallLocation {
        path: path.to_owned(),
        line,
    }
}

/// ACP's `terminal/output` answer, the raw output chat-shell shows for terminal content.
pub(super) fn terminal_output(output: &str, exit_code: Option<i32>) -> Value {
    let mut value = json!({ "output": output, "truncated": false });
    if let Some(code) = exit_code {
        value["exitStatus"] = json!({ "exitCode": code, "signal": null });
    }
    value
}

pub(super) fn status(status: ToolCallStatus) -> ToolCallUpdate {
    ToolCallUpdate {
        status: Some(status),
        ..ToolCallUpdate::default()
    }
}

/// A tool call item being streamed: the copy kept here follows every update sent, so its
/// `thread.item.done` carries what the client has.
pub(super) struct Call {
    pub(super) item: ThreadItem,
}

impl Call {
    /// Announces `tool_call` as a new item (`thread.item.added`).
    pub(super) fn start(s: &mut Script<'_>, tool_call: ToolCall) -> Call {
        let item = s.item(
            "tc",
            ItemKind::AcpToolCall(AcpToolCallItem {
                tool_call,
                permission: None,
            }),
        );
        s.added(&item);
        Call { item }
    }

    fn call_mut(&mut self) -> &mut AcpToolCallItem {
        match &mut self.item.kind {
            ItemKind::AcpToolCall(call) => call,
            _ => unreachable!("a Call holds a tool call item"),
        }
    }

    fn tool_call_id(&mut self) -> ToolCallId {
        self.call_mut().tool_call.tool_call_id.clone()
    }

    /// Sends `update` (an `acp_tool_call.update`) and applies it here.
    pub(super) fn update(&mut self, s: &mut Script<'_>, mut update: ToolCallUpdate) -> &mut Self {
        update.tool_call_id = self.tool_call_id();
        self.call_mut().tool_call.apply(update.clone());
        s.update(
            &self.item.id,
            ItemUpdate::AcpToolCallUpdated(AcpToolCallUpdated { update }),
        );
        self
    }

    /// Sends the finished item (`thread.item.done`).
    pub(super) fn done(self, s: &mut Script<'_>) -> ThreadItem {
        s.done(&self.item);
        self.item
    }
}

pub(super) fn tool_call(
    s: &Script<'_>,
    title: &str,
    kind: ToolKind,
    status: ToolCallStatus,
    raw_input: Value,
) -> ToolCall {
    ToolCall {
        tool_call_id: ToolCallId(s.id("call").0),
        title: title.to_owned(),
        kind,
        status,
        content: Vec::new(),
        locations: Vec::new(),
        raw_input: Some(raw_input),
        raw_output: None,
    }
}

/// An `acp_plan` item being streamed.
pub(super) struct PlanItem {
    item: ThreadItem,
}

impl PlanItem {
    pub(super) fn start(s: &mut Script<'_>, steps: &[(&str, PlanEntryPriority)]) -> PlanItem {
        let entries = steps
            .iter()
            .enumerate()
            .map(|(i, (content, priority))| PlanEntry {
                content: (*content).to_owned(),
                priority: priority.clone(),
                status: if i == 0 {
                    PlanEntryStatus::InProgress
                } else {
                    PlanEntryStatus::Pending
                },
            })
            .collect();
        let item = s.item("pln", ItemKind::AcpPlan(AcpPlanItem { entries }));
        s.added(&item);
        PlanItem { item }
    }

    /// Entry `done` is completed, the next one in progress (`acp_plan.update`, the whole
    /// list, as ACP sends it).
    pub(super) fn advance(&mut self, s: &mut Script<'_>, done: usize) {
        let ItemKind::AcpPlan(plan) = &mut self.item.kind else {
            return;
        };
        for (i, entry) in plan.entries.iter_mut().enumerate() {
            entry.status = match i {
                i if i <= done => PlanEntryStatus::Completed,
                i if i == done + 1 => PlanEntryStatus::InProgress,
                _ => PlanEntryStatus::Pending,
            };
        }
        let entries = plan.entries.clone();
        s.update(&self.item.id, ItemUpdate::AcpPlanUpdated(Plan { entries }));
    }

    pub(super) fn done(self, s: &mut Script<'_>) {
        s.done(&self.item);
    }
}

/// An `acp_thought` item: added empty, streamed as `acp_thought.chunk`s, then done.
pub(super) fn thought(s: &mut Script<'_>, reasoning: &str) {
    let mut item = s.item(
        "thg",
        ItemKind::AcpThought(AcpThoughtItem {
            text: String::new(),
        }),
    );
    s.added(&item);
    let pace = s.pace();
    for chunk in word_chunks(reasoning) {
        s.wait(pace).update(
            &item.id,
            ItemUpdate::AcpThoughtChunk(AcpThoughtChunk {
                content: ContentBlock::Text(TextBlock {
                    text: chunk,
                    annotations: None,
                }),
            }),
        );
    }
    item.kind = ItemKind::AcpThought(AcpThoughtItem {
        text: reasoning.to_owned(),
    });
    s.done(&item);
}
