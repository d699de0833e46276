//! Line diffs of ACP file changes, as a view shows them: numbered lines, each added,
//! removed or kept, unchanged stretches away from a change folded into a count, and a
//! bound on how much is shown. A new file (`oldText: null`) is said to be new, not
//! shown as every line added to an existing file. A removed line and the added line that
//! replaces it are diffed again by words, so the view can mark what changed inside them.

use similar::{ChangeTag, DiffTag, TextDiff};
use std::ops::Range;

/// Unchanged lines kept around each change.
const CONTEXT: usize = 3;
/// Rows shown at most; the rest is cut (`FileDiff::truncated`).
pub const MAX_ROWS: usize = 400;
/// Longest line diffed by words (longer pairs are shown whole: the cost is quadratic).
const MAX_WORD_DIFF: usize = 1000;
/// How alike a removed and an added line must be (0..1) for their changed words to be
/// marked: two unrelated lines would be marked from end to end, which says nothing.
const MIN_WORD_RATIO: f32 = 0.4;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineKind {
    Kept,
    Added,
    Removed,
}

impl LineKind {
    /// The `data-line` value and the sign a view shows.
    pub fn as_str(self) -> &'static str {
        match self {
            LineKind::Kept => "kept",
            LineKind::Added => "added",
            LineKind::Removed => "removed",
        }
    }

    pub fn sign(self) -> &'static str {
        match self {
            LineKind::Kept => " ",
            LineKind::Added => "+",
            LineKind::Removed => "-",
        }
    }
}

/// One line: its numbers in the old and the new text (1-based), and its text without
/// the line break.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiffLine {
    pub kind: LineKind,
    pub old: Option<usize>,
    pub new: Option<usize>,
    pub text: String,
    /// Byte ranges of `text` that changed against the paired line (a removed line and
    /// the added one that replaced it); empty when the line is not paired.
    pub changed: Vec<Range<usize>>,
}

