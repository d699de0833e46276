//! Moving the mounted window of a long thread (`core::window`) to where the reader is,
//! and fetching older pages ahead of them. In the chunk of the views a first screen does
//! not need (`crate::chunks::views::window_hooks`), fetched with the viewport's first
//! settle once a thread is longer than a window or has older pages; until it is there
//! the newest items show, and nothing older is fetched.

use crate::runtime::{ItemKey, ViewSignals};
use chat_shell_core::protocol::chatkit::ItemId;
use chat_shell_core::window::{self, Window};
use leptos::html;
use leptos::prelude::*;
use web_sys::Element;

/// Older pages are fetched while fewer than this many loaded items are above the reader.
const PREFETCH_ITEMS: f64 = 80.0;

/// What a settle decided: each `None` or `false` is "as it was".
pub(crate) struct Settled {
    pub window: Option<Window<ItemId>>,
    /// The items' average height (px), when it moved by more than a tenth.
    pub item_px: Option<f64>,
    /// How many items the window holds (`core::window::cap`), when that changed.
    pub cap: Option<usize>,
    pub load_older: bool,
}

/// Find stepped to an item (`id`; `None`: find closed): what the viewport lends the
/// window's code to bring it into view.
pub(crate) struct Reveal {
    pub id: Option<ItemId>,
    pub signals: ViewSignals,
    pub window: RwSignal<(Window<ItemId>, f64, usize)>,
    pub items: NodeRef<html::Section>,
    pub at_bottom: RwSignal<bool>,
    /// The element marked as the match.
    pub found: StoredValue<Option<Element>, LocalStorage>,
    /// Set while the item is on its way into view: the viewport's settle holds the window.
    pub revealing: StoredValue<bool, LocalStorage>,
}

pub(crate) trait WindowHooks {
    /// Mount the item find stepped to (the window around it), open the fold it is in,
    /// bring it to the middle of the view once it has laid out, and mark it.
    fn reveal(&self, reveal: Reveal);

    /// Where the window goes, given the viewport, the section of the mounted items, the
    /// list, the window (with the height the spacers stand items in at, and how many it
    /// holds), and whether the reader is at the end (a reader who never scrolls up needs
    /// no older page, unless the items do not fill the view).
    fn settle(
        &self,
        viewport: &Element,
        items: &Element,
        order: &[ItemKey],
        window: (&Window<ItemId>, f64, usize),
        at_end: bool,
    ) -> Settled;
}

fn item_id(k: &ItemKey) -> &ItemId {
    &k.id
}

/// The hooks, linked into the chunk that hands them over.
pub(crate) struct Linked;

impl WindowHooks for Linked {
    fn reveal(&self, r: Reveal) {
        if let Some(el) = r.found.try_update_value(Option::take).flatten() {
            let _ = el.class_list().remove_1(FOUND_CLASS);
        }
        let Some(id) = r.id else { return };
        let signals = r.signals;
        let entry = signals.order.with_untracked(|o| {
            o.iter()
                .position(|k| k.id == id || k.members.contains(&id))
                .map(|i| (i, o[i].id.clone()))
        });
        let Some((index, entry_id)) = entry else {
            return;
        };
        if let Some(summary) = signals.folds.with_untracked(|f| f.get(&id).cloned()) {
            signals.open_folds.update(|open| {
                open.insert(summary);
            });
        }
        let mounted_now = r.window.with_untracked(|(w, _, cap)| {
            signals
                .order
                .with_untracked(|o| w.range(o, item_id, *cap).contains(&index))
        });
        r.revealing.set_value(true);
        if !mounted_now {
            let around = signals
                .order
                .with_untracked(|o| Window::around(o, item_id, index, window::JUMP));
            r.window.update(|w| w.0 = around);
        }
        r.at_bottom.set(false);
        bring_into_view(r.items, entry_id.to_string(), r.found, r.revealing, 0);
    }

