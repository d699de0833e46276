//! The thread's tool-pushed views: a tab strip in the header ("Chat", then one tab per
//! view with content, then the artifact the reader opened) following the ARIA tabs
//! pattern, and the panel of the view shown.
//! The conversation is covered, not unmounted, while a view is shown: its scroll
//! position, rendered messages and draft stay.

use crate::runtime::{Shell, ARTIFACT_TAB};
use crate::ui::tr;
use crate::ui::use_shell;
use chat_shell_core::strings::Text;
use chat_shell_core::views::{ChannelStatus, View};
use leptos::prelude::*;
use wasm_bindgen::JsCast;

use crate::ui::{CHAT_PANEL, CHAT_TAB};

fn tab_id(view_type: &str) -> String {
    format!("cs-tab-{view_type}")
}

fn panel_id(view_type: &str) -> String {
    format!("cs-view-{view_type}")
}

/// A view type's tab name (`core::views::KNOWN_VIEWS`: only those have content here).
fn label(view_type: &str) -> Option<Text> {
    match view_type {
        "diff" => Some(Text::DiffTab),
        ARTIFACT_TAB => Some(Text::ArtifactLabel),
        _ => None,
    }
}

#[component]
pub fn ViewTabs() -> impl IntoView {
    let shell = use_shell();
    let signals = shell.signals().expect("runtime exists while mounted");
    let views = signals.views;
    let types = Memo::new(move |_| {
        let mut types = views.views.with(|v| {
            v.keys()
                .filter(|t| *t != ARTIFACT_TAB && label(t).is_some())
                .cloned()
                .collect::<Vec<_>>()
        });
        if views.artifact.with(Option::is_some) {
            types.push(ARTIFACT_TAB.to_owned());
        }
        types
    });
    let select = move |tab: Option<String>| views.tab.set(tab);
    // Arrow keys, Home and End move between tabs and show the one they reach (automatic
    // activation: showing a view is cheap and never loses anything).
    let on_keydown = move |ev: web_sys::KeyboardEvent| {
        let mut all: Vec<Option<String>> = vec![None];
        all.extend(types.get_untracked().into_iter().map(Some));
        let now = views.tab.get_untracked();
        let at = all.iter().position(|t| *t == now).unwrap_or(0);
        let rtl = ev
            .current_target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .and_then(|e| e.closest("[dir=rtl]").ok().flatten())
            .is_some();
        let (next, prev) = if rtl {
            ("ArrowLeft", "ArrowRight")
        } else {
            ("ArrowRight", "ArrowLeft")
        };
        let to = match ev.key().as_str() {
            k if k == next => (at + 1) % all.len(),
            k if k == prev => (at + all.len() - 1) % all.len(),
            "Home" => 0,
            "End" => all.len() - 1,
            _ => return,
        };
        ev.prevent_default();
        select(all[to].clone());
        let tablist = ev
            .current_target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok());
        let id = all[to]
            .as_deref()
            .map_or_else(|| CHAT_TAB.to_owned(), tab_id);
        if let Some(tab) = tablist
            .and_then(|l| l.query_selector(&format!("#{id}")).ok().flatten())
            .and_then(|t| t.dyn_into::<web_sys::HtmlElement>().ok())
        {
            let _ = tab.focus();
        }
    };
    view! {
        <Show when=move || !types.with(Vec::is_empty)>
            <div
                class="cs-tabs"
                role="tablist"
                aria-label=tr(shell, Text::ViewTabs)
                data-part="view-tabs"
                on:keydown=on_keydown
            >
                <button
                    type="button"
                    class="cs-tab"
                    role="tab"
                    id=CHAT_TAB
                    aria-controls=CHAT_PANEL
                    aria-selected=move || views.tab.with(Option::is_none).to_string()
                    tabindex=move || if views.tab.with(Option::is_none) { "0" } else { "-1" }
                    on:click=move |_| select(None)
                >
                    {tr(shell, Text::ChatTab)}
                </button>
                <For each=move || types.get() key=|t| t.clone() let:view_type>
                    {
                        let selected = {
                            let t = view_type.clone();
                            move || views.tab.with(|now| now.as_deref() == Some(t.as_str()))
                        };
                        let chosen = view_type.clone();
                        view! {
                            <button
                                type="button"
                                class="cs-tab"
                                role="tab"
                                id=tab_id(&view_type)
                                aria-controls=panel_id(&view_type)
                                aria-selected={
                                    let selected = selected.clone();
                                    move || selected().to_string()
                                }
                                tabindex=move || if selected() { "0" } else { "-1" }
                                data-view=view_type.clone()
                                on:click=move |_| select(Some(chosen.clone()))
                            >
                                {tr(shell, label(&view_type).unwrap_or(Text::DiffTab))}
                            </button>
                        }
                    }
                </For>
            </div>
        </Show>
    }
}

