//! The run hub, its seats and abandoned-run timer, and the fold of a run's events.

use super::fold::{apply_update, RunItems};
use super::*;
use crate::auth::User;
use crate::channel::outbox::Outbox;
use crate::clients::{Client, Clients, Kind};
use axum::body::Bytes;
use axum::http::StatusCode;
use chat_shell_core::protocol::chatkit::{
    AssistantContent, AssistantMessage, ContentPartEvent, ItemEvent, ItemId, ItemKind, ItemUpdate,
    ItemUpdatedEvent, StreamEvent, TextDelta, ThreadId, ThreadItem,
};
use std::sync::Arc;
use tokio::sync::mpsc;

fn client() -> Client {
    Client::of("127.0.0.2".parse().unwrap())
}

fn message(id: &str, text: &str) -> ThreadItem {
    ThreadItem {
        branches: Vec::new(),
        id: ItemId::from(id),
        thread_id: None,
        created_at: String::new(),
        kind: ItemKind::AssistantMessage(AssistantMessage {
            content: vec![AssistantContent::text(text)],
        }),
    }
}

fn delta(id: &str, s: &str) -> StreamEvent {
    StreamEvent::ItemUpdated(ItemUpdatedEvent {
        item_id: ItemId::from(id),
        update: ItemUpdate::TextDelta(TextDelta {
            content_index: 0,
            delta: s.into(),
        }),
    })
}

fn text(event: &StreamEvent) -> (&'static str, String) {
    let (kind, item) = match event {
        StreamEvent::ItemAdded(e) => ("added", &e.item),
        StreamEvent::ItemDone(e) => ("done", &e.item),
        other => panic!("{other:?}"),
    };
    let ItemKind::AssistantMessage(m) = &item.kind else {
        panic!()
    };
    (kind, m.content[0].text.clone())
}

#[test]
fn the_snapshot_is_each_item_in_order_done_or_in_progress() {
    let mut items = RunItems::default();
    let added = |item| StreamEvent::ItemAdded(ItemEvent { item });
    items.fold(&added(message("msg_1", "")), None);
    items.fold(&delta("msg_1", "one"), None);
    items.fold(
        &StreamEvent::ItemDone(ItemEvent {
            item: message("msg_1", "one"),
        }),
        None,
    );
    items.fold(&added(message("msg_2", "")), None);
    items.fold(&delta("msg_2", "tw"), None);
    // The fork's deltas name fresh ids: they belong to the message being streamed.
    assert_eq!(
        items.fold(&delta("fresh_1", "o"), None),
        Some(ItemId::from("msg_2"))
    );
    let snapshot: Vec<_> = items.snapshot().iter().map(text).collect();
    assert_eq!(
        snapshot,
        [("done", "one".to_owned()), ("added", "two".to_owned())]
    );
    items.fold(
        &StreamEvent::ItemRemoved(chat_shell_core::protocol::chatkit::ItemRemovedEvent {
            item_id: ItemId::from("msg_1"),
        }),
        None,
    );
    assert_eq!(items.snapshot().len(), 1);
}

#[test]
fn a_tracked_item_shows_once_updated_and_a_folded_copy_replaces_it() {
    let mut items = RunItems::default();
    items.track(message("msg_1", "a"));
    assert!(items.snapshot().is_empty(), "not emitted by this run yet");
    let update = delta("msg_1", "b");
    let StreamEvent::ItemUpdated(u) = &update else {
        unreachable!()
    };
    let (id, foreign) = items.target(u).unwrap();
    let mut copy = items.get(&id).unwrap().clone();
    apply_update(&mut copy, &u.update, foreign);
    items.fold(&update, Some(copy));
    assert_eq!(
        items.snapshot().iter().map(text).collect::<Vec<_>>(),
        [("added", "ab".to_owned())]
    );
    assert!(items.empty_messages().is_empty());
}

#[tokio::test]
async fn channels_get_the_snapshot_then_every_later_event_and_the_end() {
    let runs = Runs::default();
    let user = User("u".into());
    let thread = ThreadId::from("thr_1");
    let (origin, _rx) = mpsc::channel(1);
    let seat = runs.admit(&user, client()).unwrap();
    let handle = runs.start(&user, &thread, &origin, &seat);
    assert!(handle.attached());
    assert!(
        !runs.start(&user, &thread, &origin, &seat).attached(),
        "one run per thread"
    );
    let add = StreamEvent::ItemAdded(ItemEvent {
        item: message("msg_1", ""),
    });
    handle.publish(&add, "{}", None);
    let outbox = Outbox::new("thr_1");
    let snapshot = runs.listen(&user, &thread, &outbox);
    assert!(matches!(snapshot, Ok(Joined::Local(s)) if s.len() == 1));
    handle.publish(&delta("msg_1", "x"), "{\"x\":1}", None);
    assert_eq!(
        outbox.next().await.unwrap(),
        Bytes::from("data: {\"type\":\"thread.run.event\",\"event\":{\"x\":1}}\n\n")
    );
    assert!(runs.cancel(&user, &thread).is_some());
    assert!(runs.cancel(&user, &thread).is_none(), "asked once");
    assert!(!handle.run.is_live());
    runs.end(&handle, Outcome::Cancelled);
    assert_eq!(
        outbox.next().await.unwrap(),
        Bytes::from("data: {\"type\":\"thread.run.ended\",\"outcome\":\"cancelled\"}\n\n")
    );
    assert!(runs.cancel(&user, &thread).is_none());
    outbox.close();
    runs.unlisten(&user, &thread);
    assert_eq!(runs.open_threads(), 0);
    // Another user's thread of the same id is another slot.
    assert!(matches!(
        runs.listen(&User("v".into()), &thread, &Outbox::new("thr_1")),
        Ok(Joined::Idle)
    ));
}

