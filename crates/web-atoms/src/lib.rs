//! html5ever's atoms and named character references, standing in for crates.io's
//! `web_atoms` 0.3 (the workspace patches it in; see README.md). The API is the same:
//! `LocalName`, `Namespace`, `Prefix` and their macros, `ns!`, `C1_REPLACEMENTS`, and
//! `NAMED_ENTITIES.get`, which html5ever's tokenizer calls once per character of a
//! character reference. What differs is the table behind `get`: the 2,231 names sorted in
//! one string and searched by halving, where upstream stores a hash map of all 9,854
//! prefixes (what that saves: docs/packaging.md).

// string_cache_codegen's output: `LocalName`, `Prefix`, `Namespace`, their static sets
// and `local_name!`, `namespace_prefix!`, `namespace_url!`; and `ns!` (build.rs).
include!(concat!(env!("OUT_DIR"), "/atoms.rs"));
// NAMES, SPANS, CODES: data/entities.txt (build.rs).
include!(concat!(env!("OUT_DIR"), "/entities.rs"));

/// What a numeric character reference to U+0080..=U+009F means instead (the HTML
/// standard's table, windows-1252's characters); `None` keeps the code point.
pub static C1_REPLACEMENTS: [Option<char>; 32] = [
    Some('\u{20ac}'), // 80
    None,
    Some('\u{201a}'),
    Some('\u{0192}'),
    Some('\u{201e}'),
    Some('\u{2026}'),
    Some('\u{2020}'),
    Some('\u{2021}'),
    Some('\u{02c6}'), // 88
    Some('\u{2030}'),
    Some('\u{0160}'),
    Some('\u{2039}'),
    Some('\u{0152}'),
    None,
    Some('\u{017d}'),
    None,
    None, // 90
    Some('\u{2018}'),
    Some('\u{2019}'),
    Some('\u{201c}'),
    Some('\u{201d}'),
    Some('\u{2022}'),
    Some('\u{2013}'),
    Some('\u{2014}'),
    Some('\u{02dc}'), // 98
    Some('\u{2122}'),
    Some('\u{0161}'),
    Some('\u{203a}'),
    Some('\u{0153}'),
    None,
    Some('\u{017e}'),
    Some('\u{0178}'),
];

/// The named character references without their `&`: `NAMED_ENTITIES.get("amp;")`.
pub static NAMED_ENTITIES: NamedEntities = NamedEntities(());

/// See [`NAMED_ENTITIES`].
pub struct NamedEntities(());

/// What `get` answers for a prefix of a name that is not a name itself.
static PREFIX: (u32, u32) = (0, 0);

impl NamedEntities {
    /// A name's code points (the second 0 when it has one), `(0, 0)` when `key` only
    /// begins one or more names (the tokenizer then reads on), `None` when no name begins
    /// with it. Upstream's map answers the same for every key.
    pub fn get(&self, key: &str) -> Option<&'static (u32, u32)> {
        // The first name not below `key`: `key` itself, or, if any name begins with
        // `key`, one of those (every name between `key` and it would begin with `key`).
        let index = SPANS.partition_point(|&span| name(span) < key);
        let found = name(*SPANS.get(index)?);
        if found == key {
            Some(&CODES[index])
        } else if found.starts_with(key) {
            Some(&PREFIX)
        } else {
            None
        }
    }

    /// How many names there are.
    pub fn len(&self) -> usize {
        SPANS.len()
    }

    /// Never: there are names.
    pub fn is_empty(&self) -> bool {
        SPANS.is_empty()
    }
}

fn name((start, end): (u16, u16)) -> &'static str {
    &NAMES[usize::from(start)..usize::from(end)]
}

#[cfg(test)]
mod tests;
