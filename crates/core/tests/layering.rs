//! The core's layering, read from its source: no module of the core or of the protocol is in
//! a circle (files, and modules taken whole at every depth; the rule is in
//! `common/modgraph.rs`, shared with the browser crate's test), only `adapters` names the
//! answer streams' wire enums (the places a wire format becomes reducer input are one
//! folder), and the reducer and the thread model name no ChatKit item (the state holds
//! model entries). The protocol is a crate of its own, so the compiler already keeps it
//! below the core.
#![cfg(not(target_arch = "wasm32"))]

#[path = "common/modgraph.rs"]
mod modgraph;

use modgraph::{cycle, ModuleGraph};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The wire names an answer stream is decoded with; outside `adapters` none may appear.
const STREAM_WIRE: &[&str] = &[
    "StreamEvent",
    "ItemUpdate",
    "decode_event",
    "EventKind",
    "decode_envelope",
    "agent_ui::Envelope",
    "agent_ui::decode",
];

/// ChatKit's item enum and its extension items: the thread model ([`chat_shell_core::model`])
/// stands between them and the state, so the reducer and the model name none of them.
const ITEM_WIRE: &[&str] = &[
    "ItemKind",
    "ThreadItem",
    "AcpToolCallItem",
    "AcpPlanItem",
    "AcpThoughtItem",
    "AcpPermission",
];

fn src() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn protocol_src() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../protocol/src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    modgraph::rust_files(dir, out)
}

/// The top-level module a file belongs to (`reducer` for `src/reducer/run.rs`); `None` for
/// the crate root.
fn top_module(path: &Path) -> Option<String> {
    let rel = path.strip_prefix(src()).expect("under src");
    let first = rel.components().next()?.as_os_str().to_str()?.to_owned();
    match first.strip_suffix(".rs") {
        Some("lib") => None,
        Some(stem) => Some(stem.to_owned()),
        None => Some(first),
    }
}

/// The code of a file without its comments (doc links are not dependencies).
fn code(text: &str) -> String {
    text.lines()
        .map(|line| match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_top_level_modules_form_no_import_cycle() {
    let graph = ModuleGraph::read(&src(), "chat-shell-core").at_depth(1);
    assert!(
        graph.contains_key("reducer") && graph.contains_key("adapters"),
        "the source was read: {graph:?}"
    );
    assert!(
        graph["adapters"].contains("reducer"),
        "references are found: {graph:?}"
    );
    if let Some(cycle) = cycle(&graph) {
        panic!(
            "import cycle between the core's modules: {}",
            cycle.join(" -> ")
        );
    }
}

#[test]
fn no_module_of_the_core_is_in_a_circle() {
    let graph = ModuleGraph::read(&src(), "chat-shell-core");
    // The source was read, down to the files of a folder's folder.
    assert!(
        graph.files.contains_key("reducer::state::item"),
        "{graph:?}"
    );
    assert!(graph.edges["reducer::items"].contains("reducer::tool_calls"));
    assert!(graph.reaches("reducer::conversation", "reducer::state::item"));
    graph.assert_layered();
}

#[test]
fn no_module_of_the_protocol_is_in_a_circle() {
    let graph = ModuleGraph::read(&protocol_src(), "chat-shell-protocol");
    assert!(graph.edges["chatkit::thread"].contains("chatkit::items"));
    graph.assert_layered();
}

/// Whether `text` names `name` as a whole word, not as the end or start of a longer one.
fn names(text: &str, name: &str) -> bool {
    text.match_indices(name).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + name.len()..].chars().next();
        let part = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        !part(before) && !part(after)
    })
}

/// `file names X` for each of `wire` that a file of the modules `within` selects names.
fn named_in(within: impl Fn(Option<&str>) -> bool, wire: &[&str]) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let mut found = Vec::new();
    for file in files {
        if !within(top_module(&file).as_deref()) {
            continue;
        }
        let text = code(&std::fs::read_to_string(&file).expect("read source"));
        for name in wire {
            if names(&text, name) {
                found.push(format!("{} names {name}", file.display()));
            }
        }
    }
    found
}

