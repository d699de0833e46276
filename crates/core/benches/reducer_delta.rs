//! Benchmark: the cost of applying a text delta must not grow with the message.
//! Applies 100,000 deltas to one assistant message and prints the cost per delta over the
//! first and the last 10,000, and their ratio. A figure to report, not a timed test.

use chat_shell_core::protocol::chatkit::{decode_event, StreamEvent};
use chat_shell_core::reducer::{reduce, ChatState, Input};
use std::time::Instant;

const DELTAS: usize = 100_000;
const WINDOW: usize = 10_000;

fn delta_json(i: usize) -> String {
    format!(
        r#"{{"type":"thread.item.updated","item_id":"msg_1","update":{{"type":"assistant_message.content_part.text_delta","content_index":0,"delta":"word{} "}}}}"#,
        i % 10
    )
}

fn run(decode_in_loop: bool) -> (f64, f64) {
    let mut state = ChatState::new();
    reduce(&mut state, Input::TurnStarted);
    let added = r#"{"type":"thread.item.added","item":{"id":"msg_1","type":"assistant_message","content":[{"type":"output_text","text":""}]}}"#;
    reduce(
        &mut state,
        chat_shell_core::adapters::chatkit::input(decode_event(added).unwrap()),
    );
    let raw: Vec<String> = (0..DELTAS).map(delta_json).collect();
    let mut decoded: Vec<Option<StreamEvent>> =
        raw.iter().map(|r| Some(decode_event(r).unwrap())).collect();
    let mut window_ns = Vec::new();
    let mut started = Instant::now();
    for i in 0..DELTAS {
        let event = if decode_in_loop {
            decode_event(&raw[i]).unwrap()
        } else {
            decoded[i].take().unwrap()
        };
        let out = reduce(&mut state, chat_shell_core::adapters::chatkit::input(event));
        std::hint::black_box(out);
        // The runtime drains changes once per frame; here once per delta (the worst case).
        std::hint::black_box(state.take_changes());
        if (i + 1) % WINDOW == 0 {
            window_ns.push(started.elapsed().as_nanos() as f64 / WINDOW as f64);
            started = Instant::now();
        }
    }
    (window_ns[0], *window_ns.last().unwrap())
}

fn main() {
    // Warm up allocator and caches once, then measure.
    run(false);
    let (first, last) = run(false);
    println!(
        "bench reducer text delta: first 10k {first:.0} ns/delta, last 10k {last:.0} ns/delta, last/first {:.2}",
        last / first
    );
    let (first, last) = run(true);
    println!(
        "bench decode+reduce text delta: first 10k {first:.0} ns/delta, last 10k {last:.0} ns/delta, last/first {:.2}",
        last / first
    );
}
