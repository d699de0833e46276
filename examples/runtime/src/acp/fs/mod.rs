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
//!
//! The parts: the workspace and how a path is confined to it (`workspace.rs`), the two
//! ACP methods on it (`access.rs`), what the Diff view keeps of a file (`diff_text.rs`),
//! and the calls on the workspace's handle (`sys.rs`).

mod access;
mod diff_text;
mod sys;
#[cfg(all(test, target_os = "linux"))]
pub(crate) mod tests;
mod workspace;

pub use access::Written;
pub use diff_text::diff_text;
pub use workspace::Workspace;

use std::io::ErrorKind;
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

fn too_large(shown: &str) -> FsError {
    FsError::Other(format!(
        "{shown} is larger than {} MB",
        MAX_FILE_BYTES / 1024 / 1024
    ))
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
