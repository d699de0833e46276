use super::*;

fn clean(s: &str) -> String {
    sanitize_html(s).into_string()
}

#[test]
fn empty_input_gives_empty_output() {
    assert!(sanitize_html("").is_empty());
    assert_eq!(SafeHtml::default().as_str(), "");
}

#[test]
fn keeps_formatting_and_drops_script() {
    assert_eq!(
        clean("<p><b>x</b><script>alert(1)</script></p>"),
        "<p><b>x</b></p>"
    );
    assert_eq!(clean("<style>p{}</style>t"), "t");
}

#[test]
fn links_get_rel_and_target_and_only_safe_schemes() {
    assert_eq!(
        clean(r#"<a href="https://e.com/?a=1&b=2" onclick="x()">l</a>"#),
        r#"<a href="https://e.com/?a=1&amp;b=2" target="_blank" rel="noopener noreferrer nofollow">l</a>"#
    );
    for bad in [
        "javascript:alert(1)",
        "JaVaScRiPt:alert(1)",
        "java&#x09;script:alert(1)",
        "&#106;avascript:alert(1)",
        " javascript:alert(1)",
        "vbscript:msgbox(1)",
        "data:text/html,<script>alert(1)</script>",
        "data:image/png;base64,AAAA",
        "/relative",
        "#fragment",
        "//evil.example/x",
    ] {
        let out = clean(&format!(r#"<a href="{bad}">l</a>"#));
        assert!(!out.contains("href"), "{bad} -> {out}");
    }
    assert!(clean(r#"<a href="mailto:a@b.c">m</a>"#).contains(r#"href="mailto:a@b.c""#));
}

#[test]
fn images_allow_http_and_raster_data_only() {
    assert_eq!(
        clean(r#"<img src="https://e.com/a.png" alt="a" onerror="x()" style="x">"#),
        r#"<img src="https://e.com/a.png" alt="a">"#
    );
    assert!(clean(r#"<img src="data:image/png;base64,iVBOR">"#).contains("src="));
    assert!(clean(r#"<img src="DATA:image/webp;base64,iVBOR">"#).contains("src="));
    for bad in [
        "data:image/svg+xml;base64,PHN2Zz4=",
        "data:text/html;base64,PHNjcmlwdD4=",
        "data:image/png,raw",
        "javascript:alert(1)",
        "x",
    ] {
        let out = clean(&format!(r#"<img src="{bad}">"#));
        assert!(!out.contains("src="), "{bad} -> {out}");
    }
}

#[test]
fn classes_are_allowlisted() {
    // The component's own class and hook, written by the server: both go.
    assert_eq!(
        clean(
            r#"<div class="cs-code evil" data-part="code-block" id="x" style="color:red">t</div>"#
        ),
        r#"<div>t</div>"#
    );
    assert_eq!(
        clean(r#"<blockquote class="markdown-alert-tip cs-code">q</blockquote>"#),
        r#"<blockquote class="markdown-alert-tip">q</blockquote>"#
    );
    assert_eq!(
        clean(r#"<code class="language-rust">x</code>"#),
        r#"<code class="language-rust">x</code>"#
    );
    assert_eq!(
        clean(r#"<code class="hljs language-a&quot;b">x</code>"#),
        "<code>x</code>"
    );
    assert_eq!(clean(r#"<p class="cs-code">x</p>"#), "<p>x</p>");
}

#[test]
fn forced_attributes() {
    assert_eq!(
        clean(
            r#"<button type="submit" formaction="javascript:x" onclick="x" class="cs-code__copy" aria-label="Copy code">C</button>"#
        ),
        r#"<button type="button" aria-label="Copy code">C</button>"#
    );
    let input = clean(r#"<input type="text" value="v" name="n">"#);
    assert!(input.contains(r#"type="checkbox""#), "{input}");
    assert!(input.contains(r#"disabled="""#), "{input}");
    assert!(
        !input.contains("value") && !input.contains("name"),
        "{input}"
    );
}

#[test]
fn only_the_renderers_marked_hooks_are_kept() {
    let own = format!(
        r#"<div class="{t}cs-code" data-part="{t}code-block"><button class="{t}cs-code__copy x" data-part="{t}code-copy">C</button><sup data-part="{t}citation">1</sup></div>"#,
        t = TRUSTED
    );
    assert_eq!(
        sanitize_rendered(&own).as_str(),
        r#"<div class="cs-code" data-part="code-block"><button class="cs-code__copy" data-part="code-copy" type="button">C</button><sup data-part="citation">1</sup></div>"#
    );
    // The same markup through the untrusted entry: the marks are scrubbed first.
    assert_eq!(
        clean(&own),
        r#"<div><button type="button">C</button><sup>1</sup></div>"#
    );
    // A mark is no key to other hooks, or to the right hook on another element.
    let odd = format!(
        r#"<div data-part="{t}evil" class="{t}cs-evil"><sup data-part="{t}code-copy">s</sup><span class="{t}cs-code__copy">x</span></div>"#,
        t = TRUSTED
    );
    assert_eq!(
        sanitize_rendered(&odd).as_str(),
        "<div><sup>s</sup><span>x</span></div>"
    );
    // No character reference makes the mark.
    for forged in ["&#x80;", "&#128;", "&#x0080;"] {
        let html = format!(r#"<sup data-part="{forged}citation">1</sup>"#);
        assert_eq!(
            sanitize_rendered(&html).as_str(),
            "<sup>1</sup>",
            "{forged}"
        );
    }
}

#[test]
fn safe_urls_for_views() {
    assert_eq!(
        safe_url(" https://e.com/a?b=1 ").as_deref(),
        Some("https://e.com/a?b=1")
    );
    assert_eq!(safe_url("mailto:a@b.c").as_deref(), Some("mailto:a@b.c"));
    for bad in [
        "javascript:alert(1)",
        "JAVASCRIPT:alert(1)",
        "java\tscript:alert(1)",
        "\u{1}javascript:alert(1)",
        "data:text/html,x",
        "data:image/png;base64,AAAA",
        "/relative",
        "//evil.example",
        "ht tp://e.com",
        "",
    ] {
        assert_eq!(safe_url(bad), None, "{bad:?}");
    }
    assert!(safe_image_url("https://e.com/i.png").is_some());
    assert!(safe_image_url("data:image/gif;base64,R0lG").is_some());
    assert_eq!(safe_image_url("data:image/svg+xml;base64,PHN2Zz4="), None);
    assert_eq!(safe_image_url("mailto:a@b.c"), None);
    assert_eq!(safe_image_url("javascript:alert(1)"), None);
}

#[test]
fn escape_text_escapes_everything() {
    assert_eq!(
        escape_text(r#"<b a='1'>&"x"</b>"#).as_str(),
        "&lt;b a=&#39;1&#39;&gt;&amp;&quot;x&quot;&lt;/b&gt;"
    );
    assert_eq!(escape_text("plain ✅").as_str(), "plain ✅");
}
