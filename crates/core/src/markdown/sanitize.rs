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
mod tests {
    use super::*;

    fn clean(s: &str) -> String {
        sanitize_html(s).into_string()
    }

    #[test]
    fn empty_input_gives_empty_output() {
        assert!(sanitize_html("").is_empty());
        assert_eq!(SafeHtml::default().as_str(), "");
    }

    #[test]
    fn keeps_formatting_and_drops_script() {
        assert_eq!(
            clean("<p><b>x</b><script>alert(1)</script></p>"),
            "<p><b>x</b></p>"
        );
        assert_eq!(clean("<style>p{}</style>t"), "t");
    }

    #[test]
    fn links_get_rel_and_target_and_only_safe_schemes() {
        assert_eq!(
            clean(r#"<a href="https://e.com/?a=1&b=2" onclick="x()">l</a>"#),
            r#"<a href="https://e.com/?a=1&amp;b=2" target="_blank" rel="noopener noreferrer nofollow">l</a>"#
        );
        for bad in [
            "javascript:alert(1)",
            "JaVaScRiPt:alert(1)",
            "java&#x09;script:alert(1)",
            "&#106;avascript:alert(1)",
            " javascript:alert(1)",
            "vbscript:msgbox(1)",
            "data:text/html,<script>alert(1)</script>",
            "data:image/png;base64,AAAA",
            "/relative",
            "#fragment",
            "//evil.example/x",
        ] {
            let out = clean(&format!(r#"<a href="{bad}">l</a>"#));
            assert!(!out.contains("href"), "{bad} -> {out}");
        }
        assert!(clean(r#"<a href="mailto:a@b.c">m</a>"#).contains(r#"href="mailto:a@b.c""#));
    }

    #[test]
    fn images_allow_http_and_raster_data_only() {
        assert_eq!(
            clean(r#"<img src="https://e.com/a.png" alt="a" onerror="x()" style="x">"#),
            r#"<img src="https://e.com/a.png" alt="a">"#
        );
        assert!(clean(r#"<img src="data:image/png;base64,iVBOR">"#).contains("src="));
        assert!(clean(r#"<img src="DATA:image/webp;base64,iVBOR">"#).contains("src="));
        for bad in [
            "data:image/svg+xml;base64,PHN2Zz4=",
            "data:text/html;base64,PHNjcmlwdD4=",
            "data:image/png,raw",
            "javascript:alert(1)",
            "x",
        ] {
            let out = clean(&format!(r#"<img src="{bad}">"#));
            assert!(!out.contains("src="), "{bad} -> {out}");
        }
    }

    #[test]
    fn classes_are_allowlisted() {
        // The component's own class and hook, written by the server: both go.
        assert_eq!(
            clean(
                r#"<div class="cs-code evil" data-part="code-block" id="x" style="color:red">t</div>"#
            ),
            r#"<div>t</div>"#
        );
        assert_eq!(
            clean(r#"<blockquote class="markdown-alert-tip cs-code">q</blockquote>"#),
            r#"<blockquote class="markdown-alert-tip">q</blockquote>"#
        );
        assert_eq!(
            clean(r#"<code class="language-rust">x</code>"#),
            r#"<code class="language-rust">x</code>"#
        );
        assert_eq!(
            clean(r#"<code class="hljs language-a&quot;b">x</code>"#),
            "<code>x</code>"
        );
        assert_eq!(clean(r#"<p class="cs-code">x</p>"#), "<p>x</p>");
    }

    #[test]
    fn forced_attributes() {
        assert_eq!(
            clean(
                r#"<button type="submit" formaction="javascript:x" onclick="x" class="cs-code__copy" aria-label="Copy code">C</button>"#
            ),
            r#"<button type="button" aria-label="Copy code">C</button>"#
        );
        let input = clean(r#"<input type="text" value="v" name="n">"#);
        assert!(input.contains(r#"type="checkbox""#), "{input}");
        assert!(input.contains(r#"disabled="""#), "{input}");
        assert!(
            !input.contains("value") && !input.contains("name"),
            "{input}"
        );
    }

    #[test]
    fn only_the_renderers_marked_hooks_are_kept() {
        let own = format!(
            r#"<div class="{t}cs-code" data-part="{t}code-block"><button class="{t}cs-code__copy x" data-part="{t}code-copy">C</button><sup data-part="{t}citation">1</sup></div>"#,
            t = TRUSTED
        );
        assert_eq!(
            sanitize_rendered(&own).as_str(),
            r#"<div class="cs-code" data-part="code-block"><button class="cs-code__copy" data-part="code-copy" type="button">C</button><sup data-part="citation">1</sup></div>"#
        );
        // The same markup through the untrusted entry: the marks are scrubbed first.
        assert_eq!(
            clean(&own),
            r#"<div><button type="button">C</button><sup>1</sup></div>"#
        );
        // A mark is no key to other hooks, or to the right hook on another element.
        let odd = format!(
            r#"<div data-part="{t}evil" class="{t}cs-evil"><sup data-part="{t}code-copy">s</sup><span class="{t}cs-code__copy">x</span></div>"#,
            t = TRUSTED
        );
        assert_eq!(
            sanitize_rendered(&odd).as_str(),
            "<div><sup>s</sup><span>x</span></div>"
        );
        // No character reference makes the mark.
        for forged in ["&#x80;", "&#128;", "&#x0080;"] {
            let html = format!(r#"<sup data-part="{forged}citation">1</sup>"#);
            assert_eq!(
                sanitize_rendered(&html).as_str(),
                "<sup>1</sup>",
                "{forged}"
            );
        }
    }

    #[test]
    fn safe_urls_for_views() {
        assert_eq!(
            safe_url(" https://e.com/a?b=1 ").as_deref(),
            Some("https://e.com/a?b=1")
        );
        assert_eq!(safe_url("mailto:a@b.c").as_deref(), Some("mailto:a@b.c"));
        for bad in [
            "javascript:alert(1)",
            "JAVASCRIPT:alert(1)",
            "java\tscript:alert(1)",
            "\u{1}javascript:alert(1)",
            "data:text/html,x",
            "data:image/png;base64,AAAA",
            "/relative",
            "//evil.example",
            "ht tp://e.com",
            "",
        ] {
            assert_eq!(safe_url(bad), None, "{bad:?}");
        }
        assert!(safe_image_url("https://e.com/i.png").is_some());
        assert!(safe_image_url("data:image/gif;base64,R0lG").is_some());
        assert_eq!(safe_image_url("data:image/svg+xml;base64,PHN2Zz4="), None);
        assert_eq!(safe_image_url("mailto:a@b.c"), None);
        assert_eq!(safe_image_url("javascript:alert(1)"), None);
    }

    #[test]
    fn escape_text_escapes_everything() {
        assert_eq!(
            escape_text(r#"<b a='1'>&"x"</b>"#).as_str(),
            "&lt;b a=&#39;1&#39;&gt;&amp;&quot;x&quot;&lt;/b&gt;"
        );
        assert_eq!(escape_text("plain ✅").as_str(), "plain ✅");
    }
}

/// `absolute_scheme` against the `url` crate (the WHATWG parser ammonia uses), so the first
/// wasm module can check URLs without linking it.
#[cfg(test)]
mod scheme_tests {
    use super::*;
    use proptest::prelude::*;

    /// Pieces that make schemes, near-schemes and the characters browsers skip or keep.
    const PIECES: &[&str] = &[
        "http",
        "https",
        "HTTPS",
        "mailto",
        "data",
        "javascript",
        "JaVa",
        "script",
        "vb",
        ":",
        "//",
        "/",
        "\\",
        "\t",
        "\n",
        "\r",
        " ",
        "\u{0}",
        "\u{1}",
        "\u{1f}",
        "\u{7f}",
        "\u{a0}",
        "e.com",
        "bücher.example",
        "@",
        "?",
        "#",
        "+",
        "-",
        ".",
        "1",
        "x",
        "%0a",
        "&#58;",
        "[",
        "]",
        "image/png;base64,",
        "é",
    ];

    #[test]
    fn named_cases() {
        for (url, scheme) in [
            ("https://e.com", Some("https")),
            ("  \u{1}HTTP://e.com \u{0}", Some("http")),
            ("java\tscr\nipt:alert(1)", Some("javascript")),
            ("java script:alert(1)", None),
            ("\u{a0}javascript:alert(1)", None),
            ("1http://e.com", None),
            ("/relative", None),
            ("//evil.example", None),
            ("a+b-c.d:x", Some("a+b-c.d")),
            ("https", None),
            ("", None),
        ] {
            assert_eq!(absolute_scheme(url).as_deref(), scheme, "{url:?}");
        }
    }

    proptest! {
        // Random seeds; no regression files in the source tree.
        #![proptest_config(ProptestConfig {
            cases: 4000,
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        /// Wherever `url` reads an absolute URL, `absolute_scheme` reads the same scheme;
        /// wherever `url` sees a relative one, so does `absolute_scheme`.
        #[test]
        fn reads_the_scheme_url_reads(
            pieces in prop::collection::vec(prop::sample::select(PIECES), 0..10),
        ) {
            let text = pieces.concat();
            match url::Url::parse(&text) {
                Ok(parsed) => {
                    let scheme = absolute_scheme(&text);
                    prop_assert_eq!(scheme.as_deref(), Some(parsed.scheme()), "{:?}", text)
                }
                Err(url::ParseError::RelativeUrlWithoutBase) => {
                    prop_assert_eq!(absolute_scheme(&text), None, "{:?}", text)
                }
                // An absolute URL with a bad host or port: the browser would not follow it.
                Err(_) => {}
            }
        }

        /// What views put into `href`/`src` is never another scheme than the sanitizer allows,
        /// and every link or image URL the `url` crate accepts with an allowed scheme passes.
        #[test]
        fn views_allow_what_the_sanitizer_allows(
            pieces in prop::collection::vec(prop::sample::select(PIECES), 0..10),
        ) {
            let text = pieces.concat();
            for (element, attribute, checked) in [
                ("a", "href", safe_url(&text)),
                ("img", "src", safe_image_url(&text)),
            ] {
                let parsed = url::Url::parse(text.trim()).ok();
                let allowed_by_url = parsed.as_ref().is_some_and(|p| URL_SCHEMES.contains(&p.scheme()))
                    && url_allowed(element, attribute, text.trim());
                if allowed_by_url {
                    prop_assert!(checked.is_some(), "{} {:?} dropped", element, text);
                }
                if let (Some(_), Some(p)) = (&checked, &parsed) {
                    prop_assert!(URL_SCHEMES.contains(&p.scheme()), "{} {:?}", element, text);
                }
            }
        }
    }
}
