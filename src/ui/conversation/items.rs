//! One view per item, chosen by the runtime's `EntryView` of the item: messages, turn ends
//! and unsupported content here, in the first module; every other kind's view comes in a
//! chunk (`crate::chunks::views`), shown in place once loaded. A kind this client does not
//! know shows an honest "unsupported content" card.

use super::message::{AssistantMessageView, UserMessageView};
use crate::chunks;
use crate::runtime::{EntryView, ItemKey};
use crate::ui::use_shell;
use crate::ui::{tr, trf};
use chat_shell_core::model::EntryKind;
use chat_shell_core::protocol::chatkit::ItemId;
use chat_shell_core::strings::Text;
use leptos::prelude::*;

#[component]
pub fn Item(key: ItemKey) -> impl IntoView {
    let shell = use_shell();
    match key.view {
        EntryView::UserMessage
        | EntryView::AssistantText
        | EntryView::EndOfTurn
        | EntryView::Unsupported => first_screen_item(key),
        EntryView::Widget
        | EntryView::ClientWidget
        | EntryView::ClientToolCall
        | EntryView::StructuredInput => chunks::views::widget_item(shell, key),
        _ => chunks::views::item(shell, key),
    }
}

/// Messages, turn ends and unsupported content: in the first module.
fn first_screen_item(key: ItemKey) -> AnyView {
    let id = key.id;
    match key.view {
        EntryView::UserMessage => view! { <UserMessageView id=id /> }.into_any(),
        EntryView::AssistantText => view! { <AssistantMessageView id=id /> }.into_any(),
        EntryView::EndOfTurn => view! { <EndOfTurnView id=id /> }.into_any(),
        _ => view! { <UnsupportedView id=id /> }.into_any(),
    }
}

/// Content this version cannot show yet: said plainly, never dropped silently.
#[component]
fn UnsupportedView(id: ItemId) -> impl IntoView {
    let shell = use_shell();
    let kind = shell
        .with(|rt| {
            rt.with_item(&id, |i| match &i.entry.kind {
                EntryKind::Unsupported(u) => u.type_name().to_owned(),
                _ => String::new(),
            })
        })
        .flatten()
        .unwrap_or_default();
    view! {
        <div class="cs-unsupported" data-part="unsupported" role="note">
            {tr(shell, Text::Unsupported)} {(!kind.is_empty()).then(|| format!(" ({kind})"))}
        </div>
    }
}

/// The end of a turn: nothing after a normal end; how it ended otherwise (a limit, a
/// refusal, Stop, an error), kept with the thread so a reload says it too.
#[component]
fn EndOfTurnView(id: ItemId) -> impl IntoView {
    let shell = use_shell();
    let end = shell
        .with(|rt| {
            rt.with_item(&id, |i| match &i.entry.kind {
                EntryKind::EndOfTurn(end) => Some(end.clone()),
                _ => None,
            })
        })
        .flatten()
        .flatten()
        .unwrap_or_default();
    let reason = end.stop_reason?;
    let text = match reason.as_str() {
        "max_tokens" => tr(shell, Text::StopMaxTokens),
        "max_turn_requests" => tr(shell, Text::StopMaxTurnRequests),
        "refusal" => tr(shell, Text::StopRefusal),
        "cancelled" => tr(shell, Text::StopCancelled),
        "error" => trf(
            shell,
            Text::StopFailed,
            vec![("message", end.message.unwrap_or_default())],
        ),
        other => trf(
            shell,
            Text::StopOther,
            vec![("reason", other.chars().take(64).collect())],
        ),
    };
    Some(view! {
        <p class="cs-stop-reason" data-part="stop-reason" data-reason=reason role="note">{text}</p>
    })
}
