//! Syntax highlighting of code: fenced code in answers, and the lines of diffs.
//!
//! A small lexer per language family (`lexer`: C-like, Python-like, shell, SQL…;
//! `markup`: HTML/XML, CSS, JSON, YAML, TOML, Markdown, diff) cuts each line into tokens of
//! one documented set of kinds ([`Kind`], the class `cs-tok-<kind>`), carrying what a line
//! leaves open (a block comment, a multi-line string, a tag) to the next in [`State`]. The
//! output is built from those tokens around escaped text ([`HtmlWriter`]), so a code sample
//! can never become markup. It is not a parser: a token it does not know is plain text.
//!
//! Chosen over the maintained highlighters by measure (docs/highlighting.md): syntect and
//! synoptic bring a regex engine and grammars to the page, ~20–40× the bytes of this part.
//! In the element the highlighter is a part of its own, fetched with the first code block
//! (`src/parts/highlight.rs`); only [`Token`], [`Kind`], [`Lang`] and the writers below are
//! shared with the views.

mod langs;
mod lexer;
mod markup;

use crate::markdown::{HtmlWriter, SafeHtml};
use std::ops::Range;

/// A token's kind; its class is `cs-tok-<name>` ([`Kind::class`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Keyword,
    Type,
    Function,
    String,
    Number,
    /// `true`, `null`, `None`…
    Literal,
    Comment,
    /// Attributes, decorators, macros, preprocessor lines, front matter.
    Meta,
    /// Markup tags, CSS selectors, TOML tables.
    Tag,
    /// Markup attributes.
    Attribute,
    /// Keys of JSON, YAML and TOML, CSS properties.
    Property,
    /// Shell and PHP variables.
    Variable,
    /// Markdown headings.
    Heading,
    /// A diff's added lines.
    Inserted,
    /// A diff's removed lines.
    Deleted,
}

impl Kind {
    /// Every kind, in the order of [`CLASSES`].
    pub const ALL: [Kind; 15] = [
        Kind::Keyword,
        Kind::Type,
        Kind::Function,
        Kind::String,
        Kind::Number,
        Kind::Literal,
        Kind::Comment,
        Kind::Meta,
        Kind::Tag,
        Kind::Attribute,
        Kind::Property,
        Kind::Variable,
        Kind::Heading,
        Kind::Inserted,
        Kind::Deleted,
    ];

    /// The token's class: one of [`CLASSES`].
    pub fn class(self) -> &'static str {
        CLASSES[self as usize]
    }

    fn open_tag(self) -> &'static str {
        OPEN_TAGS[self as usize]
    }
}

/// The one set of classes highlighted tokens carry (documented in the README; stylesheets
/// colour them through `--cs-code-<kind>` variables).
pub const CLASSES: [&str; 15] = [
    "cs-tok-keyword",
    "cs-tok-type",
    "cs-tok-function",
    "cs-tok-string",
    "cs-tok-number",
    "cs-tok-literal",
    "cs-tok-comment",
    "cs-tok-meta",
    "cs-tok-tag",
    "cs-tok-attribute",
    "cs-tok-property",
    "cs-tok-variable",
    "cs-tok-heading",
    "cs-tok-inserted",
    "cs-tok-deleted",
];

const OPEN_TAGS: [&str; 15] = [
    r#"<span class="cs-tok-keyword">"#,
    r#"<span class="cs-tok-type">"#,
    r#"<span class="cs-tok-function">"#,
    r#"<span class="cs-tok-string">"#,
    r#"<span class="cs-tok-number">"#,
    r#"<span class="cs-tok-literal">"#,
    r#"<span class="cs-tok-comment">"#,
    r#"<span class="cs-tok-meta">"#,
    r#"<span class="cs-tok-tag">"#,
    r#"<span class="cs-tok-attribute">"#,
    r#"<span class="cs-tok-property">"#,
    r#"<span class="cs-tok-variable">"#,
    r#"<span class="cs-tok-heading">"#,
    r#"<span class="cs-tok-inserted">"#,
    r#"<span class="cs-tok-deleted">"#,
];

/// A token: a byte range of its line, on character boundaries, and its kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub range: Range<usize>,
    pub kind: Kind,
}

