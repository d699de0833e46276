//! Agent runs over ChatKit, with chat-shell's extension items: ACP tool calls
//! (`acp_tool_call` items and their `acp_tool_call.*` updates), plans (`acp_plan`) and
//! thoughts (`acp_thought`), and permission requests that the client answers with
//! `threads.custom_action` (`acp.permission_response`). Nothing runs for real: the tools,
//! files and terminal output are scripted, like every other answer.
//!
//! A permission request is decided once: the answer is checked against the item in the
//! store (the tool call named, still asking, an option it offered), the outcome is written
//! on the item's `permission.outcome`, and a later answer is refused. What the decision
//! leads to ([`permission_decided`]) streams on the asking stream if it is still waiting,
//! else on the answer's own stream.

use crate::scripts::{word_chunks, Script};
use chat_shell_core::protocol::acp::{
    ContentBlock, ContentItem, Diff, PermissionOption, PermissionOptionId, PermissionOptionKind,
    PermissionOutcome, PermissionResponse, Plan, PlanEntry, PlanEntryPriority, PlanEntryStatus,
    RequestPermission, Terminal, TextBlock, ToolCall, ToolCallContent, ToolCallId,
    ToolCallLocation, ToolCallStatus, ToolCallUpdate, ToolKind,
};
use chat_shell_core::protocol::chatkit::{
    AcpPermissionRequested, AcpPlanItem, AcpThoughtChunk, AcpThoughtItem, AcpToolCallItem,
    AcpToolCallUpdated, ItemKind, ItemUpdate, ThreadItem,
};
use serde_json::{json, Value};
use std::time::Duration;

/// How long a stream waits, with keepalives, for the answer to a permission request
/// before it ends with the request still open.
pub const PERMISSION_WAIT: Duration = Duration::from_secs(600);

/// The repository the scripted agent works in.
const REPO: &str = "/repo";

/// The answers the `permission` scenario offers: one of each kind.
pub fn permission_options() -> Vec<PermissionOption> {
    [
        ("allow-once", "Allow once", PermissionOptionKind::AllowOnce),
        (
            "allow-always",
            "Always allow",
            PermissionOptionKind::AllowAlways,
        ),
        ("reject-once", "Reject", PermissionOptionKind::RejectOnce),
        (
            "reject-always",
            "Always reject",
            PermissionOptionKind::RejectAlways,
        ),
    ]
    .into_iter()
    .map(|(id, name, kind)| PermissionOption {
        option_id: PermissionOptionId::from(id),
        name: name.to_owned(),
        kind,
    })
    .collect()
}

// --- building blocks ----------------------------------------------------------------------

fn text(markdown: &str) -> ToolCallContent {
    ToolCallContent::Content(ContentItem {
        content: ContentBlock::Text(TextBlock {
            text: markdown.to_owned(),
            annotations: None,
        }),
    })
}

fn diff(path: &str, old: Option<&str>, new: &str) -> ToolCallContent {
    ToolCallContent::Diff(Diff {
        path: path.to_owned(),
        old_text: old.map(str::to_owned),
        new_text: new.to_owned(),
    })
}

fn terminal(id: &str) -> ToolCallContent {
    ToolCallContent::Terminal(Terminal {
        terminal_id: id.to_owned(),
    })
}

fn location(path: &str, line: Option<u32>) -> ToolCallLocation {
    ToolCallLocation {
        path: path.to_owned(),
        line,
    }
}

/// ACP's `terminal/output` answer, the raw output chat-shell shows for terminal content.
fn terminal_output(output: &str, exit_code: Option<i32>) -> Value {
    let mut value = json!({ "output": output, "truncated": false });
    if let Some(code) = exit_code {
        value["exitStatus"] = json!({ "exitCode": code, "signal": null });
    }
    value
}

fn status(status: ToolCallStatus) -> ToolCallUpdate {
    ToolCallUpdate {
        status: Some(status),
        ..ToolCallUpdate::default()
    }
}

/// A tool call item being streamed: the copy kept here follows every update sent, so its
/// `thread.item.done` carries what the client has.
struct Call {
    item: ThreadItem,
}

impl Call {
    /// Announces `tool_call` as a new item (`thread.item.added`).
    fn start(s: &mut Script<'_>, tool_call: ToolCall) -> Call {
        let item = s.item(
            "tc",
            ItemKind::AcpToolCall(AcpToolCallItem {
                tool_call,
                permission: None,
            }),
        );
        s.added(&item);
        Call { item }
    }

