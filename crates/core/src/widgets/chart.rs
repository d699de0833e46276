//! Chart geometry: the `Chart` component's data and series (bar, line, area; bars and
//! areas stack by `stack` id) scaled into an SVG coordinate box, with nice y ticks and
//! category labels. The view draws the shapes; nothing here touches the DOM.

use super::form::scalar_text;
use super::style::{chart_palette, color, num, ColorRole, CssValue};
use crate::protocol::chatkit::WidgetComponent;
use crate::protocol::JsonMap;
use serde_json::Value;
use std::collections::HashMap;

/// Width of the SVG coordinate box until the view knows the real width (it lays the
/// chart out again at its rendered width, so one unit is one pixel and text keeps its size).
pub const VIEW_WIDTH: f64 = 480.0;
const DEFAULT_HEIGHT: f64 = 200.0;
/// The widest a bar gets, in pixels.
const MAX_BAR: f64 = 48.0;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SeriesKind {
    Bar,
    Line,
    Area,
}

impl SeriesKind {
    pub fn tag(self) -> &'static str {
        match self {
            SeriesKind::Bar => "bar",
            SeriesKind::Line => "line",
            SeriesKind::Area => "area",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub kind: SeriesKind,
    pub label: String,
    pub data_key: String,
    pub stack: Option<String>,
    /// A validated color: the series' own, or the next of the chart palette.
    pub color: CssValue,
    /// One value per category; `None` where the row has no number.
    pub values: Vec<Option<f64>>,
}

/// A chart as read from its props.
#[derive(Clone, Debug, PartialEq)]
pub struct Chart {
    pub categories: Vec<String>,
    pub series: Vec<Series>,
    pub show_x: bool,
    pub show_y: bool,
    pub show_legend: bool,
    pub height: f64,
    pub bar_gap: f64,
    pub bar_category_gap: Option<f64>,
}

impl Chart {
    pub fn from_node(node: &WidgetComponent) -> Chart {
        let rows: Vec<JsonMap> = node
            .prop("data")
            .and_then(Value::as_array)
            .map(|rows| rows.iter().filter_map(|r| r.as_object().cloned()).collect())
            .unwrap_or_default();
        let (x_key, labels, hide_x) = match node.prop("xAxis") {
            Some(Value::String(k)) => (k.clone(), JsonMap::new(), false),
            Some(Value::Object(cfg)) => (
                cfg.get("dataKey")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
                cfg.get("labels")
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_default(),
                cfg.get("hide").and_then(Value::as_bool).unwrap_or(false),
            ),
            _ => (String::new(), JsonMap::new(), false),
        };
        let categories = rows
            .iter()
            .enumerate()
            .map(|(i, row)| {
                let raw = scalar_text(row.get(&x_key));
                let raw = if raw.is_empty() {
                    (i + 1).to_string()
                } else {
                    raw
                };
                labels
                    .get(&raw)
                    .and_then(Value::as_str)
                    .map(str::to_owned)
                    .unwrap_or(raw)
            })
            .collect();
        let series = node
            .prop("series")
            .and_then(Value::as_array)
            .map(|list| {
                list.iter()
                    .filter_map(|s| read_series(s, &rows))
                    .enumerate()
                    .map(|(i, (mut s, own))| {
                        s.color = own.unwrap_or_else(|| chart_palette(i));
                        s
                    })
                    .collect()
            })
            .unwrap_or_default();
        let height = node
            .prop("height")
            .or_else(|| node.prop("size"))
            .and_then(|h| match h {
                Value::Number(n) => n.as_f64(),
                Value::String(s) => crate::number::parse(s.trim().trim_end_matches("px")),
                _ => None,
            })
            .filter(|h: &f64| h.is_finite())
            .map_or(DEFAULT_HEIGHT, |h| h.clamp(60.0, 800.0));
        let px = |name: &str| {
            node.prop_f64(name)
                .filter(|v| v.is_finite())
                .map(|v| v.clamp(0.0, 200.0))
        };
        Chart {
            categories,
            series,
            show_x: !hide_x,
            show_y: node.prop_bool("showYAxis").unwrap_or(true),
            show_legend: node.prop_bool("showLegend").unwrap_or(true),
            height,
            bar_gap: px("barGap").unwrap_or(4.0),
            bar_category_gap: px("barCategoryGap"),
        }
    }
}

/// A series as read, before it gets its palette color.
type ReadSeries = (Series, Option<CssValue>);

fn read_series(s: &Value, rows: &[JsonMap]) -> Option<ReadSeries> {
    let kind = match s.get("type").and_then(Value::as_str)? {
        "bar" => SeriesKind::Bar,
        "line" => SeriesKind::Line,
        "area" => SeriesKind::Area,
        _ => return None,
    };
    let data_key = s.get("dataKey").and_then(Value::as_str)?.to_owned();
    let values = rows
        .iter()
        .map(|row| {
            match row.get(&data_key) {
                Some(Value::Number(n)) => n.as_f64(),
                Some(Value::String(t)) => crate::number::parse(t),
                _ => None,
            }
            .filter(|v| v.is_finite())
        })
        .collect();
    let own_color = color(s.get("color"), ColorRole::Chart);
    Some((
        Series {
            kind,
            label: s
                .get("label")
                .and_then(Value::as_str)
                .filter(|l| !l.is_empty())
                .unwrap_or(&data_key)
                .to_owned(),
            stack: match kind {
                SeriesKind::Line => None,
                _ => s.get("stack").and_then(Value::as_str).map(str::to_owned),
            },
            color: chart_palette(0),
            data_key,
            values,
        },
        own_color,
    ))
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Tick {
    pub pos: f64,
    pub label: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Bar {
    pub series: usize,
    pub category: usize,
    pub value: f64,
    pub rect: Rect,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SeriesPath {
    pub series: usize,
    pub kind: SeriesKind,
    /// SVG path data.
    pub d: String,
}

/// Everything the view draws, in SVG coordinates (`0 0 width height`).
#[derive(Clone, Debug, PartialEq)]
pub struct Geometry {
    pub width: f64,
    pub height: f64,
    pub plot: Rect,
    pub y_ticks: Vec<Tick>,
    pub x_ticks: Vec<Tick>,
    pub bars: Vec<Bar>,
    pub paths: Vec<SeriesPath>,
}

/// Lay the chart out in a `width × chart.height` box (width clamped to 160..4000).
pub fn layout(chart: &Chart, width: f64) -> Geometry {
    let width = if width.is_finite() {
        width.clamp(160.0, 4000.0)
    } else {
        VIEW_WIDTH
    };
    let height = chart.height;
    let left = if chart.show_y { 44.0 } else { 8.0 };
    let bottom = if chart.show_x { 24.0 } else { 8.0 };
    let plot = Rect {
        x: left,
        y: 8.0,
        w: (width - left - 8.0).max(1.0),
        h: (height - 8.0 - bottom).max(1.0),
    };
    let n = chart.categories.len();
    let extents = stack_extents(chart);
    let (lo, hi, step) = domain(&extents);
    let scale = |v: f64| plot.y + plot.h * (hi - v) / (hi - lo);

    let mut y_ticks = Vec::new();
    if chart.show_y {
        let mut v = lo;
        while v <= hi + step / 2.0 {
            y_ticks.push(Tick {
                pos: round2(scale(v)),
                label: tick_label(v),
            });
            v += step;
        }
    }
    let band = if n == 0 { plot.w } else { plot.w / n as f64 };
    let center = |i: usize| plot.x + band * (i as f64 + 0.5);
    let x_ticks = if chart.show_x {
        chart
            .categories
            .iter()
            .enumerate()
            .map(|(i, label)| Tick {
                pos: round2(center(i)),
                label: label.clone(),
            })
            .collect()
    } else {
        Vec::new()
    };

    // Bars: one slot per stack group (a bar without `stack` is its own group).
    let mut slots: Vec<String> = Vec::new();
    let slot_of: Vec<Option<usize>> = chart
        .series
        .iter()
        .enumerate()
        .map(|(i, s)| {
            (s.kind == SeriesKind::Bar).then(|| {
                let group = s.stack.clone().unwrap_or_else(|| format!("\u{0}{i}"));
                match slots.iter().position(|g| *g == group) {
                    Some(p) => p,
                    None => {
                        slots.push(group);
                        slots.len() - 1
                    }
                }
            })
        })
        .collect();
    let category_gap = chart.bar_category_gap.unwrap_or(band * 0.2).min(band * 0.9);
    let inner = (band - category_gap).max(1.0);
    let count = slots.len().max(1) as f64;
    let gap = if slots.len() > 1 {
        chart.bar_gap.min(inner / count / 2.0)
    } else {
        0.0
    };
    // Bars stay slim on wide charts: a group never gets wider than MAX_BAR per slot and
    // sits centered in its band.
    let slot_w = ((inner - gap * (count - 1.0)) / count).clamp(1.0, MAX_BAR);
    let group = slot_w * count + gap * (count - 1.0);
    let offset = (band - group) / 2.0;

    let mut bars = Vec::new();
    let mut paths = Vec::new();
    for (si, s) in chart.series.iter().enumerate() {
        match s.kind {
            SeriesKind::Bar => {
                let slot = slot_of[si].unwrap_or(0) as f64;
                for (ci, v) in s.values.iter().enumerate() {
                    let (Some(value), Some((low, high))) = (v, extents[si][ci]) else {
                        continue;
                    };
                    let top = scale(high.max(low));
                    let bottom_y = scale(high.min(low));
                    bars.push(Bar {
                        series: si,
                        category: ci,
                        value: *value,
                        rect: Rect {
                            x: round2(plot.x + band * ci as f64 + offset + slot * (slot_w + gap)),
                            y: round2(top),
                            w: round2(slot_w),
                            h: round2((bottom_y - top).max(0.0)),
                        },
                    });
                }
            }
            SeriesKind::Line => {
                let mut d = String::new();
                let mut pen_down = false;
                for (ci, e) in extents[si].iter().enumerate() {
                    match e {
                        Some((_, high)) => {
                            d.push_str(if pen_down { "L" } else { "M" });
                            d.push_str(&format!(
                                "{} {}",
                                num(round2(center(ci))),
                                num(round2(scale(*high)))
                            ));
                            pen_down = true;
                        }
                        None => pen_down = false,
                    }
                }
                if !d.is_empty() {
                    paths.push(SeriesPath {
                        series: si,
                        kind: SeriesKind::Line,
                        d,
                    });
                }
            }
            SeriesKind::Area => {
                let points: Vec<(f64, f64, f64)> = extents[si]
                    .iter()
                    .enumerate()
                    .map(|(ci, e)| {
                        let (low, high) = e.unwrap_or((0.0, 0.0));
                        (center(ci), scale(high), scale(low))
                    })
                    .collect();
                if points.is_empty() {
                    continue;
                }
                let mut d = String::new();
                for (i, (x, top, _)) in points.iter().enumerate() {
                    d.push_str(if i == 0 { "M" } else { "L" });
                    d.push_str(&format!("{} {}", num(round2(*x)), num(round2(*top))));
                }
                for (x, _, base) in points.iter().rev() {
                    d.push_str(&format!("L{} {}", num(round2(*x)), num(round2(*base))));
                }
                d.push('Z');
                paths.push(SeriesPath {
                    series: si,
                    kind: SeriesKind::Area,
                    d,
                });
            }
        }
    }
    Geometry {
        width,
        height,
        plot,
        y_ticks,
        x_ticks,
        bars,
        paths,
    }
}

/// Per series and category, the value's extent `(low, high)` after stacking: bars stack
/// with bars of the same `stack`, areas with areas; positives upward from 0, negatives
/// downward. Lines are not stacked (`(v, v)`).
fn stack_extents(chart: &Chart) -> Vec<Vec<Option<(f64, f64)>>> {
    let mut positive: HashMap<(SeriesKind, String, usize), f64> = HashMap::new();
    let mut negative: HashMap<(SeriesKind, String, usize), f64> = HashMap::new();
    chart
        .series
        .iter()
        .enumerate()
        .map(|(si, s)| {
            s.values
                .iter()
                .enumerate()
                .map(|(ci, v)| {
                    let v = match (s.kind, v) {
                        (SeriesKind::Area, None) => 0.0,
                        (_, None) => return None,
                        (_, Some(v)) => *v,
                    };
                    if s.kind == SeriesKind::Line {
                        return Some((v, v));
                    }
                    let group = s.stack.clone().unwrap_or_else(|| format!("\u{0}{si}"));
                    let acc = if v >= 0.0 {
                        positive.entry((s.kind, group, ci)).or_insert(0.0)
                    } else {
                        negative.entry((s.kind, group, ci)).or_insert(0.0)
                    };
                    let low = *acc;
                    *acc += v;
                    Some((low, *acc))
                })
                .collect()
        })
        .collect()
}

/// The y domain `(lo, hi, step)`: always includes 0, ends on nice ticks (about 4).
fn domain(extents: &[Vec<Option<(f64, f64)>>]) -> (f64, f64, f64) {
    let (mut min, mut max) = (0.0_f64, 0.0_f64);
    for (low, high) in extents.iter().flatten().flatten() {
        min = min.min(*low).min(*high);
        max = max.max(*low).max(*high);
    }
    if max <= min {
        max = min + 1.0;
    }
    let step = nice_step((max - min) / 4.0);
    let lo = (min / step).floor() * step;
    let mut hi = (max / step).ceil() * step;
    if hi - lo < step {
        hi = lo + step;
    }
    (lo, hi, step)
}

fn nice_step(raw: f64) -> f64 {
    let magnitude = 10_f64.powf(raw.log10().floor());
    let norm = raw / magnitude;
    let nice = if norm <= 1.0 {
        1.0
    } else if norm <= 2.0 {
        2.0
    } else if norm <= 2.5 {
        2.5
    } else if norm <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * magnitude
}

fn tick_label(v: f64) -> String {
    let a = v.abs();
    if a >= 1_000_000.0 {
        format!("{}M", num((v / 100_000.0).round() / 10.0))
    } else if a >= 10_000.0 {
        format!("{}k", num((v / 100.0).round() / 10.0))
    } else {
        num((v * 100.0).round() / 100.0)
    }
}

fn round2(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn chart(v: Value) -> Chart {
        Chart::from_node(&serde_json::from_value(v).unwrap())
    }

    fn fixture_chart() -> Chart {
        chart(
            json!({"type": "Chart", "height": 180, "xAxis": "month", "showLegend": true,
            "data": [
                {"month": "Jan", "visits": 120, "signups": 30, "churn": 5},
                {"month": "Feb", "visits": 150, "signups": 42, "churn": 7},
                {"month": "Mar", "visits": 90, "signups": 25, "churn": 9},
                {"month": "Apr", "visits": 180, "signups": 51, "churn": 4}
            ],
            "series": [
                {"type": "bar", "label": "Visits", "dataKey": "visits"},
                {"type": "line", "label": "Sign-ups", "dataKey": "signups"},
                {"type": "area", "label": "Churn", "dataKey": "churn", "color": "red-300"},
                {"type": "pie", "dataKey": "visits"}
            ]}),
        )
    }

    #[test]
    fn reads_categories_series_and_colors() {
        let c = fixture_chart();
        assert_eq!(c.categories, vec!["Jan", "Feb", "Mar", "Apr"]);
        assert_eq!(c.series.len(), 3, "an unknown series type is skipped");
        assert_eq!(c.series[0].color.as_str(), "var(--cs-w-chart-blue)");
        assert_eq!(c.series[1].color.as_str(), "var(--cs-w-chart-purple)");
        assert!(c.series[2].color.as_str().starts_with("color-mix("));
        assert_eq!(c.series[1].values[3], Some(51.0));
        assert_eq!(c.height, 180.0);
    }

    #[test]
    fn lays_out_bars_lines_and_areas_inside_the_plot() {
        let c = fixture_chart();
        let g = layout(&c, VIEW_WIDTH);
        assert_eq!(g.bars.len(), 4);
        let wide = layout(&c, 960.0);
        assert_eq!(wide.width, 960.0);
        let narrow = layout(&c, 200.0);
        assert!(
            wide.bars[0].rect.w > narrow.bars[0].rect.w,
            "bars widen with the box"
        );
        assert!(wide.bars[0].rect.w <= MAX_BAR, "up to a limit");
        let band = wide.plot.w / 4.0;
        let center = wide.bars[1].rect.x + wide.bars[1].rect.w / 2.0;
        assert!(
            (center - (wide.plot.x + band * 1.5)).abs() < 0.02,
            "centered in its band"
        );
        assert_eq!(g.paths.len(), 2);
        assert_eq!(g.paths[0].kind, SeriesKind::Line);
        assert!(g.paths[0].d.starts_with('M') && g.paths[0].d.matches('L').count() == 3);
        assert!(g.paths[1].d.ends_with('Z'));
        // 0..200 in steps of 50.
        let labels: Vec<&str> = g.y_ticks.iter().map(|t| t.label.as_str()).collect();
        assert_eq!(labels, vec!["0", "50", "100", "150", "200"]);
        let bottom = g.plot.y + g.plot.h;
        for b in &g.bars {
            assert!(b.rect.x >= g.plot.x && b.rect.x + b.rect.w <= g.plot.x + g.plot.w + 0.01);
            assert!(
                (b.rect.y + b.rect.h - bottom).abs() < 0.02,
                "bars stand on 0"
            );
        }
        // The tallest bar (180 of 200) is 90 % of the plot high.
        let apr = &g.bars[3];
        assert!((apr.rect.h - g.plot.h * 0.9).abs() < 0.02);
        assert_eq!(g.x_ticks.len(), 4);
        assert_eq!(g.x_ticks[0].label, "Jan");
    }

    #[test]
    fn stacked_bars_share_a_slot_and_sit_on_each_other() {
        let c = chart(json!({"type": "Chart", "xAxis": "m",
        "data": [{"m": "Jan", "a": 3, "b": 1}, {"m": "Feb", "a": 5, "b": "2"}, {"m": "Mar", "a": 2, "b": 4}],
        "series": [
            {"type": "bar", "label": "A", "dataKey": "a", "stack": "s"},
            {"type": "bar", "label": "B", "dataKey": "b", "stack": "s"},
            {"type": "bar", "label": "C", "dataKey": "a"}
        ]}));
        let g = layout(&c, VIEW_WIDTH);
        assert_eq!(g.bars.len(), 9);
        let (a, b, cc) = (&g.bars[0], &g.bars[3], &g.bars[6]);
        assert_eq!(a.rect.x, b.rect.x, "stacked bars share their slot");
        assert!(cc.rect.x > a.rect.x, "an unstacked bar gets its own slot");
        assert!((b.rect.y + b.rect.h - a.rect.y).abs() < 0.02, "B sits on A");
        // Domain covers the stack (5 + 2 = 7 → 0..8).
        assert_eq!(g.y_ticks.last().unwrap().label, "8");
    }

    #[test]
    fn the_fixture_chart_with_an_unstacked_and_a_stacked_bar() {
        let c = chart(
            json!({"type":"Chart","data":[{"m":"Jan","a":3,"b":1},{"m":"Feb","a":5,"b":2},{"m":"Mar","a":2,"b":4}],
            "series":[{"type":"bar","label":"A","dataKey":"a"},{"type":"bar","label":"B","dataKey":"b","stack":"s"}],
            "xAxis":"m","showLegend":true,"height":160}),
        );
        let g = layout(&c, VIEW_WIDTH);
        assert_eq!(g.bars.len(), 6);
        assert!(g.bars.iter().all(|b| b.rect.h > 0.0 && b.rect.w > 1.0));
    }

    #[test]
    fn degenerate_charts_do_not_break() {
        let g = layout(&chart(json!({"type": "Chart"})), VIEW_WIDTH);
        assert!(g.bars.is_empty() && g.paths.is_empty());
        let g = layout(
            &chart(
                json!({"type": "Chart", "xAxis": {"dataKey": "x", "hide": true, "labels": {"1": "one"}},
            "showYAxis": false, "height": "5000",
            "data": [{"x": 1, "v": -3}, {"x": 2, "v": "n/a"}, {"x": 3, "v": 0}],
            "series": [{"type": "line", "dataKey": "v"}, {"type": "bar", "dataKey": "v"}]}),
            ),
            f64::NAN,
        );
        assert!(g.x_ticks.is_empty() && g.y_ticks.is_empty());
        assert_eq!(g.width, VIEW_WIDTH, "an unusable width falls back");
        assert_eq!(g.height, 800.0);
        assert_eq!(
            g.paths[0].d.matches('M').count(),
            2,
            "a missing value breaks the line"
        );
        assert_eq!(g.bars.len(), 2);
        assert!(g.bars.iter().all(|b| b.rect.h >= 0.0));
        let c = chart(
            json!({"type": "Chart", "xAxis": {"dataKey": "x", "labels": {"1": "one"}},
            "data": [{"x": 1, "v": 1}], "series": [{"type": "bar", "dataKey": "v"}]}),
        );
        assert_eq!(c.categories, vec!["one"]);
        assert_eq!(c.series[0].label, "v");
    }

    #[test]
    fn nice_ticks_and_labels() {
        assert_eq!(nice_step(0.3), 0.5);
        assert_eq!(nice_step(12.0), 20.0);
        assert_eq!(tick_label(25_000.0), "25k");
        assert_eq!(tick_label(2_500_000.0), "2.5M");
        assert_eq!(tick_label(0.25), "0.25");
    }
}
