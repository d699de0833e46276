//! The one sanitizer: an explicit ammonia allowlist and `SafeHtml`, the only type views may put into `inner_html`.
//!
//! Everything that becomes HTML on the page (markdown output, raw HTML from the server, plain
//! text) ends up as a `SafeHtml`, and a `SafeHtml` can only be made here: by [`sanitize_html`]
//! (ammonia with the allowlist below) or by [`escape_text`] (every markup character escaped).
//!
//! The component's own hooks in rendered markdown (`data-part` on code blocks and citation
//! markers, the `cs-code*` classes) are kept only where the renderer wrote them. It marks
//! their values with [`TRUSTED`], a character that no server text can bring to the
//! sanitizer: a character reference cannot produce it (the HTML parser turns `&#x80;` into
//! `€`), and it is replaced wherever server text could hold it literally, which is raw HTML
//! (see [`scrub`]). The attribute filter keeps a hook only with the mark, and drops the mark;
//! server HTML that writes the same hooks loses them.

use std::borrow::Cow;
#[cfg(feature = "render")]
use std::collections::HashSet;
#[cfg(feature = "render")]
use std::sync::OnceLock;

#[cfg(feature = "render")]
use ammonia::{Builder, UrlRelative};

/// HTML that went through the sanitizer (or was fully escaped). The field is private and there
/// is no `From<String>`: holding one is proof that the text is safe to assign to `inner_html`.
///
/// The ways in are the sanitizer's own functions:
///
/// ```
/// use chat_shell_core::markdown::{escape_text, render, sanitize_html, SafeHtml};
///
/// let html: SafeHtml = sanitize_html("<b>x</b><img src=x onerror=alert(1)>");
/// assert_eq!(html.as_str(), "<b>x</b>");
/// let html: SafeHtml = render("**x** <script>alert(1)</script>");
/// assert_eq!(html.as_str(), "<p><strong>x</strong> </p>\n");
/// let html: SafeHtml = escape_text("<b>");
/// assert_eq!(html.into_string(), "&lt;b&gt;");
/// assert!(SafeHtml::default().is_empty());
/// ```
///
/// Code outside this module cannot wrap a string of its choice: with the same imports as
/// above, the tuple constructor does not compile (it is private)…
///
/// ```compile_fail
/// use chat_shell_core::markdown::{escape_text, render, sanitize_html, SafeHtml};
///
/// let html: SafeHtml = SafeHtml("<img src=x onerror=alert(1)>".into());
/// assert_eq!(html.as_str(), "<img src=x onerror=alert(1)>");
/// ```
///
/// …and neither does a struct literal (the field is private):
///
/// ```compile_fail
/// use chat_shell_core::markdown::{escape_text, render, sanitize_html, SafeHtml};
///
/// let html: SafeHtml = SafeHtml { 0: "<img src=x onerror=alert(1)>".into() };
/// assert_eq!(html.as_str(), "<img src=x onerror=alert(1)>");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct SafeHtml(String);

impl SafeHtml {
    /// The sanitized HTML.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The sanitized HTML, by value.
    pub fn into_string(self) -> String {
        self.0
    }

    /// Whether there is no HTML at all.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Markup the core writes itself: its own tags only from `&'static str`, anything else
/// (server text, numbers, localized strings) only escaped. So what it builds is safe
/// without going through the sanitizer, at the cost of a string append per piece (the
/// diff rows: thousands of lines set with one HTML parse instead of a DOM call per node).
#[derive(Default)]
pub struct HtmlWriter(String);

impl HtmlWriter {
    pub fn with_capacity(bytes: usize) -> Self {
        HtmlWriter(String::with_capacity(bytes))
    }

    /// The core's own markup (a literal, never built at run time).
    pub fn markup(&mut self, trusted: &'static str) -> &mut Self {
        self.0.push_str(trusted);
        self
    }

    /// Text, escaped: inert as content and inside a quoted attribute value.
    pub fn text(&mut self, untrusted: &str) -> &mut Self {
        push_escaped(&mut self.0, untrusted);
        self
    }

