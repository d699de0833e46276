// chat-shell: the one file a page loads.
//   <script type="module" src="/path/to/chat-shell.js"></script>
// It instantiates the wasm that sits next to it (no inline loader script, no eval: works
// under a strict Content-Security-Policy with 'wasm-unsafe-eval') and so registers
// <chat-shell>.
import init from './chat-shell-core.js';

await init({ module_or_path: new URL('./chat-shell_bg.wasm', import.meta.url) });
