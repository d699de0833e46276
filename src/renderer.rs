//! The markdown renderer and the one sanitizer as the views see them: linked into this
//! module (feature `inline-render`) or, in the `<chat-shell>` element, held by the second
//! wasm module (`crates/render`), which the loader fetches right after first paint.
//!
//! Until the second module is there, text shows escaped (`markdown::escape_text`), never as
//! HTML: everything from the server is untrusted, and HTML reaches the page only from the
//! core's sanitizer, in this module or in the second one. [`ready`] is reactive, so views
//! that render in a reactive closure re-render once it has loaded; `Stream` rebuilds itself
//! on its next sync.

#[cfg(not(feature = "inline-render"))]
pub use lazy::renderer_loaded;

use chat_shell_core::markdown::escape_text;
use chat_shell_core::protocol::chatkit::Annotation;

/// Whether markdown renders now (always with `inline-render`). Read in a reactive
/// context, it subscribes to the second module's arrival.
pub fn ready() -> bool {
    #[cfg(feature = "inline-render")]
    return true;
    #[cfg(not(feature = "inline-render"))]
    return lazy::ready();
}

/// A complete markdown (or HTML) text as sanitized HTML; escaped text until the renderer
/// is ready (see [`ready`]).
pub fn render(text: &str) -> String {
    #[cfg(feature = "inline-render")]
    return chat_shell_core::markdown::render(text).into_string();
    #[cfg(not(feature = "inline-render"))]
    return lazy::when_ready(|m| m.render(text)).unwrap_or_else(|| plain(text));
}

/// What the live region reads of a finished answer's markdown: its plain text (see
/// `markdown::announcement`); nothing until the renderer is ready, then the text, so a
/// screen reader never hears markdown syntax. Reactive like [`ready`].
pub fn announcement(markdown: &str) -> String {
    #[cfg(feature = "inline-render")]
    return chat_shell_core::markdown::announcement(markdown);
    #[cfg(not(feature = "inline-render"))]
    return lazy::when_ready(|m| m.announcement(markdown)).unwrap_or_default();
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
/// can compare against it without crossing into the second module.
pub struct Stream {
    text: String,
    backend: Backend,
}

enum Backend {
    /// The renderer has not loaded yet: the whole text is the tail, escaped.
    #[cfg_attr(
        feature = "inline-render",
        expect(dead_code, reason = "a linked-in renderer is always there")
    )]
    Plain,
    #[cfg(feature = "inline-render")]
    Inline(chat_shell_core::markdown::MarkdownStream),
    #[cfg(not(feature = "inline-render"))]
    Module(lazy::JsStream),
}

impl Stream {
    pub fn new() -> Self {
        #[cfg(feature = "inline-render")]
        let backend = Backend::Inline(Default::default());
        #[cfg(not(feature = "inline-render"))]
        let backend =
            lazy::with_module(|m| Backend::Module(m.new_stream())).unwrap_or(Backend::Plain);
        Stream {
            text: String::new(),
            backend,
        }
    }

    /// The text so far (with citation markers after [`Stream::reset_cited`]).
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether the stream still shows plain text while the renderer can now render: the
    /// caller then drops what it showed and syncs again.
    pub fn stale(&self) -> bool {
        matches!(self.backend, Backend::Plain) && ready()
    }

    /// Append streamed text.
    pub fn push(&mut self, delta: &str) {
        self.text.push_str(delta);
        match &mut self.backend {
            Backend::Plain => {}
            #[cfg(feature = "inline-render")]
            Backend::Inline(s) => s.push(delta),
            #[cfg(not(feature = "inline-render"))]
            Backend::Module(s) => s.push(delta),
        }
    }

    /// Replace the whole text.
    pub fn reset(&mut self, text: &str) {
        text.clone_into(&mut self.text);
        match &mut self.backend {
            Backend::Plain => {}
            #[cfg(feature = "inline-render")]
            Backend::Inline(s) => s.reset(text),
            #[cfg(not(feature = "inline-render"))]
            Backend::Module(s) => s.reset(text),
        }
    }

    /// Replace the whole text with the text and its citation markers.
    pub fn reset_cited(&mut self, text: &str, annotations: &[Annotation]) {
        let marks = chat_shell_core::citations::Marks::of(annotations);
        let cited = chat_shell_core::citations::cited_text_at(text, &marks);
        cited.as_str().clone_into(&mut self.text);
        match &mut self.backend {
            Backend::Plain => {}
            #[cfg(feature = "inline-render")]
            Backend::Inline(s) => s.reset_cited(&cited),
            #[cfg(not(feature = "inline-render"))]
            Backend::Module(s) => s.reset_cited(text, &marks.encode()),
        }
    }

