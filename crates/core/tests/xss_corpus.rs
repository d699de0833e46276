#![cfg(not(target_arch = "wasm32"))]
//! XSS corpus: real payloads through `render`, `sanitize_html` and `MarkdownStream`; the output is scanned tag by tag.

use chat_shell_core::citations::{cited_text, text_with_markers};
use chat_shell_core::markdown::{render, render_cited, sanitize_html, MarkdownStream, SafeHtml};
use chat_shell_core::protocol::chatkit::Annotation;
use proptest::prelude::*;

/// Payloads from the usual cheat sheets (script tags, event handlers, URL schemes, CSS,
/// SVG/MathML, mutation XSS, markdown links and images, obfuscations).
const PAYLOADS: &[&str] = &[
    // script tags in all cases and encodings
    "<script>alert(1)</script>",
    "<SCRIPT>alert(1)</SCRIPT>",
    "<ScRiPt src=https://evil.example/x.js></ScRiPt>",
    "<script/xss src=\"https://evil.example/x.js\"></script>",
    "<<script>alert(1);//<</script>",
    "<script>alert(String.fromCharCode(88,83,83))</script>",
    "%3Cscript%3Ealert(1)%3C/script%3E",
    "&lt;script&gt;alert(1)&lt;/script&gt;",
    "<scr<script>ipt>alert(1)</scr</script>ipt>",
    "<script\u{0}>alert(1)</script>",
    "<script\n>alert(1)</script\n>",
    "\"><script>alert(1)</script>",
    "<xss onafterscriptexecute=alert(1)><script>1</script>",
    // event handlers
    "<img src=x onerror=alert(1)>",
    "<IMG SRC=x ONERROR=alert(1)>",
    "<img src=\"x\" onerror=\"alert(1)\"/>",
    "<img src=x\nonerror=alert(1)>",
    "<img\nsrc=x\nonerror\n=\nalert(1)\n>",
    "<img src=x:alert(alt) onerror=eval(src) alt=0>",
    "<img \"\"\"><script>alert(1)</script>\">",
    "<img src=\"x`<script>alert(1)</script>\"`>",
    "'><img src=x onerror=alert(1)>",
    "<img src=\"data:image/png;base64,iVBORw0KGgo=\" onload=alert(1)>",
    "<body onload=alert(1)>",
    "<video><source onerror=\"alert(1)\"></video>",
    "<video src=x onerror=alert(1)></video>",
    "<video poster=javascript:alert(1)></video>",
    "<audio src=x onerror=alert(1)>",
    "<details open ontoggle=alert(1)>",
    "<details ontoggle=alert(1) open><summary>s</summary>x</details>",
    "<input type=\"text\" onfocus=\"alert(1)\" autofocus>",
    "<select onfocus=alert(1) autofocus>",
    "<textarea onfocus=alert(1) autofocus>",
    "<marquee onstart=alert(1)>x</marquee>",
    "<isindex type=image src=1 onerror=alert(1)>",
    "<button onclick=\"alert(1)\">x</button>",
    "<div title=\"x\" \" onmouseover=alert(1) \">y</div>",
    "<a href=\"https://e.com/\"onclick=\"alert(1)\">x</a>",
    "<a href='x' title='a' onclick='alert(1)'>x</a>",
    "<a href=\"https://ok.example\" onmouseover=\"alert(1)\">x</a>",
    // javascript:, data:, vbscript: in HTML links
    "<a href=\"javascript:alert(1)\">x</a>",
    "<a href=\"JaVaScRiPt:alert(1)\">x</a>",
    "<a href=\"java&#x09;script:alert(1)\">x</a>",
    "<a href=\"&#106;avascript:alert(1)\">x</a>",
    "<a href=\"&#x6A;&#x61;&#x76;&#x61;&#x73;&#x63;&#x72;&#x69;&#x70;&#x74;&#x3A;alert(1)\">x</a>",
    "<a href=\"&#0000106&#0000097&#0000118&#0000097&#0000115&#0000099&#0000114&#0000105&#0000112&#0000116&#0000058alert(1)\">x</a>",
    "<a href=\"jav&#97;script:alert(1)\">x</a>",
    "<a href=\"javascript&colon;alert(1)\">x</a>",
    "<a href=\"  javascript:alert(1)\">x</a>",
    "<a href=\"java\nscript:alert(1)\">x</a>",
    "<a href=\"\u{1}javascript:alert(1)\">x</a>",
    "<a href=\"javascript\u{2028}:alert(1)\">x</a>",
    "<a href=\"ｊａｖａｓｃｒｉｐｔ:alert(1)\">x</a>",
    "<a href=\"data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==\">x</a>",
    "<a href=\"vbscript:msgbox(1)\">x</a>",
    "<a href=\"https://e.com\" target=\"_self\" rel=\"opener\">x</a>",
    "<a href=\"//evil.example/x\">protocol-relative</a>",
    "<a href=\"mailto:x@example.com?body=<script>\">m</a>",
    "<p>x</p><a href=\"javascript:alert(1)\">y</a>",
    // markdown links and images
    "[x](javascript:alert(1))",
    "[x](JaVaScRiPt:alert(1))",
    "[x](java&#x09;script:alert(1))",
    "[x](&#106;avascript:alert(1))",
    "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "[x](vbscript:msgbox(1))",
    "[x](<javascript:alert(1)>)",
    "[x]( javascript:alert(1) \"t\")",
    "[x](https://e.com \"title\\\" onmouseover=\\\"alert(1)\")",
    "[x](javascript://%0Aalert(1))",
    "<javascript:alert(1)>",
    "<JAVASCRIPT:alert(1)>",
    "<vbscript:msgbox(1)>",
    "<data:text/html,<script>alert(1)</script>>",
    "![x](javascript:alert(1))",
    "![x](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)",
    "![x\"onerror=\"alert(1)](https://e.com/x.png)",
    "[x][r]\n\n[r]: javascript:alert(1)",
    "[r]: javascript:alert(1)\n\n[x][r] and [r]",
    "[r]: <JaVaScRiPt:alert(1)> \"t\"\n\n[x][r]",
    // frames, objects, forms, meta, base, link
    "<iframe src=\"javascript:alert(1)\"></iframe>",
    "<iframe srcdoc=\"<script>alert(1)</script>\"></iframe>",
    "<object data=\"javascript:alert(1)\"></object>",
    "<embed src=\"javascript:alert(1)\">",
    "<form action=\"javascript:alert(1)\"><input type=submit></form>",
    "<form><button formaction=\"javascript:alert(1)\">x</button></form>",
    "<meta http-equiv=\"refresh\" content=\"0;url=javascript:alert(1)\">",
    "<base href=\"javascript:alert(1)//\">",
    "<link rel=\"import\" href=\"https://evil.example/x.html\">",
    // CSS
    "<style>@import 'https://evil.example/x.css';</style>",
    "<div style=\"background:url(javascript:alert(1))\">x</div>",
    "<div style=\"width: expression(alert(1))\">x</div>",
    "<p style=\"behavior: url(x.htc)\">x</p>",
    // SVG and MathML
    "<svg onload=alert(1)>",
    "<svg><script>alert(1)</script></svg>",
    "<svg><animate onbegin=alert(1) attributeName=x dur=1s>",
    "<svg><a xlink:href=\"javascript:alert(1)\"><text x=\"20\" y=\"20\">XSS</text></a></svg>",
    "<svg><set attributeName=\"href\" to=\"javascript:alert(1)\"/></svg>",
    "<svg><a><animate attributeName=\"href\" values=\"javascript:alert(1)\"/><text>x</text></a></svg>",
    "<math href=\"javascript:alert(1)\">CLICKME</math>",
    "<math><annotation-xml encoding=\"text/html\"><img src=x onerror=alert(1)></annotation-xml></math>",
    "<math><mglyph src=\"javascript:alert(1)\"></mglyph><maction actiontype=\"toggle\">y</maction></math>",
    "$\\text{<img src=x onerror=alert(1)>}$",
    "$\\href{javascript:alert(1)}{x}$",
    "$$\\text{</math><script>alert(1)</script>}$$",
    "\\(\\style{background:url(javascript:alert(1))}{x}\\)",
    "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
    "<svg></p><style><a id=\"</style><img src=1 onerror=alert(1)>\">",
    // template, noscript, comments, CDATA
    "<template><script>alert(1)</script></template>",
    "<noscript><p title=\"</noscript><img src=x onerror=alert(1)>\">",
    "<!--<img src=x onerror=alert(1)>-->",
    "<![CDATA[<script>alert(1)</script>]]>",
    // inside markdown constructs
    "```html\n<script>alert(1)</script>\n```",
    "```\"><img src=x onerror=alert(1)>\ncode\n```",
    "| a |\n|---|\n| <img src=x onerror=alert(1)> |",
    "- [ ] <img src=x onerror=alert(1)>",
    "> <script>alert(1)</script>",
    "# <svg onload=alert(1)>",
    "`<script>alert(1)</script>`",
    // HTML mode (starts with a block tag)
    "<div><p>html mode <img src=x onerror=alert(1)></p></div>",
    "<p><a href=\"javascript:alert(1)\">x</a></p>",
    "<div id=\"x\" name=\"y\" class=\"cs-code evil\">z</div>",
];

