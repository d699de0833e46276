//! ChatKit (`protocol::chatkit`, the default protocol) as reducer input: each stream event
//! one to one onto a [`Streamed`] verb, each item onto an [`Entry`] of the thread model,
//! each item update onto an [`ItemChange`]; the ACP extension updates through [`super::acp`].

use super::acp;
use crate::model::{Elicitation, Entry, EntryKind, Permission, Plan, Thought, ToolCall};
use crate::protocol::chatkit::{
    decode_event, AcpPermission, ItemKind, ItemUpdate, Page, StreamEvent, Thread, ThreadItem,
};
use crate::reducer::{Input, ItemChange, Streamed};
use crate::sse::SseFrame;

/// The inputs one SSE frame maps to (the end of the stream is the runtime's call).
pub fn push(frame: SseFrame) -> Vec<Input> {
    match frame {
        SseFrame::Event { data, .. } => vec![data_input(&data)],
        // The runtime reports an oversized stream itself.
        SseFrame::Done | SseFrame::Oversized { .. } => Vec::new(),
    }
}

/// The input one `data:` payload maps to: its event, or the payload that did not decode.
pub fn data_input(data: &str) -> Input {
    match decode_event(data) {
        Ok(event) => input(event),
        Err(e) => Input::Malformed(e),
    }
}

/// The input of one decoded stream event.
pub fn input(event: StreamEvent) -> Input {
    Input::Stream(streamed(event))
}

fn streamed(event: StreamEvent) -> Streamed {
    match event {
        StreamEvent::ThreadCreated(e) => Streamed::ThreadCreated(e.thread),
        StreamEvent::ThreadUpdated(e) => Streamed::ThreadUpdated(e.thread),
        StreamEvent::ItemAdded(e) => Streamed::ItemAdded(entry(e.item)),
        StreamEvent::ItemUpdated(e) => Streamed::ItemChanged {
            item_id: e.item_id,
            change: item_change(e.update),
        },
        StreamEvent::ItemDone(e) => Streamed::ItemDone(entry(e.item)),
        StreamEvent::ItemRemoved(e) => Streamed::ItemRemoved(e.item_id),
        StreamEvent::ItemReplaced(e) => Streamed::ItemReplaced(entry(e.item)),
        StreamEvent::StreamOptions(e) => Streamed::AllowCancel(e.stream_options.allow_cancel),
        StreamEvent::ProgressUpdate(e) => Streamed::Progress {
            icon: e.icon,
            text: e.text,
        },
        StreamEvent::ClientEffect(e) => Streamed::ClientEffect {
            name: e.name,
            data: e.data,
        },
        StreamEvent::Error(e) => Streamed::Failed {
            message: e.message,
            code: e.code,
            allow_retry: e.allow_retry,
        },
        StreamEvent::Notice(e) => Streamed::Notice(e),
        StreamEvent::Other(u) => Streamed::Unknown(u),
    }
}

