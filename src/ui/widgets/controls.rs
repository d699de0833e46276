//! Form controls: Button, Input, Textarea, Select, Checkbox, RadioGroup, DatePicker and
//! editable Text. Each field keeps what the user typed in the widget's typed-values store
//! (so a rebuilt widget shows it again) and submits under its `name`.

use super::ctx::{classes, spinner, Ctx};
use crate::ui::icons;
use crate::ui::tr;
use chat_shell_core::protocol::chatkit::WidgetComponent;
use chat_shell_core::protocol::JsonMap;
use chat_shell_core::strings::Text;
use chat_shell_core::widgets::form::{self, date_only, FieldValue, Trigger};
use chat_shell_core::widgets::style::token;
use leptos::prelude::*;
use serde_json::Value;
use wasm_bindgen::JsCast;

const VARIANTS: &[&str] = &["solid", "soft", "outline", "ghost"];
const SIZES: &[&str] = &["3xs", "2xs", "xs", "sm", "md", "lg", "xl", "2xl", "3xl"];
const BUTTON_COLORS: &[&str] = &[
    "primary",
    "secondary",
    "info",
    "discovery",
    "success",
    "caution",
    "warning",
    "danger",
];

/// What a field renders with.
struct Field {
    identity: Option<String>,
    number: Option<u32>,
    dom_id: Option<String>,
    name: Option<String>,
    /// An accessible name when no Label points at the field.
    aria_label: Option<String>,
    disabled: bool,
}

fn field(ctx: Ctx, node: &WidgetComponent) -> Field {
    let identity = form::field_identity(node);
    let number = identity.as_deref().map(|i| ctx.field_id(i));
    let name = form::field_name(node).map(str::to_owned);
    let labelled = name.as_deref().is_some_and(|n| ctx.label_of(n).is_some());
    let aria_label = (!labelled)
        .then(|| {
            node.prop_str("ariaLabel")
                .or_else(|| node.prop_str("placeholder"))
                .or(name.as_deref())
                .map(str::to_owned)
        })
        .flatten();
    Field {
        dom_id: number.map(|n| ctx.dom_id(n)),
        identity,
        number,
        name,
        aria_label,
        disabled: node.prop_bool("disabled") == Some(true),
    }
}

fn control_classes(node: &WidgetComponent, base: &str, default_variant: &'static str) -> String {
    classes([
        Some(format!("cs-w-control {base}")),
        Some(format!(
            "cs-w-control--{}",
            token(node.prop("variant"), VARIANTS).unwrap_or(default_variant)
        )),
        token(node.prop("size"), SIZES).map(|s| format!("cs-w-control--size-{s}")),
        (node.prop_bool("pill") == Some(true)).then(|| "cs-w-pill".into()),
        (node.prop_bool("block") == Some(true)).then(|| "cs-w-block".into()),
    ])
}

fn text_value(ctx: Ctx, node: &WidgetComponent) -> String {
    ctx.value(node)
        .and_then(|v| v.as_text().map(str::to_owned))
        .unwrap_or_default()
}

/// Keep a field's new value (nothing to keep for a field without a name).
fn keep(ctx: Ctx, identity: &Option<String>, value: FieldValue) {
    if let Some(identity) = identity {
        ctx.set_value(identity, value);
    }
}

/// `onChangeAction` of a field: its payload gains `{name: value}`.
fn on_change_action(
    ctx: Ctx,
    node: &WidgetComponent,
    path: &str,
    name: &Option<String>,
    value: Value,
) {
    let Some(action) = form::action_prop(node, "onChangeAction") else {
        return;
    };
    let mut values = JsonMap::new();
    if let Some(name) = name {
        values.insert(name.clone(), value);
    }
    ctx.run_action(form::with_values(action, values), Trigger::Change, path);
}