/// The languages highlighted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lang {
    Rust,
    Python,
    JavaScript,
    TypeScript,
    Json,
    Shell,
    C,
    Cpp,
    CSharp,
    Java,
    Kotlin,
    Swift,
    Go,
    Php,
    Ruby,
    Sql,
    Html,
    Css,
    Yaml,
    Toml,
    Markdown,
    Diff,
}

/// Names a fence may give, and file extensions, for each language.
const NAMES: &[(Lang, &[&str])] = &[
    (Lang::Rust, &["rust", "rs"]),
    (
        Lang::Python,
        &["python", "py", "py3", "python3", "pyi", "gyp"],
    ),
    (
        Lang::JavaScript,
        &["javascript", "js", "jsx", "mjs", "cjs", "node"],
    ),
    (Lang::TypeScript, &["typescript", "ts", "tsx", "mts", "cts"]),
    (Lang::Json, &["json", "jsonc", "json5", "jsonl", "geojson"]),
    (
        Lang::Shell,
        &[
            "bash",
            "sh",
            "shell",
            "zsh",
            "shellscript",
            "console",
            "shellsession",
            "ksh",
            "fish",
        ],
    ),
    (Lang::C, &["c", "h"]),
    (
        Lang::Cpp,
        &["cpp", "c++", "cc", "cxx", "hpp", "hh", "hxx", "h++"],
    ),
    (Lang::CSharp, &["csharp", "cs", "c#"]),
    (Lang::Java, &["java"]),
    (Lang::Kotlin, &["kotlin", "kt", "kts"]),
    (Lang::Swift, &["swift"]),
    (Lang::Go, &["go", "golang"]),
    (Lang::Php, &["php"]),
    (Lang::Ruby, &["ruby", "rb", "gemspec"]),
    (Lang::Sql, &["sql", "psql", "mysql", "sqlite", "postgresql"]),
    (
        Lang::Html,
        &[
            "html", "htm", "xml", "xhtml", "svg", "vue", "svelte", "plist",
        ],
    ),
    (Lang::Css, &["css", "scss", "less"]),
    (Lang::Yaml, &["yaml", "yml"]),
    (Lang::Toml, &["toml"]),
    (Lang::Markdown, &["markdown", "md", "mdx"]),
    (Lang::Diff, &["diff", "patch"]),
];

/// File names that say their language without an extension.
const FILE_NAMES: &[(&str, Lang)] = &[
    ("Makefile", Lang::Shell),
    ("Dockerfile", Lang::Shell),
    ("Gemfile", Lang::Ruby),
    ("Rakefile", Lang::Ruby),
    ("Cargo.lock", Lang::Toml),
    (".bashrc", Lang::Shell),
    (".zshrc", Lang::Shell),
    (".profile", Lang::Shell),
];

impl Lang {
    /// The language a fence's info string names (`rust`, `py`, `c++`, `tsx {1-3}`…).
    pub fn from_fence(info: &str) -> Option<Lang> {
        let name = info.split([' ', ',', '{']).next()?.trim();
        Self::named(name)
    }

    /// The language of a file, by its name or extension.
    pub fn from_path(path: &str) -> Option<Lang> {
        let file = path.rsplit(['/', '\\']).next().unwrap_or(path);
        if let Some((_, lang)) = FILE_NAMES.iter().find(|(n, _)| *n == file) {
            return Some(*lang);
        }
        let (_, ext) = file.rsplit_once('.')?;
        Self::named(ext)
    }

    fn named(name: &str) -> Option<Lang> {
        if name.is_empty() || name.len() > 16 {
            return None;
        }
        let lower = name.to_ascii_lowercase();
        NAMES
            .iter()
            .find(|(_, names)| names.contains(&lower.as_str()))
            .map(|(lang, _)| *lang)
    }
}

