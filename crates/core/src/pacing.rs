//! Pacing streamed text: how much of an answer to show each animation frame. The typewriter
//! follows the model's own pace: each arrival's backlog is spread over the time the next
//! one is expected in (the smoothed gap between arrivals, at most [`SMOOTH_MS`]), so a
//! fast model's text shows as it comes and a slow or bursty one's flows between its
//! chunks; once the answer is done, what is left shows within [`FINAL_MS`]. A frame never
//! renders more than the measured slice, so no catching up is one long task.

use crate::reducer::ItemStatus;

/// Fewest bytes revealed per frame while there is a backlog.
const MIN_STEP: usize = 3;
/// One frame at 60 Hz (ms).
const FRAME_MS: f64 = 1000.0 / 60.0;
/// Longest a backlog is spread over while the answer streams: a model slower than this
/// between chunks shows each chunk over half a second, then waits.
pub const SMOOTH_MS: f64 = 500.0;
/// What a finished answer still holds back shows within this (ms), measured from the
/// frame that learns the answer is done.
pub const FINAL_MS: f64 = 100.0;
/// The gap between arrivals assumed before two have been seen (ms).
const FIRST_GAP_MS: f64 = 50.0;
/// Bytes shown in one frame without animation (reduced motion) until the renderer's cost
/// is known: what arrives at a reading pace shows at once, while a whole answer arriving in
/// one piece is rendered in frame-sized slices instead of one long task.
pub const STILL_SLICE: usize = 2048;
/// Bounds of the measured slice: never so small that a fast renderer crawls through a big
/// answer in hundreds of frames, never so big that one frame holds a long task.
pub const MIN_SLICE: usize = 2048;
pub const MAX_SLICE: usize = 32 * 1024;
/// Rendering time a slice aims at (ms), leaving the rest of a 16.7 ms frame for style,
/// layout and paint, which grow with what was rendered.
const SLICE_MS: f64 = 6.0;

/// The reveal position of one streamed text.
#[derive(Clone, Debug, Default)]
pub struct Pacer {
    revealed: usize,
    /// The text length last seen, to notice arrivals.
    known: usize,
    /// When the current backlog should be all shown (ms, the caller's clock).
    due: f64,
    /// When text last arrived, and the smoothed gap between arrivals (ms).
    arrived: Option<f64>,
    gap: f64,
    animate: bool,
    /// Only text that arrived live is paced; history renders at once.
    streamed: bool,
    /// Most bytes one frame may render, from the measured cost (see `measured`).
    slice: usize,
}

impl Pacer {
    /// `animate: false` (reduced motion): no typewriter; text shows as it arrives, at most
    /// a slice a frame.
    pub fn new(animate: bool) -> Self {
        Pacer {
            revealed: 0,
            known: 0,
            due: 0.0,
            arrived: None,
            gap: FIRST_GAP_MS,
            animate,
            streamed: false,
            slice: STILL_SLICE,
        }
    }

    /// Tell the pacer that rendering `bytes` more text took `ms`: the slice becomes what
    /// fits [`SLICE_MS`] at that cost (smoothed, so one slow frame does not halve it).
    /// Small renders say little about the cost per byte and are ignored.
    pub fn measured(&mut self, bytes: usize, ms: f64) {
        if bytes < 512 || !ms.is_finite() || ms < 0.0 {
            return;
        }
        let fits = (SLICE_MS * bytes as f64 / ms.max(0.05)) as usize;
        let next = (self.slice + fits.clamp(MIN_SLICE, MAX_SLICE)) / 2;
        self.slice = next.clamp(MIN_SLICE, MAX_SLICE);
    }

    /// Most bytes the next frame may render.
    pub fn slice(&self) -> usize {
        self.slice
    }

