//! The one diff engine of the line and word diffs: Myers' shortest edit script over tokens
//! (lines with their line breaks, or words and the whitespace between them).
//!
//! Small on purpose: `similar` made up a large share of the element's wasm (its generic
//! layers instantiated per use) for two calls (docs/size-history.md). Common prefix and suffix are cut first; the
//! rest is the O((N+M)·D) greedy algorithm with its trace kept for the way back. A change
//! set whose edit distance passes [`MAX_EDITS`] is given as everything removed then
//! everything added (correct, only less precise), which bounds time and memory.

use super::rows::LineKind;

/// Most edits searched for (the trace holds about `MAX_EDITS²` entries).
const MAX_EDITS: usize = 2000;

/// The edit script from `a` to `b`, one entry per step: `Kept` takes a token from both,
/// `Removed` one from `a`, `Added` one from `b`. In each run of changes the removals come
/// before the additions.
pub(super) fn diff<T: PartialEq>(a: &[T], b: &[T]) -> Vec<LineKind> {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (a_rest, b_rest) = (&a[prefix..], &b[prefix..]);
    let suffix = a_rest
        .iter()
        .rev()
        .zip(b_rest.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (a_mid, b_mid) = (
        &a_rest[..a_rest.len() - suffix],
        &b_rest[..b_rest.len() - suffix],
    );
    let mut ops = vec![LineKind::Kept; prefix];
    ops.extend(grouped(middle(a_mid, b_mid)));
    ops.extend(std::iter::repeat_n(LineKind::Kept, suffix));
    ops
}

/// The edit script of two sequences that differ at both ends.
fn middle<T: PartialEq>(a: &[T], b: &[T]) -> Vec<LineKind> {
    let (n, m) = (a.len() as isize, b.len() as isize);
    let everything = || {
        let mut ops = vec![LineKind::Removed; a.len()];
        ops.extend(std::iter::repeat_n(LineKind::Added, b.len()));
        ops
    };
    if n == 0 || m == 0 {
        return everything();
    }
    let max = ((n + m) as usize).min(MAX_EDITS) as isize;
    // v[k + offset]: the furthest x on diagonal k; trace[d]: v for k in -d..=d before step d.
    let offset = max + 1;
    let mut v = vec![0isize; 2 * offset as usize + 1];
    let mut trace: Vec<Vec<isize>> = Vec::new();
    let at = |k: isize| (k + offset) as usize;
    let mut end = None;
    'search: for d in 0..=max {
        trace.push(v[at(-d)..=at(d)].to_vec());
        for k in (-d..=d).step_by(2) {
            let mut x = if k == -d || (k != d && v[at(k - 1)] < v[at(k + 1)]) {
                v[at(k + 1)]
            } else {
                v[at(k - 1)] + 1
            };
            let mut y = x - k;
            while x < n && y < m && a[x as usize] == b[y as usize] {
                x += 1;
                y += 1;
            }
            v[at(k)] = x;
            if x >= n && y >= m {
                end = Some(d);
                break 'search;
            }
        }
    }
    let Some(edits) = end else {
        return everything();
    };
    // Back from the end, one step of the trace at a time.
    let mut ops = Vec::with_capacity(a.len() + b.len());
    let (mut x, mut y) = (n, m);
    for d in (0..=edits).rev() {
        let row = &trace[d as usize];
        let get = |k: isize| row[(k + d) as usize];
        let k = x - y;
        let prev_k = if k == -d || (k != d && get(k - 1) < get(k + 1)) {
            k + 1
        } else {
            k - 1
        };
        let prev_x = if d == 0 { 0 } else { get(prev_k) };
        let prev_y = if d == 0 { 0 } else { prev_x - prev_k };
        while x > prev_x && y > prev_y {
            ops.push(LineKind::Kept);
            x -= 1;
            y -= 1;
        }
        if d > 0 {
            ops.push(if x == prev_x {
                LineKind::Added
            } else {
                LineKind::Removed
            });
        }
        (x, y) = (prev_x, prev_y);
    }
    ops.reverse();
    ops
}

/// The same script with each run of changes reordered: removals, then additions.
fn grouped(ops: Vec<LineKind>) -> Vec<LineKind> {
    let mut out = Vec::with_capacity(ops.len());
    let (mut removed, mut added) = (0, 0);
    let flush = |out: &mut Vec<LineKind>, removed: &mut usize, added: &mut usize| {
        out.extend(std::iter::repeat_n(LineKind::Removed, *removed));
        out.extend(std::iter::repeat_n(LineKind::Added, *added));
        (*removed, *added) = (0, 0);
    };
    for op in ops {
        match op {
            LineKind::Kept => {
                flush(&mut out, &mut removed, &mut added);
                out.push(op);
            }
            LineKind::Removed => removed += 1,
            LineKind::Added => added += 1,
        }
    }
    flush(&mut out, &mut removed, &mut added);
    out
}

