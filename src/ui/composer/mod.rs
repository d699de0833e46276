//! ComposerDock: the attachment tray, the turns queued after the run, and the composer
//! (textarea, file picker, Send/Stop, and Queue/Steer while a run that takes them runs).

pub(crate) mod commands;
pub(crate) mod controls;
pub(crate) mod dictation;
pub(crate) mod listbox;
pub(crate) mod mentions;
pub(crate) mod pickers;
pub(crate) mod tray;

use crate::chunks;
use crate::runtime::{Runtime, Shell};
use crate::ui::tr;
use crate::ui::use_shell;
use chat_shell_core::strings::Text;
use leptos::html;
use leptos::prelude::*;
use listbox::Listbox;
use wasm_bindgen::JsCast;

/// The composer grows with its text up to this height (px), then scrolls.
const MAX_HEIGHT_PX: i32 = 200;

#[component]
pub fn ComposerDock() -> impl IntoView {
    let shell = use_shell();
    let signals = shell.signals().expect("runtime exists while mounted");
    // The agent session of the thread shown (or the new chat's draft session, where wanted).
    Effect::new(move |_| {
        signals.thread.track();
        signals.options.with(|o| o.session_controls);
        shell.with(|rt| rt.sync_session());
    });
    // Their views come with the code of the views a first screen does not need
    // (`crate::chunks`): asked for once there is something to show.
    let has_session = Memo::new(move |_| {
        signals.session.state.with(Option::is_some) || signals.session.note.with(Option::is_some)
    });
    let has_picks = Memo::new(move |_| {
        signals.options.with(|o| {
            o.protocol == chat_shell_core::options::Protocol::ChatKit
                && !(o.composer_models.is_empty() && o.composer_tools.is_empty())
        })
    });
    view! {
        <div class="cs-dock" part="composer">
            <QueuedTurns />
            <AttachmentTray />
            {move || has_session.get().then(|| chunks::views::session_controls(shell))}
            {move || has_picks.get().then(|| chunks::views::pickers(shell))}
            <Composer />
        </div>
    }
}

/// The turns the runtime holds for after the run (Agent UI queue), as it listed them.
#[component]
fn QueuedTurns() -> impl IntoView {
    let shell = use_shell();
    let signals = shell.signals().expect("runtime exists while mounted");
    let queued = Memo::new(move |_| {
        signals.run.track();
        shell
            .with(|rt| rt.with_state(|s| s.run_queue.queued.clone()))
            .unwrap_or_default()
    });
    move || {
        let queued = queued.get();
        (!queued.is_empty()).then(|| {
            let rows = queued
                .into_iter()
                .map(|turn| {
                    view! {
                        <li class="cs-queued__turn" data-turn=turn.turn_id>
                            <span class="cs-queued__text">{turn.text}</span>
                            <span class="cs-queued__status">{tr(shell, Text::QueuedStatus)}</span>
                        </li>
                    }
                })
                .collect_view();
            view! {
                <section class="cs-queued" data-part="queued-turns">
                    <p class="cs-queued__title" aria-hidden="true">{tr(shell, Text::QueuedTurns)}</p>
                    <ul class="cs-queued__list" aria-label=tr(shell, Text::QueuedTurns)>{rows}</ul>
                </section>
            }
        })
    }
}

/// The files of a `FileList` (picker, drop, paste).
pub(crate) fn files_of(list: Option<web_sys::FileList>) -> Vec<web_sys::File> {
    let Some(list) = list else {
        return Vec::new();
    };
    (0..list.length()).filter_map(|i| list.get(i)).collect()
}

