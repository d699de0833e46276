//! Markdown to (not yet sanitized) HTML: pulldown-cmark with our options and event rewrites.
//!
//! The rewrites: fenced and indented code blocks get the code block chrome (language label and
//! a copy button, with the component's hooks marked as the renderer's own, see
//! `sanitize.rs`), raw HTML from the server loses any such mark, table cell alignment
//! becomes `align="…"` instead of a `style` attribute (styles are stripped by the
//! sanitizer), bare `http(s)://` and `www.` URLs in text become
//! links (GFM's extended autolinks, which pulldown-cmark lacks), and reference links may
//! resolve against definitions from earlier, separately parsed text (used by the streaming
//! renderer).

use std::borrow::Cow;
use std::collections::{HashMap, VecDeque};

use pulldown_cmark::{Alignment, BrokenLink, CodeBlockKind, CowStr, Event, Parser, Tag, TagEnd};

use super::dialect::options;
use super::idn::ascii_host;
use super::sanitize::{escape, scrub, TAG_BREAK, TRUSTED};

/// Reference definitions (`[label]: url "title"`) keyed by normalized label.
pub(super) type RefDefs = HashMap<String, (String, String)>;

/// Normalize a link label the way CommonMark matches them (case-insensitive, inner
/// whitespace collapsed).
pub(super) fn normalize_label(label: &str) -> String {
    label
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// A parser for `text` whose unresolved reference links are looked up in `defs`.
pub(super) fn parser<'a>(
    text: &'a str,
    defs: &'a RefDefs,
) -> Parser<'a, impl FnMut(BrokenLink<'a>) -> Option<(CowStr<'a>, CowStr<'a>)>> {
    Parser::new_with_broken_link_callback(
        text,
        options(),
        Some(move |link: BrokenLink<'a>| {
            defs.get(&normalize_label(&link.reference))
                .map(|(dest, title)| (dest.as_str().into(), title.as_str().into()))
        }),
    )
}

/// Whose raw HTML a markdown source holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum RawHtml {
    /// The server's, as it came: its hook marks are scrubbed.
    #[default]
    Server,
    /// Already scrubbed, with the renderer's own marked markup added (citation markers).
    Marked,
}

/// Render markdown to unsanitized HTML. The caller must pass the result to the sanitizer
/// (`sanitize_rendered`: the server's raw HTML is scrubbed here, per `raw`).
pub(super) fn markdown_to_html(text: &str, defs: &RefDefs, raw: RawHtml) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 2);
    pulldown_cmark::html::push_html(&mut out, Rewrite::new(parser(text, defs), raw));
    out
}

/// The event rewriter (see the module docs).
struct Rewrite<I: Iterator> {
    inner: std::iter::Peekable<I>,
    /// Inside a code block: its text is collected and emitted escaped at the end.
    code: Option<String>,
    alignments: Vec<Alignment>,
    in_head: bool,
    cell: usize,
    /// Inside a link or image: its text is never linkified again.
    in_link: usize,
    /// Events split off a text event by linkification, emitted next.
    pending: VecDeque<Event<'static>>,
    raw: RawHtml,
}

impl<'a, I: Iterator<Item = Event<'a>>> Rewrite<I> {
    fn new(inner: I, raw: RawHtml) -> Self {
        Rewrite {
            inner: inner.peekable(),
            code: None,
            alignments: Vec::new(),
            in_head: false,
            cell: 0,
            in_link: 0,
            pending: VecDeque::new(),
            raw,
        }
    }

    fn cell_tag(&self) -> &'static str {
        if self.in_head {
            "th"
        } else {
            "td"
        }
    }
}

impl<'a, I: Iterator<Item = Event<'a>>> Iterator for Rewrite<I> {
    type Item = Event<'a>;

