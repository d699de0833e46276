//! Persistence: threads, items, attachments and feedback in SQLite behind one mutex, or in
//! PostgreSQL behind a pool (`pg`, `--database postgres://…`).
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
//!
//! The interface the rest of the runtime uses is [`Store`] (the process's handle: open,
//! the identity secret, claims, views) and [`UserStore`] (one user's threads, items,
//! feedback and attachments, in `user`); views are in `views`, whose each agent session is
//! in `agent_sessions`, the seeded thread in `seed`. Both backends' schemas come from
//! versioned migrations, applied at open by one runner (`migrations`). Ids and timestamps
//! ([`new_id`], [`now_iso`]) do not depend on SQLite. What both backends share names no
//! other part of the store: the error (`error`), ids and times (`ids`), the records and
//! how rows become them (`rows`), the statements written once (`sql`).
//!
//! Both backends answer every method the same way (the tests in `tests` run on both);
//! each `UserStore` method hands over to `pg` first when the store is PostgreSQL.

mod agent_sessions;
#[cfg(test)]
mod branch_tests;
mod branches;
mod error;
mod ids;
#[cfg(test)]
mod migration_tests;
mod migrations;
pub mod pg;
mod rows;
mod seed;
mod sql;
#[cfg(test)]
pub mod tests;
mod user;
mod views;

pub use agent_sessions::Whose;
pub use branches::Fork;
pub use error::{Error, Result};
pub use ids::{hex, new_id, now_iso, random_bytes};
pub use rows::{AttachmentRecord, ViewRecord};

use rows::{secret_of, settled_permission, to_json};
use rusqlite::{params, Connection};
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};

/// The store shared by all requests.
pub struct Store {
    backend: Backend,
    /// Signs identity cookies: made at random once per database and kept in it, so a
    /// browser keeps its identity (and history) across restarts.
    secret: [u8; 32],
    /// Threads offer branches (`Thread::branching`): not where an agent keeps the
    /// conversation itself (`--acp`), since it cannot go back to an earlier point.
    branching: bool,
}

enum Backend {
    Sqlite(Mutex<Connection>),
    Postgres(pg::Pg),
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

    fn init(mut conn: Connection) -> Result<Store> {
        migrations::sqlite(&mut conn)?;
        conn.execute(
            "INSERT OR IGNORE INTO meta (key, value) VALUES ('cookie_secret', ?1)",
            [random_bytes::<32>().as_slice()],
        )?;
        let stored: Vec<u8> = conn.query_row(
            "SELECT value FROM meta WHERE key = 'cookie_secret'",
            [],
            |r| r.get(0),
        )?;
        Ok(Store {
            backend: Backend::Sqlite(Mutex::new(conn)),
            secret: secret_of(&stored)?,
            branching: true,
        })
    }

    /// Connects to a PostgreSQL database (`postgres://…`), bringing its schema up to date.
    pub fn open_postgres(url: &str) -> Result<Store> {
        let pg = pg::Pg::connect(url)?;
        let secret = secret_of(&pg.cookie_secret(&random_bytes::<32>())?)?;
        Ok(Store {
            backend: Backend::Postgres(pg),
            secret,
            branching: true,
        })
    }

    /// Uses the app's own PostgreSQL pool (`config`: the same database, for the listener),
    /// bringing its schema up to date.
    pub fn from_postgres_pool(
        pool: r2d2::Pool<r2d2_postgres::PostgresConnectionManager<postgres::NoTls>>,
        config: tokio_postgres::Config,
    ) -> Result<Store> {
        let pg = pg::Pg::from_pool(pool, config)?;
        let secret = secret_of(&pg.cookie_secret(&random_bytes::<32>())?)?;
        Ok(Store {
            backend: Backend::Postgres(pg),
            secret,
            branching: true,
        })
    }

    /// Threads no longer offer branches (an agent keeps the conversation: `--acp`).
    pub fn without_branches(mut self) -> Store {
        self.branching = false;
        self
    }

    /// The PostgreSQL backend, if this store is one.
    pub fn pg(&self) -> Option<&pg::Pg> {
        match &self.backend {
            Backend::Postgres(pg) => Some(pg),
            Backend::Sqlite(_) => None,
        }
    }

    fn conn(&self) -> MutexGuard<'_, Connection> {
        match &self.backend {
            // A panic while holding the lock leaves SQLite consistent (statements are atomic).
            Backend::Sqlite(conn) => conn.lock().unwrap_or_else(|e| e.into_inner()),
            // Every caller checks `pg()` first.
            Backend::Postgres(_) => unreachable!("a SQLite statement on a PostgreSQL store"),
        }
    }

    /// Whether the database answers (readiness).
    pub fn ping(&self) -> Result<()> {
        match &self.backend {
            Backend::Sqlite(_) => Ok(self.conn().execute_batch("SELECT 1")?),
            Backend::Postgres(pg) => pg.ping(),
        }
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
        if let Some(pg) = self.pg() {
            return pg.has_unowned();
        }
        Ok(self.conn().query_row(
            "SELECT EXISTS (SELECT 1 FROM threads WHERE owner IS NULL)
                 OR EXISTS (SELECT 1 FROM attachments WHERE owner IS NULL)",
            [],
            |r| r.get(0),
        )?)
    }

    /// Settles as `cancelled` every ACP permission request still asking in an ACP thread
    /// (one with an `acp_session_id`): at start-up no agent is waiting for an answer any
    /// more (it ran as this process's child), so a card must not ask. Returns how many.
    pub fn settle_orphaned_permissions(&self) -> Result<usize> {
        if let Some(pg) = self.pg() {
            return pg.settle_orphaned_permissions();
        }
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        let asking: Vec<(String, String, String)> = {
            let mut stmt = tx.prepare(
                "SELECT i.thread_id, i.id, i.json FROM items i JOIN threads t ON t.id = i.thread_id
                 WHERE t.metadata_json LIKE '%\"acp_session_id\"%' AND i.json LIKE '%\"permission\"%'",
            )?;
            let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
            rows.collect::<rusqlite::Result<_>>()?
        };
        let mut settled = 0;
        for (thread, id, json) in asking {
            let Some(item) = settled_permission(&json) else {
                continue;
            };
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
        if let Some(pg) = self.pg() {
            return pg.claim_unowned(owner);
        }
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        let threads = tx.execute("UPDATE threads SET owner = ?1 WHERE owner IS NULL", [owner])?;
        tx.execute("UPDATE items SET owner = ?1 WHERE owner IS NULL", [owner])?;
        tx.execute(
            "UPDATE attachments SET owner = ?1 WHERE owner IS NULL",
            [owner],
        )?;
        tx.execute(
            "UPDATE agent_sessions SET owner = ?1 WHERE owner IS NULL",
            [owner],
        )?;
        tx.commit()?;
        Ok(threads)
    }
}

/// `f` on `owner`'s view of `store`, on a blocking thread (SQLite never holds up the async
/// workers); the error is for the log.
pub async fn blocking<T: Send + 'static>(
    store: Arc<Store>,
    owner: String,
    f: impl FnOnce(&UserStore<'_>) -> Result<T> + Send + 'static,
) -> std::result::Result<T, String> {
    match tokio::task::spawn_blocking(move || f(&store.user(&owner))).await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(e)) => Err(e.to_string()),
        Err(e) => Err(e.to_string()),
    }
}
