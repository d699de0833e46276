//! What the agent says during a turn (`session/update`, permission requests, terminal
//! output) becoming the thread's items.

use super::drive::{mirror, resolved, respond, Pending};
use super::out::{Compaction, LiveTerminal, Out};
use crate::acp::{terminal, Incoming};
use crate::channel;
use agent_client_protocol::v1::schema::{ContentBlock as AcpBlock, SessionUpdate};
use chat_shell_core::protocol::acp;
use chat_shell_core::protocol::chatkit::{
    AcpPermission, AcpPermissionRequested, AcpPlanItem, AcpThoughtChunk, AcpThoughtItem,
    AcpToolCallItem, AcpToolCallUpdated, AssistantContent, AssistantMessage, ContentPartEvent,
    ItemId, ItemKind, ItemUpdate, Note, StreamEvent, TextDelta,
};
use serde_json::json;
use std::collections::HashMap;

impl Out {
    pub(super) async fn incoming(
        &mut self,
        incoming: Incoming,
        pending: &mut HashMap<String, Pending>,
        cancelled: bool,
    ) {
        match incoming {
            Incoming::Update(update) => self.session_update(*update).await,
            Incoming::Wrote(wrote) => {
                let (written, content) = *wrote;
                let patch = self
                    .changes
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .wrote(written, content);
                let content = if patch.is_empty() {
                    json!({})
                } else {
                    json!({ "patch": patch })
                };
                let update = channel::ViewUpdate {
                    group_id: self.thread.id.to_string(),
                    view_type: "diff".into(),
                    content_json: content.to_string(),
                };
                if let Err(e) = channel::publish(&self.state, update).await {
                    eprintln!("chat-shell-runtime: cannot update the Diff view: {e}");
                }
            }
            Incoming::Elicitation(asked) => {
                let (request, responder) = *asked;
                self.elicitation(request, responder, cancelled).await;
            }
            Incoming::ElicitationComplete(id) => self.elicitation_complete(&id).await,
            Incoming::Permission(asked) => {
                let (request, responder) = *asked;
                let Some(request) = mirror::<acp::RequestPermission>(&request) else {
                    eprintln!("chat-shell-runtime: an unreadable permission request: cancelled");
                    return respond(responder, &acp::PermissionOutcome::Cancelled);
                };
                let id = self.tool_item(request.tool_call.clone()).await;
                if let Some(ItemKind::AcpToolCall(call)) =
                    self.items.get_mut(&id).map(|i| &mut i.kind)
                {
                    call.tool_call.apply(request.tool_call.clone());
                    call.permission = Some(AcpPermission {
                        options: request.options.clone(),
                        outcome: None,
                        action_id: None,
                        action_type: None,
                    });
                }
                self.save(&id).await;
                let options = request.options.clone();
                let tool_call_id = request.tool_call.tool_call_id.0.clone();
                self.update(
                    &id,
                    ItemUpdate::AcpPermissionRequested(AcpPermissionRequested { request }),
                )
                .await;
                if cancelled {
                    respond(responder, &acp::PermissionOutcome::Cancelled);
                    self.resolve(&id, acp::PermissionOutcome::Cancelled).await;
                } else if let Some(old) = pending.insert(
                    tool_call_id,
                    Pending {
                        item: id,
                        options,
                        responder,
                    },
                ) {
                    // The same call asked twice: the first question is void.
                    respond(old.responder, &acp::PermissionOutcome::Cancelled);
                }
            }
        }
    }

    /// The item of an ACP tool call, made from `update` if it is new.
    pub(super) async fn tool_item(&mut self, update: acp::ToolCallUpdate) -> ItemId {
        if let Some(id) = self.tool_items.get(&update.tool_call_id.0) {
            return id.clone();
        }
        self.close_text().await;
        let key = update.tool_call_id.0.clone();
        let call = acp::ToolCall::from_update(update);
        let item = self.new_item(
            "tc",
            ItemKind::AcpToolCall(AcpToolCallItem {
                tool_call: call,
                permission: None,
            }),
        );
        let id = self.add(item).await;
        self.tool_items.insert(key, id.clone());
        id
    }

    /// Settles the permission card of `id`: saved, sent; returns the event.
    pub(super) async fn resolve(
        &mut self,
        id: &ItemId,
        outcome: acp::PermissionOutcome,
    ) -> StreamEvent {
        if let Some(ItemKind::AcpToolCall(call)) = self.items.get_mut(id).map(|i| &mut i.kind) {
            call.permission
                .get_or_insert_with(AcpPermission::default)
                .outcome = Some(outcome.clone());
        }
        self.save(id).await;
        let event = resolved(id, outcome);
        self.emit(event.clone()).await;
        event
    }

