//! Widgets in the thread: server widgets (the openai-chatkit 1.6.5 catalog, one file per
//! family), client widgets (registered by name; the built-in approval card), client tool
//! calls and structured input.
//!
//! A server widget is rebuilt whenever its item's revision ticks (streamed text, replaced
//! components or roots). What the user typed lives outside the DOM, by field identity
//! (id, key, else name), so a rebuilt field shows the same value, and the focused field
//! gets its focus back.

mod chart;
mod client;
mod controls;
mod layout;
mod media;
mod structured;
mod text;
mod tool_call;

use crate::ui::icons;
pub use client::ClientWidgetView;

pub use structured::StructuredInputView;
pub use tool_call::ToolCallView;

use crate::runtime::Shell;
use crate::ui::{item_memo, use_shell};
use chat_shell_core::model::EntryKind;
use chat_shell_core::protocol::chatkit::{Action, ItemId, WidgetComponent};
use chat_shell_core::protocol::decode::Decode;
use chat_shell_core::widgets::form::{self, FieldValue, Loading, Trigger, TypedValues};
use leptos::html;
use leptos::prelude::*;
use std::collections::HashMap;
use wasm_bindgen::JsCast;

/// What shows that an action of this widget is running.
#[derive(Clone, Debug, PartialEq)]
enum Busy {
    /// The whole widget.
    Container,
    /// The component at this path (a button, a row, a form's submit button).
    Node(String),
}

/// What every component of one widget item renders with. Copy, so event handlers and
/// reactive closures take it freely.
#[derive(Clone, Copy)]
struct Ctx {
    shell: Shell,
    item: StoredValue<ItemId>,
    /// Unique per widget view: prefixes DOM ids and radio group names.
    seq: u32,
    typed: StoredValue<TypedValues>,
    /// A small number per field identity, for DOM ids and focus restoring.
    field_ids: StoredValue<HashMap<String, u32>>,
    /// Field name → label text, from the Labels of the widget (filled before each build).
    labels: StoredValue<HashMap<String, String>>,
    /// Field name → number of the first field with that name (for `<label for>`).
    names: StoredValue<HashMap<String, u32>>,
    busy: RwSignal<Option<Busy>>,
    /// Paths of ListViews shown in full and Cards expanded by the user.
    opened: RwSignal<Vec<String>>,
}

impl Ctx {
    fn new(shell: Shell, item: ItemId) -> Self {
        thread_local!(static NEXT: std::cell::Cell<u32> = const { std::cell::Cell::new(1) });
        let seq = NEXT.with(|n| {
            let v = n.get();
            n.set(v.wrapping_add(1));
            v
        });
        Ctx {
            shell,
            item: StoredValue::new(item),
            seq,
            typed: StoredValue::new(TypedValues::new()),
            field_ids: StoredValue::new(HashMap::new()),
            labels: StoredValue::new(HashMap::new()),
            names: StoredValue::new(HashMap::new()),
            busy: RwSignal::new(None),
            opened: RwSignal::new(Vec::new()),
        }
    }

    /// The field number of an identity (allocated on first use).
    fn field_id(&self, identity: &str) -> u32 {
        let mut id = 0;
        self.field_ids.update_value(|ids| {
            let next = ids.len() as u32 + 1;
            id = *ids.entry(identity.to_owned()).or_insert(next);
        });
        id
    }

    fn dom_id(&self, field: u32) -> String {
        format!("cs-w{}-f{field}", self.seq)
    }

    /// The current value of a field.
    fn value(&self, node: &WidgetComponent) -> Option<FieldValue> {
        self.typed
            .with_value(|typed| form::current_value(node, typed))
    }

    fn set_value(&self, identity: &str, value: FieldValue) {
        self.typed.update_value(|typed| {
            typed.insert(identity.to_owned(), value);
        });
    }

    /// Before a build: number every field and note the Labels, so a Label can point at a
    /// field rendered after it.
    fn prepare(&self, root: &WidgetComponent) {
        fn walk(
            ctx: &Ctx,
            node: &WidgetComponent,
            names: &mut HashMap<String, u32>,
            labels: &mut HashMap<String, String>,
        ) {
            if let (Some(identity), Some(name)) =
                (form::field_identity(node), form::field_name(node))
            {
                let number = ctx.field_id(&identity);
                names.entry(name.to_owned()).or_insert(number);
            }
            if node.kind == "Label" {
                if let (Some(field), Some(text)) =
                    (node.prop_str("fieldName"), node.prop_str("value"))
                {
                    labels
                        .entry(field.to_owned())
                        .or_insert_with(|| text.to_owned());
                }
            }
            for c in &node.children {
                walk(ctx, c, names, labels);
            }
        }
        let mut names = HashMap::new();
        let mut labels = HashMap::new();
        walk(self, root, &mut names, &mut labels);
        self.names.set_value(names);
        self.labels.set_value(labels);
    }

