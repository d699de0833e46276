//! Users, requests and limits: what another user gets, minted ids, the content type
//! `/chatkit` takes, other sites and hosts, the limits of titles, pages and uploads,
//! internal errors, the identity cookie, bearer tokens, seeded threads.

use super::*;

/// `thr_…`/`msg_…`/`atc_…`: the 128-bit number after the prefix.
fn id_number(id: &str) -> u128 {
    let (_, hex) = id.split_once('_').unwrap();
    assert_eq!(hex.len(), 32, "not 128 bits of hex: {id}");
    u128::from_str_radix(hex, 16).unwrap_or_else(|e| panic!("{id}: {e}"))
}

#[tokio::test]
async fn another_user_gets_404_for_threads_items_and_attachments() {
    let rt = Runtime::start();
    // Alice: a thread holding a widget, and an uploaded attachment.
    let events = rt.stream(create("widget")).await;
    let thread = thread_id(&events);
    let widget = done_items(&events)
        .into_iter()
        .find(|i| matches!(i.kind, ItemKind::Widget(_)))
        .unwrap()
        .id
        .0
        .clone();
    let user = user_message_id(&events);
    let attachment = rt
        .json(json!({"type": "attachments.create", "params": {"name": "a.txt", "size": 5, "mime_type": "text/plain"}}))
        .await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let upload = format!("/upload/{attachment}");
    let preview = format!("/preview/{attachment}");
    assert_eq!(
        rt.send("PUT", &upload, Some("text/plain"), b"hello")
            .await
            .status,
        200
    );
    let before = rt
        .json(json!({"type": "threads.get_by_id", "params": {"thread_id": thread}}))
        .await;

    let alice = rt.cookie().expect("alice's cookie");
    let bob = rt.new_identity().await;
    assert_ne!(alice, bob);
    let as_bob = [("Cookie", bob.as_str())];
    let nobody_thread = "thr_0123456789abcdef0123456789abcdef";
    let nobody_attachment = "atc_0123456789abcdef0123456789abcdef";
    let action = json!({"type": "counter", "payload": {"count": 0}, "handler": "server", "loadingBehavior": "self", "streaming": false});
    for request in [
        json!({"type": "threads.get_by_id", "params": {"thread_id": thread}}),
        json!({"type": "items.list", "params": {"thread_id": thread}}),
        json!({"type": "threads.update", "params": {"thread_id": thread, "title": "Mine now"}}),
        json!({"type": "items.feedback", "params": {"thread_id": thread, "item_ids": [widget], "kind": "negative"}}),
        json!({"type": "threads.sync_custom_action", "params": {"thread_id": thread, "item_id": widget, "action": action}}),
        json!({"type": "attachments.delete", "params": {"attachment_id": attachment}}),
        json!({"type": "threads.delete", "params": {"thread_id": thread}}),
    ] {
        let reply = rt.chatkit_with(&as_bob, request.clone()).await;
        assert_eq!(reply.status, 404, "{request}: {}", reply.text());
        assert_eq!(error_code(&reply), "not_found");
        // Word for word what something that never existed gets: nothing tells them apart.
        let never = request
            .to_string()
            .replace(&thread, nobody_thread)
            .replace(&attachment, nobody_attachment);
        let missing = rt
            .chatkit_with(&as_bob, serde_json::from_str(&never).unwrap())
            .await;
        assert_eq!(missing.status, 404);
        assert_eq!(
            reply
                .text()
                .replace(&thread, nobody_thread)
                .replace(&attachment, nobody_attachment),
            missing.text()
        );
    }
    // Streaming requests on her thread: what an unknown thread gets (200, no event).
    for request in [
        add_message(&thread, "let me in"),
        json!({"type": "threads.retry_after_item", "params": {"thread_id": thread, "item_id": user}}),
        json!({"type": "threads.custom_action", "params": {"thread_id": thread, "item_id": widget, "action": action}}),
    ] {
        let reply = rt.chatkit_with(&as_bob, request.clone()).await;
        assert_eq!(reply.status, 200, "{request}");
        assert!(reply.body.is_empty(), "{request}: {}", reply.text());
    }
    // Her bytes.
    let up = rt
        .request(
            "PUT",
            &upload,
            &[("Cookie", &bob), ("Content-Type", "text/plain")],
            b"HELLO",
        )
        .await;
    assert_eq!(up.status, 404, "{}", up.text());
    assert_eq!(rt.request("GET", &preview, &as_bob, b"").await.status, 404);
    // Her attachment in his message is ignored.
    let his = rt
        .chatkit_with(
            &as_bob,
            json!({"type": "threads.create", "params": {"input": {
                "content": [{"type": "input_text", "text": "mine?"}], "attachments": [attachment]
            }}}),
        )
        .await;
    let StreamEvent::ItemDone(echo) = &events_of(&his)[1] else {
        panic!()
    };
    let ItemKind::UserMessage(m) = &echo.item.kind else {
        panic!()
    };
    assert!(m.attachments.is_empty(), "{:?}", m.attachments);
    // His list holds only his thread.
    let his_list = rt.chatkit_with(&as_bob, list_threads()).await.json();
    assert_eq!(ids(&his_list), [thread_id(&events_of(&his))]);

    // Alice's things are all still hers, unchanged.
    let after = rt
        .json(json!({"type": "threads.get_by_id", "params": {"thread_id": thread}}))
        .await;
    assert_eq!(after, before);
    assert_eq!(ids(&rt.json(list_threads()).await), [thread.as_str()]);
    let bytes = rt.send("GET", &preview, None, b"").await;
    assert_eq!((bytes.status, bytes.body.as_slice()), (200, &b"hello"[..]));
}

