//! The permission card of an agent's (ACP) tool call: what exactly would run, who asks,
//! and one button per option, armed once it is safe to answer.

use crate::runtime::Shell;
use crate::ui::diff::diff_view;
use crate::ui::glyphs::{glyph, Glyph};
use crate::ui::tools::{session_cwd, ShownPath};
use crate::ui::use_shell;
use crate::ui::{strings, tr, trf};
use chat_shell_core::model::{EntryKind, Permission};
use chat_shell_core::protocol::acp::{
    PermissionOption, PermissionOptionId, PermissionOptionKind, PermissionOutcome, ToolCallContent,
};
use chat_shell_core::protocol::chatkit::ItemId;
use chat_shell_core::reducer::Input;
use chat_shell_core::strings::Text;
use chat_shell_core::views::ChannelStatus;
use leptos::prelude::*;
use std::time::Duration;

/// How long a permission card's buttons stay disabled once shown, so a click meant for
/// what was there before cannot answer it.
const ARM_DELAY: Duration = Duration::from_millis(400);

/// How long a card also waits for the thread's channel to catch up. A card hydrated after
/// a reload may belong to a run still going: answered before the channel has said so, the
/// page would take the run's copy on the channel for its own answer's and not show the
/// rest. A channel that never catches up does not keep the user from answering.
const CATCH_UP_LIMIT: Duration = Duration::from_secs(5);

