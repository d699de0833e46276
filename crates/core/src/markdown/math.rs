//! Math in answers: `$…$` and `\(…\)` inline, `$$…$$` and `\[…\]` displayed
//! (pulldown-cmark's math events; the backslash forms are read as the dollar ones, see
//! [`delimiters`]), written as MathML Core by math-core, which browsers render without any
//! script or stylesheet of ours. What it writes goes through the sanitizer, which keeps MathML
//! Core's elements and attributes only (`sanitize.rs`). A formula that does not parse
//! shows as its source, in code style.

use std::borrow::Cow;
use std::ops::Range;

use math_core::{LatexToMathML, MathCoreConfig, MathDisplay};
use pulldown_cmark::{Event, Parser, Tag};

use super::sanitize::{escape, scrub};

thread_local! {
    static CONVERTER: Option<LatexToMathML> = LatexToMathML::new(MathCoreConfig::default()).ok();
}

/// `text` with LaTeX's `\(…\)` and `\[…\]` written as the delimiters the parser reads:
/// `\(` as `${` and `\)` as `}$` (a brace group is the formula unchanged), `\[` and `\]`
/// as `$$`. Each takes as many bytes as it replaces, so offsets into the text still hold.
/// Code and raw HTML are left as written, and so is an escaped backslash (`\\(`).
pub(super) fn delimiters(text: &str) -> Cow<'_, str> {
    if !text.contains("\\(") && !text.contains("\\[") {
        return Cow::Borrowed(text);
    }
    // Where code and raw HTML are, as the parser reads them.
    let kept: Vec<Range<usize>> = Parser::new_ext(text, super::dialect::options())
        .into_offset_iter()
        .filter_map(|(event, range)| match event {
            Event::Start(Tag::CodeBlock(_) | Tag::HtmlBlock)
            | Event::Code(_)
            | Event::InlineHtml(_)
            | Event::Html(_)
            | Event::InlineMath(_)
            | Event::DisplayMath(_) => Some(range),
            _ => None,
        })
        .collect();
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut from = 0;
    let mut i = 0;
    while i + 1 < bytes.len() {
        if bytes[i] == b'\\' {
            let replacement = match bytes[i + 1] {
                b'(' => Some("${"),
                b')' => Some("}$"),
                b'[' | b']' => Some("$$"),
                b'\\' => {
                    // An escaped backslash: neither it nor what follows opens anything.
                    i += 2;
                    continue;
                }
                _ => None,
            };
            if let Some(replacement) = replacement {
                if !kept.iter().any(|r| r.contains(&i)) {
                    out.push_str(&text[from..i]);
                    out.push_str(replacement);
                    from = i + 2;
                }
                i += 2;
                continue;
            }
        }
        i += 1;
    }
    if from == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[from..]);
    Cow::Owned(out)
}

/// `latex` as MathML (`display`: a block formula), or its source as code when it does not
/// parse. Not yet sanitized: the caller's HTML goes through the sanitizer.
pub(super) fn to_html(latex: &str, display: bool) -> String {
    let mode = if display {
        MathDisplay::Block
    } else {
        MathDisplay::Inline
    };
    let converted = CONVERTER.with(|c| {
        c.as_ref()
            .and_then(|c| c.convert_with_local_state(latex, mode).ok())
    });
    match converted {
        // The renderer's own marks never come from a formula.
        Some(result) => scrub(&result.mathml).into_owned(),
        None => {
            let delimiter = if display { "$$" } else { "$" };
            format!("<code>{delimiter}{}{delimiter}</code>", escape(latex))
        }
    }
}
