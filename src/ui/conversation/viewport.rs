//! StreamViewport: notices, the start screen, the items of the thread, progress, the
//! turn's error, and scrolling: it follows the answer only while the reader is at the
//! bottom, mounts only the window of items around the reader (`core::window`, moved by
//! `super::window`), loads older items ahead of them, and keeps what the reader sees in
//! place when anything above it changes.

use super::items::Item;
use super::run::{OrchestrationView, RunErrors};
use crate::runtime::{EntryView, ItemKey};
use crate::ui::icons::icon as widget_icon;
use crate::ui::tr;
use crate::ui::use_shell;
use chat_shell_core::markdown;
use chat_shell_core::options::StarterPrompt;
use chat_shell_core::protocol::chatkit::ItemId;
use chat_shell_core::protocol::chatkit::NoticeLevel;
use chat_shell_core::strings::Text;
use chat_shell_core::window::Window;
use leptos::html;
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use web_sys::Element;

/// Distance from the bottom (px) that still counts as "at the bottom".
const STICK_PX: i32 = 48;
/// An item's height (px) before any was measured.
const FIRST_GUESS_PX: f64 = 120.0;

type Observer = (web_sys::ResizeObserver, Closure<dyn FnMut()>);

/// Where an element's top is within `container` (px): unchanged by scrolling.
fn top_in(container: &Element, el: &Element) -> f64 {
    el.get_bounding_client_rect().top() - container.get_bounding_client_rect().top()
}

/// What of `section`'s child lays out: an item's wrapper (`.cs-item`, display: contents,
/// no box of its own) by its first element.
fn boxed(child: Element) -> Option<Element> {
    if child.class_name() == ITEM_CLASS {
        child.first_element_child()
    } else {
        Some(child)
    }
}

/// The first of `section`'s children still in view below `top` (a viewport's top, px):
/// what the reader is looking at, held in place when anything above it changes.
fn in_view(section: &Element, top: f64) -> Option<Element> {
    let children = section.children();
    let mut low = 0;
    let mut high = children.length();
    // Children are in document order, their bottoms ascending: the first below `top`. An
    // item whose view is still on its way takes no room: it counts as above.
    while low < high {
        let mid = (low + high) / 2;
        let bottom = children.item(mid).map_or(f64::MAX, |c| {
            boxed(c).map_or(f64::MIN, |b| b.get_bounding_client_rect().bottom())
        });
        if bottom > top {
            high = mid;
        } else {
            low = mid + 1;
        }
    }
    children
        .item(low)
        .and_then(boxed)
        .or_else(|| section.last_element_child().and_then(boxed))
}

