//! Diff rows as markup, for a view to set with one HTML parse: a 2,000-line diff is
//! thousands of elements, and one parse is several times cheaper than a DOM call per node.
//! Server text (the lines) and localized strings are only ever escaped ([`HtmlWriter`]).
//! Rows come in chunks that a stylesheet can skip off screen (`content-visibility`).

use super::rows::{side_by_side, DiffLine, DiffRow, LineKind, SideRow};
use crate::highlight::{write_line, LineHighlighter, Token};
use crate::markdown::{HtmlWriter, SafeHtml};
use crate::strings::{Strings, Text};

/// Rows per chunk (`.cs-diff__chunk`; the stylesheet sizes a chunk it skips by this count).
pub const CHUNK_ROWS: usize = 64;

/// No tokens: the lines as text.
struct Plain;

impl LineHighlighter for Plain {
    fn tokens(&mut self, _: &str, _: bool, _: bool, _: &mut Vec<Token>) {}
    fn skip(&mut self) {}
}

/// `rows` as `.cs-diff__line` rows (or `.cs-diff__pair`s of two `.cs-diff__side`s when
/// `side_by_side`), folded runs as `.cs-diff__folded`, in chunks of [`CHUNK_ROWS`].
pub fn rows_html(rows: &[DiffRow], side_by_side_layout: bool, strings: &Strings) -> SafeHtml {
    rows_html_with(rows, side_by_side_layout, strings, &mut Plain)
}

