//! The PostgreSQL backend (`--database postgres://…`): the tables and answers of the
//! SQLite one, on a pool of connections, so that several instances can share a database.
//!
//! The schema comes from versioned migrations (`migrations::POSTGRES`), applied once each
//! at start under an advisory lock (instances starting together do not race). Statements
//! run on the server's blocking threads, one pooled connection each; the runs shared
//! between instances (`shared`) use the same pool.

mod branches;

use super::error::Result;
use super::ids::now_iso;
use super::rows::{from_json, page, settled_permission, to_json, AttachmentRecord, ViewRecord};
use super::sql::{path_page_sql, END_PG};
use chat_shell_core::protocol::chatkit::{ItemId, ListOrder, Page, Thread, ThreadId, ThreadItem};
use postgres::{NoTls, Row};
use r2d2_postgres::PostgresConnectionManager;
use std::str::FromStr;
use std::time::Duration;

pub type Conn = r2d2::PooledConnection<PostgresConnectionManager<NoTls>>;

/// Connections held at most (the listener of `shared` has one more of its own).
const POOL_SIZE: u32 = 16;
/// A statement waits this long for a free connection, then fails (answered 500).
const POOL_WAIT: Duration = Duration::from_secs(10);
/// Connecting gives up after this long when the URL does not say.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// The PostgreSQL store: a pool, and the URL (never logged: it may hold a password) for
/// the listener's own connection.
pub struct Pg {
    /// Always `Some` until dropped (see `Drop`).
    pool: Option<r2d2::Pool<PostgresConnectionManager<NoTls>>>,
    config: tokio_postgres::Config,
}

impl Pg {
    /// Connects and migrates. TLS is not built in: the URL must not ask for it
    /// (`sslmode=require` fails to connect rather than going on in the clear).
    pub fn connect(url: &str) -> Result<Pg> {
        let mut config = tokio_postgres::Config::from_str(url)?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        if config.get_application_name().is_none() {
            config.application_name("chat-shell-runtime");
        }
        let manager = PostgresConnectionManager::new(config.clone().into(), NoTls);
        let pool = r2d2::Pool::builder()
            .max_size(POOL_SIZE)
            .min_idle(Some(1))
            .connection_timeout(POOL_WAIT)
            // A failed connection attempt is the error, not a log line per retry.
            .error_handler(Box::new(r2d2::NopErrorHandler))
            .build(manager)?;
        Pg::from_pool(pool, config)
    }

    /// Migrates through an app's own pool; `config` is the same database's (the listener's).
    pub fn from_pool(
        pool: r2d2::Pool<PostgresConnectionManager<NoTls>>,
        config: tokio_postgres::Config,
    ) -> Result<Pg> {
        let pg = Pg {
            pool: Some(pool),
            config,
        };
        super::migrations::postgres(&mut *pg.conn()?)?;
        Ok(pg)
    }

    /// A pooled connection (given back when dropped).
    pub fn conn(&self) -> Result<Conn> {
        let pool = self
            .pool
            .as_ref()
            .expect("the pool lives as long as the store");
        Ok(pool.get()?)
    }

    /// The connection settings, for a connection of its own (the listener's).
    pub fn config(&self) -> &tokio_postgres::Config {
        &self.config
    }

    pub fn ping(&self) -> Result<()> {
        self.conn()?.batch_execute("SELECT 1")?;
        Ok(())
    }

    /// The stored cookie secret, `fresh` if there was none.
    pub(super) fn cookie_secret(&self, fresh: &[u8]) -> Result<Vec<u8>> {
        let mut c = self.conn()?;
        c.execute(
            "INSERT INTO meta (key, value) VALUES ('cookie_secret', $1) ON CONFLICT (key) DO NOTHING",
            &[&fresh],
        )?;
        Ok(
            c.query_one("SELECT value FROM meta WHERE key = 'cookie_secret'", &[])?
                .get(0),
        )
    }

    pub(super) fn has_unowned(&self) -> Result<bool> {
        Ok(self
            .conn()?
            .query_one(
                "SELECT EXISTS (SELECT 1 FROM threads WHERE owner IS NULL)
                     OR EXISTS (SELECT 1 FROM attachments WHERE owner IS NULL)",
                &[],
            )?
            .get(0))
    }

