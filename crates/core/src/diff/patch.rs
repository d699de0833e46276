//! Patches pushed by tools (the `diff` view's `{"patch": …}`) as diffs: one entry per
//! file with its status, paths, counts, modes and hunks. The diff syntax is read by
//! `diffy` (git diffs with renames, copies, modes and binary markers; plain unified diffs
//! otherwise); this module only turns what it reads into rows. A patch that is broken
//! in places gives the files that could be read and says what could not.

use super::recount::{recount, Repairs};
use super::rows::{fold, DiffLine, DiffRow, LineKind};
use super::words::mark_words;
use diffy::patch_set::{FileMode, FileOperation, FilePatch, ParseOptions, PatchSet};
use std::ops::Range;

/// What happened to a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileStatus {
    Added,
    Modified,
    Deleted,
    Renamed,
    Copied,
}

impl FileStatus {
    /// The one-letter code git uses (`A`, `M`, `D`, `R`, `C`): also the `data-status`.
    pub fn letter(self) -> &'static str {
        match self {
            FileStatus::Added => "A",
            FileStatus::Modified => "M",
            FileStatus::Deleted => "D",
            FileStatus::Renamed => "R",
            FileStatus::Copied => "C",
        }
    }
}

/// One hunk: its `@@` header as written, and its rows with far context folded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hunk {
    /// `@@ -a,b +c,d @@ context`, rebuilt from the parsed ranges.
    pub header: String,
    /// The new file's lines it covers (1-based, end excluded).
    pub new_lines: Range<usize>,
    pub rows: Vec<DiffRow>,
}

/// One file of a patch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PatchFile {
    /// `None` when the file is added.
    pub old_path: Option<String>,
    /// `None` when the file is deleted.
    pub new_path: Option<String>,
    pub status: FileStatus,
    pub added: usize,
    pub removed: usize,
    pub binary: bool,
    /// Git file modes (`100644`, `100755`, `120000`, `160000`) when the patch gives them.
    pub old_mode: Option<&'static str>,
    pub new_mode: Option<&'static str>,
    /// Rows have no word marks yet: [`PatchFile::mark_words`] adds them, so a view pays
    /// for the files it shows only.
    pub hunks: Vec<Hunk>,
}

impl PatchFile {
    /// The file's path as it is now (as it was, for a deleted file).
    pub fn path(&self) -> &str {
        self.new_path
            .as_deref()
            .or(self.old_path.as_deref())
            .unwrap_or_default()
    }

    /// Old and new mode when the patch changes the mode of a file that stays.
    pub fn mode_change(&self) -> Option<(&'static str, &'static str)> {
        match (self.old_mode, self.new_mode) {
            (Some(old), Some(new)) if old != new => Some((old, new)),
            _ => None,
        }
    }

    /// Rows in all hunks (a view's measure of the file's size).
    pub fn row_count(&self) -> usize {
        self.hunks.iter().map(|h| h.rows.len()).sum()
    }

    /// Mark the words that changed in each replaced line (see [`super::mark_words`]).
    pub fn mark_words(&mut self) {
        for hunk in &mut self.hunks {
            mark_words(&mut hunk.rows);
        }
    }

    /// The hunk that shows `line` of the new file, or else the last one before it.
    pub fn hunk_at(&self, line: usize) -> Option<usize> {
        self.hunks
            .iter()
            .rposition(|h| h.new_lines.start <= line.max(1))
            .or((!self.hunks.is_empty()).then_some(0))
    }
}

/// A parsed patch: the files read, in order, and the first thing that could not be read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Patch {
    pub files: Vec<PatchFile>,
    /// Set when part of the patch could not be read (those files are missing).
    pub error: Option<String>,
    /// Hunks read with their counts fixed, and what was left out to read the rest.
    pub repairs: Repairs,
}

impl Patch {
    pub fn added(&self) -> usize {
        self.files.iter().map(|f| f.added).sum()
    }

    pub fn removed(&self) -> usize {
        self.files.iter().map(|f| f.removed).sum()
    }

    /// A name for each file, unique within the patch (a view's key): its path, numbered
    /// from the second time a path comes.
    pub fn keys(&self) -> Vec<String> {
        let mut seen = std::collections::HashMap::<&str, usize>::new();
        self.files
            .iter()
            .map(|f| {
                let n = seen.entry(f.path()).or_default();
                *n += 1;
                match *n {
                    1 => f.path().to_owned(),
                    n => format!("{}#{n}", f.path()),
                }
            })
            .collect()
    }