/// [`rows_html`] with each line's tokens from `highlighter` in their spans.
pub fn rows_html_with(
    rows: &[DiffRow],
    side_by_side_layout: bool,
    strings: &Strings,
    highlighter: &mut dyn LineHighlighter,
) -> SafeHtml {
    let mut lines = Lines {
        highlighter,
        tokens: Vec::new(),
    };
    let bytes: usize = rows
        .iter()
        .map(|r| match r {
            DiffRow::Line(l) => l.text.len() + 200,
            DiffRow::Folded(_) => 100,
        })
        .sum();
    let mut out = HtmlWriter::with_capacity(bytes);
    if side_by_side_layout {
        for chunk in side_by_side(rows).chunks(CHUNK_ROWS) {
            open_chunk(&mut out);
            for row in chunk {
                match row {
                    SideRow::Pair { left, right } => {
                        out.markup(r#"<div class="cs-diff__pair">"#);
                        side(&mut out, &mut lines, *left, true);
                        side(&mut out, &mut lines, *right, false);
                        out.markup("</div>");
                    }
                    SideRow::Folded(n) => {
                        lines.highlighter.skip();
                        folded(&mut out, *n, strings)
                    }
                }
            }
            out.markup("</div>");
        }
    } else {
        for chunk in rows.chunks(CHUNK_ROWS) {
            open_chunk(&mut out);
            for row in chunk {
                match row {
                    DiffRow::Line(l) => {
                        kind_open(
                            &mut out,
                            l,
                            r#"<div class="cs-diff__line" data-part="diff-line" data-line=""#,
                        );
                        number(&mut out, l.old);
                        number(&mut out, l.new);
                        let kind = l.kind;
                        lines.write(
                            &mut out,
                            l,
                            kind != LineKind::Added,
                            kind != LineKind::Removed,
                        );
                        out.markup("</div>");
                    }
                    DiffRow::Folded(n) => {
                        lines.highlighter.skip();
                        folded(&mut out, *n, strings)
                    }
                }
            }
            out.markup("</div>");
        }
    }
    out.finish()
}

/// No `style` attribute: a page with a strict Content-Security-Policy refuses it.
fn open_chunk(out: &mut HtmlWriter) {
    out.markup(r#"<div class="cs-diff__chunk">"#);
}

/// `open` (ending in an open `data-line="`), the line's kind, and the tag's end.
fn kind_open(out: &mut HtmlWriter, line: &DiffLine, open: &'static str) {
    out.markup(open).markup(line.kind.as_str()).markup(r#"">"#);
}

fn number(out: &mut HtmlWriter, n: Option<usize>) {
    out.markup(r#"<span class="cs-diff__no" aria-hidden="true">"#);
    if let Some(n) = n {
        out.text(&n.to_string());
    }
    out.markup("</span>");
}

/// The highlighter and its token buffer, for the lines as they are written.
struct Lines<'h> {
    highlighter: &'h mut dyn LineHighlighter,
    tokens: Vec<Token>,
}

impl Lines<'_> {
    /// A line's sign and text: its tokens in spans, its changed words marked.
    fn write(&mut self, out: &mut HtmlWriter, line: &DiffLine, old_side: bool, new_side: bool) {
        out.markup(r#"<span class="cs-diff__sign">"#)
            .markup(line.kind.sign())
            .markup(r#"</span><span class="cs-diff__text">"#);
        self.tokens.clear();
        self.highlighter
            .tokens(&line.text, old_side, new_side, &mut self.tokens);
        write_line(out, &line.text, &self.tokens, &line.changed);
        out.markup("</span>");
    }
}

/// One half of a side-by-side row: the old line's number on the left, the new one's on
/// the right; a blank where the other side has no line.
fn side(out: &mut HtmlWriter, lines: &mut Lines, line: Option<&DiffLine>, left: bool) {
    let Some(l) = line else {
        out.markup(r#"<div class="cs-diff__side" data-line="empty"></div>"#);
        return;
    };
    kind_open(
        out,
        l,
        r#"<div class="cs-diff__side" data-part="diff-line" data-line=""#,
    );
    number(out, if left { l.old } else { l.new });
    lines.write(out, l, left, !left);
    out.markup("</div>");
}

fn folded(out: &mut HtmlWriter, n: usize, strings: &Strings) {
    let text = if n == 1 {
        strings.get(Text::OneLineUnchanged).to_owned()
    } else {
        strings.format(Text::LinesUnchanged, &[("count", &n.to_string())])
    };
    out.markup(r#"<div class="cs-diff__folded" data-part="diff-folded" data-line="folded">"#)
        .text(&text)
        .markup("</div>");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diff::{line_diff, parse_patch};

    #[test]
    fn lines_are_escaped_and_marked() {
        let evil = "<img src=x onerror=alert(1)>";
        let d = line_diff(Some("let a = 1;\n"), &format!("let a = \"{evil}\";\n"));
        let html = rows_html(&d.rows, false, &Strings::default());
        let html = html.as_str();
        assert!(!html.contains("<img"), "{html}");
        // Escaped, whichever tokens are marked inside it.
        let text = html
            .replace(r#"<mark class="cs-diff__word">"#, "")
            .replace("</mark>", "");
        assert!(
            text.contains("&lt;img src=x onerror=alert(1)&gt;"),
            "{html}"
        );
        assert!(html.contains(r#"<mark class="cs-diff__word">"#), "{html}");
        assert!(html.contains(r#"data-line="removed""#) && html.contains(r#"data-line="added""#));
        // Every element opened is closed: the markup nests as written.
        assert_eq!(html.matches("<div").count(), html.matches("</div>").count());
        assert_eq!(
            html.matches("<span").count(),
            html.matches("</span>").count()
        );
    }

    #[test]
    fn rows_come_in_chunks_of_64_without_inline_style() {
        let new: String = (0..150).map(|i| format!("line {i}\n")).collect();
        let d = line_diff(None, &new);
        let html = rows_html(&d.rows, false, &Strings::default());
        let html = html.as_str();
        let lines: Vec<usize> = html
            .split(r#"<div class="cs-diff__chunk">"#)
            .skip(1)
            .map(|chunk| chunk.matches(r#"class="cs-diff__line""#).count())
            .collect();
        assert_eq!(lines, [CHUNK_ROWS, CHUNK_ROWS, 22]);
        assert!(!html.contains("style="), "{html}");
    }

    #[test]
    fn side_by_side_pairs_and_folds_in_words() {
        let old: String = (0..40).map(|i| format!("l{i}\n")).collect();
        let new = old.replace("l20\n", "l20 changed\n");
        let d = line_diff(Some(&old), &new);
        let html = rows_html(&d.rows, true, &Strings::default());
        let html = html.as_str();
        assert!(html.contains(r#"class="cs-diff__pair""#));
        assert!(html.contains("unchanged lines"), "{html}");
        let p = parse_patch("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n");
        let unified = rows_html(&p.files[0].hunks[0].rows, false, &Strings::default());
        assert_eq!(
            unified.as_str().matches(r#"data-part="diff-line""#).count(),
            2
        );
    }

    #[test]
    fn highlighted_rows_keep_text_marks_and_sides() {
        use crate::highlight::{DiffSides, Lang};
        let old = "/* a\n b */\nlet x = \"<b>old</b>\";\n";
        let new = "/* a\n b */\nlet x = \"<b>new</b>\";\n";
        let d = line_diff(Some(old), new);
        for sbs in [false, true] {
            let plain = rows_html(&d.rows, sbs, &Strings::default());
            let lit = rows_html_with(
                &d.rows,
                sbs,
                &Strings::default(),
                &mut DiffSides::new(Lang::Rust),
            );
            let (plain, lit) = (plain.as_str(), lit.as_str());
            // The same text, the changed words still marked, tokens in spans.
            let strip = |h: &str| {
                let mut s = h.to_owned();
                for c in crate::highlight::CLASSES {
                    s = s.replace(&format!(r#"<span class="{c}">"#), "");
                }
                s.replace("</span>", "")
            };
            assert_eq!(strip(plain), strip(lit), "side by side: {sbs}");
            assert!(
                lit.contains(r#"<span class="cs-tok-keyword">let</span>"#),
                "{lit}"
            );
            // The second line of the comment is still a comment: state carried over lines.
            assert!(
                lit.contains(r#"<span class="cs-tok-comment"> b */</span>"#),
                "{lit}"
            );
            assert!(lit.contains(r#"<mark class="cs-diff__word">"#), "{lit}");
            assert!(!lit.contains("<b>"), "{lit}");
        }
    }
}
