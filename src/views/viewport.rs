//! StreamViewport: notices, the items of the thread, progress, the turn's error, and
//! scrolling that follows the answer only while the reader is at the bottom.

use super::items::ItemView;
use crate::markdown;
use crate::protocol::NoticeLevel;
use crate::runtime::Shell;
use leptos::html;
use leptos::prelude::*;
use wasm_bindgen::prelude::*;

/// Distance from the bottom (px) that still counts as "at the bottom".
const STICK_PX: i32 = 48;

#[component]
pub fn StreamViewport(shell: Shell) -> impl IntoView {
    let signals = shell.signals().expect("runtime exists while mounted");
    let viewport = NodeRef::<html::Div>::new();
    let content = NodeRef::<html::Div>::new();
    let at_bottom = RwSignal::new(true);

    let on_scroll = move |_| {
        if let Some(v) = viewport.get() {
            at_bottom.set(v.scroll_height() - v.scroll_top() - v.client_height() < STICK_PX);
        }
    };
    let scroll_to_end = move || {
        if let Some(v) = viewport.get_untracked() {
            v.set_scroll_top(v.scroll_height());
        }
    };
    // Content grows (streamed text, images loading): follow it if the reader is at the end.
    Effect::new(move |_| {
        let Some(el) = content.get() else { return };
        let follow = Closure::<dyn FnMut()>::new(move || {
            if at_bottom.get_untracked() {
                scroll_to_end();
            }
        });
        if let Ok(observer) = web_sys::ResizeObserver::new(follow.as_ref().unchecked_ref()) {
            observer.observe(&el);
        }
        // Lives as long as the observed element: the observer calls it until then.
        follow.forget();
    });

    let empty = move || signals.order.with(|o| o.is_empty()) && signals.streaming.get().is_none();
    view! {
        <div class="cs-viewport" part="viewport" node_ref=viewport on:scroll=on_scroll>
            <div class="cs-viewport__content" node_ref=content>
                <Notices shell=shell />
                <Show when=empty>
                    <div class="cs-start" data-part="start-screen">
                        <p class="cs-start__greeting">"How can I help you today?"</p>
                    </div>
                </Show>
                <section class="cs-items" aria-label="Conversation">
                    <For
                        each=move || signals.order.get()
                        key=|k| k.clone()
                        children=move |k| view! { <ItemView shell=shell key=k /> }
                    />
                </section>
                {move || {
                    signals
                        .progress
                        .get()
                        .map(|p| {
                            view! {
                                <div class="cs-progress cs-shimmer" data-part="progress" role="status">
                                    {p.text}
                                </div>
                            }
                        })
                }}
                <TurnErrorView shell=shell />
            </div>
            <Show when=move || !at_bottom.get()>
                <button
                    type="button"
                    class="cs-button cs-scroll-end"
                    aria-label="Scroll to bottom"
                    on:click=move |_| {
                        scroll_to_end();
                        at_bottom.set(true);
                    }
                >
                    "↓"
                </button>
            </Show>
        </div>
    }
}

#[component]
fn TurnErrorView(shell: Shell) -> impl IntoView {
    let signals = shell.signals().expect("runtime exists while mounted");
    move || {
        let error = signals.error.get()?;
        let can_retry = error.allow_retry && error.retry_after.is_some();
        Some(view! {
            <div class="cs-error" data-part="error" role="alert">
                <p class="cs-error__message">{error.message}</p>
                {can_retry.then(|| view! {
                    <button
                        type="button"
                        class="cs-button"
                        on:click=move |_| {
                            shell.with(|rt| rt.retry());
                        }
                    >
                        "Retry"
                    </button>
                })}
            </div>
        })
    }
}

#[component]
fn Notices(shell: Shell) -> impl IntoView {
    let signals = shell.signals().expect("runtime exists while mounted");
    view! {
        <div class="cs-notices" part="notices">
            <For
                each=move || signals.notices.get()
                key=|n| n.id
                children=move |n| {
                    let level = match n.event.level {
                        NoticeLevel::Info => "info",
                        NoticeLevel::Warning => "warning",
                        NoticeLevel::Danger => "danger",
                    };
                    let id = n.id;
                    let body = markdown::render(&n.event.message).into_string();
                    view! {
                        <div class="cs-notice" data-level=level data-part="notice" role="status">
                            {n.event.title.map(|t| view! { <strong class="cs-notice__title">{t}</strong> })}
                            <div class="cs-md cs-notice__body" inner_html=body></div>
                            <button
                                type="button"
                                class="cs-button cs-button--ghost"
                                aria-label="Dismiss notice"
                                on:click=move |_| {
                                    shell.with(|rt| rt.dismiss_notice(id));
                                }
                            >
                                "×"
                            </button>
                        </div>
                    }
                }
            />
        </div>
    }
}
