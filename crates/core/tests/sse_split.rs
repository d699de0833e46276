#![cfg(not(target_arch = "wasm32"))]
//! The SSE decoder must not care where the network cuts the stream: every recorded
//! ChatKit fixture decodes to the same frames whole, split in two at any offset, and in
//! random chunk sizes.

use std::fs;
use std::path::PathBuf;
use std::sync::OnceLock;

use chat_shell_core::sse::{SseDecoder, SseFrame};
use proptest::prelude::*;

mod common;

/// Files larger than this are not split at every offset (that is O(n²)).
const EVERY_OFFSET_LIMIT: usize = 64 * 1024;
/// For large files: every offset this close to either end…
const EDGE: usize = 4 * 1024;
/// …plus every `STRIDE`th offset in between.
const STRIDE: usize = 97;
const BOM: &[u8] = b"\xEF\xBB\xBF";

struct Fixture {
    name: String,
    bytes: Vec<u8>,
    whole: Vec<SseFrame>,
}

fn fixture_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join("tests/fixtures/chatkit")
}

/// Every `*.sse` fixture, sorted by name, with its whole-stream decoding.
fn fixtures() -> &'static [Fixture] {
    static FIXTURES: OnceLock<Vec<Fixture>> = OnceLock::new();
    FIXTURES.get_or_init(|| {
        let dir = fixture_dir();
        let mut paths: Vec<PathBuf> = fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
            .map(|entry| entry.expect("directory entry").path())
            .filter(|p| p.extension().is_some_and(|ext| ext == "sse"))
            .collect();
        paths.sort();
        paths
            .into_iter()
            .map(|path| {
                let bytes = fs::read(&path).expect("fixture readable");
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                let whole = decode_chunks(&[&bytes]);
                Fixture { name, bytes, whole }
            })
            .collect()
    })
}

fn fixture(name: &str) -> &'static Fixture {
    fixtures()
        .iter()
        .find(|f| f.name == name)
        .unwrap_or_else(|| panic!("fixture {name} missing"))
}

fn decode_chunks(chunks: &[&[u8]]) -> Vec<SseFrame> {
    let mut decoder = SseDecoder::new();
    let mut frames = Vec::new();
    for chunk in chunks {
        frames.extend(decoder.push(chunk));
    }
    frames.extend(decoder.finish());
    frames
}

fn decode_split(bytes: &[u8], at: usize) -> Vec<SseFrame> {
    let (a, b) = bytes.split_at(at);
    decode_chunks(&[a, b])
}

/// Decodes `bytes` in chunks whose sizes cycle through `sizes`.
fn decode_sized(bytes: &[u8], sizes: &[usize]) -> Vec<SseFrame> {
    decode_chunks(&common::chunks(bytes, sizes))
}

/// The offsets at which a file of `len` bytes is split in two.
fn split_offsets(len: usize) -> Vec<usize> {
    if len <= EVERY_OFFSET_LIMIT {
        return (0..=len).collect();
    }
    let mut offsets: Vec<usize> = (0..=EDGE)
        .chain((EDGE..len - EDGE).step_by(STRIDE))
        .chain(len - EDGE..=len)
        .collect();
    offsets.dedup();
    offsets
}

fn data(frame: &SseFrame) -> &str {
    match frame {
        SseFrame::Event { data, .. } => data,
        other => panic!("unexpected {other:?}"),
    }
}

fn event(data: &str) -> SseFrame {
    SseFrame::Event {
        event: None,
        id: None,
        data: data.to_owned(),
    }
}

#[test]
fn all_fixtures_are_found() {
    let names: Vec<&str> = fixtures().iter().map(|f| f.name.as_str()).collect();
    assert!(
        names.len() >= 25,
        "only {} fixtures: {names:?}",
        names.len()
    );
    for must in ["long.sse", "markdown.sse", "widget.sse"] {
        assert!(names.contains(&must), "{must} missing from {names:?}");
    }
    assert!(fixture("long.sse").bytes.len() > EVERY_OFFSET_LIMIT);
}

