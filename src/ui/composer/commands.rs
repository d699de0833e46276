//! The slash-command list: typing `/` at the start of the draft lists the agent's commands,
//! filtered as the name is typed (`core::session::command_matches`). The textbox keeps
//! the focus and points at the active option (`aria-activedescendant`); arrows move, Enter
//! or Tab completes the draft to `/name `, Escape closes. It follows every update of the
//! commands: one the agent withdrew is gone even while the list is open.

use super::listbox::{ActiveOption, ListKey, Listbox};
use crate::runtime::Shell;
use crate::ui::{tr, use_shell};
use chat_shell_core::protocol::chatkit::Command;
use chat_shell_core::session::{command_draft, command_matches};
use chat_shell_core::strings::Text;
use leptos::prelude::*;

/// The list's state, shared by the textbox (keys, ARIA) and the list.
#[derive(Clone, Copy)]
pub(crate) struct CommandMenu {
    matches: Memo<Vec<Command>>,
    active: ActiveOption,
    /// Escape closed it, until the draft changes.
    dismissed: RwSignal<bool>,
    shell: Shell,
}

impl Listbox for CommandMenu {
    fn is_open(&self) -> bool {
        !self.dismissed.get() && !self.matches.with(Vec::is_empty)
    }

    fn len(&self) -> usize {
        self.matches.with(Vec::len)
    }

    fn active(&self) -> ActiveOption {
        self.active
    }
}

impl CommandMenu {
    pub(crate) fn new() -> Self {
        let shell = use_shell();
        let signals = shell.signals().expect("runtime exists while mounted");
        let matches = Memo::new(move |_| {
            signals.session.state.with(|s| {
                let Some(s) = s else { return Vec::new() };
                signals.draft.with(|d| {
                    command_matches(&s.commands, d)
                        .map(|m| m.into_iter().cloned().collect())
                        .unwrap_or_default()
                })
            })
        });
        CommandMenu {
            matches,
            active: ActiveOption::new("commands"),
            dismissed: RwSignal::new(false),
            shell,
        }
    }

    /// The draft changed by typing: the list opens again, at its first option.
    pub(crate) fn typed(&self) {
        self.dismissed.set(false);
        self.active.reset();
    }

    fn choose(&self, i: usize) {
        let Some(command) = self.matches.with_untracked(|m| m.get(i).cloned()) else {
            return;
        };
        if let Some(signals) = self.shell.signals() {
            signals.draft.set(command_draft(&command));
        }
    }

    /// A key in the textbox: true when the list took it.
    pub(crate) fn key(&self, ev: &web_sys::KeyboardEvent) -> bool {
        if !self.is_open() {
            return false;
        }
        match self.active.key(ev, self.matches.with_untracked(Vec::len)) {
            Some(ListKey::Choose(i)) => self.choose(i),
            Some(ListKey::Close) => self.dismissed.set(true),
            Some(ListKey::Moved) => {}
            None => return false,
        }
        true
    }
}

/// The listbox "Commands", above the composer while open.
#[component]
pub(crate) fn CommandList(menu: CommandMenu) -> impl IntoView {
    let shell = use_shell();
    move || {
        menu.is_open().then(|| {
            let active = menu.active_index();
            let options = menu
                .matches
                .get()
                .into_iter()
                .enumerate()
                .map(|(i, command)| {
                    let hint = command.hint.clone().map(|h| {
                        view! { " " <span class="cs-commands__hint">{h}</span> }
                    });
                    view! {
                        <li
                            role="option"
                            id=menu.active.option_id(i)
                            class="cs-commands__option"
                            aria-selected=if i == active { "true" } else { "false" }
                            on:mousedown=move |ev| {
                                // The textbox keeps the focus.
                                ev.prevent_default();
                                menu.choose(i);
                            }
                        >
                            <span class="cs-commands__name">{format!("/{}", command.name)}</span>
                            " "
                            <span class="cs-commands__description">{command.description.clone()}</span>
                            {hint}
                        </li>
                    }
                })
                .collect_view();
            view! {
                <ul
                    class="cs-commands"
                    data-part="commands"
                    role="listbox"
                    id=menu.active.list_id()
                    aria-label=tr(shell, Text::Commands)
                >
                    {options}
                </ul>
            }
        })
    }
}
