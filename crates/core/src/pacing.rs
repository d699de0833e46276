//! Pacing streamed text: how much of an answer to show each animation frame. Bursts are
//! smoothed, but whatever has arrived is shown within about a second: when new text comes,
//! the backlog is spread evenly over the next 60 frames, so at any arrival rate a byte waits
//! about that long (backlog = rate × delay) and never much longer.

use crate::reducer::ItemStatus;

/// Fewest bytes revealed per frame while there is a backlog.
const MIN_STEP: usize = 3;
/// Frames over which a backlog is drained: about one second at 60 Hz.
pub const DRAIN_FRAMES: usize = 60;
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
/// A typewriter backlog bigger than this (about two screens of text) is not animated: it
/// is caught up in measured slices, since nobody reads 100 kB appearing over a second and
/// every animated frame costs a layout of the growing message.
pub const CATCH_UP: usize = 16 * 1024;

/// The reveal position of one streamed text.
#[derive(Clone, Debug, Default)]
pub struct Pacer {
    revealed: usize,
    /// The text length last seen, to notice arrivals.
    known: usize,
    /// Frames left to show the current backlog in.
    frames_left: usize,
    animate: bool,
    /// Only text that arrived live is paced; history renders at once.
    streamed: bool,
    /// Most bytes one frame may render, from the measured cost (see `measured`).
    slice: usize,
    /// Showing a backlog bigger than [`CATCH_UP`] in slices, until it is all shown.
    catching_up: bool,
}

impl Pacer {
    /// `animate: false` (reduced motion): no typewriter; text shows as it arrives, at most
    /// [`STILL_SLICE`] bytes a frame.
    pub fn new(animate: bool) -> Self {
        Pacer {
            revealed: 0,
            known: 0,
            frames_left: DRAIN_FRAMES,
            animate,
            streamed: false,
            slice: STILL_SLICE,
            catching_up: false,
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

    /// The part of `text` to show this frame, and whether more remains to reveal. A
    /// finished answer keeps draining at the same pace (a burst at the end is smoothed too,
    /// and a whole answer arriving at once is not rendered in one long task); a stopped or
    /// failed one shows everything at once.
    pub fn next<'t>(&mut self, text: &'t str, status: ItemStatus, live: bool) -> (&'t str, bool) {
        self.streamed |= live || status == ItemStatus::Streaming;
        let pace = matches!(status, ItemStatus::Streaming | ItemStatus::Done);
        if !pace || !self.streamed || self.revealed > text.len() {
            self.revealed = text.len();
            return (text, false);
        }
        if !self.animate {
            self.revealed = ceil_boundary(text, (self.revealed + self.slice).min(text.len()));
            return (&text[..self.revealed], self.revealed < text.len());
        }
        if text.len() > self.known {
            self.known = text.len();
            self.frames_left = DRAIN_FRAMES;
        }
        let backlog = text.len() - self.revealed;
        // Once caught up, what arrives after is animated again.
        self.catching_up = (self.catching_up && backlog > 0) || backlog > CATCH_UP;
        let paced = MIN_STEP.max(backlog.div_ceil(self.frames_left));
        let step = if self.catching_up {
            paced.max(self.slice)
        } else {
            paced
        };
        self.frames_left = self.frames_left.saturating_sub(1).max(1);
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

    /// Frames until everything shows, for a text that arrived all at once.
    fn frames_to_reveal(text: &str, status: ItemStatus) -> usize {
        let mut pacer = Pacer::new(true);
        let mut frames = 0;
        loop {
            frames += 1;
            let (shown, more) = pacer.next(text, status, true);
            assert!(text.starts_with(shown));
            if !more {
                assert_eq!(shown, text);
                return frames;
            }
            assert!(frames < 10_000, "pacing never finishes");
        }
    }

    #[test]
    fn a_backlog_drains_within_about_a_second_whatever_its_size() {
        for len in [1_000, CATCH_UP, 100_000, 1_000_000] {
            let frames = frames_to_reveal(&"x".repeat(len), ItemStatus::Done);
            assert!(frames <= DRAIN_FRAMES, "{len} bytes took {frames} frames");
            // Up to CATCH_UP it is animated over the whole second; beyond, sliced faster.
            if len <= CATCH_UP {
                assert!(
                    frames >= DRAIN_FRAMES - 1,
                    "{len} bytes are spread out, not dumped: {frames}"
                );
            }
        }
        // A small burst goes at the minimum step, well within the second.
        assert!(frames_to_reveal("tiny", ItemStatus::Streaming) <= 2);
    }

    #[test]
    fn with_text_arriving_every_frame_nothing_waits_much_over_a_second() {
        // 2,000 bytes a frame for 300 frames; track when each 2,000-byte chunk shows.
        let mut pacer = Pacer::new(true);
        let mut text = String::new();
        let mut arrived_at = Vec::new();
        let mut worst = 0;
        for frame in 0..600 {
            if frame < 300 {
                text.push_str(&"z".repeat(2_000));
                arrived_at.push(frame);
            }
            let (shown, _) = pacer.next(&text, ItemStatus::Streaming, true);
            for at in arrived_at.iter_mut().take(shown.len() / 2_000) {
                if *at != usize::MAX {
                    worst = worst.max(frame - *at);
                    *at = usize::MAX;
                }
            }
        }
        assert!(worst <= DRAIN_FRAMES + 5, "a chunk waited {worst} frames");
    }

    #[test]
    fn multibyte_characters_never_stall_it() {
        let text = "🌍🌍🌍 héllo 日本語 🌍".repeat(3);
        assert!(frames_to_reveal(&text, ItemStatus::Streaming) < 200);
    }

    #[test]
    fn history_stopped_and_reduced_motion_show_everything_at_once() {
        let text = "a long answer ".repeat(50);
        let mut loaded = Pacer::new(true);
        assert_eq!(
            loaded.next(&text, ItemStatus::Done, false),
            (text.as_str(), false)
        );
        let mut stopped = Pacer::new(true);
        assert_eq!(
            stopped.next(&text, ItemStatus::Stopped, true),
            (text.as_str(), false)
        );
        let mut still = Pacer::new(false);
        assert_eq!(
            still.next(&text, ItemStatus::Streaming, true),
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
            let (shown, more) = still.next(&text, ItemStatus::Done, true);
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
        for _ in 0..100 {
            streamed.push_str("a few words ");
            assert_eq!(
                still.next(&streamed, ItemStatus::Streaming, true),
                (streamed.as_str(), false)
            );
        }
    }

    #[test]
    fn a_text_that_shrank_is_shown_whole() {
        let mut pacer = Pacer::new(true);
        let long = "y".repeat(300);
        while pacer.next(&long, ItemStatus::Streaming, true).1 {}
        assert_eq!(
            pacer.next("short", ItemStatus::Done, true),
            ("short", false)
        );
    }

    #[test]
    fn a_backlog_too_big_to_animate_is_caught_up_in_measured_slices() {
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
            frames += 1;
            let (shown, more) = pacer.next(&text, ItemStatus::Done, true);
            let step = shown.len() - last;
            // Never more than a slice (or the animated step of the last 16 kB) a frame.
            assert!(step <= slice.max(CATCH_UP), "one frame showed {step} bytes");
            last = shown.len();
            if !more {
                break;
            }
        }
        assert!(frames < DRAIN_FRAMES / 2, "caught up in {frames} frames");
        assert!(frames > 200_000 / MAX_SLICE, "sliced, not dumped: {frames}");
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
        let (shown, more) = pacer.next(&text, ItemStatus::Done, true);
        assert!(more);
        assert_eq!(shown.len(), before);
    }
}
