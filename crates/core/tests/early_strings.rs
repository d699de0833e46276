//! The frame `src/chat-shell.js` draws before the element's wasm arrives speaks with the
//! Rust table's words: its strings, per built-in locale, are exactly `Strings`'s, and its
//! right-to-left locales are the table's.
#![cfg(not(target_arch = "wasm32"))]

use chat_shell_core::strings::{Strings, Text};
use serde_json::Value;

fn entry_js() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../src/chat-shell.js");
    std::fs::read_to_string(path).expect("read src/chat-shell.js")
}

/// The object between `/* strings */` and `/* end strings */`.
fn early_table(js: &str) -> Value {
    let start = js.find("/* strings */").expect("the strings marker") + "/* strings */".len();
    let end = js.find("/* end strings */").expect("the end marker");
    serde_json::from_str(&js[start..end]).expect("the early strings are JSON")
}

#[test]
fn the_early_frame_says_what_the_element_says() {
    let table = early_table(&entry_js());
    let locales = table.as_object().expect("an object of locales");
    for locale in ["en", "fr", "de", "ar"] {
        let strings = Strings::new(locale);
        let early = locales
            .get(locale)
            .and_then(Value::as_object)
            .unwrap_or_else(|| panic!("the early frame has no {locale} strings"));
        assert!(early.len() >= 8, "{locale}: {early:?}");
        for (key, text) in early {
            let key_text = Text::from_name(key).unwrap_or_else(|| panic!("no string `{key}`"));
            assert_eq!(
                text.as_str(),
                Some(strings.get(key_text)),
                "{locale}.{key} in src/chat-shell.js"
            );
        }
    }
    assert_eq!(locales.len(), 4, "a locale the element does not have");
}

#[test]
fn the_early_frame_lays_out_the_same_locales_right_to_left() {
    let js = entry_js();
    let line = js
        .lines()
        .find(|l| l.starts_with("const RTL = new Set("))
        .expect("the RTL set");
    let tags = [
        "en", "fr", "de", "ar", "fa", "he", "ur", "ps", "sd", "yi", "dv", "ckb", "ja", "zh",
    ];
    for locale in tags {
        let rtl = Strings::new(locale).direction() == "rtl";
        assert_eq!(
            line.contains(&format!("'{locale}'")),
            rtl,
            "{locale}: {line}"
        );
    }
}
