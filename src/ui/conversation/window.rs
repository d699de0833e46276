//! Moving the mounted window of a long thread (`core::window`) to where the reader is,
//! and fetching older pages ahead of them. In the chunk of the views a first screen does
//! not need (`crate::parts::views::window_hooks`), fetched with the viewport's first
//! settle once a thread is longer than a window or has older pages; until it is there
//! the newest items show, and nothing older is fetched.

use crate::runtime::ItemKey;
use chat_shell_core::protocol::chatkit::ItemId;
use chat_shell_core::window::{self, Window};
use std::cell::Cell;
use web_sys::Element;

/// Older pages are fetched while fewer than this many loaded items are above the reader.
const PREFETCH_ITEMS: f64 = 80.0;

/// What a settle decided: each `None` or `false` is "as it was".
pub(crate) struct Settled {
    pub window: Option<Window<ItemId>>,
    /// The items' average height (px), when it moved by more than a tenth.
    pub item_px: Option<f64>,
    pub load_older: bool,
}

pub(crate) trait WindowHooks {
    /// Where the window goes, given the viewport, the section of the mounted items, the
    /// list, the window, the height the spacers stand items in at, and whether the reader
    /// is at the end (a reader who never scrolls up needs no older page, unless the
    /// items do not fill the view).
    fn settle(
        &self,
        viewport: &Element,
        items: &Element,
        order: &[ItemKey],
        window: &Window<ItemId>,
        item_px: f64,
        at_end: bool,
    ) -> Settled;
}

fn item_id(k: &ItemKey) -> &ItemId {
    &k.id
}

/// The hooks, linked into the chunk that hands them over.
pub(crate) struct Linked;

impl WindowHooks for Linked {
    fn settle(
        &self,
        viewport: &Element,
        items: &Element,
        order: &[ItemKey],
        w: &Window<ItemId>,
        item_px: f64,
        at_end: bool,
    ) -> Settled {
        let r = w.range(order, item_id);
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
        let mut settled = Settled {
            window: None,
            item_px: new_px,
            load_older: above < PREFETCH_ITEMS && (!at_end || shown.top() >= view.top()),
        };
        if order.len() <= window::MAX {
            return settled;
        }
        // Items a screen and a half beyond either edge are mounted before they show, a
        // step a frame: more when the reader outruns the window, a small window where
        // they land when they jump (the scroll bar dragged).
        let margin = view.height() * 1.5;
        let steps =
            |px_short: f64| ((px_short / px).ceil() as usize).clamp(window::STEP, window::MAX_STEP);
        let short_above = shown.top() - (view.top() - margin);
        let short_below = (view.bottom() + margin) - shown.bottom();
        let next = if at_end {
            // Following the end: the tail, whatever the geometry of a frame mid-stream.
            Window::Tail
        } else if short_above > margin + window::MAX as f64 * px
            || short_below > margin + window::MAX as f64 * px
        {
            Window::around(order, item_id, above.max(0.0) as usize, window::JUMP)
        } else if short_above > 0.0 && r.start > 0 {
            w.earlier(order, item_id, steps(short_above))
        } else if short_below > 0.0 && r.end < order.len() {
            w.later(order, item_id, steps(short_below))
        } else {
            return settled;
        };
        settled.window = (&next != w).then_some(next);
        settled
    }
}

thread_local! {
    static HOOKS: Cell<Option<&'static dyn WindowHooks>> = const { Cell::new(None) };
    static ASKED: Cell<bool> = const { Cell::new(false) };
}

/// The hooks once their chunk is there; the first call asks for it, and sets `arrived`
/// when it is in.
pub(crate) fn hooks(arrived: leptos::prelude::RwSignal<bool>) -> Option<&'static dyn WindowHooks> {
    let hooks = HOOKS.with(Cell::get);
    if hooks.is_none() && !ASKED.with(|a| a.replace(true)) {
        leptos::task::spawn_local(async move {
            match crate::parts::views::window_hooks().await {
                Ok(hooks) => {
                    HOOKS.with(|h| h.set(Some(hooks)));
                    leptos::prelude::Set::try_set(&arrived, true);
                }
                Err(_) => ASKED.with(|a| a.set(false)),
            }
        });
    }
    hooks
}
