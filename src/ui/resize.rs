//! Resizing the component: eight drag handles (edges and corners, pointer events) and a
//! keyboard-operable corner handle. Sizes stay within the host's CSS `min-*`/`max-*` (or
//! sane defaults), are announced as `chat.resize`, and optionally persisted.

use super::tr;
use crate::runtime::Shell;
use crate::ui::use_shell;
use chat_shell_core::host_events::ChatEvent;
use chat_shell_core::number;
use chat_shell_core::strings::Text;
use leptos::prelude::*;
use web_sys::{HtmlElement, PointerEvent};

/// Smallest size when the host sets no `min-width`/`min-height` (px).
const MIN_WIDTH: f64 = 280.0;
const MIN_HEIGHT: f64 = 320.0;
/// Keyboard steps (px): arrows, and arrows with Shift.
const STEP: f64 = 16.0;
const BIG_STEP: f64 = 64.0;

#[derive(Clone, Copy, Debug, PartialEq)]
struct Drag {
    /// Which sides move: -1 (left/top), 0, +1 (right/bottom).
    dx: f64,
    dy: f64,
    x: f64,
    y: f64,
    width: f64,
    height: f64,
}

#[component]
pub fn ResizeHandles() -> impl IntoView {
    let shell = use_shell();
    let signals = shell.signals().expect("runtime exists while mounted");
    let drag = RwSignal::new(None::<Drag>);
    // Restore a persisted size once, when resizing is on.
    Effect::new(move |_| {
        let (on, key) = signals
            .options
            .with(|o| (o.resizable, o.persist_size.clone()));
        if on && !key.is_empty() {
            if let (Some(host), Some((w, h))) = (host(shell), load_size(&key)) {
                apply_size(&host, w, h);
            }
        }
    });
    // Pointer handlers, shared by the eight edges and the keyboard handle (which sits on
    // the bottom-right corner and drags like it).
    let down = move |ev: PointerEvent, dx: f64, dy: f64| {
        let Some(host) = host(shell) else { return };
        let rect = host.get_bounding_client_rect();
        ev.prevent_default();
        if let Some(target) = ev.target() {
            let el: &web_sys::Element = wasm_bindgen::JsCast::unchecked_ref(&target);
            let _ = el.set_pointer_capture(ev.pointer_id());
        }
        drag.set(Some(Drag {
            dx,
            dy,
            x: ev.client_x() as f64,
            y: ev.client_y() as f64,
            width: rect.width(),
            height: rect.height(),
        }));
    };
    let moved = move |ev: PointerEvent| {
        let Some(d) = drag.get_untracked() else {
            return;
        };
        let Some(host) = host(shell) else { return };
        let w = d.width + d.dx * (ev.client_x() as f64 - d.x);
        let h = d.height + d.dy * (ev.client_y() as f64 - d.y);
        let (w, h) = clamp(&host, w, h);
        // A side that does not move keeps its size exactly.
        apply_size(
            &host,
            if d.dx == 0.0 { d.width } else { w },
            if d.dy == 0.0 { d.height } else { h },
        );
    };
    let up = move || {
        if drag.get_untracked().is_some() {
            drag.set(None);
            finish(shell);
        }
    };
    let handle = move |edge: &'static str, dx: f64, dy: f64| {
        view! {
            <div
                class=format!("cs-resize cs-resize--{edge}")
                data-part="resize-edge"
                aria-hidden="true"
                on:pointerdown=move |ev: PointerEvent| down(ev, dx, dy)
                on:pointermove=moved
                on:pointerup=move |_| up()
                on:pointercancel=move |_| drag.set(None)
            ></div>
        }
    };
    let on_key = move |ev: web_sys::KeyboardEvent| {
        let step = if ev.shift_key() { BIG_STEP } else { STEP };
        let (dw, dh) = match ev.key().as_str() {
            "ArrowRight" => (step, 0.0),
            "ArrowLeft" => (-step, 0.0),
            "ArrowDown" => (0.0, step),
            "ArrowUp" => (0.0, -step),
            _ => return,
        };
        ev.prevent_default();
        let Some(host) = host(shell) else { return };
        let rect = host.get_bounding_client_rect();
        let (w, h) = clamp(&host, rect.width() + dw, rect.height() + dh);
        apply_size(&host, w, h);
        finish(shell);
    };
    move || {
        signals.options.with(|o| o.resizable).then(|| {
            view! {
                {handle("n", 0.0, -1.0)}
                {handle("s", 0.0, 1.0)}
                {handle("e", 1.0, 0.0)}
                {handle("w", -1.0, 0.0)}
                {handle("ne", 1.0, -1.0)}
                {handle("nw", -1.0, -1.0)}
                {handle("sw", -1.0, 1.0)}
                {handle("se", 1.0, 1.0)}
                <button
                    type="button"
                    class="cs-resize-key"
                    data-part="resize-handle"
                    aria-label=tr(shell, Text::Resize)
                    title=tr(shell, Text::ResizeHint)
                    on:keydown=on_key
                    on:pointerdown=move |ev: PointerEvent| down(ev, 1.0, 1.0)
                    on:pointermove=moved
                    on:pointerup=move |_| up()
                    on:pointercancel=move |_| drag.set(None)
                >
                    {crate::ui::glyphs::glyph(crate::ui::glyphs::Glyph::Resize)}
                </button>
            }
        })
    }
}

