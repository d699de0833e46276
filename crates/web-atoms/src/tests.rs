// The lookup against the data file read independently, and against a brute-force search.

use super::*;
use proptest::prelude::*;
use std::collections::HashMap;

fn table() -> HashMap<&'static str, (u32, u32)> {
    include_str!("../data/entities.txt")
        .lines()
        .map(|line| {
            let (name, points) = line.split_once('\t').unwrap();
            let points: Vec<u32> = points
                .split(' ')
                .map(|hex| u32::from_str_radix(hex, 16).unwrap())
                .collect();
            (name, (points[0], points.get(1).copied().unwrap_or(0)))
        })
        .collect()
}

/// What `get` must answer: the code points of a name, (0, 0) for a prefix of one, None.
fn brute_force(table: &HashMap<&str, (u32, u32)>, key: &str) -> Option<(u32, u32)> {
    table.get(key).copied().or_else(|| {
        table
            .keys()
            .any(|name| name.starts_with(key))
            .then_some((0, 0))
    })
}

#[test]
fn every_name_and_every_prefix_is_found() {
    let table = table();
    assert_eq!(
        table.len(),
        2231,
        "the standard's named character references"
    );
    assert_eq!(NAMED_ENTITIES.len(), table.len());
    for (name, points) in &table {
        assert_eq!(NAMED_ENTITIES.get(name), Some(points), "{name}");
        for end in 0..name.len() {
            let prefix = &name[..end];
            let expected = table.get(prefix).unwrap_or(&(0, 0));
            assert_eq!(
                NAMED_ENTITIES.get(prefix),
                Some(expected),
                "prefix {prefix:?} of {name}"
            );
        }
    }
}

#[test]
fn known_references() {
    assert_eq!(NAMED_ENTITIES.get("amp;"), Some(&(0x26, 0)));
    assert_eq!(
        NAMED_ENTITIES.get("amp"),
        Some(&(0x26, 0)),
        "legacy, no semicolon"
    );
    assert_eq!(NAMED_ENTITIES.get("not"), Some(&(0xac, 0)));
    assert_eq!(
        NAMED_ENTITIES.get("noti"),
        Some(&(0, 0)),
        "only a prefix of notin;"
    );
    assert_eq!(NAMED_ENTITIES.get("notin;"), Some(&(0x2209, 0)));
    assert_eq!(
        NAMED_ENTITIES.get("NotSquareSubset;"),
        Some(&(0x228f, 0x338))
    );
    assert_eq!(
        NAMED_ENTITIES.get("zwnj;"),
        Some(&(0x200c, 0)),
        "the last name"
    );
    assert_eq!(
        NAMED_ENTITIES.get("AElig"),
        Some(&(0xc6, 0)),
        "the first name"
    );
    assert_eq!(NAMED_ENTITIES.get(""), Some(&(0, 0)), "begins every name");
    for absent in ["notit", "amp;;", "zz", "~", "AEligx", "zwnj;x", "\u{e9}"] {
        assert_eq!(NAMED_ENTITIES.get(absent), None, "{absent}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4_000))]

    /// Keys made from the start of a real name (or from nothing) and a few random
    /// characters answer as a search of every name does.
    #[test]
    fn random_keys_answer_as_a_brute_force_search(
        name in any::<prop::sample::Index>(),
        cut in any::<prop::sample::Index>(),
        from_name in any::<bool>(),
        tail in "[aAbeEgilmnNopqrstuxz;0\u{e9}]{0,3}",
    ) {
        let table = table();
        let mut names: Vec<&str> = table.keys().copied().collect();
        names.sort_unstable();
        let name = name.get(&names);
        let mut key = if from_name { name[..cut.index(name.len() + 1)].to_owned() } else { String::new() };
        key.push_str(&tail);
        prop_assert_eq!(NAMED_ENTITIES.get(&key).copied(), brute_force(&table, &key), "key {:?}", key);
    }
}

#[test]
fn c1_replacements_are_windows_1252() {
    // The five code points windows-1252 leaves undefined keep their own meaning.
    let undefined = [0x81, 0x8d, 0x8f, 0x90, 0x9d];
    for (offset, replacement) in C1_REPLACEMENTS.iter().enumerate() {
        let byte = 0x80 + offset;
        assert_eq!(
            replacement.is_none(),
            undefined.contains(&byte),
            "{byte:#x}"
        );
    }
    assert_eq!(C1_REPLACEMENTS[0], Some('€'));
    assert_eq!(C1_REPLACEMENTS[0x99 - 0x80], Some('™'));
    assert_eq!(C1_REPLACEMENTS[0x9f - 0x80], Some('Ÿ'));
}
