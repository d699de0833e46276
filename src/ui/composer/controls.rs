//! The agent session's selectors beside the composer (Mode, Model, and one per other
//! option), and what the last change came to. Each shows the value the server last
//! reported, never the one clicked: a refused change goes back by itself when the answer
//! brings the old value.

use crate::ui::{tr, use_shell};
use chat_shell_core::protocol::chatkit::{Control, ControlKind};
use chat_shell_core::session::control_name;
use chat_shell_core::strings::Text;
use leptos::prelude::*;
use serde_json::Value;

#[component]
pub(crate) fn SessionControls() -> impl IntoView {
    let shell = use_shell();
    let signals = shell.signals().expect("runtime exists while mounted");
    let session = signals.session;
    // Keyed by id and kind: a new state re-renders a control's value, not the control, so
    // the one with focus keeps it.
    let keys = Memo::new(move |_| {
        session.state.with(|s| {
            s.as_ref().map_or_else(Vec::new, |s| {
                s.controls
                    .iter()
                    .map(|c| (c.id.clone(), kind_tag(c)))
                    .collect::<Vec<_>>()
            })
        })
    });
    view! {
        <Show when=move || !keys.with(Vec::is_empty)>
            <div
                class="cs-controls"
                data-part="session-controls"
                role="group"
                aria-label=tr(shell, Text::AgentControls)
            >
                <For
                    each=move || keys.get()
                    key=|k| k.clone()
                    children=move |(id, _)| control_view(id)
                />
            </div>
        </Show>
        {move || session.note.get().map(|note| view! {
            <p class="cs-controls__note" data-part="session-control-note" role="status">{note}</p>
        })}
    }
}

fn kind_tag(control: &Control) -> &'static str {
    match control.kind {
        ControlKind::Select(_) => "select",
        ControlKind::Boolean(_) => "boolean",
        ControlKind::Other(_) => "other",
    }
}

fn control_view(id: String) -> impl IntoView {
    let shell = use_shell();
    let signals = shell.signals().expect("runtime exists while mounted");
    let session = signals.session;
    let lookup = id.clone();
    let control = Memo::new(move |_| {
        session.state.with(|s| {
            s.as_ref()
                .and_then(|s| s.controls.iter().find(|c| c.id == lookup).cloned())
        })
    });
    let name = move || {
        control
            .get()
            .map(|c| signals.strings.with(|t| control_name(&c, t)))
            .unwrap_or_default()
    };
    let description = move || control.get().and_then(|c| c.description);
    // What the server said now, read from the state itself rather than the memo: an
    // answer that keeps the old value must still put it back over the one clicked.
    let key = StoredValue::new(id.clone());
    let reported = move || {
        session.state.with(|s| {
            key.with_value(|key| {
                s.as_ref()
                    .and_then(|s| s.controls.iter().find(|c| &c.id == key))
                    .map(|c| c.kind.clone())
            })
        })
    };
    let pending_id = id.clone();
    let busy = move || {
        session
            .pending
            .with(|p| p.as_deref() == Some(pending_id.as_str()))
    };
    let send = move |value: Value| {
        let id = id.clone();
        shell.with(|rt| rt.set_control(id, value));
    };
    let Some(kind) = control.get_untracked().map(|c| c.kind) else {
        return ().into_any();
    };
    match kind {
        ControlKind::Select(_) => {
            let value = move || match reported() {
                Some(ControlKind::Select(s)) => s.value,
                _ => String::new(),
            };
            let options = move || match control.get().map(|c| c.kind) {
                Some(ControlKind::Select(s)) => s.options,
                _ => Vec::new(),
            };
            view! {
                <label class="cs-control" data-part="session-control">
                    <span class="cs-control__name" aria-hidden="true">{name}</span>
                    <select
                        class="cs-control__select"
                        aria-label=name
                        title=description
                        disabled=busy
                        on:change=move |ev| send(Value::String(event_target_value(&ev)))
                        prop:value=value
                    >
                        {move || {
                            let chosen = value();
                            options()
                                .into_iter()
                                .map(|choice| {
                                    let label = match &choice.group {
                                        Some(group) => format!("{group}: {}", choice.name),
                                        None => choice.name.clone(),
                                    };
                                    let selected = choice.value == chosen;
                                    view! {
                                        <option value=choice.value title=choice.description selected=selected>
                                            {label}
                                        </option>
                                    }
                                })
                                .collect_view()
                        }}
                    </select>
                </label>
            }
            .into_any()
        }
        ControlKind::Boolean(_) => {
            let checked = move || matches!(reported(), Some(ControlKind::Boolean(b)) if b.value);
            view! {
                <label class="cs-control cs-control--switch" data-part="session-control">
                    <input
                        type="checkbox"
                        role="switch"
                        class="cs-control__switch"
                        aria-label=name
                        title=description
                        disabled=busy
                        prop:checked=checked
                        on:change=move |ev| send(Value::Bool(event_target_checked(&ev)))
                    />
                    <span class="cs-control__name" aria-hidden="true">{name}</span>
                </label>
            }
            .into_any()
        }
        ControlKind::Other(_) => view! {
            <span class="cs-control cs-control--unsupported" data-part="session-control-unsupported">
                {move || tr(shell, Text::ControlUnsupported).get().replace("{name}", &name())}
            </span>
        }
        .into_any(),
    }
}