/// What a line leaves open for the next.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct State(Carry);

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Carry {
    #[default]
    Nothing,
    /// Inside a block comment, up to this delimiter.
    Comment(&'static str),
    /// Inside a string of this kind, up to this delimiter (`escapes`: `\` escapes it).
    String { close: &'static str, escapes: bool },
    /// Inside a markup tag's attributes.
    Tag,
    /// Inside YAML/TOML/Markdown front matter or a Markdown fence.
    Fence,
}

/// Cuts one line (without its line break) into tokens, appended to `out` in order.
pub fn line_tokens(lang: Lang, line: &str, state: &mut State, out: &mut Vec<Token>) {
    match lang {
        Lang::Html => markup::html(line, state, out),
        Lang::Css => markup::css(line, state, out),
        Lang::Json => markup::json(line, state, out),
        Lang::Yaml => markup::yaml(line, out),
        Lang::Toml => markup::toml(line, state, out),
        Lang::Markdown => markup::markdown(line, state, out),
        Lang::Diff => markup::diff(line, out),
        _ => lexer::code(langs::syntax(lang), line, state, out),
    }
}

/// A code block's text as highlighted markup (tokens in their spans, the rest as text),
/// with how many lines it has.
pub fn code_html(lang: Lang, code: &str) -> (SafeHtml, usize) {
    let mut out = HtmlWriter::with_capacity(code.len() * 2);
    let mut state = State::default();
    let mut tokens = Vec::new();
    let mut lines = 0;
    for (i, line) in code.split('\n').enumerate() {
        if i > 0 {
            out.markup("\n");
        }
        // A `\r` before the break stays in the text, not in a token.
        let body = line.strip_suffix('\r').unwrap_or(line);
        tokens.clear();
        line_tokens(lang, body, &mut state, &mut tokens);
        write_line(&mut out, line, &tokens, &[]);
        lines += 1;
    }
    (out.finish(), lines)
}

/// Tokens for a diff's lines, asked for in the order the lines are shown
/// (`diff::rows_html_with`).
pub trait LineHighlighter {
    /// The tokens of a line of the old side, the new side, or both (an unchanged line in
    /// one column).
    fn tokens(&mut self, text: &str, old_side: bool, new_side: bool, out: &mut Vec<Token>);
    /// Lines were folded away: what they left open is not known.
    fn skip(&mut self);
}

/// A diff's two sides in one language, each lexed in order with what its lines leave open.
pub struct DiffSides {
    lang: Lang,
    old: State,
    new: State,
}

impl DiffSides {
    pub fn new(lang: Lang) -> Self {
        DiffSides {
            lang,
            old: State::default(),
            new: State::default(),
        }
    }
}

impl LineHighlighter for DiffSides {
    fn tokens(&mut self, text: &str, old_side: bool, new_side: bool, out: &mut Vec<Token>) {
        if new_side {
            line_tokens(self.lang, text, &mut self.new, out);
            if old_side {
                // An unchanged line leaves the old side as it leaves the new one.
                self.old = self.new;
            }
        } else if old_side {
            line_tokens(self.lang, text, &mut self.old, out);
        }
    }

    fn skip(&mut self) {
        self.old = State::default();
        self.new = State::default();
    }
}

/// One line's text with its tokens in spans and its `marks` (sorted byte ranges, e.g. a
/// diff's changed words) in `<mark class="cs-diff__word">`, a mark around its spans.
pub fn write_line(out: &mut HtmlWriter, text: &str, tokens: &[Token], marks: &[Range<usize>]) {
    let mut cursor = Cursor {
        text,
        tokens,
        at: 0,
        next: 0,
    };
    for mark in marks {
        let (start, end) = (mark.start.min(text.len()), mark.end.min(text.len()));
        if start < cursor.at
            || start >= end
            || !text.is_char_boundary(start)
            || !text.is_char_boundary(end)
        {
            continue;
        }
        cursor.write_to(out, start);
        out.markup(r#"<mark class="cs-diff__word">"#);
        cursor.write_to(out, end);
        out.markup("</mark>");
    }
    cursor.write_to(out, text.len());
}

/// How far [`write_line`] has written its line, and the next token to write.
struct Cursor<'a> {
    text: &'a str,
    tokens: &'a [Token],
    at: usize,
    next: usize,
}

impl Cursor<'_> {
    /// Writes the text up to `end`, tokens cut at `end` (the rest of a cut token follows).
    fn write_to(&mut self, out: &mut HtmlWriter, end: usize) {
        while self.at < end {
            let token = match self.tokens.get(self.next) {
                Some(t) if t.range.end <= self.at => {
                    self.next += 1;
                    continue;
                }
                Some(t) if t.range.start < end => t,
                _ => {
                    out.text(&self.text[self.at..end]);
                    self.at = end;
                    return;
                }
            };
            let start = token.range.start.max(self.at);
            if start > self.at {
                out.text(&self.text[self.at..start]);
            }
            let stop = token.range.end.min(end);
            out.markup(token.kind.open_tag())
                .text(&self.text[start..stop])
                .markup("</span>");
            self.at = stop;
            if token.range.end <= end {
                self.next += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests;