pub fn button(ctx: Ctx, node: &WidgetComponent, path: &str) -> AnyView {
    let label = node.prop_str("label").unwrap_or_default().to_owned();
    let submit = node.prop_bool("submit") == Some(true);
    let action = form::action_prop(node, "onClickAction");
    let style = node.prop_str("style");
    let color = token(node.prop("color"), BUTTON_COLORS)
        .or(match style {
            Some("primary") => Some("primary"),
            Some("secondary") => Some("secondary"),
            _ => None,
        })
        .unwrap_or("secondary");
    let variant = token(node.prop("variant"), VARIANTS).unwrap_or(match style {
        Some("secondary") => "outline",
        _ => "solid",
    });
    let icon_size = token(node.prop("iconSize"), &["sm", "md", "lg", "xl", "2xl"]);
    let icon_start = node
        .prop_str("iconStart")
        .map(|n| icons::icon(n, icon_size, None));
    let icon_end = node
        .prop_str("iconEnd")
        .map(|n| icons::icon(n, icon_size, None));
    // An icon-only button is named after its icon.
    let aria_label = label.is_empty().then(|| {
        node.prop_str("iconStart")
            .or_else(|| node.prop_str("iconEnd"))
            .map(|icon| icon.replace('-', " "))
            .unwrap_or_else(|| tr(ctx.shell, Text::Button).get_untracked())
    });
    let class = classes([
        Some("cs-w-button".into()),
        Some(format!("cs-w-button--{variant}")),
        Some(format!("cs-w-button--{color}")),
        token(node.prop("size"), SIZES).map(|s| format!("cs-w-button--size-{s}")),
        (node.prop_bool("pill") == Some(true)).then(|| "cs-w-pill".into()),
        (node.prop_bool("block") == Some(true)).then(|| "cs-w-block".into()),
        (node.prop_bool("uniform") == Some(true)).then(|| "cs-w-button--uniform".into()),
    ]);
    let disabled = node.prop_bool("disabled") == Some(true);
    let (p1, p2, p3, p4) = (
        path.to_owned(),
        path.to_owned(),
        path.to_owned(),
        path.to_owned(),
    );
    let on_click = move |ev: leptos::ev::MouseEvent| {
        // A submit button inside a form leaves the action to the form's submit.
        let in_form = ev
            .current_target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .and_then(|el| el.closest("form").ok().flatten())
            .is_some();
        if submit && in_form {
            return;
        }
        if let Some(action) = action.clone() {
            ctx.run_action(action, Trigger::Button, &p3);
        }
    };
    view! {
        <button
            type=if submit { "submit" } else { "button" }
            class=class
            data-component="Button"
            disabled=move || disabled || ctx.locked() || ctx.node_busy(&p1)
            aria-busy=move || ctx.node_busy(&p2).to_string()
            aria-label=aria_label
            on:click=on_click
        >
            {move || ctx.node_busy(&p4).then(spinner)}
            {icon_start}
            {(!label.is_empty()).then(|| view! { <span class="cs-w-button__label">{label}</span> })}
            {icon_end}
        </button>
    }
    .into_any()
}

pub fn input(ctx: Ctx, node: &WidgetComponent) -> AnyView {
    let f = field(ctx, node);
    let kind = token(
        node.prop("inputType"),
        &["number", "email", "text", "password", "tel", "url"],
    )
    .unwrap_or("text");
    let value = text_value(ctx, node);
    let identity = f.identity.clone();
    view! {
        <input
            class=control_classes(node, "cs-w-input", "outline")
            type=kind
            id=f.dom_id
            name=f.name
            data-fid=f.number
            data-component="Input"
            prop:value=value
            placeholder=node.prop_str("placeholder").map(str::to_owned)
            pattern=node.prop_str("pattern").map(str::to_owned)
            required=node.prop_bool("required") == Some(true)
            aria-label=f.aria_label
            disabled=move || f.disabled || ctx.locked()
            on:input=move |ev| keep(ctx, &identity, FieldValue::Text(event_target_value(&ev)))
        />
    }
    .into_any()
}