/// The icon of a permission option: a check to allow, a cross to reject, doubled or
/// barred when remembered; none for a kind this client does not know.
fn option_glyph(kind: &PermissionOptionKind) -> Option<Glyph> {
    match kind {
        PermissionOptionKind::AllowOnce => Some(Glyph::Check),
        PermissionOptionKind::AllowAlways => Some(Glyph::CheckDouble),
        PermissionOptionKind::RejectOnce => Some(Glyph::Close),
        PermissionOptionKind::RejectAlways => Some(Glyph::Block),
        PermissionOptionKind::Unknown(_) => None,
    }
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct CardData {
    pub(crate) permission: Permission,
    pub(crate) sent: Option<PermissionOptionId>,
    pub(crate) agent: Option<String>,
    pub(crate) command: Option<String>,
    pub(crate) cwd: Option<String>,
}

/// The agent asks before running the call: what exactly would run (command and
/// directory, or the diff), who asks, and one button per option, named by the option.
/// The buttons arm after [`ARM_DELAY`], once the channel has caught up (at most
/// [`CATCH_UP_LIMIT`]); the decision shows once the server confirms it.
#[component]
pub(crate) fn PermissionCard(id: ItemId, data: CardData) -> impl IntoView {
    let shell = use_shell();
    let delay_over = RwSignal::new(false);
    let patience_over = RwSignal::new(false);
    for (over, after) in [(delay_over, ARM_DELAY), (patience_over, CATCH_UP_LIMIT)] {
        set_timeout(
            move || {
                let _ = over.try_set(true);
            },
            after,
        );
    }
    let channel = shell.signals().map(|s| s.views.status);
    let catching_up =
        move || channel.is_some_and(|status| status.get() == ChannelStatus::Connecting);
    // Once armed, a card stays armed (a channel reconnecting later changes nothing).
    let armed = Memo::new(move |was: Option<&bool>| {
        was.copied().unwrap_or(false)
            || (delay_over.get() && (patience_over.get() || !catching_up()))
    });
    let CardData {
        permission,
        sent,
        agent,
        command,
        cwd,
    } = data;
    let name_of = |option_id: &PermissionOptionId| {
        permission
            .option(option_id)
            .map_or_else(|| option_id.0.clone(), |o| o.name.clone())
    };
    if let Some(outcome) = &permission.outcome {
        let text = match outcome {
            PermissionOutcome::Selected { option_id } => trf(
                shell,
                Text::PermissionDecided,
                vec![("option", name_of(option_id))],
            ),
            PermissionOutcome::Cancelled | PermissionOutcome::Other(_) => {
                tr(shell, Text::PermissionCancelled)
            }
        };
        return view! {
            <p class="cs-permission__decision" data-part="permission-decision">{text}</p>
        }
        .into_any();
    }
    let sent_note = sent.as_ref().map(|o| {
        view! {
            <p class="cs-permission__sent" data-part="permission-sent" role="status">
                {trf(shell, Text::PermissionSent, vec![("option", name_of(o))])}
            </p>
        }
    });
    let answered = sent.is_some();
    // A plan to approve is a decision on the plan, not a tool's permission.
    let title = match permission.action_type.as_deref() {
        Some("plan_decision" | "plan") => Text::PlanDecision,
        _ => Text::PermissionNeeded,
    };
    let buttons = permission
        .options
        .iter()
        .map(|option| option_button(shell, &id, option, armed, answered))
        .collect_view();
    view! {
        <div class="cs-permission" data-part="permission" data-action-type=permission.action_type.clone() role="group" aria-label=tr(shell, title)>
            <p class="cs-permission__title">{tr(shell, title)}</p>
            {agent.map(|a| view! { <p class="cs-permission__agent" data-part="permission-agent">{trf(shell, Text::PermissionAgent, vec![("agent", a)])}</p> })}
            {command.map(|c| view! {
                <p class="cs-permission__what">
                    <span class="cs-permission__label">{tr(shell, Text::Command)}</span>
                    <code data-part="permission-command">{c}</code>
                </p>
            })}
            {cwd.map(|c| {
                let c = ShownPath::new(&c, session_cwd(shell).as_deref());
                view! {
                    <p class="cs-permission__what">
                        <span class="cs-permission__label">{tr(shell, Text::WorkingDirectory)}</span>
                        <code data-part="permission-cwd" title=c.title()>{c.shown.clone()}</code>
                    </p>
                }
            })}
            <PermissionDiffs id=id.clone() />
            <div class="cs-permission__options">{buttons}</div>
            {sent_note}
        </div>
    }
    .into_any()
}

/// The diffs a permission would apply (read once, when the card is built).
#[component]
fn PermissionDiffs(id: ItemId) -> impl IntoView {
    let shell = use_shell();
    let strings = strings(shell);
    let cwd = session_cwd(shell);
    shell
        .with(|rt| {
            rt.with_item(&id, |i| match &i.entry.kind {
                EntryKind::ToolCall(c) => c
                    .tool_call
                    .content
                    .iter()
                    .filter_map(|c| match c {
                        ToolCallContent::Diff(d) => Some(diff_view(
                            &ShownPath::new(&d.path, cwd.as_deref()),
                            d.old_text.as_deref(),
                            &d.new_text,
                            &strings,
                        )),
                        _ => None,
                    })
                    .collect_view()
                    .into_any(),
                _ => ().into_any(),
            })
        })
        .flatten()
}

fn option_button(
    shell: Shell,
    id: &ItemId,
    option: &PermissionOption,
    armed: Memo<bool>,
    answered: bool,
) -> impl IntoView {
    let item_id = id.clone();
    let option_id = option.option_id.clone();
    let on_click = move |e: web_sys::MouseEvent| {
        if !armed.get_untracked() || answered {
            return;
        }
        let input = Input::PermissionChosen {
            item_id: item_id.clone(),
            option_id: option_id.clone(),
        };
        shell.with(|rt| rt.dispatch(input));
        // The card folds: on to the next request still waiting, else the composer.
        crate::ui::focus_next(
            e.current_target(),
            &[
                "[data-part=\"permission-option\"]:not([disabled])",
                "textarea",
            ],
        );
    };
    view! {
        <button
            type="button"
            class="cs-button cs-permission__option"
            data-part="permission-option"
            data-kind=option.kind.data_kind().to_owned()
            disabled=move || answered || !armed.get()
            on:click=on_click
        >
            {option_glyph(&option.kind).map(glyph)}
            <span>{option.name.clone()}</span>
        </button>
    }
}
