//! The files an agent changed in a thread, for its Diff view: each one's text before its
//! first write and now, as one git diff.

use super::fs;

/// The files an agent changed: each one's content before its first write, and now.
#[derive(Debug, Default)]
pub(crate) struct ChangeSet {
    /// Only files that existed before their first write.
    before: std::collections::BTreeMap<String, String>,
    after: std::collections::BTreeMap<String, String>,
}

impl ChangeSet {
    /// Records a write; returns the whole change set as a git diff (empty when every file
    /// is back to how it was).
    /// Texts over [`fs::MAX_DIFF_BYTES`] are kept as a line with their size and digest.
    pub(crate) fn wrote(&mut self, written: fs::Written, content: String) -> String {
        if !self.after.contains_key(&written.relative) {
            if let Some(before) = written.before {
                self.before
                    .insert(written.relative.clone(), fs::diff_text(before));
            }
        }
        self.after.insert(written.relative, fs::diff_text(content));
        crate::sandbox::diff(&self.before, &self.after)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(path: &str, before: Option<&str>) -> fs::Written {
        fs::Written {
            relative: path.into(),
            before: before.map(str::to_owned),
        }
    }

    #[test]
    fn the_change_set_diffs_each_file_against_its_first_content() {
        let mut changes = ChangeSet::default();
        let patch = changes.wrote(written("new.txt", None), "one\n".into());
        assert!(patch.contains("new file mode"), "{patch}");
        assert!(patch.contains("+one"), "{patch}");
        // A file that existed: against its content before the first write, however
        // many writes follow.
        changes.wrote(written("old.txt", Some("a\nb\n")), "a\nB\n".into());
        let patch = changes.wrote(written("old.txt", Some("a\nB\n")), "a\nC\n".into());
        assert!(patch.contains("-b\n+C\n"), "{patch}");
        assert!(!patch.contains("B"), "{patch}");
        assert!(patch.contains("+one"), "both files: {patch}");
        // Back to how it was: that file leaves the diff.
        let patch = changes.wrote(written("old.txt", Some("a\nC\n")), "a\nb\n".into());
        assert!(!patch.contains("old.txt"), "{patch}");
        assert!(patch.contains("new.txt"), "{patch}");
    }

    #[test]
    fn the_change_set_keeps_no_huge_text() {
        let mut changes = ChangeSet::default();
        let huge = "line\n".repeat(4 * 1024 * 1024);
        let patch = changes.wrote(written("big.txt", Some(&huge)), format!("{huge}more\n"));
        let held: usize = changes
            .before
            .values()
            .chain(changes.after.values())
            .map(String::len)
            .sum();
        assert!(held < 1024, "{held} bytes held");
        // Still a change, shown by size and digest.
        assert!(patch.contains("too large to show"), "{patch}");
        assert!(patch.len() < 2048, "{} bytes of patch", patch.len());
        // Back to how it was: out of the diff.
        let patch = changes.wrote(written("big.txt", None), huge);
        assert!(!patch.contains("big.txt"), "{patch}");
    }
}