pub fn textarea(ctx: Ctx, node: &WidgetComponent) -> AnyView {
    let f = field(ctx, node);
    let value = text_value(ctx, node);
    let identity = f.identity.clone();
    let rows = node
        .prop_f64("rows")
        .filter(|r| r.is_finite())
        .map(|r| r.clamp(1.0, 40.0) as u32);
    view! {
        <textarea
            class=control_classes(node, "cs-w-textarea", "outline")
            id=f.dom_id
            name=f.name
            rows=rows
            data-fid=f.number
            data-component="Textarea"
            prop:value=value
            placeholder=node.prop_str("placeholder").map(str::to_owned)
            required=node.prop_bool("required") == Some(true)
            aria-label=f.aria_label
            disabled=move || f.disabled || ctx.locked()
            on:input=move |ev| keep(ctx, &identity, FieldValue::Text(event_target_value(&ev)))
        ></textarea>
    }
    .into_any()
}

/// An option of a Select or RadioGroup: `{value, label, disabled?, description?}`.
struct Choice {
    value: String,
    label: String,
    disabled: bool,
    description: Option<String>,
}

fn choices(node: &WidgetComponent) -> Vec<Choice> {
    node.prop("options")
        .and_then(Value::as_array)
        .map(|options| {
            options
                .iter()
                .filter_map(|o| {
                    let value = form::scalar_text(o.get("value"));
                    let label = o
                        .get("label")
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                        .unwrap_or_else(|| value.clone());
                    (!value.is_empty()).then(|| Choice {
                        value,
                        label,
                        disabled: o.get("disabled").and_then(Value::as_bool) == Some(true),
                        description: o
                            .get("description")
                            .and_then(Value::as_str)
                            .map(str::to_owned),
                    })
                })
                .collect()
        })
        .unwrap_or_default()
}

pub fn select(ctx: Ctx, node: &WidgetComponent, path: &str) -> AnyView {
    let f = field(ctx, node);
    let current = text_value(ctx, node);
    let placeholder = node.prop_str("placeholder").unwrap_or("").to_owned();
    let clearable = node.prop_bool("clearable") == Some(true);
    let options = choices(node)
        .into_iter()
        .map(|c| {
            let selected = c.value == current;
            view! {
                <option value=c.value disabled=c.disabled selected=selected title=c.description>
                    {c.label}
                </option>
            }
        })
        .collect_view();
    let (identity, name, node_c, path) = (
        f.identity.clone(),
        f.name.clone(),
        node.clone(),
        path.to_owned(),
    );
    view! {
        <select
            class=control_classes(node, "cs-w-select", "outline")
            id=f.dom_id
            name=f.name
            data-fid=f.number
            data-component="Select"
            required=node.prop_bool("required") == Some(true)
            aria-label=f.aria_label
            disabled=move || f.disabled || ctx.locked()
            on:change=move |ev| {
                let value = event_target_value(&ev);
                keep(ctx, &identity, FieldValue::Text(value.clone()));
                on_change_action(ctx, &node_c, &path, &name, Value::String(value));
            }
        >
            <option value="" disabled=!clearable selected=current.is_empty()>{placeholder}</option>
            {options}
        </select>
    }
    .into_any()
}

pub fn checkbox(ctx: Ctx, node: &WidgetComponent, path: &str) -> AnyView {
    let f = field(ctx, node);
    let checked = matches!(ctx.value(node), Some(FieldValue::Bool(true)));
    let label = node.prop_str("label").map(str::to_owned);
    let aria_label = label.is_none().then_some(f.aria_label).flatten();
    let (identity, name, node_c, path) = (
        f.identity.clone(),
        f.name.clone(),
        node.clone(),
        path.to_owned(),
    );
    view! {
        <label class="cs-w-checkbox" data-component="Checkbox">
            <input
                type="checkbox"
                id=f.dom_id
                name=f.name
                data-fid=f.number
                prop:checked=checked
                required=node.prop_bool("required") == Some(true)
                aria-label=aria_label
                disabled=move || f.disabled || ctx.locked()
                on:change=move |ev| {
                    let on = event_target_checked(&ev);
                    keep(ctx, &identity, FieldValue::Bool(on));
                    on_change_action(ctx, &node_c, &path, &name, Value::Bool(on));
                }
            />
            {label.map(|l| view! { <span>{l}</span> })}
        </label>
    }
    .into_any()
}

