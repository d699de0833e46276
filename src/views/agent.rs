//! Agent runs: an agent's (ACP) tool call with its permission card, plan and thoughts;
//! the run's inline errors, budget banner, liveness hint and orchestration. Every string
//! from the server is shown as text, except markdown content, which goes through the one
//! sanitizer.

use super::diff::{diff_rows, DiffLayout};
use super::widgets::icon;
use super::{strings, tr, trf};
use crate::runtime::Shell;
use chat_shell_core::ansi;
use chat_shell_core::diff::line_diff;
use chat_shell_core::protocol::acp::{
    ContentBlock, PermissionOption, PermissionOptionId, PermissionOptionKind, PermissionOutcome,
    ToolCall, ToolCallContent, ToolKind,
};
use chat_shell_core::protocol::chatkit::{AcpPermission, ItemId, ItemKind};
use chat_shell_core::reducer::{Input, ToolCallState, ToolCallSummary};
use chat_shell_core::strings::Text;
use chat_shell_core::tool_output::{self, ExitStatus};
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

/// The icon drawing of a tool kind (neutral for `other` and unknown kinds).
fn kind_icon(kind: &ToolKind) -> &'static str {
    match kind {
        ToolKind::Read => "book-open",
        ToolKind::Edit => "write",
        ToolKind::Delete => "page-blank",
        ToolKind::Move => "chevron-right",
        ToolKind::Search => "search",
        ToolKind::Execute => "square-code",
        ToolKind::Think => "lightbulb",
        ToolKind::Fetch => "globe",
        ToolKind::SwitchMode => "settings-slider",
        ToolKind::Other | ToolKind::Unknown(_) => "dot",
    }
}

fn state_text(state: ToolCallState) -> Text {
    match state {
        ToolCallState::Pending => Text::AcpPending,
        ToolCallState::InProgress => Text::AcpInProgress,
        ToolCallState::Completed => Text::AcpCompleted,
        ToolCallState::Failed => Text::AcpFailed,
        ToolCallState::AwaitingPermission => Text::AcpAwaitingPermission,
        ToolCallState::Rejected => Text::AcpRejected,
        ToolCallState::Cancelled => Text::AcpCancelled,
        ToolCallState::Interrupted => Text::AcpInterrupted,
        ToolCallState::Unknown => Text::AcpUnknown,
    }
}

/// The glyph of a permission option: ✓ allow, ✕ reject, doubled when remembered; a
/// neutral dot for a kind this client does not know.
fn option_glyph(kind: &PermissionOptionKind) -> &'static str {
    match kind {
        PermissionOptionKind::AllowOnce => "✓",
        PermissionOptionKind::AllowAlways => "✓✓",
        PermissionOptionKind::RejectOnce => "✕",
        PermissionOptionKind::RejectAlways => "✕✕",
        PermissionOptionKind::Unknown(_) => "•",
    }
}

/// What a tool call view renders, copied out of the state when its item changes.
#[derive(Clone, Debug, PartialEq)]
struct ToolCallSnapshot {
    call: ToolCall,
    state: ToolCallState,
    permission: Option<AcpPermission>,
    /// The option picked and sent, not yet confirmed.
    sent: Option<PermissionOptionId>,
    agent: Option<String>,
    /// The owning agent's id (`data-agent`).
    agent_id: Option<String>,
}

