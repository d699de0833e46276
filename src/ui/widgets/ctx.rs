//! What every component of one widget item renders with ([`Ctx`]: the typed values,
//! field numbering, what is busy or opened) and the helpers the component families share.
//! It names no family: components render their children through `Ctx::render`.

use crate::runtime::Shell;
use chat_shell_core::protocol::chatkit::{Action, ItemId, WidgetComponent};
use chat_shell_core::protocol::decode::Decode;
use chat_shell_core::widgets::form::{self, FieldValue, Loading, Trigger, TypedValues};
use leptos::prelude::*;
use std::collections::HashMap;

/// What shows that an action of this widget is running.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Busy {
    /// The whole widget.
    Container,
    /// The component at this path (a button, a row, a form's submit button).
    Node(String),
}

/// What every component of one widget item renders with. Copy, so event handlers and
/// reactive closures take it freely.
#[derive(Clone, Copy)]
pub(super) struct Ctx {
    pub(super) shell: Shell,
    pub(super) item: StoredValue<ItemId>,
    /// Unique per widget view: prefixes DOM ids and radio group names.
    pub(super) seq: u32,
    pub(super) typed: StoredValue<TypedValues>,
    /// A small number per field identity, for DOM ids and focus restoring.
    pub(super) field_ids: StoredValue<HashMap<String, u32>>,
    /// Field name → label text, from the Labels of the widget (filled before each build).
    pub(super) labels: StoredValue<HashMap<String, String>>,
    /// Field name → number of the first field with that name (for `<label for>`).
    pub(super) names: StoredValue<HashMap<String, u32>>,
    pub(super) busy: RwSignal<Option<Busy>>,
    /// Paths of ListViews shown in full and Cards expanded by the user.
    pub(super) opened: RwSignal<Vec<String>>,
    /// Renders one component by its type (`widgets::render`): the families render their
    /// children through it, so none of them names the module that picks them.
    pub(super) render: Render,
}

/// What renders one component of a widget, at its path.
pub(super) type Render = fn(Ctx, &WidgetComponent, &str) -> AnyView;

impl Ctx {
    pub(super) fn new(shell: Shell, item: ItemId, render: Render) -> Self {
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
            render,
        }
    }

    /// The field number of an identity (allocated on first use).
    pub(super) fn field_id(&self, identity: &str) -> u32 {
        let mut id = 0;
        self.field_ids.update_value(|ids| {
            let next = ids.len() as u32 + 1;
            id = *ids.entry(identity.to_owned()).or_insert(next);
        });
        id
    }

    pub(super) fn dom_id(&self, field: u32) -> String {
        format!("cs-w{}-f{field}", self.seq)
    }

    /// The current value of a field.
    pub(super) fn value(&self, node: &WidgetComponent) -> Option<FieldValue> {
        self.typed
            .with_value(|typed| form::current_value(node, typed))
    }

    pub(super) fn set_value(&self, identity: &str, value: FieldValue) {
        self.typed.update_value(|typed| {
            typed.insert(identity.to_owned(), value);
        });
    }

    /// Before a build: number every field and note the Labels, so a Label can point at a
    /// field rendered after it.
    pub(super) fn prepare(&self, root: &WidgetComponent) {
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
    pub(super) fn field_dom_id(&self, name: &str) -> Option<String> {
        self.names
            .with_value(|n| n.get(name).copied())
            .map(|n| self.dom_id(n))
    }

    /// The text of the Label whose `fieldName` is `name`.
    pub(super) fn label_of(&self, name: &str) -> Option<String> {
        self.labels.with_value(|l| l.get(name).cloned())
    }

    pub(super) fn container_busy(&self) -> bool {
        self.busy.with(|b| b == &Some(Busy::Container))
    }

    pub(super) fn node_busy(&self, path: &str) -> bool {
        self.busy
            .with(|b| matches!(b, Some(Busy::Node(p)) if p == path))
    }

    /// Fields and buttons are disabled while the whole widget is busy.
    pub(super) fn locked(&self) -> bool {
        self.container_busy()
    }

    pub(super) fn is_open(&self, path: &str) -> bool {
        self.opened.with(|o| o.iter().any(|p| p == path))
    }

    pub(super) fn toggle_open(&self, path: &str) {
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
    pub(super) fn run_action(&self, action: Action, trigger: Trigger, path: &str) {
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

/// The children of a component: its `children` list, or a single child object (as
/// `Transition` has).
pub(super) fn children(ctx: Ctx, node: &WidgetComponent, path: &str) -> Vec<AnyView> {
    if node.children.is_empty() {
        if let Some(single) = node
            .prop("children")
            .filter(|c| c.is_object())
            .and_then(|c| WidgetComponent::decode(c).ok())
        {
            return vec![(ctx.render)(ctx, &single, &format!("{path}.0"))];
        }
    }
    node.children
        .iter()
        .enumerate()
        .map(|(i, c)| (ctx.render)(ctx, c, &format!("{path}.{i}")))
        .collect()
}

/// Class names from optional parts (all built from static tokens).
pub(super) fn classes(parts: impl IntoIterator<Item = Option<String>>) -> String {
    parts.into_iter().flatten().collect::<Vec<_>>().join(" ")
}

/// A small busy indicator for a button or row.
pub(super) fn spinner() -> impl IntoView {
    view! { <span class="cs-spinner" aria-hidden="true"></span> }
}

/// What a card does when the answer to its request ends: stop spinning, and remember that
/// it went out (`try_set`: the card may be gone by then).
pub(super) fn settle_into(
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
