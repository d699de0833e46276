//! Benchmark: the syntax highlighter's time per 1,000 lines of code, for a few languages,
//! markup included (what a code block costs once its fence closes). A figure to report, not
//! a timed test. The same code runs as the element's `highlight` part in the browser; its
//! size is in `scripts/sizes.sh`'s output (`split_highlight.wasm`).

use chat_shell_core::highlight::{code_html, Lang};
use std::time::Instant;

const LINES: usize = 1_000;

const RUST: &str = r#"/// A cache of rendered blocks, keyed by their text.
pub struct Cache<'a> {
    entries: HashMap<&'a str, (u64, String)>,
    hits: usize, // how often the cache answered
}

impl<'a> Cache<'a> {
    pub fn get(&mut self, key: &'a str) -> Option<&String> {
        if let Some((_, html)) = self.entries.get(key) {
            self.hits += 1;
            return Some(html);
        }
        println!("miss: {key:?} after {} hits", self.hits);
        None
    }
}
"#;

const JS: &str = r#"// Streams an answer into the page.
export async function stream(url, { signal } = {}) {
  const res = await fetch(url, { method: 'POST', signal });
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  const reader = res.body.getReader();
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length; /* bytes */
  }
  return { total, ok: true, at: Date.now() * 1.5e-3 };
}
"#;

const PYTHON: &str = r#"@dataclass
class Point:
    """A point in the plane."""
    x: float = 0.0
    y: float = 0.0

    def norm(self) -> float:
        # Euclidean length
        return (self.x ** 2 + self.y ** 2) ** 0.5 if self.x else None
"#;

fn lines_of(sample: &str, n: usize) -> String {
    sample
        .lines()
        .cycle()
        .take(n)
        .collect::<Vec<_>>()
        .join("\n")
}

fn main() {
    for (name, lang, sample) in [
        ("rust", Lang::Rust, RUST),
        ("javascript", Lang::JavaScript, JS),
        ("python", Lang::Python, PYTHON),
    ] {
        let code = lines_of(sample, LINES);
        let mut best = f64::MAX;
        let mut bytes = 0;
        for _ in 0..20 {
            let started = Instant::now();
            let (html, lines) = code_html(lang, &code);
            let ms = started.elapsed().as_secs_f64() * 1e3;
            assert_eq!(lines, LINES);
            bytes = html.as_str().len();
            best = best.min(ms);
        }
        println!(
            "highlight {name}: {:.3} ms per 1,000 lines (best of 20, native), {} bytes of code -> {} bytes of markup",
            best,
            code.len(),
            bytes
        );
    }
}
