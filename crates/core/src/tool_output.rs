//! What an agent's tool call shows besides its content, read from its raw input and
//! output: the command and directory a permission card asks about, terminal output, and
//! raw JSON as bounded pretty text. Always plain text for the views (never HTML).

use serde_json::Value;

/// Raw JSON shown at most (bytes of pretty text); the rest is cut.
pub const RAW_LIMIT: usize = 4096;
/// Terminal output shown at most (bytes); the rest is cut with a notice.
pub const TERMINAL_LIMIT: usize = 16 * 1024;

/// Text cut to at most `limit` bytes (on a character boundary), and whether it was cut.
pub fn bounded(text: &str, limit: usize) -> (String, bool) {
    if text.len() <= limit {
        return (text.to_owned(), false);
    }
    let mut end = limit;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (text[..end].to_owned(), true)
}

/// Raw input or output as a reader sees it, bounded by [`RAW_LIMIT`]: text as text
/// (terminal escapes and other control characters gone, never JSON-escaped), objects as
/// `key: value` lines and lists as `- item` lines, nested by indent.
pub fn raw_text(value: &Value) -> (String, bool) {
    let mut out = String::new();
    write_raw(&mut out, value, 0);
    bounded(out.trim_end(), RAW_LIMIT)
}

fn write_raw(out: &mut String, value: &Value, depth: usize) {
    let pad = "  ".repeat(depth);
    match value {
        Value::Object(fields) if !fields.is_empty() => {
            for (key, v) in fields {
                out.push_str(&pad);
                out.push_str(&readable(key));
                out.push(':');
                write_nested(out, v, depth);
            }
        }
        Value::Array(items) if !items.is_empty() => {
            for v in items {
                out.push_str(&pad);
                out.push('-');
                write_nested(out, v, depth);
            }
        }
        scalar => {
            out.push_str(&pad);
            out.push_str(&scalar_text(scalar));
            out.push('\n');
        }
    }
}

/// After `key:` or `-`: a one-line value on the same line, anything else below it.
fn write_nested(out: &mut String, value: &Value, depth: usize) {
    let text = match value {
        Value::Object(o) if !o.is_empty() => None,
        Value::Array(a) if !a.is_empty() => None,
        scalar => Some(scalar_text(scalar)),
    };
    match text {
        Some(t) if !t.contains('\n') => {
            out.push(' ');
            out.push_str(&t);
            out.push('\n');
        }
        Some(t) => {
            out.push('\n');
            let pad = "  ".repeat(depth + 1);
            for line in t.lines() {
                out.push_str(&pad);
                out.push_str(line);
                out.push('\n');
            }
        }
        None => {
            out.push('\n');
            write_raw(out, value, depth + 1);
        }
    }
}

fn scalar_text(value: &Value) -> String {
    match value {
        Value::String(s) => readable(s),
        Value::Object(_) => "{}".into(),
        Value::Array(_) => "[]".into(),
        other => other.to_string(),
    }
}

/// `text` with terminal escape sequences and other control characters (but newlines and
/// tabs) removed.
fn readable(text: &str) -> String {
    crate::ansi::styled_runs(text)
        .into_iter()
        .map(|r| r.text)
        .collect::<String>()
        .chars()
        .filter(|c| !c.is_control() || matches!(c, '\n' | '\t'))
        .collect()
}

/// The command a tool call would run, from its raw input: `command` as a string, or as
/// a list of words (joined by spaces), followed by `args` when given as a list.
pub fn command(raw_input: Option<&Value>) -> Option<String> {
    let input = raw_input?;
    let words = |v: &Value| -> Option<String> {
        match v {
            Value::String(s) => Some(s.clone()),
            Value::Array(items) => Some(
                items
                    .iter()
                    .map(|w| w.as_str().map_or_else(|| w.to_string(), str::to_owned))
                    .collect::<Vec<_>>()
                    .join(" "),
            ),
            _ => None,
        }
    };
    let mut command = words(input.get("command").or_else(|| input.get("cmd"))?)?;
    if let Some(args) = input.get("args").filter(|a| a.is_array()).and_then(words) {
        if !args.is_empty() {
            command.push(' ');
            command.push_str(&args);
        }
    }
    Some(command).filter(|c| !c.trim().is_empty())
}

/// The working directory of the command, from its raw input (`cwd`).
pub fn cwd(raw_input: Option<&Value>) -> Option<String> {
    raw_input?
        .get("cwd")?
        .as_str()
        .filter(|c| !c.is_empty())
        .map(str::to_owned)
}

/// `path` as the reader needs it: relative to the session's working directory `root` when
/// it lies inside it (`.` for the root itself), else as given. Only whole path components
/// match: `/repo-old/x` is not inside `/repo`.
pub fn relative_path<'p>(path: &'p str, root: Option<&str>) -> &'p str {
    let Some(root) = root
        .map(|r| r.trim_end_matches('/'))
        .filter(|r| !r.is_empty())
    else {
        return path;
    };
    match path.strip_prefix(root) {
        Some("" | "/") => ".",
        Some(rest) if rest.starts_with('/') => rest.trim_start_matches('/'),
        _ => path,
    }
}

