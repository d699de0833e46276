//! Incremental rendering of streamed markdown: finished blocks are rendered once, only the open tail is re-rendered.
//!
//! The text is split at top-level markdown blocks (paragraph, heading, list, table, code
//! block, blockquote, …). `committed` is the byte offset where the uncommitted tail starts; a
//! push re-parses only `text[committed..]`. A block is committed (rendered once, appended to
//! `blocks`, never touched again) when a later top-level block has started and that start is
//! *confirmed*: the later block's first line is complete, and either a blank line precedes it
//! or its second line is complete too. The two-line rule covers the constructs whose meaning
//! depends on the following line (a GFM table header needs its delimiter row, and a table may
//! interrupt a paragraph); requiring complete lines covers starts that depend on the rest of
//! the line (`2` is paragraph text, `2.` may continue an ordered list above). And no raw HTML
//! element may be open at that point (see `open_html.rs`): `<details>` … `</details>` around
//! markdown blocks is committed as one piece, sanitized together as `render` would.
//!
//! Known limitations, all rare in assistant output:
//! * A reference link (`[x][label]`) resolves only against definitions in the same or an
//!   earlier block; a definition that arrives after its use does not update committed blocks
//!   (call `reset` with the final text, or use `render`, to get the exact result).
//! * HTML text (see `looks_like_html`, decided from the start of the text) is re-sanitized
//!   whole on every push, with no committed blocks (HTML has no markdown blocks to split at).
//! * A single block that never ends (one huge paragraph, an unclosed code fence, a raw HTML
//!   element never closed) is re-parsed whole on every push: its rendering really can change
//!   until it ends. The cost per push is then proportional to that block, never to the
//!   committed text before it.

use super::citations::CitedText;
use super::dialect::looks_like_html;
use super::open_html::OpenHtml;
use super::renderer::render_markdown;
use super::sanitize::{sanitize_html, sanitize_rendered, scrub, SafeHtml};
use super::to_html::{normalize_label, parser, RawHtml, RefDefs};
use pulldown_cmark::{Event, Tag, TagEnd};

/// Incremental renderer for a streamed markdown (or HTML) text.
#[derive(Debug, Default)]
pub struct MarkdownStream {
    text: String,
    /// Byte offset in `text` where the uncommitted tail starts (always at a line start).
    committed: usize,
    blocks: Vec<SafeHtml>,
    tail: SafeHtml,
    generation: u64,
    /// Whether the text is HTML (sanitized whole) rather than markdown.
    html: bool,
    /// Reference definitions found in committed text.
    defs: RefDefs,
    last_parse_len: usize,
    /// `Marked` after `reset_cited`: the text holds the renderer's own citation markers, and
    /// anything pushed after is scrubbed on the way in.
    raw: RawHtml,
}

impl MarkdownStream {
    /// An empty stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// Append newly streamed text. Cost does not depend on the total length so far: only the
    /// open tail is re-parsed.
    pub fn push(&mut self, delta: &str) {
        if delta.is_empty() {
            self.last_parse_len = 0;
            return;
        }
        match self.raw {
            RawHtml::Server => self.text.push_str(delta),
            RawHtml::Marked => self.text.push_str(&scrub(delta)),
        }
        self.update();
    }

    /// Replace the whole text with a text and its citation markers
    /// (`citations::cited_text`), whose `data-part="citation"` hooks are kept. Everything is
    /// rebuilt (`blocks_generation` increments) unless it is the text already shown.
    pub fn reset_cited(&mut self, cited: &CitedText) {
        if self.raw == RawHtml::Marked && self.text == cited.as_str() {
            self.last_parse_len = 0;
            return;
        }
        *self = MarkdownStream {
            generation: self.generation + 1,
            raw: RawHtml::Marked,
            ..MarkdownStream::new()
        };
        self.text.push_str(cited.as_str());
        self.update();
    }

