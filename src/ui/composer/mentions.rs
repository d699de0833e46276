//! @-mentions: typing `@` at a word's start lists what can be mentioned (the host's
//! `entities.onTagSearch`, or the agent's workspace files), filtered as the query is typed.
//! The list is the listbox "Mentions"; the textbox keeps the focus and points at the active
//! option (`aria-activedescendant`): arrows move, Enter or Tab choose, Escape closes. A
//! chosen entity replaces the typed `@query` as one unit (`core::mentions`): shown as a
//! chip over the draft (`[data-part="mention"]`), removed whole by an edit that touches
//! it, sent as an `input_tag`. Titles are text, never markup.

use super::listbox::{ActiveOption, ListKey, Listbox};
use crate::runtime::Shell;
use crate::ui::{tr, use_shell};
use chat_shell_core::mentions::{insert, query_at, Entity, Mention};
use chat_shell_core::protocol::chatkit::UserContent;
use chat_shell_core::strings::Text;
use leptos::html;
use leptos::prelude::*;
use std::rc::Rc;

/// The list's state, shared by the textbox (keys, ARIA) and the list.
#[derive(Clone, Copy)]
pub(crate) struct MentionMenu {
    items: RwSignal<Vec<Entity>>,
    open: RwSignal<bool>,
    active: ActiveOption,
    /// The typed `@query` (bytes of the draft: the `@`, the caret).
    typed_at: StoredValue<Option<(usize, usize)>>,
    /// The latest search: an answer to an older one is dropped.
    search: StoredValue<u32>,
    pub(crate) shell: Shell,
}

impl Listbox for MentionMenu {
    fn is_open(&self) -> bool {
        self.open.get() && !self.items.with(Vec::is_empty)
    }

    fn len(&self) -> usize {
        self.items.with(Vec::len)
    }

    fn active(&self) -> ActiveOption {
        self.active
    }
}

impl MentionMenu {
    pub(crate) fn new() -> Self {
        MentionMenu {
            items: RwSignal::new(Vec::new()),
            open: RwSignal::new(false),
            active: ActiveOption::new("mentions"),
            typed_at: StoredValue::new(None),
            search: StoredValue::new(0),
            shell: use_shell(),
        }
    }

    fn close(&self) {
        self.search.update_value(|n| *n += 1);
        self.open.set(false);
        self.typed_at.set_value(None);
    }

    /// The draft changed by typing (or the caret moved): searches for the `@query` before
    /// the caret, or closes the list.
    fn typed(&self, textarea: &web_sys::HtmlTextAreaElement, draft: &str) {
        let Some(signals) = self.shell.signals() else {
            return;
        };
        let caret = byte_at(draft, textarea.selection_start().ok().flatten());
        let query = signals
            .mentions
            .with_untracked(|m| query_at(draft, caret, m));
        let runtime = self.shell.with(Rc::clone).filter(|rt| rt.can_mention());
        let (Some((at, query)), Some(runtime)) = (query, runtime) else {
            if self.typed_at.get_value().is_some() {
                self.close();
            }
            return;
        };
        self.typed_at.set_value(Some((at, caret)));
        self.search.update_value(|n| *n += 1);
        let search = self.search.get_value();
        let menu = *self;
        let done: crate::chunks::runtime::MentionsFound = Box::new(move |found| {
            if menu.search.try_get_value() != Some(search) {
                return;
            }
            let found = found.unwrap_or_default();
            menu.active.reset();
            menu.open.set(!found.is_empty());
            menu.items.set(found);
        });
        leptos::task::spawn_local(async move {
            if let Ok(task) = crate::chunks::runtime::mention_search(runtime, query, done).await {
                task.await;
            }
        });
    }