#[test]
fn fixtures_decode_to_one_json_frame_per_data_line() {
    for f in fixtures() {
        let text = std::str::from_utf8(&f.bytes).expect("fixture is UTF-8");
        let data_lines = text.lines().filter(|l| l.starts_with("data: ")).count();
        assert!(data_lines > 0, "{}: no data lines", f.name);
        assert_eq!(f.whole.len(), data_lines, "{}: frame count", f.name);
        for (i, frame) in f.whole.iter().enumerate() {
            let SseFrame::Event { event, id, data } = frame else {
                panic!("{}: frame {i} is {frame:?}", f.name);
            };
            assert_eq!((event, id), (&None, &None), "{}: frame {i}", f.name);
            let json: serde_json::Value = serde_json::from_str(data)
                .unwrap_or_else(|e| panic!("{}: frame {i} is not JSON ({e}): {data}", f.name));
            assert!(
                json.get("type").is_some(),
                "{}: frame {i} has no type",
                f.name
            );
        }
    }
}

#[test]
fn fixture_frames_match_the_raw_data_lines() {
    // Independent of the decoder: the payload of each frame is the text after "data: ".
    for f in fixtures() {
        let text = std::str::from_utf8(&f.bytes).unwrap();
        let expected: Vec<&str> = text
            .lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .collect();
        let got: Vec<&str> = f.whole.iter().map(data).collect();
        assert_eq!(got, expected, "{}", f.name);
    }
}

#[test]
fn fixtures_split_at_every_offset_match_whole() {
    let mut checked = 0usize;
    for f in fixtures() {
        let offsets = split_offsets(f.bytes.len());
        if f.bytes.len() > EVERY_OFFSET_LIMIT {
            assert!(offsets.len() < f.bytes.len() / 10, "{}: sampling", f.name);
        } else {
            assert_eq!(offsets.len(), f.bytes.len() + 1);
        }
        // Large files are checked on all cores; the work is O(offsets × len).
        let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
        let per = offsets.len().div_ceil(workers).max(1);
        std::thread::scope(|s| {
            for part in offsets.chunks(per) {
                s.spawn(move || {
                    for &at in part {
                        let split = decode_split(&f.bytes, at);
                        if split != f.whole {
                            let i = split
                                .iter()
                                .zip(&f.whole)
                                .position(|(a, b)| a != b)
                                .unwrap_or(split.len().min(f.whole.len()));
                            panic!(
                                "{}: split at {at}: {} frames vs {}, first difference at frame {i}",
                                f.name,
                                split.len(),
                                f.whole.len()
                            );
                        }
                    }
                });
            }
        });
        checked += offsets.len();
    }
    assert!(checked > 100_000, "only {checked} splits checked");
}

#[test]
fn split_offsets_cover_edges_and_stride() {
    let len = 200_000;
    let offsets = split_offsets(len);
    for at in (0..=EDGE).chain(len - EDGE..=len) {
        assert!(offsets.binary_search(&at).is_ok(), "{at} missing");
    }
    assert!(offsets
        .windows(2)
        .all(|w| w[0] < w[1] && w[1] - w[0] <= STRIDE));
    assert_eq!(split_offsets(10), (0..=10).collect::<Vec<_>>());
}

#[test]
fn multibyte_utf8_split_inside_characters() {
    let stream = "data: {\"text\":\"héllo 🌍\"}\n\nevent: ü\ndata: {\"text\":\"日本\"}\n\n";
    let bytes = stream.as_bytes();
    let want = vec![
        event("{\"text\":\"héllo 🌍\"}"),
        SseFrame::Event {
            event: Some("ü".into()),
            id: None,
            data: "{\"text\":\"日本\"}".into(),
        },
    ];
    // Offsets that fall inside a character must exist, or this test proves nothing.
    let inside = (0..=bytes.len())
        .filter(|&at| !stream.is_char_boundary(at))
        .count();
    assert!(inside >= 8, "{inside}");
    for at in 0..=bytes.len() {
        let frames = decode_split(bytes, at);
        assert_eq!(frames, want, "split at {at}");
        let json: serde_json::Value = serde_json::from_str(data(&frames[0])).unwrap();
        assert_eq!(json["text"], "héllo 🌍", "split at {at}");
    }
    // Three pieces, every pair of cut points.
    for a in 0..=bytes.len() {
        for b in a..=bytes.len() {
            let frames = decode_chunks(&[&bytes[..a], &bytes[a..b], &bytes[b..]]);
            assert_eq!(frames, want, "split at {a} and {b}");
        }
    }
    let bytewise: Vec<&[u8]> = bytes.chunks(1).collect();
    assert_eq!(decode_chunks(&bytewise), want);
}

