//! `fs/read_text_file` and `fs/write_text_file`, confined to the workspace (`--workspace`).
//!
//! A path is resolved against the workspace when relative, its `.` and `..` taken away
//! lexically, and must then lie inside the workspace; the real location (every symlink
//! followed, for the deepest part that exists) must lie inside it too. So `ws/../x`,
//! `/etc/passwd`, a symlink in the workspace that points out (to a file or to a folder),
//! and a dangling symlink are all refused. (What changes on disk between the check and
//! the access is not guarded against: the agent and this runtime run as the same user.)

use std::io::ErrorKind;
use std::path::{Component, Path, PathBuf};

/// The largest file `fs/read_text_file` returns.
pub const MAX_READ_BYTES: u64 = 16 * 1024 * 1024;

/// Why a file access was refused, for the agent (it becomes the JSON-RPC error message).
#[derive(Debug, PartialEq, Eq)]
pub enum FsError {
    /// Outside the workspace (directly, through `..`, or through a symlink).
    Outside(String),
    NotFound(String),
    Other(String),
}

impl FsError {
    pub fn message(&self) -> &str {
        match self {
            FsError::Outside(m) | FsError::NotFound(m) | FsError::Other(m) => m,
        }
    }

    /// The JSON-RPC error code: ACP's "resource not found", or "invalid params".
    pub fn code(&self) -> i32 {
        match self {
            FsError::NotFound(_) => -32002,
            FsError::Outside(_) => -32602,
            FsError::Other(_) => -32603,
        }
    }
}

/// The workspace the agent may touch. `root` is canonical (symlinks resolved).
#[derive(Clone, Debug)]
pub struct Workspace {
    root: PathBuf,
}

