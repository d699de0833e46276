//! Persistence: threads, items, attachments and feedback in SQLite, behind one mutex.
//!
//! Items are stored as their wire JSON so `threads.get_by_id` returns exactly what the
//! client saw; `seq` keeps their order within a thread. Every operation is a few tiny
//! statements, so a `std::sync::Mutex` around the connection is simpler than a pool and
//! fast enough; the server calls it from blocking threads, never from async workers.
//!
//! Every thread, item and attachment has an `owner` (a user id, see `auth`), and every
//! user-facing query goes through [`UserStore`], which filters by it: another user's rows
//! look exactly like missing ones. Rows without an owner (a `--seed-thread`, or history
//! from before owners existed) wait to be claimed with [`Store::claim_unowned`].

use chat_shell_core::protocol::chatkit::{
    AssistantContent, AssistantMessage, FeedbackKind, InputText, ItemId, ItemKind, ListOrder, Page,
    Thread, ThreadId, ThreadItem, ThreadStatus, UserContent, UserMessage,
};

use chat_shell_core::protocol::JsonMap;
use rusqlite::{params, Connection, OptionalExtension};
use std::path::Path;
use std::sync::{Mutex, MutexGuard};
use std::time::{SystemTime, UNIX_EPOCH};

pub type Result<T> = rusqlite::Result<T>;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS threads (
    id TEXT PRIMARY KEY,
    owner TEXT,
    title TEXT,
    created_at TEXT NOT NULL,
    status_json TEXT NOT NULL,
    metadata_json TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS items (
    id TEXT NOT NULL,
    thread_id TEXT NOT NULL,
    owner TEXT,
    seq INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    json TEXT NOT NULL,
    PRIMARY KEY (thread_id, id)
);
CREATE INDEX IF NOT EXISTS items_by_thread ON items (thread_id, seq);
CREATE TABLE IF NOT EXISTS attachments (
    id TEXT PRIMARY KEY,
    owner TEXT,
    name TEXT NOT NULL,
    mime_type TEXT NOT NULL,
    size INTEGER NOT NULL,
    thread_id TEXT,
    bytes BLOB
);
CREATE TABLE IF NOT EXISTS feedback (
    item_id TEXT PRIMARY KEY,
    kind TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS views (
    thread_id TEXT NOT NULL,
    view_type TEXT NOT NULL,
    seq INTEGER NOT NULL,
    content_json TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (thread_id, view_type)
);
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value BLOB NOT NULL
);
";

/// After [`SCHEMA`] and [`migrate`]: `owner` exists by then in databases of any age.
const INDEXES: &str = "
CREATE INDEX IF NOT EXISTS threads_by_owner ON threads (owner, created_at);
CREATE INDEX IF NOT EXISTS attachments_by_thread ON attachments (thread_id);
";

/// Inserts or updates one item: `?1` id, `?2` thread, `?3` created_at, `?4` json, `?5` owner.
const SAVE_ITEM: &str = "
INSERT INTO items (id, thread_id, owner, seq, created_at, json)
SELECT ?1, ?2, ?5, (SELECT COALESCE(MAX(seq), 0) + 1 FROM items WHERE thread_id = ?2), ?3, ?4
WHERE EXISTS (SELECT 1 FROM threads WHERE id = ?2 AND owner = ?5)
ON CONFLICT (thread_id, id) DO UPDATE SET json = excluded.json
WHERE items.owner = excluded.owner";

/// Tables that gained an `owner` column (databases made before it get it added, empty).
const OWNED_TABLES: [&str; 3] = ["threads", "items", "attachments"];

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

/// The SQLite-backed store shared by all requests.
pub struct Store {
    conn: Mutex<Connection>,
    /// Signs identity cookies: made at random once per database and kept in it, so a
    /// browser keeps its identity (and history) across restarts.
    secret: [u8; 32],
}

/// The store as one user sees it: every read and write is limited to rows `owner` owns.
pub struct UserStore<'a> {
    store: &'a Store,
    owner: &'a str,
}

impl Store {
    /// Opens (or creates) a database file; history survives restarts.
    pub fn open(path: &Path) -> Result<Store> {
        let conn = Connection::open(path)?;
        // WAL + NORMAL: many small commits while streaming must not each wait for an fsync.
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        Store::init(conn)
    }

    /// A throwaway database (tests, `--memory`).
    pub fn open_in_memory() -> Result<Store> {
        Store::init(Connection::open_in_memory()?)
    }

    fn init(conn: Connection) -> Result<Store> {
        conn.execute_batch(SCHEMA)?;
        migrate(&conn)?;
        conn.execute_batch(INDEXES)?;
        conn.execute(
            "INSERT OR IGNORE INTO meta (key, value) VALUES ('cookie_secret', ?1)",
            [random_bytes::<32>().as_slice()],
        )?;
        let stored: Vec<u8> = conn.query_row(
            "SELECT value FROM meta WHERE key = 'cookie_secret'",
            [],
            |r| r.get(0),
        )?;
        let secret = <[u8; 32]>::try_from(stored.as_slice()).map_err(|_| {
            rusqlite::Error::FromSqlConversionFailure(
                0,
                rusqlite::types::Type::Blob,
                "the stored cookie secret is not 32 bytes".into(),
            )
        })?;
        Ok(Store {
            conn: Mutex::new(conn),
            secret,
        })
    }

    fn conn(&self) -> MutexGuard<'_, Connection> {
        // A panic while holding the lock leaves SQLite consistent (statements are atomic).
        self.conn.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A fresh, unguessable id: `prefix` + `_` + 128 random bits in hex, e.g.
    /// `msg_5f0c…` (36 characters for a 3-letter prefix).
    pub fn next_id(&self, prefix: &str) -> String {
        new_id(prefix)
    }

    /// The key identity cookies are signed with.
    pub fn secret(&self) -> &[u8; 32] {
        &self.secret
    }

    /// `owner`'s view of the store.
    pub fn user<'a>(&'a self, owner: &'a str) -> UserStore<'a> {
        UserStore { store: self, owner }
    }

    /// Whether some thread or attachment has no owner yet (see [`Store::claim_unowned`]).
    pub fn has_unowned(&self) -> Result<bool> {
        self.conn().query_row(
            "SELECT EXISTS (SELECT 1 FROM threads WHERE owner IS NULL)
                 OR EXISTS (SELECT 1 FROM attachments WHERE owner IS NULL)",
            [],
            |r| r.get(0),
        )
    }

