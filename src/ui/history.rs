//! HistoryView: past conversations, newest first in groups by day (today, yesterday, the
//! week before, then by month), over the conversation while it is open, with a filter; the
//! conversation shown is marked (`aria-current`). Each row opens its thread; rename and delete happen inline in the row. More
//! rows load when the end of the list scrolls into view. Escape closes it; focus moves
//! into the list when it opens and back to the History button when it closes.

use super::sentinel::Sentinel;
use super::{strings, tr, trf};
use crate::runtime::{Shell, ThreadRow};
use crate::ui::use_shell;
use chat_shell_core::history::{date_group, relative_date, DateGroup};
use chat_shell_core::protocol::chatkit::ThreadId;
use chat_shell_core::strings::Text;
use leptos::html;
use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use web_sys::{Element, IntersectionObserver, IntersectionObserverEntry};

/// Whether focus is on `el` or inside it (in its shadow root or document).
fn focus_within(el: &Element) -> bool {
    let root = el.get_root_node();
    let active = match root.dyn_ref::<web_sys::ShadowRoot>() {
        Some(shadow) => shadow.active_element(),
        None => web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.active_element()),
    };
    active.is_some_and(|a| el.contains(Some(&a)))
}

fn focus(el: Option<Element>) {
    if let Some(el) = el.and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok()) {
        let _ = el.focus();
    }
}