/// Tags the sanitizer may emit.
const TAGS: &[&str] = &[
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
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "ul",
    "ol",
    "li",
    "dl",
    "dt",
    "dd",
    "table",
    "caption",
    "thead",
    "tbody",
    "tfoot",
    "tr",
    "th",
    "td",
    "code",
    "pre",
    "blockquote",
    "details",
    "summary",
    "span",
    "div",
    "a",
    "img",
    "input",
    "button",
    // MathML Core (formulas), nothing beyond it.
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

/// Attributes the sanitizer may emit.
const ATTRIBUTES: &[&str] = &[
    "href",
    "src",
    "alt",
    "title",
    "width",
    "height",
    "start",
    "align",
    "colspan",
    "rowspan",
    "checked",
    "disabled",
    "type",
    "class",
    "data-part",
    "aria-label",
    "target",
    "rel",
    // MathML Core's presentation attributes.
    "display",
    "displaystyle",
    "scriptlevel",
    "dir",
    "mathvariant",
    "mathcolor",
    "mathbackground",
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
    "linethickness",
    "accent",
    "accentunder",
    "depth",
    "voffset",
    "columnspan",
    "encoding",
];

const FORBIDDEN: &[&str] = &[
    "<script",
    "<iframe",
    "<object",
    "<embed",
    "<form",
    "<meta",
    "<base",
    "<link",
    "<style",
    "<svg",
    "<annotation-xml",
    "<mglyph",
    "<maction",
    "<template",
    "<noscript",
    "<!--",
    "<![cdata",
];

#[derive(Debug)]
struct Tag {
    name: String,
    attrs: Vec<(String, String)>,
}

/// A small HTML tag scanner: the opening tags of `html` with their decoded attributes.
fn scan(html: &str) -> Result<Vec<Tag>, String> {
    let b = html.as_bytes();
    let mut tags = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'<' {
            i += 1;
            continue;
        }
        i += 1;
        match b.get(i) {
            Some(b'/') => {
                // Closing tag: name then `>`, nothing else.
                let end = html[i..].find('>').ok_or("unterminated closing tag")? + i;
                let name = &html[i + 1..end];
                if !name.bytes().all(|c| c.is_ascii_alphanumeric()) {
                    return Err(format!("odd closing tag {name:?}"));
                }
                i = end + 1;
                continue;
            }
            Some(c) if c.is_ascii_alphabetic() => {}
            _ => return Err(format!("raw '<' at byte {i}")),
        }
        let start = i;
        while i < b.len() && !b[i].is_ascii_whitespace() && b[i] != b'>' && b[i] != b'/' {
            i += 1;
        }
        let mut tag = Tag {
            name: html[start..i].to_ascii_lowercase(),
            attrs: Vec::new(),
        };
        loop {
            while i < b.len() && (b[i].is_ascii_whitespace() || b[i] == b'/') {
                i += 1;
            }
            match b.get(i) {
                None => return Err("unterminated tag".into()),
                Some(b'>') => {
                    i += 1;
                    break;
                }
                _ => {}
            }
            let name_start = i;
            while i < b.len() && !b[i].is_ascii_whitespace() && !b"=>/".contains(&b[i]) {
                i += 1;
            }
            let name = html[name_start..i].to_ascii_lowercase();
            let mut value = String::new();
            if b.get(i) == Some(&b'=') {
                i += 1;
                match b.get(i) {
                    Some(&q) if q == b'"' || q == b'\'' => {
                        let end = html[i + 1..].find(q as char).ok_or("unterminated value")?;
                        value = decode(&html[i + 1..i + 1 + end]);
                        i += end + 2;
                    }
                    _ => {
                        let v_start = i;
                        while i < b.len() && !b[i].is_ascii_whitespace() && b[i] != b'>' {
                            i += 1;
                        }
                        value = decode(&html[v_start..i]);
                    }
                }
            }
            tag.attrs.push((name, value));
        }
        tags.push(tag);
    }
    Ok(tags)
}