    /// Replace the whole text (e.g. a final text that differs from the streamed one). If `text`
    /// starts with the current text, this is a `push` of the suffix; otherwise everything is
    /// rebuilt and `blocks_generation` increments.
    pub fn reset(&mut self, text: &str) {
        if let Some(suffix) = text.strip_prefix(self.text.as_str()) {
            self.push(suffix);
            return;
        }
        *self = MarkdownStream {
            generation: self.generation + 1,
            ..MarkdownStream::new()
        };
        self.push(text);
    }

    /// The text so far.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Completed blocks, rendered once each and never changed afterwards (index = stable key).
    pub fn blocks(&self) -> &[SafeHtml] {
        &self.blocks
    }

    /// The open tail block(s), re-rendered on every push.
    pub fn tail(&self) -> &SafeHtml {
        &self.tail
    }

    /// Increments whenever `blocks()` grows or is rebuilt, so a view can tell whether it has to
    /// touch the completed blocks at all.
    pub fn blocks_generation(&self) -> u64 {
        self.generation
    }

    /// How many bytes of markdown the last `push` parsed (scan of the tail plus rendering of
    /// newly committed blocks and of the tail). For diagnostics and the cost tests.
    pub fn last_parse_len(&self) -> usize {
        self.last_parse_len
    }

    fn update(&mut self) {
        let html = looks_like_html(&self.text);
        if html != self.html {
            // Decided by the first tag, so this flips only while the text is one short line;
            // still, rebuild properly if anything was committed.
            self.html = html;
            if !self.blocks.is_empty() || self.committed != 0 {
                self.blocks.clear();
                self.committed = 0;
                self.defs.clear();
                self.generation += 1;
            }
        }
        if self.html {
            self.last_parse_len = self.text.len();
            self.tail = match self.raw {
                RawHtml::Server => sanitize_html(&self.text),
                RawHtml::Marked => sanitize_rendered(&self.text),
            };
            return;
        }

        let open = &self.text[self.committed..];
        let mut parsed = open.len();
        let (starts, new_defs) = block_starts(open, &self.defs);
        // The first block never ends a split: there is nothing before it to commit.
        let split = confirmed_split(open, starts.get(1..).unwrap_or_default());
        // Cut the committed text at every block start with no raw HTML element open before it.
        let cuts = starts
            .iter()
            .skip(1)
            .filter(|b| b.html_closed)
            .map(|b| b.start);
        if split > 0 {
            for (label, def) in new_defs {
                if def.0 <= split {
                    self.defs.entry(label).or_insert(def.1);
                }
            }
            let mut from = 0;
            for to in cuts.take_while(|&s| s <= split) {
                let block = &open[from..to];
                parsed += block.len();
                self.blocks
                    .push(render_markdown(block, &self.defs, self.raw));
                from = to;
            }
            self.committed += split;
            self.generation += 1;
        }
        let tail = &self.text[self.committed..];
        parsed += tail.len();
        self.tail = if tail.trim().is_empty() {
            SafeHtml::default()
        } else {
            render_markdown(tail, &self.defs, self.raw)
        };
        self.last_parse_len = parsed;
    }
}

/// A reference definition found while scanning: (label, (end offset, (dest, title))).
type FoundDef = (String, (usize, (String, String)));

/// Where a top-level block starts.
#[derive(Clone, Copy, Debug)]
struct Boundary {
    /// Offset of the start of the block's first line.
    start: usize,
    /// No raw HTML element is open before this block.
    html_closed: bool,
}

