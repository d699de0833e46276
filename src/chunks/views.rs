//! The views a first screen does not need: widgets, client tools, structured input, agent
//! tool calls, plans and thoughts, team notes and the roster, tasks and workflows,
//! generated images, the view tabs and their panels (the Diff view, the artifact), the
//! conversation history, the find bar, a finished turn's action bar and an answer's
//! sources, a user message's Edit and branches, the header's menus and the export, and the attachment tray's files.
//!
//! Each is an entry point of a chunk (`crate::chunks`): `widgets`, which the loader
//! prefetches as soon as the first module runs (`prefetch_widgets`), `on_demand`, the
//! others, which it prefetches once the renderer is in (`prefetch`), and
//! `attachments`, the tray's, which comes with the code that takes files
//! (`chunks::runtime`). A view asked for before its chunk is there shows nothing until
//! it arrives, then appears in place. If the chunk cannot be fetched, the view says so and
//! offers to try again; nothing else on the page is affected.

use super::{entry_points, ChunkCode, LoadFailed};
use crate::runtime::{EntryView, ItemKey, Shell};
use crate::ui::composer::commands::{CommandList, CommandMenu};
use crate::ui::composer::controls::SessionControls;
use crate::ui::composer::dictation::Dictation;
use crate::ui::composer::mentions::{self, MentionHooks, MentionList, MentionMenu, MentionOverlay};
use crate::ui::composer::pickers::ChatKitPickers;
use crate::ui::composer::tray::tray_list;
use crate::ui::conversation::branches::UserMessageTools;
use crate::ui::conversation::elicitation::ElicitationView;
use crate::ui::conversation::image::GeneratedImageView;
use crate::ui::conversation::message_actions::MessageActions;
use crate::ui::conversation::plan::{PlanView, ThoughtView};
use crate::ui::conversation::sources::SourcesList;
use crate::ui::conversation::tasks::TasksView;
use crate::ui::conversation::window::{self, WindowHooks};
use crate::ui::find::FindBar;
use crate::ui::history::HistoryView;
use crate::ui::menu::{self, ExportMenu, MoreMenu};
use crate::ui::resize::ResizeHandles;
use crate::ui::style;
use crate::ui::team::{NoteView, TeamRoster};
use crate::ui::tools::call::{ToolCallSummaryView, ToolCallView};
use crate::ui::tools::tabs::{self, ViewTabs};
use crate::ui::tr;
use crate::ui::usage::UsageMeter;
use crate::ui::widgets::{ClientToolCallView, ClientWidgetView, StructuredInputView, WidgetView};
use chat_shell_core::citations::Citation;
use chat_shell_core::protocol::chatkit::ItemId;
use chat_shell_core::strings::Text;
use leptos::html;
use leptos::prelude::*;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

/// A view the first module does not carry, built once its code is there.
type Built = Result<AnyView, LoadFailed>;

