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

use super::*;
use chat_shell_core::protocol::chatkit::{ItemId, ListOrder};
use rusqlite::OptionalExtension;

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
const PATH: &str = "
WITH RECURSIVE path(id) AS (
    SELECT leaf FROM threads WHERE id = ?1 AND owner = ?2 AND leaf <> ''
    UNION ALL
    SELECT i.parent FROM items i JOIN path p ON i.thread_id = ?1 AND i.id = p.id
    WHERE i.parent IS NOT NULL
)";

/// Every item at or below `?3` (`?1` thread, `?2` owner).
const SUBTREE: &str = "
WITH RECURSIVE below(id) AS (
    SELECT id FROM items WHERE thread_id = ?1 AND owner = ?2 AND id = ?3
    UNION ALL
    SELECT i.id FROM items i JOIN below b ON i.thread_id = ?1 AND i.parent = b.id
)";

/// The item after `?3` on the branch shown (`?1` thread, `?2` owner), if any.
const NEXT_SHOWN: &str = "
WITH RECURSIVE path(id) AS (
    SELECT leaf FROM threads WHERE id = ?1 AND owner = ?2 AND leaf <> ''
    UNION ALL
    SELECT i.parent FROM items i JOIN path p ON i.thread_id = ?1 AND i.id = p.id
    WHERE i.parent IS NOT NULL
)
SELECT i.id FROM items i JOIN path p ON i.thread_id = ?1 AND i.id = p.id WHERE i.parent = ?3";

/// Gives a thread that never branched its parents: each row without one gets the item
/// before it in `seq` (`?1` thread, `?2` owner). Only while the leaf is `NULL`.
const GIVE_PARENTS: &str = "
UPDATE items SET parent = (
    SELECT p.id FROM items p WHERE p.thread_id = items.thread_id AND p.seq < items.seq
    ORDER BY p.seq DESC LIMIT 1
)
WHERE thread_id = ?1 AND owner = ?2 AND parent IS NULL
  AND (SELECT leaf FROM threads WHERE id = ?1) IS NULL";

/// The items that share a parent with another, by parent, oldest first (`?1` thread).
const FORKS: &str = "
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
fn mark(items: &mut [ThreadItem], forks: Vec<(String, String)>) {
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

/// Where a new branch starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fork {
    /// Beside the item (an edit of a message): the next item saved is its sibling.
    Beside,
    /// Below the item (an answer regenerated): the next item saved is its child.
    Below,
}

impl Fork {
    /// What the leaf becomes (`?1` thread, `?2` owner, `?3` the item forked at): the item
    /// before it (`''` at the start), or the item itself.
    fn leaf_sql(self) -> &'static str {
        match self {
            Fork::Beside => {
                "SELECT COALESCE(parent, '') FROM items WHERE thread_id = ?1 AND owner = ?2 AND id = ?3"
            }
            Fork::Below => "SELECT id FROM items WHERE thread_id = ?1 AND owner = ?2 AND id = ?3",
        }
    }
}

/// The newest item at or below `?3` (`?1` thread, `?2` owner): the end of the newest branch
/// it starts (the newest item has no child).
fn newest_below() -> String {
    format!(
        "{SUBTREE} SELECT i.id FROM items i JOIN below b ON i.thread_id = ?1 AND i.id = b.id
         ORDER BY i.seq DESC LIMIT 1"
    )
}