fn events_of(reply: &Reply) -> Vec<StreamEvent> {
    assert_eq!(reply.status, 200, "{}", reply.text());
    events(&reply.body)
}

#[tokio::test]
async fn minted_ids_are_long_random_and_unrelated() {
    let rt = Runtime::start();
    let a = rt.stream(create("one")).await;
    let b = rt.stream(create("two")).await;
    let attachment = |name: &str| json!({"type": "attachments.create", "params": {"name": name, "size": 1, "mime_type": "text/plain"}});
    let c = rt.json(attachment("a.txt")).await;
    let d = rt.json(attachment("b.txt")).await;
    let pairs = [
        (thread_id(&a), thread_id(&b)),
        (user_message_id(&a), user_message_id(&b)),
        (
            c["id"].as_str().unwrap().to_owned(),
            d["id"].as_str().unwrap().to_owned(),
        ),
    ];
    for (x, y) in pairs {
        let (nx, ny) = (id_number(&x), id_number(&y));
        // Two 128-bit random numbers: never a step apart (a counter would be).
        assert!(nx.abs_diff(ny) > u128::from(u64::MAX), "{x} and {y}");
    }
    // Two browsers never get the same identity.
    assert_ne!(rt.new_identity().await, rt.new_identity().await);
}

#[tokio::test]
async fn chatkit_takes_only_json() {
    let rt = Runtime::start();
    let body = list_threads().to_string();
    for content_type in [
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
        Some("multipart/form-data; boundary=x"),
        Some("application/jsonp"),
        None,
    ] {
        let headers: Vec<(&str, &str)> = content_type
            .map(|c| vec![("Content-Type", c)])
            .unwrap_or_default();
        let reply = rt
            .request("POST", "/chatkit", &headers, body.as_bytes())
            .await;
        assert_eq!(reply.status, 415, "{content_type:?}");
        assert_eq!(reply.header("content-type"), Some("application/json"));
        assert_eq!(error_code(&reply), "unsupported_media_type");
        assert!(reply.json()["error"].is_string());
    }
    let ok = rt
        .request(
            "POST",
            "/chatkit",
            &[("Content-Type", "Application/JSON; charset=utf-8")],
            body.as_bytes(),
        )
        .await;
    assert_eq!(ok.status, 200, "{}", ok.text());
    rt.wait_for_line("POST /chatkit - 415")
        .expect("refusals are logged");
}

