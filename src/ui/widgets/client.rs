//! Client widgets: a `client_widget{name, args}` item rendered by what the page or the app
//! registered under its name (a JS function returning a Node, a custom element tag, a
//! Rust view function), the built-in approval card for `tool_approval_request`, or a
//! neutral "Unsupported content" card.

use super::ctx::settle_into;
use super::ctx::spinner;
use crate::runtime::{
    error_text, from_js, to_js, ClientWidgetContext, ClientWidgetRenderer, Shell,
};
use crate::ui::icons;
use crate::ui::{item_memo, use_shell};
use crate::ui::{strings, tr};
use chat_shell_core::model::EntryKind;
use chat_shell_core::protocol::chatkit::ItemId;
use chat_shell_core::protocol::decode::Decode;
use chat_shell_core::reducer::ChatState;
use chat_shell_core::strings::Text;
use chat_shell_core::widgets::approval::{self, ApprovalRequest, Decision};
use leptos::html;
use leptos::prelude::*;
use serde_json::Value;
use wasm_bindgen::prelude::*;

#[component]
pub fn ClientWidgetView(id: ItemId) -> impl IntoView {
    let shell = use_shell();
    let registry = shell.with(|rt| rt.client_widgets_rev());
    let item_id = id.clone();
    let data = item_memo(shell, item_id, |i| match &i.entry.kind {
        EntryKind::ClientWidget(w) => Some((w.name.clone(), w.args.clone())),
        _ => None,
    });
    let name = Memo::new(move |_| data.with(|d| d.as_ref().map(|d| d.0.clone())));
    // Which renderer: changes with the name or the registry, not with the args.
    let kind = Memo::new(move |_| {
        if let Some(r) = registry {
            r.track();
        }
        let name = name.get()?;
        let renderer = shell.with(|rt| rt.client_widget(&name)).flatten();
        Some(match renderer {
            Some(ClientWidgetRenderer::Js(_)) => (name, "js"),
            Some(ClientWidgetRenderer::Tag(_)) => (name, "tag"),
            Some(ClientWidgetRenderer::Rust(_)) => (name, "rust"),
            None if name == approval::NAME => (name, "approval"),
            None => (name, "none"),
        })
    });
    move || {
        let (name, how) = kind.get()?;
        let id = id.clone();
        Some(match how {
            "approval" => view! { <ApprovalCard id=id /> }.into_any(),
            "js" | "tag" => view! { <PageWidget id=id name=name.clone() data=data /> }.into_any(),
            "rust" => {
                let renderer = shell.with(|rt| rt.client_widget(&name)).flatten();
                let Some(ClientWidgetRenderer::Rust(f)) = renderer else {
                    return Some(unsupported(shell, &name));
                };
                let f = StoredValue::new_local(f);
                let wname = name.clone();
                view! {
                    <div class="cs-widget cs-client-widget" part="widget" data-part="client-widget" data-widget-name=name>
                        {move || {
                            let args = data.get().map(|d| d.1).unwrap_or(Value::Null);
                            f.with_value(|f| {
                                f(ClientWidgetContext { shell, item_id: id.clone(), name: wname.clone(), args })
                            })
                        }}
                    </div>
                }
                .into_any()
            }
            _ => unsupported(shell, &name),
        })
    }
}

fn unsupported(shell: Shell, name: &str) -> AnyView {
    view! {
        <div class="cs-unsupported" data-part="unsupported" data-widget-name=name.to_owned() role="note">
            {tr(shell, Text::Unsupported)}
            {format!(" ({name})")}
        </div>
    }
    .into_any()
}