#[component]
pub fn HistoryView(history_button: NodeRef<html::Button>) -> impl IntoView {
    let shell = use_shell();
    let signals = shell.signals().expect("runtime exists while mounted");
    let list = signals.history.list;
    let section = NodeRef::<html::Section>::new();
    let scroller = NodeRef::<html::Div>::new();
    let sentinel = NodeRef::<html::Div>::new();
    provide_context(PreviewWatch::new(shell));
    let close = move || {
        shell.with(|rt| rt.close_history());
        if let Some(button) = history_button.get_untracked() {
            let _ = button.focus();
        }
    };
    // Focus moves into the history at once (so Escape works while it loads), then onto
    // the first conversation when the list arrives, unless the user moved it since.
    let focus_pending = RwSignal::new(true);
    Effect::new(move |_| {
        let Some(section) = section.get() else { return };
        if focus_pending.get_untracked() {
            let _ = section.focus();
        }
    });
    Effect::new(move |_| {
        let loaded = list.with(|l| l.loaded && !l.loading);
        let Some(section) = section.get() else { return };
        if !loaded || !focus_pending.get_untracked() {
            return;
        }
        focus_pending.set(false);
        if focus_within(&section) {
            let first = section
                .query_selector("[data-part='history-open']")
                .ok()
                .flatten();
            if first.is_some() {
                focus(first);
            }
        }
    });

    // More rows when the end of the list comes into view, and again after each page.
    let more = Sentinel::watch(
        scroller,
        sentinel,
        "0px 0px 120px 0px".to_owned(),
        move || {
            shell.with(|rt| rt.load_more_threads());
        },
    );
    Effect::new(move |_| {
        let (rows, loading) = list.with(|l| (l.rows.len(), l.loading));
        if !loading && rows > 0 {
            more.look_again();
        }
    });
    on_cleanup(move || {
        // However it closed (a thread chosen, Escape, the toggle), focus that was in the
        // history goes back to the History button, not to the page.
        request_animation_frame(move || {
            // The whole element may have gone with it.
            let Some(button) = history_button.try_get_untracked().flatten() else {
                return;
            };
            let root = button.get_root_node();
            let lost = match root.dyn_ref::<web_sys::ShadowRoot>() {
                Some(shadow) => shadow.active_element().is_none(),
                None => web_sys::window()
                    .and_then(|w| w.document())
                    .and_then(|d| d.active_element())
                    .is_none_or(|a| a.tag_name() == "BODY"),
            };
            if lost {
                let _ = button.focus();
            }
        });
    });

    let on_keydown = move |ev: web_sys::KeyboardEvent| {
        if ev.key() == "Escape" && !ev.default_prevented() {
            ev.prevent_default();
            close();
        }
    };
    // The rows the filter keeps, in groups by day (today, yesterday, the week before,
    // then by month), newest first as the server lists them.
    let filter = RwSignal::new(String::new());
    let groups = move || {
        let needle = filter.with(|f| f.trim().to_lowercase());
        let now = js_sys::Date::now();
        let offset = js_sys::Date::new_0().get_timezone_offset() as i64;
        let mut groups: Vec<(Option<DateGroup>, Vec<ThreadRow>)> = Vec::new();
        list.with(|l| {
            for row in &l.rows {
                if !needle.is_empty() && !row.label.to_lowercase().contains(&needle) {
                    continue;
                }
                let group = date_group(&row.created_at, now, offset);
                match groups.last_mut() {
                    Some((g, rows)) if *g == group => rows.push(row.clone()),
                    _ => groups.push((group, vec![row.clone()])),
                }
            }
        });
        groups
    };
    let empty =
        move || list.with(|l| l.loaded && !l.loading && l.error.is_none() && l.rows.is_empty());
    let none_match = move || {
        filter.with(|f| !f.trim().is_empty())
            && list.with(|l| !l.rows.is_empty())
            && groups().is_empty()
    };
    view! {
        <section
            class="cs-history"
            id="cs-history"
            part="history"
            data-part="history"
            aria-label=tr(shell, Text::History)
            tabindex="-1"
            node_ref=section
            on:keydown=on_keydown
        >
            <div class="cs-history__scroller" node_ref=scroller>
                <AgentSessions />
                <input
                    type="search"
                    class="cs-history__filter"
                    data-part="history-filter"
                    aria-label=tr(shell, Text::HistoryFilter)
                    placeholder=tr(shell, Text::HistoryFilter)
                    prop:value=move || filter.get()
                    on:input=move |e| filter.set(event_target_value(&e))
                />
                <div class="cs-history__groups" aria-busy=move || list.with(|l| l.loading).to_string()>
                    <For
                        each=groups
                        // The rows are part of the key: a group whose rows changed renders
                        // afresh (a history is a few pages of rows).
                        key=|(group, rows)| {
                            (*group, rows.iter().map(|r| (r.id.clone(), r.label.clone())).collect::<Vec<_>>())
                        }
                        children=move |(group, rows)| {
                            let label = group_label(shell, group);
                            view! {
                                <section class="cs-history__group" data-part="history-group">
                                    <h3 class="cs-history__group-title">{label.clone()}</h3>
                                    <ul class="cs-history__list" aria-label=label>
                                        {rows.into_iter().map(|row| view! { <HistoryRow row=row /> }).collect_view()}
                                    </ul>
                                </section>
                            }
                        }
                    />
                </div>
                <Show when=empty>
                    <p class="cs-history__empty" data-part="history-empty">{tr(shell, Text::NoConversations)}</p>
                </Show>
                <Show when=none_match>
                    <p class="cs-history__empty" data-part="history-no-match">{tr(shell, Text::HistoryNoMatch)}</p>
                </Show>
                {move || list.with(|l| l.loading).then(|| view! {
                    <p class="cs-history__status" role="status">{tr(shell, Text::LoadingConversations)}</p>
                })}
                {move || list.with(|l| l.error.clone()).map(|error| view! {
                    <div class="cs-error" role="alert">
                        <p class="cs-error__message">{trf(shell, Text::HistoryError, vec![("error", error)])}</p>
                        <button
                            type="button"
                            class="cs-button"
                            on:click=move |_| {
                                shell.with(|rt| rt.open_history());
                            }
                        >
                            {tr(shell, Text::TryAgain)}
                        </button>
                    </div>
                })}
                <div class="cs-history__sentinel" data-part="history-sentinel" aria-hidden="true" node_ref=sentinel></div>
            </div>
        </section>
    }
}

/// What a row shows: its thread, the title being edited, or the delete confirmation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RowMode {
    Normal,
    Renaming,
    Confirming,
}