    pub fn finish(self) -> SafeHtml {
        SafeHtml(self.0)
    }
}

#[cfg(feature = "render")]
impl SafeHtml {
    /// HTML that `direct.rs` wrote in the form the sanitizer leaves it (its tests hold the
    /// two to the same DOM).
    pub(super) fn from_sanitized(html: String) -> SafeHtml {
        SafeHtml(html)
    }
}

#[cfg(feature = "render")]
/// Sanitize untrusted HTML with the crate's allowlist.
pub fn sanitize_html(untrusted: &str) -> SafeHtml {
    sanitize_rendered(&scrub(untrusted))
}

#[cfg(feature = "render")]
/// Sanitize HTML whose server-supplied parts went through [`scrub`]: only the renderer's own
/// [`TRUSTED`] marks are left in it, and they keep their hooks.
pub(super) fn sanitize_rendered(html: &str) -> SafeHtml {
    if html.is_empty() {
        return SafeHtml::default();
    }
    let clean = builder().clean(html).to_string();
    // An image whose every attribute was unsafe (`<img src=x onerror=…>`) is left with
    // nothing to show or to say: drop it rather than leave an unnamed image. Removing
    // these characters from an attribute value, the only other place they could be,
    // changes that text and nothing else.
    if clean.contains("<img>") {
        return SafeHtml(clean.replace("<img>", ""));
    }
    SafeHtml(clean)
}

/// Marks an attribute value written by the renderer itself (`data-part="\u{80}code-copy"`,
/// `class="\u{80}cs-code"`): U+0080, a C1 control that no character reference produces.
pub(crate) const TRUSTED: char = '\u{80}';

/// `text` with every [`TRUSTED`] mark replaced (by U+FFFD): what server text must go through
/// before it can reach the sanitizer as raw HTML.
pub(crate) fn scrub(text: &str) -> Cow<'_, str> {
    if text.contains(TRUSTED) {
        text.replace(TRUSTED, "\u{FFFD}").into()
    } else {
        text.into()
    }
}

/// Ends whatever server markup the HTML parser may still be inside (an unfinished tag, a
/// quoted attribute value of either kind, a comment) before the renderer's own markup, so a
/// hook the renderer writes never lands on an element the server started. Where nothing is
/// open it is an empty comment, which the sanitizer drops.
pub(crate) const TAG_BREAK: &str = "<!--'\"-->";

/// Render plain text (escape everything) — for titles, file names etc.
pub fn escape_text(text: &str) -> SafeHtml {
    SafeHtml(escape(text))
}

/// Escape `&`, `<`, `>`, `"` and `'` so the result is inert both as text and inside a quoted
/// attribute value.
pub(super) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    push_escaped(&mut out, text);
    out
}

fn push_escaped(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
}

#[cfg(feature = "render")]
/// Tags kept (attributes still filtered). Everything else is dropped, its text content kept,
/// except for [`DROP_WITH_CONTENT`].
const TAGS: &[&str] = &[
    // text formatting
    "p",
    "br",
    "hr",
    "strong",
    "b",
    "em",
    "i",
    "u",
    "del",
    "s",
    "strike",
    "ins",
    "mark",
    "small",
    "sup",
    "sub",
    "abbr",
    "kbd",
    "samp",
    "var",
    "q",
    "cite",
    // headings
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    // lists
    "ul",
    "ol",
    "li",
    "dl",
    "dt",
    "dd",
    // tables
    "table",
    "caption",
    "thead",
    "tbody",
    "tfoot",
    "tr",
    "th",
    "td",
    // code
    "code",
    "pre",
    // structure
    "blockquote",
    "details",
    "summary",
    "span",
    "div",
    // links, images, task-list checkboxes, the code block copy button
    "a",
    "img",
    "input",
    "button",
    // MathML Core (formulas: `math.rs`), and nothing of MathML beyond it
    "math",
    "semantics",
    "annotation",
    "merror",
    "mfrac",
    "mi",
    "mmultiscripts",
    "mn",
    "mo",
    "mover",
    "mpadded",
    "mphantom",
    "mprescripts",
    "mroot",
    "mrow",
    "ms",
    "mspace",
    "msqrt",
    "mstyle",
    "msub",
    "msubsup",
    "msup",
    "mtable",
    "mtd",
    "mtext",
    "mtr",
    "munder",
    "munderover",
];

