//! The browser crate's layering, read from its source with the rule the core's layering
//! test uses (`crates/core/tests/common/modgraph.rs`):
//!
//! - no two files import each other, directly or through others;
//! - at the seam of the wasm split, a view a chunk builds never places a chunk's view
//!   itself: only the first module's views call `crate::chunks::views` (a chunk-only view
//!   that did would make the circle `chunks::views` exists to avoid). Code slots such as
//!   the highlighter (`chunks::highlight`) may be asked for from anywhere;
//! - the helpers every view uses (`ui`'s own file) never ask for a chunk.
//!
//! Files, not modules taken whole: the first module's views place the views of a chunk
//! (`ui::header` → `chunks::views` → `ui::usage`), so `ui` and `chunks` name each other
//! as folders by design; no file of either comes back to itself.
#![cfg(not(target_arch = "wasm32"))]

#[path = "common/chunk_only.rs"]
mod chunk_only;
#[path = "../crates/core/tests/common/modgraph.rs"]
mod modgraph;

use modgraph::{tangles, ModuleGraph};
use std::path::PathBuf;

fn src() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The crate's sources, with `edit` appended to one file (`modgraph::sources`).
fn sources(edit: Option<(&str, &str)>) -> Vec<(String, String)> {
    modgraph::sources(&src(), edit)
}

/// Every file-level circle, each as its files.
fn circles(graph: &ModuleGraph) -> Vec<String> {
    tangles(&graph.deps)
        .into_iter()
        .map(|members| {
            members
                .iter()
                .map(|m| graph.files[m].clone())
                .collect::<Vec<_>>()
                .join(", ")
        })
        .collect()
}

/// Chunk-only views that place a chunk's view, and `ui`'s own file asking for any chunk,
/// each with the `chunks` module it names.
fn seam_breaches(graph: &ModuleGraph) -> Vec<String> {
    let asks = |module: &str| -> Vec<String> {
        graph
            .edges
            .get(module)
            .into_iter()
            .flatten()
            .filter(|to| match module {
                "ui" => *to == "chunks" || to.starts_with("chunks::"),
                _ => *to == "chunks::views",
            })
            .map(|to| format!("{module} names {to}"))
            .collect()
    };
    let in_chunks = |module: &str| {
        chunk_only::CHUNK_ONLY
            .iter()
            .any(|c| module == *c || module.starts_with(&format!("{c}::")))
    };
    graph
        .files
        .keys()
        .filter(|m| *m == "ui" || in_chunks(m))
        .flat_map(|m| asks(m))
        .collect()
}

#[test]
fn no_two_files_of_the_browser_crate_import_each_other() {
    let graph = ModuleGraph::from_sources("chat-shell", sources(None));
    assert!(
        graph.files.len() > 80,
        "the whole source was read: {} files",
        graph.files.len()
    );
    assert_eq!(circles(&graph), Vec::<String>::new());
}

#[test]
fn a_view_a_chunk_builds_never_places_a_chunks_view() {
    let graph = ModuleGraph::from_sources("chat-shell", sources(None));
    assert_eq!(seam_breaches(&graph), Vec::<String>::new());
}

#[test]
fn a_file_naming_the_chunk_that_names_it_is_a_circle() {
    // The window's code is what `chunks::views` hands out; its file asking `chunks::views`
    // for it again is the circle the loader's place in `chunks::views` avoids.
    let edit = (
        "ui/conversation/window.rs",
        "fn again() { let _ = crate::chunks::views::window_hooks; }",
    );
    let graph = ModuleGraph::from_sources("chat-shell", sources(Some(edit)));
    let found = circles(&graph);
    assert!(
        found
            .iter()
            .any(|c| c.contains("ui/conversation/window.rs") && c.contains("chunks/views.rs")),
        "{found:?}"
    );
    // What the `Runtime` holds is a leaf (`runtime::held`): its file naming a file that names
    // `Runtime` is a circle.
    let edit = (
        "runtime/mod.rs",
        "fn back() -> u32 { crate::runtime::threads::PAGE_SIZE }",
    );
    let graph = ModuleGraph::from_sources("chat-shell", sources(Some(edit)));
    assert!(
        circles(&graph).iter().any(|c| c.contains("runtime/mod.rs")),
        "{:?}",
        circles(&graph)
    );
}

#[test]
fn a_chunk_view_asking_for_a_chunk_breaches_the_seam() {
    let edit = (
        "ui/widgets/ctx.rs",
        "fn ask() { let _ = crate::chunks::views::usage_meter; }",
    );
    let graph = ModuleGraph::from_sources("chat-shell", sources(Some(edit)));
    assert_eq!(
        seam_breaches(&graph),
        vec!["ui::widgets::ctx names chunks::views".to_owned()]
    );
    let edit = ("ui/mod.rs", "fn ask() { crate::chunks::highlight::ready; }");
    let graph = ModuleGraph::from_sources("chat-shell", sources(Some(edit)));
    assert_eq!(
        seam_breaches(&graph),
        vec!["ui names chunks::highlight".to_owned()]
    );
}