    /// Increments whenever the completed blocks grow or are rebuilt.
    pub fn generation(&self) -> u64 {
        match &self.backend {
            Backend::Plain => 0,
            #[cfg(feature = "inline-render")]
            Backend::Inline(s) => s.blocks_generation(),
            #[cfg(not(feature = "inline-render"))]
            Backend::Module(s) => s.generation() as u64,
        }
    }

    /// How many blocks are completed.
    pub fn block_count(&self) -> usize {
        match &self.backend {
            Backend::Plain => 0,
            #[cfg(feature = "inline-render")]
            Backend::Inline(s) => s.blocks().len(),
            #[cfg(not(feature = "inline-render"))]
            Backend::Module(s) => s.block_count(),
        }
    }

    /// The completed blocks from `from` on, each sanitized and wrapped in `open` … `close`.
    pub fn blocks_html(&self, from: usize, open: &'static str, close: &'static str) -> String {
        match &self.backend {
            Backend::Plain => String::new(),
            #[cfg(feature = "inline-render")]
            Backend::Inline(s) => {
                let mut html = String::new();
                for block in s.blocks().get(from..).unwrap_or_default() {
                    html.push_str(open);
                    html.push_str(block.as_str());
                    html.push_str(close);
                }
                html
            }
            #[cfg(not(feature = "inline-render"))]
            Backend::Module(s) => s.blocks_from(from, open, close),
        }
    }

    /// The open tail, sanitized (the whole text, escaped, before the renderer is there).
    pub fn tail_html(&self) -> String {
        match &self.backend {
            Backend::Plain if self.text.trim().is_empty() => String::new(),
            Backend::Plain => plain(&self.text),
            #[cfg(feature = "inline-render")]
            Backend::Inline(s) => s.tail().as_str().to_owned(),
            #[cfg(not(feature = "inline-render"))]
            Backend::Module(s) => s.tail(),
        }
    }
}

impl Default for Stream {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(not(feature = "inline-render"))]
impl Drop for Stream {
    fn drop(&mut self) {
        if let Backend::Module(s) = &self.backend {
            s.free();
        }
    }
}

#[cfg(not(feature = "inline-render"))]
mod lazy {
    //! The second module, once the loader has handed it over.

    use leptos::prelude::*;
    use std::cell::RefCell;
    use wasm_bindgen::prelude::*;

    #[wasm_bindgen]
    extern "C" {
        /// The namespace of `chat-shell-render.js` (crates/render), initialized.
        pub type RenderModule;
        #[wasm_bindgen(method)]
        pub fn render(this: &RenderModule, text: &str) -> String;
        #[wasm_bindgen(method)]
        pub fn announcement(this: &RenderModule, markdown: &str) -> String;
        #[wasm_bindgen(method)]
        pub fn new_stream(this: &RenderModule) -> JsStream;

        /// crates/render's `Stream`.
        pub type JsStream;
        #[wasm_bindgen(method)]
        pub fn push(this: &JsStream, delta: &str);
        #[wasm_bindgen(method)]
        pub fn reset(this: &JsStream, text: &str);
        #[wasm_bindgen(method)]
        pub fn reset_cited(this: &JsStream, text: &str, marks: &str);
        #[wasm_bindgen(method)]
        pub fn generation(this: &JsStream) -> f64;
        #[wasm_bindgen(method)]
        pub fn block_count(this: &JsStream) -> usize;
        #[wasm_bindgen(method)]
        pub fn blocks_from(this: &JsStream, from: usize, open: &str, close: &str) -> String;
        #[wasm_bindgen(method)]
        pub fn tail(this: &JsStream) -> String;
        #[wasm_bindgen(method)]
        pub fn free(this: &JsStream);
    }

    thread_local! {
        static MODULE: RefCell<Option<RenderModule>> = const { RefCell::new(None) };
        static READY: ArcRwSignal<bool> = ArcRwSignal::new(false);
    }

    /// Called by the loader (`src/chat-shell.js`) with the second module, initialized.
    #[wasm_bindgen(js_name = rendererLoaded)]
    pub fn renderer_loaded(module: RenderModule) {
        MODULE.with(|m| *m.borrow_mut() = Some(module));
        READY.with(|r| r.set(true));
    }

    pub fn ready() -> bool {
        READY.with(|r| r.get())
    }

    pub fn with_module<T>(f: impl FnOnce(&RenderModule) -> T) -> Option<T> {
        MODULE.with(|m| m.borrow().as_ref().map(f))
    }

    /// `f` on the module once it is ready; a reactive read like [`ready`], so a view that
    /// got `None` runs again when the module arrives.
    pub fn when_ready<T>(f: impl FnOnce(&RenderModule) -> T) -> Option<T> {
        if ready() {
            with_module(f)
        } else {
            None
        }
    }
}
