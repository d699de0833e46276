//! The seam between the first wasm module and the chunks, read from the source.
//!
//! `wasm-split-cli` moves into a chunk the code only the chunk's entry points reach
//! (`src/chunks`). Nothing in the compiler stops first-module code from calling such code
//! directly: it would then quietly move back into the first module, and the initial load
//! grows. So the modules below are chunk-only, and this test fails when a first-module
//! file names one: code outside `src/chunks` and outside those modules may reach them only
//! through `crate::chunks`.
#![cfg(not(target_arch = "wasm32"))]

#[path = "common/chunk_only.rs"]
mod chunk_only;

use chunk_only::CHUNK_ONLY;
use std::path::{Path, PathBuf};

/// Modules of the core whose code only chunks run: the export, the highlighter, diffs, find, terminal
/// colours, tool output, forms, charts, approvals and structured input. Paths from
/// `chat_shell_core`.
const CORE_CHUNK_ONLY: &[&str] = &[
    "export",
    "highlight",
    "diff",
    "find",
    "ansi",
    "tool_output",
    "form",
    "widgets::chart",
    "widgets::approval",
    "widgets::structured",
];

fn src() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src dir") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module a file is (`ui::composer` for `src/ui/composer/mod.rs`; empty for `lib.rs`).
fn module_of(path: &Path) -> Vec<String> {
    let rel = path.strip_prefix(src()).expect("under src");
    let mut segments: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_str().expect("utf-8 path").to_owned())
        .collect();
    let file = segments.pop().expect("a file name");
    match file.strip_suffix(".rs") {
        Some("mod" | "lib") => {}
        Some(stem) => segments.push(stem.to_owned()),
        None => unreachable!("only .rs files are read"),
    }
    segments
}

/// The child modules of `module` that exist as files.
fn children(module: &[String]) -> Vec<String> {
    let dir = module.iter().fold(src(), |d, m| d.join(m));
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    entries
        .filter_map(|e| {
            let path = e.ok()?.path();
            let name = path.file_name()?.to_str()?.to_owned();
            if path.is_dir() {
                Some(name)
            } else {
                name.strip_suffix(".rs")
                    .filter(|n| *n != "mod" && *n != "lib")
                    .map(str::to_owned)
            }
        })
        .collect()
}

/// `text` without its comments (doc links are not calls) and its re-exports (`pub use`:
/// the crate's API for Rust apps, which link every module in).
fn code(text: &str) -> String {
    text.lines()
        .filter(|line| !line.trim_start().starts_with("pub use "))
        .map(|line| line.find("//").map_or(line, |at| &line[..at]))
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The paths that start at `at` in `code` (`a::b::{c, d::e}` is `a::b::c` and
/// `a::b::d::e`), each as its segments.
fn paths_at(code: &str, at: usize) -> Vec<Vec<String>> {
    let mut segments = Vec::new();
    let mut rest = &code[at..];
    loop {
        let name: String = rest.chars().take_while(|c| is_ident(*c)).collect();
        if name.is_empty() {
            break;
        }
        rest = &rest[name.len()..];
        segments.push(name);
        let Some(next) = rest.strip_prefix("::") else {
            break;
        };
        rest = next.trim_start();
        if let Some(group) = rest.strip_prefix('{') {
            let mut out = Vec::new();
            let mut depth = 0;
            let mut start = 0;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' | ',' if depth == 0 => {
                        let item = group[start..i].trim();
                        let offset = group[start..].find(item).unwrap_or(0) + start;
                        if !item.is_empty() {
                            let base = code.len() - group.len() + offset;
                            for tail in paths_at(code, base) {
                                out.push(segments.iter().cloned().chain(tail).collect());
                            }
                        }
                        if c == '}' {
                            break;
                        }
                        start = i + 1;
                    }
                    '}' => depth -= 1,
                    _ => {}
                }
            }
            return out;
        }
    }
    vec![segments]
}