    /// The part of `text` to show in the frame at `now` (ms, any monotonic clock), and
    /// whether more remains to reveal. A finished answer drains what is left within
    /// [`FINAL_MS`]; a stopped or failed one shows everything at once.
    pub fn next<'t>(
        &mut self,
        text: &'t str,
        status: ItemStatus,
        live: bool,
        now: f64,
    ) -> (&'t str, bool) {
        self.streamed |= live || status == ItemStatus::Streaming;
        let pace = matches!(status, ItemStatus::Streaming | ItemStatus::Done);
        if !pace || !self.streamed || self.revealed > text.len() {
            self.revealed = text.len();
            return (text, false);
        }
        let slice = self.slice.max(MIN_STEP);
        if !self.animate {
            self.revealed = ceil_boundary(text, (self.revealed + slice).min(text.len()));
            return (&text[..self.revealed], self.revealed < text.len());
        }
        if text.len() > self.known {
            self.known = text.len();
            if let Some(last) = self.arrived {
                // Smoothed, so one late chunk does not stretch the next second.
                self.gap = (3.0 * self.gap + (now - last).clamp(0.0, SMOOTH_MS)) / 4.0;
            }
            self.arrived = Some(now);
            self.due = now + self.gap.clamp(FRAME_MS, SMOOTH_MS);
        }
        if status == ItemStatus::Done {
            self.due = self.due.min(now + FINAL_MS);
        }
        let backlog = text.len() - self.revealed;
        // Frames left until the backlog is due, this one included.
        let frames = ((self.due - now) / FRAME_MS).ceil().max(1.0) as usize;
        let step = MIN_STEP.max(backlog.div_ceil(frames)).min(slice);
        // Round up to a character boundary: rounding down could stand still forever on a
        // character longer than the step (an emoji is 4 bytes).
        self.revealed = ceil_boundary(text, (self.revealed + step).min(text.len()));
        (&text[..self.revealed], self.revealed < text.len())
    }
}

