//! The thread as a tree (`store::branches`), on both backends.

use super::tests::{backends, message, pg_test_url, stores};
use super::*;
use chat_shell_core::protocol::chatkit::{ItemId, ListOrder, ThreadId};

fn shown(s: &UserStore<'_>, t: &ThreadId) -> Vec<ItemId> {
    s.all_items(t).unwrap().into_iter().map(|i| i.id).collect()
}

/// The branches each item of the first page says it has, by item.
fn branches_of(s: &UserStore<'_>, t: &ThreadId) -> Vec<(ItemId, Vec<ItemId>)> {
    s.list_items(t, 100, None, ListOrder::Asc)
        .unwrap()
        .data
        .into_iter()
        .map(|i| (i.id, i.branches))
        .collect()
}

/// A thread of two turns: question, answer, question, answer.
fn two_turns(s: &UserStore<'_>) -> (ThreadId, [ItemId; 4]) {
    let t = s.create_thread().unwrap().id;
    let ids = ["q1", "a1", "q2", "a2"].map(|text| message(s, &t, text).id);
    (t, ids)
}

#[test]
fn an_edit_makes_a_branch_beside_the_message_and_both_stay_reachable() {
    for s in stores() {
        let (t, [q1, a1, q2, a2]) = two_turns(&s);
        assert!(s.thread(&t).unwrap().unwrap().branching);
        // A thread that never branched marks no branches.
        assert!(branches_of(&s, &t).iter().all(|(_, b)| b.is_empty()));

        s.fork(&t, &q2, Fork::Beside).unwrap().unwrap();
        assert_eq!(
            shown(&s, &t),
            [q1.clone(), a1.clone()],
            "the edit starts after a1"
        );
        let edited = message(&s, &t, "q2, edited");
        let answer = message(&s, &t, "a2'");
        assert_eq!(
            shown(&s, &t),
            [q1.clone(), a1.clone(), edited.id.clone(), answer.id.clone()]
        );
        let pair = vec![q2.clone(), edited.id.clone()];
        assert_eq!(
            branches_of(&s, &t),
            [
                (q1.clone(), vec![]),
                (a1.clone(), vec![]),
                (edited.id.clone(), pair.clone()),
                (answer.id.clone(), vec![]),
            ]
        );
        // Saving says the branches too (what a streamed item carries).
        assert_eq!(s.save_item(&edited).unwrap(), pair);

        // The first branch is still whole, and shown again once selected.
        s.select_branch(&t, &q2).unwrap().unwrap();
        assert_eq!(
            shown(&s, &t),
            [q1.clone(), a1.clone(), q2.clone(), a2.clone()]
        );
        assert_eq!(branches_of(&s, &t)[2], (q2.clone(), pair.clone()));
        // A new message goes on the branch shown.
        let q3 = message(&s, &t, "q3");
        assert_eq!(
            shown(&s, &t),
            [q1.clone(), a1.clone(), q2.clone(), a2, q3.id]
        );
        s.select_branch(&t, &edited.id).unwrap().unwrap();
        assert_eq!(shown(&s, &t), [q1, a1, edited.id, answer.id]);
    }
}

#[test]
fn regenerating_keeps_the_old_answer_and_its_follow_ups_as_a_branch() {
    for s in stores() {
        let (t, [q1, a1, q2, a2]) = two_turns(&s);
        s.fork(&t, &q1, Fork::Below).unwrap().unwrap();
        assert_eq!(shown(&s, &t), std::slice::from_ref(&q1));
        let again = message(&s, &t, "a1 again");
        assert_eq!(shown(&s, &t), [q1.clone(), again.id.clone()]);
        assert_eq!(
            branches_of(&s, &t)[1],
            (again.id.clone(), vec![a1.clone(), again.id.clone()])
        );
        // Selecting the old answer shows its branch to its newest end.
        s.select_branch(&t, &a1).unwrap().unwrap();
        assert_eq!(shown(&s, &t), [q1, a1, q2, a2]);
    }
}

