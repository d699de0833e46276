//! The team of agents (the Agent UI projection) as the runtime described it: the roster of
//! teammates with their status, the team's name and topology, each teammate's lineage and
//! the messages of its session.

/// The team of the current thread, as the runtime described it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Team {
    pub name: Option<String>,
    /// `coordinator_team`, `parallel_workers`, `specialist_handoff`, … as given.
    pub topology: Option<String>,
    /// In order of first appearance (the view sorts by status).
    pub members: Vec<Member>,
}

impl Team {
    /// The members by [`status_rank`], then in order of appearance.
    pub fn by_status(&self) -> Vec<&Member> {
        let mut members: Vec<&Member> = self.members.iter().collect();
        members.sort_by_key(|m| status_rank(m.status.as_deref()));
        members
    }

    pub fn member(&self, id: &str) -> Option<&Member> {
        self.members.iter().find(|m| m.id == id)
    }
}

/// One teammate.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Member {
    pub id: String,
    pub name: Option<String>,
    pub role: Option<String>,
    pub model: Option<String>,
    /// The runtime's word, as given (`running`, `needs_input`, `input_required`, …);
    /// `None` until it says one: shown as unknown.
    pub status: Option<String>,
    /// What the teammate said with its status ("Which release should I review?").
    pub message: Option<String>,
    pub remote: bool,
    pub session_id: Option<String>,
    pub parent_session_id: Option<String>,
    pub parent_thread_id: Option<String>,
    pub task_id: Option<String>,
    /// Messages of the teammate's own session (progressive hydration), oldest first,
    /// bounded to the last [`TRANSCRIPT_MAX`].
    pub transcript: Vec<TranscriptLine>,
    /// The session has older messages not loaded yet.
    pub transcript_has_more: bool,
}

impl Member {
    /// The name to show: its name, else its id.
    pub fn label(&self) -> &str {
        self.name.as_deref().unwrap_or(&self.id)
    }

    /// It waits on the user (needs input, input or auth required).
    pub fn needs_input(&self) -> bool {
        status_rank(self.status.as_deref()) == 0
    }
}

/// The roster's order: needs input > plan ready > failed > running > idle > done; a status
/// this client does not know sorts with running (it is work in progress as far as anyone
/// knows), a missing one last.
pub fn status_rank(status: Option<&str>) -> u8 {
    match status {
        Some("needs_input" | "input_required" | "auth_required" | "waiting_for_input") => 0,
        Some("plan_ready") => 1,
        Some("failed" | "killed" | "rejected" | "canceled" | "cancelled") => 2,
        Some("idle" | "sleeping" | "paused") => 4,
        Some("completed" | "done" | "closed") => 5,
        Some(_) => 3,
        None => 6,
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TranscriptLine {
    pub id: String,
    pub text: String,
}

/// How many messages of a teammate's session are kept (the recent window and the older
/// pages loaded on demand together).
pub const TRANSCRIPT_MAX: usize = 200;

/// An older page of a teammate's transcript, loaded on demand: the messages right before
/// message `before`, oldest first.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TranscriptPage {
    pub agent_id: String,
    pub before: String,
    pub lines: Vec<TranscriptLine>,
    /// The session has messages older still.
    pub has_more: Option<bool>,
}

/// A change to one teammate: only the fields given change.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MemberUpdate {
    pub id: String,
    pub name: Option<String>,
    pub role: Option<String>,
    pub model: Option<String>,
    pub status: Option<String>,
    pub message: Option<String>,
    pub remote: Option<bool>,
    pub team: Option<String>,
    pub session_id: Option<String>,
    pub parent_session_id: Option<String>,
    pub parent_thread_id: Option<String>,
    pub task_id: Option<String>,
    /// Messages of its session that hydrated, and whether older ones remain.
    pub transcript: Vec<TranscriptLine>,
    pub transcript_has_more: Option<bool>,
}
