//! What the renderer reads as markdown (CommonMark and the extensions it enables) and which
//! texts it takes as HTML instead.

/// The markdown dialect: CommonMark plus GFM tables, strikethrough, task lists and alerts,
/// and math (`$…$`, `$$…$$`).
#[cfg(feature = "render")]
pub(crate) fn options() -> pulldown_cmark::Options {
    use pulldown_cmark::Options;
    Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_GFM
        | Options::ENABLE_MATH
}

/// Block-level tags that make a text "HTML" when it starts with one of them.
const HTML_BLOCK_TAGS: &[&str] = &[
    "p",
    "div",
    "table",
    "ul",
    "ol",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "section",
    "article",
    "aside",
    "header",
    "footer",
    "main",
    "nav",
    "blockquote",
    "pre",
    "br",
    "hr",
    "dl",
    "details",
    "figure",
];

/// A text "is HTML" when, trimmed, it starts with a known block-level HTML tag like `<p>`,
/// `<div>`, `<table>`, `<ul>`, `<ol>`, `<h1>`-`<h6>`, `<section>`, `<article>`,
/// `<blockquote>`, `<pre>`, `<br>` (case-insensitive). Such text is sanitized directly instead
/// of parsed as markdown. The tag name must be complete (followed by `>`, `/` or whitespace),
/// so `<p` alone or `<pre-wrap>` is not HTML.
pub fn looks_like_html(text: &str) -> bool {
    let Some(rest) = text.trim_start().strip_prefix('<') else {
        return false;
    };
    let name_len = rest
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric())
        .count();
    let (name, after) = rest.split_at(name_len);
    let delimited = after
        .bytes()
        .next()
        .is_some_and(|b| b == b'>' || b == b'/' || b.is_ascii_whitespace());
    delimited
        && HTML_BLOCK_TAGS
            .iter()
            .any(|tag| tag.eq_ignore_ascii_case(name))
}