#[test]
fn the_first_message_can_be_edited() {
    for s in stores() {
        let (t, [q1, ..]) = two_turns(&s);
        s.fork(&t, &q1, Fork::Beside).unwrap().unwrap();
        assert!(
            shown(&s, &t).is_empty(),
            "an empty branch while the edit is sent"
        );
        assert!(s.thread(&t).unwrap().is_some());
        let first = message(&s, &t, "q1, edited");
        assert_eq!(shown(&s, &t), std::slice::from_ref(&first.id));
        assert_eq!(branches_of(&s, &t)[0].1, [q1.clone(), first.id]);
        s.select_branch(&t, &q1).unwrap().unwrap();
        assert_eq!(shown(&s, &t).len(), 4);
    }
}

#[test]
fn the_branch_shown_pages_both_ways() {
    for s in stores() {
        let (t, [q1, a1, q2, _]) = two_turns(&s);
        s.fork(&t, &q2, Fork::Beside).unwrap().unwrap();
        let rest: Vec<ItemId> = (0..4)
            .map(|i| message(&s, &t, &format!("m{i}")).id)
            .collect();
        let mut want = vec![q1, a1];
        want.extend(rest);
        let asc = s.list_items(&t, 4, None, ListOrder::Asc).unwrap();
        assert!(asc.has_more);
        let asc2 = s
            .list_items(&t, 4, asc.after.as_deref(), ListOrder::Asc)
            .unwrap();
        assert!(!asc2.has_more);
        let got: Vec<ItemId> = asc
            .data
            .iter()
            .chain(&asc2.data)
            .map(|i| i.id.clone())
            .collect();
        assert_eq!(got, want);
        let desc = s.list_items(&t, 5, None, ListOrder::Desc).unwrap();
        let desc2 = s
            .list_items(&t, 5, desc.after.as_deref(), ListOrder::Desc)
            .unwrap();
        let mut got: Vec<ItemId> = desc
            .data
            .iter()
            .chain(&desc2.data)
            .map(|i| i.id.clone())
            .collect();
        got.reverse();
        assert_eq!(got, want);
    }
}

#[test]
fn deleting_an_item_keeps_the_tree_whole() {
    for s in stores() {
        let (t, [q1, a1, q2, a2]) = two_turns(&s);
        s.fork(&t, &q1, Fork::Below).unwrap().unwrap();
        let empty = message(&s, &t, "");
        // A stopped answer with no text goes (`sse::saver`): the leaf goes back to q1.
        assert!(s.delete_item(&t, &empty.id).unwrap());
        assert_eq!(shown(&s, &t), std::slice::from_ref(&q1));
        let kept = message(&s, &t, "a1 again");
        assert_eq!(shown(&s, &t), [q1.clone(), kept.id.clone()]);
        // An item inside a branch: its child takes its place.
        s.select_branch(&t, &a1).unwrap().unwrap();
        assert!(s.delete_item(&t, &q2).unwrap());
        assert_eq!(shown(&s, &t), [q1, a1, a2]);
    }
}

#[test]
fn retry_after_an_item_replaces_the_branch_shown_and_keeps_the_others() {
    for s in stores() {
        let (t, [q1, a1, q2, a2]) = two_turns(&s);
        // A second answer to q1 (a regenerate), then Retry after q1 on it: only it goes.
        s.fork(&t, &q1, Fork::Below).unwrap().unwrap();
        let again = message(&s, &t, "a1 again");
        let follow = message(&s, &t, "q2 on it");
        assert_eq!(s.delete_items_after(&t, &q1).unwrap(), Some(2));
        assert_eq!(shown(&s, &t), std::slice::from_ref(&q1));
        assert!(s.select_branch(&t, &again.id).unwrap().is_none(), "gone");
        assert!(s.item(&t, &follow.id).unwrap().is_none(), "gone with it");
        // The new answer goes beside the one kept.
        let third = message(&s, &t, "a1, third");
        assert_eq!(
            branches_of(&s, &t)[1],
            (third.id.clone(), vec![a1.clone(), third.id])
        );
        s.select_branch(&t, &a1).unwrap().unwrap();
        assert_eq!(shown(&s, &t), [q1, a1, q2.clone(), a2]);
        // At the end of the branch shown there is nothing to delete.
        assert_eq!(
            s.delete_items_after(&t, &shown(&s, &t)[3]).unwrap(),
            Some(0)
        );
        assert_eq!(
            s.delete_items_after(&t, &ItemId("msg_nope".into()))
                .unwrap(),
            None
        );
        assert_eq!(shown(&s, &t).len(), 4);
        assert_eq!(shown(&s, &t)[2], q2);
    }
}

