//! A thread's items: `items.list`, `items.feedback`, `threads.sync_custom_action`, and the
//! echoed user message a streamed answer starts with.

use super::attachments::attachment_object;
use super::request::page_size;
use super::threads::unknown_thread;
use crate::scripts;
use crate::store::{self, now_iso, UserStore};
use axum::response::{IntoResponse, Response};
use axum::Json;
use chat_shell_core::protocol::chatkit::{
    Action, FeedbackKind, ItemId, ItemKind, ListOrder, SyncCustomActionResponse, ThreadId,
    ThreadItem, UserMessage, UserMessageInput,
};
use serde_json::{json, Value};

/// `items.list`: newest first unless the request says otherwise.
pub(crate) fn list(
    store: &UserStore<'_>,
    thread_id: &ThreadId,
    limit: Option<u32>,
    after: Option<&str>,
    order: Option<ListOrder>,
) -> store::Result<Response> {
    if store.thread(thread_id)?.is_none() {
        return Ok(unknown_thread(thread_id));
    }
    let order = order.unwrap_or(ListOrder::Desc);
    Ok(Json(store.list_items(thread_id, page_size(limit), after, order)?).into_response())
}

/// `items.feedback`: the latest vote on each item is kept.
pub(crate) fn feedback(
    store: &UserStore<'_>,
    thread_id: &ThreadId,
    item_ids: &[ItemId],
    kind: FeedbackKind,
) -> store::Result<Response> {
    if store.thread(thread_id)?.is_none() {
        return Ok(unknown_thread(thread_id));
    }
    store.add_feedback(thread_id, item_ids, kind)?;
    Ok(Json(json!({})).into_response())
}

/// `threads.sync_custom_action`: the sending widget, updated by the script, comes back.
pub(crate) fn sync_custom_action(
    store: &UserStore<'_>,
    thread_id: &ThreadId,
    item_id: Option<&ItemId>,
    action: &Action,
) -> store::Result<Response> {
    if store.thread(thread_id)?.is_none() {
        return Ok(unknown_thread(thread_id));
    }
    let sender = match item_id {
        Some(id) => store.item(thread_id, id)?,
        None => None,
    };
    let updated_item = sender.map(|item| scripts::sync_action(&item, action));
    if let Some(item) = &updated_item {
        store.save_item(item)?;
    }
    Ok(Json(SyncCustomActionResponse { updated_item }).into_response())
}

/// The text of a user message (empty for any other item).
pub(crate) fn message_text(item: &ThreadItem) -> String {
    match &item.kind {
        ItemKind::UserMessage(m) => m.text(),
        _ => String::new(),
    }
}

/// The echoed user message, its attachments resolved to full objects (unknown ids are
/// skipped) and bound to the thread.
pub(crate) fn user_message(
    store: &UserStore<'_>,
    base: &str,
    thread: &ThreadId,
    input: UserMessageInput,
) -> store::Result<ThreadItem> {
    let mut attachments = Vec::new();
    for id in &input.attachments {
        if let Some(mut record) = store.attachment(id.as_str())? {
            store.attach_to_thread(&record.id, thread)?;
            record.thread_id = Some(thread.to_string());
            attachments.push(attachment_object(&record, base, false));
        }
    }
    Ok(ThreadItem {
        branches: Vec::new(),
        id: ItemId(store.next_id("msg")),
        thread_id: Some(thread.clone()),
        created_at: now_iso(),
        kind: ItemKind::UserMessage(UserMessage {
            content: input.content,
            attachments,
            quoted_text: input.quoted_text,
            inference_options: Some(Value::Object(input.inference_options)),
        }),
    })
}