/// Decode the entities a serializer emits (named ones it uses, and numeric ones).
fn decode(value: &str) -> String {
    let mut out = String::new();
    let mut rest = value;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        let Some(semi) = rest.find(';') else { break };
        let entity = &rest[1..semi];
        let decoded = match entity {
            "amp" => Some('&'),
            "quot" => Some('"'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "apos" => Some('\''),
            "nbsp" => Some('\u{a0}'),
            _ => entity
                .strip_prefix("#x")
                .or_else(|| entity.strip_prefix("#X"))
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .or_else(|| entity.strip_prefix('#').and_then(|d| d.parse().ok()))
                .and_then(char::from_u32),
        };
        match decoded {
            Some(c) => {
                out.push(c);
                rest = &rest[semi + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

macro_rules! ensure {
    ($cond:expr, $($arg:tt)*) => {
        if !$cond {
            return Err(format!($($arg)*));
        }
    };
}

/// Every safety property of one piece of sanitized output; the first one violated.
fn violation(html: &str) -> Result<(), String> {
    let lower = html.to_ascii_lowercase();
    for bad in FORBIDDEN {
        ensure!(!lower.contains(bad), "{bad} found");
    }
    for tag in scan(html)? {
        ensure!(TAGS.contains(&tag.name.as_str()), "tag {}", tag.name);
        for (name, value) in &tag.attrs {
            ensure!(!name.starts_with("on"), "handler {name}");
            ensure!(name != "style", "style attribute");
            ensure!(ATTRIBUTES.contains(&name.as_str()), "attribute {name}");
            if name == "href" || name == "src" {
                let v = value.trim().to_lowercase();
                let ok = v.starts_with("http:")
                    || v.starts_with("https:")
                    || (name == "href" && v.starts_with("mailto:"))
                    || (tag.name == "img" && name == "src" && v.starts_with("data:image/"));
                ensure!(ok, "{name}={value:?}");
            }
        }
        let attr = |n: &str| {
            tag.attrs
                .iter()
                .find(|(name, _)| name == n)
                .map(|(_, v)| v.as_str())
        };
        if tag.name == "a" {
            ensure!(
                attr("rel") == Some("noopener noreferrer nofollow"),
                "a without rel"
            );
            ensure!(attr("target") == Some("_blank"), "a without target");
        }
        if tag.name == "button" {
            ensure!(attr("type") == Some("button"), "button not type=button");
        }
        if tag.name == "input" {
            ensure!(attr("type") == Some("checkbox"), "input not a checkbox");
            ensure!(attr("disabled") == Some(""), "input not disabled");
        }
    }
    Ok(())
}

fn check(html: &str, context: &str) {
    if let Err(problem) = violation(html) {
        panic!("{problem} in {html:?} ({context})");
    }
}

fn check_stream(payload: &str, step: usize) {
    let mut stream = MarkdownStream::new();
    let mut i = 0;
    while i < payload.len() {
        let mut j = (i + step).min(payload.len());
        while !payload.is_char_boundary(j) {
            j += 1;
        }
        stream.push(&payload[i..j]);
        i = j;
        let context = format!("stream of {payload:?} in {step}-byte slices, at byte {i}");
        let mut all = String::new();
        for block in stream.blocks().iter().chain([stream.tail()]) {
            check(block.as_str(), &context);
            all.push_str(block.as_str());
        }
        check(&all, &context);
    }
}

fn check_payload(payload: &str) {
    check(render(payload).as_str(), &format!("render {payload:?}"));
    check(
        sanitize_html(payload).as_str(),
        &format!("sanitize_html {payload:?}"),
    );
    for step in [1, 4, 9] {
        check_stream(payload, step);
    }
}

#[test]
fn corpus_is_big_enough() {
    assert!(PAYLOADS.len() >= 60, "{} payloads", PAYLOADS.len());
}

#[test]
fn every_payload_is_neutralized() {
    for payload in PAYLOADS {
        check_payload(payload);
    }
}

#[test]
fn all_payloads_in_one_message() {
    let all = PAYLOADS.join("\n\n");
    check(render(&all).as_str(), "render all");
    check(sanitize_html(&all).as_str(), "sanitize all");
    check_stream(&all, 7);
}

/// The checker itself must catch what it is meant to catch.
#[test]
fn checker_rejects_unsafe_html() {
    for bad in [
        "<img src=x onerror=alert(1)>",
        "<a href=\"javascript:alert(1)\" rel=\"noopener noreferrer nofollow\" target=\"_blank\">x</a>",
        "<a href=\"&#106;avascript:x\" rel=\"noopener noreferrer nofollow\" target=\"_blank\">x</a>",
        "<a href=\"https://e.com\">no rel</a>",
        "<p style=\"color:red\">x</p>",
        "<img src=\"data:text/html,x\">",
        "<a href=\"data:image/png;base64,AA\" rel=\"noopener noreferrer nofollow\" target=\"_blank\">x</a>",
        "<div><script>alert(1)</script></div>",
        "<iframe></iframe>",
        "<p x=\"1\">unknown attribute</p>",
        "<blink>unknown tag</blink>",
        "<p>raw < bracket</p>",
    ] {
        assert!(violation(bad).is_err(), "checker accepted {bad:?}");
    }
    check(
        "<p><a href=\"https://e.com/?a=1&amp;b=2\" target=\"_blank\" \
         rel=\"noopener noreferrer nofollow\">ok</a> <img src=\"data:image/png;base64,AA\"></p>",
        "self-test",
    );
}

#[test]
fn hostile_links_lose_their_url_but_keep_their_text() {
    for payload in [
        "[click](javascript:alert(1))",
        "<a href=\"JaVaScRiPt:alert(1)\">click</a>",
        "[click](java&#x09;script:alert(1))",
    ] {
        assert_eq!(
            render(payload).as_str(),
            "<p><a target=\"_blank\" rel=\"noopener noreferrer nofollow\">click</a></p>\n",
            "{payload}"
        );
    }
}

// Snapshots of benign inputs: the exact HTML the views get.

#[test]
fn snapshot_link() {
    assert_eq!(
        render(
            "See [the docs](https://example.com/docs?a=1&b=2 \"Docs\") or <mailto:a@b.example>."
        )
        .as_str(),
        "<p>See <a href=\"https://example.com/docs?a=1&amp;b=2\" title=\"Docs\" \
         target=\"_blank\" rel=\"noopener noreferrer nofollow\">the docs</a> or \
         <a href=\"mailto:a@b.example\" target=\"_blank\" rel=\"noopener noreferrer nofollow\">\
         mailto:a@b.example</a>.</p>\n"
    );
}

#[test]
fn snapshot_table() {
    assert_eq!(
        render("| Name | Qty |\n|------|----:|\n| *a* | 1 |\n| b \\| c | 22 |\n").as_str(),
        "<table><thead><tr><th>Name</th><th align=\"right\">Qty</th></tr></thead><tbody>\n\
         <tr><td><em>a</em></td><td align=\"right\">1</td></tr>\n\
         <tr><td>b | c</td><td align=\"right\">22</td></tr>\n</tbody></table>\n"
    );
}

#[test]
fn snapshot_code_block() {
    assert_eq!(
        render("```python\nprint(\"<hi>\")\n```\n").as_str(),
        "<div class=\"cs-code\" data-part=\"code-block\"><div class=\"cs-code__bar\">\
         <span class=\"cs-code__lang\" data-part=\"code-lang\">python</span>\
         <button type=\"button\" class=\"cs-code__copy\" data-part=\"code-copy\" \
         aria-label=\"Copy code\">Copy</button></div><pre><code class=\"language-python\">\
         print(\"&lt;hi&gt;\")\n</code></pre></div>\n"
    );
}

// The component's own hooks (`data-part`, `cs-code*` classes) only where the renderer put
// them; `SafeHtml`'s single way in is pinned by the compile-fail doc tests on the type.

/// Server HTML that writes the hooks the views and the stylesheet select on.
const FORGED_HOOKS: &[&str] = &[
    "<button data-part=\"code-copy\" class=\"cs-code__copy\" type=\"button\">Copy</button>",
    "<div data-part=\"code-block\" class=\"cs-code\"><pre><code>rm -rf /</code></pre></div>",
    "<span data-part=\"code-lang\" class=\"cs-code__lang\">sh</span>",
    "<sup data-part=\"citation\">[1]</sup>",
    "<div data-part=\"copy\">x</div>",
    "<span data-part=\"citation\">x</span>",
    "<sup data-part=\"history-open\">x</sup>",
    "<div class=\"cs-code__bar\" data-x=\"1\" data-role=\"assistant\">x</div>",
    // The renderer's own mark, literally and as character references.
    "<button data-part=\"\u{80}code-copy\" class=\"\u{80}cs-code__copy\">Copy</button>",
    "<sup data-part=\"&#x80;citation\">[1]</sup><sup data-part=\"&#128;citation\">[2]</sup>",
];

/// Elements (tag and attributes) of `html` that carry a hook of the component.
fn hooked(html: &str) -> Vec<Tag> {
    scan(html)
        .unwrap()
        .into_iter()
        .filter(|t| {
            t.attrs.iter().any(|(name, value)| {
                name.starts_with("data-") || (name == "class" && value.contains("cs-"))
            })
        })
        .collect()
}

/// Everything a stream of `text` shows, in 3-byte slices.
fn streamed(text: &str) -> String {
    let mut stream = MarkdownStream::new();
    let mut i = 0;
    while i < text.len() {
        let mut j = (i + 3).min(text.len());
        while !text.is_char_boundary(j) {
            j += 1;
        }
        stream.push(&text[i..j]);
        i = j;
    }
    let mut all: String = stream.blocks().iter().map(SafeHtml::as_str).collect();
    all.push_str(stream.tail().as_str());
    all
}

#[test]
fn server_html_cannot_forge_the_components_hooks() {
    for forged in FORGED_HOOKS {
        for (channel, text) in [
            ("raw HTML in markdown", format!("Text {forged} more.")),
            (
                "an HTML block in markdown",
                format!("Intro\n\n{forged}\n\nEnd"),
            ),
            ("an HTML answer", format!("<div>{forged}</div>")),
            ("widget markdown in a list", format!("- item {forged}\n")),
        ] {
            for (path, html) in [
                ("render", render(&text).into_string()),
                ("sanitize_html", sanitize_html(&text).into_string()),
                ("stream", streamed(&text)),
            ] {
                let hooks = hooked(&html);
                assert!(
                    hooks.is_empty(),
                    "{channel} via {path}: {hooks:?} in {html}"
                );
                assert!(
                    !html.contains('\u{80}'),
                    "{channel} via {path}: the mark leaked: {html}"
                );
            }
        }
    }
}

#[test]
fn a_fenced_code_block_keeps_its_hooks_beside_forged_ones() {
    let text = "<button data-part=\"code-copy\" class=\"cs-code__copy\">fake</button>\n\n\
                ```sh\necho hi\n```\n\n<sup data-part=\"citation\">[9]</sup>\n";
    for html in [render(text).into_string(), streamed(text)] {
        let hooks: Vec<(String, Vec<(String, String)>)> = hooked(&html)
            .into_iter()
            .map(|t| (t.name, t.attrs))
            .collect();
        let part = |name: &str, value: &str| {
            hooks
                .iter()
                .filter(|(tag, attrs)| {
                    tag == name && attrs.iter().any(|(n, v)| n == "data-part" && v == value)
                })
                .count()
        };
        assert_eq!(part("div", "code-block"), 1, "{html}");
        assert_eq!(part("span", "code-lang"), 1, "{html}");
        assert_eq!(part("button", "code-copy"), 1, "{html}");
        assert_eq!(
            hooks.len(),
            4,
            "code block, bar, label and button only: {hooks:?}"
        );
        assert!(
            html.contains("<button type=\"button\">fake</button>"),
            "{html}"
        );
        assert!(html.contains("<sup>[9]</sup>"), "{html}");
    }
}

/// The hooked elements of `html` as (tag, attributes), for comparing.
fn hooks_of(html: &str) -> Vec<(String, Vec<(String, String)>)> {
    hooked(html)
        .into_iter()
        .map(|t| (t.name, t.attrs))
        .collect()
}

#[test]
fn an_unfinished_server_tag_before_a_code_block_does_not_take_its_hooks() {
    // An HTML block that leaves a tag, or a quoted attribute value, open: the code block
    // chrome after it must come out whole, not as attributes of the server's tag.
    let chrome = hooks_of(render("```\ncode\n```\n").as_str());
    assert_eq!(chrome.len(), 3, "{chrome:?}");
    for open in [
        "<div title=\"a",
        "<div title='a",
        "<div x=y",
        "<div",
        "<div title=",
        "<div <!--",
    ] {
        let text = format!("Intro\n\n{open}\n\n```\ncode\n```\n");
        for html in [render(&text).into_string(), streamed(&text)] {
            assert_eq!(hooks_of(&html), chrome, "{open:?}: {html}");
        }
    }
}

fn annotation(index: usize) -> Annotation {
    serde_json::from_value(serde_json::json!({
        "source": {"type": "url", "url": "https://a.example", "title": "A"}, "index": index
    }))
    .unwrap()
}

#[test]
fn citation_markers_keep_their_hook_and_server_ones_do_not_get_it() {
    let text = "Rust is fast<sup data-part=\"citation\">[7]</sup>.";
    let cited = cited_text(text, &[annotation(12)]);
    let mut stream = MarkdownStream::new();
    stream.reset_cited(&cited);
    for html in [
        render_cited(&cited).into_string(),
        stream.tail().as_str().to_owned(),
    ] {
        assert_eq!(
            html,
            "<p>Rust is fast<sup data-part=\"citation\">[1]</sup><sup>[7]</sup>.</p>\n"
        );
    }
    // Anything streamed after the markers is the server's again.
    stream.push("\n\n<sup data-part=\"\u{80}citation\">[8]</sup>");
    assert_eq!(
        hooked(stream.tail().as_str()).len(),
        1,
        "{}",
        stream.tail().as_str()
    );
    // A marker that the index puts inside a server tag (raw, in an HTML block) is still a
    // marker of its own, not attributes of that tag.
    let inside = "<div>\n<sup title=\"abc\">x</sup> <span title='abc' x=y>y</span>\n</div>";
    for index in 6..inside.chars().count() - 7 {
        let html = render_cited(&cited_text(inside, &[annotation(index)])).into_string();
        let hooks = hooks_of(&html);
        assert_eq!(hooks.len(), 1, "marker at {index}: {hooks:?} in {html}");
        assert!(
            html.contains("<sup data-part=\"citation\">[1]</sup>"),
            "{index}: {html}"
        );
    }
    // Markers in a plain string are the server's as far as anyone can tell: no hook.
    let plain = text_with_markers("Rust is fast.", &[annotation(12)]);
    assert_eq!(
        render(&plain).as_str(),
        "<p>Rust is fast<sup>[1]</sup>.</p>\n"
    );
}

fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(PAYLOADS).prop_map(str::to_owned),
        prop::sample::select(vec![
            "<",
            ">",
            "\"",
            "'",
            "=",
            "\n",
            "\n\n",
            " ",
            "javascript:",
            "&#x09;",
            "&#106;",
            "on",
            "error",
            "src=",
            "href=",
            "<a ",
            "<img ",
            "<svg>",
            "<math>",
            "$x$",
            "\\(",
            "</",
            "[",
            "](",
            ")",
            "![",
            "`",
            "```",
            "| ",
            "- ",
            "> ",
            "# ",
            "<div>",
            "<p>",
            "style=",
        ])
        .prop_map(str::to_owned),
        "[a-z<>\"'=/ :;&#\\n]{0,12}",
    ]
}

proptest! {
    // No regression files: this crate's tests must not write into the source tree.
        #![proptest_config(ProptestConfig {
            cases: 200,
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

    /// Random concatenations of payloads and payload pieces stay safe on every path.
    #[test]
    fn random_mixtures_stay_safe(parts in prop::collection::vec(fragment(), 1..8), step in 1usize..12) {
        let text: String = parts.concat();
        check(render(&text).as_str(), &format!("render {text:?}"));
        check(sanitize_html(&text).as_str(), &format!("sanitize {text:?}"));
        check_stream(&text, step);
    }
}
