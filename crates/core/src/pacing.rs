//! Pacing streamed text: how much of an answer to show each animation frame. Bursts are
//! smoothed, but whatever has arrived is shown within about a second: when new text comes,
//! the backlog is spread evenly over the next 60 frames, so at any arrival rate a byte waits
//! about that long (backlog = rate × delay) and never much longer.

use crate::reducer::ItemStatus;

/// Fewest bytes revealed per frame while there is a backlog.
const MIN_STEP: usize = 3;
/// Frames over which a backlog is drained: about one second at 60 Hz.
pub const DRAIN_FRAMES: usize = 60;
/// Most bytes shown in one frame without animation (reduced motion): what arrives at a
/// reading pace shows at once, while a whole answer arriving in one piece is rendered in
/// frame-sized slices instead of one long task (rendering costs a few ms per kB).
pub const STILL_SLICE: usize = 2048;

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
        }
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
            self.revealed = ceil_boundary(text, (self.revealed + STILL_SLICE).min(text.len()));
            return (&text[..self.revealed], self.revealed < text.len());
        }
        if text.len() > self.known {
            self.known = text.len();
            self.frames_left = DRAIN_FRAMES;
        }
        let backlog = text.len() - self.revealed;
        let step = MIN_STEP.max(backlog.div_ceil(self.frames_left));
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
        for len in [1_000, 100_000, 1_000_000] {
            let frames = frames_to_reveal(&"x".repeat(len), ItemStatus::Done);
            assert!(frames <= DRAIN_FRAMES, "{len} bytes took {frames} frames");
            assert!(
                frames >= DRAIN_FRAMES - 1,
                "{len} bytes are spread out, not dumped: {frames}"
            );
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
}
