//! Labels people read (thread titles, attachment names): the characters they may not hold.
//!
//! Control characters (NUL, CR/LF, ESC…) break logs, terminals and single-line layouts;
//! bidirectional overrides and isolates (U+202E and the like) make a label read other than
//! it is (`invoice`, U+202E, `fdp.exe` shows as `invoiceexe.pdf`). A label a client sends
//! with one is refused; a label the runtime derives from a message has them removed.
//!
//! Ids and cursors hold no NUL: PostgreSQL refuses it in text, so a request naming one is
//! refused at the door (400) on either store, not failed by the database (500).

/// Whether `c` may not appear in a label (the element's core decides, for both).
pub fn forbidden(c: char) -> bool {
    chat_shell_core::labels::forbidden(c)
}

/// Whether `label` holds a [`forbidden`] character.
pub fn has_forbidden(label: &str) -> bool {
    label.chars().any(forbidden)
}

/// `label` without its [`forbidden`] characters.
pub fn strip(label: &str) -> String {
    label.chars().filter(|c| !forbidden(*c)).collect()
}

/// Whether `id` (a thread, item, attachment or session id, or a cursor) is refused: it
/// holds a NUL.
pub fn bad_id(id: &str) -> bool {
    id.contains('\0')
}

/// The first field of `request` naming an id or cursor that holds a NUL, at any depth:
/// `id`, `*_id`, `*_ids`, `after`, `before`, `cursor` and `attachments` (a list of ids).
pub fn nul_id_field(request: &serde_json::Value) -> Option<String> {
    use serde_json::Value;
    fn names_ids(key: &str) -> bool {
        key == "id"
            || key.ends_with("_id")
            || key.ends_with("_ids")
            || matches!(key, "after" | "before" | "cursor" | "attachments")
    }
    fn holds_nul(value: &Value) -> bool {
        match value {
            Value::String(s) => bad_id(s),
            Value::Array(all) => all.iter().any(holds_nul),
            Value::Object(o) => o.get("id").is_some_and(holds_nul),
            _ => false,
        }
    }
    match request {
        Value::Object(fields) => fields.iter().find_map(|(key, value)| {
            if names_ids(key) && holds_nul(value) {
                Some(key.clone())
            } else {
                nul_id_field(value)
            }
        }),
        Value::Array(all) => all.iter().find_map(nul_id_field),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_cursors_with_a_nul_are_found_at_any_depth() {
        use serde_json::json;
        let ok = json!({"type": "items.list", "params": {"thread_id": "thr_1", "after": "i"}});
        assert_eq!(nul_id_field(&ok), None);
        for (request, field) in [
            (json!({"params": {"thread_id": "a\0"}}), "thread_id"),
            (
                json!({"params": {"thread_id": "t", "after": "\0"}}),
                "after",
            ),
            (
                json!({"params": {"input": {"attachments": ["x", "y\0"]}}}),
                "attachments",
            ),
            (json!({"params": {"item_ids": ["\0"]}}), "item_ids"),
            (json!({"params": {"cursor": "\0"}}), "cursor"),
        ] {
            assert_eq!(nul_id_field(&request).as_deref(), Some(field), "{request}");
        }
        // Elsewhere a NUL is the text's business, not an id's.
        let text =
            json!({"params": {"input": {"content": [{"type": "input_text", "text": "a\0"}]}}});
        assert_eq!(nul_id_field(&text), None);
    }

    #[test]
    fn controls_separators_and_bidi_formatting_are_forbidden() {
        for c in [
            '\0', '\r', '\n', '\t', '\u{1b}', '\u{7f}', '\u{85}', '\u{2028}', '\u{2029}',
            '\u{61c}', '\u{200e}', '\u{200f}', '\u{202a}', '\u{202b}', '\u{202c}', '\u{202d}',
            '\u{202e}', '\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}',
        ] {
            assert!(forbidden(c), "U+{:04X}", c as u32);
        }
        // What people write stays: accents, other scripts, emoji (with its joiner), spaces.
        for ok in ["é", "日本語", "עברית", "العربية", "👩‍💻", "a b", "x\u{200d}y"]
        {
            assert!(!has_forbidden(ok), "{ok}");
        }
    }

    #[test]
    fn strip_removes_only_what_is_forbidden() {
        assert_eq!(strip("invoice\u{202e}fdp.exe"), "invoicefdp.exe");
        assert_eq!(strip("a\0b\u{1b}[31mc\r\nd"), "ab[31mcd");
        assert_eq!(strip("\u{2067}שלום\u{2069} world"), "שלום world");
        assert_eq!(strip("plain title"), "plain title");
    }
}
