//! Markdown as the plain text a screen reader should read: the words, without the syntax
//! (no asterisks, pipes, fences or tags). Set as text, never as HTML.

use pulldown_cmark::{Event, Parser, Tag, TagEnd};

/// The readable text of `markdown` (or of an HTML answer): block ends become line breaks,
/// table cells are separated by spaces, code keeps its content, images read as their alt
/// text, and tags are dropped.
pub fn plain_text(markdown: &str) -> String {
    if super::dialect::looks_like_html(markdown) {
        return collapse(&strip_tags(markdown));
    }
    let mut out = String::with_capacity(markdown.len());
    for event in Parser::new_ext(markdown, super::dialect::options()) {
        match event {
            Event::Text(t) | Event::Code(t) => out.push_str(&t),
            Event::InlineMath(t) | Event::DisplayMath(t) => out.push_str(&t),
            Event::Html(t) | Event::InlineHtml(t) => out.push_str(&strip_tags(&t)),
            Event::SoftBreak => out.push(' '),
            Event::HardBreak | Event::Rule => out.push('\n'),
            Event::Start(Tag::Item) => out.push('\n'),
            Event::End(TagEnd::TableCell) => out.push(' '),
            Event::End(
                TagEnd::Paragraph
                | TagEnd::Heading(_)
                | TagEnd::CodeBlock
                | TagEnd::BlockQuote(_)
                | TagEnd::TableHead
                | TagEnd::TableRow
                | TagEnd::Item,
            ) => out.push('\n'),
            _ => {}
        }
    }
    collapse(&out)
}

/// Longest text handed to the live region: enough to hear what the answer is about.
const ANNOUNCE_CHARS: usize = 400;
/// Markdown bytes rendered for the announcement (see `announcement`).
const ANNOUNCE_MARKDOWN: usize = 16 * 1024;

/// What the live region reads of an answer: the plain text of its start. Only a prefix
/// of the markdown is rendered (a 100 kB answer is not parsed whole for 400 characters);
/// markup makes the markdown longer than its text, never shorter, so a prefix of
/// `ANNOUNCE_MARKDOWN` bytes holds at least `ANNOUNCE_CHARS` of text unless it is mostly
/// markup, and a cut text always ends with "…".
pub fn announcement(markdown: &str) -> String {
    let mut end = markdown.len().min(ANNOUNCE_MARKDOWN);
    while !markdown.is_char_boundary(end) {
        end -= 1;
    }
    let text = truncate_chars(&plain_text(&markdown[..end]), ANNOUNCE_CHARS);
    if end < markdown.len() && !text.ends_with('…') {
        return format!("{}…", text.trim_end());
    }
    text
}

fn truncate_chars(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

/// Text outside `<…>` tags, with the few entities HTML answers use decoded.
fn strip_tags(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                out.push(' ');
            }
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    [
        ("&lt;", "<"),
        ("&gt;", ">"),
        ("&quot;", "\""),
        ("&#39;", "'"),
        ("&nbsp;", " "),
    ]
    .iter()
    .fold(out, |text, (entity, c)| text.replace(entity, c))
    .replace("&amp;", "&")
}

/// Runs of spaces become one space, blank lines go, and the ends are trimmed.
fn collapse(text: &str) -> String {
    text.lines()
        .map(|line| line.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_answer_is_announced_from_its_start_without_rendering_it_whole() {
        let long = format!("**Hello** there. {}", "word ".repeat(40_000));
        let said = announcement(&long);
        assert!(said.starts_with("Hello there. word"), "{said}");
        assert!(said.ends_with('…'));
        assert!(said.chars().count() <= ANNOUNCE_CHARS + 1);
        // A short answer is said whole; a cut that falls inside a character is safe.
        assert_eq!(announcement("Short *answer*."), "Short answer.");
        let wide = "é".repeat(ANNOUNCE_MARKDOWN);
        assert!(announcement(&wide).ends_with('…'));
        // Mostly markup: the prefix's text is short, and still says there is more.
        let links = "[x](https://example.com/a/very/long/path) ".repeat(2_000);
        assert!(announcement(&links).ends_with('…'));
    }

    #[test]
    fn markdown_syntax_is_not_read_aloud() {
        let text = plain_text(
            "# Title\n\nSome **bold** and *italic* and `code`.\n\n\
             | a | b |\n|---|---|\n| 1 | 2 |\n\n\
             ```rust\nfn main() {}\n```\n\n- [x] done\n- item\n\n\
             > quoted <b>tag</b>\n\n![a cat](https://x/c.png) [link](https://x)",
        );
        assert_eq!(
            text,
            "Title\nSome bold and italic and code.\na b\n1 2\nfn main() {}\ndone\nitem\nquoted tag\na cat link"
        );
        for syntax in ["**", "|", "```", "#", "<b>", "](", "[x]"] {
            assert!(!text.contains(syntax), "{syntax} in {text:?}");
        }
    }

    #[test]
    fn html_answers_read_as_their_text() {
        assert_eq!(
            plain_text("<p>Fish &amp; chips</p><ul><li>one</li><li>two</li></ul>"),
            "Fish & chips one two"
        );
    }
}