#[test]
fn only_adapters_name_the_answer_streams_wire_enums() {
    let found = named_in(|m| m != Some("adapters"), STREAM_WIRE);
    assert!(found.is_empty(), "wire enums outside adapters: {found:#?}");
}

#[test]
fn the_reducer_and_the_model_name_no_chatkit_item() {
    let within = |m: Option<&str>| matches!(m, Some("reducer" | "model"));
    let found = named_in(within, ITEM_WIRE);
    assert!(found.is_empty(), "ChatKit items in the state: {found:#?}");
    // The check reads what it should: the adapters do name them.
    assert!(!named_in(|m| m == Some("adapters"), ITEM_WIRE).is_empty());
}

#[test]
fn a_cycle_is_found_and_named() {
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("a", vec!["b"]),
        ("b", vec!["c"]),
        ("c", vec!["a"]),
        ("d", vec![]),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.into_iter().map(str::to_owned).collect()))
    .collect();
    assert_eq!(
        cycle(&graph),
        Some(vec!["a".into(), "b".into(), "c".into(), "a".into()])
    );
    assert_eq!(modgraph::tangles(&graph), [vec!["a", "b", "c"]]);
    let graph = crate_of(&[
        (
            "x.rs",
            "use crate::{reducer::{a, b}, sse::SseFrame};\nfn f() { let x = crate::pacing::f(); }",
        ),
        ("reducer/mod.rs", ""),
        ("sse.rs", ""),
        ("pacing.rs", ""),
    ]);
    assert_eq!(edges(&graph, "x"), ["pacing", "reducer", "sse"]);
}

/// A crate made of (path under `src`, text) pairs.
fn crate_of(files: &[(&str, &str)]) -> ModuleGraph {
    let sources = files.iter().map(|(p, t)| (p.to_string(), t.to_string()));
    ModuleGraph::from_sources("test", sources)
}

fn edges(graph: &ModuleGraph, from: &str) -> Vec<String> {
    graph.deps[from].iter().cloned().collect()
}

#[test]
fn a_parent_that_only_declares_and_re_exports_its_children_is_not_in_their_circle() {
    let table = crate_of(&[
        ("lib.rs", "mod a;"),
        (
            "a/mod.rs",
            "mod x;\nmod y;\npub use x::Thing;\npub(crate) use y::{f, g as h};",
        ),
        ("a/x.rs", "use super::h;\npub struct Thing;"),
        ("a/y.rs", "pub fn f() {}\npub fn g() {}"),
    ]);
    assert!(edges(&table, "a").is_empty());
    // A name the parent re-exports is followed to the file it comes from; as written, the
    // path goes into the parent.
    assert_eq!(edges(&table, "a::x"), ["a::y"]);
    assert_eq!(table.edges["a::x"], ["a".to_owned()].into());
    table.assert_layered();
    // So siblings meeting through the parent's table are in a circle all the same.
    let through = crate_of(&[
        (
            "a/mod.rs",
            "mod x;\nmod y;\npub use x::Thing;\npub use y::g as h;",
        ),
        ("a/x.rs", "use super::h;\npub struct Thing;"),
        ("a/y.rs", "pub fn g() { super::Thing; }"),
    ]);
    let circles = through.circles();
    assert_eq!(circles.len(), 1, "{circles:?}");
    assert!(circles[0].contains("a::y -> a::x (a/y.rs names super::Thing)"));
    // The parent's own code using what it re-exports, or calling a child, depends on it.
    for parent in [
        "mod x;\npub use x::Thing;\nfn new() -> Thing { Thing }",
        "mod x;\nfn new() { x::make(); }",
        "mod x;\nuse self::x::make;",
    ] {
        let graph = crate_of(&[
            ("a/mod.rs", parent),
            (
                "a/x.rs",
                "pub struct Thing;\npub fn make() { super::helper(); }",
            ),
        ]);
        assert_eq!(edges(&graph, "a"), ["a::x"], "{parent}");
        let circles = graph.circles();
        assert_eq!(circles.len(), 1, "{parent}: {circles:?}");
        assert!(circles[0].contains("a::x -> a (a/x.rs names super::helper)"));
    }
}