/// An agent's tool call: kind icon, title, status in words; its content, locations and raw
/// input/output; the permission card while the agent asks. Open while it runs or asks,
/// folded into its one-line summary once it is over (the reader may open it again).
#[component]
pub fn AgentToolCallView(shell: Shell, id: ItemId) -> impl IntoView {
    let rev = shell.with(|rt| rt.item_rev(&id));
    let item_id = id.clone();
    let snapshot = Memo::new(move |_| {
        if let Some(rev) = rev {
            rev.track();
        }
        shell
            .with(|rt| {
                rt.with_item(&item_id, |i| {
                    let ItemKind::AcpToolCall(item) = &i.item.kind else {
                        return None;
                    };
                    Some(ToolCallSnapshot {
                        call: item.tool_call.clone(),
                        state: i.tool_call_state()?,
                        permission: item.permission.clone(),
                        sent: i.permission_choice.clone(),
                        agent: i.agent.as_ref().map(|a| a.name.clone()),
                        agent_id: i
                            .agent
                            .as_ref()
                            .map(|a| a.id.clone().unwrap_or_else(|| a.name.clone())),
                    })
                })
            })
            .flatten()
            .flatten()
    });
    let state = Memo::new(move |_| snapshot.with(|s| s.as_ref().map(|s| s.state)));
    let active = Memo::new(move |_| {
        state
            .get()
            .is_some_and(|s| s.is_running() || s == ToolCallState::AwaitingPermission)
    });
    // Open while it runs or asks, folded once over. The reader's own choice holds until
    // that changes (it is kept with the activity it was made under). Derived, not set by an
    // effect, so the update that finishes a call folds it in the same pass: its body (a
    // 2,000-line diff, say) is never built just to be hidden.
    let choice = RwSignal::new(None::<(bool, bool)>);
    let open = Memo::new(move |_| {
        let active = active.get();
        match choice.get() {
            Some((when, open)) if when == active => open,
            _ => active,
        }
    });
    let kind = Memo::new(move |_| {
        snapshot.with(|s| s.as_ref().map(|s| s.call.kind.clone()).unwrap_or_default())
    });
    let title = move || snapshot.with(|s| s.as_ref().map(|s| s.call.title.clone()));
    let status = move || state.get().map(|s| tr(shell, state_text(s)).get());
    // The card is rebuilt only when the permission itself changes, so its arming delay is
    // not restarted by every update of the call.
    let card = Memo::new(move |_| {
        snapshot.with(|s| {
            let s = s.as_ref()?;
            let permission = s.permission.clone()?;
            Some(CardData {
                permission,
                sent: s.sent.clone(),
                agent: s.agent.clone(),
                command: tool_output::command(s.call.raw_input.as_ref()),
                cwd: tool_output::cwd(s.call.raw_input.as_ref()),
            })
        })
    });
    let card_id = id.clone();
    // The body exists while the call is open: a finished call that nobody opens (most of a
    // long run) never renders its diff or output.
    let body = move || {
        if !open.get() {
            return None;
        }
        let strings = strings(shell);
        snapshot.with(|s| {
            let s = s.as_ref()?;
            let asking = s.state == ToolCallState::AwaitingPermission;
            Some(tool_call_body(&s.call, asking, &strings))
        })
    };
    // Folded into a finished turn's summary: hidden until the reader opens the summary.
    let fold_id = id.clone();
    let hidden = move || {
        shell.signals().is_some_and(|s| {
            s.folds.with(|f| {
                f.get(&fold_id)
                    .is_some_and(|summary| !s.open_folds.with(|o| o.contains(summary)))
            })
        })
    };
    let dom_id = tool_call_dom_id(&id);
    view! {
        <details
            id=dom_id
            class="cs-agent-tool"
            data-part="tool-call"
            hidden=hidden
            data-kind=move || kind.with(|k| k.data_kind().to_owned())
            data-status=move || state.get().map_or("unknown", ToolCallState::as_str)
            data-agent=move || snapshot.with(|s| s.as_ref().and_then(|s| s.agent_id.clone()))
            prop:open=move || open.get()
            on:toggle=move |ev| {
                let el: web_sys::HtmlDetailsElement = wasm_bindgen::JsCast::unchecked_into(event_target::<web_sys::HtmlElement>(&ev));
                choice.set(Some((active.get_untracked(), el.open())));
            }
        >
            <summary class="cs-agent-tool__head">
                <span class="cs-agent-tool__icon">{move || icon(kind_icon(&kind.get()), Some("sm"), None)}</span>
                <span class="cs-agent-tool__title" data-part="tool-call-title">{title}</span>
                <span class="cs-agent-tool__status" data-part="tool-call-status">{status}</span>
            </summary>
            {move || card.get().map(|data| view! { <PermissionCard shell=shell id=card_id.clone() data=data /> })}
            <div class="cs-agent-tool__body">{body}</div>
        </details>
    }
}

