//! `fs/read_text_file` and `fs/write_text_file` on the workspace: the opened file checked
//! before it is read, a write made to a new file renamed over the old name.

use super::diff_text::before_text;
use super::{io_error, sys, too_large, FsError, Workspace, MAX_FILE_BYTES};
use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{ErrorKind, Read, Write};
use std::path::{Path, PathBuf};

impl Workspace {
    /// The text of `path`, from 1-based `line`, at most `limit` lines.
    pub fn read(
        &self,
        path: &Path,
        line: Option<u32>,
        limit: Option<u32>,
    ) -> Result<String, FsError> {
        let shown = path.display().to_string();
        let parts = self.relative(path)?;
        let inside: PathBuf = parts.iter().collect();
        let inside = if parts.is_empty() {
            Path::new(".")
        } else {
            &inside
        };
        let file = sys::open_file(&self.dir, inside).map_err(|e| io_error(&shown, e))?;
        let len = checked(&file, &shown)?.len();
        let mut bytes = Vec::with_capacity(len as usize);
        // The cap again: the file may grow after the check.
        file.take(MAX_FILE_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| io_error(&shown, e))?;
        if bytes.len() as u64 > MAX_FILE_BYTES {
            return Err(too_large(&shown));
        }
        let text = String::from_utf8(bytes)
            .map_err(|_| FsError::Other(format!("{shown} is not UTF-8 text")))?;
        if line.is_none() && limit.is_none() {
            return Ok(text);
        }
        let skip = line.map_or(0, |l| l.saturating_sub(1) as usize);
        let take = limit.map_or(usize::MAX, |l| l as usize);
        Ok(text.split_inclusive('\n').skip(skip).take(take).collect())
    }

    /// Writes `content` to `path`, creating the file (and missing folders inside the
    /// workspace) if needed. The file is replaced whole: a new one, renamed over it.
    pub fn write(&self, path: &Path, content: &str) -> Result<Written, FsError> {
        let shown = path.display().to_string();
        let parts = self.relative(path)?;
        let Some((name, folders)) = parts.split_last() else {
            return Err(FsError::Other(format!("{shown} is a folder")));
        };
        if content.len() as u64 > MAX_FILE_BYTES {
            return Err(too_large(&shown));
        }
        let folder = self.folder(folders, &shown)?;
        // What the file held before, for the Diff view (it is checked as a read is).
        let before = match sys::open_own(&folder, name) {
            Ok(file) => {
                let mode = checked(&file, &shown)?.permissions();
                Some((before_text(file, &shown)?, mode))
            }
            Err(e) if e.kind() == ErrorKind::NotFound => None,
            Err(e) => return Err(io_error(&shown, e)),
        };
        let temp = format!(".{}.tmp", crate::store::new_id("chat-shell"));
        let mut file =
            sys::create_new(&folder, OsStr::new(&temp)).map_err(|e| io_error(&shown, e))?;
        let replaced = file
            .write_all(content.as_bytes())
            .and_then(|()| match &before {
                Some((_, mode)) => file.set_permissions(mode.clone()),
                None => Ok(()),
            })
            .and_then(|()| sys::rename(&folder, OsStr::new(&temp), name));
        if let Err(e) = replaced {
            let _ = sys::remove(&folder, OsStr::new(&temp));
            return Err(io_error(&shown, e));
        }
        let relative = parts
            .iter()
            .map(|p| p.to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        Ok(Written {
            relative,
            before: before.map(|(text, _)| text),
        })
    }

    /// The folder `parts` (beneath the workspace), made where missing.
    fn folder(&self, parts: &[OsString], shown: &str) -> Result<File, FsError> {
        let mut folder = self.dir.try_clone().map_err(|e| io_error(shown, e))?;
        for part in parts {
            let next = match sys::open_dir(&folder, part) {
                Err(e) if e.kind() == ErrorKind::NotFound => match sys::make_dir(&folder, part) {
                    Err(e) if e.kind() != ErrorKind::AlreadyExists => Err(e),
                    _ => sys::open_dir(&folder, part),
                },
                opened => opened,
            };
            folder = next.map_err(|e| io_error(shown, e))?;
        }
        Ok(folder)
    }
}

/// The opened `file` is one the agent may use: a regular file, its only link, not over
/// the cap. Returns what fstat said of it.
fn checked(file: &File, shown: &str) -> Result<std::fs::Metadata, FsError> {
    let meta = file.metadata().map_err(|e| io_error(shown, e))?;
    if meta.is_dir() {
        return Err(FsError::Other(format!("{shown} is a folder")));
    }
    if !meta.is_file() {
        return Err(FsError::Other(format!(
            "{shown} is not a regular file (a FIFO, device or socket); refused"
        )));
    }
    if sys::links(&meta) != 1 {
        return Err(FsError::Outside(format!(
            "{shown} has other hard links, which may be outside the workspace; refused"
        )));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(too_large(shown));
    }
    Ok(meta)
}

/// A file the agent wrote.
#[derive(Debug, PartialEq)]
pub struct Written {
    /// Its path inside the workspace (`/`-separated on Unix).
    pub relative: String,
    /// What it held before ([`diff_text`]), `None` when it was new.
    pub before: Option<String>,
}
