//! What both backends hand back and how rows become it: the records (attachments, views),
//! pages, JSON in and out of a column, and the stored secret's check.

use super::error::{Error, Result};
use chat_shell_core::protocol::chatkit::{ItemKind, Page, Thread, ThreadId, ThreadItem};

/// An attachment as stored (the wire `Attachment` is built from it by the server).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AttachmentRecord {
    pub id: String,
    pub name: String,
    pub mime_type: String,
    pub size: u64,
    pub thread_id: Option<String>,
    pub uploaded: bool,
}

/// The latest state of one view of a thread (see `views`): `content` is the tool's JSON
/// object as received; `{}` means cleared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ViewRecord {
    pub view_type: String,
    pub seq: u64,
    pub content_json: String,
    pub updated_at: String,
}

impl ViewRecord {
    /// A cleared view (its content was an empty object).
    pub fn cleared(&self) -> bool {
        self.content_json.trim() == "{}"
    }
}

/// `data` holds up to `limit + 1` rows: the extra one only says there is more.
pub(super) fn page<T>(mut rows: Vec<T>, limit: usize, id: impl Fn(&T) -> String) -> Page<T> {
    let has_more = rows.len() > limit;
    rows.truncate(limit);
    let after = rows.last().map(id);
    Page {
        data: rows,
        has_more,
        after,
    }
}

pub(super) fn thread_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Thread> {
    Ok(Thread {
        branching: false,
        id: ThreadId(row.get(0)?),
        title: row.get(1)?,
        created_at: row.get(2)?,
        status: sql_json(&row.get::<_, String>(3)?)?,
        metadata: sql_json(&row.get::<_, String>(4)?)?,
        items: None,
    })
}

pub(super) fn item_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<ThreadItem> {
    sql_json(&row.get::<_, String>(0)?)
}

pub(super) fn to_json<T: serde::Serialize>(value: &T) -> Result<String> {
    serde_json::to_string(value).map_err(|e| Error::Data(e.to_string()))
}

pub(super) fn from_json<T: serde::de::DeserializeOwned>(text: &str) -> Result<T> {
    serde_json::from_str(text).map_err(|e| Error::Data(e.to_string()))
}

/// [`from_json`] inside a SQLite row mapper.
pub(super) fn sql_json<T: serde::de::DeserializeOwned>(text: &str) -> rusqlite::Result<T> {
    serde_json::from_str(text).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, Box::new(e))
    })
}

/// The cookie secret as stored: exactly 32 bytes.
pub(super) fn secret_of(stored: &[u8]) -> Result<[u8; 32]> {
    <[u8; 32]>::try_from(stored)
        .map_err(|_| Error::Data("the stored cookie secret is not 32 bytes".into()))
}

/// The item in `json` with its unanswered ACP permission request settled as cancelled;
/// `None` if it has none (or does not read).
pub(super) fn settled_permission(json: &str) -> Option<ThreadItem> {
    let mut item = from_json::<ThreadItem>(json).ok()?;
    let ItemKind::AcpToolCall(call) = &mut item.kind else {
        return None;
    };
    let permission = call.permission.as_mut().filter(|p| p.outcome.is_none())?;
    permission.outcome = Some(chat_shell_core::protocol::acp::PermissionOutcome::Cancelled);
    Some(item)
}