/// The class of an item's wrapper, which carries its id (`data-item`) for find.
pub(super) const ITEM_CLASS: &str = "cs-item";

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
    let top_spacer = NodeRef::<html::Div>::new();
    let at_bottom = RwSignal::new(true);
    // Only a window of the items is mounted (`core::window`); spacers of the items'
    // average height stand in for the rest, so DOM and layout do not grow with the thread.
    // One signal for the window, the height (px) spacers give an item, and how many
    // items the window holds (`core::window::cap`).
    let window = RwSignal::new((
        Window::<ItemId>::default(),
        FIRST_GUESS_PX,
        chat_shell_core::window::MAX,
    ));
    let range = move || {
        window.with(|(w, _, cap)| {
            signals
                .order
                .with(|o| (w.range(o, |k: &ItemKey| &k.id, *cap), o.len()))
        })
    };
    let shown = move || {
        let (r, _) = range();
        signals.order.with(|o| o[r].to_vec())
    };
    let spacer = move |above: bool| {
        let (r, len) = range();
        let n = if above { r.start } else { len - r.end };
        format!("height:{}px", n as f64 * window.with(|w| w.1))
    };
    // The item in view and its place in the content as of the last layout: when anything
    // above it changes (older items put in front, the window moving, an item growing),
    // the scroll position moves by as much as it did, so what the reader sees holds
    // still. Content coordinates, so the reader's own scrolling never counts as a change.
    let anchor = StoredValue::new_local(None::<(Element, f64)>);
    let record_anchor = move || {
        let (Some(v), Some(c), Some(section)) = (
            viewport.get_untracked(),
            content.get_untracked(),
            items.get_untracked(),
        ) else {
            return;
        };
        let el = in_view(&section, v.get_bounding_client_rect().top());
        anchor.set_value(el.map(|el| {
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
    // Once a frame at most, after the reader scrolled or the content changed: move the
    // window to where the reader is, learn the items' height, fetch older pages ahead.
    let settling = StoredValue::new_local(false);
    let hooks_in = RwSignal::new(false);
    // The item find marked, and whether it is on its way into view.
    let found = StoredValue::new_local(None::<Element>);
    let revealing = StoredValue::new_local(false);
    let settle = move || {
        settling.set_value(false);
        // Find is bringing an item into view: where the reader was does not count.
        if revealing.get_value() {
            return;
        }
        let (Some(v), Some(section)) = (viewport.get_untracked(), items.get_untracked()) else {
            return;
        };
        // A thread that fits in a window, with nothing older to fetch, needs no hooks.
        let long = signals
            .order
            .with_untracked(|o| o.len() > chat_shell_core::window::MIN)
            || signals.history.older.with_untracked(|o| o.more);
        if !long && !hooks_in.get_untracked() {
            return;
        }
        let Some(hooks) = crate::chunks::views::window_hooks(hooks_in) else {
            return;
        };
        let Some((w, px, cap)) = window.try_get_untracked() else {
            return;
        };
        let settled = signals.order.with_untracked(|o| {
            hooks.settle(&v, &section, o, (&w, px, cap), at_bottom.get_untracked())
        });
        if settled.load_older {
            shell.with(|rt| rt.load_older());
        }
        if settled.window.is_some() || settled.item_px.is_some() || settled.cap.is_some() {
            window.set((
                settled.window.unwrap_or(w),
                settled.item_px.unwrap_or(px),
                settled.cap.unwrap_or(cap),
            ));
        }
    };
    let schedule_settle = move || {
        if !settling.get_value() {
            settling.set_value(true);
            request_animation_frame(move || {
                if settling.try_get_value().is_some() {
                    settle();
                }
            });
        }
    };

    Effect::new(move |_| {
        if hooks_in.get() {
            schedule_settle();
        }
    });

    // Where `scroll_to_end` last put the reader: a scroll event that finds them there
    // (or lower) was ours, even when more content arrived before it (they did not scroll up).
    let end_top = StoredValue::new_local(0);
    let on_scroll = move |_| {
        if let Some(v) = viewport.get() {
            let top = v.scroll_top();
            at_bottom.set(
                v.scroll_height() - top - v.client_height() < STICK_PX
                    || (at_bottom.get_untracked() && top >= end_top.get_value()),
            );
        }
        record_anchor();
        schedule_settle();
    };
    let scroll_to_end = move || {
        if let Some(v) = viewport.get_untracked() {
            v.set_scroll_top(v.scroll_height());
            end_top.set_value(v.scroll_top());
        }
    };
    // The disclosure (a fold's summary, a `<details>`'s) the reader just toggled, and where
    // it was on screen: what opens or closes must not move it, even at the end, where
    // the view would otherwise follow the end. Kept for the frame of the change only.
    let held = StoredValue::new_local(None::<(Element, f64)>);
    let on_click = move |ev: web_sys::MouseEvent| {
        let Some(target) = ev.target().and_then(|t| t.dyn_into::<Element>().ok()) else {
            return;
        };
        let Ok(Some(toggle)) = target.closest("summary, button[aria-expanded]") else {
            return;
        };
        let top = toggle.get_bounding_client_rect().top();
        held.set_value(Some((toggle, top)));
        // Cleared after the frame that lays the change out (observers run before paint).
        request_animation_frame(move || {
            request_animation_frame(move || {
                held.try_set_value(None);
            })
        });
    };
    let thread_id = Memo::new(move |_| signals.thread.with(|t| t.as_ref().map(|t| t.id.clone())));
    // Another thread, or a message sent from here (the reader may have scrolled up, and
    // the window with them): start at its newest items.
    Effect::new(move |_| {
        thread_id.track();
        signals.sent.track();
        anchor.set_value(None);
        window.update(|w| w.0 = Window::Tail);
        at_bottom.set(true);
        scroll_to_end();
    });
    // Content grows (streamed text, images loading, older items, the window moving):
    // follow it if the reader is at the end, else keep their place. Resize observers run
    // after layout and before paint, so neither flickers.
    // The observer goes with the view (the element removed or moved): its last report,
    // the content shrinking to nothing, must not reach a disposed view.
    let follower = StoredValue::new_local(None::<Observer>);
    Effect::new(move |_| {
        let (Some(el), Some(section), Some(spacer)) =
            (content.get(), items.get(), top_spacer.get())
        else {
            return;
        };
        if follower.with_value(Option::is_some) {
            return;
        }
        let follow = Closure::<dyn FnMut()>::new(move || {
            let Some(following) = at_bottom.try_get_untracked() else {
                return;
            };
            // A disclosure the reader just toggled stays where it was, end or not.
            if let Some((el, before)) = held.try_update_value(Option::take).flatten() {
                if let (true, Some(v)) = (el.is_connected(), viewport.get_untracked()) {
                    let moved = el.get_bounding_client_rect().top() - before;
                    if moved.abs() >= 1.0 {
                        v.set_scroll_top(v.scroll_top() + moved.round() as i32);
                    }
                    at_bottom
                        .set(v.scroll_height() - v.scroll_top() - v.client_height() < STICK_PX);
                    record_anchor();
                    schedule_settle();
                    return;
                }
            }
            if following {
                scroll_to_end();
            } else {
                keep_place();
            }
            record_anchor();
            schedule_settle();
        });
        if let Ok(observer) = web_sys::ResizeObserver::new(follow.as_ref().unchecked_ref()) {
            observer.observe(&el);
            // The window moving by items as tall as those it drops leaves both the same
            // size: the spacer above still changes.
            observer.observe(&section);
            observer.observe(&spacer);
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
    // Find stepped to an item: the window's code mounts it and brings it into view
    // (`window::WindowHooks::reveal`); the window holds still meanwhile.
    Effect::new(move |_| {
        let id = signals.reveal.get();
        hooks_in.track();
        // Nothing to do, nor code to fetch, until find steps somewhere.
        if id.is_none() && found.with_value(Option::is_none) {
            return;
        }
        if let Some(hooks) = crate::chunks::views::window_hooks(hooks_in) {
            hooks.reveal(super::window::Reveal {
                id,
                signals,
                window,
                items,
                at_bottom,
                found,
                revealing,
            });
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
            on:click=on_click
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
                <div class="cs-older">
                    {move || signals.history.older.with(|o| o.loading).then(|| view! {
                        <p class="cs-loading" data-part="older-loading" role="status">{tr(shell, Text::LoadingEarlier)}</p>
                    })}
                </div>
                <div class="cs-spacer" aria-hidden="true" node_ref=top_spacer prop:style=move || spacer(true)></div>
                <section class="cs-items" aria-label=tr(shell, Text::Conversation) node_ref=items>
                    <RunErrors after=None />
                    <For
                        each=shown
                        key=|k| k.clone()
                        children=move |k| {
                            // A summary line is followed by its calls, which carry their
                            // own errors.
                            let errors = (k.view != EntryView::ToolCallSummary).then(|| {
                                view! { <RunErrors after=Some(k.id.clone()) /> }
                            });
                            let item_id = k.id.to_string();
                            view! {
                                <div class=ITEM_CLASS data-item=item_id>
                                    <Item key=k />
                                    {errors}
                                </div>
                            }
                        }
                    />
                </section>
                <div class="cs-spacer" aria-hidden="true" prop:style=move || spacer(false)></div>
                <OrchestrationView />
                {move || has_team.get().then(|| crate::chunks::views::team_roster(shell))}
                <ResyncStatus />
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
                <WorkingIndicator />
                <TurnErrorView />
            </div>
        </div>
        // Under the conversation, not over it: it takes its own row, so it never covers
        // what the reader is reading.
        <Show when=move || !at_bottom.get()>
                <button
                    type="button"
                    class="cs-button cs-scroll-end"
                    aria-label=tr(shell, Text::ScrollToBottom)
                    on:click=move |_| {
                        window.update(|w| w.0 = Window::Tail);
                        scroll_to_end();
                        at_bottom.set(true);
                    }
                >
                    {crate::ui::glyphs::glyph(crate::ui::glyphs::Glyph::ArrowDown)}
                </button>
        </Show>
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
        // The agent's own word that its run failed, or the connection's failure.
        let part = if error.by_agent { "run-error" } else { "error" };
        Some(view! {
            <div class="cs-error" data-part=part data-code=error.by_agent.then(|| error.code.clone()) role="alert">
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
                                {crate::ui::glyphs::glyph(crate::ui::glyphs::Glyph::Close)}
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

/// Between Send and the turn's first content: an assistant placeholder, so waiting never
/// looks like nothing. It goes as soon as anything of the answer shows (a loader hint
/// replaces it too).
#[component]
fn WorkingIndicator() -> impl IntoView {
    let shell = use_shell();
    let signals = shell.signals().expect("runtime exists while mounted");
    let shown = Memo::new(move |_| {
        signals.last_event.track();
        signals.order.track();
        signals.streaming.get().is_some()
            && signals.progress.with(Option::is_none)
            && !shell
                .with(|rt| rt.with_state(|s| s.turn_has_content()))
                .unwrap_or(true)
    });
    move || {
        shown.get().then(|| {
            view! {
                <div class="cs-working" data-part="working" role="status">
                    <span class="cs-working__dots" aria-hidden="true">
                        <span></span>
                        <span></span>
                        <span></span>
                    </span>
                    <span class="cs-sr-only">{tr(shell, Text::Thinking)}</span>
                </div>
            }
        })
    }
}

/// "Resyncing" while the client asks for events missing after a sequence gap.
#[component]
pub fn ResyncStatus() -> impl IntoView {
    let shell = use_shell();
    let signals = shell.signals().expect("runtime exists while mounted");
    let resyncing = Memo::new(move |_| {
        signals.run.track();
        shell
            .with(|rt| rt.with_state(|s| s.resync.is_some()))
            .unwrap_or(false)
    });
    move || {
        resyncing.get().then(|| {
            view! { <p class="cs-progress" data-part="resyncing" role="status">{tr(shell, Text::Resyncing)}</p> }
        })
    }
}
