use super::ids::format_iso;
use super::*;
use chat_shell_core::protocol::chatkit::{
    AssistantContent, AssistantMessage, FeedbackKind, InputText, ItemId, ItemKind, ListOrder, Page,
    StatusBody, Thread, ThreadId, ThreadItem, ThreadStatus, UserContent, UserMessage,
};

/// The PostgreSQL server the store tests also run on (scripts/test.sh starts one).
pub const TEST_DATABASE_ENV: &str = "CHAT_SHELL_TEST_DATABASE_URL";

/// A fresh store on the test PostgreSQL server, in a schema of its own; `None` (said once
/// on stderr) when no server is given.
pub fn pg_test_store() -> Option<Store> {
    pg_test_url().map(|url| Store::open_postgres(&url).unwrap())
}

/// The URL of a fresh, empty schema on the test PostgreSQL server (see [`pg_test_store`]).
pub fn pg_test_url() -> Option<String> {
    let Ok(url) = std::env::var(TEST_DATABASE_ENV) else {
        static SAID: std::sync::Once = std::sync::Once::new();
        SAID.call_once(|| {
            eprintln!(
                "note: {TEST_DATABASE_ENV} is not set: the PostgreSQL store tests are skipped"
            )
        });
        return None;
    };
    let schema = new_id("test");
    let mut admin = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    admin
        .batch_execute(&format!("CREATE SCHEMA {schema}"))
        .unwrap();
    let sep = if url.contains('?') { '&' } else { '?' };
    Some(format!("{url}{sep}options=-csearch_path%3D{schema}"))
}

/// Fresh stores, one per backend (leaked: tests are short).
pub(super) fn backends() -> Vec<&'static Store> {
    let mut all: Vec<&'static Store> = vec![Box::leak(Box::new(Store::open_in_memory().unwrap()))];
    all.extend(pg_test_store().map(|s| &*Box::leak(Box::new(s))));
    all
}

/// [`backends`] as seen by the user `alice`.
pub(super) fn stores() -> Vec<UserStore<'static>> {
    backends().into_iter().map(|db| db.user("alice")).collect()
}