#[test]
fn another_owner_can_neither_branch_nor_select() {
    for db in backends() {
        let alice = db.user("alice");
        let (t, [q1, a1, q2, a2]) = two_turns(&alice);
        let bob = db.user("bob");
        assert!(bob.fork(&t, &q2, Fork::Beside).unwrap().is_none());
        assert!(bob.select_branch(&t, &q1).unwrap().is_none());
        assert_eq!(bob.delete_items_after(&t, &q1).unwrap(), None);
        assert!(!bob.delete_item(&t, &a2).unwrap());
        assert_eq!(shown(&alice, &t), [q1, a1, q2, a2]);
        assert!(bob.all_items(&t).unwrap().is_empty());
    }
}

#[test]
fn a_thread_saved_before_branches_existed_branches_along_its_order() {
    for db in backends() {
        // Seeded rows are written without parents, as rows of an older database are.
        let id = db.seed_thread(6, false).unwrap();
        db.claim_unowned("alice").unwrap();
        let s = db.user("alice");
        let before = shown(&s, &id);
        assert_eq!(before.len(), 6);
        s.fork(&id, &before[4], Fork::Beside).unwrap().unwrap();
        assert_eq!(shown(&s, &id), before[..4]);
        let edited = message(&s, &id, "edited");
        assert_eq!(branches_of(&s, &id)[4].1, [before[4].clone(), edited.id]);
        s.select_branch(&id, &before[4]).unwrap().unwrap();
        assert_eq!(shown(&s, &id), before);
    }
}

#[test]
fn a_store_whose_agent_keeps_the_conversation_offers_no_branches() {
    let db = Store::open_in_memory().unwrap().without_branches();
    let s = db.user("alice");
    let t = s.create_thread().unwrap();
    assert!(!t.branching);
    assert!(!s.thread(&t.id).unwrap().unwrap().branching);
    assert!(s
        .list_threads(10, None, ListOrder::Desc)
        .unwrap()
        .data
        .iter()
        .all(|t| !t.branching));
}

#[test]
fn instances_on_one_postgres_database_share_the_branch_shown() {
    let Some(url) = pg_test_url() else { return };
    let a = Store::open_postgres(&url).unwrap();
    let b = Store::open_postgres(&url).unwrap();
    let (sa, sb) = (a.user("alice"), b.user("alice"));
    let (t, [q1, a1, q2, a2]) = two_turns(&sa);
    sa.fork(&t, &q2, Fork::Beside).unwrap().unwrap();
    let edited = message(&sb, &t, "from b");
    assert_eq!(shown(&sa, &t), [q1.clone(), a1.clone(), edited.id.clone()]);
    sb.select_branch(&t, &q2).unwrap().unwrap();
    assert_eq!(
        shown(&sa, &t),
        [q1.clone(), a1.clone(), q2.clone(), a2.clone()]
    );
    // Both save into the branch shown at once: each item goes below the one before.
    let (sa, sb, t) = (&sa, &sb, &t);
    std::thread::scope(|scope| {
        for s in [sa, sb] {
            scope.spawn(move || {
                for i in 0..10 {
                    message(s, t, &format!("n{i}"));
                }
            });
        }
    });
    let all = shown(sa, t);
    assert_eq!(all.len(), 24, "no item lost to a race: {all:?}");
    assert_eq!(all[..4], [q1, a1, q2, a2]);
    assert!(branches_of(sb, t)[4..].iter().all(|(_, b)| b.is_empty()));
}
