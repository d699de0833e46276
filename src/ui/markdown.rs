//! Streams markdown into the DOM: completed blocks are appended once and never touched,
//! only the open tail block is rewritten. `inner_html` is set only from `SafeHtml`.

use crate::chunks::renderer::Stream;
pub use chat_shell_core::pacing::Pacer;
use chat_shell_core::protocol::chatkit::Annotation;
use chat_shell_core::strings::{Strings, Text};
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement};

/// How far back a streamed text is checked for still extending what was rendered. A full
/// comparison would cost O(message) per frame; a diverging final text is caught by the
/// full check made once the item is no longer streaming.
const APPEND_CHECK: usize = 64;

pub struct MarkdownDom {
    stream: Stream,
    container: HtmlElement,
    tail: Element,
    rendered_blocks: usize,
    tail_html: String,
    labels: CodeLabels,
}

/// The words on a code block's Copy button. The renderer writes them in English; they are
/// swapped for the element's language as the HTML goes into the page.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CodeLabels {
    /// The button's text and its accessible name, HTML-escaped (`None`: English).
    localized: Option<(String, String)>,
}

/// The button as the renderer writes it.
const ENGLISH_COPY_BUTTON: &str = "aria-label=\"Copy code\">Copy</button>";

impl CodeLabels {
    pub fn new(strings: &Strings) -> Self {
        let (copy, copy_code) = (strings.get(Text::Copy), strings.get(Text::CopyCode));
        let english = copy == Text::Copy.english() && copy_code == Text::CopyCode.english();
        CodeLabels {
            localized: (!english).then(|| (escape(copy), escape(copy_code))),
        }
    }

    /// `html` with its code blocks' Copy buttons in the element's language.
    pub fn apply<'a>(&self, html: &'a str) -> std::borrow::Cow<'a, str> {
        match &self.localized {
            Some((copy, copy_code)) if html.contains(ENGLISH_COPY_BUTTON) => html
                .replace(
                    ENGLISH_COPY_BUTTON,
                    &format!("aria-label=\"{copy_code}\">{copy}</button>"),
                )
                .into(),
            _ => html.into(),
        }
    }
}

/// Text for HTML text and double-quoted attributes.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Markdown rendered through the one sanitizer, code blocks' buttons in `strings`' words.
/// Escaped text until the renderer is there (`renderer::ready`, which a reactive caller
/// is subscribed to through this call).
pub fn render(markdown: &str, strings: &Strings) -> String {
    let html = crate::chunks::renderer::render(markdown);
    match CodeLabels::new(strings).apply(&html) {
        std::borrow::Cow::Borrowed(_) => html,
        std::borrow::Cow::Owned(localized) => localized,
    }
}

impl MarkdownDom {
    /// A new renderer in a `div.cs-md` appended to `parent`.
    pub fn append_to(parent: &HtmlElement, labels: CodeLabels) -> Option<Self> {
        let el = parent.owner_document()?.create_element("div").ok()?;
        el.set_class_name("cs-md");
        parent.append_child(&el).ok()?;
        Self::new(el.unchecked_into(), labels)
    }

    /// Render into `container` (emptied first).
    pub fn new(container: HtmlElement, labels: CodeLabels) -> Option<Self> {
        let document = container.owner_document()?;
        container.set_inner_html("");
        let tail = document.create_element("div").ok()?;
        tail.set_class_name("cs-md__tail");
        // Each block reads in the direction of its own text: an English answer in a
        // right-to-left page keeps its full stop on the right.
        let _ = tail.set_attribute("dir", "auto");
        container.append_child(&tail).ok()?;
        Some(MarkdownDom {
            stream: Stream::new(),
            container,
            tail,
            rendered_blocks: 0,
            tail_html: String::new(),
            labels,
        })
    }