/// Terminal output from a raw output shaped like ACP's `terminal/output` answer
/// (`{output, truncated, exitStatus}`) or a plain string, bounded by
/// [`TERMINAL_LIMIT`]; the flag says the server or this bound cut it.
pub fn terminal_output(raw_output: Option<&Value>) -> Option<(String, bool)> {
    let raw = raw_output?;
    let (text, cut_by_server) = match raw {
        Value::String(s) => (s.as_str(), false),
        other => (
            other.get("output")?.as_str()?,
            other.get("truncated").and_then(Value::as_bool) == Some(true),
        ),
    };
    let (text, cut) = bounded(text, TERMINAL_LIMIT);
    Some((text, cut || cut_by_server))
}

/// How a terminal's command ended, from a raw output shaped like ACP's `terminal/output`
/// answer (`exitStatus: {exitCode, signal}`); `None` while it runs or when not said.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExitStatus {
    Code(i64),
    Signal(String),
}

pub fn exit_status(raw_output: Option<&Value>) -> Option<ExitStatus> {
    let status = raw_output?.get("exitStatus")?;
    if let Some(signal) = status.get("signal").and_then(Value::as_str) {
        return Some(ExitStatus::Signal(bounded(signal, 64).0));
    }
    status
        .get("exitCode")
        .and_then(Value::as_i64)
        .map(ExitStatus::Code)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn commands_from_strings_lists_and_args() {
        let c = |v: Value| command(Some(&v));
        assert_eq!(
            c(json!({"command": "cargo test"})).as_deref(),
            Some("cargo test")
        );
        assert_eq!(
            c(json!({"command": ["rm", "-rf", "x"]})).as_deref(),
            Some("rm -rf x")
        );
        assert_eq!(
            c(json!({"command": "ls", "args": ["-la", "/"]})).as_deref(),
            Some("ls -la /")
        );
        assert_eq!(c(json!({"path": "a"})), None);
        assert_eq!(c(json!({"command": " "})), None);
        assert_eq!(command(None), None);
        assert_eq!(
            cwd(Some(&json!({"cwd": "/repo"}))).as_deref(),
            Some("/repo")
        );
    }

    #[test]
    fn terminal_output_keeps_the_servers_truncation_and_bounds_its_own() {
        let out = json!({"output": "ok\n", "truncated": true, "exitStatus": {"exitCode": 0}});
        assert_eq!(terminal_output(Some(&out)), Some(("ok\n".into(), true)));
        assert_eq!(
            terminal_output(Some(&json!("plain"))),
            Some(("plain".into(), false))
        );
        let big = "é".repeat(TERMINAL_LIMIT);
        let (text, cut) = terminal_output(Some(&json!({ "output": big }))).unwrap();
        assert!(cut && text.len() <= TERMINAL_LIMIT && text.chars().all(|c| c == 'é'));
        assert_eq!(terminal_output(Some(&json!({"exitCode": 1}))), None);
    }

    #[test]
    fn raw_text_is_readable_decoded_and_bounded() {
        assert_eq!(raw_text(&json!({"a": 1})), ("a: 1".into(), false));
        // Keys in sorted order: the map keeps insertion order where serde_json's
        // `preserve_order` is on (in the workspace), sorted order elsewhere.
        let (text, _) = raw_text(&json!({
            "args": ["-v", {"deep": true}],
            "empty": {},
            "exitStatus": {"exitCode": 0, "signal": null},
            "output": "\u{1b}[32mok\u{1b}[0m 3 passed\nline two\u{7}"
        }));
        assert_eq!(
            text,
            "args:\n  - -v\n  -\n    deep: true\nempty: {}\nexitStatus:\n  exitCode: 0\n  signal: \
             null\noutput:\n  ok 3 passed\n  line two"
        );
        assert!(!text.contains('\u{1b}') && !text.contains("\\u"), "{text}");
        let (text, cut) = raw_text(&json!({ "big": "x".repeat(10_000) }));
        assert!(cut && text.len() == RAW_LIMIT);
    }

    #[test]
    fn exit_status_says_code_or_signal_and_nothing_while_running() {
        let e = |v: Value| exit_status(Some(&v));
        assert_eq!(
            e(json!({"output": "", "exitStatus": {"exitCode": 2}})),
            Some(ExitStatus::Code(2))
        );
        assert_eq!(
            e(json!({"exitStatus": {"exitCode": null, "signal": "SIGKILL"}})),
            Some(ExitStatus::Signal("SIGKILL".into()))
        );
        assert_eq!(e(json!({"output": "still going"})), None);
        assert_eq!(e(json!({"exitStatus": {"exitCode": "x"}})), None);
        assert_eq!(exit_status(None), None);
    }

    #[test]
    fn paths_inside_the_working_directory_read_relative() {
        let root = Some("/work/repo");
        assert_eq!(relative_path("/work/repo/src/main.rs", root), "src/main.rs");
        assert_eq!(relative_path("/work/repo", root), ".");
        assert_eq!(relative_path("/work/repo/", root), ".");
        assert_eq!(
            relative_path("/work/repo/src/main.rs", Some("/work/repo/")),
            "src/main.rs"
        );
        // Outside, a sibling with the same start, or no root: as given.
        assert_eq!(
            relative_path("/work/repo-old/a.rs", root),
            "/work/repo-old/a.rs"
        );
        assert_eq!(relative_path("/etc/passwd", root), "/etc/passwd");
        assert_eq!(relative_path("src/lib.rs", root), "src/lib.rs");
        assert_eq!(relative_path("/work/repo/a", None), "/work/repo/a");
        assert_eq!(relative_path("/a/b", Some("/")), "/a/b");
        assert_eq!(relative_path("/a/b", Some("")), "/a/b");
    }
}
