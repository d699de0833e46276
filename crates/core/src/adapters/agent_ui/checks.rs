//! The validation checklist of `spec/agent-ui-flow-taxonomy.md` as tests of the Agent UI
//! format: a golden event log (`tests/fixtures/agent-ui/`, the same the reference runtime
//! streams) goes through the adapter and the reducer, and the state is checked. Each test
//! is named `check_NN_…` after the spec's number; the README's table is made from these
//! names.

use super::golden::*;
use super::{history_page, AgentUiAdapter};
use crate::model::EntryKind;
use crate::protocol::acp::{PermissionOptionId, PermissionOutcome};
use crate::protocol::chatkit::Note;
use crate::reducer::{listed, reduce, ChatState, Effect, Input, Listed, ToolCallState};
use serde_json::Value;

#[test]
fn check_01_the_listener_is_bound_before_submit() {
    // The turn exists (and the user's message shows) before the request goes out, so the
    // first event of the answer has somewhere to go.
    let mut state = sent("go");
    assert!(state.turn.is_some());
    assert_eq!(kinds(&state), ["user"]);
    let mut adapter = AgentUiAdapter::new();
    let log = lines(STATUS);
    feed(&mut state, &mut adapter, &log[..2]);
    assert!(state.turn.is_some(), "the first events join the turn");
}

#[test]
fn check_02_runtime_status_shows_before_the_first_text() {
    let mut state = sent("go");
    let mut adapter = AgentUiAdapter::new();
    let log = lines(STATUS);
    feed(&mut state, &mut adapter, &log[..4]);
    assert_eq!(
        state.progress.as_ref().map(|p| p.text.as_str()),
        Some("Reading the context")
    );
    assert_eq!(kinds(&state), ["user"], "no text yet");
}

#[test]
fn check_03_active_parts_render_in_event_order() {
    let state = run(STATUS);
    assert_eq!(
        kinds(&state),
        [
            "user",
            "context",
            "thought",
            "tool:tc-search",
            "tool:tc-fetch",
            "context",
            "answer",
            "artifact"
        ]
    );
}

#[test]
fn check_04_running_process_stays_visible_then_collapses() {
    let mut state = sent("go");
    let mut adapter = AgentUiAdapter::new();
    let log = lines(STATUS);
    // Mid-run: the search runs, and nothing is folded.
    feed(&mut state, &mut adapter, &log[..10]);
    assert_eq!(
        tool_state(&state, "tc-search"),
        Some(ToolCallState::InProgress)
    );
    assert!(listed(&state).iter().all(|l| matches!(l, Listed::Item(_))));
    feed(&mut state, &mut adapter, &log[10..]);
    reduce(&mut state, Input::StreamEnded);
    assert_eq!(
        tool_state(&state, "tc-search"),
        Some(ToolCallState::Completed)
    );
    assert_eq!(tool_state(&state, "tc-fetch"), Some(ToolCallState::Failed));
    let summaries = listed(&state)
        .iter()
        .filter(|l| matches!(l, Listed::Summary(calls) if calls.len() == 2))
        .count();
    assert_eq!(summaries, 1, "the finished calls fold into one summary");
}

#[test]
fn check_05_final_text_is_reconciled_without_duplication() {
    let state = run(STATUS);
    // Streamed "The limit is 100 requests a minute." then final: the final replaces it.
    assert_eq!(
        text_of(&state, "msg-answer"),
        "The limit is 100 requests a minute (see limits.md)."
    );
}

#[test]
fn check_06_tool_state_never_enters_the_answer() {
    let state = run(STATUS);
    let all = answers(&state);
    for leaked in [
        "limits.md: 100 requests",
        "HTTP 503",
        "2 of 3 sources",
        "rate limits",
    ] {
        assert!(!all.contains(leaked), "{leaked:?} in {all:?}");
    }
}

