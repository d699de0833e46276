//! The ranking of workspace paths for @-mentions: which match a typed query, best first.
//! Pure, no I/O; the scores come from `nucleo-matcher` (fzf's algorithm, path bonuses).
//!
//! A path matches when the query's characters (whitespace dropped) appear in it in order,
//! case-insensitively. The matches rank in tiers: the file name (or the whole path) equal
//! to the query, or the file name without its extension; then the file name (or the path)
//! starting with it; then the query found within the file name; then only across folders.
//! Within a tier, by nucleo's score (of the file name when the query is in it, otherwise
//! of the path: runs, and the starts of segments and words, `_ - .` and camelCase, score
//! most), then the shorter path, then the path itself.

use nucleo_matcher::pattern::{Atom, AtomKind, CaseMatching, Normalization};
use nucleo_matcher::{Config, Matcher, Utf32Str};
use std::cmp::Reverse;

/// The query as it is matched: without whitespace (nucleo folds its case).
pub fn needle(query: &str) -> String {
    query.chars().filter(|c| !c.is_whitespace()).collect()
}

/// How a path matches the needle, the best first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Tier {
    /// The file name, its stem or the path is the needle.
    Exact,
    /// The file name or the path starts with it.
    Prefix,
    /// The needle is within the file name.
    Name,
    /// Only across folders.
    Path,
}

/// What a match ranks by, the least first: its tier, its score (the highest first), its
/// length in characters (then the path itself breaks ties).
type Rank = (Tier, Reverse<u16>, usize);

/// The paths that match `query`, best first, at most `limit` (see the module's text). An
/// empty query matches every path: the shorter first, then by path.
pub fn rank<'a>(
    query: &str,
    paths: impl IntoIterator<Item = &'a str>,
    limit: usize,
) -> Vec<&'a str> {
    let needle = needle(query);
    let atom = Atom::new(
        &needle,
        CaseMatching::Ignore,
        Normalization::Never,
        AtomKind::Fuzzy,
        false,
    );
    let mut matcher = Matcher::new(Config::DEFAULT.match_paths());
    let mut buf = Vec::new();
    let mut score = |text: &str| atom.score(Utf32Str::new(text, &mut buf), &mut matcher);
    let lower = needle.to_lowercase();
    let mut found: Vec<(Rank, &str)> = paths
        .into_iter()
        .filter_map(|path| {
            if needle.is_empty() {
                return Some(((Tier::Path, Reverse(0), path.chars().count()), path));
            }
            let in_path = score(path)?;
            let name = path.rsplit('/').next().unwrap_or(path);
            let in_name = score(name);
            let tier = tier(&lower, path, name, in_name.is_some());
            let points = in_name.unwrap_or(in_path);
            Some(((tier, Reverse(points), path.chars().count()), path))
        })
        .collect();
    found.sort_unstable();
    found.truncate(limit);
    found.into_iter().map(|(_, path)| path).collect()
}

