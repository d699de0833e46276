// chat-shell: the one file a page loads.
//   <script type="module" src="/path/to/chat-shell.js"></script>
// It instantiates the wasm that sits next to it (no inline loader script, no eval: works
// under a strict Content-Security-Policy with 'wasm-unsafe-eval') and so registers
// <chat-shell>. Then, one after the other, it fetches the part of the first module's code
// that the first screen does not need (widgets, tool calls, the Diff view…:
// split_on_demand.wasm through __wasm_split.js; src/views/on_demand.rs), starting at once
// (the link is idle while the element mounts and paints), and right after the first paint
// the second module, the markdown renderer and sanitizer (chat-shell-render.js and its
// wasm), which it hands to the first: until then answers show as plain text. One after
// the other, the smaller first: on a slow link two parallel downloads would each take the
// time of both, and a widget cannot show without its part while an answer shows as text
// meanwhile. The renderer waits for the views part at most VIEWS_FIRST_MS, so a stalled
// part never keeps answers plain. All files sit next to this one.
import init, { rendererLoaded, prefetchViews } from './chat-shell-core.js';

await init({ module_or_path: new URL('./chat-shell_bg.wasm', import.meta.url) });

const VIEWS_FIRST_MS = 3000;
const views = prefetchViews();
// The renderer's glue is small: fetched now, so that its wasm starts the moment the views
// part is in, not a round trip later.
const rendererGlue = import('./chat-shell-render.js');
rendererGlue.catch(() => {}); // reported below, when it is used

let requested = false;
async function loadRenderer() {
  if (requested) return;
  requested = true;
  await Promise.race([views, new Promise((resolve) => setTimeout(resolve, VIEWS_FIRST_MS))]);
  try {
    const module = await rendererGlue;
    await module.default();
    rendererLoaded(module);
  } catch (error) {
    console.error('chat-shell: the markdown renderer did not load; text stays plain', error);
  }
}
requestAnimationFrame(() => setTimeout(loadRenderer));
// A page loaded in a background tab paints no frame until it is shown.
setTimeout(loadRenderer, 1000);