#[cfg(feature = "render")]
/// Tags removed together with everything inside them.
const DROP_WITH_CONTENT: &[&str] = &[
    "script",
    "style",
    "template",
    "noscript",
    "noembed",
    "noframes",
    "iframe",
    "frame",
    "frameset",
    "object",
    "embed",
    "applet",
    "textarea",
    "select",
    "title",
    "xmp",
    "svg",
    // MathML's door back to HTML, and to SVG: never.
    "annotation-xml",
];

#[cfg(feature = "render")]
/// Per-tag attributes (no generic attributes at all; `class` and `data-part` are narrowed by
/// the attribute filter, see [`filter_classes`] and [`HOOKS`]; `href`/`src` are further
/// restricted by [`url_allowed`]).
const TAG_ATTRIBUTES: &[(&str, &[&str])] = &[
    ("a", &["href", "title"]),
    ("img", &["src", "alt", "title", "width", "height"]),
    ("abbr", &["title"]),
    ("ol", &["start"]),
    ("td", &["align", "colspan", "rowspan"]),
    ("th", &["align", "colspan", "rowspan"]),
    // `type` and `disabled` are overwritten by `FORCED`; listing them keeps their position, so
    // the output for pulldown-cmark's checkboxes does not depend on hash map order.
    ("input", &["checked", "disabled", "type"]),
    ("div", &["class", "data-part"]),
    ("span", &["class", "data-part"]),
    // Citation markers placed by `citations::cited_text`.
    ("sup", &["data-part"]),
    ("button", &["type", "class", "data-part", "aria-label"]),
    ("blockquote", &["class"]),
    ("code", &["class"]),
    // MathML Core's presentation attributes: no link, no style, no class.
    (
        "math",
        &[
            "display",
            "displaystyle",
            "scriptlevel",
            "dir",
            "mathvariant",
            "mathcolor",
            "mathbackground",
        ],
    ),
    ("mi", &["mathvariant", "dir", "mathcolor", "mathbackground"]),
    (
        "mo",
        &[
            "form",
            "fence",
            "separator",
            "lspace",
            "rspace",
            "stretchy",
            "symmetric",
            "maxsize",
            "minsize",
            "largeop",
            "movablelimits",
            "mathcolor",
            "mathbackground",
        ],
    ),
    ("mn", &["mathcolor", "mathbackground"]),
    ("mtext", &["mathcolor", "mathbackground"]),
    ("ms", &["mathcolor", "mathbackground"]),
    (
        "mrow",
        &["displaystyle", "scriptlevel", "mathcolor", "mathbackground"],
    ),
    (
        "mstyle",
        &["displaystyle", "scriptlevel", "mathcolor", "mathbackground"],
    ),
    ("mfrac", &["linethickness"]),
    ("mover", &["accent"]),
    ("munder", &["accentunder"]),
    ("munderover", &["accent", "accentunder"]),
    (
        "mpadded",
        &["width", "height", "depth", "lspace", "voffset"],
    ),
    ("mspace", &["width", "height", "depth"]),
    ("mtable", &["displaystyle", "scriptlevel"]),
    ("mtd", &["columnspan", "rowspan"]),
    ("annotation", &["encoding"]),
];

#[cfg(feature = "render")]
/// The component's own hooks: (tag, attribute, value) that only the renderer may write,
/// with the [`TRUSTED`] mark (code block chrome from `to_html.rs`, citation markers from
/// `citations.rs`). The views and the stylesheet select on them.
const HOOKS: &[(&str, &str, &str)] = &[
    ("div", "data-part", "code-block"),
    ("div", "class", "cs-code"),
    ("div", "class", "cs-code__bar"),
    ("span", "data-part", "code-lang"),
    ("span", "class", "cs-code__lang"),
    ("button", "data-part", "code-copy"),
    ("button", "class", "cs-code__copy"),
    ("sup", "data-part", "citation"),
];