impl DiffLine {
    /// The text cut into (piece, changed) runs, in order, for a view to mark.
    pub fn pieces(&self) -> Vec<(&str, bool)> {
        let mut out = Vec::new();
        let mut at = 0;
        for r in &self.changed {
            if r.start > at {
                out.push((&self.text[at..r.start], false));
            }
            out.push((&self.text[r.clone()], true));
            at = r.end;
        }
        if at < self.text.len() || out.is_empty() {
            out.push((&self.text[at..], false));
        }
        out
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DiffRow {
    Line(DiffLine),
    /// This many unchanged lines, not shown.
    Folded(usize),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileDiff {
    pub new_file: bool,
    pub rows: Vec<DiffRow>,
    /// More rows than [`MAX_ROWS`]: the rest is not shown.
    pub truncated: bool,
}

/// The diff from `old` (`None`: the file is new) to `new`.
pub fn line_diff(old: Option<&str>, new: &str) -> FileDiff {
    let mut rows = Vec::new();
    let Some(old) = old else {
        rows.extend(new.lines().enumerate().map(|(i, text)| {
            DiffRow::Line(DiffLine {
                kind: LineKind::Added,
                old: None,
                new: Some(i + 1),
                text: text.to_owned(),
                changed: Vec::new(),
            })
        }));
        return bounded(true, rows);
    };
    let diff = TextDiff::from_lines(old, new);
    let groups = diff.grouped_ops(CONTEXT);
    let mut next_old = 0;
    for group in &groups {
        let Some(first) = group.first() else { continue };
        let start = first.old_range().start;
        if start > next_old {
            rows.push(DiffRow::Folded(start - next_old));
        }
        for op in group {
            let first_row = rows.len();
            for change in diff.iter_changes(op) {
                let kind = match change.tag() {
                    ChangeTag::Equal => LineKind::Kept,
                    ChangeTag::Insert => LineKind::Added,
                    ChangeTag::Delete => LineKind::Removed,
                };
                let text = change.value().trim_end_matches(['\n', '\r']).to_owned();
                rows.push(DiffRow::Line(DiffLine {
                    kind,
                    old: change.old_index().map(|i| i + 1),
                    new: change.new_index().map(|i| i + 1),
                    text,
                    changed: Vec::new(),
                }));
            }
            if op.tag() == DiffTag::Replace {
                mark_words(&mut rows[first_row..]);
            }
            next_old = op.old_range().end;
        }
    }
    let old_lines = old.lines().count();
    if !groups.is_empty() && old_lines > next_old {
        rows.push(DiffRow::Folded(old_lines - next_old));
    }
    bounded(false, rows)
}

/// In the rows of one replacement (its removed lines, then its added ones), pair the
/// k-th removed line with the k-th added one and mark the words that differ.
fn mark_words(rows: &mut [DiffRow]) {
    let removed = rows
        .iter()
        .take_while(|r| matches!(r, DiffRow::Line(l) if l.kind == LineKind::Removed))
        .count();
    let (olds, news) = rows.split_at_mut(removed);
    for (old, new) in olds.iter_mut().zip(news.iter_mut()) {
        let (DiffRow::Line(old), DiffRow::Line(new)) = (old, new) else {
            continue;
        };
        if new.kind != LineKind::Added
            || old.text.len() > MAX_WORD_DIFF
            || new.text.len() > MAX_WORD_DIFF
        {
            continue;
        }
        let words = TextDiff::from_words(old.text.as_str(), new.text.as_str());
        if words.ratio() < MIN_WORD_RATIO {
            continue;
        }
        let (mut at_old, mut at_new) = (0, 0);
        for change in words.iter_all_changes() {
            let len = change.value().len();
            match change.tag() {
                ChangeTag::Equal => {
                    at_old += len;
                    at_new += len;
                }
                ChangeTag::Delete => {
                    push_range(&mut old.changed, at_old..at_old + len);
                    at_old += len;
                }
                ChangeTag::Insert => {
                    push_range(&mut new.changed, at_new..at_new + len);
                    at_new += len;
                }
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

fn bounded(new_file: bool, mut rows: Vec<DiffRow>) -> FileDiff {
    let truncated = rows.len() > MAX_ROWS;
    rows.truncate(MAX_ROWS);
    FileDiff {
        new_file,
        rows,
        truncated,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(kind: LineKind, old: Option<usize>, new: Option<usize>, text: &str) -> DiffRow {
        DiffRow::Line(DiffLine {
            kind,
            old,
            new,
            text: text.into(),
            changed: Vec::new(),
        })
    }

    fn lines(d: &FileDiff, kind: LineKind) -> Vec<&DiffLine> {
        d.rows
            .iter()
            .filter_map(|r| match r {
                DiffRow::Line(l) if l.kind == kind => Some(l),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_replaced_line_marks_only_the_words_that_changed() {
        let d = line_diff(
            Some("let total = price * count;\nkeep\n"),
            "let total = price * amount;\nkeep\n",
        );
        let (old, new) = (lines(&d, LineKind::Removed), lines(&d, LineKind::Added));
        // Words are what whitespace separates.
        assert_eq!(
            old[0].pieces(),
            [("let total = price * ", false), ("count;", true)]
        );
        assert_eq!(
            new[0].pieces(),
            [("let total = price * ", false), ("amount;", true)]
        );
        // Unpaired and kept lines are one plain piece.
        let kept = lines(&d, LineKind::Kept);
        assert_eq!(kept[0].pieces(), [("keep", false)]);
    }

    #[test]
    fn unrelated_lines_and_pure_additions_are_not_marked() {
        let d = line_diff(
            Some("alpha beta gamma\n"),
            "completely different words here\n",
        );
        assert!(lines(&d, LineKind::Removed)[0].changed.is_empty());
        assert!(lines(&d, LineKind::Added)[0].changed.is_empty());
        let d = line_diff(Some("a\n"), "a\nb x\n");
        assert!(lines(&d, LineKind::Added)[0].changed.is_empty());
        // Multibyte text: ranges stay on character boundaries.
        let d = line_diff(Some("naïve café ünïcode\n"), "naïve thé ünïcode\n");
        let added = lines(&d, LineKind::Added);
        assert_eq!(added[0].pieces()[1], ("thé", true));
    }

    #[test]
    fn a_new_file_is_new_with_new_numbers_only() {
        let d = line_diff(None, "a\nb\n");
        assert!(d.new_file);
        assert_eq!(
            d.rows,
            [
                line(LineKind::Added, None, Some(1), "a"),
                line(LineKind::Added, None, Some(2), "b"),
            ]
        );
    }

    #[test]
    fn a_change_numbers_both_sides_and_folds_far_context() {
        let old: String = (1..=20).map(|i| format!("l{i}\n")).collect();
        let new = old.replace("l10\n", "ten\n");
        let d = line_diff(Some(&old), &new);
        assert!(!d.new_file && !d.truncated);
        assert_eq!(d.rows[0], DiffRow::Folded(6));
        assert_eq!(d.rows[1], line(LineKind::Kept, Some(7), Some(7), "l7"));
        assert!(d
            .rows
            .contains(&line(LineKind::Removed, Some(10), None, "l10")));
        assert!(d
            .rows
            .contains(&line(LineKind::Added, None, Some(10), "ten")));
        assert_eq!(d.rows.last(), Some(&DiffRow::Folded(7)));
    }

    #[test]
    fn same_text_has_no_rows_and_crlf_is_not_shown() {
        assert!(line_diff(Some("a\n"), "a\n").rows.is_empty());
        let d = line_diff(Some("a\r\n"), "b\r\n");
        assert!(d.rows.contains(&line(LineKind::Added, None, Some(1), "b")));
    }

    #[test]
    fn big_diffs_are_bounded() {
        let new: String = (0..1000).map(|i| format!("{i}\n")).collect();
        let d = line_diff(None, &new);
        assert!(d.truncated);
        assert_eq!(d.rows.len(), MAX_ROWS);
    }
}
