use super::*;
use crate::markdown::HtmlWriter;
use proptest::prelude::*;

/// The (text, class) of each token of `code`, line by line.
fn tokens(lang: Lang, code: &str) -> Vec<(String, Kind)> {
    let mut state = State::default();
    let mut out = Vec::new();
    let mut all = Vec::new();
    for line in code.split('\n') {
        out.clear();
        line_tokens(lang, line, &mut state, &mut out);
        all.extend(
            out.iter()
                .map(|t| (line[t.range.clone()].to_owned(), t.kind)),
        );
    }
    all
}

fn has(lang: Lang, code: &str, text: &str, kind: Kind) -> bool {
    tokens(lang, code)
        .iter()
        .any(|(t, k)| t == text && *k == kind)
}

/// The text back from highlighted markup: our tags out, the escapes read.
fn text_of(html: &str) -> String {
    let mut s = html.to_owned();
    for open in OPEN_TAGS {
        s = s.replace(open, "");
    }
    s.replace("</span>", "")
        .replace(r#"<mark class="cs-diff__word">"#, "")
        .replace("</mark>", "")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// Every `<` in the markup opens or closes one of our own tags.
fn only_our_tags(html: &str) -> bool {
    let mut rest = html;
    while let Some(i) = rest.find('<') {
        rest = &rest[i..];
        let ours = OPEN_TAGS.iter().any(|t| rest.starts_with(t))
            || rest.starts_with("</span>")
            || rest.starts_with(r#"<mark class="cs-diff__word">"#)
            || rest.starts_with("</mark>");
        if !ours {
            return false;
        }
        rest = &rest[1..];
    }
    true
}

#[test]
fn languages_from_fences_and_paths() {
    assert_eq!(Lang::from_fence("rust"), Some(Lang::Rust));
    assert_eq!(Lang::from_fence("TSX {1,3}"), Some(Lang::TypeScript));
    assert_eq!(Lang::from_fence("c++"), Some(Lang::Cpp));
    assert_eq!(Lang::from_fence("py3"), Some(Lang::Python));
    assert_eq!(Lang::from_fence("brainfuck"), None);
    assert_eq!(Lang::from_fence(""), None);
    assert_eq!(Lang::from_path("src/main.rs"), Some(Lang::Rust));
    assert_eq!(Lang::from_path("a/b/Dockerfile"), Some(Lang::Shell));
    assert_eq!(Lang::from_path("web\\index.HTML"), Some(Lang::Html));
    assert_eq!(Lang::from_path("notes"), None);
    assert_eq!(Lang::from_path("archive.tar.gz"), None);
    // Each language has at least one name, and no name names two.
    let mut seen = std::collections::HashSet::new();
    for (_, names) in NAMES {
        assert!(!names.is_empty());
        for n in *names {
            assert!(seen.insert(*n), "{n} twice");
        }
    }
    assert!(NAMES.len() >= 20);
}

#[test]
fn classes_are_one_set() {
    for (i, kind) in Kind::ALL.iter().enumerate() {
        assert_eq!(*kind as usize, i);
        assert_eq!(kind.class(), CLASSES[i]);
        assert_eq!(OPEN_TAGS[i], format!(r#"<span class="{}">"#, CLASSES[i]));
    }
}

#[test]
fn rust_tokens() {
    let code = "#[derive(Debug)]\npub fn main<'a>(x: &'a str) -> Vec<u8> {\n    let n = 0x1F + 1_000u32; // count\n    println!(\"hi {}\", 'c');\n    /* a\n    b */ None\n}";
    assert!(has(Lang::Rust, code, "#[derive(Debug)]", Kind::Meta));
    assert!(has(Lang::Rust, code, "pub", Kind::Keyword));
    assert!(has(Lang::Rust, code, "main", Kind::Function));
    assert!(has(Lang::Rust, code, "'a", Kind::Meta));
    assert!(has(Lang::Rust, code, "str", Kind::Type));
    assert!(has(Lang::Rust, code, "Vec", Kind::Type));
    assert!(has(Lang::Rust, code, "0x1F", Kind::Number));
    assert!(has(Lang::Rust, code, "1_000u32", Kind::Number));
    assert!(has(Lang::Rust, code, "// count", Kind::Comment));
    assert!(has(Lang::Rust, code, "println!", Kind::Meta));
    assert!(has(Lang::Rust, code, "\"hi {}\"", Kind::String));
    assert!(has(Lang::Rust, code, "'c'", Kind::String));
    assert!(has(Lang::Rust, code, "/* a", Kind::Comment));
    assert!(has(Lang::Rust, code, "    b */", Kind::Comment));
    assert!(has(Lang::Rust, code, "None", Kind::Literal));
    assert!(!has(Lang::Rust, code, "n", Kind::Function));
}

#[test]
fn carried_over_lines() {
    let py = "def f():\n    \"\"\"Doc\n    more\n    \"\"\"\n    return True  # yes";
    assert!(has(Lang::Python, py, "\"\"\"Doc", Kind::String));
    assert!(has(Lang::Python, py, "    more", Kind::String));
    assert!(has(Lang::Python, py, "    \"\"\"", Kind::String));
    assert!(has(Lang::Python, py, "return", Kind::Keyword));
    assert!(has(Lang::Python, py, "True", Kind::Literal));
    assert!(has(Lang::Python, py, "# yes", Kind::Comment));
    let js = "const s = `a ${b}\nc`; // end";
    assert!(has(Lang::JavaScript, js, "c`", Kind::String));
    assert!(has(Lang::JavaScript, js, "// end", Kind::Comment));
    let html = "<a href=\"x\"\n   class='y'>t</a><!-- c\n-->";
    assert!(has(Lang::Html, html, "<a", Kind::Tag));
    assert!(has(Lang::Html, html, "href", Kind::Attribute));
    assert!(has(Lang::Html, html, "class", Kind::Attribute));
    assert!(has(Lang::Html, html, "'y'", Kind::String));
    assert!(has(Lang::Html, html, "</a", Kind::Tag));
    assert!(has(Lang::Html, html, "-->", Kind::Comment));
    let toml = "[package]\nname = \"x\" # n\ndesc = \"\"\"\nlong\n\"\"\"\nok = true";
    assert!(has(Lang::Toml, toml, "[package]", Kind::Tag));
    assert!(has(Lang::Toml, toml, "name", Kind::Property));
    assert!(has(Lang::Toml, toml, "long", Kind::String));
    assert!(has(Lang::Toml, toml, "true", Kind::Literal));
    assert!(has(Lang::Toml, toml, "# n", Kind::Comment));
}

#[test]
fn other_languages() {
    assert!(has(
        Lang::Shell,
        "echo \"$HOME\" # hi\nls -la $DIR",
        "$DIR",
        Kind::Variable
    ));
    assert!(has(Lang::Shell, "echo a#b", "echo", Kind::Function));
    assert!(!has(Lang::Shell, "echo a#b", "#b", Kind::Comment));
    assert!(has(
        Lang::Sql,
        "SELECT id FROM t WHERE x = 'a'; -- c",
        "SELECT",
        Kind::Keyword
    ));
    assert!(has(Lang::Sql, "select 1", "select", Kind::Keyword));
    assert!(has(Lang::Sql, "select 'it''s'", "'it'", Kind::String));
    assert!(has(
        Lang::Json,
        r#"{"a": [1, -2.5e3, true, null, "s"]}"#,
        "\"a\"",
        Kind::Property
    ));
    assert!(has(
        Lang::Json,
        r#"{"a": [1, -2.5e3]}"#,
        "-2.5e3",
        Kind::Number
    ));
    assert!(has(
        Lang::Yaml,
        "- name: build # c\n  run: true",
        "name",
        Kind::Property
    ));
    assert!(has(Lang::Yaml, "  run: true", "true", Kind::Literal));
    assert!(has(
        Lang::Css,
        ".a > b { color: #fff; margin: 0 4px !important; }",
        ".a",
        Kind::Tag
    ));
    assert!(has(Lang::Css, "  color: #fff;", "color", Kind::Property));
    assert!(has(Lang::Css, "  margin: 4px;", "4px", Kind::Number));
    assert!(has(
        Lang::Markdown,
        "# Title\nsome `code` here",
        "# Title",
        Kind::Heading
    ));
    assert!(has(
        Lang::Markdown,
        "some `code` here",
        "`code`",
        Kind::String
    ));
    assert!(has(
        Lang::Diff,
        "+added\n-removed\n@@ -1 +1 @@",
        "+added",
        Kind::Inserted
    ));
    assert!(has(Lang::Diff, "-removed", "-removed", Kind::Deleted));
    assert!(has(
        Lang::C,
        "#include <stdio.h>\nint main(void) { return 0; }",
        "#include <stdio.h>",
        Kind::Meta
    ));
    assert!(has(
        Lang::Go,
        "func main() { fmt.Println(`raw`) }",
        "`raw`",
        Kind::String
    ));
    assert!(has(
        Lang::Java,
        "@Override public void run() {}",
        "@Override",
        Kind::Meta
    ));
    assert!(has(Lang::Php, "<?php echo $name;", "$name", Kind::Variable));
    assert!(has(
        Lang::Ruby,
        "def hi\n  @name = nil\nend",
        "@name",
        Kind::Variable
    ));
    assert!(has(
        Lang::Kotlin,
        "fun main() { val x = 1 }",
        "fun",
        Kind::Keyword
    ));
    assert!(has(
        Lang::Swift,
        "func f() -> Int { return nil }",
        "nil",
        Kind::Literal
    ));
    assert!(has(
        Lang::CSharp,
        "public class A { string s; }",
        "string",
        Kind::Type
    ));
    assert!(has(
        Lang::Cpp,
        "std::vector<int> v = nullptr;",
        "nullptr",
        Kind::Literal
    ));
    assert!(has(
        Lang::TypeScript,
        "interface A { x: number }",
        "interface",
        Kind::Keyword
    ));
}

/// Code samples that are HTML or try to break out of the markup stay text.
#[test]
fn hostile_code_stays_text() {
    let samples = [
        "<script>alert(1)</script>",
        "<img src=x onerror=alert(1)>",
        "\"><svg onload=alert(1)>",
        "'</span><script>alert(1)</script>",
        "/* </code></pre><iframe srcdoc='<script>alert(1)</script>'> */",
        "<!-- --><script>alert(1)</script>",
        "x = \"&lt;script&gt;\" & '<b>'",
        "<a href=\"javascript:alert(1)\" onclick='alert(1)'>x</a>",
    ];
    for (lang, _) in NAMES {
        for sample in samples {
            let (html, lines) = code_html(*lang, sample);
            let html = html.as_str();
            assert_eq!(lines, 1);
            assert!(only_our_tags(html), "{lang:?}: {html}");
            assert_eq!(text_of(html), sample, "{lang:?}");
        }
    }
}

#[test]
fn marks_nest_around_tokens() {
    let line = "let x = \"old\";";
    let mut tokens = Vec::new();
    line_tokens(Lang::Rust, line, &mut State::default(), &mut tokens);
    let mut out = HtmlWriter::with_capacity(64);
    // A mark that cuts the string token in two.
    write_line(&mut out, line, &tokens, &[4..5, 10..12]);
    let html = out.finish().into_string();
    assert_eq!(text_of(&html), line);
    assert!(only_our_tags(&html));
    assert_eq!(
        html,
        concat!(
            r#"<span class="cs-tok-keyword">let</span> <mark class="cs-diff__word">x</mark> = "#,
            r#"<span class="cs-tok-string">&quot;o</span><mark class="cs-diff__word">"#,
            r#"<span class="cs-tok-string">ld</span></mark><span class="cs-tok-string">&quot;</span>;"#
        )
    );
}

proptest! {
    /// Any text, in any language, with any marks: the markup reads back as the text, holds
    /// only our tags, balanced, and nothing panics (token ranges on character boundaries).
    #[test]
    fn any_text_round_trips(
        text in "(\\PC|[\"'`<>&/*#@$\\\\{}\\[\\]()=:;-]|\n){0,200}",
        lang in 0..NAMES.len(),
        marks in proptest::collection::vec((0usize..200, 0usize..20), 0..4),
    ) {
        let lang = NAMES[lang].0;
        let (html, lines) = code_html(lang, &text);
        let html = html.as_str();
        prop_assert_eq!(lines, text.split('\n').count());
        prop_assert!(only_our_tags(html), "{}", html);
        prop_assert_eq!(text_of(html), text.clone());
        prop_assert_eq!(html.matches("<span").count(), html.matches("</span>").count());
        let line = text.split('\n').next().unwrap_or_default();
        let mut tokens = Vec::new();
        line_tokens(lang, line, &mut State::default(), &mut tokens);
        let mut at = 0;
        for t in &tokens {
            prop_assert!(t.range.start >= at && t.range.start < t.range.end && t.range.end <= line.len());
            prop_assert!(line.is_char_boundary(t.range.start) && line.is_char_boundary(t.range.end));
            at = t.range.end;
        }
        let mut ranges: Vec<Range<usize>> = marks.iter().map(|&(s, l)| s..s + l).collect();
        ranges.sort_by_key(|r| r.start);
        let mut out = HtmlWriter::with_capacity(64);
        write_line(&mut out, line, &tokens, &ranges);
        let html = out.finish().into_string();
        prop_assert!(only_our_tags(&html));
        prop_assert_eq!(text_of(&html), line);
    }
}
