//! Tracks which raw HTML elements are still open, so streaming never commits a block inside one.
//!
//! Raw HTML in markdown may span blocks (`<details>` … blank line … markdown … `</details>`).
//! Sanitizing such blocks separately would close the element early, so the streamed result
//! would differ from `render` of the whole text. The stream feeds the raw HTML of each
//! top-level block (pulldown-cmark's `Html`/`InlineHtml` events) through [`OpenHtml`] and only
//! commits at points where nothing is open. This is about fidelity, not safety: every block is
//! sanitized on its own either way. The scan is a lenient approximation of an HTML tokenizer:
//! comments and raw-text elements (`<script>`, `<style>`, …) are skipped, void elements never
//! open, and a stray closing tag never goes below zero.

use std::collections::HashMap;

/// Elements without content (never open).
const VOID: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "keygen", "link", "meta", "param",
    "source", "track", "wbr",
];

/// Elements whose content is text up to their own closing tag.
const RAW_TEXT: &[&str] = &[
    "script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes",
];

/// The open-element state after the raw HTML fed so far.
#[derive(Clone, Debug, Default)]
pub(super) struct OpenHtml {
    /// Open count per element name.
    open: HashMap<String, usize>,
    /// Inside `<!-- … -->`.
    comment: bool,
    /// Inside a raw-text element: its closing tag ends it.
    raw_text: Option<String>,
}

impl OpenHtml {
    /// Whether no element is open.
    pub(super) fn is_closed(&self) -> bool {
        !self.comment && self.raw_text.is_none() && self.open.values().all(|&n| n == 0)
    }

    /// Scan more raw HTML.
    pub(super) fn feed(&mut self, html: &str) {
        let mut rest = html;
        loop {
            if self.comment {
                let Some(end) = rest.find("-->") else { return };
                self.comment = false;
                rest = &rest[end + 3..];
            }
            if let Some(name) = &self.raw_text {
                let Some(end) = find_closing(rest, name) else {
                    return;
                };
                self.close(&name.clone());
                self.raw_text = None;
                rest = &rest[end..];
            }
            let Some(lt) = rest.find('<') else { return };
            rest = &rest[lt + 1..];
            if let Some(after) = rest.strip_prefix("!--") {
                self.comment = true;
                rest = after;
                continue;
            }
            let (closing, body) = match rest.strip_prefix('/') {
                Some(body) => (true, body),
                None => (false, rest),
            };
            if !body.starts_with(|c: char| c.is_ascii_alphabetic()) {
                continue;
            }
            let name_len = body
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
                .unwrap_or(body.len());
            let name = body[..name_len].to_ascii_lowercase();
            rest = skip_tag(&body[name_len..]);
            if closing {
                self.close(&name);
            } else if !VOID.contains(&name.as_str()) {
                *self.open.entry(name.clone()).or_default() += 1;
                if RAW_TEXT.contains(&name.as_str()) {
                    self.raw_text = Some(name);
                }
            }
        }
    }

    fn close(&mut self, name: &str) {
        if let Some(n) = self.open.get_mut(name) {
            *n = n.saturating_sub(1);
        }
    }
}

/// The rest of the text after the end of a tag's attributes (`>` outside quotes).
fn skip_tag(attrs: &str) -> &str {
    let mut quote = None;
    for (i, c) in attrs.char_indices() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), _) if c == q => quote = None,
            (None, '>') => return &attrs[i + 1..],
            _ => {}
        }
    }
    ""
}

/// The offset just after `</name` (case-insensitive) in `text`.
fn find_closing(text: &str, name: &str) -> Option<usize> {
    let needle = format!("</{name}");
    let lower = text.to_ascii_lowercase();
    lower.find(&needle).map(|i| i + needle.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn closed_after(parts: &[&str]) -> bool {
        let mut o = OpenHtml::default();
        for part in parts {
            o.feed(part);
        }
        o.is_closed()
    }

    #[test]
    fn balanced_and_void_markup_is_closed() {
        assert!(closed_after(&[]));
        assert!(closed_after(&["<b>x</b> <br> <img src=x> <hr/>"]));
        assert!(closed_after(&[
            "<details>\n<summary>s</summary>\n",
            "</details>\n"
        ]));
        assert!(closed_after(&["</div></span>"]), "stray closers");
        assert!(closed_after(&["<DIV>", "</div>"]));
        assert!(closed_after(&["<a title=\"<div>\" href='>'>", "</a>"]));
        assert!(closed_after(&["<!-- <div> -->"]));
        assert!(closed_after(&["<script>if (a<b) {}</script>"]));
        assert!(closed_after(&["x < y and 1<2 <-- not a tag"]));
    }

    #[test]
    fn open_markup_is_not_closed() {
        assert!(!closed_after(&["<details>\n<summary>s</summary>\n"]));
        assert!(!closed_after(&["<div>", "</span>"]));
        assert!(!closed_after(&["<div><div>", "</div>"]));
        assert!(!closed_after(&["<b>"]));
        assert!(
            !closed_after(&["<div/>"]),
            "self-closing syntax does not close a div"
        );
        assert!(!closed_after(&["<!-- <div>"]));
        assert!(!closed_after(&["<script>", "</div>"]));
        assert!(!closed_after(&["<style>p{}", "</div>"]));
        assert!(!closed_after(&["<!-- x -->", "<!-- "]));
    }

    #[test]
    fn comments_and_raw_text_hide_tags() {
        assert!(closed_after(&["<div><!-- </div> -->", "</div>"]));
        assert!(!closed_after(&["<div><!-- </div> -->"]));
        assert!(!closed_after(&["<div><script></div></script>"]));
        assert!(closed_after(&["<div><script></div></script>", "</div>"]));
    }
}
