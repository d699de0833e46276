//! ChatKit's model picker and tool menu beside the composer (`composer.models`,
//! `composer.tools`): a native select "Model" with the default model preselected, and a
//! menu button "Tools" opening a menu of radio items (arrows move, Enter/Space choose,
//! Escape closes back to the button). A chosen tool shows as a removable chip. What is
//! picked goes out as the next message's `inference_options`
//! (`core::composer_choice::inference_options`). Nothing shows where nothing is offered.

use crate::ui::icons::icon as widget_icon;
use crate::ui::{tr, trf, use_shell};
use chat_shell_core::composer_choice::{current_model, current_tool, ToolOption};
use chat_shell_core::options::Protocol;
use chat_shell_core::strings::Text;
use leptos::html;
use leptos::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering};
use wasm_bindgen::JsCast;

static NEXT_MENU: AtomicU32 = AtomicU32::new(1);

#[component]
pub fn ChatKitPickers() -> impl IntoView {
    let shell = use_shell();
    let signals = shell.signals().expect("runtime exists while mounted");
    let pick = signals.composer_pick;
    // Only ChatKit requests carry `inference_options`.
    let models = Memo::new(move |_| {
        signals.options.with(|o| match o.protocol {
            Protocol::ChatKit => o.composer_models.clone(),
            _ => Vec::new(),
        })
    });
    let tools = Memo::new(move |_| {
        signals.options.with(|o| match o.protocol {
            Protocol::ChatKit => o.composer_tools.clone(),
            _ => Vec::new(),
        })
    });
    let model = move || {
        let picked = pick.with(|p| p.model.clone());
        models.with(|m| current_model(m, picked.as_deref()).map(|m| m.id.clone()))
    };
    let chosen = Memo::new(move |_| {
        let picked = pick.with(|p| p.tool.clone());
        tools.with(|t| current_tool(t, picked.as_deref()).cloned())
    });
    let button = NodeRef::<html::Button>::new();
    let model_select = move || {
        (!models.with(Vec::is_empty)).then(|| {
            view! {
                <label class="cs-control" data-part="model-picker">
                    <span class="cs-control__name">{tr(shell, Text::PickModel)}</span>
                    <select
                        class="cs-control__select"
                        prop:value=model
                        on:change=move |ev| {
                            let id = event_target_value(&ev);
                            pick.update(|p| p.model = Some(id));
                        }
                    >
                        {move || {
                            let current = model();
                            models
                                .get()
                                .into_iter()
                                .map(|m| {
                                    let selected = current.as_deref() == Some(m.id.as_str());
                                    view! {
                                        <option value=m.id title=m.description selected=selected>
                                            {m.label}
                                        </option>
                                    }
                                })
                                .collect_view()
                        }}
                    </select>
                </label>
            }
        })
    };
    let tool_chip = move || {
        chosen.get().map(|tool| {
            let remove = trf(shell, Text::RemoveTool, vec![("label", tool.label.clone())]);
            view! {
                <span class="cs-chip" data-part="tool-chip" data-tool=tool.id.clone()>
                    {tool_icon(&tool)}
                    <span class="cs-chip__label">{tool.chip_label().to_owned()}</span>
                    <button
                        type="button"
                        class="cs-button cs-button--ghost cs-chip__remove"
                        aria-label=remove
                        title=remove
                        on:click=move |_| {
                            pick.update(|p| p.tool = None);
                            if let Some(b) = button.get_untracked() {
                                let _ = b.focus();
                            }
                        }
                    >
                        {crate::ui::glyphs::glyph(crate::ui::glyphs::Glyph::Close)}
                    </button>
                </span>
            }
        })
    };
    view! {
        <Show when=move || !models.with(Vec::is_empty) || !tools.with(Vec::is_empty)>
            <div class="cs-pickers" data-part="chatkit-pickers">
                {model_select}
                <Show when=move || !tools.with(Vec::is_empty)>
                    <ToolMenu button=button />
                </Show>
                {tool_chip}
            </div>
        </Show>
    }
}

/// A tool's icon: a built-in icon name or a short symbol; other names are left to CSS.
fn tool_icon(tool: &ToolOption) -> Option<AnyView> {
    let icon = tool.icon.clone()?;
    Some(
        if chat_shell_core::widgets::icons::drawing(&icon).is_some() {
            view! { <span class="cs-chip__icon">{widget_icon(&icon, Some("sm"), None)}</span> }
                .into_any()
        } else if icon.chars().count() <= 4 {
            view! { <span class="cs-chip__icon" aria-hidden="true">{icon}</span> }.into_any()
        } else {
            view! { <span class="cs-chip__icon" data-icon=icon aria-hidden="true"></span> }
                .into_any()
        },
    )
}