#[test]
fn siblings_and_modules_taken_whole_are_in_circles_too() {
    let siblings = crate_of(&[
        ("a/mod.rs", "mod x;\nmod y;"),
        ("a/x.rs", "use super::y::Y;\npub struct X;"),
        ("a/y.rs", "pub struct Y;\nfn f() -> super::x::X { todo!() }"),
    ]);
    assert_eq!(siblings.circles().len(), 1, "{:?}", siblings.circles());
    // No two files name each other, yet `a` and `b` need each other.
    let folders = crate_of(&[
        ("a/mod.rs", "mod x;\nmod z;"),
        ("a/x.rs", "use crate::b::B;"),
        ("a/z.rs", "pub struct Z;"),
        ("b/mod.rs", "mod y;\npub struct B;"),
        ("b/y.rs", "fn f(_: crate::a::z::Z) {}"),
    ]);
    assert!(cycle(&folders.at_depth(2)).is_none());
    let circles = folders.circles();
    assert_eq!(circles.len(), 1, "{circles:?}");
    assert!(circles[0].contains("a -> b") && circles[0].contains("b -> a"));
}

#[test]
fn what_is_no_path_into_a_file_is_no_dependency() {
    let graph = crate_of(&[
        (
            "lib.rs",
            "mod a;\nmod b;\npub use a::inner;\npub use other_crate as protocol;",
        ),
        ("a/mod.rs", "pub mod inner;"),
        ("a/inner.rs", ""),
        ("b.rs", "pub struct B;"),
        (
            "c.rs",
            r##"
            // crate::b::B in a comment, /* crate::b::B */ in a block,
            const S: &str = "crate::b::B";
            const R: &str = r#"crate::b::B " still a string"#;
            const C: char = '"';
            fn f<'a>(x: &'a str) -> protocol::Thing { crate::inner::g(); crate::protocol::h() }
            mod tests {
                use super::*;
                fn t() { super::S; self::helper(); }
            }
            "##,
        ),
        ("d.rs", "macro_rules! m { () => { $crate::b::B } }"),
    ]);
    // Comments, strings and characters are not read; another crate's paths are not
    // followed; an inline module's `super` is its own file; a re-exported module is itself.
    assert_eq!(edges(&graph, "c"), ["a::inner"], "{:?}", graph.because);
    assert_eq!(edges(&graph, "d"), ["b"]);
}

/// A copy of the core's source in a folder of its own, removed when dropped.
struct TreeCopy(PathBuf);

impl TreeCopy {
    fn of(from: &Path, name: &str) -> TreeCopy {
        let to = std::env::temp_dir().join(format!("layering-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&to);
        copy_dir(from, &to);
        TreeCopy(to)
    }

    fn append(&self, file: &str, text: &str) {
        let path = self.0.join(file);
        let old = std::fs::read_to_string(&path).expect("read the copy");
        std::fs::write(&path, format!("{old}\n{text}\n")).expect("write the copy");
    }
}

impl Drop for TreeCopy {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("make the copy's folder");
    for entry in std::fs::read_dir(from).expect("read src") {
        let path = entry.expect("dir entry").path();
        let target = to.join(path.file_name().expect("a name"));
        if path.is_dir() {
            copy_dir(&path, &target);
        } else {
            std::fs::copy(&path, &target).expect("copy a file");
        }
    }
}

#[test]
fn a_circle_added_to_a_copy_of_the_core_is_found() {
    let copy = TreeCopy::of(&src(), "siblings");
    ModuleGraph::read(&copy.0, "copy").assert_layered();
    // The state, which the transitions build on, naming one of them.
    copy.append("reducer/state/mod.rs", "use super::items::assistant_text;");
    let circles = ModuleGraph::read(&copy.0, "copy").circles();
    assert!(
        circles
            .iter()
            .any(|c| c.contains("reducer::state -> reducer::items")
                && c.contains("reducer/state/mod.rs names use super::items::assistant_text")),
        "{circles:#?}"
    );

    let copy = TreeCopy::of(&src(), "modules");
    // The thread model, which the reducer builds on, naming the reducer.
    copy.append("model/mod.rs", "fn f() { crate::reducer::reduce; }");
    let circles = ModuleGraph::read(&copy.0, "copy").circles();
    assert!(
        circles.iter().any(|c| c.contains("model -> reducer")),
        "{circles:#?}"
    );
}
