//! The lexers of markup and data: HTML/XML, CSS, JSON, YAML, TOML, Markdown and diffs.

use super::lexer::{find_close, is_word_start, number_end, push, resume, utf8_len, word_end};
use super::{Carry, Kind, State, Token};

/// HTML and XML: tags, attributes and their values, comments, character references. A tag
/// may go on over several lines.
pub(super) fn html(line: &str, state: &mut State, out: &mut Vec<Token>) {
    let bytes = line.as_bytes();
    let Some(mut at) = resume(line, state, out) else {
        return;
    };
    while at < bytes.len() {
        let c = bytes[at];
        if state.0 == Carry::Tag {
            match c {
                b' ' | b'\t' | b'=' => at += 1,
                b'>' => {
                    push(out, at..at + 1, Kind::Tag);
                    state.0 = Carry::Nothing;
                    at += 1;
                }
                b'/' if bytes.get(at + 1) == Some(&b'>') => {
                    push(out, at..at + 2, Kind::Tag);
                    state.0 = Carry::Nothing;
                    at += 2;
                }
                b'"' | b'\'' => {
                    let close = if c == b'"' { "\"" } else { "'" };
                    let end = find_close(line, at + 1, close, false).unwrap_or(line.len());
                    push(out, at..end, Kind::String);
                    at = end;
                }
                _ => {
                    let end = at
                        + line[at..]
                            .find([' ', '\t', '=', '>', '/', '"', '\''])
                            .unwrap_or(line.len() - at)
                            .max(utf8_len(c));
                    push(out, at..end, Kind::Attribute);
                    at = end;
                }
            }
            continue;
        }
        let rest = &line[at..];
        if rest.starts_with("<!--") {
            match rest.find("-->") {
                Some(i) => {
                    push(out, at..at + i + 3, Kind::Comment);
                    at += i + 3;
                }
                None => {
                    push(out, at..line.len(), Kind::Comment);
                    state.0 = Carry::Comment("-->");
                    return;
                }
            }
        } else if rest.starts_with("<!") || rest.starts_with("<?") {
            let end = rest.find('>').map_or(line.len(), |i| at + i + 1);
            push(out, at..end, Kind::Meta);
            at = end;
        } else if c == b'<'
            && bytes
                .get(at + 1)
                .is_some_and(|&n| is_word_start(n) || n == b'/')
        {
            let name = if bytes[at + 1] == b'/' {
                at + 2
            } else {
                at + 1
            };
            let mut end = name;
            while end < bytes.len()
                && (bytes[end].is_ascii_alphanumeric() || b"-_:.".contains(&bytes[end]))
            {
                end += 1;
            }
            push(out, at..end, Kind::Tag);
            state.0 = Carry::Tag;
            at = end;
        } else if c == b'&' {
            let end = rest.find(';').filter(|&i| {
                i > 1
                    && i < 32
                    && rest[1..i]
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b == b'#')
            });
            match end {
                Some(i) => {
                    push(out, at..at + i + 1, Kind::Literal);
                    at += i + 1;
                }
                None => at += 1,
            }
        } else {
            at += rest.find(['<', '&']).unwrap_or(rest.len()).max(1);
        }
    }
}

