//! The lexer of programming languages: comments, strings, numbers, and words sorted by
//! each language's tables ([`Syntax`], `langs.rs`).

use super::{Carry, Kind, State, Token};

/// A language as the lexer sees it.
pub(super) struct Syntax {
    pub line_comments: &'static [&'static str],
    pub block_comment: Option<(&'static str, &'static str)>,
    /// Longest opening first (`"""` before `"`).
    pub strings: &'static [Quote],
    pub keywords: &'static [&'static str],
    pub types: &'static [&'static str],
    pub literals: &'static [&'static str],
    pub flags: u16,
}

/// A kind of string literal.
pub(super) struct Quote {
    pub open: &'static str,
    pub close: &'static str,
    /// `\` escapes the next character.
    pub escapes: bool,
    /// The string may go on over the next lines.
    pub multiline: bool,
}

impl Quote {
    pub const fn new(open: &'static str, close: &'static str) -> Self {
        Quote {
            open,
            close,
            escapes: true,
            multiline: false,
        }
    }

    pub const fn raw(mut self) -> Self {
        self.escapes = false;
        self
    }

    pub const fn multiline(mut self) -> Self {
        self.multiline = true;
        self
    }
}

/// Capitalized words are types (`Vec`, `String`).
pub(super) const CAPS_TYPES: u16 = 1;
/// Keywords are matched whatever their case (SQL); the tables are lower case.
pub(super) const ANY_CASE: u16 = 1 << 1;
/// `$name` and `${…}` are variables (shell, PHP).
pub(super) const DOLLAR_VARS: u16 = 1 << 2;
/// `@name` is an annotation or a decorator.
pub(super) const AT_META: u16 = 1 << 3;
/// `@name` is a variable (Ruby's instance variables).
pub(super) const AT_VARS: u16 = 1 << 4;
/// A line starting with `#` is a directive (the C preprocessor, C#'s regions, Swift's `#if`).
pub(super) const HASH_DIRECTIVES: u16 = 1 << 5;
/// `#[…]` and `#![…]` are attributes, `name!` a macro, `'a` a lifetime (Rust).
pub(super) const RUST: u16 = 1 << 6;
/// `$` may be part of a word (JavaScript).
pub(super) const DOLLAR_IN_WORDS: u16 = 1 << 7;
/// A comment starts only at the start of a word (`#` in shell: `a#b` is a word).
pub(super) const COMMENT_AT_WORD_START: u16 = 1 << 8;
/// A line's first word is a command (shell).
pub(super) const COMMANDS: u16 = 1 << 9;

