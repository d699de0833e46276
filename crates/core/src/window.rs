//! Which part of a long conversation is mounted: a window of at most [`MAX`] entries that
//! the reader's scrolling moves, so the page's DOM and layout stay the same size whatever
//! the thread's length. Pure index arithmetic over the list of keys; the view measures,
//! stands spacers in for what is outside, and applies the window these functions return.
//!
//! A window is named by its first entry's key, not its index, so older entries put in
//! front (history pages) leave it where it is; or it is the tail, which follows new
//! entries while the reader is at the end.

use std::ops::Range;

/// The most entries mounted at once. Enough to fill a tall screen about three times
/// with short items, so moving the window by [`STEP`] stays out of the reader's sight.
pub const MAX: usize = 150;
/// The fewest entries a window holds (see [`cap`]), however tall they are.
pub const MIN: usize = 40;
/// How many entries the window moves by at its edges, at least; more (up to
/// [`MAX_STEP`]) when the reader outruns it. Each costs mounting an item in one frame.
pub const STEP: usize = 10;
pub const MAX_STEP: usize = 30;
/// The entries mounted where the reader jumps to (the scroll bar dragged): a screenful,
/// then the window grows by steps around it, so a jump is never one long task.
pub const JUMP: usize = 30;
const _: () = assert!(JUMP <= MIN);