    fn call_mut(&mut self) -> &mut AcpToolCallItem {
        match &mut self.item.kind {
            ItemKind::AcpToolCall(call) => call,
            _ => unreachable!("a Call holds a tool call item"),
        }
    }

    fn tool_call_id(&mut self) -> ToolCallId {
        self.call_mut().tool_call.tool_call_id.clone()
    }

    /// Sends `update` (an `acp_tool_call.update`) and applies it here.
    fn update(&mut self, s: &mut Script<'_>, mut update: ToolCallUpdate) -> &mut Self {
        update.tool_call_id = self.tool_call_id();
        self.call_mut().tool_call.apply(update.clone());
        s.update(
            &self.item.id,
            ItemUpdate::AcpToolCallUpdated(AcpToolCallUpdated { update }),
        );
        self
    }

    /// Sends the finished item (`thread.item.done`).
    fn done(self, s: &mut Script<'_>) -> ThreadItem {
        s.done(&self.item);
        self.item
    }
}

fn tool_call(
    s: &Script<'_>,
    title: &str,
    kind: ToolKind,
    status: ToolCallStatus,
    raw_input: Value,
) -> ToolCall {
    ToolCall {
        tool_call_id: ToolCallId(s.id("call").0),
        title: title.to_owned(),
        kind,
        status,
        content: Vec::new(),
        locations: Vec::new(),
        raw_input: Some(raw_input),
        raw_output: None,
    }
}

/// An `acp_plan` item being streamed.
struct PlanItem {
    item: ThreadItem,
}

impl PlanItem {
    fn start(s: &mut Script<'_>, steps: &[(&str, PlanEntryPriority)]) -> PlanItem {
        let entries = steps
            .iter()
            .enumerate()
            .map(|(i, (content, priority))| PlanEntry {
                content: (*content).to_owned(),
                priority: priority.clone(),
                status: if i == 0 {
                    PlanEntryStatus::InProgress
                } else {
                    PlanEntryStatus::Pending
                },
            })
            .collect();
        let item = s.item("pln", ItemKind::AcpPlan(AcpPlanItem { entries }));
        s.added(&item);
        PlanItem { item }
    }

    /// Entry `done` is completed, the next one in progress (`acp_plan.update`, the whole
    /// list, as ACP sends it).
    fn advance(&mut self, s: &mut Script<'_>, done: usize) {
        let ItemKind::AcpPlan(plan) = &mut self.item.kind else {
            return;
        };
        for (i, entry) in plan.entries.iter_mut().enumerate() {
            entry.status = match i {
                i if i <= done => PlanEntryStatus::Completed,
                i if i == done + 1 => PlanEntryStatus::InProgress,
                _ => PlanEntryStatus::Pending,
            };
        }
        let entries = plan.entries.clone();
        s.update(&self.item.id, ItemUpdate::AcpPlanUpdated(Plan { entries }));
    }

    fn done(self, s: &mut Script<'_>) {
        s.done(&self.item);
    }
}

/// An `acp_thought` item: added empty, streamed as `acp_thought.chunk`s, then done.
fn thought(s: &mut Script<'_>, reasoning: &str) {
    let mut item = s.item(
        "thg",
        ItemKind::AcpThought(AcpThoughtItem {
            text: String::new(),
        }),
    );
    s.added(&item);
    let pace = s.pace();
    for chunk in word_chunks(reasoning) {
        s.wait(pace).update(
            &item.id,
            ItemUpdate::AcpThoughtChunk(AcpThoughtChunk {
                content: ContentBlock::Text(TextBlock {
                    text: chunk,
                    annotations: None,
                }),
            }),
        );
    }
    item.kind = ItemKind::AcpThought(AcpThoughtItem {
        text: reasoning.to_owned(),
    });
    s.done(&item);
}

// --- the scenarios ------------------------------------------------------------------------

const PARSER: &str = "/repo/src/parser.rs";
const REGRESSION: &str = "/repo/tests/range_regression.rs";

const PARSER_BEFORE: &str = "\
pub fn parse_range(text: &str) -> Option<(u32, u32)> {
    let (start, end) = text.split_once(\"..\")?;
    let start: u32 = start.trim().parse().ok()?;
    let end: u32 = end.trim().parse().ok()?;
    (start < end - 1).then_some((start, end))
}
";

const PARSER_AFTER: &str = "\
pub fn parse_range(text: &str) -> Option<(u32, u32)> {
    let (start, end) = text.split_once(\"..\")?;
    let start: u32 = start.trim().parse().ok()?;
    let end: u32 = end.trim().parse().ok()?;
    (start < end).then_some((start, end))
}
";

