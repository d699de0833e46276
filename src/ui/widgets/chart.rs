//! Chart: the geometry of `widgets::chart` drawn as SVG elements (grid, axes, bars, line
//! and area paths), a legend, and the data as a visually hidden table for screen readers.
//! The chart is laid out at its rendered width (one SVG unit is one pixel), measured with a
//! ResizeObserver, so labels keep their size whatever the width.

use crate::runtime::Shell;
use chat_shell_core::protocol::chatkit::WidgetComponent;
use chat_shell_core::strings::Text;
use chat_shell_core::widgets::chart::{layout, Chart, SeriesKind, VIEW_WIDTH};
use chat_shell_core::widgets::style::{self, num, InlineStyle};
use leptos::html;
use leptos::prelude::*;
use wasm_bindgen::prelude::*;

pub fn chart(shell: Shell, node: &WidgetComponent) -> AnyView {
    let chart = Chart::from_node(node);
    let figure = NodeRef::<html::Figure>::new();
    let width = RwSignal::new(0.0_f64);
    watch_width(figure, width);
    let mut outer = InlineStyle::default();
    outer.set("width", style::length(node.prop("width")));
    outer.set("min-width", style::length(node.prop("minWidth")));
    outer.set("max-width", style::length(node.prop("maxWidth")));
    outer.set("flex", style::flex(node.prop("flex")));
    let svg_chart = chart.clone();
    let svg = move || {
        let w = width.get();
        drawing(shell, &svg_chart, if w > 0.0 { w } else { VIEW_WIDTH })
    };
    let legend = chart.show_legend.then(|| {
        let items = chart
            .series
            .iter()
            .map(|s| {
                view! {
                    <li class="cs-w-chart__legend-item" data-kind=s.kind.tag()>
                        <span
                            class="cs-w-chart__swatch"
                            prop:style=format!("--cs-w-series:{}", s.color.as_str())
                            aria-hidden="true"
                        ></span>
                        {s.label.clone()}
                    </li>
                }
            })
            .collect_view();
        view! { <ul class="cs-w-chart__legend" data-part="chart-legend">{items}</ul> }
    });
    let table = data_table(&chart);
    view! {
        <figure class="cs-w-chart" prop:style=outer.to_attr() data-component="Chart" node_ref=figure>
            {svg}
            {legend}
            {table}
        </figure>
    }
    .into_any()
}

/// The chart's numbers for assistive technology.
fn data_table(chart: &Chart) -> impl IntoView {
    let head = chart
        .series
        .iter()
        .map(|s| view! { <th scope="col">{s.label.clone()}</th> })
        .collect_view();
    let rows = chart
        .categories
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let cells = chart
                .series
                .iter()
                .map(|s| {
                    let v = s
                        .values
                        .get(i)
                        .copied()
                        .flatten()
                        .map(num)
                        .unwrap_or_default();
                    view! { <td>{v}</td> }
                })
                .collect_view();
            view! { <tr><th scope="row">{c.clone()}</th>{cells}</tr> }
        })
        .collect_view();
    view! {
        <table class="cs-sr-only">
            <thead><tr><td></td>{head}</tr></thead>
            <tbody>{rows}</tbody>
        </table>
    }
}

/// The SVG of the chart laid out `width` units wide.
fn drawing(shell: Shell, chart: &Chart, width: f64) -> AnyView {
    let g = layout(chart, width);
    let series_style = |i: usize| {
        chart
            .series
            .get(i)
            .map(|s| format!("--cs-w-series:{}", s.color.as_str()))
    };
    let series = chart
        .series
        .iter()
        .map(|s| s.label.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    let summary = crate::ui::strings(shell).format(
        Text::ChartSummary,
        &[
            ("series", &series),
            ("count", &chart.categories.len().to_string()),
        ],
    );
    let (left, right) = (num(g.plot.x), num(g.plot.x + g.plot.w));
    let grid = g
        .y_ticks
        .iter()
        .map(|t| {
            let y = num(t.pos);
            view! {
                <line class="cs-w-chart__gridline" x1=left.clone() x2=right.clone() y1=y.clone() y2=y.clone()></line>
                <text class="cs-w-chart__tick" x=num(g.plot.x - 6.0) y=num(t.pos + 4.0) text-anchor="end">
                    {t.label.clone()}
                </text>
            }
        })
        .collect_view();
    let baseline = num(g.plot.y + g.plot.h);
    let x_axis = (!g.x_ticks.is_empty()).then(|| {
        let labels = g
            .x_ticks
            .iter()
            .map(|t| {
                view! {
                    <text class="cs-w-chart__tick" x=num(t.pos) y=num(g.height - 6.0) text-anchor="middle">
                        {t.label.clone()}
                    </text>
                }
            })
            .collect_view();
        view! {
            <line class="cs-w-chart__axis" x1=left.clone() x2=right.clone() y1=baseline.clone() y2=baseline.clone()></line>
            {labels}
        }
    });
    let areas = g
        .paths
        .iter()
        .filter(|p| p.kind == SeriesKind::Area)
        .map(|p| {
            view! {
                <path class="cs-w-chart__area" d=p.d.clone() prop:style=series_style(p.series) data-series=p.series></path>
            }
        })
        .collect_view();
    let bars = g
        .bars
        .iter()
        .map(|b| {
            view! {
                <rect
                    class="cs-w-chart__bar"
                    x=num(b.rect.x)
                    y=num(b.rect.y)
                    width=num(b.rect.w)
                    height=num(b.rect.h)
                    rx="2"
                    prop:style=series_style(b.series)
                    data-series=b.series
                ></rect>
            }
        })
        .collect_view();
    let lines = g
        .paths
        .iter()
        .filter(|p| p.kind == SeriesKind::Line)
        .map(|p| {
            view! {
                <path class="cs-w-chart__line" d=p.d.clone() prop:style=series_style(p.series) data-series=p.series></path>
            }
        })
        .collect_view();
    view! {
        <svg
            class="cs-w-chart__svg"
            viewBox=format!("0 0 {} {}", num(g.width), num(g.height))
            role="img"
            aria-label=summary
        >
            <g class="cs-w-chart__grid">{grid}</g>
            {x_axis}
            <g class="cs-w-chart__areas">{areas}</g>
            <g class="cs-w-chart__bars">{bars}</g>
            <g class="cs-w-chart__lines">{lines}</g>
        </svg>
    }
    .into_any()
}

/// Keeps `width` at the figure's rendered width (whole pixels). The observer stops when
/// the chart's view goes away.
fn watch_width(figure: NodeRef<html::Figure>, width: RwSignal<f64>) {
    struct Watch {
        observer: web_sys::ResizeObserver,
        _callback: Closure<dyn FnMut()>,
    }
    impl Drop for Watch {
        fn drop(&mut self) {
            self.observer.disconnect();
        }
    }
    Effect::new(move |_| {
        let Some(el) = figure.get() else { return };
        let measured = el.clone();
        let callback = Closure::<dyn FnMut()>::new(move || {
            let w = f64::from(measured.client_width());
            if width
                .try_get_untracked()
                .is_some_and(|now| w > 0.0 && (w - now).abs() >= 1.0)
            {
                width.try_set(w);
            }
        });
        let Ok(observer) = web_sys::ResizeObserver::new(callback.as_ref().unchecked_ref()) else {
            return;
        };
        observer.observe(&el);
        StoredValue::new_local(Watch {
            observer,
            _callback: callback,
        });
    });
}
