//! Tracks which raw HTML elements are still open, so streaming never commits a block inside one.
//!
//! Raw HTML in markdown may span blocks (`<details>` … blank line … markdown … `</details>`).
//! Sanitizing such blocks separately would close the element early, so the streamed result
//! would differ from `render` of the whole text. The stream feeds the raw HTML of each
//! top-level block (pulldown-cmark's `Html`/`InlineHtml` events) through [`OpenHtml`] and only
//! commits at points where nothing is open. This is about fidelity, not safety: every block is
//! sanitized on its own either way. The scan approximates an HTML parser conservatively: a
//! stack of open elements; comments and raw-text elements (`<script>`, `<style>`, …) are
//! skipped; void elements never open; a closing tag for an element that is not open is
//! ignored (as the HTML parser does). Whatever it cannot follow exactly (misnested tags,
//! which the HTML parser repairs in ways that depend on the tree, or a `<!--` inside a
//! script) makes it report "open" from then on, which only costs re-parsing, never fidelity.
//!
//! Table cells that markdown generates are scope markers for the HTML parser, and the scan
//! is told where they start and end ([`OpenHtml::enter_cell`], [`OpenHtml::leave_cell`]): a
//! closing tag inside a cell never closes an element opened outside it (`text <b>bold`, then
//! a table row `</b> end`: the `<b>` stays open around everything after the table), and
//! leaving the cell closes whatever was opened inside it.

/// Elements without content (never open).
const VOID: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "keygen", "link", "meta", "param",
    "source", "track", "wbr",
];

/// Elements whose content is text up to their own closing tag.
const RAW_TEXT: &[&str] = &[
    "script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes",
];

/// Stands for a markdown table cell in the stack: no tag name starts with `#`.
const CELL: &str = "#cell";

/// The open-element state after the raw HTML fed so far.
#[derive(Clone, Debug, Default)]
pub(super) struct OpenHtml {
    /// Open elements, innermost last, with [`CELL`] markers for markdown table cells.
    stack: Vec<String>,
    /// Inside `<!-- … -->`.
    comment: bool,
    /// Inside a raw-text element: its closing tag ends it.
    raw_text: Option<String>,
    /// Something this scanner cannot follow (`<!--` inside `<script>` changes where the
    /// script ends): treat everything after it as open.
    lost: bool,
}

impl OpenHtml {
    /// Whether no element is open.
    pub(super) fn is_closed(&self) -> bool {
        !self.lost && !self.comment && self.raw_text.is_none() && self.stack.is_empty()
    }

    /// Scan more raw HTML.
    pub(super) fn feed(&mut self, html: &str) {
        let mut rest = html;
        while !self.lost {
            if self.comment {
                let Some(end) = rest.find("-->") else { return };
                self.comment = false;
                rest = &rest[end + 3..];
            }
            if let Some(name) = &self.raw_text {
                let Some(end) = find_closing(rest, name) else {
                    self.lost |= name == "script" && rest.contains("<!--");
                    return;
                };
                if name == "script" && rest[..end].contains("<!--") {
                    self.lost = true;
                    return;
                }
                self.raw_text = None;
                self.stack.pop();
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
                if RAW_TEXT.contains(&name.as_str()) {
                    self.raw_text = Some(name.clone());
                }
                self.stack.push(name);
            }
        }
    }

    /// A markdown table cell starts.
    pub(super) fn enter_cell(&mut self) {
        if self.comment || self.raw_text.is_some() {
            // The cell's own tags land inside the comment or raw text: not followed.
            self.lost = true;
        }
        self.stack.push(CELL.to_owned());
    }

    /// A markdown table cell ends: like the HTML parser at `</td>`, everything opened
    /// inside the cell is closed with it.
    pub(super) fn leave_cell(&mut self) {
        if self.comment || self.raw_text.is_some() {
            self.lost = true;
        }
        if let Some(marker) = self.stack.iter().rposition(|open| open == CELL) {
            self.stack.truncate(marker);
        }
    }

    fn close(&mut self, name: &str) {
        // Only elements opened inside the innermost cell can be closed from within it; the
        // HTML parser ignores a closing tag for anything outside.
        let cell = self
            .stack
            .iter()
            .rposition(|open| open == CELL)
            .map_or(0, |marker| marker + 1);
        let in_scope = &self.stack[cell..];
        if in_scope.last().is_some_and(|top| top == name) {
            self.stack.pop();
        } else if in_scope.iter().any(|open| open == name) {
            self.lost = true;
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
        // Script data escapes: the first `</script>` does not end this script.
        assert!(!closed_after(&["<script>\n<!--\n<script>\n</script>\n"]));
        assert!(!closed_after(&[
            "<script>\n<!--\n",
            "</script>\n",
            "</script>"
        ]));
    }

    #[test]
    fn misnested_markup_stays_open() {
        assert!(!closed_after(&["<b><i></b></i>"]));
        // `</details>` inside a table cell is ignored by the HTML parser.
        assert!(!closed_after(&[
            "<details>\n<table><tr><td>\n",
            "</details>\n</td></tr></table>\n"
        ]));
    }

    #[test]
    fn markdown_cells_scope_closing_tags() {
        let mut o = OpenHtml::default();
        o.feed("<b>");
        o.enter_cell();
        o.feed("</b>");
        o.leave_cell();
        assert!(
            !o.is_closed(),
            "a `</b>` in a cell leaves the outer `<b>` open"
        );
        o.feed("</b>");
        assert!(o.is_closed());

        let mut o = OpenHtml::default();
        o.enter_cell();
        o.feed("<i>x <span>");
        assert!(!o.is_closed());
        o.leave_cell();
        assert!(o.is_closed(), "leaving the cell closes what it opened");
    }

    #[test]
    fn comments_and_raw_text_hide_tags() {
        assert!(closed_after(&["<div><!-- </div> -->", "</div>"]));
        assert!(!closed_after(&["<div><!-- </div> -->"]));
        assert!(!closed_after(&["<div><script></div></script>"]));
        assert!(closed_after(&["<div><script></div></script>", "</div>"]));
    }
}
