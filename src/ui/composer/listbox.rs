//! The listbox a textbox points at (the ARIA combobox pattern), as the slash-command and the
//! mention lists share it: the active option, the ids `aria-controls` and
//! `aria-activedescendant` name, and the keys (arrows move, Enter or Tab choose, Escape
//! closes).

use leptos::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering};

static NEXT_LIST: AtomicU32 = AtomicU32::new(1);

/// What a key did to the list.
pub(crate) enum ListKey {
    /// The active option moved.
    Moved,
    /// Choose this option.
    Choose(usize),
    /// Close the list.
    Close,
}

/// A list a textbox points at: what it says of itself, the ARIA ids follow.
pub(crate) trait Listbox {
    /// Whether the list shows (a reactive read).
    fn is_open(&self) -> bool;
    /// How many options it has (a reactive read).
    fn len(&self) -> usize;
    fn active(&self) -> ActiveOption;

    fn active_index(&self) -> usize {
        self.active().index(self.len())
    }

    /// The list's id while it is open (the textbox's `aria-controls`).
    fn controls(&self) -> Option<String> {
        self.is_open().then(|| self.active().list_id())
    }

    /// The active option's id while the list is open (`aria-activedescendant`).
    fn active_descendant(&self) -> Option<String> {
        self.is_open()
            .then(|| self.active().option_id(self.active_index()))
    }
}

/// The active option and the list's ids.
#[derive(Clone, Copy)]
pub(crate) struct ActiveOption {
    active: RwSignal<usize>,
    list_id: StoredValue<String>,
}

impl ActiveOption {
    /// `name`: what the list holds, in its id (`cs-<name>-<n>`).
    pub(crate) fn new(name: &str) -> Self {
        let n = NEXT_LIST.fetch_add(1, Ordering::Relaxed);
        ActiveOption {
            active: RwSignal::new(0),
            list_id: StoredValue::new(format!("cs-{name}-{n}")),
        }
    }

    pub(crate) fn list_id(&self) -> String {
        self.list_id.get_value()
    }

    pub(crate) fn option_id(&self, i: usize) -> String {
        format!("{}-{i}", self.list_id.get_value())
    }

    /// The active option of a list of `len` (a reactive read).
    pub(crate) fn index(&self, len: usize) -> usize {
        self.active.get().min(len.saturating_sub(1))
    }

    /// Back to the first option.
    pub(crate) fn reset(&self) {
        self.active.set(0);
    }

    /// A key in the textbox while a list of `len` options is open; `None`: not the list's.
    pub(crate) fn key(&self, ev: &web_sys::KeyboardEvent, len: usize) -> Option<ListKey> {
        if len == 0 || ev.is_composing() {
            return None;
        }
        let at = self.active.get_untracked().min(len - 1);
        let key = match ev.key().as_str() {
            "ArrowDown" => {
                self.active.set((at + 1) % len);
                ListKey::Moved
            }
            "ArrowUp" => {
                self.active.set((at + len - 1) % len);
                ListKey::Moved
            }
            "Enter" | "Tab" if !ev.shift_key() => ListKey::Choose(at),
            "Escape" => ListKey::Close,
            _ => return None,
        };
        ev.prevent_default();
        Some(key)
    }
}