#[test]
fn check_07_human_in_the_loop_uses_stable_ids_and_waits_for_the_owner() {
    let mut state = sent("deploy");
    let mut adapter = AgentUiAdapter::new();
    feed(&mut state, &mut adapter, &lines(APPROVAL));
    reduce(&mut state, Input::StreamEnded);
    let card = state
        .items()
        .iter()
        .find(|i| i.entry.id.0.ends_with(":tool:tc-deploy"))
        .unwrap();
    let id = card.entry.id.clone();
    let EntryKind::ToolCall(call) = &card.entry.kind else {
        panic!()
    };
    let permission = call.permission.as_ref().unwrap();
    assert_eq!(permission.action_id.as_deref(), Some("act-deploy"));
    assert_eq!(
        card.tool_call_state(),
        Some(ToolCallState::AwaitingPermission)
    );
    // The user picks: the answer goes out, the card is not decided yet.
    let out = reduce(
        &mut state,
        Input::PermissionChosen {
            item_id: id.clone(),
            option_id: PermissionOptionId("approve".into()),
        },
    );
    assert!(out
        .effects
        .iter()
        .any(|e| matches!(e, Effect::AnswerPermission { item_id, .. } if *item_id == id)));
    assert_eq!(
        tool_state(&state, "tc-deploy"),
        Some(ToolCallState::AwaitingPermission)
    );
    // The owner confirms, in the answer's stream: now it is decided.
    reduce(&mut state, Input::TurnStarted);
    feed(&mut state, &mut AgentUiAdapter::new(), &lines(APPROVED));
    reduce(&mut state, Input::StreamEnded);
    let EntryKind::ToolCall(call) = &state.item(&id).unwrap().entry.kind else {
        panic!()
    };
    assert_eq!(
        call.permission.as_ref().unwrap().outcome,
        Some(PermissionOutcome::Selected {
            option_id: PermissionOptionId("approve".into())
        })
    );
    assert_eq!(
        tool_state(&state, "tc-deploy"),
        Some(ToolCallState::Completed)
    );
    assert_eq!(text_of(&state, "msg-deployed"), "Staging runs build 42.");
}

#[test]
fn check_07_a_plan_decision_is_a_decision_on_the_plan_made_by_its_owner() {
    let mut state = run(PLAN);
    let card = state
        .items()
        .iter()
        .find(|i| i.entry.id.0.ends_with(":tool:action-act-plan"))
        .expect("the decision's card");
    let id = card.entry.id.clone();
    let EntryKind::ToolCall(call) = &card.entry.kind else {
        panic!("a card")
    };
    let permission = call.permission.as_ref().unwrap();
    assert_eq!(permission.action_type.as_deref(), Some("plan_decision"));
    assert_eq!(permission.action_id.as_deref(), Some("act-plan"));
    let names: Vec<&str> = permission.options.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(names, ["Run the plan", "Revise it"]);
    assert_eq!(permission.outcome, None, "undecided until the owner says");
    // The plan itself is the planner's, and the planner is plan_ready, not done.
    let steps = state.orchestration.as_ref().map(|o| o.plan.len());
    assert_eq!(steps, Some(3));
    let planner = state
        .team
        .as_ref()
        .and_then(|t| t.member("planner@delivery"));
    assert_eq!(
        planner.and_then(|m| m.status.as_deref()),
        Some("plan_ready")
    );
    // The owner confirms "revise" (another stream): decided as the owner said.
    let resolved = r#"{"type": "action.resolved", "sequence": 7, "runId": "run-plan", "actionId": "act-plan", "payload": {"optionId": "revise", "outcome": "rejected"}}"#;
    feed(&mut state, &mut AgentUiAdapter::new(), &[resolved]);
    let EntryKind::ToolCall(call) = &state.item(&id).unwrap().entry.kind else {
        panic!("a card")
    };
    assert_eq!(
        call.permission.as_ref().unwrap().outcome,
        Some(PermissionOutcome::Selected {
            option_id: PermissionOptionId("revise".into())
        })
    );
    // Decided, the card shows the decision (a reject-kind option: the plan as it was is
    // rejected), never a call left unfinished and interrupted.
    reduce(&mut state, Input::StreamEnded);
    assert_eq!(
        tool_state(&state, "action-act-plan"),
        Some(ToolCallState::Rejected)
    );
}