#[tokio::test]
async fn cross_site_requests_are_refused() {
    let app = "http://app.example:3000";
    let token = "token-for-the-app-0123456789";
    let rt = Runtime::start_with(&["--memory", "--allow-origin", app, "--token", token]);
    let own = rt.base_url();
    let cookie = rt.new_identity().await;

    // The runtime's own page.
    let same = rt
        .chatkit_with(
            &[
                ("Origin", &own),
                ("Sec-Fetch-Site", "same-origin"),
                ("Cookie", &cookie),
            ],
            list_threads(),
        )
        .await;
    assert_eq!(same.status, 200, "{}", same.text());
    assert_eq!(same.header("access-control-allow-origin"), None);

    for origin in [
        "http://evil.example",
        "http://127.0.0.1:1",
        "null",
        "http://app.example:3001",
        "https://app.example:3000",
    ] {
        let from = |extra: &'static [(&'static str, &'static str)]| {
            let mut h = vec![("Origin", origin), ("Cookie", cookie.as_str())];
            h.extend_from_slice(extra);
            h
        };
        for request in [list_threads(), create("posted from elsewhere")] {
            let reply = rt.chatkit_with(&from(&[]), request).await;
            assert_eq!(reply.status, 403, "{origin}: {}", reply.text());
            assert_eq!(error_code(&reply), "forbidden_origin");
            assert_eq!(reply.header("access-control-allow-origin"), None);
        }
        let upload = rt.request("POST", "/upload/atc_x", &from(&[]), b"x").await;
        assert_eq!(upload.status, 403, "{origin}");
        let preflight = rt
            .request(
                "OPTIONS",
                "/chatkit",
                &from(&[
                    ("Access-Control-Request-Method", "POST"),
                    ("Access-Control-Request-Headers", "content-type"),
                ]),
                b"",
            )
            .await;
        assert_eq!(preflight.status, 403, "{origin}");
        assert_eq!(preflight.header("access-control-allow-origin"), None);
    }
    // No Origin, but the browser says another site sent it.
    for site in ["cross-site", "same-site"] {
        let reply = rt
            .chatkit_with(
                &[("Sec-Fetch-Site", site), ("Cookie", &cookie)],
                create("from a form elsewhere"),
            )
            .await;
        assert_eq!(reply.status, 403, "{site}");
    }
    // None of it created anything.
    let list = rt
        .chatkit_with(&[("Cookie", &cookie)], list_threads())
        .await;
    assert!(ids(&list.json()).is_empty(), "{}", list.text());

    // The configured origin: a preflight, then CORS headers on the answer.
    let preflight = rt
        .request(
            "OPTIONS",
            "/chatkit",
            &[
                ("Origin", app),
                ("Access-Control-Request-Method", "POST"),
                (
                    "Access-Control-Request-Headers",
                    "content-type, authorization",
                ),
            ],
            b"",
        )
        .await;
    assert_eq!(preflight.status, 204, "{}", preflight.text());
    assert_eq!(preflight.header("access-control-allow-origin"), Some(app));
    assert_eq!(
        preflight.header("access-control-allow-credentials"),
        Some("true")
    );
    assert!(preflight
        .header("access-control-allow-methods")
        .is_some_and(|m| m.contains("POST")));
    assert!(preflight
        .header("access-control-allow-headers")
        .is_some_and(|h| h.contains("authorization")));
    let bearer = format!("Bearer {token}");
    let allowed = rt
        .chatkit_with(
            &[
                ("Origin", app),
                ("Sec-Fetch-Site", "cross-site"),
                ("Authorization", &bearer),
            ],
            create("from the app"),
        )
        .await;
    assert_eq!(allowed.header("access-control-allow-origin"), Some(app));
    assert_eq!(allowed.cookie(), None);
    let made = thread_id(&events_of(&allowed));
    let listed = rt
        .chatkit_with(
            &[("Origin", app), ("Authorization", &bearer)],
            list_threads(),
        )
        .await;
    assert_eq!(ids(&listed.json()), [made.as_str()]);
    // Without a token it would be a new stranger on every request: refused instead.
    let anonymous = rt
        .chatkit_with(
            &[("Origin", app), ("Sec-Fetch-Site", "cross-site")],
            list_threads(),
        )
        .await;
    assert_eq!(anonymous.status, 401, "{}", anonymous.text());
    assert_eq!(error_code(&anonymous), "unauthorized");
    assert_eq!(anonymous.header("access-control-allow-origin"), Some(app));

    // A link from another site still opens the page, and cannot replace the browser's
    // cookie (SameSite=Strict kept it from being sent); a typed address gets one.
    let followed = rt
        .request(
            "GET",
            "/",
            &[
                ("Sec-Fetch-Site", "cross-site"),
                ("Sec-Fetch-Mode", "navigate"),
            ],
            b"",
        )
        .await;
    assert_eq!(followed.status, 200);
    assert_eq!(followed.cookie(), None);
    let typed = rt
        .request(
            "GET",
            "/",
            &[("Sec-Fetch-Site", "none"), ("Sec-Fetch-Mode", "navigate")],
            b"",
        )
        .await;
    assert_eq!(typed.status, 200);
    assert!(typed.cookie().is_some());
}