/// Lines with their line breaks (`\n`, `\r\n` or `\r`), the last one without if the text
/// does not end with one.
pub(super) fn lines(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let (mut start, mut i) = (0, 0);
    while i < bytes.len() {
        match bytes[i] {
            b'\r' if bytes.get(i + 1) == Some(&b'\n') => {
                out.push(&text[start..i + 2]);
                i += 2;
                start = i;
            }
            b'\r' | b'\n' => {
                out.push(&text[start..=i]);
                i += 1;
                start = i;
            }
            _ => i += 1,
        }
    }
    if start < bytes.len() {
        out.push(&text[start..]);
    }
    out
}

/// The tokens a changed line is compared by: runs of letters, digits and `_` (a word or
/// a number), runs of whitespace, and each other character on its own, so a change to
/// `start - 1` marks ` - 1`, not the whole `).then_some((start,`.
pub(super) fn words(text: &str) -> Vec<&str> {
    #[derive(PartialEq, Clone, Copy)]
    enum Class {
        Word,
        Space,
        Other,
    }
    let class = |c: char| {
        if c.is_alphanumeric() || c == '_' {
            Class::Word
        } else if c.is_whitespace() {
            Class::Space
        } else {
            Class::Other
        }
    };
    let mut out = Vec::new();
    let mut start = 0;
    let mut last = None;
    for (i, c) in text.char_indices() {
        let now = class(c);
        if last.is_some_and(|l| l != now || now == Class::Other) {
            out.push(&text[start..i]);
            start = i;
        }
        last = Some(now);
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use LineKind::{Added as A, Kept as K, Removed as R};

    #[test]
    fn tokens_are_words_spaces_and_single_marks() {
        assert_eq!(
            words("  ).then_some((start - 1, é2)"),
            [
                "  ",
                ")",
                ".",
                "then_some",
                "(",
                "(",
                "start",
                " ",
                "-",
                " ",
                "1",
                ",",
                " ",
                "é2",
                ")"
            ]
        );
        assert_eq!(words(""), Vec::<&str>::new());
        // Every byte is in exactly one token, in order.
        let text = "fn a<'b>(x: &'b str) -> Option<&'b str> { x.get(1..) }";
        assert_eq!(words(text).concat(), text);
    }

    #[test]
    fn the_shortest_script() {
        assert_eq!(diff(&["a", "b", "c"], &["a", "c"]), [K, R, K]);
        assert_eq!(diff(&["a", "c"], &["a", "b", "c"]), [K, A, K]);
        assert_eq!(diff(&["a", "x", "c"], &["a", "y", "c"]), [K, R, A, K]);
        assert_eq!(diff::<&str>(&[], &[]), []);
        assert_eq!(diff(&["a"], &[]), [R]);
        assert_eq!(diff(&[], &["a"]), [A]);
        // The paper's example: D = 5, a longest common subsequence of 4.
        let ops = diff(
            &["a", "b", "c", "a", "b", "b", "a"],
            &["c", "b", "a", "b", "a", "c"],
        );
        assert_eq!(ops.len(), 9);
        assert_eq!(ops.iter().filter(|o| **o == K).count(), 4);
    }

    #[test]
    fn changes_are_grouped_removals_first() {
        let ops = diff(&["x", "y"], &["1", "2", "3"]);
        assert_eq!(ops, [R, R, A, A, A]);
    }

    #[test]
    fn too_many_edits_fall_back_to_replacing_everything() {
        let a: Vec<usize> = (0..MAX_EDITS + 10).collect();
        let b: Vec<usize> = (0..MAX_EDITS + 10).map(|i| i + 100_000).collect();
        let ops = diff(&a, &b);
        assert_eq!(ops.iter().filter(|o| **o == R).count(), a.len());
        assert_eq!(ops.iter().filter(|o| **o == A).count(), b.len());
    }

    #[test]
    fn tokens() {
        assert_eq!(lines("a\nb\r\nc\rd"), ["a\n", "b\r\n", "c\r", "d"]);
        assert_eq!(lines("a\n"), ["a\n"]);
        assert_eq!(
            words("let x =  1;"),
            ["let", " ", "x", " ", "=", "  ", "1", ";"]
        );
        assert_eq!(words(""), Vec::<&str>::new());
    }
}
