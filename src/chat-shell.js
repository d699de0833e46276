// chat-shell: the one file a page loads.
//   <script type="module" src="/path/to/chat-shell.js"></script>
// It instantiates the wasm that sits next to it (no inline loader script, no eval: works
// under a strict Content-Security-Policy with 'wasm-unsafe-eval') and so registers
// <chat-shell>. Right after the first paint it fetches the second module, the markdown
// renderer and sanitizer (chat-shell-render.js and its wasm, also next to this file), and
// hands it to the first: until then answers show as plain text. Then it prefetches the part
// of the first module's code that the first screen does not need (widgets, tool calls, the
// Diff view…: __wasm_split.js and split_on_demand.wasm, see src/views/on_demand.rs).
import init, { rendererLoaded, prefetchViews } from './chat-shell-core.js';

await init({ module_or_path: new URL('./chat-shell_bg.wasm', import.meta.url) });

let requested = false;
async function loadRenderer() {
  if (requested) return;
  requested = true;
  const renderer = import('./chat-shell-render.js');
  prefetchViews();
  try {
    const module = await renderer;
    await module.default();
    rendererLoaded(module);
  } catch (error) {
    console.error('chat-shell: the markdown renderer did not load; text stays plain', error);
  }
}
requestAnimationFrame(() => setTimeout(loadRenderer));
// A page loaded in a background tab paints no frame until it is shown.
setTimeout(loadRenderer, 1000);