    /// The DOM id of the first field named `name`.
    fn field_dom_id(&self, name: &str) -> Option<String> {
        self.names
            .with_value(|n| n.get(name).copied())
            .map(|n| self.dom_id(n))
    }

    /// The text of the Label whose `fieldName` is `name`.
    fn label_of(&self, name: &str) -> Option<String> {
        self.labels.with_value(|l| l.get(name).cloned())
    }

    fn container_busy(&self) -> bool {
        self.busy.with(|b| b == &Some(Busy::Container))
    }

    fn node_busy(&self, path: &str) -> bool {
        self.busy
            .with(|b| matches!(b, Some(Busy::Node(p)) if p == path))
    }

    /// Fields and buttons are disabled while the whole widget is busy.
    fn locked(&self) -> bool {
        self.container_busy()
    }

    fn is_open(&self, path: &str) -> bool {
        self.opened.with(|o| o.iter().any(|p| p == path))
    }

    fn toggle_open(&self, path: &str) {
        self.opened
            .update(|o| match o.iter().position(|p| p == path) {
                Some(i) => {
                    o.remove(i);
                }
                None => o.push(path.to_owned()),
            });
    }

    /// Run a widget action; one at a time per widget. `loadingBehavior` picks what shows
    /// it running until the runtime says it is over.
    fn run_action(&self, action: Action, trigger: Trigger, path: &str) {
        if self.busy.with_untracked(Option::is_some) {
            return;
        }
        let target = match form::loading(&action, trigger) {
            Loading::None => None,
            Loading::Itself => Some(Busy::Node(path.to_owned())),
            Loading::Container => Some(Busy::Container),
        };
        let busy = self.busy;
        busy.set(target);
        let item = Some(self.item.get_value());
        let started = self
            .shell
            .with(|rt| {
                rt.send_action(
                    item,
                    action,
                    Box::new(move |_| {
                        busy.try_set(None);
                    }),
                )
            })
            .unwrap_or(false);
        if !started {
            busy.set(None);
        }
    }
}

/// A server widget item.
#[component]
pub fn WidgetView(id: ItemId) -> impl IntoView {
    let shell = use_shell();
    let item_id = id.clone();
    let root = item_memo(shell, item_id, |i| match &i.item.kind {
        EntryKind::Widget(w) => Some(w.widget.clone()),
        _ => None,
    });
    let ctx = Ctx::new(shell, id);
    let holder = NodeRef::<html::Div>::new();
    move || {
        let root = root.get()?;
        let focus = focused_field(holder);
        ctx.prepare(&root);
        let view = root_view(ctx, &root);
        if let Some(focus) = focus {
            restore_focus(holder, focus);
        }
        Some(view! { <div class="cs-widget-item" node_ref=holder>{view}</div> })
    }
}

/// The root: Card and ListView have their own chrome; anything else is laid out as
/// `Basic` (a root of another type is rendered inside it).
fn root_view(ctx: Ctx, root: &WidgetComponent) -> AnyView {
    match root.kind.as_str() {
        "Card" => layout::card(ctx, root, "r", true),
        "ListView" => layout::list_view(ctx, root, "r", true),
        _ => layout::basic(ctx, root, "r", true),
    }
}

/// One component, chosen by its type. Unknown types render their children, or a neutral
/// placeholder.
fn render(ctx: Ctx, node: &WidgetComponent, path: &str) -> AnyView {
    match node.kind.as_str() {
        "Card" => layout::card(ctx, node, path, false),
        "ListView" => layout::list_view(ctx, node, path, false),
        "Basic" => layout::basic(ctx, node, path, false),
        "Box" | "Row" | "Col" => layout::flex_box(ctx, node, path),
        "Form" => layout::form(ctx, node, path),
        "ListViewItem" => layout::list_item(ctx, node, path),
        "Spacer" => layout::spacer(node),
        "Divider" => layout::divider(node),
        "Transition" => layout::transition(ctx, node, path),
        "Text" => text::text(ctx, node),
        "Title" => text::title(node),
        "Caption" => text::caption(node),
        "Markdown" => text::markdown(ctx, node),
        "Badge" => text::badge(node),
        "Label" => text::label(ctx, node),
        "Icon" => icons::icon_component(node),
        "Image" => media::image(node),
        "Button" => controls::button(ctx, node, path),
        "Input" => controls::input(ctx, node),
        "Textarea" => controls::textarea(ctx, node),
        "Select" => controls::select(ctx, node, path),
        "Checkbox" => controls::checkbox(ctx, node, path),
        "RadioGroup" => controls::radio_group(ctx, node, path),
        "DatePicker" => controls::date_picker(ctx, node, path),
        "Chart" => chart::chart(ctx.shell, node),
        _ => layout::unknown(ctx, node, path),
    }
}

