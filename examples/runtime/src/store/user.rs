//! One user's view of the store ([`UserStore`]): threads, items, feedback and attachments,
//! each query filtered by owner.

use super::rows::{item_from_row, page, thread_from_row};
use super::sql::{path_page_sql, END_SQLITE};
use super::*;
use chat_shell_core::protocol::chatkit::{
    FeedbackKind, ItemId, ListOrder, Page, Thread, ThreadId, ThreadItem, ThreadStatus,
};

use chat_shell_core::protocol::JsonMap;
use rusqlite::{params, Connection, OptionalExtension};
use std::sync::MutexGuard;

impl UserStore<'_> {
    pub(super) fn conn(&self) -> MutexGuard<'_, Connection> {
        self.store.conn()
    }

    /// This user's rows in PostgreSQL, if the store is that.
    pub(super) fn pg(&self) -> Option<pg::PgUser<'_>> {
        self.store.pg().map(|pg| pg.user(self.owner))
    }

    /// A fresh, unguessable id (see [`Store::next_id`]).
    pub fn next_id(&self, prefix: &str) -> String {
        new_id(prefix)
    }

    // --- threads -------------------------------------------------------------------------

    /// Creates an active, untitled thread (without `items`).
    pub fn create_thread(&self) -> Result<Thread> {
        let thread = Thread {
            branching: self.store.branching,
            id: ThreadId(new_id("thr")),
            title: None,
            created_at: now_iso(),
            status: ThreadStatus::default(),
            metadata: JsonMap::new(),
            items: None,
        };
        if let Some(pg) = self.pg() {
            pg.insert_thread(&thread)?;
            return Ok(thread);
        }
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
        let found = match self.pg() {
            Some(pg) => pg.thread(id)?,
            None => self
                .conn()
                .query_row(
                    "SELECT id, title, created_at, status_json, metadata_json FROM threads WHERE id = ?1 AND owner = ?2",
                    [id.as_str(), self.owner],
                    thread_from_row,
                )
                .optional()?,
        };
        Ok(found.map(|t| self.offer_branches(t)))
    }

    /// The thread as this store offers it: with `branching` where threads branch.
    fn offer_branches(&self, mut thread: Thread) -> Thread {
        thread.branching = self.store.branching;
        thread
    }

    /// Saves title, status and metadata. False if the thread does not exist.
    pub fn save_thread(&self, thread: &Thread) -> Result<bool> {
        if let Some(pg) = self.pg() {
            return pg.save_thread(thread);
        }
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
        let mut page = match self.pg() {
            Some(pg) => pg.list_threads(limit, after, order)?,
            None => self.list_threads_sqlite(limit, after, order)?,
        };
        page.data = page
            .data
            .into_iter()
            .map(|t| self.offer_branches(t))
            .collect();
        Ok(page)
    }

    fn list_threads_sqlite(
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
                it.collect::<rusqlite::Result<_>>()?
            }
            None => {
                let sql = format!(
                    "{cols} WHERE owner = ?2 ORDER BY created_at {dir}, rowid {dir} LIMIT ?1"
                );
                let mut stmt = conn.prepare(&sql)?;
                let it = stmt.query_map(params![fetch, self.owner], thread_from_row)?;
                it.collect::<rusqlite::Result<_>>()?
            }
        };
        Ok(page(rows, limit, |t| t.id.to_string()))
    }

    /// Deletes a thread with its items, their feedback and its attachments.
    pub fn delete_thread(&self, id: &ThreadId) -> Result<bool> {
        if let Some(pg) = self.pg() {
            return pg.delete_thread(id);
        }
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
        tx.execute(END_SQLITE, args)?;
        tx.commit()?;
        Ok(true)
    }

    // --- items ---------------------------------------------------------------------------

    /// Inserts or updates an item (its `thread_id` must be set, to one of the owner's
    /// threads: anything else is ignored). An update keeps the item's place in the thread;
    /// a new item goes last on the branch shown: its `seq` is one more than the thread's
    /// largest, found through the `(thread_id, seq)` index, so an insert costs the same in
    /// any size of table. Returns the item's branches (`store::branches`; empty where it
    /// has none).
    pub fn save_item(&self, item: &ThreadItem) -> Result<Vec<ItemId>> {
        if let Some(pg) = self.pg() {
            return pg.save_item(item);
        }
        self.save_item_sqlite(item)
    }

    pub fn item(&self, thread: &ThreadId, id: &ItemId) -> Result<Option<ThreadItem>> {
        if let Some(pg) = self.pg() {
            return pg.item(thread, id);
        }
        Ok(self
            .conn()
            .query_row(
                "SELECT json FROM items WHERE thread_id = ?1 AND id = ?2 AND owner = ?3",
                [thread.as_str(), id.as_str(), self.owner],
                item_from_row,
            )
            .optional()?)
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
        if let Some(pg) = self.pg() {
            return pg.modify_item(thread, id, decide);
        }
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

    /// One page of the branch shown; `after` is an item id (an unknown cursor gives an
    /// empty page).
    pub fn list_items(
        &self,
        thread: &ThreadId,
        limit: usize,
        after: Option<&str>,
        order: ListOrder,
    ) -> Result<Page<ThreadItem>> {
        if let Some(pg) = self.pg() {
            return pg.list_items(thread, limit, after, order);
        }
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
        let fetch = limit as i64 + 1;
        let branched = self.branched_sqlite(&conn, thread)?;
        let mut rows = if branched {
            conn.prepare_cached(&path_page_sql(order, false))?
                .query_map(
                    params![thread.as_str(), self.owner, cursor, fetch],
                    item_from_row,
                )?
                .collect::<rusqlite::Result<Vec<_>>>()?
        } else {
            let sql = format!(
                "SELECT json FROM items WHERE thread_id = ?1 AND owner = ?4
                 AND (?2 IS NULL OR seq {cmp} ?2)
                 ORDER BY seq {dir} LIMIT ?3"
            );
            conn.prepare_cached(&sql)?
                .query_map(
                    params![thread.as_str(), cursor, fetch, self.owner],
                    item_from_row,
                )?
                .collect::<rusqlite::Result<Vec<_>>>()?
        };
        if branched {
            self.mark_branches_sqlite(&conn, thread, &mut rows)?;
        }
        Ok(page(rows, limit, |i| i.id.to_string()))
    }

    /// Every item of the branch shown, oldest first.
    pub fn all_items(&self, thread: &ThreadId) -> Result<Vec<ThreadItem>> {
        if let Some(pg) = self.pg() {
            return pg.all_items(thread);
        }
        let conn = self.conn();
        if self.branched_sqlite(&conn, thread)? {
            let mut stmt = conn.prepare_cached(&path_page_sql(ListOrder::Asc, false))?;
            let rows = stmt.query_map(
                params![thread.as_str(), self.owner, None::<i64>, i64::MAX],
                item_from_row,
            )?;
            return Ok(rows.collect::<rusqlite::Result<_>>()?);
        }
        let mut stmt = conn
            .prepare("SELECT json FROM items WHERE thread_id = ?1 AND owner = ?2 ORDER BY seq")?;
        let rows = stmt.query_map([thread.as_str(), self.owner], item_from_row)?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    pub fn delete_item(&self, thread: &ThreadId, id: &ItemId) -> Result<bool> {
        if let Some(pg) = self.pg() {
            return pg.delete_item(thread, id);
        }
        let conn = self.conn();
        self.unlink_sqlite(&conn, thread, id)?;
        let n = conn.execute(
            "DELETE FROM items WHERE thread_id = ?1 AND id = ?2 AND owner = ?3",
            [thread.as_str(), id.as_str(), self.owner],
        )?;
        Ok(n > 0)
    }

    /// Deletes every item after `id` (for `threads.retry_after_item`): in a branched
    /// thread every branch below it. `None` if `id` is not in the thread, else how many
    /// items went.
    pub fn delete_items_after(&self, thread: &ThreadId, id: &ItemId) -> Result<Option<usize>> {
        if let Some(pg) = self.pg() {
            return pg.delete_items_after(thread, id);
        }
        let mut conn = self.conn();
        let seq = conn
            .query_row(
                "SELECT seq FROM items WHERE thread_id = ?1 AND id = ?2 AND owner = ?3",
                [thread.as_str(), id.as_str(), self.owner],
                |r| r.get::<_, i64>(0),
            )
            .optional()?;
        let Some(seq) = seq else { return Ok(None) };
        if let Some(n) = self.delete_below_sqlite(&mut conn, thread, id)? {
            return Ok(Some(n));
        }
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
        if let Some(pg) = self.pg() {
            return pg.add_feedback(thread, item_ids, kind);
        }
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
        if let Some(pg) = self.pg() {
            return pg.feedback(item_id);
        }
        Ok(self
            .conn()
            .query_row(
                "SELECT kind FROM feedback WHERE item_id = ?1",
                [item_id.as_str()],
                |r| r.get(0),
            )
            .optional()?)
    }

    // --- attachments ---------------------------------------------------------------------

    pub fn create_attachment(
        &self,
        name: &str,
        mime_type: &str,
        size: u64,
    ) -> Result<AttachmentRecord> {
        let record = AttachmentRecord {
            id: new_id("atc"),
            name: name.to_owned(),
            mime_type: mime_type.to_owned(),
            size,
            thread_id: None,
            uploaded: false,
        };
        if let Some(pg) = self.pg() {
            pg.create_attachment(&record)?;
            return Ok(record);
        }
        self.conn().execute(
            "INSERT INTO attachments (id, name, mime_type, size, owner) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![record.id, name, mime_type, size as i64, self.owner],
        )?;
        Ok(record)
    }

    pub fn attachment(&self, id: &str) -> Result<Option<AttachmentRecord>> {
        if let Some(pg) = self.pg() {
            return pg.attachment(id);
        }
        Ok(self
            .conn()
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
            .optional()?)
    }

    /// Stores the uploaded bytes and the type they turned out to have.
    pub fn store_upload(&self, id: &str, mime_type: &str, bytes: &[u8]) -> Result<bool> {
        if let Some(pg) = self.pg() {
            return pg.store_upload(id, mime_type, bytes);
        }
        let n = self.conn().execute(
            "UPDATE attachments SET bytes = ?2, mime_type = ?3, size = ?4 WHERE id = ?1 AND owner = ?5",
            params![id, bytes, mime_type, bytes.len() as i64, self.owner],
        )?;
        Ok(n > 0)
    }

    /// The uploaded bytes and their mime type, if any were uploaded.
    pub fn upload(&self, id: &str) -> Result<Option<(String, Vec<u8>)>> {
        if let Some(pg) = self.pg() {
            return pg.upload(id);
        }
        Ok(self
            .conn()
            .query_row(
                "SELECT mime_type, bytes FROM attachments WHERE id = ?1 AND owner = ?2 AND bytes IS NOT NULL",
                [id, self.owner],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?)
    }

    /// Binds an attachment to the thread whose message carries it.
    pub fn attach_to_thread(&self, id: &str, thread: &ThreadId) -> Result<()> {
        if let Some(pg) = self.pg() {
            return pg.attach_to_thread(id, thread);
        }
        self.conn().execute(
            "UPDATE attachments SET thread_id = ?2 WHERE id = ?1 AND owner = ?3",
            [id, thread.as_str(), self.owner],
        )?;
        Ok(())
    }

    pub fn delete_attachment(&self, id: &str) -> Result<bool> {
        if let Some(pg) = self.pg() {
            return pg.delete_attachment(id);
        }
        Ok(self.conn().execute(
            "DELETE FROM attachments WHERE id = ?1 AND owner = ?2",
            [id, self.owner],
        )? > 0)
    }
}
