// chat-shell: the one file a page loads.
//   <script type="module" src="/path/to/chat-shell.js"></script>
// It instantiates the wasm that sits next to it (no inline loader script, no eval: works
// under a strict Content-Security-Policy with 'wasm-unsafe-eval') and so registers
// <chat-shell>.
//
// Before any wasm arrives it draws each <chat-shell> already in the page: the frame, the
// greeting and a real composer, styled by the component's own stylesheet
// (./chat-shell-style.js, the same sheet the element adopts), in the element's locale.
// Typing and pasting work in it at once; Enter (or Send) shows "Connecting…" and sends
// once the element is there. The element takes the text, the caret, the selection and the
// focus over when it starts (src/element/mod.rs), so nothing typed is lost.
//
// The first module and what the first screen does not need come in one file,
// chat-shell.pack (./chat-shell-pack.js, scripts/pack.mjs), in order of need:
//  1. the first module, which streams into its compiler as it arrives;
//  2. the ChatKit decoders cut from it (the stream's events and the JSON answers:
//     split_decoders.wasm, loaded through __wasm_split.js; src/chunks/runtime.rs), and
//     the thread channel's reader, asked for once a thread is shown (split_channel.wasm);
//  3. the widgets chunk (widgets, client tools, structured input: split_widgets.wasm;
//     src/chunks/views.rs);
//  4. the markdown renderer and sanitizer (split_renderer.wasm; src/chunks/renderer.rs): until
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
import css from './chat-shell-style.js';
import { packedStream } from './chat-shell-pack.js';

// The stylesheet every <chat-shell> adopts, built once (the element takes it from here).
const sheet = new CSSStyleSheet();
sheet.replaceSync(css);
globalThis[Symbol.for('chat-shell.stylesheet')] = sheet;

// The early frame's strings, per built-in locale: the Rust table's own
// (crates/core/tests/early_strings.rs checks that they are the same).
const STRINGS = /* strings */ {
  "en": {"new_chat": "New chat", "greeting": "How can I help you today?", "suggestions": "Suggestions", "find_in_conversation": "Find in conversation", "export": "Export", "history": "History", "more": "More", "composer_label": "Message", "composer_placeholder": "Message the assistant", "send": "Send", "add_attachment": "Add attachment", "connecting": "Connecting…", "start_failed": "The chat could not start. Reload the page to try again."},
  "fr": {"new_chat": "Nouvelle conversation", "greeting": "Comment puis-je vous aider ?", "suggestions": "Suggestions", "find_in_conversation": "Rechercher dans la conversation", "export": "Exporter", "history": "Historique", "more": "Plus", "composer_label": "Message", "composer_placeholder": "Écrire à l'assistant", "send": "Envoyer", "add_attachment": "Ajouter une pièce jointe", "connecting": "Connexion…", "start_failed": "La conversation n'a pas pu démarrer. Rechargez la page pour réessayer."},
  "de": {"new_chat": "Neuer Chat", "greeting": "Wie kann ich helfen?", "suggestions": "Vorschläge", "find_in_conversation": "In der Unterhaltung suchen", "export": "Exportieren", "history": "Verlauf", "more": "Mehr", "composer_label": "Nachricht", "composer_placeholder": "Nachricht an den Assistenten", "send": "Senden", "add_attachment": "Anhang hinzufügen", "connecting": "Verbindung wird hergestellt…", "start_failed": "Der Chat konnte nicht starten. Laden Sie die Seite neu, um es erneut zu versuchen."},
  "ar": {"new_chat": "محادثة جديدة", "greeting": "كيف يمكنني مساعدتك اليوم؟", "suggestions": "اقتراحات", "find_in_conversation": "البحث في المحادثة", "export": "تصدير", "history": "السجل", "more": "المزيد", "composer_label": "رسالة", "composer_placeholder": "اكتب رسالة إلى المساعد", "send": "إرسال", "add_attachment": "إضافة مرفق", "connecting": "جارٍ الاتصال…", "start_failed": "تعذّر بدء المحادثة. أعد تحميل الصفحة للمحاولة مرة أخرى."}
} /* end strings */;
const RTL = new Set(['ar', 'fa', 'he', 'ur', 'ps', 'sd', 'yi', 'dv', 'ckb']);

const SVG = 'http://www.w3.org/2000/svg';
// The element's glyphs the frame shows (src/ui/glyphs.rs).
const GLYPHS = {
  search: 'M10.5 4a6.5 6.5 0 1 0 0 13a6.5 6.5 0 1 0 0-13zM15.5 15.5L20 20',
  plus: 'M12 5v14M5 12h14',
  history: 'M4 12a8 8 0 1 0 2.4-5.7M4 4v4h4M12 8v4l3 2',
  download: 'M12 4v11M7 10l5 5l5-5M5 20h14',
  more: 'M5 11a1 1 0 1 0 0 2a1 1 0 1 0 0-2zM12 11a1 1 0 1 0 0 2a1 1 0 1 0 0-2zM19 11a1 1 0 1 0 0 2a1 1 0 1 0 0-2z',
};

function element(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value != null) el.setAttribute(name, value);
  }
  el.append(...children);
  return el;
}

function glyph(name) {
  const svg = document.createElementNS(SVG, 'svg');
  for (const [k, v] of Object.entries({ class: 'cs-glyph', viewBox: '0 0 24 24', 'aria-hidden': 'true', focusable: 'false' })) {
    svg.setAttribute(k, v);
  }
  const path = document.createElementNS(SVG, 'path');
  path.setAttribute('d', GLYPHS[name]);
  svg.append(path);
  return svg;
}