#[component]
fn Composer() -> impl IntoView {
    let shell = use_shell();
    let signals = shell.signals().expect("runtime exists while mounted");
    let textarea = NodeRef::<html::Textarea>::new();
    let picker = NodeRef::<html::Input>::new();
    let blocked = move || {
        signals.thread.with(|t| {
            t.as_ref().and_then(|t| {
                t.status
                    .blocked_reason()
                    .map(|r| r.unwrap_or("").to_owned())
            })
        })
    };
    // Why Send waits: files still uploading, or one failed.
    let tray_blocker = move || signals.tray.entries.with(|e| Runtime::tray_blocker(e));
    let opening = move || signals.history.opening.with(Option::is_some);
    // (characters, limit) while the draft is longer than the server takes.
    let too_long = Memo::new(move |_| {
        let limit = signals.options.with(|o| o.composer_max_length)?;
        signals.draft.with(|d| {
            // Bytes bound characters: most drafts are never counted.
            let count = if d.len() > limit {
                d.chars().count()
            } else {
                0
            };
            (count > limit).then_some((count, limit))
        })
    });
    let empty = move || {
        signals.draft.with(|d| d.trim().is_empty()) && signals.tray.entries.with(Vec::is_empty)
    };
    // Also runs a frame later, when the view may be gone.
    let grow = move || {
        if let Some(t) = textarea.try_get_untracked().flatten() {
            let style = t.unchecked_ref::<web_sys::HtmlElement>().style();
            let _ = style.set_property("height", "auto");
            let _ = style.set_property(
                "height",
                &format!("{}px", t.scroll_height().min(MAX_HEIGHT_PX)),
            );
        }
    };
    // A draft restored or switched in (another thread) needs its height too.
    Effect::new(move |_| {
        signals.draft.track();
        request_animation_frame(grow);
    });
    let send = move || {
        shell.with(|rt| rt.send_draft());
    };
    let commands = commands::CommandMenu::new();
    let mention_menu = mentions::MentionMenu::new();
    let scrolled = RwSignal::new(0);
    let has_mentions = Memo::new(move |_| signals.mentions.with(|m| !m.is_empty()));
    // A draft set in another way (restored, another thread's) keeps only the mentions
    // still in place.
    Effect::new(move |_| {
        let draft = signals.draft.get();
        if signals.mentions.with_untracked(Vec::is_empty) {
            return;
        }
        let mut kept = signals.mentions.get_untracked();
        let before = kept.len();
        chat_shell_core::mentions::still_in(&mut kept, &draft);
        if kept.len() != before {
            signals.mentions.set(kept);
        }
    });
    let on_keydown = move |ev: web_sys::KeyboardEvent| {
        if commands.key(&ev) {
            return;
        }
        if let (Some(t), Some(hooks)) = (
            textarea.get_untracked(),
            crate::chunks::views::mention_hooks(),
        ) {
            if hooks.key(mention_menu, &ev, &t) {
                return;
            }
        }
        // Enter sends; Shift+Enter is a newline; composing (IME) text is never sent.
        if ev.key() == "Enter" && !ev.shift_key() && !ev.is_composing() && ev.key_code() != 229 {
            ev.prevent_default();
            // The runtime refuses what cannot go out yet (uploads, streaming, locked).
            send();
        }
    };
    let on_paste = move |ev: web_sys::ClipboardEvent| {
        let files = files_of(ev.clipboard_data().and_then(|d| d.files()));
        if !files.is_empty() {
            // A pasted file goes to the tray; its name must not land in the text.
            ev.prevent_default();
            shell.with(|rt| rt.add_files(files));
        }
    };
    let on_pick = move |_| {
        let Some(input) = picker.get_untracked() else {
            return;
        };
        let files = files_of(input.files());
        // Cleared, so choosing the same file again still reports a change.
        input.set_value("");
        shell.with(|rt| rt.add_files(files));
    };
    let streaming = move || signals.streaming.get().is_some();
    // What the running run takes besides Stop (Agent UI `run.started` controls).
    let controls = Memo::new(move |_| {
        signals.run.track();
        shell
            .with(|rt| rt.with_state(|s| (s.run_queue.can_queue, s.run_queue.can_steer)))
            .unwrap_or_default()
    });
    let draft_empty = move || signals.draft.with(|d| d.trim().is_empty());
    // The microphone comes with the views a first screen does not need (`crate::chunks`).
    let dictation = Memo::new(move |_| {
        signals.options.with(|o| {
            o.composer_dictation && o.protocol == chat_shell_core::options::Protocol::ChatKit
        })
    });
    let can_stop = move || signals.streaming.get() == Some(true);
    let accept = move || {
        signals
            .options
            .with(|o| o.attachment_limits.accept_attribute())
    };
    view! {
        <form
            class="cs-composer"
            data-part="composer"
            on:submit=move |ev| {
                ev.prevent_default();
                send();
            }
        >
            {move || blocked().map(|reason| {
                let text = if reason.is_empty() { tr(shell, Text::ThreadClosed).get() } else { reason };
                view! { <p class="cs-composer__blocked" data-part="composer-blocked" role="status">{text}</p> }
            })}
            {move || too_long.get().map(|(count, limit)| {
                let text = signals.strings.with(|s| s.format(Text::MessageTooLong, &[("count", &count.to_string()), ("limit", &limit.to_string())]));
                view! { <p class="cs-composer__blocked" data-part="composer-too-long" role="alert">{text}</p> }
            })}
            {move || tray_blocker().map(|reason| view! {
                <p class="cs-composer__blocked" data-part="composer-waiting" role="status">{tr(shell, reason)}</p>
            })}
            {move || commands.is_open().then(|| chunks::views::command_list(shell, commands))}
            {move || mention_menu.is_open().then(|| chunks::views::mention_list(shell, mention_menu, textarea))}
            <input
                type="file"
                class="cs-composer__picker"
                node_ref=picker
                multiple=true
                accept=accept
                tabindex="-1"
                aria-hidden="true"
                on:change=on_pick
            />
            <button
                type="button"
                class="cs-button cs-button--ghost cs-composer__attach"
                hidden=move || !signals.options.with(|o| o.attachments_enabled)
                aria-label=tr(shell, Text::AddAttachment)
                title=tr(shell, Text::AddAttachment)
                disabled=move || blocked().is_some()
                on:click=move |_| {
                    if let Some(input) = picker.get_untracked() {
                        input.click();
                    }
                }
            >
                <span class="cs-composer__plus">{crate::ui::glyphs::glyph(crate::ui::glyphs::Glyph::Plus)}</span>
            </button>
            <textarea
                class="cs-composer__input"
                node_ref=textarea
                rows="1"
                aria-label=tr(shell, Text::ComposerLabel)
                placeholder=move || signals.options.with(|o| o.placeholder.clone()).unwrap_or_else(|| tr(shell, Text::ComposerPlaceholder).get())
                prop:value=move || signals.draft.get()
                disabled=move || blocked().is_some()
                aria-autocomplete="list"
                aria-controls=move || commands.controls().or_else(|| mention_menu.controls())
                aria-activedescendant=move || {
                    commands.active_descendant().or_else(|| mention_menu.active_descendant())
                }
                on:input=move |ev| {
                    let value = event_target_value(&ev);
                    match textarea.get_untracked() {
                        Some(t) => crate::chunks::views::mention_input(mention_menu, t, value),
                        None => signals.draft.set(value),
                    }
                    commands.typed();
                    grow();
                }
                on:scroll=move |ev| {
                    let top = event_target::<web_sys::HtmlTextAreaElement>(&ev).scroll_top();
                    scrolled.set(top);
                }
                on:keydown=on_keydown
                on:paste=on_paste
            ></textarea>
            {move || has_mentions.get().then(|| chunks::views::mention_overlay(shell, textarea, scrolled))}
            {move || dictation.get().then(|| chunks::views::dictation(shell, textarea))}
            <Show
                when=can_stop
                fallback=move || view! {
                    <button
                        type="submit"
                        class="cs-button cs-button--primary"
                        disabled=move || {
                            streaming() || opening() || blocked().is_some() || tray_blocker().is_some() || empty() || too_long.with(Option::is_some)
                        }
                    >
                        {tr(shell, Text::Send)}
                    </button>
                }
            >
                {move || (streaming() && controls.get().0).then(|| run_control(shell, false, draft_empty))}
                {move || (streaming() && controls.get().1).then(|| run_control(shell, true, draft_empty))}
                <button
                    type="button"
                    class="cs-button cs-button--primary"
                    on:click=move |_| {
                        shell.with(|rt| rt.stop());
                    }
                >
                    {tr(shell, Text::Stop)}
                </button>
            </Show>
        </form>
    }
}

