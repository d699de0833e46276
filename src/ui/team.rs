//! Teams of agents (Agent UI): the roster, a list named "Team" with each teammate's
//! status as the runtime gave it (needs input first, done last), role, model and lineage;
//! the notes that keep their place in the conversation without being anyone's message
//! (a worker's result, a handoff, a steer, a context boundary, an artifact).

use super::{tr, trf};
use crate::runtime::{OpenArtifact, Shell};
use crate::ui::{item_memo, use_shell};
use chat_shell_core::model::EntryKind;
use chat_shell_core::protocol::chatkit::{ItemId, Note};
use chat_shell_core::reducer::{Member, Team};
use chat_shell_core::strings::Text;
use leptos::html::{Button, Ol};
use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// The roster of the conversation's team, when there is one.
#[component]
pub fn TeamRoster() -> impl IntoView {
    let shell = use_shell();
    let signals = shell.signals().expect("runtime exists while mounted");
    let team = Memo::new(move |_| {
        signals.run.track();
        shell.with(|rt| rt.with_state(|s| s.team.clone())).flatten()
    });
    // The teammates whose transcript the reader opened: view state, kept while the roster
    // re-renders with new facts.
    let opened = RwSignal::new(std::collections::HashSet::<String>::new());
    // The reader folded the roster to its summary line.
    let folded = RwSignal::new(false);
    let earlier = Earlier {
        loading: RwSignal::new(std::collections::HashSet::new()),
        failed: RwSignal::new(std::collections::HashMap::new()),
        refocus: RwSignal::new(None),
    };
    // A new conversation starts with every transcript closed and no failure said.
    Effect::new(move |_| {
        if team.with(Option::is_none) {
            opened.set(std::collections::HashSet::new());
            earlier.failed.set(std::collections::HashMap::new());
        }
    });
    move || {
        let team: Team = team.get()?;
        // The runtime's word (`coordinator_team`) as words: "Coordinator team".
        let topology = team.topology.as_deref().map(as_words);
        let heading = match (&team.name, topology) {
            (Some(name), Some(topology)) => format!("{name} · {topology}"),
            (Some(name), None) => name.clone(),
            (None, Some(topology)) => topology,
            (None, None) => String::new(),
        };
        let members = team
            .by_status()
            .into_iter()
            .map(|m| member_row(shell, m, &team, opened, earlier))
            .collect_view();
        let asking = team.members.iter().filter(|m| m.needs_input()).count();
        let asking = (asking > 0).then(|| {
            let text = crate::ui::strings(shell).count(
                Text::TeamNeedsInputOne,
                Text::TeamNeedsInput,
                asking,
            );
            view! { <span class="cs-team__asking" data-part="team-asking">{text}</span> }
        });
        // Folds to its one-line summary; the reader's choice holds while it re-renders.
        Some(view! {
            <details
                class="cs-team"
                data-part="team"
                data-topology=team.topology.clone()
                prop:open=move || !folded.get()
                on:toggle=move |ev| {
                    let el: web_sys::HtmlDetailsElement = event_target(&ev);
                    folded.set(!el.open());
                }
            >
                <summary class="cs-team__title">
                    {tr(shell, Text::TeamRoster)}
                    {(!heading.is_empty()).then(|| view! { <span class="cs-team__name">{heading}</span> })}
                    {asking}
                </summary>
                <ul class="cs-team__members" aria-label=tr(shell, Text::TeamRoster)>{members}</ul>
            </details>
        })
    }
}

/// Takes the reader to where `agent` waits on them: its open question, form or permission
/// request, brought into view with its first control focused; else the composer (a
/// teammate that asked in words is answered by a message).
fn go_to_question(shell: Shell, agent: &str, from: web_sys::Element) {
    let asking = shell
        .with(|rt| rt.with_state(|s| s.asking(agent).cloned()))
        .flatten();
    let root = from
        .get_root_node()
        .dyn_into::<web_sys::ShadowRoot>()
        .map(web_sys::DocumentFragment::from);
    let Ok(root) = root else { return };
    let Some(item) = asking else {
        if let Ok(Some(t)) = root.query_selector(".cs-composer__input") {
            let _ = t.unchecked_into::<web_sys::HtmlElement>().focus();
        }
        return;
    };
    if let Some(signals) = shell.signals() {
        signals.reveal.set(Some(item.clone()));
    }
    // Mounted and in view by the frame after next (the window's own reveal).
    request_animation_frame(move || {
        request_animation_frame(move || {
            let Ok(wrappers) = root.query_selector_all("[data-item]") else {
                return;
            };
            let wrapper = (0..wrappers.length())
                .filter_map(|i| wrappers.item(i)?.dyn_into::<web_sys::Element>().ok())
                .find(|w| w.get_attribute("data-item").as_deref() == Some(item.0.as_str()));
            let control = wrapper.and_then(|w| {
                w.query_selector(
                    "textarea:not([disabled]), input:not([disabled]), select:not([disabled]), \
                     button:not([disabled])",
                )
                .ok()
                .flatten()
            });
            if let Some(c) = control {
                let _ = c.unchecked_into::<web_sys::HtmlElement>().focus();
            }
        });
    });
}

