//! The reference server's layering, read from its source with the rule the core's layering
//! test uses (`crates/core/tests/common/modgraph.rs`): no two files import each other,
//! directly or through others.
//!
//! What the app state holds is a leaf below it: the run and channel hubs (`runs::registry`,
//! `channel::hub`), the ACP bridge (`acp::bridge`), the host policy (`guard::policy`), the
//! live runs of `/agent-ui` (`handlers::agent_ui::live_runs`). What the files of a folder
//! share is in a file they name and that names none of them (`store::error`,
//! `handlers::request`, `acp::turn`'s `mod.rs`).
//!
//! Files, not modules taken whole: `state` holds the data of `acp`, `channel`, `runs`,
//! `shared`, `guard` and `handlers::agent_ui`, while the files that work on the whole app
//! state (a turn of `acp::turn`, a subscription in `channel`, `runs::cancel`,
//! `shared::listen`, the guard's middleware) stay beside that data, so `state` and those
//! folders name each other by design; so do `scripts` and `agent` (a scenario picks an
//! agent run, and agent runs are written as scripts). No file of theirs comes back to
//! itself.

#[path = "../../../crates/core/tests/common/modgraph.rs"]
mod modgraph;

use modgraph::{tangles, ModuleGraph};
use std::path::PathBuf;

const NAME: &str = "chat-shell-runtime";

fn src() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The crate's sources, with `edit` appended to one file (`modgraph::sources`).
fn sources(edit: Option<(&str, &str)>) -> Vec<(String, String)> {
    modgraph::sources(&src(), edit)
}

/// Every file-level circle: its files, and the paths that tie them.
fn circles(graph: &ModuleGraph) -> Vec<String> {
    tangles(&graph.deps)
        .into_iter()
        .map(|members| {
            let ties: Vec<String> = members
                .iter()
                .flat_map(|from| {
                    graph.deps[from]
                        .iter()
                        .filter(|to| members.contains(to))
                        .map(move |to| {
                            let why = &graph.because[&(from.clone(), to.clone())];
                            format!("{} -> {} ({why})", graph.files[from], graph.files[to])
                        })
                })
                .collect();
            ties.join("\n  ")
        })
        .collect()
}

#[test]
fn no_two_files_of_the_runtime_import_each_other() {
    let graph = ModuleGraph::from_sources(NAME, sources(None));
    assert!(
        graph.files.len() >= 100,
        "the whole source was read: {} files",
        graph.files.len()
    );
    // The layers the split rests on, so a graph read wrong cannot pass by being empty.
    for (from, to) in [
        ("server", "chat"),
        ("chat", "routes"),
        ("routes", "handlers::chatkit"),
        ("handlers::chatkit", "state"),
        ("state", "acp::bridge"),
        ("state", "channel::hub"),
        ("state", "runs::registry"),
        ("acp::turn::start", "state"),
        ("channel", "state"),
    ] {
        assert!(graph.reaches(from, to), "{from} -> {to}: {:?}", graph.deps);
    }
    for (leaf, above) in [
        ("acp::bridge", "state"),
        ("channel::hub", "state"),
        ("runs::registry", "channel"),
        ("store::pg", "store"),
        ("handlers::request", "handlers"),
        ("acp::turn", "acp::turn::drive"),
    ] {
        assert!(
            graph.files.contains_key(leaf) && !graph.reaches(leaf, above),
            "{leaf} stays below {above}: {:?}",
            graph.deps.get(leaf)
        );
    }
    assert_eq!(circles(&graph), Vec::<String>::new());
    // The paths as written (a re-exported name read as its parent's) meet no circle either.
    assert_eq!(tangles(&graph.edges), Vec::<Vec<String>>::new());
}

#[test]
fn the_app_state_naming_a_handler_is_a_circle() {
    // Every handler works on the app state: the state naming one closes a circle.
    let edit = (
        "state.rs",
        "fn back() { let _ = crate::handlers::chatkit::chatkit; }",
    );
    let graph = ModuleGraph::from_sources(NAME, sources(Some(edit)));
    let found = circles(&graph);
    assert!(
        found
            .iter()
            .any(|c| c.contains("state.rs -> handlers/chatkit.rs")
                && c.contains("handlers/chatkit.rs -> state.rs")),
        "{found:?}"
    );
    // The bridge holding the app state (it holds the store and the channels instead).
    let edit = (
        "acp/bridge.rs",
        "struct Back(std::sync::Weak<crate::state::AppState>);",
    );
    let graph = ModuleGraph::from_sources(NAME, sources(Some(edit)));
    let found = circles(&graph);
    assert!(
        found
            .iter()
            .any(|c| c.contains("acp/bridge.rs -> state.rs")),
        "{found:?}"
    );
}
