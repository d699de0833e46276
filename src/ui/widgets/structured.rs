//! Structured input: pending questions as a small form (radio group, checkboxes or a text
//! area per question, Submit and Skip) answered with `threads.add_structured_input`; once
//! the server echoes it answered (or skipped), a read-only summary.

use super::ctx::settle_into;
use super::ctx::spinner;
use crate::runtime::Shell;
use crate::ui::{item_memo, use_shell};
use crate::ui::{strings, tr};
use chat_shell_core::model::EntryKind;
use chat_shell_core::protocol::chatkit::{ItemId, StructuredInput, StructuredInputStatus};
use chat_shell_core::strings::Text;
use chat_shell_core::widgets::structured::{answer_text, answers, ask, Ask};
use leptos::ev::SubmitEvent;
use leptos::prelude::*;
use std::collections::HashMap;

#[component]
pub fn StructuredInputView(id: ItemId) -> impl IntoView {
    let shell = use_shell();
    let Some(signals) = shell.signals() else {
        return ().into_any();
    };
    let item_id = id.clone();
    let input = item_memo(shell, item_id, |i| match &i.entry.kind {
        EntryKind::StructuredInput(s) => Some(s.clone()),
        _ => None,
    });
    // The user's choices by question id (kept across re-renders of the item).
    let chosen = RwSignal::new(HashMap::<String, Vec<String>>::new());
    // Which button was pressed while its request runs: Some(true) Submit, Some(false) Skip.
    let pending = RwSignal::new(None::<bool>);
    let sent = RwSignal::new(false);
    let seq = next_seq();
    let send = move |skip: bool| {
        if pending.get_untracked().is_some() {
            return;
        }
        let Some(input) = input.get_untracked() else {
            return;
        };
        let answers = answers(&input.inputs, &chosen.get_untracked(), skip);
        pending.set(Some(!skip));
        let started = shell
            .with(|rt| rt.answer_structured_input(id.clone(), answers, settle_into(pending, sent)))
            .unwrap_or(false);
        if !started {
            pending.set(None);
        }
    };
    let view = move || {
        let input = input.get()?;
        Some(match input.status {
            StructuredInputStatus::Pending => pending_form(
                shell,
                input,
                seq,
                chosen,
                pending,
                sent,
                signals.streaming,
                send.clone(),
            ),
            _ => answered(shell, &input),
        })
    };
    view.into_any()
}

fn next_seq() -> u32 {
    thread_local!(static NEXT: std::cell::Cell<u32> = const { std::cell::Cell::new(1) });
    NEXT.with(|n| {
        let v = n.get();
        n.set(v.wrapping_add(1));
        v
    })
}

