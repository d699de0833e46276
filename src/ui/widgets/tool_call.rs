//! A client tool call as one compact row: the tool's name and whether it is running, done
//! or failed (with the error the page's handler gave, or that it is missing).

use super::ctx::spinner;
use crate::ui::icons;
use crate::ui::{item_memo, use_shell};
use crate::ui::{tr, trf};
use chat_shell_core::model::EntryKind;
use chat_shell_core::protocol::chatkit::{ClientToolStatus, ItemId};
use chat_shell_core::strings::Text;
use leptos::prelude::*;
use serde_json::Value;

#[derive(Clone, Debug, PartialEq)]
struct Call {
    name: String,
    status: ClientToolStatus,
    arguments: Value,
    output: Option<Value>,
}

#[component]
pub fn ClientToolCallView(id: ItemId) -> impl IntoView {
    let shell = use_shell();
    let Some(signals) = shell.signals() else {
        return ().into_any();
    };
    let call = item_memo(shell, id.clone(), |i| match &i.entry.kind {
        EntryKind::ClientToolCall(c) => Some(Call {
            name: c.name.clone(),
            status: c.status,
            arguments: c.arguments.clone(),
            output: c.output.clone(),
        }),
        _ => None,
    });
    let row = move || {
        let call = call.get()?;
        let error = call
            .output
            .as_ref()
            .and_then(|o| o.get("error"))
            .map(|e| match e {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            });
        // Pending and no answer running: loaded from history, nothing will run it here.
        let (status, label) = match (call.status, &error) {
            (ClientToolStatus::Completed, Some(_)) => ("failed", Text::ToolFailed),
            (ClientToolStatus::Completed, None) => ("done", Text::ToolDone),
            (ClientToolStatus::Pending, _) if signals.streaming.get().is_some() => {
                ("running", Text::ToolRunning)
            }
            (ClientToolStatus::Pending, _) => ("pending", Text::ToolNotRun),
        };
        let icon = match status {
            "running" => spinner().into_any(),
            "done" => icons::icon("check-circle-filled", Some("sm"), None),
            "failed" => icons::icon("circle-question", Some("sm"), None),
            _ => icons::icon("empty-circle", Some("sm"), None),
        };
        let arguments = serde_json::to_string_pretty(&call.arguments).unwrap_or_default();
        let output = call
            .output
            .as_ref()
            .filter(|_| error.is_none())
            .map(|o| serde_json::to_string_pretty(o).unwrap_or_default());
        Some(view! {
            <div
                class="cs-tool"
                data-part="tool-call"
                data-status=status
                role="group"
                aria-label=trf(shell, Text::ClientTool, vec![("name", call.name.clone())])
            >
                <div class="cs-tool__row">
                    <span class="cs-tool__icon">{icon}</span>
                    <code class="cs-tool__name">{call.name.clone()}</code>
                    <span class="cs-tool__status" role="status">{tr(shell, label)}</span>
                </div>
                {error.map(|e| view! { <p class="cs-tool__error" data-part="tool-error">{e}</p> })}
                <details class="cs-tool__details">
                    <summary>{tr(shell, Text::Details)}</summary>
                    <p class="cs-tool__caption">{tr(shell, Text::Arguments)}</p>
                    <pre><code>{arguments}</code></pre>
                    {output.map(|o| view! {
                        <p class="cs-tool__caption">{tr(shell, Text::ToolResult)}</p>
                        <pre><code>{o}</code></pre>
                    })}
                </details>
            </div>
        })
    };
    row.into_any()
}
