//! The rows a diff is shown as, whatever its source: each line added, removed or kept with
//! its numbers, unchanged stretches away from a change folded into a count, and the
//! side-by-side layout of those rows.

use std::ops::Range;

/// Unchanged lines kept around each change.
const CONTEXT: usize = 3;

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

    pub(super) fn is(row: &DiffRow, kind: LineKind) -> bool {
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
/// of added lines right after it (the pairing [`mark_words`](super::mark_words) uses);
/// the longer run's extra lines face a blank.
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
pub(super) fn replacement(rows: &[DiffRow]) -> (usize, usize) {
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

/// Fold each run of kept lines down to the [`CONTEXT`] lines next to a change on either
/// side of it; what is left of the run becomes one [`DiffRow::Folded`].
pub(super) fn fold(rows: Vec<DiffRow>) -> Vec<DiffRow> {
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

/// A line row with no line numbers, as the tests build them.
#[cfg(test)]
pub(super) fn row(kind: LineKind, text: &str) -> DiffRow {
    DiffRow::Line(DiffLine {
        kind,
        old: None,
        new: None,
        text: text.into(),
        changed: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
