//! Branches on PostgreSQL: what `branches` does on SQLite, with the same statements
//! (`sql`, through `pg_sql`); the thread's row is locked where two instances could race.

use crate::store::error::Result;
use crate::store::rows::to_json;
use crate::store::sql::{mark, pg_sql, FORKS, GIVE_PARENTS, NEXT_SHOWN, SUBTREE};
use chat_shell_core::protocol::chatkit::{ItemId, ThreadId, ThreadItem};
use postgres::GenericClient;

pub(super) fn leaf(
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
pub(super) fn save_item(
    c: &mut postgres::Client,
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

pub(super) fn mark_branches(
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
pub(super) fn show(
    c: &mut postgres::Client,
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

pub(super) fn delete_below(
    c: &mut postgres::Client,
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

pub(super) fn unlink(
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