pub fn radio_group(ctx: Ctx, node: &WidgetComponent, path: &str) -> AnyView {
    let f = field(ctx, node);
    let current = text_value(ctx, node);
    let direction = token(node.prop("direction"), &["row", "col"]).unwrap_or("col");
    // Radio names are per widget view: two widgets with the same field name must not
    // share one group.
    let group = format!("cs-w{}-g{}", ctx.seq, f.number.unwrap_or(0));
    let group_label = node
        .prop_str("ariaLabel")
        .map(str::to_owned)
        .or_else(|| f.name.as_deref().and_then(|n| ctx.label_of(n)))
        .or_else(|| f.name.clone());
    let disabled_all = node.prop_bool("disabled") == Some(true);
    let items = choices(node)
        .into_iter()
        .map(|c| {
            let checked = c.value == current;
            let (identity, name, node_c, path, value) = (
                f.identity.clone(),
                f.name.clone(),
                node.clone(),
                path.to_owned(),
                c.value.clone(),
            );
            let disabled = c.disabled || disabled_all;
            view! {
                <label class="cs-w-radio">
                    <input
                        type="radio"
                        name=group.clone()
                        value=c.value
                        prop:checked=checked
                        disabled=move || disabled || ctx.locked()
                        on:change=move |_| {
                            keep(ctx, &identity, FieldValue::Text(value.clone()));
                            on_change_action(ctx, &node_c, &path, &name, Value::String(value.clone()));
                        }
                    />
                    <span>{c.label}</span>
                </label>
            }
        })
        .collect_view();
    view! {
        <div
            class=format!("cs-w-radiogroup cs-w-radiogroup--{direction}")
            role="radiogroup"
            id=f.dom_id
            data-fid=f.number
            data-name=f.name
            data-component="RadioGroup"
            aria-label=group_label
            aria-required=(node.prop_bool("required") == Some(true)).then_some("true")
        >
            {items}
        </div>
    }
    .into_any()
}

pub fn date_picker(ctx: Ctx, node: &WidgetComponent, path: &str) -> AnyView {
    let f = field(ctx, node);
    let value = text_value(ctx, node);
    let bound = |name: &str| node.prop_str(name).map(date_only).filter(|d| !d.is_empty());
    let (identity, name, node_c, path) = (
        f.identity.clone(),
        f.name.clone(),
        node.clone(),
        path.to_owned(),
    );
    view! {
        <input
            class=control_classes(node, "cs-w-date", "outline")
            type="date"
            id=f.dom_id
            name=f.name
            data-fid=f.number
            data-component="DatePicker"
            prop:value=value
            min=bound("min")
            max=bound("max")
            required=node.prop_bool("required") == Some(true)
            aria-label=f.aria_label
            disabled=move || f.disabled || ctx.locked()
            on:change=move |ev| {
                let value = event_target_value(&ev);
                keep(ctx, &identity, FieldValue::Text(value.clone()));
                on_change_action(ctx, &node_c, &path, &name, Value::String(value));
            }
        />
    }
    .into_any()
}

/// A Text with `editable: {name, placeholder?, required?, pattern?}`: an input whose
/// value starts as the text.
pub fn editable_text(ctx: Ctx, node: &WidgetComponent) -> AnyView {
    let f = field(ctx, node);
    let editable = node.prop("editable").cloned().unwrap_or(Value::Null);
    let text = |k: &str| editable.get(k).and_then(Value::as_str).map(str::to_owned);
    let value = text_value(ctx, node);
    let identity = f.identity.clone();
    view! {
        <input
            class="cs-w-control cs-w-control--ghost cs-w-input cs-w-text-edit"
            type="text"
            id=f.dom_id
            name=f.name
            data-fid=f.number
            data-component="Text"
            prop:value=value
            placeholder=text("placeholder")
            pattern=text("pattern")
            required=editable.get("required").and_then(Value::as_bool) == Some(true)
            aria-label=f.aria_label
            disabled=move || ctx.locked()
            on:input=move |ev| keep(ctx, &identity, FieldValue::Text(event_target_value(&ev)))
        />
    }
    .into_any()
}
