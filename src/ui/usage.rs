//! The usage meter in the header: the context window as the agent last reported it. In
//! a chunk, loaded once an agent reports usage.

use crate::ui::{tr, use_shell};
use chat_shell_core::strings::Text;
use leptos::prelude::*;

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
