//! Generates the atoms (string_cache's static sets for the names in data/local_names.txt and
//! the namespaces, and `ns!` from the same list of namespaces) and the named character
//! reference table (data/entities.txt) the crate includes.

use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::Path;

/// Prefix and URL of every namespace html5ever names with `ns!`.
const NAMESPACES: &[(&str, &str)] = &[
    ("", ""),
    ("*", "*"),
    ("html", "http://www.w3.org/1999/xhtml"),
    ("xml", "http://www.w3.org/XML/1998/namespace"),
    ("xmlns", "http://www.w3.org/2000/xmlns/"),
    ("xlink", "http://www.w3.org/1999/xlink"),
    ("svg", "http://www.w3.org/2000/svg"),
    ("mathml", "http://www.w3.org/1998/Math/MathML"),
];

fn main() {
    let out = env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let data = Path::new(&env::var("CARGO_MANIFEST_DIR").expect("cargo sets it")).join("data");
    println!("cargo:rerun-if-changed=data/local_names.txt");
    println!("cargo:rerun-if-changed=data/entities.txt");

    let names = fs::read_to_string(data.join("local_names.txt")).expect("data/local_names.txt");
    let mut atoms = Vec::new();
    string_cache_codegen::AtomType::new("LocalName", "local_name!")
        .atoms(names.lines().filter(|line| !line.is_empty()))
        .write_to(&mut atoms)
        .expect("local names");
    string_cache_codegen::AtomType::new("Prefix", "namespace_prefix!")
        .atoms(NAMESPACES.iter().map(|&(prefix, _)| prefix))
        .write_to(&mut atoms)
        .expect("prefixes");
    string_cache_codegen::AtomType::new("Namespace", "namespace_url!")
        .atoms(NAMESPACES.iter().map(|&(_, url)| url))
        .write_to(&mut atoms)
        .expect("namespaces");
    atoms.extend_from_slice(ns_macro().as_bytes());
    fs::write(Path::new(&out).join("atoms.rs"), atoms).expect("write atoms.rs");

    let entities = fs::read_to_string(data.join("entities.txt")).expect("data/entities.txt");
    fs::write(Path::new(&out).join("entities.rs"), entity_table(&entities)).expect("write");
}

/// `ns!`: a namespace's URL atom from its prefix (`ns!()`, `ns!(*)`, `ns!(html)`, …), one
/// arm per entry of `NAMESPACES`.
fn ns_macro() -> String {
    let mut arms = String::new();
    for &(prefix, url) in NAMESPACES {
        writeln!(
            arms,
            "    ({prefix}) => {{ $crate::namespace_url!({url:?}) }};"
        )
        .unwrap();
    }
    format!(
        "/// A namespace's URL atom from its prefix: `ns!()`, `ns!(*)`, `ns!(html)`, `ns!(svg)`…\n\
         #[macro_export]\nmacro_rules! ns {{\n{arms}}}\n"
    )
}

/// `NAMES` (every name, concatenated in byte order), `SPANS` (where each starts and ends
/// in it) and `CODES` (its one or two code points, the second 0 when there is one).
fn entity_table(lines: &str) -> String {
    let (mut names, mut spans, mut codes) = (String::new(), String::new(), String::new());
    let mut previous = "";
    let mut count = 0;
    for line in lines.lines().filter(|line| !line.is_empty()) {
        let (name, points) = line.split_once('\t').expect("name<TAB>code points");
        assert!(
            previous < name,
            "entities.txt must be sorted and unique: {name}"
        );
        previous = name;
        let mut points = points
            .split(' ')
            .map(|hex| u32::from_str_radix(hex, 16).expect("hex"));
        let first = points.next().expect("a code point");
        let second = points.next().unwrap_or(0);
        assert!(
            first != 0 && points.next().is_none(),
            "one or two code points: {name}"
        );
        let start = names.len();
        names.push_str(name);
        write!(spans, "({start},{}),", names.len()).unwrap();
        write!(codes, "({first},{second}),").unwrap();
        count += 1;
    }
    assert!(names.len() <= usize::from(u16::MAX), "SPANS are u16");
    format!(
        "static NAMES: &str = {names:?};\n\
         static SPANS: [(u16, u16); {count}] = [{spans}];\n\
         static CODES: [(u32, u32); {count}] = [{codes}];\n"
    )
}
