//! Fuzzy matching of a typed query against workspace paths, for @-mentions: pure, no I/O.
//!
//! A path matches when the query's characters (whitespace dropped) appear in it in order,
//! case-insensitively. Of the ways they can appear, the best one is scored (a dynamic
//! programme over query × path, so `main` in `domain/main.rs` is taken in the file name):
//! each matched character scores, more at the start of a segment (after `/`) or of a word
//! (after `_`, `-`, `.`, a space, or a lower-case letter before an upper-case one), more
//! right after the previous match (runs), more inside the file name; every character skipped
//! between two matches costs a little. [`rank`] orders by score, then the shorter path,
//! then the path itself.

/// What a matched character is worth, before bonuses.
const MATCH: i32 = 16;
/// After `/` (or at the very start).
const SEGMENT_START: i32 = 24;
/// After `_`, `-`, `.`, a space, or a lower-to-upper case change.
const WORD_START: i32 = 16;
/// Right after the previous matched character.
const RUN: i32 = 16;
/// Inside the file name (after the last `/`).
const IN_NAME: i32 = 12;
/// Per character skipped between two matched ones.
const GAP: i32 = 1;
/// Paths longer than this (in characters) are matched only up to it: a bound on the work.
const MAX_PATH_CHARS: usize = 1024;

/// The query as it is matched: lower case, without whitespace.
pub fn needle(query: &str) -> Vec<char> {
    query
        .chars()
        .filter(|c| !c.is_whitespace())
        .map(lower)
        .collect()
}

fn lower(c: char) -> char {
    // One character for one: indexes stay aligned (a few letters lower to two).
    c.to_lowercase().next().unwrap_or(c)
}

/// How well `path` matches `needle` (from [`needle`]), higher is better; `None` when it
/// does not. An empty needle matches everything with 0.
pub fn score(needle: &[char], path: &str) -> Option<i32> {
    if needle.is_empty() {
        return Some(0);
    }
    let original: Vec<char> = path.chars().take(MAX_PATH_CHARS).collect();
    let hay: Vec<char> = original.iter().copied().map(lower).collect();
    // The cheap test first: most paths do not match at all.
    let mut rest = needle.iter().peekable();
    for c in &hay {
        if rest.peek() == Some(&c) {
            rest.next();
        }
    }
    if rest.peek().is_some() {
        return None;
    }
    let name_start = original
        .iter()
        .rposition(|&c| c == '/')
        .map_or(0, |i| i + 1);
    let bonus: Vec<i32> = (0..hay.len())
        .map(|j| {
            let start = match j.checked_sub(1).map(|k| original[k]) {
                None | Some('/') => SEGMENT_START,
                Some('_' | '-' | '.' | ' ') => WORD_START,
                Some(prev) if prev.is_lowercase() && original[j].is_uppercase() => WORD_START,
                Some(_) => 0,
            };
            MATCH + start + if j >= name_start { IN_NAME } else { 0 }
        })
        .collect();
    // best[j]: the best score of the needle so far with its last character at j.
    const NONE: i32 = i32::MIN / 2;
    let mut best: Vec<i32> = hay
        .iter()
        .zip(&bonus)
        .map(|(&c, &b)| if c == needle[0] { b } else { NONE })
        .collect();
    let mut next = vec![NONE; hay.len()];
    for &q in &needle[1..] {
        // carry: the best of the previous row before j, less the gap to j.
        let mut carry = NONE;
        for j in 0..hay.len() {
            let (before, run) = match j.checked_sub(1) {
                Some(k) => {
                    carry = carry.saturating_sub(GAP).max(best[k]);
                    (carry, best[k].saturating_add(RUN))
                }
                None => (NONE, NONE),
            };
            next[j] = if hay[j] == q && before > NONE {
                before.max(run) + bonus[j]
            } else {
                NONE
            };
        }
        std::mem::swap(&mut best, &mut next);
    }
    best.into_iter().max().filter(|&s| s > NONE)
}

