//! Images: a source that passes `safe_image_url` (http(s) or a raster data URL), sized,
//! fitted and framed from validated props; anything else is a neutral box with the alt.

use chat_shell_core::markdown::safe_image_url;
use chat_shell_core::protocol::chatkit::WidgetComponent;
use chat_shell_core::widgets::style::{self, token, ColorRole, CssValue, InlineStyle};
use leptos::prelude::*;

pub fn image(node: &WidgetComponent) -> AnyView {
    let mut s = InlineStyle::default();
    style::sizes(node, &mut s);
    let margin = style::sides(node.prop("margin"));
    s.set("margin-top", margin.top);
    s.set("margin-right", margin.right);
    s.set("margin-bottom", margin.bottom);
    s.set("margin-left", margin.left);
    s.set("border-radius", style::radius(node.prop("radius")));
    s.set(
        "background",
        style::color(node.prop("background"), ColorRole::Background),
    );
    s.set(
        "aspect-ratio",
        style::aspect_ratio(node.prop("aspectRatio")),
    );
    s.set("flex", style::flex(node.prop("flex")));
    s.set(
        "object-fit",
        token(
            node.prop("fit"),
            &["cover", "contain", "fill", "scale-down", "none"],
        )
        .map(css),
    );
    s.set(
        "object-position",
        token(
            node.prop("position"),
            &[
                "top left",
                "top",
                "top right",
                "left",
                "center",
                "right",
                "bottom left",
                "bottom",
                "bottom right",
            ],
        )
        .map(css),
    );
    let alt = node.prop_str("alt").unwrap_or_default().to_owned();
    let frame = node.prop_bool("frame") == Some(true);
    let flush = node.prop_bool("flush") == Some(true);
    match node.prop_str("src").and_then(safe_image_url) {
        Some(src) => view! {
            <img
                class="cs-w-image"
                class:cs-w-image--frame=frame
                class:cs-w-image--flush=flush
                src=src
                alt=alt
                loading="lazy"
                prop:style=s.to_attr()
                data-component="Image"
            />
        }
        .into_any(),
        None => view! {
            <span
                class="cs-w-image cs-w-image--blocked"
                role="img"
                aria-label=alt
                prop:style=s.to_attr()
                data-component="Image"
            ></span>
        }
        .into_any(),
    }
}

/// An enumerated keyword from our own table as a CSS value.
fn css(keyword: &'static str) -> CssValue {
    style::keyword(keyword)
}