    fn settle(
        &self,
        viewport: &Element,
        items: &Element,
        order: &[ItemKey],
        (w, item_px, cap): (&Window<ItemId>, f64, usize),
        at_end: bool,
    ) -> Settled {
        let r = w.range(order, item_id, cap);
        let view = viewport.get_bounding_client_rect();
        let shown = items.get_bounding_client_rect();
        let mut px = item_px;
        let mut new_px = None;
        if r.len() >= 10 {
            let measured = shown.height() / r.len() as f64;
            if measured > 0.0 && (measured - px).abs() > px * 0.1 {
                px = measured;
                new_px = Some(px);
            }
        }
        // The index of the item at the viewport's top, as the spacers place items.
        let above = r.start as f64 + (view.top() - shown.top()) / px;
        // The window holds what the view needs at this height; it grows by a step at a
        // time, so a change of height is never one long mount.
        let fit = window::cap(view.height(), px).min(cap + window::MAX_STEP);
        let mut settled = Settled {
            window: None,
            item_px: new_px,
            cap: (fit != cap).then_some(fit),
            // At the end, only when the items do not fill the view (their height, not
            // where they are: the scroll to the end may not have happened yet).
            load_older: above < PREFETCH_ITEMS && (!at_end || shown.height() < view.height()),
        };
        let cap = fit;
        if order.len() <= cap {
            return settled;
        }
        // Items a screen beyond either edge (what `window::cap` holds) are mounted before
        // they show, a step a frame: more when the reader outruns the window, a small
        // window where they land when they jump (the scroll bar dragged).
        let margin = view.height();
        let steps =
            |px_short: f64| ((px_short / px).ceil() as usize).clamp(window::STEP, window::MAX_STEP);
        let short_above = shown.top() - (view.top() - margin);
        let short_below = (view.bottom() + margin) - shown.bottom();
        let next = if at_end {
            // Following the end: the tail, whatever the geometry of a frame mid-stream.
            Window::Tail
        } else if short_above > margin + cap as f64 * px || short_below > margin + cap as f64 * px {
            Window::around(order, item_id, above.max(0.0) as usize, window::JUMP)
        } else if short_above > 0.0 && r.start > 0 {
            w.earlier(order, item_id, steps(short_above), cap)
        } else if short_below > 0.0 && r.end < order.len() {
            w.later(order, item_id, steps(short_below), cap)
        } else {
            return settled;
        };
        settled.window = (&next != w).then_some(next);
        settled
    }
}

/// The class of the item find stepped to.
const FOUND_CLASS: &str = "cs-found";

/// The wrapper of the item `id` among the mounted ones (`data-item`).
fn mounted(section: &Element, id: &str) -> Option<Element> {
    let children = section.children();
    (0..children.length())
        .filter_map(|i| children.item(i))
        .find(|c| c.get_attribute("data-item").as_deref() == Some(id))
}

/// Scroll the mounted item `id` to the middle of the view and mark it, once it has a box:
/// its view may come in a chunk, so a few frames are waited for it. The window is held
/// (`revealing`) until then.
fn bring_into_view(
    items: NodeRef<html::Section>,
    id: String,
    found: StoredValue<Option<Element>, LocalStorage>,
    revealing: StoredValue<bool, LocalStorage>,
    tries: u32,
) {
    request_animation_frame(move || {
        let Some(section) = items.get_untracked() else {
            return;
        };
        let Some(el) = mounted(&section, &id).and_then(|w| w.first_element_child()) else {
            if tries < 30 {
                bring_into_view(items, id, found, revealing, tries + 1);
            } else {
                revealing.try_set_value(false);
            }
            return;
        };
        let options = web_sys::ScrollIntoViewOptions::new();
        options.set_block(web_sys::ScrollLogicalPosition::Center);
        el.scroll_into_view_with_scroll_into_view_options(&options);
        let _ = el.class_list().add_1(FOUND_CLASS);
        found.try_set_value(Some(el));
        revealing.try_set_value(false);
    });
}
