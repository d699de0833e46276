//! @-mentions in the composer: the entities a search offers (chatkit-js's shape, from the
//! host's `entities.onTagSearch` or the runtime's workspace files), where a mention sits in
//! the draft, and what a message with mentions sends (`input_tag` content).
//!
//! A mention is one unit of the draft: the text `@title` at a byte range. An edit that
//! touches that range removes the whole mention ([`edited`]); a draft changed in any other
//! way keeps only the mentions still in place ([`still_in`]).

use crate::protocol::chatkit::{InputTag, InputText, UserContent};
use serde_json::{Map, Value};
use std::ops::Range;

/// The most entities one search shows.
pub const MAX_RESULTS: usize = 50;
/// The longest query searched (characters after the `@`).
pub const MAX_QUERY: usize = 64;
/// The longest title kept (characters).
const MAX_TITLE: usize = 200;

/// Something a mention points at (chatkit-js's `Entity`).
#[derive(Clone, Debug, PartialEq)]
pub struct Entity {
    pub id: String,
    /// Shown as text, never as markup.
    pub title: String,
    pub group: Option<String>,
    pub interactive: bool,
    /// The host's data, sent back as is (always an object: the SDK refuses a tag without).
    pub data: Map<String, Value>,
}

/// The entities of a search's answer: an array of entities, or `{data: [...]}` (the
/// runtime's answer). Entries without an `id` or a `title` are left out; at most
/// [`MAX_RESULTS`].
pub fn entities(answer: &Value) -> Vec<Entity> {
    let list = answer
        .as_array()
        .or_else(|| answer.get("data").and_then(Value::as_array));
    let Some(list) = list else {
        return Vec::new();
    };
    list.iter()
        .filter_map(|e| {
            let id = e.get("id")?.as_str().filter(|s| !s.is_empty())?;
            let title: String = e.get("title")?.as_str()?.chars().take(MAX_TITLE).collect();
            if title.trim().is_empty() {
                return None;
            }
            Some(Entity {
                id: id.to_owned(),
                title,
                group: e.get("group").and_then(Value::as_str).map(str::to_owned),
                interactive: e
                    .get("interactive")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
                data: e
                    .get("data")
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_default(),
            })
        })
        .take(MAX_RESULTS)
        .collect()
}

/// A mention in the draft: `@title` at `range` (bytes).
#[derive(Clone, Debug, PartialEq)]
pub struct Mention {
    pub range: Range<usize>,
    pub entity: Entity,
}

impl Mention {
    fn text(&self) -> String {
        format!("@{}", self.entity.title)
    }
}

/// The mention being typed: the `@` at a word's start before `caret` (a byte offset) and
/// the query after it, up to the caret, without spaces. `None` when the caret is not in one,
/// or inside a mention already made.
pub fn query_at(draft: &str, caret: usize, mentions: &[Mention]) -> Option<(usize, String)> {
    let before = draft.get(..caret)?;
    let at = before.rfind('@')?;
    let query = &before[at + 1..];
    let starts_word = before[..at]
        .chars()
        .next_back()
        .is_none_or(char::is_whitespace);
    let inside = mentions
        .iter()
        .any(|m| m.range.start <= at && at < m.range.end);
    (starts_word
        && !inside
        && !query.chars().any(char::is_whitespace)
        && query.chars().count() <= MAX_QUERY)
        .then(|| (at, query.to_owned()))
}

/// Puts `entity` in place of the typed `@query` (`start..caret`), followed by a space.
/// Returns the new draft and where the caret goes (bytes).
pub fn insert(
    draft: &str,
    mentions: &mut Vec<Mention>,
    start: usize,
    caret: usize,
    entity: Entity,
) -> (String, usize) {
    let (start, caret) = (start.min(draft.len()), caret.min(draft.len()).max(start));
    let mention = format!("@{}", entity.title);
    let mut out = String::with_capacity(draft.len() + mention.len() + 1);
    out.push_str(&draft[..start]);
    out.push_str(&mention);
    out.push(' ');
    out.push_str(&draft[caret..]);
    let shift = (mention.len() + 1) as isize - (caret - start) as isize;
    for m in mentions.iter_mut().filter(|m| m.range.start >= caret) {
        m.range = shifted(&m.range, shift);
    }
    let range = start..start + mention.len();
    mentions.push(Mention { range, entity });
    mentions.sort_by_key(|m| m.range.start);
    (out, start + mention.len() + 1)
}

fn shifted(r: &Range<usize>, by: isize) -> Range<usize> {
    (r.start as isize + by) as usize..(r.end as isize + by) as usize
}

