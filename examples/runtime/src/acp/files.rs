//! The workspace's files for @-mentions: listed under the workspace's confinement
//! (`acp.files.search`), ranked by `fuzzy`, and a mentioned one checked again when the
//! message is sent, becoming an ACP `resource_link`.
//!
//! The listing walks the workspace breadth first, each folder's names in byte order, and
//! never opens a file: every folder is opened beneath the workspace's handle with
//! `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)` (so a folder swapped for a symlink
//! mid-walk is refused, not followed), entries are `lstat`ed through that folder's handle.
//! Listed: regular files with one link (a file with other hard links is left out, as
//! `fs/read_text_file` refuses it: its other names may be outside), and symlinks whose
//! target resolves beneath the workspace (with the kernel's `RESOLVE_BENEATH`, through an
//! `O_PATH` handle, which opens nothing) to such a file. Never listed: symlinked folders
//! (not followed at all), hidden folders (`.git`, …), `node_modules` and `target`, FIFOs,
//! sockets and devices, names that are not UTF-8. The walk stops after [`MAX_VISITED`]
//! entries, and does not enter folders deeper than [`MAX_DEPTH`]; either makes the
//! listing `truncated`. A listing is reused for [`FRESH`] (the page asks on each key).
//!
//! A mention names a path relative to the workspace, `/`-separated; it is linked only if
//! it has no `.`, `..` or empty part, is not absolute, and resolves (now, as for a read)
//! beneath the workspace to a regular file with one link.

use super::fs::{self, Workspace};
use super::fuzzy;
use serde_json::{json, Value};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The walk stops after this many entries (files, folders and skipped names alike).
pub const MAX_VISITED: usize = 20_000;
/// Folders this deep (in parts from the workspace) are not entered.
pub const MAX_DEPTH: usize = 16;
/// A listing is reused this long.
pub const FRESH: Duration = Duration::from_secs(3);
/// Folders never entered, beside hidden ones.
const SKIPPED: &[&str] = &["node_modules", "target"];
/// The longest mention path taken, in bytes.
const MAX_PATH_BYTES: usize = 4096;

/// The files of a workspace, as a walk found them.
#[derive(Debug, Default)]
pub struct Listing {
    /// Relative, `/`-separated, in walk order.
    files: Vec<Listed>,
    /// The walk stopped at a bound.
    pub truncated: bool,
}

#[derive(Debug)]
struct Listed {
    path: String,
    /// Seconds and nanoseconds since the epoch, of the file (a symlink's target).
    modified: (i64, i64),
}

impl Listing {
    /// At most `limit` paths matching `query`: by `fuzzy` rank, or for an empty query the
    /// most recently modified first (then by path).
    pub fn search(&self, query: &str, limit: usize) -> Vec<&str> {
        if fuzzy::needle(query).is_empty() {
            let mut all: Vec<&Listed> = self.files.iter().collect();
            all.sort_by(|a, b| b.modified.cmp(&a.modified).then(a.path.cmp(&b.path)));
            return all
                .into_iter()
                .take(limit)
                .map(|f| f.path.as_str())
                .collect();
        }
        fuzzy::rank(query, self.files.iter().map(|f| f.path.as_str()), limit)
    }
}

/// chatkit-js's entity for a workspace file: `group` is its folder, absent at the top.
pub fn entity(path: &str) -> Value {
    let (group, title) = match path.rsplit_once('/') {
        Some((folder, name)) => (Some(folder), name),
        None => (None, path),
    };
    let mut entity = json!({
        "id": format!("file:{path}"),
        "title": title,
        "interactive": false,
        "data": {"type": "file", "path": path},
    });
    if let Some(group) = group {
        entity["group"] = json!(group);
    }
    entity
}

/// The workspace's files for the search, with the latest listing kept for [`FRESH`].
pub struct Files {
    workspace: Workspace,
    /// Held while walking: requests that come meanwhile wait for that walk, not start theirs.
    latest: tokio::sync::Mutex<Option<(Instant, Arc<Listing>)>>,
}

impl Files {
    pub fn new(workspace: Workspace) -> Files {
        Files {
            workspace,
            latest: tokio::sync::Mutex::new(None),
        }
    }

