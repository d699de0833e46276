//! A crate's module graph read from its source, and the circles in it. Shared by the
//! layering tests of the core and the protocol (`crates/core/tests/layering.rs`) and of the
//! browser crate, which include this file with `#[path = "…"] mod modgraph;`.
//!
//! The rule, so that every test means the same by "a circle":
//!
//! - Each `.rs` file under `src` is a module: `lib.rs` is `crate`, `a.rs` and `a/mod.rs`
//!   are `a`, `a/b.rs` and `a/b/mod.rs` are `a::b`. An inline `mod x { … }` belongs to its
//!   file.
//! - File A depends on file B when A's code (comments and literals left out) holds a path
//!   into B: `crate::…`, `$crate::…`, `super::…`, `self::…`, or a path starting with the
//!   name of one of A's child modules (or of a module A imports), in a `use` or anywhere in
//!   code. The path goes into the deepest module it names, and a name a module brings in
//!   with `use` is followed to the module it comes from: `crate::reducer::ChatState` goes
//!   into `reducer::state`, where `reducer` re-exports it from, so siblings cannot meet
//!   unseen through their parent's re-exports. A name of another crate
//!   (`pub use chat_shell_protocol as protocol;`) is no dependency. ([`ModuleGraph::edges`]
//!   keeps the paths as written, for rules about what a file may name.)
//! - Declaring a child (`mod b;`) and re-exporting from it (`pub use b::Thing;`) is no
//!   dependency of the parent on the child: it is the child's entry in the parent's table.
//!   The parent does depend on the child when its own code uses what it re-exports, or
//!   names the child in any other way (`b::f()`, `use b::Thing;`).
//! - A circle is a cycle of these dependencies: among files, and among modules taken whole
//!   at each depth (`a::x` naming `b` and `b::y` naming `a` is a circle between `a` and
//!   `b` though no two files name each other).
#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The root module's name.
pub const ROOT: &str = "crate";

/// A crate's files as modules, and which file depends on which.
#[derive(Clone, Debug, Default)]
pub struct ModuleGraph {
    /// The crate's name, for messages.
    pub name: String,
    /// Each module and its file, relative to `src` (`reducer/state.rs`).
    pub files: BTreeMap<String, String>,
    /// Each module and the modules its paths go into as written (never itself): a name a
    /// module re-exports is that module's (`crate::reducer::ChatState` goes into `reducer`).
    /// What a rule about the paths a file may write reads.
    pub edges: BTreeMap<String, BTreeSet<String>>,
    /// Each module and the modules it depends on (never itself): [`ModuleGraph::edges`]
    /// with re-exported names followed to the module they come from
    /// (`crate::reducer::ChatState` goes into `reducer::state`). What circles are made of.
    pub deps: BTreeMap<String, BTreeSet<String>>,
    /// For each edge or dependency, the first path that made it (`super::run::AgentInfo`).
    pub because: BTreeMap<(String, String), String>,
}

impl ModuleGraph {
    /// The graph of the crate whose source root (the folder of `lib.rs`) is `src`.
    pub fn read(src: &Path, name: &str) -> ModuleGraph {
        ModuleGraph::from_sources(name, sources(src, None))
    }

