//! Statements more than one file runs, written once, and what their rows become: the
//! branch tree's (below) and the end of a deleted thread's agent sessions.
//!
//! A thread as a tree of branches: each item keeps its `parent` (the item before it on its
//! branch), and the thread keeps its `leaf`, the last item of the branch shown. An edited
//! message starts a branch beside the original; an answer regenerated starts one beside
//! the old answer; selecting a branch moves the leaf to that branch's newest item.
//!
//! A thread that never branched has no leaf (`NULL`): its items are all of it, in `seq`
//! order, read as before. Its items still get their parent as they are saved (the item
//! last in `seq`), and rows older than parents are given theirs when the thread first
//! branches. An empty leaf (`''`) is a branched thread whose branch shown is empty for a
//! moment: its first message is being edited.
//!
//! The statements are written once with SQLite's `?N` placeholders; PostgreSQL gets them
//! through [`pg_sql`].

use chat_shell_core::protocol::chatkit::{ItemId, ListOrder, ThreadItem};

/// Ends the sessions of a deleted thread (`?1`/`$1` the thread, `?2`/`$2` its owner).
pub(super) const END_SQLITE: &str =
    "UPDATE agent_sessions SET thread_id = NULL, ended = 1 WHERE thread_id = ?1 AND owner = ?2";
pub(super) const END_PG: &str =
    "UPDATE agent_sessions SET thread_id = NULL, ended = true WHERE thread_id = $1 AND owner = $2";

/// Inserts a new item below the leaf (below the last item where the thread never
/// branched): `?1` id, `?2` thread, `?3` created_at, `?4` json, `?5` owner. Its `seq` is one
/// more than the thread's largest, found through the `(thread_id, seq)` index.
pub(super) const INSERT_ITEM: &str = "
INSERT INTO items (id, thread_id, owner, seq, created_at, json, parent)
SELECT ?1, ?2, ?5,
       (SELECT COALESCE(MAX(seq), 0) + 1 FROM items WHERE thread_id = ?2),
       ?3, ?4,
       CASE WHEN t.leaf IS NULL
            THEN (SELECT id FROM items WHERE thread_id = ?2 ORDER BY seq DESC LIMIT 1)
            ELSE NULLIF(t.leaf, '') END
FROM threads t WHERE t.id = ?2 AND t.owner = ?5";

/// The ids of the branch shown, from its leaf up (`?1` thread, `?2` owner).
pub(super) const PATH: &str = "
WITH RECURSIVE path(id) AS (
    SELECT leaf FROM threads WHERE id = ?1 AND owner = ?2 AND leaf <> ''
    UNION ALL
    SELECT i.parent FROM items i JOIN path p ON i.thread_id = ?1 AND i.id = p.id
    WHERE i.parent IS NOT NULL
)";

/// Every item at or below `?3` (`?1` thread, `?2` owner).
pub(super) const SUBTREE: &str = "
WITH RECURSIVE below(id) AS (
    SELECT id FROM items WHERE thread_id = ?1 AND owner = ?2 AND id = ?3
    UNION ALL
    SELECT i.id FROM items i JOIN below b ON i.thread_id = ?1 AND i.parent = b.id
)";

/// The item after `?3` on the branch shown (`?1` thread, `?2` owner), if any.
pub(super) const NEXT_SHOWN: &str = "
WITH RECURSIVE path(id) AS (
    SELECT leaf FROM threads WHERE id = ?1 AND owner = ?2 AND leaf <> ''
    UNION ALL
    SELECT i.parent FROM items i JOIN path p ON i.thread_id = ?1 AND i.id = p.id
    WHERE i.parent IS NOT NULL
)
SELECT i.id FROM items i JOIN path p ON i.thread_id = ?1 AND i.id = p.id WHERE i.parent = ?3";

/// Gives a thread that never branched its parents: each row without one gets the item
/// before it in `seq` (`?1` thread, `?2` owner). Only while the leaf is `NULL`.
pub(super) const GIVE_PARENTS: &str = "
UPDATE items SET parent = (
    SELECT p.id FROM items p WHERE p.thread_id = items.thread_id AND p.seq < items.seq
    ORDER BY p.seq DESC LIMIT 1
)
WHERE thread_id = ?1 AND owner = ?2 AND parent IS NULL
  AND (SELECT leaf FROM threads WHERE id = ?1) IS NULL";

/// The items that share a parent with another, by parent, oldest first (`?1` thread).
pub(super) const FORKS: &str = "
SELECT COALESCE(parent, ''), id FROM items
WHERE thread_id = ?1 AND COALESCE(parent, '') IN (
    SELECT COALESCE(parent, '') FROM items WHERE thread_id = ?1
    GROUP BY COALESCE(parent, '') HAVING COUNT(*) > 1
)
ORDER BY seq";

/// A statement with `?N` placeholders as PostgreSQL writes them (`$N`).
pub(super) fn pg_sql(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '?' && chars.peek().is_some_and(char::is_ascii_digit) {
            out.push('$');
        } else {
            out.push(c);
        }
    }
    out
}

/// The statement that reads the branch shown, a page at a time: `?1` thread, `?2` owner,
/// `?3` the cursor's seq (or NULL), `?4` how many.
pub(super) fn path_page_sql(order: ListOrder, pg: bool) -> String {
    let (cmp, dir) = match order {
        ListOrder::Desc => ("<", "DESC"),
        ListOrder::Asc => (">", "ASC"),
    };
    let cursor = if pg { "?3::BIGINT" } else { "?3" };
    let sql = format!(
        "{PATH}
        SELECT i.json FROM items i JOIN path p ON i.thread_id = ?1 AND i.id = p.id
        WHERE i.owner = ?2 AND ({cursor} IS NULL OR i.seq {cmp} {cursor})
        ORDER BY i.seq {dir} LIMIT ?4"
    );
    if pg {
        pg_sql(&sql)
    } else {
        sql
    }
}

/// Each item's branches, from the rows of [`FORKS`]: where an item shares its parent with
/// others, all of them, oldest first.
pub(super) fn mark(items: &mut [ThreadItem], forks: Vec<(String, String)>) {
    if forks.is_empty() {
        return;
    }
    let mut by_parent: std::collections::HashMap<String, Vec<ItemId>> = Default::default();
    let mut parent_of = std::collections::HashMap::new();
    for (parent, id) in forks {
        parent_of.insert(id.clone(), parent.clone());
        by_parent.entry(parent).or_default().push(ItemId(id));
    }
    for item in items {
        if let Some(parent) = parent_of.get(item.id.as_str()) {
            item.branches = by_parent[parent].clone();
        }
    }
}
