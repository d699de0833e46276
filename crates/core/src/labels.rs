//! Labels people read (titles, names, descriptions, currencies): the characters they may
//! not hold.
//!
//! Control characters (NUL, CR/LF, ESC…) break logs, terminals and single-line layouts;
//! bidirectional overrides and isolates (U+202E and the like) make a label read other than
//! it is (`invoice`, U+202E, `fdp.exe` shows as `invoiceexe.pdf`; U+202E, `DSU` shows as
//! `USD`).

/// Whether `c` may not appear in a label: a control character (Unicode `Cc`), a line or
/// paragraph separator, or a bidirectional formatting character (UAX #9's explicit
/// embeddings, overrides, isolates and their terminators, and the implicit marks).
pub fn forbidden(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}' | '\u{2029}'             // line and paragraph separators
            | '\u{061C}'                        // ARABIC LETTER MARK
            | '\u{200E}' | '\u{200F}'           // LRM, RLM
            | '\u{202A}'..='\u{202E}'           // LRE, RLE, PDF, LRO, RLO
            | '\u{2066}'..='\u{2069}' // LRI, RLI, FSI, PDI
        )
}

/// `label` without its [`forbidden`] characters.
pub fn strip(label: &str) -> String {
    label.chars().filter(|c| !forbidden(*c)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_separators_and_bidi_formatting_are_stripped() {
        for c in [
            '\0', '\r', '\n', '\t', '\u{1b}', '\u{7f}', '\u{85}', '\u{2028}', '\u{2029}',
            '\u{61c}', '\u{200e}', '\u{200f}', '\u{202a}', '\u{202b}', '\u{202c}', '\u{202d}',
            '\u{202e}', '\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}',
        ] {
            assert!(forbidden(c), "U+{:04X}", c as u32);
        }
        assert_eq!(strip("\u{202e}DSU"), "DSU");
        assert_eq!(strip("invoice\u{202e}fdp.exe"), "invoicefdp.exe");
        assert_eq!(strip("a\0b\u{1b}[31mc\r\nd"), "ab[31mcd");
        // What people write stays: accents, other scripts, emoji (with its joiner), spaces.
        for ok in ["é", "日本語", "עברית", "العربية", "👩‍💻", "a b", "x\u{200d}y"]
        {
            assert_eq!(strip(ok), ok);
        }
    }
}