    /// The graph of a crate given as (path relative to `src`, source text) pairs.
    pub fn from_sources(
        name: &str,
        sources: impl IntoIterator<Item = (String, String)>,
    ) -> ModuleGraph {
        let mut parsed: BTreeMap<String, (String, Parsed)> = BTreeMap::new();
        for (rel, text) in sources {
            let module = module_of(&rel);
            let p = parse(&text, &module);
            parsed.insert(module, (rel, p));
        }
        let modules: BTreeSet<String> = parsed.keys().cloned().collect();
        // What each `use` brings in: a module, a name of a module, or a name of another
        // crate. A path through one goes where the `use` goes (`crate::reducer::ChatState`
        // into `reducer::state`). An alias may go through another, so a few rounds.
        let mut aliases: BTreeMap<String, Alias> = BTreeMap::new();
        for _ in 0..4 {
            for (_, p) in parsed.values() {
                for u in &p.uses {
                    let Some(binding) = u.binding() else { continue };
                    let key = join(&u.scope, binding);
                    let alias = match resolve(&modules, &aliases, true, &u.scope, &u.path) {
                        Resolved::Module(target) => Alias::Module(target),
                        Resolved::Into(target) => Alias::Item(target),
                        // A `use` path that is no module here starts in another crate.
                        Resolved::External | Resolved::Nothing => Alias::External,
                    };
                    aliases.insert(key, alias);
                }
            }
        }
        let mut graph = ModuleGraph {
            name: name.to_owned(),
            ..ModuleGraph::default()
        };
        for (module, (rel, _)) in &parsed {
            graph.files.insert(module.clone(), rel.clone());
            graph.edges.entry(module.clone()).or_default();
            graph.deps.entry(module.clone()).or_default();
        }
        for follow in [false, true] {
            let resolve = |scope: &str, path: &[String]| match resolve(
                &modules, &aliases, follow, scope, path,
            ) {
                Resolved::Module(m) | Resolved::Into(m) => Some(file_of(&modules, &m)),
                Resolved::External | Resolved::Nothing => None,
            };
            for (module, (_, p)) in &parsed {
                let mut found: Vec<(String, String)> = Vec::new();
                let mut reexported: BTreeMap<&str, (String, String)> = BTreeMap::new();
                for u in &p.uses {
                    let Some(target) = resolve(&u.scope, &u.path) else {
                        continue;
                    };
                    let shown = u.path.join("::");
                    if u.public && is_below(&target, module) {
                        if let Some(binding) = u.binding() {
                            reexported.insert(binding, (target, shown));
                        }
                        continue;
                    }
                    found.push((target, format!("use {shown}")));
                }
                for path in &p.paths {
                    if let Some(target) = resolve(&path.scope, &path.path) {
                        found.push((target, path.path.join("::")));
                    }
                }
                for word in &p.words {
                    if let Some((target, shown)) = reexported.get(word.as_str()) {
                        found.push((target.clone(), format!("{word} (pub use {shown})")));
                    }
                }
                for (target, because) in found {
                    graph.add(follow, module, &target, &because);
                }
            }
        }
        graph
    }

    fn add(&mut self, followed: bool, from: &str, to: &str, because: &str) {
        if from == to {
            return;
        }
        let set = if followed {
            &mut self.deps
        } else {
            &mut self.edges
        };
        set.entry(from.to_owned())
            .or_default()
            .insert(to.to_owned());
        self.because
            .entry((from.to_owned(), to.to_owned()))
            .or_insert_with(|| because.to_owned());
    }

    /// The modules taken whole at `depth` (`reducer::state::item` is `reducer` at depth 1)
    /// and their dependencies.
    pub fn at_depth(&self, depth: usize) -> BTreeMap<String, BTreeSet<String>> {
        let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (from, tos) in &self.deps {
            let from = truncate(from, depth);
            let entry = out.entry(from.clone()).or_default();
            for to in tos {
                let to = truncate(to, depth);
                if to != from {
                    entry.insert(to);
                }
            }
        }
        out
    }

    /// The deepest module's depth (`reducer::state::item` is 3).
    pub fn depth(&self) -> usize {
        self.files
            .keys()
            .filter(|m| *m != ROOT)
            .map(|m| m.split("::").count())
            .max()
            .unwrap_or(0)
    }

    /// Every circle found: at each depth, each set of modules that reach one another,
    /// with one cycle through them and the paths that make it. Empty: the crate is layered.
    pub fn circles(&self) -> Vec<String> {
        let mut found = Vec::new();
        let mut seen: BTreeSet<Vec<String>> = BTreeSet::new();
        for depth in 1..=self.depth() {
            let graph = self.at_depth(depth);
            for members in tangles(&graph) {
                if !seen.insert(members.clone()) {
                    continue;
                }
                let inside: BTreeMap<String, BTreeSet<String>> = members
                    .iter()
                    .map(|m| {
                        let to = graph[m].iter().filter(|t| members.contains(t));
                        (m.clone(), to.cloned().collect())
                    })
                    .collect();
                let cycle = cycle(&inside).expect("a tangle has a cycle");
                let steps: Vec<String> = cycle
                    .windows(2)
                    .map(|pair| {
                        let why = self.why(&pair[0], &pair[1], depth);
                        format!("{} -> {} ({why})", pair[0], pair[1])
                    })
                    .collect();
                found.push(format!(
                    "{}: a circle among {}:\n  {}",
                    self.name,
                    members.join(", "),
                    steps.join("\n  ")
                ));
            }
        }
        found
    }

