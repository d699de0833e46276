//! The fold of a run's ChatKit events into its items: what the saver stores as the run
//! goes, the snapshot a channel opening mid-run starts from, and what an interrupted run
//! of another instance had emitted. The element's reducer applies the same updates to its
//! entries (`core::reducer`); this one keeps the wire's `ThreadItem`s.

use chat_shell_core::protocol::chatkit::{
    AcpPermission, AssistantContent, ItemEvent, ItemId, ItemKind, ItemUpdate, ItemUpdatedEvent,
    StreamEvent, ThreadItem,
};
use std::collections::HashMap;

/// The items a run's events built, folded the way the run itself does (to save what an
/// interrupted run of another instance had emitted).
#[derive(Default)]
pub struct Folder(RunItems);

impl Folder {
    pub fn fold(&mut self, event: &StreamEvent) {
        self.0.fold(event, None);
    }

    /// Every item emitted, in order, as it last was.
    pub fn into_items(self) -> Vec<ThreadItem> {
        let mut items = self.0.items;
        self.0
            .order
            .iter()
            .filter_map(|id| items.remove(id))
            .map(|t| t.item)
            .collect()
    }
}

/// What a run has emitted, folded: the state saved as it goes, and the snapshot a channel
/// opening mid-run starts from.
#[derive(Default)]
pub struct RunItems {
    /// Item ids in the order the run first emitted them.
    order: Vec<ItemId>,
    items: HashMap<ItemId, Tracked>,
    /// The assistant message being streamed: the fork's deltas name fresh ids that point
    /// at nothing and belong to it.
    current_message: Option<ItemId>,
}

struct Tracked {
    item: ThreadItem,
    done: bool,
    /// Emitted by this run (a tracked item is shown once the run updates it).
    shown: bool,
}

impl RunItems {
    pub(super) fn track(&mut self, item: ThreadItem) {
        let tracked = Tracked {
            item,
            done: false,
            shown: false,
        };
        self.items.insert(tracked.item.id.clone(), tracked);
    }

    /// An item in progress.
    pub(super) fn get(&self, id: &ItemId) -> Option<&ThreadItem> {
        self.items.get(id).filter(|t| !t.done).map(|t| &t.item)
    }

    /// The item in progress `update` applies to, and whether it named another (the fork).
    pub(super) fn target(&self, update: &ItemUpdatedEvent) -> Option<(ItemId, bool)> {
        if self.get(&update.item_id).is_some() {
            return Some((update.item_id.clone(), false));
        }
        let current = self.current_message.clone()?;
        self.get(&current).is_some().then_some((current, true))
    }

    fn show(&mut self, id: &ItemId) {
        if let Some(t) = self.items.get_mut(id) {
            if !t.shown {
                t.shown = true;
                self.order.push(id.clone());
            }
        }
    }

    fn put(&mut self, item: ThreadItem, done: bool) {
        let id = item.id.clone();
        let shown = self.items.get(&id).is_some_and(|t| t.shown);
        self.items.insert(id.clone(), Tracked { item, done, shown });
        self.show(&id);
    }

    /// Applies `event`; `folded`: an update's result, computed already.
    pub(super) fn fold(
        &mut self,
        event: &StreamEvent,
        folded: Option<ThreadItem>,
    ) -> Option<ItemId> {
        match event {
            StreamEvent::ItemAdded(e) => {
                if matches!(e.item.kind, ItemKind::AssistantMessage(_)) {
                    self.current_message = Some(e.item.id.clone());
                }
                self.put(e.item.clone(), false);
                None
            }
            StreamEvent::ItemDone(e) | StreamEvent::ItemReplaced(e) => {
                self.put(e.item.clone(), true);
                None
            }
            StreamEvent::ItemRemoved(e) => {
                self.items.remove(&e.item_id);
                self.order.retain(|id| id != &e.item_id);
                None
            }
            StreamEvent::ItemUpdated(e) => {
                if let Some(item) = folded {
                    let id = item.id.clone();
                    self.put(item, false);
                    return Some(id);
                }
                let (id, foreign) = self.target(e)?;
                let tracked = self.items.get_mut(&id)?;
                apply_update(&mut tracked.item, &e.update, foreign);
                self.show(&id);
                Some(id)
            }
            _ => None,
        }
    }

    /// One event per item emitted so far, in order: `thread.item.done` for a finished one,
    /// `thread.item.added` with its current state for one in progress.
    pub(super) fn snapshot(&self) -> Vec<StreamEvent> {
        self.order
            .iter()
            .filter_map(|id| self.items.get(id))
            .map(|t| {
                let e = ItemEvent {
                    item: t.item.clone(),
                };
                if t.done {
                    StreamEvent::ItemDone(e)
                } else {
                    StreamEvent::ItemAdded(e)
                }
            })
            .collect()
    }

