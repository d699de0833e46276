//! Diffs as views show them: numbered rows, each line added, removed or kept, unchanged
//! stretches away from a change folded into a count, and the words that changed inside a
//! replaced line. Two sources share this model: an ACP file change given as old and new
//! text (`text`), and a patch pushed by a tool (`patch`).

mod html;
mod myers;
mod patch;
mod recount;
mod text;

pub use html::{rows_html, rows_html_with, CHUNK_ROWS};
pub use patch::{anchor_id, parse_patch, FileStatus, Hunk, Patch, PatchFile};
pub use recount::Repairs;
pub use text::{line_diff, FileDiff, MAX_ROWS};

use std::ops::Range;

/// Unchanged lines kept around each change.
const CONTEXT: usize = 3;
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

    fn is(row: &DiffRow, kind: LineKind) -> bool {
        matches!(row, DiffRow::Line(l) if l.kind == kind)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DiffRow {
    Line(DiffLine),
    /// This many unchanged lines, not shown.
    Folded(usize),
}

/// One row of a side-by-side layout: the old line on the left, the new on the right (a
/// kept line on both sides; a removed line beside the added line that replaced it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SideRow<'a> {
    Pair {
        left: Option<&'a DiffLine>,
        right: Option<&'a DiffLine>,
    },
    Folded(usize),
}

/// Rows laid out side by side: each run of removed lines pairs, in order, with the run
/// of added lines right after it (the pairing [`mark_words`] uses); the longer run's
/// extra lines face a blank.
pub fn side_by_side<'a>(rows: &'a [DiffRow]) -> Vec<SideRow<'a>> {
    let mut out = Vec::with_capacity(rows.len());
    let mut i = 0;
    while i < rows.len() {
        match &rows[i] {
            DiffRow::Folded(n) => {
                out.push(SideRow::Folded(*n));
                i += 1;
            }
            DiffRow::Line(l) if l.kind == LineKind::Kept => {
                out.push(SideRow::Pair {
                    left: Some(l),
                    right: Some(l),
                });
                i += 1;
            }
            DiffRow::Line(_) => {
                let (removed, added) = replacement(&rows[i..]);
                let line = |r: Option<&'a DiffRow>| match r {
                    Some(DiffRow::Line(l)) => Some(l),
                    _ => None,
                };
                for k in 0..removed.max(added) {
                    out.push(SideRow::Pair {
                        left: line((k < removed).then(|| &rows[i + k])),
                        right: line((k < added).then(|| &rows[i + removed + k])),
                    });
                }
                i += removed + added;
            }
        }
    }
    out
}

/// The removed lines at the start of `rows` and the added lines right after them.
fn replacement(rows: &[DiffRow]) -> (usize, usize) {
    let removed = rows
        .iter()
        .take_while(|r| DiffLine::is(r, LineKind::Removed))
        .count();
    let added = rows[removed..]
        .iter()
        .take_while(|r| DiffLine::is(r, LineKind::Added))
        .count();
    (removed, added)
}

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

/// Fold each run of kept lines down to the [`CONTEXT`] lines next to a change on either
/// side of it; what is left of the run becomes one [`DiffRow::Folded`].
fn fold(rows: Vec<DiffRow>) -> Vec<DiffRow> {
    let mut out = Vec::with_capacity(rows.len());
    let mut run: Vec<DiffRow> = Vec::new();
    let mut after_change = false;
    for row in rows {
        if DiffLine::is(&row, LineKind::Kept) {
            run.push(row);
            continue;
        }
        flush_run(&mut out, &mut run, after_change, true);
        after_change = matches!(row, DiffRow::Line(_));
        out.push(row);
    }
    flush_run(&mut out, &mut run, after_change, false);
    out
}

fn flush_run(out: &mut Vec<DiffRow>, run: &mut Vec<DiffRow>, after: bool, before: bool) {
    let head = if after { CONTEXT } else { 0 };
    let tail = if before { CONTEXT } else { 0 };
    if run.len() <= head + tail {
        out.append(run);
        return;
    }
    let hidden = run.len() - head - tail;
    let mut lines = run.drain(..);
    out.extend(lines.by_ref().take(head));
    out.push(DiffRow::Folded(hidden));
    out.extend(lines.skip(hidden));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(kind: LineKind, text: &str) -> DiffRow {
        DiffRow::Line(DiffLine {
            kind,
            old: None,
            new: None,
            text: text.into(),
            changed: Vec::new(),
        })
    }

    fn kinds(rows: &[DiffRow]) -> String {
        rows.iter()
            .map(|r| match r {
                DiffRow::Line(l) => l.kind.sign().replace(' ', "="),
                DiffRow::Folded(n) => format!("[{n}]"),
            })
            .collect()
    }

    fn parse_kinds(s: &str) -> Vec<DiffRow> {
        s.chars()
            .map(|c| match c {
                '+' => row(LineKind::Added, "a"),
                '-' => row(LineKind::Removed, "r"),
                _ => row(LineKind::Kept, "k"),
            })
            .collect()
    }

    #[test]
    fn folding_keeps_context_next_to_changes_only() {
        let f = |s: &str| kinds(&fold(parse_kinds(s)));
        assert_eq!(f("=====+====="), "[2]===+===[2]");
        assert_eq!(f("===+==="), "===+===");
        // Between two changes: 3 after the first, 3 before the second.
        assert_eq!(f("+=======-"), "+===[1]===-");
        assert_eq!(f("+======-"), "+======-");
        // Nothing changed: all folded.
        assert_eq!(f("===="), "[4]");
        assert_eq!(f(""), "");
    }

    #[test]
    fn side_by_side_pairs_replacements_and_pads_the_shorter_run() {
        let rows = parse_kinds("=--+-++==+");
        let pairs: Vec<(Option<LineKind>, Option<LineKind>)> = side_by_side(&rows)
            .into_iter()
            .map(|p| match p {
                SideRow::Pair { left, right } => (left.map(|l| l.kind), right.map(|l| l.kind)),
                SideRow::Folded(_) => unreachable!(),
            })
            .collect();
        use LineKind::*;
        assert_eq!(
            pairs,
            [
                (Some(Kept), Some(Kept)),
                (Some(Removed), Some(Added)),
                (Some(Removed), None),
                (Some(Removed), Some(Added)),
                (None, Some(Added)),
                (Some(Kept), Some(Kept)),
                (Some(Kept), Some(Kept)),
                (None, Some(Added)),
            ]
        );
        assert_eq!(
            side_by_side(&[DiffRow::Folded(4)]),
            [SideRow::Folded(4)],
            "folds span both sides"
        );
    }

    #[test]
    fn a_word_mark_covers_only_the_changed_tokens() {
        let d = line_diff(
            Some("    let x = rows.iter().position(|r| r.ok()).then_some((start, end));\n"),
            "    let x = rows.iter().position(|r| r.ok()).then_some((start - 1, end));\n",
        );
        let marked: Vec<Vec<String>> = d
            .rows
            .iter()
            .filter_map(|r| match r {
                DiffRow::Line(l) => Some(
                    l.pieces()
                        .into_iter()
                        .filter(|p| p.1)
                        .map(|p| p.0.to_owned())
                        .collect(),
                ),
                DiffRow::Folded(_) => None,
            })
            .collect();
        assert_eq!(marked, [vec![], vec![" - 1".to_owned()]]);
    }

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
