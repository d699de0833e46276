//! Loaded ChatKit threads for the core's unit tests: a thread `thr_1` holding the items
//! given, through the same adapter and reducer the runtime uses.

use crate::reducer::{reduce, ChatState};
use serde_json::{json, Value};

/// The state after loading thread `thr_1`, titled `title`, with `items`.
pub(crate) fn loaded(title: &str, items: Vec<Value>) -> ChatState {
    let thread = serde_json::from_value(json!({
        "id": "thr_1", "title": title, "created_at": "2025-01-01T00:00:00Z",
        "status": {"type": "active"},
        "items": {"data": items, "has_more": false, "after": null}
    }))
    .expect("a thread");
    let mut state = ChatState::new();
    reduce(&mut state, crate::adapters::chatkit::thread_loaded(thread));
    state
}

/// An item `id` of `thr_1`: `body` (its `type` and content) with the common fields.
pub(crate) fn item(id: &str, body: Value) -> Value {
    let mut v = json!({"id": id, "thread_id": "thr_1", "created_at": "2025-01-01T00:00:00Z"});
    for (k, val) in body.as_object().expect("an object") {
        v[k] = val.clone();
    }
    v
}

pub(crate) fn user(id: &str, text: &str) -> Value {
    item(
        id,
        json!({"type": "user_message",
        "content": [{"type": "input_text", "text": text}], "attachments": []}),
    )
}

pub(crate) fn answer(id: &str, text: &str) -> Value {
    item(
        id,
        json!({"type": "assistant_message",
        "content": [{"type": "output_text", "text": text, "annotations": []}]}),
    )
}