    pub(super) async fn session_update(&mut self, update: SessionUpdate) {
        match update {
            SessionUpdate::AgentMessageChunk(chunk) => {
                let Some(text) = block_text(&chunk.content) else {
                    return;
                };
                if let Some(thought) = self.thought.take() {
                    self.done(&thought).await;
                }
                let id = match self.message.clone() {
                    Some(id) => id,
                    None => {
                        let item = self.new_item(
                            "msg",
                            ItemKind::AssistantMessage(AssistantMessage {
                                content: vec![AssistantContent::text("")],
                            }),
                        );
                        let id = self.add(item).await;
                        self.update(
                            &id,
                            ItemUpdate::ContentPartAdded(ContentPartEvent {
                                content_index: 0,
                                content: AssistantContent::text(""),
                            }),
                        )
                        .await;
                        self.message = Some(id.clone());
                        id
                    }
                };
                if let Some(ItemKind::AssistantMessage(m)) =
                    self.items.get_mut(&id).map(|i| &mut i.kind)
                {
                    if let Some(part) = m.content.first_mut() {
                        part.text.push_str(&text);
                    }
                }
                self.update(
                    &id,
                    ItemUpdate::TextDelta(TextDelta {
                        content_index: 0,
                        delta: text,
                    }),
                )
                .await;
                self.touched(id).await;
            }
            SessionUpdate::AgentThoughtChunk(chunk) => {
                let Some(content) = mirror::<acp::ContentBlock>(&chunk.content) else {
                    return;
                };
                let Some(text) = content.text().map(str::to_owned) else {
                    return;
                };
                if self.message.is_some() {
                    let thought = self.thought.take();
                    self.close_text().await;
                    self.thought = thought;
                }
                let id = match self.thought.clone() {
                    Some(id) => id,
                    None => {
                        let item =
                            self.new_item("th", ItemKind::AcpThought(AcpThoughtItem::default()));
                        let id = self.add(item).await;
                        self.thought = Some(id.clone());
                        id
                    }
                };
                if let Some(ItemKind::AcpThought(t)) = self.items.get_mut(&id).map(|i| &mut i.kind)
                {
                    t.text.push_str(&text);
                }
                self.update(
                    &id,
                    ItemUpdate::AcpThoughtChunk(AcpThoughtChunk { content }),
                )
                .await;
                self.touched(id).await;
            }
            SessionUpdate::ToolCall(call) => {
                let Some(call) = mirror::<acp::ToolCall>(&call) else {
                    return eprintln!("chat-shell-runtime: an unreadable tool_call, skipped");
                };
                let key = call.tool_call_id.0.clone();
                if let Some(id) = self.tool_items.get(&key).cloned() {
                    // Announced again: the whole call is the new one.
                    let update: Option<acp::ToolCallUpdate> = mirror(&call);
                    if let Some(update) = update {
                        self.tool_update(&id, update).await;
                    }
                    return;
                }
                self.close_text().await;
                let item = self.new_item(
                    "tc",
                    ItemKind::AcpToolCall(AcpToolCallItem {
                        tool_call: call,
                        permission: None,
                    }),
                );
                let id = self.add(item).await;
                self.watch_terminals(&id);
                self.tool_items.insert(key, id);
            }
            SessionUpdate::ToolCallUpdate(update) => {
                let Some(update) = mirror::<acp::ToolCallUpdate>(&update) else {
                    return eprintln!(
                        "chat-shell-runtime: an unreadable tool_call_update, skipped"
                    );
                };
                match self.tool_items.get(&update.tool_call_id.0).cloned() {
                    Some(id) => self.tool_update(&id, update).await,
                    None => {
                        let id = self.tool_item(update.clone()).await;
                        self.tool_update(&id, update).await;
                    }
                }
            }
            SessionUpdate::Plan(plan) => {
                let Some(plan) = mirror::<acp::Plan>(&plan) else {
                    return;
                };
                match self.plan.clone() {
                    Some(id) => {
                        if let Some(ItemKind::AcpPlan(p)) =
                            self.items.get_mut(&id).map(|i| &mut i.kind)
                        {
                            p.entries = plan.entries.clone();
                        }
                        self.save(&id).await;
                        self.update(&id, ItemUpdate::AcpPlanUpdated(plan)).await;
                    }
                    None => {
                        self.close_text().await;
                        let item = self.new_item(
                            "plan",
                            ItemKind::AcpPlan(AcpPlanItem {
                                entries: plan.entries,
                            }),
                        );
                        let id = self.add(item).await;
                        self.plan = Some(id);
                    }
                }
            }
            // A compaction is a boundary in the order of the conversation, never a hidden
            // change to the text: a note, with its status and the agent's summary.
            SessionUpdate::CompactionUpdate(update) => {
                let status = serde_json::to_value(&update.status)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_else(|| "unknown".into());
                let summary = match &update.summary {
                    agent_client_protocol::schema::MaybeUndefined::Value(blocks) => Some(
                        blocks
                            .iter()
                            .filter_map(block_text)
                            .collect::<Vec<_>>()
                            .concat(),
                    ),
                    // `null` clears the summary; absent leaves it.
                    agent_client_protocol::schema::MaybeUndefined::Null => Some(String::new()),
                    agent_client_protocol::schema::MaybeUndefined::Undefined => None,
                };
                self.compaction(
                    update.compaction_id.to_string(),
                    Some(status),
                    summary,
                    None,
                )
                .await;
            }
            SessionUpdate::CompactionSummaryChunk(chunk) => {
                let more = block_text(&chunk.content);
                self.compaction(chunk.compaction_id.to_string(), None, None, more)
                    .await;
            }
            // Metrics (context use, cost) stay out of the conversation.
            SessionUpdate::UsageUpdate(_) => {}
            // The user's own words are already in the thread; the rest has no surface yet.
            _ => {}
        }
    }

