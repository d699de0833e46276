//! `fs/read_text_file` and `fs/write_text_file`, confined to the workspace (`--workspace`).
//!
//! A path is made relative to the workspace lexically (a relative one is the workspace's,
//! an absolute one must lie in it, `..` may not climb out), then opened beneath a handle on
//! the workspace folder, held from startup, with `openat2(RESOLVE_BENEATH)`: the kernel
//! refuses every way out (`..` above the folder, an absolute symlink, a relative one that
//! climbs out) at the moment of the open, so nothing swapped in between a check and the
//! access can lead out, while links that stay inside (`CLAUDE.md -> AGENTS.md`) work. The
//! opened handle is then checked: a regular file (a FIFO or a device could block or never
//! end), with one link (another could be a name outside), no larger than
//! [`MAX_FILE_BYTES`]. A write goes to a new file in the same folder, renamed over the old
//! name: it never writes through a link (a write to a symlink's own name is refused). Linux only (openat2, Linux 5.6).

use sha2::{Digest, Sha256};
use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{ErrorKind, Read, Write};
use std::path::{Component, Path, PathBuf};
use std::time::Duration;

/// The largest file read, or written over, and the largest text written.
pub const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;
/// The largest text the Diff view keeps of a file (before or after a write); a larger one
/// is kept as a line with its size and digest.
pub const MAX_DIFF_BYTES: usize = 256 * 1024;
/// How long a file call may take before the agent is answered with an error.
pub const TIMEOUT: Duration = Duration::from_secs(10);

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