fn item_change(update: ItemUpdate) -> ItemChange {
    match update {
        ItemUpdate::ContentPartAdded(e) => ItemChange::PartAdded {
            index: e.content_index,
            part: e.content,
        },
        ItemUpdate::TextDelta(e) => ItemChange::TextDelta {
            index: e.content_index,
            delta: e.delta,
        },
        ItemUpdate::AnnotationAdded(e) => ItemChange::Annotation {
            index: e.content_index,
            at: e.annotation_index,
            annotation: e.annotation,
        },
        ItemUpdate::ContentPartDone(e) => ItemChange::PartDone {
            index: e.content_index,
            part: e.content,
        },
        ItemUpdate::WidgetTextDelta(e) => ItemChange::WidgetText {
            component_id: e.component_id,
            delta: e.delta,
        },
        ItemUpdate::WidgetComponentUpdated(e) => ItemChange::WidgetComponent {
            component_id: e.component_id,
            component: e.component,
        },
        ItemUpdate::WidgetRootUpdated(e) => ItemChange::WidgetRoot(e.widget),
        ItemUpdate::WorkflowTaskAdded(e) => ItemChange::TaskAdded {
            index: e.task_index,
            task: e.task,
        },
        ItemUpdate::WorkflowTaskUpdated(e) => ItemChange::TaskUpdated {
            index: e.task_index,
            task: e.task,
        },
        ItemUpdate::GeneratedImageUpdated(e) => ItemChange::Image {
            image: e.image,
            progress: e.progress,
        },
        ItemUpdate::AcpToolCallUpdated(e) => acp::tool_call_updated(e.update),
        ItemUpdate::AcpPermissionRequested(e) => acp::permission_requested(e.request),
        ItemUpdate::AcpPermissionResolved(e) => acp::permission_resolved(e),
        ItemUpdate::AcpPlanUpdated(plan) => acp::plan(plan),
        ItemUpdate::AcpThoughtChunk(e) => acp::thought_chunk(e.content),
        ItemUpdate::AcpElicitationResolved(e) => acp::elicitation_resolved(e.outcome),
        ItemUpdate::Other(u) => ItemChange::Unknown(u),
    }
}

/// A ChatKit item as an entry of the thread model (the ACP extension items become the
/// model's tool calls, plans and thoughts).
pub fn entry(item: ThreadItem) -> Entry {
    let kind = match item.kind {
        ItemKind::UserMessage(m) => EntryKind::UserMessage(m),
        ItemKind::AssistantMessage(m) => EntryKind::AssistantText(m),
        ItemKind::ClientToolCall(c) => EntryKind::ClientToolCall(c),
        ItemKind::Widget(w) => EntryKind::Widget(w),
        ItemKind::ClientWidget(w) => EntryKind::ClientWidget(w),
        ItemKind::GeneratedImage(g) => EntryKind::GeneratedImage(g),
        ItemKind::StructuredInput(s) => EntryKind::StructuredInput(s),
        ItemKind::Workflow(w) => EntryKind::Workflow(w),
        ItemKind::Task(t) => EntryKind::Task(t),
        ItemKind::EndOfTurn(e) => EntryKind::EndOfTurn(e),
        ItemKind::AcpToolCall(c) => EntryKind::ToolCall(ToolCall {
            tool_call: c.tool_call,
            permission: c.permission.map(permission),
        }),
        ItemKind::AcpPlan(p) => EntryKind::Plan(Plan { entries: p.entries }),
        ItemKind::AcpThought(t) => EntryKind::Thought(Thought { text: t.text }),
        ItemKind::AcpElicitation(e) => EntryKind::Elicitation(Elicitation {
            request: e.request,
            outcome: e.outcome,
        }),
        ItemKind::Note(n) => EntryKind::Note(n),
        ItemKind::Other(u) => EntryKind::Unsupported(u),
    };
    Entry {
        id: item.id,
        thread_id: item.thread_id,
        created_at: item.created_at,
        kind,
        branches: item.branches,
    }
}

fn permission(p: AcpPermission) -> Permission {
    Permission {
        options: p.options,
        outcome: p.outcome,
        action_id: p.action_id,
        action_type: p.action_type,
    }
}

/// A page of ChatKit items as entries.
pub fn entries(page: Page<ThreadItem>) -> Page<Entry> {
    Page {
        data: page.data.into_iter().map(entry).collect(),
        has_more: page.has_more,
        after: page.after,
    }
}

/// A loaded thread (`threads.get_by_id`, its newest items) as reducer input.
pub fn thread_loaded(mut thread: Thread) -> Input {
    let items = entries(thread.items.take().unwrap_or_default());
    Input::ThreadLoaded { thread, items }
}

/// Older items (`items.list`) as reducer input.
pub fn older_items(page: Page<ThreadItem>) -> Input {
    Input::OlderItems(entries(page))
}

/// An item an action's JSON answer replaced (`threads.sync_custom_action`).
pub fn item_synced(item: ThreadItem) -> Input {
    Input::ItemSynced(entry(item))
}