#[tokio::test]
async fn requests_for_other_hosts_are_refused() {
    let rt = Runtime::start_with(&["--memory", "--allowed-host", "chat.example.com"]);
    let port = rt.port;
    let other_port = port.checked_add(1).unwrap_or(1);
    for host in [
        format!("evil.example:{port}"),
        "127.0.0.1".to_owned(),
        format!("localhost:{other_port}"),
        format!("127.0.0.1.nip.io:{port}"),
        "chat.example.com.evil.example".to_owned(),
    ] {
        let reply = rt.chatkit_with(&[("Host", &host)], list_threads()).await;
        assert_eq!(reply.status, 421, "{host}: {}", reply.text());
        assert_eq!(error_code(&reply), "misdirected_request");
        assert_eq!(reply.cookie(), None);
        let page = rt.request("GET", "/", &[("Host", &host)], b"").await;
        assert_eq!(page.status, 421, "{host}");
        assert!(!page.text().contains("chat-shell test"));
    }
    for host in [
        format!("localhost:{port}"),
        format!("[::1]:{port}"),
        "chat.example.com".to_owned(),
        "chat.example.com:8443".to_owned(),
    ] {
        let reply = rt.chatkit_with(&[("Host", &host)], list_threads()).await;
        assert_eq!(reply.status, 200, "{host}: {}", reply.text());
    }
    // Upload and preview URLs name the host the client used.
    let created = rt
        .chatkit_with(
            &[("Host", "chat.example.com")],
            json!({"type": "attachments.create", "params": {"name": "p.png", "size": 1, "mime_type": "image/png"}}),
        )
        .await
        .json();
    assert!(
        created["upload_url"]
            .as_str()
            .unwrap()
            .starts_with("http://chat.example.com/upload/atc_"),
        "{created}"
    );
}