    pub(super) fn empty_messages(&self) -> Vec<ItemId> {
        self.items
            .values()
            .filter(|t| !t.done)
            .filter(|t| {
                matches!(&t.item.kind, ItemKind::AssistantMessage(m)
                    if m.content.iter().all(|c| c.text.trim().is_empty()))
            })
            .map(|t| t.item.id.clone())
            .collect()
    }
}

/// Applies one `thread.item.updated` to an item. `foreign`: the update named another id
/// (the fork), so a text delta appends to the message's last part whatever its index.
pub fn apply_update(item: &mut ThreadItem, update: &ItemUpdate, foreign: bool) {
    fn part(content: &mut Vec<AssistantContent>, index: usize) -> &mut AssistantContent {
        while content.len() <= index {
            content.push(AssistantContent::text(""));
        }
        &mut content[index]
    }
    match (&mut item.kind, update) {
        (ItemKind::AssistantMessage(m), ItemUpdate::ContentPartAdded(p)) => {
            *part(&mut m.content, p.content_index) = p.content.clone();
        }
        (ItemKind::AssistantMessage(m), ItemUpdate::TextDelta(d)) => {
            let index = if foreign {
                m.content.len().saturating_sub(1)
            } else {
                d.content_index
            };
            part(&mut m.content, index).text.push_str(&d.delta);
        }
        (ItemKind::AssistantMessage(m), ItemUpdate::AnnotationAdded(a)) => {
            let annotations = &mut part(&mut m.content, a.content_index).annotations;
            match a.annotation_index {
                Some(i) if i <= annotations.len() => annotations.insert(i, a.annotation.clone()),
                _ => annotations.push(a.annotation.clone()),
            }
        }
        (ItemKind::AssistantMessage(m), ItemUpdate::ContentPartDone(p)) => {
            let target = part(&mut m.content, p.content_index);
            let kept = std::mem::take(&mut target.annotations);
            *target = p.content.clone();
            // Some servers send `annotations: []` here after adding some: keep them.
            if target.annotations.is_empty() {
                target.annotations = kept;
            }
        }
        (ItemKind::Widget(w), ItemUpdate::WidgetTextDelta(d)) => {
            w.widget.append_value(&d.component_id, &d.delta);
        }
        (ItemKind::Widget(w), ItemUpdate::WidgetComponentUpdated(c)) => {
            w.widget.replace(&c.component_id, c.component.clone());
        }
        (ItemKind::Widget(w), ItemUpdate::WidgetRootUpdated(r)) => w.widget = r.widget.clone(),
        (
            ItemKind::Workflow(w),
            ItemUpdate::WorkflowTaskAdded(t) | ItemUpdate::WorkflowTaskUpdated(t),
        ) => {
            let tasks = &mut w.workflow.tasks;
            if t.task_index < tasks.len() {
                tasks[t.task_index] = t.task.clone();
            } else {
                tasks.push(t.task.clone());
            }
        }
        (ItemKind::GeneratedImage(g), ItemUpdate::GeneratedImageUpdated(u)) => {
            g.image = Some(u.image.clone());
        }
        // The ACP extension, as the client's reducer applies it.
        (ItemKind::AcpToolCall(c), ItemUpdate::AcpToolCallUpdated(u)) => {
            c.tool_call.apply(u.update.clone());
        }
        (ItemKind::AcpToolCall(c), ItemUpdate::AcpPermissionRequested(r)) => {
            c.tool_call.apply(r.request.tool_call.clone());
            c.permission = Some(AcpPermission {
                options: r.request.options.clone(),
                outcome: None,
                action_id: None,
                action_type: None,
            });
        }
        (ItemKind::AcpToolCall(c), ItemUpdate::AcpPermissionResolved(r)) => {
            c.permission
                .get_or_insert_with(AcpPermission::default)
                .outcome = Some(r.outcome.clone());
        }
        (ItemKind::AcpElicitation(e), ItemUpdate::AcpElicitationResolved(r)) => {
            e.outcome = Some(r.outcome.clone());
        }
        (ItemKind::AcpPlan(p), ItemUpdate::AcpPlanUpdated(plan)) => {
            p.entries = plan.entries.clone();
        }
        (ItemKind::AcpThought(t), ItemUpdate::AcpThoughtChunk(chunk)) => {
            if let Some(text) = chunk.content.text() {
                t.text.push_str(text);
            }
        }
        _ => {}
    }
}