// Each builds its view untracked, so the `Suspend` holding it re-runs only on a retry,
// never on the state the view itself reads.
entry_points! {
    widgets preload preload_widgets:
        fn build_widget_item(key: ItemKey) -> AnyView {
            style::add(style::WIDGETS);
            untrack(move || widget_item_view(key))
        }
    on_demand preload preload_views:
        fn build_item(key: ItemKey) -> AnyView {
            style::add(style::ITEMS);
            untrack(move || item_view(key))
        }
    on_demand:
        fn build_team_roster() -> AnyView {
            style::add(style::TEAM);
            untrack(move || view! { <TeamRoster /> }.into_any())
        }
    on_demand:
        fn build_view_tabs() -> AnyView {
            untrack(move || view! { <ViewTabs /> }.into_any())
        }
    on_demand:
        fn build_view_panel(shell: Shell, view_type: String) -> AnyView {
            style::add(style::ITEMS);
            untrack(move || tabs::panel(shell, view_type))
        }
    attachments:
        fn build_tray(shell: Shell) -> AnyView {
            untrack(move || tray_list(shell))
        }
    on_demand:
        fn build_session_controls() -> AnyView {
            untrack(move || view! { <SessionControls /> }.into_any())
        }
    on_demand:
        fn build_pickers() -> AnyView {
            untrack(move || view! { <ChatKitPickers /> }.into_any())
        }
    on_demand:
        fn linked_mention_hooks() -> &'static dyn MentionHooks {
            &mentions::Linked
        }
    on_demand:
        fn build_resize_handles() -> AnyView {
            untrack(move || view! { <ResizeHandles /> }.into_any())
        }
    on_demand:
        fn build_find_bar() -> AnyView {
            style::add(style::MENUS);
            untrack(move || view! { <FindBar /> }.into_any())
        }
    on_demand:
        fn build_sources(cited: Vec<Citation>) -> AnyView {
            untrack(move || view! { <SourcesList cited=cited /> }.into_any())
        }
    on_demand:
        fn build_message_actions(id: ItemId, answers: Vec<ItemId>, latest: bool) -> AnyView {
            style::add(style::BRANCHES);
            untrack(move || view! { <MessageActions id=id answers=answers latest=latest /> }.into_any())
        }
    on_demand:
        fn build_user_message_tools(id: ItemId, editing: RwSignal<bool>) -> AnyView {
            style::add(style::BRANCHES);
            untrack(move || view! { <UserMessageTools id=id editing=editing /> }.into_any())
        }
    on_demand:
        fn linked_window_hooks() -> &'static dyn WindowHooks {
            &window::Linked
        }
    on_demand:
        fn build_mention_list(menu: MentionMenu, textarea: NodeRef<html::Textarea>) -> AnyView {
            untrack(move || view! { <MentionList menu=menu textarea=textarea /> }.into_any())
        }
    on_demand:
        fn build_mention_overlay(textarea: NodeRef<html::Textarea>, scrolled: RwSignal<i32>) -> AnyView {
            untrack(move || view! { <MentionOverlay textarea=textarea scrolled=scrolled /> }.into_any())
        }
    on_demand:
        fn build_command_list(menu: CommandMenu) -> AnyView {
            untrack(move || view! { <CommandList menu=menu /> }.into_any())
        }
    on_demand:
        fn build_dictation(textarea: NodeRef<html::Textarea>) -> AnyView {
            untrack(move || view! { <Dictation textarea=textarea /> }.into_any())
        }
    on_demand:
        fn build_export_menu(button: NodeRef<html::Button>, open: RwSignal<bool>) -> AnyView {
            style::add(style::MENUS);
            untrack(move || view! { <ExportMenu button=button open=open /> }.into_any())
        }
    on_demand:
        fn build_more_menu(button: NodeRef<html::Button>, open: RwSignal<bool>) -> AnyView {
            style::add(style::MENUS);
            untrack(move || view! { <MoreMenu button=button open=open /> }.into_any())
        }
    on_demand:
        fn exported(shell: Shell, format: String) -> Option<String> {
            chat_shell_core::export::Format::from_name(&format)
                .and_then(|format| menu::exported(shell, format))
        }
    on_demand:
        fn build_usage_meter() -> AnyView {
            untrack(move || view! { <UsageMeter /> }.into_any())
        }
    on_demand:
        fn build_history(history_button: NodeRef<html::Button>) -> AnyView {
            style::add(style::HISTORY);
            untrack(move || {
                view! { <HistoryView history_button=history_button /> }.into_any()
            })
        }
}

/// Widgets, client widgets, client tool calls and structured input: the views of the
/// `widgets` chunk, fetched first after the first module.
fn widget_item_view(key: ItemKey) -> AnyView {
    let id = key.id;
    match key.view {
        EntryView::Widget => view! { <WidgetView id=id /> }.into_any(),
        EntryView::ClientWidget => view! { <ClientWidgetView id=id /> }.into_any(),
        EntryView::ClientToolCall => view! { <ClientToolCallView id=id /> }.into_any(),
        EntryView::StructuredInput => view! { <StructuredInputView id=id /> }.into_any(),
        // `ui::conversation::items::Item` sends only those here.
        _ => ().into_any(),
    }
}

/// The other items whose views the first screen does not need.
fn item_view(key: ItemKey) -> AnyView {
    let ItemKey { id, view, members } = key;
    match view {
        EntryView::Tasks => view! { <TasksView id=id /> }.into_any(),
        EntryView::GeneratedImage => view! { <GeneratedImageView id=id /> }.into_any(),
        EntryView::ToolCall => view! { <ToolCallView id=id /> }.into_any(),
        EntryView::Plan => view! { <PlanView id=id /> }.into_any(),
        EntryView::Thought => view! { <ThoughtView id=id /> }.into_any(),
        EntryView::ToolCallSummary => view! { <ToolCallSummaryView members=members /> }.into_any(),
        EntryView::Note => view! { <NoteView id=id /> }.into_any(),
        EntryView::Elicitation => view! { <ElicitationView id=id /> }.into_any(),
        // The first screen's views: `ui::conversation::items::Item` shows those itself.
        _ => ().into_any(),
    }
}