/// A finished turn's tool calls folded into one line ("7 tool calls · 2 failed"): a
/// disclosure button that shows or hides the calls, which follow it in the list.
#[component]
pub fn ToolCallsView(shell: Shell, members: Vec<ItemId>) -> impl IntoView {
    let revs: Vec<_> = members
        .iter()
        .filter_map(|id| shell.with(|rt| rt.item_rev(id)))
        .collect();
    let ids = members.clone();
    let summary = Memo::new(move |_| {
        for rev in &revs {
            rev.track();
        }
        shell
            .with(|rt| {
                rt.with_state(|state| {
                    ToolCallSummary::of(ids.iter().filter_map(|id| state.item(id)))
                })
            })
            .unwrap_or_default()
    });
    let line = move || {
        let strings = strings(shell);
        let ToolCallSummary {
            calls,
            failed,
            unknown,
        } = summary.get();
        let mut parts =
            vec![strings.format(Text::ToolCallsFolded, &[("count", &calls.to_string())])];
        if failed > 0 {
            parts.push(strings.format(Text::ToolCallsFailed, &[("count", &failed.to_string())]));
        }
        if unknown > 0 {
            parts.push(strings.format(Text::ToolCallsUnknown, &[("count", &unknown.to_string())]));
        }
        parts.join(" · ")
    };
    let first = members[0].clone();
    let open_folds = shell.signals().map(|s| s.open_folds);
    let key = first.clone();
    let open = Memo::new(move |_| open_folds.is_some_and(|o| o.with(|o| o.contains(&key))));
    let toggle = move |_| {
        if let Some(o) = open_folds {
            o.update(|o| {
                if !o.remove(&first) {
                    o.insert(first.clone());
                }
            });
        }
    };
    let controls = members
        .iter()
        .map(tool_call_dom_id)
        .collect::<Vec<_>>()
        .join(" ");
    view! {
        <div class="cs-agent-tools" data-part="tool-call-group" data-failed=move || summary.get().failed.to_string()>
            <button
                type="button"
                class="cs-agent-tools__head"
                data-part="tool-call-summary"
                aria-expanded=move || open.get().to_string()
                aria-controls=controls
                on:click=toggle
            >
                <span class="cs-agent-tools__chevron" aria-hidden="true"></span>
                {line}
            </button>
        </div>
    }
}

/// The DOM id of a tool call's element (for a summary's `aria-controls`): ids are the
/// server's, so only safe characters are kept.
fn tool_call_dom_id(id: &ItemId) -> String {
    let safe: String =
        id.0.chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
    format!("cs-tool-{safe}")
}

/// The content, locations and raw input/output of a tool call. While a permission card
/// asks, the diffs are shown in the card instead.
fn tool_call_body(
    call: &ToolCall,
    asking: bool,
    strings: &chat_shell_core::strings::Strings,
) -> AnyView {
    let content = call
        .content
        .iter()
        .filter(|c| !(asking && matches!(c, ToolCallContent::Diff(_))))
        .map(|c| content_view(c, call.raw_output.as_ref(), strings))
        .collect_view();
    let locations = (!call.locations.is_empty()).then(|| {
        let chips = call
            .locations
            .iter()
            .map(|l| view! { <li class="cs-chip" data-part="tool-call-location">{l.label()}</li> })
            .collect_view();
        view! {
            <ul class="cs-agent-tool__locations" aria-label=strings.get(Text::ToolLocations).to_owned()>{chips}</ul>
        }
    });
    let raw = |value: Option<&serde_json::Value>, label: Text| {
        value.map(|v| {
            let (text, cut) = tool_output::raw_json(v);
            view! {
                <details class="cs-agent-tool__raw" data-part="tool-call-raw">
                    <summary>{strings.get(label).to_owned()}</summary>
                    <pre class="cs-agent-tool__pre">{text}</pre>
                    {cut.then(|| view! { <p class="cs-agent-tool__note">{strings.get(Text::OutputTruncated).to_owned()}</p> })}
                </details>
            }
        })
    };
    view! {
        {locations}
        {content}
        {raw(call.raw_input.as_ref(), Text::RawInput)}
        {raw(call.raw_output.as_ref(), Text::RawOutput)}
    }
    .into_any()
}

