//! Error bodies, page headers, labels.

use super::*;

/// `reply` is an error in the runtime's JSON shape, with `code`.
fn assert_json_error(what: &str, reply: &Reply, status: u16, code: &str) {
    assert_eq!(reply.status, status, "{what}: {}", reply.text());
    assert_eq!(
        reply.header("content-type"),
        Some("application/json"),
        "{what}"
    );
    let body = reply.json();
    assert_eq!(body["code"], code, "{what}: {body}");
    assert!(
        !body["error"].as_str().unwrap_or_default().is_empty(),
        "{what}: {body}"
    );
}

#[tokio::test]
async fn every_error_answers_json_with_the_code_of_its_status() {
    let rt = Runtime::start_with(&["--memory", "--max-upload-mb", "1"]);
    let wrong_method = rt.send("GET", "/chatkit", None, b"").await;
    assert_json_error("GET /chatkit", &wrong_method, 405, "method_not_allowed");
    assert_eq!(wrong_method.header("allow"), Some("POST"));
    let put = rt
        .send("PUT", "/events", Some("application/json"), b"{}")
        .await;
    assert_json_error("PUT /events", &put, 405, "method_not_allowed");
    let missing = rt.send("GET", "/no-such-file.js", None, b"").await;
    assert_json_error("a missing file", &missing, 404, "not_found");
    let huge = json!({"type": "threads.list", "params": {}, "pad": "x".repeat(2 * 1024 * 1024)});
    for path in ["/chatkit", "/events", "/agent-ui"] {
        let reply = rt
            .send(
                "POST",
                path,
                Some("application/json"),
                huge.to_string().as_bytes(),
            )
            .await;
        assert_json_error(path, &reply, 413, "payload_too_large");
    }
    let attachment = rt
        .json(json!({"type": "attachments.create", "params": {"name": "a.txt", "size": 1, "mime_type": "text/plain"}}))
        .await;
    let upload = format!("/upload/{}", attachment["id"].as_str().unwrap());
    let too_big = rt
        .send(
            "PUT",
            &upload,
            Some("text/plain"),
            &vec![b'x'; 1024 * 1024 + 1],
        )
        .await;
    assert_json_error("an upload", &too_big, 413, "payload_too_large");
    let no_boundary = rt
        .send("POST", &upload, Some("multipart/form-data"), b"x")
        .await;
    assert_json_error("multipart", &no_boundary, 400, "bad_request");
    let text = rt.send("POST", "/chatkit", Some("text/plain"), b"{}").await;
    assert_json_error("text/plain", &text, 415, "unsupported_media_type");
    let unknown = rt
        .chatkit(json!({"type": "threads.get_by_id", "params": {"thread_id": "thr_nope"}}))
        .await;
    assert_json_error("an unknown thread", &unknown, 404, "not_found");
}

