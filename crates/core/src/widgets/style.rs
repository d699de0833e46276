//! Widget props to CSS: enumerated tokens become class-name parts and CSS variables,
//! numbers become lengths, and the few free-form values the catalog allows (CSS lengths,
//! colors) pass only if they parse as a small, harmless grammar and are re-emitted from
//! the parsed numbers. Nothing the server sent reaches a `style` attribute verbatim.

use crate::protocol::chatkit::WidgetComponent;
use serde_json::Value;
use std::fmt::Write as _;

/// A CSS value produced by a validator below: a number with a unit, an enumerated
/// keyword, a `var(--cs-…)` reference, or a color rebuilt from parsed numbers.
#[derive(Clone, Debug, PartialEq)]
pub struct CssValue(String);

impl CssValue {
    pub fn as_str(&self) -> &str {
        &self.0
    }

    fn new(s: impl Into<String>) -> Self {
        CssValue(s.into())
    }
}

/// Inline declarations whose property names are static and whose values are [`CssValue`]s.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InlineStyle(Vec<(&'static str, CssValue)>);

impl InlineStyle {
    pub fn set(&mut self, property: &'static str, value: Option<CssValue>) {
        if let Some(value) = value {
            self.0.retain(|(p, _)| *p != property);
            self.0.push((property, value));
        }
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn get(&self, property: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(p, _)| *p == property)
            .map(|(_, v)| v.as_str())
    }

    /// The `style` attribute, or `None` when there is nothing to set.
    pub fn to_attr(&self) -> Option<String> {
        if self.0.is_empty() {
            return None;
        }
        let mut out = String::new();
        for (p, v) in &self.0 {
            let _ = write!(out, "{p}:{};", v.0);
        }
        Some(out)
    }
}

/// A keyword from one of our own tables (never the server's string) as a CSS value.
pub fn keyword(keyword: &'static str) -> CssValue {
    CssValue::new(keyword)
}

