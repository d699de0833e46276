//! "Load more when this comes into view": an `IntersectionObserver` on a sentinel element
//! inside a scroller. It lives as long as the view; after each page the caller asks it to
//! look again, since a short page can leave the sentinel in view with no intersection
//! change to report.

use leptos::html;
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use web_sys::{IntersectionObserver, IntersectionObserverEntry, IntersectionObserverInit};

type Observer = (IntersectionObserver, Closure<dyn FnMut(js_sys::Array)>);

/// A handle to the observer of one sentinel.
#[derive(Clone, Copy)]
pub struct Sentinel {
    observer: StoredValue<Option<Observer>, LocalStorage>,
    target: NodeRef<html::Div>,
}

impl Sentinel {
    /// Call `on_visible` whenever `target` comes within `margin` (CSS margin syntax) of
    /// the visible part of `root`.
    pub fn watch(
        root: NodeRef<html::Div>,
        target: NodeRef<html::Div>,
        margin: String,
        on_visible: impl Fn() + 'static,
    ) -> Self {
        let observer = StoredValue::new_local(None::<Observer>);
        let on_visible = std::rc::Rc::new(on_visible);
        Effect::new(move |_| {
            let (Some(root), Some(el)) = (root.get(), target.get()) else {
                return;
            };
            if observer.with_value(Option::is_some) {
                return;
            }
            let on_visible = on_visible.clone();
            let callback =
                Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
                    let visible = entries.iter().any(|e| {
                        e.dyn_into::<IntersectionObserverEntry>()
                            .is_ok_and(|e| e.is_intersecting())
                    });
                    if visible {
                        on_visible();
                    }
                });
            let init = IntersectionObserverInit::new();
            init.set_root(Some(&root));
            init.set_root_margin(&margin);
            if let Ok(io) =
                IntersectionObserver::new_with_options(callback.as_ref().unchecked_ref(), &init)
            {
                io.observe(&el);
                observer.set_value(Some((io, callback)));
            }
        });
        on_cleanup(move || {
            observer.update_value(|o| {
                if let Some((io, _)) = o.take() {
                    io.disconnect();
                }
            });
        });
        Sentinel { observer, target }
    }

    /// Check again whether the sentinel is in view (reported through `on_visible`). Asked
    /// for a frame ahead, so the view may be gone by then: nothing to look at.
    pub fn look_again(self) {
        let Some(target) = self.target.try_get_untracked().flatten() else {
            return;
        };
        self.observer.try_with_value(|o| {
            if let Some((io, _)) = o {
                io.unobserve(&target);
                io.observe(&target);
            }
        });
    }
}
