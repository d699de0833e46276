//! Two build steps for the element's crate:
//!  - the split build (feature `split`) keeps the linker's relocations in the wasm:
//!    wasm-split-cli needs them to cut the module (scripts/build.sh). Only this crate's
//!    cdylib gets them; every other build (the renderer module, tests, apps) stays as it was;
//!  - the stylesheet the element adopts (`style/chat-shell.css`) is embedded without its
//!    comments and runs of whitespace (`$OUT_DIR/chat-shell.min.css`): 1.6 kB less brotli
//!    in the first wasm module. Strings are copied as they are.
use std::path::Path;

fn main() {
    println!("cargo:rerun-if-env-changed=CARGO_FEATURE_SPLIT");
    let wasm = std::env::var("CARGO_CFG_TARGET_ARCH").is_ok_and(|a| a == "wasm32");
    if wasm && std::env::var_os("CARGO_FEATURE_SPLIT").is_some() {
        println!("cargo:rustc-link-arg-cdylib=--emit-relocs");
    }

    let source = "style/chat-shell.css";
    println!("cargo:rerun-if-changed={source}");
    let css = std::fs::read_to_string(source).expect("style/chat-shell.css");
    let out = std::env::var("OUT_DIR").expect("OUT_DIR");
    std::fs::write(Path::new(&out).join("chat-shell.min.css"), minify_css(&css))
        .expect("write the minified stylesheet");
}

/// `css` without comments, each run of whitespace one space, and none left next to `{`, `}`
/// or `;`, where CSS never needs it; quoted strings are kept byte for byte.
fn minify_css(css: &str) -> String {
    let mut out = String::with_capacity(css.len());
    let mut chars = css.chars().peekable();
    let mut space = false;
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut last = ' ';
                for c in chars.by_ref() {
                    if last == '*' && c == '/' {
                        break;
                    }
                    last = c;
                }
                space = true;
            }
            c if c.is_whitespace() => space = true,
            '"' | '\'' => {
                flush_space(&mut out, &mut space, c);
                out.push(c);
                let mut escaped = false;
                for s in chars.by_ref() {
                    out.push(s);
                    if escaped {
                        escaped = false;
                    } else if s == '\\' {
                        escaped = true;
                    } else if s == c {
                        break;
                    }
                }
            }
            c => {
                flush_space(&mut out, &mut space, c);
                out.push(c);
            }
        }
    }
    out
}

/// Writes the pending space before `next`, unless a brace or semicolon is on either side.
fn flush_space(out: &mut String, space: &mut bool, next: char) {
    let tight = |c: char| matches!(c, '{' | '}' | ';');
    if std::mem::take(space) && !out.is_empty() && !tight(next) && !out.ends_with(tight) {
        out.push(' ');
    }
}
