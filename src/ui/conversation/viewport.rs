//! StreamViewport: notices, the start screen, the items of the thread, progress, the
//! turn's error, and scrolling: it follows the answer only while the reader is at the
//! bottom, loads older items when the reader reaches the top, and keeps what the reader
//! sees in place when they are prepended.

use super::items::Item;
use super::run::{OrchestrationView, RunErrors};
use crate::runtime::ItemView;
use crate::ui::sentinel::Sentinel;
use crate::ui::tr;
use crate::ui::use_shell;
use crate::ui::widgets::icon as widget_icon;
use chat_shell_core::markdown;
use chat_shell_core::options::StarterPrompt;
use chat_shell_core::protocol::chatkit::NoticeLevel;
use chat_shell_core::strings::Text;
use leptos::html;
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use web_sys::Element;

/// Distance from the bottom (px) that still counts as "at the bottom".
const STICK_PX: i32 = 48;
/// Older items start loading this far (px) before the reader reaches the top.
const PRELOAD_PX: u32 = 300;

type Observer = (web_sys::ResizeObserver, Closure<dyn FnMut()>);

/// Where an element's top is within `container` (px): unchanged by scrolling.
fn top_in(container: &Element, el: &Element) -> f64 {
    el.get_bounding_client_rect().top() - container.get_bounding_client_rect().top()
}