    /// Compaction `id` changed: its status, its whole summary, or more of its summary.
    pub(super) async fn compaction(
        &mut self,
        id: String,
        status: Option<String>,
        summary: Option<String>,
        more: Option<String>,
    ) {
        if !self.compactions.contains_key(&id) {
            self.close_text().await;
            let item = self.new_item(
                "note",
                ItemKind::Note(Note::Context {
                    text: String::new(),
                }),
            );
            let compaction = Compaction {
                item: item.id.clone(),
                status: "in_progress".into(),
                summary: String::new(),
            };
            self.items.insert(item.id.clone(), item);
            self.compactions.insert(id.clone(), compaction);
        }
        let Some(c) = self.compactions.get_mut(&id) else {
            return;
        };
        if let Some(status) = status {
            c.status = status;
        }
        if let Some(summary) = summary {
            c.summary = summary;
        }
        if let Some(more) = more {
            c.summary.push_str(&more);
        }
        let (item, text) = (c.item.clone(), c.text());
        if let Some(ItemKind::Note(Note::Context { text: shown })) =
            self.items.get_mut(&item).map(|i| &mut i.kind)
        {
            *shown = text;
        }
        self.done(&item).await;
    }

    pub(super) async fn tool_update(&mut self, id: &ItemId, update: acp::ToolCallUpdate) {
        if let Some(ItemKind::AcpToolCall(call)) = self.items.get_mut(id).map(|i| &mut i.kind) {
            call.tool_call.apply(update.clone());
        }
        self.watch_terminals(id);
        self.save(id).await;
        self.update(
            id,
            ItemUpdate::AcpToolCallUpdated(AcpToolCallUpdated { update }),
        )
        .await;
    }

    /// Starts watching the terminals tool call `id` shows.
    pub(super) fn watch_terminals(&mut self, id: &ItemId) {
        let Some(ItemKind::AcpToolCall(call)) = self.items.get(id).map(|i| &i.kind) else {
            return;
        };
        for content in &call.tool_call.content {
            if let acp::ToolCallContent::Terminal(t) = content {
                self.live_terminals
                    .entry(t.terminal_id.clone())
                    .or_insert_with(|| LiveTerminal {
                        item: id.clone(),
                        tool_call_id: call.tool_call.tool_call_id.0.clone(),
                        shown: None,
                    });
            }
        }
    }

    /// Puts each watched terminal's output so far into its tool call (shaped like a
    /// `terminal/output` answer), when it changed. A terminal stops being watched once its
    /// command has ended and that is shown, once it is released, or once the agent sets
    /// the call's raw output itself (the agent knows best). Only `session`'s own terminals
    /// are shown: an id of another session's is unknown here too.
    pub(super) async fn stream_terminals(
        &mut self,
        terminals: &terminal::Terminals,
        session: &str,
    ) {
        let mut updates = Vec::new();
        self.live_terminals.retain(|terminal_id, live| {
            let current = match self.items.get(&live.item).map(|i| &i.kind) {
                Some(ItemKind::AcpToolCall(call)) => call.tool_call.raw_output.as_ref(),
                _ => return false,
            };
            if current.is_some() && current != live.shown.as_ref() {
                return false;
            }
            let Ok((output, truncated, exit)) = terminals.output(session, terminal_id) else {
                return false;
            };
            let mut raw = json!({ "output": output, "truncated": truncated });
            if let Some(exit) = &exit {
                raw["exitStatus"] = json!({ "exitCode": exit.code, "signal": exit.signal });
            }
            if live.shown.as_ref() != Some(&raw) {
                live.shown = Some(raw.clone());
                updates.push((live.item.clone(), live.tool_call_id.clone(), raw));
            }
            exit.is_none()
        });
        for (item, tool_call_id, raw) in updates {
            let update = serde_json::from_value::<acp::ToolCallUpdate>(
                json!({ "toolCallId": tool_call_id, "rawOutput": raw }),
            );
            if let Ok(update) = update {
                self.tool_update(&item, update).await;
            }
        }
    }
}

/// The text a message chunk adds: text as is, a link as a markdown link.
pub(super) fn block_text(block: &AcpBlock) -> Option<String> {
    match mirror::<acp::ContentBlock>(block)? {
        acp::ContentBlock::Text(t) => Some(t.text),
        acp::ContentBlock::ResourceLink(r) => {
            let label = r.title.clone().unwrap_or_else(|| r.name.clone());
            Some(format!("[{label}]({})", r.uri))
        }
        acp::ContentBlock::Resource(r) => r.resource.text.map(|t| format!("\n```\n{t}\n```\n")),
        _ => None,
    }
}