#[cfg(feature = "render")]
/// Classes any HTML may carry: GFM alert boxes (pulldown-cmark writes them for `> [!NOTE]`).
const ALERT_CLASSES: &[&str] = &[
    "markdown-alert-note",
    "markdown-alert-tip",
    "markdown-alert-important",
    "markdown-alert-warning",
    "markdown-alert-caution",
];

#[cfg(feature = "render")]
/// Attribute values forced on every element of a tag.
const FORCED: &[(&str, &str, &str)] = &[
    // Embedded on foreign pages: links always open elsewhere (and get `rel`, see `link_rel`).
    ("a", "target", "_blank"),
    // Only read-only checkboxes (task lists), never a text field.
    ("input", "type", "checkbox"),
    ("input", "disabled", ""),
    // Never a submit button.
    ("button", "type", "button"),
];

/// Schemes ammonia lets through at all; `url_allowed` narrows them per attribute.
pub(super) const URL_SCHEMES: &[&str] = &["http", "https", "mailto", "data"];

/// `data:` URLs allowed as `img src` (raster formats only: no SVG, which can carry script).
const DATA_IMAGE_PREFIXES: &[&str] = &[
    "data:image/png;base64,",
    "data:image/jpeg;base64,",
    "data:image/gif;base64,",
    "data:image/webp;base64,",
];

#[cfg(feature = "render")]
fn builder() -> &'static Builder<'static> {
    static BUILDER: OnceLock<Builder<'static>> = OnceLock::new();
    BUILDER.get_or_init(|| {
        let mut b = Builder::empty();
        b.tags(TAGS.iter().copied().collect())
            .clean_content_tags(DROP_WITH_CONTENT.iter().copied().collect())
            .generic_attributes(HashSet::new())
            .tag_attributes(
                TAG_ATTRIBUTES
                    .iter()
                    .map(|(tag, attrs)| (*tag, attrs.iter().copied().collect()))
                    .collect(),
            )
            .url_schemes(URL_SCHEMES.iter().copied().collect())
            .url_relative(UrlRelative::Deny)
            .link_rel(Some("noopener noreferrer nofollow"))
            .strip_comments(true)
            .id_prefix(None)
            .attribute_filter(filter_attribute);
        for (tag, attr, value) in FORCED {
            b.set_tag_attribute_value(*tag, *attr, *value);
        }
        b
    })
}

#[cfg(feature = "render")]
/// Second line of defence after ammonia's own checks (which run first).
fn filter_attribute<'u>(element: &str, attribute: &str, value: &'u str) -> Option<Cow<'u, str>> {
    match attribute {
        "href" | "src" | "xlink:href" | "action" | "formaction" | "poster" | "background"
        | "cite" | "data" | "ping" => {
            url_allowed(element, attribute, value).then_some(value.into())
        }
        "class" => filter_classes(element, value),
        "data-part" => value
            .strip_prefix(TRUSTED)
            .filter(|hook| is_hook(element, attribute, hook))
            .map(Into::into),
        "style" => None,
        a if a.starts_with("on") => None,
        _ => Some(value.into()),
    }
}

/// Whether a URL attribute may stay: only `http:`/`https:` anywhere, `mailto:` on links, and
/// raster `data:image/…;base64,` on `img src`. Whitespace and control characters are ignored
/// when reading the scheme (browsers ignore them too: `java\tscript:`), and ASCII case is
/// folded (schemes are ASCII; browsers fold nothing else).
pub(super) fn url_allowed(element: &str, attribute: &str, value: &str) -> bool {
    let normalized: String = value
        .chars()
        .filter(|c| !c.is_whitespace() && !c.is_control())
        .take(32)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    match (element, attribute) {
        ("a", "href") => ["http:", "https:", "mailto:"]
            .iter()
            .any(|p| normalized.starts_with(p)),
        ("img", "src") => {
            normalized.starts_with("http:")
                || normalized.starts_with("https:")
                || DATA_IMAGE_PREFIXES
                    .iter()
                    .any(|p| normalized.starts_with(p))
        }
        _ => false,
    }
}