fn content_view(
    content: &ToolCallContent,
    raw_output: Option<&serde_json::Value>,
    strings: &chat_shell_core::strings::Strings,
) -> AnyView {
    match content {
        ToolCallContent::Content(c) => match &c.content {
            ContentBlock::Text(t) => {
                let (text, strings) = (t.text.clone(), strings.clone());
                let html = move || super::markdown::render(&text, &strings);
                view! { <div class="cs-md cs-agent-tool__text" data-part="tool-call-content" inner_html=html></div> }
                    .into_any()
            }
            ContentBlock::ResourceLink(r) => {
                let label = r.title.clone().unwrap_or_else(|| r.name.clone());
                view! { <p class="cs-agent-tool__text" data-part="tool-call-content">{label}</p> }
                    .into_any()
            }
            ContentBlock::Resource(r) => r
                .resource
                .text
                .as_ref()
                .map(|text| {
                    let (text, _) = tool_output::bounded(text, tool_output::TERMINAL_LIMIT);
                    view! { <pre class="cs-agent-tool__pre" data-part="tool-call-content">{text}</pre> }
                })
                .into_any(),
            ContentBlock::Image(_) | ContentBlock::Audio(_) | ContentBlock::Other(_) => {
                ().into_any()
            }
        },
        ToolCallContent::Diff(d) => diff_view(&d.path, d.old_text.as_deref(), &d.new_text, strings),
        ToolCallContent::Terminal(t) => {
            let output = tool_output::terminal_output(raw_output);
            let label = strings.format(Text::TerminalOutput, &[("id", &t.terminal_id)]);
            let exit = tool_output::exit_status(raw_output).map(|e| match e {
                ExitStatus::Code(code) => (code != 0, strings.format(Text::ExitCode, &[("code", &code.to_string())])),
                ExitStatus::Signal(signal) => (true, strings.format(Text::ExitSignal, &[("signal", &signal)])),
            });
            view! {
                <div class="cs-agent-tool__terminal" data-part="terminal">
                    <p class="cs-agent-tool__label">{label}</p>
                    {output.map(|(text, cut)| view! {
                        <pre class="cs-agent-tool__pre cs-terminal">{terminal_runs(&text)}</pre>
                        {cut.then(|| view! { <p class="cs-agent-tool__note" data-part="terminal-truncated">{strings.get(Text::OutputTruncated).to_owned()}</p> })}
                    })}
                    {exit.map(|(bad, text)| view! { <p class="cs-agent-tool__note" data-part="terminal-exit" data-failed=bad.to_string()>{text}</p> })}
                </div>
            }
            .into_any()
        }
        ToolCallContent::Other(_) => ().into_any(),
    }
}

/// Terminal output as styled text runs (ANSI colours as classes, never as markup).
fn terminal_runs(text: &str) -> AnyView {
    ansi::styled_runs(text)
        .into_iter()
        .map(|run| {
            let class = run.style.classes();
            if class.is_empty() {
                run.text.into_any()
            } else {
                view! { <span class=class>{run.text}</span> }.into_any()
            }
        })
        .collect_view()
        .into_any()
}

/// A file change as a diff: path, "new file" when there was none, numbered lines.
fn diff_view(
    path: &str,
    old: Option<&str>,
    new: &str,
    strings: &chat_shell_core::strings::Strings,
) -> AnyView {
    let diff = line_diff(old, new);
    let rows = diff_rows(&diff.rows, DiffLayout::Unified, strings);
    view! {
        <div class="cs-diff" data-part="diff" data-new-file=diff.new_file.to_string()>
            <p class="cs-diff__path">
                <span data-part="diff-path">{path.to_owned()}</span>
                {diff.new_file.then(|| view! { <span class="cs-chip" data-part="diff-new-file">{strings.get(Text::NewFile).to_owned()}</span> })}
            </p>
            {rows}
            {diff.truncated.then(|| view! { <p class="cs-agent-tool__note">{strings.get(Text::OutputTruncated).to_owned()}</p> })}
        </div>
    }
    .into_any()
}