/// The workspace the agent may touch. `root` is canonical (symlinks resolved); `dir` is
/// the folder itself, opened once, beneath which every file is opened.
#[derive(Clone, Debug)]
pub struct Workspace {
    root: PathBuf,
    dir: std::sync::Arc<File>,
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
    pub(super) fn handle(&self) -> &File {
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
    fn relative(&self, path: &Path) -> Result<Vec<OsString>, FsError> {
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

/// Runs the file call `f` off the caller's task, answering an error if it takes longer
/// than `timeout` (it then finishes, or stays blocked, on its own thread).
pub async fn off_loop<T: Send + 'static>(
    timeout: Duration,
    shown: &str,
    f: impl FnOnce() -> Result<T, FsError> + Send + 'static,
) -> Result<T, FsError> {
    match tokio::time::timeout(timeout, tokio::task::spawn_blocking(f)).await {
        Ok(Ok(done)) => done,
        Ok(Err(e)) => Err(FsError::Other(format!("{shown}: {e}"))),
        Err(_) => Err(FsError::Other(format!(
            "{shown}: the file system did not answer within {} s",
            timeout.as_secs()
        ))),
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

fn too_large(shown: &str) -> FsError {
    FsError::Other(format!(
        "{shown} is larger than {} MB",
        MAX_FILE_BYTES / 1024 / 1024
    ))
}

/// A file's text for the Diff view: itself up to [`MAX_DIFF_BYTES`], past that a line
/// with its size and digest (read through, not kept).
fn before_text(file: File, shown: &str) -> Result<String, FsError> {
    let mut rest = file.take(MAX_FILE_BYTES + 1);
    let mut head = Vec::new();
    (&mut rest)
        .take(MAX_DIFF_BYTES as u64 + 1)
        .read_to_end(&mut head)
        .map_err(|e| io_error(shown, e))?;
    if head.len() <= MAX_DIFF_BYTES {
        return Ok(String::from_utf8_lossy(&head).into_owned());
    }
    let mut hasher = Sha256::new();
    hasher.update(&head);
    let more = std::io::copy(&mut rest, &mut hasher).map_err(|e| io_error(shown, e))?;
    let len = head.len() as u64 + more;
    if len > MAX_FILE_BYTES {
        return Err(too_large(shown));
    }
    Ok(digest_line(len, &hasher.finalize()))
}

/// `content` as the Diff view keeps it: itself up to [`MAX_DIFF_BYTES`], past that a line
/// with its size and digest.
pub fn diff_text(content: String) -> String {
    if content.len() <= MAX_DIFF_BYTES {
        return content;
    }
    digest_line(content.len() as u64, &Sha256::digest(content.as_bytes()))
}

fn digest_line(len: u64, digest: &[u8]) -> String {
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("({len} bytes, too large to show; SHA-256 {hex})\n")
}

/// A file the agent wrote.
#[derive(Debug, PartialEq)]
pub struct Written {
    /// Its path inside the workspace (`/`-separated on Unix).
    pub relative: String,
    /// What it held before ([`diff_text`]), `None` when it was new.
    pub before: Option<String>,
}

fn io_error(shown: &str, e: std::io::Error) -> FsError {
    if sys::is_link_refusal(&e) {
        return FsError::Outside(format!(
            "{shown} goes through a symlink, which may lead outside the workspace; refused"
        ));
    }
    match e.kind() {
        ErrorKind::NotFound => FsError::NotFound(format!("{shown}: no such file")),
        _ => FsError::Other(format!("{shown}: {e}")),
    }
}

/// The calls on the workspace's handle.
#[cfg(target_os = "linux")]
mod sys {
    use rustix::fs::{openat2, AtFlags, Mode, OFlags, ResolveFlags};
    use rustix::io::Errno;
    use std::ffi::OsStr;
    use std::fs::{File, Metadata};
    use std::io;
    use std::os::unix::fs::MetadataExt;
    use std::path::Path;

    /// Nothing outside, whatever the links on the way say (absolute ones are refused).
    const BENEATH: ResolveFlags = ResolveFlags::BENEATH.union(ResolveFlags::NO_MAGICLINKS);
    /// Never a FIFO's wait, never a terminal taken as the controlling one.
    const FLAGS: OFlags = OFlags::NONBLOCK
        .union(OFlags::CLOEXEC)
        .union(OFlags::NOCTTY);

    fn open(dir: &File, path: &Path, flags: OFlags, mode: Mode) -> io::Result<File> {
        // EAGAIN: a rename elsewhere raced the lookup; the kernel asks to try again.
        let mut tries = 0;
        loop {
            match openat2(dir, path, flags | FLAGS, mode, BENEATH) {
                Err(Errno::AGAIN) if tries < 8 => tries += 1,
                Err(Errno::NOSYS) => {
                    return Err(io::Error::other("needs openat2 (Linux 5.6 or newer)"))
                }
                opened => return Ok(File::from(opened?)),
            }
        }
    }

    pub fn open_root(path: &Path) -> io::Result<File> {
        let dir = rustix::fs::open(
            path,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        let dir = File::from(dir);
        // Refuse a kernel (or a seccomp filter) without openat2 now, not on the first file.
        open(
            &dir,
            Path::new("."),
            OFlags::RDONLY | OFlags::DIRECTORY,
            Mode::empty(),
        )
        .map_err(|e| {
            io::Error::other(format!("files are opened with openat2, which failed: {e}"))
        })?;
        Ok(dir)
    }

    /// For reading: a link that stays inside is followed.
    pub fn open_file(dir: &File, path: &Path) -> io::Result<File> {
        open(dir, path, OFlags::RDONLY, Mode::empty())
    }

    /// The file a write replaces: its own name, never a link's target (the rename would
    /// turn the link into a file).
    pub fn open_own(dir: &File, name: &OsStr) -> io::Result<File> {
        open(
            dir,
            Path::new(name),
            OFlags::RDONLY | OFlags::NOFOLLOW,
            Mode::empty(),
        )
    }

    pub fn open_dir(dir: &File, name: &OsStr) -> io::Result<File> {
        open(
            dir,
            Path::new(name),
            OFlags::RDONLY | OFlags::DIRECTORY,
            Mode::empty(),
        )
    }

    pub fn make_dir(dir: &File, name: &OsStr) -> io::Result<()> {
        Ok(rustix::fs::mkdirat(dir, name, Mode::from_raw_mode(0o777))?)
    }

    pub fn create_new(dir: &File, name: &OsStr) -> io::Result<File> {
        let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW;
        open(dir, Path::new(name), flags, Mode::from_raw_mode(0o666))
    }

    pub fn rename(dir: &File, from: &OsStr, to: &OsStr) -> io::Result<()> {
        Ok(rustix::fs::renameat(dir, from, dir, to)?)
    }

    pub fn remove(dir: &File, name: &OsStr) -> io::Result<()> {
        Ok(rustix::fs::unlinkat(dir, name, AtFlags::empty())?)
    }

    pub fn links(meta: &Metadata) -> u64 {
        meta.nlink()
    }

    /// A symlink on the way (`ELOOP`), or a way out (`EXDEV`).
    pub fn is_link_refusal(e: &io::Error) -> bool {
        matches!(Errno::from_io_error(e), Some(Errno::LOOP | Errno::XDEV))
    }
}

/// Elsewhere the workspace cannot be confined this way: `--workspace` is refused.
#[cfg(not(target_os = "linux"))]
mod sys {
    use std::ffi::OsStr;
    use std::fs::{File, Metadata};
    use std::io;
    use std::path::Path;

    fn unsupported() -> io::Error {
        io::Error::new(io::ErrorKind::Unsupported, "needs Linux (openat2)")
    }
    pub fn open_root(_: &Path) -> io::Result<File> {
        Err(unsupported())
    }
    pub fn open_file(_: &File, _: &Path) -> io::Result<File> {
        Err(unsupported())
    }
    pub fn open_own(_: &File, _: &OsStr) -> io::Result<File> {
        Err(unsupported())
    }
    pub fn open_dir(_: &File, _: &OsStr) -> io::Result<File> {
        Err(unsupported())
    }
    pub fn make_dir(_: &File, _: &OsStr) -> io::Result<()> {
        Err(unsupported())
    }
    pub fn create_new(_: &File, _: &OsStr) -> io::Result<File> {
        Err(unsupported())
    }
    pub fn rename(_: &File, _: &OsStr, _: &OsStr) -> io::Result<()> {
        Err(unsupported())
    }
    pub fn remove(_: &File, _: &OsStr) -> io::Result<()> {
        Err(unsupported())
    }
    pub fn links(_: &Metadata) -> u64 {
        1
    }
    pub fn is_link_refusal(_: &io::Error) -> bool {
        false
    }
}

#[cfg(all(test, target_os = "linux"))]
pub(crate) mod tests {
    use super::*;
    use std::os::unix::fs::symlink;
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    use std::time::Instant;

    /// A new folder of its own under the system's temp folder, canonical (the workspace
    /// tests compare paths).
    pub(crate) fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "chat-shell-acp-{name}-{}",
            crate::store::new_id("t")
        ));
        std::fs::create_dir_all(&dir).unwrap();
        dir.canonicalize().unwrap()
    }

    /// A named pipe at `path`: opening it for reading would wait for a writer forever.
    pub(crate) fn fifo(path: &Path) {
        rustix::fs::mknodat(
            rustix::fs::CWD,
            path,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
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

        symlink(base.join("secret.txt"), ws_dir.join("link.txt")).unwrap();
        symlink(&base, ws_dir.join("out")).unwrap();
        symlink(base.join("nowhere.txt"), ws_dir.join("dangling.txt")).unwrap();
        symlink(ws_dir.join("sub/a.txt"), ws_dir.join("inner.txt")).unwrap();
        symlink("sub", ws_dir.join("inner-dir")).unwrap();
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
        // An absolute symlink is refused even when it points inside: the kernel cannot
        // tell it from one that leads out.
        assert!(refused(ws.read(&ws_dir.join("inner.txt"), None, None)));
        assert!(refused(ws.write(&ws_dir.join("inner.txt"), "x")));
        // A relative one that stays inside is followed for reading and on the way to a
        // folder; a write to the link's own name is refused (it would become a file).
        symlink("sub/a.txt", ws_dir.join("inner-rel.txt")).unwrap();
        assert_eq!(
            ws.read(Path::new("inner-rel.txt"), None, None).unwrap(),
            "one\ntwo\nthree\n"
        );
        assert!(refused(ws.write(Path::new("inner-rel.txt"), "x")));
        assert!(std::fs::symlink_metadata(ws_dir.join("inner-rel.txt"))
            .unwrap()
            .is_symlink());
        assert_eq!(
            ws.read(Path::new("inner-dir/a.txt"), None, None).unwrap(),
            "one\ntwo\nthree\n"
        );
        ws.write(Path::new("inner-dir/new.txt"), "x").unwrap();
        assert_eq!(
            std::fs::read_to_string(ws_dir.join("sub/new.txt")).unwrap(),
            "x"
        );
        symlink("../../..", ws_dir.join("sub/up")).unwrap();
        assert!(refused(ws.read(
            Path::new("sub/up/etc/hostname"),
            None,
            None
        )));
        assert_eq!(
            std::fs::read_to_string(ws_dir.join("sub/a.txt")).unwrap(),
            "one\ntwo\nthree\n"
        );
        // The workspace itself is a folder, not a file.
        assert!(matches!(
            ws.read(&ws_dir, None, None),
            Err(FsError::Other(_))
        ));
        assert!(matches!(ws.write(&ws_dir, "x"), Err(FsError::Other(_))));
        assert!(matches!(
            ws.read(&ws_dir.join("missing.txt"), None, None),
            Err(FsError::NotFound(_))
        ));
        let _ = std::fs::remove_dir_all(&base);
    }

    #[test]
    fn a_hard_link_to_an_outside_file_is_refused() {
        let base = temp("hardlink");
        let ws_dir = base.join("ws");
        std::fs::create_dir_all(&ws_dir).unwrap();
        std::fs::write(base.join("secret.txt"), "secret").unwrap();
        std::fs::hard_link(base.join("secret.txt"), ws_dir.join("linked.txt")).unwrap();
        let ws = Workspace::new(&ws_dir).unwrap();
        assert!(matches!(
            ws.read(Path::new("linked.txt"), None, None),
            Err(FsError::Outside(_))
        ));
        assert!(matches!(
            ws.write(Path::new("linked.txt"), "overwritten"),
            Err(FsError::Outside(_))
        ));
        assert_eq!(
            std::fs::read_to_string(base.join("secret.txt")).unwrap(),
            "secret"
        );
        // Not even unlinked: the name is left as it was.
        assert_eq!(
            std::fs::metadata(ws_dir.join("linked.txt"))
                .unwrap()
                .nlink(),
            2
        );
        let _ = std::fs::remove_dir_all(&base);
    }

    /// A thread that swaps `swap.txt` between a file and a symlink to `outside` (by
    /// rename, so the name always exists) until `stop`; returns how many swaps it made.
    fn swapping(
        ws_dir: &Path,
        outside: &Path,
        stop: Arc<AtomicBool>,
    ) -> std::thread::JoinHandle<u32> {
        let (ws_dir, outside) = (ws_dir.to_owned(), outside.to_owned());
        std::thread::spawn(move || {
            let name = ws_dir.join("swap.txt");
            let (file, link) = (ws_dir.join("swap.file"), ws_dir.join("swap.link"));
            let mut swaps = 0;
            while !stop.load(Ordering::Relaxed) && swaps < 1_000_000 {
                std::fs::write(&file, "inside").unwrap();
                std::fs::rename(&file, &name).unwrap();
                symlink(&outside, &link).unwrap();
                std::fs::rename(&link, &name).unwrap();
                swaps += 1;
            }
            swaps
        })
    }

    #[test]
    fn a_symlink_swapped_in_a_loop_never_leads_out() {
        const TRIES: usize = 10_000;
        let base = temp("swap");
        let ws_dir = base.join("ws");
        std::fs::create_dir_all(&ws_dir).unwrap();
        let outside = base.join("secret.txt");
        std::fs::write(&outside, "secret").unwrap();
        let ws = Workspace::new(&ws_dir).unwrap();

        let stop = Arc::new(AtomicBool::new(false));
        let swapper = swapping(&ws_dir, &outside, stop.clone());
        let (mut leaked, mut inside, mut refused) = (0, 0, 0);
        for _ in 0..TRIES {
            match ws.read(Path::new("swap.txt"), None, None) {
                Ok(text) if text == "secret" => leaked += 1,
                Ok(_) => inside += 1,
                Err(_) => refused += 1,
            }
        }
        let mut written = 0;
        for _ in 0..TRIES {
            written += usize::from(ws.write(Path::new("swap.txt"), "overwritten").is_ok());
        }
        stop.store(true, Ordering::Relaxed);
        let swaps = swapper.join().unwrap();
        assert_eq!(
            leaked, 0,
            "{leaked} of {TRIES} reads leaked the outside file"
        );
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "secret");
        // The race was run: both sides were seen.
        assert!(
            inside > 0 && refused > 0 && written > 0 && swaps > 0,
            "inside {inside}, refused {refused}, written {written}, swaps {swaps}"
        );
        let _ = std::fs::remove_dir_all(&base);
    }

    /// `f` on another thread; `None` if it has not returned within 5 s.
    fn within_5s<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Option<T> {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(f());
        });
        rx.recv_timeout(Duration::from_secs(5)).ok()
    }