/// CSS (and SCSS/Less, roughly): selectors before a `{`, properties before a `:`, values.
pub(super) fn css(line: &str, state: &mut State, out: &mut Vec<Token>) {
    let bytes = line.as_bytes();
    let Some(mut at) = resume(line, state, out) else {
        return;
    };
    let brace = line.find('{');
    while at < bytes.len() {
        let c = bytes[at];
        let rest = &line[at..];
        if c == b' ' || c == b'\t' {
            at += 1;
        } else if let Some(comment) = rest.strip_prefix("/*") {
            match comment.find("*/") {
                Some(i) => {
                    push(out, at..at + i + 4, Kind::Comment);
                    at += i + 4;
                }
                None => {
                    push(out, at..line.len(), Kind::Comment);
                    state.0 = Carry::Comment("*/");
                    return;
                }
            }
        } else if rest.starts_with("//") {
            push(out, at..line.len(), Kind::Comment);
            return;
        } else if c == b'"' || c == b'\'' {
            let close = if c == b'"' { "\"" } else { "'" };
            let end = find_close(line, at + 1, close, true).unwrap_or(line.len());
            push(out, at..end, Kind::String);
            at = end;
        } else if c == b'@' {
            let end = css_word_end(bytes, at + 1);
            push(out, at..end, Kind::Keyword);
            at = end;
        } else if brace.is_some_and(|b| at < b) {
            // A selector: up to the brace or the next one in its list.
            let end = at + rest.find([',', '{', ' ']).unwrap_or(rest.len()).max(1);
            push(out, at..end, Kind::Tag);
            at = end;
        } else if c.is_ascii_digit()
            || (matches!(c, b'.' | b'-') && bytes.get(at + 1).is_some_and(u8::is_ascii_digit))
        {
            let mut end = number_end(bytes, at + 1);
            if bytes.get(end) == Some(&b'%') {
                end += 1;
            }
            push(out, at..end, Kind::Number);
            at = end;
        } else if c == b'#' {
            let end = css_word_end(bytes, at + 1);
            push(out, at..end, Kind::Number);
            at = end;
        } else if c == b'!' {
            let end = css_word_end(bytes, at + 1);
            push(out, at..end, Kind::Keyword);
            at = end;
        } else if is_word_start(c) || c == b'-' {
            let end = css_word_end(bytes, at);
            let after = line[end..].trim_start();
            let kind = if after.starts_with(':') {
                Some(Kind::Property)
            } else if after.starts_with('(') {
                Some(Kind::Function)
            } else {
                None
            };
            if let Some(kind) = kind {
                push(out, at..end, kind);
            }
            at = end.max(at + 1);
        } else {
            at += utf8_len(c);
        }
    }
}

fn css_word_end(bytes: &[u8], mut i: usize) -> usize {
    while i < bytes.len()
        && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'-' || bytes[i] == b'_')
    {
        i += 1;
    }
    i
}

/// JSON (with JSONC's comments): keys, strings, numbers, literals.
pub(super) fn json(line: &str, state: &mut State, out: &mut Vec<Token>) {
    let Some(at) = resume(line, state, out) else {
        return;
    };
    values(line, at, Some("//"), out);
}

/// The values of JSON, YAML and TOML from `at`: strings (a string before a `:` is a key),
/// numbers, literals, and a comment from `comment` on.
fn values(line: &str, mut at: usize, comment: Option<&str>, out: &mut Vec<Token>) {
    let bytes = line.as_bytes();
    while at < bytes.len() {
        let c = bytes[at];
        let rest = &line[at..];
        if comment.is_some_and(|p| rest.starts_with(p))
            && (at == 0 || matches!(bytes[at - 1], b' ' | b'\t' | b','))
        {
            push(out, at..line.len(), Kind::Comment);
            return;
        }
        if c == b'"' || c == b'\'' {
            let close = if c == b'"' { "\"" } else { "'" };
            let end = find_close(line, at + 1, close, c == b'"').unwrap_or(line.len());
            let kind = if line[end..].trim_start().starts_with(':') {
                Kind::Property
            } else {
                Kind::String
            };
            push(out, at..end, kind);
            at = end;
        } else if c.is_ascii_digit()
            || (c == b'-' && bytes.get(at + 1).is_some_and(u8::is_ascii_digit))
        {
            let end = number_end(bytes, at + 1);
            push(out, at..end, Kind::Number);
            at = end;
        } else if is_word_start(c) {
            let end = word_end(bytes, at, false);
            if matches!(&line[at..end], "true" | "false" | "null" | "inf" | "nan") {
                push(out, at..end, Kind::Literal);
            }
            at = end;
        } else {
            at += utf8_len(c);
        }
    }
}

/// YAML: keys, comments, anchors and tags, scalars.
pub(super) fn yaml(line: &str, out: &mut Vec<Token>) {
    let trimmed = line.trim_start();
    let mut at = line.len() - trimmed.len();
    if trimmed.starts_with('#') {
        push(out, at..line.len(), Kind::Comment);
        return;
    }
    if trimmed.starts_with("---") || trimmed.starts_with("...") {
        push(out, at..line.len(), Kind::Meta);
        return;
    }
    while line[at..].starts_with("- ") {
        at += 2;
    }
    // `key:` followed by a space or the line's end.
    let key_end = line[at..]
        .match_indices(':')
        .map(|(i, _)| at + i)
        .find(|&i| matches!(line.as_bytes().get(i + 1), None | Some(b' ')))
        .filter(|&i| {
            !line[at..i].contains(['"', '\'', '#', '{', '[']) || line[at..].starts_with(['"', '\''])
        });
    if let Some(end) = key_end {
        push(out, at..end, Kind::Property);
        at = end + 1;
    }
    let value = line[at..].trim_start();
    let start = line.len() - value.len();
    let bare = value.split(" #").next().unwrap_or(value).trim_end();
    match bare {
        "true" | "false" | "null" | "yes" | "no" | "on" | "off" | "~" => {
            push(out, start..start + bare.len(), Kind::Literal);
            at = start + bare.len();
        }
        _ if value.starts_with(['&', '*', '!']) => {
            let end = start + value.find(' ').unwrap_or(value.len());
            push(out, start..end, Kind::Meta);
            at = end;
        }
        _ if value.starts_with(['|', '>']) => {
            push(out, start..start + 1, Kind::Meta);
            at = start + 1;
        }
        _ => {}
    }
    values(line, at, Some("#"), out);
}