#[allow(clippy::too_many_arguments)]
fn pending_form(
    shell: Shell,
    input: StructuredInput,
    seq: u32,
    chosen: RwSignal<HashMap<String, Vec<String>>>,
    pending: RwSignal<Option<bool>>,
    sent: RwSignal<bool>,
    streaming: RwSignal<Option<bool>>,
    send: impl Fn(bool) + Clone + 'static,
) -> AnyView {
    let locked = move || pending.get().is_some() || sent.get() || streaming.get().is_some();
    let has = move |q: &str, v: &str| {
        chosen.with_untracked(|c| c.get(q).is_some_and(|vals| vals.iter().any(|x| x == v)))
    };
    let questions = input
        .inputs
        .iter()
        .enumerate()
        .map(|(qi, field)| {
            let qid = field.id.clone();
            let dom = format!("cs-si{seq}-q{qi}");
            let description = field
                .description
                .clone()
                .map(|d| view! { <p class="cs-structured__hint">{d}</p> });
            match ask(field) {
                Ask::One | Ask::Many => {
                    let many = ask(field) == Ask::Many;
                    let options = field
                        .options
                        .iter()
                        .map(|o| {
                            let (q, v) = (qid.clone(), o.value.clone());
                            let checked = has(&q, &v);
                            let label = o.label.clone().unwrap_or_else(|| o.value.clone());
                            view! {
                                <label class="cs-structured__option">
                                    <input
                                        type=if many { "checkbox" } else { "radio" }
                                        name=dom.clone()
                                        value=o.value.clone()
                                        prop:checked=checked
                                        disabled=locked
                                        on:change=move |ev| {
                                            let on = event_target_checked(&ev);
                                            chosen.update(|c| {
                                                let vals = c.entry(q.clone()).or_default();
                                                if !many {
                                                    vals.clear();
                                                }
                                                vals.retain(|x| x != &v);
                                                if on {
                                                    vals.push(v.clone());
                                                }
                                            });
                                        }
                                    />
                                    <span>{label}</span>
                                </label>
                            }
                        })
                        .collect_view();
                    view! {
                        <fieldset class="cs-structured__question" data-question=qid.clone()>
                            <legend class="cs-structured__legend">{field.question.clone()}</legend>
                            {description}
                            <div class="cs-structured__options" role=if many { "group" } else { "radiogroup" }>
                                {options}
                            </div>
                        </fieldset>
                    }
                    .into_any()
                }
                Ask::Text => {
                    let q = qid.clone();
                    let value = chosen
                        .with_untracked(|c| c.get(&q).and_then(|v| v.first().cloned()))
                        .unwrap_or_default();
                    view! {
                        <div class="cs-structured__question" data-question=qid.clone()>
                            <label class="cs-structured__legend" for=dom.clone()>{field.question.clone()}</label>
                            {description}
                            <textarea
                                id=dom.clone()
                                class="cs-w-control cs-w-control--outline cs-w-textarea"
                                rows="2"
                                prop:value=value
                                disabled=locked
                                on:input=move |ev| {
                                    let text = event_target_value(&ev);
                                    chosen.update(|c| {
                                        c.insert(q.clone(), vec![text]);
                                    });
                                }
                            ></textarea>
                        </div>
                    }
                    .into_any()
                }
            }
        })
        .collect_view();
    let submit = send.clone();
    let on_submit = move |ev: SubmitEvent| {
        ev.prevent_default();
        submit(false);
    };
    view! {
        <form
            class="cs-structured"
            data-part="structured-input"
            data-status="pending"
            aria-busy=move || pending.get().is_some().to_string()
            on:submit=on_submit
        >
            {questions}
            <div class="cs-structured__actions">
                <button type="submit" class="cs-w-button cs-w-button--solid cs-w-button--primary" disabled=locked>
                    {move || (pending.get() == Some(true)).then(spinner)}
                    {tr(shell, Text::Submit)}
                </button>
                <button
                    type="button"
                    class="cs-w-button cs-w-button--outline cs-w-button--secondary"
                    disabled=locked
                    on:click=move |_| send(true)
                >
                    {move || (pending.get() == Some(false)).then(spinner)}
                    {tr(shell, Text::Skip)}
                </button>
            </div>
            {move || sent.get().then(|| view! { <p class="cs-structured__sent" role="status">{tr(shell, Text::AnswerSent)}</p> })}
        </form>
    }
    .into_any()
}

/// The questions with their answers, read-only.
fn answered(shell: Shell, input: &StructuredInput) -> AnyView {
    let strings = strings(shell);
    let status = match input.status {
        StructuredInputStatus::Skipped => "skipped",
        _ => "answered",
    };
    let rows = input
        .inputs
        .iter()
        .map(|f| {
            view! {
                <div class="cs-structured__answer" data-question=f.id.clone()>
                    <dt>{f.question.clone()}</dt>
                    <dd>{answer_text(f, &strings)}</dd>
                </div>
            }
        })
        .collect_view();
    view! {
        <div class="cs-structured cs-structured--done" data-part="structured-input" data-status=status>
            <p class="cs-structured__state">
                {tr(shell, if status == "skipped" { Text::Skipped } else { Text::Answered })}
            </p>
            <dl class="cs-structured__answers">{rows}</dl>
        </div>
    }
    .into_any()
}
