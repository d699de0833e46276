//! A turn's output (`Out`): its items saved, sent to the thread's channels and to the
//! client's stream while it listens, and how the turn ends.

use super::*;
use crate::acp::ChangeSet;
use crate::auth::User;
use crate::runs::RunHandle;
use crate::state::AppState;
use crate::store::{self, now_iso, Store, UserStore};
use agent_client_protocol::v1::schema::{CreateElicitationResponse, StopReason};
use agent_client_protocol::v1::Responder;
use axum::body::Bytes;
use chat_shell_core::protocol::chatkit::{
    ContentPartEvent, EndOfTurn, ErrorEvent, ItemEvent, ItemId, ItemKind, ItemUpdate,
    ItemUpdatedEvent, NoticeEvent, NoticeLevel, Page, StreamEvent, Thread, ThreadEvent, ThreadItem,
};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Instant;
use tokio::sync::mpsc;

/// The turn's output: the store, the thread's channels, and the client's stream (while it
/// listens).
pub(crate) struct Out {
    pub(super) state: Arc<AppState>,
    pub(super) store: Arc<Store>,
    pub(super) user: User,
    pub thread: Thread,
    pub sink: Option<mpsc::Sender<Frame>>,
    /// This turn as its thread's run.
    pub(super) run: RunHandle,
    /// An error event was sent.
    pub(super) failed: bool,
    pub(super) last_write: Instant,
    /// Every item of this turn, as last sent.
    pub(super) items: HashMap<ItemId, ThreadItem>,
    /// ACP tool call id -> item id.
    pub(super) tool_items: HashMap<String, ItemId>,
    pub(super) message: Option<ItemId>,
    pub(super) thought: Option<ItemId>,
    pub(super) plan: Option<ItemId>,
    pub(super) dirty: HashSet<ItemId>,
    pub(super) last_flush: Instant,
    /// The files the agent wrote in this thread: its Diff view.
    pub(super) changes: Arc<Mutex<ChangeSet>>,
    /// Terminals (ours, `terminal/*`) that this turn's tool calls show: their output is
    /// streamed into the call while the command runs.
    pub(super) live_terminals: HashMap<String, LiveTerminal>,
    /// Context compactions (ACP `compaction_update`) by id: the boundary item, its status
    /// and its summary so far.
    pub(super) compactions: HashMap<String, Compaction>,
    /// The elicitations asking (item -> the agent's request waiting for the answer).
    /// (In a mutex only so that `Out` is `Sync`: a responder is not.)
    pub(super) elicitations: HashMap<ItemId, Mutex<Responder<CreateElicitationResponse>>>,
    /// URL elicitations by their id, for `elicitation/complete`.
    pub(super) url_items: HashMap<String, ItemId>,
    /// The turn's message made its thread (which may adopt the user's draft session).
    pub(super) created: bool,
}

/// A context compaction the agent reported: a boundary in the conversation.
pub(super) struct Compaction {
    pub(super) item: ItemId,
    pub(super) status: String,
    pub(super) summary: String,
}

impl Compaction {
    /// The boundary's text: what happened to the context, and the agent's summary.
    pub(super) fn text(&self) -> String {
        let what = match self.status.as_str() {
            "in_progress" => "Compacting the context".to_owned(),
            "completed" => "Context compacted".to_owned(),
            "failed" => "Context compaction failed".to_owned(),
            "cancelled" => "Context compaction cancelled".to_owned(),
            other => format!("Context compaction: {other}"),
        };
        match self.summary.trim() {
            "" => what,
            summary => format!("{what}: {summary}"),
        }
    }
}

/// A terminal shown in a tool call.
pub(super) struct LiveTerminal {
    pub(super) item: ItemId,
    pub(super) tool_call_id: String,
    /// The raw output last put in the call; the agent setting its own ends the watch.
    pub(super) shown: Option<Value>,
}

impl Out {
    pub(super) fn new(
        state: Arc<AppState>,
        user: User,
        thread: Thread,
        sink: mpsc::Sender<Frame>,
        run: RunHandle,
        changes: Arc<Mutex<ChangeSet>>,
    ) -> Self {
        Out {
            store: state.store.clone(),
            state,
            changes,
            live_terminals: HashMap::new(),
            user,
            thread,
            sink: Some(sink),
            run,
            failed: false,
            last_write: Instant::now(),
            items: HashMap::new(),
            tool_items: HashMap::new(),
            compactions: HashMap::new(),
            elicitations: HashMap::new(),
            url_items: HashMap::new(),
            created: false,
            message: None,
            thought: None,
            plan: None,
            dirty: HashSet::new(),
            last_flush: Instant::now(),
        }
    }

    /// Sends `event` (saved already, as far as it needs) to the thread's channels and the
    /// client.
    pub(super) async fn emit(&mut self, event: StreamEvent) {
        let json = match serde_json::to_string(&event) {
            Ok(json) => json,
            Err(e) => {
                eprintln!("chat-shell-runtime: cannot serialize an event: {e}");
                return;
            }
        };
        self.failed |= matches!(event, StreamEvent::Error(_));
        self.run.publish(&event, &json, None);
        let Some(tx) = &self.sink else {
            return;
        };
        if tx
            .send(Ok(Bytes::from(format!("data: {json}\n\n"))))
            .await
            .is_err()
        {
            self.sink = None;
        } else {
            self.last_write = Instant::now();
        }
    }

    pub(super) async fn keepalive(&mut self) {
        if self.last_write.elapsed() < KEEPALIVE {
            return;
        }
        if let Some(tx) = &self.sink {
            if tx
                .send(Ok(Bytes::from_static(b": keepalive\n\n")))
                .await
                .is_err()
            {
                self.sink = None;
            }
            self.last_write = Instant::now();
        }
    }