    fn choose(&self, i: usize, textarea: &web_sys::HtmlTextAreaElement) {
        let (Some(entity), Some((at, caret)), Some(signals)) = (
            self.items.with_untracked(|m| m.get(i).cloned()),
            self.typed_at.get_value(),
            self.shell.signals(),
        ) else {
            return;
        };
        let draft = textarea.value();
        if draft.get(at..at + 1) != Some("@") || caret > draft.len() {
            return self.close();
        }
        let mut mentions = signals.mentions.get_untracked();
        let (text, caret) = insert(&draft, &mut mentions, at, caret, entity);
        textarea.set_value(&text);
        let units = utf16_len(&text[..caret]);
        let _ = textarea.set_selection_range(units, units);
        signals.mentions.set(mentions);
        signals.draft.set(text);
        self.close();
    }

    /// A key in the textbox: true when the list took it.
    fn key(&self, ev: &web_sys::KeyboardEvent, textarea: &web_sys::HtmlTextAreaElement) -> bool {
        if !self.open.get_untracked() {
            return false;
        }
        match self.active.key(ev, self.items.with_untracked(Vec::len)) {
            Some(ListKey::Choose(i)) => self.choose(i, textarea),
            Some(ListKey::Close) => self.close(),
            Some(ListKey::Moved) => {}
            None => return false,
        }
        true
    }
}

/// The mention code the composer calls, in the chunk of the views a first screen does not
/// need (`crate::chunks::views::mention_hooks`): only what points at the list stays in the
/// first module, the rest comes with the first `@` (a draft has mentions only after it).
pub(crate) trait MentionHooks {
    /// The draft changed by the user's edit (`edited`), then the `@query` search (`typed`);
    /// sets the draft.
    fn input(&self, menu: MentionMenu, textarea: &web_sys::HtmlTextAreaElement, new: String);
    /// A key in the textbox: true when the list took it.
    fn key(
        &self,
        menu: MentionMenu,
        ev: &web_sys::KeyboardEvent,
        textarea: &web_sys::HtmlTextAreaElement,
    ) -> bool;
    /// A message's content with its mentions (`core::mentions::content`).
    fn content(&self, text: &str, mentions: &[Mention]) -> Vec<UserContent>;
}

/// The hooks, linked into the chunk that hands them over.
pub(crate) struct Linked;

impl MentionHooks for Linked {
    fn input(&self, menu: MentionMenu, textarea: &web_sys::HtmlTextAreaElement, new: String) {
        let kept = edited(menu.shell, textarea, new);
        // The draft as typed, not read from the textbox again (a 1 MB paste is 1 MB a key).
        menu.typed(textarea, &kept);
        if let Some(signals) = menu.shell.signals() {
            signals.draft.set(kept);
        }
    }

    fn key(
        &self,
        menu: MentionMenu,
        ev: &web_sys::KeyboardEvent,
        textarea: &web_sys::HtmlTextAreaElement,
    ) -> bool {
        menu.key(ev, textarea)
    }

    fn content(&self, text: &str, mentions: &[Mention]) -> Vec<UserContent> {
        chat_shell_core::mentions::content(text, mentions)
    }
}

/// The byte offset of a textarea's UTF-16 position in `text`.
pub(crate) fn byte_at(text: &str, units: Option<u32>) -> usize {
    let Some(units) = units else {
        return text.len();
    };
    let mut seen = 0u32;
    for (i, c) in text.char_indices() {
        if seen >= units {
            return i;
        }
        seen += c.len_utf16() as u32;
    }
    text.len()
}

fn utf16_len(text: &str) -> u32 {
    text.chars().map(|c| c.len_utf16() as u32).sum()
}

/// The draft changed by the user's edit: a mention it touched goes whole
/// (`core::mentions::edited`). Returns the draft to keep.
fn edited(shell: Shell, textarea: &web_sys::HtmlTextAreaElement, new: String) -> String {
    let Some(signals) = shell.signals() else {
        return new;
    };
    if signals.mentions.with_untracked(Vec::is_empty) {
        return new;
    }
    let old = signals.draft.get_untracked();
    let mut mentions = signals.mentions.get_untracked();
    let fixed = chat_shell_core::mentions::edited(&mut mentions, &old, &new);
    signals.mentions.set(mentions);
    match fixed {
        Some((text, caret)) => {
            textarea.set_value(&text);
            let units = utf16_len(&text[..caret]);
            let _ = textarea.set_selection_range(units, units);
            text
        }
        None => new,
    }
}