/// The draft went from `old` to `new` by the user's edit: mentions after the edit move with
/// it; one the edit touched goes, and all of its text with it. Returns the draft to show
/// and its caret (bytes) when that removal changed it.
pub fn edited(mentions: &mut Vec<Mention>, old: &str, new: &str) -> Option<(String, usize)> {
    if mentions.is_empty() || old == new {
        return None;
    }
    // The edit: old[prefix..old_end] became new[prefix..new_end].
    let prefix = common_prefix(old, new);
    let suffix = common_suffix(&old[prefix..], &new[prefix..]);
    let (old_end, new_end) = (old.len() - suffix, new.len() - suffix);
    let shift = new_end as isize - old_end as isize;
    let mut broken = Vec::new();
    mentions.retain_mut(|m| {
        if m.range.end <= prefix {
            // Before the edit, unless what was typed right after it joins its name.
            let joins = m.range.end == prefix && new_end > prefix && insertion_joins(new, prefix);
            if joins {
                broken.push(m.clone());
            }
            !joins
        } else if m.range.start >= old_end {
            m.range = shifted(&m.range, shift);
            true
        } else {
            broken.push(m.clone());
            false
        }
    });
    if broken.is_empty() {
        return None;
    }
    // What is left of each broken mention in `new` goes too: its part before the edit and
    // its part after it (byte ranges of `new`).
    let mut cuts: Vec<Range<usize>> = Vec::new();
    for m in &broken {
        if m.range.start < prefix {
            cuts.push(m.range.start..prefix.min(m.range.end));
        }
        if m.range.end > old_end {
            let from = (m.range.start.max(old_end) as isize + shift) as usize;
            let to = (m.range.end as isize + shift) as usize;
            cuts.push(from..to);
        }
    }
    cuts.sort_by_key(|r| r.start);
    cuts.retain(|c| new.is_char_boundary(c.start) && new.is_char_boundary(c.end));
    let removed_before = |at: usize| -> usize {
        cuts.iter()
            .map(|c| c.end.min(at).saturating_sub(c.start))
            .sum()
    };
    for m in mentions.iter_mut() {
        let by = removed_before(m.range.start);
        m.range = m.range.start - by..m.range.end - by;
    }
    let mut out = String::with_capacity(new.len());
    let mut at = 0;
    for cut in &cuts {
        if cut.start < at {
            continue;
        }
        out.push_str(&new[at..cut.start]);
        at = cut.end;
    }
    out.push_str(&new[at..]);
    Some((out, new_end - removed_before(new_end)))
}

/// Whether the character inserted at `at` is a word character, which would join the
/// mention before it (typing `x` right after `@main.rs`).
fn insertion_joins(new: &str, at: usize) -> bool {
    new[at..]
        .chars()
        .next()
        .is_some_and(|c| !c.is_whitespace() && !c.is_ascii_punctuation())
}

fn common_prefix(a: &str, b: &str) -> usize {
    let mut n = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    while !a.is_char_boundary(n) || !b.is_char_boundary(n) {
        n -= 1;
    }
    n
}

fn common_suffix(a: &str, b: &str) -> usize {
    let mut n = a
        .bytes()
        .rev()
        .zip(b.bytes().rev())
        .take_while(|(x, y)| x == y)
        .count();
    while !a.is_char_boundary(a.len() - n) || !b.is_char_boundary(b.len() - n) {
        n -= 1;
    }
    n
}

/// The mentions still in place in `draft` (one set in any other way: restored, cleared).
pub fn still_in(mentions: &mut Vec<Mention>, draft: &str) {
    mentions.retain(|m| draft.get(m.range.clone()) == Some(m.text().as_str()));
}

