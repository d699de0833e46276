//! The syntax highlighter (`chat_shell_core::highlight`) as the views see it: in the
//! element, the `highlight` chunk, fetched when the first code block to highlight is on
//! the page and never before; linked in otherwise.
//!
//! A code block is highlighted once, when its block is complete (`MarkdownDom` hands over
//! the blocks it adds; the open tail is never highlighted, so a streamed fence is not
//! re-highlighted on each delta). What the highlighter writes is built from its tokens
//! around escaped text (`SafeHtml`), and the text it reads is the code element's own text,
//! so highlighting cannot add markup. A block highlighted carries `data-hl` (its line
//! count, or `plain` for a language it does not know), which is also how it is never done
//! twice.

use chat_shell_core::diff::{rows_html_with, DiffRow};
use chat_shell_core::highlight::{self, DiffSides, Lang};
use chat_shell_core::markdown::SafeHtml;
use chat_shell_core::strings::Strings;
use std::cell::RefCell;
use wasm_bindgen::JsCast;
use web_sys::Element;

/// What the highlight chunk hands over.
trait Highlighter {
    /// A code block's markup, by its `code` element's classes (`language-…`); `None` for
    /// a language it does not know.
    fn code_html(&self, classes: &str, code: &str) -> Option<(SafeHtml, usize)>;
    fn diff_html(
        &self,
        lang: Lang,
        rows: &[DiffRow],
        side_by_side: bool,
        strings: &Strings,
    ) -> SafeHtml;
}

struct Linked;

impl Highlighter for Linked {
    fn code_html(&self, classes: &str, code: &str) -> Option<(SafeHtml, usize)> {
        let lang = classes
            .split_whitespace()
            .find_map(|c| c.strip_prefix("language-"))
            .and_then(Lang::from_fence)?;
        Some(highlight::code_html(lang, code))
    }

    fn diff_html(
        &self,
        lang: Lang,
        rows: &[DiffRow],
        side_by_side: bool,
        strings: &Strings,
    ) -> SafeHtml {
        rows_html_with(rows, side_by_side, strings, &mut DiffSides::new(lang))
    }
}

super::entry_points! {
    highlight:
        fn linked() -> &'static dyn Highlighter {
            &Linked
        }
}

thread_local! {
    static HIGHLIGHTER: super::ChunkCode<dyn Highlighter> = super::ChunkCode::new();
    /// Code blocks waiting for the chunk.
    static WAITING: RefCell<Vec<Element>> = const { RefCell::new(Vec::new()) };
}

/// The highlighter if it is there (a reactive read: the caller runs again when it comes).
fn when_ready() -> Option<&'static dyn Highlighter> {
    HIGHLIGHTER.with(super::ChunkCode::track)
}

/// Fetches the chunk once; blocks waiting for it are highlighted when it comes. If it
/// cannot be fetched, code stays plain text (the next code block tries again).
fn load() {
    super::load(&HIGHLIGHTER, entry::linked, |loaded| {
        let waiting = WAITING.with(|w| std::mem::take(&mut *w.borrow_mut()));
        if let Ok(highlighter) = loaded {
            for code in waiting.iter().filter(|code| code.is_connected()) {
                highlight_code(highlighter, code);
            }
        }
    });
}

/// Highlights the complete code blocks in `html`'s blocks, just put in `container`.
/// `html` is what was inserted: only when it holds a code block is the DOM searched.
pub fn blocks_added(container: &Element, html: &str) {
    if !html.contains("<pre><code") {
        return;
    }
    let Ok(found) = container.query_selector_all(".cs-md__block pre > code:not([data-hl])") else {
        return;
    };
    let codes = (0..found.length())
        .filter_map(|i| found.get(i))
        .filter_map(|n| n.dyn_into::<Element>().ok());
    match HIGHLIGHTER.with(super::ChunkCode::get) {
        Some(highlighter) => codes.for_each(|code| highlight_code(highlighter, &code)),
        None => {
            WAITING.with(|w| w.borrow_mut().extend(codes));
            load();
        }
    }
}

fn highlight_code(highlighter: &dyn Highlighter, code: &Element) {
    if code.has_attribute("data-hl") {
        return;
    }
    let text = code.text_content().unwrap_or_default();
    match highlighter.code_html(&code.class_name(), &text) {
        Some((html, lines)) => {
            code.set_inner_html(html.as_str());
            let _ = code.set_attribute("data-hl", &lines.to_string());
        }
        None => {
            let _ = code.set_attribute("data-hl", "plain");
        }
    }
}

/// A diff's rows, highlighted when `path` names a language and the highlighter is there
/// (asked for, if not); plain otherwise. Reactive: read in a closure, it runs again once the
/// highlighter comes.
pub fn diff_html(
    path: Option<&str>,
    rows: &[DiffRow],
    side_by_side: bool,
    strings: &Strings,
) -> SafeHtml {
    let lang = path.and_then(Lang::from_path);
    match (lang, lang.and_then(|_| when_ready())) {
        (Some(lang), Some(highlighter)) => highlighter.diff_html(lang, rows, side_by_side, strings),
        (Some(_), None) => {
            load();
            chat_shell_core::diff::rows_html(rows, side_by_side, strings)
        }
        _ => chat_shell_core::diff::rows_html(rows, side_by_side, strings),
    }
}