/// The "Tools" menu button and its menu of radio items.
#[component]
fn ToolMenu(button: NodeRef<html::Button>) -> impl IntoView {
    let shell = use_shell();
    let signals = shell.signals().expect("runtime exists while mounted");
    let pick = signals.composer_pick;
    let tools = Memo::new(move |_| signals.options.with(|o| o.composer_tools.clone()));
    let open = RwSignal::new(false);
    let active = RwSignal::new(0usize);
    let menu = NodeRef::<html::Div>::new();
    let wrapper = NodeRef::<html::Span>::new();
    let menu_id = format!("cs-tools-{}", NEXT_MENU.fetch_add(1, Ordering::Relaxed));
    let len = move || tools.with(Vec::len);
    // Focus the active item once the menu is drawn.
    let focus_active = move || {
        request_animation_frame(move || {
            let Some(menu) = menu.try_get_untracked().flatten() else {
                return;
            };
            let i = active.get_untracked();
            if let Ok(Some(item)) = menu.query_selector(&format!("[data-index=\"{i}\"]")) {
                if let Ok(item) = item.dyn_into::<web_sys::HtmlElement>() {
                    let _ = item.focus();
                }
            }
        });
    };
    let open_at = move |last: bool| {
        let picked = pick.with_untracked(|p| p.tool.clone());
        let start = tools.with_untracked(|t| {
            t.iter()
                .position(|t| Some(&t.id) == picked.as_ref())
                .unwrap_or(if last { t.len().saturating_sub(1) } else { 0 })
        });
        active.set(start);
        open.set(true);
        focus_active();
    };
    let close = move |refocus: bool| {
        open.set(false);
        if refocus {
            if let Some(b) = button.get_untracked() {
                let _ = b.focus();
            }
        }
    };
    let choose = move |i: usize| {
        if let Some(id) = tools.with_untracked(|t| t.get(i).map(|t| t.id.clone())) {
            pick.update(|p| p.tool = Some(id));
        }
        close(true);
    };
    let on_menu_key = move |ev: web_sys::KeyboardEvent| {
        let n = len();
        if n == 0 {
            return;
        }
        let i = active.get_untracked().min(n - 1);
        let next = match ev.key().as_str() {
            "ArrowDown" => (i + 1) % n,
            "ArrowUp" => (i + n - 1) % n,
            "Home" => 0,
            "End" => n - 1,
            "Enter" | " " => {
                ev.prevent_default();
                choose(i);
                return;
            }
            "Escape" => {
                ev.prevent_default();
                ev.stop_propagation();
                close(true);
                return;
            }
            "Tab" => {
                close(false);
                return;
            }
            _ => return,
        };
        ev.prevent_default();
        active.set(next);
        focus_active();
    };
    // An arrow key opens the menu; one pressed again before the menu took the focus (it
    // does so on the next frame) moves in it, as it would once it has.
    let on_button_key = move |ev: web_sys::KeyboardEvent| {
        let key = ev.key();
        if !matches!(key.as_str(), "ArrowDown" | "ArrowUp") {
            return;
        }
        if open.get_untracked() {
            on_menu_key(ev);
            return;
        }
        ev.prevent_default();
        open_at(key == "ArrowUp");
    };
    // Focus leaving the button and its menu closes the menu.
    let on_focusout = move |ev: web_sys::FocusEvent| {
        let inside = match (wrapper.get_untracked(), ev.related_target()) {
            (Some(w), Some(to)) => w.contains(to.dyn_ref::<web_sys::Node>()),
            _ => false,
        };
        if !inside {
            open.set(false);
        }
    };
    let controls = menu_id.clone();
    view! {
        <span class="cs-tools" node_ref=wrapper on:focusout=on_focusout>
            <button
                type="button"
                class="cs-button cs-button--ghost cs-tools__button"
                data-part="tools-button"
                node_ref=button
                aria-haspopup="menu"
                aria-expanded=move || if open.get() { "true" } else { "false" }
                aria-controls=move || open.get().then(|| controls.clone())
                on:click=move |_| {
                    if open.get_untracked() { close(true) } else { open_at(false) }
                }
                on:keydown=on_button_key
            >
                {tr(shell, Text::PickTools)}
            </button>
            <Show when=move || open.get()>
                <div
                    class="cs-tools__menu"
                    data-part="tools-menu"
                    role="menu"
                    id=menu_id.clone()
                    aria-label=tr(shell, Text::PickTools)
                    node_ref=menu
                    on:keydown=on_menu_key
                >
                    {move || {
                        let picked = pick.with(|p| p.tool.clone());
                        tools
                            .get()
                            .into_iter()
                            .enumerate()
                            .map(|(i, tool)| {
                                let checked = Some(&tool.id) == picked.as_ref();
                                view! {
                                    <div
                                        class="cs-tools__item"
                                        role="menuitemradio"
                                        tabindex="-1"
                                        data-index=i
                                        data-tool=tool.id.clone()
                                        aria-checked=if checked { "true" } else { "false" }
                                        on:click=move |_| choose(i)
                                        on:mousemove=move |_| active.set(i)
                                    >
                                        {tool_icon(&tool)}
                                        <span>{tool.label}</span>
                                    </div>
                                }
                            })
                            .collect_view()
                    }}
                </div>
            </Show>
        </span>
    }
}