/** The starter prompts' titles from the element's attribute (none if it is not JSON). */
function starterTitles(host) {
  try {
    const prompts = JSON.parse(host.getAttribute('starter-prompts') ?? '[]');
    return Array.isArray(prompts) ? prompts.map((p) => String(p?.title || p?.prompt || '')).filter(Boolean) : [];
  } catch {
    return [];
  }
}

// The frame of a <chat-shell> not started yet, in its shadow root: the same markup and
// classes as the element's (src/ui/shell.rs, header.rs, conversation/viewport.rs,
// composer/mod.rs), so the element replaces it without anything moving. What only the
// element can do (its header's actions, the starter prompts, attachments) is there,
// inert, until it starts.
function drawEarly(host) {
  if (host.shadowRoot) return;
  const locale = host.getAttribute('locale') || 'en';
  const primary = locale.split(/[-_]/)[0].toLowerCase();
  const t = STRINGS[primary] ?? STRINGS.en;
  const root = host.attachShadow({ mode: 'open' });
  root.adoptedStyleSheets = [sheet];
  const textarea = element('textarea', {
    class: 'cs-composer__input',
    rows: '1',
    'aria-label': t.composer_label,
    placeholder: host.getAttribute('placeholder') || t.composer_placeholder,
  });
  const send = element('button', { type: 'submit', class: 'cs-button cs-button--primary', disabled: '' }, t.send);
  const status = element('p', { class: 'cs-composer__blocked', 'data-part': 'connecting', role: 'status', hidden: '' });
  const attach = element('button', {
    type: 'button', class: 'cs-button cs-button--ghost cs-composer__attach', 'aria-label': t.add_attachment,
    title: t.add_attachment, inert: '', hidden: host.getAttribute('allow-attachments') === 'false' ? '' : null,
  }, element('span', { class: 'cs-composer__plus' }, glyph('plus')));
  const form = element('form', { class: 'cs-composer', 'data-part': 'composer' }, status, attach, textarea, send);
  const action = (label, icon, withLabel, extra = '') => element('button', {
    type: 'button', class: `cs-button cs-button--ghost${extra}`, 'aria-label': label, title: label,
  }, glyph(icon), ...(withLabel ? [element('span', { class: 'cs-button__label' }, label)] : []));
  const menu = (label, icon, where) => element('span', { class: `cs-header__menu ${where}` }, action(label, icon, false));
  const titles = starterTitles(host);
  const prompts = titles.length
    ? [element('ul', { class: 'cs-start__prompts', 'aria-label': t.suggestions, inert: '' },
      ...titles.map((title) => element('li', {},
        element('button', { type: 'button', class: 'cs-start__prompt' },
          element('span', { class: 'cs-start__icon' }), element('span', { class: 'cs-start__title' }, title)))))]
    : [];
  const frame = element('div', { class: 'cs-root', 'data-early': '' },
    element('div', { class: 'cs-shell', part: 'shell', lang: locale, dir: RTL.has(primary) ? 'rtl' : null },
      element('header', { class: 'cs-header', part: 'header' },
        element('h2', { class: 'cs-header__title', 'data-part': 'thread-title' }, t.new_chat),
        element('div', { class: 'cs-header__actions', inert: '' },
          action(t.find_in_conversation, 'search', false, ' cs-header__wide'),
          menu(t.export, 'download', 'cs-header__wide'),
          action(t.new_chat, 'plus', true),
          action(t.history, 'history', true),
          menu(t.more, 'more', 'cs-header__narrow'))),
      element('div', { class: 'cs-body', part: 'body' },
        element('div', { class: 'cs-conversation' },
          element('div', { class: 'cs-viewport', part: 'viewport' },
            element('div', { class: 'cs-viewport__content' },
              element('div', { class: 'cs-start', 'data-part': 'start-screen' },
                element('p', { class: 'cs-start__greeting' }, host.getAttribute('greeting') || t.greeting),
                ...prompts)))),
        element('div', { class: 'cs-dock', part: 'composer' }, form))));
  const sendLater = () => {
    if (!textarea.value.trim() || frame.dataset.send) return;
    frame.dataset.send = 'true';
    textarea.readOnly = true;
    send.disabled = true;
    status.textContent = t.connecting;
    status.hidden = false;
  };
  // Grows with its text, as the element's composer does.
  const grow = () => {
    textarea.style.height = 'auto';
    textarea.style.height = `${Math.min(textarea.scrollHeight, 200)}px`;
  };
  textarea.addEventListener('input', () => {
    grow();
    send.disabled = !textarea.value.trim() || !!frame.dataset.send;
  });
  textarea.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      sendLater();
    }
  });
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    sendLater();
  });
  frame.failed = () => {
    status.textContent = t.start_failed;
    status.setAttribute('role', 'alert');
    status.hidden = false;
  };
  root.append(frame);
  grow();
}

const early = [...document.querySelectorAll('chat-shell')];
if (!customElements.get('chat-shell')) early.forEach(drawEarly);

const firstModule = new URL('./chat-shell_bg.wasm', import.meta.url);
let core;
try {
  core = await import('./chat-shell-core.js');
  const streamed = await packedStream('chat-shell_bg.wasm');
  try {
    await core.default({ module_or_path: streamed ?? firstModule });
  } catch (error) {
    if (!streamed) throw error;
    // The pack broke off within the first module: the file itself.
    await core.default({ module_or_path: firstModule });
  }
} catch (error) {
  for (const host of early) host.shadowRoot?.querySelector('[data-early]')?.failed?.();
  throw error;
}
const { prefetchDecoders, prefetchRenderer, prefetchWidgets, prefetchViews } = core;

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