    fn next(&mut self) -> Option<Event<'a>> {
        if let Some(event) = self.pending.pop_front() {
            return Some(event);
        }
        loop {
            let event = self.inner.next()?;
            if let Some(code) = &mut self.code {
                match event {
                    Event::Text(text) => {
                        code.push_str(&text);
                        continue;
                    }
                    Event::End(TagEnd::CodeBlock) => {
                        let html = format!("{}</code></pre></div>\n", escape(code));
                        self.code = None;
                        return Some(Event::Html(html.into()));
                    }
                    // Nothing else occurs inside a code block; drop it if it ever does.
                    _ => continue,
                }
            }
            return Some(match event {
                Event::Start(Tag::CodeBlock(kind)) => {
                    self.code = Some(String::new());
                    Event::Html(code_block_open(&kind).into())
                }
                Event::Start(Tag::Table(alignments)) => {
                    self.alignments = alignments;
                    Event::Start(Tag::Table(Vec::new()))
                }
                Event::Start(Tag::TableHead) => {
                    self.in_head = true;
                    self.cell = 0;
                    Event::Start(Tag::TableHead)
                }
                Event::End(TagEnd::TableHead) => {
                    self.in_head = false;
                    Event::End(TagEnd::TableHead)
                }
                Event::Start(Tag::TableRow) => {
                    self.cell = 0;
                    Event::Start(Tag::TableRow)
                }
                Event::Start(Tag::TableCell) => {
                    let align = match self.alignments.get(self.cell) {
                        Some(Alignment::Left) => " align=\"left\"",
                        Some(Alignment::Center) => " align=\"center\"",
                        Some(Alignment::Right) => " align=\"right\"",
                        _ => "",
                    };
                    Event::Html(format!("<{}{align}>", self.cell_tag()).into())
                }
                Event::End(TagEnd::TableCell) => {
                    self.cell += 1;
                    Event::Html(format!("</{}>", self.cell_tag()).into())
                }
                Event::InlineMath(latex) => Event::InlineHtml(
                    format!("{TAG_BREAK}{}", super::math::to_html(&latex, false)).into(),
                ),
                Event::DisplayMath(latex) => Event::InlineHtml(
                    format!("{TAG_BREAK}{}", super::math::to_html(&latex, true)).into(),
                ),
                Event::Html(html) if self.raw == RawHtml::Server => Event::Html(scrub_cow(html)),
                Event::InlineHtml(html) if self.raw == RawHtml::Server => {
                    Event::InlineHtml(scrub_cow(html))
                }
                Event::Start(mut tag @ (Tag::Link { .. } | Tag::Image { .. })) => {
                    self.in_link += 1;
                    if let Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. } = &mut tag {
                        if let Cow::Owned(ascii) = ascii_host(dest_url) {
                            *dest_url = ascii.into();
                        }
                    }
                    Event::Start(tag)
                }
                Event::End(tag @ (TagEnd::Link | TagEnd::Image)) => {
                    self.in_link = self.in_link.saturating_sub(1);
                    Event::End(tag)
                }
                Event::Text(text) if self.in_link == 0 => {
                    // The parser splits text at `_`, `(` and the like: join adjacent text
                    // first, so a URL is seen whole.
                    let mut text = text.into_string();
                    while let Some(Event::Text(more)) =
                        self.inner.next_if(|e| matches!(e, Event::Text(_)))
                    {
                        text.push_str(&more);
                    }
                    let mut pieces = linkify(&text).into_iter();
                    match pieces.next() {
                        Some(first) => {
                            self.pending.extend(pieces);
                            first
                        }
                        None => Event::Text(text.into()),
                    }
                }
                other => other,
            });
        }
    }
}

