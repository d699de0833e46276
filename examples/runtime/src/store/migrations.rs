//! One way to bring either backend's schema up to date: a list of versioned migrations per
//! backend ([`SQLITE`], [`POSTGRES`]) and one runner ([`run`]) that applies, in order, the
//! versions a database has not recorded in its `schema_migrations`, each once, all in one
//! transaction that holds the backend's lock (instances or processes opening one database
//! together do not race: SQLite's write lock, a PostgreSQL advisory lock). Append to a
//! list; never edit a released version.
//!
//! SQLite databases made before versions were recorded (they have no `schema_migrations`)
//! are adopted: brought to the shape of SQLite's version 1 by adding what each earlier
//! release lacked (nothing is dropped or rewritten), then recorded at it. PostgreSQL
//! databases have recorded their versions from the first.

use super::error::Result;
use super::ids::now_iso;
use rusqlite::{OptionalExtension, TransactionBehavior};

/// A schema version and the statements that make it.
pub(super) type Migration = (i32, &'static str);

/// What [`run`] needs of a backend, within the transaction it runs in.
pub(super) trait Schema {
    /// `schema_migrations` as this backend makes it (if it has none).
    const TABLE: &'static str;
    /// Keeps other connections from migrating until the transaction ends.
    fn lock(&mut self) -> Result<()>;
    /// A database made before versions were recorded: brought to the shape of a version,
    /// which is returned. `None` for a new database or one that records its versions.
    fn adopt(&mut self) -> Result<Option<i32>>;
    fn batch(&mut self, sql: &str) -> Result<()>;
    fn recorded(&mut self) -> Result<Vec<i32>>;
    fn record(&mut self, version: i32) -> Result<()>;
}

/// Applies the `migrations` the database has not recorded, in order, recording each;
/// returns the versions applied.
pub(super) fn run<S: Schema>(db: &mut S, migrations: &[Migration]) -> Result<Vec<i32>> {
    debug_assert!(migrations.windows(2).all(|w| w[0].0 < w[1].0));
    db.lock()?;
    let adopted = db.adopt()?;
    db.batch(S::TABLE)?;
    if let Some(at) = adopted {
        for &(version, _) in migrations.iter().filter(|(v, _)| *v <= at) {
            db.record(version)?;
        }
    }
    let done = db.recorded()?;
    let mut applied = Vec::new();
    for &(version, sql) in migrations.iter().filter(|(v, _)| !done.contains(v)) {
        db.batch(sql)?;
        db.record(version)?;
        applied.push(version);
    }
    Ok(applied)
}

/// Brings a SQLite database up to the last of [`SQLITE`].
pub(super) fn sqlite(conn: &mut rusqlite::Connection) -> Result<Vec<i32>> {
    // IMMEDIATE: the write lock from the start, the lock [`Schema::lock`] asks for.
    let mut tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let applied = run(&mut tx, SQLITE)?;
    tx.commit()?;
    Ok(applied)
}

/// Brings a PostgreSQL database up to the last of [`POSTGRES`].
pub(super) fn postgres(client: &mut postgres::Client) -> Result<Vec<i32>> {
    let mut tx = client.transaction()?;
    let applied = run(&mut tx, POSTGRES)?;
    tx.commit()?;
    Ok(applied)
}

/// SQLite's version 1: the schema as it stood when versions began to be recorded. `IF NOT
/// EXISTS` throughout, as adopting an older database runs it over the tables it has.
const SQLITE_1: &str = "
CREATE TABLE IF NOT EXISTS threads (
    id TEXT PRIMARY KEY,
    owner TEXT,
    title TEXT,
    created_at TEXT NOT NULL,
    status_json TEXT NOT NULL,
    metadata_json TEXT NOT NULL,
    leaf TEXT
);
CREATE TABLE IF NOT EXISTS items (
    id TEXT NOT NULL,
    thread_id TEXT NOT NULL,
    owner TEXT,
    seq INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    json TEXT NOT NULL,
    parent TEXT,
    PRIMARY KEY (thread_id, id)
);
CREATE INDEX IF NOT EXISTS items_by_thread ON items (thread_id, seq);
CREATE INDEX IF NOT EXISTS items_by_parent ON items (thread_id, parent);
CREATE INDEX IF NOT EXISTS threads_by_owner ON threads (owner, created_at);
CREATE TABLE IF NOT EXISTS attachments (
    id TEXT PRIMARY KEY,
    owner TEXT,
    name TEXT NOT NULL,
    mime_type TEXT NOT NULL,
    size INTEGER NOT NULL,
    thread_id TEXT,
    bytes BLOB
);
CREATE INDEX IF NOT EXISTS attachments_by_thread ON attachments (thread_id);
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
CREATE TABLE IF NOT EXISTS agent_sessions (
    id TEXT PRIMARY KEY,
    owner TEXT,
    thread_id TEXT,
    ended INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS agent_sessions_by_thread ON agent_sessions (thread_id);
";

/// SQLite's versions.
pub(super) const SQLITE: &[Migration] = &[(1, SQLITE_1)];

/// The columns releases before versions added to the first release's tables: the owners
/// (`auth`), then the branches (`branches`).
const SQLITE_ADDED_COLUMNS: [(&str, &str); 5] = [
    ("threads", "owner"),
    ("items", "owner"),
    ("attachments", "owner"),
    ("threads", "leaf"),
    ("items", "parent"),
];

/// Records, in a database adopted without them, the agent sessions its threads hold (the
/// oldest thread wins a session two of them name).
const SQLITE_SESSIONS_HELD: &str = "
INSERT OR IGNORE INTO agent_sessions (id, owner, thread_id)
SELECT json_extract(metadata_json, '$.acp_session_id'), owner, id FROM threads
WHERE json_extract(metadata_json, '$.acp_session_id') IS NOT NULL
ORDER BY created_at, rowid";

impl Schema for rusqlite::Transaction<'_> {
    const TABLE: &'static str = "
        CREATE TABLE IF NOT EXISTS schema_migrations (
            version INTEGER PRIMARY KEY,
            applied_at TEXT NOT NULL
        )";

    fn lock(&mut self) -> Result<()> {
        // The transaction is IMMEDIATE (see `sqlite`): it holds the write lock already.
        Ok(())
    }

    /// A database with tables but no `schema_migrations`, from any earlier release, gets
    /// the columns and tables it lacks (their rows empty: no owner until claimed, no parent
    /// until the thread branches), then the sessions its threads hold: version 1.
    fn adopt(&mut self) -> Result<Option<i32>> {
        let has_table = |name: &str| -> Result<bool> {
            Ok(self
                .query_row(
                    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1",
                    [name],
                    |_| Ok(()),
                )
                .optional()?
                .is_some())
        };
        if has_table("schema_migrations")? || !has_table("threads")? {
            return Ok(None);
        }
        let had_sessions = has_table("agent_sessions")?;
        for (table, column) in SQLITE_ADDED_COLUMNS {
            let has = self
                .prepare("SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2")?
                .exists([table, column])?;
            if !has {
                self.execute_batch(&format!("ALTER TABLE {table} ADD COLUMN {column} TEXT"))?;
            }
        }
        self.execute_batch(SQLITE_1)?;
        if !had_sessions {
            self.execute_batch(SQLITE_SESSIONS_HELD)?;
        }
        Ok(Some(1))
    }

    fn batch(&mut self, sql: &str) -> Result<()> {
        Ok(self.execute_batch(sql)?)
    }

    fn recorded(&mut self) -> Result<Vec<i32>> {
        let mut stmt = self.prepare("SELECT version FROM schema_migrations")?;
        let rows = stmt.query_map([], |r| r.get(0))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    fn record(&mut self, version: i32) -> Result<()> {
        self.execute(
            "INSERT INTO schema_migrations (version, applied_at) VALUES (?1, ?2)",
            rusqlite::params![version, now_iso()],
        )?;
        Ok(())
    }
}

/// The advisory lock PostgreSQL migrations run under (any fixed number; "chatshel" in
/// ASCII).
const PG_LOCK: i64 = 0x6368_6174_7368_656c;

impl Schema for postgres::Transaction<'_> {
    const TABLE: &'static str = "
        CREATE TABLE IF NOT EXISTS schema_migrations (
            version INTEGER PRIMARY KEY,
            applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
        )";

    fn lock(&mut self) -> Result<()> {
        self.execute("SELECT pg_advisory_xact_lock($1)", &[&PG_LOCK])?;
        Ok(())
    }

    fn adopt(&mut self) -> Result<Option<i32>> {
        Ok(None)
    }

    fn batch(&mut self, sql: &str) -> Result<()> {
        Ok(self.batch_execute(sql)?)
    }

    fn recorded(&mut self) -> Result<Vec<i32>> {
        let rows = self.query("SELECT version FROM schema_migrations", &[])?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    fn record(&mut self, version: i32) -> Result<()> {
        self.execute(
            "INSERT INTO schema_migrations (version) VALUES ($1)",
            &[&version],
        )?;
        Ok(())
    }
}

/// PostgreSQL's versions: 1 the tables of the SQLite store, 2 the runs shared between
/// instances (`shared`), 3 whose each agent session is (with the sessions threads already
/// held), 4 the branches (`branches`).
pub(super) const POSTGRES: &[Migration] = &[
    (
        1,
        "CREATE TABLE threads (
            n BIGSERIAL NOT NULL,
            id TEXT PRIMARY KEY,
            owner TEXT,
            title TEXT,
            created_at TEXT NOT NULL,
            status_json TEXT NOT NULL,
            metadata_json TEXT NOT NULL
        );
        CREATE INDEX threads_by_owner ON threads (owner, created_at, n);
        -- One sequence for every thread's items: an item's place never needs a lock.
        CREATE SEQUENCE item_seq;
        CREATE TABLE items (
            id TEXT NOT NULL,
            thread_id TEXT NOT NULL,
            owner TEXT,
            seq BIGINT NOT NULL DEFAULT nextval('item_seq'),
            created_at TEXT NOT NULL,
            json TEXT NOT NULL,
            PRIMARY KEY (thread_id, id)
        );
        CREATE INDEX items_by_thread ON items (thread_id, seq);
        CREATE TABLE attachments (
            id TEXT PRIMARY KEY,
            owner TEXT,
            name TEXT NOT NULL,
            mime_type TEXT NOT NULL,
            size BIGINT NOT NULL,
            thread_id TEXT,
            bytes BYTEA
        );
        CREATE INDEX attachments_by_thread ON attachments (thread_id);
        CREATE TABLE feedback (item_id TEXT PRIMARY KEY, kind TEXT NOT NULL);
        CREATE TABLE views (
            thread_id TEXT NOT NULL,
            view_type TEXT NOT NULL,
            seq BIGINT NOT NULL,
            content_json TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            PRIMARY KEY (thread_id, view_type)
        );
        CREATE TABLE meta (key TEXT PRIMARY KEY, value BYTEA NOT NULL);",
    ),
    (
        2,
        "CREATE TABLE instances (
            id TEXT PRIMARY KEY,
            heartbeat TIMESTAMPTZ NOT NULL DEFAULT now()
        );
        CREATE TABLE runs (
            id TEXT PRIMARY KEY,
            thread_id TEXT NOT NULL,
            owner TEXT NOT NULL,
            instance TEXT NOT NULL,
            started_at TIMESTAMPTZ NOT NULL DEFAULT now(),
            cancel_requested BOOLEAN NOT NULL DEFAULT false,
            waiting_item TEXT,
            outcome TEXT,
            ended_at TIMESTAMPTZ
        );
        -- One shared run per thread: the one every instance's channels follow.
        CREATE UNIQUE INDEX runs_live_by_thread ON runs (thread_id) WHERE outcome IS NULL;
        CREATE INDEX runs_by_instance ON runs (instance) WHERE outcome IS NULL;
        CREATE TABLE run_events (
            run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            json TEXT NOT NULL,
            PRIMARY KEY (run_id, seq)
        );",
    ),
    (
        3,
        "CREATE TABLE agent_sessions (
            id TEXT PRIMARY KEY,
            owner TEXT,
            thread_id TEXT,
            ended BOOLEAN NOT NULL DEFAULT false
        );
        CREATE INDEX agent_sessions_by_thread ON agent_sessions (thread_id);
        INSERT INTO agent_sessions (id, owner, thread_id)
        SELECT DISTINCT ON (session) session, owner, id
        FROM (SELECT metadata_json::jsonb ->> 'acp_session_id' AS session, owner, id, created_at, n
              FROM threads) held
        WHERE session IS NOT NULL
        ORDER BY session, created_at, n
        ON CONFLICT (id) DO NOTHING;",
    ),
    (
        4,
        "ALTER TABLE threads ADD COLUMN leaf TEXT;
        ALTER TABLE items ADD COLUMN parent TEXT;
        CREATE INDEX items_by_parent ON items (thread_id, parent);",
    ),
];
