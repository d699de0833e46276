//! Dictation's rules, away from the microphone: the recording as `input.transcribe` sends it
//! (plain base64), where the transcript goes in the draft (at the caret, in the textarea's
//! UTF-16 offsets), and what a failure tells the user.

use crate::strings::Text;

/// `bytes` in standard base64 with padding (RFC 4648 §4), as `audio_base64` wants it: plain
/// base64, not a `data:` URL.
pub fn base64(bytes: &[u8]) -> String {
    use ::base64::Engine as _;
    ::base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// The draft with `transcript` in place of the selection `start..end` (UTF-16 offsets, as
/// a textarea's `selectionStart`/`selectionEnd` give them; out of range or reversed, they
/// are clamped and ordered; inside a surrogate pair, moved before it), and the caret right
/// after the inserted text, in UTF-16 offsets. The transcript is trimmed and set apart from the
/// words around it by one space where none is. A blank transcript changes nothing.
pub fn insert_at_caret(draft: &str, start: u32, end: u32, transcript: &str) -> (String, u32) {
    let text = transcript.trim();
    let (from, to) = (byte_offset(draft, start), byte_offset(draft, end));
    let (from, to) = (from.min(to), from.max(to));
    if text.is_empty() {
        return (draft.to_owned(), utf16_len(&draft[..to]));
    }
    let (before, after) = (&draft[..from], &draft[to..]);
    let apart = |c: Option<char>| c.is_some_and(|c| !c.is_whitespace());
    let mut out = String::with_capacity(draft.len() + text.len() + 2);
    out.push_str(before);
    if apart(before.chars().next_back()) {
        out.push(' ');
    }
    out.push_str(text);
    let caret = utf16_len(&out);
    if apart(after.chars().next()) {
        out.push(' ');
    }
    out.push_str(after);
    (out, caret)
}

/// The byte offset of the character boundary at or before UTF-16 offset `units`.
fn byte_offset(s: &str, units: u32) -> usize {
    let mut seen = 0u32;
    for (i, c) in s.char_indices() {
        seen += c.len_utf16() as u32;
        if seen > units {
            return i;
        }
    }
    s.len()
}

fn utf16_len(s: &str) -> u32 {
    s.chars().map(|c| c.len_utf16() as u32).sum()
}

/// Why dictation stopped short: the user reads it in the composer's alert, and the draft
/// stays as it was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The user or the page's policy refused the microphone.
    Denied,
    /// No microphone (or none that meets the constraints).
    NoDevice,
    /// The browser cannot record (no `MediaRecorder`, no `getUserMedia`, not a secure page).
    Unsupported,
    /// The microphone is there but could not be used (taken by another app, a hardware
    /// error) or the recording broke off.
    Microphone,
}

impl Failure {
    /// The failure of `getUserMedia` or `MediaRecorder` from its `DOMException` name.
    pub fn from_error_name(name: &str) -> Failure {
        match name {
            "NotAllowedError" | "SecurityError" | "PermissionDeniedError" => Failure::Denied,
            "NotFoundError" | "OverconstrainedError" | "DevicesNotFoundError" => Failure::NoDevice,
            "NotSupportedError" | "TypeError" => Failure::Unsupported,
            _ => Failure::Microphone,
        }
    }

    /// What the alert says.
    pub fn text(self) -> Text {
        match self {
            Failure::Denied => Text::DictationDenied,
            Failure::NoDevice => Text::DictationNoDevice,
            Failure::Unsupported => Text::DictationUnsupported,
            Failure::Microphone => Text::DictationMicrophoneFailed,
        }
    }
}

/// The audio types to ask `MediaRecorder` for, best first (small speech-grade codecs the
/// usual transcription services take); the browser's own default is the last resort.
pub const PREFERRED_TYPES: &[&str] = &[
    "audio/webm;codecs=opus",
    "audio/ogg;codecs=opus",
    "audio/mp4",
    "audio/webm",
];

/// The recorder's bit rate: plenty for speech, and about four minutes fit under the
/// reference runtime's 1 MiB.
pub const BITS_PER_SECOND: u32 = 32_000;

#[cfg(test)]
mod tests {
    use super::*;

    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    use proptest::prelude::*;