#[component]
fn HistoryRow(row: ThreadRow) -> impl IntoView {
    let shell = use_shell();
    let mode = RwSignal::new(RowMode::Normal);
    let busy = RwSignal::new(false);
    let item = NodeRef::<html::Li>::new();
    if !row.titled {
        let watch = expect_context::<PreviewWatch>();
        Effect::new(move |_| {
            if let Some(li) = item.get() {
                watch.observe(&li);
            }
        });
    }
    let rename_button = NodeRef::<html::Button>::new();
    let delete_button = NodeRef::<html::Button>::new();
    let created_at = row.created_at.clone();
    let when = move || {
        relative_date(&created_at, js_sys::Date::now(), &strings(shell)).unwrap_or_default()
    };
    // A `datetime` attribute is valid with the zone spelled out.
    let datetime = if row.created_at.is_empty() || row.created_at.ends_with('Z') {
        row.created_at.clone()
    } else {
        format!("{}Z", row.created_at)
    };
    let label = row.label.clone();
    let id = row.id.clone();

    let open_id = id.clone();
    // The conversation shown is marked.
    let current = {
        let id = id.clone();
        let signals = shell.signals();
        move || signals.is_some_and(|s| s.thread.with(|t| t.as_ref().is_some_and(|t| t.id == id)))
    };
    let normal = {
        let label = label.clone();
        move || {
            let open_id = open_id.clone();
            let current = current.clone();
            view! {
                <button
                    type="button"
                    class="cs-history__open"
                    data-part="history-open"
                    aria-current=move || current().then_some("true")
                    on:click=move |_| {
                        shell.with(|rt| rt.select_thread(open_id.clone()));
                    }
                >
                    {label.clone()}
                </button>
                <time class="cs-history__date" datetime=datetime.clone() title=datetime.clone()>{when.clone()}</time>
                <button
                    type="button"
                    class="cs-button cs-button--ghost cs-history__action"
                    aria-label=trf(shell, Text::RenameNamed, vec![("title", label.clone())])
                    node_ref=rename_button
                    on:click=move |_| mode.set(RowMode::Renaming)
                >
                    {tr(shell, Text::Rename)}
                </button>
                <button
                    type="button"
                    class="cs-button cs-button--ghost cs-history__action"
                    aria-label=trf(shell, Text::DeleteNamed, vec![("title", label.clone())])
                    node_ref=delete_button
                    on:click=move |_| mode.set(RowMode::Confirming)
                >
                    {tr(shell, Text::Delete)}
                </button>
            }
        }
    };

    // Back to the row's own controls, focus on the button that left them.
    let back = move |to_delete: bool| {
        mode.set(RowMode::Normal);
        request_animation_frame(move || {
            let button = if to_delete {
                delete_button
            } else {
                rename_button
            };
            if let Some(b) = button.try_get_untracked().flatten() {
                let _ = b.focus();
            }
        });
    };

    let rename_id = id.clone();
    let renaming = {
        let label = label.clone();
        move || {
            let input = NodeRef::<html::Input>::new();
            let rename_id = rename_id.clone();
            Effect::new(move |_| {
                if let Some(input) = input.get() {
                    let _ = input.focus();
                    input.select();
                }
            });
            let on_keydown = move |ev: web_sys::KeyboardEvent| match ev.key().as_str() {
                "Enter" => {
                    ev.prevent_default();
                    let Some(el) = input.get_untracked() else {
                        return;
                    };
                    let title = el.value();
                    if title.trim().is_empty() || busy.get_untracked() {
                        return;
                    }
                    let Some(rt) = shell.get() else { return };
                    busy.set(true);
                    let id = rename_id.clone();
                    wasm_bindgen_futures::spawn_local(async move {
                        let saved = rt.rename_thread(id, title).await;
                        // The row may be gone by the answer (the element removed).
                        busy.try_set(false);
                        if !saved {
                            // Keep what was typed: the error went out as `chat.error`.
                            let _ = el.focus();
                        }
                        // On success the row renders afresh under its new label.
                    });
                }
                "Escape" => {
                    // Cancels the edit only; the history stays open.
                    ev.prevent_default();
                    back(false);
                }
                _ => {}
            };
            view! {
                <input
                    type="text"
                    class="cs-history__title-input"
                    node_ref=input
                    aria-label=tr(shell, Text::ConversationTitle)
                    value=label.clone()
                    disabled=move || busy.get()
                    on:keydown=on_keydown
                />
            }
        }
    };

    let delete_id = id.clone();
    let confirming = {
        let label = label.clone();
        move || {
            let cancel = NodeRef::<html::Button>::new();
            Effect::new(move |_| {
                if let Some(c) = cancel.get() {
                    let _ = c.focus();
                }
            });
            let delete_id = delete_id.clone();
            let confirm = move |_| {
                let Some(rt) = shell.get() else { return };
                // Where focus goes once the row is gone: the next row, else the previous,
                // else the list.
                let next = item.get_untracked().and_then(|li| {
                    let sibling = li
                        .next_element_sibling()
                        .or_else(|| li.previous_element_sibling())?;
                    sibling
                        .query_selector("[data-part='history-open']")
                        .ok()
                        .flatten()
                });
                let section = item
                    .get_untracked()
                    .and_then(|li| li.closest("[data-part='history']").ok().flatten());
                busy.set(true);
                let id = delete_id.clone();
                wasm_bindgen_futures::spawn_local(async move {
                    let deleted = rt.delete_thread(id).await;
                    busy.try_set(false);
                    if deleted {
                        focus(next.or(section));
                    }
                });
            };
            let on_keydown = move |ev: web_sys::KeyboardEvent| {
                if ev.key() == "Escape" {
                    ev.prevent_default();
                    back(true);
                }
            };
            let question = trf(shell, Text::DeleteConfirm, vec![("title", label.clone())]);
            view! {
                <div class="cs-history__confirm" role="group" aria-label=question on:keydown=on_keydown>
                    <span class="cs-history__question">{question}</span>
                    <button
                        type="button"
                        class="cs-button cs-button--danger"
                        disabled=move || busy.get()
                        on:click=confirm
                    >
                        {tr(shell, Text::Delete)}
                    </button>
                    <button
                        type="button"
                        class="cs-button"
                        node_ref=cancel
                        disabled=move || busy.get()
                        on:click=move |_| back(true)
                    >
                        {tr(shell, Text::Cancel)}
                    </button>
                </div>
            }
        }
    };

    view! {
        <li class="cs-history__row" data-part="history-row" data-thread=row.id.0.clone() node_ref=item>
            {move || match mode.get() {
                RowMode::Normal => normal().into_any(),
                RowMode::Renaming => renaming().into_any(),
                RowMode::Confirming => confirming().into_any(),
            }}
        </li>
    }
}