#[tokio::test]
async fn every_answer_carries_a_strict_policy_nosniff_and_a_referrer_policy() {
    let rt = Runtime::start();
    std::fs::write(rt.dist().join("app.js"), "export {};").unwrap();
    let page = rt.send("GET", "/", None, b"").await;
    assert_eq!(page.status, 200);
    assert_eq!(
        page.header("content-type"),
        Some("text/html"),
        "{:?}",
        page.headers
    );
    let api = rt.chatkit(list_threads()).await;
    let refused = rt.send("GET", "/chatkit", None, b"").await;
    let script = rt.send("GET", "/app.js", None, b"").await;
    for (what, reply) in [
        ("the page", &page),
        ("a script", &script),
        ("a JSON answer", &api),
        ("an error", &refused),
    ] {
        let csp = reply
            .header("content-security-policy")
            .unwrap_or_else(|| panic!("{what}: no policy in {:?}", reply.headers));
        let directives: Vec<&str> = csp.split(';').map(str::trim).collect();
        for wanted in [
            "default-src 'self'",
            "script-src 'self' 'wasm-unsafe-eval'",
            "style-src 'self'",
            "object-src 'none'",
            "base-uri 'none'",
            "frame-ancestors 'none'",
        ] {
            assert!(directives.contains(&wanted), "{what}: {wanted} in {csp}");
        }
        assert!(
            !csp.contains("unsafe-inline") && !csp.contains("'unsafe-eval'"),
            "{what}: {csp}"
        );
        assert_eq!(
            reply.header("x-content-type-options"),
            Some("nosniff"),
            "{what}"
        );
        assert_eq!(
            reply.header("referrer-policy"),
            Some("same-origin"),
            "{what}"
        );
    }

    // Who may frame the pages, and the rest of the policy, are the operator's choice.
    let embedded = Runtime::start_with(&[
        "--memory",
        "--frame-ancestors",
        "'self' https://app.example.com",
        "--csp",
        "default-src 'self'; script-src 'self' 'unsafe-inline'",
    ]);
    let page = embedded.send("GET", "/", None, b"").await;
    assert_eq!(
        page.header("content-security-policy"),
        Some("default-src 'self'; script-src 'self' 'unsafe-inline'; frame-ancestors 'self' https://app.example.com")
    );
}

#[tokio::test]
async fn titles_and_names_with_control_or_bidi_characters_are_refused_or_cleaned() {
    let rt = Runtime::start();
    let events = rt
        .stream(create("hello\u{0} \u{1b}[2Jthere \u{202e}gpj.exe\r\nnow"))
        .await;
    let thread = thread_id(&events);
    let titled = rt
        .json(json!({"type": "threads.get_by_id", "params": {"thread_id": thread}}))
        .await;
    // A title made from the message has them removed.
    assert_eq!(titled["title"], "hello [2Jthere gpj.exe now", "{titled}");
    for bad in [
        "a\u{0}b",
        "a\r\nb",
        "a\u{1b}[31mb",
        "a\u{202e}b",
        "a\u{2066}b\u{2069}",
        "\u{200f}",
    ] {
        let reply = rt
            .chatkit(
                json!({"type": "threads.update", "params": {"thread_id": thread, "title": bad}}),
            )
            .await;
        assert_json_error(&format!("title {bad:?}"), &reply, 400, "bad_request");
        let reply = rt
            .chatkit(json!({"type": "attachments.create", "params": {"name": format!("{bad}.txt"), "size": 1, "mime_type": "text/plain"}}))
            .await;
        assert_json_error(&format!("name {bad:?}"), &reply, 400, "bad_request");
    }
    let kept = rt
        .json(json!({"type": "threads.get_by_id", "params": {"thread_id": thread}}))
        .await;
    assert_eq!(kept["title"], titled["title"]);
    // Other scripts, accents and emoji are fine.
    let fine = "Résumé עברית 日本語 👩‍💻";
    let renamed = rt
        .json(json!({"type": "threads.update", "params": {"thread_id": thread, "title": fine}}))
        .await;
    assert_eq!(renamed["title"], fine);
    let named = rt
        .json(json!({"type": "attachments.create", "params": {"name": format!("{fine}.txt"), "size": 1, "mime_type": "text/plain"}}))
        .await;
    assert_eq!(named["name"], format!("{fine}.txt"));
}

#[tokio::test]
async fn a_message_over_the_length_limit_is_refused_and_not_stored() {
    let rt = Runtime::start();
    let long = "x".repeat(200_001);
    let events = rt.stream(create(&long)).await;
    let error = events.iter().find_map(|e| match e {
        StreamEvent::Error(e) => e.message.clone(),
        _ => None,
    });
    let error = error.expect("an error event");
    assert!(
        error.contains("200001 characters") && error.contains("200000"),
        "{error}"
    );
    assert!(done_items(&events).is_empty(), "nothing stored or answered");
    // At the limit, it goes.
    let events = rt.stream(create(&"y".repeat(200_000))).await;
    assert!(!done_items(&events).is_empty());
}
