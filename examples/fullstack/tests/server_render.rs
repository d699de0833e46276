//! chat-shell's `ChatShell` in a server-rendered app's server build (this app's, `ssr`): the
//! HTML holds the chat's early frame and a real composer, in the props' words and
//! direction, with the props escaped. Run by the test command with `--features ssr` (in the
//! dev profile, beside the app's own server build).
#![cfg(feature = "ssr")]

use chat_shell::options::StarterPrompt;
use chat_shell::ChatShell;
use leptos::prelude::*;

/// The server's HTML without Leptos's hydration markers (`<!>`).
fn render(view: impl FnOnce() -> AnyView) -> String {
    Owner::new().with(|| view().to_html()).replace("<!>", "")
}

/// The whole start tag holding `marker`.
fn tag<'a>(html: &'a str, marker: &str) -> &'a str {
    let at = html
        .find(marker)
        .unwrap_or_else(|| panic!("no {marker} in {html}"));
    let start = html[..at].rfind('<').expect("a tag");
    let end = at + html[at..].find('>').expect("the tag's end");
    &html[start..=end]
}

#[test]
fn the_server_renders_the_frame_and_a_composer() {
    let html = render(|| {
        view! {
            <ChatShell
                endpoint="/chat/chatkit"
                greeting="Welcome back"
                placeholder="Ask away"
                theme="dark"
                starter_prompts=vec![StarterPrompt { title: "Plan a trip".into(), prompt: "plan".into(), icon: None }]
            />
        }
        .into_any()
    });
    assert!(html.contains(r#"class="cs-host""#), "{html}");
    assert!(html.contains(r#"data-theme="dark""#), "{html}");
    let frame = tag(&html, r#"class="cs-root""#);
    assert!(frame.contains("data-early"), "{frame}");
    assert!(html.contains("Welcome back"), "{html}");
    assert!(html.contains("Plan a trip"), "{html}");
    let composer = tag(&html, "<textarea");
    assert!(composer.contains(r#"aria-label="Message""#), "{composer}");
    assert!(composer.contains(r#"placeholder="Ask away""#), "{composer}");
    assert!(html.contains(">Send</button>"), "{html}");
    assert!(!html.contains(r#"dir="rtl""#), "{html}");
}

#[test]
fn a_right_to_left_locale_and_string_overrides_show_in_the_frame() {
    let html = render(|| {
        view! {
            <ChatShell
                endpoint="/chatkit"
                locale="ar"
                strings=serde_json::json!({ "ar": { "send": "أرسل الآن" } })
                allow_attachments=false
                starter_prompts=vec![StarterPrompt { title: String::new(), prompt: "plan a trip".into(), icon: None }]
            />
        }
        .into_any()
    });
    let shell = tag(&html, r#"class="cs-shell""#);
    assert!(
        shell.contains(r#"lang="ar""#) && shell.contains(r#"dir="rtl""#),
        "{shell}"
    );
    assert!(html.contains(">أرسل الآن</button>"), "{html}");
    assert!(
        html.contains("كيف يمكنني مساعدتك اليوم؟"),
        "the Arabic greeting: {html}"
    );
    // A prompt without a title shows its prompt, as the live start screen does.
    assert!(
        html.contains(r#"<span class="cs-start__title">plan a trip</span>"#),
        "{html}"
    );
    let attach = tag(&html, "cs-composer__attach");
    assert!(attach.contains("hidden"), "attachments off: {attach}");
}

#[test]
fn props_are_text_in_the_servers_html() {
    let hostile = r#"<img src=x onerror="alert(1)">"#;
    let html = render(|| {
        view! {
            <ChatShell
                endpoint="/chatkit"
                greeting=hostile
                placeholder=hostile
                starter_prompts=vec![StarterPrompt { title: hostile.into(), prompt: "x".into(), icon: None }]
            />
        }
        .into_any()
    });
    assert!(!html.contains("<img"), "{html}");
    assert!(html.contains("&lt;img"), "{html}");
}