    /// The DOM id a view gives the place a tool call's location (`path`, `line` of the
    /// new file) points to: the hunk showing that line, or the file without a line.
    pub fn anchor(&self, path: &str, line: Option<usize>) -> Option<String> {
        let index = self.file_for(path)?;
        let key = self.keys().swap_remove(index);
        let hunk = line.and_then(|l| self.files[index].hunk_at(l));
        Some(anchor_id(&key, hunk))
    }

    /// The file a tool call's location names: the same path, or one it ends with (the
    /// agent's paths are often absolute, the patch's relative to the repository).
    pub fn file_for(&self, path: &str) -> Option<usize> {
        let ends_with = |p: &str| {
            path.strip_suffix(p)
                .is_some_and(|head| head.is_empty() || head.ends_with('/'))
        };
        let matches = |exact: bool| {
            self.files.iter().position(|f| {
                [&f.new_path, &f.old_path].into_iter().flatten().any(|p| {
                    if exact {
                        p == path
                    } else {
                        ends_with(p)
                    }
                })
            })
        };
        matches(true).or_else(|| matches(false))
    }
}

/// The DOM id of a file of a patch (by its key, see [`Patch::keys`]) or of one of its
/// hunks. Paths are untrusted and ids must be plain, so the key is hashed (FNV-1a).
pub fn anchor_id(key: &str, hunk: Option<usize>) -> String {
    let hash = key.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    match hunk {
        Some(i) => format!("cs-diff-{hash:016x}-{i}"),
        None => format!("cs-diff-{hash:016x}"),
    }
}

/// Read a patch: a git diff (many files), else a plain unified diff. Blank text is an
/// empty patch, not an error.
pub fn parse_patch(text: &str) -> Patch {
    if text.trim().is_empty() {
        return Patch::default();
    }
    let (text, repairs) = recount(text);
    let mut patch = read(&text, ParseOptions::gitdiff());
    if patch.files.is_empty() {
        patch = read(&text, ParseOptions::unidiff());
    }
    patch.repairs = repairs;
    patch
}

fn read(text: &str, options: ParseOptions) -> Patch {
    let mut patch = Patch::default();
    // Each item consumes input, error or not, so this ends.
    for item in PatchSet::parse(text, options) {
        match item {
            Ok(file) => patch.files.push(file_of(&file)),
            Err(e) => {
                patch.error.get_or_insert_with(|| e.to_string());
            }
        }
    }
    patch
}

fn file_of(file: &FilePatch<'_, str>) -> PatchFile {
    // Rename and copy paths come from git's own headers, without the `a/` `b/` prefixes
    // that the `---`/`+++` and `diff --git` paths carry.
    let (status, old_path, new_path) = match file.operation() {
        FileOperation::Create(p) => (FileStatus::Added, None, Some(unprefixed(p, "b/"))),
        FileOperation::Delete(p) => (FileStatus::Deleted, Some(unprefixed(p, "a/")), None),
        FileOperation::Modify { original, modified } => {
            let (old, new) = if original.starts_with("a/") && modified.starts_with("b/") {
                (&original[2..], &modified[2..])
            } else {
                (original.as_ref(), modified.as_ref())
            };
            (
                FileStatus::Modified,
                Some(old.to_owned()),
                Some(new.to_owned()),
            )
        }
        FileOperation::Rename { from, to } => (
            FileStatus::Renamed,
            Some(from.to_string()),
            Some(to.to_string()),
        ),
        FileOperation::Copy { from, to } => (
            FileStatus::Copied,
            Some(from.to_string()),
            Some(to.to_string()),
        ),
    };
    let mut out = PatchFile {
        old_path,
        new_path,
        status,
        added: 0,
        removed: 0,
        binary: file.patch().is_binary(),
        old_mode: file.old_mode().copied().map(mode),
        new_mode: file.new_mode().copied().map(mode),
        hunks: Vec::new(),
    };
    if let Some(text) = file.patch().as_text() {
        out.hunks = text
            .hunks()
            .iter()
            .map(|h| hunk_of(h, &mut out.added, &mut out.removed))
            .collect();
    }
    out
}