#[cfg(feature = "render")]
fn is_hook(element: &str, attribute: &str, value: &str) -> bool {
    HOOKS.contains(&(element, attribute, value))
}

#[cfg(feature = "render")]
/// `class`: the component's own classes with the [`TRUSTED`] mark (without it), alert
/// classes on `<blockquote>`, and `language-<name>` tokens with a plain name on `<code>`.
fn filter_classes<'u>(element: &str, value: &'u str) -> Option<Cow<'u, str>> {
    let kept: Vec<&str> = value
        .split_ascii_whitespace()
        .filter_map(|token| match token.strip_prefix(TRUSTED) {
            Some(own) => is_hook(element, "class", own).then_some(own),
            None => match element {
                "blockquote" => is_alert_class(token).then_some(token),
                "code" => token
                    .strip_prefix("language-")
                    .is_some_and(keeps_language)
                    .then_some(token),
                _ => None,
            },
        })
        .collect();
    (!kept.is_empty()).then(|| kept.join(" ").into())
}

#[cfg(feature = "render")]
/// Whether `class` is a GFM alert box's class, which any HTML may carry.
pub(super) fn is_alert_class(class: &str) -> bool {
    ALERT_CLASSES.contains(&class)
}

#[cfg(feature = "render")]
/// Whether a code element keeps its `language-<lang>` class: a plain, short name.
pub(super) fn keeps_language(lang: &str) -> bool {
    !lang.is_empty()
        && lang.len() <= 40
        && lang
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_+#.-".contains(&b))
}

/// A link target from the server, if it is safe to put in `href`: `http:`, `https:` or
/// `mailto:` only (the same rule the sanitizer applies inside HTML).
pub fn safe_url(url: &str) -> Option<String> {
    checked_url("a", "href", url)
}

/// An image source from the server, if it is safe to put in `src`: `http(s):` or a raster
/// `data:image/…;base64,` URL.
pub fn safe_image_url(url: &str) -> Option<String> {
    checked_url("img", "src", url)
}

/// The checks `sanitize_html` applies to a URL attribute (an absolute URL with an allowed
/// scheme, then `url_allowed`), for URLs that views put into attributes themselves.
fn checked_url(element: &str, attribute: &str, url: &str) -> Option<String> {
    let url = url.trim();
    let scheme = absolute_scheme(url)?;
    (URL_SCHEMES.contains(&scheme.as_str()) && url_allowed(element, attribute, url))
        .then(|| url.to_owned())
}

/// The scheme a browser reads from `url`, lowercased, or `None` when the URL is relative.
/// This is the start of the WHATWG URL parser (what `url::Url::parse` and the browser do):
/// leading and trailing C0 controls and spaces are stripped, tabs and newlines anywhere are
/// removed, then a scheme is an ASCII letter followed by letters, digits, `+`, `-` or `.`
/// up to the first `:`. Only the scheme decides safety here; the rest of the URL is the
/// browser's to parse (a malformed host only makes a dead link). Hand-written so the first
/// wasm module does not link `url` and its Unicode tables; the tests check it against `url`.
fn absolute_scheme(url: &str) -> Option<String> {
    let trimmed = url.trim_matches(|c: char| c <= ' ');
    let mut chars = trimmed.chars().filter(|c| !matches!(c, '\t' | '\n' | '\r'));
    let mut scheme = String::new();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() => scheme.push(c.to_ascii_lowercase()),
        _ => return None,
    }
    for c in chars {
        match c {
            ':' => return Some(scheme),
            c if c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.') => {
                scheme.push(c.to_ascii_lowercase())
            }
            _ => return None,
        }
    }
    None
}

#[cfg(all(test, feature = "render"))]
mod tests;

/// `absolute_scheme` against the `url` crate (the WHATWG parser ammonia uses), so the first
/// wasm module can check URLs without linking it.
#[cfg(test)]
mod scheme_tests;