/// `value` if it is one of `allowed` (returned as the static table entry, so class names
/// are built from our strings, never the server's).
pub fn token(value: Option<&Value>, allowed: &[&'static str]) -> Option<&'static str> {
    let s = value?.as_str()?;
    allowed.iter().copied().find(|a| *a == s)
}

fn finite(n: f64, max: f64) -> Option<f64> {
    (n.is_finite() && n.abs() <= max).then_some(n)
}

/// A number printed without a trailing `.0` and with at most 3 decimals.
pub fn num(n: f64) -> String {
    let rounded = (n * 1000.0).round() / 1000.0;
    let mut s = format!("{rounded}");
    if s == "-0" {
        s = "0".into();
    }
    s
}

/// Parse `<number><unit>` with an allowed unit; returns the re-printed value.
fn number_with_unit(s: &str, units: &[&str]) -> Option<String> {
    let s = s.trim();
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-'))
        .unwrap_or(s.len());
    let (number, unit) = s.split_at(split);
    if number.is_empty() || number.matches('.').count() > 1 || number[1..].contains('-') {
        return None;
    }
    let n = finite(crate::number::parse(number)?, 100_000.0)?;
    let unit = unit.trim().to_ascii_lowercase();
    let unit = units.iter().find(|u| **u == unit)?;
    Some(format!("{}{unit}", num(n)))
}

const LENGTH_UNITS: &[&str] = &["px", "rem", "em", "%", "vh", "vw", "ch"];

/// A length: a number is pixels; a string is `<number><px|rem|em|%|vh|vw|ch>` or `auto`.
pub fn length(value: Option<&Value>) -> Option<CssValue> {
    match value? {
        Value::Number(n) => Some(CssValue::new(format!(
            "{}px",
            num(finite(n.as_f64()?, 100_000.0)?)
        ))),
        Value::String(s) => {
            let t = s.trim();
            if t.eq_ignore_ascii_case("auto") {
                return Some(CssValue::new("auto"));
            }
            // A bare number in a string is pixels, as the SDK's `int | str` suggests.
            if let Some(n) = crate::number::parse(t) {
                return Some(CssValue::new(format!("{}px", num(finite(n, 100_000.0)?))));
            }
            number_with_unit(t, LENGTH_UNITS).map(CssValue::new)
        }
        _ => None,
    }
}

/// A spacing value: a number counts spacing units (`--cs-w-unit`, 4px by default), a
/// string is a length.
pub fn spacing(value: Option<&Value>) -> Option<CssValue> {
    match value? {
        Value::Number(n) => {
            let n = finite(n.as_f64()?, 1_000.0)?;
            Some(CssValue::new(format!(
                "calc(var(--cs-w-unit) * {})",
                num(n)
            )))
        }
        other @ Value::String(s) => {
            if let Some(n) = crate::number::parse(s) {
                let n = finite(n, 1_000.0)?;
                return Some(CssValue::new(format!(
                    "calc(var(--cs-w-unit) * {})",
                    num(n)
                )));
            }
            length(Some(other))
        }
        _ => None,
    }
}

/// Four sides of a padding or margin: a single value or `{top, right, bottom, left, x, y}`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Sides {
    pub top: Option<CssValue>,
    pub right: Option<CssValue>,
    pub bottom: Option<CssValue>,
    pub left: Option<CssValue>,
}

pub fn sides(value: Option<&Value>) -> Sides {
    match value {
        Some(Value::Object(map)) => {
            let x = spacing(map.get("x"));
            let y = spacing(map.get("y"));
            Sides {
                top: spacing(map.get("top")).or_else(|| y.clone()),
                bottom: spacing(map.get("bottom")).or(y),
                left: spacing(map.get("left")).or_else(|| x.clone()),
                right: spacing(map.get("right")).or(x),
            }
        }
        other => {
            let all = spacing(other);
            Sides {
                top: all.clone(),
                right: all.clone(),
                bottom: all.clone(),
                left: all,
            }
        }
    }
}

fn set_sides(style: &mut InlineStyle, props: [&'static str; 4], sides: Sides) {
    style.set(props[0], sides.top);
    style.set(props[1], sides.right);
    style.set(props[2], sides.bottom);
    style.set(props[3], sides.left);
}

/// Radius tokens of the catalog, as CSS variables (`full`/`100%` are fully round).
pub fn radius(value: Option<&Value>) -> Option<CssValue> {
    const TOKENS: &[&str] = &[
        "2xs", "xs", "sm", "md", "lg", "xl", "2xl", "3xl", "4xl", "full", "100%", "none",
    ];
    match token(value, TOKENS)? {
        "full" | "100%" => Some(CssValue::new("9999px")),
        "none" => Some(CssValue::new("0")),
        t => Some(CssValue::new(format!("var(--cs-w-radius-{t})"))),
    }
}

/// Flex alignment (`align`) to `align-items` values.
pub fn align(value: Option<&Value>) -> Option<CssValue> {
    let v = match token(value, &["start", "center", "end", "baseline", "stretch"])? {
        "start" => "flex-start",
        "end" => "flex-end",
        other => other,
    };
    Some(CssValue::new(v))
}

/// Flex justification (`justify`) to `justify-content` values.
pub fn justify(value: Option<&Value>) -> Option<CssValue> {
    let v = match token(
        value,
        &[
            "start", "center", "end", "between", "around", "evenly", "stretch",
        ],
    )? {
        "start" => "flex-start",
        "end" => "flex-end",
        "between" => "space-between",
        "around" => "space-around",
        "evenly" => "space-evenly",
        other => other,
    };
    Some(CssValue::new(v))
}

/// `flex`: a number (grow factor) or `auto`/`none`/`initial`.
pub fn flex(value: Option<&Value>) -> Option<CssValue> {
    match value? {
        Value::Number(n) => Some(CssValue::new(format!(
            "{} 1 0%",
            num(finite(n.as_f64()?, 1_000.0)?.max(0.0))
        ))),
        Value::String(s) => {
            let t = s.trim();
            if let Some(n) = crate::number::parse(t) {
                return Some(CssValue::new(format!(
                    "{} 1 0%",
                    num(finite(n, 1_000.0)?.max(0.0))
                )));
            }
            ["auto", "none", "initial"]
                .iter()
                .find(|k| **k == t)
                .map(|k| CssValue::new(*k))
        }
        _ => None,
    }
}

/// `aspectRatio`: a number or `a/b`.
pub fn aspect_ratio(value: Option<&Value>) -> Option<CssValue> {
    match value? {
        Value::Number(n) => Some(CssValue::new(num(finite(n.as_f64()?, 1_000.0)?))),
        Value::String(s) => {
            let (a, b) = s.split_once('/').unwrap_or((s.as_str(), "1"));
            let a = finite(crate::number::parse(a)?, 10_000.0)?;
            let b = finite(crate::number::parse(b)?, 10_000.0)?;
            (a > 0.0 && b > 0.0).then(|| CssValue::new(format!("{} / {}", num(a), num(b))))
        }
        _ => None,
    }
}

/// Which palette a color prop draws its tokens from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorRole {
    /// Text, Title, Caption, Label, Icon: `prose primary emphasis secondary tertiary success warning danger`.
    Text,
    /// Box, Card, Image backgrounds: `surface surface-secondary surface-tertiary surface-elevated surface-elevated-secondary`.
    Background,
    /// Borders and dividers: `default subtle strong`.
    Border,
    /// Chart series: `blue purple orange green red yellow pink`.
    Chart,
}

const TEXT_TOKENS: &[&str] = &[
    "prose",
    "primary",
    "emphasis",
    "secondary",
    "tertiary",
    "success",
    "warning",
    "danger",
    "info",
    "discovery",
    "caution",
];
const BACKGROUND_TOKENS: &[&str] = &[
    "surface",
    "surface-secondary",
    "surface-tertiary",
    "surface-elevated",
    "surface-elevated-secondary",
];
const BORDER_TOKENS: &[&str] = &["default", "subtle", "strong"];
/// Chart palette, also the default order of series colors.
pub const CHART_TOKENS: &[&str] = &["blue", "purple", "orange", "green", "red", "yellow", "pink"];
/// The `i`-th color of the default chart palette.
pub fn chart_palette(i: usize) -> CssValue {
    CssValue::new(format!(
        "var(--cs-w-chart-{})",
        CHART_TOKENS[i % CHART_TOKENS.len()]
    ))
}

/// Hues of primitive tokens like `red-100` (`--cs-w-hue-<hue>` in the stylesheet).
const HUES: &[&str] = &[
    "red", "orange", "amber", "yellow", "lime", "green", "emerald", "teal", "cyan", "sky", "blue",
    "indigo", "violet", "purple", "fuchsia", "pink", "rose", "gray", "slate", "zinc", "neutral",
    "stone",
];

/// A color prop: a token of its role, a primitive token (`red-100`), `white`/`black`/
/// `transparent`, a hex or `rgb()` color, or `{light, dark}` of those (shown with CSS
/// `light-dark()`, following the widget's color scheme).
pub fn color(value: Option<&Value>, role: ColorRole) -> Option<CssValue> {
    match value? {
        Value::String(s) => color_str(s, role),
        Value::Object(map) => {
            let light = map.get("light").and_then(Value::as_str);
            let dark = map.get("dark").and_then(Value::as_str);
            match (
                light.and_then(|l| color_str(l, role)),
                dark.and_then(|d| color_str(d, role)),
            ) {
                (Some(l), Some(d)) => Some(CssValue::new(format!("light-dark({}, {})", l.0, d.0))),
                (l, d) => l.or(d),
            }
        }
        _ => None,
    }
}

fn color_str(s: &str, role: ColorRole) -> Option<CssValue> {
    let t = s.trim();
    let tokens = match role {
        ColorRole::Text => TEXT_TOKENS,
        ColorRole::Background => BACKGROUND_TOKENS,
        ColorRole::Border => BORDER_TOKENS,
        ColorRole::Chart => CHART_TOKENS,
    };
    if let Some(tok) = tokens.iter().find(|k| **k == t) {
        let prefix = match role {
            ColorRole::Text => "text",
            ColorRole::Background => "bg",
            ColorRole::Border => "border",
            ColorRole::Chart => "chart",
        };
        return Some(CssValue::new(format!("var(--cs-w-{prefix}-{tok})")));
    }
    if let Some(k) = ["white", "black", "transparent", "currentColor"]
        .iter()
        .find(|k| k.eq_ignore_ascii_case(t))
    {
        return Some(CssValue::new(*k));
    }
    primitive(t)
        .or_else(|| hex(t))
        .or_else(|| rgb(t))
        .map(CssValue::new)
}

/// `red-100` … `red-950`: the hue mixed with white (light shades) or black (dark shades).
fn primitive(t: &str) -> Option<String> {
    let (hue, shade) = t.rsplit_once('-')?;
    let hue = HUES.iter().find(|h| **h == hue)?;
    let shade: u32 = shade.parse().ok()?;
    if !(25..=975).contains(&shade) {
        return None;
    }
    Some(match shade {
        500 => format!("var(--cs-w-hue-{hue})"),
        s if s < 500 => format!(
            "color-mix(in srgb, var(--cs-w-hue-{hue}) {}%, white)",
            (s * 100 / 500).max(5)
        ),
        s => format!(
            "color-mix(in srgb, var(--cs-w-hue-{hue}) {}%, black)",
            100 - (s - 500) * 70 / 500
        ),
    })
}

fn hex(t: &str) -> Option<String> {
    let digits = t.strip_prefix('#')?;
    (matches!(digits.len(), 3 | 4 | 6 | 8) && digits.bytes().all(|b| b.is_ascii_hexdigit()))
        .then(|| format!("#{}", digits.to_ascii_lowercase()))
}

/// `rgb(r, g, b)` / `rgba(r, g, b, a)` / `rgb(r g b / a)` with numbers or percentages.
fn rgb(t: &str) -> Option<String> {
    let lower = t.to_ascii_lowercase();
    let inner = lower
        .strip_prefix("rgba(")
        .or_else(|| lower.strip_prefix("rgb("))?
        .strip_suffix(')')?;
    let parts: Vec<&str> = inner
        .split([',', ' ', '/'])
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    if !(3..=4).contains(&parts.len()) {
        return None;
    }
    let channel = |p: &str, max: f64| -> Option<f64> {
        match p.strip_suffix('%') {
            Some(pct) => {
                let v = crate::number::parse(pct)?;
                (v.is_finite() && (0.0..=100.0).contains(&v)).then_some(v / 100.0 * max)
            }
            None => {
                let v = crate::number::parse(p)?;
                (v.is_finite() && (0.0..=max).contains(&v)).then_some(v)
            }
        }
    };
    let r = channel(parts[0], 255.0)?;
    let g = channel(parts[1], 255.0)?;
    let b = channel(parts[2], 255.0)?;
    Some(match parts.get(3) {
        Some(a) => format!(
            "rgb({} {} {} / {})",
            num(r.round()),
            num(g.round()),
            num(b.round()),
            num(channel(a, 1.0)?)
        ),
        None => format!(
            "rgb({} {} {})",
            num(r.round()),
            num(g.round()),
            num(b.round())
        ),
    })
}

/// `border`: a width in px, `{size, color?, style?}`, or per side `{top, right, bottom,
/// left, x, y}` of either.
pub fn border(value: Option<&Value>, style: &mut InlineStyle) {
    const SIDES: [(&str, &str); 4] = [("top", "y"), ("right", "x"), ("bottom", "y"), ("left", "x")];
    const PROPS: [&str; 4] = ["border-top", "border-right", "border-bottom", "border-left"];
    match value {
        Some(Value::Object(map)) if !map.contains_key("size") => {
            for ((side, axis), prop) in SIDES.iter().zip(PROPS) {
                let v = map.get(*side).or_else(|| map.get(*axis));
                style.set(prop, border_one(v));
            }
        }
        other => style.set("border", border_one(other)),
    }
}

fn border_one(value: Option<&Value>) -> Option<CssValue> {
    const STYLES: &[&str] = &[
        "solid", "dashed", "dotted", "double", "groove", "ridge", "inset", "outset",
    ];
    let default_color = "var(--cs-w-border-default)".to_owned();
    match value? {
        Value::Number(n) => {
            let w = finite(n.as_f64()?, 64.0)?.max(0.0);
            Some(CssValue::new(format!("{}px solid {default_color}", num(w))))
        }
        Value::Object(map) => {
            let w = finite(map.get("size")?.as_f64()?, 64.0)?.max(0.0);
            let line = token(map.get("style"), STYLES).unwrap_or("solid");
            let c = color(map.get("color"), ColorRole::Border).map_or(default_color, |c| c.0);
            Some(CssValue::new(format!("{}px {line} {c}", num(w))))
        }
        _ => None,
    }
}

/// The box-model props every container shares (Box, Row, Col, Form, Card body, Image,
/// Chart): sizes, spacing, border, radius, background, flex.
pub fn box_style(node: &WidgetComponent) -> InlineStyle {
    let mut s = InlineStyle::default();
    let p = |name: &str| node.prop(name);
    s.set("gap", spacing(p("gap")));
    set_sides(
        &mut s,
        [
            "padding-top",
            "padding-right",
            "padding-bottom",
            "padding-left",
        ],
        sides(p("padding")),
    );
    set_sides(
        &mut s,
        ["margin-top", "margin-right", "margin-bottom", "margin-left"],
        sides(p("margin")),
    );
    sizes(node, &mut s);
    border(p("border"), &mut s);
    s.set("border-radius", radius(p("radius")));
    s.set("background", color(p("background"), ColorRole::Background));
    s.set("align-items", align(p("align")));
    s.set("justify-content", justify(p("justify")));
    s.set(
        "flex-wrap",
        token(p("wrap"), &["nowrap", "wrap", "wrap-reverse"]).map(CssValue::new),
    );
    s.set("flex", flex(p("flex")));
    s.set("aspect-ratio", aspect_ratio(p("aspectRatio")));
    s
}

/// width/height/size and their min/max variants.
pub fn sizes(node: &WidgetComponent, s: &mut InlineStyle) {
    let p = |name: &str| node.prop(name);
    let size = length(p("size"));
    s.set("width", length(p("width")).or_else(|| size.clone()));
    s.set("height", length(p("height")).or(size));
    let min = length(p("minSize"));
    s.set("min-width", length(p("minWidth")).or_else(|| min.clone()));
    s.set("min-height", length(p("minHeight")).or(min));
    let max = length(p("maxSize"));
    s.set("max-width", length(p("maxWidth")).or_else(|| max.clone()));
    s.set("max-height", length(p("maxHeight")).or(max));
}

/// Text props shared by Text, Title, Caption and Label: color, width, line clamps.
pub fn text_style(node: &WidgetComponent) -> InlineStyle {
    let mut s = InlineStyle::default();
    s.set("color", color(node.prop("color"), ColorRole::Text));
    s.set("width", length(node.prop("width")));
    let lines = |name: &str| {
        node.prop_f64(name)
            .and_then(|n| finite(n, 1_000.0))
            .filter(|n| *n >= 1.0)
            .map(|n| CssValue::new(num(n.floor())))
    };
    s.set("--cs-w-max-lines", lines("maxLines"));
    s.set(
        "min-height",
        lines("minLines").map(|n| CssValue::new(format!("calc({} * 1lh)", n.0))),
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn v(x: Value) -> Option<CssValue> {
        length(Some(&x))
    }

    #[test]
    fn lengths_accept_numbers_and_safe_units_only() {
        assert_eq!(v(json!(64)).unwrap().as_str(), "64px");
        assert_eq!(v(json!(3.0)).unwrap().as_str(), "3px");
        assert_eq!(v(json!("50%")).unwrap().as_str(), "50%");
        assert_eq!(v(json!("1.5rem")).unwrap().as_str(), "1.5rem");
        assert_eq!(v(json!("120")).unwrap().as_str(), "120px");
        assert_eq!(v(json!("auto")).unwrap().as_str(), "auto");
        for bad in [
            json!("10px; background: url(x)"),
            json!("calc(1px)"),
            json!("expression(alert(1))"),
            json!("1e999px"),
            json!("--1px"),
            json!(true),
            json!("10 px red"),
        ] {
            assert_eq!(v(bad.clone()), None, "{bad}");
        }
    }

    #[test]
    fn spacing_counts_units() {
        assert_eq!(
            spacing(Some(&json!(2))).unwrap().as_str(),
            "calc(var(--cs-w-unit) * 2)"
        );
        assert_eq!(spacing(Some(&json!("8px"))).unwrap().as_str(), "8px");
        let s = sides(Some(&json!({"x": 2, "top": "4px"})));
        assert_eq!(s.top.unwrap().as_str(), "4px");
        assert_eq!(s.bottom, None);
        assert_eq!(s.left.unwrap().as_str(), "calc(var(--cs-w-unit) * 2)");
    }

    #[test]
    fn colors_are_tokens_or_rebuilt_from_numbers() {
        let c = |x: Value, r| color(Some(&x), r).map(|c| c.0);
        assert_eq!(
            c(json!("secondary"), ColorRole::Text).as_deref(),
            Some("var(--cs-w-text-secondary)")
        );
        assert_eq!(
            c(json!("surface-secondary"), ColorRole::Background).as_deref(),
            Some("var(--cs-w-bg-surface-secondary)")
        );
        assert_eq!(
            c(json!("yellow-400"), ColorRole::Background).as_deref(),
            Some("color-mix(in srgb, var(--cs-w-hue-yellow) 80%, white)")
        );
        assert_eq!(
            c(json!("blue-900"), ColorRole::Text).as_deref(),
            Some("color-mix(in srgb, var(--cs-w-hue-blue) 44%, black)")
        );
        assert_eq!(c(json!("white"), ColorRole::Text).as_deref(), Some("white"));
        assert_eq!(c(json!("#ABC"), ColorRole::Text).as_deref(), Some("#abc"));
        assert_eq!(
            c(json!("rgb(10, 20, 300)"), ColorRole::Text),
            None,
            "out of range"
        );
        assert_eq!(
            c(json!("rgba(10,20,30,0.5)"), ColorRole::Text).as_deref(),
            Some("rgb(10 20 30 / 0.5)")
        );
        assert_eq!(
            c(
                json!({"light": "#fff", "dark": "gray-900"}),
                ColorRole::Text
            )
            .as_deref(),
            Some("light-dark(#fff, color-mix(in srgb, var(--cs-w-hue-gray) 44%, black))")
        );
        for bad in [
            "red; background:url(javascript:alert(1))",
            "#12345",
            "#ggg",
            "url(x)",
            "var(--x)",
            "expression(1)",
            "red-9999",
            "bogus-100",
            "rgb(1,2,3);x:y",
        ] {
            assert_eq!(c(json!(bad), ColorRole::Text), None, "{bad}");
        }
        // A token of another role is not accepted.
        assert_eq!(c(json!("surface"), ColorRole::Text), None);
        assert_eq!(
            c(json!("blue"), ColorRole::Chart).as_deref(),
            Some("var(--cs-w-chart-blue)")
        );
    }

    #[test]
    fn box_style_maps_layout_props() {
        let node: WidgetComponent = serde_json::from_value(json!({
            "type": "Box", "gap": 2, "padding": 3.0, "border": 1, "radius": "lg",
            "background": "surface-secondary", "align": "center", "justify": "between",
            "wrap": "wrap", "flex": 1, "size": 64, "aspectRatio": "16/9",
            "margin": {"y": "8px"}
        }))
        .unwrap();
        let s = box_style(&node);
        assert_eq!(s.get("gap"), Some("calc(var(--cs-w-unit) * 2)"));
        assert_eq!(s.get("padding-left"), Some("calc(var(--cs-w-unit) * 3)"));
        assert_eq!(
            s.get("border"),
            Some("1px solid var(--cs-w-border-default)")
        );
        assert_eq!(s.get("border-radius"), Some("var(--cs-w-radius-lg)"));
        assert_eq!(s.get("align-items"), Some("center"));
        assert_eq!(s.get("justify-content"), Some("space-between"));
        assert_eq!(s.get("flex"), Some("1 1 0%"));
        assert_eq!(s.get("width"), Some("64px"));
        assert_eq!(s.get("height"), Some("64px"));
        assert_eq!(s.get("aspect-ratio"), Some("16 / 9"));
        assert_eq!(s.get("margin-top"), Some("8px"));
        assert_eq!(s.get("margin-left"), None);
        let attr = s.to_attr().unwrap();
        assert!(attr.starts_with("gap:calc("), "{attr}");
    }

    #[test]
    fn borders_per_side_and_objects() {
        let mut s = InlineStyle::default();
        border(
            Some(&json!({"top": {"size": 2, "style": "dashed", "color": "strong"}, "x": 1})),
            &mut s,
        );
        assert_eq!(
            s.get("border-top"),
            Some("2px dashed var(--cs-w-border-strong)")
        );
        assert_eq!(
            s.get("border-left"),
            Some("1px solid var(--cs-w-border-default)")
        );
        assert_eq!(s.get("border-bottom"), None);
        let mut s = InlineStyle::default();
        border(
            Some(&json!({"size": 1, "style": "evil;x", "color": "red;x"})),
            &mut s,
        );
        assert_eq!(
            s.get("border"),
            Some("1px solid var(--cs-w-border-default)")
        );
    }

    #[test]
    fn radius_and_tokens_come_from_tables() {
        assert_eq!(radius(Some(&json!("full"))).unwrap().as_str(), "9999px");
        assert_eq!(
            radius(Some(&json!("md"))).unwrap().as_str(),
            "var(--cs-w-radius-md)"
        );
        assert_eq!(radius(Some(&json!("md;x"))), None);
        assert_eq!(token(Some(&json!("sm")), &["sm", "md"]), Some("sm"));
        assert_eq!(token(Some(&json!("SM")), &["sm", "md"]), None);
        assert_eq!(flex(Some(&json!("auto"))).unwrap().as_str(), "auto");
        assert_eq!(flex(Some(&json!("1;x"))), None);
    }

    #[test]
    fn text_style_clamps_lines() {
        let node: WidgetComponent = serde_json::from_value(
            json!({"type": "Text", "value": "x", "maxLines": 2, "color": "danger", "minLines": 3}),
        )
        .unwrap();
        let s = text_style(&node);
        assert_eq!(s.get("--cs-w-max-lines"), Some("2"));
        assert_eq!(s.get("color"), Some("var(--cs-w-text-danger)"));
        assert_eq!(s.get("min-height"), Some("calc(3 * 1lh)"));
    }
}