    #[test]
    fn a_fifo_and_a_device_behind_a_symlink_are_refused_at_once() {
        let base = temp("fifo");
        let ws_dir = base.join("ws");
        std::fs::create_dir_all(&ws_dir).unwrap();
        fifo(&ws_dir.join("pipe"));
        symlink("/dev/zero", ws_dir.join("zero")).unwrap();
        let ws = Workspace::new(&ws_dir).unwrap();
        for name in ["pipe", "zero"] {
            let w = ws.clone();
            let read = within_5s(move || w.read(Path::new(name), None, None));
            assert!(matches!(read, Some(Err(_))), "read {name}: {read:?}");
            let w = ws.clone();
            let wrote = within_5s(move || w.write(Path::new(name), "x"));
            assert!(matches!(wrote, Some(Err(_))), "write {name}: {wrote:?}");
        }
        // Left as they were.
        assert!(std::fs::symlink_metadata(ws_dir.join("pipe"))
            .unwrap()
            .file_type()
            .is_fifo());
        assert!(std::fs::symlink_metadata(ws_dir.join("zero"))
            .unwrap()
            .is_symlink());
        let _ = std::fs::remove_dir_all(&base);
    }

    #[test]
    fn a_huge_sparse_file_is_refused_without_being_read() {
        let base = temp("sparse");
        let ws_dir = base.join("ws");
        std::fs::create_dir_all(&ws_dir).unwrap();
        let huge = ws_dir.join("huge.bin");
        File::create(&huge).unwrap().set_len(1 << 30).unwrap();
        let ws = Workspace::new(&ws_dir).unwrap();
        let started = Instant::now();
        let too_large = |r: Result<_, FsError>| matches!(r, Err(FsError::Other(m)) if m.contains("larger than"));
        assert!(too_large(ws.read(Path::new("huge.bin"), None, None)));
        assert!(too_large(
            ws.write(Path::new("huge.bin"), "x").map(|_| String::new())
        ));
        // Reading 1 GiB of zeros takes far longer than this.
        assert!(
            started.elapsed() < Duration::from_millis(300),
            "{:?}",
            started.elapsed()
        );
        assert_eq!(std::fs::metadata(&huge).unwrap().len(), 1 << 30);
        let _ = std::fs::remove_dir_all(&base);
    }

