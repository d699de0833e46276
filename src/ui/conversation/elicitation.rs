//! An agent's question (ACP elicitation) in the conversation: a form named by the
//! request's message, one labelled field per property of its `requestedSchema`
//! (`chat_shell_core::form`), checked before it goes, answered Accept, Decline or Cancel;
//! or, in URL mode, a web link to open. Once the server confirms the answer, the outcome
//! shows and the form takes no more input. Everything in it comes from the agent and is
//! shown as text.

use crate::runtime::Shell;
use crate::ui::{item_memo, tr, trf, use_shell};
use chat_shell_core::form::{self, Field, FieldError, FieldValue, Kind};
use chat_shell_core::model::EntryKind;
use chat_shell_core::protocol::acp::{ElicitationOutcome, ElicitationRequest};
use chat_shell_core::protocol::chatkit::ItemId;
use chat_shell_core::strings::Text;
use leptos::prelude::*;
use std::sync::Arc;
use wasm_bindgen::JsCast;

/// The request's mode, as far as this client shows it.
#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Form,
    Url,
    Unknown,
}

/// A link the page may open: only http and https.
fn web_link(url: &str) -> bool {
    let lower = url.trim_start().to_ascii_lowercase();
    (lower.starts_with("https://") || lower.starts_with("http://")) && !url.contains(['"', '<'])
}

/// An id for the element's own references (`aria-labelledby`, `for`): the item id kept
/// to safe characters.
fn dom_id(item: &ItemId, part: &str) -> String {
    let safe: String = item
        .0
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    format!("cs-el-{safe}-{part}")
}

fn error_text(shell: Shell, error: &FieldError) -> String {
    let (text, args) = error.message();
    trf(shell, text, args).get_untracked()
}

