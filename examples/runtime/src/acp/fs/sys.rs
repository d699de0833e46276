//! The calls on the workspace's handle: `openat2(RESOLVE_BENEATH)` on Linux; elsewhere the
//! workspace cannot be confined this way and `--workspace` is refused.

#[cfg(target_os = "linux")]
pub(super) use linux::*;
#[cfg(not(target_os = "linux"))]
pub(super) use other::*;

/// The calls on the workspace's handle.
#[cfg(target_os = "linux")]
mod linux {
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
mod other {
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