    /// A strict decoder, only to check the encoder against.
    fn decode(s: &str) -> Vec<u8> {
        assert_eq!(s.len() % 4, 0, "{s}");
        let value = |c: u8| ALPHABET.iter().position(|&a| a == c).unwrap() as u32;
        let mut out = Vec::new();
        for quad in s.as_bytes().chunks(4) {
            let pad = quad.iter().filter(|&&c| c == b'=').count();
            let n = quad
                .iter()
                .map(|&c| if c == b'=' { 0 } else { value(c) })
                .fold(0, |n, v| n << 6 | v);
            out.extend_from_slice(&n.to_be_bytes()[1..4 - pad]);
        }
        out
    }

    #[test]
    fn base64_matches_rfc_4648_vectors() {
        for (raw, encoded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(raw.as_bytes()), encoded);
        }
        assert_eq!(base64(&[0xfb, 0xff, 0xbf]), "+/+/");
        assert!(!base64(b"audio").starts_with("data:"));
    }

    #[test]
    fn inserted_at_the_caret_set_apart_by_spaces() {
        // Between two words: one space on each side.
        assert_eq!(
            insert_at_caret("before after", 6, 6, "heard"),
            ("before heard after".into(), 12)
        );
        assert_eq!(
            insert_at_caret("before  after", 7, 7, "heard"),
            ("before heard after".into(), 12)
        );
        // A selection is replaced; reversed offsets are ordered.
        assert_eq!(
            insert_at_caret("keep DROP keep", 9, 5, "new"),
            ("keep new keep".into(), 8)
        );
        // At the ends, no space outside the draft; the transcript is trimmed.
        assert_eq!(insert_at_caret("", 0, 0, "  hi \n"), ("hi".into(), 2));
        assert_eq!(insert_at_caret("end", 99, 99, "x"), ("end x".into(), 5));
        assert_eq!(insert_at_caret("start", 0, 0, "x"), ("x start".into(), 1));
        assert_eq!(insert_at_caret("line\n", 5, 5, "x"), ("line\nx".into(), 6));
        // A blank transcript changes nothing; the caret ends the selection.
        assert_eq!(insert_at_caret("a b", 0, 1, "  "), ("a b".into(), 1));
    }

    #[test]
    fn offsets_are_utf16_and_never_split_a_character() {
        // "é" is one UTF-16 unit and two bytes; "😀" is two units and four bytes.
        assert_eq!(insert_at_caret("é😀 z", 3, 3, "x"), ("é😀 x z".into(), 5));
        // Inside the surrogate pair: before the emoji.
        assert_eq!(insert_at_caret("é😀", 2, 2, "x"), ("é x 😀".into(), 3));
        assert_eq!(insert_at_caret("مرحبا", 5, 5, "نص"), ("مرحبا نص".into(), 8));
    }

    #[test]
    fn failures_by_dom_exception_name() {
        assert_eq!(Failure::from_error_name("NotAllowedError"), Failure::Denied);
        assert_eq!(Failure::from_error_name("NotFoundError"), Failure::NoDevice);
        assert_eq!(
            Failure::from_error_name("NotSupportedError"),
            Failure::Unsupported
        );
        assert_eq!(
            Failure::from_error_name("NotReadableError"),
            Failure::Microphone
        );
        assert_eq!(Failure::Denied.text(), Text::DictationDenied);
    }

    proptest! {
        #[test]
        fn base64_round_trips(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let encoded = base64(&bytes);
            prop_assert_eq!(encoded.len(), bytes.len().div_ceil(3) * 4);
            prop_assert!(encoded.bytes().all(|c| ALPHABET.contains(&c) || c == b'='));
            prop_assert_eq!(decode(&encoded), bytes);
        }

        /// Whatever the draft, offsets and transcript: the text around the selection is
        /// kept, the trimmed transcript is there, and the caret is right after it.
        #[test]
        fn the_draft_around_the_caret_is_kept(
            draft in "[a-z é😀\n]{0,12}",
            start in 0u32..16,
            end in 0u32..16,
            transcript in "[ a-zé]{0,8}",
        ) {
            let (out, caret) = insert_at_caret(&draft, start, end, &transcript);
            let from = byte_offset(&draft, start.min(end));
            let to = byte_offset(&draft, start.max(end));
            let text = transcript.trim();
            if text.is_empty() {
                prop_assert_eq!(&out, &draft);
            } else {
                prop_assert!(out.starts_with(&draft[..from]));
                prop_assert!(out.ends_with(&draft[to..]));
                let units: Vec<u16> = out.encode_utf16().collect();
                let head = String::from_utf16(&units[..caret as usize]).unwrap();
                prop_assert!(head.trim_end().ends_with(text), "{:?} in {:?}", text, head);
                prop_assert!(out.len() <= draft.len() - (to - from) + text.len() + 2);
            }
        }
    }
}