pub(super) fn message(store: &UserStore<'_>, thread: &ThreadId, text: &str) -> ThreadItem {
    let item = ThreadItem {
        branches: Vec::new(),
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
    for s in stores() {
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
}

#[test]
fn another_owner_sees_nothing_and_changes_nothing() {
    for db in backends() {
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
            branches: Vec::new(),
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
}

#[test]
fn saving_an_item_uses_indexes_not_a_table_scan() {
    let db = Store::open_in_memory().unwrap();
    let conn = db.conn();
    let mut stmt = conn
        .prepare(&format!("EXPLAIN QUERY PLAN {}", super::sql::INSERT_ITEM))
        .unwrap();
    let plan: Vec<String> = stmt
        .query_map(["i", "t", "c", "{}", "o"], |r| r.get::<_, String>(3))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
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
    for db in backends() {
        assert!(!db.has_unowned().unwrap());
        let seeded = db.seed_thread(4, false).unwrap();
        assert!(db.has_unowned().unwrap());
        assert!(db.user("alice").thread(&seeded).unwrap().is_none());
        assert_eq!(db.claim_unowned("alice").unwrap(), 1);
        assert!(!db.has_unowned().unwrap());
        assert_eq!(db.claim_unowned("bob").unwrap(), 0);
        assert_eq!(db.user("alice").all_items(&seeded).unwrap().len(), 4);
        assert!(db.user("bob").thread(&seeded).unwrap().is_none());
    }
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
    for s in stores() {
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
}

#[test]
fn items_paginate_both_ways() {
    for s in stores() {
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
}

#[test]
fn saving_an_item_again_updates_it_in_place() {
    for s in stores() {
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
}

#[test]
fn modifying_an_item_writes_only_what_is_accepted_and_only_for_its_owner() {
    for s in stores() {
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
}

#[test]
fn retry_truncates_after_the_user_message() {
    for s in stores() {
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
}

#[test]
fn deleting_a_thread_cascades() {
    for s in stores() {
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
}

#[test]
fn feedback_keeps_the_latest_vote() {
    for s in stores() {
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
}

#[test]
fn attachments_store_bytes() {
    for s in stores() {
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
}

#[test]
fn title_and_status_are_saved() {
    for s in stores() {
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
}

#[test]
fn a_seeded_thread_pages_newest_first() {
    for db in backends() {
        let id = db.seed_thread(45, false).unwrap();
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

#[test]
fn instances_on_one_postgres_database_share_rows_the_secret_and_view_numbers() {
    let Some(url) = pg_test_url() else { return };
    let a = Store::open_postgres(&url).unwrap();
    // What a second instance opens: the migrations find nothing left to do.
    let b = Store::open_postgres(&url).unwrap();
    assert_eq!(a.secret(), b.secret(), "one identity across instances");
    let t = a.user("alice").create_thread().unwrap();
    let m = message(&a.user("alice"), &t.id, "from a");
    assert_eq!(b.user("alice").all_items(&t.id).unwrap(), [m]);
    assert!(b.user("bob").thread(&t.id).unwrap().is_none());
    // Both number the thread's view changes from one sequence, never twice the same.
    let (a, b) = (&a, &b);
    let thread = t.id.as_str();
    std::thread::scope(|scope| {
        for (n, store) in [a, b, a, b].into_iter().enumerate() {
            scope.spawn(move || {
                for i in 0..10 {
                    store
                        .put_view(thread, &format!("v{n}_{i}"), "{}")
                        .unwrap()
                        .unwrap();
                }
            });
        }
    });
    let (views, latest) = b.user("alice").views_after(&t.id, None).unwrap().unwrap();
    let mut seqs: Vec<u64> = views.iter().map(|v| v.seq).collect();
    seqs.sort_unstable();
    assert_eq!(seqs, (1..=40).collect::<Vec<_>>());
    assert_eq!(latest, 40);
}

fn set_session(store: &UserStore<'_>, thread: &mut Thread, session: &str) {
    thread.metadata.insert(
        "acp_session_id".into(),
        serde_json::Value::String(session.into()),
    );
    store.save_thread(thread).unwrap();
}

#[test]
fn agent_sessions_are_claimed_once_and_end_with_their_thread() {
    use agent_sessions::Whose;
    for db in backends() {
        let (alice, bob) = (db.user("alice"), db.user("bob"));
        let thread = alice.create_thread().unwrap();
        let ids = |s: &[&str]| s.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        // Made by the agent for alice's thread, and a draft of hers.
        alice.record_session("s1", Some(&thread.id)).unwrap();
        alice.record_session("draft", None).unwrap();
        assert_eq!(
            alice.whose_sessions(&ids(&["s1", "draft", "old"])).unwrap(),
            [
                Whose::Mine(Some(thread.id.clone())),
                Whose::Mine(None),
                Whose::Nobody
            ]
        );
        assert_eq!(
            bob.whose_sessions(&ids(&["s1", "draft", "old"])).unwrap(),
            [Whose::Unavailable, Whose::Unavailable, Whose::Nobody]
        );
        // Another user's, or held by another thread: not claimed.
        let bobs = bob.create_thread().unwrap();
        assert!(!bob.claim_session("s1", &bobs.id).unwrap());
        assert!(!bob.claim_session("draft", &bobs.id).unwrap());
        let other = alice.create_thread().unwrap();
        assert!(!alice.claim_session("s1", &other.id).unwrap());
        // Claiming is idempotent for the thread holding it; a draft goes to a thread.
        assert!(alice.claim_session("s1", &thread.id).unwrap());
        assert!(alice.claim_session("draft", &other.id).unwrap());
        // Nobody's: the first claim wins.
        assert!(bob.claim_session("old", &bobs.id).unwrap());
        assert!(!alice.claim_session("old", &other.id).unwrap());
        assert_eq!(
            alice.whose_sessions(&ids(&["old"])).unwrap(),
            [Whose::Unavailable]
        );
        // Given up: still bob's, held by no thread.
        bob.release_session("old", &bobs.id).unwrap();
        assert_eq!(
            bob.whose_sessions(&ids(&["old"])).unwrap(),
            [Whose::Mine(None)]
        );
        // Deleting the thread ends its session, for its owner too; another user's delete
        // of it does nothing.
        assert!(!bob.delete_thread(&thread.id).unwrap());
        assert!(alice.delete_thread(&thread.id).unwrap());
        for store in [&alice, &bob] {
            assert_eq!(
                store.whose_sessions(&ids(&["s1"])).unwrap(),
                [Whose::Unavailable]
            );
        }
        assert!(!alice.claim_session("s1", &other.id).unwrap());
        // The agent reusing the id for a new session: that one is recorded.
        bob.record_session("s1", Some(&bobs.id)).unwrap();
        assert_eq!(
            bob.whose_sessions(&ids(&["s1"])).unwrap(),
            [Whose::Mine(Some(bobs.id.clone()))]
        );
        assert!(alice.whose_sessions(&[]).unwrap().is_empty());
    }
}

#[test]
fn agent_sessions_are_found_through_indexes() {
    let db = Store::open_in_memory().unwrap();
    let conn = db.conn();
    let plan = |sql: &str, n: usize| -> Vec<String> {
        let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
        let args: Vec<String> = (0..n).map(|i| i.to_string()).collect();
        stmt.query_map(rusqlite::params_from_iter(args), |r| r.get::<_, String>(3))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap()
    };
    let whose = plan(&agent_sessions::whose_sqlite(3), 3);
    assert!(
        whose.iter().all(|s| !s.starts_with("SCAN")) && whose.iter().any(|s| s.contains("INDEX")),
        "{whose:?}"
    );
    let end = plan(sql::END_SQLITE, 2);
    assert!(
        end.iter().any(|s| s.contains("agent_sessions_by_thread")),
        "{end:?}"
    );
    drop(conn);
    if let Some(pg) = pg_test_store() {
        let mut c = pg.pg().unwrap().conn().unwrap();
        // However small the table, the plan must be able to use the index.
        c.batch_execute("SET enable_seqscan = off").unwrap();
        let ids = vec!["a".to_owned(), "b".to_owned()];
        let plan: Vec<String> = c
            .query(&format!("EXPLAIN {}", agent_sessions::WHOSE_PG), &[&ids])
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        assert!(
            plan.iter().any(|s| s.contains("agent_sessions_pkey")),
            "{plan:?}"
        );
        c.batch_execute("RESET enable_seqscan").unwrap();
    }
}

#[test]
fn threads_of_an_older_database_keep_their_agent_sessions() {
    use agent_sessions::Whose;
    let ids = vec!["s-old".to_owned()];
    let path = std::env::temp_dir().join(format!(
        "chat-shell-runtime-store-sessions-{}-{}.db",
        std::process::id(),
        now_iso()
    ));
    let thread = {
        let db = Store::open(&path).unwrap();
        let alice = db.user("alice");
        let mut thread = alice.create_thread().unwrap();
        set_session(&alice, &mut thread, "s-old");
        // As a database made before sessions had owners (and versions were recorded).
        db.conn()
            .execute_batch("DROP TABLE agent_sessions; DROP TABLE schema_migrations")
            .unwrap();
        thread.id
    };
    let db = Store::open(&path).unwrap();
    assert_eq!(
        db.user("alice").whose_sessions(&ids).unwrap(),
        [Whose::Mine(Some(thread.clone()))]
    );
    assert_eq!(
        db.user("bob").whose_sessions(&ids).unwrap(),
        [Whose::Unavailable]
    );
    drop(db);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
    if let Some(url) = pg_test_url() {
        let thread = {
            let db = Store::open_postgres(&url).unwrap();
            let alice = db.user("alice");
            let mut thread = alice.create_thread().unwrap();
            set_session(&alice, &mut thread, "s-old");
            db.pg()
                .unwrap()
                .conn()
                .unwrap()
                .batch_execute(
                    "DROP TABLE agent_sessions; DELETE FROM schema_migrations WHERE version = 3",
                )
                .unwrap();
            thread.id
        };
        let db = Store::open_postgres(&url).unwrap();
        assert_eq!(
            db.user("alice").whose_sessions(&ids).unwrap(),
            [Whose::Mine(Some(thread))]
        );
        assert_eq!(
            db.user("bob").whose_sessions(&ids).unwrap(),
            [Whose::Unavailable]
        );
    }
}