    /// As SQLite's, but only in threads with no run under way: another instance's agent
    /// may still be waiting there.
    pub(super) fn settle_orphaned_permissions(&self) -> Result<usize> {
        let mut c = self.conn()?;
        let mut tx = c.transaction()?;
        let asking = tx.query(
            "SELECT i.thread_id, i.id, i.json FROM items i JOIN threads t ON t.id = i.thread_id
             WHERE t.metadata_json LIKE '%\"acp_session_id\"%' AND i.json LIKE '%\"permission\"%'
               AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.thread_id = t.id AND r.outcome IS NULL)
             FOR UPDATE OF i",
            &[],
        )?;
        let mut settled = 0;
        for row in asking {
            let (thread, id, json): (String, String, String) = (row.get(0), row.get(1), row.get(2));
            let Some(item) = settled_permission(&json) else {
                continue;
            };
            tx.execute(
                "UPDATE items SET json = $3 WHERE thread_id = $1 AND id = $2",
                &[&thread, &id, &to_json(&item)?],
            )?;
            settled += 1;
        }
        tx.commit()?;
        Ok(settled)
    }

    pub(super) fn claim_unowned(&self, owner: &str) -> Result<usize> {
        let mut c = self.conn()?;
        let mut tx = c.transaction()?;
        let threads = tx.execute(
            "UPDATE threads SET owner = $1 WHERE owner IS NULL",
            &[&owner],
        )?;
        tx.execute("UPDATE items SET owner = $1 WHERE owner IS NULL", &[&owner])?;
        tx.execute(
            "UPDATE attachments SET owner = $1 WHERE owner IS NULL",
            &[&owner],
        )?;
        tx.execute(
            "UPDATE agent_sessions SET owner = $1 WHERE owner IS NULL",
            &[&owner],
        )?;
        tx.commit()?;
        Ok(threads as usize)
    }

    pub(super) fn user<'a>(&'a self, owner: &'a str) -> PgUser<'a> {
        PgUser { pg: self, owner }
    }

    /// See [`Store::put_view`]. The thread's row is locked while its next seq is taken:
    /// two instances never number two changes alike.
    pub(super) fn put_view(
        &self,
        thread: &str,
        view_type: &str,
        content_json: &str,
    ) -> Result<Option<ViewRecord>> {
        let mut c = self.conn()?;
        let mut tx = c.transaction()?;
        if tx
            .query_opt("SELECT 1 FROM threads WHERE id = $1 FOR UPDATE", &[&thread])?
            .is_none()
        {
            return Ok(None);
        }
        let seq: i64 = tx
            .query_one(
                "SELECT COALESCE(MAX(seq), 0) + 1 FROM views WHERE thread_id = $1",
                &[&thread],
            )?
            .get(0);
        let updated_at = now_iso();
        tx.execute(
            "INSERT INTO views (thread_id, view_type, seq, content_json, updated_at)
             VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (thread_id, view_type) DO UPDATE SET
                 seq = excluded.seq, content_json = excluded.content_json,
                 updated_at = excluded.updated_at",
            &[&thread, &view_type, &seq, &content_json, &updated_at],
        )?;
        tx.commit()?;
        Ok(Some(ViewRecord {
            view_type: view_type.to_owned(),
            seq: seq as u64,
            content_json: content_json.to_owned(),
            updated_at,
        }))
    }

    /// The changes of `thread`'s views after `after`, oldest first (any owner's: the
    /// channels of a thread all belong to its owner).
    pub fn views_since(&self, thread: &str, after: u64) -> Result<Vec<ViewRecord>> {
        let after = i64::try_from(after).unwrap_or(i64::MAX);
        let rows = self.conn()?.query(
            "SELECT view_type, seq, content_json, updated_at FROM views
             WHERE thread_id = $1 AND seq > $2 ORDER BY seq",
            &[&thread, &after],
        )?;
        Ok(rows.iter().map(view_from_row).collect())
    }

    pub(super) fn seed_thread(&self, thread: &Thread, items: &[ThreadItem]) -> Result<()> {
        let mut c = self.conn()?;
        let mut tx = c.transaction()?;
        tx.execute(
            "INSERT INTO threads (id, title, created_at, status_json, metadata_json) VALUES ($1, $2, $3, $4, $5)",
            &[
                &thread.id.as_str(),
                &thread.title,
                &thread.created_at,
                &to_json(&thread.status)?,
                &to_json(&thread.metadata)?,
            ],
        )?;
        let insert = tx.prepare(
            "INSERT INTO items (id, thread_id, created_at, json) VALUES ($1, $2, $3, $4)",
        )?;
        for item in items {
            tx.execute(
                &insert,
                &[
                    &item.id.as_str(),
                    &thread.id.as_str(),
                    &item.created_at,
                    &to_json(item)?,
                ],
            )?;
        }
        tx.commit()?;
        Ok(())
    }
}

