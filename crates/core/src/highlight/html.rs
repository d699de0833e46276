//! Tokens as markup: each token's text in its span, the rest escaped.

use super::lines::line_tokens;
use super::{Lang, State, Token};
use crate::markdown::{HtmlWriter, SafeHtml};
use std::ops::Range;

/// A code block's text as highlighted markup (tokens in their spans, the rest as text),
/// with how many lines it has.
pub fn code_html(lang: Lang, code: &str) -> (SafeHtml, usize) {
    let mut out = HtmlWriter::with_capacity(code.len() * 2);
    let mut state = State::default();
    let mut tokens = Vec::new();
    let mut lines = 0;
    for (i, line) in code.split('\n').enumerate() {
        if i > 0 {
            out.markup("\n");
        }
        // A `\r` before the break stays in the text, not in a token.
        let body = line.strip_suffix('\r').unwrap_or(line);
        tokens.clear();
        line_tokens(lang, body, &mut state, &mut tokens);
        write_line(&mut out, line, &tokens, &[]);
        lines += 1;
    }
    (out.finish(), lines)
}

/// One line's text with its tokens in spans and its `marks` (sorted byte ranges, e.g. a
/// diff's changed words) in `<mark class="cs-diff__word">`, a mark around its spans.
pub fn write_line(out: &mut HtmlWriter, text: &str, tokens: &[Token], marks: &[Range<usize>]) {
    let mut cursor = Cursor {
        text,
        tokens,
        at: 0,
        next: 0,
    };
    for mark in marks {
        let (start, end) = (mark.start.min(text.len()), mark.end.min(text.len()));
        if start < cursor.at
            || start >= end
            || !text.is_char_boundary(start)
            || !text.is_char_boundary(end)
        {
            continue;
        }
        cursor.write_to(out, start);
        out.markup(r#"<mark class="cs-diff__word">"#);
        cursor.write_to(out, end);
        out.markup("</mark>");
    }
    cursor.write_to(out, text.len());
}

/// How far [`write_line`] has written its line, and the next token to write.
struct Cursor<'a> {
    text: &'a str,
    tokens: &'a [Token],
    at: usize,
    next: usize,
}

impl Cursor<'_> {
    /// Writes the text up to `end`, tokens cut at `end` (the rest of a cut token follows).
    fn write_to(&mut self, out: &mut HtmlWriter, end: usize) {
        while self.at < end {
            let token = match self.tokens.get(self.next) {
                Some(t) if t.range.end <= self.at => {
                    self.next += 1;
                    continue;
                }
                Some(t) if t.range.start < end => t,
                _ => {
                    out.text(&self.text[self.at..end]);
                    self.at = end;
                    return;
                }
            };
            let start = token.range.start.max(self.at);
            if start > self.at {
                out.text(&self.text[self.at..start]);
            }
            let stop = token.range.end.min(end);
            out.markup(token.kind.open_tag())
                .text(&self.text[start..stop])
                .markup("</span>");
            self.at = stop;
            if token.range.end <= end {
                self.next += 1;
            }
        }
    }
}
