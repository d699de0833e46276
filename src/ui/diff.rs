//! DiffView: a patch pushed by a tool (the `diff` view), file by file: a summary, a file
//! list that jumps to each file, and per file its header, notes and hunks, unified or side
//! by side. Also the one renderer of diff rows, and a file change (old and new text) as a
//! diff, which ACP tool calls and permission cards show.
//!
//! Everything from the patch (paths, lines) is shown as text. A big patch stays
//! responsive: a file's rows are built only once it is expanded and near the visible part
//! of the view (a placeholder of about its height stands in until then), and files with
//! more than [`LARGE_FILE_ROWS`] rows start collapsed. A new patch updates the view in
//! place: the layout and each file's expanded state (by path) stay. A tool call's
//! location finds its place in the view with `Patch::anchor` (chat-shell-core).

use crate::runtime::Shell;
use crate::ui::use_shell;
use crate::ui::{strings, tr, trf};
use chat_shell_core::diff::line_diff;
use chat_shell_core::diff::{anchor_id, parse_patch, DiffRow, FileStatus, Patch, PatchFile};
use chat_shell_core::strings::{Strings, Text};
use leptos::html;
use leptos::prelude::*;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use wasm_bindgen::prelude::*;
use web_sys::{IntersectionObserver, IntersectionObserverEntry, IntersectionObserverInit};

/// Files with more rows than this start collapsed.
const LARGE_FILE_ROWS: usize = 1000;
/// A file's rows are built when it comes this close (px) to the visible part of the view.
const NEAR_PX: u32 = 800;

/// How rows are laid out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DiffLayout {
    /// One column: removed lines above the added lines that replace them.
    #[default]
    Unified,
    /// Old text on the left, new on the right.
    SideBySide,
}

/// The `.cs-diff__lines` block of some rows: set with one HTML parse (a 2,000-line diff is
/// thousands of nodes), from markup the core writes around escaped text
/// (`diff::rows_html`), in chunks that layout skips off screen. The lines are highlighted
/// when `path` names a language (`chunks::highlight`; a reactive read, so the caller's
/// closure runs again when the highlighter comes).
pub(crate) fn diff_rows(
    rows: &[DiffRow],
    layout: DiffLayout,
    strings: &Strings,
    path: Option<&str>,
) -> AnyView {
    let side_by_side = layout == DiffLayout::SideBySide;
    let html = crate::chunks::highlight::diff_html(path, rows, side_by_side, strings).into_string();
    view! {
        <div class="cs-diff__lines" class:cs-diff__lines--split=side_by_side inner_html=html></div>
    }
    .into_any()
}

/// A parsed patch with its files' keys, shared by the view's parts.
#[derive(Debug, PartialEq)]
struct Parsed {
    patch: Patch,
    keys: Vec<String>,
    index: HashMap<String, usize>,
}

impl Parsed {
    fn new(patch: Patch) -> Self {
        let keys = patch.keys();
        let index = keys
            .iter()
            .enumerate()
            .map(|(i, k)| (k.clone(), i))
            .collect();
        Parsed { patch, keys, index }
    }

    fn file(&self, key: &str) -> Option<&PatchFile> {
        self.index.get(key).map(|&i| &self.patch.files[i])
    }
}

/// What the view's parts share: the patch and what the reader chose, which outlives a
/// new patch.
#[derive(Clone, Copy)]
struct DiffState {
    parsed: Memo<Arc<Parsed>>,
    layout: RwSignal<DiffLayout>,
    /// Expanded or collapsed by the reader, by key; others follow the file's size.
    open: RwSignal<HashMap<String, bool>>,
    /// Files that have come near the visible part: their rows may be built.
    near: RwSignal<HashSet<String>>,
    watch: NearWatch,
    view: NodeRef<html::Div>,
}