/// The paths that match `query`, best first, at most `limit`: by score, then the shorter
/// path, then the path.
pub fn rank<'a>(
    query: &str,
    paths: impl IntoIterator<Item = &'a str>,
    limit: usize,
) -> Vec<&'a str> {
    let needle = needle(query);
    let mut found: Vec<(i32, &str)> = paths
        .into_iter()
        .filter_map(|p| score(&needle, p).map(|s| (s, p)))
        .collect();
    found.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then(a.1.chars().count().cmp(&b.1.chars().count()))
            .then(a.1.cmp(b.1))
    });
    found.truncate(limit);
    found.into_iter().map(|(_, p)| p).collect()
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
        let n = needle("main");
        assert!(score(&n, "domain/main.rs") > score(&n, "main/domain.rs"));
    }

    #[test]
    fn runs_and_word_starts_beat_scattered_letters() {
        let n = needle("view");
        assert!(score(&n, "src/view.rs") > score(&n, "src/vie_w.rs"));
        // A camelCase word start counts like one after `_`.
        let n = needle("mw");
        assert!(score(&n, "src/mainWindow.rs") > score(&n, "src/mainwindow.rs"));
        assert!(score(&n, "src/main_window.rs") > score(&n, "src/mainwindow.rs"));
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
        assert_eq!(score(&needle(""), "anything"), Some(0));
        assert_eq!(score(&needle("  "), "anything"), Some(0));
        assert_eq!(rank("", ["bb", "a", "ab"], 2), ["a", "ab"]);
    }

    #[test]
    fn what_is_not_a_subsequence_does_not_match() {
        assert_eq!(score(&needle("zz"), "src/main.rs"), None);
        assert!(score(&needle("sm"), "src/main.rs").is_some());
        assert_eq!(score(&needle("nm"), "main"), None, "order matters");
        assert_eq!(score(&needle("a"), ""), None);
        assert!(rank("qqq", PATHS.iter().copied(), 50).is_empty());
        assert_eq!(
            rank("", PATHS.iter().copied(), 4).len(),
            4,
            "the limit holds"
        );
    }

    #[test]
    fn long_paths_and_odd_letters_are_fine() {
        let long = format!("{}/end.rs", "a/".repeat(5000));
        assert!(score(&needle("aaa"), &long).is_some());
        // Matched only up to the bound: `end.rs` is past it.
        assert_eq!(score(&needle("end"), &long), None);
        assert!(score(&needle("İ"), "İstanbul.txt").is_some());
        assert!(score(&needle("ß"), "straße.md").is_some());
        assert!(score(&needle("日本"), "docs/日本語.md").is_some());
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
                'a', 'B', 'c', 'm', 'R', 's', '/', '.', '_', '-', ' ', 'é', 'İ', '日',
            ];
            (0..self.below(max + 1))
                .map(|_| ALPHABET[self.below(ALPHABET.len())])
                .collect()
        }
    }

    fn is_subsequence(needle: &[char], hay: &str) -> bool {
        let mut rest = needle.iter().peekable();
        for c in hay.chars().map(lower) {
            if rest.peek() == Some(&&c) {
                rest.next();
            }
        }
        rest.peek().is_none()
    }

    /// For random queries and paths (a fresh seed each run, printed on failure): a path
    /// matches exactly when the query is a subsequence of it, case does not matter, and
    /// `rank` keeps only matches, best first, within its limit.
    #[test]
    fn property_matches_are_exactly_the_subsequences() {
        let mut seed = [0u8; 8];
        getrandom::fill(&mut seed).unwrap();
        let seed = u64::from_le_bytes(seed) | 1;
        let mut rng = Rng(seed);
        for _ in 0..2000 {
            let query = rng.text(6);
            let paths: Vec<String> = (0..8).map(|_| rng.text(24)).collect();
            let n = needle(&query);
            for p in &paths {
                let s = score(&n, p);
                assert_eq!(
                    s.is_some(),
                    is_subsequence(&n, p),
                    "seed {seed}: {query:?} in {p:?}"
                );
                let upper = needle(&query.to_ascii_uppercase());
                assert_eq!(score(&upper, p), s, "seed {seed}: {query:?} in {p:?}");
            }
            let limit = rng.below(5);
            let ranked = rank(&query, paths.iter().map(String::as_str), limit);
            assert!(ranked.len() <= limit, "seed {seed}");
            let scores: Vec<i32> = ranked
                .iter()
                .map(|p| score(&n, p).expect("a match"))
                .collect();
            assert!(
                scores.windows(2).all(|w| w[0] >= w[1]),
                "seed {seed}: {scores:?}"
            );
        }
    }
}