    pub(super) async fn notice(&mut self, message: String) {
        self.emit(StreamEvent::Notice(NoticeEvent {
            level: NoticeLevel::Warning,
            message,
            title: None,
        }))
        .await;
    }

    pub(super) async fn save_with(
        &self,
        f: impl FnOnce(&UserStore<'_>) -> store::Result<()> + Send + 'static,
    ) {
        if let Err(e) = store::blocking(self.store.clone(), self.user.0.clone(), f).await {
            eprintln!("chat-shell-runtime: cannot save the ACP turn: {e}");
        }
    }

    pub(super) async fn save(&mut self, id: &ItemId) {
        self.dirty.remove(id);
        if let Some(item) = self.items.get(id).cloned() {
            self.save_with(move |db| db.save_item(&item).map(drop))
                .await;
        }
    }

    pub(super) async fn flush(&mut self) {
        let items: Vec<ThreadItem> = std::mem::take(&mut self.dirty)
            .into_iter()
            .filter_map(|id| self.items.get(&id).cloned())
            .collect();
        if !items.is_empty() {
            self.save_with(move |db| items.iter().try_for_each(|i| db.save_item(i).map(drop)))
                .await;
        }
        self.last_flush = Instant::now();
    }

    pub(super) async fn touched(&mut self, id: ItemId) {
        self.dirty.insert(id);
        if self.last_flush.elapsed() >= FLUSH_EVERY {
            self.flush().await;
        }
    }

    pub(super) fn new_item(&self, prefix: &str, kind: ItemKind) -> ThreadItem {
        ThreadItem {
            branches: Vec::new(),
            id: ItemId(self.store.next_id(prefix)),
            thread_id: Some(self.thread.id.clone()),
            created_at: now_iso(),
            kind,
        }
    }

    /// Adds `item`: saved, then sent.
    pub(super) async fn add(&mut self, item: ThreadItem) -> ItemId {
        let id = item.id.clone();
        self.items.insert(id.clone(), item.clone());
        self.save(&id).await;
        self.emit(StreamEvent::ItemAdded(ItemEvent { item })).await;
        id
    }

    pub(super) async fn update(&mut self, id: &ItemId, update: ItemUpdate) {
        self.emit(StreamEvent::ItemUpdated(ItemUpdatedEvent {
            item_id: id.clone(),
            update,
        }))
        .await;
    }

    /// Ends the message or thought being streamed (something else comes next).
    pub(super) async fn close_text(&mut self) {
        if let Some(id) = self.message.take() {
            let content = match self.items.get(&id).map(|i| &i.kind) {
                Some(ItemKind::AssistantMessage(m)) => m.content.first().cloned(),
                _ => None,
            };
            if let Some(content) = content {
                self.update(
                    &id,
                    ItemUpdate::ContentPartDone(ContentPartEvent {
                        content_index: 0,
                        content,
                    }),
                )
                .await;
            }
            self.done(&id).await;
        }
        if let Some(id) = self.thought.take() {
            self.done(&id).await;
        }
    }

    pub(super) async fn done(&mut self, id: &ItemId) {
        self.save(id).await;
        if let Some(item) = self.items.get(id).cloned() {
            self.emit(StreamEvent::ItemDone(ItemEvent { item })).await;
        }
    }
}

impl Out {
    pub(super) async fn finish(&mut self, ended: Ended) {
        self.close_text().await;
        self.flush().await;
        let failed = matches!(ended, Ended::Failed { .. });
        if !failed && self.thread.title.is_none() {
            let thread_id = self.thread.id.clone();
            let first = store::blocking(self.store.clone(), self.user.0.clone(), move |db| {
                Ok(db
                    .all_items(&thread_id)?
                    .into_iter()
                    .find_map(|i| match &i.kind {
                        ItemKind::UserMessage(m)
                            if !matches!(&i.kind, ItemKind::UserMessage(m) if chat_shell_core::model::is_ghost(m)) =>
                        {
                            Some(m.text())
                        }
                        _ => None,
                    }))
            })
            .await
            .ok()
            .flatten();
            if let Some(first) = first {
                self.thread.title = Some(crate::scripts::title_from(&first));
                let thread = self.thread.clone();
                self.save_with(move |db| db.save_thread(&thread).map(drop))
                    .await;
                let mut shown = self.thread.clone();
                shown.items = Some(Page::default());
                self.emit(StreamEvent::ThreadUpdated(ThreadEvent { thread: shown }))
                    .await;
            }
        }
        // A turn that did not end normally says how in its stored end-of-turn item, so a
        // reload still says it; a failure is also an error the client can retry.
        let (reason, message) = match &ended {
            Ended::Stop(StopReason::EndTurn) => return,
            Ended::Stop(reason) => (stop_reason_name(reason), None),
            Ended::Failed { message, .. } => ("error".to_owned(), Some(message.clone())),
        };
        println!("ACP: thread {} ended: {reason}", self.thread.id);
        let end = self.new_item(
            "end",
            ItemKind::EndOfTurn(EndOfTurn {
                stop_reason: Some(reason),
                message,
            }),
        );
        let id = end.id.clone();
        self.items.insert(id.clone(), end);
        self.done(&id).await;
        if let Ended::Failed { code, message } = ended {
            self.emit(StreamEvent::Error(ErrorEvent {
                code: code.into(),
                message: Some(message),
                allow_retry: true,
            }))
            .await;
        }
    }
}

/// The wire name of an ACP stop reason (`max_tokens`, `refusal`, …).
pub(super) fn stop_reason_name(reason: &StopReason) -> String {
    serde_json::to_value(reason)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_else(|| "unknown".to_owned())
}
