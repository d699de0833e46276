//! ACP file changes (old and new text) as diffs: a new file (`oldText: null`) is said to
//! be new, not shown as every line added to an existing file; a change keeps the rows
//! near it and folds the rest (the shared `fold`); what is shown is bounded.

use super::myers;
use super::rows::{fold, DiffLine, DiffRow, LineKind};
use super::words::mark_words;

/// Rows shown at most; the rest is cut (`FileDiff::truncated`).
pub const MAX_ROWS: usize = 400;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileDiff {
    pub new_file: bool,
    pub rows: Vec<DiffRow>,
    /// More rows than [`MAX_ROWS`]: the rest is not shown.
    pub truncated: bool,
}

/// The diff from `old` (`None`: the file is new) to `new`.
pub fn line_diff(old: Option<&str>, new: &str) -> FileDiff {
    let Some(old) = old else {
        let rows = new.lines().enumerate().map(|(i, text)| {
            DiffRow::Line(DiffLine {
                kind: LineKind::Added,
                old: None,
                new: Some(i + 1),
                text: text.to_owned(),
                changed: Vec::new(),
            })
        });
        return bounded(true, rows.collect());
    };
    let (old_lines, new_lines) = (myers::lines(old), myers::lines(new));
    let ops = myers::diff(&old_lines, &new_lines);
    if ops.iter().all(|op| *op == LineKind::Kept) {
        return bounded(false, Vec::new());
    }
    let (mut at_old, mut at_new) = (0, 0);
    let mut rows: Vec<DiffRow> = ops
        .into_iter()
        .map(|kind| {
            let (old, new, text) = match kind {
                LineKind::Kept => {
                    (at_old, at_new) = (at_old + 1, at_new + 1);
                    (Some(at_old), Some(at_new), new_lines[at_new - 1])
                }
                LineKind::Removed => {
                    at_old += 1;
                    (Some(at_old), None, old_lines[at_old - 1])
                }
                LineKind::Added => {
                    at_new += 1;
                    (None, Some(at_new), new_lines[at_new - 1])
                }
            };
            DiffRow::Line(DiffLine {
                kind,
                old,
                new,
                text: text.trim_end_matches(['\n', '\r']).to_owned(),
                changed: Vec::new(),
            })
        })
        .collect();
    mark_words(&mut rows);
    bounded(false, fold(rows))
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
        // Only the changed word: not its punctuation.
        assert_eq!(
            old[0].pieces(),
            [
                ("let total = price * ", false),
                ("count", true),
                (";", false)
            ]
        );
        assert_eq!(
            new[0].pieces(),
            [
                ("let total = price * ", false),
                ("amount", true),
                (";", false)
            ]
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
