// chat-shell: the one file a page loads.
//   <script type="module" src="/path/to/chat-shell.js"></script>
// It instantiates the wasm that sits next to it (no inline loader script, no eval: works
// under a strict Content-Security-Policy with 'wasm-unsafe-eval') and so registers
// <chat-shell>. The first module and what the first screen does not need come in one file,
// chat-shell.pack (./chat-shell-pack.js, scripts/pack.mjs), in order of need:
//  1. the first module, which streams into its compiler as it arrives;
//  2. the ChatKit decoders cut from it (the stream's events and the JSON answers:
//     split_decoders.wasm, loaded through __wasm_split.js; src/parts/runtime.rs), and
//     the thread channel's reader, asked for once a thread is shown (split_channel.wasm);
//  3. the widgets chunk (widgets, client tools, structured input: split_widgets.wasm;
//     src/parts/views.rs);
//  4. the markdown renderer and sanitizer (split_renderer.wasm; src/parts/renderer.rs): until
//     then answers show as plain text;
//  5. the chunk of the other views (tool calls, the Diff view, the history…:
//     split_on_demand.wasm).
// No answer shows without the decoders; a widget cannot show without its chunk, while an
// answer shows as text meanwhile; every answer needs the renderer, and fewer conversations
// the other views. Each is instantiated once its bytes are in, in that order: each step
// waits for the one before at most WAIT_MS, so a stalled step never holds up the rest. A
// view asked for before its turn is built once its chunk is in. Parts fetched when first
// needed (attachments, other envelopes' adapters) are files of their own.
// If the pack cannot be fetched or breaks off, each file it did not deliver whole is
// fetched by itself. All files sit next to this one.
import init, { prefetchDecoders, prefetchRenderer, prefetchWidgets, prefetchViews } from './chat-shell-core.js';
import { packedStream } from './chat-shell-pack.js';

const firstModule = new URL('./chat-shell_bg.wasm', import.meta.url);
const streamed = await packedStream('chat-shell_bg.wasm');
try {
  await init({ module_or_path: streamed ?? firstModule });
} catch (error) {
  if (!streamed) throw error;
  // The pack broke off within the first module: the file itself.
  await init({ module_or_path: firstModule });
}

const WAIT_MS = 3000;
const atMost = (promise) => Promise.race([promise, new Promise((resolve) => setTimeout(resolve, WAIT_MS))]);
const decoders = prefetchDecoders();
const widgets = atMost(decoders).then(() => prefetchWidgets());

let requested = false;
async function loadRenderer() {
  if (requested) return;
  requested = true;
  await atMost(widgets);
  const renderer = prefetchRenderer().catch((error) =>
    console.error('chat-shell: the markdown renderer did not load; text stays plain', error));
  await atMost(renderer);
  prefetchViews();
}
requestAnimationFrame(() => setTimeout(loadRenderer));
// A page loaded in a background tab paints no frame until it is shown.
setTimeout(loadRenderer, 1000);
