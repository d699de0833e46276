//! Patches as agents write them. Their `@@` counts are often off by a line or two, and a
//! strict reader (diffy, like `git apply`) then drops the whole file, or ends the hunk
//! early and loses the rest of it. So before the patch is read, each hunk's counts are
//! taken from its lines, as `git apply --recount` does, and what cannot be a hunk is
//! skipped, so that one unreadable hunk never hides the rest of its file or the other
//! files.

use std::borrow::Cow;

/// What [`recount`] changed, for a quiet note under the diff.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Repairs {
    /// Hunks whose `@@` counts were replaced by the counts of their lines.
    pub recounted: usize,
    /// Hunks skipped whole (a header that cannot be read, or no lines at all), and lines
    /// inside a hunk that are none of ` `, `+`, `-` or `\`.
    pub skipped: usize,
}

/// A hunk header: `@@ -a[,b] +c[,d] @@[ context]`. The counts are `None` when omitted
/// (one line).
struct Header<'a> {
    old_start: &'a str,
    old_count: usize,
    new_start: &'a str,
    new_count: usize,
    rest: &'a str,
}

/// `a[,b]`: the start as written, and the count (1 when omitted).
fn range(r: &str) -> Option<(&str, usize)> {
    let (start, count) = match r.split_once(',') {
        Some((s, c)) => (s, c.parse().ok()?),
        None => (r, 1),
    };
    start.parse::<usize>().ok()?;
    Some((start, count))
}

fn header(line: &str) -> Option<Header<'_>> {
    let inner = line.strip_prefix("@@ -")?;
    let (ranges, rest) = inner.split_once(" @@")?;
    let (old, new) = ranges.split_once(" +")?;
    let ((old_start, old_count), (new_start, new_count)) = (range(old)?, range(new)?);
    Some(Header {
        old_start,
        old_count,
        new_start,
        new_count,
        rest,
    })
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Body {
    /// ` ` or an empty line: both sides.
    Kept,
    Removed,
    Added,
    /// `\ No newline at end of file`: counts on neither side.
    Marker,
}

/// What a line inside a hunk is; `None` ends the hunk (the next hunk, the next file, or
/// text that is not part of a patch).
fn body(line: &str, next: Option<&str>) -> Option<Body> {
    match line.as_bytes().first()? {
        b' ' | b'\n' => Some(Body::Kept),
        b'+' => Some(Body::Added),
        b'\\' => Some(Body::Marker),
        b'-' if line.starts_with("--- ") && next.is_some_and(|n| n.starts_with("+++ ")) => None,
        b'-' => Some(Body::Removed),
        _ => None,
    }
}

/// `text` with every hunk's counts taken from its lines and unreadable hunks and lines
/// left out; borrowed when nothing had to change.
pub fn recount(text: &str) -> (Cow<'_, str>, Repairs) {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let ends_hunk = |l: &str| l.starts_with("@@") || l.starts_with("diff ");
    let mut repairs = Repairs::default();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    while at < lines.len() {
        if !lines[at].starts_with("@@") {
            out.push_str(lines[at]);
            at += 1;
            continue;
        }
        let parsed = header(lines[at]);
        let mut end = at + 1;
        let mut kept: Vec<&str> = Vec::new();
        let (mut old, mut new) = (0, 0);
        // Empty lines count as kept lines only when more of the hunk follows them: the
        // blank lines that end a message are not part of its last hunk.
        let mut blanks = 0;
        while end < lines.len() && !ends_hunk(lines[end]) {
            let l = lines[end];
            // `-- ` after the declared lines is the signature `git format-patch` ends with.
            let declared_done = parsed
                .as_ref()
                .is_some_and(|h| old >= h.old_count && new >= h.new_count);
            if declared_done && (l == "-- \n" || l == "--\n") {
                break;
            }
            let kind = match body(l, lines.get(end + 1).copied()) {
                Some(Body::Kept) if l == "\n" => {
                    blanks += 1;
                    end += 1;
                    continue;
                }
                Some(kind) => kind,
                None if l.starts_with("--- ") || l.starts_with("+++ ") => break,
                None => {
                    // Text that is no hunk line: skipped when more of the hunk follows it,
                    // else it ends the hunk (the words after a patch).
                    let resume = (end + 1..lines.len())
                        .take_while(|&i| !ends_hunk(lines[i]))
                        .find(|&i| {
                            lines[i] != "\n" && body(lines[i], lines.get(i + 1).copied()).is_some()
                        });
                    let Some(i) = resume else { break };
                    repairs.skipped += i - end;
                    end = i;
                    continue;
                }
            };
            kept.extend(std::iter::repeat_n("\n", blanks));
            (old, new) = (old + blanks, new + blanks);
            blanks = 0;
            match kind {
                Body::Kept => (old, new) = (old + 1, new + 1),
                Body::Removed => old += 1,
                Body::Added => new += 1,
                Body::Marker => {}
            }
            kept.push(l);
            end += 1;
        }
        // Trailing blank lines belong to what follows: copied as they are.
        end -= blanks;
        match parsed {
            Some(h) if kept.iter().any(|l| !l.starts_with('\\')) => {
                if (old, new) == (h.old_count, h.new_count) {
                    out.push_str(lines[at]);
                } else {
                    repairs.recounted += 1;
                    out.push_str(&format!(
                        "@@ -{},{old} +{},{new} @@{}",
                        h.old_start, h.new_start, h.rest
                    ));
                    if !h.rest.ends_with('\n') {
                        out.push('\n');
                    }
                }
                kept.iter().for_each(|l| out.push_str(l));
            }
            // A header that cannot be read, or a hunk with no lines: left out whole.
            _ => repairs.skipped += 1,
        }
        at = end;
    }
    if out == text {
        (Cow::Borrowed(text), repairs)
    } else {
        (Cow::Owned(out), repairs)
    }
}
