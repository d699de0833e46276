//! Layout components: the roots (Card, ListView, Basic), Box/Row/Col, Form, ListViewItem,
//! Spacer, Divider, Transition, and the fallback for component types this client does
//! not know.

use super::ctx::{children, classes, spinner, Ctx};
use crate::ui::icons;
use crate::ui::tr;
use chat_shell_core::protocol::chatkit::{Action, WidgetComponent};
use chat_shell_core::protocol::decode::Decode;
use chat_shell_core::strings::Text;
use chat_shell_core::widgets::form::{self, Trigger};
use chat_shell_core::widgets::style::{self, token, ColorRole, InlineStyle};
use leptos::ev::SubmitEvent;
use leptos::prelude::*;
use serde_json::Value;

/// `part`/`data-part`/`data-widget-type` for a root, nothing for a nested one.
fn root_attrs(is_root: bool, node: &WidgetComponent) -> (Option<&'static str>, Option<String>) {
    (
        is_root.then_some("widget"),
        is_root.then(|| node.kind.clone()),
    )
}

/// A spinner over the whole widget while an action with `container` loading runs.
fn busy_overlay(ctx: Ctx) -> impl IntoView {
    move || {
        ctx.container_busy().then(|| {
            view! {
                <div class="cs-widget__busy" role="status" aria-label=tr(ctx.shell, Text::Working)>
                    {spinner()}
                </div>
            }
        })
    }
}

/// The status line of a Card or ListView: `{text, icon}` or `{text, favicon, frame}`.
fn status(node: &WidgetComponent) -> Option<AnyView> {
    let status = node.prop("status")?;
    let text = status.get("text").and_then(Value::as_str)?.to_owned();
    let icon = status
        .get("icon")
        .and_then(Value::as_str)
        .map(|name| icons::icon(name, Some("sm"), None));
    let favicon = status
        .get("favicon")
        .and_then(Value::as_str)
        .and_then(chat_shell_core::markdown::safe_image_url)
        .map(|src| {
            let frame = status.get("frame").and_then(Value::as_bool) == Some(true);
            view! { <img class="cs-w-status__favicon" class:cs-w-status__favicon--frame=frame src=src alt="" /> }
        });
    Some(
        view! {
            <div class="cs-w-status" data-part="widget-status">
                {icon}
                {favicon}
                <span>{text}</span>
            </div>
        }
        .into_any(),
    )
}

/// A Card: an optional status line, the body (padding, background, size), and optional
/// confirm/cancel buttons; `asForm` makes the body a form whose fields go with confirm.
pub fn card(ctx: Ctx, node: &WidgetComponent, path: &str, is_root: bool) -> AnyView {
    let (part, widget_type) = root_attrs(is_root, node);
    let size = token(node.prop("size"), &["sm", "md", "lg", "full"]);
    let theme = token(node.prop("theme"), &["light", "dark"]);
    let mut body_style = InlineStyle::default();
    let pad = style::sides(node.prop("padding"));
    body_style.set("padding-top", pad.top);
    body_style.set("padding-right", pad.right);
    body_style.set("padding-bottom", pad.bottom);
    body_style.set("padding-left", pad.left);
    let mut card_style = InlineStyle::default();
    card_style.set(
        "background",
        style::color(node.prop("background"), ColorRole::Background),
    );
    let collapsed = node.prop_bool("collapsed") == Some(true);
    let as_form = node.prop_bool("asForm") == Some(true);
    let footer = card_actions(ctx, node, path, as_form);
    let body = children(ctx, node, path);
    let open_path = path.to_owned();
    let toggle_path = path.to_owned();
    let shown = Memo::new(move |_| !collapsed || ctx.is_open(&open_path));
    let toggle = collapsed.then(|| {
        view! {
            <button
                type="button"
                class="cs-w-card__toggle cs-button cs-button--ghost"
                aria-expanded=move || shown.get().to_string()
                on:click=move |_| ctx.toggle_open(&toggle_path)
            >
                {move || tr(ctx.shell, if shown.get() { Text::HideDetails } else { Text::ShowDetails }).get()}
            </button>
        }
    });
    let content = view! {
        <div class="cs-w-card__body" prop:style=body_style.to_attr() hidden=move || !shown.get()>
            {body}
        </div>
        {footer}
    };
    let content = if as_form {
        let node = node.clone();
        let submit_path = format!("{path}.confirm");
        let on_submit = move |ev: SubmitEvent| {
            ev.prevent_default();
            let Some(action) = card_action(&node, "confirm") else {
                return;
            };
            let values = ctx
                .typed
                .with_value(|typed| form::collect_values(&node, typed));
            ctx.run_action(
                form::with_values(action, values),
                Trigger::Form,
                &submit_path,
            );
        };
        view! { <form class="cs-w-card__form" on:submit=on_submit>{content}</form> }.into_any()
    } else {
        content.into_any()
    };
    view! {
        <div
            class=classes([
                Some("cs-w-card".into()),
                is_root.then(|| "cs-widget".into()),
                size.map(|s| format!("cs-w-card--{s}")),
                theme.map(|t| format!("cs-w-theme-{t}")),
            ])
            class:cs-widget--busy=move || ctx.container_busy()
            prop:style=card_style.to_attr()
            part=part
            data-part=part
            data-widget-type=widget_type
            data-component="Card"
            aria-busy=move || ctx.container_busy().to_string()
        >
            {status(node)}
            {toggle}
            {content}
            {is_root.then(|| busy_overlay(ctx))}
        </div>
    }
    .into_any()
}

