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
mod ctx;
mod layout;
mod media;
mod structured;
mod text;
mod tool_call;

use crate::ui::icons;
pub use client::ClientWidgetView;
use ctx::Ctx;

pub use structured::StructuredInputView;
pub use tool_call::ClientToolCallView;

use crate::ui::{item_memo, use_shell};
use chat_shell_core::model::EntryKind;
use chat_shell_core::protocol::chatkit::{ItemId, WidgetComponent};
use leptos::html;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// A server widget item.
#[component]
pub fn WidgetView(id: ItemId) -> impl IntoView {
    let shell = use_shell();
    let item_id = id.clone();
    let root = item_memo(shell, item_id, |i| match &i.entry.kind {
        EntryKind::Widget(w) => Some(w.widget.clone()),
        _ => None,
    });
    let ctx = Ctx::new(shell, id, render);
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