fn unprefixed(path: &str, prefix: &str) -> String {
    path.strip_prefix(prefix).unwrap_or(path).to_owned()
}

fn mode(mode: FileMode) -> &'static str {
    match mode {
        FileMode::Regular => "100644",
        FileMode::Executable => "100755",
        FileMode::Symlink => "120000",
        FileMode::Gitlink => "160000",
    }
}

fn hunk_of(hunk: &diffy::Hunk<'_, str>, added: &mut usize, removed: &mut usize) -> Hunk {
    let (old_range, new_range) = (hunk.old_range(), hunk.new_range());
    let context = hunk
        .function_context()
        .map(|c| c.trim_end_matches(['\n', '\r']))
        .filter(|c| !c.is_empty());
    let header = match context {
        Some(c) => format!("@@ -{old_range} +{new_range} @@ {c}"),
        None => format!("@@ -{old_range} +{new_range} @@"),
    };
    let (mut old, mut new) = (old_range.start(), new_range.start());
    let rows = hunk
        .lines()
        .iter()
        .map(|line| {
            let (kind, text, old_no, new_no) = match *line {
                diffy::Line::Context(t) => {
                    (old, new) = (old + 1, new + 1);
                    (LineKind::Kept, t, Some(old - 1), Some(new - 1))
                }
                diffy::Line::Delete(t) => {
                    *removed += 1;
                    old += 1;
                    (LineKind::Removed, t, Some(old - 1), None)
                }
                diffy::Line::Insert(t) => {
                    *added += 1;
                    new += 1;
                    (LineKind::Added, t, None, Some(new - 1))
                }
            };
            DiffRow::Line(DiffLine {
                kind,
                old: old_no,
                new: new_no,
                text: text.trim_end_matches(['\n', '\r']).to_owned(),
                changed: Vec::new(),
            })
        })
        .collect();
    Hunk {
        header,
        new_lines: new_range.start()..new_range.end(),
        rows: fold(rows),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const GIT: &str = "\
diff --git a/src/main.rs b/src/main.rs
index abc..def 100644
--- a/src/main.rs
+++ b/src/main.rs
@@ -1,3 +1,4 @@ fn main() {
 fn main() {
-    let total = price * count;
+    let total = price * amount;
+    println!(\"{total}\");
 }
diff --git a/docs/new.md b/docs/new.md
new file mode 100644
index 0000000..1111111
--- /dev/null
+++ b/docs/new.md
@@ -0,0 +1,2 @@
+# New
+text
diff --git a/old.txt b/old.txt
deleted file mode 100644
index 2222222..0000000
--- a/old.txt
+++ /dev/null
@@ -1 +0,0 @@
-gone
diff --git a/src/a.rs b/src/b.rs
similarity index 100%
rename from src/a.rs
rename to src/b.rs
diff --git a/script.sh b/script.sh
old mode 100644
new mode 100755
diff --git a/logo.png b/logo.png
index 3333333..4444444 100644
Binary files a/logo.png and b/logo.png differ
diff --git a/lib.rs b/lib_copy.rs
similarity index 90%
copy from lib.rs
copy to lib_copy.rs
--- a/lib.rs
+++ b/lib_copy.rs
@@ -1 +1 @@
-old
+new
";

    fn lines(rows: &[DiffRow]) -> Vec<&DiffLine> {
        rows.iter()
            .filter_map(|r| match r {
                DiffRow::Line(l) => Some(l),
                DiffRow::Folded(_) => None,
            })
            .collect()
    }

    #[test]
    fn a_git_diff_gives_every_kind_of_file_change() {
        let p = parse_patch(GIT);
        assert_eq!(p.error, None);
        let summary: Vec<(&str, &str, usize, usize)> = p
            .files
            .iter()
            .map(|f| (f.status.letter(), f.path(), f.added, f.removed))
            .collect();
        assert_eq!(
            summary,
            [
                ("M", "src/main.rs", 2, 1),
                ("A", "docs/new.md", 2, 0),
                ("D", "old.txt", 0, 1),
                ("R", "src/b.rs", 0, 0),
                ("M", "script.sh", 0, 0),
                ("M", "logo.png", 0, 0),
                ("C", "lib_copy.rs", 1, 1),
            ]
        );
        assert_eq!((p.added(), p.removed()), (5, 3));
        let [edit, new, gone, renamed, mode, binary, copied] = &p.files[..] else {
            panic!("seven files");
        };
        assert_eq!(edit.old_path.as_deref(), Some("src/main.rs"));
        assert_eq!(new.old_path, None);
        assert_eq!(new.new_mode, Some("100644"));
        assert_eq!(new.mode_change(), None, "a new file's mode is not a change");
        assert_eq!(gone.new_path, None);
        assert_eq!(gone.old_path.as_deref(), Some("old.txt"));
        assert_eq!(renamed.old_path.as_deref(), Some("src/a.rs"));
        assert!(renamed.hunks.is_empty() && !renamed.binary);
        assert_eq!(mode.mode_change(), Some(("100644", "100755")));
        assert!(mode.hunks.is_empty());
        assert!(binary.binary && binary.hunks.is_empty());
        assert_eq!(copied.old_path.as_deref(), Some("lib.rs"));
        assert_eq!(copied.hunks.len(), 1);
    }

    #[test]
    fn hunks_keep_their_header_and_number_both_sides() {
        let p = parse_patch(GIT);
        let hunk = &p.files[0].hunks[0];
        assert_eq!(hunk.header, "@@ -1,3 +1,4 @@ fn main() {");
        assert_eq!(hunk.new_lines, 1..5);
        let numbered: Vec<(&str, Option<usize>, Option<usize>)> = lines(&hunk.rows)
            .iter()
            .map(|l| (l.kind.sign(), l.old, l.new))
            .collect();
        assert_eq!(
            numbered,
            [
                (" ", Some(1), Some(1)),
                ("-", Some(2), None),
                ("+", None, Some(2)),
                ("+", None, Some(3)),
                (" ", Some(3), Some(4)),
            ]
        );
        assert_eq!(lines(&hunk.rows)[1].text, "    let total = price * count;");
        assert_eq!(p.files[1].hunks[0].header, "@@ -0,0 +1,2 @@");
        assert_eq!(p.files[2].hunks[0].header, "@@ -1 +0,0 @@");
    }

    #[test]
    fn words_are_marked_only_when_asked() {
        let mut file = parse_patch(GIT).files.remove(0);
        assert!(lines(&file.hunks[0].rows)
            .iter()
            .all(|l| l.changed.is_empty()));
        file.mark_words();
        let marked = lines(&file.hunks[0].rows);
        assert_eq!(marked[1].pieces()[1], ("count", true));
        assert_eq!(marked[2].pieces()[1], ("amount", true));
        assert!(
            marked[3].changed.is_empty(),
            "the second added line has no pair"
        );
    }

    #[test]
    fn long_context_is_folded_like_a_text_diff() {
        let old: String = (1..=40).map(|i| format!("line {i}\n")).collect();
        let new = old.replace("line 20\n", "line twenty\n");
        let mut options = diffy::DiffOptions::new();
        options.set_context_len(100);
        let text = options.create_patch(&old, &new).to_string();
        let p = parse_patch(&text);
        assert_eq!(p.error, None);
        let file = &p.files[0];
        assert_eq!(file.status, FileStatus::Modified);
        let mut rows = file.hunks[0].rows.clone();
        super::mark_words(&mut rows);
        assert_eq!(rows[0], DiffRow::Folded(16));
        assert_eq!(rows, super::super::line_diff(Some(&old), &new).rows);
    }

    #[test]
    fn a_plain_unified_diff_is_read_too() {
        let p = parse_patch(
            "some preamble\n--- file.txt.orig\t2024-01-01\n+++ file.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n",
        );
        assert_eq!(p.error, None);
        assert_eq!(p.files.len(), 1);
        let f = &p.files[0];
        assert_eq!((f.status, f.path()), (FileStatus::Modified, "file.txt"));
        assert_eq!(f.old_path.as_deref(), Some("file.txt.orig"));
        assert_eq!((f.added, f.removed), (1, 1));
        let p = parse_patch("--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+x\n");
        assert_eq!(p.files[0].status, FileStatus::Added);
        assert_eq!(p.files[0].path(), "new.txt");
    }

    #[test]
    fn a_broken_patch_gives_what_it_could_read_and_says_so() {
        assert_eq!(parse_patch(""), Patch::default());
        assert_eq!(parse_patch("  \n"), Patch::default());
        let p = parse_patch("not a diff at all");
        assert!(p.files.is_empty());
        assert!(p.error.is_some());
        // Hunks out of order cannot be read whatever the counts: that file is lost, not
        // the rest.
        let broken = GIT.replacen(
            "@@ -1,3 +1,4 @@ fn main() {",
            "@@ -9,3 +9,4 @@ fn main() {\n x\n@@ -1,1 +1,1 @@",
            1,
        );
        let p = parse_patch(&broken);
        assert!(p.error.is_some());
        assert!(!p.files.iter().any(|f| f.path() == "src/main.rs"));
        assert!(p.files.iter().any(|f| f.path() == "old.txt"));
        assert!(p.files.iter().any(|f| f.path() == "docs/new.md"));
    }

    #[test]
    fn a_miscounted_hunk_is_recounted_not_lost() {
        // The second file's hunk says 9 lines but has 2 (git apply --recount reads it).
        let broken = GIT.replacen("@@ -0,0 +1,2 @@", "@@ -0,0 +1,9 @@", 1);
        let p = parse_patch(&broken);
        assert_eq!(p.error, None);
        assert_eq!(p.repairs.recounted, 1);
        assert_eq!(p.files, parse_patch(GIT).files);
    }

    #[test]
    fn a_location_finds_its_file_and_hunk() {
        let p = parse_patch(GIT);
        assert_eq!(p.file_for("src/main.rs"), Some(0));
        assert_eq!(p.file_for("/repo/src/main.rs"), Some(0));
        assert_eq!(p.file_for("/repo/xsrc/main.rs"), None);
        assert_eq!(p.file_for("src/a.rs"), Some(3), "a rename's old path");
        let two = parse_patch("--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n@@ -10 +10 @@\n-c\n+d\n");
        let f = &two.files[0];
        assert_eq!(f.hunk_at(1), Some(0));
        assert_eq!(f.hunk_at(0), Some(0));
        assert_eq!(f.hunk_at(9), Some(0));
        assert_eq!(f.hunk_at(10), Some(1));
        assert_eq!(f.hunk_at(500), Some(1));
    }

    #[test]
    fn keys_are_unique_and_anchors_plain() {
        let twice = format!("{GIT}{GIT}");
        let p = parse_patch(&twice);
        let keys = p.keys();
        assert_eq!(keys[0], "src/main.rs");
        assert_eq!(keys[7], "src/main.rs#2");
        let id = anchor_id("<a href=x>\"", Some(2));
        assert!(id.starts_with("cs-diff-") && id.ends_with("-2"));
        assert!(id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'));
        assert_ne!(anchor_id("a", None), anchor_id("b", None));
        assert_eq!(
            p.anchor("/repo/src/main.rs", Some(3)),
            Some(anchor_id("src/main.rs", Some(0)))
        );
        assert_eq!(p.anchor("old.txt", None), Some(anchor_id("old.txt", None)));
        assert_eq!(p.anchor("nowhere.rs", Some(1)), None);
    }

    /// A patch of `files` files, each with hunks of random lines; returns it and its
    /// `+` and `-` line counts.
    fn random_patch(seed: u64, files: usize, lines_per_file: usize) -> (String, usize, usize) {
        let mut state = seed | 1;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let (mut text, mut plus, mut minus) = (String::new(), 0, 0);
        for f in 0..files {
            text.push_str(&format!(
                "diff --git a/src/f{f}.rs b/src/f{f}.rs\nindex 1..2 100644\n--- a/src/f{f}.rs\n+++ b/src/f{f}.rs\n"
            ));
            let (mut old_at, mut new_at) = (1, 1);
            let mut left = lines_per_file;
            while left > 0 {
                let n = (next() as usize % 40 + 1).min(left);
                left -= n;
                let mut body = String::new();
                let (mut olds, mut news) = (0, 0);
                for _ in 0..n {
                    let word = next() % 1000;
                    match next() % 4 {
                        0 => {
                            body.push_str(&format!("-let value = {word};\n"));
                            olds += 1;
                            minus += 1;
                        }
                        1 => {
                            body.push_str(&format!("+let value = {word} + 1;\n"));
                            news += 1;
                            plus += 1;
                        }
                        _ => {
                            body.push_str(&format!(" // unchanged {word}\n"));
                            olds += 1;
                            news += 1;
                        }
                    }
                }
                text.push_str(&format!("@@ -{old_at},{olds} +{new_at},{news} @@\n{body}"));
                old_at += olds + 5;
                new_at += news + 5;
            }
        }
        (text, plus, minus)
    }

    #[test]
    fn a_50k_line_patch_parses_fast() {
        let (text, plus, minus) = random_patch(7, 100, 500);
        let started = std::time::Instant::now();
        let mut p = parse_patch(&text);
        let parsed = started.elapsed();
        for f in &mut p.files {
            f.mark_words();
        }
        let marked = started.elapsed() - parsed;
        println!(
            "50,000-line patch ({} KB, {} files): parsed in {parsed:?}, words of every file marked in {marked:?}",
            text.len() / 1024,
            p.files.len()
        );
        assert_eq!(p.error, None);
        assert_eq!((p.added(), p.removed()), (plus, minus));
    }

    proptest! {
        #[test]
        fn random_patches_count_their_lines(seed in any::<u64>(), files in 1usize..5, lines in 1usize..200) {
            let (text, plus, minus) = random_patch(seed, files, lines);
            let p = parse_patch(&text);
            prop_assert_eq!(&p.error, &None);
            prop_assert_eq!(p.files.len(), files);
            prop_assert_eq!((p.added(), p.removed()), (plus, minus));
        }

        #[test]
        fn random_miscounts_are_recounted(seed in any::<u64>(), files in 1usize..5, lines in 1usize..200, shift in prop::collection::vec(-3i64..4, 1..20)) {
            let (text, plus, minus) = random_patch(seed, files, lines);
            let want = parse_patch(&text);
            let mut n = 0;
            let off: String = text.split_inclusive('\n').map(|l| {
                let Some(rest) = l.strip_prefix("@@ -") else { return l.to_owned() };
                let (ranges, tail) = rest.split_once(" @@").unwrap();
                let (old, new) = ranges.split_once(" +").unwrap();
                let bump = |r: &str, d: i64| {
                    let (s, c) = r.split_once(',').unwrap();
                    format!("{s},{}", (c.parse::<i64>().unwrap() + d).max(0))
                };
                n += 1;
                let (a, b) = (shift[n % shift.len()], shift[(n * 7 + 3) % shift.len()]);
                format!("@@ -{} +{} @@{tail}", bump(old, a), bump(new, b))
            }).collect();
            let got = parse_patch(&off);
            prop_assert_eq!(&got.error, &None);
            prop_assert_eq!(&got.files, &want.files);
            prop_assert_eq!((got.added(), got.removed()), (plus, minus));
        }

        #[test]
        fn random_text_never_panics(
            text in proptest::collection::vec(
                prop_oneof![
                    Just("diff --git a/x b/x\n".to_owned()),
                    Just("--- a/x\n".to_owned()),
                    Just("+++ b/x\n".to_owned()),
                    Just("--- /dev/null\n".to_owned()),
                    Just("@@ -1,2 +1,2 @@\n".to_owned()),
                    Just("@@ -0,0 +1 @@ ctx\n".to_owned()),
                    Just("rename from a\n".to_owned()),
                    Just("new mode 100755\n".to_owned()),
                    Just("old mode 1\n".to_owned()),
                    Just("Binary files a/x and b/x differ\n".to_owned()),
                    Just("GIT binary patch\nliteral 3\n".to_owned()),
                    Just("\\ No newline at end of file\n".to_owned()),
                    "[ +-][^\n]{0,20}\n",
                    any::<String>(),
                ],
                0..30,
            ),
        ) {
            let text = text.concat();
            let mut p = parse_patch(&text);
            for f in &mut p.files {
                f.mark_words();
                let rows: usize = f.hunks.iter().map(|h| super::super::side_by_side(&h.rows).len()).sum();
                prop_assert!(rows <= f.row_count());
            }
            // Counts match the `+` and `-` lines the rows show.
            for f in &p.files {
                let shown = |kind| f.hunks.iter().flat_map(|h| lines(&h.rows)).filter(|l| l.kind == kind).count();
                prop_assert_eq!(f.added, shown(LineKind::Added));
                prop_assert_eq!(f.removed, shown(LineKind::Removed));
            }
        }
    }
}
