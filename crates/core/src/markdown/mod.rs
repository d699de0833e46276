//! Markdown and HTML rendering through the one sanitizer: untrusted text in, SafeHtml out.
//!
//! Every string the server sends is untrusted. It becomes HTML only through [`render`],
//! [`render_cited`], [`escape_text`], [`sanitize_html`] or [`MarkdownStream`], and all of
//! them return [`SafeHtml`], which only the sanitizer (`sanitize.rs`, an explicit ammonia
//! allowlist) can build. Views set `inner_html` from a `SafeHtml` and from nothing else. The
//! component's own hooks in that HTML (`data-part` on code blocks and citation markers) are
//! kept only where the renderer wrote them, never where the server did.
//!
//! This file is the table of contents: `renderer` holds the entry points, `dialect` what is
//! read as markdown and what as HTML, `sanitize` the sanitizer and [`SafeHtml`].

pub mod citations;
mod dialect;
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
#[cfg(feature = "render")]
mod renderer;
mod sanitize;
#[cfg(feature = "render")]
mod stream;
#[cfg(feature = "render")]
mod to_html;

#[cfg(all(test, feature = "render", not(target_arch = "wasm32")))]
mod tests;

pub use dialect::looks_like_html;
#[cfg(feature = "render")]
pub use plain::{announcement, plain_text};
#[cfg(feature = "render")]
pub use renderer::{render, render_cited};
#[cfg(feature = "render")]
pub use sanitize::sanitize_html;
pub use sanitize::{escape_text, safe_image_url, safe_url, HtmlWriter, SafeHtml};
pub(crate) use sanitize::{scrub, TAG_BREAK, TRUSTED};
#[cfg(feature = "render")]
pub use stream::MarkdownStream;