impl UserStore<'_> {
    /// The thread's leaf: `None` for a thread that never branched (or is not the owner's).
    fn leaf_sqlite(conn: &Connection, thread: &ThreadId, owner: &str) -> Result<Option<String>> {
        Ok(conn
            .query_row(
                "SELECT leaf FROM threads WHERE id = ?1 AND owner = ?2",
                [thread.as_str(), owner],
                |r| r.get::<_, Option<String>>(0),
            )
            .optional()?
            .flatten())
    }

    /// Saves a new item or an item's new state. A new item goes on the branch shown (below
    /// the leaf, which then moves to it); an update keeps its place. Returns the item's
    /// branches (empty where it has none).
    pub(super) fn save_item_sqlite(&self, item: &ThreadItem) -> Result<Vec<ItemId>> {
        let thread_id = item
            .thread_id
            .as_ref()
            .map(|t| t.as_str())
            .unwrap_or_default();
        let conn = self.conn();
        let known = conn
            .prepare_cached("SELECT 1 FROM items WHERE thread_id = ?1 AND id = ?2")?
            .exists([thread_id, item.id.as_str()])?;
        if known {
            conn.execute(
                "UPDATE items SET json = ?3 WHERE thread_id = ?1 AND id = ?2 AND owner = ?4",
                params![thread_id, item.id.as_str(), to_json(item)?, self.owner],
            )?;
        } else {
            conn.execute(
                INSERT_ITEM,
                params![
                    item.id.as_str(),
                    thread_id,
                    item.created_at,
                    to_json(item)?,
                    self.owner
                ],
            )?;
            conn.execute(
                "UPDATE threads SET leaf = ?1 WHERE id = ?2 AND owner = ?3 AND leaf IS NOT NULL",
                [item.id.as_str(), thread_id, self.owner],
            )?;
        }
        let branched = Self::leaf_sqlite(&conn, &ThreadId(thread_id.to_owned()), self.owner)?;
        if branched.is_none() {
            return Ok(Vec::new());
        }
        let siblings: Vec<String> = conn
            .prepare_cached(
                "SELECT s.id FROM items s JOIN items i ON i.thread_id = ?1 AND i.id = ?2
                 WHERE s.thread_id = ?1 AND s.parent IS i.parent ORDER BY s.seq",
            )?
            .query_map([thread_id, item.id.as_str()], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        Ok(if siblings.len() > 1 {
            siblings.into_iter().map(ItemId).collect()
        } else {
            Vec::new()
        })
    }

    /// Whether the thread branched (its reads then follow the branch shown).
    pub(super) fn branched_sqlite(&self, conn: &Connection, thread: &ThreadId) -> Result<bool> {
        Ok(conn
            .query_row(
                "SELECT leaf IS NOT NULL FROM threads WHERE id = ?1 AND owner = ?2",
                [thread.as_str(), self.owner],
                |r| r.get::<_, bool>(0),
            )
            .optional()?
            .unwrap_or(false))
    }

    /// Marks the branches of `items` (of a branched thread).
    pub(super) fn mark_branches_sqlite(
        &self,
        conn: &Connection,
        thread: &ThreadId,
        items: &mut [ThreadItem],
    ) -> Result<()> {
        let forks = conn
            .prepare_cached(FORKS)?
            .query_map([thread.as_str()], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<Vec<(String, String)>>>()?;
        mark(items, forks);
        Ok(())
    }

    /// Starts a branch at `item` (`fork` says beside it or below it): the branch shown
    /// ends just before where the next item goes. `None`: no such item for this owner.
    pub fn fork(&self, thread: &ThreadId, item: &ItemId, fork: Fork) -> Result<Option<()>> {
        self.show(thread, item, fork.leaf_sql())
    }

    /// Shows the branch `item` starts: the leaf moves to its newest item (the newest item
    /// below `item` has no child, so it ends a branch). `None`: no such item.
    pub fn select_branch(&self, thread: &ThreadId, item: &ItemId) -> Result<Option<()>> {
        self.show(thread, item, &newest_below())
    }

    /// Moves the leaf to what `leaf_sql` finds for `item` (`?1` thread, `?2` owner, `?3`
    /// item), giving parents first to a thread that never branched.
    fn show(&self, thread: &ThreadId, item: &ItemId, leaf_sql: &str) -> Result<Option<()>> {
        if let Some(pg) = self.pg() {
            return pg.show(thread, item, leaf_sql);
        }
        let mut conn = self.conn();
        let tx = conn.transaction()?;
        let args = params![thread.as_str(), self.owner, item.as_str()];
        tx.execute(GIVE_PARENTS, &args[..2])?;
        let leaf: Option<String> = tx.query_row(leaf_sql, args, |r| r.get(0)).optional()?;
        let Some(leaf) = leaf else {
            return Ok(None);
        };
        tx.execute(
            "UPDATE threads SET leaf = ?3 WHERE id = ?1 AND owner = ?2",
            params![thread.as_str(), self.owner, leaf],
        )?;
        tx.commit()?;
        Ok(Some(()))
    }

    /// In a branched thread, deletes the branch shown after `item` (its next item there,
    /// with everything below it) and shows `item` as the end: `threads.retry_after_item`.
    /// Branches beside the one deleted stay. `None`: the thread never branched (the caller
    /// deletes by `seq`).
    pub(super) fn delete_below_sqlite(
        &self,
        conn: &mut Connection,
        thread: &ThreadId,
        item: &ItemId,
    ) -> Result<Option<usize>> {
        if !self.branched_sqlite(conn, thread)? {
            return Ok(None);
        }
        let tx = conn.transaction()?;
        let next: Option<String> = tx
            .query_row(
                NEXT_SHOWN,
                params![thread.as_str(), self.owner, item.as_str()],
                |r| r.get(0),
            )
            .optional()?;
        let n = match next {
            Some(next) => tx.execute(
                &format!(
                    "{SUBTREE} DELETE FROM items WHERE thread_id = ?1 AND owner = ?2
                     AND id IN (SELECT id FROM below)"
                ),
                params![thread.as_str(), self.owner, next],
            )?,
            None => 0,
        };
        tx.execute(
            "UPDATE threads SET leaf = ?3 WHERE id = ?1 AND owner = ?2",
            params![thread.as_str(), self.owner, item.as_str()],
        )?;
        tx.commit()?;
        Ok(Some(n))
    }

    /// Keeps the tree whole when `item` goes: its children take its parent, and a leaf on
    /// it moves to its parent. Before the row is deleted.
    pub(super) fn unlink_sqlite(
        &self,
        conn: &Connection,
        thread: &ThreadId,
        item: &ItemId,
    ) -> Result<()> {
        let args = params![thread.as_str(), self.owner, item.as_str()];
        conn.execute(
            "UPDATE items SET parent = (SELECT parent FROM items WHERE thread_id = ?1 AND id = ?3)
             WHERE thread_id = ?1 AND owner = ?2 AND parent = ?3",
            args,
        )?;
        conn.execute(
            "UPDATE threads SET leaf = COALESCE(
                 (SELECT parent FROM items WHERE thread_id = ?1 AND id = ?3), '')
             WHERE id = ?1 AND owner = ?2 AND leaf = ?3",
            args,
        )?;
        Ok(())
    }
}

