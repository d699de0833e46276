//! Diffs as views show them: numbered rows, each line added, removed or kept, unchanged
//! stretches away from a change folded into a count, and the words that changed inside a
//! replaced line. Two sources share this model: an ACP file change given as old and new
//! text (`text`), and a patch pushed by a tool (`patch`).
//!
//! `rows` is the model both share, `words` marks the changed words of a replaced line
//! (with `myers`, the one diff engine), and `html` writes rows as markup.

mod html;
mod myers;
mod patch;
mod recount;
mod rows;
#[cfg(test)]
mod tests;
mod text;
mod words;

pub use html::{rows_html, rows_html_with, CHUNK_ROWS};
pub use patch::{anchor_id, parse_patch, FileStatus, Hunk, Patch, PatchFile};
pub use recount::Repairs;
pub use rows::{side_by_side, DiffLine, DiffRow, LineKind, SideRow};
pub use text::{line_diff, FileDiff, MAX_ROWS};
pub use words::mark_words;