/// Fetches the widgets chunk ahead of need: the loader (`src/chat-shell.js`) starts this as
/// soon as the first module runs, before the renderer (a widget cannot show without
/// its chunk, an answer shows as text until the renderer is there). Settles either way; a
/// failure is not reported here: a view that needs the chunk tries again and says so.
#[wasm_bindgen::prelude::wasm_bindgen(js_name = prefetchWidgets)]
pub async fn prefetch_widgets() {
    let _ = entry::preload_widgets().await;
}

/// Fetches the chunk of the other views ahead of need: the loader starts it once the
/// renderer is in. Settles either way, like [`prefetch_widgets`].
#[wasm_bindgen::prelude::wasm_bindgen(js_name = prefetchViews)]
pub async fn prefetch() {
    let _ = entry::preload_views().await;
}

/// How to build a view from its chunk: called again on each retry.
type Build = Arc<dyn Fn() -> Pin<Box<dyn Future<Output = Built>>> + Send + Sync>;

/// `build` as a [`Build`]: the one generic step per call site is this boxing shim, so
/// the machinery of [`when_loaded`] is in the first module once, not once per view.
fn build<Fut>(build: impl Fn() -> Fut + Send + Sync + 'static) -> Build
where
    Fut: Future<Output = Built> + 'static,
{
    Arc::new(move || Box::pin(build()))
}

/// Shows what `make` builds once the chunk is there; until then nothing; if the chunk
/// cannot be fetched, a message with a way to try again.
fn when_loaded(shell: Shell, make: Build) -> AnyView {
    let attempt = RwSignal::new(0u32);
    (move || {
        attempt.track();
        // The split loader's future is not `Send`; the element runs on one thread.
        let built = send_wrapper::SendWrapper::new(make());
        Suspend::new(async move {
            match built.await {
                Ok(view) => view,
                Err(LoadFailed) => load_failed(shell, attempt),
            }
        })
    })
    .into_any()
}

fn load_failed(shell: Shell, attempt: RwSignal<u32>) -> AnyView {
    view! {
        <div class="cs-error" role="alert" data-part="load-failed">
            <p class="cs-error__message">{tr(shell, Text::PartLoadFailed)}</p>
            <button type="button" class="cs-button" on:click=move |_| attempt.update(|n| *n += 1)>
                {tr(shell, Text::TryAgain)}
            </button>
        </div>
    }
    .into_any()
}

/// A widget, client widget, client tool call or structured input.
pub(crate) fn widget_item(shell: Shell, key: ItemKey) -> AnyView {
    when_loaded(shell, build(move || entry::build_widget_item(key.clone())))
}

/// Any other item whose view the first screen does not need.
pub(crate) fn item(shell: Shell, key: ItemKey) -> AnyView {
    when_loaded(shell, build(move || entry::build_item(key.clone())))
}

/// The team roster, once the conversation has a team.
pub(crate) fn team_roster(shell: Shell) -> AnyView {
    when_loaded(shell, build(entry::build_team_roster))
}

/// The find bar, while it is open.
pub(crate) fn find_bar(shell: Shell) -> AnyView {
    when_loaded(shell, build(entry::build_find_bar))
}

/// The numbered sources under an answer that cites some.
pub(crate) fn sources(shell: Shell, cited: Vec<Citation>) -> AnyView {
    when_loaded(shell, build(move || entry::build_sources(cited.clone())))
}

/// A finished turn's action bar (Copy, feedback, Retry), in its last answer.
pub(crate) fn message_actions(
    shell: Shell,
    id: ItemId,
    answers: Vec<ItemId>,
    latest: bool,
) -> AnyView {
    when_loaded(
        shell,
        build(move || entry::build_message_actions(id.clone(), answers.clone(), latest)),
    )
}

/// Under a user message of a thread that branches: Edit, and the picker of its branches.
pub(crate) fn user_message_tools(shell: Shell, id: ItemId, editing: RwSignal<bool>) -> AnyView {
    when_loaded(
        shell,
        build(move || entry::build_user_message_tools(id.clone(), editing)),
    )
}

/// The resize handles, once the host makes the element resizable.
pub(crate) fn resize_handles(shell: Shell) -> AnyView {
    when_loaded(shell, build(entry::build_resize_handles))
}

/// The header's tab strip, once the thread has a view.
pub(crate) fn view_tabs(shell: Shell) -> AnyView {
    when_loaded(shell, build(entry::build_view_tabs))
}

/// The panel of a tool-pushed view (the Diff view) or of the artifact opened.
pub(crate) fn view_panel(shell: Shell, view_type: String) -> AnyView {
    when_loaded(
        shell,
        build(move || entry::build_view_panel(shell, view_type.clone())),
    )
}

/// The attachment tray's list of files, once it has one (its chunk is the one that takes
/// files: `chunks::runtime`).
pub(crate) fn tray(shell: Shell) -> AnyView {
    when_loaded(shell, build(move || entry::build_tray(shell)))
}

/// The conversation history, while it is open.
pub(crate) fn history(shell: Shell, history_button: NodeRef<html::Button>) -> AnyView {
    when_loaded(shell, build(move || entry::build_history(history_button)))
}

/// The agent session's selectors, once the thread shown has a session.
pub(crate) fn session_controls(shell: Shell) -> AnyView {
    when_loaded(shell, build(entry::build_session_controls))
}

/// ChatKit's model picker and tool menu, once the host offers models or tools.
pub(crate) fn pickers(shell: Shell) -> AnyView {
    when_loaded(shell, build(entry::build_pickers))
}

thread_local! {
    static MENTION_HOOKS: ChunkCode<dyn MentionHooks> = ChunkCode::new();
    static WINDOW_HOOKS: ChunkCode<dyn WindowHooks> = ChunkCode::new();
}

/// The composer's mention code (`ui::composer::mentions::MentionHooks`) once its chunk is
/// there.
pub(crate) fn mention_hooks() -> Option<&'static dyn MentionHooks> {
    MENTION_HOOKS.with(ChunkCode::get)
}

