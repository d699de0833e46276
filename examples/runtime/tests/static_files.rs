//! `--dist` served as the build leaves it: the `.br` and `.gz` copies picked by
//! `Accept-Encoding` with `Vary`, the types of the files themselves, hashed names cached for
//! good, and the entry and pages revalidated by `ETag` (`304`).

mod common;

use common::{Reply, Runtime};
use std::path::PathBuf;

const WASM: &str = "chat-shell_bg-0123456789abcdef.wasm";
const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// A dist/ like the build's: each file with distinct `.br` and `.gz` bytes (their content
/// does not matter to the server), and a hashed CSS file with no copies.
struct Dist(PathBuf);

impl Dist {
    fn new() -> Dist {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let dir =
            std::env::temp_dir().join(format!("chat-shell-static-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(dir.join("plain")).unwrap();
        let dist = Dist(dir);
        for name in [
            "index.html",
            "plain/index.html",
            "chat-shell.js",
            WASM,
            "chat-shell-core-0123456789abcdef.js",
        ] {
            dist.write(name, &format!("identity of {name}"));
            dist.write(&format!("{name}.br"), &format!("br of {name}"));
            dist.write(&format!("{name}.gz"), &format!("gzip of {name}"));
        }
        dist.write("page-0123456789abcdef.css", "body {}");
        dist
    }

    fn write(&self, name: &str, text: &str) {
        std::fs::write(self.0.join(name), text).unwrap();
    }
}

impl Drop for Dist {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

async fn get(runtime: &Runtime, path: &str, headers: &[(&str, &str)]) -> Reply {
    runtime.request("GET", path, headers, b"").await
}

fn start(dist: &Dist) -> Runtime {
    Runtime::spawn(&["--memory", "--dist", dist.0.to_str().unwrap()])
}

#[tokio::test]
async fn each_file_comes_in_the_encoding_asked_for_with_vary_and_its_own_type() {
    let dist = Dist::new();
    let runtime = start(&dist);
    let cases = [
        (WASM, "application/wasm"),
        ("chat-shell.js", "text/javascript"),
        ("index.html", "text/html"),
    ];
    for (name, kind) in cases {
        let path = format!("/{name}");
        for (accept, encoding, body) in [
            ("br, gzip", Some("br"), format!("br of {name}")),
            ("gzip, deflate, br", Some("br"), format!("br of {name}")),
            ("gzip", Some("gzip"), format!("gzip of {name}")),
            ("br;q=0.5, gzip", Some("gzip"), format!("gzip of {name}")),
            ("identity", None, format!("identity of {name}")),
            ("", None, format!("identity of {name}")),
        ] {
            let headers: &[(&str, &str)] = if accept.is_empty() {
                &[]
            } else {
                &[("Accept-Encoding", accept)]
            };
            let reply = get(&runtime, &path, headers).await;
            let what = format!("{path} with Accept-Encoding: {accept:?}");
            assert_eq!(reply.status, 200, "{what}");
            assert_eq!(reply.text(), body, "{what}");
            assert_eq!(reply.header("content-encoding"), encoding, "{what}");
            assert_eq!(reply.header("vary"), Some("accept-encoding"), "{what}");
            let content_type = reply.header("content-type").unwrap_or_default();
            assert!(content_type.starts_with(kind), "{what}: {content_type}");
        }
    }
    // A file without copies: as it is, still with Vary (any file may have them).
    let css = get(
        &runtime,
        "/page-0123456789abcdef.css",
        &[("Accept-Encoding", "br, gzip")],
    )
    .await;
    assert_eq!(css.text(), "body {}");
    assert_eq!(css.header("content-encoding"), None);
    assert_eq!(css.header("vary"), Some("accept-encoding"));
    assert!(css.header("content-type").unwrap().starts_with("text/css"));
    // A directory's page, compressed too.
    let page = get(&runtime, "/plain/", &[("Accept-Encoding", "br")]).await;
    assert_eq!(page.text(), "br of plain/index.html");
    assert_eq!(page.header("content-encoding"), Some("br"));
}

#[tokio::test]
async fn hashed_files_are_cached_for_good_and_the_entry_and_pages_revalidate_with_a_304() {
    let dist = Dist::new();
    let runtime = start(&dist);
    for path in [
        format!("/{WASM}"),
        "/chat-shell-core-0123456789abcdef.js".into(),
        "/page-0123456789abcdef.css".into(),
    ] {
        let reply = get(&runtime, &path, &[("Accept-Encoding", "br")]).await;
        assert_eq!(reply.status, 200, "{path}");
        assert_eq!(reply.header("cache-control"), Some(IMMUTABLE), "{path}");
    }
    for path in ["/chat-shell.js", "/", "/index.html", "/plain/"] {
        for accept in ["br", "gzip", "identity"] {
            let what = format!("{path} ({accept})");
            let first = get(&runtime, path, &[("Accept-Encoding", accept)]).await;
            assert_eq!(first.status, 200, "{what}");
            assert_eq!(first.header("cache-control"), Some("no-cache"), "{what}");
            let tag = first.header("etag").expect("an ETag").to_owned();
            assert!(tag.starts_with('"') && tag.ends_with('"'), "{what}: {tag}");
            let again = get(
                &runtime,
                path,
                &[("Accept-Encoding", accept), ("If-None-Match", &tag)],
            )
            .await;
            assert_eq!(again.status, 304, "{what}");
            assert!(again.body.is_empty(), "{what}: a 304 has no body");
            assert_eq!(again.header("etag"), Some(tag.as_str()), "{what}");
            assert_eq!(again.header("cache-control"), Some("no-cache"), "{what}");
            assert_eq!(again.header("vary"), Some("accept-encoding"), "{what}");
            // A list, and the weak form a proxy may have made of it.
            let listed = format!("\"other\", W/{tag}");
            let listed = get(
                &runtime,
                path,
                &[("Accept-Encoding", accept), ("If-None-Match", &listed)],
            )
            .await;
            assert_eq!(listed.status, 304, "{what}");
            let other = get(
                &runtime,
                path,
                &[("Accept-Encoding", accept), ("If-None-Match", "\"other\"")],
            )
            .await;
            assert_eq!(other.status, 200, "{what}");
            assert_eq!(other.body, first.body, "{what}");
        }
    }
    // Each encoding is its own representation, with its own tag.
    let mut tags = Vec::new();
    for accept in ["br", "gzip", "identity"] {
        let reply = get(&runtime, "/chat-shell.js", &[("Accept-Encoding", accept)]).await;
        tags.push(reply.header("etag").unwrap().to_owned());
    }
    tags.dedup();
    assert_eq!(tags.len(), 3, "{tags:?}");
    // A HEAD says how to cache, too.
    let head = runtime.request("HEAD", "/chat-shell.js", &[], b"").await;
    assert_eq!(head.status, 200);
    assert_eq!(head.header("cache-control"), Some("no-cache"));
    // A browser without a cookie gets its identity with the page, never with a file any
    // cache may keep and hand to others.
    let page = get(&runtime, "/", &[]).await;
    assert!(
        page.header("set-cookie").is_some(),
        "the page gives an identity"
    );
    let file = get(&runtime, &format!("/{WASM}"), &[]).await;
    assert_eq!(file.header("cache-control"), Some(IMMUTABLE));
    assert_eq!(
        file.header("set-cookie"),
        None,
        "no cookie with a public file"
    );
    // What is not found is not cached for good.
    let missing = get(&runtime, "/gone-0123456789abcdef.wasm", &[]).await;
    assert_eq!(missing.status, 404);
    assert_eq!(missing.header("cache-control"), None);
}

#[tokio::test]
async fn a_new_build_of_the_entry_is_served_to_a_browser_holding_the_old_one() {
    let dist = Dist::new();
    let runtime = start(&dist);
    let old = get(&runtime, "/chat-shell.js", &[]).await;
    let tag = old.header("etag").unwrap().to_owned();
    // The same length, within the same second: only the bytes tell them apart.
    dist.write("chat-shell.js", "identity of chat-shell.jz");
    let new = get(
        &runtime,
        "/chat-shell.js",
        &[
            ("If-None-Match", &tag),
            ("If-Modified-Since", old.header("last-modified").unwrap()),
        ],
    )
    .await;
    assert_eq!(new.status, 200);
    assert_eq!(new.text(), "identity of chat-shell.jz");
    assert_ne!(new.header("etag"), Some(tag.as_str()));
}