/// `confirm` / `cancel` of a Card: `{label, action}`.
fn card_action(node: &WidgetComponent, which: &str) -> Option<Action> {
    node.prop(which)
        .and_then(|c| c.get("action"))
        .and_then(|a| Action::decode(a).ok())
}

fn card_actions(ctx: Ctx, node: &WidgetComponent, path: &str, as_form: bool) -> Option<AnyView> {
    let button = |which: &'static str, primary: bool| {
        let label = node
            .prop(which)?
            .get("label")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .unwrap_or_else(|| {
                let text = if primary { Text::Confirm } else { Text::Cancel };
                tr(ctx.shell, text).get_untracked()
            });
        let action = card_action(node, which);
        let my_path = format!("{path}.{which}");
        let busy_path = my_path.clone();
        let submit = as_form && primary;
        let on_click = move |_| {
            if submit {
                return;
            }
            if let Some(a) = action.clone() {
                ctx.run_action(a, Trigger::Button, &my_path);
            }
        };
        Some(view! {
            <button
                type=if submit { "submit" } else { "button" }
                class=if primary {
                    "cs-w-button cs-w-button--solid cs-w-button--primary"
                } else {
                    "cs-w-button cs-w-button--outline cs-w-button--secondary"
                }
                data-component="Button"
                disabled=move || ctx.locked() || ctx.node_busy(&busy_path)
                on:click=on_click
            >
                {
                    let p = format!("{path}.{which}");
                    move || ctx.node_busy(&p).then(spinner)
                }
                <span class="cs-w-button__label">{label}</span>
            </button>
        })
    };
    let cancel = button("cancel", false);
    let confirm = button("confirm", true);
    (cancel.is_some() || confirm.is_some())
        .then(|| view! { <div class="cs-w-card__actions">{cancel}{confirm}</div> }.into_any())
}

/// A ListView: rows, the first `limit` shown until "Show more".
pub fn list_view(ctx: Ctx, node: &WidgetComponent, path: &str, is_root: bool) -> AnyView {
    let (part, widget_type) = root_attrs(is_root, node);
    let limit = node
        .prop_f64("limit")
        .filter(|l| l.is_finite() && *l >= 1.0)
        .map(|l| l as usize);
    let rows = children(ctx, node, path);
    let total = rows.len();
    let open_path = path.to_owned();
    let all = Memo::new(move |_| ctx.is_open(&open_path));
    let hidden_from = limit.filter(|l| *l < total);
    let rows: Vec<AnyView> = rows
        .into_iter()
        .enumerate()
        .map(|(i, row)| {
            let beyond = hidden_from.is_some_and(|l| i >= l);
            view! { <div class="cs-w-listview__slot" hidden=move || beyond && !all.get()>{row}</div> }
                .into_any()
        })
        .collect();
    let toggle_path = path.to_owned();
    let more = hidden_from.map(|l| {
        let label = move || {
            if all.get() {
                tr(ctx.shell, Text::ShowLess).get()
            } else {
                let count = (total - l).to_string();
                crate::ui::strings(ctx.shell).format(Text::ShowMore, &[("count", &count)])
            }
        };
        view! {
            <button
                type="button"
                class="cs-w-listview__more cs-button cs-button--ghost"
                aria-expanded=move || all.get().to_string()
                on:click=move |_| ctx.toggle_open(&toggle_path)
            >
                {label}
            </button>
        }
    });
    view! {
        <div
            class=classes([
                Some("cs-w-listview".into()),
                is_root.then(|| "cs-widget".into()),
                token(node.prop("theme"), &["light", "dark"]).map(|t| format!("cs-w-theme-{t}")),
            ])
            class:cs-widget--busy=move || ctx.container_busy()
            part=part
            data-part=part
            data-widget-type=widget_type
            data-component="ListView"
            aria-busy=move || ctx.container_busy().to_string()
        >
            {status(node)}
            <div class="cs-w-listview__items" role="list">{rows}</div>
            {more}
            {is_root.then(|| busy_overlay(ctx))}
        </div>
    }
    .into_any()
}

