//! Confinement under attack (symlinks, hard links, a swap race, FIFOs and devices, huge
//! files), the Diff view's texts, and a file call that blocks.

use super::*;
use std::fs::File;
use std::os::unix::fs::symlink;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};
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
fn swapping(ws_dir: &Path, outside: &Path, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<u32> {
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
    let too_large =
        |r: Result<_, FsError>| matches!(r, Err(FsError::Other(m)) if m.contains("larger than"));
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