    #[test]
    fn a_large_file_s_before_text_is_kept_as_its_digest() {
        let base = temp("digest");
        let ws_dir = base.join("ws");
        std::fs::create_dir_all(&ws_dir).unwrap();
        let big = "x".repeat(MAX_DIFF_BYTES + 1);
        std::fs::write(ws_dir.join("big.txt"), &big).unwrap();
        let ws = Workspace::new(&ws_dir).unwrap();
        let written = ws.write(Path::new("big.txt"), "small\n").unwrap();
        let before = written.before.unwrap();
        assert_eq!(before, diff_text(big.clone()));
        assert!(before.len() < 200, "{before}");
        assert!(before.contains(&format!("{} bytes", big.len())), "{before}");
        // Written whole, its mode kept.
        assert_eq!(
            std::fs::read_to_string(ws_dir.join("big.txt")).unwrap(),
            "small\n"
        );
        let _ = std::fs::remove_dir_all(&base);
    }

    #[test]
    fn a_write_keeps_the_file_s_mode_and_leaves_no_temporary_file() {
        use std::os::unix::fs::PermissionsExt;
        let base = temp("mode");
        let ws_dir = base.join("ws");
        std::fs::create_dir_all(&ws_dir).unwrap();
        let script = ws_dir.join("run.sh");
        std::fs::write(&script, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o750)).unwrap();
        let ws = Workspace::new(&ws_dir).unwrap();
        ws.write(Path::new("run.sh"), "#!/bin/sh\necho hi\n")
            .unwrap();
        let meta = std::fs::metadata(&script).unwrap();
        assert_eq!(meta.permissions().mode() & 0o777, 0o750);
        let names: Vec<_> = std::fs::read_dir(&ws_dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["run.sh"]);
        let _ = std::fs::remove_dir_all(&base);
    }

    #[tokio::test]
    async fn a_call_that_blocks_is_answered_with_an_error_in_time() {
        let started = Instant::now();
        let answer = off_loop(Duration::from_millis(100), "slow.txt", || {
            std::thread::sleep(Duration::from_millis(1500));
            Ok(())
        })
        .await;
        assert!(
            matches!(&answer, Err(FsError::Other(m)) if m.contains("did not answer")),
            "{answer:?}"
        );
        assert!(started.elapsed() < Duration::from_secs(1));
    }
}