/// The draft changed by typing: through the mention code when it is there; otherwise,
/// when an `@` was typed where something can be mentioned, fetches it and runs it then.
pub(crate) fn mention_input(
    menu: MentionMenu,
    textarea: web_sys::HtmlTextAreaElement,
    new: String,
) {
    if let Some(hooks) = mention_hooks() {
        hooks.input(menu, &textarea, new);
        return;
    }
    let wants = new.contains('@') && menu.shell.with(|rt| rt.can_mention()).unwrap_or(false);
    if let Some(signals) = menu.shell.signals() {
        signals.draft.set(new);
    }
    if wants {
        super::load(&MENTION_HOOKS, entry::linked_mention_hooks, move |linked| {
            if let Ok(hooks) = linked {
                hooks.input(menu, &textarea, textarea.value());
            }
        });
    }
}

/// The code that moves a long thread's window (`ui::conversation::window::WindowHooks`)
/// once its chunk is there; the first call asks for it, and sets `arrived` when it is in.
pub(crate) fn window_hooks(arrived: RwSignal<bool>) -> Option<&'static dyn WindowHooks> {
    super::load(&WINDOW_HOOKS, entry::linked_window_hooks, move |linked| {
        if linked.is_ok() {
            arrived.try_set(true);
        }
    });
    WINDOW_HOOKS.with(ChunkCode::get)
}

/// The mention list, while an `@` has matches.
pub(crate) fn mention_list(
    shell: Shell,
    menu: MentionMenu,
    textarea: NodeRef<html::Textarea>,
) -> AnyView {
    when_loaded(
        shell,
        build(move || entry::build_mention_list(menu, textarea)),
    )
}

/// The draft's mentions as chips over the textbox, while it has some.
pub(crate) fn mention_overlay(
    shell: Shell,
    textarea: NodeRef<html::Textarea>,
    scrolled: RwSignal<i32>,
) -> AnyView {
    when_loaded(
        shell,
        build(move || entry::build_mention_overlay(textarea, scrolled)),
    )
}

/// The slash-command list, while it is open.
pub(crate) fn command_list(shell: Shell, menu: CommandMenu) -> AnyView {
    when_loaded(shell, build(move || entry::build_command_list(menu)))
}

/// The composer's microphone, while the host has dictation on.
pub(crate) fn dictation(shell: Shell, textarea: NodeRef<html::Textarea>) -> AnyView {
    when_loaded(shell, build(move || entry::build_dictation(textarea)))
}

/// The header's "Export" menu, while it is open.
pub(crate) fn export_menu(
    shell: Shell,
    button: NodeRef<html::Button>,
    open: RwSignal<bool>,
) -> AnyView {
    when_loaded(shell, build(move || entry::build_export_menu(button, open)))
}

/// The narrow header's "More" menu, while it is open.
pub(crate) fn more_menu(
    shell: Shell,
    button: NodeRef<html::Button>,
    open: RwSignal<bool>,
) -> AnyView {
    when_loaded(shell, build(move || entry::build_more_menu(button, open)))
}

/// The conversation shown as `format` (`"markdown"` or `"json"`; `None` for another).
pub(crate) async fn exported(shell: Shell, format: String) -> Result<Option<String>, LoadFailed> {
    entry::exported(shell, format).await
}

/// The usage meter, once the agent reported its usage.
pub(crate) fn usage_meter(shell: Shell) -> AnyView {
    when_loaded(shell, build(entry::build_usage_meter))
}
