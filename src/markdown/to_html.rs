//! Markdown to (not yet sanitized) HTML: pulldown-cmark with our options and event rewrites.
//!
//! The rewrites: fenced and indented code blocks get the code block chrome (language label and
//! a copy button), table cell alignment becomes `align="…"` instead of a `style` attribute
//! (styles are stripped by the sanitizer), and reference links may resolve against
//! definitions from earlier, separately parsed text (used by the streaming renderer).

use std::collections::HashMap;

use pulldown_cmark::{
    Alignment, BrokenLink, CodeBlockKind, CowStr, Event, Options, Parser, Tag, TagEnd,
};

use super::sanitize::escape;

/// Reference definitions (`[label]: url "title"`) keyed by normalized label.
pub(super) type RefDefs = HashMap<String, (String, String)>;

/// The markdown dialect: CommonMark plus GFM tables, strikethrough, task lists and alerts.
pub(super) fn options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_GFM
}

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

/// Render markdown to unsanitized HTML. The caller must pass the result to the sanitizer.
pub(super) fn markdown_to_html(text: &str, defs: &RefDefs) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 2);
    pulldown_cmark::html::push_html(&mut out, Rewrite::new(parser(text, defs)));
    out
}

/// The event rewriter (see the module docs).
struct Rewrite<I> {
    inner: I,
    /// Inside a code block: its text is collected and emitted escaped at the end.
    code: Option<String>,
    alignments: Vec<Alignment>,
    in_head: bool,
    cell: usize,
}

impl<'a, I: Iterator<Item = Event<'a>>> Rewrite<I> {
    fn new(inner: I) -> Self {
        Rewrite {
            inner,
            code: None,
            alignments: Vec::new(),
            in_head: false,
            cell: 0,
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
                other => other,
            });
        }
    }
}

/// The opening HTML of a code block, up to and including `<code …>`.
fn code_block_open(kind: &CodeBlockKind) -> String {
    let lang = match kind {
        // GFM: the language is the first word of the info string.
        CodeBlockKind::Fenced(info) => info.split_whitespace().next().unwrap_or(""),
        CodeBlockKind::Indented => "",
    };
    let mut html = String::from(
        "<div class=\"cs-code\" data-part=\"code-block\"><div class=\"cs-code__bar\">",
    );
    let mut code_attrs = String::new();
    if !lang.is_empty() {
        let lang = escape(lang);
        html.push_str(&format!(
            "<span class=\"cs-code__lang\" data-part=\"code-lang\">{lang}</span>"
        ));
        code_attrs = format!(" class=\"language-{lang}\"");
    }
    html.push_str(
        "<button type=\"button\" class=\"cs-code__copy\" data-part=\"code-copy\" \
         aria-label=\"Copy code\">Copy</button></div>",
    );
    html.push_str(&format!("<pre><code{code_attrs}>"));
    html
}