    /// The listing, walked again if the one kept is older than [`FRESH`]. The walk runs on
    /// a blocking thread, and is given up (an error) after `fs::TIMEOUT`.
    pub async fn listing(&self) -> Result<Arc<Listing>, String> {
        let mut latest = self.latest.lock().await;
        if let Some((_, listing)) = latest.as_ref().filter(|(at, _)| at.elapsed() < FRESH) {
            return Ok(listing.clone());
        }
        let workspace = self.workspace.clone();
        let listing = fs::off_loop(fs::TIMEOUT, "the workspace's listing", move || {
            Ok(list(&workspace))
        })
        .await
        .map_err(|e| e.message().to_owned())?;
        let listing = Arc::new(listing);
        *latest = Some((Instant::now(), listing.clone()));
        Ok(listing)
    }
}

/// Walks the workspace (see the module's text). Blocking.
pub fn list(workspace: &Workspace) -> Listing {
    let root = workspace.handle();
    let mut listing = Listing::default();
    let mut visited = 0;
    // Folders to read: their relative path ("" for the workspace) and depth.
    let mut folders = std::collections::VecDeque::from([(String::new(), 0usize)]);
    while let Some((folder, depth)) = folders.pop_front() {
        let shown = if folder.is_empty() { "." } else { &folder };
        let Ok(mut dir) = sys::open_dir(root, Path::new(shown)) else {
            continue;
        };
        let mut names = Vec::new();
        while let Some(entry) = dir.entry() {
            if visited == MAX_VISITED {
                listing.truncated = true;
                break;
            }
            visited += 1;
            names.push(entry);
        }
        names.sort_by(|a, b| a.0.cmp(&b.0));
        for (name, kind) in names {
            // Not UTF-8: neither JSON nor a mention could name it faithfully.
            let Ok(name) = String::from_utf8(name) else {
                continue;
            };
            let path = if folder.is_empty() {
                name.clone()
            } else {
                format!("{folder}/{name}")
            };
            let kind = match kind {
                sys::Kind::Unknown => dir.lstat(&name),
                known => known,
            };
            match kind {
                sys::Kind::Dir => {
                    if name.starts_with('.') || SKIPPED.contains(&name.as_str()) {
                        continue;
                    }
                    if depth + 1 >= MAX_DEPTH {
                        listing.truncated = true;
                    } else {
                        folders.push_back((path, depth + 1));
                    }
                }
                sys::Kind::File => {
                    if let Some(modified) = dir.regular(&name) {
                        listing.files.push(Listed { path, modified });
                    }
                }
                sys::Kind::Link => {
                    if let Ok(stat) = sys::stat_beneath(root, Path::new(&path)) {
                        if let Some(modified) = stat.single_file() {
                            listing.files.push(Listed { path, modified });
                        }
                    }
                }
                sys::Kind::Other | sys::Kind::Unknown => {}
            }
        }
        if listing.truncated && visited == MAX_VISITED {
            break;
        }
    }
    listing
}

/// What a mention becomes in the prompt: an ACP `resource_link`.
#[derive(Clone, Debug, PartialEq)]
pub struct Link {
    /// `file://` and the absolute path, percent-encoded.
    pub uri: String,
    /// The file's name.
    pub name: String,
    pub mime_type: Option<&'static str>,
    pub size: u64,
}

impl Link {
    pub fn block(&self) -> Value {
        let mut block = json!({
            "type": "resource_link", "uri": self.uri, "name": self.name, "size": self.size,
        });
        if let Some(mime) = self.mime_type {
            block["mimeType"] = json!(mime);
        }
        block
    }
}

/// The link for a mention of `path` (relative to the workspace), if it names a file the
/// agent may be pointed at now (see the module's text); `None` otherwise. Blocking.
pub fn link(workspace: &Workspace, path: &str) -> Option<Link> {
    let clean = !path.is_empty()
        && path.len() <= MAX_PATH_BYTES
        && !path.contains('\0')
        && path.split('/').all(|part| !matches!(part, "" | "." | ".."));
    if !clean {
        return None;
    }
    let stat = sys::stat_beneath(workspace.handle(), Path::new(path)).ok()?;
    stat.single_file()?;
    let absolute = workspace.root().join(path);
    let name = path.rsplit('/').next().unwrap_or(path).to_owned();
    Some(Link {
        uri: file_uri(&absolute),
        mime_type: mime_type(&name),
        name,
        size: stat.size(),
    })
}

/// `file://` and `path`, every byte but the unreserved ones and `/` percent-encoded (a
/// workspace folder whose name is not UTF-8 is named lossily).
fn file_uri(path: &Path) -> String {
    let mut uri = String::from("file://");
    for &b in path.to_string_lossy().as_bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            uri.push(b as char);
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri
}

