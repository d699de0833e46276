//! Threads: `threads.get_by_id`, `threads.list`, `threads.update`, `threads.delete`. Each
//! runs on a blocking thread, on the requesting user's view of the store.

use super::request::{page_size, DEFAULT_PAGE_SIZE};
use crate::errors::{bad_request, not_found};
use crate::store::{self, UserStore};
use axum::response::{IntoResponse, Response};
use axum::Json;
use chat_shell_core::protocol::chatkit::{ItemId, ListOrder, Page, Thread, ThreadId, ThreadItem};
use serde_json::json;
use std::sync::Arc;

/// Threads always go out with an `items` page (empty outside `threads.get_by_id`).
pub(crate) fn with_items(mut thread: Thread, items: Page<ThreadItem>) -> Thread {
    thread.items = Some(items);
    thread
}

pub(crate) fn unknown_thread(id: &ThreadId) -> Response {
    not_found(&format!("unknown thread {id}"))
}

/// `threads.get_by_id`: the SDK's hydration, the thread with the first page of its items,
/// oldest first.
pub(crate) fn get(store: &UserStore<'_>, thread_id: &ThreadId) -> store::Result<Response> {
    Ok(match store.thread(thread_id)? {
        Some(thread) => {
            let items = store.list_items(thread_id, DEFAULT_PAGE_SIZE, None, ListOrder::Asc)?;
            Json(with_items(thread, items)).into_response()
        }
        None => unknown_thread(thread_id),
    })
}

/// `threads.select_branch` (an extension, `protocol::chatkit::RequestBody::SelectBranch`):
/// the branch `item_id` starts is the one shown from now on (a reload shows it too);
/// answered as `threads.get_by_id`.
pub(crate) fn select_branch(
    store: &UserStore<'_>,
    thread_id: &ThreadId,
    item_id: &ItemId,
) -> store::Result<Response> {
    let Some(thread) = store.thread(thread_id)? else {
        return Ok(unknown_thread(thread_id));
    };
    if !thread.branching {
        return Ok(bad_request("this conversation cannot branch"));
    }
    if store.select_branch(thread_id, item_id)?.is_none() {
        return Ok(not_found(&format!("unknown item {item_id}")));
    }
    get(store, thread_id)
}

/// `threads.list`: newest first unless the request says otherwise.
pub(crate) fn list(
    store: &UserStore<'_>,
    limit: Option<u32>,
    after: Option<&str>,
    order: Option<ListOrder>,
) -> store::Result<Response> {
    let page = store.list_threads(page_size(limit), after, order.unwrap_or(ListOrder::Desc))?;
    let data = page
        .data
        .into_iter()
        .map(|t| with_items(t, Page::default()))
        .collect();
    Ok(Json(Page {
        data,
        has_more: page.has_more,
        after: page.after,
    })
    .into_response())
}

/// `threads.update`: a new title (checked by `chatkit::check_bounds`).
pub(crate) fn update(
    store: &UserStore<'_>,
    thread_id: &ThreadId,
    title: &str,
) -> store::Result<Response> {
    Ok(match store.set_title(thread_id, title)? {
        Some(thread) => Json(with_items(thread, Page::default())).into_response(),
        None => unknown_thread(thread_id),
    })
}

/// `threads.delete`: the thread with its items and attachments; its agent session ends
/// (`bridge`: the ACP bridge, with `--acp`).
pub(crate) fn delete(
    store: &UserStore<'_>,
    thread_id: &ThreadId,
    bridge: Option<&Arc<crate::acp::Bridge>>,
) -> store::Result<Response> {
    Ok(if store.delete_thread(thread_id)? {
        if let Some(bridge) = bridge {
            bridge.thread_deleted(thread_id.as_str());
        }
        Json(json!({})).into_response()
    } else {
        unknown_thread(thread_id)
    })
}