#[component]
pub fn ElicitationView(id: ItemId) -> impl IntoView {
    let shell = use_shell();
    let request = shell
        .with(|rt| {
            rt.with_item(&id, |i| match &i.entry.kind {
                EntryKind::Elicitation(e) => Some(e.request.clone()),
                _ => None,
            })
        })
        .flatten()
        .flatten()
        .unwrap_or_default();
    let outcome = item_memo(shell, id.clone(), |i| match &i.entry.kind {
        EntryKind::Elicitation(e) => e.outcome.clone(),
        _ => None,
    });
    let ElicitationRequest {
        message,
        mode,
        requested_schema,
        url,
        ..
    } = request;
    let kind = match mode.as_str() {
        // ACP's default mode is the form.
        "form" | "" => Mode::Form,
        "url" => Mode::Url,
        _ => Mode::Unknown,
    };
    let fields: Arc<Vec<Field>> = Arc::new(if kind == Mode::Form {
        form::fields(requested_schema.as_ref())
    } else {
        Vec::new()
    });
    let acceptable = kind != Mode::Unknown && form::can_accept(&fields);
    let values = RwSignal::new(fields.iter().map(form::initial).collect::<Vec<_>>());
    // Errors show after the first Accept, then follow the input.
    let checked = RwSignal::new(false);
    let errors = {
        let fields = Arc::clone(&fields);
        Memo::new(move |_| {
            if !checked.get() {
                return vec![None; fields.len()];
            }
            values.with(|v| form::validate(&fields, v))
        })
    };
    let sending = RwSignal::new(false);
    let send_error = RwSignal::new(None::<String>);
    let answered = move || outcome.with(Option::is_some);
    let locked = move || answered() || sending.get();

    let answer = {
        let id = id.clone();
        move |outcome: ElicitationOutcome| {
            if locked() {
                return;
            }
            sending.set(true);
            send_error.set(None);
            let settled = move |reason: Option<String>| {
                sending.try_set(false);
                send_error.try_set(reason);
            };
            shell.with(|rt| rt.answer_elicitation(id.clone(), outcome, settled));
        }
    };
    let form_ref = NodeRef::<leptos::html::Form>::new();
    let on_submit = {
        let fields = Arc::clone(&fields);
        let answer = answer.clone();
        move |ev: web_sys::SubmitEvent| {
            ev.prevent_default();
            if !acceptable || locked() {
                return;
            }
            checked.set(true);
            let found = values.with_untracked(|v| form::validate(&fields, v));
            if found.iter().any(Option::is_some) {
                // Focus the first field to fix, where its error is said.
                request_animation_frame(move || {
                    let first = form_ref
                        .get_untracked()
                        .and_then(|f| f.query_selector("[aria-invalid='true']").ok().flatten())
                        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
                    if let Some(first) = first {
                        let _ = first.focus();
                    }
                });
                return;
            }
            let content = values.with_untracked(|v| form::content(&fields, v));
            answer(ElicitationOutcome {
                action: "accept".into(),
                content: (kind == Mode::Form).then_some(content),
            });
        }
    };
    let message_id = dom_id(&id, "message");
    let labelled_by = message_id.clone();
    let field_views = fields
        .iter()
        .enumerate()
        .map(|(i, f)| field_view(shell, &id, i, f.clone(), values, errors))
        .collect_view();
    let link = (kind == Mode::Url).then(|| {
        let url = url.unwrap_or_default();
        if web_link(&url) {
            view! {
                <p class="cs-elicitation__link">
                    <a href=url.clone() target="_blank" rel="noopener noreferrer" data-part="elicitation-link">
                        {tr(shell, Text::Open)}
                    </a>
                    " "
                    <code class="cs-elicitation__url">{url}</code>
                </p>
            }
            .into_any()
        } else {
            view! {
                <p class="cs-elicitation__link" data-part="elicitation-untrusted">
                    {tr(shell, Text::ElicitationUntrustedUrl)} " " <code class="cs-elicitation__url">{url}</code>
                </p>
            }
            .into_any()
        }
    });
    let unknown_mode = (kind == Mode::Unknown).then(|| {
        let mode: String = mode.chars().take(32).collect();
        view! {
            <p class="cs-elicitation__note" role="note">
                {trf(shell, Text::ElicitationUnsupportedMode, vec![("mode", mode)])}
            </p>
        }
    });
    let blocked = (kind == Mode::Form && !acceptable).then(|| {
        view! { <p class="cs-elicitation__note" role="note">{tr(shell, Text::ElicitationBlocked)}</p> }
    });
    let decline = answer.clone();
    let cancel = answer;
    let outcome_text = move || {
        outcome.get().map(|o| {
            let text = match o.action.as_str() {
                "accept" => tr(shell, Text::ElicitationAccepted).get(),
                "decline" => tr(shell, Text::ElicitationDeclined).get(),
                "cancel" => tr(shell, Text::ElicitationCancelled).get(),
                "complete" => tr(shell, Text::ElicitationCompleted).get(),
                other => other.chars().take(32).collect(),
            };
            view! {
                <p class="cs-elicitation__outcome" data-part="elicitation-outcome" data-action=o.action.clone()>{text}</p>
            }
        })
    };
    view! {
        <form
            class="cs-elicitation"
            data-part="elicitation"
            data-mode=mode.clone()
            aria-labelledby=labelled_by
            novalidate=true
            node_ref=form_ref
            on:submit=on_submit
        >
            <p class="cs-elicitation__message" id=message_id>{message}</p>
            {unknown_mode}
            {link}
            <fieldset class="cs-elicitation__fields" disabled=locked>
                {field_views}
            </fieldset>
            {blocked}
            {outcome_text}
            <Show when=move || !answered()>
                <div class="cs-elicitation__actions">
                    <button type="submit" class="cs-button cs-button--primary" data-part="elicitation-accept" disabled=move || !acceptable || sending.get()>
                        {tr(shell, Text::ElicitationAccept)}
                    </button>
                    <button
                        type="button"
                        class="cs-button"
                        data-part="elicitation-decline"
                        disabled=move || sending.get()
                        on:click={
                            let decline = decline.clone();
                            move |_| decline(ElicitationOutcome { action: "decline".into(), content: None })
                        }
                    >
                        {tr(shell, Text::ElicitationDecline)}
                    </button>
                    <button
                        type="button"
                        class="cs-button"
                        data-part="elicitation-cancel"
                        disabled=move || sending.get()
                        on:click={
                            let cancel = cancel.clone();
                            move |_| cancel(ElicitationOutcome { action: "cancel".into(), content: None })
                        }
                    >
                        {tr(shell, Text::Cancel)}
                    </button>
                </div>
            </Show>
            {move || (sending.get() && !answered()).then(|| view! {
                <p class="cs-elicitation__status" role="status">{tr(shell, Text::ElicitationSending)}</p>
            })}
            {move || send_error.get().map(|e| view! { <p class="cs-elicitation__failed" role="alert">{e}</p> })}
        </form>
    }
}

