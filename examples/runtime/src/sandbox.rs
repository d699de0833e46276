//! The `edit` scenario's tool: it edits files in a scratch folder of the thread and, after
//! each edit, pushes the folder's whole diff as the thread's `diff` view, by POSTing a
//! `view_update` to the runtime's own `/callback` over HTTP, the way an external tool
//! would.
//!
//! The folder (`<scratch root>/<thread id>/`) holds `base/`, the files as they were at
//! the start, and `work/`, the files being edited; the diff compares the two and is
//! written git-style (`diff --git`, new, deleted and renamed files, unified hunks).

use chat_shell_core::protocol::chatkit::ThreadId;
use serde_json::json;
use similar::TextDiff;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// One thing the tool does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EditOp {
    /// Starts over: `base/` and `work/` hold the starting files ([`START`]).
    Reset,
    /// Creates or overwrites a file.
    Write {
        path: String,
        content: String,
    },
    Delete {
        path: String,
    },
    Rename {
        from: String,
        to: String,
    },
}

/// The files the scratch folder starts with.
pub const START: &[(&str, &str)] = &[
    (
        "src/main.rs",
        "fn main() {\n    let name = \"world\";\n    println!(\"hello {}\", name);\n}\n",
    ),
    (
        "README.md",
        "# scratch\n\nA tiny project the `edit` scenario changes.\n",
    ),
    ("notes.txt", "draft notes\nto be removed\n"),
];

/// The scratch folder of `thread`; `None` for an id that is not a plain name.
fn folder(root: &Path, thread: &ThreadId) -> Option<PathBuf> {
    let id = thread.as_str();
    let plain = !id.is_empty()
        && id.len() <= 128
        && id
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-');
    plain.then(|| root.join(id))
}

/// `path` (a relative name of ours, `/`-separated) under `dir`.
fn under(dir: &Path, path: &str) -> PathBuf {
    path.split('/')
        .fold(dir.to_path_buf(), |p, part| p.join(part))
}

fn write_file(dir: &Path, path: &str, content: &str) -> std::io::Result<()> {
    let target = under(dir, path);
    if let Some(parent) = target.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(target, content)
}

/// Applies `op` to the thread's scratch folder; returns the diff of `work/` against `base/`.
pub fn apply(folder: &Path, op: &EditOp) -> std::io::Result<String> {
    let (base, work) = (folder.join("base"), folder.join("work"));
    match op {
        EditOp::Reset => {
            if folder.exists() {
                std::fs::remove_dir_all(folder)?;
            }
            for dir in [&base, &work] {
                std::fs::create_dir_all(dir)?;
                for (path, content) in START {
                    write_file(dir, path, content)?;
                }
            }
        }
        EditOp::Write { path, content } => write_file(&work, path, content)?,
        EditOp::Delete { path } => std::fs::remove_file(under(&work, path))?,
        EditOp::Rename { from, to } => {
            let target = under(&work, to);
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::rename(under(&work, from), target)?;
        }
    }
    Ok(diff(&read_tree(&base)?, &read_tree(&work)?))
}

/// Every file under `dir`, by `/`-separated relative path.
fn read_tree(dir: &Path) -> std::io::Result<BTreeMap<String, String>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, String>) -> std::io::Result<()> {
        for entry in std::fs::read_dir(dir)? {
            let entry = entry?;
            let path = entry.path();
            if entry.file_type()?.is_dir() {
                walk(root, &path, out)?;
            } else {
                let relative = path
                    .strip_prefix(root)
                    .unwrap_or(&path)
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect::<Vec<_>>()
                    .join("/");
                let bytes = std::fs::read(&path)?;
                out.insert(relative, String::from_utf8_lossy(&bytes).into_owned());
            }
        }
        Ok(())
    }
    let mut out = BTreeMap::new();
    if dir.exists() {
        walk(dir, dir, &mut out)?;
    }
    Ok(out)
}

