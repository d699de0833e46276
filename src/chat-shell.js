// chat-shell: the one file a page loads.
//   <script type="module" src="/path/to/chat-shell.js"></script>
// It instantiates the wasm that sits next to it (no inline loader script, no eval: works
// under a strict Content-Security-Policy with 'wasm-unsafe-eval') and so registers
// <chat-shell>. Then it fetches, one after the other, what the first screen does not need:
//  1. at once (the link is idle while the element mounts and paints), the ChatKit decoders
//     cut from the first module (the stream's events and the JSON answers:
//     split_decoders.wasm, loaded through __wasm_split.js; src/runtime/on_demand.rs);
//  2. the widgets chunk (widgets, client tools, structured input: split_widgets.wasm;
//     src/views/on_demand.rs);
//  3. the second module, the markdown renderer and sanitizer (chat-shell-render.js and its
//     wasm), which it hands to the first: until then answers show as plain text;
//  4. the chunk of the other views (tool calls, the Diff view, the history…:
//     split_on_demand.wasm).
// One after the other, the most needed first: on a slow link two parallel downloads each
// take the time of both. No answer shows without the decoders; a widget cannot show without
// its chunk, while an answer shows as text meanwhile; every answer needs the renderer, and
// fewer conversations the other views.
// Each step waits for the one before at most WAIT_MS, so a stalled fetch never holds up the
// rest. A view asked for before its chunk's turn fetches that chunk itself at once.
// All files sit next to this one.
import init, { rendererLoaded, prefetchDecoders, prefetchWidgets, prefetchViews } from './chat-shell-core.js';

await init({ module_or_path: new URL('./chat-shell_bg.wasm', import.meta.url) });

const WAIT_MS = 3000;
const atMost = (promise) => Promise.race([promise, new Promise((resolve) => setTimeout(resolve, WAIT_MS))]);
const decoders = prefetchDecoders();
const widgets = atMost(decoders).then(() => prefetchWidgets());
// The renderer's glue is small: fetched now, so that its wasm starts the moment the widgets
// chunk is in, not a round trip later.
const rendererGlue = import('./chat-shell-render.js');
rendererGlue.catch(() => {}); // reported below, when it is used

let requested = false;
async function loadRenderer() {
  if (requested) return;
  requested = true;
  await atMost(widgets);
  const renderer = rendererGlue
    .then(async (module) => {
      await module.default();
      rendererLoaded(module);
    })
    .catch((error) => console.error('chat-shell: the markdown renderer did not load; text stays plain', error));
  await atMost(renderer);
  prefetchViews();
}
requestAnimationFrame(() => setTimeout(loadRenderer));
// A page loaded in a background tab paints no frame until it is shown.
setTimeout(loadRenderer, 1000);