/// TOML: tables, keys, values; multi-line strings go on over lines.
pub(super) fn toml(line: &str, state: &mut State, out: &mut Vec<Token>) {
    let Some(at) = resume(line, state, out) else {
        return;
    };
    let bytes = line.as_bytes();
    let trimmed = line[at..].trim_start();
    let start = line.len() - trimmed.len();
    if trimmed.starts_with('#') {
        push(out, start..line.len(), Kind::Comment);
        return;
    }
    if at == 0 && trimmed.starts_with('[') {
        let end = trimmed.rfind(']').map_or(line.len(), |i| start + i + 1);
        push(out, start..end, Kind::Tag);
        values(line, end, Some("#"), out);
        return;
    }
    let mut at = at;
    if at == 0 {
        if let Some(eq) = line
            .find('=')
            .filter(|&i| !line[..i].contains(['"', '\'']) || trimmed.starts_with(['"', '\'']))
        {
            push(out, start..line[..eq].trim_end().len(), Kind::Property);
            at = eq + 1;
        }
    }
    // A multi-line string opened on this line.
    for (open, escapes) in [("\"\"\"", true), ("'''", false)] {
        if let Some(i) = line[at..].find(open) {
            let from = at + i;
            if !line[at..from].contains(['"', '\'', '#']) {
                values(line, at, Some("#"), out);
                out.retain(|t| t.range.start < from);
                match find_close(line, from + 3, open, escapes) {
                    Some(end) => {
                        push(out, from..end, Kind::String);
                        values(line, end, Some("#"), out);
                    }
                    None => {
                        push(out, from..bytes.len(), Kind::String);
                        state.0 = Carry::String {
                            close: if escapes { "\"\"\"" } else { "'''" },
                            escapes,
                        };
                    }
                }
                return;
            }
        }
    }
    values(line, at, Some("#"), out);
}

/// Markdown: headings, fences, quotes and list markers, code spans.
pub(super) fn markdown(line: &str, state: &mut State, out: &mut Vec<Token>) {
    let trimmed = line.trim_start();
    let start = line.len() - trimmed.len();
    let fence = trimmed.starts_with("```") || trimmed.starts_with("~~~");
    if state.0 == Carry::Fence {
        if fence {
            push(out, start..line.len(), Kind::Meta);
            state.0 = Carry::Nothing;
        } else {
            push(out, 0..line.len(), Kind::String);
        }
        return;
    }
    if fence {
        push(out, start..line.len(), Kind::Meta);
        state.0 = Carry::Fence;
        return;
    }
    if trimmed.starts_with('#') {
        push(out, start..line.len(), Kind::Heading);
        return;
    }
    let mut at = start;
    let marker = ["> ", "- ", "* ", "+ "]
        .iter()
        .find(|m| trimmed.starts_with(**m));
    if let Some(m) = marker {
        push(out, start..start + 1, Kind::Meta);
        at += m.len();
    }
    // Code spans.
    while let Some(i) = line[at..].find('`') {
        let open = at + i;
        match line[open + 1..].find('`') {
            Some(j) => {
                push(out, open..open + j + 2, Kind::String);
                at = open + j + 2;
            }
            None => break,
        }
    }
}

/// A line of a unified diff.
pub(super) fn diff(line: &str, out: &mut Vec<Token>) {
    let kind = if line.starts_with("+++")
        || line.starts_with("---")
        || line.starts_with("@@")
        || line.starts_with("diff ")
        || line.starts_with("index ")
    {
        Kind::Meta
    } else if line.starts_with('+') {
        Kind::Inserted
    } else if line.starts_with('-') {
        Kind::Deleted
    } else {
        return;
    };
    push(out, 0..line.len(), kind);
}