/// Older messages loading on demand, by teammate: view state kept while the roster
/// re-renders with new facts.
#[derive(Clone, Copy)]
struct Earlier {
    loading: RwSignal<std::collections::HashSet<String>>,
    /// Why the last load failed (shown until the next try).
    failed: RwSignal<std::collections::HashMap<String, String>>,
    /// The teammate whose transcript keeps the keyboard focus after a load (the roster is
    /// drawn anew, and the focus would fall to the page).
    refocus: RwSignal<Option<String>>,
}

/// "Load earlier messages" above a teammate's transcript while its session has older
/// messages (and the transcript has room for them), with why the last load failed. The
/// control stays focusable while it loads (`aria-disabled`), and after a load the focus
/// comes back to it, or to the transcript once nothing older is left.
fn load_earlier(shell: Shell, m: &Member, earlier: Earlier, list: NodeRef<Ol>) -> impl IntoView {
    let offered = m.transcript_has_more
        && m.session_id.is_some()
        && m.transcript.len() < chat_shell_core::reducer::TRANSCRIPT_MAX;
    let id = m.id.clone();
    let button = NodeRef::<Button>::new();
    if earlier.refocus.get_untracked().as_deref() == Some(id.as_str()) {
        // Drawn anew after the load (the roster re-renders with the new facts).
        request_animation_frame(move || {
            if let Some(b) = button.try_get_untracked().flatten() {
                let _ = b.focus();
            } else if let Some(l) = list.try_get_untracked().flatten() {
                let _ = l.focus();
            }
        });
    }
    let busy = {
        let id = id.clone();
        move || earlier.loading.with(|l| l.contains(&id))
    };
    let failed = {
        let id = id.clone();
        move || earlier.failed.with(|f| f.get(&id).cloned())
    };
    let click = {
        let busy = busy.clone();
        move |_| {
            if busy() {
                return;
            }
            let id = id.clone();
            earlier.loading.update(|l| {
                l.insert(id.clone());
            });
            earlier.failed.update(|f| {
                f.remove(&id);
            });
            earlier.refocus.set(Some(id.clone()));
            leptos::task::spawn_local(async move {
                let Some(rt) = shell.get() else { return };
                let result = rt.load_earlier(&id).await;
                // The roster may have gone meanwhile (the element removed).
                earlier.failed.try_update(|f| {
                    if let Err(message) = result {
                        f.insert(id.clone(), message);
                    }
                });
                earlier.loading.try_update(|l| {
                    l.remove(&id);
                });
                // The roster has re-rendered by the next frame, if anything changed.
                request_animation_frame(move || {
                    earlier.refocus.try_set(None);
                });
            });
        }
    };
    let label = {
        let (busy, loading, idle) = (
            busy.clone(),
            tr(shell, Text::LoadingEarlier),
            tr(shell, Text::LoadEarlier),
        );
        move || if busy() { loading.get() } else { idle.get() }
    };
    view! {
        {offered.then(|| view! {
            <button type="button" class="cs-link-button cs-team__earlier" data-part="load-earlier" node_ref=button aria-disabled=move || busy().to_string() on:click=click>
                {label}
            </button>
        })}
        {move || failed().map(|error| view! {
            <p class="cs-team__earlier-error" data-part="earlier-error" role="alert">{trf(shell, Text::EarlierFailed, vec![("error", error)])}</p>
        })}
    }
}

