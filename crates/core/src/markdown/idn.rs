//! Links to hosts written in other scripts (`https://bücher.example/`), made ASCII before the
//! sanitizer sees them: each label of the host lowercased and, if it is not ASCII,
//! Punycode-encoded with its `xn--` prefix (RFC 3492), which is what a browser sends.
//!
//! Why here: the renderer links `idna_adapter` 1.0, the stub without Unicode data (much
//! smaller; Cargo.toml, docs/size-history.md), so `url`, and with it ammonia, cannot read a host
//! that is not ASCII and would drop such a link. Only the host changes; the browser still
//! applies its own IDNA rules when the link is followed, and shows the host its own way.

use std::borrow::Cow;

/// `url` with its host in ASCII, or as it is when the host already is (or there is none).
pub(super) fn ascii_host(url: &str) -> Cow<'_, str> {
    let Some((start, end)) = host_range(url) else {
        return Cow::Borrowed(url);
    };
    let host = &url[start..end];
    if host.is_ascii() {
        return Cow::Borrowed(url);
    }
    let mut labels = Vec::new();
    // The dots a browser reads as dots (UTS 46 maps these to `.`).
    for label in host.split(['.', '\u{3002}', '\u{ff0e}', '\u{ff61}']) {
        let lower = label.to_lowercase();
        if lower.is_ascii() {
            labels.push(lower);
        } else {
            labels.push(format!("xn--{}", punycode(&lower)));
        }
    }
    Cow::Owned(format!(
        "{}{}{}",
        &url[..start],
        labels.join("."),
        &url[end..]
    ))
}

/// The byte range of the host in an absolute `scheme://` URL: after any `user@` and before
/// any `:port`, path, query or fragment.
fn host_range(url: &str) -> Option<(usize, usize)> {
    let authority = url.find("://")? + 3;
    let rest = &url[authority..];
    let end = rest.find(['/', '?', '#', '\\']).unwrap_or(rest.len());
    let start = rest[..end].rfind('@').map_or(0, |at| at + 1);
    let host = &rest[start..end];
    if host.starts_with('[') {
        return None; // an IPv6 address is ASCII
    }
    let host_end = host.rfind(':').unwrap_or(host.len());
    Some((authority + start, authority + start + host_end))
}

/// RFC 3492's encoding of one label (without the `xn--` prefix).
fn punycode(label: &str) -> String {
    const BASE: u32 = 36;
    const T_MIN: u32 = 1;
    const T_MAX: u32 = 26;
    let digit = |d: u32| {
        char::from(if d < 26 {
            b'a' + d as u8
        } else {
            b'0' + (d - 26) as u8
        })
    };
    let adapt = |mut delta: u32, points: u32, first: bool| {
        delta /= if first { 700 } else { 2 };
        delta += delta / points;
        let mut k = 0;
        while delta > ((BASE - T_MIN) * T_MAX) / 2 {
            delta /= BASE - T_MIN;
            k += BASE;
        }
        k + (BASE - T_MIN + 1) * delta / (delta + 38)
    };
    let input: Vec<u32> = label.chars().map(u32::from).collect();
    let mut out: String = label.chars().filter(char::is_ascii).collect();
    let basic = out.len() as u32;
    if basic > 0 {
        out.push('-');
    }
    let (mut n, mut delta, mut bias, mut handled) = (0x80u32, 0u32, 72u32, basic);
    while (handled as usize) < input.len() {
        let next = input.iter().copied().filter(|&c| c >= n).min().unwrap_or(n);
        // Labels are short (a host's are at most 63 bytes): no overflow to fear, but a
        // saturating sum keeps a hostile one from wrapping.
        delta = delta.saturating_add((next - n).saturating_mul(handled + 1));
        n = next;
        for &c in &input {
            if c < n {
                delta = delta.saturating_add(1);
            }
            if c == n {
                let mut q = delta;
                let mut k = BASE;
                loop {
                    let t = if k <= bias {
                        T_MIN
                    } else if k >= bias + T_MAX {
                        T_MAX
                    } else {
                        k - bias
                    };
                    if q < t {
                        break;
                    }
                    out.push(digit(t + (q - t) % (BASE - t)));
                    q = (q - t) / (BASE - t);
                    k += BASE;
                }
                out.push(digit(q));
                bias = adapt(delta, handled + 1, handled == basic);
                delta = 0;
                handled += 1;
            }
        }
        delta = delta.saturating_add(1);
        n += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_encode_as_rfc_3492_and_browsers_do() {
        for (label, encoded) in [
            ("bücher", "bcher-kva"),
            ("münchen", "mnchen-3ya"),
            ("пример", "e1afmkfd"),
            ("рф", "p1ai"),
            // RFC 3492, 7.1 (A) Arabic (Egyptian) and (B) Chinese (simplified).
            (
                "\u{644}\u{64a}\u{647}\u{645}\u{627}\u{628}\u{62a}\u{643}\u{644}\u{645}\u{648}\u{634}\u{639}\u{631}\u{628}\u{64a}\u{61f}",
                "egbpdaj6bu4bxfgehfvwxn",
            ),
            (
                "\u{4ed6}\u{4eec}\u{4e3a}\u{4ec0}\u{4e48}\u{4e0d}\u{8bf4}\u{4e2d}\u{6587}",
                "ihqwcrb4cv8a8dqg056pqjye",
            ),
        ] {
            assert_eq!(punycode(label), encoded, "{label}");
        }
    }

    #[test]
    fn only_the_host_changes() {
        for (url, ascii) in [
            (
                "https://bücher.example/ä?q=ü#ö",
                "https://xn--bcher-kva.example/ä?q=ü#ö",
            ),
            ("https://BÜCHER.example", "https://xn--bcher-kva.example"),
            (
                "http://user:pw@пример.рф:8080/x",
                "http://user:pw@xn--e1afmkfd.xn--p1ai:8080/x",
            ),
            ("https://例え。テスト/", "https://xn--r8jz45g.xn--zckzah/"),
            ("https://example.com/ü", "https://example.com/ü"),
            ("mailto:ü@example.com", "mailto:ü@example.com"),
            ("https://[::1]:80/ü", "https://[::1]:80/ü"),
            ("/relative/ü", "/relative/ü"),
        ] {
            assert_eq!(ascii_host(url), ascii, "{url}");
        }
    }
}