    /// Bring the DOM up to `text`. Cost: the new text plus the open tail block.
    pub fn sync(&mut self, text: &str, streaming: bool) {
        self.upgrade();
        let seen = self.stream.text().len();
        let extends = text.len() >= seen
            && text.is_char_boundary(seen)
            && if streaming {
                let from = floor_boundary(self.stream.text(), seen.saturating_sub(APPEND_CHECK));
                text[from..seen] == self.stream.text()[from..]
            } else {
                text.starts_with(self.stream.text())
            };
        if extends {
            if text.len() > seen {
                self.stream.push(&text[seen..]);
            }
        } else {
            self.stream.reset(text);
            self.clear_blocks();
        }
        self.render();
    }

    /// Bring the DOM to a final text with its citation markers (hooks the renderer adds
    /// itself, which plain text cannot carry).
    pub fn sync_cited(&mut self, text: &str, annotations: &[Annotation]) {
        self.upgrade();
        let generation = self.stream.generation();
        self.stream.reset_cited(text, annotations);
        if self.stream.generation() != generation {
            self.clear_blocks();
        }
        self.render();
    }

    /// Once the renderer has loaded, what was shown as plain text is rendered again.
    fn upgrade(&mut self) {
        if self.stream.stale() {
            self.stream = Stream::new();
            self.clear_blocks();
        }
    }

    /// How much text is rendered (bytes).
    pub fn text_len(&self) -> usize {
        self.stream.text().len()
    }

    /// Take this part out of the page (the item now has fewer parts).
    pub fn remove(self) {
        self.container.remove();
    }

    fn clear_blocks(&mut self) {
        while let Some(first) = self.container.first_element_child() {
            if first == self.tail {
                break;
            }
            first.remove();
        }
        self.rendered_blocks = 0;
    }

    fn render(&mut self) {
        let count = self.stream.block_count();
        if count > self.rendered_blocks {
            // All blocks committed this frame go in with one HTML parse. Each is a whole
            // sanitized fragment, so wrapping it in its own div cannot change its meaning.
            let html = self.stream.blocks_html(
                self.rendered_blocks,
                "<div class=\"cs-md__block\" dir=\"auto\">",
                "</div>",
            );
            let _ = self
                .tail
                .insert_adjacent_html("beforebegin", &self.labels.apply(&html));
            crate::chunks::renderer::blocks_added(&self.container, &html);
        }
        self.rendered_blocks = count;
        let tail = self.stream.tail_html();
        if tail != self.tail_html {
            self.tail.set_inner_html(&self.labels.apply(&tail));
            self.tail_html = tail;
        }
    }
}

fn floor_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Clicks on a code block's Copy button copy its code (delegated: blocks are plain HTML);
/// the button then says `copied`.
pub fn handle_code_copy(event: &web_sys::MouseEvent, copied: &str) {
    let Some(target) = event.target().and_then(|t| t.dyn_into::<Element>().ok()) else {
        return;
    };
    let Ok(Some(button)) = target.closest("[data-part=code-copy]") else {
        return;
    };
    let Ok(Some(block)) = button.closest("[data-part=code-block]") else {
        return;
    };
    let Ok(Some(code)) = block.query_selector("code") else {
        return;
    };
    let text = code.text_content().unwrap_or_default();
    if let Some(window) = web_sys::window() {
        let _ = window.navigator().clipboard().write_text(&text);
        // Its name follows its word, so what is read is what is shown.
        button.set_text_content(Some(copied));
        let _ = button.set_attribute("aria-label", copied);
    }
}

/// A clock precise enough to time one render (ms).
pub fn now_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or_else(js_sys::Date::now, |p| p.now())
}

/// Whether the reader asked for reduced motion (then streamed text is not paced).
pub fn reduced_motion() -> bool {
    web_sys::window()
        .and_then(|w| {
            w.match_media("(prefers-reduced-motion: reduce)")
                .ok()
                .flatten()
        })
        .is_some_and(|m| m.matches())
}