/// A widget from the page: a function `(args, context) => Node` called again when the
/// args change, or a custom element created once whose `args` property is updated.
#[component]
fn PageWidget(id: ItemId, name: String, data: Memo<Option<(String, Value)>>) -> impl IntoView {
    let shell = use_shell();
    let holder = NodeRef::<html::Div>::new();
    let thread_id = shell
        .with(|rt| rt.with_state(|s| s.thread_id().map(|t| t.0.clone())))
        .flatten();
    // `context.sendAction(action)`: a custom action from this item; resolves to whether
    // the answer ended well. Lives as long as the item's view.
    let send_id = id.clone();
    let send = Closure::<dyn Fn(JsValue) -> js_sys::Promise>::new(move |action: JsValue| {
        let action = from_js(&action)
            .ok()
            .and_then(|v| chat_shell_core::protocol::chatkit::Action::decode(&v).ok());
        let item = send_id.clone();
        js_sys::Promise::new(&mut |resolve, reject| {
            let Some(action) = action.clone() else {
                let _ = reject.call1(
                    &JsValue::NULL,
                    &js_sys::TypeError::new("chat-shell: not an action {type, payload}").into(),
                );
                return;
            };
            let done_resolve = resolve.clone();
            let started = shell
                .with(|rt| {
                    rt.send_action(
                        Some(item.clone()),
                        action,
                        Box::new(move |ok| {
                            let _ = done_resolve.call1(&JsValue::NULL, &JsValue::from_bool(ok));
                        }),
                    )
                })
                .unwrap_or(false);
            if !started {
                let _ = resolve.call1(&JsValue::NULL, &JsValue::FALSE);
            }
        })
    });
    let context = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&context, &"itemId".into(), &JsValue::from_str(&id.0));
    let _ = js_sys::Reflect::set(
        &context,
        &"threadId".into(),
        &thread_id.map_or(JsValue::NULL, |t| JsValue::from_str(&t)),
    );
    let _ = js_sys::Reflect::set(&context, &"name".into(), &JsValue::from_str(&name));
    let _ = js_sys::Reflect::set(&context, &"sendAction".into(), send.as_ref());
    // Dropped with this view: the page must not call `sendAction` of a removed item.
    let _keep = StoredValue::new_local((send, context.clone()));
    let effect_name = name.clone();
    Effect::new(move |element: Option<Option<web_sys::Element>>| {
        let args = to_js(&data.get().map(|d| d.1).unwrap_or(Value::Null));
        let holder = holder.get()?;
        let renderer = shell.with(|rt| rt.client_widget(&effect_name)).flatten();
        match renderer {
            Some(ClientWidgetRenderer::Tag(tag)) => {
                let el = match element.flatten() {
                    Some(el) => el,
                    None => {
                        let el = holder.owner_document()?.create_element(&tag).ok()?;
                        let _ = js_sys::Reflect::set(&el, &"context".into(), &context);
                        holder.replace_children_with_node_1(&el);
                        el
                    }
                };
                let _ = js_sys::Reflect::set(&el, &"args".into(), &args);
                Some(el)
            }
            Some(ClientWidgetRenderer::Js(f)) => {
                match f.call2(&JsValue::NULL, &args, &context) {
                    Ok(node) if node.is_instance_of::<web_sys::Node>() => {
                        holder.replace_children_with_node_1(node.unchecked_ref());
                    }
                    Ok(other) => {
                        // Not a Node: shown as text, never as HTML.
                        holder.set_text_content(other.as_string().as_deref());
                    }
                    Err(e) => {
                        web_sys::console::warn_1(
                            &format!(
                                "chat-shell: client widget `{effect_name}` failed: {}",
                                error_text(&e)
                            )
                            .into(),
                        );
                        let text = shell.with(|rt| rt.text(Text::WidgetFailed));
                        holder.set_text_content(text.as_deref());
                    }
                }
                None
            }
            _ => None,
        }
    });
    view! {
        <div
            class="cs-widget cs-client-widget"
            part="widget"
            data-part="client-widget"
            data-widget-name=name
            node_ref=holder
        ></div>
    }
}

