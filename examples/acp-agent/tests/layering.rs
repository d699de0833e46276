//! The agent's layering, read from its source with the rule the core's layering test uses
//! (`crates/core/tests/common/modgraph.rs`): no two modules import each other, directly or
//! through others. The main loop (`serve`) hands a prompt to `prompt`, which picks a
//! script; the scripts build on `turn`; what they all send (`typed`, `notify`) is in the
//! leaf `wire`, so nothing below `serve` comes back to it.

#[path = "../../../crates/core/tests/common/modgraph.rs"]
mod modgraph;

use modgraph::ModuleGraph;
use std::path::PathBuf;

fn src() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The crate's sources, with `edit` appended to one file (`modgraph::sources`).
fn sources(edit: Option<(&str, &str)>) -> Vec<(String, String)> {
    modgraph::sources(&src(), edit)
}

#[test]
fn no_two_modules_of_the_agent_import_each_other() {
    let graph = ModuleGraph::from_sources("chat-shell-acp-agent", sources(None));
    assert!(
        graph.files.len() >= 13,
        "the whole source was read: {:?}",
        graph.files
    );
    // The layers the split rests on, so a graph read wrong cannot pass by being empty.
    assert!(graph.reaches("serve", "prompt"), "{:?}", graph.edges);
    assert!(graph.reaches("prompt", "turn"), "{:?}", graph.edges);
    assert!(graph.reaches("turn", "wire"), "{:?}", graph.edges);
    assert!(
        graph.edges["wire"].is_empty(),
        "wire is a leaf: {:?}",
        graph.edges["wire"]
    );
    assert_eq!(graph.circles(), Vec::<String>::new());
}

#[test]
fn a_script_naming_the_main_loop_is_a_circle() {
    // `serve` reaches `turn` through `prompt`: `turn` naming `serve` again closes a circle.
    let edit = (
        "turn.rs",
        "fn back() { let _ = crate::serve::serve_stdio; }",
    );
    let graph = ModuleGraph::from_sources("chat-shell-acp-agent", sources(Some(edit)));
    let found = graph.circles();
    assert!(
        found
            .iter()
            .any(|c| c.contains("turn.rs names crate::serve::serve_stdio")),
        "{found:?}"
    );
    // The leaf naming what uses it is a circle too.
    let edit = ("wire.rs", "fn back() { let _ = crate::turn::text; }");
    let graph = ModuleGraph::from_sources("chat-shell-acp-agent", sources(Some(edit)));
    let found = graph.circles();
    assert!(
        found
            .iter()
            .any(|c| c.contains("wire") && c.contains("turn")),
        "{found:?}"
    );
}