type Observer = (IntersectionObserver, Closure<dyn FnMut(js_sys::Array)>);

/// One observer for the list's untitled rows: a row that comes into view asks for its
/// preview (only visible rows cost a request), then is no longer watched.
#[derive(Clone, Copy)]
struct PreviewWatch {
    observer: StoredValue<Option<Observer>, LocalStorage>,
}

impl PreviewWatch {
    fn new(shell: Shell) -> Self {
        let observer = StoredValue::new_local(None::<Observer>);
        let on_entries = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
            for entry in entries.iter() {
                let Ok(entry) = entry.dyn_into::<IntersectionObserverEntry>() else {
                    continue;
                };
                if !entry.is_intersecting() {
                    continue;
                }
                let row = entry.target();
                observer.with_value(|o| {
                    if let Some((io, _)) = o {
                        io.unobserve(&row);
                    }
                });
                if let Some(id) = row.get_attribute("data-thread") {
                    shell.with(|rt| rt.want_preview(ThreadId(id)));
                }
            }
        });
        if let Ok(io) = IntersectionObserver::new(on_entries.as_ref().unchecked_ref()) {
            observer.set_value(Some((io, on_entries)));
        }
        on_cleanup(move || {
            observer.update_value(|o| {
                if let Some((io, _)) = o.take() {
                    io.disconnect();
                }
            });
        });
        PreviewWatch { observer }
    }

    fn observe(self, row: &Element) {
        self.observer.with_value(|o| {
            if let Some((io, _)) = o {
                io.observe(row);
            }
        });
    }
}