/// A tool's patch as a diff. Mount it where it can scroll: it fills its container's
/// height and scrolls its files itself.
#[component]
pub fn DiffView(
    /// The element's runtime (for its strings).
    /// The patch: `content.patch` of the `diff` view, a git or unified diff.
    #[prop(into)]
    patch: Signal<String>,
) -> impl IntoView {
    let shell = use_shell();
    let parsed = Memo::new(move |_| Arc::new(Parsed::new(patch.with(|p| parse_patch(p)))));
    let scroller = NodeRef::<html::Div>::new();
    let near = RwSignal::new(HashSet::new());
    let state = DiffState {
        parsed,
        layout: RwSignal::new(DiffLayout::default()),
        open: RwSignal::new(HashMap::new()),
        near,
        watch: NearWatch::new(scroller, near),
        view: NodeRef::new(),
    };
    let summary = move || {
        let (files, added, removed) = parsed.with(|p| {
            let p = &p.patch;
            (p.files.len(), p.added(), p.removed())
        });
        let text = if files == 1 {
            tr(shell, Text::DiffOneFileChanged)
        } else {
            trf(
                shell,
                Text::DiffFilesChanged,
                vec![("count", files.to_string())],
            )
        };
        view! { <span>{text}</span>" "{counts(shell, added, removed)} }
    };
    let layout_button = move |layout: DiffLayout, label: Text| {
        view! {
            <button
                type="button"
                class="cs-diff-view__layout-option"
                aria-pressed=move || (state.layout.get() == layout).to_string()
                on:click=move |_| state.layout.set(layout)
            >
                {tr(shell, label)}
            </button>
        }
    };
    let notes = move || {
        parsed.with(|p| {
            let error = p.patch.error.clone().map(|e| {
                view! {
                    <p class="cs-diff-view__note cs-diff-view__note--error" data-part="diff-error" role="note">
                        {trf(shell, Text::DiffUnreadable, vec![("detail", e)])}
                    </p>
                }
            });
            let repairs = p.patch.repairs;
            let note = move |count: usize, text: Text, part: &'static str| {
                (count > 0).then(|| {
                    view! {
                        <p class="cs-diff-view__note" data-part=part role="note">
                            {trf(shell, text, vec![("count", count.to_string())])}
                        </p>
                    }
                })
            };
            let recounted = note(repairs.recounted, Text::DiffRecounted, "diff-recounted");
            let skipped = note(repairs.skipped, Text::DiffSkipped, "diff-skipped");
            let empty = (p.patch.files.is_empty() && p.patch.error.is_none()).then(|| {
                view! { <p class="cs-diff-view__note" data-part="diff-empty">{tr(shell, Text::DiffEmpty)}</p> }
            });
            view! { {error}{recounted}{skipped}{empty} }
        })
    };
    let keys = move || parsed.with(|p| p.keys.clone());
    view! {
        <div class="cs-diff-view" data-part="diff-view" node_ref=state.view>
            <div class="cs-diff-view__bar">
                <p class="cs-diff-view__summary" data-part="diff-summary">{summary}</p>
                <div class="cs-diff-view__layout" role="group" aria-label=tr(shell, Text::DiffLayout) data-part="diff-layout">
                    {layout_button(DiffLayout::Unified, Text::DiffUnified)}
                    {layout_button(DiffLayout::SideBySide, Text::DiffSideBySide)}
                </div>
            </div>
            <div class="cs-diff-view__scroll" node_ref=scroller>
                {notes}
                <ul class="cs-diff-view__files" data-part="diff-file-list" aria-label=tr(shell, Text::ChangedFiles)>
                    <For
                        each=keys
                        key=|k| k.clone()
                        children=move |key| view! { <FileEntry state=state key=key /> }
                    />
                </ul>
                <For
                    each=keys
                    key=|k| k.clone()
                    children=move |key| view! { <FileSection state=state key=key /> }
                />
            </div>
        </div>
    }
}

/// "+N −M", said in words to screen readers.
fn counts(shell: Shell, added: usize, removed: usize) -> impl IntoView {
    view! {
        <span class="cs-diff__counts">
            <span class="cs-diff__added" aria-hidden="true">{format!("+{added}")}</span>
            " "
            <span class="cs-diff__removed" aria-hidden="true">{format!("−{removed}")}</span>
            <span class="cs-sr-only">
                {trf(shell, Text::DiffLineCounts, vec![("added", added.to_string()), ("removed", removed.to_string())])}
            </span>
        </span>
    }
}

fn status_text(status: FileStatus) -> Text {
    match status {
        FileStatus::Added => Text::FileAdded,
        FileStatus::Modified => Text::FileModified,
        FileStatus::Deleted => Text::FileDeleted,
        FileStatus::Renamed => Text::FileRenamed,
        FileStatus::Copied => Text::FileCopied,
    }
}

