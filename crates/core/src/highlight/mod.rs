//! Syntax highlighting of code: fenced code in answers, and the lines of diffs.
//!
//! A small lexer per language family (`lexer`: C-like, Python-like, shell, SQL…;
//! `markup`: HTML/XML, CSS, JSON, YAML, TOML, Markdown, diff) cuts each line into tokens of
//! one documented set of kinds ([`Kind`], the class `cs-tok-<kind>`), carrying what a line
//! leaves open (a block comment, a multi-line string, a tag) to the next in [`State`]. The
//! output is built from those tokens around escaped text
//! ([`HtmlWriter`](crate::markdown::HtmlWriter)), so a code sample can never become markup.
//! It is not a parser: a token it does not know is plain text.
//!
//! Chosen over the maintained highlighters by measure (docs/highlighting.md): syntect and
//! synoptic bring a regex engine and grammars to the page, ~20–40× the bytes of this part.
//! In the element the highlighter is a part of its own, fetched with the first code block
//! (`src/chunks/highlight.rs`); only [`Token`], [`Kind`], [`Lang`] and the writers
//! (`html`) are shared with the views.
//!
//! This file holds the shared words (kinds, tokens, languages, what a line leaves open);
//! `lines` cuts lines into tokens with the lexer each language uses, `html` writes them.

mod html;
mod langs;
mod lexer;
mod lines;
mod markup;

pub use html::{code_html, write_line};
pub use lines::{line_tokens, DiffSides, LineHighlighter};

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

#[cfg(test)]
mod tests;