    /// Settles as `cancelled` every ACP permission request still asking in an ACP thread
    /// (one with an `acp_session_id`): at start-up no agent is waiting for an answer any
    /// more (it ran as this process's child), so a card must not ask. Returns how many.
    pub fn settle_orphaned_permissions(&self) -> Result<usize> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        let asking: Vec<(String, String, String)> = {
            let mut stmt = tx.prepare(
                "SELECT i.thread_id, i.id, i.json FROM items i JOIN threads t ON t.id = i.thread_id
                 WHERE t.metadata_json LIKE '%\"acp_session_id\"%' AND i.json LIKE '%\"permission\"%'",
            )?;
            let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
            rows.collect::<Result<_>>()?
        };
        let mut settled = 0;
        for (thread, id, json) in asking {
            let Ok(mut item) = from_json::<ThreadItem>(&json) else {
                continue;
            };
            let ItemKind::AcpToolCall(call) = &mut item.kind else {
                continue;
            };
            let Some(permission) = call.permission.as_mut().filter(|p| p.outcome.is_none()) else {
                continue;
            };
            permission.outcome = Some(chat_shell_core::protocol::acp::PermissionOutcome::Cancelled);
            tx.execute(
                "UPDATE items SET json = ?3 WHERE thread_id = ?1 AND id = ?2",
                params![thread, id, to_json(&item)?],
            )?;
            settled += 1;
        }
        tx.commit()?;
        Ok(settled)
    }

    /// Gives every row without an owner (a `--seed-thread`, or history kept before owners
    /// existed) to `owner`; returns how many threads changed hands.
    pub fn claim_unowned(&self, owner: &str) -> Result<usize> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        let threads = tx.execute("UPDATE threads SET owner = ?1 WHERE owner IS NULL", [owner])?;
        tx.execute("UPDATE items SET owner = ?1 WHERE owner IS NULL", [owner])?;
        tx.execute(
            "UPDATE attachments SET owner = ?1 WHERE owner IS NULL",
            [owner],
        )?;
        tx.commit()?;
        Ok(threads)
    }
}

