//! Find in the conversation: the loaded items whose text holds what the reader typed.
//!
//! A long thread mounts only a window of its items (`window`), so the browser's
//! find-in-page sees only those; this searches every loaded item in the state, and the
//! view moves the window to the match the reader steps to. Matching ignores case
//! (Unicode lower case) and looks in the text as it arrived (markdown source for
//! answers), which holds every word the rendered answer shows.

use crate::model::EntryKind;
use crate::protocol::chatkit::ItemId;
use crate::reducer::{assistant_text, ChatState, EntryState};
use std::borrow::Cow;

/// The text of an item that find looks in: what the user sent, the answer, a tool call's
/// title, a plan, thoughts. `None` for items without text of their own (widgets, images,
/// turn ends).
pub fn item_text(item: &EntryState) -> Option<Cow<'_, str>> {
    match &item.entry.kind {
        EntryKind::UserMessage(m) => Some(Cow::Owned(m.text())),
        EntryKind::AssistantText(m) => match m.content.as_slice() {
            [one] => Some(Cow::Borrowed(one.text.as_str())),
            _ => assistant_text(item).map(Cow::Owned),
        },
        EntryKind::ToolCall(t) => Some(Cow::Borrowed(t.tool_call.title.as_str())),
        EntryKind::Thought(t) => Some(Cow::Borrowed(t.text.as_str())),
        EntryKind::Plan(p) => Some(Cow::Owned(
            p.entries
                .iter()
                .map(|e| e.content.as_str())
                .collect::<Vec<_>>()
                .join("\n"),
        )),
        _ => None,
    }
}

/// The items (shown ones, in thread order) whose text holds `query`, ignoring case. A
/// query of only white space finds nothing.
pub fn find(state: &ChatState, query: &str) -> Vec<ItemId> {
    let query = query.trim();
    if query.is_empty() {
        return Vec::new();
    }
    let needle = query.to_lowercase();
    state
        .visible_items()
        .filter(|item| {
            item_text(item).is_some_and(|text| {
                // Most texts are ASCII: no lower-cased copy unless one is needed.
                if text.is_ascii() && needle.is_ascii() {
                    contains_ascii_ignoring_case(&text, &needle)
                } else {
                    text.to_lowercase().contains(&needle)
                }
            })
        })
        .map(|item| item.entry.id.clone())
        .collect()
}

/// `haystack` holds `needle` (already lower case), ASCII letters compared without case.
fn contains_ascii_ignoring_case(haystack: &str, needle: &str) -> bool {
    let (h, n) = (haystack.as_bytes(), needle.as_bytes());
    n.len() <= h.len()
        && h.windows(n.len())
            .any(|w| w.iter().zip(n).all(|(a, b)| a.to_ascii_lowercase() == *b))
}

/// The match after (`forward`) or before `current` among `count` matches, wrapping
/// around; the first (or last) when there is no current one.
pub fn step(current: Option<usize>, count: usize, forward: bool) -> Option<usize> {
    if count == 0 {
        return None;
    }
    Some(match (current, forward) {
        (None, true) => 0,
        (None, false) => count - 1,
        (Some(i), true) => (i + 1) % count,
        (Some(i), false) => (i + count - 1) % count,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    use crate::test_threads::{answer, loaded, user};

    fn thread(items: Vec<serde_json::Value>) -> ChatState {
        loaded("t", items)
    }

    fn ids(found: Vec<ItemId>) -> Vec<String> {
        found.into_iter().map(|i| i.to_string()).collect()
    }

    #[test]
    fn finds_every_item_holding_the_query_in_order_ignoring_case() {
        let state = thread(vec![
            user("u1", "How do I parse TOML?"),
            answer("a1", "Use the `toml` crate: **toml::from_str**."),
            user("u2", "And JSON?"),
            answer("a2", "serde_json, the same way."),
            user("u3", "Straße und Fluß"),
        ]);
        assert_eq!(ids(find(&state, "toml")), ["u1", "a1"]);
        assert_eq!(ids(find(&state, "  JSON ")), ["u2", "a2"]);
        assert_eq!(ids(find(&state, "STRASSE")), Vec::<String>::new());
        assert_eq!(ids(find(&state, "STRAßE")), ["u3"]);
        assert_eq!(ids(find(&state, "fluß")), ["u3"]);
        assert!(find(&state, " \n").is_empty());
        assert!(find(&state, "yaml").is_empty());
    }

    #[test]
    fn ghost_messages_are_not_found() {
        let mut ghost = user("u2", "secret steering text");
        ghost["inference_options"] = json!({ crate::model::GHOST_OPTION: true });
        let state = thread(vec![user("u1", "hello"), ghost]);
        assert!(find(&state, "steering").is_empty());
        assert_eq!(ids(find(&state, "hello")), ["u1"]);
    }

    #[test]
    fn steps_wrap_around_both_ways() {
        assert_eq!(step(None, 0, true), None);
        assert_eq!(step(None, 3, true), Some(0));
        assert_eq!(step(None, 3, false), Some(2));
        assert_eq!(step(Some(2), 3, true), Some(0));
        assert_eq!(step(Some(0), 3, false), Some(2));
        assert_eq!(step(Some(1), 3, true), Some(2));
    }

    proptest! {
        // The ASCII fast path agrees with lower-casing both sides, on any text.
        #[test]
        fn the_ascii_path_agrees_with_lower_casing(hay in "[ -~]{0,40}", needle in "[ -~]{1,4}") {
            let lower = needle.to_lowercase();
            prop_assert_eq!(
                contains_ascii_ignoring_case(&hay, &lower),
                hay.to_lowercase().contains(&lower)
            );
        }
    }
}
