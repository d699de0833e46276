//! Numbers written as text, read without core's float parser.

/// A decimal number written as text (`12`, `-0.5`, `.5`, `1e3`; spaces around are ignored),
/// as `str::parse::<f64>` reads it except that `inf`/`NaN` are not numbers. It goes through
/// serde_json's number parser, which the element links anyway: core's own float parser
/// brings tables that compress badly (docs/size-history.md). For host options, widget
/// styles, dates.
pub fn parse(text: &str) -> Option<f64> {
    let digits = |s: &[u8]| s.iter().take_while(|b| b.is_ascii_digit()).count();
    let s = text.trim().as_bytes();
    let (negative, s) = match s.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        _ => (false, s),
    };
    let (int, s) = s.split_at(digits(s));
    let (frac, s) = match s.split_first() {
        Some((b'.', rest)) => rest.split_at(digits(rest)),
        _ => (&[][..], s),
    };
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let exponent = match s.split_first() {
        None => &[][..],
        Some((b'e' | b'E', rest)) => {
            let unsigned = rest
                .strip_prefix(b"-")
                .or(rest.strip_prefix(b"+"))
                .unwrap_or(rest);
            if unsigned.is_empty() || digits(unsigned) != unsigned.len() {
                return None;
            }
            rest
        }
        Some(_) => return None,
    };
    // JSON's grammar: no leading zeros, a digit on both sides of the point.
    let int = match int.iter().position(|b| *b != b'0') {
        Some(first) => &int[first..],
        None => b"0",
    };
    // Every byte kept is ASCII. Read as a `Value` from a `str`: the very parser instance
    // every JSON payload goes through, not a second one for bytes.
    let ascii = |bytes: &[u8]| std::str::from_utf8(bytes).unwrap_or_default().to_owned();
    let mut json = String::with_capacity(text.len() + 4);
    if negative {
        json.push('-');
    }
    json.push_str(&ascii(int));
    if !frac.is_empty() {
        json.push('.');
        json.push_str(&ascii(frac));
    }
    if !exponent.is_empty() {
        json.push('e');
        json.push_str(&ascii(exponent));
    }
    serde_json::from_str::<serde_json::Value>(&json)
        .ok()?
        .as_f64()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_as_rust_reads_them() {
        for (text, want) in [
            ("12", Some(12.0)),
            (" -0.5 ", Some(-0.5)),
            (".5", Some(0.5)),
            ("1.", Some(1.0)),
            ("+3", Some(3.0)),
            ("007", Some(7.0)),
            ("1e3", Some(1000.0)),
            ("2.5E-2", Some(0.025)),
            ("1.e2", Some(100.0)),
            ("", None),
            (".", None),
            ("-", None),
            ("e5", None),
            ("1e", None),
            ("1e+", None),
            ("12px", None),
            ("1.2.3", None),
            ("0x10", None),
            ("inf", None),
            ("NaN", None),
        ] {
            assert_eq!(parse(text), want, "{text:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn numbers_agree_with_the_standard_parser(
            sign in "[+-]?",
            int in "[0-9]{0,20}",
            frac in proptest::option::of("[0-9]{0,20}"),
            exp in proptest::option::of("[eE][+-]?[0-9]{1,3}"),
            junk in proptest::option::of("[a-z%. ]{1,3}"),
        ) {
            let text = format!(
                "{sign}{int}{}{}{}",
                frac.map(|f| format!(".{f}")).unwrap_or_default(),
                exp.unwrap_or_default(),
                junk.unwrap_or_default()
            );
            let ours = parse(&text);
            match text.trim().parse::<f64>() {
                Ok(std) if std.is_finite() => {
                    let ours = ours.unwrap_or_else(|| panic!("{text:?} not read"));
                    // serde_json rounds long mantissas slightly differently: within 2 ulp.
                    let tolerance = std.abs() * 4.5e-16;
                    proptest::prop_assert!((ours - std).abs() <= tolerance, "{text:?}: {ours} vs {std}");
                }
                Ok(_) => proptest::prop_assert!(ours.is_none_or(|n| !n.is_finite()), "{text:?}"),
                Err(_) => proptest::prop_assert_eq!(ours, None, "{:?}", text),
            }
        }
    }
}
