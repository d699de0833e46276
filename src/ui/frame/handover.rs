//! The frame's draft, handed to the live composer: what was typed before the chat started
//! (the text, the caret, the selection, the focus, and Enter if it was pressed) is taken
//! from the frame, which goes, and given to the live composer once it is mounted. Used by
//! the custom element (its shadow root holds the frame `src/chat-shell.js` drew) and by
//! `ChatShell` in a hydrated app (its host holds the frame the server rendered).

use wasm_bindgen::prelude::*;

#[wasm_bindgen(inline_js = r#"
export function takeEarly(root) {
  const frame = [...root.children].find((child) => child.hasAttribute('data-early'));
  if (!frame) return null;
  const t = frame.querySelector('textarea');
  const focused = (root.activeElement ?? root.ownerDocument?.activeElement) === t;
  const taken = {
    value: t.value, start: t.selectionStart, end: t.selectionEnd, direction: t.selectionDirection,
    focused, send: frame.dataset.send === 'true',
  };
  frame.remove();
  return taken;
}
export function giveEarly(root, taken) {
  const t = root.querySelector('textarea.cs-composer__input');
  if (!t || !taken) return;
  if (taken.value) {
    t.value = taken.value;
    t.dispatchEvent(new Event('input', { bubbles: true }));
  }
  const select = () => t.setSelectionRange(taken.start, taken.end, taken.direction);
  select();
  if (taken.focused) t.focus();
  // The live composer writes the draft back once its effects run, which puts the caret at
  // the end: the selection goes back where it was, unless the text changed since.
  setTimeout(() => t.value === taken.value && select());
  if (taken.send) t.form?.requestSubmit();
}
"#)]
extern "C" {
    #[wasm_bindgen(js_name = takeEarly)]
    fn take_early(root: &web_sys::Node) -> JsValue;
    #[wasm_bindgen(js_name = giveEarly)]
    fn give_early(root: &web_sys::Node, taken: &JsValue);
}

/// What was typed in a frame (`null`: there was none).
pub(crate) struct Taken(JsValue);

/// What was typed in the frame under `root` (a shadow root or the component's host), which
/// is removed.
pub(crate) fn take(root: &web_sys::Node) -> Taken {
    Taken(take_early(root))
}

/// Gives `taken` to the live composer under `root`.
pub(crate) fn give(root: &web_sys::Node, taken: Taken) {
    if !taken.0.is_null() {
        give_early(root, &taken.0);
    }
}