#[tokio::test]
async fn oversized_titles_pages_and_attachment_declarations_get_400() {
    let rt = Runtime::start_with(&["--memory", "--max-upload-mb", "1"]);
    let thread = thread_id(&rt.stream(create("limits")).await);
    let attachment = |name: &str, size: u64, mime: &str| json!({"type": "attachments.create", "params": {"name": name, "size": size, "mime_type": mime}});
    let mb = 1024 * 1024;
    for request in [
        json!({"type": "threads.update", "params": {"thread_id": thread, "title": "x".repeat(257)}}),
        json!({"type": "threads.list", "params": {"limit": 1_000_000}}),
        json!({"type": "items.list", "params": {"thread_id": thread, "limit": 1001}}),
        attachment(&"n".repeat(256), 1, "text/plain"),
        attachment("", 1, "text/plain"),
        attachment("two\nlines.txt", 1, "text/plain"),
        attachment("a.txt", 1, "not a type"),
        attachment("a.txt", 1, "text/plain\r\nX-Injected: 1"),
        attachment("a.txt", 1, &format!("text/{}", "x".repeat(300))),
        attachment("a.txt", mb + 1, "text/plain"),
    ] {
        let reply = rt.chatkit(request.clone()).await;
        assert_eq!(reply.status, 400, "{request}: {}", reply.text());
        assert_eq!(error_code(&reply), "bad_request", "{request}");
        assert!(
            !reply.json()["error"].as_str().unwrap().is_empty(),
            "{request}"
        );
    }
    // Right at the limits: accepted.
    let title = "é".repeat(256);
    let renamed = rt
        .json(json!({"type": "threads.update", "params": {"thread_id": thread, "title": title}}))
        .await;
    assert_eq!(renamed["title"], title.as_str());
    rt.json(json!({"type": "threads.list", "params": {"limit": 1000}}))
        .await;
    rt.json(json!({"type": "items.list", "params": {"thread_id": thread, "limit": 1000}}))
        .await;
    rt.json(attachment(&"n".repeat(255), mb, "")).await;
    rt.json(attachment("a.txt", 0, "text/plain; charset=utf-8"))
        .await;
    let kept = rt
        .json(json!({"type": "threads.get_by_id", "params": {"thread_id": thread}}))
        .await;
    assert_eq!(kept["title"], title.as_str());
}

#[tokio::test]
async fn an_upload_must_be_exactly_the_declared_size() {
    let rt = Runtime::start();
    let created = rt
        .json(json!({"type": "attachments.create", "params": {"name": "notes.txt", "size": 5, "mime_type": "text/plain"}}))
        .await;
    let id = created["id"].as_str().unwrap().to_owned();
    let (upload, preview) = (format!("/upload/{id}"), format!("/preview/{id}"));
    let multipart = |data: &[u8]| {
        let mut body = b"--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"notes.txt\"\r\nContent-Type: text/plain\r\n\r\n".to_vec();
        body.extend_from_slice(data);
        body.extend_from_slice(b"\r\n--XyZ--\r\n");
        body
    };
    for data in [&b"four"[..], b"sixsix", b""] {
        let raw = rt.send("PUT", &upload, Some("text/plain"), data).await;
        assert_eq!(raw.status, 400, "{data:?}: {}", raw.text());
        assert_eq!(error_code(&raw), "bad_request");
        assert!(raw.json()["error"].as_str().unwrap().contains("declared 5"));
        let form = rt
            .send(
                "POST",
                &upload,
                Some("multipart/form-data; boundary=XyZ"),
                &multipart(data),
            )
            .await;
        assert_eq!(form.status, 400, "{data:?}: {}", form.text());
    }
    assert_eq!(rt.send("GET", &preview, None, b"").await.status, 404);

    let raw = rt.send("PUT", &upload, Some("text/plain"), b"hello").await;
    assert_eq!(raw.status, 200, "{}", raw.text());
    let form = rt
        .send(
            "POST",
            &upload,
            Some("multipart/form-data; boundary=XyZ"),
            &multipart(b"HELLO"),
        )
        .await;
    assert_eq!(form.status, 200, "{}", form.text());
    assert_eq!(rt.send("GET", &preview, None, b"").await.body, b"HELLO");
    let broken = rt
        .send(
            "POST",
            &upload,
            Some("multipart/form-data; boundary=XyZ"),
            b"--XyZ\r\nbroken",
        )
        .await;
    assert_eq!(broken.status, 400, "{}", broken.text());
}