/// A ListView row: clickable (a button role, Enter/Space) when it has an action.
pub fn list_item(ctx: Ctx, node: &WidgetComponent, path: &str) -> AnyView {
    let mut row_style = InlineStyle::default();
    row_style.set("gap", style::spacing(node.prop("gap")));
    row_style.set("align-items", style::align(node.prop("align")));
    let content = children(ctx, node, path);
    let action = form::action_prop(node, "onClickAction");
    let row = match action {
        Some(action) => {
            let click_path = path.to_owned();
            let key_path = path.to_owned();
            let busy_path = path.to_owned();
            let spin_path = path.to_owned();
            let key_action = action.clone();
            view! {
                <div
                    class="cs-w-listitem__row cs-w-listitem__row--action"
                    role="button"
                    tabindex="0"
                    prop:style=row_style.to_attr()
                    aria-disabled=move || (ctx.locked() || ctx.node_busy(&busy_path)).to_string()
                    on:click=move |_| ctx.run_action(action.clone(), Trigger::ListItem, &click_path)
                    on:keydown=move |ev: leptos::ev::KeyboardEvent| {
                        if ev.key() == "Enter" || ev.key() == " " {
                            ev.prevent_default();
                            ctx.run_action(key_action.clone(), Trigger::ListItem, &key_path);
                        }
                    }
                >
                    {content}
                    {move || ctx.node_busy(&spin_path).then(spinner)}
                </div>
            }
            .into_any()
        }
        None => {
            view! { <div class="cs-w-listitem__row" prop:style=row_style.to_attr()>{content}</div> }
                .into_any()
        }
    };
    view! { <div class="cs-w-listitem" role="listitem" data-component="ListViewItem">{row}</div> }
        .into_any()
}

/// A Basic root (no card chrome), or a root of a type that is not a root.
pub fn basic(ctx: Ctx, node: &WidgetComponent, path: &str, is_root: bool) -> AnyView {
    let (part, widget_type) = root_attrs(is_root, node);
    let content = if node.kind == "Basic" {
        children(ctx, node, path)
    } else {
        vec![(ctx.render)(ctx, node, path)]
    };
    let style = if node.kind == "Basic" {
        style::box_style(node).to_attr()
    } else {
        None
    };
    view! {
        <div
            class=classes([
                Some("cs-w-basic cs-w-box cs-w-box--col".into()),
                is_root.then(|| "cs-widget".into()),
            ])
            class:cs-widget--busy=move || ctx.container_busy()
            prop:style=style
            part=part
            data-part=part
            data-widget-type=widget_type
            data-component=(node.kind == "Basic").then_some("Basic")
            aria-busy=move || ctx.container_busy().to_string()
        >
            {content}
            {is_root.then(|| busy_overlay(ctx))}
        </div>
    }
    .into_any()
}

/// Box (with `direction`), Row and Col: flex containers.
pub fn flex_box(ctx: Ctx, node: &WidgetComponent, path: &str) -> AnyView {
    let direction = match node.kind.as_str() {
        "Row" => "row",
        "Col" => "col",
        _ => token(node.prop("direction"), &["row", "col"]).unwrap_or("col"),
    };
    let kind: &'static str = match node.kind.as_str() {
        "Row" => "Row",
        "Col" => "Col",
        _ => "Box",
    };
    view! {
        <div
            class=format!("cs-w-box cs-w-box--{direction}")
            prop:style=style::box_style(node).to_attr()
            data-component=kind
        >
            {children(ctx, node, path)}
        </div>
    }
    .into_any()
}

