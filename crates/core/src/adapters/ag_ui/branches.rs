//! Branches of an AG-UI conversation, kept by the client: an AG-UI agent keeps nothing
//! between runs (each run is sent the whole conversation), so the branch shown is the
//! conversation, and the others wait in [`Conversation::forks`] as the messages they
//! held, kept with the conversation in the browser.
//!
//! A fork is where branches part: after an entry (`after`), or at the start. An edit of a
//! message forks before it; an answer regenerated forks after its message. The first
//! entry of each branch names it (`starts`), and carries every branch's name for the
//! picker (`Entry::branches`).

use super::conversation::Conversation;
use super::request::messages;
use super::snapshot::restored;
use crate::model::Entry;
use crate::protocol::chatkit::ItemId;
use crate::reducer::{ChatState, EntryState};
use serde_json::Value;

/// The forks are kept with the conversation (`conversation.rs`); their rules are here.
pub use super::conversation::Fork;

/// Where the branches of `fork` begin in `items`, if its entry is there.
fn start_of(items: &[EntryState], fork: &Fork) -> Option<usize> {
    match &fork.after {
        None => Some(0),
        Some(after) => items
            .iter()
            .position(|i| i.entry.id.0 == *after)
            .map(|at| at + 1),
    }
}

/// The items from `at` on, as the messages kept for a branch.
fn kept_messages(items: &[EntryState], conversation: &Conversation) -> Value {
    serde_json::to_value(messages(items, conversation, true)).unwrap_or_default()
}

/// Keeps the branch shown from `items[at]` on, before it is replaced (an edit of that
/// message, `at` its place; an answer regenerated, `at` just after its message). False
/// when there is nothing there to keep.
pub fn fork(state: &ChatState, conversation: &mut Conversation, at: usize) -> bool {
    let items = state.items();
    let Some(first) = items.get(at) else {
        return false;
    };
    let after = at.checked_sub(1).map(|i| items[i].entry.id.0.clone());
    let tail = kept_messages(&items[at..], conversation);
    let start = first.entry.id.0.clone();
    let fork = match conversation.forks.iter_mut().find(|f| f.after == after) {
        Some(fork) => fork,
        None => {
            conversation.forks.push(Fork {
                after,
                ..Fork::default()
            });
            conversation.forks.last_mut().expect("just pushed")
        }
    };
    if !fork.starts.contains(&start) {
        fork.starts.push(start.clone());
    }
    fork.kept.insert(start, tail);
    true
}

/// Brings the forks up to date with the items shown, and says which entries start a
/// branch and what their branches are. A branch a run made since its fork (the new
/// answer, the edited message) joins its fork here.
pub fn settle(state: &ChatState, conversation: &mut Conversation) -> Vec<(ItemId, Vec<ItemId>)> {
    let items = state.items();
    let mut marks = Vec::new();
    for fork in &mut conversation.forks {
        let Some(first) = start_of(items, fork).and_then(|at| items.get(at)) else {
            continue;
        };
        let id = &first.entry.id.0;
        if !fork.starts.contains(id) {
            fork.starts.push(id.clone());
        }
        // The branch shown lives in the items, not among the kept.
        fork.kept.remove(id);
        if fork.starts.len() > 1 {
            let all = fork.starts.iter().cloned().map(ItemId).collect();
            marks.push((first.entry.id.clone(), all));
        }
    }
    marks
}