#[component]
pub fn StreamViewport() -> impl IntoView {
    let shell = use_shell();
    let signals = shell.signals().expect("runtime exists while mounted");
    // The roster's code is fetched on demand: only a conversation with a team asks for it.
    let has_team = Memo::new(move |_| {
        signals.run.track();
        shell
            .with(|rt| rt.with_state(|s| s.team.is_some()))
            .unwrap_or(false)
    });
    let viewport = NodeRef::<html::Div>::new();
    let content = NodeRef::<html::Div>::new();
    let items = NodeRef::<html::Section>::new();
    let top_sentinel = NodeRef::<html::Div>::new();
    let at_bottom = RwSignal::new(true);
    // The first item and its place in the content as of the last layout: when something
    // above it changes (older items put in front), the scroll position moves by as much as
    // it did, so what the reader sees holds still. Content coordinates, so the reader's
    // own scrolling never counts as a change.
    let anchor = StoredValue::new_local(None::<(Element, f64)>);
    let record_anchor = move || {
        let (Some(c), Some(section)) = (content.get_untracked(), items.get_untracked()) else {
            return;
        };
        let first = section.first_element_child();
        anchor.set_value(first.map(|el| {
            let top = top_in(&c, &el);
            (el, top)
        }));
    };
    let keep_place = move || {
        let (Some(v), Some(c)) = (viewport.get_untracked(), content.get_untracked()) else {
            return;
        };
        anchor.with_value(|a| {
            let Some((el, before)) = a else { return };
            if el.is_connected() {
                let moved = top_in(&c, el) - before;
                if moved.abs() >= 1.0 {
                    v.set_scroll_top(v.scroll_top() + moved.round() as i32);
                }
            }
        });
    };

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
    // Another thread: start at its newest items.
    let thread_id = Memo::new(move |_| signals.thread.with(|t| t.as_ref().map(|t| t.id.clone())));
    Effect::new(move |_| {
        thread_id.track();
        anchor.set_value(None);
        at_bottom.set(true);
        scroll_to_end();
    });
    // Content grows (streamed text, images loading, older items): follow it if the reader
    // is at the end, else keep their place. Resize observers run after layout and before
    // paint, so neither flickers.
    // The observer goes with the view (the element removed or moved): its last report,
    // the content shrinking to nothing, must not reach a disposed view.
    let follower = StoredValue::new_local(None::<Observer>);
    Effect::new(move |_| {
        let Some(el) = content.get() else { return };
        if follower.with_value(Option::is_some) {
            return;
        }
        let follow = Closure::<dyn FnMut()>::new(move || {
            let Some(at_bottom) = at_bottom.try_get_untracked() else {
                return;
            };
            if at_bottom {
                scroll_to_end();
            } else {
                keep_place();
            }
            record_anchor();
        });
        if let Ok(observer) = web_sys::ResizeObserver::new(follow.as_ref().unchecked_ref()) {
            observer.observe(&el);
            follower.set_value(Some((observer, follow)));
        }
    });
    on_cleanup(move || {
        follower.try_update_value(|o| {
            if let Some((observer, _)) = o.take() {
                observer.disconnect();
            }
        });
    });
    // Older items when the top comes into view, and again after each page.
    let older = Sentinel::watch(
        viewport,
        top_sentinel,
        format!("{PRELOAD_PX}px 0px 0px 0px"),
        move || {
            shell.with(|rt| rt.load_older());
        },
    );
    Effect::new(move |_| {
        let state = signals.history.older.get();
        if !state.loading && state.more {
            // After this frame's render (the page just applied), not before it.
            request_animation_frame(move || older.look_again());
        }
    });

    let opening = move || signals.history.opening.with(Option::is_some);
    let empty = move || {
        signals.order.with(|o| o.is_empty())
            && signals.streaming.get().is_none()
            && signals.thread.with(Option::is_none)
            && !opening()
    };
    view! {
        <div
            class="cs-viewport"
            part="viewport"
            node_ref=viewport
            on:scroll=on_scroll
            aria-busy=move || opening().to_string()
        >
            <div class="cs-viewport__content" node_ref=content>
                <Notices />
                {move || opening().then(|| view! {
                    <p class="cs-loading" data-part="thread-loading" role="status">{tr(shell, Text::LoadingConversation)}</p>
                })}
                {move || signals.history.open_error.get().map(|error| view! {
                    <div class="cs-error" data-part="thread-error" role="alert">
                        <p class="cs-error__message">{error}</p>
                    </div>
                })}
                <Show when=empty>
                    <StartScreen />
                </Show>
                <div class="cs-older" data-part="older-sentinel" node_ref=top_sentinel>
                    {move || signals.history.older.with(|o| o.loading).then(|| view! {
                        <p class="cs-loading" data-part="older-loading" role="status">{tr(shell, Text::LoadingEarlier)}</p>
                    })}
                </div>
                <section class="cs-items" aria-label=tr(shell, Text::Conversation) node_ref=items>
                    <RunErrors after=None />
                    <For
                        each=move || signals.order.get()
                        key=|k| k.clone()
                        children=move |k| {
                            // A summary line is followed by its calls, which carry their
                            // own errors.
                            let errors = (k.view != ItemView::ToolCalls).then(|| {
                                view! { <RunErrors after=Some(k.id.clone()) /> }
                            });
                            view! {
                                <Item key=k />
                                {errors}
                            }
                        }
                    />
                </section>
                <OrchestrationView />
                {move || has_team.get().then(|| crate::parts::views::team_roster(shell))}
                <crate::ui::team::ResyncStatus />
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
                <TurnErrorView />
            </div>
            <Show when=move || !at_bottom.get()>
                <button
                    type="button"
                    class="cs-button cs-scroll-end"
                    aria-label=tr(shell, Text::ScrollToBottom)
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
fn TurnErrorView() -> impl IntoView {
    let shell = use_shell();
    let signals = shell.signals().expect("runtime exists while mounted");
    move || {
        let error = signals.error.get()?;
        let can_retry = error.allow_retry && error.retry_after.is_some();
        // The reducer's own messages are in English: shown in the element's language.
        let message = [Text::AnswerFailed, Text::AnswerEmpty]
            .into_iter()
            .find(|t| t.english() == error.message)
            .map_or(error.message, |t| tr(shell, t).get());
        Some(view! {
            <div class="cs-error" data-part="error" role="alert">
                <p class="cs-error__message">{message}</p>
                {can_retry.then(|| view! {
                    <button
                        type="button"
                        class="cs-button"
                        on:click=move |_| {
                            shell.with(|rt| rt.retry());
                        }
                    >
                        {tr(shell, Text::Retry)}
                    </button>
                })}
            </div>
        })
    }
}

#[component]
fn Notices() -> impl IntoView {
    let shell = use_shell();
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
                    let message = n.event.message.clone();
                    let body = move || crate::ui::markdown::render(&message, &crate::ui::strings(shell));
                    view! {
                        <div class="cs-notice" data-level=level data-part="notice" role="status">
                            {n.event.title.map(|t| view! { <strong class="cs-notice__title">{t}</strong> })}
                            <div class="cs-md cs-notice__body" inner_html=body></div>
                            <button
                                type="button"
                                class="cs-button cs-button--ghost"
                                aria-label=tr(shell, Text::DismissNotice)
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

/// What an empty conversation shows: the greeting and the starter prompts, each of which
/// starts a thread with its prompt as the first message.
#[component]
fn StartScreen() -> impl IntoView {
    let shell = use_shell();
    let signals = shell.signals().expect("runtime exists while mounted");
    let prompts = move || {
        let prompts = signals.options.with(|o| o.starter_prompts.clone());
        (!prompts.is_empty()).then(|| {
            let buttons = prompts
                .into_iter()
                .map(|p| view! { <li><StarterButton prompt=p /></li> })
                .collect_view();
            view! { <ul class="cs-start__prompts" aria-label=tr(shell, Text::Suggestions)>{buttons}</ul> }
        })
    };
    view! {
        <div class="cs-start" data-part="start-screen">
            <p class="cs-start__greeting">{move || signals.options.with(|o| o.greeting.clone()).unwrap_or_else(|| tr(shell, Text::Greeting).get())}</p>
            {prompts}
        </div>
    }
}

#[component]
fn StarterButton(prompt: StarterPrompt) -> impl IntoView {
    let shell = use_shell();
    // An icon is an image URL, a ChatKit icon name, a short symbol (emoji), or else a
    // name left for the host's CSS.
    let icon = prompt.icon.map(|icon| {
        if let Some(src) = markdown::safe_image_url(&icon) {
            return view! { <img class="cs-start__icon" src=src alt="" /> }.into_any();
        }
        if chat_shell_core::widgets::icons::drawing(&icon).is_some() {
            return view! { <span class="cs-start__icon">{widget_icon(&icon, Some("sm"), None)}</span> }
                .into_any();
        }
        if icon.chars().count() <= 4 {
            view! { <span class="cs-start__icon" aria-hidden="true">{icon}</span> }.into_any()
        } else {
            view! { <span class="cs-start__icon" data-icon=icon aria-hidden="true"></span> }
                .into_any()
        }
    });
    let text = prompt.prompt;
    view! {
        <button
            type="button"
            class="cs-start__prompt"
            data-part="starter-prompt"
            on:click=move |_| {
                shell.with(|rt| rt.send_message(text.clone(), false));
            }
        >
            {icon}
            <span class="cs-start__title">{prompt.title}</span>
        </button>
    }
}
