//! Tests that go across the diff's files: a patch's counts repaired (`recount`) as
//! `parse_patch` reads it, and the words `line_diff` marks.

/// A patch whose hunk counts are off, read all the same (`recount.rs`).
mod recount {
    use super::super::recount::recount;
    use super::super::{parse_patch, Repairs};
    use std::borrow::Cow;

    const TWO_FILES: &str = "\
diff --git a/src/a.rs b/src/a.rs
--- a/src/a.rs
+++ b/src/a.rs
@@ -1,3 +1,3 @@ fn a() {
 fn a() {
-    old();
+    new();
 }
@@ -10,2 +10,3 @@
 x
+y
 z
diff --git a/b.txt b/b.txt
--- a/b.txt
+++ b/b.txt
@@ -1 +1 @@
-one
+two
";

    #[test]
    fn a_patch_with_right_counts_is_borrowed_as_it_is() {
        let (text, repairs) = recount(TWO_FILES);
        assert!(matches!(text, Cow::Borrowed(_)));
        assert_eq!(repairs, Repairs::default());
    }

    #[test]
    fn counts_off_either_way_are_taken_from_the_lines() {
        // Too many on one side, too few on the other, and too few in the second file.
        let off = TWO_FILES
            .replace("@@ -1,3 +1,3 @@ fn a() {", "@@ -1,4 +1,2 @@ fn a() {")
            .replace("@@ -1 +1 @@", "@@ -1,1 +1,0 @@");
        let (text, repairs) = recount(&off);
        assert_eq!(text, TWO_FILES.replace("@@ -1 +1 @@", "@@ -1,1 +1,1 @@"));
        assert_eq!(
            repairs,
            Repairs {
                recounted: 2,
                skipped: 0
            }
        );
        let p = parse_patch(&off);
        assert_eq!(p.error, None);
        assert_eq!(p.files.len(), 2);
        assert_eq!((p.added(), p.removed()), (3, 2));
        assert_eq!(p.repairs.recounted, 2);
        assert_eq!(p.files[0].hunks[0].header, "@@ -1,3 +1,3 @@ fn a() {");
    }

    #[test]
    fn an_unreadable_hunk_or_line_hides_nothing_else() {
        // A header that is no header, and a stray line inside a hunk.
        let broken = TWO_FILES
            .replace("@@ -10,2 +10,3 @@", "@@ -10,two +10,3 @@")
            .replace("-one\n", "-one\n... (unchanged)\n");
        let p = parse_patch(&broken);
        assert_eq!(p.error, None);
        assert_eq!(p.files.len(), 2);
        assert_eq!(p.files[0].hunks.len(), 1);
        assert_eq!(p.files[1].path(), "b.txt");
        assert_eq!((p.files[1].added, p.files[1].removed), (1, 1));
        assert_eq!(
            p.repairs,
            Repairs {
                recounted: 0,
                skipped: 2
            }
        );
    }

    #[test]
    fn what_follows_a_patch_is_not_part_of_its_last_hunk() {
        // `git format-patch`'s signature, blank lines and words after the last hunk.
        for tail in ["-- \n2.43.0\n\n", "\n\nThat is all.\n", "\n"] {
            let text = format!("{TWO_FILES}{tail}");
            let (out, repairs) = recount(&text);
            assert_eq!(out, text, "{tail:?}");
            assert_eq!(repairs, Repairs::default(), "{tail:?}");
        }
        // A blank line inside a hunk is a kept line (tools strip the space).
        let stripped = TWO_FILES.replace("@@ -10,2 +10,3 @@\n x\n", "@@ -10,2 +10,3 @@\n\n");
        let p = parse_patch(&stripped);
        assert_eq!((p.error, p.repairs), (None, Repairs::default()));
        assert_eq!(p.files[0].added, 2);
    }

    #[test]
    fn a_hunk_with_no_lines_is_left_out() {
        let empty = TWO_FILES.replace(" x\n+y\n z\n", "");
        let p = parse_patch(&empty);
        assert_eq!(p.error, None);
        assert_eq!(p.files.len(), 2);
        assert_eq!(p.files[0].hunks.len(), 1);
        assert_eq!(p.repairs.skipped, 1);
    }
}

mod words {
    use super::super::{line_diff, DiffRow};

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
}