#[tokio::test]
async fn runs_per_identity_are_capped_and_counted_until_they_end() {
    let clients = Clients::new(crate::clients::Limits {
        runs: 3,
        runs_total: 4,
        ..Default::default()
    });
    let runs = Runs::new(
        Limits {
            runs: 2,
            ..Limits::default()
        },
        clients.clone(),
    );
    let (u, v, w) = (User("u".into()), User("v".into()), User("w".into()));
    let (origin, _rx) = mpsc::channel(1);
    let seat = runs.admit(&u, client()).unwrap();
    let first = runs.start(&u, &ThreadId::from("thr_1"), &origin, &seat);
    drop(seat);
    let seat = runs.admit(&u, client()).unwrap();
    let second = runs.start(&u, &ThreadId::from("thr_2"), &origin, &seat);
    drop(seat);
    let Err(refused) = runs.admit(&u, client()) else {
        panic!("admitted past the cap")
    };
    assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
    assert!(refused.headers().contains_key("retry-after"));
    // Per identity, and per client address: a new identity from the same address gets
    // the client's last seat, then is refused too; another address is not.
    let third = runs.admit(&v, client()).unwrap();
    let Err(refused) = runs.admit(&w, client()) else {
        panic!("admitted past the client's cap")
    };
    assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
    let other = Client::of("127.0.0.3".parse().unwrap());
    let fourth = runs.admit(&w, other).unwrap();
    // And everyone together.
    let Err(refused) = runs.admit(&User("x".into()), Client::of("127.0.0.4".parse().unwrap()))
    else {
        panic!("admitted past the cap for everyone")
    };
    assert_eq!(refused.status(), StatusCode::TOO_MANY_REQUESTS);
    drop((third, fourth));
    runs.end(&first, Outcome::Done);
    drop(first);
    assert!(runs.admit(&u, client()).is_ok());
    drop(second);
    assert!(lock(&runs.seats).is_empty());
    assert_eq!(clients.holds(Kind::Run, client()), 0);
}

#[tokio::test(start_paused = true)]
async fn a_run_nobody_reads_is_stopped_after_the_bound() {
    let runs = Runs::new(
        Limits {
            abandoned_run: Duration::from_secs(60),
            ..Limits::default()
        },
        Arc::default(),
    );
    let (user, thread) = (User("u".into()), ThreadId::from("thr_1"));
    let (origin, rx) = mpsc::channel(1);
    let seat = runs.admit(&user, client()).unwrap();
    let handle = runs.start(&user, &thread, &origin, &seat);
    tokio::time::sleep(Duration::from_secs(120)).await;
    assert!(handle.run.is_live(), "its client is there");
    drop(rx);
    let outbox = Outbox::new("thr_1");
    runs.listen(&user, &thread, &outbox).unwrap();
    tokio::time::sleep(Duration::from_secs(120)).await;
    assert!(handle.run.is_live(), "a channel is open");
    outbox.close();
    tokio::time::sleep(Duration::from_secs(50)).await;
    assert!(handle.run.is_live());
    tokio::time::sleep(Duration::from_secs(30)).await;
    assert!(!handle.run.is_live(), "stopped");
}

#[test]
fn foreign_deltas_append_to_the_last_part() {
    let mut item = message("msg_1", "I've ");
    let d = |n, s: &str| {
        ItemUpdate::TextDelta(TextDelta {
            content_index: n,
            delta: s.into(),
        })
    };
    apply_update(&mut item, &d(1, "extracted "), true);
    apply_update(&mut item, &d(2, "it"), true);
    apply_update(&mut item, &d(1, "!"), false);
    let ItemKind::AssistantMessage(m) = &item.kind else {
        unreachable!()
    };
    assert_eq!(m.content[0].text, "I've extracted it");
    assert_eq!(m.content[1].text, "!");
    apply_update(
        &mut item,
        &ItemUpdate::ContentPartDone(ContentPartEvent {
            content_index: 0,
            content: AssistantContent::text("done"),
        }),
        false,
    );
    let ItemKind::AssistantMessage(m) = &item.kind else {
        unreachable!()
    };
    assert_eq!(m.content[0].text, "done");
}