/// The tier of a path that matches, its file name `name` holding the needle or not
/// (compared in lower case: `needle` is).
fn tier(needle: &str, path: &str, name: &str, in_name: bool) -> Tier {
    let (path, name) = (path.to_lowercase(), name.to_lowercase());
    let stem = name
        .rsplit_once('.')
        .map_or(name.as_str(), |(stem, _)| stem);
    if name == needle || stem == needle || path == needle {
        Tier::Exact
    } else if name.starts_with(needle) || path.starts_with(needle) {
        Tier::Prefix
    } else if in_name {
        Tier::Name
    } else {
        Tier::Path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PATHS: &[&str] = &[
        "Cargo.toml",
        "README.md",
        "docs/mrs-notes/x.txt",
        "domain/main.rs",
        "src/main.rs",
        "src/lib.rs",
        "src/mirrors.rs",
        "src/main_window/view.rs",
        "tests/main.rs",
    ];

    fn top(query: &str) -> Vec<&'static str> {
        rank(query, PATHS.iter().copied(), 3)
    }

    fn first<'a>(query: &str, paths: &[&'a str]) -> &'a str {
        rank(query, paths.iter().copied(), 1)[0]
    }

    #[test]
    fn the_file_name_s_initials_come_first() {
        assert_eq!(top("mrs")[0], "src/main.rs");
        assert_eq!(top("MRS")[0], "src/main.rs", "case does not matter");
        assert_eq!(top("m rs")[0], "src/main.rs", "whitespace is dropped");
    }

    #[test]
    fn a_match_in_the_file_name_beats_one_in_a_folder() {
        // `main` is in both `domain` and `main.rs`: the file name's is taken.
        let ranked = rank("main", ["domain/main.rs", "src/main_window/view.rs"], 5);
        assert_eq!(ranked, ["domain/main.rs", "src/main_window/view.rs"]);
        let ranked = rank("main", ["main/domain.rs", "domain/main.rs"], 5);
        assert_eq!(ranked, ["domain/main.rs", "main/domain.rs"]);
    }

    #[test]
    fn exact_names_then_prefixes_come_first() {
        let paths = [
            "src/lib/parser.rs",
            "a/b/lib_tools.rs",
            "z/lib.rs",
            "l_i_b.rs",
        ];
        assert_eq!(
            rank("lib", paths, 4),
            [
                "z/lib.rs",
                "a/b/lib_tools.rs",
                "l_i_b.rs",
                "src/lib/parser.rs"
            ]
        );
        assert_eq!(
            first("readme", &["docs/reader_me.md", "README.md"]),
            "README.md"
        );
        // A path typed from its start.
        assert_eq!(
            first("src/ma", &["src/lib/ma.rs", "src/main.rs"]),
            "src/main.rs"
        );
        assert_eq!(
            first("src/lib/ma.rs", &["src/lib/ma.rs.bak", "src/lib/ma.rs"]),
            "src/lib/ma.rs"
        );
    }

    #[test]
    fn runs_and_word_starts_beat_scattered_letters() {
        assert_eq!(
            first("view", &["src/vie_w.rs", "src/view.rs"]),
            "src/view.rs"
        );
        assert_eq!(first("vw", &["src/vxxxw.rs", "src/vw.rs"]), "src/vw.rs");
        // A camelCase word start counts like one after `_`.
        assert_eq!(
            first("mw", &["src/mainwindow.rs", "src/mainWindow.rs"]),
            "src/mainWindow.rs"
        );
        assert_eq!(
            first("mw", &["src/mainwindow.rs", "src/main_window.rs"]),
            "src/main_window.rs"
        );
    }

    #[test]
    fn shorter_paths_win_ties_then_the_path_decides() {
        assert_eq!(
            top("main.rs"),
            ["src/main.rs", "tests/main.rs", "domain/main.rs"]
        );
        assert_eq!(rank("x", ["b/x", "a/x"], 5), ["a/x", "b/x"]);
        // docs/runtime.md's example.
        assert_eq!(
            rank("ma", ["src/main.rs", "Makefile"], 2),
            ["Makefile", "src/main.rs"]
        );
    }

    #[test]
    fn an_empty_query_matches_everything_in_the_order_given_by_length_and_name() {
        assert_eq!(rank("", ["bb", "a", "ab"], 2), ["a", "ab"]);
        assert_eq!(rank("  ", ["bb", "a", "ab"], 5), ["a", "ab", "bb"]);
        assert!(needle(" \t").is_empty());
    }

    #[test]
    fn what_is_not_a_subsequence_does_not_match() {
        assert!(rank("zz", ["src/main.rs"], 5).is_empty());
        assert_eq!(rank("sm", ["src/main.rs"], 5), ["src/main.rs"]);
        assert!(rank("nm", ["main"], 5).is_empty(), "order matters");
        assert!(rank("a", [""], 5).is_empty());
        assert!(rank("qqq", PATHS.iter().copied(), 50).is_empty());
        assert_eq!(
            rank("", PATHS.iter().copied(), 4).len(),
            4,
            "the limit holds"
        );
        assert_eq!(rank("s", PATHS.iter().copied(), 2).len(), 2);
        assert!(rank("s", PATHS.iter().copied(), 0).is_empty());
    }

    #[test]
    fn long_paths_and_odd_letters_are_fine() {
        let long = format!("{}/end.rs", "a/".repeat(5000));
        assert_eq!(rank("aaa", [long.as_str()], 1).len(), 1);
        assert_eq!(rank("end", [long.as_str()], 1).len(), 1);
        assert_eq!(rank("İ", ["İstanbul.txt"], 1).len(), 1);
        assert_eq!(rank("ß", ["straße.md"], 1).len(), 1);
        assert_eq!(rank("日本", ["docs/日本語.md"], 1).len(), 1);
    }

    /// xorshift64*: a reproducible stream of numbers from a seed.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
        fn text(&mut self, max: usize) -> String {
            const ALPHABET: &[char] = &[
                'a', 'B', 'c', 'm', 'R', 's', '/', '.', '_', '-', ' ', 'é', 'É', '日',
            ];
            (0..self.below(max + 1))
                .map(|_| ALPHABET[self.below(ALPHABET.len())])
                .collect()
        }
    }

    fn is_subsequence(needle: &str, hay: &str) -> bool {
        let mut rest = needle.chars().peekable();
        for c in hay.to_lowercase().chars() {
            if rest.peek() == Some(&c) {
                rest.next();
            }
        }
        rest.peek().is_none()
    }

    /// For random queries and paths (a fresh seed each run, printed on failure): a path
    /// matches exactly when the query is a subsequence of it, case does not matter, and
    /// `rank` keeps only matches, within its limit, the same whatever order it is given.
    #[test]
    fn property_matches_are_exactly_the_subsequences() {
        let mut seed = [0u8; 8];
        getrandom::fill(&mut seed).unwrap();
        let seed = u64::from_le_bytes(seed) | 1;
        let mut rng = Rng(seed);
        for _ in 0..2000 {
            let query = rng.text(6);
            let paths: Vec<String> = (0..8).map(|_| rng.text(24)).collect();
            let n = needle(&query).to_lowercase();
            let all = rank(&query, paths.iter().map(String::as_str), paths.len());
            for p in &paths {
                assert_eq!(
                    all.contains(&p.as_str()),
                    is_subsequence(&n, p),
                    "seed {seed}: {query:?} in {p:?}"
                );
            }
            let upper = rank(
                &query.to_uppercase(),
                paths.iter().map(String::as_str),
                paths.len(),
            );
            assert_eq!(upper, all, "seed {seed}: {query:?}");
            let reversed = rank(&query, paths.iter().rev().map(String::as_str), paths.len());
            assert_eq!(reversed, all, "seed {seed}: {query:?}");
            let limit = rng.below(5);
            let ranked = rank(&query, paths.iter().map(String::as_str), limit);
            assert_eq!(ranked, all[..limit.min(all.len())], "seed {seed}");
        }
    }
}