#[derive(Clone, Debug, PartialEq)]
struct CardData {
    permission: AcpPermission,
    sent: Option<PermissionOptionId>,
    agent: Option<String>,
    command: Option<String>,
    cwd: Option<String>,
}

/// The agent asks before running the call: what exactly would run (command and
/// directory, or the diff), who asks, and one button per option, named by the option.
/// The buttons arm after [`ARM_DELAY`], once the channel has caught up (at most
/// [`CATCH_UP_LIMIT`]); the decision shows once the server confirms it.
#[component]
fn PermissionCard(shell: Shell, id: ItemId, data: CardData) -> impl IntoView {
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
            {cwd.map(|c| view! {
                <p class="cs-permission__what">
                    <span class="cs-permission__label">{tr(shell, Text::WorkingDirectory)}</span>
                    <code data-part="permission-cwd">{c}</code>
                </p>
            })}
            <PermissionDiffs shell=shell id=id.clone() />
            <div class="cs-permission__options">{buttons}</div>
            {sent_note}
        </div>
    }
    .into_any()
}

/// The diffs a permission would apply (read once, when the card is built).
#[component]
fn PermissionDiffs(shell: Shell, id: ItemId) -> impl IntoView {
    let strings = strings(shell);
    shell
        .with(|rt| {
            rt.with_item(&id, |i| match &i.item.kind {
                ItemKind::AcpToolCall(c) => c
                    .tool_call
                    .content
                    .iter()
                    .filter_map(|c| match c {
                        ToolCallContent::Diff(d) => Some(diff_view(
                            &d.path,
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
    let on_click = move |_| {
        if !armed.get_untracked() || answered {
            return;
        }
        let input = Input::PermissionChosen {
            item_id: item_id.clone(),
            option_id: option_id.clone(),
        };
        shell.with(|rt| rt.apply(input));
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
            <span class="cs-permission__glyph" aria-hidden="true">{option_glyph(&option.kind)}</span>
            <span>{option.name.clone()}</span>
        </button>
    }
}

/// An agent's plan: its entries with their status.
#[component]
pub fn AgentPlanView(shell: Shell, id: ItemId) -> impl IntoView {
    let rev = shell.with(|rt| rt.item_rev(&id));
    let entries = Memo::new(move |_| {
        if let Some(rev) = rev {
            rev.track();
        }
        shell
            .with(|rt| {
                rt.with_item(&id, |i| match &i.item.kind {
                    ItemKind::AcpPlan(p) => p.entries.clone(),
                    _ => Vec::new(),
                })
            })
            .flatten()
            .unwrap_or_default()
    });
    view! {
        <div class="cs-agent-plan" data-part="plan">
            <p class="cs-agent-plan__title">{tr(shell, Text::AgentPlan)}</p>
            <ol class="cs-agent-plan__entries">
                {move || entries.get().into_iter().map(|e| view! {
                    <li data-status=e.status.as_str().to_owned() data-priority=e.priority.as_str().to_owned()>{e.content}</li>
                }).collect_view()}
            </ol>
        </div>
    }
}

/// An agent's thoughts: collapsed reasoning, never answer text.
#[component]
pub fn AgentThoughtView(shell: Shell, id: ItemId) -> impl IntoView {
    let rev = shell.with(|rt| rt.item_rev(&id));
    let text = Memo::new(move |_| {
        if let Some(rev) = rev {
            rev.track();
        }
        shell
            .with(|rt| {
                rt.with_item(&id, |i| match &i.item.kind {
                    ItemKind::AcpThought(t) => t.text.clone(),
                    _ => String::new(),
                })
            })
            .flatten()
            .unwrap_or_default()
    });
    let html = move || super::markdown::render(&text.get(), &strings(shell));
    view! {
        <details class="cs-agent-thought" data-part="thought">
            <summary>{tr(shell, Text::AgentThought)}</summary>
            <div class="cs-md" inner_html=html></div>
        </details>
    }
}

/// The run's recoverable errors shown after item `after` (`None`: before every item).
#[component]
pub fn RunErrors(shell: Shell, after: Option<ItemId>) -> impl IntoView {
    let signals = shell.signals().expect("runtime exists while mounted");
    let errors = Memo::new(move |_| {
        signals.run.track();
        shell
            .with(|rt| {
                rt.with_state(|s| {
                    s.run_errors
                        .iter()
                        .filter(|e| e.after_item == after)
                        .map(|e| (e.id, e.message.clone(), e.code.clone()))
                        .collect::<Vec<_>>()
                })
            })
            .unwrap_or_default()
    });
    move || {
        errors
            .get()
            .into_iter()
            .map(|(_, message, code)| {
                let label = match &code {
                    Some(c) => trf(shell, Text::RunErrorCode, vec![("code", c.clone())]),
                    None => tr(shell, Text::RunErrorPlain),
                };
                view! {
                    <div class="cs-run-error" data-part="run-error" data-code=code role="note">
                        <strong class="cs-run-error__code">{label}</strong>
                        " "
                        <span class="cs-run-error__message">{message}</span>
                    </div>
                }
            })
            .collect_view()
    }
}

/// The coordinator's status and plan, in the process area.
#[component]
pub fn OrchestrationView(shell: Shell) -> impl IntoView {
    let signals = shell.signals().expect("runtime exists while mounted");
    let orchestration = Memo::new(move |_| {
        signals.run.track();
        shell
            .with(|rt| rt.with_state(|s| s.orchestration.clone()))
            .flatten()
    });
    move || {
        let o = orchestration.get()?;
        let steps = o
            .plan
            .into_iter()
            .map(|step| {
                let data_status = step.status.clone();
                view! {
                    <li data-status=data_status>
                        <span class="cs-orchestration__step">{step.title}</span>
                        {step.agent.map(|a| view! { <span class="cs-orchestration__agent">{a}</span> })}
                        {step.status.map(|s| view! { <span class="cs-orchestration__status">{s}</span> })}
                    </li>
                }
            })
            .collect_view();
        Some(view! {
            <div class="cs-orchestration" data-part="orchestration">
                {o.status.map(|s| view! { <p class="cs-orchestration__line">{s}</p> })}
                <ol class="cs-orchestration__plan">{steps}</ol>
            </div>
        })
    }
}

/// Between the transcript and the composer: the budget banner (the run was stopped; the
/// composer stays usable) and, while a run is active, a quiet liveness hint.
#[component]
pub fn RunBar(shell: Shell) -> impl IntoView {
    let signals = shell.signals().expect("runtime exists while mounted");
    let budget = Memo::new(move |_| {
        signals.run.track();
        shell
            .with(|rt| rt.with_state(|s| s.budget.as_ref().map(|b| b.message.clone())))
            .flatten()
    });
    // A clock for "N s ago", ticking only while an answer streams and the bar is shown.
    let now = RwSignal::new(js_sys::Date::now());
    let clock = StoredValue::new(None::<IntervalHandle>);
    let stop_clock = move || {
        if let Some(Some(h)) = clock.try_update_value(Option::take) {
            h.clear();
        }
    };
    Effect::new(move |_| {
        stop_clock();
        if signals.streaming.get().is_none() {
            return;
        }
        now.set(js_sys::Date::now());
        let tick = move || {
            let _ = now.try_set(js_sys::Date::now());
        };
        clock.set_value(set_interval_with_handle(tick, Duration::from_secs(1)).ok());
    });
    on_cleanup(stop_clock);
    let liveness = move || {
        signals.streaming.get()?;
        let last = signals.last_event.get()?;
        let seconds = ((now.get() - last) / 1000.0).max(0.0).floor() as u64;
        Some(view! {
            <p class="cs-liveness" data-part="liveness">
                {trf(shell, Text::Liveness, vec![("seconds", seconds.to_string())])}
            </p>
        })
    };
    view! {
        {move || budget.get().map(|message| view! {
            <div class="cs-budget" data-part="budget" role="alert">{message}</div>
        })}
        {liveness}
    }
}