/// The same on PostgreSQL.
pub(super) mod on_pg {
    use super::*;
    use postgres::GenericClient;

    pub(in crate::store) fn leaf(
        c: &mut impl GenericClient,
        thread: &ThreadId,
        owner: &str,
    ) -> Result<Option<String>> {
        Ok(c.query_opt(
            "SELECT leaf FROM threads WHERE id = $1 AND owner = $2",
            &[&thread.as_str(), &owner],
        )?
        .and_then(|r| r.get::<_, Option<String>>(0)))
    }

    /// See `save_item_sqlite`. The thread's row is locked from the read of its leaf to its
    /// move: two instances saving into one thread put their items one below the other.
    pub(in crate::store) fn save_item(
        c: &mut pg::Conn,
        owner: &str,
        item: &ThreadItem,
    ) -> Result<Vec<ItemId>> {
        let thread_id = item
            .thread_id
            .as_ref()
            .map(|t| t.as_str())
            .unwrap_or_default();
        let mut tx = c.transaction()?;
        let Some(row) = tx.query_opt(
            "SELECT leaf FROM threads WHERE id = $1 AND owner = $2 FOR UPDATE",
            &[&thread_id, &owner],
        )?
        else {
            return Ok(Vec::new());
        };
        let leaf: Option<String> = row.get(0);
        let inserted: bool = tx
            .query_opt(
                "INSERT INTO items (id, thread_id, owner, created_at, json, parent)
                 VALUES ($1, $2, $5, $3, $4,
                         CASE WHEN $6::TEXT IS NULL
                              THEN (SELECT id FROM items WHERE thread_id = $2 ORDER BY seq DESC LIMIT 1)
                              ELSE NULLIF($6::TEXT, '') END)
                 ON CONFLICT (thread_id, id) DO UPDATE SET json = excluded.json
                 WHERE items.owner = excluded.owner
                 RETURNING (xmax = 0)",
                &[
                    &item.id.as_str(),
                    &thread_id,
                    &item.created_at,
                    &to_json(item)?,
                    &owner,
                    &leaf,
                ],
            )?
            .is_some_and(|r| r.get(0));
        if inserted && leaf.is_some() {
            tx.execute(
                "UPDATE threads SET leaf = $1 WHERE id = $2",
                &[&item.id.as_str(), &thread_id],
            )?;
        }
        let siblings: Vec<String> = if leaf.is_some() {
            tx.query(
                "SELECT s.id FROM items s JOIN items i ON i.thread_id = $1 AND i.id = $2
                 WHERE s.thread_id = $1 AND s.parent IS NOT DISTINCT FROM i.parent ORDER BY s.seq",
                &[&thread_id, &item.id.as_str()],
            )?
            .iter()
            .map(|r| r.get(0))
            .collect()
        } else {
            Vec::new()
        };
        tx.commit()?;
        Ok(if siblings.len() > 1 {
            siblings.into_iter().map(ItemId).collect()
        } else {
            Vec::new()
        })
    }