/// The type of a file by its extension, for the common text and image files; `None`
/// otherwise (the link then has none).
fn mime_type(name: &str) -> Option<&'static str> {
    let ext = name.rsplit_once('.')?.1.to_ascii_lowercase();
    Some(match ext.as_str() {
        "rs" => "text/x-rust",
        "md" | "markdown" => "text/markdown",
        "txt" => "text/plain",
        "json" => "application/json",
        "toml" => "application/toml",
        "yaml" | "yml" => "application/yaml",
        "js" | "mjs" => "text/javascript",
        "ts" | "tsx" => "text/x-typescript",
        "py" => "text/x-python",
        "html" => "text/html",
        "css" => "text/css",
        "sh" => "text/x-shellscript",
        "c" | "h" => "text/x-c",
        "csv" => "text/csv",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "svg" => "image/svg+xml",
        "pdf" => "application/pdf",
        _ => return None,
    })
}

/// The calls on the workspace's handle.
#[cfg(target_os = "linux")]
mod sys {
    use rustix::fs::{
        fstat, openat2, statat, AtFlags, Dir, FileType, Mode, OFlags, ResolveFlags, Stat,
    };
    use rustix::io::Errno;
    use std::fs::File;
    use std::io;
    use std::path::Path;

    /// What an entry is, as far as the walk cares.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Kind {
        Dir,
        File,
        Link,
        /// A FIFO, socket or device: never listed.
        Other,
        /// The file system did not say (`DT_UNKNOWN`): `lstat` decides.
        Unknown,
    }

    fn kind(t: FileType) -> Kind {
        match t {
            FileType::Directory => Kind::Dir,
            FileType::RegularFile => Kind::File,
            FileType::Symlink => Kind::Link,
            FileType::Unknown => Kind::Unknown,
            _ => Kind::Other,
        }
    }

    fn open(root: &File, path: &Path, flags: OFlags, resolve: ResolveFlags) -> io::Result<File> {
        let mut tries = 0;
        loop {
            match openat2(root, path, flags | OFlags::CLOEXEC, Mode::empty(), resolve) {
                // A rename elsewhere raced the lookup; the kernel asks to try again.
                Err(Errno::AGAIN) if tries < 8 => tries += 1,
                opened => return Ok(File::from(opened?)),
            }
        }
    }

    /// An open folder of the walk.
    pub struct Folder(Dir);

    /// The folder `path` beneath `root`, through no symlink at all.
    pub fn open_dir(root: &File, path: &Path) -> io::Result<Folder> {
        let file = open(
            root,
            path,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW,
            ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS,
        )?;
        Ok(Folder(Dir::new(file)?))
    }

    impl Folder {
        /// The next entry's name and kind (`.` and `..` left out); `None` at the end or on
        /// an error.
        pub fn entry(&mut self) -> Option<(Vec<u8>, Kind)> {
            loop {
                let entry = self.0.read()?.ok()?;
                let name = entry.file_name().to_bytes();
                if name != b"." && name != b".." {
                    return Some((name.to_vec(), kind(entry.file_type())));
                }
            }
        }

        fn lstat_raw(&self, name: &str) -> Option<Stat> {
            statat(self.0.fd().ok()?, name, AtFlags::SYMLINK_NOFOLLOW).ok()
        }

        /// The kind of `name` by `lstat`.
        pub fn lstat(&self, name: &str) -> Kind {
            self.lstat_raw(name).map_or(Kind::Other, |s| {
                kind(FileType::from_raw_mode(s.st_mode as _))
            })
        }

        /// `name`'s modification time if it is a regular file with one link (by `lstat`).
        pub fn regular(&self, name: &str) -> Option<(i64, i64)> {
            Checked(self.lstat_raw(name)?).single_file()
        }
    }

    /// What `fstat` said of a file.
    pub struct Checked(Stat);

    impl Checked {
        /// Its modification time, if it is a regular file with one link.
        // The fields' integer types differ by platform.
        #[allow(clippy::unnecessary_cast)]
        pub fn single_file(&self) -> Option<(i64, i64)> {
            let regular = FileType::from_raw_mode(self.0.st_mode as _) == FileType::RegularFile;
            (regular && self.0.st_nlink == 1)
                .then_some((self.0.st_mtime as i64, self.0.st_mtime_nsec as i64))
        }

        pub fn size(&self) -> u64 {
            self.0.st_size as u64
        }
    }

    /// What `path` (symlinks followed, as a read follows them: never out of `root`, no
    /// absolute one) is, through an `O_PATH` handle: nothing is opened for reading, so
    /// a FIFO or a device is never woken.
    pub fn stat_beneath(root: &File, path: &Path) -> io::Result<Checked> {
        let handle = open(
            root,
            path,
            OFlags::PATH,
            ResolveFlags::BENEATH | ResolveFlags::NO_MAGICLINKS,
        )?;
        Ok(Checked(fstat(&handle)?))
    }
}

