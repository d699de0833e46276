//! Example: a Leptos app with its own UI (a theme switch and an event log) beside the
//! `<ChatShell>` component, wired through typed props and callbacks.

#[cfg(target_arch = "wasm32")]
fn main() {
    use chat_shell::options::StarterPrompt;
    use chat_shell::runtime::{RustTool, ToolFuture};
    use chat_shell::{ChatEvent, ChatShell};
    use leptos::prelude::*;
    use std::rc::Rc;

    /// A client tool in Rust: the server asks, the app answers from the browser.
    fn client_info() -> RustTool {
        Rc::new(|args: serde_json::Value| -> ToolFuture {
            Box::pin(async move {
                let language = web_sys::window()
                    .and_then(|w| w.navigator().language())
                    .unwrap_or_default();
                Ok(
                    serde_json::json!({ "answeredBy": "rust", "language": language, "asked": args["fields"] }),
                )
            })
        })
    }

    #[component]
    fn App() -> impl IntoView {
        let (log, set_log) = signal(Vec::<String>::new());
        let (dark, set_dark) = signal(false);
        let sent = RwSignal::new(0u32);
        view! {
            <div class="app">
                <aside class="app__side" aria-label="App panel">
                    <h1>"My Leptos app"</h1>
                    <label>
                        <input type="checkbox" on:change=move |ev| set_dark.set(event_target_checked(&ev)) />
                        " Dark theme"
                    </label>
                    <p data-testid="sent-count">"Messages sent: " {move || sent.get()}</p>
                    <ul class="app__log" aria-label="Event log">
                        {move || log.get().into_iter().map(|line| view! { <li>{line}</li> }).collect_view()}
                    </ul>
                </aside>
                <main class="app__chat">
                    <ChatShell
                        endpoint="/chatkit"
                        greeting="Ask the reference runtime anything"
                        starter_prompts=vec![StarterPrompt {
                            title: "Show me a workflow".into(),
                            prompt: "workflow".into(),
                            icon: Some("sparkle".into()),
                        }]
                        theme=Signal::derive(move || if dark.get() { "dark".to_owned() } else { "light".to_owned() })
                        on_message_sent=move |_text: String| sent.update(|n| *n += 1)
                        on_event=move |e: ChatEvent| set_log.update(|l| l.push(e.name().to_owned()))
                        client_tools=vec![("get_client_info".to_owned(), client_info())]
                    />
                </main>
            </div>
        }
    }

    leptos::mount::mount_to_body(App);
}

/// The app only runs in a browser; natively there is nothing to do.
#[cfg(not(target_arch = "wasm32"))]
fn main() {}