/// The agent's own sessions (`acp.sessions.list`), where it lists them: each opens as a
/// thread (loaded or resumed by the server), the next page on request.
#[component]
fn AgentSessions() -> impl IntoView {
    let shell = use_shell();
    let signals = shell.signals().expect("runtime exists while mounted");
    let session = signals.session;
    let offered = Memo::new(move |_| {
        session
            .state
            .with(|s| s.as_ref().is_some_and(|s| s.lists_sessions))
    });
    Effect::new(move |_| {
        if offered.get() {
            shell.with(|rt| rt.list_agent_sessions(false));
        }
    });
    move || {
        offered.get().then(|| {
            let rows = move || {
                session
                    .listed
                    .get()
                    .into_iter()
                    .map(|s| {
                        let title = s
                            .title
                            .clone()
                            .filter(|t| !t.trim().is_empty())
                            .unwrap_or_else(|| tr(shell, Text::UntitledSession).get());
                        let when: String = s
                            .updated_at
                            .clone()
                            .unwrap_or_default()
                            .replacen('T', " ", 1)
                            .chars()
                            .take(16)
                            .collect();
                        let id = s.session_id.clone();
                        view! {
                            <li class="cs-history__row" data-part="agent-session">
                                <button
                                    type="button"
                                    class="cs-history__open"
                                    on:click=move |_| {
                                        let id = id.clone();
                                        shell.with(|rt| rt.open_agent_session(id));
                                    }
                                >
                                    <span class="cs-history__label">{title}</span>
                                    <span class="cs-history__date">{when}</span>
                                </button>
                            </li>
                        }
                    })
                    .collect_view()
            };
            view! {
                <section class="cs-history__agent" data-part="agent-sessions" aria-label=tr(shell, Text::AgentSessions)>
                    <h3 class="cs-history__heading">{tr(shell, Text::AgentSessions)}</h3>
                    <ul class="cs-history__list" aria-label=tr(shell, Text::AgentSessions)>{rows}</ul>
                    {move || session.next.with(Option::is_some).then(|| view! {
                        <button
                            type="button"
                            class="cs-button"
                            on:click=move |_| {
                                shell.with(|rt| rt.list_agent_sessions(true));
                            }
                        >
                            {tr(shell, Text::MoreSessions)}
                        </button>
                    })}
                    {move || session.list_error.get().map(|e| view! {
                        <p class="cs-error__message" role="alert">{e}</p>
                    })}
                </section>
            }
        })
    }
}

/// A group's heading: "Today", "Yesterday", "Previous 7 days", or the month and year in
/// the element's language ("March 2026"); "Older" stands in for unreadable dates.
fn group_label(shell: Shell, group: Option<DateGroup>) -> String {
    let text = |t| strings(shell).get(t).to_owned();
    match group {
        Some(DateGroup::Today) => text(Text::HistoryToday),
        Some(DateGroup::Yesterday) => text(Text::HistoryYesterday),
        Some(DateGroup::PreviousWeek) => text(Text::HistoryPreviousWeek),
        Some(DateGroup::Month { year, month }) => {
            let date = js_sys::Date::new_with_year_month_day(year as u32, month as i32 - 1, 1);
            let options = js_sys::Object::new();
            let _ = js_sys::Reflect::set(&options, &"month".into(), &"long".into());
            let _ = js_sys::Reflect::set(&options, &"year".into(), &"numeric".into());
            let locale = strings(shell).locale().to_owned();
            String::from(date.to_locale_date_string(&locale, &options))
        }
        None => text(Text::Conversations),
    }
}