fn ceil_boundary(s: &str, mut i: usize) -> usize {
    while i < s.len() && !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Frames until everything shows, for a text that arrived all at once, and the most
    /// bytes one frame showed.
    fn frames_to_reveal(text: &str, status: ItemStatus) -> (usize, usize) {
        let mut pacer = Pacer::new(true);
        let (mut frames, mut widest, mut last) = (0, 0, 0);
        loop {
            let (shown, more) = pacer.next(text, status, true, frames as f64 * FRAME_MS);
            frames += 1;
            assert!(text.starts_with(shown));
            widest = widest.max(shown.len() - last);
            last = shown.len();
            if !more {
                assert_eq!(shown, text);
                return (frames, widest);
            }
            assert!(frames < 10_000, "pacing never finishes");
        }
    }

    /// Streams `chunks` (arrival time in ms, bytes) into a pacer at 60 Hz, the answer done
    /// with the last one; returns each frame's shown length and the ms from the last
    /// byte to the whole text on screen.
    fn stream(chunks: &[(f64, usize)], pacer: &mut Pacer) -> (Vec<usize>, f64) {
        let mut text = String::new();
        let mut shown_by_frame = Vec::new();
        let last_arrival = chunks.last().map_or(0.0, |c| c.0);
        let mut next_chunk = 0;
        for frame in 0..100_000 {
            let now = frame as f64 * FRAME_MS;
            while next_chunk < chunks.len() && chunks[next_chunk].0 <= now {
                text.push_str(&"a".repeat(chunks[next_chunk].1));
                next_chunk += 1;
            }
            let done = next_chunk == chunks.len();
            let status = if done {
                ItemStatus::Done
            } else {
                ItemStatus::Streaming
            };
            let (shown, more) = pacer.next(&text, status, true, now);
            shown_by_frame.push(shown.len());
            if done && !more {
                return (shown_by_frame, now - last_arrival);
            }
        }
        panic!("never finished");
    }

    /// A random generator for the property tests (xorshift, seeded from the clock).
    fn seeded() -> (u64, impl FnMut() -> u64) {
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(7, |d| d.as_nanos() as u64)
            | 1;
        let mut x = seed;
        (seed, move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        })
    }

    #[test]
    fn the_final_text_shows_within_about_100_ms_of_the_last_byte_at_any_speed() {
        let (seed, mut rand) = seeded();
        for _ in 0..200 {
            // From 200 deltas a second to one chunk every 2 s, sizes 1 B to 4 kB.
            let gap = [5.0, 20.0, 50.0, 150.0, 400.0, 2000.0][(rand() % 6) as usize];
            let count = 1 + (rand() % 300) as usize;
            let mut at = 0.0;
            let chunks: Vec<(f64, usize)> = (0..count)
                .map(|_| {
                    at += gap * (0.5 + (rand() % 100) as f64 / 100.0);
                    (at, 1 + (rand() % 4096) as usize)
                })
                .collect();
            let mut pacer = Pacer::new(true);
            // A renderer fast enough for any slice (the slice bound is its own test).
            for _ in 0..20 {
                pacer.measured(8192, 0.1);
            }
            let (_, lag) = stream(&chunks, &mut pacer);
            assert!(
                lag <= FINAL_MS + 2.0 * FRAME_MS,
                "seed {seed}: gap {gap} ms, {count} chunks: final text {lag} ms after the last byte"
            );
        }
    }

    #[test]
    fn a_slow_model_is_smoothed_between_its_chunks() {
        // 400 bytes every 300 ms: each chunk flows over the frames until the next.
        let chunks: Vec<(f64, usize)> = (1..=20).map(|i| (i as f64 * 300.0, 400)).collect();
        let mut pacer = Pacer::new(true);
        let (shown, _) = stream(&chunks, &mut pacer);
        // Past the first few chunks (the gap is learnt), a chunk takes many frames to show.
        let start = (6.0 * 300.0 / FRAME_MS) as usize;
        let window = &shown[start..start + 18];
        let frames_moving = window.windows(2).filter(|w| w[1] > w[0]).count();
        assert!(
            frames_moving >= 10,
            "a 300 ms chunk showed in {frames_moving} of 18 frames: {window:?}"
        );
        // And never more than a chunk's worth behind.
        let arrived_by = |frame: usize| ((frame as f64 * FRAME_MS) / 300.0).floor() as usize * 400;
        for (frame, &len) in shown.iter().enumerate().skip(start) {
            assert!(
                arrived_by(frame).saturating_sub(len) <= 800,
                "frame {frame}: {len}"
            );
        }
    }

    #[test]
    fn a_fast_model_shows_as_it_comes() {
        // 30 bytes every 5 ms (200 deltas a second): at most a frame or two behind.
        let chunks: Vec<(f64, usize)> = (1..=600).map(|i| (i as f64 * 5.0, 30)).collect();
        let mut pacer = Pacer::new(true);
        let (shown, _) = stream(&chunks, &mut pacer);
        for (frame, &len) in shown.iter().enumerate().skip(30).take(150) {
            let arrived = ((frame as f64 * FRAME_MS) / 5.0).floor() as usize * 30;
            assert!(
                arrived - len <= 3 * 30 * 4,
                "frame {frame}: {len} of {arrived}"
            );
        }
    }

    #[test]
    fn a_whole_answer_at_once_shows_in_bounded_frames() {
        for len in [1_000, 16_000, 100_000, 1_000_000] {
            let (frames, widest) = frames_to_reveal(&"x".repeat(len), ItemStatus::Done);
            // Within FINAL_MS, unless the renderer's slice makes that a long task.
            let bound = ((FINAL_MS / FRAME_MS).ceil() as usize + 1).max(len.div_ceil(STILL_SLICE));
            assert!(frames <= bound, "{len} bytes took {frames} frames");
            assert!(
                widest <= STILL_SLICE,
                "{len} bytes: one frame showed {widest}"
            );
        }
        // A small burst goes at once.
        assert!(frames_to_reveal("tiny", ItemStatus::Streaming).0 <= 4);
    }

    #[test]
    fn multibyte_characters_never_stall_it() {
        let text = "🌍🌍🌍 héllo 日本語 🌍".repeat(3);
        assert!(frames_to_reveal(&text, ItemStatus::Streaming).0 < 200);
    }

    #[test]
    fn history_stopped_and_reduced_motion_show_everything_at_once() {
        let text = "a long answer ".repeat(50);
        let mut loaded = Pacer::new(true);
        assert_eq!(
            loaded.next(&text, ItemStatus::Done, false, 0.0),
            (text.as_str(), false)
        );
        let mut stopped = Pacer::new(true);
        assert_eq!(
            stopped.next(&text, ItemStatus::Stopped, true, 0.0),
            (text.as_str(), false)
        );
        let mut still = Pacer::new(false);
        assert_eq!(
            still.next(&text, ItemStatus::Streaming, true, 0.0),
            (text.as_str(), false)
        );
    }

    #[test]
    fn reduced_motion_renders_a_whole_answer_in_frame_sized_slices() {
        let text = "é".repeat(54_000); // 108 kB at once
        let mut still = Pacer::new(false);
        let mut frames = 0;
        let mut last = 0;
        loop {
            frames += 1;
            let (shown, more) = still.next(&text, ItemStatus::Done, true, frames as f64);
            assert!(
                shown.len() - last <= STILL_SLICE + 1,
                "one frame showed {} bytes",
                shown.len() - last
            );
            last = shown.len();
            if !more {
                assert_eq!(shown, text);
                break;
            }
        }
        assert_eq!(frames, text.len().div_ceil(STILL_SLICE));
        // Text arriving at a reading pace is never held back.
        let mut still = Pacer::new(false);
        let mut streamed = String::new();
        for i in 0..100 {
            streamed.push_str("a few words ");
            assert_eq!(
                still.next(&streamed, ItemStatus::Streaming, true, i as f64),
                (streamed.as_str(), false)
            );
        }
    }

    #[test]
    fn a_text_that_shrank_is_shown_whole() {
        let mut pacer = Pacer::new(true);
        let long = "y".repeat(300);
        let mut now = 0.0;
        while pacer.next(&long, ItemStatus::Streaming, true, now).1 {
            now += FRAME_MS;
        }
        assert_eq!(
            pacer.next("short", ItemStatus::Done, true, now),
            ("short", false)
        );
    }

    #[test]
    fn a_big_backlog_is_caught_up_in_measured_slices() {
        let text = "w".repeat(200_000);
        let mut pacer = Pacer::new(true);
        // A renderer measured at 1 ms per 4 kB gets slices of about 24 kB.
        for _ in 0..8 {
            pacer.measured(4096, 1.0);
        }
        let slice = pacer.slice();
        assert!((20_000..=MAX_SLICE).contains(&slice), "slice {slice}");
        let mut last = 0;
        let mut frames = 0;
        loop {
            let (shown, more) = pacer.next(&text, ItemStatus::Done, true, frames as f64 * FRAME_MS);
            frames += 1;
            let step = shown.len() - last;
            assert!(step <= slice, "one frame showed {step} bytes");
            last = shown.len();
            if !more {
                break;
            }
        }
        assert_eq!(
            frames,
            text.len().div_ceil(slice),
            "sliced, not dumped or crawled"
        );
    }

    #[test]
    fn the_slice_follows_the_measured_cost_within_bounds() {
        let mut pacer = Pacer::new(false);
        assert_eq!(pacer.slice(), STILL_SLICE);
        // A slow renderer (10 ms per 2 kB) shrinks it to the floor, a fast one grows it to
        // the ceiling; tiny renders and nonsense timings change nothing.
        for _ in 0..20 {
            pacer.measured(2048, 10.0);
        }
        assert_eq!(pacer.slice(), MIN_SLICE);
        for _ in 0..20 {
            pacer.measured(8192, 0.1);
        }
        assert!(pacer.slice() > MAX_SLICE - 64, "{}", pacer.slice());
        let before = pacer.slice();
        pacer.measured(100, 50.0);
        pacer.measured(4096, f64::NAN);
        assert_eq!(pacer.slice(), before);
        // Reduced motion renders a whole answer in slices of the measured size.
        let text = "r".repeat(100_000);
        let (shown, more) = pacer.next(&text, ItemStatus::Done, true, 0.0);
        assert!(more);
        assert_eq!(shown.len(), before);
    }
}