impl UserStore<'_> {
    fn conn(&self) -> MutexGuard<'_, Connection> {
        self.store.conn()
    }

    /// A fresh, unguessable id (see [`Store::next_id`]).
    pub fn next_id(&self, prefix: &str) -> String {
        new_id(prefix)
    }

    // --- threads -------------------------------------------------------------------------

    /// Creates an active, untitled thread (without `items`).
    pub fn create_thread(&self) -> Result<Thread> {
        let thread = Thread {
            id: ThreadId(new_id("thr")),
            title: None,
            created_at: now_iso(),
            status: ThreadStatus::default(),
            metadata: JsonMap::new(),
            items: None,
        };
        self.conn().execute(
            "INSERT INTO threads (id, title, created_at, status_json, metadata_json, owner) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                thread.id.as_str(),
                thread.title,
                thread.created_at,
                to_json(&thread.status)?,
                to_json(&thread.metadata)?,
                self.owner
            ],
        )?;
        Ok(thread)
    }

    /// The thread's metadata (`items` is `None`).
    pub fn thread(&self, id: &ThreadId) -> Result<Option<Thread>> {
        self.conn()
            .query_row(
                "SELECT id, title, created_at, status_json, metadata_json FROM threads WHERE id = ?1 AND owner = ?2",
                [id.as_str(), self.owner],
                thread_from_row,
            )
            .optional()
    }

    /// Saves title, status and metadata. False if the thread does not exist.
    pub fn save_thread(&self, thread: &Thread) -> Result<bool> {
        let n = self.conn().execute(
            "UPDATE threads SET title = ?2, status_json = ?3, metadata_json = ?4 WHERE id = ?1 AND owner = ?5",
            params![
                thread.id.as_str(),
                thread.title,
                to_json(&thread.status)?,
                to_json(&thread.metadata)?,
                self.owner
            ],
        )?;
        Ok(n > 0)
    }

    /// Sets the title; returns the updated thread, `None` if unknown.
    pub fn set_title(&self, id: &ThreadId, title: &str) -> Result<Option<Thread>> {
        let Some(mut thread) = self.thread(id)? else {
            return Ok(None);
        };
        thread.title = Some(title.to_owned());
        self.save_thread(&thread)?;
        Ok(Some(thread))
    }

    /// One page of threads, newest first by default; `after` is the last thread id of the
    /// previous page (an unknown cursor gives an empty page rather than restarting).
    pub fn list_threads(
        &self,
        limit: usize,
        after: Option<&str>,
        order: ListOrder,
    ) -> Result<Page<Thread>> {
        let conn = self.conn();
        let cursor = match after {
            Some(id) => {
                let found = conn
                    .query_row(
                        "SELECT created_at, rowid FROM threads WHERE id = ?1 AND owner = ?2",
                        [id, self.owner],
                        |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)),
                    )
                    .optional()?;
                match found {
                    Some(c) => Some(c),
                    None => return Ok(Page::default()),
                }
            }
            None => None,
        };
        let (cmp, dir) = match order {
            ListOrder::Desc => ("<", "DESC"),
            ListOrder::Asc => (">", "ASC"),
        };
        let cols = "SELECT id, title, created_at, status_json, metadata_json FROM threads";
        let fetch = limit as i64 + 1;
        let rows: Vec<Thread> = match cursor {
            Some((created, rowid)) => {
                let sql = format!(
                    "{cols} WHERE owner = ?4 AND (created_at, rowid) {cmp} (?1, ?2) ORDER BY created_at {dir}, rowid {dir} LIMIT ?3"
                );
                let mut stmt = conn.prepare(&sql)?;
                let it =
                    stmt.query_map(params![created, rowid, fetch, self.owner], thread_from_row)?;
                it.collect::<Result<_>>()?
            }
            None => {
                let sql = format!(
                    "{cols} WHERE owner = ?2 ORDER BY created_at {dir}, rowid {dir} LIMIT ?1"
                );
                let mut stmt = conn.prepare(&sql)?;
                let it = stmt.query_map(params![fetch, self.owner], thread_from_row)?;
                it.collect::<Result<_>>()?
            }
        };
        Ok(page(rows, limit, |t| t.id.to_string()))
    }

    /// Deletes a thread with its items, their feedback and its attachments.
    pub fn delete_thread(&self, id: &ThreadId) -> Result<bool> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        let args = [id.as_str(), self.owner];
        // Not ours (or gone): nothing else is touched; dropping `tx` rolls back.
        if tx.execute("DELETE FROM threads WHERE id = ?1 AND owner = ?2", args)? == 0 {
            return Ok(false);
        }
        tx.execute(
            "DELETE FROM feedback WHERE item_id IN (SELECT id FROM items WHERE thread_id = ?1 AND owner = ?2)",
            args,
        )?;
        tx.execute(
            "DELETE FROM items WHERE thread_id = ?1 AND owner = ?2",
            args,
        )?;
        tx.execute(
            "DELETE FROM attachments WHERE thread_id = ?1 AND owner = ?2",
            args,
        )?;
        tx.execute("DELETE FROM views WHERE thread_id = ?1", [id.as_str()])?;
        tx.commit()?;
        Ok(true)
    }

    // --- items ---------------------------------------------------------------------------

    /// Inserts or updates an item (its `thread_id` must be set, to one of the owner's
    /// threads: anything else is ignored). An update keeps the item's place in the thread;
    /// a new item goes last: its `seq` is one more than the thread's largest, found through
    /// the `(thread_id, seq)` index, so an insert costs the same in any size of table.
    pub fn save_item(&self, item: &ThreadItem) -> Result<()> {
        let thread_id = item
            .thread_id
            .as_ref()
            .map(|t| t.as_str())
            .unwrap_or_default();
        self.conn().execute(
            SAVE_ITEM,
            params![
                item.id.as_str(),
                thread_id,
                item.created_at,
                to_json(item)?,
                self.owner
            ],
        )?;
        Ok(())
    }

    pub fn item(&self, thread: &ThreadId, id: &ItemId) -> Result<Option<ThreadItem>> {
        self.conn()
            .query_row(
                "SELECT json FROM items WHERE thread_id = ?1 AND id = ?2 AND owner = ?3",
                [thread.as_str(), id.as_str(), self.owner],
                item_from_row,
            )
            .optional()
    }

    /// Reads an item, lets `decide` change it and saves the change, all under the store's
    /// one lock: no other write comes between the read and the write (two answers to one
    /// permission request cannot both win). `None`: no such item for this owner; `Err`
    /// from `decide`: nothing is written.
    pub fn modify_item<T, E>(
        &self,
        thread: &ThreadId,
        id: &ItemId,
        decide: impl FnOnce(&mut ThreadItem) -> std::result::Result<T, E>,
    ) -> Result<Option<std::result::Result<T, E>>> {
        let conn = self.conn();
        let found = conn
            .query_row(
                "SELECT json FROM items WHERE thread_id = ?1 AND id = ?2 AND owner = ?3",
                [thread.as_str(), id.as_str(), self.owner],
                item_from_row,
            )
            .optional()?;
        let Some(mut item) = found else {
            return Ok(None);
        };
        let decided = decide(&mut item);
        if decided.is_ok() {
            conn.execute(
                "UPDATE items SET json = ?1 WHERE thread_id = ?2 AND id = ?3 AND owner = ?4",
                params![to_json(&item)?, thread.as_str(), id.as_str(), self.owner],
            )?;
        }
        Ok(Some(decided))
    }

    /// One page of a thread's items; `after` is an item id (an unknown cursor gives an
    /// empty page).
    pub fn list_items(
        &self,
        thread: &ThreadId,
        limit: usize,
        after: Option<&str>,
        order: ListOrder,
    ) -> Result<Page<ThreadItem>> {
        let conn = self.conn();
        let (cmp, dir) = match order {
            ListOrder::Desc => ("<", "DESC"),
            ListOrder::Asc => (">", "ASC"),
        };
        let cursor = match after {
            Some(id) => {
                let seq = conn
                    .query_row(
                        "SELECT seq FROM items WHERE thread_id = ?1 AND id = ?2 AND owner = ?3",
                        [thread.as_str(), id, self.owner],
                        |r| r.get::<_, i64>(0),
                    )
                    .optional()?;
                match seq {
                    Some(s) => Some(s),
                    None => return Ok(Page::default()),
                }
            }
            None => None,
        };
        let sql = format!(
            "SELECT json FROM items WHERE thread_id = ?1 AND owner = ?4
             AND (?2 IS NULL OR seq {cmp} ?2)
             ORDER BY seq {dir} LIMIT ?3"
        );
        let mut stmt = conn.prepare(&sql)?;
        let rows = stmt
            .query_map(
                params![thread.as_str(), cursor, limit as i64 + 1, self.owner],
                item_from_row,
            )?
            .collect::<Result<Vec<_>>>()?;
        Ok(page(rows, limit, |i| i.id.to_string()))
    }

    /// Every item of a thread, oldest first.
    pub fn all_items(&self, thread: &ThreadId) -> Result<Vec<ThreadItem>> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare("SELECT json FROM items WHERE thread_id = ?1 AND owner = ?2 ORDER BY seq")?;
        let rows = stmt.query_map([thread.as_str(), self.owner], item_from_row)?;
        rows.collect()
    }

    pub fn delete_item(&self, thread: &ThreadId, id: &ItemId) -> Result<bool> {
        let n = self.conn().execute(
            "DELETE FROM items WHERE thread_id = ?1 AND id = ?2 AND owner = ?3",
            [thread.as_str(), id.as_str(), self.owner],
        )?;
        Ok(n > 0)
    }

    /// Deletes every item after `id` (for `threads.retry_after_item`). `None` if `id` is
    /// not in the thread, else how many items went.
    pub fn delete_items_after(&self, thread: &ThreadId, id: &ItemId) -> Result<Option<usize>> {
        let conn = self.conn();
        let seq = conn
            .query_row(
                "SELECT seq FROM items WHERE thread_id = ?1 AND id = ?2 AND owner = ?3",
                [thread.as_str(), id.as_str(), self.owner],
                |r| r.get::<_, i64>(0),
            )
            .optional()?;
        let Some(seq) = seq else { return Ok(None) };
        let n = conn.execute(
            "DELETE FROM items WHERE thread_id = ?1 AND seq > ?2 AND owner = ?3",
            params![thread.as_str(), seq, self.owner],
        )?;
        Ok(Some(n))
    }

    /// Records thumbs up/down on items of `thread`; the latest vote per item wins. Ids
    /// that are not the owner's items in that thread are ignored.
    pub fn add_feedback(
        &self,
        thread: &ThreadId,
        item_ids: &[ItemId],
        kind: FeedbackKind,
    ) -> Result<()> {
        let kind = match kind {
            FeedbackKind::Positive => "positive",
            FeedbackKind::Negative => "negative",
        };
        let conn = self.conn();
        for id in item_ids {
            conn.execute(
                "INSERT INTO feedback (item_id, kind)
                 SELECT id, ?2 FROM items WHERE id = ?1 AND thread_id = ?3 AND owner = ?4
                 ON CONFLICT (item_id) DO UPDATE SET kind = excluded.kind",
                [id.as_str(), kind, thread.as_str(), self.owner],
            )?;
        }
        Ok(())
    }

    #[cfg(test)]
    pub fn feedback(&self, item_id: &ItemId) -> Result<Option<String>> {
        self.conn()
            .query_row(
                "SELECT kind FROM feedback WHERE item_id = ?1",
                [item_id.as_str()],
                |r| r.get(0),
            )
            .optional()
    }

    // --- attachments ---------------------------------------------------------------------

    pub fn create_attachment(
        &self,
        name: &str,
        mime_type: &str,
        size: u64,
    ) -> Result<AttachmentRecord> {
        let id = new_id("atc");
        self.conn().execute(
            "INSERT INTO attachments (id, name, mime_type, size, owner) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![id, name, mime_type, size as i64, self.owner],
        )?;
        Ok(AttachmentRecord {
            id,
            name: name.to_owned(),
            mime_type: mime_type.to_owned(),
            size,
            thread_id: None,
            uploaded: false,
        })
    }

    pub fn attachment(&self, id: &str) -> Result<Option<AttachmentRecord>> {
        self.conn()
            .query_row(
                "SELECT id, name, mime_type, size, thread_id, bytes IS NOT NULL FROM attachments WHERE id = ?1 AND owner = ?2",
                [id, self.owner],
                |r| {
                    Ok(AttachmentRecord {
                        id: r.get(0)?,
                        name: r.get(1)?,
                        mime_type: r.get(2)?,
                        size: r.get::<_, i64>(3)? as u64,
                        thread_id: r.get(4)?,
                        uploaded: r.get(5)?,
                    })
                },
            )
            .optional()
    }

    /// Stores the uploaded bytes and the type they turned out to have.
    pub fn store_upload(&self, id: &str, mime_type: &str, bytes: &[u8]) -> Result<bool> {
        let n = self.conn().execute(
            "UPDATE attachments SET bytes = ?2, mime_type = ?3, size = ?4 WHERE id = ?1 AND owner = ?5",
            params![id, bytes, mime_type, bytes.len() as i64, self.owner],
        )?;
        Ok(n > 0)
    }

    /// The uploaded bytes and their mime type, if any were uploaded.
    pub fn upload(&self, id: &str) -> Result<Option<(String, Vec<u8>)>> {
        self.conn()
            .query_row(
                "SELECT mime_type, bytes FROM attachments WHERE id = ?1 AND owner = ?2 AND bytes IS NOT NULL",
                [id, self.owner],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
    }

    /// Binds an attachment to the thread whose message carries it.
    pub fn attach_to_thread(&self, id: &str, thread: &ThreadId) -> Result<()> {
        self.conn().execute(
            "UPDATE attachments SET thread_id = ?2 WHERE id = ?1 AND owner = ?3",
            [id, thread.as_str(), self.owner],
        )?;
        Ok(())
    }

    pub fn delete_attachment(&self, id: &str) -> Result<bool> {
        Ok(self.conn().execute(
            "DELETE FROM attachments WHERE id = ?1 AND owner = ?2",
            [id, self.owner],
        )? > 0)
    }
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

impl UserStore<'_> {
    /// The views of the owner's thread whose latest `seq` is over `after` (all when
    /// `None`, cleared ones included), oldest change first, with the thread's latest seq
    /// (0 if none); `None` if the thread is not the owner's.
    pub fn views_after(
        &self,
        thread: &ThreadId,
        after: Option<u64>,
    ) -> Result<Option<(Vec<ViewRecord>, u64)>> {
        let conn = self.conn();
        let exists = conn
            .prepare("SELECT 1 FROM threads WHERE id = ?1 AND owner = ?2")?
            .exists([thread.as_str(), self.owner])?;
        if !exists {
            return Ok(None);
        }
        let mut stmt = conn.prepare(
            "SELECT view_type, seq, content_json, updated_at FROM views
             WHERE thread_id = ?1 AND seq > ?2 ORDER BY seq",
        )?;
        let after = after.map_or(0, |n| i64::try_from(n).unwrap_or(i64::MAX));
        let views = stmt
            .query_map(params![thread.as_str(), after], view_from_row)?
            .collect::<Result<Vec<_>>>()?;
        let latest: i64 = conn.query_row(
            "SELECT COALESCE(MAX(seq), 0) FROM views WHERE thread_id = ?1",
            [thread.as_str()],
            |r| r.get(0),
        )?;
        Ok(Some((views, latest as u64)))
    }
}