/// The top-level blocks of `text`, and the reference definitions in it.
fn block_starts(text: &str, defs: &RefDefs) -> (Vec<Boundary>, Vec<FoundDef>) {
    let mut starts: Vec<Boundary> = Vec::new();
    let mut open_html = OpenHtml::default();
    let mut depth = 0usize;
    let mut iter = parser(text, defs).into_offset_iter();
    for (event, range) in iter.by_ref() {
        match event {
            Event::Start(tag) => {
                if depth == 0 {
                    push_start(&mut starts, text, range.start, &open_html);
                }
                depth += 1;
                if matches!(tag, Tag::TableCell) {
                    open_html.enter_cell();
                }
            }
            Event::End(tag) => {
                depth = depth.saturating_sub(1);
                if matches!(tag, TagEnd::TableCell) {
                    open_html.leave_cell();
                }
            }
            Event::Html(html) | Event::InlineHtml(html) => {
                if depth == 0 {
                    push_start(&mut starts, text, range.start, &open_html);
                }
                open_html.feed(&html);
            }
            _ if depth == 0 => push_start(&mut starts, text, range.start, &open_html),
            _ => {}
        }
    }
    let found = iter
        .reference_definitions()
        .iter()
        .map(|(label, def)| {
            (
                normalize_label(label),
                (
                    def.span.end,
                    (
                        def.dest.to_string(),
                        def.title.as_deref().unwrap_or("").to_string(),
                    ),
                ),
            )
        })
        .collect();
    (starts, found)
}

fn push_start(starts: &mut Vec<Boundary>, text: &str, at: usize, open_html: &OpenHtml) {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    if starts.last().is_none_or(|last| line_start > last.start) {
        starts.push(Boundary {
            start: line_start,
            html_closed: open_html.is_closed(),
        });
    }
}

/// The offset up to which blocks are finished: the last of `starts` (the top-level blocks
/// after the first) that is confirmed (see the module docs) with no raw HTML open, or 0.
fn confirmed_split(text: &str, starts: &[Boundary]) -> usize {
    starts
        .iter()
        .rev()
        .find(|b| b.start > 0 && b.html_closed && start_confirmed(text, b.start))
        .map_or(0, |b| b.start)
}