/// When a view was last updated, in the element's language ("Updated 14:03:12"), from the
/// server's timestamp; `None` when it sent none or one that is not a date.
fn updated_text(shell: Shell, view: &View) -> Option<(String, String)> {
    let at = view.updated_at.as_deref()?;
    let date = js_sys::Date::new(&wasm_bindgen::JsValue::from_str(at));
    if date.get_time().is_nan() {
        return None;
    }
    let locale = shell
        .signals()
        .map(|s| s.options.with_untracked(|o| o.locale.clone()))
        .unwrap_or_default();
    let time: String = date
        .to_locale_time_string(&locale)
        .as_string()
        .unwrap_or_default();
    let text = shell
        .with(|rt| rt.with_strings(|s| s.format(Text::ViewUpdated, &[("time", time.as_str())])))?;
    Some((text, at.to_owned()))
}

/// The panel of the view shown (its code is in the chunk fetched after first paint).
pub(crate) fn panel(shell: Shell, view_type: String) -> AnyView {
    let views = shell.signals().expect("runtime exists while mounted").views;
    if view_type == ARTIFACT_TAB {
        return view! { <ArtifactPanel /> }.into_any();
    }
    let t = view_type.clone();
    let view = Signal::derive(move || views.views.with(|v| v.get(&t).cloned()));
    let patch = Signal::derive(move || {
        view.with(|v| {
            v.as_ref()
                .and_then(|v| v.content.get("patch"))
                .and_then(|p| p.as_str())
                .unwrap_or_default()
                .to_owned()
        })
    });
    let stale = move || views.status.get() == ChannelStatus::Stale;
    let updated = move || view.with(|v| v.as_ref().and_then(|v| updated_text(shell, v)));
    view! {
        <div
            class="cs-view-panel"
            role="tabpanel"
            id=panel_id(&view_type)
            aria-labelledby=tab_id(&view_type)
            data-part="view-panel"
            data-view=view_type.clone()
        >
            <div class="cs-view-panel__status">
                {move || updated().map(|(text, at)| view! {
                    <time class="cs-view-panel__updated" datetime=at data-part="view-updated">{text}</time>
                })}
                <Show when=stale>
                    <span class="cs-chip cs-view-panel__stale" data-part="view-stale">
                        {tr(shell, Text::ViewStale)}
                    </span>
                </Show>
            </div>
            <crate::ui::DiffView patch=patch />
        </div>
    }
    .into_any()
}

/// The artifact opened from its card: title, kind and body, all as text (the runtime's
/// words are untrusted).
#[component]
fn ArtifactPanel() -> impl IntoView {
    let shell = use_shell();
    let signals = shell.signals().expect("runtime exists while mounted");
    move || {
        signals.views.artifact.get().map(|a| {
            view! {
                <div
                    class="cs-view-panel cs-artifact"
                    role="tabpanel"
                    id=panel_id(ARTIFACT_TAB)
                    aria-labelledby=tab_id(ARTIFACT_TAB)
                    data-part="view-panel"
                    data-view=ARTIFACT_TAB
                    data-artifact=a.artifact_id
                >
                    <h2 class="cs-artifact__title">{a.title}</h2>
                    {a.kind.map(|k| view! { <span class="cs-chip">{k}</span> })}
                    <pre class="cs-artifact__body" tabindex="0">{a.body}</pre>
                </div>
            }
        })
    }
}
