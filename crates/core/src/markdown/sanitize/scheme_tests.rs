use super::*;
use proptest::prelude::*;

/// Pieces that make schemes, near-schemes and the characters browsers skip or keep.
const PIECES: &[&str] = &[
    "http",
    "https",
    "HTTPS",
    "mailto",
    "data",
    "javascript",
    "JaVa",
    "script",
    "vb",
    ":",
    "//",
    "/",
    "\\",
    "\t",
    "\n",
    "\r",
    " ",
    "\u{0}",
    "\u{1}",
    "\u{1f}",
    "\u{7f}",
    "\u{a0}",
    "e.com",
    "bücher.example",
    "@",
    "?",
    "#",
    "+",
    "-",
    ".",
    "1",
    "x",
    "%0a",
    "&#58;",
    "[",
    "]",
    "image/png;base64,",
    "é",
];

#[test]
fn named_cases() {
    for (url, scheme) in [
        ("https://e.com", Some("https")),
        ("  \u{1}HTTP://e.com \u{0}", Some("http")),
        ("java\tscr\nipt:alert(1)", Some("javascript")),
        ("java script:alert(1)", None),
        ("\u{a0}javascript:alert(1)", None),
        ("1http://e.com", None),
        ("/relative", None),
        ("//evil.example", None),
        ("a+b-c.d:x", Some("a+b-c.d")),
        ("https", None),
        ("", None),
    ] {
        assert_eq!(absolute_scheme(url).as_deref(), scheme, "{url:?}");
    }
}

proptest! {
    // Random seeds; no regression files in the source tree.
    #![proptest_config(ProptestConfig {
        cases: 4000,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Wherever `url` reads an absolute URL, `absolute_scheme` reads the same scheme;
    /// wherever `url` sees a relative one, so does `absolute_scheme`.
    #[test]
    fn reads_the_scheme_url_reads(
        pieces in prop::collection::vec(prop::sample::select(PIECES), 0..10),
    ) {
        let text = pieces.concat();
        match url::Url::parse(&text) {
            Ok(parsed) => {
                let scheme = absolute_scheme(&text);
                prop_assert_eq!(scheme.as_deref(), Some(parsed.scheme()), "{:?}", text)
            }
            Err(url::ParseError::RelativeUrlWithoutBase) => {
                prop_assert_eq!(absolute_scheme(&text), None, "{:?}", text)
            }
            // An absolute URL with a bad host or port: the browser would not follow it.
            Err(_) => {}
        }
    }

    /// What views put into `href`/`src` is never another scheme than the sanitizer allows,
    /// and every link or image URL the `url` crate accepts with an allowed scheme passes.
    #[test]
    fn views_allow_what_the_sanitizer_allows(
        pieces in prop::collection::vec(prop::sample::select(PIECES), 0..10),
    ) {
        let text = pieces.concat();
        for (element, attribute, checked) in [
            ("a", "href", safe_url(&text)),
            ("img", "src", safe_image_url(&text)),
        ] {
            let parsed = url::Url::parse(text.trim()).ok();
            let allowed_by_url = parsed.as_ref().is_some_and(|p| URL_SCHEMES.contains(&p.scheme()))
                && url_allowed(element, attribute, text.trim());
            if allowed_by_url {
                prop_assert!(checked.is_some(), "{} {:?} dropped", element, text);
            }
            if let (Some(_), Some(p)) = (&checked, &parsed) {
                prop_assert!(URL_SCHEMES.contains(&p.scheme()), "{} {:?}", element, text);
            }
        }
    }
}