/// A Form: its fields' values (by name) are merged into `onSubmitAction`'s payload. The
/// browser checks `required`/`pattern`/types first (no submit event while invalid).
pub fn form(ctx: Ctx, node: &WidgetComponent, path: &str) -> AnyView {
    let direction = token(node.prop("direction"), &["row", "col"]).unwrap_or("col");
    let action = form::action_prop(node, "onSubmitAction").or_else(|| submit_button_action(node));
    let form_node = node.clone();
    let submit_path = submit_button_path(node, path).unwrap_or_else(|| path.to_owned());
    let on_submit = move |ev: SubmitEvent| {
        ev.prevent_default();
        let Some(action) = action.clone() else {
            return;
        };
        let values = ctx
            .typed
            .with_value(|typed| form::collect_values(&form_node, typed));
        ctx.run_action(
            form::with_values(action, values),
            Trigger::Form,
            &submit_path,
        );
    };
    view! {
        <form
            class=format!("cs-w-form cs-w-box cs-w-box--{direction}")
            prop:style=style::box_style(node).to_attr()
            data-component="Form"
            on:submit=on_submit
        >
            {children(ctx, node, path)}
        </form>
    }
    .into_any()
}

/// The first submit button under `node` and its path (it shows the spinner for `self`).
fn find_submit<'n>(node: &'n WidgetComponent, path: &str) -> Option<(&'n WidgetComponent, String)> {
    node.children.iter().enumerate().find_map(|(i, c)| {
        let p = format!("{path}.{i}");
        if c.kind == "Button" && c.prop_bool("submit") == Some(true) {
            Some((c, p))
        } else {
            find_submit(c, &p)
        }
    })
}

fn submit_button_action(node: &WidgetComponent) -> Option<Action> {
    find_submit(node, "").and_then(|(b, _)| form::action_prop(b, "onClickAction"))
}

fn submit_button_path(node: &WidgetComponent, path: &str) -> Option<String> {
    find_submit(node, path).map(|(_, p)| p)
}

/// A Spacer pushes its siblings apart.
pub fn spacer(node: &WidgetComponent) -> AnyView {
    let mut s = InlineStyle::default();
    s.set("min-width", style::length(node.prop("minSize")));
    s.set("min-height", style::length(node.prop("minSize")));
    view! { <div class="cs-w-spacer" prop:style=s.to_attr() data-component="Spacer"></div> }
        .into_any()
}

/// A Divider: `spacing` above and below, `color`, `size` (thickness), `flush`.
pub fn divider(node: &WidgetComponent) -> AnyView {
    let mut s = InlineStyle::default();
    let spacing = style::spacing(node.prop("spacing"));
    s.set("margin-top", spacing.clone());
    s.set("margin-bottom", spacing);
    s.set(
        "border-top-color",
        style::color(node.prop("color"), ColorRole::Border),
    );
    s.set("border-top-width", style::length(node.prop("size")));
    let flush = node.prop_bool("flush") == Some(true);
    view! {
        <hr class="cs-w-divider" class:cs-w-divider--flush=flush prop:style=s.to_attr() data-component="Divider" />
    }
    .into_any()
}

/// Transition animates its child's layout changes; here it shows the child.
pub fn transition(ctx: Ctx, node: &WidgetComponent, path: &str) -> AnyView {
    view! {
        <div class="cs-w-transition" data-component="Transition">{children(ctx, node, path)}</div>
    }
    .into_any()
}

/// A component type this client does not know: its children if it has any, else its
/// text (`value`/`label`) if any, else a neutral placeholder. Never breaks the widget.
pub fn unknown(ctx: Ctx, node: &WidgetComponent, path: &str) -> AnyView {
    let kids = children(ctx, node, path);
    let kind = node.kind.clone();
    if !kids.is_empty() {
        return view! {
            <div class="cs-w-unknown cs-w-box cs-w-box--col" data-component="unknown" data-type=kind>
                {kids}
            </div>
        }
        .into_any();
    }
    let text = node
        .prop_str("value")
        .or_else(|| node.prop_str("label"))
        .map(str::to_owned);
    match text {
        Some(text) => view! {
            <p class="cs-w-unknown cs-w-text" data-component="unknown" data-type=kind>{text}</p>
        }
        .into_any(),
        None => view! {
            <span class="cs-w-unknown cs-w-placeholder" data-component="unknown" data-type=kind role="note">
                {tr(ctx.shell, Text::UnsupportedComponent)}
            </span>
        }
        .into_any(),
    }
}