/// The approval card of `tool_approval_request`: tool name, arguments, Approve / Reject.
/// The decision shows only once the server states it (the item replaced or updated with
/// `decision`, or a later approval item for the same call says so); while the action
/// runs both buttons are disabled and the clicked one spins.
#[component]
fn ApprovalCard(id: ItemId) -> impl IntoView {
    let shell = use_shell();
    let Some(signals) = shell.signals() else {
        return ().into_any();
    };
    let rev = shell.with(|rt| rt.item_rev(&id));
    let item_id = id.clone();
    let request = Memo::new(move |_| {
        if let Some(rev) = rev {
            rev.track();
        }
        signals.order.track();
        shell
            .with(|rt| rt.with_state(|s| read_request(s, &item_id)))
            .flatten()
    });
    // Which button was clicked, while its action runs.
    let pending = RwSignal::new(None::<bool>);
    // The server took the answer but has not stated a decision (yet).
    let sent = RwSignal::new(false);
    let streaming = move || signals.streaming.get().is_some();
    let decide = move |approved: bool| {
        let Some(req) = request.get_untracked() else {
            return;
        };
        if req.decision.is_some() || pending.get_untracked().is_some() {
            return;
        }
        pending.set(Some(approved));
        let started = shell
            .with(|rt| {
                rt.send_action(
                    Some(id.clone()),
                    req.action(approved),
                    settle_into(pending, sent),
                )
            })
            .unwrap_or(false);
        if !started {
            pending.set(None);
        }
    };
    let decide_approve = decide.clone();
    let locked = move || pending.get().is_some() || sent.get() || streaming();
    view! {
        <div
            class="cs-widget cs-approval"
            part="widget"
            data-part="client-widget"
            data-widget-name=approval::NAME
            role="group"
            aria-label=tr(shell, Text::ApprovalRequest)
            aria-busy=move || pending.get().is_some().to_string()
        >
            <div class="cs-approval__head">
                {icons::icon("info", Some("md"), None)}
                <strong class="cs-approval__title">{tr(shell, Text::ApprovalRequired)}</strong>
            </div>
            {move || {
                request
                    .get()
                    .map(|req| {
                        // The sentence around the tool's name, in the element's language.
                        let sentence = tr(shell, Text::ApprovalTool).get();
                        let (before, after) = sentence
                            .split_once("{tool}")
                            .map(|(b, a)| (b.to_owned(), a.to_owned()))
                            .unwrap_or((format!("{sentence} "), String::new()));
                        view! {
                            <p class="cs-approval__tool">
                                {before}
                                <code data-part="approval-tool">{req.tool_name.clone()}</code>
                                {after}
                            </p>
                            <pre class="cs-approval__args" data-part="approval-args"><code>{req.arguments.clone()}</code></pre>
                        }
                    })
            }}
            {move || {
                let decision = request.get().and_then(|r| r.decision);
                match decision {
                    Some(d) => view! {
                        <p class="cs-approval__decision" data-part="approval-decision" data-decision=d.tag() role="status">
                            {match d {
                                Decision::Approved => icons::icon("check-circle-filled", Some("sm"), None),
                                _ => icons::icon("empty-circle", Some("sm"), None),
                            }}
                            {d.label(&strings(shell))}
                        </p>
                    }
                    .into_any(),
                    None => {
                        let approve = decide_approve.clone();
                        let reject = decide.clone();
                        view! {
                            <div class="cs-approval__actions">
                                <button
                                    type="button"
                                    class="cs-w-button cs-w-button--solid cs-w-button--primary"
                                    disabled=locked
                                    aria-busy=move || (pending.get() == Some(true)).to_string()
                                    on:click=move |_| approve(true)
                                >
                                    {move || (pending.get() == Some(true)).then(spinner)}
                                    {tr(shell, Text::Approve)}
                                </button>
                                <button
                                    type="button"
                                    class="cs-w-button cs-w-button--outline cs-w-button--secondary"
                                    disabled=locked
                                    aria-busy=move || (pending.get() == Some(false)).to_string()
                                    on:click=move |_| reject(false)
                                >
                                    {move || (pending.get() == Some(false)).then(spinner)}
                                    {tr(shell, Text::Reject)}
                                </button>
                            </div>
                            {move || sent.get().then(|| view! {
                                <p class="cs-approval__sent" role="status">{tr(shell, Text::AnswerSent)}</p>
                            })}
                        }
                        .into_any()
                    }
                }
            }}
        </div>
    }
    .into_any()
}

/// The request of approval item `id`, with the decision the server stated for it: in
/// its own args, or in a later approval item for the same call.
fn read_request(state: &ChatState, id: &ItemId) -> Option<ApprovalRequest> {
    let items = state.items();
    let at = items.iter().position(|i| &i.entry.id == id)?;
    let EntryKind::ClientWidget(w) = &items[at].entry.kind else {
        return None;
    };
    let mut request = ApprovalRequest::from_args(&w.args);
    if request.decision.is_none() {
        if let Some(call) = request.call_id().map(str::to_owned) {
            request.decision = items[at + 1..]
                .iter()
                .find_map(|later| match &later.entry.kind {
                    EntryKind::ClientWidget(w)
                        if w.name == approval::NAME
                            && w.args.get("call_id").and_then(Value::as_str)
                                == Some(call.as_str()) =>
                    {
                        approval::decision(&w.args)
                    }
                    _ => None,
                });
        }
    }
    Some(request)
}