/// A message's content: its text, cut around its mentions, each an `input_tag`.
pub fn content(draft: &str, mentions: &[Mention]) -> Vec<UserContent> {
    let mut out = Vec::new();
    let mut at = 0;
    let mut sorted: Vec<&Mention> = mentions.iter().collect();
    sorted.sort_by_key(|m| m.range.start);
    for m in sorted {
        if m.range.start < at || draft.get(m.range.clone()) != Some(m.text().as_str()) {
            continue;
        }
        if m.range.start > at {
            out.push(UserContent::InputText(InputText {
                text: draft[at..m.range.start].to_owned(),
            }));
        }
        out.push(UserContent::InputTag(InputTag {
            id: m.entity.id.clone(),
            text: m.entity.title.clone(),
            data: m.entity.data.clone(),
            group: m.entity.group.clone(),
            interactive: m.entity.interactive,
        }));
        at = m.range.end;
    }
    if at < draft.len() || out.is_empty() {
        out.push(UserContent::InputText(InputText {
            text: draft[at..].to_owned(),
        }));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn entity(title: &str) -> Entity {
        Entity {
            id: format!("file:{title}"),
            title: title.to_owned(),
            group: None,
            interactive: false,
            data: json!({"path": title}).as_object().unwrap().clone(),
        }
    }

    #[test]
    fn entities_are_checked() {
        let answer = json!([
            {"id": "a", "title": "<b>Ann</b>", "group": "People", "data": {"k": 1}},
            {"id": "", "title": "no id"},
            {"id": "c", "title": "  "},
            {"id": "d", "title": "No data", "interactive": true},
            "junk"
        ]);
        let list = entities(&answer);
        assert_eq!(list.len(), 2);
        assert_eq!(list[0].title, "<b>Ann</b>");
        assert_eq!(list[0].group.as_deref(), Some("People"));
        assert!(list[1].data.is_empty() && list[1].interactive);
        assert_eq!(
            entities(&json!({"data": [{"id": "x", "title": "X"}]})).len(),
            1
        );
        assert!(entities(&json!({"nope": 1})).is_empty());
        let many: Vec<Value> = (0..80)
            .map(|i| json!({"id": i.to_string(), "title": "t"}))
            .collect();
        assert_eq!(entities(&Value::Array(many)).len(), MAX_RESULTS);
    }

    #[test]
    fn the_query_is_an_at_sign_at_a_word_start() {
        assert_eq!(query_at("see @ma", 7, &[]), Some((4, "ma".into())));
        assert_eq!(query_at("@", 1, &[]), Some((0, String::new())));
        assert_eq!(query_at("mail a@b", 8, &[]), None);
        assert_eq!(query_at("see @ma x", 9, &[]), None);
        assert_eq!(query_at("see @ma", 5, &[]), Some((4, String::new())));
    }

    #[test]
    fn insert_then_send_as_input_tags() {
        let mut mentions = Vec::new();
        let (draft, caret) = insert("look at @ma now", &mut mentions, 8, 11, entity("main.rs"));
        assert_eq!(draft, "look at @main.rs  now");
        assert_eq!(caret, 17);
        assert_eq!(&draft[mentions[0].range.clone()], "@main.rs");
        let content = content(&draft, &mentions);
        assert_eq!(content.len(), 3);
        match &content[1] {
            UserContent::InputTag(t) => {
                assert_eq!(
                    (t.id.as_str(), t.text.as_str()),
                    ("file:main.rs", "main.rs")
                );
                assert_eq!(t.data["path"], "main.rs");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_edit_inside_a_mention_removes_all_of_it() {
        let mut mentions = Vec::new();
        let (draft, _) = insert("a @x b", &mut mentions, 2, 4, entity("main.rs"));
        assert_eq!(draft, "a @main.rs  b");
        // Backspace at the mention's end.
        let typed = "a @main.r  b";
        let (fixed, caret) = edited(&mut mentions, &draft, typed).unwrap();
        assert_eq!((fixed.as_str(), caret), ("a   b", 2));
        assert!(mentions.is_empty());
        // Typing before and after it keeps it, moved.
        let mut mentions = Vec::new();
        let (draft, _) = insert("@x", &mut mentions, 0, 2, entity("lib.rs"));
        assert_eq!(edited(&mut mentions, &draft, &format!("hi {draft}")), None);
        assert_eq!(mentions[0].range, 3..10);
        let draft = format!("hi {draft}");
        assert_eq!(edited(&mut mentions, &draft, &format!("{draft}ok")), None);
        assert_eq!(mentions.len(), 1);
        // A letter typed right after the name would join it: the mention goes.
        let mut mentions = Vec::new();
        let (draft, _) = insert("@x", &mut mentions, 0, 2, entity("lib.rs"));
        let joined = "@lib.rsx ";
        let (fixed, _) = edited(&mut mentions, draft.trim_end(), joined.trim_end()).unwrap();
        assert_eq!(fixed, "x");
    }

    #[test]
    fn a_draft_set_elsewhere_keeps_only_mentions_in_place() {
        let mut mentions = Vec::new();
        let (draft, _) = insert("@x", &mut mentions, 0, 2, entity("a.rs"));
        still_in(&mut mentions, &draft);
        assert_eq!(mentions.len(), 1);
        still_in(&mut mentions, "");
        assert!(mentions.is_empty());
    }

    proptest! {
        /// Random edits (insertions and deletions anywhere) never leave a mention whose
        /// range does not hold `@title`, and the content's text is the draft's.
        #[test]
        fn mentions_stay_whole(
            base in "[a-z @é]{0,20}",
            edits in proptest::collection::vec((0usize..40, 0usize..4, "[a-z @é]{0,3}"), 1..12),
        ) {
            let mut mentions = Vec::new();
            let (mut draft, _) = insert(&base, &mut mentions, 0, 0, entity("mé.rs"));
            for (at, del, ins) in edits {
                let mut at = at.min(draft.len());
                while !draft.is_char_boundary(at) { at -= 1; }
                let mut end = (at + del).min(draft.len());
                while !draft.is_char_boundary(end) { end += 1; }
                let new = format!("{}{}{}", &draft[..at], ins, &draft[end..]);
                draft = match edited(&mut mentions, &draft, &new) {
                    Some((fixed, caret)) => {
                        prop_assert!(caret <= fixed.len() && fixed.is_char_boundary(caret));
                        fixed
                    }
                    None => new,
                };
                for m in &mentions {
                    let text = m.text();
                    prop_assert_eq!(draft.get(m.range.clone()), Some(text.as_str()));
                }
            }
            let text: String = content(&draft, &mentions)
                .iter()
                .map(|c| match c {
                    UserContent::InputText(t) => t.text.clone(),
                    UserContent::InputTag(t) => format!("@{}", t.text),
                    _ => String::new(),
                })
                .collect();
            prop_assert_eq!(text, draft);
        }
    }
}
