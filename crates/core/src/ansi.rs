//! Terminal output with ANSI escape sequences, as styled runs of plain text. Only SGR
//! (colour and weight) is kept, as a closed set of style names a view maps to classes;
//! every other sequence (cursor moves, OSC titles and links, …) and stray control
//! characters are dropped. The text of a run is still text: a view sets it as text, never
//! as HTML.

/// How a run looks: the 16 standard colours (0–7, bright 8–15) and four attributes.
/// 256-colour and RGB colours are kept only when they name one of the 16.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Style {
    pub fg: Option<u8>,
    pub bg: Option<u8>,
    pub bold: bool,
    pub dim: bool,
    pub italic: bool,
    pub underline: bool,
}

impl Style {
    /// The view's class names for this style (`cs-ansi-fg-1 cs-ansi-bold`), empty for plain.
    pub fn classes(&self) -> String {
        let mut out = Vec::new();
        if let Some(c) = self.fg {
            out.push(format!("cs-ansi-fg-{c}"));
        }
        if let Some(c) = self.bg {
            out.push(format!("cs-ansi-bg-{c}"));
        }
        for (on, name) in [
            (self.bold, "cs-ansi-bold"),
            (self.dim, "cs-ansi-dim"),
            (self.italic, "cs-ansi-italic"),
            (self.underline, "cs-ansi-underline"),
        ] {
            if on {
                out.push(name.to_owned());
            }
        }
        out.join(" ")
    }

    fn apply(&mut self, params: &[u16]) {
        let mut i = 0;
        if params.is_empty() {
            *self = Style::default();
        }
        while i < params.len() {
            match params[i] {
                0 => *self = Style::default(),
                1 => self.bold = true,
                2 => self.dim = true,
                3 => self.italic = true,
                4 => self.underline = true,
                22 => (self.bold, self.dim) = (false, false),
                23 => self.italic = false,
                24 => self.underline = false,
                n @ 30..=37 => self.fg = Some((n - 30) as u8),
                n @ 90..=97 => self.fg = Some((n - 90 + 8) as u8),
                39 => self.fg = None,
                n @ 40..=47 => self.bg = Some((n - 40) as u8),
                n @ 100..=107 => self.bg = Some((n - 100 + 8) as u8),
                49 => self.bg = None,
                n @ (38 | 48) => {
                    // 38;5;N or 38;2;R;G;B: only the first 16 of the 256 are kept.
                    let (colour, used) = match params.get(i + 1) {
                        Some(5) => (params.get(i + 2).filter(|&&c| c < 16).map(|&c| c as u8), 2),
                        Some(2) => (None, 4),
                        _ => (None, 0),
                    };
                    if n == 38 {
                        self.fg = colour;
                    } else {
                        self.bg = colour;
                    }
                    i += used;
                }
                _ => {}
            }
            i += 1;
        }
    }
}

/// A stretch of text in one style.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Run {
    pub text: String,
    pub style: Style,
}

/// Split terminal output into styled runs, escape sequences removed.
pub fn styled_runs(text: &str) -> Vec<Run> {
    let mut runs: Vec<Run> = Vec::new();
    let mut style = Style::default();
    let mut current = String::new();
    let mut chars = text.chars().peekable();
    let flush = |runs: &mut Vec<Run>, current: &mut String, style: Style| {
        if current.is_empty() {
            return;
        }
        match runs.last_mut() {
            Some(last) if last.style == style => last.text.push_str(current),
            _ => runs.push(Run {
                text: std::mem::take(current),
                style,
            }),
        }
        current.clear();
    };
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => match chars.peek() {
                Some('[') => {
                    chars.next();
                    // CSI: parameter bytes, intermediates, one final byte.
                    let mut body = String::new();
                    let mut fin = None;
                    for c in chars.by_ref() {
                        if ('\u{40}'..='\u{7e}').contains(&c) {
                            fin = Some(c);
                            break;
                        }
                        body.push(c);
                    }
                    if fin == Some('m') {
                        let params: Vec<u16> = body
                            .split([';', ':'])
                            .map(|p| p.parse().unwrap_or(0))
                            .collect();
                        let mut next = style;
                        next.apply(if body.is_empty() { &[] } else { &params });
                        if next != style {
                            flush(&mut runs, &mut current, style);
                            style = next;
                        }
                    }
                }
                Some(']') => {
                    // OSC: up to BEL or ESC \.
                    chars.next();
                    while let Some(c) = chars.next() {
                        if c == '\u{7}' {
                            break;
                        }
                        if c == '\u{1b}' && chars.peek() == Some(&'\\') {
                            chars.next();
                            break;
                        }
                    }
                }
                Some(_) => {
                    chars.next();
                }
                None => {}
            },
            '\n' | '\t' => current.push(c),
            // A carriage return before a line break is the line break; a lone one (a
            // progress bar redrawing its line) is dropped with the other controls.
            c if c.is_control() => {}
            c => current.push(c),
        }
    }
    flush(&mut runs, &mut current, style);
    runs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(runs: &[Run]) -> String {
        runs.iter().map(|r| r.text.as_str()).collect()
    }

    #[test]
    fn colours_and_weights_become_styles_and_the_codes_go() {
        let runs =
            styled_runs("\u{1b}[1m\u{1b}[32mok\u{1b}[0m test a ... \u{1b}[91mFAILED\u{1b}[m\n");
        assert_eq!(plain(&runs), "ok test a ... FAILED\n");
        assert_eq!(runs[0].text, "ok");
        assert_eq!(runs[0].style.classes(), "cs-ansi-fg-2 cs-ansi-bold");
        assert_eq!(runs[1].style, Style::default());
        assert_eq!(runs[2].text, "FAILED");
        assert_eq!(runs[2].style.fg, Some(9));
        assert_eq!(runs[3].text, "\n");
    }

    #[test]
    fn other_sequences_and_controls_are_dropped_not_shown() {
        let text = "\u{1b}]0;title\u{7}a\u{1b}[2Kb\u{1b}]8;;https://x\u{1b}\\link\u{1b}]8;;\u{1b}\\\r\n\u{7}c\u{1b}";
        let runs = styled_runs(text);
        assert_eq!(plain(&runs), "ablink\nc");
        // 256 colours: the first 16 are kept, the rest and RGB fall back to the default.
        let runs = styled_runs("\u{1b}[38;5;4mx\u{1b}[38;5;200my\u{1b}[38;2;1;2;3mz");
        assert_eq!(runs[0].style.fg, Some(4));
        assert_eq!(runs[1].style.fg, None);
        assert_eq!(plain(&runs), "xyz");
    }

    #[test]
    fn markup_stays_text() {
        let runs = styled_runs("\u{1b}[31m<img src=x onerror=alert(1)>\u{1b}[0m");
        assert_eq!(runs[0].text, "<img src=x onerror=alert(1)>");
        assert_eq!(runs.len(), 1);
    }
}
