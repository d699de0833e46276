//! The session states the bridge keeps ([`Held`], by session id), each with its owner:
//! bounded per owner, so that one identity's sessions only ever push out its own.
//!
//! An owner past [`MAX_PER_OWNER`] loses its least recently used state. Past
//! [`MAX_SESSIONS`] in all (many owners at once), the owner holding the most loses its
//! least recently used one: nobody loses a state while another owner holds more.

use super::session::Held;
use std::collections::HashMap;

/// One owner's states are at most this many.
pub const MAX_PER_OWNER: usize = 32;
/// All owners' states are at most this many.
pub const MAX_SESSIONS: usize = 4096;

struct Entry {
    owner: String,
    /// When it was last kept or changed (a counter).
    used: u64,
    held: Held,
}

/// The states, by session id.
#[derive(Default)]
pub(crate) struct HeldSessions {
    entries: HashMap<String, Entry>,
    /// How many states each owner has.
    counts: HashMap<String, usize>,
    clock: u64,
}

impl HeldSessions {
    pub fn get(&self, session: &str) -> Option<&Held> {
        self.entries.get(session).map(|e| &e.held)
    }

    pub fn contains(&self, session: &str) -> bool {
        self.entries.contains_key(session)
    }

    /// The state of `session`, counted as used.
    pub fn get_mut(&mut self, session: &str) -> Option<&mut Held> {
        self.clock += 1;
        let entry = self.entries.get_mut(session)?;
        entry.used = self.clock;
        Some(&mut entry.held)
    }

    /// Keeps `held` as `owner`'s state of `session`, making room within the bounds first.
    pub fn insert(&mut self, owner: &str, session: &str, held: Held) {
        self.remove(session);
        if self.counts.get(owner).copied().unwrap_or(0) >= MAX_PER_OWNER {
            self.evict(owner);
        } else if self.entries.len() >= MAX_SESSIONS {
            let fullest = self
                .counts
                .iter()
                .max_by_key(|(o, n)| (**n, o.as_str() == owner))
                .map(|(o, _)| o.clone());
            if let Some(fullest) = fullest {
                self.evict(&fullest);
            }
        }
        self.clock += 1;
        *self.counts.entry(owner.to_owned()).or_default() += 1;
        self.entries.insert(
            session.to_owned(),
            Entry {
                owner: owner.to_owned(),
                used: self.clock,
                held,
            },
        );
    }

    /// Forgets `session`'s state.
    pub fn remove(&mut self, session: &str) -> Option<Held> {
        let entry = self.entries.remove(session)?;
        if let Some(n) = self.counts.get_mut(&entry.owner) {
            *n -= 1;
            if *n == 0 {
                self.counts.remove(&entry.owner);
            }
        }
        Some(entry.held)
    }

    /// Forgets `owner`'s least recently used state.
    fn evict(&mut self, owner: &str) {
        let oldest = self
            .entries
            .iter()
            .filter(|(_, e)| e.owner == owner)
            .min_by_key(|(_, e)| e.used)
            .map(|(id, _)| id.clone());
        if let Some(id) = oldest {
            self.remove(&id);
        }
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.entries.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_owner_over_its_bound_loses_only_its_own_oldest_state() {
        let mut all = HeldSessions::default();
        all.insert("victim", "v1", Held::default());
        for i in 0..MAX_PER_OWNER * 3 {
            all.insert("flood", &format!("f{i}"), Held::default());
            // The victim uses its state now and then; the flood never reaches it.
            if i % 7 == 0 {
                assert!(all.get_mut("v1").is_some());
            }
        }
        assert!(all.contains("v1"));
        assert_eq!(all.len(), 1 + MAX_PER_OWNER);
        // The flood kept its newest.
        assert!(all.contains(&format!("f{}", MAX_PER_OWNER * 3 - 1)));
        assert!(!all.contains("f0"));
        // A used state outlives an older, unused one of the same owner.
        let mut mine = HeldSessions::default();
        for i in 0..MAX_PER_OWNER {
            mine.insert("me", &format!("s{i}"), Held::default());
        }
        mine.get_mut("s0");
        mine.insert("me", "new", Held::default());
        assert!(mine.contains("s0") && !mine.contains("s1"));
    }

    #[test]
    fn past_the_overall_bound_the_fullest_owner_gives_way() {
        let mut all = HeldSessions::default();
        let owners = MAX_SESSIONS / MAX_PER_OWNER;
        for o in 0..owners {
            for i in 0..MAX_PER_OWNER {
                all.insert(&format!("o{o}"), &format!("o{o}-{i}"), Held::default());
            }
        }
        all.remove("o0-0");
        all.insert("small", "s0", Held::default());
        assert_eq!(all.len(), MAX_SESSIONS);
        // A newcomer with one state: an owner holding the most gave one up, not o0.
        all.insert("small", "s1", Held::default());
        assert_eq!(all.len(), MAX_SESSIONS);
        assert_eq!(all.counts["o0"], MAX_PER_OWNER - 1);
        assert!(all.contains("s0") && all.contains("s1"));
        // Re-keeping a session does not count it twice.
        all.insert("small", "s1", Held::default());
        assert_eq!(all.counts["small"], 2);
    }
}