/// The git-style diff from `before` to `after` (path → content); empty when they agree.
/// A file gone from one path and found with the same content at a new one is a rename.
pub fn diff(before: &BTreeMap<String, String>, after: &BTreeMap<String, String>) -> String {
    let mut removed: Vec<&String> = before.keys().filter(|p| !after.contains_key(*p)).collect();
    let mut added: Vec<&String> = after.keys().filter(|p| !before.contains_key(*p)).collect();
    // (sort key, text) of each file's section.
    let mut sections: Vec<(String, String)> = Vec::new();
    let mut renamed = Vec::new();
    for from in &removed {
        if let Some(i) = added.iter().position(|to| after[*to] == before[*from]) {
            let to = added.remove(i);
            sections.push((
                (*from).clone(),
                format!(
                    "diff --git a/{from} b/{to}\nsimilarity index 100%\nrename from {from}\nrename to {to}\n"
                ),
            ));
            renamed.push((*from).clone());
        }
    }
    removed.retain(|p| !renamed.contains(p));
    for (path, old) in before {
        if let Some(new) = after.get(path).filter(|new| *new != old) {
            let mut text = format!("diff --git a/{path} b/{path}\n");
            text.push_str(&hunks(old, new, &format!("a/{path}"), &format!("b/{path}")));
            sections.push((path.clone(), text));
        }
    }
    for path in removed {
        let mut text = format!("diff --git a/{path} b/{path}\ndeleted file mode 100644\n");
        text.push_str(&hunks(&before[path], "", &format!("a/{path}"), "/dev/null"));
        sections.push((path.clone(), text));
    }
    for path in added {
        let mut text = format!("diff --git a/{path} b/{path}\nnew file mode 100644\n");
        text.push_str(&hunks("", &after[path], "/dev/null", &format!("b/{path}")));
        sections.push((path.clone(), text));
    }
    sections.sort();
    sections.into_iter().fold(String::new(), |mut out, (_, s)| {
        let _ = write!(out, "{s}");
        out
    })
}

/// `--- a`, `+++ b` and the unified hunks (nothing at all for two empty texts).
fn hunks(old: &str, new: &str, a: &str, b: &str) -> String {
    let mut text = TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(a, b)
        .to_string();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text
}

/// Where the `edit` scenario works and pushes its diffs: the scratch folders' root, and the
/// runtime's own `/callback` (its `host:port` and token; without a token nothing is pushed).
pub struct Scratch<'a> {
    pub root: &'a Path,
    pub authority: &'a str,
    /// Where the runtime's routes are nested (`POST {prefix}/callback`).
    pub prefix: &'a str,
    pub callback_token: Option<&'a str>,
}

/// Runs `op` on `thread`'s scratch folder, then pushes the diff (`{}` when empty) to the
/// runtime's own `/callback` with its token; without a token nothing is pushed.
/// Failures go to the log: the answer goes on.
pub async fn run(scratch: &Scratch<'_>, thread: &ThreadId, op: &EditOp) {
    let Some(folder) = folder(scratch.root, thread) else {
        eprintln!("chat-shell-runtime: edit: no scratch folder for thread {thread}");
        return;
    };
    let applied = {
        let op = op.clone();
        tokio::task::spawn_blocking(move || apply(&folder, &op)).await
    };
    let patch = match applied {
        Ok(Ok(patch)) => patch,
        Ok(Err(e)) => {
            eprintln!("chat-shell-runtime: edit: {op:?} failed: {e}");
            return;
        }
        Err(e) => {
            eprintln!("chat-shell-runtime: edit: {e}");
            return;
        }
    };
    let Some(token) = scratch.callback_token else {
        return;
    };
    let content = if patch.is_empty() {
        json!({})
    } else {
        json!({ "patch": patch })
    };
    let body = json!({
        "type": "view_update",
        "group_id": thread.as_str(),
        "view_type": "diff",
        "content": content,
    })
    .to_string();
    match post_callback(scratch.authority, scratch.prefix, token, &body).await {
        Ok((200, _)) => {}
        Ok((status, answer)) => {
            eprintln!("chat-shell-runtime: edit: POST /callback answered {status}: {answer}")
        }
        Err(e) => eprintln!("chat-shell-runtime: edit: POST /callback failed: {e}"),
    }
}

/// Where the runtime reaches itself: its bound `host:port`, a wildcard address replaced
/// by the loopback one.
fn own_address(authority: &str) -> String {
    let (host, port) = authority.rsplit_once(':').unwrap_or((authority, "80"));
    let host = match host {
        "0.0.0.0" => "127.0.0.1",
        "[::]" => "[::1]",
        other => other,
    };
    format!("{host}:{port}")
}

