//! The markdown renderer and the one sanitizer as the views see them: there from the start
//! (feature `inline-render`), or, in the `<chat-shell>` element, the `renderer` chunk
//! (`crate::chunks`: pulldown-cmark, ammonia and html5ever, cut into `split_renderer.wasm`),
//! which the loader asks for right after first paint ([`lazy::prefetch_renderer`]).
//!
//! Until it is there, text shows escaped (`markdown::escape_text`), never as HTML:
//! everything from the server is untrusted, and HTML reaches the page only from the core's
//! sanitizer. [`ready`] is reactive, so views that render in a reactive closure re-render
//! once it has loaded; `Stream` rebuilds itself on its next sync.

use chat_shell_core::citations::CitedText;
use chat_shell_core::markdown::{self, escape_text, MarkdownStream};
use chat_shell_core::protocol::chatkit::Annotation;

/// What the renderer chunk hands over. Only its code calls the markdown parser and the
/// sanitizer, so in the element they stay out of the first module.
trait Renderer {
    fn render(&self, text: &str) -> String;
    fn announcement(&self, markdown: &str) -> String;
    fn stream(&self) -> Box<dyn StreamBackend>;
    /// Rendered blocks went into `container`: their code blocks are highlighted
    /// (`chunks::highlight`; here so that its code comes with the renderer's).
    fn blocks_added(&self, container: &web_sys::Element, html: &str);
}

/// `MarkdownStream` behind the cut.
trait StreamBackend {
    fn push(&mut self, delta: &str);
    fn reset(&mut self, text: &str);
    fn reset_cited(&mut self, cited: &CitedText);
    fn generation(&self) -> u64;
    fn block_count(&self) -> usize;
    fn blocks_html(&self, from: usize, open: &str, close: &str) -> String;
    fn tail_html(&self) -> String;
}

/// The core's renderer, linked in.
struct Linked;

impl Renderer for Linked {
    fn render(&self, text: &str) -> String {
        markdown::render(text).into_string()
    }

    fn announcement(&self, markdown: &str) -> String {
        markdown::announcement(markdown)
    }

    fn stream(&self) -> Box<dyn StreamBackend> {
        Box::new(MarkdownStream::default())
    }

    fn blocks_added(&self, container: &web_sys::Element, html: &str) {
        crate::chunks::highlight::blocks_added(container, html);
    }
}

impl StreamBackend for MarkdownStream {
    fn push(&mut self, delta: &str) {
        MarkdownStream::push(self, delta);
    }

    fn reset(&mut self, text: &str) {
        MarkdownStream::reset(self, text);
    }

    fn reset_cited(&mut self, cited: &CitedText) {
        MarkdownStream::reset_cited(self, cited);
    }

    fn generation(&self) -> u64 {
        self.blocks_generation()
    }

    fn block_count(&self) -> usize {
        self.blocks().len()
    }

    fn blocks_html(&self, from: usize, open: &str, close: &str) -> String {
        let mut html = String::new();
        for block in self.blocks().get(from..).unwrap_or_default() {
            html.push_str(open);
            html.push_str(block.as_str());
            html.push_str(close);
        }
        html
    }

    fn tail_html(&self) -> String {
        self.tail().as_str().to_owned()
    }
}

/// The renderer if it is there. Read in a reactive context, it subscribes to its arrival.
fn when_ready() -> Option<&'static dyn Renderer> {
    #[cfg(feature = "inline-render")]
    return Some(&Linked);
    #[cfg(not(feature = "inline-render"))]
    return lazy::when_ready();
}

/// Whether markdown renders now (always with `inline-render`). Read in a reactive
/// context, it subscribes to the renderer's arrival.
pub fn ready() -> bool {
    when_ready().is_some()
}

/// A complete markdown (or HTML) text as sanitized HTML; escaped text until the renderer
/// is ready (see [`ready`]).
pub fn render(text: &str) -> String {
    when_ready().map_or_else(|| plain(text), |r| r.render(text))
}

/// What the live region reads of a finished answer's markdown: its plain text (see
/// `markdown::announcement`); nothing until the renderer is ready, then the text, so a
/// screen reader never hears markdown syntax. Reactive like [`ready`].
pub fn announcement(markdown: &str) -> String {
    when_ready()
        .map(|r| r.announcement(markdown))
        .unwrap_or_default()
}