/// Cuts `line` into tokens in `out`, carrying what stays open in `state`.
pub(super) fn code(syntax: &Syntax, line: &str, state: &mut State, out: &mut Vec<Token>) {
    let bytes = line.as_bytes();
    let mut at = match resume(line, state, out) {
        Some(at) => at,
        None => return,
    };
    let has = |flag: u16| syntax.flags & flag != 0;
    let mut first_word = true;
    // The word after `fn`, `def`… names a function.
    let mut defines = false;
    while at < bytes.len() {
        let c = bytes[at];
        if c == b' ' || c == b'\t' {
            at += 1;
            continue;
        }
        let rest = &line[at..];
        let word_start = at == 0 || matches!(bytes[at - 1], b' ' | b'\t' | b';' | b'(' | b'|');
        if (!has(COMMENT_AT_WORD_START) || word_start)
            && syntax.line_comments.iter().any(|p| rest.starts_with(p))
        {
            push(out, at..line.len(), Kind::Comment);
            return;
        }
        if let Some((open, close)) = syntax.block_comment {
            if rest.starts_with(open) {
                match line[at + open.len()..].find(close) {
                    Some(i) => {
                        let end = at + open.len() + i + close.len();
                        push(out, at..end, Kind::Comment);
                        at = end;
                        continue;
                    }
                    None => {
                        push(out, at..line.len(), Kind::Comment);
                        state.0 = Carry::Comment(close);
                        return;
                    }
                }
            }
        }
        if has(HASH_DIRECTIVES) && c == b'#' && line[..at].trim().is_empty() {
            push(out, at..line.len(), Kind::Meta);
            return;
        }
        if has(RUST) {
            if rest.starts_with("#[") || rest.starts_with("#![") {
                let end = rest.find(']').map_or(line.len(), |i| at + i + 1);
                push(out, at..end, Kind::Meta);
                at = end;
                continue;
            }
            if c == b'\'' {
                if let Some(end) = lifetime(bytes, at) {
                    push(out, at..end, Kind::Meta);
                    at = end;
                    continue;
                }
            }
        }
        if let Some(quote) = syntax.strings.iter().find(|q| rest.starts_with(q.open)) {
            let from = at + quote.open.len();
            match find_close(line, from, quote.close, quote.escapes) {
                Some(end) => {
                    push(out, at..end, Kind::String);
                    at = end;
                }
                None => {
                    push(out, at..line.len(), Kind::String);
                    if quote.multiline {
                        state.0 = Carry::String {
                            close: quote.close,
                            escapes: quote.escapes,
                        };
                    }
                    return;
                }
            }
            first_word = false;
            continue;
        }
        if c == b'$' && has(DOLLAR_VARS) {
            let end = variable(bytes, at);
            if end > at + 1 {
                push(out, at..end, Kind::Variable);
                at = end;
                first_word = false;
                continue;
            }
        }
        if c == b'@' && has(AT_META | AT_VARS) {
            let end = word_end(bytes, at + 1, false);
            if end > at + 1 {
                let kind = if has(AT_META) {
                    Kind::Meta
                } else {
                    Kind::Variable
                };
                push(out, at..end, kind);
                at = end;
                continue;
            }
        }
        if c.is_ascii_digit() {
            let end = number_end(bytes, at);
            push(out, at..end, Kind::Number);
            at = end;
            first_word = false;
            continue;
        }
        if is_word_start(c) || (c == b'$' && has(DOLLAR_IN_WORDS)) {
            let end = word_end(bytes, at, has(DOLLAR_IN_WORDS));
            let word = &line[at..end];
            let kind = match classify(syntax, word, &line[end..], first_word) {
                None | Some(Kind::Type) if defines => Some(Kind::Function),
                kind => kind,
            };
            defines = kind == Some(Kind::Keyword) && DEFINERS.contains(&word);
            if let Some(kind) = kind {
                let end = if kind == Kind::Meta && bytes.get(end) == Some(&b'!') {
                    end + 1
                } else {
                    end
                };
                push(out, at..end, kind);
                at = end;
            } else {
                at = end;
            }
            first_word = false;
            continue;
        }
        if matches!(c, b';' | b'|' | b'&' | b'(' | b'{' | b'`') {
            // A new command may start (shell).
            first_word = true;
        } else if c != b'\\' {
            first_word = false;
        }
        at += utf8_len(c);
    }
}

/// Goes on with what the previous line left open: the index to go on lexing from, or
/// `None` when the line is all of it.
pub(super) fn resume(line: &str, state: &mut State, out: &mut Vec<Token>) -> Option<usize> {
    match state.0 {
        Carry::Comment(close) => match line.find(close) {
            Some(i) => {
                let end = i + close.len();
                push(out, 0..end, Kind::Comment);
                state.0 = Carry::Nothing;
                Some(end)
            }
            None => {
                push(out, 0..line.len(), Kind::Comment);
                None
            }
        },
        Carry::String { close, escapes } => match find_close(line, 0, close, escapes) {
            Some(end) => {
                push(out, 0..end, Kind::String);
                state.0 = Carry::Nothing;
                Some(end)
            }
            None => {
                push(out, 0..line.len(), Kind::String);
                None
            }
        },
        _ => Some(0),
    }
}

/// Keywords whose next word is a function's name.
const DEFINERS: &[&str] = &["fn", "def", "func", "function", "fun"];