/// One HTTP/1.1 `POST /callback` to `authority` (the runtime itself): the status and body.
async fn post_callback(
    authority: &str,
    prefix: &str,
    token: &str,
    body: &str,
) -> std::io::Result<(u16, String)> {
    let address = own_address(authority);
    let connect_to = address.replace(['[', ']'], "");
    let exchange = async {
        let (host, port) = connect_to
            .rsplit_once(':')
            .ok_or_else(|| std::io::Error::other("no port"))?;
        let port: u16 = port.parse().map_err(std::io::Error::other)?;
        let mut stream = tokio::net::TcpStream::connect((host, port)).await?;
        let head = format!(
            "POST {prefix}/callback HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {token}\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        );
        stream.write_all(head.as_bytes()).await?;
        stream.write_all(body.as_bytes()).await?;
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).await?;
        let text = String::from_utf8_lossy(&raw).into_owned();
        let status = text
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| std::io::Error::other("no HTTP status"))?;
        let answer = text
            .split_once("\r\n\r\n")
            .map(|(_, b)| b.to_owned())
            .unwrap_or_default();
        Ok((status, answer))
    };
    tokio::time::timeout(Duration::from_secs(10), exchange)
        .await
        .map_err(|_| std::io::Error::other("no answer within 10 s"))?
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(files: &[(&str, &str)]) -> BTreeMap<String, String> {
        files
            .iter()
            .map(|(p, c)| (p.to_string(), c.to_string()))
            .collect()
    }

    #[test]
    fn git_style_diff() {
        let before = tree(&[
            ("a.txt", "one\ntwo\n"),
            ("gone.txt", "bye\n"),
            ("old.md", "same\n"),
        ]);
        let after = tree(&[
            ("a.txt", "one\n2\n"),
            ("new.rs", "fn f() {}\n"),
            ("moved.md", "same\n"),
        ]);
        let patch = diff(&before, &after);
        assert_eq!(
            patch,
            "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n\
             diff --git a/gone.txt b/gone.txt\ndeleted file mode 100644\n--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n\
             diff --git a/new.rs b/new.rs\nnew file mode 100644\n--- /dev/null\n+++ b/new.rs\n@@ -0,0 +1 @@\n+fn f() {}\n\
             diff --git a/old.md b/moved.md\nsimilarity index 100%\nrename from old.md\nrename to moved.md\n"
        );
        assert_eq!(diff(&before, &before), "");
    }

    #[test]
    fn edits_in_a_scratch_folder() {
        let root = std::env::temp_dir().join(format!(
            "chat-shell-sandbox-test-{}-{}",
            std::process::id(),
            crate::store::hex(&crate::store::random_bytes::<4>())
        ));
        let dir = folder(&root, &ThreadId::from("thr_abc")).unwrap();
        assert!(folder(&root, &ThreadId::from("../x")).is_none());
        assert_eq!(apply(&dir, &EditOp::Reset).unwrap(), "");
        let patch = apply(
            &dir,
            &EditOp::Write {
                path: "src/lib.rs".into(),
                content: "pub fn f() {}\n".into(),
            },
        )
        .unwrap();
        assert!(patch.contains("new file mode 100644\n--- /dev/null\n+++ b/src/lib.rs"));
        let patch = apply(
            &dir,
            &EditOp::Delete {
                path: "notes.txt".into(),
            },
        )
        .unwrap();
        assert!(patch.contains("deleted file mode 100644"));
        let patch = apply(
            &dir,
            &EditOp::Rename {
                from: "README.md".into(),
                to: "docs/README.md".into(),
            },
        )
        .unwrap();
        assert!(patch.contains("rename from README.md\nrename to docs/README.md"));
        assert_eq!(apply(&dir, &EditOp::Reset).unwrap(), "");
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn the_runtime_reaches_itself_on_loopback() {
        assert_eq!(own_address("0.0.0.0:8080"), "127.0.0.1:8080");
        assert_eq!(own_address("[::]:8080"), "[::1]:8080");
        assert_eq!(own_address("127.0.0.1:9"), "127.0.0.1:9");
    }
}
