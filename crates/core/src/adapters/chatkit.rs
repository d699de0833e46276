//! ChatKit (`protocol::chatkit`, the default protocol) as reducer input: each stream event
//! one to one onto a [`Streamed`] verb, each item update onto an [`ItemChange`]; the ACP
//! extension updates through [`super::acp`].

use super::acp;
use crate::protocol::chatkit::{decode_event, ItemUpdate, StreamEvent};
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
        StreamEvent::ItemAdded(e) => Streamed::ItemAdded(e.item),
        StreamEvent::ItemUpdated(e) => Streamed::ItemChanged {
            item_id: e.item_id,
            change: item_change(e.update),
        },
        StreamEvent::ItemDone(e) => Streamed::ItemDone(e.item),
        StreamEvent::ItemRemoved(e) => Streamed::ItemRemoved(e.item_id),
        StreamEvent::ItemReplaced(e) => Streamed::ItemReplaced(e.item),
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
        ItemUpdate::Other(u) => ItemChange::Unknown(u),
    }
}