fn host(shell: Shell) -> Option<HtmlElement> {
    shell.with(|rt| rt.host()).flatten()
}

/// Keep a size within the host's `min-*`/`max-*` (px values) and the viewport.
fn clamp(host: &HtmlElement, width: f64, height: f64) -> (f64, f64) {
    let window = web_sys::window();
    let style = window
        .as_ref()
        .and_then(|w| w.get_computed_style(host).ok().flatten());
    let px = |name: &str| {
        style
            .as_ref()
            .and_then(|s| s.get_property_value(name).ok())
            .and_then(|v| v.strip_suffix("px").and_then(number::parse))
    };
    let viewport =
        |f: fn(&web_sys::Window) -> Result<wasm_bindgen::JsValue, wasm_bindgen::JsValue>| {
            window
                .as_ref()
                .and_then(|w| f(w).ok())
                .and_then(|v| v.as_f64())
                .unwrap_or(f64::MAX)
        };
    let min_w = px("min-width").filter(|v| *v > 0.0).unwrap_or(MIN_WIDTH);
    let min_h = px("min-height").filter(|v| *v > 0.0).unwrap_or(MIN_HEIGHT);
    let max_w = px("max-width")
        .unwrap_or(f64::MAX)
        .min(viewport(web_sys::Window::inner_width));
    let max_h = px("max-height")
        .unwrap_or(f64::MAX)
        .min(viewport(web_sys::Window::inner_height));
    (
        width.clamp(min_w, max_w.max(min_w)),
        height.clamp(min_h, max_h.max(min_h)),
    )
}

fn apply_size(host: &HtmlElement, width: f64, height: f64) {
    let style = host.style();
    let _ = style.set_property("width", &format!("{}px", width.round()));
    let _ = style.set_property("height", &format!("{}px", height.round()));
}

/// A resize ended: tell the page, and remember the size if asked to.
fn finish(shell: Shell) {
    shell.with(|rt| {
        let Some(host) = rt.host() else { return };
        let rect = host.get_bounding_client_rect();
        let (w, h) = (rect.width().round(), rect.height().round());
        rt.emit(&ChatEvent::Resize {
            width: w,
            height: h,
        });
        let key = rt.options(|o| o.persist_size.clone());
        if !key.is_empty() {
            save_size(&key, w, h);
        }
    });
}

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

fn load_size(key: &str) -> Option<(f64, f64)> {
    let raw = storage()?
        .get_item(&format!("chat-shell:size:{key}"))
        .ok()
        .flatten()?;
    let (w, h) = raw.split_once('x')?;
    Some((number::parse(w)?, number::parse(h)?))
}

fn save_size(key: &str, width: f64, height: f64) {
    if let Some(s) = storage() {
        let _ = s.set_item(
            &format!("chat-shell:size:{key}"),
            &format!("{width}x{height}"),
        );
    }
}
