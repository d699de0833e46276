//! Icons as inline SVG built from the built-in table (`widgets::icons`); names without a
//! drawing get the neutral glyph and keep their name in `data-icon`.

use chat_shell_core::protocol::chatkit::WidgetComponent;
use chat_shell_core::widgets::icons::{drawing, Paint, GENERIC};
use chat_shell_core::widgets::style::{self, token, ColorRole, InlineStyle};
use leptos::prelude::*;

const SIZES: &[&str] = &["xs", "sm", "md", "lg", "xl", "2xl", "3xl"];

/// An icon by name, at a size token, with an optional validated `style` attribute.
pub fn icon(name: &str, size: Option<&'static str>, style: Option<String>) -> AnyView {
    let known = drawing(name);
    let paths = known
        .unwrap_or(GENERIC)
        .iter()
        .map(|(paint, d)| {
            let class = match paint {
                Paint::Line => "cs-w-icon__line",
                Paint::Fill => "cs-w-icon__fill",
                Paint::Cut => "cs-w-icon__cut",
            };
            view! { <path class=class d=*d></path> }
        })
        .collect_view();
    let class = format!(
        "cs-w-icon cs-w-icon--{}{}",
        size.unwrap_or("md"),
        if known.is_some() {
            ""
        } else {
            " cs-w-icon--generic"
        }
    );
    view! {
        <svg
            class=class
            viewBox="0 0 24 24"
            aria-hidden="true"
            focusable="false"
            data-icon=name.to_owned()
            prop:style=style
        >
            {paths}
        </svg>
    }
    .into_any()
}

/// The `Icon` component: `name`, `size`, `color`.
pub(crate) fn icon_component(node: &WidgetComponent) -> AnyView {
    let mut s = InlineStyle::default();
    s.set("color", style::color(node.prop("color"), ColorRole::Text));
    let name = node.prop_str("name").unwrap_or_default();
    let size = token(node.prop("size"), SIZES);
    view! {
        <span class="cs-w-icon-wrap" data-component="Icon">{icon(name, size, s.to_attr())}</span>
    }
    .into_any()
}