/// One property: its label (required marked), its control, its description and error.
fn field_view(
    shell: Shell,
    item: &ItemId,
    index: usize,
    field: Field,
    values: RwSignal<Vec<FieldValue>>,
    errors: Memo<Vec<Option<FieldError>>>,
) -> impl IntoView {
    let input_id = dom_id(item, &format!("f{index}"));
    let hint_id = dom_id(item, &format!("f{index}-hint"));
    let error_id = dom_id(item, &format!("f{index}-error"));
    let error = move || errors.with(|e| e.get(index).cloned().flatten());
    let invalid = move || error().is_some().then_some("true");
    let described = {
        let hint = field.hint.is_some().then(|| hint_id.clone());
        let error_id = error_id.clone();
        move || {
            let ids: Vec<String> = hint
                .iter()
                .cloned()
                .chain(error().map(|_| error_id.clone()))
                .collect();
            (!ids.is_empty()).then(|| ids.join(" "))
        }
    };
    let text_of = move || {
        values.with(|v| match v.get(index) {
            Some(FieldValue::Text(t)) => t.clone(),
            _ => String::new(),
        })
    };
    let set_text = move |ev: web_sys::Event| {
        let value = event_target_value(&ev);
        values.update(|v| {
            if let Some(slot) = v.get_mut(index) {
                *slot = FieldValue::Text(value);
            }
        });
    };
    let required = field.required;
    let required_mark = move || {
        required.then(|| {
            view! {
                <span class="cs-elicitation__required">
                    " (" {tr(shell, Text::ElicitationRequired)} ")"
                </span>
            }
        })
    };
    let label = field.label.clone();
    let hint = field.hint.clone().map(|h| {
        view! { <p class="cs-elicitation__hint" id=hint_id.clone()>{h}</p> }
    });
    let error_view = {
        let error_id = error_id.clone();
        move || {
            error().map(|e| {
                view! { <p class="cs-elicitation__error" id=error_id.clone()>{error_text(shell, &e)}</p> }
            })
        }
    };
    let control = match field.kind.clone() {
        Kind::Text { format } => {
            let input_type = match format.as_deref() {
                Some("email") => "email",
                Some("uri") => "url",
                Some("date") => "date",
                _ => "text",
            };
            view! {
                <label class="cs-elicitation__label" for=input_id.clone()>{label.clone()} {required_mark}</label>
                <input
                    class="cs-elicitation__input"
                    id=input_id.clone()
                    type=input_type
                    prop:value=text_of
                    minlength=field.min_length.map(|n| n.to_string())
                    maxlength=field.max_length.map(|n| n.to_string())
                    aria-required=required.then_some("true")
                    aria-invalid=invalid
                    aria-describedby=described.clone()
                    on:input=set_text
                />
            }
            .into_any()
        }
        Kind::Number { integer, min, max } => view! {
            <label class="cs-elicitation__label" for=input_id.clone()>{label.clone()} {required_mark}</label>
            <input
                class="cs-elicitation__input"
                id=input_id.clone()
                type="number"
                prop:value=text_of
                min=min.map(form::number_text)
                max=max.map(form::number_text)
                step=if integer { "1" } else { "any" }
                aria-required=required.then_some("true")
                aria-invalid=invalid
                aria-describedby=described.clone()
                on:input=set_text
            />
        }
        .into_any(),
        Kind::Choice { options } => {
            let options = options
                .into_iter()
                .map(|(value, title)| {
                    let selected_value = value.clone();
                    view! { <option value=value selected=move || text_of() == selected_value>{title}</option> }
                })
                .collect_view();
            view! {
                <label class="cs-elicitation__label" for=input_id.clone()>{label.clone()} {required_mark}</label>
                <select
                    class="cs-elicitation__input"
                    id=input_id.clone()
                    aria-required=required.then_some("true")
                    aria-invalid=invalid
                    aria-describedby=described.clone()
                    on:change=set_text
                >
                    <option value="" selected=move || text_of().is_empty()>"—"</option>
                    {options}
                </select>
            }
            .into_any()
        }
        Kind::Boolean => {
            let checked = move || values.with(|v| matches!(v.get(index), Some(FieldValue::Bool(true))));
            view! {
                <label class="cs-elicitation__check">
                    <input
                        type="checkbox"
                        id=input_id.clone()
                        prop:checked=checked
                        aria-describedby=described.clone()
                        on:change=move |ev| {
                            let on = event_target_checked(&ev);
                            values.update(|v| {
                                if let Some(slot) = v.get_mut(index) {
                                    *slot = FieldValue::Bool(on);
                                }
                            });
                        }
                    />
                    {label.clone()}
                </label>
            }
            .into_any()
        }
        Kind::MultiChoice { options, .. } => {
            let boxes = options
                .into_iter()
                .map(|(value, title)| {
                    let has = value.clone();
                    let checked = move || {
                        values.with(|v| matches!(v.get(index), Some(FieldValue::Many(m)) if m.contains(&has)))
                    };
                    view! {
                        <label class="cs-elicitation__check">
                            <input
                                type="checkbox"
                                prop:checked=checked
                                on:change=move |ev| {
                                    let on = event_target_checked(&ev);
                                    let value = value.clone();
                                    values.update(|v| {
                                        if let Some(FieldValue::Many(m)) = v.get_mut(index) {
                                            m.retain(|x| x != &value);
                                            if on {
                                                m.push(value);
                                            }
                                        }
                                    });
                                }
                            />
                            {title}
                        </label>
                    }
                })
                .collect_view();
            view! {
                <fieldset
                    class="cs-elicitation__group"
                    aria-invalid=invalid
                    aria-describedby=described.clone()
                >
                    <legend class="cs-elicitation__label">{label.clone()} {required_mark}</legend>
                    {boxes}
                </fieldset>
            }
            .into_any()
        }
        Kind::Unsupported { type_name } => view! {
            <span class="cs-elicitation__label">{label.clone()} {required_mark}</span>
            <p class="cs-elicitation__unsupported" data-part="elicitation-unsupported" aria-describedby=described.clone()>
                {trf(shell, Text::ElicitationUnsupportedField, vec![("type", type_name)])}
            </p>
        }
        .into_any(),
    };
    view! {
        <div class="cs-elicitation__field" data-part="elicitation-field" data-key=field.key.clone()>
            {control}
            {hint}
            {error_view}
        </div>
    }
}
