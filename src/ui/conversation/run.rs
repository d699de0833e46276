//! The run around the conversation: its inline errors, the coordinator's orchestration,
//! the budget banner and the liveness hint.

use crate::ui::use_shell;
use crate::ui::{tr, trf};
use chat_shell_core::protocol::chatkit::ItemId;
use chat_shell_core::strings::Text;
use leptos::prelude::*;
use std::time::Duration;

/// The run's recoverable errors shown after item `after` (`None`: before every item).
#[component]
pub fn RunErrors(after: Option<ItemId>) -> impl IntoView {
    let shell = use_shell();
    let signals = shell.signals().expect("runtime exists while mounted");
    let errors = Memo::new(move |_| {
        signals.run.track();
        shell
            .with(|rt| {
                rt.with_state(|s| {
                    s.run_errors
                        .iter()
                        .filter(|e| e.after_item == after)
                        .map(|e| (e.id, e.message.clone(), e.code.clone()))
                        .collect::<Vec<_>>()
                })
            })
            .unwrap_or_default()
    });
    move || {
        errors
            .get()
            .into_iter()
            .map(|(_, message, code)| {
                let label = match &code {
                    Some(c) => trf(shell, Text::RunErrorCode, vec![("code", c.clone())]),
                    None => tr(shell, Text::RunErrorPlain),
                };
                view! {
                    <div class="cs-run-error" data-part="run-error" data-code=code role="note">
                        <strong class="cs-run-error__code">{label}</strong>
                        " "
                        <span class="cs-run-error__message">{message}</span>
                    </div>
                }
            })
            .collect_view()
    }
}

/// The coordinator's status and plan, in the process area.
#[component]
pub fn OrchestrationView() -> impl IntoView {
    let shell = use_shell();
    let signals = shell.signals().expect("runtime exists while mounted");
    let orchestration = Memo::new(move |_| {
        signals.run.track();
        shell
            .with(|rt| rt.with_state(|s| s.orchestration.clone()))
            .flatten()
    });
    move || {
        let o = orchestration.get()?;
        let steps = o
            .plan
            .into_iter()
            .map(|step| {
                let data_status = step.status.clone();
                view! {
                    <li data-status=data_status>
                        <span class="cs-orchestration__step">{step.title}</span>
                        {step.agent.map(|a| view! { <span class="cs-orchestration__agent">{a}</span> })}
                        {step.status.map(|s| view! { <span class="cs-orchestration__status">{s}</span> })}
                    </li>
                }
            })
            .collect_view();
        Some(view! {
            <div class="cs-orchestration" data-part="orchestration">
                {o.status.map(|s| view! { <p class="cs-orchestration__line">{s}</p> })}
                <ol class="cs-orchestration__plan">{steps}</ol>
            </div>
        })
    }
}

/// Seconds of silence before the liveness hint shows.
const STALE_AFTER_SECS: u64 = 5;

/// Between the transcript and the composer: the budget banner (the run was stopped; the
/// composer stays usable) and, while a run is active, a quiet liveness hint.
#[component]
pub fn RunBar() -> impl IntoView {
    let shell = use_shell();
    let signals = shell.signals().expect("runtime exists while mounted");
    let budget = Memo::new(move |_| {
        signals.run.track();
        shell
            .with(|rt| rt.with_state(|s| s.budget.as_ref().map(|b| b.message.clone())))
            .flatten()
    });
    // A clock for "N s ago", ticking only while an answer streams and the bar is shown.
    let now = RwSignal::new(js_sys::Date::now());
    let clock = StoredValue::new(None::<IntervalHandle>);
    let stop_clock = move || {
        if let Some(Some(h)) = clock.try_update_value(Option::take) {
            h.clear();
        }
    };
    Effect::new(move |_| {
        stop_clock();
        if signals.streaming.get().is_none() {
            return;
        }
        now.set(js_sys::Date::now());
        let tick = move || {
            let _ = now.try_set(js_sys::Date::now());
        };
        clock.set_value(set_interval_with_handle(tick, Duration::from_secs(1)).ok());
    });
    on_cleanup(stop_clock);
    // Memos, so the hint's DOM changes when its number does, not on each of the hundreds
    // of events a second a fast answer brings (each one moves `last_event`).
    let seconds = Memo::new(move |_| {
        signals.streaming.get()?;
        let last = signals.last_event.get()?;
        Some(((now.get() - last) / 1000.0).max(0.0).floor() as u64)
    });
    // A warning, not a ticker: only once the stream has been silent a while, and never
    // while the run waits on the user (a permission, a question).
    let shown = Memo::new(move |_| {
        seconds.get().is_some_and(|s| s >= STALE_AFTER_SECS)
            && !shell
                .with(|rt| rt.with_state(|s| s.waits_on_user()))
                .unwrap_or(false)
    });
    let liveness = move || {
        shown.get().then(|| {
            view! {
                <p class="cs-liveness" data-part="liveness">
                    {move || {
                        let seconds = seconds.get().unwrap_or_default().to_string();
                        trf(shell, Text::Liveness, vec![("seconds", seconds)]).get()
                    }}
                </p>
            }
        })
    };
    view! {
        {move || budget.get().map(|message| view! {
            <div class="cs-budget" data-part="budget" role="alert">{message}</div>
        })}
        {liveness}
    }
}
