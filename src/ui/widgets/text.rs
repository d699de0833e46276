//! Text components: Text, Title, Caption, Markdown, Badge, Label. Their values are the
//! server's text: text nodes for all but Markdown, which goes through the sanitizer.

use super::controls;
use super::ctx::{classes, Ctx};
use chat_shell_core::protocol::chatkit::WidgetComponent;
use chat_shell_core::widgets::style::{self, token};
use leptos::prelude::*;

const WEIGHTS: &[&str] = &["normal", "medium", "semibold", "bold"];
const ALIGNS: &[&str] = &["start", "center", "end"];

/// Class parts shared by text components: weight, alignment, truncation, line clamp.
fn text_classes(node: &WidgetComponent, base: &str, sizes: &[&'static str]) -> String {
    classes([
        Some(base.to_owned()),
        token(node.prop("size"), sizes).map(|s| format!("{base}--{s}")),
        token(node.prop("weight"), WEIGHTS).map(|w| format!("cs-w-weight-{w}")),
        token(node.prop("textAlign"), ALIGNS).map(|a| format!("cs-w-align-{a}")),
        (node.prop_bool("truncate") == Some(true)).then(|| "cs-w-truncate".into()),
        node.prop_f64("maxLines").map(|_| "cs-w-clamp".into()),
        (node.prop_bool("italic") == Some(true)).then(|| "cs-w-italic".into()),
        (node.prop_bool("lineThrough") == Some(true)).then(|| "cs-w-line-through".into()),
        (node.prop_bool("streaming") == Some(true)).then(|| "cs-w-streaming".into()),
    ])
}

fn value(node: &WidgetComponent) -> String {
    node.prop_str("value").unwrap_or_default().to_owned()
}

/// Text: plain text, never HTML. With `editable`, an input submitting under its name.
pub fn text(ctx: Ctx, node: &WidgetComponent) -> AnyView {
    if node.prop("editable").is_some_and(|e| e.is_object()) {
        return controls::editable_text(ctx, node);
    }
    view! {
        <p
            class=text_classes(node, "cs-w-text", &["xs", "sm", "md", "lg", "xl"])
            prop:style=style::text_style(node).to_attr()
            data-component="Text"
        >
            {value(node)}
        </p>
    }
    .into_any()
}

pub fn title(node: &WidgetComponent) -> AnyView {
    view! {
        <h3
            class=text_classes(
                node,
                "cs-w-title",
                &["sm", "md", "lg", "xl", "2xl", "3xl", "4xl", "5xl"],
            )
            prop:style=style::text_style(node).to_attr()
            data-component="Title"
        >
            {value(node)}
        </h3>
    }
    .into_any()
}

pub fn caption(node: &WidgetComponent) -> AnyView {
    view! {
        <p
            class=text_classes(node, "cs-w-caption", &["sm", "md", "lg"])
            prop:style=style::text_style(node).to_attr()
            data-component="Caption"
        >
            {value(node)}
        </p>
    }
    .into_any()
}

/// Markdown through the one sanitizer.
pub fn markdown(ctx: Ctx, node: &WidgetComponent) -> AnyView {
    let (text, shell) = (value(node), ctx.shell);
    let html = move || crate::ui::markdown::render(&text, &crate::ui::strings(shell));
    let streaming = node.prop_bool("streaming") == Some(true);
    view! {
        <div
            class="cs-md cs-w-markdown"
            class:cs-w-streaming=streaming
            data-component="Markdown"
            inner_html=html
        ></div>
    }
    .into_any()
}

pub fn badge(node: &WidgetComponent) -> AnyView {
    let color = token(
        node.prop("color"),
        &[
            "secondary",
            "success",
            "danger",
            "warning",
            "info",
            "discovery",
        ],
    )
    .unwrap_or("secondary");
    let variant = token(node.prop("variant"), &["solid", "soft", "outline"]).unwrap_or("soft");
    let class = classes([
        Some("cs-w-badge".into()),
        Some(format!("cs-w-badge--{color}")),
        Some(format!("cs-w-badge--{variant}")),
        token(node.prop("size"), &["sm", "md", "lg"]).map(|s| format!("cs-w-badge--size-{s}")),
        (node.prop_bool("pill") == Some(true)).then(|| "cs-w-badge--pill".into()),
    ]);
    view! {
        <span class=class data-component="Badge" data-color=color>
            {node.prop_str("label").unwrap_or_default().to_owned()}
        </span>
    }
    .into_any()
}

/// A Label points at the field named `fieldName` in the same widget.
pub fn label(ctx: Ctx, node: &WidgetComponent) -> AnyView {
    let target = ctx.field_dom_id(node.prop_str("fieldName").unwrap_or_default());
    view! {
        <label
            class=text_classes(node, "cs-w-label", &["xs", "sm", "md", "lg", "xl"])
            prop:style=style::text_style(node).to_attr()
            for=target
            data-component="Label"
        >
            {value(node)}
        </label>
    }
    .into_any()
}
