//! Branches on SQLite: saving into the tree, forking, showing a branch, deleting below
//! (the same on PostgreSQL is `pg::branches`; the model and its statements are in `sql`).

use super::sql::{mark, FORKS, GIVE_PARENTS, INSERT_ITEM, NEXT_SHOWN, SUBTREE};
use super::*;
use chat_shell_core::protocol::chatkit::{ItemId, ThreadId, ThreadItem};
use rusqlite::OptionalExtension;

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