/// The status letter, with its word for screen readers.
fn status_badge(shell: Shell, status: FileStatus) -> impl IntoView {
    view! {
        <span class="cs-diff__status" data-status=status.letter()>
            <span aria-hidden="true">{status.letter()}</span>
            <span class="cs-sr-only">{tr(shell, status_text(status))}</span>
        </span>
    }
}

/// A file's path as the view names it: a rename or a copy as "old → new".
fn path_label(file: &PatchFile) -> String {
    match (file.status, &file.old_path, &file.new_path) {
        (FileStatus::Renamed | FileStatus::Copied, Some(old), Some(new)) => {
            format!("{old} → {new}")
        }
        _ => file.path().to_owned(),
    }
}

/// What a file's header says about it, besides its path and counts.
#[derive(Clone, Debug, PartialEq)]
struct FileHead {
    status: FileStatus,
    path: String,
    label: String,
    added: usize,
    removed: usize,
}

impl FileHead {
    fn of(file: &PatchFile) -> Self {
        FileHead {
            status: file.status,
            path: file.path().to_owned(),
            label: path_label(file),
            added: file.added,
            removed: file.removed,
        }
    }
}

/// One entry of the file list: a button that brings the file into view.
#[component]
fn FileEntry(state: DiffState, key: String) -> impl IntoView {
    let shell = use_shell();
    let id = anchor_id(&key, None);
    let head = Memo::new(move |_| state.parsed.with(|p| p.file(&key).map(FileHead::of)));
    let jump = move |_| {
        let Some(root) = state.view.get_untracked() else {
            return;
        };
        // The id is hex and dashes: a safe selector.
        let Ok(Some(section)) = root.query_selector(&format!("#{id}")) else {
            return;
        };
        section.scroll_into_view();
        if let Ok(Some(toggle)) = section.query_selector("[data-part=diff-file-toggle]") {
            if let Ok(toggle) = toggle.dyn_into::<web_sys::HtmlElement>() {
                let _ = toggle.focus();
            }
        }
    };
    move || {
        head.get().map(|h| {
            view! {
                <li>
                    <button type="button" class="cs-diff-view__file" data-path=h.path on:click=jump.clone()>
                        {status_badge(shell, h.status)}
                        <span class="cs-diff__file-path">{h.label}</span>
                        {counts(shell, h.added, h.removed)}
                    </button>
                </li>
            }
        })
    }
}

