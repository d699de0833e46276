//! What the Diff view keeps of a file's text: itself up to [`MAX_DIFF_BYTES`], past that a
//! line with its size and digest, so a huge file is never held.

use super::{io_error, too_large, FsError, MAX_DIFF_BYTES, MAX_FILE_BYTES};
use sha2::{Digest, Sha256};
use std::fs::File;
use std::io::Read;

/// A file's text for the Diff view: itself up to [`MAX_DIFF_BYTES`], past that a line
/// with its size and digest (read through, not kept).
pub(super) fn before_text(file: File, shown: &str) -> Result<String, FsError> {
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
