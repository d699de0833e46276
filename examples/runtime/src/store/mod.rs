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
//! ([`new_id`], [`now_iso`]) do not depend on SQLite.
//!
//! Both backends answer every method the same way (the tests in `tests` run on both);
//! each `UserStore` method hands over to `pg` first when the store is PostgreSQL.

mod agent_sessions;
#[cfg(test)]
mod branch_tests;
mod branches;
#[cfg(test)]
mod migration_tests;
mod migrations;
pub mod pg;
mod seed;
#[cfg(test)]
pub mod tests;
mod user;
mod views;

pub use agent_sessions::Whose;
pub use branches::Fork;
pub use views::ViewRecord;

use chat_shell_core::protocol::chatkit::{ItemKind, Page, Thread, ThreadId, ThreadItem};
use rusqlite::{params, Connection};
use std::path::Path;
use std::sync::{Mutex, MutexGuard};

/// A store failure: for the log only (handlers answer a bare 500, see `errors::internal`).
#[derive(Debug)]
pub enum Error {
    Sqlite(rusqlite::Error),
    Postgres(postgres::Error),
    /// No pooled PostgreSQL connection came in time.
    Pool(r2d2::Error),
    /// A stored row that does not read back (bad JSON, a secret of the wrong size).
    Data(String),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Sqlite(e) => write!(f, "sqlite: {e}"),
            Error::Postgres(e) => write!(f, "postgres: {e}"),
            Error::Pool(e) => write!(f, "postgres pool: {e}"),
            Error::Data(e) => write!(f, "stored data: {e}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<rusqlite::Error> for Error {
    fn from(e: rusqlite::Error) -> Self {
        Error::Sqlite(e)
    }
}

impl From<postgres::Error> for Error {
    fn from(e: postgres::Error) -> Self {
        Error::Postgres(e)
    }
}

impl From<r2d2::Error> for Error {
    fn from(e: r2d2::Error) -> Self {
        Error::Pool(e)
    }
}

pub type Result<T> = std::result::Result<T, Error>;

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

fn thread_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Thread> {
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

fn item_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<ThreadItem> {
    sql_json(&row.get::<_, String>(0)?)
}

fn to_json<T: serde::Serialize>(value: &T) -> Result<String> {
    serde_json::to_string(value).map_err(|e| Error::Data(e.to_string()))
}

fn from_json<T: serde::de::DeserializeOwned>(text: &str) -> Result<T> {
    serde_json::from_str(text).map_err(|e| Error::Data(e.to_string()))
}

/// [`from_json`] inside a SQLite row mapper.
fn sql_json<T: serde::de::DeserializeOwned>(text: &str) -> rusqlite::Result<T> {
    serde_json::from_str(text).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, Box::new(e))
    })
}

/// The cookie secret as stored: exactly 32 bytes.
fn secret_of(stored: &[u8]) -> Result<[u8; 32]> {
    <[u8; 32]>::try_from(stored)
        .map_err(|_| Error::Data("the stored cookie secret is not 32 bytes".into()))
}

/// The item in `json` with its unanswered ACP permission request settled as cancelled;
/// `None` if it has none (or does not read).
fn settled_permission(json: &str) -> Option<ThreadItem> {
    let mut item = from_json::<ThreadItem>(json).ok()?;
    let ItemKind::AcpToolCall(call) = &mut item.kind else {
        return None;
    };
    let permission = call.permission.as_mut().filter(|p| p.outcome.is_none())?;
    permission.outcome = Some(chat_shell_core::protocol::acp::PermissionOutcome::Cancelled);
    Some(item)
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
    iso(jiff::Timestamp::now())
}

/// [`iso`] of `secs` and `micros` since the epoch (a time past jiff's range, the year 9999,
/// reads as its last instant).
#[cfg(test)]
fn format_iso(secs: u64, micros: u32) -> String {
    let at = i64::try_from(secs)
        .ok()
        .and_then(|secs| jiff::Timestamp::new(secs, micros as i32 * 1000).ok())
        .unwrap_or(jiff::Timestamp::MAX);
    iso(at)
}

/// `at` in UTC as `2026-11-21T08:28:56.274912`: no offset, always six fraction digits.
fn iso(at: jiff::Timestamp) -> String {
    jiff::tz::Offset::UTC
        .to_datetime(at)
        .strftime("%Y-%m-%dT%H:%M:%S.%6f")
        .to_string()
}