/// Elsewhere than Linux there is no workspace (`--workspace` is refused), so nothing here
/// is reached; these keep the crate building.
#[cfg(not(target_os = "linux"))]
mod sys {
    use std::fs::File;
    use std::io;
    use std::path::Path;

    #[derive(Clone, Copy, Debug, PartialEq)]
    pub enum Kind {
        Dir,
        File,
        Link,
        Other,
        Unknown,
    }

    pub struct Folder;
    pub struct Checked;

    fn unsupported() -> io::Error {
        io::Error::new(io::ErrorKind::Unsupported, "needs Linux (openat2)")
    }
    pub fn open_dir(_: &File, _: &Path) -> io::Result<Folder> {
        Err(unsupported())
    }
    pub fn stat_beneath(_: &File, _: &Path) -> io::Result<Checked> {
        Err(unsupported())
    }
    impl Folder {
        pub fn entry(&mut self) -> Option<(Vec<u8>, Kind)> {
            None
        }
        pub fn lstat(&self, _: &str) -> Kind {
            Kind::Other
        }
        pub fn regular(&self, _: &str) -> Option<(i64, i64)> {
            None
        }
    }
    impl Checked {
        pub fn single_file(&self) -> Option<(i64, i64)> {
            None
        }
        pub fn size(&self) -> u64 {
            0
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use crate::acp::fs::tests::{fifo, temp};
    use std::os::unix::fs::symlink;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn paths(listing: &Listing) -> Vec<&str> {
        listing.files.iter().map(|f| f.path.as_str()).collect()
    }

    #[test]
    fn the_listing_keeps_to_the_workspace_s_regular_files() {
        let base = temp("list");
        let ws_dir = base.join("ws");
        write(&ws_dir.join("src/main.rs"), "fn main() {}");
        write(&ws_dir.join("src/lib.rs"), "");
        write(&ws_dir.join("README.md"), "");
        write(&ws_dir.join(".env"), "");
        write(&ws_dir.join(".git/config"), "");
        write(&ws_dir.join("node_modules/x/index.js"), "");
        write(&ws_dir.join("target/debug/app"), "");
        write(&ws_dir.join("src/.cache/x"), "");
        write(&base.join("outside/secret.txt"), "secret");
        write(&base.join("outside.txt"), "secret");
        symlink(base.join("outside"), ws_dir.join("out-dir")).unwrap();
        symlink(base.join("outside.txt"), ws_dir.join("out-file.txt")).unwrap();
        symlink("../../outside.txt", ws_dir.join("src/up.txt")).unwrap();
        symlink("main.rs", ws_dir.join("src/alias.rs")).unwrap();
        symlink("src", ws_dir.join("src-link")).unwrap();
        symlink(ws_dir.join("README.md"), ws_dir.join("abs-inside.md")).unwrap();
        symlink("nowhere", ws_dir.join("dangling")).unwrap();
        std::fs::hard_link(base.join("outside.txt"), ws_dir.join("hard.txt")).unwrap();
        fifo(&ws_dir.join("pipe"));
        std::os::unix::net::UnixListener::bind(ws_dir.join("sock")).unwrap();
        symlink("pipe", ws_dir.join("pipe-link")).unwrap();
        let ws = Workspace::new(&ws_dir).unwrap();

        let listing = list(&ws);
        // Breadth first, names in byte order; hidden files are files.
        assert_eq!(
            paths(&listing),
            [
                ".env",
                "README.md",
                "src/alias.rs",
                "src/lib.rs",
                "src/main.rs"
            ]
        );
        assert!(!listing.truncated);
        let _ = std::fs::remove_dir_all(&base);
    }

    #[test]
    fn the_walk_stops_at_its_bounds() {
        let base = temp("bounds");
        let ws_dir = base.join("ws");
        let mut deep = ws_dir.clone();
        for i in 0..MAX_DEPTH + 2 {
            deep.push(format!("d{i}"));
            write(&deep.join("f.txt"), "");
        }
        let ws = Workspace::new(&ws_dir).unwrap();
        let listing = list(&ws);
        assert!(listing.truncated, "too deep");
        // d0/f.txt has 2 parts; the deepest listed has MAX_DEPTH.
        assert_eq!(listing.files.len(), MAX_DEPTH - 1);
        assert!(listing
            .files
            .iter()
            .all(|f| f.path.split('/').count() <= MAX_DEPTH));

        let wide = base.join("wide");
        std::fs::create_dir_all(&wide).unwrap();
        for i in 0..MAX_VISITED + 5 {
            std::fs::File::create(wide.join(format!("{i:05}"))).unwrap();
        }
        let listing = list(&Workspace::new(&wide).unwrap());
        assert!(listing.truncated);
        assert_eq!(listing.files.len(), MAX_VISITED);
        let _ = std::fs::remove_dir_all(&base);
    }

    #[test]
    fn an_empty_query_lists_the_latest_changed_first() {
        let base = temp("recent");
        let ws_dir = base.join("ws");
        let times = [("a.txt", 100), ("b.txt", 300), ("c/d.txt", 200)];
        for (name, secs) in times {
            write(&ws_dir.join(name), "");
            std::fs::File::options()
                .write(true)
                .open(ws_dir.join(name))
                .unwrap()
                .set_modified(std::time::UNIX_EPOCH + Duration::from_secs(secs))
                .unwrap();
        }
        let listing = list(&Workspace::new(&ws_dir).unwrap());
        assert_eq!(listing.search("", 5), ["b.txt", "c/d.txt", "a.txt"]);
        assert_eq!(listing.search(" ", 1), ["b.txt"]);
        assert_eq!(listing.search("cd", 5), ["c/d.txt"]);
        let _ = std::fs::remove_dir_all(&base);
    }

    #[test]
    fn entities_name_the_file_and_its_folder() {
        assert_eq!(
            entity("src/acp/main.rs"),
            json!({"id": "file:src/acp/main.rs", "title": "main.rs", "group": "src/acp",
                   "interactive": false, "data": {"type": "file", "path": "src/acp/main.rs"}})
        );
        assert_eq!(
            entity("README.md"),
            json!({"id": "file:README.md", "title": "README.md", "interactive": false,
                   "data": {"type": "file", "path": "README.md"}})
        );
    }

    #[test]
    fn a_mention_is_linked_only_to_a_file_inside() {
        let base = temp("link");
        let ws_dir = base.join("ws");
        write(&ws_dir.join("src/main.rs"), "fn main() {}\n");
        write(&ws_dir.join("a b#?%é.txt"), "x");
        write(&base.join("secret.txt"), "secret");
        symlink(base.join("secret.txt"), ws_dir.join("out.txt")).unwrap();
        symlink("../secret.txt", ws_dir.join("up.txt")).unwrap();
        symlink("src/main.rs", ws_dir.join("alias.rs")).unwrap();
        std::fs::hard_link(base.join("secret.txt"), ws_dir.join("hard.txt")).unwrap();
        fifo(&ws_dir.join("pipe"));
        symlink("/dev/zero", ws_dir.join("zero")).unwrap();
        let ws = Workspace::new(&ws_dir).unwrap();

        let main = link(&ws, "src/main.rs").unwrap();
        assert_eq!(
            main,
            Link {
                uri: format!("file://{}/src/main.rs", ws_dir.display()),
                name: "main.rs".into(),
                mime_type: Some("text/x-rust"),
                size: 13,
            }
        );
        assert_eq!(
            main.block(),
            json!({"type": "resource_link", "uri": main.uri, "name": "main.rs",
                   "mimeType": "text/x-rust", "size": 13})
        );
        let odd = link(&ws, "a b#?%é.txt").unwrap();
        assert!(
            odd.uri.ends_with("/a%20b%23%3F%25%C3%A9.txt"),
            "{}",
            odd.uri
        );
        // A link that stays inside is followed, as a read follows it.
        assert_eq!(link(&ws, "alias.rs").unwrap().size, 13);
        let hostile = [
            "../secret.txt",
            "../../etc/passwd",
            "/etc/passwd",
            &base.join("secret.txt").display().to_string(),
            "src/../src/main.rs",
            "./src/main.rs",
            "src//main.rs",
            "src/main.rs/",
            "",
            "src",
            "out.txt",
            "up.txt",
            "hard.txt",
            "pipe",
            "zero",
            "missing.rs",
            "src/main.rs\0",
        ];
        for path in hostile {
            assert_eq!(link(&ws, path), None, "{path:?}");
        }
        assert_eq!(link(&ws, &"a/".repeat(3000)), None);
        let _ = std::fs::remove_dir_all(&base);
    }
}