/// How many entries a window holds for a view `view_px` tall and entries `item_px` tall
/// on average: the view and a screen beyond each edge, and two steps of slack,
/// within [`MIN`]..=[`MAX`]. Every mounted entry costs layout in every frame that changes
/// the list (a long run adds one per call), so no more are mounted than the reader can
/// reach before the window steps.
pub fn cap(view_px: f64, item_px: f64) -> usize {
    if !(view_px > 0.0 && item_px > 0.0) {
        return MAX;
    }
    let fill = (3.0 * view_px / item_px).ceil();
    (fill.min(MAX as f64) as usize + 2 * STEP).clamp(MIN, MAX)
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Window<K> {
    /// The last `cap` entries: follows the list's end.
    #[default]
    Tail,
    /// `n` entries from the one keyed `K` (never more than `cap`).
    From(K, usize),
}

impl<K: PartialEq + Clone> Window<K> {
    /// The indices of `list` inside the window of at most `cap` entries. A window whose
    /// first entry is gone (a deleted item, another thread) falls back to the tail.
    pub fn range<T>(&self, list: &[T], key: impl Fn(&T) -> &K, cap: usize) -> Range<usize> {
        let len = list.len();
        let tail = len.saturating_sub(cap)..len;
        match self {
            Window::From(first, n) => match list.iter().position(|t| key(t) == first) {
                Some(start) => start..(start + (*n).min(cap)).min(len),
                None => tail,
            },
            Window::Tail => tail,
        }
    }

    /// `n` earlier entries in, as many of the latest out as `cap` asks.
    pub fn earlier<T>(&self, list: &[T], key: impl Fn(&T) -> &K, n: usize, cap: usize) -> Self {
        let r = self.range(list, &key, cap);
        let start = r.start.saturating_sub(n);
        let end = r.end.min(start + cap);
        Self::over(list, key, start..end)
    }

    /// `n` later entries in, as many of the earliest out as `cap` asks.
    pub fn later<T>(&self, list: &[T], key: impl Fn(&T) -> &K, n: usize, cap: usize) -> Self {
        let r = self.range(list, &key, cap);
        let end = (r.end + n).min(list.len());
        let start = r.start.max(end.saturating_sub(cap));
        Self::over(list, key, start..end)
    }

    /// `n` entries (at most [`MAX`]) with `index` in their middle (the reader jumped there).
    pub fn around<T>(list: &[T], key: impl Fn(&T) -> &K, index: usize, n: usize) -> Self {
        let len = list.len();
        let n = n.min(MAX);
        let end = (index.min(len).saturating_sub(n / 2) + n).min(len);
        Self::over(list, key, end.saturating_sub(n)..end)
    }

    /// The window over `range`: the tail when it reaches the end.
    fn over<T>(list: &[T], key: impl Fn(&T) -> &K, range: Range<usize>) -> Self {
        match list.get(range.start) {
            Some(first) if range.end < list.len() => Window::From(key(first).clone(), range.len()),
            _ => Window::Tail,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn id(k: &u32) -> &u32 {
        k
    }

    #[test]
    fn a_short_list_is_whole() {
        let list: Vec<u32> = (0..10).collect();
        assert_eq!(Window::default().range(&list, id, MAX), 0..10);
        assert_eq!(
            Window::<u32>::default()
                .earlier(&list, id, STEP, MAX)
                .range(&list, id, MAX),
            0..10
        );
    }

    #[test]
    fn a_long_list_opens_at_its_end_and_steps_back() {
        let list: Vec<u32> = (0..1000).collect();
        let w = Window::default();
        assert_eq!(w.range(&list, id, MAX), 850..1000);
        let w = w.earlier(&list, id, STEP, MAX);
        assert_eq!(w.range(&list, id, MAX), 840..990);
        assert_eq!(w, Window::From(840, MAX));
        let w = w.later(&list, id, STEP, MAX);
        assert_eq!(w.range(&list, id, MAX), 850..1000);
        assert_eq!(w, Window::Tail, "back at the end, it follows again");
    }

    #[test]
    fn entries_put_in_front_leave_the_window_in_place() {
        let mut list: Vec<u32> = (1000..2000).collect();
        let w = Window::default().earlier(&list, id, STEP, MAX);
        let before: Vec<u32> = list[w.range(&list, id, MAX)].to_vec();
        list.splice(0..0, 0..1000);
        assert_eq!(list[w.range(&list, id, MAX)].to_vec(), before);
    }

    #[test]
    fn a_jump_centres_the_index() {
        let list: Vec<u32> = (0..1000).collect();
        let w = Window::around(&list, id, 500, MAX);
        assert_eq!(w.range(&list, id, MAX), 425..575);
        assert_eq!(
            Window::around(&list, id, 500, JUMP).range(&list, id, MAX),
            485..515
        );
        assert_eq!(
            Window::around(&list, id, 3, MAX).range(&list, id, MAX),
            0..150
        );
        assert_eq!(Window::around(&list, id, 5000, JUMP), Window::Tail);
    }

    #[test]
    fn a_lost_first_entry_falls_back_to_the_tail() {
        let list: Vec<u32> = (0..1000).collect();
        assert_eq!(Window::From(5000, 20).range(&list, id, MAX), 850..1000);
    }

    #[test]
    fn the_cap_fits_the_view_and_the_items() {
        // 900 px of view, 50 px items: three views' worth (54) and two steps.
        assert_eq!(cap(900.0, 50.0), 74);
        assert_eq!(cap(900.0, 400.0), MIN);
        assert_eq!(cap(3000.0, 20.0), MAX);
        assert_eq!(cap(0.0, 50.0), MAX, "nothing measured yet: the most");
        assert_eq!(cap(900.0, f64::NAN), MAX);
    }

    #[test]
    fn a_smaller_cap_trims_a_window_from_its_end_side() {
        let list: Vec<u32> = (0..1000).collect();
        let w = Window::around(&list, id, 500, MAX);
        assert_eq!(w.range(&list, id, 60), 425..485);
        assert_eq!(Window::<u32>::Tail.range(&list, id, 60), 940..1000);
    }

    #[derive(Clone, Debug)]
    enum Op {
        Earlier(usize),
        Later(usize),
        Around(usize, usize),
        Prepend(usize),
        Append(usize),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            (1usize..=MAX_STEP).prop_map(Op::Earlier),
            (1usize..=MAX_STEP).prop_map(Op::Later),
            (0usize..3000, 1usize..=MAX).prop_map(|(i, n)| Op::Around(i, n)),
            (0usize..300).prop_map(Op::Prepend),
            (0usize..300).prop_map(Op::Append),
        ]
    }

    proptest! {
        /// Whatever the reader and the list do, the window stays in bounds and no larger
        /// than its cap; a step keeps what it steps from in view (overlap), and reaches the
        /// list's ends; entries put in front or behind never move a `From` window.
        #[test]
        fn the_window_stays_bounded_and_continuous(len in 0usize..2000, cap in MIN..=MAX, ops in prop::collection::vec(op(), 1..60)) {
            let mut next_low: i64 = -1;
            let mut next_high: u32 = len as u32;
            let mut list: Vec<u32> = (0..len as u32).map(|i| i + 1_000_000).collect();
            let mut w = Window::default();
            for op in ops {
                let before = w.range(&list, id, cap);
                let shown: Vec<u32> = list[before.clone()].to_vec();
                match op.clone() {
                    Op::Earlier(n) => {
                        w = w.earlier(&list, id, n, cap);
                        let r = w.range(&list, id, cap);
                        prop_assert!(r.start <= before.start);
                        prop_assert_eq!(r.start, before.start.saturating_sub(n));
                        prop_assert!(before.is_empty() || r.contains(&before.start));
                    }
                    Op::Later(n) => {
                        w = w.later(&list, id, n, cap);
                        let r = w.range(&list, id, cap);
                        prop_assert!(r.end >= before.end);
                        prop_assert_eq!(r.end, (before.end + n).min(list.len()));
                        prop_assert!(before.is_empty() || r.contains(&(before.end - 1)));
                    }
                    Op::Around(i, n) => {
                        // Callers jump with at most a cap's worth ([`JUMP`] <= [`MIN`]).
                        w = Window::around(&list, id, i, n.min(cap));
                        let r = w.range(&list, id, cap);
                        prop_assert!(list.is_empty() || r.contains(&i.min(list.len() - 1)));
                    }
                    Op::Prepend(n) => {
                        for _ in 0..n {
                            list.insert(0, next_low as u32);
                            next_low -= 1;
                        }
                        if matches!(w, Window::From(..)) {
                            prop_assert_eq!(&list[w.range(&list, id, cap)], &shown[..]);
                        }
                    }
                    Op::Append(n) => {
                        list.extend(next_high..next_high + n as u32);
                        next_high += n as u32;
                        if matches!(w, Window::From(..)) {
                            prop_assert_eq!(&list[w.range(&list, id, cap)], &shown[..]);
                        }
                    }
                }
                let r = w.range(&list, id, cap);
                prop_assert!(r.end <= list.len() && r.start <= r.end);
                prop_assert!(r.len() <= cap);
                if !matches!(op, Op::Around(..)) {
                    prop_assert!(r.len() == cap.min(list.len()) || r.len() >= before.len(),
                        "a step never shrinks the window below a full one: {:?} from {:?}", r, before);
                }
            }
        }
    }
}
