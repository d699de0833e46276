//! The migrations (`migrations`): SQLite databases of every release before versions were
//! recorded open with their rows and end in the shape of a new one; a version appended
//! later runs once on either backend.

use super::tests::{message, pg_test_url};
use super::*;
use chat_shell_core::protocol::chatkit::{
    FeedbackKind, InputText, ItemId, ItemKind, ThreadId, ThreadItem, UserContent, UserMessage,
};

/// The first release's schema (no owners, no identity secret, no views).
const FIRST_RELEASE: &str = "
CREATE TABLE IF NOT EXISTS threads (
    id TEXT PRIMARY KEY,
    title TEXT,
    created_at TEXT NOT NULL,
    status_json TEXT NOT NULL,
    metadata_json TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS items (
    id TEXT NOT NULL,
    thread_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    json TEXT NOT NULL,
    PRIMARY KEY (thread_id, id)
);
CREATE INDEX IF NOT EXISTS items_by_thread ON items (thread_id, seq);
CREATE TABLE IF NOT EXISTS attachments (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    mime_type TEXT NOT NULL,
    size INTEGER NOT NULL,
    thread_id TEXT,
    bytes BLOB
);
CREATE TABLE IF NOT EXISTS feedback (
    item_id TEXT PRIMARY KEY,
    kind TEXT NOT NULL
);";

/// The release that gave rows their owners and kept the identity secret.
const OWNERS: &str = "
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
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS threads_by_owner ON threads (owner, created_at);
CREATE INDEX IF NOT EXISTS attachments_by_thread ON attachments (thread_id);";

/// Added by the release of views (`POST /callback`).
const VIEWS: &str = "
CREATE TABLE IF NOT EXISTS views (
    thread_id TEXT NOT NULL,
    view_type TEXT NOT NULL,
    seq INTEGER NOT NULL,
    content_json TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (thread_id, view_type)
);";

/// Added by the release that gave agent sessions their owners.
const AGENT_SESSIONS: &str = "
CREATE TABLE agent_sessions (
    id TEXT PRIMARY KEY,
    owner TEXT,
    thread_id TEXT,
    ended INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS agent_sessions_by_thread ON agent_sessions (thread_id);";

/// A database as each earlier release made it: its name and its schema. The last, the
/// release of branches, is version 1 without `schema_migrations`.
fn releases() -> Vec<(&'static str, String)> {
    vec![
        ("first", FIRST_RELEASE.to_owned()),
        ("owners", OWNERS.to_owned()),
        ("views", [OWNERS, VIEWS].concat()),
        ("agent sessions", [OWNERS, VIEWS, AGENT_SESSIONS].concat()),
        ("branches", migrations::SQLITE[0].1.to_owned()),
    ]
}

/// Every table's and index's columns, and the versions recorded: what must not depend on
/// how old the database is.
fn shape(conn: &Connection) -> Vec<String> {
    let names: Vec<(String, String)> = conn
        .prepare(
            "SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'
             ORDER BY type, name",
        )
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    let mut shape = Vec::new();
    for (kind, name) in names {
        let sql = if kind == "table" {
            "SELECT name || ' ' || type || ' ' || \"notnull\" || ' ' || pk || ' '
                 || coalesce(dflt_value, '-') FROM pragma_table_info(?1) ORDER BY name"
        } else {
            "SELECT name FROM pragma_index_info(?1) ORDER BY seqno"
        };
        let columns: Vec<String> = conn
            .prepare(sql)
            .unwrap()
            .query_map([&name], |r| r.get(0))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        shape.push(format!("{kind} {name}: {}", columns.join(", ")));
    }
    let versions: Vec<i32> = conn
        .prepare("SELECT version FROM schema_migrations ORDER BY version")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    shape.push(format!("versions {versions:?}"));
    shape
}

fn user_item(id: &str, thread: &ThreadId, text: &str) -> ThreadItem {
    ThreadItem {
        branches: Vec::new(),
        id: ItemId(id.into()),
        thread_id: Some(thread.clone()),
        created_at: "2024-01-01T00:00:01.000000".into(),
        kind: ItemKind::UserMessage(UserMessage {
            content: vec![UserContent::InputText(InputText { text: text.into() })],
            ..Default::default()
        }),
    }
}

fn temp_db(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!(
        "chat-shell-runtime-migrate-{name}-{}-{}.db",
        std::process::id(),
        new_id("db")
    ))
}

fn remove_db(path: &Path) {
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
}

#[test]
fn databases_of_every_earlier_release_open_whole_and_in_today_s_shape() {
    let fresh = shape(&Store::open_in_memory().unwrap().conn());
    assert!(fresh.contains(&"versions [1]".to_owned()), "{fresh:?}");
    let thread = ThreadId::from("thr_old");
    let (first, second) = (
        user_item("msg_1", &thread, "first question"),
        user_item("msg_2", &thread, "second question"),
    );
    for (release, schema) in releases() {
        let path = temp_db(&release.replace(' ', "-"));
        let owned = release != "first";
        let has_views = schema.contains("views (");
        {
            // What that release wrote: a thread holding an agent session, two items, an
            // attachment, feedback, and a view once there are views.
            let conn = Connection::open(&path).unwrap();
            conn.execute_batch(&schema).unwrap();
            let (owner_column, owner) = if owned {
                (", owner", ", 'alice'")
            } else {
                ("", "")
            };
            conn.execute_batch(&format!(
                "INSERT INTO threads (id, title, created_at, status_json, metadata_json{owner_column})
                 VALUES ('thr_old', 'Old', '2024-01-01T00:00:00.000000', '{{\"type\":\"active\"}}',
                         '{{\"acp_session_id\":\"s-old\"}}'{owner});
                 INSERT INTO attachments (id, name, mime_type, size, thread_id, bytes{owner_column})
                 VALUES ('atc_old', 'a.txt', 'text/plain', 2, 'thr_old', x'6869'{owner});
                 INSERT INTO feedback (item_id, kind) VALUES ('msg_2', 'positive');"
            ))
            .unwrap();
            for (seq, item) in [&first, &second].into_iter().enumerate() {
                conn.execute(
                    &format!(
                        "INSERT INTO items (id, thread_id, seq, created_at, json{owner_column})
                         VALUES (?1, 'thr_old', ?2, ?3, ?4{owner})"
                    ),
                    params![
                        item.id.as_str(),
                        seq as i64 + 1,
                        item.created_at,
                        to_json(item).unwrap()
                    ],
                )
                .unwrap();
            }
            if has_views {
                conn.execute_batch(
                    "INSERT INTO views VALUES ('thr_old', 'diff', 3, '{\"a\":1}', '2024-01-01')",
                )
                .unwrap();
            }
            if schema.contains("agent_sessions (") {
                conn.execute_batch(
                    "INSERT INTO agent_sessions (id, owner, thread_id) VALUES ('s-old', 'alice', 'thr_old')",
                )
                .unwrap();
            }
        }

        let db = Store::open(&path).unwrap();
        assert_eq!(shape(&db.conn()), fresh, "{release}");
        assert_eq!(db.claim_unowned("alice").unwrap(), usize::from(!owned));
        let alice = db.user("alice");
        let old = alice.thread(&thread).unwrap().expect(release);
        assert_eq!(old.title.as_deref(), Some("Old"), "{release}");
        assert_eq!(
            alice.all_items(&thread).unwrap(),
            [first.clone(), second.clone()],
            "{release}"
        );
        assert_eq!(
            alice.upload("atc_old").unwrap(),
            Some(("text/plain".into(), b"hi".to_vec())),
            "{release}"
        );
        assert_eq!(
            alice.feedback(&second.id).unwrap().as_deref(),
            Some("positive")
        );
        // The agent session its thread holds is recorded (or kept) as alice's.
        assert_eq!(
            alice.whose_sessions(&["s-old".to_owned()]).unwrap(),
            [Whose::Mine(Some(thread.clone()))],
            "{release}"
        );
        let (views, latest) = alice.views_after(&thread, None).unwrap().unwrap();
        assert_eq!(
            (views.len(), latest),
            if has_views { (1, 3) } else { (0, 0) }
        );
        // The thread branches like a new one, and goes on after the rows on disk.
        assert_eq!(
            alice.fork(&thread, &second.id, Fork::Beside).unwrap(),
            Some(())
        );
        alice
            .add_feedback(
                &thread,
                std::slice::from_ref(&first.id),
                FeedbackKind::Negative,
            )
            .unwrap();
        assert_eq!(
            alice.feedback(&first.id).unwrap().as_deref(),
            Some("negative")
        );
        let next = message(&alice, &thread, "edited second question");
        assert_eq!(
            alice.all_items(&thread).unwrap(),
            [first.clone(), next],
            "{release}"
        );
        let secret = *db.secret();
        drop(db);

        // Adopted once: opening again has nothing left to do and keeps the secret.
        let mut conn = Connection::open(&path).unwrap();
        assert_eq!(migrations::sqlite(&mut conn).unwrap(), [] as [i32; 0]);
        drop(conn);
        assert_eq!(*Store::open(&path).unwrap().secret(), secret, "{release}");
        remove_db(&path);
    }
}

#[test]
fn a_version_appended_later_runs_once_on_either_backend() {
    let mut later = migrations::SQLITE.to_vec();
    later.push((
        2,
        "CREATE TABLE later (x TEXT); INSERT INTO later VALUES ('once');",
    ));
    let path = temp_db("later");
    drop(Store::open(&path).unwrap());
    let mut conn = Connection::open(&path).unwrap();
    for expected in [vec![2], vec![]] {
        let mut tx = conn.transaction().unwrap();
        assert_eq!(migrations::run(&mut tx, &later).unwrap(), expected);
        tx.commit().unwrap();
    }
    let rows: i64 = conn
        .query_row("SELECT count(*) FROM later", [], |r| r.get(0))
        .unwrap();
    assert_eq!(rows, 1);
    drop(conn);
    remove_db(&path);

    let Some(url) = pg_test_url() else { return };
    drop(Store::open_postgres(&url).unwrap());
    let mut later = migrations::POSTGRES.to_vec();
    let next = later.last().unwrap().0 + 1;
    later.push((
        next,
        "CREATE TABLE later (x TEXT); INSERT INTO later VALUES ('once');",
    ));
    let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    for expected in [vec![next], vec![]] {
        let mut tx = client.transaction().unwrap();
        assert_eq!(migrations::run(&mut tx, &later).unwrap(), expected);
        tx.commit().unwrap();
    }
    let row = client.query_one("SELECT count(*) FROM later", &[]).unwrap();
    assert_eq!(row.get::<_, i64>(0), 1);
    // The versions recorded are PostgreSQL's own, as before there was one runner.
    let versions: Vec<i32> = client
        .query(
            "SELECT version FROM schema_migrations ORDER BY version",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(versions, (1..=next).collect::<Vec<_>>());
}