/// Rendered blocks went into `container` (see `Renderer::blocks_added`).
pub fn blocks_added(container: &web_sys::Element, html: &str) {
    if let Some(r) = leptos::prelude::untrack(when_ready) {
        r.blocks_added(container, html);
    }
}

/// Text shown before the renderer is there: escaped, line breaks kept by the stylesheet.
fn plain(text: &str) -> String {
    let mut html = String::from("<div class=\"cs-md__plain\">");
    html.push_str(escape_text(text).as_str());
    html.push_str("</div>");
    html
}

/// The incremental markdown renderer (`MarkdownStream`): completed blocks rendered once,
/// the open tail re-rendered on every push. Keeps its own copy of the text, so the caller
/// can compare against it without asking the renderer.
pub struct Stream {
    text: String,
    /// None while the renderer has not loaded: the whole text is the tail, escaped.
    backend: Option<Box<dyn StreamBackend>>,
}

impl Stream {
    pub fn new() -> Self {
        Stream {
            text: String::new(),
            backend: leptos::prelude::untrack(when_ready).map(|r| r.stream()),
        }
    }

    /// The text so far (with citation markers after [`Stream::reset_cited`]).
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether the stream still shows plain text while the renderer can now render: the
    /// caller then drops what it showed and syncs again.
    pub fn stale(&self) -> bool {
        self.backend.is_none() && ready()
    }

    /// Append streamed text.
    pub fn push(&mut self, delta: &str) {
        self.text.push_str(delta);
        if let Some(backend) = &mut self.backend {
            backend.push(delta);
        }
    }

    /// Replace the whole text.
    pub fn reset(&mut self, text: &str) {
        text.clone_into(&mut self.text);
        if let Some(backend) = &mut self.backend {
            backend.reset(text);
        }
    }

    /// Replace the whole text with the text and its citation markers.
    pub fn reset_cited(&mut self, text: &str, annotations: &[Annotation]) {
        let cited = chat_shell_core::citations::cited_text(text, annotations);
        cited.as_str().clone_into(&mut self.text);
        if let Some(backend) = &mut self.backend {
            backend.reset_cited(&cited);
        }
    }

    /// Increments whenever the completed blocks grow or are rebuilt.
    pub fn generation(&self) -> u64 {
        self.backend.as_ref().map_or(0, |b| b.generation())
    }

    /// How many blocks are completed.
    pub fn block_count(&self) -> usize {
        self.backend.as_ref().map_or(0, |b| b.block_count())
    }

    /// The completed blocks from `from` on, each sanitized and wrapped in `open` … `close`.
    pub fn blocks_html(&self, from: usize, open: &'static str, close: &'static str) -> String {
        self.backend
            .as_ref()
            .map(|b| b.blocks_html(from, open, close))
            .unwrap_or_default()
    }

    /// The open tail, sanitized (the whole text, escaped, before the renderer is there).
    pub fn tail_html(&self) -> String {
        match &self.backend {
            Some(backend) => backend.tail_html(),
            None if self.text.trim().is_empty() => String::new(),
            None => plain(&self.text),
        }
    }
}

impl Default for Stream {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(not(feature = "inline-render"))]
mod lazy {
    //! The renderer chunk, once the loader has asked for it.

    use super::Renderer;
    use crate::chunks::{entry_points, ChunkCode};

    entry_points! {
        renderer:
            fn linked() -> &'static dyn Renderer {
                &super::super::Linked
            }
    }

    thread_local! {
        static RENDERER: ChunkCode<dyn Renderer> = ChunkCode::new();
    }

    /// Fetches the renderer chunk: the loader (`src/chat-shell.js`) asks for it right after
    /// first paint, once the widgets chunk is in. Answers render from then on, and the ones
    /// already shown as text render in place. Fails (for the loader to report) if the chunk
    /// cannot be fetched: text then stays plain.
    #[wasm_bindgen::prelude::wasm_bindgen(js_name = prefetchRenderer)]
    pub async fn prefetch_renderer() -> Result<(), wasm_bindgen::JsValue> {
        crate::chunks::fetch(&RENDERER, entry::linked)
            .await
            .map(|_| ())
            .map_err(|_| wasm_bindgen::JsValue::from_str("the renderer chunk could not be fetched"))
    }

    /// The renderer once it is there; a reactive read, so a view that got `None` runs again
    /// when it arrives.
    pub(super) fn when_ready() -> Option<&'static dyn Renderer> {
        RENDERER.with(ChunkCode::track)
    }
}
