//! The core's layering, read from its source: the top-level modules' `crate::…` references
//! form no cycle, and only `adapters` names the answer streams' wire enums (the places a
//! wire format becomes reducer input are one folder), and the reducer and the thread model
//! name no ChatKit item (the state holds model entries). The protocol is a crate of its own,
//! so the compiler already keeps it below the core; this checks the modules inside it.
#![cfg(not(target_arch = "wasm32"))]

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

/// The top-level modules `code` names through `crate::`: `crate::a::…` and the first
/// names of `use crate::{a::…, b, …}`.
fn references(code: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // Top-level names of the group: after `{` or a comma at depth 0.
            let mut depth = 0;
            let mut start = true;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => start = true,
                    c if start && !c.is_whitespace() => {
                        start = false;
                        let name = ident(&group[i..]);
                        if !name.is_empty() {
                            found.insert(name);
                        }
                    }
                    _ => {}
                }
            }
        } else {
            let name = ident(rest);
            if !name.is_empty() {
                found.insert(name);
            }
        }
    }
    found
}

/// Each top-level module and the top-level modules it refers to.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let Some(module) = top_module(&file) else {
            continue;
        };
        let text = std::fs::read_to_string(&file).expect("read source");
        let refs = references(&code(&text));
        let edges = graph.entry(module.clone()).or_default();
        edges.extend(refs.into_iter().filter(|r| *r != module));
    }
    // A module the crate root re-exports from another (`pub use markdown::citations;`) is
    // that module; names that are no module of the crate (re-exported crates) are no edges.
    let root = code(&std::fs::read_to_string(src().join("lib.rs")).expect("read lib.rs"));
    let aliases: BTreeMap<String, String> = root
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub use ")?.strip_suffix(';'))
        .filter_map(|path| {
            let (module, name) = path.split_once("::")?;
            Some((name.to_owned(), module.to_owned()))
        })
        .collect();
    let modules: BTreeSet<String> = graph.keys().cloned().collect();
    for (module, edges) in graph.iter_mut() {
        *edges = edges
            .iter()
            .map(|e| aliases.get(e).unwrap_or(e).clone())
            .filter(|e| modules.contains(e) && e != module)
            .collect();
    }
    graph
}

/// A cycle of `graph`, as the modules along it, if there is one.
fn cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Open,
        Done,
    }
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        marks: &mut BTreeMap<String, Mark>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        match marks.get(node) {
            Some(Mark::Done) => return None,
            Some(Mark::Open) => {
                let from = path.iter().position(|n| n == node).expect("on the path");
                let mut cycle = path[from..].to_vec();
                cycle.push(node.to_owned());
                return Some(cycle);
            }
            None => {}
        }
        marks.insert(node.to_owned(), Mark::Open);
        path.push(node.to_owned());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, marks, path) {
                return Some(cycle);
            }
        }
        path.pop();
        marks.insert(node.to_owned(), Mark::Done);
        None
    }
    let mut marks = BTreeMap::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut marks, &mut Vec::new()))
}

#[test]
fn the_top_level_modules_form_no_import_cycle() {
    let graph = graph();
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
    assert_eq!(
        references("use crate::{reducer::{a, b}, sse::SseFrame};\nlet x = crate::pacing::f();"),
        ["pacing", "reducer", "sse"].map(String::from).into()
    );
}
