//! The renderer's entry points: a whole text (markdown or HTML) to safe HTML, straight from
//! the parser when it can, through the sanitizer otherwise.

use super::citations::CitedText;
use super::dialect::looks_like_html;
use super::sanitize::{sanitize_html, sanitize_rendered, SafeHtml};
use super::to_html::{markdown_to_html, RawHtml, RefDefs};
use super::{direct, math};

/// Render a complete markdown (or HTML, see [`looks_like_html`]) text to safe HTML.
pub fn render(text: &str) -> SafeHtml {
    if looks_like_html(text) {
        sanitize_html(text)
    } else {
        render_markdown(text, &RefDefs::new(), RawHtml::Server)
    }
}

/// Markdown to safe HTML: straight from the parser when the text holds no raw HTML
/// (`direct.rs`), through the sanitizer otherwise.
pub(super) fn render_markdown(text: &str, defs: &RefDefs, raw: RawHtml) -> SafeHtml {
    let text = &math::delimiters(text);
    let direct = match raw {
        RawHtml::Server => direct::render_direct(text, defs),
        // The renderer's own marked markup (citations) is the sanitizer's to keep.
        RawHtml::Marked => None,
    };
    direct.unwrap_or_else(|| sanitize_rendered(&markdown_to_html(text, defs, raw)))
}

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
