//! The composer's microphone (`composer.dictation.enabled`): "Dictate" starts a recording,
//! the same button, then named "Stop dictation", ends it, and the transcript
//! (`input.transcribe`) goes into the draft at the caret; nothing is sent. While it
//! records (`data-state="recording"`) a status says so and "Cancel dictation" (or Escape)
//! drops the audio. A refused microphone, a missing one or a failed request is an alert in
//! the composer, and the draft stays as it was.

use crate::runtime::dictation::Recording;
use crate::ui::{tr, use_shell};
use chat_shell_core::dictation::insert_at_caret;
use chat_shell_core::strings::Text;
use leptos::html;
use leptos::prelude::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Idle,
    /// Waiting for the microphone (the browser may be asking the user).
    Starting,
    Recording,
    Transcribing,
}

impl Phase {
    fn name(self) -> &'static str {
        match self {
            Phase::Idle => "idle",
            Phase::Starting => "starting",
            Phase::Recording => "recording",
            Phase::Transcribing => "transcribing",
        }
    }
}

#[component]
pub fn Dictation(textarea: NodeRef<html::Textarea>) -> impl IntoView {
    let shell = use_shell();
    let signals = shell.signals().expect("runtime exists while mounted");
    let phase = RwSignal::new(Phase::Idle);
    let error = RwSignal::new(None::<String>);
    let recording = StoredValue::new_local(None::<Recording>);
    // Bumped by each start and each cancel: what an earlier attempt brings back late (the
    // microphone, a transcript) is dropped.
    let attempt = StoredValue::new(0u64);
    let say = move |text: Text| shell.with(|rt| rt.text(text)).unwrap_or_default();

    let insert = move |transcript: &str| {
        let Some(t) = textarea.get_untracked() else {
            return;
        };
        let draft = t.value();
        let end = draft.encode_utf16().count() as u32;
        let start = t.selection_start().ok().flatten().unwrap_or(end);
        let stop = t.selection_end().ok().flatten().unwrap_or(start);
        let (next, caret) = insert_at_caret(&draft, start, stop, transcript);
        t.set_value(&next);
        signals.draft.set(next);
        let _ = t.focus();
        let _ = t.set_selection_range(caret, caret);
    };
    let start = move || {
        error.set(None);
        phase.set(Phase::Starting);
        let this = attempt.get_value() + 1;
        attempt.set_value(this);
        leptos::task::spawn_local(async move {
            let started = Recording::start().await;
            if attempt.try_get_value() != Some(this) {
                if let Ok(late) = started {
                    late.cancel();
                }
                return;
            }
            match started {
                Ok(r) => {
                    recording.set_value(Some(r));
                    phase.set(Phase::Recording);
                }
                Err(failure) => {
                    phase.set(Phase::Idle);
                    error.set(Some(say(failure.text())));
                }
            }
        });
    };
    let finish = move || {
        let Some(r) = recording.try_update_value(Option::take).flatten() else {
            return;
        };
        phase.set(Phase::Transcribing);
        let this = attempt.get_value();
        leptos::task::spawn_local(async move {
            let heard = match r.finish().await {
                Ok(audio) => match shell.get() {
                    Some(rt) => rt.transcribe(audio).await.map_err(|e| {
                        rt.with_strings(|s| {
                            s.format(Text::DictationFailed, &[("error", &e.message_in(s))])
                        })
                    }),
                    None => return,
                },
                Err(failure) => Err(say(failure.text())),
            };
            if attempt.try_get_value() != Some(this) {
                return;
            }
            phase.set(Phase::Idle);
            match heard {
                Ok(text) => insert(&text),
                Err(message) => error.set(Some(message)),
            }
        });
    };
    let cancel = move || {
        attempt.try_update_value(|n| *n += 1);
        if let Some(r) = recording.try_update_value(Option::take).flatten() {
            r.cancel();
        }
        let _ = phase.try_set(Phase::Idle);
    };
    // Gone with the composer: the microphone is let go.
    on_cleanup(cancel);

    let toggle = move |_| match phase.get_untracked() {
        Phase::Idle => start(),
        Phase::Recording => finish(),
        Phase::Starting | Phase::Transcribing => {}
    };
    let busy = move || matches!(phase.get(), Phase::Starting | Phase::Transcribing);
    let active = move || phase.get() != Phase::Idle;
    let name = move || {
        if phase.get() == Phase::Recording {
            tr(shell, Text::StopDictation).get()
        } else {
            tr(shell, Text::Dictate).get()
        }
    };
    let status = move || match phase.get() {
        Phase::Recording => tr(shell, Text::DictationRecording).get(),
        Phase::Transcribing => tr(shell, Text::DictationTranscribing).get(),
        Phase::Idle | Phase::Starting => String::new(),
    };
    let mic = view! { <path d="M12 3a3 3 0 0 1 3 3v6a3 3 0 0 1-6 0V6a3 3 0 0 1 3-3zM5 11a7 7 0 0 0 14 0M12 18v3"></path> };
    view! {
        {move || error.get().map(|message| view! {
            <div class="cs-tray__alert cs-dictation__alert" data-part="dictation-error" role="alert">
                <span>{message}</span>
                <button
                    type="button"
                    class="cs-button cs-button--ghost"
                    aria-label=tr(shell, Text::Dismiss)
                    on:click=move |_| error.set(None)
                >
                    {crate::ui::glyphs::glyph(crate::ui::glyphs::Glyph::Close)}
                </button>
            </div>
        })}
        <div
            class="cs-dictation"
            data-part="dictation"
            data-state=move || phase.get().name()
            on:keydown=move |ev: web_sys::KeyboardEvent| {
                if ev.key() == "Escape" && active() {
                    ev.prevent_default();
                    ev.stop_propagation();
                    cancel();
                }
            }
        >
            <span class="cs-dictation__status" role="status">{status}</span>
            <button
                type="button"
                class="cs-button cs-button--ghost cs-dictation__mic"
                aria-label=name
                title=name
                aria-disabled=move || busy().then_some("true")
                on:click=toggle
            >
                <svg class="cs-glyph" viewBox="0 0 24 24" aria-hidden="true" focusable="false">
                    {mic}
                </svg>
            </button>
            {move || active().then(|| view! {
                <button
                    type="button"
                    class="cs-button cs-button--ghost cs-dictation__cancel"
                    aria-label=tr(shell, Text::CancelDictation)
                    title=tr(shell, Text::CancelDictation)
                    on:click=move |_| cancel()
                >
                    {crate::ui::glyphs::glyph(crate::ui::glyphs::Glyph::Close)}
                </button>
            })}
        </div>
    }
}