    /// Panics, naming every circle, unless the crate is layered.
    pub fn assert_layered(&self) {
        let circles = self.circles();
        assert!(circles.is_empty(), "{}", circles.join("\n\n"));
    }

    /// The first file-level dependency under `from -> to` at `depth`, as "file: path".
    fn why(&self, from: &str, to: &str, depth: usize) -> String {
        self.because
            .iter()
            .find(|((a, b), _)| truncate(a, depth) == from && truncate(b, depth) == to)
            .map(|((a, _), path)| format!("{} names {path}", self.files[a]))
            .unwrap_or_default()
    }

    /// Whether `from` depends on `to`, directly or through others (modules as named in
    /// [`ModuleGraph::files`]).
    pub fn reaches(&self, from: &str, to: &str) -> bool {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.to_owned()];
        while let Some(node) = stack.pop() {
            for next in self.deps.get(&node).into_iter().flatten() {
                if next == to {
                    return true;
                }
                if seen.insert(next.clone()) {
                    stack.push(next.clone());
                }
            }
        }
        false
    }
}

/// A cycle of `graph`, as the nodes along it (the first repeated at the end), if any.
pub fn cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
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

/// The sets of two or more nodes of `graph` that all reach one another (its strongly
/// connected components), each sorted.
pub fn tangles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    // Tarjan's algorithm.
    struct Walk<'a> {
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    impl<'a> Walk<'a> {
        fn visit(&mut self, node: &'a str) {
            let n = self.index.len();
            self.index.insert(node, n);
            self.low.insert(node, n);
            self.stack.push(node);
            self.on_stack.insert(node);
            for next in self.graph.get(node).into_iter().flatten() {
                let next = next.as_str();
                if !self.index.contains_key(next) {
                    self.visit(next);
                    let low = self.low[node].min(self.low[next]);
                    self.low.insert(node, low);
                } else if self.on_stack.contains(next) {
                    let low = self.low[node].min(self.index[next]);
                    self.low.insert(node, low);
                }
            }
            if self.low[node] == self.index[node] {
                let mut members = Vec::new();
                while let Some(top) = self.stack.pop() {
                    self.on_stack.remove(top);
                    members.push(top.to_owned());
                    if top == node {
                        break;
                    }
                }
                if members.len() > 1 {
                    members.sort();
                    self.out.push(members);
                }
            }
        }
    }
    let mut walk = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for node in graph.keys() {
        if !walk.index.contains_key(node.as_str()) {
            walk.visit(node);
        }
    }
    walk.out
}

/// A crate's sources under `src` as (path relative to `src`, text), with `edit`'s text
/// appended to its file when given: the layering tests' deliberate violations. Panics if
/// the file to edit is not there, so such a test cannot pass by editing nothing.
pub fn sources(src: &Path, edit: Option<(&str, &str)>) -> Vec<(String, String)> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut edited = false;
    let sources = files
        .into_iter()
        .map(|file| {
            let rel = file
                .strip_prefix(src)
                .expect("under src")
                .components()
                .map(|c| c.as_os_str().to_str().expect("utf-8 path"))
                .collect::<Vec<_>>()
                .join("/");
            let mut text = std::fs::read_to_string(&file)
                .unwrap_or_else(|e| panic!("read {}: {e}", file.display()));
            if let Some((_, extra)) = edit.filter(|(path, _)| *path == rel) {
                text.push('\n');
                text.push_str(extra);
                edited = true;
            }
            (rel, text)
        })
        .collect();
    assert_eq!(edited, edit.is_some(), "the file to edit exists: {edit:?}");
    sources
}

pub fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src dir") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module a file relative to `src` is (`reducer::state` for `reducer/state/mod.rs`).
pub fn module_of(rel: &str) -> String {
    let mut parts: Vec<&str> = rel.split('/').collect();
    let file = parts.pop().expect("a file name");
    match file.strip_suffix(".rs") {
        Some("mod") => {}
        Some("lib") if parts.is_empty() => {}
        Some(stem) => parts.push(stem),
        None => panic!("not a Rust file: {rel}"),
    }
    if parts.is_empty() {
        ROOT.to_owned()
    } else {
        parts.join("::")
    }
}