impl Drop for Pg {
    fn drop(&mut self) {
        // Closing a connection blocks on the driver's own runtime, which panics on an async
        // worker (the store may be dropped on one when the server stops): closed elsewhere.
        if let Some(pool) = self.pool.take() {
            std::thread::spawn(move || drop(pool));
        }
    }
}

fn thread_from_pg(row: &Row) -> Result<Thread> {
    Ok(Thread {
        branching: false,
        id: ThreadId(row.get(0)),
        title: row.get(1),
        created_at: row.get(2),
        status: from_json(row.get(3))?,
        metadata: from_json(row.get(4))?,
        items: None,
    })
}

fn item_from_pg(row: &Row) -> Result<ThreadItem> {
    from_json(row.get(0))
}

fn view_from_row(row: &Row) -> ViewRecord {
    ViewRecord {
        view_type: row.get(0),
        seq: row.get::<_, i64>(1) as u64,
        content_json: row.get(2),
        updated_at: row.get(3),
    }
}

const THREAD_COLUMNS: &str =
    "SELECT id, title, created_at, status_json, metadata_json FROM threads";

/// One user's rows (see [`UserStore`], whose methods these are).
pub(super) struct PgUser<'a> {
    pg: &'a Pg,
    owner: &'a str,
}

impl PgUser<'_> {
    fn conn(&self) -> Result<Conn> {
        self.pg.conn()
    }

    pub fn insert_thread(&self, thread: &Thread) -> Result<()> {
        self.conn()?.execute(
            "INSERT INTO threads (id, title, created_at, status_json, metadata_json, owner) VALUES ($1, $2, $3, $4, $5, $6)",
            &[
                &thread.id.as_str(),
                &thread.title,
                &thread.created_at,
                &to_json(&thread.status)?,
                &to_json(&thread.metadata)?,
                &self.owner,
            ],
        )?;
        Ok(())
    }

    pub fn thread(&self, id: &ThreadId) -> Result<Option<Thread>> {
        self.conn()?
            .query_opt(
                &format!("{THREAD_COLUMNS} WHERE id = $1 AND owner = $2"),
                &[&id.as_str(), &self.owner],
            )?
            .as_ref()
            .map(thread_from_pg)
            .transpose()
    }

    pub fn save_thread(&self, thread: &Thread) -> Result<bool> {
        let n = self.conn()?.execute(
            "UPDATE threads SET title = $2, status_json = $3, metadata_json = $4 WHERE id = $1 AND owner = $5",
            &[
                &thread.id.as_str(),
                &thread.title,
                &to_json(&thread.status)?,
                &to_json(&thread.metadata)?,
                &self.owner,
            ],
        )?;
        Ok(n > 0)
    }

    pub fn list_threads(
        &self,
        limit: usize,
        after: Option<&str>,
        order: ListOrder,
    ) -> Result<Page<Thread>> {
        let mut c = self.conn()?;
        let (cmp, dir) = match order {
            ListOrder::Desc => ("<", "DESC"),
            ListOrder::Asc => (">", "ASC"),
        };
        let fetch = limit as i64 + 1;
        let rows = match after {
            Some(id) => {
                let Some(cursor) = c.query_opt(
                    "SELECT created_at, n FROM threads WHERE id = $1 AND owner = $2",
                    &[&id, &self.owner],
                )?
                else {
                    return Ok(Page::default());
                };
                let (created, n): (String, i64) = (cursor.get(0), cursor.get(1));
                c.query(
                    &format!(
                        "{THREAD_COLUMNS} WHERE owner = $4 AND (created_at, n) {cmp} ($1, $2) \
                         ORDER BY created_at {dir}, n {dir} LIMIT $3"
                    ),
                    &[&created, &n, &fetch, &self.owner],
                )?
            }
            None => c.query(
                &format!(
                    "{THREAD_COLUMNS} WHERE owner = $2 ORDER BY created_at {dir}, n {dir} LIMIT $1"
                ),
                &[&fetch, &self.owner],
            )?,
        };
        let threads = rows.iter().map(thread_from_pg).collect::<Result<_>>()?;
        Ok(page(threads, limit, |t| t.id.to_string()))
    }

    pub fn delete_thread(&self, id: &ThreadId) -> Result<bool> {
        let mut c = self.conn()?;
        let mut tx = c.transaction()?;
        let args: [&(dyn postgres::types::ToSql + Sync); 2] = [&id.as_str(), &self.owner];
        // Not ours (or gone): nothing else is touched; dropping `tx` rolls back.
        if tx.execute("DELETE FROM threads WHERE id = $1 AND owner = $2", &args)? == 0 {
            return Ok(false);
        }
        tx.execute(
            "DELETE FROM feedback WHERE item_id IN (SELECT id FROM items WHERE thread_id = $1 AND owner = $2)",
            &args,
        )?;
        tx.execute(
            "DELETE FROM items WHERE thread_id = $1 AND owner = $2",
            &args,
        )?;
        tx.execute(
            "DELETE FROM attachments WHERE thread_id = $1 AND owner = $2",
            &args,
        )?;
        tx.execute("DELETE FROM views WHERE thread_id = $1", &[&id.as_str()])?;
        tx.execute(END_PG, &args)?;
        tx.commit()?;
        Ok(true)
    }

    pub fn save_item(&self, item: &ThreadItem) -> Result<Vec<ItemId>> {
        branches::save_item(&mut *self.conn()?, self.owner, item)
    }

    pub fn item(&self, thread: &ThreadId, id: &ItemId) -> Result<Option<ThreadItem>> {
        self.conn()?
            .query_opt(
                "SELECT json FROM items WHERE thread_id = $1 AND id = $2 AND owner = $3",
                &[&thread.as_str(), &id.as_str(), &self.owner],
            )?
            .as_ref()
            .map(item_from_pg)
            .transpose()
    }

    /// The row stays locked from its read to its write (see [`UserStore::modify_item`]).
    pub fn modify_item<T, E>(
        &self,
        thread: &ThreadId,
        id: &ItemId,
        decide: impl FnOnce(&mut ThreadItem) -> std::result::Result<T, E>,
    ) -> Result<Option<std::result::Result<T, E>>> {
        let mut c = self.conn()?;
        let mut tx = c.transaction()?;
        let Some(row) = tx.query_opt(
            "SELECT json FROM items WHERE thread_id = $1 AND id = $2 AND owner = $3 FOR UPDATE",
            &[&thread.as_str(), &id.as_str(), &self.owner],
        )?
        else {
            return Ok(None);
        };
        let mut item = item_from_pg(&row)?;
        let decided = decide(&mut item);
        if decided.is_ok() {
            tx.execute(
                "UPDATE items SET json = $1 WHERE thread_id = $2 AND id = $3 AND owner = $4",
                &[
                    &to_json(&item)?,
                    &thread.as_str(),
                    &id.as_str(),
                    &self.owner,
                ],
            )?;
            tx.commit()?;
        }
        Ok(Some(decided))
    }

    pub fn list_items(
        &self,
        thread: &ThreadId,
        limit: usize,
        after: Option<&str>,
        order: ListOrder,
    ) -> Result<Page<ThreadItem>> {
        let mut c = self.conn()?;
        let (cmp, dir) = match order {
            ListOrder::Desc => ("<", "DESC"),
            ListOrder::Asc => (">", "ASC"),
        };
        let cursor: Option<i64> = match after {
            Some(id) => match c.query_opt(
                "SELECT seq FROM items WHERE thread_id = $1 AND id = $2 AND owner = $3",
                &[&thread.as_str(), &id, &self.owner],
            )? {
                Some(row) => Some(row.get(0)),
                None => return Ok(Page::default()),
            },
            None => None,
        };
        let fetch = limit as i64 + 1;
        let branched = branches::leaf(&mut *c, thread, self.owner)?.is_some();
        let rows = if branched {
            c.query(
                &path_page_sql(order, true),
                &[&thread.as_str(), &self.owner, &cursor, &fetch],
            )?
        } else {
            c.query(
                &format!(
                    "SELECT json FROM items WHERE thread_id = $1 AND owner = $4
                     AND ($2::BIGINT IS NULL OR seq {cmp} $2)
                     ORDER BY seq {dir} LIMIT $3"
                ),
                &[&thread.as_str(), &cursor, &fetch, &self.owner],
            )?
        };
        let mut items: Vec<ThreadItem> = rows.iter().map(item_from_pg).collect::<Result<_>>()?;
        if branched {
            branches::mark_branches(&mut *c, thread, &mut items)?;
        }
        Ok(page(items, limit, |i| i.id.to_string()))
    }

    /// The branch shown, oldest first.
    pub fn all_items(&self, thread: &ThreadId) -> Result<Vec<ThreadItem>> {
        let mut c = self.conn()?;
        if branches::leaf(&mut *c, thread, self.owner)?.is_none() {
            return c
                .query(
                    "SELECT json FROM items WHERE thread_id = $1 AND owner = $2 ORDER BY seq",
                    &[&thread.as_str(), &self.owner],
                )?
                .iter()
                .map(item_from_pg)
                .collect();
        }
        c.query(
            &path_page_sql(ListOrder::Asc, true),
            &[&thread.as_str(), &self.owner, &None::<i64>, &i64::MAX],
        )?
        .iter()
        .map(item_from_pg)
        .collect()
    }

    pub fn show(&self, thread: &ThreadId, item: &ItemId, leaf_sql: &str) -> Result<Option<()>> {
        branches::show(&mut *self.conn()?, self.owner, thread, item, leaf_sql)
    }

    pub fn delete_item(&self, thread: &ThreadId, id: &ItemId) -> Result<bool> {
        let mut c = self.conn()?;
        let mut tx = c.transaction()?;
        branches::unlink(&mut tx, self.owner, thread, id)?;
        let n = tx.execute(
            "DELETE FROM items WHERE thread_id = $1 AND id = $2 AND owner = $3",
            &[&thread.as_str(), &id.as_str(), &self.owner],
        )?;
        tx.commit()?;
        Ok(n > 0)
    }

    pub fn delete_items_after(&self, thread: &ThreadId, id: &ItemId) -> Result<Option<usize>> {
        let mut c = self.conn()?;
        let Some(row) = c.query_opt(
            "SELECT seq FROM items WHERE thread_id = $1 AND id = $2 AND owner = $3",
            &[&thread.as_str(), &id.as_str(), &self.owner],
        )?
        else {
            return Ok(None);
        };
        if let Some(n) = branches::delete_below(&mut c, self.owner, thread, id)? {
            return Ok(Some(n));
        }
        let seq: i64 = row.get(0);
        let n = c.execute(
            "DELETE FROM items WHERE thread_id = $1 AND seq > $2 AND owner = $3",
            &[&thread.as_str(), &seq, &self.owner],
        )?;
        Ok(Some(n as usize))
    }

    pub fn add_feedback(&self, thread: &ThreadId, item_ids: &[ItemId], kind: &str) -> Result<()> {
        let mut c = self.conn()?;
        for id in item_ids {
            c.execute(
                "INSERT INTO feedback (item_id, kind)
                 SELECT id, $2 FROM items WHERE id = $1 AND thread_id = $3 AND owner = $4
                 ON CONFLICT (item_id) DO UPDATE SET kind = excluded.kind",
                &[&id.as_str(), &kind, &thread.as_str(), &self.owner],
            )?;
        }
        Ok(())
    }

    #[cfg(test)]
    pub fn feedback(&self, item_id: &ItemId) -> Result<Option<String>> {
        Ok(self
            .conn()?
            .query_opt(
                "SELECT kind FROM feedback WHERE item_id = $1",
                &[&item_id.as_str()],
            )?
            .map(|r| r.get(0)))
    }

    pub fn create_attachment(&self, record: &AttachmentRecord) -> Result<()> {
        self.conn()?.execute(
            "INSERT INTO attachments (id, name, mime_type, size, owner) VALUES ($1, $2, $3, $4, $5)",
            &[
                &record.id,
                &record.name,
                &record.mime_type,
                &(record.size as i64),
                &self.owner,
            ],
        )?;
        Ok(())
    }

    pub fn attachment(&self, id: &str) -> Result<Option<AttachmentRecord>> {
        Ok(self
            .conn()?
            .query_opt(
                "SELECT id, name, mime_type, size, thread_id, bytes IS NOT NULL FROM attachments WHERE id = $1 AND owner = $2",
                &[&id, &self.owner],
            )?
            .map(|r| AttachmentRecord {
                id: r.get(0),
                name: r.get(1),
                mime_type: r.get(2),
                size: r.get::<_, i64>(3) as u64,
                thread_id: r.get(4),
                uploaded: r.get(5),
            }))
    }

    pub fn store_upload(&self, id: &str, mime_type: &str, bytes: &[u8]) -> Result<bool> {
        let n = self.conn()?.execute(
            "UPDATE attachments SET bytes = $2, mime_type = $3, size = $4 WHERE id = $1 AND owner = $5",
            &[&id, &bytes, &mime_type, &(bytes.len() as i64), &self.owner],
        )?;
        Ok(n > 0)
    }

    pub fn upload(&self, id: &str) -> Result<Option<(String, Vec<u8>)>> {
        Ok(self
            .conn()?
            .query_opt(
                "SELECT mime_type, bytes FROM attachments WHERE id = $1 AND owner = $2 AND bytes IS NOT NULL",
                &[&id, &self.owner],
            )?
            .map(|r| (r.get(0), r.get(1))))
    }

    pub fn attach_to_thread(&self, id: &str, thread: &ThreadId) -> Result<()> {
        self.conn()?.execute(
            "UPDATE attachments SET thread_id = $2 WHERE id = $1 AND owner = $3",
            &[&id, &thread.as_str(), &self.owner],
        )?;
        Ok(())
    }

    pub fn delete_attachment(&self, id: &str) -> Result<bool> {
        Ok(self.conn()?.execute(
            "DELETE FROM attachments WHERE id = $1 AND owner = $2",
            &[&id, &self.owner],
        )? > 0)
    }

    pub fn views_after(
        &self,
        thread: &ThreadId,
        after: Option<u64>,
    ) -> Result<Option<(Vec<ViewRecord>, u64)>> {
        let mut c = self.conn()?;
        if c.query_opt(
            "SELECT 1 FROM threads WHERE id = $1 AND owner = $2",
            &[&thread.as_str(), &self.owner],
        )?
        .is_none()
        {
            return Ok(None);
        }
        let after = after.map_or(0, |n| i64::try_from(n).unwrap_or(i64::MAX));
        let views = c
            .query(
                "SELECT view_type, seq, content_json, updated_at FROM views
                 WHERE thread_id = $1 AND seq > $2 ORDER BY seq",
                &[&thread.as_str(), &after],
            )?
            .iter()
            .map(view_from_row)
            .collect();
        let latest: i64 = c
            .query_one(
                "SELECT COALESCE(MAX(seq), 0) FROM views WHERE thread_id = $1",
                &[&thread.as_str()],
            )?
            .get(0);
        Ok(Some((views, latest as u64)))
    }
}
