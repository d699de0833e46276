//! ShellHeader: the thread's title and the thread controls (Find, New chat, History).

use super::tr;
use crate::ui::use_shell;
use chat_shell_core::strings::Text;
use leptos::html;
use leptos::prelude::*;

/// `history_button` is shared with the history view, which gives focus back to it when
/// it closes.
#[component]
pub fn ShellHeader(history_button: NodeRef<html::Button>) -> impl IntoView {
    let shell = use_shell();
    let signals = shell.signals().expect("runtime exists while mounted");
    let title = move || {
        signals
            .thread
            .with(|t| t.as_ref().and_then(|t| t.title.clone()))
            .filter(|t| !t.trim().is_empty())
            .unwrap_or_else(|| tr(shell, Text::NewChat).get())
    };
    let open = move || signals.history.open.get();
    // The tab strip's code comes with the view panels' (`crate::parts`): a thread has views
    // only once the channel pushed one.
    let views = super::shell::has_views(shell);
    let has_views = Memo::new(move |_| views.get());
    let has_usage = Memo::new(move |_| {
        signals.session.state.with(|s| {
            s.as_ref()
                .and_then(|s| s.usage.as_ref())
                .and_then(chat_shell_core::session::checked_usage)
                .is_some()
        })
    });
    view! {
        <header class="cs-header" part="header">
            <h2 class="cs-header__title" data-part="thread-title">{title}</h2>
            {move || has_views.get().then(|| crate::parts::views::view_tabs(shell))}
            {move || has_usage.get().then(|| crate::parts::views::usage_meter(shell))}
            <div class="cs-header__actions">
                <button
                    type="button"
                    class="cs-button cs-button--ghost"
                    aria-label=tr(shell, Text::FindInConversation)
                    title=tr(shell, Text::FindInConversation)
                    aria-expanded=move || signals.find_open.get().to_string()
                    data-part="find-toggle"
                    on:click=move |_| signals.find_open.update(|o| *o = !*o)
                >
                    {crate::ui::glyphs::glyph(crate::ui::glyphs::Glyph::Search)}
                </button>
                <button
                    type="button"
                    class="cs-button cs-button--ghost"
                    aria-label=tr(shell, Text::NewChat)
                    title=tr(shell, Text::NewChat)
                    on:click=move |e: web_sys::MouseEvent| {
                        shell.with(|rt| rt.new_chat());
                        super::focus_next(e.current_target(), &["textarea"]);
                    }
                >
                    {crate::ui::glyphs::glyph(crate::ui::glyphs::Glyph::Plus)}
                    <span class="cs-button__label">{tr(shell, Text::NewChat)}</span>
                </button>
                <button
                    type="button"
                    class="cs-button cs-button--ghost"
                    node_ref=history_button
                    aria-label=tr(shell, Text::History)
                    title=tr(shell, Text::History)
                    aria-expanded=move || open().to_string()
                    aria-controls=move || open().then_some("cs-history")
                    data-part="history-toggle"
                    on:click=move |_| {
                        shell.with(|rt| rt.toggle_history());
                    }
                >
                    {crate::ui::glyphs::glyph(crate::ui::glyphs::Glyph::History)}
                    <span class="cs-button__label">{tr(shell, Text::History)}</span>
                </button>
            </div>
        </header>
    }
}

/// The context window as the agent last reported it (`usage_update`): a meter with its
/// text beside, hidden when the agent reported nothing. Never estimated.
#[component]
pub(crate) fn UsageMeter() -> impl IntoView {
    let shell = use_shell();
    let signals = shell.signals().expect("runtime exists while mounted");
    let usage = Memo::new(move |_| {
        signals
            .session
            .state
            // A usage out of range is unknown: no meter.
            .with(|s| {
                s.as_ref()
                    .and_then(|s| s.usage.as_ref())
                    .and_then(chat_shell_core::session::checked_usage)
            })
    });
    move || {
        usage.get().and_then(|usage| {
            // The cost too, where the agent reports one: "12k / 200k · 0.03 USD".
            let (text, short) = signals.strings.with(|t| {
                Some((
                    chat_shell_core::session::usage_text(&usage, t)?,
                    chat_shell_core::session::usage_short(&usage, t)?,
                ))
            })?;
            Some(view! {
                <div
                    class="cs-usage"
                    data-part="usage"
                    role="meter"
                    aria-label=tr(shell, Text::UsageLabel)
                    aria-valuemin="0"
                    aria-valuemax=usage.size.to_string()
                    aria-valuenow=usage.used.min(usage.size).to_string()
                    aria-valuetext=text.clone()
                    title=text
                >
                    // The bar is drawn by the browser's own meter: no inline style (the page's
                    // CSP may forbid it).
                    <meter
                        class="cs-usage__bar"
                        aria-hidden="true"
                        min="0"
                        max=usage.size.to_string()
                        value=usage.used.min(usage.size).to_string()
                    ></meter>
                    <span class="cs-usage__text" aria-hidden="true">{short}</span>
                </div>
            })
        })
    }
}
