//! Texts: titles, the markdown answer, the long answer, and chunkers for their deltas.

// --- texts ------------------------------------------------------------------------------

/// A thread title from the first message: its first ~40 characters, cut at a word.
pub fn title_from(text: &str) -> String {
    // Titles hold no control or bidi formatting characters (see `labels`).
    let words: Vec<String> = text
        .split_whitespace()
        .map(crate::labels::strip)
        .filter(|w| !w.is_empty())
        .collect();
    let flat = words.join(" ");
    if flat.is_empty() {
        return "New conversation".into();
    }
    if flat.chars().count() <= 40 {
        return flat;
    }
    let cut: String = flat.chars().take(40).collect();
    let cut = match cut.rfind(' ') {
        Some(i) if i >= 20 => &cut[..i],
        _ => &cut[..],
    };
    format!("{}…", cut.trim_end())
}

/// The default answer: every common markdown construct, mentioning what the user said.
pub fn default_markdown(user_text: &str) -> String {
    let mut quoted: String = user_text.split_whitespace().collect::<Vec<_>>().join(" ");
    if quoted.chars().count() > 80 {
        quoted = quoted.chars().take(80).collect::<String>() + "…";
    }
    format!(
        "You said: “{quoted}”. Here is a scripted answer from the reference runtime.\n\
\n\
## A streamed markdown answer\n\
\n\
It arrives in small deltas that cut through words and **markdown tokens**, so the \
renderer has to cope with half-open syntax.\n\
\n\
- Text with **bold**, *italic* and `inline code`\n\
- A nested list:\n  - first\n  - second\n\
- A link to [the ChatKit docs](https://openai.github.io/chatkit-js/)\n\
\n\
| Feature | Status | Notes |\n\
|:--------|:------:|------:|\n\
| Streaming | done | text deltas |\n\
| Tables | done | GFM |\n\
| Code | done | fenced |\n\
\n\
```rust\n\
pub(super) fn main() {{\n    let greeting = \"hello\";\n    println!(\"{{greeting}}, ChatKit!\");\n}}\n\
```\n\
\n\
> Other scenarios: try `long`, `widget`, `form`, `workflow`, `task`, `image`, `error`, \
`approval`, `clienttool` or `structured`.\n"
    )
}

/// About 100 kB of paragraphs, lists, tables and code, always the same.
/// An answer with code in several languages (and code that is HTML or tries to break out
/// of its block, which must stay text), or with `big_lines` lines of Rust in one block.
pub fn code_markdown(big_lines: usize) -> String {
    if big_lines > 0 {
        let mut md = String::from("A big file:\n\n```rust\n");
        for i in 0..big_lines {
            md.push_str(&match i % 4 {
                0 => format!("/// Item {i}.\n"),
                1 => format!("pub fn item_{i}(x: u32) -> Option<String> {{\n"),
                2 => format!("    Some(format!(\"{{}} <b>{i}</b>\", x + {i})) // {i}\n"),
                _ => "}\n".to_owned(),
            });
        }
        md.push_str("```\n\nDone.\n");
        return md;
    }
    [
        "Here is some code.\n\n",
        "```rust\nfn main() {\n    let greeting = \"hello\"; // say it\n    println!(\"{greeting}\");\n}\n```\n\n",
        "```python\ndef add(a: int, b: int) -> int:\n    \"\"\"Adds.\"\"\"\n    return a + b  # sum\n```\n\n",
        "```ts\nexport const n: number = 42;\ninterface Point { x: number; y: number }\n```\n\n",
        "```json\n{\"name\": \"chat-shell\", \"private\": true, \"size\": 3}\n```\n\n",
        "```bash\necho $HOME # where\n```\n\n",
        "```html\n<script>alert(1)</script>\n<img src=x onerror=alert(1)>\n```\n\n",
        "```js\nconst s = '</code></pre><img src=x onerror=alert(1)>'; // \"><svg onload=alert(1)>\n```\n\n",
        "```text\nplain <b>text</b>\n```\n\n",
        "That is all.\n",
    ]
    .concat()
}

pub fn long_text() -> String {
    const WORDS: &[&str] = &[
        "stream", "delta", "thread", "widget", "render", "client", "server", "token", "layout",
        "browser", "signal", "buffer", "update", "message", "reducer", "cursor", "element",
        "shadow", "scroll", "frame", "event", "parser", "table", "answer", "virtual", "history",
        "latency", "payload", "schema", "runtime",
    ];
    let mut rng = Lcg(0x5eed);
    let sentence = |rng: &mut Lcg| {
        let n = 8 + rng.below(9);
        let mut words: Vec<&str> = (0..n).map(|_| WORDS[rng.below(WORDS.len())]).collect();
        let first = words[0];
        let capital = first[..1].to_uppercase() + &first[1..];
        words[0] = "";
        format!("{capital}{}.", words.join(" "))
    };
    let mut out = String::from(
        "# A long answer\n\nAbout 100 kB in 2,000 deltas, to measure how the renderer copes.\n\n",
    );
    let mut section = 1;
    while out.len() < 100_000 {
        out.push_str(&format!("## Section {section}\n\n"));
        for _ in 0..2 {
            let n = 4 + rng.below(3);
            let para: Vec<String> = (0..n).map(|_| sentence(&mut rng)).collect();
            out.push_str(&para.join(" "));
            out.push_str("\n\n");
        }
        for i in 1..=4 {
            out.push_str(&format!("- Point {section}.{i}: {}\n", sentence(&mut rng)));
        }
        out.push('\n');
        if section % 3 == 0 {
            out.push_str(&format!(
                "```rust\nfn section_{section}(input: &str) -> usize {{\n    input.split_whitespace().filter(|w| w.len() > {}).count()\n}}\n```\n\n",
                section % 7
            ));
        }
        if section % 4 == 0 {
            out.push_str("| Metric | Value |\n|---|---:|\n");
            for m in ["deltas", "bytes", "frames"] {
                out.push_str(&format!("| {m} | {} |\n", rng.below(10_000)));
            }
            out.push('\n');
        }
        section += 1;
    }
    out
}

/// A tiny deterministic pseudo-random generator (no crate needed for repeatable chunking).
pub(super) struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((self.0 >> 33) as usize) % n
    }
}

/// Words with their trailing whitespace ("This ", "answer "), as the SDK fixtures stream.
pub fn word_chunks(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        current.push(c);
        if c.is_whitespace() && chars.peek().is_some_and(|n| !n.is_whitespace()) {
            out.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// Chunks of 4 to 12 characters that cut anywhere, even through markdown tokens.
pub fn ragged_chunks(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut rng = Lcg(chars.len() as u64);
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let n = (4 + rng.below(9)).min(chars.len() - i);
        out.push(chars[i..i + n].iter().collect());
        i += n;
    }
    out
}

/// `n` chunks of nearly equal length.
pub fn even_chunks(text: &str, n: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let n = n.clamp(1, chars.len().max(1));
    let (base, extra) = (chars.len() / n, chars.len() % n);
    let mut out = Vec::with_capacity(n);
    let mut i = 0;
    for k in 0..n {
        let len = base + usize::from(k < extra);
        out.push(chars[i..i + len].iter().collect());
        i += len;
    }
    out
}