#[test]
fn check_07_structured_input_is_answered_only_with_the_answers_the_owner_took() {
    use crate::protocol::chatkit::{StructuredInput, StructuredInputStatus};
    let input = |state: &ChatState| -> StructuredInput {
        state
            .items()
            .iter()
            .find_map(|i| match &i.entry.kind {
                EntryKind::StructuredInput(s) => Some(s.clone()),
                _ => None,
            })
            .expect("a structured input")
    };
    let mut state = run(FORM);
    let asked = input(&state);
    assert_eq!(asked.action_id.as_deref(), Some("act-input"));
    assert_eq!(asked.status, StructuredInputStatus::Pending);
    let ids: Vec<&str> = asked.inputs.iter().map(|f| f.id.as_str()).collect();
    assert_eq!(ids, ["channel", "notes"]);
    assert_eq!(asked.inputs[0].options.len(), 2);
    // Closed without the answers it took: still pending, nothing guessed.
    let closed = r#"{"type": "action.resolved", "sequence": 7, "runId": "run-form", "actionId": "act-input", "payload": {"outcome": "answered"}}"#;
    feed(&mut state, &mut AgentUiAdapter::new(), &[closed]);
    assert_eq!(input(&state).status, StructuredInputStatus::Pending);
    // The owner's answers: shown as it took them.
    let taken = r#"{"type": "action.resolved", "sequence": 7, "runId": "run-form", "actionId": "act-input", "payload": {"outcome": "answered", "answers": {"channel": {"values": ["beta"], "skipped": false}, "notes": {"values": [], "skipped": true}}}}"#;
    feed(&mut state, &mut AgentUiAdapter::new(), &[taken]);
    let answered = input(&state);
    assert_eq!(answered.status, StructuredInputStatus::Answered);
    let channel = answered.inputs[0].answer.as_ref().unwrap();
    assert_eq!(channel.values, ["beta"]);
    assert!(answered.inputs[1].answer.as_ref().unwrap().skipped);
    // Every question skipped: the input is skipped.
    let mut state = run(FORM);
    let skipped = r#"{"type": "action.resolved", "sequence": 7, "runId": "run-form", "actionId": "act-input", "payload": {"outcome": "answered", "answers": {"channel": {"values": [], "skipped": true}, "notes": {"values": [], "skipped": true}}}}"#;
    feed(&mut state, &mut AgentUiAdapter::new(), &[skipped]);
    assert_eq!(input(&state).status, StructuredInputStatus::Skipped);
}

#[test]
fn check_07_a_clarification_is_a_question_answered_only_when_the_owner_confirms() {
    let state = run(CLARIFY);
    // Its own control (a question, not a permission card), owned by the teammate that asks.
    assert_eq!(kinds(&state), ["user", "answer", "question"]);
    let asked = question(&state).expect("a question");
    assert_eq!(
        asked,
        ("Which release should the notes cover?".into(), None)
    );
    let owner = state
        .items()
        .iter()
        .find(|i| matches!(i.entry.kind, EntryKind::Note(Note::Question { .. })))
        .and_then(|i| i.agent.as_ref())
        .and_then(|a| a.id.clone());
    assert_eq!(owner.as_deref(), Some("writer@delivery"));
    // The roster's "input required" leads to it; nobody else asks anything.
    let question_id = state
        .items()
        .iter()
        .find(|i| matches!(i.entry.kind, EntryKind::Note(Note::Question { .. })))
        .map(|i| i.entry.id.clone());
    assert_eq!(state.asking("writer@delivery").cloned(), question_id);
    assert_eq!(state.asking("reviewer@remote"), None);
    // The stream ended, but the run is not finished: the teammate still needs input.
    let writer = state
        .team
        .as_ref()
        .and_then(|t| t.member("writer@delivery"));
    assert_eq!(
        writer.and_then(|m| m.status.as_deref()),
        Some("needs_input")
    );
    // The owner closing it without saying what it took answers nothing.
    let mut state = state;
    let closed = r#"{"type": "action.resolved", "sequence": 7, "runId": "run-clarify", "actionId": "act-clarify", "payload": {"outcome": "answered"}}"#;
    feed(&mut state, &mut AgentUiAdapter::new(), &[closed]);
    assert_eq!(question(&state).unwrap().1, None);
    // The answer shows once the owner confirms the text it took (another stream).
    let confirmed = r#"{"type": "action.resolved", "sequence": 7, "runId": "run-clarify", "actionId": "act-clarify", "payload": {"outcome": "answered", "text": "2.4"}}"#;
    let text = r#"{"type": "text.delta", "sequence": 8, "runId": "run-clarify", "messageId": "msg-notes", "agentId": "writer@delivery", "payload": {"delta": "Drafting."}}"#;
    feed(&mut state, &mut AgentUiAdapter::new(), &[confirmed, text]);
    assert_eq!(question(&state).unwrap().1.as_deref(), Some("2.4"));
    assert_eq!(
        state.asking("writer@delivery"),
        None,
        "answered: it asks nothing more"
    );
    // The later stream does not repeat the teammate's name; the roster has it.
    let notes = state.items().last().and_then(|i| i.agent.as_ref());
    assert_eq!(notes.map(|a| a.name.as_str()), Some("writer"));
    assert_eq!(
        crate::protocol::agent_ui::answer_metadata("act-clarify", "2.4"),
        serde_json::json!({"respond": {"actionId": "act-clarify", "text": "2.4"}})
    );
}