impl Workspace {
    /// `dir` must exist and be a directory.
    pub fn new(dir: &Path) -> Result<Workspace, String> {
        let root = dir
            .canonicalize()
            .map_err(|e| format!("--workspace {}: {e}", dir.display()))?;
        if !root.is_dir() {
            return Err(format!("--workspace {}: not a directory", dir.display()));
        }
        Ok(Workspace { root })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Where `path` is, if the agent may use it.
    pub fn resolve(&self, path: &Path) -> Result<PathBuf, FsError> {
        let shown = path.display().to_string();
        let outside = || FsError::Outside(format!("{shown} is outside the workspace"));
        let joined = if path.is_absolute() {
            path.to_path_buf()
        } else {
            self.root.join(path)
        };
        let mut lexical = PathBuf::new();
        for part in joined.components() {
            match part {
                Component::ParentDir => {
                    if !lexical.pop() {
                        return Err(outside());
                    }
                }
                Component::CurDir => {}
                other => lexical.push(other),
            }
        }
        if !lexical.starts_with(&self.root) {
            return Err(outside());
        }
        // Follow every symlink of the deepest part that exists.
        let mut existing = lexical.as_path();
        let mut rest = Vec::new();
        loop {
            match existing.symlink_metadata() {
                Ok(meta) => {
                    if meta.file_type().is_symlink() && !existing.exists() {
                        return Err(FsError::Outside(format!(
                            "{shown} is a symlink to nowhere; refused"
                        )));
                    }
                    break;
                }
                Err(_) => match (existing.parent(), existing.file_name()) {
                    (Some(parent), Some(name)) => {
                        rest.push(name.to_owned());
                        existing = parent;
                    }
                    _ => return Err(outside()),
                },
            }
        }
        let real = existing
            .canonicalize()
            .map_err(|e| FsError::Other(format!("{shown}: {e}")))?;
        if !real.starts_with(&self.root) {
            return Err(outside());
        }
        let mut resolved = real;
        for name in rest.into_iter().rev() {
            resolved.push(name);
        }
        Ok(resolved)
    }

    /// The text of `path`, from 1-based `line`, at most `limit` lines.
    pub fn read(
        &self,
        path: &Path,
        line: Option<u32>,
        limit: Option<u32>,
    ) -> Result<String, FsError> {
        let real = self.resolve(path)?;
        let shown = path.display();
        let meta = std::fs::metadata(&real).map_err(|e| io_error(&shown.to_string(), e))?;
        if !meta.is_file() {
            return Err(FsError::Other(format!("{shown} is not a file")));
        }
        if meta.len() > MAX_READ_BYTES {
            return Err(FsError::Other(format!(
                "{shown} is larger than {} MB",
                MAX_READ_BYTES / 1024 / 1024
            )));
        }
        let text = std::fs::read_to_string(&real).map_err(|e| io_error(&shown.to_string(), e))?;
        if line.is_none() && limit.is_none() {
            return Ok(text);
        }
        let skip = line.map_or(0, |l| l.saturating_sub(1) as usize);
        let take = limit.map_or(usize::MAX, |l| l as usize);
        Ok(text.split_inclusive('\n').skip(skip).take(take).collect())
    }

    /// Writes `content` to `path`, creating the file (and missing folders inside the
    /// workspace) if needed.
    pub fn write(&self, path: &Path, content: &str) -> Result<Written, FsError> {
        let real = self.resolve(path)?;
        let shown = path.display().to_string();
        if real.is_dir() {
            return Err(FsError::Other(format!("{shown} is a folder")));
        }
        if let Some(parent) = real.parent() {
            std::fs::create_dir_all(parent).map_err(|e| io_error(&shown, e))?;
        }
        // Read for the Diff view: what the file held before this write, if it existed.
        let before = std::fs::read(&real)
            .ok()
            .map(|bytes| String::from_utf8_lossy(&bytes).into_owned());
        std::fs::write(&real, content).map_err(|e| io_error(&shown, e))?;
        let relative = real
            .strip_prefix(&self.root)
            .unwrap_or(&real)
            .to_string_lossy()
            .into_owned();
        Ok(Written { relative, before })
    }
}

/// A file the agent wrote.
#[derive(Debug, PartialEq)]
pub struct Written {
    /// Its path inside the workspace (`/`-separated on Unix).
    pub relative: String,
    /// What it held before, `None` when it was new.
    pub before: Option<String>,
}

fn io_error(shown: &str, e: std::io::Error) -> FsError {
    match e.kind() {
        ErrorKind::NotFound => FsError::NotFound(format!("{shown}: no such file")),
        _ => FsError::Other(format!("{shown}: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "chat-shell-acp-fs-{name}-{}",
            crate::store::new_id("t")
        ));
        std::fs::create_dir_all(&dir).unwrap();
        dir.canonicalize().unwrap()
    }

    #[test]
    fn inside_is_allowed_outside_is_refused() {
        let base = temp("confine");
        let ws_dir = base.join("ws");
        std::fs::create_dir_all(ws_dir.join("sub")).unwrap();
        std::fs::write(base.join("secret.txt"), "secret").unwrap();
        let ws = Workspace::new(&ws_dir).unwrap();

        let first = ws
            .write(&ws_dir.join("sub/a.txt"), "one\ntwo\nthree\n")
            .unwrap();
        assert_eq!(
            first,
            Written {
                relative: "sub/a.txt".into(),
                before: None
            }
        );
        // A second write says what the file held (the Diff view's "before").
        let again = ws
            .write(Path::new("sub/a.txt"), "one\ntwo\nthree\n")
            .unwrap();
        assert_eq!(again.before.as_deref(), Some("one\ntwo\nthree\n"));
        assert_eq!(
            ws.read(&ws_dir.join("sub/a.txt"), None, None).unwrap(),
            "one\ntwo\nthree\n"
        );
        assert_eq!(
            ws.read(&ws_dir.join("sub/a.txt"), Some(2), Some(1))
                .unwrap(),
            "two\n"
        );
        // Relative paths are the workspace's; new folders are made inside it.
        ws.write(Path::new("new/deep/b.txt"), "b").unwrap();
        assert_eq!(
            std::fs::read_to_string(ws_dir.join("new/deep/b.txt")).unwrap(),
            "b"
        );
        // `..` that stays inside is fine.
        assert!(ws
            .read(&ws_dir.join("sub/../sub/a.txt"), None, None)
            .is_ok());

        fn refused<T>(r: Result<T, FsError>) -> bool {
            matches!(r, Err(FsError::Outside(_)))
        }
        assert!(refused(ws.read(&ws_dir.join("../secret.txt"), None, None)));
        assert!(refused(ws.read(Path::new("../secret.txt"), None, None)));
        assert!(refused(ws.read(&base.join("secret.txt"), None, None)));
        assert!(refused(ws.read(Path::new("/etc/passwd"), None, None)));
        assert!(refused(ws.write(&ws_dir.join("../escape.txt"), "x")));
        assert!(refused(ws.write(Path::new("/tmp/escape.txt"), "x")));
        assert!(!base.join("escape.txt").exists());

        #[cfg(unix)]
        {
            use std::os::unix::fs::symlink;
            symlink(base.join("secret.txt"), ws_dir.join("link.txt")).unwrap();
            symlink(&base, ws_dir.join("out")).unwrap();
            symlink(base.join("nowhere.txt"), ws_dir.join("dangling.txt")).unwrap();
            symlink(ws_dir.join("sub/a.txt"), ws_dir.join("inner.txt")).unwrap();
            assert!(refused(ws.read(&ws_dir.join("link.txt"), None, None)));
            assert!(refused(ws.write(&ws_dir.join("link.txt"), "x")));
            assert!(refused(ws.read(&ws_dir.join("out/secret.txt"), None, None)));
            assert!(refused(ws.write(&ws_dir.join("out/new.txt"), "x")));
            assert!(refused(ws.write(&ws_dir.join("dangling.txt"), "x")));
            assert!(!base.join("nowhere.txt").exists() && !base.join("new.txt").exists());
            assert_eq!(
                std::fs::read_to_string(base.join("secret.txt")).unwrap(),
                "secret"
            );
            // A symlink that stays inside is followed.
            assert_eq!(
                ws.read(&ws_dir.join("inner.txt"), None, None).unwrap(),
                "one\ntwo\nthree\n"
            );
        }
        assert!(matches!(
            ws.read(&ws_dir.join("missing.txt"), None, None),
            Err(FsError::NotFound(_))
        ));
        let _ = std::fs::remove_dir_all(&base);
    }
}