#[tokio::test]
async fn internal_errors_do_not_leak_sqlite_details() {
    let db = temp_path("broken.db");
    let db_arg = db.to_str().unwrap().to_owned();
    let rt = Runtime::start_with(&["--db", &db_arg]);
    // Break the database under the running runtime: these writes now fail, with SQL in
    // the error text.
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute_batch(
            "CREATE TRIGGER no_threads BEFORE INSERT ON threads
                 BEGIN SELECT RAISE(ABORT, 'SQLite says no: INSERT INTO threads (owner)'); END;
             CREATE TRIGGER no_bytes BEFORE UPDATE OF bytes ON attachments
                 BEGIN SELECT RAISE(ABORT, 'SQLite says no: UPDATE attachments SET bytes'); END;",
        )
        .unwrap();
    }
    let check = |what: &str, reply: &Reply| {
        assert_eq!(reply.status, 500, "{what}: {}", reply.text());
        assert_eq!(reply.header("content-type"), Some("application/json"));
        assert_eq!(error_code(reply), "internal", "{what}");
        let text = reply.text().to_ascii_lowercase();
        for leak in [
            "sqlite", "sql", "insert", "update", "raise", "trigger", "owner", "says no",
        ] {
            assert!(!text.contains(leak), "{what} leaks `{leak}`: {text}");
        }
    };
    check("threads.create", &rt.chatkit(create("hello")).await);
    let attachment = rt
        .json(json!({"type": "attachments.create", "params": {"name": "a.txt", "size": 2, "mime_type": "text/plain"}}))
        .await;
    let upload = format!("/upload/{}", attachment["id"].as_str().unwrap());
    check(
        "upload",
        &rt.send("PUT", &upload, Some("text/plain"), b"hi").await,
    );
    drop(rt);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{db_arg}{suffix}"));
    }
}

#[tokio::test]
async fn the_identity_cookie_is_strict_signed_and_survives_a_restart() {
    let db = temp_path("identity.db");
    let db_arg = db.to_str().unwrap().to_owned();
    let rt = Runtime::start_with(&["--db", &db_arg]);
    let first = rt.chatkit_with(&[], list_threads()).await;
    let set = first.header("set-cookie").expect("a cookie").to_owned();
    for part in ["HttpOnly", "SameSite=Strict", "Path=/"] {
        assert!(set.contains(part), "{set}");
    }
    let cookie = first.cookie().unwrap();
    let (name, value) = cookie.split_once('=').unwrap();
    let (id, mac) = value.split_once('.').expect("id.signature");
    assert_eq!((id.len(), mac.len()), (32, 64), "{value}");
    assert!(value.bytes().all(|c| c == b'.' || c.is_ascii_hexdigit()));

    rt.set_cookie(Some(cookie.clone()));
    let thread = thread_id(&rt.stream(create("who am i")).await);
    // A cookie it knows is kept, not replaced.
    let again = rt
        .chatkit_with(&[("Cookie", &cookie)], list_threads())
        .await;
    assert_eq!(again.cookie(), None);
    assert_eq!(ids(&again.json()), [thread.as_str()]);
    // Another id under the same signature is a stranger, with a cookie of its own.
    let flipped = if id.starts_with('0') { "1" } else { "0" };
    let forged = format!("{name}={flipped}{}.{mac}", &id[1..]);
    let stranger = rt
        .chatkit_with(&[("Cookie", &forged)], list_threads())
        .await;
    assert!(ids(&stranger.json()).is_empty());
    assert!(stranger.cookie().is_some_and(|c| c != forged));
    drop(rt);

    let rt = Runtime::start_with(&["--db", &db_arg]);
    let back = rt
        .chatkit_with(&[("Cookie", &cookie)], list_threads())
        .await;
    assert_eq!(ids(&back.json()), [thread.as_str()], "{}", back.text());
    assert_eq!(back.cookie(), None);
    let newcomer = rt.chatkit_with(&[], list_threads()).await;
    assert!(ids(&newcomer.json()).is_empty());
    let new_cookie = newcomer.cookie().unwrap();
    assert!(new_cookie.starts_with(&format!("{name}=")) && new_cookie != cookie);
    drop(rt);
    // Another database: another secret, another cookie name.
    let memory = Runtime::start();
    let elsewhere = memory
        .chatkit_with(&[("Cookie", &cookie)], list_threads())
        .await;
    assert!(ids(&elsewhere.json()).is_empty());
    assert!(!elsewhere.cookie().unwrap().starts_with(&format!("{name}=")));
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{db_arg}{suffix}"));
    }
}