/// Every path of this crate (from its root) and of the core (prefixed `chat_shell_core`)
/// that `code`, the code of `module`, names.
fn named(module: &[String], code: &str, children: &[String]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for (at, _) in code.char_indices() {
        if at > 0 && code[..at].chars().next_back().is_some_and(is_ident) {
            continue;
        }
        if at > 1 && code[..at].ends_with("::") {
            continue;
        }
        let rest = &code[at..];
        if !rest.starts_with(|c: char| c.is_ascii_lowercase()) {
            continue;
        }
        for path in paths_at(code, at) {
            let Some(first) = path.first() else { continue };
            let absolute = match first.as_str() {
                "crate" => path[1..].to_vec(),
                "chat_shell_core" => path.clone(),
                "self" => module
                    .iter()
                    .cloned()
                    .chain(path[1..].iter().cloned())
                    .collect(),
                "super" => {
                    let ups = path.iter().take_while(|s| *s == "super").count();
                    let keep = module.len().saturating_sub(ups);
                    module[..keep]
                        .iter()
                        .cloned()
                        .chain(path[ups..].iter().cloned())
                        .collect()
                }
                name if path.len() > 1 && children.iter().any(|c| c == name) => {
                    module.iter().cloned().chain(path.iter().cloned()).collect()
                }
                _ => continue,
            };
            out.push(absolute);
        }
    }
    out
}

fn is_under(path: &[String], prefix: &str) -> bool {
    let prefix: Vec<&str> = prefix.split("::").collect();
    path.len() >= prefix.len() && path.iter().zip(&prefix).all(|(a, b)| a == b)
}

fn chunk_only(path: &[String]) -> bool {
    match path.split_first() {
        Some((first, rest)) if first == "chat_shell_core" => {
            CORE_CHUNK_ONLY.iter().any(|m| is_under(rest, m))
        }
        _ => CHUNK_ONLY.iter().any(|m| is_under(path, m)),
    }
}

/// What `code`, the code of `module`, names across the seam.
fn violations(module: &[String], code: &str, children: &[String]) -> Vec<String> {
    let mut found: Vec<String> = named(module, code, children)
        .into_iter()
        .filter(|p| chunk_only(p))
        .map(|p| p.join("::"))
        .collect();
    found.sort();
    found.dedup();
    found
}

fn first_module(module: &[String]) -> bool {
    module.first().is_none_or(|m| m != "chunks") && !chunk_only(module)
}

#[test]
fn first_module_code_reaches_chunk_only_code_only_through_chunks() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let mut checked = 0;
    let mut crossing = Vec::new();
    for file in files {
        let module = module_of(&file);
        if !first_module(&module) {
            continue;
        }
        checked += 1;
        let text = code(&std::fs::read_to_string(&file).expect("read source"));
        for path in violations(&module, &text, &children(&module)) {
            crossing.push(format!("{}: {path}", file.display()));
        }
    }
    assert!(
        checked > 30,
        "the first module's files were read ({checked})"
    );
    assert!(
        crossing.is_empty(),
        "first-module code names chunk-only code; call it through crate::chunks instead:\n{}",
        crossing.join("\n")
    );
}

fn module(path: &str) -> Vec<String> {
    path.split("::").map(str::to_owned).collect()
}

#[test]
fn the_seam_check_catches_each_way_of_naming_a_chunk() {
    let shell = module("ui::shell");
    let none: Vec<String> = Vec::new();
    for (code, expected) in [
        (
            "use crate::ui::history::HistoryView;",
            "ui::history::HistoryView",
        ),
        (
            "use crate::ui::{header, tools::tabs::ViewTabs};",
            "ui::tools::tabs::ViewTabs",
        ),
        ("let x = super::team::TeamRoster();", "ui::team::TeamRoster"),
        (
            "chat_shell_core::highlight::code_html(l, c)",
            "chat_shell_core::highlight::code_html",
        ),
        (
            "use crate::ui::composer::{self, pickers::{A, B}};",
            "ui::composer::pickers::A",
        ),
    ] {
        let found = violations(&shell, code, &none);
        assert!(found.iter().any(|f| f == expected), "{code}: {found:?}");
    }
    // A child module named without a prefix, from its parent.
    let composer = module("ui::composer");
    let found = violations(&composer, "tray::tray_list(shell)", &["tray".to_owned()]);
    assert_eq!(found, ["ui::composer::tray::tray_list"]);
    // What stays on the first module's side is no crossing.
    for code in [
        "use crate::chunks::views::history;",
        "use crate::ui::header::ShellHeader;",
        "chat_shell_core::widgets::icons::drawing(n)",
        "// crate::ui::history::HistoryView in a comment",
    ] {
        assert!(
            violations(&shell, &self::code(code), &none).is_empty(),
            "{code}"
        );
    }
}