fn join(module: &str, name: &str) -> String {
    if module == ROOT {
        name.to_owned()
    } else {
        format!("{module}::{name}")
    }
}

fn parent(module: &str) -> String {
    match module.rsplit_once("::") {
        Some((up, _)) => up.to_owned(),
        None => ROOT.to_owned(),
    }
}

fn truncate(module: &str, depth: usize) -> String {
    if module == ROOT {
        return module.to_owned();
    }
    module
        .split("::")
        .take(depth)
        .collect::<Vec<_>>()
        .join("::")
}

/// Whether `module` is strictly inside `ancestor`.
fn is_below(module: &str, ancestor: &str) -> bool {
    module != ancestor && (ancestor == ROOT || module.starts_with(&format!("{ancestor}::")))
}

/// The file a module (maybe an inline one) is in: its deepest ancestor that is a file.
fn file_of(modules: &BTreeSet<String>, module: &str) -> String {
    let mut m = module.to_owned();
    while !modules.contains(&m) && m != ROOT {
        m = parent(&m);
    }
    m
}

#[derive(Clone, Debug, PartialEq)]
enum Alias {
    Module(String),
    /// A name (not a module) of this module.
    Item(String),
    External,
}

#[derive(Debug, PartialEq)]
enum Resolved {
    /// The path is the module itself.
    Module(String),
    /// The path goes into this module (names an item of it).
    Into(String),
    /// The path goes into another crate.
    External,
    /// The path is not a module's (a type's associated item, a local name, another crate).
    Nothing,
}

/// Where `path`, written in module `scope` (maybe inline), goes; `follow`: a re-exported
/// name to the module it comes from, else the module that re-exports it.
fn resolve(
    modules: &BTreeSet<String>,
    aliases: &BTreeMap<String, Alias>,
    follow: bool,
    scope: &str,
    path: &[String],
) -> Resolved {
    let Some(first) = path.first() else {
        return Resolved::Nothing;
    };
    let mut at = match first.as_str() {
        "crate" => ROOT.to_owned(),
        "self" => scope.to_owned(),
        "super" => parent(scope),
        _ => scope.to_owned(),
    };
    let mut rest = match first.as_str() {
        "crate" | "self" | "super" => &path[1..],
        _ => path,
    };
    while rest.first().is_some_and(|s| s == "super") {
        at = parent(&at);
        rest = &rest[1..];
    }
    let relative = !matches!(first.as_str(), "crate" | "self" | "super");
    let inline_or_file = |m: &str| modules.contains(m);
    for (i, seg) in rest.iter().enumerate() {
        let next = join(&at, seg);
        if inline_or_file(&next) {
            at = next;
        } else if let Some(alias) = aliases.get(&next) {
            match alias {
                Alias::Module(target) => at = target.clone(),
                Alias::Item(target) if follow => return Resolved::Into(target.clone()),
                Alias::Item(_) if relative && i == 0 => return Resolved::Nothing,
                Alias::Item(_) => return Resolved::Into(at),
                Alias::External => return Resolved::External,
            }
        } else if relative && i == 0 {
            // A name that is no child module here: another crate, a type, a local name.
            return Resolved::Nothing;
        } else {
            return Resolved::Into(at);
        }
    }
    Resolved::Module(at)
}

// ---- reading a file ------------------------------------------------------------------

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    /// `::`
    Sep,
    Punct(char),
}

/// A leaf of a `use` tree: its full path and the name it binds (`None`: a glob).
#[derive(Debug)]
struct Use {
    scope: String,
    path: Vec<String>,
    alias: Option<String>,
    glob: bool,
    public: bool,
}

impl Use {
    fn binding(&self) -> Option<&str> {
        if self.glob {
            return None;
        }
        self.alias
            .as_deref()
            .or(self.path.last().map(String::as_str))
    }
}

#[derive(Debug)]
struct CodePath {
    scope: String,
    path: Vec<String>,
}

