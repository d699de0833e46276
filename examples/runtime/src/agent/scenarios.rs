//! The scripted agent runs: `agent` (thoughts, a plan and every kind of tool call) and
//! `agentcut` (a call in progress when the connection drops).

use super::blocks::{
    diff, location, terminal, terminal_output, text, thought, tool_call, Call, PlanItem, REPO,
};
use crate::scripts::Script;
use chat_shell_core::protocol::acp::{PlanEntryPriority, ToolCallStatus, ToolCallUpdate, ToolKind};
use serde_json::json;

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