/// The listbox "Mentions", above the composer while open.
#[component]
pub(crate) fn MentionList(menu: MentionMenu, textarea: NodeRef<html::Textarea>) -> impl IntoView {
    let shell = use_shell();
    move || {
        menu.is_open().then(|| {
            let active = menu.active_index();
            let options = menu
                .items
                .get()
                .into_iter()
                .enumerate()
                .map(|(i, entity)| {
                    let group = entity.group.clone().filter(|g| !g.is_empty()).map(|g| {
                        view! { " " <span class="cs-mentions__group">{g}</span> }
                    });
                    view! {
                        <li
                            role="option"
                            id=menu.active.option_id(i)
                            class="cs-mentions__option"
                            aria-selected=if i == active { "true" } else { "false" }
                            on:mousedown=move |ev| {
                                // The textbox keeps the focus.
                                ev.prevent_default();
                                if let Some(t) = textarea.get_untracked() {
                                    menu.choose(i, &t);
                                }
                            }
                        >
                            <span class="cs-mentions__title">{entity.title.clone()}</span>
                            {group}
                        </li>
                    }
                })
                .collect_view();
            view! {
                <ul
                    class="cs-commands cs-mentions"
                    data-part="mentions"
                    role="listbox"
                    id=menu.active.list_id()
                    aria-label=tr(shell, Text::Mentions)
                >
                    {options}
                </ul>
            }
        })
    }
}

/// The draft's mentions as chips, laid over the textbox (which holds the text itself, for
/// typing, selection and screen readers): the same box, font and wrapping, the text
/// transparent, each mention's `@title` a tinted `[data-part="mention"]`.
#[component]
pub(crate) fn MentionOverlay(
    textarea: NodeRef<html::Textarea>,
    /// The textbox's `scrollTop`, as it scrolls.
    scrolled: RwSignal<i32>,
) -> impl IntoView {
    let shell = use_shell();
    let signals = shell.signals().expect("runtime exists while mounted");
    let overlay = NodeRef::<html::Div>::new();
    // Placed over the textbox, and scrolled with it, whenever the draft changes.
    let place = move || {
        let (Some(t), Some(o)) = (
            textarea.try_get_untracked().flatten(),
            overlay.try_get_untracked().flatten(),
        ) else {
            return;
        };
        let style = web_sys::HtmlElement::style(&o);
        for (name, px) in [
            ("left", t.offset_left()),
            ("top", t.offset_top()),
            ("width", t.offset_width()),
            ("height", t.offset_height()),
        ] {
            let _ = style.set_property(name, &format!("{px}px"));
        }
        o.set_scroll_top(t.scroll_top());
    };
    Effect::new(move |_| {
        signals.draft.track();
        signals.mentions.track();
        request_animation_frame(place);
    });
    // The textbox scrolls its text: the chips follow.
    Effect::new(move |_| {
        let top = scrolled.get();
        if let Some(o) = overlay.get() {
            o.set_scroll_top(top);
        }
    });
    let segments = move || {
        let draft = signals.draft.get();
        let mentions = signals.mentions.get();
        let mut out = Vec::new();
        let mut at = 0;
        for m in &mentions {
            let Some(text) = draft.get(m.range.clone()) else {
                continue;
            };
            if m.range.start < at {
                continue;
            }
            out.push(draft[at..m.range.start].to_owned().into_any());
            out.push(
                view! { <span class="cs-mention" data-part="mention">{text.to_owned()}</span> }
                    .into_any(),
            );
            at = m.range.end;
        }
        // A final line break needs a character after it to take up its line.
        out.push(format!("{}\u{200b}", &draft[at..]).into_any());
        out
    };
    view! {
        <div class="cs-mentions-overlay" aria-hidden="true" node_ref=overlay>{segments}</div>
    }
}