fn member_row(
    shell: Shell,
    m: &Member,
    team: &Team,
    opened: RwSignal<std::collections::HashSet<String>>,
    earlier: Earlier,
) -> impl IntoView {
    // The status as given; none given is unknown, never assumed.
    let status = m
        .status
        .clone()
        .map(|s| s.replace('_', " "))
        .unwrap_or_else(|| tr(shell, Text::AcpUnknown).get_untracked());
    let details = [m.role.clone(), m.model.clone()]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" · ");
    // The parent is named by the teammate whose session it is, when the roster has it.
    let parent = m.parent_session_id.as_ref().map(|p| {
        team.members
            .iter()
            .find(|o| o.session_id.as_deref() == Some(p.as_str()))
            .map_or_else(|| p.clone(), |o| o.label().to_owned())
    });
    // The teammate's own messages open on demand (bounded by the core).
    let transcript = (!m.transcript.is_empty()).then(|| {
        let lines = m
            .transcript
            .iter()
            .map(|l| view! { <li>{l.text.clone()}</li> })
            .collect_view();
        let (id, toggled) = (m.id.clone(), m.id.clone());
        let count = m.transcript.len();
        let list = NodeRef::<Ol>::new();
        let more = load_earlier(shell, m, earlier, list);
        view! {
            <details
                class="cs-team__transcript-box"
                prop:open=move || opened.with(|o| o.contains(&id))
                on:toggle=move |ev| {
                    let open = ev
                        .target()
                        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                        .is_some_and(|e| e.has_attribute("open"));
                    opened.update(|o| {
                        if open {
                            o.insert(toggled.clone());
                        } else {
                            o.remove(&toggled);
                        }
                    });
                }
            >
                <summary>{move || crate::ui::strings(shell).count(Text::TeammateTranscriptOne, Text::TeammateTranscript, count)}</summary>
                {more}
                <ol class="cs-team__transcript" data-part="teammate-transcript" data-has-more=m.transcript_has_more.to_string() tabindex="-1" node_ref=list>{lines}</ol>
            </details>
        }
    });
    view! {
        <li class="cs-team__member" data-part="teammate" data-agent=m.id.clone() data-status=m.status.clone().unwrap_or_else(|| "unknown".into()) data-remote=m.remote.to_string()>
            <span class="cs-team__member-name">{m.label().to_owned()}</span>
            <span class="cs-team__status" data-part="teammate-status">{status}</span>
            {(!details.is_empty()).then(|| view! { <span class="cs-team__details">{details}</span> })}
            {m.message.clone().map(|t| view! { <span class="cs-team__message" dir="auto">{t}</span> })}
            {parent.map(|p| view! { <span class="cs-team__lineage" data-part="lineage">{trf(shell, Text::ChildOf, vec![("parent", p)])}</span> })}
            {m.needs_input().then(|| {
                let agent = m.id.clone();
                view! {
                    <button
                        type="button"
                        class="cs-link-button cs-team__answer"
                        data-part="teammate-answer"
                        on:click=move |ev| {
                            if let Some(el) = ev.current_target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()) {
                                go_to_question(shell, &agent, el);
                            }
                        }
                    >
                        {trf(shell, Text::TeammateAnswer, vec![("agent", m.label().to_owned())])}
                    </button>
                }
            })}
            {transcript}
        </li>
    }
}

/// A note in the conversation: never a message, never the answer.
#[component]
pub fn NoteView(id: ItemId) -> impl IntoView {
    let shell = use_shell();
    let item_id = id.clone();
    let note = item_memo(shell, id.clone(), |i| match &i.entry.kind {
        EntryKind::Note(n) => Some((n.clone(), i.agent.as_ref().map(|a| a.name.clone()))),
        _ => None,
    });
    move || {
        let (note, agent) = note.get()?;
        Some(match note {
            Note::WorkerNotification {
                agent_id,
                status,
                summary,
                duration_ms,
                tool_count,
                ..
            } => {
                let who = agent.unwrap_or_else(|| agent_id.clone());
                let facts = [
                    status.clone(),
                    duration_ms.map(|ms| format!("{:.1} s", ms as f64 / 1000.0)),
                    tool_count.map(|n| {
                        crate::ui::strings(shell).count(
                            Text::ToolCallsFoldedOne,
                            Text::ToolCallsFolded,
                            n as usize,
                        )
                    }),
                ]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join(" · ");
                view! {
                    <div class="cs-note cs-note--worker" data-part="worker-notification" data-agent=agent_id data-status=status role="note">
                        <span class="cs-note__label">{trf(shell, Text::WorkerReported, vec![("agent", who)])}</span>
                        {(!facts.is_empty()).then(|| view! { <span class="cs-note__facts">{facts}</span> })}
                        <span class="cs-note__text" dir="auto">{summary}</span>
                    </div>
                }
                .into_any()
            }
            Note::Handoff { from, to, reason } => view! {
                <div class="cs-note cs-note--handoff" data-part="handoff" data-from=from.clone() data-to=to.clone() role="note">
                    <span class="cs-note__label">{trf(shell, Text::HandoffNote, vec![("from", member_name(shell, &from)), ("to", member_name(shell, &to))])}</span>
                    {reason.map(|r| view! { <span class="cs-note__text" dir="auto">{r}</span> })}
                </div>
            }
            .into_any(),
            Note::Steer { text, status, .. } => view! {
                <div class="cs-note cs-note--steer" data-part="steer" data-status=status role="note">
                    <span class="cs-note__label">{tr(shell, Text::SteeredNote)}</span>
                    <span class="cs-note__text" dir="auto">{text}</span>
                </div>
            }
            .into_any(),
            Note::Question {
                question,
                placeholder,
                answer,
                ..
            } => view! {
                <QuestionCard id=item_id.clone() question=question placeholder=placeholder answer=answer agent=agent />
            }
            .into_any(),
            Note::Context { text } => view! {
                <div class="cs-note cs-note--boundary" data-part="context-boundary" role="separator" aria-label=text.clone()>
                    <span class="cs-note__text" dir="auto">{text.clone()}</span>
                </div>
            }
            .into_any(),
            Note::Artifact {
                artifact_id,
                title,
                kind,
                body,
            } => {
                // The body opens in the views area (its own tab), never in the transcript.
                let open = body.map(|body| {
                    let artifact = OpenArtifact {
                        artifact_id: artifact_id.clone(),
                        title: title.clone(),
                        kind: kind.clone(),
                        body,
                    };
                    let name = trf(shell, Text::ArtifactOpen, vec![("title", title.clone())]);
                    view! {
                        <button
                            type="button"
                            class="cs-button cs-button--ghost cs-note__open"
                            aria-label=name
                            on:click=move |_| {
                                if let Some(s) = shell.signals() {
                                    s.views.open_artifact(artifact.clone());
                                }
                            }
                        >
                            {tr(shell, Text::Open)}
                        </button>
                    }
                });
                let label = title.clone();
                view! {
                    <div class="cs-note cs-note--artifact" data-part="artifact" data-artifact=artifact_id role="group" aria-label=label>
                        <span class="cs-note__label">{tr(shell, Text::ArtifactLabel)}</span>
                        <span class="cs-note__title">{title}</span>
                        {kind.map(|k| view! { <span class="cs-note__facts">{k}</span> })}
                        {open}
                    </div>
                }
                .into_any()
            }
        })
    }
}

