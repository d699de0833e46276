//! The words that changed inside a replaced line, marked for a view.

use super::myers;
use super::rows::{replacement, DiffLine, DiffRow, LineKind};
use std::ops::Range;

/// Longest line diffed by words (longer pairs are shown whole: the cost is quadratic).
const MAX_WORD_DIFF: usize = 1000;

/// How alike a removed and an added line must be (0..1) for their changed words to be
/// marked: two unrelated lines would be marked from end to end, which says nothing.
const MIN_WORD_RATIO: f32 = 0.4;

/// Mark the words that changed in each replacement: the k-th line of a run of removed
/// lines is paired with the k-th line of the run of added lines right after it.
/// Idempotent, so a view may call it on rows it has marked before.
pub fn mark_words(rows: &mut [DiffRow]) {
    let mut i = 0;
    while i < rows.len() {
        let (removed, added) = replacement(&rows[i..]);
        if removed == 0 || added == 0 {
            i += removed.max(1);
            continue;
        }
        let (olds, news) = rows[i..i + removed + added].split_at_mut(removed);
        for (old, new) in olds.iter_mut().zip(news.iter_mut()) {
            if let (DiffRow::Line(old), DiffRow::Line(new)) = (old, new) {
                mark_pair(old, new);
            }
        }
        i += removed + added;
    }
}

fn mark_pair(old: &mut DiffLine, new: &mut DiffLine) {
    old.changed.clear();
    new.changed.clear();
    if old.text.len() > MAX_WORD_DIFF || new.text.len() > MAX_WORD_DIFF {
        return;
    }
    let (old_words, new_words) = (myers::words(&old.text), myers::words(&new.text));
    let ops = myers::diff(&old_words, &new_words);
    // How alike the lines are: twice the kept words over all words (1 when both are empty).
    let kept = ops.iter().filter(|op| **op == LineKind::Kept).count();
    let all = old_words.len() + new_words.len();
    if all > 0 && (2 * kept) as f32 / (all as f32) < MIN_WORD_RATIO {
        return;
    }
    let (mut old_words, mut new_words) = (old_words.into_iter(), new_words.into_iter());
    let (mut at_old, mut at_new) = (0, 0);
    for op in ops {
        match op {
            LineKind::Kept => {
                at_old += old_words.next().map_or(0, str::len);
                at_new += new_words.next().map_or(0, str::len);
            }
            LineKind::Removed => {
                let len = old_words.next().map_or(0, str::len);
                push_range(&mut old.changed, at_old..at_old + len);
                at_old += len;
            }
            LineKind::Added => {
                let len = new_words.next().map_or(0, str::len);
                push_range(&mut new.changed, at_new..at_new + len);
                at_new += len;
            }
        }
    }
}

/// Add a range, merged with the previous one when they touch.
fn push_range(ranges: &mut Vec<Range<usize>>, r: Range<usize>) {
    match ranges.last_mut() {
        Some(last) if last.end == r.start => last.end = r.end,
        _ => ranges.push(r),
    }
}

#[cfg(test)]
mod tests {
    use super::super::rows::row;
    use super::*;

    #[test]
    fn word_marks_pair_runs_are_idempotent_and_skip_huge_lines() {
        let mut rows = vec![
            row(LineKind::Removed, "let a = 1;"),
            row(LineKind::Removed, "let b = 2;"),
            row(LineKind::Added, "let a = 10;"),
            row(LineKind::Kept, "x"),
            row(LineKind::Added, "let b = 3;"),
        ];
        mark_words(&mut rows);
        let first = rows.clone();
        mark_words(&mut rows);
        assert_eq!(rows, first);
        // The marked pieces of a row.
        let changed = |r: &DiffRow| match r {
            DiffRow::Line(l) => l
                .pieces()
                .into_iter()
                .filter(|p| p.1)
                .map(|p| p.0.to_owned())
                .collect(),
            DiffRow::Folded(_) => Vec::new(),
        };
        assert_eq!(changed(&rows[0]), ["1"]);
        assert_eq!(changed(&rows[2]), ["10"]);
        assert!(changed(&rows[1]).is_empty(), "no added line left to pair");
        assert!(changed(&rows[4]).is_empty(), "a kept line ends the run");
        let long = "x ".repeat(MAX_WORD_DIFF);
        let mut rows = vec![
            row(LineKind::Removed, &long),
            row(LineKind::Added, &format!("{long}y")),
        ];
        mark_words(&mut rows);
        assert!(changed(&rows[1]).is_empty());
    }
}