#[test]
fn check_08_queue_and_steer_are_distinct() {
    let mut state = sent("write the long answer");
    let mut adapter = AgentUiAdapter::new();
    let log = lines(QUEUE);
    // The run says what it takes; nothing is offered before it does.
    assert!(!state.run_queue.can_queue && !state.run_queue.can_steer);
    feed(&mut state, &mut adapter, &log[..1]);
    assert!(state.run_queue.can_queue && state.run_queue.can_steer);
    assert_eq!(state.run_queue.run_id.as_deref(), Some("run-long-1"));
    // A queued turn waits beside the composer: it is no message yet.
    feed(&mut state, &mut adapter, &log[1..5]);
    let queued: Vec<&str> = state
        .run_queue
        .queued
        .iter()
        .map(|t| t.text.as_str())
        .collect();
    assert_eq!(queued, ["and then the tests"]);
    assert_eq!(kinds(&state), ["user", "answer"]);
    // A steer is a note inside the run, where the run is now; the queue keeps its turn.
    feed(&mut state, &mut adapter, &log[5..9]);
    assert_eq!(kinds(&state), ["user", "answer", "steer", "answer"]);
    let steer = state.items().iter().find_map(|i| match &i.entry.kind {
        EntryKind::Note(Note::Steer { text, status, .. }) => Some((text.clone(), status.clone())),
        _ => None,
    });
    assert_eq!(
        steer,
        Some(("focus on the docs".into(), Some("applied".into())))
    );
    assert_eq!(state.run_queue.queued.len(), 1, "a steer is not queued");
    assert_eq!(
        text_of(&state, "msg-long-1"),
        "Step 1 of 40. Step 2 of 40. "
    );
    // The runtime starts the queued turn: now it is a user message, then its own run
    // (sequences from 1 again) answers it.
    feed(&mut state, &mut adapter, &log[9..]);
    assert_eq!(
        kinds(&state),
        ["user", "answer", "steer", "answer", "user", "answer"]
    );
    assert!(state.run_queue.queued.is_empty());
    assert_eq!(adapter.dropped, 0, "the second run's sequence is its own");
    assert_eq!(
        text_of(&state, "msg-run-long-2"),
        "You queued: «and then the tests». Done."
    );
    // The stream is over: so are the controls.
    reduce(&mut state, Input::StreamEnded);
    assert_eq!(state.run_queue, crate::reducer::RunQueue::default());
    // A run that names no controls offers none.
    let plain = run_until(STATUS, 3);
    assert!(!plain.run_queue.can_queue && !plain.run_queue.can_steer);
}

#[test]
fn check_09_the_artifact_body_is_not_in_the_transcript() {
    let state = run(STATUS);
    let card = state.items().iter().find_map(|i| match &i.entry.kind {
        EntryKind::Note(Note::Artifact { title, body, .. }) => Some((title.clone(), body.clone())),
        _ => None,
    });
    let (title, body) = card.expect("an artifact card");
    assert_eq!(title, "limits.md");
    assert!(body.unwrap().contains("10 000 a day"));
    assert!(!answers(&state).contains("10 000 a day"));
}