/// One file: header (status, path, counts, Copy path, the collapse toggle), notes, and its
/// hunks once expanded and near the visible part.
#[component]
fn FileSection(state: DiffState, key: String) -> impl IntoView {
    let shell = use_shell();
    let id = anchor_id(&key, None);
    let body_id = format!("{id}-body");
    let file_key = key.clone();
    let file = Memo::new(move |_| state.parsed.with(|p| p.file(&file_key).cloned()));
    let head = Memo::new(move |_| file.with(|f| f.as_ref().map(FileHead::of)));
    let has_rows =
        Memo::new(move |_| file.with(|f| f.as_ref().is_some_and(|f| !f.hunks.is_empty())));
    let rows = Memo::new(move |_| file.with(|f| f.as_ref().map_or(0, PatchFile::row_count)));
    let large = Memo::new(move |_| rows.get() > LARGE_FILE_ROWS);
    let open_key = key.clone();
    let expanded = Memo::new(move |_| {
        let chosen = state.open.with(|o| o.get(&open_key).copied());
        chosen.unwrap_or(!large.get())
    });
    let near_key = key.clone();
    let near = Memo::new(move |_| state.near.with(|n| n.contains(&near_key)));
    // Words are marked once per version of the file, when it is first shown.
    let shown = Memo::new(move |_| {
        if !(expanded.get() && near.get()) {
            return None;
        }
        let mut f = file.get()?;
        f.mark_words();
        Some(f)
    });
    let toggle_key = key.clone();
    let toggle = move |_| {
        let now = expanded.get_untracked();
        state.open.update(|o| {
            o.insert(toggle_key.clone(), !now);
        });
    };
    let copied = RwSignal::new(false);
    let copy = move |_| {
        let path = head.with_untracked(|h| h.as_ref().map(|h| h.path.clone()));
        if let (Some(path), Some(window)) = (path, web_sys::window()) {
            let _ = window.navigator().clipboard().write_text(&path);
            copied.set(true);
        }
    };
    let notes = move || file.with(|f| f.as_ref().map(|f| file_notes(shell, f)));
    let large_note = move || {
        (large.get() && !expanded.get()).then(|| {
            view! {
                <p class="cs-diff__note" data-part="diff-large">
                    {trf(shell, Text::DiffLarge, vec![("count", rows.get().to_string())])}
                </p>
            }
        })
    };
    let hunk_key = key.clone();
    let body = move || {
        let Some(f) = shown.get() else {
            // About as tall as the rows will be, so the scrollbar and what follows hold.
            // Set as a property (the CSSOM): a `style` attribute breaks a strict CSP.
            let estimate = rows.get() + file.with(|f| f.as_ref().map_or(0, |f| f.hunks.len()));
            return view! {
                <div class="cs-diff__placeholder" prop:style=format!("--cs-diff-rows: {estimate}")></div>
            }
            .into_any();
        };
        let layout = state.layout.get();
        let strings = strings(shell);
        f.hunks
            .iter()
            .enumerate()
            .map(|(i, h)| {
                view! {
                    <div class="cs-diff__hunk" data-part="diff-hunk" id=anchor_id(&hunk_key, Some(i))>
                        <div class="cs-diff__hunk-head">{h.header.clone()}</div>
                        {diff_rows(&h.rows, layout, &strings, Some(f.path()))}
                    </div>
                }
            })
            .collect_view()
            .into_any()
    };
    let section = NodeRef::<html::Section>::new();
    state.watch.observe(section);
    let title = move || {
        head.get().map(|h| {
            view! {
                {status_badge(shell, h.status)}
                <span class="cs-diff__file-path">{h.label}</span>
            }
        })
    };
    let head_counts = move || head.get().map(|h| counts(shell, h.added, h.removed));
    let body_id_toggle = body_id.clone();
    view! {
        <section
            class="cs-diff cs-diff--file"
            data-part="diff-file"
            data-path=move || head.with(|h| h.as_ref().map(|h| h.path.clone()))
            data-status=move || head.with(|h| h.as_ref().map(|h| h.status.letter()))
            // Read back by the near-watch.
            data-key=key.clone()
            id=id
            node_ref=section
        >
            <div class="cs-diff__head">
                {move || if has_rows.get() {
                    view! {
                        <button
                            type="button"
                            class="cs-diff__toggle"
                            data-part="diff-file-toggle"
                            aria-expanded=move || expanded.get().to_string()
                            aria-controls=body_id_toggle.clone()
                            on:click=toggle.clone()
                        >
                            <span class="cs-diff__chevron" aria-hidden="true"></span>
                            {title}
                        </button>
                    }
                    .into_any()
                } else {
                    view! { <span class="cs-diff__toggle">{title}</span> }.into_any()
                }}
                {head_counts}
                <button type="button" class="cs-button cs-button--ghost cs-diff__copy" data-part="diff-copy-path" on:click=copy>
                    {move || tr(shell, if copied.get() { Text::Copied } else { Text::CopyPath }).get()}
                </button>
            </div>
            {notes}
            {large_note}
            {move || has_rows.get().then(|| view! {
                <div class="cs-diff__body" id=body_id.clone() hidden=move || !expanded.get()>
                    {body.clone()}
                </div>
            })}
        </section>
    }
}

/// The notes of a file shown instead of (or besides) lines: binary, a mode change, a
/// rename or copy alone, an empty file.
fn file_notes(shell: Shell, file: &PatchFile) -> impl IntoView {
    let mut notes = Vec::new();
    if file.binary {
        notes.push(tr(shell, Text::DiffBinary));
    }
    if let Some((old, new)) = file.mode_change() {
        notes.push(trf(
            shell,
            Text::DiffModeChanged,
            vec![("old", old.to_owned()), ("new", new.to_owned())],
        ));
    }
    if file.hunks.is_empty() && !file.binary {
        let text = match file.status {
            FileStatus::Renamed => Some(Text::DiffRenameOnly),
            FileStatus::Copied => Some(Text::DiffCopyOnly),
            FileStatus::Added | FileStatus::Deleted => Some(Text::DiffEmptyFile),
            FileStatus::Modified => file.mode_change().is_none().then_some(Text::DiffNoLines),
        };
        notes.extend(text.map(|t| tr(shell, t)));
    }
    notes
        .into_iter()
        .map(|text| view! { <p class="cs-diff__note" data-part="diff-note">{text}</p> })
        .collect_view()
}