/// A teammate's name from the roster, else its id as given.
fn member_name(shell: Shell, id: &str) -> String {
    shell
        .with(|rt| {
            rt.with_state(|s| {
                s.team
                    .as_ref()
                    .and_then(|t| t.member(id))
                    .map(|m| m.label().to_owned())
            })
        })
        .flatten()
        .unwrap_or_else(|| id.to_owned())
}

/// A question the runtime asks (a clarification): the question, who asks, and a text
/// field with Answer; answered only once the runtime confirms the text it took. Until
/// then it says it waits: a question never makes the run look finished.
#[component]
fn QuestionCard(
    id: ItemId,
    question: String,
    placeholder: Option<String>,
    answer: Option<String>,
    agent: Option<String>,
) -> impl IntoView {
    let shell = use_shell();
    let signals = shell.signals().expect("runtime exists while mounted");
    let asks = match agent {
        Some(agent) => trf(shell, Text::QuestionAsks, vec![("agent", agent)]),
        None => tr(shell, Text::QuestionAsked),
    };
    if let Some(answer) = answer {
        let label = question.clone();
        return view! {
            <div class="cs-note cs-note--question" data-part="question" data-answered="true" role="group" aria-label=label>
                <span class="cs-note__label">{asks}</span>
                <span class="cs-note__text" dir="auto">{question}</span>
                <span class="cs-note__text" dir="auto" data-part="question-answer">{trf(shell, Text::QuestionAnswered, vec![("answer", answer)])}</span>
            </div>
        }
        .into_any();
    }
    // The typed answer is view state: it stays if the request fails.
    let text = RwSignal::new(String::new());
    let sent = RwSignal::new(false);
    let streaming = move || signals.streaming.get().is_some();
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let answer = text.get_untracked();
        if shell
            .with(|rt| rt.answer_question(&id, answer))
            .unwrap_or(false)
        {
            sent.set(true);
        }
    };
    let label = question.clone();
    view! {
        <form class="cs-note cs-note--question" data-part="question" data-answered="false" aria-label=label on:submit=on_submit>
            <span class="cs-note__label">{asks}</span>
            <label class="cs-note__text cs-question__field">
                <span>{question}</span>
                <textarea
                    class="cs-question__input"
                    rows="2"
                    placeholder=placeholder
                    prop:value=move || text.get()
                    on:input=move |ev| text.set(event_target_value(&ev))
                ></textarea>
            </label>
            <button
                type="submit"
                class="cs-button cs-button--primary"
                disabled=move || streaming() || text.with(|t| t.trim().is_empty())
            >
                {tr(shell, Text::AnswerQuestion)}
            </button>
            <span class="cs-note__facts" data-part="question-waiting" role="status">
                {move || if sent.get() && streaming() { tr(shell, Text::QuestionSending).get() } else { tr(shell, Text::QuestionWaiting).get() }}
            </span>
        </form>
    }
    .into_any()
}

/// A snake_case or kebab-case word of the runtime as a phrase: `coordinator_team` ->
/// "Coordinator team".
fn as_words(word: &str) -> String {
    let spaced = word.replace(['_', '-'], " ");
    let mut chars = spaced.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}