#[derive(Debug, Default)]
struct Parsed {
    uses: Vec<Use>,
    paths: Vec<CodePath>,
    /// Names that start a path or stand alone in code (not after `.` or `::`), outside
    /// `use` items: what a re-exported name is looked for among.
    words: BTreeSet<String>,
}

/// The file's tokens: identifiers, `::` and punctuation; comments, string and character
/// literals, lifetimes and numbers left out.
fn tokens(text: &str) -> Vec<Tok> {
    let c: Vec<char> = text.chars().collect();
    let at = |i: usize| c.get(i).copied().unwrap_or('\0');
    let ident_start = |ch: char| ch.is_alphabetic() || ch == '_';
    let ident_char = |ch: char| ch.is_alphanumeric() || ch == '_';
    let mut out = Vec::new();
    let mut i = 0;
    // Skips a quoted string whose opening `"` is at `i`; returns the index after it.
    let skip_string = |mut i: usize| {
        i += 1;
        while i < c.len() && c[i] != '"' {
            if c[i] == '\\' {
                i += 1;
            }
            i += 1;
        }
        i + 1
    };
    while i < c.len() {
        let ch = c[i];
        if ch == '/' && at(i + 1) == '/' {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if ch == '"' {
            i = skip_string(i);
        } else if ch == '\'' {
            if at(i + 1) == '\\' {
                i += 2;
                while i < c.len() && c[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if at(i + 2) == '\'' {
                i += 3;
            } else {
                // A lifetime or a label.
                i += 1;
                while i < c.len() && ident_char(c[i]) {
                    i += 1;
                }
            }
        } else if ident_start(ch) {
            // String prefixes: b"", c"", r"", r#""#, br"", b'x'.
            let mut j = i;
            if matches!(c[j], 'b' | 'c') && matches!(at(j + 1), 'r' | '"' | '\'') {
                j += 1;
            }
            if c[j] == 'r' && (at(j + 1) == '"' || (at(j + 1) == '#' && at(j + 2) != '\0')) {
                let mut hashes = 0;
                let mut k = j + 1;
                while at(k) == '#' {
                    hashes += 1;
                    k += 1;
                }
                if at(k) == '"' {
                    k += 1;
                    loop {
                        if k >= c.len() {
                            break;
                        }
                        if c[k] == '"' && (1..=hashes).all(|h| at(k + h) == '#') {
                            k += 1 + hashes;
                            break;
                        }
                        k += 1;
                    }
                    i = k;
                    continue;
                }
                if hashes == 1 && ident_start(at(k)) && j == i {
                    // A raw identifier: r#name.
                    let mut e = k;
                    while e < c.len() && ident_char(c[e]) {
                        e += 1;
                    }
                    out.push(Tok::Ident(c[k..e].iter().collect()));
                    i = e;
                    continue;
                }
            }
            if j > i && at(j) == '"' {
                i = skip_string(j);
                continue;
            }
            if j > i && at(j) == '\'' && c[i] == 'b' {
                i = j;
                continue;
            }
            let mut e = i;
            while e < c.len() && ident_char(c[e]) {
                e += 1;
            }
            out.push(Tok::Ident(c[i..e].iter().collect()));
            i = e;
        } else if ch.is_ascii_digit() {
            while i < c.len() && ident_char(c[i]) {
                i += 1;
            }
        } else if ch == ':' && at(i + 1) == ':' {
            out.push(Tok::Sep);
            i += 2;
        } else if ch.is_whitespace() {
            i += 1;
        } else {
            out.push(Tok::Punct(ch));
            i += 1;
        }
    }
    out
}

fn ident(tok: Option<&Tok>) -> Option<&str> {
    match tok {
        Some(Tok::Ident(s)) => Some(s),
        _ => None,
    }
}

/// The `use` items, the paths and the standalone names of the file of module `file_scope`.
fn parse(text: &str, file_scope: &str) -> Parsed {
    let toks = tokens(text);
    let mut parsed = Parsed::default();
    // Inline modules open: their name and the brace depth their block closes at.
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let scope_of = |inline: &[(String, usize)]| {
        inline
            .iter()
            .fold(file_scope.to_owned(), |s, (name, _)| join(&s, name))
    };
    let mut i = 0;
    while i < toks.len() {
        match &toks[i] {
            Tok::Punct('{') => {
                depth += 1;
                i += 1;
            }
            Tok::Punct('}') => {
                depth = depth.saturating_sub(1);
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
                i += 1;
            }
            Tok::Ident(kw) if kw == "mod" => {
                let name = ident(toks.get(i + 1)).map(str::to_owned);
                match (name, toks.get(i + 2)) {
                    (Some(name), Some(Tok::Punct('{'))) => {
                        inline.push((name, depth));
                        depth += 1;
                        i += 3;
                    }
                    _ => i += 2,
                }
            }
            Tok::Ident(kw) if kw == "use" && !matches!(toks.get(i + 1), Some(Tok::Sep)) => {
                let public = is_public(&toks, i);
                let scope = scope_of(&inline);
                let mut j = i + 1;
                let mut leaves = Vec::new();
                use_tree(&toks, &mut j, Vec::new(), &mut leaves);
                for (path, alias, glob) in leaves {
                    parsed.uses.push(Use {
                        scope: scope.clone(),
                        path,
                        alias,
                        glob,
                        public,
                    });
                }
                // To the end of the item.
                while j < toks.len() && toks[j] != Tok::Punct(';') {
                    j += 1;
                }
                i = j + 1;
            }
            Tok::Ident(first) => {
                let after_sep = i > 0 && toks[i - 1] == Tok::Sep;
                let after_dot = i > 0 && toks[i - 1] == Tok::Punct('.');
                let after_dollar = i > 0 && toks[i - 1] == Tok::Punct('$');
                let mut path = vec![first.clone()];
                let mut j = i + 1;
                while toks.get(j) == Some(&Tok::Sep) {
                    match ident(toks.get(j + 1)) {
                        Some(seg) => {
                            path.push(seg.to_owned());
                            j += 2;
                        }
                        None => break,
                    }
                }
                if !after_sep && !after_dot {
                    parsed.words.insert(first.clone());
                    if path.len() > 1 && (!after_dollar || first == "crate") {
                        parsed.paths.push(CodePath {
                            scope: scope_of(&inline),
                            path,
                        });
                    }
                }
                i = j;
            }
            _ => i += 1,
        }
    }
    parsed
}

/// Whether the `use` at `at` is public in any way (`pub`, `pub(crate)`, `pub(super)`, …).
fn is_public(toks: &[Tok], at: usize) -> bool {
    match at.checked_sub(1).map(|p| &toks[p]) {
        Some(Tok::Ident(p)) => p == "pub",
        Some(Tok::Punct(')')) => {
            let mut p = at - 1;
            while p > 0 && toks[p] != Tok::Punct('(') {
                p -= 1;
            }
            p > 0 && ident(toks.get(p - 1)) == Some("pub")
        }
        _ => false,
    }
}

/// Reads a use tree at `*i` under `prefix`, pushing each leaf (path, `as` name, glob).
fn use_tree(
    toks: &[Tok],
    i: &mut usize,
    prefix: Vec<String>,
    out: &mut Vec<(Vec<String>, Option<String>, bool)>,
) {
    let mut path = prefix;
    if toks.get(*i) == Some(&Tok::Sep) {
        *i += 1;
    }
    loop {
        match toks.get(*i) {
            Some(Tok::Punct('{')) => {
                *i += 1;
                loop {
                    match toks.get(*i) {
                        Some(Tok::Punct('}')) => {
                            *i += 1;
                            return;
                        }
                        Some(Tok::Punct(',')) => *i += 1,
                        None => return,
                        _ => use_tree(toks, i, path.clone(), out),
                    }
                }
            }
            Some(Tok::Punct('*')) => {
                *i += 1;
                out.push((path, None, true));
                return;
            }
            Some(Tok::Ident(seg)) => {
                if seg == "self" && !path.is_empty() {
                    // `a::{self, …}`: the module `a` itself.
                } else {
                    path.push(seg.clone());
                }
                *i += 1;
                if toks.get(*i) == Some(&Tok::Sep) {
                    *i += 1;
                    continue;
                }
                let mut alias = None;
                if ident(toks.get(*i)) == Some("as") {
                    alias = ident(toks.get(*i + 1)).map(str::to_owned);
                    *i += 2;
                }
                out.push((path, alias, false));
                return;
            }
            _ => return,
        }
    }
}
