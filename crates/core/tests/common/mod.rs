//! Shared helpers for the native fixture tests: read recorded ChatKit traffic and replay it
//! through the SSE decoder and the reducer exactly as the browser runtime does.
#![allow(dead_code)]

use chat_shell_core::protocol::chatkit::decode_event;
use chat_shell_core::reducer::{reduce, ChatState, Input, Outcome, OutgoingMessage};
use chat_shell_core::sse::{SseDecoder, SseFrame};
use std::path::PathBuf;

pub fn fixture_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join("tests/fixtures/chatkit")
        .join(name)
}

pub fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(fixture_path(name)).unwrap_or_else(|e| panic!("fixture {name}: {e}"))
}

pub fn fixture_names(ext: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(fixture_path(""))
        .expect("fixtures dir")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(ext))
        .collect();
    names.sort();
    names
}

/// Everything a replay produced besides the state.
#[derive(Default)]
pub struct Replay {
    pub outcomes: Vec<Outcome>,
    /// Snapshots taken after each frame by `observe`.
    pub observed: Vec<String>,
}

impl Replay {
    pub fn warnings(&self) -> Vec<String> {
        self.outcomes
            .iter()
            .flat_map(|o| o.warnings.iter().map(|w| w.message.clone()))
            .collect()
    }
}

/// Feed `bytes` in chunks of the given sizes (cycled) into the decoder and the reducer,
/// then end the stream. `start` is the client input that began the turn.
pub fn replay_into(
    state: &mut ChatState,
    start: Input,
    bytes: &[u8],
    chunk_sizes: &[usize],
    mut observe: impl FnMut(&ChatState) -> Option<String>,
) -> Replay {
    let mut replay = Replay::default();
    replay.outcomes.push(reduce(state, start));
    let mut decoder = SseDecoder::new();
    let mut offset = 0;
    let mut sizes = chunk_sizes.iter().cycle();
    let mut feed = |state: &mut ChatState, frames: Vec<SseFrame>, replay: &mut Replay| {
        for frame in frames {
            let input = match frame {
                SseFrame::Event { data, .. } => match decode_event(&data) {
                    Ok(event) => chat_shell_core::adapters::chatkit::input(event),
                    Err(e) => Input::Malformed(e),
                },
                SseFrame::Done | SseFrame::Oversized { .. } => continue,
            };
            replay.outcomes.push(reduce(state, input));
            if let Some(seen) = observe(state) {
                replay.observed.push(seen);
            }
        }
    };
    while offset < bytes.len() {
        let n = (*sizes.next().unwrap()).max(1).min(bytes.len() - offset);
        let frames = decoder.push(&bytes[offset..offset + n]);
        feed(state, frames, &mut replay);
        offset += n;
    }
    let frames = decoder.finish();
    feed(state, frames, &mut replay);
    replay.outcomes.push(reduce(state, Input::StreamEnded));
    replay
}

/// Replay a fixture that answers a user's message `text`, whole.
pub fn replay_message(name: &str, text: &str) -> (ChatState, Replay) {
    let mut state = ChatState::new();
    let start = Input::SendStarted(OutgoingMessage {
        content: Vec::new(),
        text: text.into(),
        ..Default::default()
    });
    let replay = replay_into(&mut state, start, &fixture(name), &[usize::MAX], |_| None);
    (state, replay)
}

/// `bytes` cut in chunks whose sizes cycle through `sizes` (each at least 1), as a network
/// might deliver them.
pub fn chunks<'a>(bytes: &'a [u8], sizes: &[usize]) -> Vec<&'a [u8]> {
    let mut out = Vec::new();
    let mut rest = bytes;
    for &size in sizes.iter().cycle() {
        if rest.is_empty() {
            break;
        }
        let (chunk, tail) = rest.split_at(size.clamp(1, rest.len()));
        out.push(chunk);
        rest = tail;
    }
    out
}