/// The children of a component: its `children` list, or a single child object (as
/// `Transition` has).
fn children(ctx: Ctx, node: &WidgetComponent, path: &str) -> Vec<AnyView> {
    if node.children.is_empty() {
        if let Some(single) = node
            .prop("children")
            .filter(|c| c.is_object())
            .and_then(|c| WidgetComponent::decode(c).ok())
        {
            return vec![render(ctx, &single, &format!("{path}.0"))];
        }
    }
    node.children
        .iter()
        .enumerate()
        .map(|(i, c)| render(ctx, c, &format!("{path}.{i}")))
        .collect()
}

/// Class names from optional parts (all built from static tokens).
fn classes(parts: impl IntoIterator<Item = Option<String>>) -> String {
    parts.into_iter().flatten().collect::<Vec<_>>().join(" ")
}

/// A small busy indicator for a button or row.
fn spinner() -> impl IntoView {
    view! { <span class="cs-spinner" aria-hidden="true"></span> }
}

/// The field that had focus in this widget, with its selection.
struct Focus {
    field: String,
    selection: Option<(u32, u32)>,
}

fn focused_field(holder: NodeRef<html::Div>) -> Option<Focus> {
    let holder = holder.get_untracked()?;
    let root = holder.get_root_node();
    let active = root
        .dyn_ref::<web_sys::ShadowRoot>()
        .and_then(|r| r.active_element())
        .or_else(|| holder.owner_document().and_then(|d| d.active_element()))?;
    if !holder.contains(Some(&active)) {
        return None;
    }
    let field = active.get_attribute("data-fid")?;
    let selection = active
        .dyn_ref::<web_sys::HtmlInputElement>()
        .and_then(|i| Some((i.selection_start().ok()??, i.selection_end().ok()??)))
        .or_else(|| {
            active
                .dyn_ref::<web_sys::HtmlTextAreaElement>()
                .and_then(|t| Some((t.selection_start().ok()??, t.selection_end().ok()??)))
        });
    Some(Focus { field, selection })
}

/// Give focus and selection back to the rebuilt field, before the next paint (a frame
/// later the user would see the caret jump). The rebuild runs after this closure returns
/// and queues its own microtask that sets `value` on fields patched in place, which moves
/// the caret to the end; queued from a microtask, ours runs after that one.
fn restore_focus(holder: NodeRef<html::Div>, focus: Focus) {
    leptos::prelude::queue_microtask(move || {
        leptos::prelude::queue_microtask(move || {
            let Some(holder) = holder.get_untracked() else {
                return;
            };
            // The field number is ours (digits only), so the selector is well-formed.
            if !focus.field.bytes().all(|b| b.is_ascii_digit()) {
                return;
            }
            let selector = format!("[data-fid=\"{}\"]", focus.field);
            let Ok(Some(el)) = holder.query_selector(&selector) else {
                return;
            };
            if let Some(el) = el.dyn_ref::<web_sys::HtmlElement>() {
                let _ = el.focus();
            }
            if let Some((start, end)) = focus.selection {
                if let Some(input) = el.dyn_ref::<web_sys::HtmlInputElement>() {
                    let _ = input.set_selection_range(start, end);
                } else if let Some(area) = el.dyn_ref::<web_sys::HtmlTextAreaElement>() {
                    let _ = area.set_selection_range(start, end);
                }
            }
        })
    });
}

/// What a card does when the answer to its request ends: stop spinning, and remember that
/// it went out (`try_set`: the card may be gone by then).
fn settle_into(
    pending: RwSignal<Option<bool>>,
    sent: RwSignal<bool>,
) -> crate::runtime::ActionDone {
    Box::new(move |ok| {
        pending.try_set(None);
        if ok {
            sent.try_set(true);
        }
    })
}