fn start_confirmed(text: &str, start: usize) -> bool {
    let Some(first_end) = text[start..].find('\n').map(|i| start + i + 1) else {
        return false;
    };
    let before = &text[..start - 1];
    let previous_line = &before[before.rfind('\n').map_or(0, |i| i + 1)..];
    previous_line.trim().is_empty() || text[first_end..].contains('\n')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(text: &str, step: usize) -> MarkdownStream {
        let mut s = MarkdownStream::new();
        let mut i = 0;
        while i < text.len() {
            let mut j = (i + step).min(text.len());
            while !text.is_char_boundary(j) {
                j += 1;
            }
            s.push(&text[i..j]);
            i = j;
        }
        s
    }

    fn joined(s: &MarkdownStream) -> String {
        let mut out: String = s.blocks().iter().map(SafeHtml::as_str).collect();
        out.push_str(s.tail().as_str());
        out
    }

    #[test]
    fn paragraphs_commit_once_a_later_start_is_confirmed() {
        let mut s = MarkdownStream::new();
        s.push("one\n\ntwo");
        assert!(s.blocks().is_empty(), "second line still open");
        s.push("\n");
        assert_eq!(s.blocks().len(), 1);
        assert_eq!(s.blocks()[0].as_str(), "<p>one</p>\n");
        assert_eq!(s.tail().as_str(), "<p>two</p>\n");
        assert_eq!(s.blocks_generation(), 1);
        s.push("\nthree");
        assert_eq!(s.blocks().len(), 1);
        s.push("\n");
        assert_eq!(s.blocks().len(), 2);
        assert_eq!(s.blocks_generation(), 2);
        assert_eq!(s.text(), "one\n\ntwo\n\nthree\n");
    }

    #[test]
    fn ordered_list_continuation_is_not_cut_early() {
        let text = "1. a\n\n2. b\n\n3. c\n";
        let s = feed(text, 1);
        assert_eq!(joined(&s), crate::markdown::render(text).into_string());
        assert!(s.blocks().is_empty(), "one list, still open");
    }

    #[test]
    fn table_interrupting_a_paragraph_waits_for_the_delimiter_row() {
        for text in [
            "a\n| x | y |\n|--x\n\nend\n",
            "a\n| x | y |\n|---|---|\n| 1 | 2 |\n\nend\n",
        ] {
            for step in [1, 2, 3, 5] {
                let s = feed(text, step);
                assert_eq!(
                    joined(&s),
                    crate::markdown::render(text).into_string(),
                    "{text:?} in {step}-byte slices"
                );
            }
        }
    }

    #[test]
    fn reference_definitions_from_committed_blocks_apply_later() {
        let text = "[r]: https://example.com/r\n\npara\n\n[link][R] here\n\n[x]\n";
        let s = feed(text, 1);
        let out = joined(&s);
        assert!(out.contains(r#"<a href="https://example.com/r""#), "{out}");
        assert_eq!(out, crate::markdown::render(text).into_string());
    }

    #[test]
    fn raw_html_around_blocks_is_committed_as_one_piece() {
        let text = "intro\n\n<details>\n<summary>More</summary>\n\n*inner* text\n\n</details>\n\nafter\n\nend\n";
        let mut s = MarkdownStream::new();
        for (i, c) in text.char_indices() {
            s.push(&text[i..i + c.len_utf8()]);
            if s.text().ends_with("*inner* text\n\n") {
                assert_eq!(s.blocks().len(), 1, "only `intro` is committed");
            }
        }
        assert_eq!(s.blocks().len(), 3, "{:?}", s.blocks());
        assert!(s.blocks()[1].as_str().starts_with("<details>"));
        assert!(s.blocks()[1].as_str().contains("<em>inner</em>"));
        assert_eq!(joined(&s), crate::markdown::render(text).into_string());
    }

    #[test]
    fn html_text_is_sanitized_whole() {
        let text = "<div><p>a</p>\n\n<p>b<script>x</script></p></div>";
        let s = feed(text, 1);
        assert!(s.blocks().is_empty());
        assert_eq!(s.tail(), &crate::markdown::render(text));
        assert_eq!(s.tail().as_str(), "<div><p>a</p>\n\n<p>b</p></div>");
    }

    #[test]
    fn html_is_detected_once_the_first_tag_is_complete() {
        // Markdown until the tag name is complete.
        let mut s = MarkdownStream::new();
        s.push("<p");
        // As markdown, `<p` at the end of a line starts an HTML block: an unfinished tag.
        assert!(!looks_like_html(s.text()));
        assert_eq!(s.tail(), &crate::markdown::render("<p"));
        s.push(">x</p>");
        assert_eq!(s.tail().as_str(), "<p>x</p>");
        assert!(s.blocks().is_empty());
    }

    #[test]
    fn reset_with_prefix_extends_and_with_other_text_rebuilds() {
        let mut s = MarkdownStream::new();
        s.push("a\n\nb\n\nc");
        let generation = s.blocks_generation();
        let blocks = s.blocks().to_vec();
        s.reset("a\n\nb\n\nc d\n");
        assert_eq!(&s.blocks()[..blocks.len()], &blocks[..]);
        assert_eq!(s.text(), "a\n\nb\n\nc d\n");
        let generation2 = s.blocks_generation();
        assert!(generation2 >= generation);
        s.reset("x\n\ny\n");
        assert!(s.blocks_generation() > generation2);
        assert_eq!(s.text(), "x\n\ny\n");
        assert_eq!(
            joined(&s),
            crate::markdown::render("x\n\ny\n").into_string()
        );
        s.reset("");
        assert_eq!(s.text(), "");
        assert!(s.blocks().is_empty() && s.tail().is_empty());
    }

    #[test]
    fn empty_push_is_a_no_op() {
        let mut s = MarkdownStream::new();
        s.push("");
        assert!(s.tail().is_empty());
        assert_eq!(s.blocks_generation(), 0);
        assert_eq!(s.last_parse_len(), 0);
    }
}