    pub(in crate::store) fn mark_branches(
        c: &mut impl GenericClient,
        thread: &ThreadId,
        items: &mut [ThreadItem],
    ) -> Result<()> {
        let forks = c
            .query(&pg_sql(FORKS), &[&thread.as_str()])?
            .iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect();
        mark(items, forks);
        Ok(())
    }

    /// See `UserStore::show`. The thread's row is locked while its leaf moves.
    pub(in crate::store) fn show(
        c: &mut pg::Conn,
        owner: &str,
        thread: &ThreadId,
        item: &ItemId,
        leaf_sql: &str,
    ) -> Result<Option<()>> {
        let mut tx = c.transaction()?;
        let locked = tx.query_opt(
            "SELECT 1 FROM threads WHERE id = $1 AND owner = $2 FOR UPDATE",
            &[&thread.as_str(), &owner],
        )?;
        if locked.is_none() {
            return Ok(None);
        }
        tx.execute(&pg_sql(GIVE_PARENTS), &[&thread.as_str(), &owner])?;
        let Some(row) = tx.query_opt(
            &pg_sql(leaf_sql),
            &[&thread.as_str(), &owner, &item.as_str()],
        )?
        else {
            return Ok(None);
        };
        let leaf: String = row.get(0);
        tx.execute(
            "UPDATE threads SET leaf = $3 WHERE id = $1 AND owner = $2",
            &[&thread.as_str(), &owner, &leaf],
        )?;
        tx.commit()?;
        Ok(Some(()))
    }

    pub(in crate::store) fn delete_below(
        c: &mut pg::Conn,
        owner: &str,
        thread: &ThreadId,
        item: &ItemId,
    ) -> Result<Option<usize>> {
        let mut tx = c.transaction()?;
        if leaf(&mut tx, thread, owner)?.is_none() {
            return Ok(None);
        }
        let next: Option<String> = tx
            .query_opt(
                &pg_sql(NEXT_SHOWN),
                &[&thread.as_str(), &owner, &item.as_str()],
            )?
            .map(|r| r.get(0));
        let n = match next {
            Some(next) => tx.execute(
                &pg_sql(&format!(
                    "{SUBTREE} DELETE FROM items WHERE thread_id = ?1 AND owner = ?2
                     AND id IN (SELECT id FROM below)"
                )),
                &[&thread.as_str(), &owner, &next],
            )?,
            None => 0,
        };
        tx.execute(
            "UPDATE threads SET leaf = $3 WHERE id = $1 AND owner = $2",
            &[&thread.as_str(), &owner, &item.as_str()],
        )?;
        tx.commit()?;
        Ok(Some(n as usize))
    }

    pub(in crate::store) fn unlink(
        c: &mut impl GenericClient,
        owner: &str,
        thread: &ThreadId,
        item: &ItemId,
    ) -> Result<()> {
        let args: [&(dyn postgres::types::ToSql + Sync); 3] =
            [&thread.as_str(), &owner, &item.as_str()];
        c.execute(
            "UPDATE items SET parent = (SELECT parent FROM items WHERE thread_id = $1 AND id = $3)
             WHERE thread_id = $1 AND owner = $2 AND parent = $3",
            &args,
        )?;
        c.execute(
            "UPDATE threads SET leaf = COALESCE(
                 (SELECT parent FROM items WHERE thread_id = $1 AND id = $3), '')
             WHERE id = $1 AND owner = $2 AND leaf = $3",
            &args,
        )?;
        Ok(())
    }
}