#[tokio::test]
async fn bearer_tokens_are_identities_of_their_own() {
    let a = "token-a-0123456789abcdef";
    let b = "token-b-0123456789abcdef";
    let rt = Runtime::start_with_env(&["--memory", "--token", a], Some(&format!(" {b} ,")));
    let (bearer_a, bearer_b) = (format!("Bearer {a}"), format!("Bearer {b}"));
    let created = rt
        .chatkit_with(&[("Authorization", &bearer_a)], create("token a"))
        .await;
    assert_eq!(created.cookie(), None, "a token needs no cookie");
    let thread = thread_id(&events_of(&created));
    let get = json!({"type": "threads.get_by_id", "params": {"thread_id": thread}});
    let mine = rt
        .chatkit_with(&[("Authorization", &bearer_a)], get.clone())
        .await;
    assert_eq!(mine.status, 200, "{}", mine.text());
    let theirs = rt
        .chatkit_with(&[("Authorization", &bearer_b)], get.clone())
        .await;
    assert_eq!(theirs.status, 404, "{}", theirs.text());
    let cookie = rt.new_identity().await;
    assert_eq!(
        rt.chatkit_with(&[("Cookie", &cookie)], get.clone())
            .await
            .status,
        404
    );
    // An unknown token is refused, even alongside a valid cookie.
    for auth in ["Bearer nobody-configured-this-token", "Bearer "] {
        let refused = rt
            .chatkit_with(&[("Authorization", auth), ("Cookie", &cookie)], get.clone())
            .await;
        assert_eq!(refused.status, 401, "{auth}");
        assert_eq!(error_code(&refused), "unauthorized");
        assert_eq!(refused.header("www-authenticate"), Some("Bearer"));
    }
}

#[tokio::test]
async fn a_seeded_thread_goes_to_the_first_user_only() {
    let rt = Runtime::start_with(&["--memory", "--seed-thread", "4"]);
    let first = rt.json(list_threads()).await;
    assert_eq!(ids(&first).len(), 1, "{first}");
    assert_eq!(first["data"][0]["title"], "Seeded thread (4 items)");
    let second = rt.new_identity().await;
    let theirs = rt
        .chatkit_with(&[("Cookie", &second)], list_threads())
        .await;
    assert!(ids(&theirs.json()).is_empty(), "{}", theirs.text());
}

#[tokio::test]
async fn a_mixed_seeded_thread_lists_tool_calls_and_widgets() {
    let rt = Runtime::start_with(&["--memory", "--seed-thread", "10", "--seed-mixed"]);
    let threads = rt.json(list_threads()).await;
    let thread = &ids(&threads)[0];
    let items = rt
        .json(json!({"type": "items.list", "params": {"thread_id": thread, "order": "asc"}}))
        .await;
    let types: Vec<&str> = items["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        types,
        [
            "user_message",
            "assistant_message",
            "user_message",
            "acp_tool_call",
            "user_message",
            "assistant_message",
            "user_message",
            "widget",
            "user_message",
            "assistant_message",
        ]
    );
    let call = &items["data"][3]["tool_call"];
    assert_eq!(call["content"][0]["type"], "diff", "{call}");
    assert_eq!(items["data"][7]["widget"]["type"], "Card");
    let newest = items["data"][9]["content"][0]["text"].as_str().unwrap();
    assert!(newest.starts_with("Seeded answer 5:"), "{newest}");
}