fn classify(syntax: &Syntax, word: &str, after: &str, first_word: bool) -> Option<Kind> {
    let has = |flag: u16| syntax.flags & flag != 0;
    let lower;
    let key = if has(ANY_CASE) {
        lower = word.to_ascii_lowercase();
        lower.as_str()
    } else {
        word
    };
    if syntax.keywords.contains(&key) {
        return Some(Kind::Keyword);
    }
    if syntax.literals.contains(&key) {
        return Some(Kind::Literal);
    }
    if syntax.types.contains(&key) {
        return Some(Kind::Type);
    }
    if has(RUST) && after.starts_with('!') && !after.starts_with("!=") {
        return Some(Kind::Meta);
    }
    if after.trim_start().starts_with('(') || (has(COMMANDS) && first_word) {
        return Some(Kind::Function);
    }
    let mut chars = word.chars();
    if has(CAPS_TYPES)
        && chars.next().is_some_and(|c| c.is_ascii_uppercase())
        && chars.any(|c| c.is_ascii_lowercase())
    {
        return Some(Kind::Type);
    }
    None
}

pub(super) fn push(out: &mut Vec<Token>, range: std::ops::Range<usize>, kind: Kind) {
    if range.start < range.end {
        out.push(Token { range, kind });
    }
}

/// Where a string that opened before `from` ends (after its closing delimiter).
pub(super) fn find_close(line: &str, from: usize, close: &str, escapes: bool) -> Option<usize> {
    let bytes = line.as_bytes();
    let mut i = from;
    while i < bytes.len() {
        if escapes && bytes[i] == b'\\' {
            i += 1 + bytes.get(i + 1).map_or(0, |&b| utf8_len(b));
            continue;
        }
        if line[i..].starts_with(close) {
            return Some(i + close.len());
        }
        i += utf8_len(bytes[i]);
    }
    None
}

pub(super) fn is_word_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

pub(super) fn word_end(bytes: &[u8], mut i: usize, dollar: bool) -> usize {
    while i < bytes.len()
        && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_' || (dollar && bytes[i] == b'$'))
    {
        i += 1;
    }
    i
}

/// `42`, `0x1F`, `1_000u32`, `3.14e-2`, `1.5f`: up to a character no number has (`1..2`
/// stops before the range).
pub(super) fn number_end(bytes: &[u8], start: usize) -> usize {
    let hex = bytes[start..].starts_with(b"0x") || bytes[start..].starts_with(b"0X");
    let mut i = start;
    while i < bytes.len() {
        let c = bytes[i];
        let exponent_sign =
            (c == b'-' || c == b'+') && !hex && i > start && matches!(bytes[i - 1], b'e' | b'E');
        if c.is_ascii_alphanumeric()
            || c == b'_'
            || exponent_sign
            || (c == b'.' && bytes.get(i + 1).is_some_and(|n| n.is_ascii_digit()))
        {
            i += 1;
        } else {
            break;
        }
    }
    i
}

/// `$name`, `${…}`, `$1`, `$?`: where the variable at `at` ends.
fn variable(bytes: &[u8], at: usize) -> usize {
    match bytes.get(at + 1) {
        Some(b'{') => bytes[at..]
            .iter()
            .position(|&b| b == b'}')
            .map_or(bytes.len(), |i| at + i + 1),
        Some(c) if c.is_ascii_digit() || matches!(c, b'?' | b'@' | b'#' | b'*' | b'!') => at + 2,
        _ => word_end(bytes, at + 1, false),
    }
}

/// A Rust lifetime or label (`'a`, `'static`) rather than a character (`'a'`).
fn lifetime(bytes: &[u8], at: usize) -> Option<usize> {
    let end = word_end(bytes, at + 1, false);
    let named = end > at + 1 && bytes.get(at + 1).is_some_and(|&c| is_word_start(c));
    (named && bytes.get(end) != Some(&b'\'')).then_some(end)
}

/// The length of the UTF-8 sequence a byte starts (1 for a stray continuation byte).
pub(super) fn utf8_len(first: u8) -> usize {
    match first {
        0xF0..=0xFF => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    }
}
