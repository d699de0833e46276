//! Line diffs of ACP file changes, as a view shows them: numbered lines, each added,
//! removed or kept, unchanged stretches away from a change folded into a count, and a
//! bound on how much is shown. A new file (`oldText: null`) is said to be new, not
//! shown as every line added to an existing file.

use similar::{ChangeTag, TextDiff};

/// Unchanged lines kept around each change.
const CONTEXT: usize = 3;
/// Rows shown at most; the rest is cut (`FileDiff::truncated`).
pub const MAX_ROWS: usize = 400;

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
                }));
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
        })
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
