//! The adapter's ordering and its tolerance of what it does not know, on the golden logs.

use super::golden::*;
use super::AgentUiAdapter;

#[test]
fn a_new_run_id_before_run_finished_does_not_restart_the_order() {
    // Only a finished run hands the stream to the next one: a stray id cannot reset the
    // sequence and replay what was applied.
    let mut state = sent("go");
    let mut adapter = AgentUiAdapter::new();
    let log = lines(QUEUE);
    feed(&mut state, &mut adapter, &log[..4]);
    let stray = log[2].replace("run-long-1", "run-other");
    feed(&mut state, &mut adapter, &[&stray]);
    assert_eq!(adapter.dropped, 1, "sequence 3 again is a duplicate");
    assert_eq!(
        text_of(&state, "msg-long-1"),
        "Step 1 of 40. Step 2 of 40. "
    );
}

#[test]
fn order_a_gap_resyncs_and_a_duplicate_applies_once() {
    let log = lines(GAP);
    let mut state = sent("count");
    let mut adapter = AgentUiAdapter::new();
    // Delivered: 1, 2, 3, 3 again, 4, then 7, 8, 9 (5 and 6 lost).
    let delivered = [
        log[0], log[1], log[2], log[2], log[3], log[6], log[7], log[8],
    ];
    feed(&mut state, &mut adapter, &delivered);
    assert_eq!(adapter.dropped, 1, "the duplicate");
    let gap = adapter.gap().expect("a gap");
    assert_eq!((gap.run_id.as_str(), gap.after), ("run-gap", 4));
    assert_eq!(state.resync.as_ref(), Some(&gap), "resyncing, visibly");
    assert_eq!(
        text_of(&state, "msg-count"),
        "One, two, ",
        "nothing after the gap"
    );
    // The resync brings every event after 4: the held ones apply once, in order.
    feed(&mut state, &mut adapter, &log[4..]);
    assert!(adapter.gap().is_none());
    assert_eq!(state.resync, None);
    assert_eq!(text_of(&state, "msg-count"), "One, two, three, four, five.");
}

#[test]
fn unknown_classes_and_broken_payloads_are_diagnostics_not_failures() {
    let mut state = sent("go");
    let mut adapter = AgentUiAdapter::new();
    let out = feed(
        &mut state,
        &mut adapter,
        &[
            r#"{"type":"brand.new.thing","sequence":1}"#,
            r#"{"sequence":2}"#,
            r#"not json"#,
            r#"{"type":"text.delta","sequence":2,"runId":"r","messageId":"m","payload":{"delta":"still here"}}"#,
        ],
    );
    assert_eq!(
        state.diagnostics.unknown_types.get("brand.new.thing"),
        Some(&1)
    );
    assert!(!out.is_empty());
    assert_eq!(text_of(&state, "m"), "still here");
    assert!(state.turn.is_some(), "the run goes on");
}
