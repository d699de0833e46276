//! Markdown and HTML rendering through the one sanitizer: untrusted text in, SafeHtml out.
//!
//! Every string the server sends is untrusted. It becomes HTML only through [`render`],
//! [`render_cited`], [`escape_text`], [`sanitize_html`] or [`MarkdownStream`], and all of
//! them return [`SafeHtml`], which only the sanitizer (`sanitize.rs`, an explicit ammonia
//! allowlist) can build. Views set `inner_html` from a `SafeHtml` and from nothing else. The
//! component's own hooks in that HTML (`data-part` on code blocks and citation markers) are
//! kept only where the renderer wrote them, never where the server did.

pub mod citations;
#[cfg(feature = "render")]
mod direct;
#[cfg(feature = "render")]
mod idn;
#[cfg(feature = "render")]
mod math;
#[cfg(feature = "render")]
mod open_html;
#[cfg(feature = "render")]
mod plain;
mod sanitize;
#[cfg(feature = "render")]
mod stream;
#[cfg(feature = "render")]
mod to_html;

#[cfg(all(test, feature = "render", not(target_arch = "wasm32")))]
mod tests;

#[cfg(feature = "render")]
pub use plain::{announcement, plain_text};
#[cfg(feature = "render")]
pub use sanitize::sanitize_html;
pub use sanitize::{escape_text, safe_image_url, safe_url, HtmlWriter, SafeHtml};
pub(crate) use sanitize::{scrub, TAG_BREAK, TRUSTED};
#[cfg(feature = "render")]
pub use stream::MarkdownStream;

#[cfg(feature = "render")]
use citations::CitedText;
#[cfg(feature = "render")]
use sanitize::sanitize_rendered;
#[cfg(feature = "render")]
use to_html::{markdown_to_html, RawHtml, RefDefs};

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

#[cfg(feature = "render")]
/// Render a complete markdown (or HTML, see [`looks_like_html`]) text to safe HTML.
pub fn render(text: &str) -> SafeHtml {
    if looks_like_html(text) {
        sanitize_html(text)
    } else {
        render_markdown(text, &RefDefs::new(), RawHtml::Server)
    }
}

#[cfg(feature = "render")]
/// Markdown to safe HTML: straight from the parser when the text holds no raw HTML
/// (`direct.rs`), through the sanitizer otherwise.
fn render_markdown(text: &str, defs: &RefDefs, raw: RawHtml) -> SafeHtml {
    let text = &math::delimiters(text);
    let direct = match raw {
        RawHtml::Server => direct::render_direct(text, defs),
        // The renderer's own marked markup (citations) is the sanitizer's to keep.
        RawHtml::Marked => None,
    };
    direct.unwrap_or_else(|| sanitize_rendered(&markdown_to_html(text, defs, raw)))
}

#[cfg(feature = "render")]
/// [`render`] for a text with citation markers (`citations::cited_text`): the markers keep
/// their `data-part="citation"` hook.
pub fn render_cited(cited: &CitedText) -> SafeHtml {
    let text = cited.as_str();
    if looks_like_html(text) {
        sanitize_rendered(text)
    } else {
        sanitize_rendered(&markdown_to_html(text, &RefDefs::new(), RawHtml::Marked))
    }
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