#[test]
fn crlf_stream_split_between_cr_and_lf() {
    let stream = b"data: {\"a\":1}\r\n\r\n: keepalive\r\n\r\nevent: x\r\ndata: {\"b\":\r\ndata: 2}\r\n\r\ndata: [DONE]\r\n\r\n";
    let want = vec![
        event("{\"a\":1}"),
        SseFrame::Event {
            event: Some("x".into()),
            id: None,
            data: "{\"b\":\n2}".into(),
        },
        SseFrame::Done,
    ];
    let mut between_cr_lf = 0;
    for at in 0..=stream.len() {
        if at > 0 && at < stream.len() && stream[at - 1] == b'\r' && stream[at] == b'\n' {
            between_cr_lf += 1;
        }
        let (a, b) = stream.split_at(at);
        let mut decoder = SseDecoder::new();
        let mut frames = decoder.push(a);
        frames.extend(decoder.push(b));
        frames.extend(decoder.finish());
        assert_eq!(frames, want, "split at {at}");
        assert_eq!(decoder.comments_seen(), 1, "split at {at}");
    }
    assert_eq!(between_cr_lf, 10);
    // Every CR followed by its LF in a chunk of its own.
    let mut chunks: Vec<&[u8]> = Vec::new();
    let mut start = 0;
    for (i, &byte) in stream.iter().enumerate() {
        if byte == b'\r' {
            chunks.push(&stream[start..=i]);
            start = i + 1;
        }
    }
    chunks.push(&stream[start..]);
    assert_eq!(decode_chunks(&chunks), want);
}

/// Fixtures used for random chunking: small ones, the markdown one with emoji, and the
/// long one.
const RANDOM_FIXTURES: [&str; 5] = [
    "markdown.sse",
    "widget.sse",
    "workflow.sse",
    "forkquirks.sse",
    "long.sse",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn fixtures_in_random_chunks_match_whole(
        which in 0..RANDOM_FIXTURES.len(),
        bom in any::<bool>(),
        sizes in prop::collection::vec(1usize..64, 1..256),
    ) {
        let f = fixture(RANDOM_FIXTURES[which]);
        let bytes = if bom { [BOM, &f.bytes].concat() } else { f.bytes.clone() };
        prop_assert_eq!(&decode_sized(&bytes, &sizes), &f.whole);
    }

    #[test]
    fn fixtures_with_other_line_endings_match_whole(
        which in 0..RANDOM_FIXTURES.len() - 1,
        ending in prop::sample::select(vec!["\n", "\r\n", "\r"]),
        sizes in prop::collection::vec(1usize..64, 1..256),
    ) {
        // Each event gets an `event:` line and a comment before its data, so that a
        // spurious line break (a CR and LF cut apart) would lose the event type.
        // JSON payloads hold no raw newlines, so every LF is a line end.
        let f = fixture(RANDOM_FIXTURES[which]);
        let text = std::str::from_utf8(&f.bytes).unwrap();
        let mut rewritten = String::with_capacity(text.len() * 2);
        for line in text.lines() {
            if line.starts_with("data: ") {
                rewritten.push_str("event: delta");
                rewritten.push_str(ending);
                rewritten.push_str(": comment");
                rewritten.push_str(ending);
            }
            rewritten.push_str(line);
            rewritten.push_str(ending);
        }
        let want: Vec<SseFrame> = f
            .whole
            .iter()
            .map(|frame| SseFrame::Event {
                event: Some("delta".into()),
                id: None,
                data: data(frame).to_owned(),
            })
            .collect();
        prop_assert_eq!(&decode_sized(rewritten.as_bytes(), &sizes), &want);
    }

    #[test]
    fn arbitrary_bytes_never_panic_and_ignore_chunking(
        bytes in prop::collection::vec(
            prop_oneof![
                prop::sample::select(b"\r\n: datevnirDONE[]\xEF\xBB\xBF\xF0\x9F\x8C\x8D\0".to_vec()),
                any::<u8>(),
            ],
            0..400,
        ),
        bom in any::<bool>(),
        sizes in prop::collection::vec(1usize..64, 1..32),
    ) {
        let bytes = if bom { [BOM, &bytes].concat() } else { bytes };
        let whole = decode_chunks(&[&bytes]);
        prop_assert_eq!(&decode_sized(&bytes, &sizes), &whole);
        let bytewise: Vec<&[u8]> = bytes.chunks(1).collect();
        prop_assert_eq!(&decode_chunks(&bytewise), &whole);
    }
}