#[test]
fn check_10_citations_link_only_to_evidence_facts() {
    let state = run(STATUS);
    let answer = state
        .items()
        .iter()
        .find(|i| i.entry.id.0.ends_with(":msg:msg-answer"))
        .unwrap();
    let EntryKind::AssistantText(m) = &answer.entry.kind else {
        panic!()
    };
    let urls: Vec<String> = m.content[0]
        .annotations
        .iter()
        .filter_map(|a| match &a.source.kind {
            crate::protocol::chatkit::SourceKind::Url(u) => Some(u.url.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(urls, ["https://example.com/docs/limits"]);
}

#[test]
fn check_11_team_state_comes_from_agent_facts_not_prose() {
    let state = run(TEAM);
    let team = state.team.as_ref().expect("a team");
    let status = |id: &str| team.member(id).and_then(|m| m.status.clone());
    assert_eq!(status("researcher@delivery").as_deref(), Some("completed"));
    // Running when the run ended: nobody knows any more, so unknown, never "running".
    assert_eq!(status("writer@delivery"), None);
    assert_eq!(status("lead@delivery"), None);
    assert_eq!(status("reviewer@remote").as_deref(), Some("input_required"));
    // The roster's order: needs input first, then done, unknown last.
    let order: Vec<&str> = team.by_status().iter().map(|m| m.id.as_str()).collect();
    assert_eq!(
        order,
        [
            "reviewer@remote",
            "researcher@delivery",
            "lead@delivery",
            "writer@delivery"
        ]
    );
}

#[test]
fn check_12_the_team_topology_is_visible() {
    let state = run(TEAM);
    let team = state.team.as_ref().unwrap();
    assert_eq!(team.topology.as_deref(), Some("coordinator_team"));
    assert_eq!(team.name.as_deref(), Some("delivery"));
    assert!(state.items().iter().any(
        |i| matches!(&i.entry.kind, EntryKind::Note(Note::Handoff { from, to, .. })
            if from == "lead@delivery" && to == "writer@delivery")
    ));
}

#[test]
fn check_13_worker_notifications_are_not_user_messages() {
    let state = run(TEAM);
    // Delivered on a user-role channel, still a worker's note.
    let note = state.items().iter().find_map(|i| match &i.entry.kind {
        EntryKind::Note(Note::WorkerNotification {
            agent_id,
            summary,
            channel_role,
            ..
        }) => Some((agent_id.clone(), summary.clone(), channel_role.clone())),
        _ => None,
    });
    let (agent, summary, role) = note.expect("a worker notification");
    assert_eq!(agent, "researcher@delivery");
    assert_eq!(summary, "Found 14 tickets; 3 block the release.");
    assert_eq!(role.as_deref(), Some("user"));
    let users = kinds(&state).iter().filter(|k| *k == "user").count();
    assert_eq!(users, 1, "only the user's own message");
    assert!(!answers(&state).contains("Found 14 tickets"));
}

#[test]
fn check_14_lineage_survives_hydration_and_replay() {
    let first = run(TEAM);
    let again = run(TEAM);
    for state in [&first, &again] {
        let m = state
            .team
            .as_ref()
            .unwrap()
            .member("researcher@delivery")
            .unwrap();
        assert_eq!(m.parent_session_id.as_deref(), Some("session-lead"));
        assert_eq!(m.parent_thread_id.as_deref(), Some("thread-team"));
        assert_eq!(m.task_id.as_deref(), Some("task-research"));
        assert_eq!(m.session_id.as_deref(), Some("session-research"));
    }
    // A replay makes the same items, under the same ids.
    let ids = |s: &ChatState| {
        s.items()
            .iter()
            .skip(1)
            .map(|i| i.entry.id.0.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(ids(&first), ids(&again));
    // The same events applied twice (a replay into the same state) change nothing.
    let mut state = run(TEAM);
    let before = kinds(&state);
    feed(&mut state, &mut AgentUiAdapter::new(), &lines(TEAM));
    assert_eq!(kinds(&state), before);
}

#[test]
fn check_15_delegated_approvals_name_the_teammate() {
    let mut state = sent("deploy");
    feed(&mut state, &mut AgentUiAdapter::new(), &lines(APPROVAL));
    let card = state
        .items()
        .iter()
        .find(|i| i.entry.id.0.ends_with(":tool:tc-deploy"))
        .unwrap();
    assert_eq!(
        card.agent.as_ref().map(|a| a.name.as_str()),
        Some("deployer")
    );
    assert_eq!(
        card.agent.as_ref().and_then(|a| a.id.as_deref()),
        Some("deployer@ops")
    );
}

#[test]
fn check_16_context_and_compaction_are_boundaries() {
    let state = run(STATUS);
    let notes: Vec<String> = state
        .items()
        .iter()
        .filter_map(|i| match &i.entry.kind {
            EntryKind::Note(Note::Context { text }) => Some(text.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        notes,
        [
            "Context: 1200 of 8000 tokens · Missing context: design.md",
            "Context compacted: 12 earlier messages summarized"
        ]
    );
    assert!(!answers(&state).contains("summarized"));
}

#[test]
fn check_17_missing_facts_stay_unknown() {
    // The researcher's one idle tick is not completion.
    let mut state = sent("go");
    let mut adapter = AgentUiAdapter::new();
    let log = lines(TEAM);
    let idle = log.iter().position(|l| l.contains("\"idle\"")).unwrap();
    feed(&mut state, &mut adapter, &log[..=idle]);
    let team = state.team.as_ref().unwrap();
    assert_eq!(
        team.member("researcher@delivery")
            .unwrap()
            .status
            .as_deref(),
        Some("idle")
    );
    // A call whose run ended without its result is interrupted, not done.
    let mut state = sent("go");
    let log = lines(STATUS);
    let started = log.iter().position(|l| l.contains("tool.started")).unwrap();
    feed(&mut state, &mut AgentUiAdapter::new(), &log[..=started]);
    reduce(&mut state, Input::StreamEnded);
    assert_eq!(
        tool_state(&state, "tc-search"),
        Some(ToolCallState::Interrupted)
    );
}

#[test]
fn check_18_a_child_session_hydrates_progressively() {
    let mut state = sent("go");
    let mut adapter = AgentUiAdapter::new();
    let log = lines(CHILD);
    feed(&mut state, &mut adapter, &log[..3]);
    let analyst = |s: &ChatState| {
        s.team
            .as_ref()
            .unwrap()
            .member("analyst@data")
            .unwrap()
            .clone()
    };
    let texts = |s: &ChatState| {
        analyst(s)
            .transcript
            .iter()
            .map(|l| l.text.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(analyst(&state).transcript.len(), 1);
    assert!(analyst(&state).transcript_has_more);
    feed(&mut state, &mut adapter, &log[3..]);
    assert_eq!(
        texts(&state),
        ["Loaded 2 of 4 tables.", "Loaded 4 of 4 tables."]
    );
    let m = analyst(&state);
    assert!(m.transcript_has_more, "the session has older messages");
    assert_eq!(m.parent_session_id.as_deref(), Some("session-main"));

    // Older messages load on demand, a page at a time, in front of the loaded ones.
    let session: Value = serde_json::from_str(CHILD_SESSION).unwrap();
    let first = history_answer(&session, "an-1", 3);
    reduce(&mut state, history_page(&first).unwrap());
    assert_eq!(
        texts(&state),
        [
            "Picked 4 tables for the report.",
            "Checked the row counts: 1.2 M in all.",
            "Started loading.",
            "Loaded 2 of 4 tables.",
            "Loaded 4 of 4 tables."
        ]
    );
    assert!(analyst(&state).transcript_has_more);
    // The same page again (a second click, a slow answer) is stale: nothing moves.
    reduce(&mut state, history_page(&first).unwrap());
    assert_eq!(texts(&state).len(), 5);
    assert_eq!(state.diagnostics.stale_pages, 1);
    reduce(
        &mut state,
        history_page(&history_answer(&session, "an-c", 3)).unwrap(),
    );
    assert_eq!(texts(&state).len(), 7);
    assert_eq!(texts(&state)[0], "Opened the warehouse connection.");
    assert!(!analyst(&state).transcript_has_more, "all of it is loaded");
    // Not a page: refused, never guessed into one.
    assert!(history_page(log[2]).is_err(), "a window, not a page");
    assert!(history_page(log[4]).is_err());

    // A late window, or a late page, of a conversation the user left does not land in the
    // new one.
    reduce(&mut state, Input::Reset);
    assert!(state.team.is_none());
    reduce(&mut state, history_page(&first).unwrap());
    assert!(state.team.is_none());
    assert_eq!(state.diagnostics.stale_pages, 2, "dropped, and counted");
}

#[test]
fn check_19_diagnostics_and_metrics_stay_out_of_the_conversation() {
    let mut state = sent("go");
    let effects = feed(&mut state, &mut AgentUiAdapter::new(), &lines(STATUS));
    assert_eq!(state.diagnostics.facts.len(), 2);
    assert!(effects.iter().any(|e| matches!(e, Effect::Emit(crate::host_events::ChatEvent::Diagnostic { kind: "agent_ui_metric", name }) if name == "ttft_ms")));
    let everything = format!("{:?}", state.items());
    assert!(!everything.contains("cache miss") && !everything.contains("ttft"));
}