type Observer = (IntersectionObserver, Closure<dyn FnMut(js_sys::Array)>);

/// One observer for the view's files: a file that comes within [`NEAR_PX`] of the
/// visible part of the view is marked near (for good: its rows stay built).
#[derive(Clone, Copy)]
struct NearWatch {
    observer: StoredValue<Option<Observer>, LocalStorage>,
    /// The observer exists (files mounted before it are observed then).
    ready: RwSignal<bool>,
}

impl NearWatch {
    fn new(root: NodeRef<html::Div>, near: RwSignal<HashSet<String>>) -> Self {
        let observer = StoredValue::new_local(None::<Observer>);
        let ready = RwSignal::new(false);
        Effect::new(move |_| {
            let Some(root) = root.get() else { return };
            if observer.with_value(Option::is_some) {
                return;
            }
            let on_entries =
                Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
                    let mut came = Vec::new();
                    for entry in entries.iter() {
                        let Ok(entry) = entry.dyn_into::<IntersectionObserverEntry>() else {
                            continue;
                        };
                        if !entry.is_intersecting() {
                            continue;
                        }
                        let target = entry.target();
                        observer.with_value(|o| {
                            if let Some((io, _)) = o {
                                io.unobserve(&target);
                            }
                        });
                        came.extend(target.get_attribute("data-key"));
                    }
                    if !came.is_empty() {
                        let _ = near.try_update(|n| n.extend(came));
                    }
                });
            let init = IntersectionObserverInit::new();
            init.set_root(Some(&root));
            init.set_root_margin(&format!("{NEAR_PX}px 0px"));
            let Ok(io) =
                IntersectionObserver::new_with_options(on_entries.as_ref().unchecked_ref(), &init)
            else {
                return;
            };
            observer.set_value(Some((io, on_entries)));
            ready.set(true);
        });
        on_cleanup(move || {
            observer.update_value(|o| {
                if let Some((io, _)) = o.take() {
                    io.disconnect();
                }
            });
        });
        NearWatch { observer, ready }
    }

    /// Watch a file's section from when it is mounted until it is removed.
    fn observe(self, section: NodeRef<html::Section>) {
        let NearWatch { observer, ready } = self;
        Effect::new(move |_| {
            let (Some(el), true) = (section.get(), ready.get()) else {
                return;
            };
            observer.with_value(|o| {
                if let Some((io, _)) = o {
                    io.observe(&el);
                }
            });
        });
        on_cleanup(move || {
            // Disposed with the view or alone (the file left the patch): either way safe.
            if let Some(el) = section.try_get_untracked().flatten() {
                observer.try_with_value(|o| {
                    if let Some((io, _)) = o {
                        io.unobserve(&el);
                    }
                });
            }
        });
    }
}

/// A file change as a diff: path, "new file" when there was none, numbered lines.
pub(crate) fn diff_view(
    path: &crate::ui::tools::ShownPath,
    old: Option<&str>,
    new: &str,
    strings: &chat_shell_core::strings::Strings,
) -> AnyView {
    let diff = line_diff(old, new);
    let (new_file, truncated) = (diff.new_file, diff.truncated);
    let rows = {
        let (path, strings) = (path.full.clone(), strings.clone());
        move || diff_rows(&diff.rows, DiffLayout::Unified, &strings, Some(&path))
    };
    view! {
        <div class="cs-diff" data-part="diff" data-new-file=new_file.to_string()>
            <p class="cs-diff__path">
                <span data-part="diff-path" title=path.title()>{path.shown.clone()}</span>
                {new_file.then(|| view! { <span class="cs-chip" data-part="diff-new-file">{strings.get(Text::NewFile).to_owned()}</span> })}
            </p>
            {rows}
            {truncated.then(|| view! { <p class="cs-agent-tool__note">{strings.get(Text::OutputTruncated).to_owned()}</p> })}
        </div>
    }
    .into_any()
}
