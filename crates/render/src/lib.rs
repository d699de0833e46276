//! chat-shell's second wasm module: the markdown renderer and the one sanitizer, as plain
//! string-to-string functions and a streaming renderer.
//!
//! The element's first module (the shell, composer, transport and reducer) is built without
//! chat-shell-core's `render` feature, so ammonia, html5ever and the markdown-to-HTML path
//! stay out of what a page fetches before the composer is usable. The loader
//! (`src/chat-shell.js`) imports this module right after first paint and hands it to the
//! first one (`src/renderer.rs`). Every string returned here is a `SafeHtml` from the core's
//! sanitizer (or fully escaped), turned into a plain string only to cross into JavaScript.

use chat_shell_core::citations::{cited_text_at, Marks};
use chat_shell_core::markdown::{self, MarkdownStream};
use wasm_bindgen::prelude::*;

/// A complete markdown (or HTML) text as sanitized HTML (`markdown::render`).
#[wasm_bindgen]
pub fn render(text: &str) -> String {
    markdown::render(text).into_string()
}

/// What the live region reads of a finished answer (`markdown::announcement`): the plain
/// text of its start, set as text, never as HTML.
#[wasm_bindgen]
pub fn announcement(markdown: &str) -> String {
    markdown::announcement(markdown)
}

/// A new, empty [`Stream`].
#[wasm_bindgen]
pub fn new_stream() -> Stream {
    Stream::default()
}

/// `MarkdownStream` for the first module: completed blocks rendered once, the open tail
/// re-rendered on every push.
#[wasm_bindgen]
#[derive(Default)]
pub struct Stream(MarkdownStream);

#[wasm_bindgen]
impl Stream {
    #[wasm_bindgen(constructor)]
    pub fn new() -> Stream {
        Stream::default()
    }

    /// Append streamed text.
    pub fn push(&mut self, delta: &str) {
        self.0.push(delta);
    }

    /// Replace the whole text.
    pub fn reset(&mut self, text: &str) {
        self.0.reset(text);
    }

    /// Replace the whole text with the text and its citation markers (`marks`:
    /// `citations::Marks::encode` of the item's annotations, numbered by the first module;
    /// markers that do not read are left out, the text is still shown).
    pub fn reset_cited(&mut self, text: &str, marks: &str) {
        self.0
            .reset_cited(&cited_text_at(text, &Marks::decode(marks)));
    }

    /// The text so far.
    pub fn text(&self) -> String {
        self.0.text().to_owned()
    }

    /// How many blocks are completed.
    pub fn block_count(&self) -> usize {
        self.0.blocks().len()
    }

    /// The completed blocks from `from` on, each as sanitized HTML, concatenated in one
    /// string with each block wrapped in `open` … `close` (one call per frame, not one per
    /// block).
    pub fn blocks_from(&self, from: usize, open: &str, close: &str) -> String {
        let mut html = String::new();
        for block in self.0.blocks().get(from..).unwrap_or_default() {
            html.push_str(open);
            html.push_str(block.as_str());
            html.push_str(close);
        }
        html
    }

    /// The open tail, sanitized.
    pub fn tail(&self) -> String {
        self.0.tail().as_str().to_owned()
    }

    /// Increments whenever the completed blocks grow or are rebuilt.
    pub fn generation(&self) -> f64 {
        self.0.blocks_generation() as f64
    }
}
