//! Branches in the conversation: Edit on a user message (its text in a textbox, sent as
//! a new branch beside it), and the picker that steps between an item's branches
//! ("Previous branch", "2 / 3", "Next branch"). In a chunk: only threads that branch load
//! it (`crate::chunks::views`).

use crate::ui::glyphs::{glyph, Glyph};
use crate::ui::{item_memo, tr, trf, use_shell};
use chat_shell_core::model::EntryKind;
use chat_shell_core::protocol::chatkit::{ItemId, UserContent};
use chat_shell_core::strings::Text;
use leptos::ev::KeyboardEvent;
use leptos::html;
use leptos::prelude::*;

/// Under a user message: "Edit", the edit itself while `editing`, and the picker of the
/// message's branches.
#[component]
pub(crate) fn UserMessageTools(id: ItemId, editing: RwSignal<bool>) -> impl IntoView {
    let shell = use_shell();
    let signals = shell.signals().expect("runtime exists while mounted");
    let edit_button = NodeRef::<html::Button>::new();
    let field = NodeRef::<html::Textarea>::new();
    let draft = RwSignal::new(String::new());
    let text_id = id.clone();
    let text = item_memo(shell, text_id, |i| match &i.entry.kind {
        EntryKind::UserMessage(m) => m
            .content
            .iter()
            .filter_map(|part| match part {
                UserContent::InputText(t) => Some(t.text.clone()),
                UserContent::InputTag(t) => Some(format!("@{}", t.text)),
                UserContent::Other(_) => None,
            })
            .collect::<Vec<_>>()
            .join(""),
        _ => String::new(),
    });
    let busy = move || signals.streaming.get().is_some();
    let open = move |_| {
        draft.set(text.get_untracked());
        editing.set(true);
    };
    // The textbox takes focus as it opens, its text selected to the end.
    Effect::new(move |_| {
        if editing.get() {
            if let Some(el) = field.get() {
                let _ = el.focus();
                let end = el.value().len() as u32;
                let _ = el.set_selection_range(end, end);
            }
        }
    });
    // Back to the message: Edit takes the focus again once it shows.
    let close = move || {
        editing.set(false);
        request_animation_frame(move || {
            if let Some(button) = edit_button.get_untracked() {
                let _ = button.focus();
            }
        });
    };
    let send_id = id.clone();
    let send = move || {
        let text = draft.get_untracked();
        let sent = shell
            .with(|rt| rt.edit_message(&send_id, text))
            .unwrap_or(false);
        if sent {
            editing.set(false);
        }
    };
    let send_click = send.clone();
    let keydown = move |ev: KeyboardEvent| match ev.key().as_str() {
        "Escape" => {
            ev.prevent_default();
            close();
        }
        "Enter" if !ev.shift_key() && !ev.is_composing() => {
            ev.prevent_default();
            send();
        }
        _ => {}
    };
    let picker_id = id.clone();
    view! {
        <div class="cs-msg__tools" data-part="message-tools" hidden=move || editing.get()>
            <BranchPicker id=picker_id />
            <button
                type="button"
                class="cs-button cs-button--ghost cs-msg__edit"
                node_ref=edit_button
                aria-label=tr(shell, Text::Edit)
                title=tr(shell, Text::Edit)
                disabled=busy
                on:click=open
            >
                {glyph(Glyph::Edit)}
            </button>
        </div>
        <Show when=move || editing.get()>
            <div class="cs-edit" data-part="message-edit">
                <textarea
                    class="cs-edit__field"
                    node_ref=field
                    aria-label=tr(shell, Text::EditMessage)
                    dir="auto"
                    rows="3"
                    prop:value=move || draft.get()
                    on:input=move |ev| draft.set(event_target_value(&ev))
                    on:keydown=keydown.clone()
                ></textarea>
                <div class="cs-edit__buttons">
                    <button type="button" class="cs-button cs-button--ghost" on:click=move |_| close()>
                        {tr(shell, Text::Cancel)}
                    </button>
                    <button
                        type="button"
                        class="cs-button cs-button--primary"
                        disabled=move || busy() || draft.with(|d| d.trim().is_empty())
                        on:click={
                            let send = send_click.clone();
                            move |_| send()
                        }
                    >
                        {tr(shell, Text::Send)}
                    </button>
                </div>
            </div>
        </Show>
    }
}
/// "Previous branch", "N / M", "Next branch" for the item `id`, where it has branches.
#[component]
pub(crate) fn BranchPicker(id: ItemId) -> impl IntoView {
    let shell = use_shell();
    let signals = shell.signals().expect("runtime exists while mounted");
    let branches = item_memo(shell, id, |i| {
        i.entry
            .branch_position()
            .map(|(at, _)| (at, i.entry.branches.clone()))
    });
    let busy = move || signals.streaming.get().is_some();
    let step = move |by: isize| {
        let Some((at, all)) = branches.get_untracked() else {
            return;
        };
        let next = at as isize - 1 + by;
        if let Some(target) = usize::try_from(next).ok().and_then(|n| all.get(n)) {
            let target = target.clone();
            shell.with(|rt| rt.select_branch(target));
        }
    };
    move || {
        branches.get().map(|(at, all)| {
            let count = all.len();
            let (first, last) = (at <= 1, at >= count);
            let position = trf(
                shell,
                Text::BranchPosition,
                vec![("n", at.to_string()), ("count", count.to_string())],
            );
            view! {
                <div class="cs-branches" role="group" aria-label=tr(shell, Text::Branches) data-part="branches">
                    <button
                        type="button"
                        class="cs-button cs-button--ghost"
                        aria-label=tr(shell, Text::PreviousBranch)
                        disabled=move || busy() || first
                        on:click=move |_| step(-1)
                    >
                        {glyph(Glyph::ChevronStart)}
                    </button>
                    <span class="cs-branches__position" data-part="branch-position">{position}</span>
                    <button
                        type="button"
                        class="cs-button cs-button--ghost"
                        aria-label=tr(shell, Text::NextBranch)
                        disabled=move || busy() || last
                        on:click=move |_| step(1)
                    >
                        {glyph(Glyph::ChevronEnd)}
                    </button>
                </div>
            }
        })
    }
}