fn view_from_row(row: &rusqlite::Row<'_>) -> Result<ViewRecord> {
    Ok(ViewRecord {
        view_type: row.get(0)?,
        seq: row.get::<_, i64>(1)? as u64,
        content_json: row.get(2)?,
        updated_at: row.get(3)?,
    })
}

impl Store {
    /// Stores the latest `content_json` of view `view_type` of thread `thread` (any
    /// owner's: tools act for the runtime), overwriting the previous one, with the
    /// thread's next sequence number. `None` if the thread does not exist.
    pub fn put_view(
        &self,
        thread: &str,
        view_type: &str,
        content_json: &str,
    ) -> Result<Option<ViewRecord>> {
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        let exists = tx
            .prepare("SELECT 1 FROM threads WHERE id = ?1")?
            .exists([thread])?;
        if !exists {
            return Ok(None);
        }
        let seq: i64 = tx.query_row(
            "SELECT COALESCE(MAX(seq), 0) + 1 FROM views WHERE thread_id = ?1",
            [thread],
            |r| r.get(0),
        )?;
        let updated_at = now_iso();
        tx.execute(
            "INSERT INTO views (thread_id, view_type, seq, content_json, updated_at)
             VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT (thread_id, view_type) DO UPDATE SET
                 seq = excluded.seq, content_json = excluded.content_json,
                 updated_at = excluded.updated_at",
            params![thread, view_type, seq, content_json, updated_at],
        )?;
        tx.commit()?;
        Ok(Some(ViewRecord {
            view_type: view_type.to_owned(),
            seq: seq as u64,
            content_json: content_json.to_owned(),
            updated_at,
        }))
    }

