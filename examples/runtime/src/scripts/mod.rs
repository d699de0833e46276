//! Scripted, model-free answers: a keyword in the user's text picks a scenario, and a small
//! builder turns it into the timed stream events the SSE writer sends.
//!
//! A keyword matches at the start of a word (`widgets` picks `widget`, `information` does
//! not pick `form`); when several match, the one found first in the text wins (the longer
//! one on a tie, so `widgetstream` beats `widget`). The shapes mirror the recorded SDK
//! fixtures in `tests/fixtures/chatkit/`.

mod answers;
mod continuations;
mod png;
mod rich;
mod tasks;
#[cfg(test)]
mod tests;
mod texts;
mod widgets;

pub use answers::{pick_keyword, respond, KEYWORDS};
pub use continuations::{client_tool_output, custom_action, structured_answered, sync_action};
pub use texts::{default_markdown, ragged_chunks, title_from, word_chunks};

use crate::sandbox::EditOp;
use crate::store::{now_iso, Store};
use chat_shell_core::protocol::chatkit::{
    Annotation, AssistantContent, AssistantMessage, ClientEffectEvent, ContentPartEvent,
    ErrorEvent, ItemEvent, ItemId, ItemKind, ItemUpdate, ItemUpdatedEvent, NoticeEvent,
    NoticeLevel, Page, ProgressUpdateEvent, StreamEvent, StreamOptions, StreamOptionsEvent,
    TextDelta, Thread, ThreadEvent, ThreadItem, ThreadStatus,
};
use chat_shell_core::protocol::JsonMap;
use serde_json::Value;
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
            branches: Vec::new(),
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

/// `value`'s fields, none if it is not an object.
fn object(value: Value) -> JsonMap {
    match value {
        Value::Object(map) => map,
        _ => JsonMap::new(),
    }
}
