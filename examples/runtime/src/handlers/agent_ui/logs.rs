//! The golden logs of `tests/fixtures/agent-ui/`, the runs they are, and the keywords that
//! pick them.

use crate::scripts::pick_keyword;
use serde_json::Value;

pub(super) const PATH: &str = "/agent-ui";

pub(super) const STATUS: &str = include_str!("../../../../../tests/fixtures/agent-ui/status.jsonl");
pub(super) const TEAM: &str = include_str!("../../../../../tests/fixtures/agent-ui/team.jsonl");
pub(super) const APPROVAL: &str =
    include_str!("../../../../../tests/fixtures/agent-ui/approval.jsonl");
pub(super) const APPROVED: &str =
    include_str!("../../../../../tests/fixtures/agent-ui/approval-approved.jsonl");
pub(super) const GAP: &str = include_str!("../../../../../tests/fixtures/agent-ui/gap.jsonl");
pub(super) const CHILD: &str = include_str!("../../../../../tests/fixtures/agent-ui/child.jsonl");
pub(super) const CLARIFY: &str =
    include_str!("../../../../../tests/fixtures/agent-ui/clarify.jsonl");
pub(super) const PLAN: &str = include_str!("../../../../../tests/fixtures/agent-ui/plan.jsonl");
pub(super) const FORM: &str = include_str!("../../../../../tests/fixtures/agent-ui/form.jsonl");
/// The child run's teammate session, whole (the run hydrates its newest two messages).
pub(super) const CHILD_SESSION: &str =
    include_str!("../../../../../tests/fixtures/agent-ui/child-session.json");

/// The most messages one history page carries.
pub const HISTORY_PAGE: usize = 3;

/// The golden log a run streams.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AgentUiRun {
    /// Runtime status, context, reasoning, tools, compaction, evidence, an artifact.
    Status,
    /// A coordinator team: a roster, a remote teammate, a worker result, a handoff.
    Team,
    /// A tool that needs the user's approval (`action.required`); the run waits for it.
    Approval,
    /// A count whose delivery breaks: sent as [`GAP_DELIVERY`].
    Gap,
    /// A child session hydrated in pages.
    Child,
    /// A teammate asks the user a question (a clarification); the run waits for the answer.
    Clarify,
    /// A planner's plan waits for the user's decision (`plan_decision`).
    Plan,
    /// A release manager asks for structured input (`input`): a choice and free text.
    Form,
}

/// What a new turn streams.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scenario {
    /// A golden log.
    Log(AgentUiRun),
    /// A live run, long enough to queue or steer (see "Live runs").
    Long,
}

/// Keywords of the last user message and what they pick (`/chatkit`'s rules: the start
/// of a word; the first found wins); anything else streams [`AgentUiRun::Status`].
pub const KEYWORDS: &[(&str, Scenario)] = &[
    ("team", Scenario::Log(AgentUiRun::Team)),
    ("approval", Scenario::Log(AgentUiRun::Approval)),
    ("deploy", Scenario::Log(AgentUiRun::Approval)),
    ("gap", Scenario::Log(AgentUiRun::Gap)),
    ("child", Scenario::Log(AgentUiRun::Child)),
    ("clarify", Scenario::Log(AgentUiRun::Clarify)),
    ("question", Scenario::Log(AgentUiRun::Clarify)),
    ("plan", Scenario::Log(AgentUiRun::Plan)),
    ("form", Scenario::Log(AgentUiRun::Form)),
    ("long", Scenario::Long),
];

impl Scenario {
    pub fn pick(text: &str) -> Scenario {
        pick_keyword(KEYWORDS, text).unwrap_or(Scenario::Log(AgentUiRun::Status))
    }
}

/// The sequences the `gap` run sends, in order: 3 twice, 5 and 6 never.
pub const GAP_DELIVERY: &[u64] = &[1, 2, 3, 3, 4, 7, 8, 9];

/// The approval run's action, answered with an option.
pub(super) const ACTION_ID: &str = "act-deploy";
/// The plan run's decision, answered with an option.
pub(super) const PLAN_ID: &str = "act-plan";
/// The form run's structured input, answered with answers by question id.
pub(super) const INPUT_ID: &str = "act-input";
/// The form run's questions.
pub(super) const FORM_QUESTIONS: [&str; 2] = ["channel", "notes"];
/// The clarify run's question, answered with text.
pub(super) const QUESTION_ID: &str = "act-clarify";
/// The longest answer to a question (characters).
pub(super) const ANSWER_MAX: usize = 2_000;

impl AgentUiRun {
    pub(super) const ALL: [AgentUiRun; 8] = [
        AgentUiRun::Status,
        AgentUiRun::Team,
        AgentUiRun::Approval,
        AgentUiRun::Gap,
        AgentUiRun::Child,
        AgentUiRun::Clarify,
        AgentUiRun::Plan,
        AgentUiRun::Form,
    ];

    /// Its golden log, one envelope a line.
    pub(super) fn log(self) -> &'static str {
        match self {
            AgentUiRun::Status => STATUS,
            AgentUiRun::Team => TEAM,
            AgentUiRun::Approval => APPROVAL,
            AgentUiRun::Gap => GAP,
            AgentUiRun::Child => CHILD,
            AgentUiRun::Clarify => CLARIFY,
            AgentUiRun::Plan => PLAN,
            AgentUiRun::Form => FORM,
        }
    }

    /// The `runId` of its events.
    pub(super) fn run_id(self) -> &'static str {
        match self {
            AgentUiRun::Status => "run-status",
            AgentUiRun::Team => "run-team",
            AgentUiRun::Approval => "run-approval",
            AgentUiRun::Gap => "run-gap",
            AgentUiRun::Child => "run-child",
            AgentUiRun::Clarify => "run-clarify",
            AgentUiRun::Plan => "run-plan",
            AgentUiRun::Form => "run-form",
        }
    }

    pub(super) fn by_run_id(run_id: &str) -> Option<AgentUiRun> {
        Self::ALL.into_iter().find(|run| run.run_id() == run_id)
    }

    pub(super) fn name(self) -> String {
        format!("{self:?}").to_lowercase()
    }

    /// What a new turn picking this run is sent.
    pub(super) fn delivery(self) -> Vec<String> {
        let events = lines(self.log());
        match self {
            AgentUiRun::Gap => GAP_DELIVERY
                .iter()
                .filter_map(|&n| events.iter().find(|(seq, _)| *seq == n))
                .map(|(_, line)| (*line).to_owned())
                .collect(),
            _ => events
                .into_iter()
                .map(|(_, line)| line.to_owned())
                .collect(),
        }
    }
}

/// A log's events: each line (as is) with its `sequence`.
pub(super) fn lines(log: &'static str) -> Vec<(u64, &'static str)> {
    log.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .map(|line| {
            let sequence = serde_json::from_str::<Value>(line)
                .ok()
                .and_then(|v| v["sequence"].as_u64())
                .unwrap_or_default();
            (sequence, line)
        })
        .collect()
}