    /// Creates a titled thread holding `n` items, questions and answers in turn (for
    /// benchmarks: `--seed-thread`). One transaction, so thousands take milliseconds. It
    /// has no owner: the first identity to use the runtime claims it.
    pub fn seed_thread(&self, n: usize) -> Result<ThreadId> {
        let thread = Thread {
            id: ThreadId(new_id("thr")),
            title: Some(format!("Seeded thread ({n} items)")),
            created_at: now_iso(),
            status: ThreadStatus::default(),
            metadata: JsonMap::new(),
            items: None,
        };
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        tx.execute(
            "INSERT INTO threads (id, title, created_at, status_json, metadata_json) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                thread.id.as_str(),
                thread.title,
                thread.created_at,
                to_json(&thread.status)?,
                to_json(&thread.metadata)?
            ],
        )?;
        {
            let mut insert = tx.prepare(
                "INSERT INTO items (id, thread_id, seq, created_at, json) VALUES (?1, ?2, ?3, ?4, ?5)",
            )?;
            for i in 0..n {
                let turn = i / 2 + 1;
                let kind = if i % 2 == 0 {
                    ItemKind::UserMessage(UserMessage {
                        content: vec![UserContent::InputText(InputText {
                            text: format!("Seeded question {turn}"),
                        })],
                        ..Default::default()
                    })
                } else {
                    ItemKind::AssistantMessage(AssistantMessage {
                        content: vec![AssistantContent::text(format!(
                            "Seeded answer {turn}: a **short** reply with a [link](https://example.com/{turn}) \
                             and a list:\n\n- one\n- two"
                        ))],
                    })
                };
                let item = ThreadItem {
                    id: ItemId(new_id(if i % 2 == 0 { "msg" } else { "asst" })),
                    thread_id: Some(thread.id.clone()),
                    created_at: now_iso(),
                    kind,
                };
                insert.execute(params![
                    item.id.as_str(),
                    thread.id.as_str(),
                    i as i64 + 1,
                    item.created_at,
                    to_json(&item)?
                ])?;
            }
        }
        tx.commit()?;
        Ok(thread.id)
    }
}

/// `data` holds up to `limit + 1` rows: the extra one only says there is more.
fn page<T>(mut rows: Vec<T>, limit: usize, id: impl Fn(&T) -> String) -> Page<T> {
    let has_more = rows.len() > limit;
    rows.truncate(limit);
    let after = rows.last().map(id);
    Page {
        data: rows,
        has_more,
        after,
    }
}

fn thread_from_row(row: &rusqlite::Row<'_>) -> Result<Thread> {
    Ok(Thread {
        id: ThreadId(row.get(0)?),
        title: row.get(1)?,
        created_at: row.get(2)?,
        status: from_json(&row.get::<_, String>(3)?)?,
        metadata: from_json(&row.get::<_, String>(4)?)?,
        items: None,
    })
}

fn item_from_row(row: &rusqlite::Row<'_>) -> Result<ThreadItem> {
    from_json(&row.get::<_, String>(0)?)
}

fn to_json<T: serde::Serialize>(value: &T) -> Result<String> {
    serde_json::to_string(value).map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))
}

fn from_json<T: serde::de::DeserializeOwned>(text: &str) -> Result<T> {
    serde_json::from_str(text).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, Box::new(e))
    })
}

/// Adds `owner` to the tables of a database made before owners existed. Its rows keep an
/// empty owner until [`Store::claim_unowned`].
fn migrate(conn: &Connection) -> Result<()> {
    for table in OWNED_TABLES {
        let has_owner = conn
            .prepare(&format!(
                "SELECT 1 FROM pragma_table_info('{table}') WHERE name = 'owner'"
            ))?
            .exists([])?;
        if !has_owner {
            conn.execute_batch(&format!("ALTER TABLE {table} ADD COLUMN owner TEXT"))?;
        }
    }
    Ok(())
}

/// `N` bytes from the operating system's CSPRNG.
pub fn random_bytes<const N: usize>() -> [u8; N] {
    let mut bytes = [0u8; N];
    // Only fails where the OS has no random source at all; nothing safe to fall back on.
    getrandom::fill(&mut bytes).expect("the operating system's random number generator");
    bytes
}

/// Lowercase hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `prefix` + `_` + 128 random bits in hex: ids nobody can guess or count through.
pub fn new_id(prefix: &str) -> String {
    format!("{prefix}_{}", hex(&random_bytes::<16>()))
}

/// The current UTC time as the SDK writes it: naive ISO 8601 with microseconds.
pub fn now_iso() -> String {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    format_iso(now.as_secs(), now.subsec_micros())
}

