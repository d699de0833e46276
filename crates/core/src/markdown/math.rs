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
    let kept: Vec<Range<usize>> = Parser::new_ext(text, super::options())
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

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use crate::markdown::render;

    fn html(text: &str) -> String {
        render(text).into_string()
    }

    #[test]
    fn formulas_become_mathml() {
        let inline = html("Energy: $E = mc^2$.");
        assert!(inline.contains("<math"), "{inline}");
        assert!(inline.contains("<msup>"), "{inline}");
        assert!(!inline.contains("display=\"block\""), "{inline}");
        let block = html("$$\\frac{a}{b}$$");
        assert!(block.contains("<math display=\"block\""), "{block}");
        assert!(block.contains("<mfrac>"), "{block}");
        // Money is not math.
        assert!(!html("It costs $5 and $10.").contains("<math"));
    }

    #[test]
    fn backslash_delimiters_are_formulas_too_but_not_in_code() {
        let inline = html("so \\(a^2 + b^2\\) holds");
        assert!(
            inline.contains("<math><msup>") || inline.contains("<math><mrow>"),
            "{inline}"
        );
        assert!(!inline.contains("display=\"block\""), "{inline}");
        let block = html("\\[\\sum_k k\\]");
        assert!(block.contains("<math display=\"block\""), "{block}");
        let code = html("`\\(x\\)` and\n\n```\n\\[y\\]\n```\n");
        assert!(!code.contains("<math"), "{code}");
        assert!(
            code.contains("\\(x\\)") && code.contains("\\[y\\]"),
            "{code}"
        );
        // An escaped backslash is a backslash.
        assert!(!html("a \\\\(b) c").contains("<math"));
        assert_eq!(super::delimiters("no math"), "no math");
        assert_eq!(super::delimiters("\\(x\\)").len(), "\\(x\\)".len());
    }

    #[test]
    fn a_formula_that_does_not_parse_shows_its_source_as_code() {
        let out = html("see $\\frac{a}$ here");
        assert!(!out.contains("<math"), "{out}");
        assert!(out.contains("<code>$\\frac{a}$</code>"), "{out}");
    }

    #[test]
    fn nothing_in_a_formula_becomes_a_link_a_style_a_script_or_html() {
        for text in [
            r"$\text{<script>alert(1)</script>}$",
            r"$\text{<img src=x onerror=alert(1)>}$",
            r"$\href{javascript:alert(1)}{x}$",
            r"$\style{color:red}{x}$",
            r"$\class{cs-code}{x}$",
            r"$\unicode{x}$",
            r"$\mathrm{\u{80}x}$",
            r"$\mglyph{x}$",
            r"$\annotation{<b>x</b>}$",
            r"$$\begin{array}{c}<svg onload=alert(1)>\end{array}$$",
            r"$\x\y\z$",
        ] {
            let out = html(text);
            let lower = out.to_lowercase();
            // Written as text (`&lt;img …`) is fine: no element, no attribute.
            for bad in [
                "<script",
                "<img",
                "<svg",
                " href=",
                " style=",
                " onerror=",
                " onload=",
                " class=",
                "annotation-xml",
                "<mglyph",
                "<b>",
            ] {
                assert!(!lower.contains(bad), "{text} -> {out}");
            }
        }
    }

    #[test]
    fn mathml_from_the_server_keeps_only_mathml_core() {
        let out = crate::markdown::sanitize_html(
            "<math><mi href=\"javascript:alert(1)\" style=\"color:red\" class=\"x\">x</mi>\
             <annotation-xml encoding=\"text/html\"><img src=x onerror=alert(1)></annotation-xml>\
             <mglyph src=\"x\"></mglyph><maction actiontype=\"toggle\"><mi>y</mi></maction></math>",
        )
        .into_string();
        assert!(out.contains("<math><mi>x</mi>"), "{out}");
        for bad in [
            "href",
            "style",
            "class",
            "annotation-xml",
            "<img",
            "mglyph",
            "maction",
        ] {
            assert!(!out.contains(bad), "{out}");
        }
        assert!(
            out.contains("<mi>y</mi>"),
            "an unknown element's text stays: {out}"
        );
    }
}
