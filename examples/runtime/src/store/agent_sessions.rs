//! Whose each ACP agent session is (`agent_sessions`, keyed by the agent's session id): the
//! identity that created it (or first opened it), the thread holding it, and whether that
//! thread was deleted, which ends the session for everyone.
//!
//! A claim is one statement, so two identities opening one session at once cannot both
//! get it; every lookup goes through the primary key.

use super::*;
use chat_shell_core::protocol::chatkit::ThreadId;
use rusqlite::{params, params_from_iter};
use std::collections::HashMap;

/// Records a session the agent has just created (`session/new`): the id names that new
/// session now, whatever it named before (an agent restarted may number its sessions anew).
const RECORD_SQLITE: &str = "
INSERT INTO agent_sessions (id, owner, thread_id, ended) VALUES (?1, ?2, ?3, 0)
ON CONFLICT (id) DO UPDATE SET owner = excluded.owner, thread_id = excluded.thread_id, ended = 0";
const RECORD_PG: &str = "
INSERT INTO agent_sessions (id, owner, thread_id, ended) VALUES ($1, $2, $3, false)
ON CONFLICT (id) DO UPDATE SET owner = excluded.owner, thread_id = excluded.thread_id, ended = false";

/// Claims a session for a thread: taken if nobody holds it, or it is the owner's and held
/// by no thread or this one; anything else leaves it as it is.
const CLAIM_SQLITE: &str = "
INSERT INTO agent_sessions (id, owner, thread_id) VALUES (?1, ?2, ?3)
ON CONFLICT (id) DO UPDATE SET thread_id = excluded.thread_id
WHERE agent_sessions.owner = excluded.owner AND agent_sessions.ended = 0
  AND (agent_sessions.thread_id IS NULL OR agent_sessions.thread_id = excluded.thread_id)";
const CLAIM_PG: &str = "
INSERT INTO agent_sessions (id, owner, thread_id) VALUES ($1, $2, $3)
ON CONFLICT (id) DO UPDATE SET thread_id = excluded.thread_id
WHERE agent_sessions.owner = excluded.owner AND NOT agent_sessions.ended
  AND (agent_sessions.thread_id IS NULL OR agent_sessions.thread_id = excluded.thread_id)";

/// The records of some sessions, by their ids (a PostgreSQL array).
pub(super) const WHOSE_PG: &str =
    "SELECT id, owner, thread_id, ended FROM agent_sessions WHERE id = ANY($1)";

/// The records of `n` sessions, by their ids (`?`, one each).
pub(super) fn whose_sqlite(n: usize) -> String {
    let marks = vec!["?"; n].join(", ");
    format!("SELECT id, owner, thread_id, ended FROM agent_sessions WHERE id IN ({marks})")
}

/// How an agent session stands for one user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Whose {
    /// The user's, held by this thread or by none (a draft, or one whose opening failed).
    Mine(Option<ThreadId>),
    /// Nobody's: the runtime never recorded it (the agent had it before).
    Nobody,
    /// Another identity's, or ended with its thread: to this user, it does not exist.
    Unavailable,
}

impl UserStore<'_> {
    /// How each of `ids` stands for this user, in their order.
    pub fn whose_sessions(&self, ids: &[String]) -> Result<Vec<Whose>> {
        let mut found: HashMap<String, (Option<String>, Option<String>, bool)> = HashMap::new();
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        if let Some(pg) = self.store.pg() {
            let rows = pg.conn()?.query(WHOSE_PG, &[&ids])?;
            for row in rows {
                found.insert(row.get(0), (row.get(1), row.get(2), row.get(3)));
            }
        } else {
            let conn = self.conn();
            let mut stmt = conn.prepare(&whose_sqlite(ids.len()))?;
            let rows = stmt.query_map(params_from_iter(ids), |r| {
                Ok((r.get(0)?, (r.get(1)?, r.get(2)?, r.get(3)?)))
            })?;
            for row in rows {
                let (id, record) = row?;
                found.insert(id, record);
            }
        }
        Ok(ids
            .iter()
            .map(|id| match found.get(id) {
                None => Whose::Nobody,
                Some((Some(owner), thread, false)) if owner == self.owner => {
                    Whose::Mine(thread.clone().map(ThreadId))
                }
                Some(_) => Whose::Unavailable,
            })
            .collect())
    }

    /// Records `id`, just created by the agent for this user, as held by `thread` (or by
    /// none: a draft).
    pub fn record_session(&self, id: &str, thread: Option<&ThreadId>) -> Result<()> {
        let thread = thread.map(ThreadId::as_str);
        if let Some(pg) = self.store.pg() {
            pg.conn()?
                .execute(RECORD_PG, &[&id, &self.owner, &thread])?;
            return Ok(());
        }
        self.conn()
            .execute(RECORD_SQLITE, params![id, self.owner, thread])?;
        Ok(())
    }

    /// Claims `id` for this user's `thread`, atomically: true when it is now held by that
    /// thread (it was nobody's, or this user's and held by no other thread).
    pub fn claim_session(&self, id: &str, thread: &ThreadId) -> Result<bool> {
        let n = if let Some(pg) = self.store.pg() {
            pg.conn()?
                .execute(CLAIM_PG, &[&id, &self.owner, &thread.as_str()])? as usize
        } else {
            self.conn()
                .execute(CLAIM_SQLITE, params![id, self.owner, thread.as_str()])?
        };
        Ok(n > 0)
    }

    /// `thread` no longer holds `id` (the agent could not open it): the session stays
    /// this user's, held by no thread.
    pub fn release_session(&self, id: &str, thread: &ThreadId) -> Result<()> {
        if let Some(pg) = self.store.pg() {
            pg.conn()?.execute(
                "UPDATE agent_sessions SET thread_id = NULL
                 WHERE id = $1 AND owner = $2 AND thread_id = $3",
                &[&id, &self.owner, &thread.as_str()],
            )?;
            return Ok(());
        }
        self.conn().execute(
            "UPDATE agent_sessions SET thread_id = NULL
             WHERE id = ?1 AND owner = ?2 AND thread_id = ?3",
            params![id, self.owner, thread.as_str()],
        )?;
        Ok(())
    }
}