fn scrub_cow(html: CowStr<'_>) -> CowStr<'_> {
    if html.contains(TRUSTED) {
        scrub(&html).into_owned().into()
    } else {
        html
    }
}

/// The opening HTML of a code block, up to and including `<code …>`. Its hooks carry the
/// [`TRUSTED`] mark, and [`TAG_BREAK`] ends any server markup left open before it.
fn code_block_open(kind: &CodeBlockKind) -> String {
    let lang = match kind {
        // GFM: the language is the first word of the info string.
        CodeBlockKind::Fenced(info) => info.split_whitespace().next().unwrap_or(""),
        CodeBlockKind::Indented => "",
    };
    let t = TRUSTED;
    let mut html = format!(
        "{TAG_BREAK}<div class=\"{t}cs-code\" data-part=\"{t}code-block\">\
         <div class=\"{t}cs-code__bar\">"
    );
    let mut code_attrs = String::new();
    if !lang.is_empty() {
        let lang = escape(&scrub(lang));
        html.push_str(&format!(
            "<span class=\"{t}cs-code__lang\" data-part=\"{t}code-lang\">{lang}</span>"
        ));
        code_attrs = format!(" class=\"language-{lang}\"");
    }
    html.push_str(&format!(
        "<button type=\"button\" class=\"{t}cs-code__copy\" data-part=\"{t}code-copy\" \
         aria-label=\"Copy code\">Copy</button></div>"
    ));
    html.push_str(&format!("<pre><code{code_attrs}>"));
    html
}

/// Split plain text at bare URLs (`https://…`, `http://…`, `www.…`): text before and
/// after stays text, each URL becomes a link. Empty when there is no URL.
fn linkify(text: &str) -> Vec<Event<'static>> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some((start, end)) = find_url(rest) {
        if start > 0 {
            out.push(Event::Text(rest[..start].to_owned().into()));
        }
        let url = &rest[start..end];
        let href = if url.starts_with("www.") {
            format!("http://{url}")
        } else {
            url.to_owned()
        };
        let href = ascii_host(&href);
        out.push(Event::Html(
            format!("<a href=\"{}\">{}</a>", escape(&href), escape(url)).into(),
        ));
        rest = &rest[end..];
    }
    if out.is_empty() {
        return out;
    }
    if !rest.is_empty() {
        out.push(Event::Text(rest.to_owned().into()));
    }
    out
}

/// The byte range of the first bare URL in `text`, GFM style: it starts a word, runs to
/// whitespace or `<`, and loses trailing punctuation and an unbalanced `)`.
pub(super) fn find_url(text: &str) -> Option<(usize, usize)> {
    let mut from = 0;
    while from < text.len() {
        let found = ["https://", "http://", "www."]
            .iter()
            .filter_map(|p| text[from..].find(p).map(|i| from + i))
            .min()?;
        let starts_word = text[..found]
            .chars()
            .next_back()
            .is_none_or(|c| c.is_whitespace() || "*_~(".contains(c));
        let mut end = text[found..]
            .find(|c: char| c.is_whitespace() || c == '<')
            .map_or(text.len(), |i| found + i);
        loop {
            let url = &text[found..end];
            let Some(last) = url.chars().next_back() else {
                break;
            };
            let unbalanced = last == ')' && url.matches(')').count() > url.matches('(').count();
            if "?!.,:*_~'\"".contains(last) || unbalanced {
                end -= last.len_utf8();
            } else {
                break;
            }
        }
        let scheme_len = text[found..].find("//").map_or(4, |i| i + 2);
        if starts_word && end > found + scheme_len {
            return Some((found, end));
        }
        from = found + 1;
        while !text.is_char_boundary(from) {
            from += 1;
        }
    }
    None
}

#[cfg(test)]
mod autolink_tests {
    use super::*;

    fn html(text: &str) -> String {
        markdown_to_html(text, &RefDefs::new(), RawHtml::Server)
    }

    #[test]
    fn bare_urls_become_links_without_trailing_punctuation() {
        assert_eq!(
            html("See https://example.org/path?q=1&r=2."),
            "<p>See <a href=\"https://example.org/path?q=1&amp;r=2\">https://example.org/path?q=1&amp;r=2</a>.</p>\n"
        );
        assert!(html("visit www.example.com, ok")
            .contains("<a href=\"http://www.example.com\">www.example.com</a>,"));
        assert!(html("(see https://en.wikipedia.org/wiki/Rust_(language))")
            .contains("Rust_(language)</a>)"));
    }

    #[test]
    fn links_code_and_non_words_are_left_alone() {
        assert_eq!(
            html("[https://a.example](https://b.example)")
                .matches("<a ")
                .count(),
            1
        );
        assert!(!html("`https://code.example`").contains("<a "));
        assert!(!html("xhttps://glued.example").contains("<a "));
        assert!(!html("just https:// nothing").contains("<a "));
        assert!(!html("plain text").contains("<a "));
    }
}