const REGRESSION_TEST: &str = "\
use demo::parser::parse_range;

#[test]
fn a_range_of_one_is_kept() {
    assert_eq!(parse_range(\"4..5\"), Some((4, 5)));
}
";

/// `cargo test` as a terminal shows it: cargo's colours are ANSI escape sequences.
const CARGO_TEST_START: &str = "\u{1b}[1m\u{1b}[32m   Compiling\u{1b}[0m demo v0.1.0 (/repo)\n";
const CARGO_TEST_OUTPUT: &str = "\
\u{1b}[1m\u{1b}[32m   Compiling\u{1b}[0m demo v0.1.0 (/repo)
\u{1b}[1m\u{1b}[32m    Finished\u{1b}[0m `test` profile [unoptimized + debuginfo] target(s) in 1.84s
\u{1b}[1m\u{1b}[32m     Running\u{1b}[0m tests/range_regression.rs

running 4 tests
test parser::tests::parses_a_range ... \u{1b}[32mok\u{1b}[0m
test parser::tests::refuses_an_empty_range ... \u{1b}[32mok\u{1b}[0m
test parser::tests::refuses_garbage ... \u{1b}[32mok\u{1b}[0m
test a_range_of_one_is_kept ... \u{1b}[32mok\u{1b}[0m

test result: \u{1b}[32mok\u{1b}[0m. 4 passed; 0 failed; 0 ignored; finished in 0.01s
";

/// `agent`: thoughts, a five-step plan updated as the work proceeds, then tool calls: a
/// read with locations, a fetch that fails, an edit of an existing file and a new file
/// (diffs), `cargo test` in a terminal (ANSI colours, exit code 0), and the answer.
pub fn agent_run(s: &mut Script<'_>) {
    let beat = s.beat();
    thought(
        s,
        "The failing test points at `parse_range`: an **off-by-one** on the upper bound. \
         I'll read the parser, check the documented semantics, fix the comparison, add a \
         regression test and run the suite.",
    );
    let mut plan = PlanItem::start(
        s,
        &[
            ("Read the range parser", PlanEntryPriority::High),
            ("Check the documented semantics", PlanEntryPriority::Low),
            ("Fix the upper bound", PlanEntryPriority::High),
            ("Add a regression test", PlanEntryPriority::Medium),
            ("Run the test suite", PlanEntryPriority::Medium),
        ],
    );

    // 1. A read, with the lines it looked at.
    let mut read = Call::start(
        s,
        tool_call(
            s,
            "Read src/parser.rs",
            ToolKind::Read,
            ToolCallStatus::Pending,
            json!({ "path": PARSER, "line": 40, "limit": 12 }),
        ),
    );
    read.update(
        s,
        ToolCallUpdate {
            status: Some(ToolCallStatus::InProgress),
            locations: Some(vec![location(PARSER, Some(42)), location(PARSER, Some(46))]),
            ..ToolCallUpdate::default()
        },
    );
    s.wait(beat);
    read.update(
        s,
        ToolCallUpdate {
            status: Some(ToolCallStatus::Completed),
            content: Some(vec![text(&format!(
                "Lines 42–47 of `src/parser.rs`:\n\n```rust\n{PARSER_BEFORE}```"
            ))]),
            ..ToolCallUpdate::default()
        },
    );
    read.done(s);
    plan.advance(s, 0);

    // 2. A fetch that fails.
    let mut fetch = Call::start(
        s,
        tool_call(
            s,
            "Fetch https://docs.example.com/ranges",
            ToolKind::Fetch,
            ToolCallStatus::InProgress,
            json!({ "url": "https://docs.example.com/ranges" }),
        ),
    );
    s.wait(beat);
    fetch.update(
        s,
        ToolCallUpdate {
            status: Some(ToolCallStatus::Failed),
            content: Some(vec![text(
                "**503 Service Unavailable**: the documentation server did not answer.",
            )]),
            raw_output: Some(json!({ "status": 503, "error": "Service Unavailable" })),
            ..ToolCallUpdate::default()
        },
    );
    fetch.done(s);
    plan.advance(s, 1);

    // 3. An edit of an existing file.
    let mut edit = Call::start(
        s,
        tool_call(
            s,
            "Edit src/parser.rs",
            ToolKind::Edit,
            ToolCallStatus::InProgress,
            json!({ "path": PARSER, "old_string": "start < end - 1", "new_string": "start < end" }),
        ),
    );
    s.wait(beat);
    edit.update(
        s,
        ToolCallUpdate {
            status: Some(ToolCallStatus::Completed),
            content: Some(vec![diff(PARSER, Some(PARSER_BEFORE), PARSER_AFTER)]),
            locations: Some(vec![location(PARSER, Some(46))]),
            ..ToolCallUpdate::default()
        },
    );
    edit.done(s);
    plan.advance(s, 2);

    // 4. A new file: `oldText: null`.
    let mut create = Call::start(
        s,
        tool_call(
            s,
            "Create tests/range_regression.rs",
            ToolKind::Edit,
            ToolCallStatus::InProgress,
            json!({ "path": REGRESSION }),
        ),
    );
    s.wait(beat);
    create.update(
        s,
        ToolCallUpdate {
            status: Some(ToolCallStatus::Completed),
            content: Some(vec![diff(REGRESSION, None, REGRESSION_TEST)]),
            locations: Some(vec![location(REGRESSION, None)]),
            ..ToolCallUpdate::default()
        },
    );
    create.done(s);
    plan.advance(s, 3);

    // 5. A command in a terminal: output as it comes, then the exit status.
    let term = s.id("term").0;
    let mut tests = Call::start(
        s,
        tool_call(
            s,
            "Run cargo test",
            ToolKind::Execute,
            ToolCallStatus::InProgress,
            json!({ "command": "cargo test", "cwd": REPO }),
        ),
    );
    tests.update(
        s,
        ToolCallUpdate {
            content: Some(vec![terminal(&term)]),
            raw_output: Some(terminal_output(CARGO_TEST_START, None)),
            ..ToolCallUpdate::default()
        },
    );
    s.wait(beat);
    tests.update(
        s,
        ToolCallUpdate {
            status: Some(ToolCallStatus::Completed),
            raw_output: Some(terminal_output(CARGO_TEST_OUTPUT, Some(0))),
            ..ToolCallUpdate::default()
        },
    );
    tests.done(s);
    plan.advance(s, 4);
    plan.done(s);

    s.text(
        "Fixed the off-by-one in `parse_range`: a range like `4..5` was refused because the \
         upper bound was compared with `end - 1`.\n\n\
         - **Changed** `src/parser.rs` (one comparison)\n\
         - **Added** `tests/range_regression.rs`\n\
         - `cargo test`: 4 passed\n\n\
         The documentation server was down (503), so the fix follows the existing tests.",
    );
}

/// `permission`: a command that deletes files asks first, offering one option of each
/// kind; the stream waits for the answer.
pub fn permission_ask(s: &mut Script<'_>) {
    s.text("Cleaning the build cache deletes files, so I'm asking before I run it.");
    let command = "rm -rf target/debug/incremental";
    let title = "Remove the incremental build cache";
    let call = Call::start(
        s,
        tool_call(
            s,
            title,
            ToolKind::Execute,
            ToolCallStatus::Pending,
            json!({ "command": command, "cwd": REPO }),
        ),
    );
    let request = RequestPermission {
        session_id: None,
        // What the agent would run, as ACP's request carries it.
        tool_call: ToolCallUpdate {
            tool_call_id: call_id(&call.item),
            title: Some(title.to_owned()),
            kind: Some(ToolKind::Execute),
            status: Some(ToolCallStatus::Pending),
            locations: Some(vec![location("/repo/target/debug/incremental", None)]),
            raw_input: Some(json!({ "command": command, "cwd": REPO })),
            ..ToolCallUpdate::default()
        },
        options: permission_options(),
    };
    s.update(
        &call.item.id,
        ItemUpdate::AcpPermissionRequested(AcpPermissionRequested { request }),
    );
    s.await_permission(&call.item.id, PERMISSION_WAIT);
}

fn call_id(item: &ThreadItem) -> ToolCallId {
    match &item.kind {
        ItemKind::AcpToolCall(c) => c.tool_call.tool_call_id.clone(),
        _ => ToolCallId::default(),
    }
}

/// What a decided permission request leads to; `item` is the tool call with its outcome.
/// The confirmation (`acp_tool_call.permission_resolved`) first; then an allowed call
/// runs (in progress, then completed with its terminal output); a rejected or cancelled
/// one ends `failed` without running (the client shows it as rejected or cancelled).
pub fn permission_decided(s: &mut Script<'_>, item: &ThreadItem) {
    let ItemKind::AcpToolCall(decided) = &item.kind else {
        return;
    };
    let Some(permission) = &decided.permission else {
        return;
    };
    let Some(outcome) = permission.outcome.clone() else {
        return;
    };
    s.update(
        &item.id,
        ItemUpdate::AcpPermissionResolved(PermissionResponse {
            outcome: outcome.clone(),
        }),
    );
    let chosen = match &outcome {
        PermissionOutcome::Selected { option_id } => permission.option(option_id).cloned(),
        _ => None,
    };
    let command = chat_shell_core::tool_output::command(decided.tool_call.raw_input.as_ref())
        .unwrap_or_else(|| decided.tool_call.title.clone());
    let mut call = Call { item: item.clone() };
    match chosen {
        Some(option) if option.kind.is_allow() => {
            let term = s.id("term").0;
            call.update(s, status(ToolCallStatus::InProgress));
            s.wait(s.beat());
            call.update(
                s,
                ToolCallUpdate {
                    status: Some(ToolCallStatus::Completed),
                    content: Some(vec![terminal(&term)]),
                    raw_output: Some(terminal_output("removed 1204 files (312.4 MiB)\n", Some(0))),
                    ..ToolCallUpdate::default()
                },
            );
            call.done(s);
            s.text(&format!(
                "Done: `{command}` ran in `{REPO}` (you chose **{}**). The next build starts \
                 from a clean cache.",
                option.name
            ));
        }
        Some(option) => {
            call.update(
                s,
                ToolCallUpdate {
                    status: Some(ToolCallStatus::Failed),
                    content: Some(vec![text("Not run: the permission was rejected.")]),
                    ..ToolCallUpdate::default()
                },
            );
            call.done(s);
            s.text(&format!(
                "Understood (**{}**): `{command}` was not run and nothing was deleted.",
                option.name
            ));
        }
        // Cancelled (the user stopped the turn): nothing more to say.
        None => {
            call.update(s, status(ToolCallStatus::Failed));
            call.done(s);
        }
    }
}

/// `agentcut`: a long build in a terminal, in progress, when the connection drops.
pub fn agent_cut(s: &mut Script<'_>) {
    let beat = s.beat();
    s.text("Starting a release build; it takes a while.");
    let term = s.id("term").0;
    let mut build = Call::start(
        s,
        tool_call(
            s,
            "Run cargo build --release",
            ToolKind::Execute,
            ToolCallStatus::InProgress,
            json!({ "command": "cargo build --release", "cwd": REPO }),
        ),
    );
    build.update(
        s,
        ToolCallUpdate {
            content: Some(vec![terminal(&term)]),
            raw_output: Some(terminal_output(
                "   Compiling serde v1.0.228\n   Compiling demo v0.1.0 (/repo)\n",
                None,
            )),
            ..ToolCallUpdate::default()
        },
    );
    s.wait(beat).drop_connection();
}

// --- answering a permission request ---------------------------------------------------------

/// The payload of an `acp.permission_response` action.
#[derive(Clone, Debug, PartialEq)]
pub struct PermissionAnswer {
    pub tool_call_id: ToolCallId,
    pub outcome: PermissionOutcome,
}

/// Reads `{"toolCallId": "…", "outcome": {"outcome": "selected", "optionId": "…"}}` or
/// `{"toolCallId": "…", "outcome": {"outcome": "cancelled"}}`.
pub fn parse_answer(payload: &Value) -> Result<PermissionAnswer, String> {
    let tool_call_id = payload
        .get("toolCallId")
        .and_then(Value::as_str)
        .filter(|id| !id.is_empty())
        .ok_or("the payload needs its toolCallId")?;
    let outcome = payload
        .get("outcome")
        .ok_or("the payload needs an outcome")?;
    let outcome: PermissionOutcome =
        serde_json::from_value(outcome.clone()).map_err(|e| format!("bad outcome: {e}"))?;
    if let PermissionOutcome::Other(_) = outcome {
        return Err("the outcome is neither `selected` nor `cancelled`".into());
    }
    Ok(PermissionAnswer {
        tool_call_id: ToolCallId::from(tool_call_id),
        outcome,
    })
}

/// Why an answer was not taken.
#[derive(Clone, Debug, PartialEq)]
pub enum Refusal {
    NotAToolCall,
    /// The item is another tool call than the payload names.
    WrongToolCall,
    /// The tool call never asked.
    NotAsking,
    /// Already answered: the first decision stands.
    Decided(PermissionOutcome),
    /// An option the request did not offer.
    UnknownOption(String),
}

impl Refusal {
    /// `(status, code, message)` of the JSON error.
    pub fn describe(&self) -> (u16, &'static str, String) {
        match self {
            Refusal::NotAToolCall => (
                400,
                "not_a_tool_call",
                "the action's item is not a tool call".into(),
            ),
            Refusal::WrongToolCall => (
                400,
                "wrong_tool_call",
                "the payload's toolCallId is not the item's tool call".into(),
            ),
            Refusal::NotAsking => (
                409,
                "not_asking",
                "this tool call has no permission request".into(),
            ),
            Refusal::Decided(outcome) => (
                409,
                "already_decided",
                format!(
                    "this permission request was already answered ({}); the first answer stands",
                    describe_outcome(outcome)
                ),
            ),
            Refusal::UnknownOption(id) => (
                400,
                "unknown_option",
                format!("option {id:?} was not offered by this permission request"),
            ),
        }
    }
}

/// `selected allow-once` or `cancelled`, for messages and the log.
pub fn describe_outcome(outcome: &PermissionOutcome) -> String {
    match outcome {
        PermissionOutcome::Selected { option_id } => format!("selected {}", option_id.0),
        PermissionOutcome::Cancelled => "cancelled".into(),
        PermissionOutcome::Other(u) => u.0.to_string(),
    }
}

/// Records `answer` on `item` if it may be: the item is the tool call it names, that call
/// is asking, and a selected option is one it offered. Cancelling is always allowed while
/// asking.
pub fn decide(item: &mut ThreadItem, answer: &PermissionAnswer) -> Result<(), Refusal> {
    let ItemKind::AcpToolCall(call) = &mut item.kind else {
        return Err(Refusal::NotAToolCall);
    };
    if call.tool_call.tool_call_id != answer.tool_call_id {
        return Err(Refusal::WrongToolCall);
    }
    let Some(permission) = call.permission.as_mut() else {
        return Err(Refusal::NotAsking);
    };
    if let Some(outcome) = &permission.outcome {
        return Err(Refusal::Decided(outcome.clone()));
    }
    if let PermissionOutcome::Selected { option_id } = &answer.outcome {
        if permission.option(option_id).is_none() {
            return Err(Refusal::UnknownOption(option_id.0.clone()));
        }
    }
    permission.outcome = Some(answer.outcome.clone());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scripts::Step;
    use crate::store::Store;
    use chat_shell_core::model::EntryKind;
    use chat_shell_core::protocol::chatkit::{decode_event, AcpPermission, StreamEvent};
    use chat_shell_core::reducer::{self, ChatState, Input, ToolCallState};

    fn events(steps: &[Step]) -> Vec<StreamEvent> {
        steps
            .iter()
            .filter_map(|s| match s {
                Step::Emit { event, .. } => Some(event.clone()),
                _ => None,
            })
            .collect()
    }

    /// Feeds `events`, serialized and decoded as a client would, to the core's reducer.
    fn reduce(state: &mut ChatState, events: &[StreamEvent]) {
        for event in events {
            let json = serde_json::to_string(event).unwrap();
            let back = decode_event(&json).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(&back, event, "round trip of {json}");
            reducer::reduce(state, chat_shell_core::adapters::chatkit::input(back));
        }
    }

    fn states(state: &ChatState) -> Vec<(String, &'static str)> {
        state
            .items()
            .iter()
            .filter_map(|i| {
                let EntryKind::ToolCall(c) = &i.item.kind else {
                    return None;
                };
                Some((c.tool_call.title.clone(), i.tool_call_state()?.as_str()))
            })
            .collect()
    }

    fn started() -> ChatState {
        let mut state = ChatState::default();
        reducer::reduce(&mut state, Input::TurnStarted);
        state
    }

    #[test]
    fn the_agent_run_reduces_to_every_kind_of_call() {
        let store = Store::open_in_memory().unwrap();
        let thread = store.user("t").create_thread().unwrap();
        let mut s = Script::new(&store, Duration::ZERO, thread);
        agent_run(&mut s);
        let evs = events(s.steps());
        let mut state = started();
        reduce(&mut state, &evs);
        reducer::reduce(&mut state, Input::StreamEnded);
        assert_eq!(
            states(&state),
            [
                ("Read src/parser.rs".to_owned(), "completed"),
                ("Fetch https://docs.example.com/ranges".to_owned(), "failed"),
                ("Edit src/parser.rs".to_owned(), "completed"),
                ("Create tests/range_regression.rs".to_owned(), "completed"),
                ("Run cargo test".to_owned(), "completed"),
            ]
        );
        let kinds: Vec<&str> = state
            .items()
            .iter()
            .filter_map(|i| match &i.item.kind {
                EntryKind::ToolCall(c) => Some(c.tool_call.kind.as_str()),
                EntryKind::Plan(_) => Some("plan"),
                EntryKind::Thought(_) => Some("thought"),
                EntryKind::AssistantText(_) => Some("answer"),
                _ => None,
            })
            .collect();
        assert_eq!(
            kinds,
            ["thought", "plan", "read", "fetch", "edit", "edit", "execute", "answer"]
        );
        for item in state.items() {
            match &item.item.kind {
                EntryKind::Plan(p) => assert!(p
                    .entries
                    .iter()
                    .all(|e| e.status == PlanEntryStatus::Completed)),
                EntryKind::Thought(t) => assert!(t.text.contains("off-by-one")),
                EntryKind::ToolCall(c) if c.tool_call.kind == ToolKind::Execute => {
                    let (out, cut) = chat_shell_core::tool_output::terminal_output(
                        c.tool_call.raw_output.as_ref(),
                    )
                    .unwrap();
                    assert!(out.contains("4 passed") && !cut);
                    assert_eq!(
                        c.tool_call.raw_output.as_ref().unwrap()["exitStatus"]["exitCode"],
                        0
                    );
                    assert!(matches!(
                        c.tool_call.content[..],
                        [ToolCallContent::Terminal(_)]
                    ));
                }
                EntryKind::ToolCall(c) if c.tool_call.title.starts_with("Create") => {
                    let [ToolCallContent::Diff(d)] = &c.tool_call.content[..] else {
                        panic!("{:?}", c.tool_call.content)
                    };
                    assert!(d.is_new_file());
                }
                EntryKind::ToolCall(c) if c.tool_call.title.starts_with("Edit") => {
                    let [ToolCallContent::Diff(d)] = &c.tool_call.content[..] else {
                        panic!("{:?}", c.tool_call.content)
                    };
                    assert!(!d.is_new_file());
                }
                EntryKind::ToolCall(c) if c.tool_call.kind == ToolKind::Read => {
                    let labels: Vec<String> =
                        c.tool_call.locations.iter().map(|l| l.label()).collect();
                    assert_eq!(labels, ["/repo/src/parser.rs:42", "/repo/src/parser.rs:46"]);
                }
                _ => {}
            }
        }
    }

    fn asked() -> (Store, ThreadItem, Vec<StreamEvent>) {
        let store = Store::open_in_memory().unwrap();
        let thread = store.user("t").create_thread().unwrap();
        let mut s = Script::new(&store, Duration::ZERO, thread);
        permission_ask(&mut s);
        assert!(matches!(
            s.steps().last(),
            Some(Step::AwaitPermission { .. })
        ));
        let evs = events(s.steps());
        let item = evs
            .iter()
            .find_map(|e| match e {
                StreamEvent::ItemAdded(e) if matches!(e.item.kind, ItemKind::AcpToolCall(_)) => {
                    Some(e.item.clone())
                }
                _ => None,
            })
            .unwrap();
        (store, item, evs)
    }

    /// The item as the store keeps it once asked: the request's fields and options.
    fn asking(mut item: ThreadItem) -> ThreadItem {
        if let ItemKind::AcpToolCall(c) = &mut item.kind {
            c.permission = Some(AcpPermission {
                options: permission_options(),
                outcome: None,
                action_id: None,
                action_type: None,
            });
        }
        item
    }

    fn answer(item: &ThreadItem, outcome: PermissionOutcome) -> PermissionAnswer {
        PermissionAnswer {
            tool_call_id: call_id(item),
            outcome,
        }
    }

    fn selected(id: &str) -> PermissionOutcome {
        PermissionOutcome::Selected {
            option_id: PermissionOptionId::from(id),
        }
    }

    #[test]
    fn each_decision_leads_where_the_client_expects() {
        for (choice, expected, says) in [
            (Some("allow-once"), "completed", Some("Allow once")),
            (Some("allow-always"), "completed", Some("Always allow")),
            (Some("reject-once"), "rejected", Some("Reject")),
            (Some("reject-always"), "rejected", Some("Always reject")),
            (None, "cancelled", None),
        ] {
            let (store, item, evs) = asked();
            let mut state = started();
            reduce(&mut state, &evs);
            assert_eq!(states(&state)[0].1, "awaiting_permission");
            let mut decided = asking(item.clone());
            let outcome = choice.map_or(PermissionOutcome::Cancelled, selected);
            decide(&mut decided, &answer(&item, outcome)).unwrap();
            let thread = store.user("t").create_thread().unwrap();
            let mut s = Script::new(&store, Duration::ZERO, thread);
            permission_decided(&mut s, &decided);
            let more = events(s.steps());
            assert!(matches!(
                &more[0],
                StreamEvent::ItemUpdated(u) if matches!(u.update, ItemUpdate::AcpPermissionResolved(_))
            ));
            reduce(&mut state, &more);
            reducer::reduce(&mut state, Input::StreamEnded);
            assert_eq!(states(&state)[0].1, expected, "{choice:?}");
            let last_text = state
                .items()
                .iter()
                .rev()
                .find_map(reducer::assistant_text)
                .unwrap_or_default();
            match says {
                Some(name) => assert!(last_text.contains(name), "{last_text}"),
                None => assert!(last_text.starts_with("Cleaning"), "{last_text}"),
            }
            // The item done at the end is what the store keeps: the decision and status.
            let StreamEvent::ItemDone(done) = more
                .iter()
                .rfind(|e| matches!(e, StreamEvent::ItemDone(d) if d.item.id == item.id))
                .unwrap()
            else {
                unreachable!()
            };
            let mut hydrated = ChatState::default();
            reducer::reduce(
                &mut hydrated,
                chat_shell_core::adapters::chatkit::thread_loaded(
                    chat_shell_core::protocol::chatkit::Thread {
                        branching: false,
                        items: Some(chat_shell_core::protocol::chatkit::Page {
                            data: vec![done.item.clone()],
                            has_more: false,
                            after: None,
                        }),
                        ..store.user("t").create_thread().unwrap()
                    },
                ),
            );
            assert_eq!(states(&hydrated)[0].1, expected, "hydrated {choice:?}");
        }
    }

    #[test]
    fn answers_are_checked_and_the_first_decision_stands() {
        let (_store, item, _) = asked();
        let mut target = item.clone();
        assert_eq!(
            decide(&mut target, &answer(&item, selected("allow-once"))),
            Err(Refusal::NotAsking)
        );
        let mut target = asking(item.clone());
        assert_eq!(
            decide(&mut target, &answer(&item, selected("sudo"))),
            Err(Refusal::UnknownOption("sudo".into()))
        );
        let wrong = PermissionAnswer {
            tool_call_id: ToolCallId::from("call_other"),
            outcome: PermissionOutcome::Cancelled,
        };
        assert_eq!(decide(&mut target, &wrong), Err(Refusal::WrongToolCall));
        decide(&mut target, &answer(&item, selected("reject-once"))).unwrap();
        assert_eq!(
            decide(&mut target, &answer(&item, selected("allow-once"))),
            Err(Refusal::Decided(selected("reject-once")))
        );
        assert_eq!(
            decide(&mut target, &answer(&item, PermissionOutcome::Cancelled)),
            Err(Refusal::Decided(selected("reject-once")))
        );
        let ItemKind::AcpToolCall(c) = &target.kind else {
            unreachable!()
        };
        assert_eq!(
            c.permission.as_ref().unwrap().outcome,
            Some(selected("reject-once"))
        );
    }

    #[test]
    fn answer_payloads_are_read_strictly() {
        let ok = parse_answer(&json!({"toolCallId": "call_1",
            "outcome": {"outcome": "selected", "optionId": "allow-once"}}))
        .unwrap();
        assert_eq!(ok.outcome, selected("allow-once"));
        let cancelled =
            parse_answer(&json!({"toolCallId": "call_1", "outcome": {"outcome": "cancelled"}}))
                .unwrap();
        assert_eq!(cancelled.outcome, PermissionOutcome::Cancelled);
        for bad in [
            json!({"outcome": {"outcome": "cancelled"}}),
            json!({"toolCallId": "", "outcome": {"outcome": "cancelled"}}),
            json!({"toolCallId": "c"}),
            json!({"toolCallId": "c", "outcome": {"outcome": "selected"}}),
            json!({"toolCallId": "c", "outcome": {"outcome": "maybe"}}),
            json!("allow"),
        ] {
            assert!(parse_answer(&bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_cut_ends_with_a_call_in_progress() {
        let store = Store::open_in_memory().unwrap();
        let thread = store.user("t").create_thread().unwrap();
        let mut s = Script::new(&store, Duration::ZERO, thread);
        agent_cut(&mut s);
        assert!(matches!(s.steps().last(), Some(Step::Drop { .. })));
        let mut state = started();
        reduce(&mut state, &events(s.steps()));
        assert_eq!(states(&state)[0].1, "in_progress");
        reducer::reduce(
            &mut state,
            Input::StreamFailed {
                message: "connection lost".into(),
                allow_retry: true,
            },
        );
        assert_eq!(states(&state)[0].1, ToolCallState::Interrupted.as_str());
    }
}