fn format_iso(secs: u64, micros: u32) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{micros:06}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Days since 1970-01-01 to (year, month, day) in the proleptic Gregorian calendar
/// (Howard Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chat_shell_core::protocol::chatkit::{
        AssistantContent, AssistantMessage, InputText, ItemKind, StatusBody, UserContent,
        UserMessage,
    };

    /// A fresh in-memory store as seen by the user `alice` (leaked: tests are short).
    fn store() -> UserStore<'static> {
        Box::leak(Box::new(Store::open_in_memory().unwrap())).user("alice")
    }

    fn message(store: &UserStore<'_>, thread: &ThreadId, text: &str) -> ThreadItem {
        let item = ThreadItem {
            id: ItemId(store.next_id("msg")),
            thread_id: Some(thread.clone()),
            created_at: now_iso(),
            kind: ItemKind::UserMessage(UserMessage {
                content: vec![UserContent::InputText(InputText { text: text.into() })],
                ..Default::default()
            }),
        };
        store.save_item(&item).unwrap();
        item
    }

    fn ids<T>(page: &Page<T>, id: impl Fn(&T) -> String) -> Vec<String> {
        page.data.iter().map(id).collect()
    }

    #[test]
    fn timestamps_are_naive_iso_with_micros() {
        assert_eq!(format_iso(0, 0), "1970-01-01T00:00:00.000000");
        assert_eq!(
            format_iso(1_795_249_736, 274_912),
            "2026-11-21T08:28:56.274912"
        );
        assert_eq!(format_iso(951_782_400, 5), "2000-02-29T00:00:00.000005");
        assert_eq!(now_iso().len(), 26);
    }

    #[test]
    fn ids_are_long_random_hex() {
        let s = store();
        let a = s.next_id("thr");
        let b = s.next_id("thr");
        assert_ne!(a, b);
        for id in [&a, &b] {
            let hex = id.strip_prefix("thr_").unwrap();
            assert_eq!(hex.len(), 32, "{id}");
            assert!(hex.bytes().all(|c| c.is_ascii_hexdigit()), "{id}");
        }
        // Not a counter: the two differ in more than their last digits.
        let shared = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
        assert!(shared < 30, "{a} {b}");
    }

    #[test]
    fn another_owner_sees_nothing_and_changes_nothing() {
        let db = Box::leak(Box::new(Store::open_in_memory().unwrap()));
        let (alice, bob) = (db.user("alice"), db.user("bob"));
        let t = alice.create_thread().unwrap();
        let m = message(&alice, &t.id, "mine");
        let a = alice.create_attachment("a.txt", "text/plain", 1).unwrap();
        assert!(alice.store_upload(&a.id, "text/plain", b"x").unwrap());

        assert!(bob.thread(&t.id).unwrap().is_none());
        assert!(bob
            .list_threads(10, None, ListOrder::Desc)
            .unwrap()
            .data
            .is_empty());
        // A cursor naming alice's thread is unknown to bob.
        assert!(bob
            .list_threads(10, Some(t.id.as_str()), ListOrder::Desc)
            .unwrap()
            .data
            .is_empty());
        assert!(bob.item(&t.id, &m.id).unwrap().is_none());
        assert!(bob
            .list_items(&t.id, 10, None, ListOrder::Asc)
            .unwrap()
            .data
            .is_empty());
        assert!(bob.attachment(&a.id).unwrap().is_none());
        assert_eq!(bob.upload(&a.id).unwrap(), None);

        // Writes aimed at alice's rows do nothing.
        assert!(bob.set_title(&t.id, "taken").unwrap().is_none());
        assert!(!bob.save_thread(&t).unwrap());
        let mut changed = m.clone();
        changed.kind = ItemKind::UserMessage(UserMessage::default());
        bob.save_item(&changed).unwrap();
        let intruder = ThreadItem {
            id: ItemId(bob.next_id("msg")),
            ..m.clone()
        };
        bob.save_item(&intruder).unwrap();
        bob.add_feedback(&t.id, std::slice::from_ref(&m.id), FeedbackKind::Negative)
            .unwrap();
        assert!(!bob.delete_item(&t.id, &m.id).unwrap());
        assert_eq!(bob.delete_items_after(&t.id, &m.id).unwrap(), None);
        assert!(!bob.store_upload(&a.id, "text/plain", b"y").unwrap());
        bob.attach_to_thread(&a.id, &ThreadId::from("thr_bob"))
            .unwrap();
        assert!(!bob.delete_attachment(&a.id).unwrap());
        assert!(!bob.delete_thread(&t.id).unwrap());

        assert_eq!(alice.thread(&t.id).unwrap().unwrap(), t);
        assert_eq!(alice.all_items(&t.id).unwrap(), std::slice::from_ref(&m));
        assert_eq!(alice.feedback(&m.id).unwrap(), None);
        let kept = alice.attachment(&a.id).unwrap().unwrap();
        assert_eq!(kept.thread_id, None);
        assert_eq!(
            alice.upload(&a.id).unwrap(),
            Some(("text/plain".into(), b"x".to_vec()))
        );
    }

    #[test]
    fn saving_an_item_uses_indexes_not_a_table_scan() {
        let db = Store::open_in_memory().unwrap();
        let conn = db.conn();
        let mut stmt = conn
            .prepare(&format!("EXPLAIN QUERY PLAN {SAVE_ITEM}"))
            .unwrap();
        let plan: Vec<String> = stmt
            .query_map(["i", "t", "c", "{}", "o"], |r| r.get::<_, String>(3))
            .unwrap()
            .collect::<Result<_>>()
            .unwrap();
        assert!(!plan.is_empty());
        for step in &plan {
            // `SCAN items` (even `USING … INDEX`) would read every row on each insert.
            assert!(
                !step.starts_with("SCAN items") && !step.starts_with("SCAN threads"),
                "{plan:?}"
            );
        }
        assert!(
            plan.iter().any(|s| s.contains("items_by_thread")),
            "{plan:?}"
        );
    }

    #[test]
    fn unowned_rows_go_to_the_first_claimant() {
        let db = Box::leak(Box::new(Store::open_in_memory().unwrap()));
        assert!(!db.has_unowned().unwrap());
        let seeded = db.seed_thread(4).unwrap();
        assert!(db.has_unowned().unwrap());
        assert!(db.user("alice").thread(&seeded).unwrap().is_none());
        assert_eq!(db.claim_unowned("alice").unwrap(), 1);
        assert!(!db.has_unowned().unwrap());
        assert_eq!(db.claim_unowned("bob").unwrap(), 0);
        assert_eq!(db.user("alice").all_items(&seeded).unwrap().len(), 4);
        assert!(db.user("bob").thread(&seeded).unwrap().is_none());
    }

    #[test]
    fn an_old_database_gains_owners_and_a_secret() {
        let path = std::env::temp_dir().join(format!(
            "chat-shell-runtime-store-old-{}-{}.db",
            std::process::id(),
            now_iso()
        ));
        {
            // The schema as it was before owners.
            let conn = Connection::open(&path).unwrap();
            conn.execute_batch(
                "CREATE TABLE threads (id TEXT PRIMARY KEY, title TEXT, created_at TEXT NOT NULL,
                     status_json TEXT NOT NULL, metadata_json TEXT NOT NULL);
                 CREATE TABLE items (id TEXT NOT NULL, thread_id TEXT NOT NULL, seq INTEGER NOT NULL,
                     created_at TEXT NOT NULL, json TEXT NOT NULL, PRIMARY KEY (thread_id, id));
                 CREATE TABLE attachments (id TEXT PRIMARY KEY, name TEXT NOT NULL,
                     mime_type TEXT NOT NULL, size INTEGER NOT NULL, thread_id TEXT, bytes BLOB);
                 INSERT INTO threads VALUES ('thr_00000001', 'Old', '2024-01-01T00:00:00.000000',
                     '{\"type\":\"active\"}', '{}');",
            )
            .unwrap();
        }
        let db = Store::open(&path).unwrap();
        let secret = *db.secret();
        assert_ne!(secret, [0; 32]);
        assert!(db.has_unowned().unwrap());
        assert_eq!(db.claim_unowned("alice").unwrap(), 1);
        let old = ThreadId::from("thr_00000001");
        let thread = db.user("alice").thread(&old).unwrap().unwrap();
        assert_eq!(thread.title.as_deref(), Some("Old"));
        drop(db);
        // Reopening keeps the secret (cookies stay valid) and the owners.
        let db = Store::open(&path).unwrap();
        assert_eq!(*db.secret(), secret);
        assert!(db.user("alice").thread(&old).unwrap().is_some());
        assert_ne!(*Store::open_in_memory().unwrap().secret(), secret);
        drop(db);
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
        }
    }

    #[test]
    fn threads_list_newest_first_and_paginate() {
        let s = store();
        let made: Vec<ThreadId> = (0..5).map(|_| s.create_thread().unwrap().id).collect();
        let first = s.list_threads(2, None, ListOrder::Desc).unwrap();
        assert_eq!(
            ids(&first, |t| t.id.to_string()),
            [made[4].to_string(), made[3].to_string()]
        );
        assert!(first.has_more);
        assert_eq!(first.after.as_deref(), Some(made[3].as_str()));
        let second = s
            .list_threads(2, first.after.as_deref(), ListOrder::Desc)
            .unwrap();
        assert_eq!(
            ids(&second, |t| t.id.to_string()),
            [made[2].to_string(), made[1].to_string()]
        );
        let third = s
            .list_threads(2, second.after.as_deref(), ListOrder::Desc)
            .unwrap();
        assert_eq!(ids(&third, |t| t.id.to_string()), [made[0].to_string()]);
        assert!(!third.has_more);
        let asc = s.list_threads(10, None, ListOrder::Asc).unwrap();
        assert_eq!(
            asc.data.first().map(|t| t.id.clone()),
            Some(made[0].clone())
        );
        assert_eq!(asc.data.len(), 5);
        assert!(s
            .list_threads(2, Some("thr_missing"), ListOrder::Desc)
            .unwrap()
            .data
            .is_empty());
    }

    #[test]
    fn items_paginate_both_ways() {
        let s = store();
        let t = s.create_thread().unwrap().id;
        let items: Vec<String> = (0..5)
            .map(|i| message(&s, &t, &format!("m{i}")).id.0)
            .collect();
        let asc = s.list_items(&t, 2, None, ListOrder::Asc).unwrap();
        assert_eq!(ids(&asc, |i| i.id.0.clone()), items[0..2]);
        assert!(asc.has_more);
        assert_eq!(asc.after.as_deref(), Some(items[1].as_str()));
        let asc2 = s
            .list_items(&t, 10, asc.after.as_deref(), ListOrder::Asc)
            .unwrap();
        assert_eq!(ids(&asc2, |i| i.id.0.clone()), items[2..5]);
        assert!(!asc2.has_more);
        let desc = s.list_items(&t, 3, None, ListOrder::Desc).unwrap();
        assert_eq!(
            ids(&desc, |i| i.id.0.clone()),
            [items[4].as_str(), items[3].as_str(), items[2].as_str()]
        );
        let desc2 = s
            .list_items(&t, 3, desc.after.as_deref(), ListOrder::Desc)
            .unwrap();
        assert_eq!(
            ids(&desc2, |i| i.id.0.clone()),
            [items[1].as_str(), items[0].as_str()]
        );
        assert!(!desc2.has_more);
        // Another thread's items never leak in.
        let other = s.create_thread().unwrap().id;
        message(&s, &other, "elsewhere");
        assert_eq!(s.all_items(&t).unwrap().len(), 5);
    }

    #[test]
    fn saving_an_item_again_updates_it_in_place() {
        let s = store();
        let t = s.create_thread().unwrap().id;
        let a = message(&s, &t, "a");
        let mut b = message(&s, &t, "b");
        b.kind = ItemKind::AssistantMessage(AssistantMessage {
            content: vec![AssistantContent::text("partial")],
        });
        s.save_item(&b).unwrap();
        message(&s, &t, "c");
        let mut stored = s.item(&t, &b.id).unwrap().unwrap();
        assert_eq!(stored, b);
        if let ItemKind::AssistantMessage(m) = &mut stored.kind {
            m.content[0].text.push_str(" and done");
        }
        s.save_item(&stored).unwrap();
        let all = s.all_items(&t).unwrap();
        assert_eq!(all.len(), 3);
        assert_eq!(all[0].id, a.id);
        assert_eq!(all[1], stored);
    }

    #[test]
    fn modifying_an_item_writes_only_what_is_accepted_and_only_for_its_owner() {
        let s = store();
        let t = s.create_thread().unwrap().id;
        let a = message(&s, &t, "a");
        let b = message(&s, &t, "b");
        let rename = |text: &'static str| {
            move |item: &mut ThreadItem| -> std::result::Result<(), ()> {
                if let ItemKind::UserMessage(m) = &mut item.kind {
                    m.content = vec![UserContent::InputText(InputText { text: text.into() })];
                }
                Ok(())
            }
        };
        assert_eq!(s.modify_item(&t, &a.id, rename("A")).unwrap(), Some(Ok(())));
        // Refused: nothing written.
        let refused = s.modify_item(&t, &b.id, |item| {
            rename("B")(item).unwrap();
            Err::<(), _>("no")
        });
        assert_eq!(refused.unwrap(), Some(Err("no")));
        let texts: Vec<String> = s
            .all_items(&t)
            .unwrap()
            .iter()
            .map(|i| match &i.kind {
                ItemKind::UserMessage(m) => m.text(),
                _ => String::new(),
            })
            .collect();
        assert_eq!(texts, ["A", "b"], "changed in place, order kept");
        // Another owner sees no such item and changes nothing.
        let other = s.store.user("someone-else");
        assert_eq!(other.modify_item(&t, &a.id, rename("X")).unwrap(), None);
        assert_eq!(
            s.modify_item(&t, &ItemId::from("msg_missing"), rename("X"))
                .unwrap(),
            None
        );
    }

    #[test]
    fn retry_truncates_after_the_user_message() {
        let s = store();
        let t = s.create_thread().unwrap().id;
        let first = message(&s, &t, "one");
        let keep = message(&s, &t, "two");
        message(&s, &t, "answer");
        message(&s, &t, "more");
        assert_eq!(s.delete_items_after(&t, &keep.id).unwrap(), Some(2));
        let left: Vec<ItemId> = s.all_items(&t).unwrap().into_iter().map(|i| i.id).collect();
        assert_eq!(left, [first.id, keep.id.clone()]);
        assert_eq!(
            s.delete_items_after(&t, &ItemId::from("msg_nope")).unwrap(),
            None
        );
        // New items go after the survivors.
        let next = message(&s, &t, "retried");
        assert_eq!(
            s.all_items(&t).unwrap().last().map(|i| i.id.clone()),
            Some(next.id)
        );
    }

    #[test]
    fn deleting_a_thread_cascades() {
        let s = store();
        let t = s.create_thread().unwrap().id;
        let keep = s.create_thread().unwrap().id;
        let m = message(&s, &t, "bye");
        let kept = message(&s, &keep, "stay");
        s.add_feedback(&t, std::slice::from_ref(&m.id), FeedbackKind::Positive)
            .unwrap();
        s.add_feedback(
            &keep,
            std::slice::from_ref(&kept.id),
            FeedbackKind::Positive,
        )
        .unwrap();
        let a = s.create_attachment("a.txt", "text/plain", 3).unwrap();
        s.attach_to_thread(&a.id, &t).unwrap();
        assert!(s.delete_thread(&t).unwrap());
        assert!(s.thread(&t).unwrap().is_none());
        assert!(s.all_items(&t).unwrap().is_empty());
        assert!(s.item(&t, &m.id).unwrap().is_none());
        assert_eq!(s.feedback(&m.id).unwrap(), None);
        assert!(s.attachment(&a.id).unwrap().is_none());
        assert_eq!(s.feedback(&kept.id).unwrap().as_deref(), Some("positive"));
        assert_eq!(s.all_items(&keep).unwrap().len(), 1);
        assert!(!s.delete_thread(&t).unwrap());
    }

    #[test]
    fn feedback_keeps_the_latest_vote() {
        let s = store();
        let t = s.create_thread().unwrap().id;
        let id = message(&s, &t, "rate me").id;
        s.add_feedback(&t, std::slice::from_ref(&id), FeedbackKind::Positive)
            .unwrap();
        s.add_feedback(&t, std::slice::from_ref(&id), FeedbackKind::Negative)
            .unwrap();
        assert_eq!(s.feedback(&id).unwrap().as_deref(), Some("negative"));
        // Only items of that thread are rated.
        let other = s.create_thread().unwrap().id;
        s.add_feedback(&other, std::slice::from_ref(&id), FeedbackKind::Positive)
            .unwrap();
        let stray = ItemId::from("msg_00000009");
        s.add_feedback(&t, std::slice::from_ref(&stray), FeedbackKind::Positive)
            .unwrap();
        assert_eq!(s.feedback(&id).unwrap().as_deref(), Some("negative"));
        assert_eq!(s.feedback(&stray).unwrap(), None);
    }

    #[test]
    fn attachments_store_bytes() {
        let s = store();
        let a = s.create_attachment("pic.png", "image/png", 4).unwrap();
        assert!(a.id.starts_with("atc_"));
        assert!(!s.attachment(&a.id).unwrap().unwrap().uploaded);
        assert_eq!(s.upload(&a.id).unwrap(), None);
        assert!(s.store_upload(&a.id, "image/png", b"\x89PNG").unwrap());
        let stored = s.attachment(&a.id).unwrap().unwrap();
        assert!(stored.uploaded);
        assert_eq!(stored.size, 4);
        assert_eq!(
            s.upload(&a.id).unwrap(),
            Some(("image/png".into(), b"\x89PNG".to_vec()))
        );
        assert!(!s.store_upload("atc_missing", "image/png", b"x").unwrap());
        assert!(s.delete_attachment(&a.id).unwrap());
        assert!(s.attachment(&a.id).unwrap().is_none());
    }

    #[test]
    fn title_and_status_are_saved() {
        let s = store();
        let t = s.create_thread().unwrap();
        assert_eq!(t.title, None);
        let renamed = s.set_title(&t.id, "Renamed").unwrap().unwrap();
        assert_eq!(renamed.title.as_deref(), Some("Renamed"));
        let mut locked = renamed.clone();
        locked.status = ThreadStatus::Locked(StatusBody {
            reason: Some("done".into()),
        });
        assert!(s.save_thread(&locked).unwrap());
        assert_eq!(s.thread(&t.id).unwrap().unwrap(), locked);
        assert!(s
            .set_title(&ThreadId::from("thr_nope"), "x")
            .unwrap()
            .is_none());
    }

    #[test]
    fn a_seeded_thread_pages_newest_first() {
        let db = Box::leak(Box::new(Store::open_in_memory().unwrap()));
        let id = db.seed_thread(45).unwrap();
        db.claim_unowned("alice").unwrap();
        let s = db.user("alice");
        let thread = s.thread(&id).unwrap().unwrap();
        assert_eq!(thread.title.as_deref(), Some("Seeded thread (45 items)"));
        let newest = s.list_items(&id, 20, None, ListOrder::Desc).unwrap();
        assert!(newest.has_more);
        assert_eq!(newest.data.len(), 20);
        let last = newest.data.first().unwrap();
        // Item 44 (0-based) is the 23rd question.
        assert!(matches!(&last.kind, ItemKind::UserMessage(m) if m.text() == "Seeded question 23"));
        let older = s
            .list_items(&id, 20, newest.after.as_deref(), ListOrder::Desc)
            .unwrap();
        let oldest = s
            .list_items(&id, 20, older.after.as_deref(), ListOrder::Desc)
            .unwrap();
        assert_eq!((older.data.len(), oldest.data.len()), (20, 5));
        assert!(!oldest.has_more);
        assert_eq!(s.all_items(&id).unwrap().len(), 45);
    }

    #[test]
    fn a_file_database_survives_reopening() {
        let path = std::env::temp_dir().join(format!(
            "chat-shell-runtime-store-{}-{}.db",
            std::process::id(),
            now_iso()
        ));
        let (thread, item) = {
            let db = Store::open(&path).unwrap();
            let s = db.user("alice");
            let t = s.create_thread().unwrap();
            s.set_title(&t.id, "Persisted").unwrap();
            let item = message(&s, &t.id, "remember me");
            (t.id, item)
        };
        let db = Store::open(&path).unwrap();
        let s = db.user("alice");
        let back = s.thread(&thread).unwrap().expect("thread after reopening");
        assert_eq!(back.title.as_deref(), Some("Persisted"));
        assert_eq!(s.all_items(&thread).unwrap(), std::slice::from_ref(&item));
        // New items still go after the ones on disk.
        let next = message(&s, &thread, "and me");
        assert_eq!(s.all_items(&thread).unwrap(), [item, next]);
        drop(db);
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
        }
    }
}