/// The entries to show instead of the items when the branch `target` is chosen: what
/// comes before its fork, then its own; the branch shown until now is kept. `None`: no
/// fork keeps `target` (or its fork is not in the branch shown).
pub fn switch(
    state: &ChatState,
    conversation: &mut Conversation,
    target: &ItemId,
) -> Option<Vec<Entry>> {
    let items = state.items();
    let at_fork = conversation
        .forks
        .iter()
        .position(|f| f.kept.contains_key(&target.0))?;
    let at = start_of(items, &conversation.forks[at_fork])?;
    let shown = items.get(at).map(|i| {
        (
            i.entry.id.0.clone(),
            kept_messages(&items[at..], conversation),
        )
    });
    let fork = &mut conversation.forks[at_fork];
    let messages = fork.kept.remove(&target.0)?;
    if let Some((id, tail)) = shown {
        if !fork.starts.contains(&id) {
            fork.starts.push(id.clone());
        }
        fork.kept.insert(id, tail);
    }
    let mut entries: Vec<Entry> = items[..at].iter().map(|i| i.entry.clone()).collect();
    let branch = restored(messages.as_array().map(Vec::as_slice).unwrap_or_default());
    // Its first entry names the branch from now on (a restored entry may be named anew).
    if let Some(first) = branch.first() {
        if first.id.0 != target.0 {
            for start in &mut fork.starts {
                if *start == target.0 {
                    *start = first.id.0.clone();
                }
            }
        }
    }
    entries.extend(branch);
    Some(entries)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::ag_ui::{request, RunSetup};
    use crate::protocol::ag_ui::Message;
    use crate::protocol::decode::Decode;
    use crate::reducer::{reduce, Input};
    use serde_json::json;

    /// A conversation of `(id, role, text)` messages, as the items show it.
    fn showing(state: &mut ChatState, messages: &[(&str, &str, &str)]) {
        let messages: Vec<Value> = messages
            .iter()
            .map(|(id, role, text)| json!({"id": id, "role": role, "content": text}))
            .collect();
        reduce(state, Input::ItemsReplaced(restored(&messages)));
    }

    fn ids(state: &ChatState) -> Vec<&str> {
        state.items().iter().map(|i| i.entry.id.as_str()).collect()
    }

    /// What a run sends now: the ids of its messages.
    fn sent(state: &ChatState, conversation: &Conversation) -> Vec<String> {
        request(state, conversation, RunSetup::default())
            .messages
            .iter()
            .map(|m| match m {
                Message::User { id, .. } | Message::Assistant { id, .. } => id.clone(),
                other => format!("{other:?}"),
            })
            .collect()
    }

    fn settled(state: &mut ChatState, conversation: &mut Conversation) {
        let marks = settle(state, conversation);
        reduce(state, Input::BranchesMarked(marks));
    }

    fn branches_of<'a>(state: &'a ChatState, id: &str) -> Vec<&'a str> {
        let item = state.items().iter().find(|i| i.entry.id.0 == id).unwrap();
        item.entry.branches.iter().map(|b| b.as_str()).collect()
    }

    const TWO_TURNS: [(&str, &str, &str); 4] = [
        ("u1", "user", "q1"),
        ("a1", "assistant", "answer 1"),
        ("u2", "user", "q2"),
        ("a2", "assistant", "answer 2"),
    ];

    #[test]
    fn an_edit_keeps_the_old_branch_and_the_run_is_sent_the_branch_shown() {
        let (mut state, mut c) = (ChatState::new(), Conversation::new("t".into()));
        showing(&mut state, &TWO_TURNS);
        assert!(fork(&state, &mut c, 2));
        // The edit and its answer replace the old branch in the items.
        showing(
            &mut state,
            &[
                TWO_TURNS[0],
                TWO_TURNS[1],
                ("u2b", "user", "q2, again"),
                ("a2b", "assistant", "b"),
            ],
        );
        settled(&mut state, &mut c);
        assert_eq!(branches_of(&state, "u2b"), ["u2", "u2b"]);
        assert_eq!(sent(&state, &c), ["u1", "a1", "u2b", "a2b"]);

        // Back to the first branch: its messages come back, the second is kept.
        let entries = switch(&state, &mut c, &"u2".into()).unwrap();
        reduce(&mut state, Input::ItemsReplaced(entries));
        settled(&mut state, &mut c);
        assert_eq!(ids(&state), ["u1", "a1", "u2", "a2"]);
        assert_eq!(branches_of(&state, "u2"), ["u2", "u2b"]);
        assert_eq!(sent(&state, &c), ["u1", "a1", "u2", "a2"]);
        assert!(c.forks[0].kept.contains_key("u2b"));
        assert!(
            switch(&state, &mut c, &"u2".into()).is_none(),
            "already shown"
        );
    }

    #[test]
    fn regenerating_forks_after_the_message_and_nested_forks_come_back_with_their_branch() {
        let (mut state, mut c) = (ChatState::new(), Conversation::new("t".into()));
        showing(&mut state, &TWO_TURNS);
        fork(&state, &mut c, 2);
        showing(
            &mut state,
            &[TWO_TURNS[0], TWO_TURNS[1], ("u2b", "user", "q2, again")],
        );
        settled(&mut state, &mut c);
        // The first answer regenerated: everything after q1 is kept as one branch.
        assert!(fork(&state, &mut c, 1));
        showing(
            &mut state,
            &[TWO_TURNS[0], ("a1b", "assistant", "answer 1, again")],
        );
        settled(&mut state, &mut c);
        assert_eq!(branches_of(&state, "a1b"), ["a1", "a1b"]);

        let entries = switch(&state, &mut c, &"a1".into()).unwrap();
        reduce(&mut state, Input::ItemsReplaced(entries));
        settled(&mut state, &mut c);
        assert_eq!(ids(&state), ["u1", "a1", "u2b"]);
        assert_eq!(branches_of(&state, "a1"), ["a1", "a1b"]);
        // The edit's fork, inside that branch, shows again.
        assert_eq!(branches_of(&state, "u2b"), ["u2", "u2b"]);
        let entries = switch(&state, &mut c, &"u2".into()).unwrap();
        reduce(&mut state, Input::ItemsReplaced(entries));
        assert_eq!(ids(&state), ["u1", "a1", "u2", "a2"]);
    }

    #[test]
    fn the_first_message_forks_at_the_start_and_forks_are_kept_with_the_conversation() {
        let (mut state, mut c) = (ChatState::new(), Conversation::new("t".into()));
        showing(&mut state, &TWO_TURNS);
        assert!(!fork(&state, &mut c, 9), "nothing there");
        assert!(fork(&state, &mut c, 0));
        assert_eq!(c.forks[0].after, None);
        showing(&mut state, &[("u0", "user", "q0")]);
        settled(&mut state, &mut c);
        assert_eq!(branches_of(&state, "u0"), ["u1", "u0"]);
        let kept = serde_json::to_value(&c).unwrap();
        let back = Conversation::decode(&kept).unwrap();
        assert_eq!(back, c);
        let entries = switch(&state, &mut { back }, &"u1".into()).unwrap();
        assert_eq!(entries.len(), 4);
    }
}