/// Queue (`steer` false: send after this run) or Steer (redirect this run now): named by
/// its word, described by its title.
fn run_control(
    shell: Shell,
    steer: bool,
    draft_empty: impl Fn() -> bool + Send + Sync + 'static,
) -> impl IntoView {
    let (name, hint, part) = if steer {
        (Text::Steer, Text::SteerHint, "composer-steer")
    } else {
        (Text::Queue, Text::QueueHint, "composer-queue")
    };
    view! {
        <button
            type="button"
            class=format!("cs-button cs-{part}")
            data-part=part
            title=tr(shell, hint)
            disabled=draft_empty
            on:click=move |_| {
                shell.with(|rt| rt.send_during_run(steer));
            }
        >
            {tr(shell, name)}
        </button>
    }
}

/// The files waiting to go with the next message, and why some were refused. The list's
/// views come with the code that takes files (`crate::chunks`), so they are asked for only once
/// the tray has an entry.
#[component]
fn AttachmentTray() -> impl IntoView {
    let shell = use_shell();
    let signals = shell.signals().expect("runtime exists while mounted");
    let tray = signals.tray;
    let filled = Memo::new(move |_| tray.entries.with(|e| !e.is_empty()));
    view! {
        {move || {
            tray.error.get().map(|message| view! {
                <div class="cs-tray__alert" data-part="attachment-error" role="alert">
                    <span>{message}</span>
                    <button
                        type="button"
                        class="cs-button cs-button--ghost"
                        aria-label=tr(shell, Text::Dismiss)
                        on:click=move |_| tray.error.set(None)
                    >
                        {crate::ui::glyphs::glyph(crate::ui::glyphs::Glyph::Close)}
                    </button>
                </div>
            })
        }}
        {move || filled.get().then(|| chunks::views::tray(shell))}
    }
}
