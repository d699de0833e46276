//! An agent's (ACP) tool calls: each one with its content, locations, terminal output and
//! raw input/output (and its permission card while the agent asks), and a finished turn's
//! calls folded into one line. Every string from the server is shown as text, except
//! markdown content, which goes through the one sanitizer.

use super::permission::{CardData, PermissionCard};
use super::ShownPath;
use crate::ui::diff::diff_view;
use crate::ui::icons::icon;
use crate::ui::{item_memo, use_shell};
use crate::ui::{markdown, strings, tr};
use chat_shell_core::ansi;
use chat_shell_core::model::{EntryKind, Permission};
use chat_shell_core::protocol::acp::{
    ContentBlock, PermissionOptionId, ToolCall, ToolCallContent, ToolKind,
};
use chat_shell_core::protocol::chatkit::ItemId;
use chat_shell_core::reducer::{ToolCallState, ToolCallSummary};
use chat_shell_core::strings::Text;
use chat_shell_core::tool_output::{self, ExitStatus};
use leptos::prelude::*;

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

/// What a tool call's header and card show, copied out of the state when its item
/// changes. Not its content (a 2,000-line diff, say): that is read from the state only
/// while the call is open, so an item that changes (a turn's end settles all of its calls)
/// copies and compares a few words, not its diff.
#[derive(Clone, Debug, PartialEq)]
struct ToolCallSnapshot {
    kind: ToolKind,
    title: String,
    /// The command and folder the permission card names.
    command: Option<String>,
    cwd: Option<String>,
    state: ToolCallState,
    permission: Option<Permission>,
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
pub fn ToolCallView(id: ItemId) -> impl IntoView {
    let shell = use_shell();
    let item_id = id.clone();
    let snapshot = item_memo(shell, item_id, |i| {
        let EntryKind::ToolCall(item) = &i.entry.kind else {
            return None;
        };
        let call = &item.tool_call;
        Some(ToolCallSnapshot {
            kind: call.kind.clone(),
            title: call.title.clone(),
            command: tool_output::command(call.raw_input.as_ref()),
            cwd: tool_output::cwd(call.raw_input.as_ref()),
            state: i.tool_call_state()?,
            permission: item.permission.clone(),
            sent: i.permission_choice.clone(),
            agent: i.agent.as_ref().map(|a| a.name.clone()),
            agent_id: i
                .agent
                .as_ref()
                .map(|a| a.id.clone().unwrap_or_else(|| a.name.clone())),
        })
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
        snapshot.with(|s| s.as_ref().map(|s| s.kind.clone()).unwrap_or_default())
    });
    let title = move || snapshot.with(|s| s.as_ref().map(|s| s.title.clone()));
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
                command: s.command.clone(),
                cwd: s.cwd.clone(),
            })
        })
    });
    let card_id = id.clone();
    // The body exists while the call is open: a finished call that nobody opens (most of a
    // long run) never renders its diff or output.
    // While open it follows every change of its item (read from the state, not the
    // snapshot, which leaves the content out).
    let rev = shell.with(|rt| rt.item_rev(&id));
    let body_id = id.clone();
    let body = move || {
        if !open.get() {
            return None;
        }
        if let Some(rev) = rev {
            rev.track();
        }
        let asking = state.get() == Some(ToolCallState::AwaitingPermission);
        let call = shell
            .with(|rt| {
                rt.with_item(&body_id, |i| match &i.entry.kind {
                    EntryKind::ToolCall(item) => Some(item.tool_call.clone()),
                    _ => None,
                })
            })
            .flatten()
            .flatten()?;
        let cwd = super::session_cwd(shell);
        Some(tool_call_body(
            &call,
            asking,
            cwd.as_deref(),
            &strings(shell),
        ))
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
                <span class="cs-agent-tool__title" data-part="tool-call-title" dir="auto">{title}</span>
                <span class="cs-agent-tool__status" data-part="tool-call-status">{status}</span>
            </summary>
            {move || card.get().map(|data| view! { <PermissionCard id=card_id.clone() data=data /> })}
            <div class="cs-agent-tool__body">{body}</div>
        </details>
    }
}

/// A finished turn's tool calls folded into one line ("7 tool calls · 2 failed"): a
/// disclosure button that shows or hides the calls, which follow it in the list.
#[component]
pub fn ToolCallSummaryView(members: Vec<ItemId>) -> impl IntoView {
    let shell = use_shell();
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
        let calls = strings.count(Text::ToolCallsFoldedOne, Text::ToolCallsFolded, calls);
        // Failures in the failure colour, the unknown as unknown.
        let failed = (failed > 0).then(|| {
            let text = strings.format(Text::ToolCallsFailed, &[("count", &failed.to_string())]);
            view! { " · "<span class="cs-agent-tools__failed">{text}</span> }
        });
        let unknown = (unknown > 0).then(|| {
            let text = strings.format(Text::ToolCallsUnknown, &[("count", &unknown.to_string())]);
            view! { " · "<span class="cs-agent-tools__unknown">{text}</span> }
        });
        view! { <span>{calls}</span>{failed}{unknown} }
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
    cwd: Option<&str>,
    strings: &chat_shell_core::strings::Strings,
) -> AnyView {
    let content = call
        .content
        .iter()
        .filter(|c| !(asking && matches!(c, ToolCallContent::Diff(_))))
        .map(|c| content_view(c, call.raw_output.as_ref(), cwd, strings))
        .collect_view();
    let locations = (!call.locations.is_empty()).then(|| {
        let chips = call
            .locations
            .iter()
            .map(|l| {
                let path = ShownPath::new(&l.path, cwd);
                let label = match l.line {
                    Some(line) => format!("{}:{line}", path.shown),
                    None => path.shown.clone(),
                };
                view! { <li class="cs-chip" data-part="tool-call-location" title=path.title()>{label}</li> }
            })
            .collect_view();
        view! {
            <ul class="cs-agent-tool__locations" aria-label=strings.get(Text::ToolLocations).to_owned()>{chips}</ul>
        }
    });
    let raw = |value: Option<&serde_json::Value>, label: Text| {
        value.map(|v| {
            let (text, cut) = tool_output::raw_text(v);
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
    cwd: Option<&str>,
    strings: &chat_shell_core::strings::Strings,
) -> AnyView {
    match content {
        ToolCallContent::Content(c) => match &c.content {
            ContentBlock::Text(t) => {
                let (text, strings) = (t.text.clone(), strings.clone());
                let html = move || markdown::render(&text, &strings);
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
        ToolCallContent::Diff(d) => diff_view(
            &ShownPath::new(&d.path, cwd),
            d.old_text.as_deref(),
            &d.new_text,
            strings,
        ),
        // The terminal's id is the agent's handle, nothing a reader can use: not shown.
        ToolCallContent::Terminal(_) => {
            let output = tool_output::terminal_output(raw_output);
            let label = strings.get(Text::TerminalOutput).to_owned();
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
