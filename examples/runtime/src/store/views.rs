//! The views tools push (latest content per thread and view type, numbered).

use super::*;
use chat_shell_core::protocol::chatkit::ThreadId;
use rusqlite::params;

impl UserStore<'_> {
    /// The views of the owner's thread whose latest `seq` is over `after` (all when
    /// `None`, cleared ones included), oldest change first, with the thread's latest seq
    /// (0 if none); `None` if the thread is not the owner's.
    pub fn views_after(
        &self,
        thread: &ThreadId,
        after: Option<u64>,
    ) -> Result<Option<(Vec<ViewRecord>, u64)>> {
        if let Some(pg) = self.pg() {
            return pg.views_after(thread, after);
        }
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
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let latest: i64 = conn.query_row(
            "SELECT COALESCE(MAX(seq), 0) FROM views WHERE thread_id = ?1",
            [thread.as_str()],
            |r| r.get(0),
        )?;
        Ok(Some((views, latest as u64)))
    }
}

fn view_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<ViewRecord> {
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
        if let Some(pg) = self.pg() {
            return pg.put_view(thread, view_type, content_json);
        }
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
}
