//! The workspace the agent may touch, and how a path is confined to it: lexically (no
//! `..` out), then opened beneath the folder's handle held from startup.

use super::{sys, FsError};
use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::path::{Component, Path, PathBuf};

/// The workspace the agent may touch. `root` is canonical (symlinks resolved); `dir` is
/// the folder itself, opened once, beneath which every file is opened.
#[derive(Clone, Debug)]
pub struct Workspace {
    root: PathBuf,
    pub(super) dir: std::sync::Arc<File>,
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
        let handle =
            sys::open_root(&root).map_err(|e| format!("--workspace {}: {e}", dir.display()))?;
        Ok(Workspace {
            root,
            dir: std::sync::Arc::new(handle),
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The workspace folder's handle, beneath which everything is opened.
    pub(crate) fn handle(&self) -> &File {
        &self.dir
    }

    /// Where `path` is, if the agent may use it (a terminal's `cwd`: checked by path, as
    /// a command may go anywhere anyway; files are opened with [`Workspace::read`] and
    /// [`Workspace::write`]).
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

    /// `path` relative to the workspace, lexically (`.` and `..` taken away): its parts,
    /// none for the workspace itself.
    pub(super) fn relative(&self, path: &Path) -> Result<Vec<OsString>, FsError> {
        let outside = || FsError::Outside(format!("{} is outside the workspace", path.display()));
        let mut lexical = PathBuf::new();
        for part in self.root.join(path).components() {
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
        let inside = lexical.strip_prefix(&self.root).map_err(|_| outside())?;
        Ok(inside.iter().map(OsStr::to_owned).collect())
    }
}
