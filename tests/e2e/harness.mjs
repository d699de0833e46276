// Shared helpers for the end-to-end tests (`node --test tests/e2e/`).
//
// They drive the release page in dist/ (`./scripts/build.sh`, trunk build --release) served by
// target/debug/chat-shell-runtime (`cargo build -p chat-shell-runtime`), in
// Debian's headless Chromium through playwright-core.
//
// Every resource opened here is registered; call `close()` from an `after()`
// hook so the runtime, the browser and its profile folder go away even when a
// test fails. E2E_VERBOSE=1 echoes the runtime's output live to stderr;
// E2E_RUNTIME_BIN=path runs another runtime binary.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import readline from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { logicalName } from '../../scripts/hash.mjs';
import { readIndex } from '../../scripts/pack.mjs';

export { sleep };

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
// E2E_DIST serves another build of the page (parallel work must not share dist/).
export const DIST = process.env.E2E_DIST ? path.resolve(ROOT, process.env.E2E_DIST) : path.join(ROOT, 'dist');
// E2E_RUNTIME_BIN runs another build (for example target/release/chat-shell-runtime).
export const RUNTIME_BIN = process.env.E2E_RUNTIME_BIN
  ? path.resolve(ROOT, process.env.E2E_RUNTIME_BIN)
  : path.join(ROOT, 'target', 'debug', 'chat-shell-runtime');
export const PROFILES = path.join(ROOT, 'target', 'e2e-profiles');
export const CHROMIUM = '/usr/bin/chromium';

// Without these Chromium floods the closed network with refused connections.
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-quic',
  '--no-first-run',
];

const LISTENING = /chat-shell-runtime listening on (http:\/\/127\.0\.0\.1:(\d+))/;
const verbose = process.env.E2E_VERBOSE === '1';

// Closers of everything opened, run last-in first-out by close().
const open = [];

function register(closeFn) {
  let done = null;
  const once = () => (done ??= closeFn());
  open.push(once);
  return once;
}

/** Closes every runtime, browser and profile folder this process opened. */
export async function close() {
  const errors = [];
  while (open.length > 0) {
    const closeOne = open.pop();
    try {
      await closeOne();
    } catch (err) {
      errors.push(err);
    }
  }
  if (errors.length > 0) {
    throw new AggregateError(errors, 'e2e harness: errors while closing');
  }
}

/**
 * Polls `fn` until it returns a truthy value (which is returned) or the time
 * runs out (throws, with `message` (a string or a function giving one) and the
 * last value or error).
 */
export async function waitFor(fn, { timeout = 10_000, interval = 25, message = 'condition' } = {}) {
  const deadline = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      last = await fn();
      if (last) return last;
    } catch (err) {
      last = err;
    }
    if (Date.now() >= deadline) {
      const what = typeof message === 'function' ? message() : message;
      throw new Error(`timed out after ${timeout} ms waiting for ${what} (last: ${last})`);
    }
    // The poll interval: the one sleep every wait of the tests goes through.
    await sleep(interval);
  }
}

/**
 * Starts target/debug/chat-shell-runtime on a free port with an in-memory
 * store. Resolves once it printed its "listening on" line.
 *
 * Returns { url, port, lines, process, linesMatching(re), waitForLine(re, opts), close() };
 * `lines` collects every stdout and stderr line (request log lines included).
 */
export async function startRuntime({ paceMs = 0, extraArgs = [], startTimeout = 20_000, dist = DIST } = {}) {
  if (!existsSync(RUNTIME_BIN)) {
    throw new Error(`${RUNTIME_BIN} is missing: run 'cargo build -p chat-shell-runtime' first`);
  }
  if (!existsSync(path.join(dist, 'index.html'))) {
    throw new Error(`${dist}/index.html is missing: run './scripts/build.sh' (trunk build --release) first`);
  }

  const args = ['--dist', dist, '--port', '0', '--memory', '--pace-ms', String(paceMs), ...extraArgs];
  const child = spawn(RUNTIME_BIN, args, {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, RUST_BACKTRACE: '1' },
  });
  // Last resort if the test process exits without running its after() hooks.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  const lines = [];
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));

  let onReady;
  const ready = new Promise((resolve, reject) => {
    onReady = resolve;
    child.once('error', reject);
    exited.then(({ code, signal }) =>
      reject(new Error(`chat-shell-runtime exited before listening (code ${code}, signal ${signal}):\n${lines.join('\n')}`)),
    );
  });

  for (const [name, stream] of [['stdout', child.stdout], ['stderr', child.stderr]]) {
    readline.createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
      lines.push(line);
      if (verbose) process.stderr.write(`[runtime ${name}] ${line}\n`);
      const m = LISTENING.exec(line);
      if (m) onReady({ url: m[1], port: Number(m[2]) });
    });
  }

  const closeRuntime = register(async () => {
    process.removeListener('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
      await exited;
      clearTimeout(timer);
    }
  });

  let url;
  let port;
  let timer;
  try {
    ({ url, port } = await Promise.race([
      ready,
      new Promise((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`chat-shell-runtime did not print its listening line within ${startTimeout} ms:\n${lines.join('\n')}`)),
          startTimeout,
        );
      }),
    ]));
  } catch (err) {
    await closeRuntime();
    throw err;
  } finally {
    clearTimeout(timer);
  }

  const linesMatching = (re) => lines.filter((line) => (typeof re === 'string' ? line.includes(re) : re.test(line)));
  return {
    url,
    port,
    lines,
    process: child,
    linesMatching,
    /** Waits until at least `count` lines match; returns the matching lines. */
    waitForLine: (re, { count = 1, timeout = 10_000 } = {}) =>
      waitFor(
        () => {
          const found = linesMatching(re);
          return found.length >= count ? found : null;
        },
        { timeout, message: () => `${count} runtime line(s) matching ${re}; runtime output:\n${lines.join('\n')}\n` },
      ),
    close: closeRuntime,
  };
}

/**
 * Launches Debian's Chromium headless with a fresh profile folder under
 * tests/e2e/.profiles. Returns the Playwright BrowserContext; its close() (or
 * the module's close()) also removes the profile folder.
 */
export async function openBrowser({ viewport = { width: 1280, height: 900 }, extraArgs = [], touch = false } = {}) {
  await mkdir(PROFILES, { recursive: true });
  const profile = await mkdtemp(path.join(PROFILES, 'run-'));
  let context;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [...CHROMIUM_ARGS, ...extraArgs],
      viewport,
      // A phone: touch events and a coarse pointer (what `@media (pointer: coarse)` sees).
      ...(touch ? { hasTouch: true, isMobile: true, deviceScaleFactor: 3 } : {}),
    });
  } catch (err) {
    await rm(profile, { recursive: true, force: true });
    throw err;
  }
  const closeContext = context.close.bind(context);
  const closeBrowser = register(async () => {
    try {
      await closeContext();
    } finally {
      await rm(profile, { recursive: true, force: true });
    }
  });
  context.close = closeBrowser;
  return context;
}

export { logicalName };

/**
 * The name in dist/ of the element's file `name`, as the build named it before hashing
 * (`split_widgets.wasm` -> `split_widgets-<hash>.wasm`, scripts/hash.mjs).
 */
export function distName(name) {
  const found = readdirSync(DIST).filter((file) => logicalName(file) === name);
  if (found.length !== 1) throw new Error(`dist/ has ${found.length} files named ${name}: ${found}`);
  return found[0];
}

/** The entries of dist's chat-shell.pack (scripts/pack.mjs): [{ name, offset, length }],
 *  named as before hashing. */
export function packEntries() {
  return readIndex(readFileSync(path.join(DIST, distName('chat-shell.pack'))));
}

/**
 * Makes chat-shell.pack break off halfway through the file `name` it holds (the response
 * ends there), as a dropped connection would: what came before it arrives whole, and the
 * page must fetch the rest file by file. Returns how many times the pack was asked for.
 */
export async function breakPack(context, name) {
  const pack = distName('chat-shell.pack');
  const bytes = readFileSync(path.join(DIST, pack));
  const entry = readIndex(bytes).find((e) => e.name === name);
  if (!entry) throw new Error(`breakPack: the pack does not hold ${name}`);
  const asked = { count: 0 };
  await context.route(`**/${pack}`, async (route) => {
    asked.count += 1;
    await route.fulfill({ status: 200, contentType: 'application/octet-stream', body: bytes.subarray(0, entry.offset + Math.floor(entry.length / 2)) });
  });
  return asked;
}

/**
 * Opens `url` in a new page of `context`. Console messages of type error and
 * uncaught page errors are recorded in `page.consoleErrors` (strings).
 */
export async function newPage(context, url) {
  const page = await context.newPage();
  page.consoleErrors = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') {
      const where = msg.location()?.url ? ` (${msg.location().url})` : '';
      page.consoleErrors.push(`console.error: ${msg.text()}${where}`);
    }
  });
  page.on('pageerror', (err) => {
    page.consoleErrors.push(`pageerror: ${err.stack || err.message}`);
  });
  await page.goto(url, { waitUntil: 'load' });
  return page;
}

// ---- chat UI helpers (shared by every test that opens the element) ---------------------

/** Waits until <chat-shell> has mounted its composer (the element's own, not the early
 *  frame drawn before the wasm), after a page load or a reload. */
export async function waitForComposer(page, { timeout = 10_000 } = {}) {
  await waitFor(
    () => page.evaluate(() => !!document.querySelector('chat-shell')?.shadowRoot?.querySelector('.cs-root:not([data-early]) textarea')),
    { timeout, message: 'the <chat-shell> composer to be mounted' },
  );
}

/**
 * Opens `url` like newPage() and waits until <chat-shell> has mounted its composer (the
 * element's own, not the early frame drawn before the wasm). Then, as the test asks:
 *  - `reducedMotion`: answers show whole as they arrive (no typewriter; openChat() sets it);
 *  - `events`: true, or a list of `chat.*` event names, recorded with recordEvents();
 *  - `attributes`: attributes set on the element (`{ protocol: 'events', endpoint: '/events' }`);
 *  - `options`: passed to the element's setOptions();
 *  - `threadId`: the thread the element shows (setThreadId());
 *  - `setup`: a function run in the page (handlers, listeners), last;
 *  - `bodies`: a path (`'/chatkit'`): `page.bodies` collects the JSON body of every POST to it;
 *  - `dialogs`: `page.dialogs` collects the message of every dialog, each dismissed;
 *  - `logs`: a runtime: `page.logs()` gives its last lines and the console errors, for
 *    assertion messages (finishPage() adds it to its own).
 */
export async function newChatPage(
  context,
  url,
  { reducedMotion = false, events, attributes, options, threadId, setup, bodies, dialogs = false, logs } = {},
) {
  const page = await newPage(context, url);
  await waitForComposer(page);
  if (bodies) {
    page.bodies = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && new URL(r.url()).pathname.endsWith(bodies)) page.bodies.push(r.postDataJSON());
    });
  }
  if (dialogs) {
    page.dialogs = [];
    page.on('dialog', (d) => {
      page.dialogs.push(d.message());
      d.dismiss().catch(() => {});
    });
  }
  if (logs) {
    page.logs = () =>
      `\n--- runtime output:\n${logs.lines.slice(-40).join('\n')}\n--- console errors:\n${page.consoleErrors.join('\n')}`;
  }
  if (reducedMotion) await page.emulateMedia({ reducedMotion: 'reduce' });
  if (events) await recordEvents(page, ...(events === true ? [] : [events]));
  if (attributes) {
    await page.evaluate((attributes) => {
      const el = document.querySelector('chat-shell');
      for (const [name, value] of Object.entries(attributes)) el.setAttribute(name, value);
    }, attributes);
  }
  if (options) await page.evaluate((o) => document.querySelector('chat-shell').setOptions(o), options);
  if (threadId) await page.evaluate((id) => document.querySelector('chat-shell').setThreadId(id), threadId);
  if (setup) await page.evaluate(setup);
  return page;
}

/**
 * newChatPage() with reduced motion: text shows as it arrives (no typewriter). Tests about
 * what arrives want that; the typewriter's pacer also needs animation frames, which this
 * headless Chromium was seen not to deliver after a one-piece answer.
 */
export async function openChat(context, url, options = {}) {
  return newChatPage(context, url, { reducedMotion: true, ...options });
}

/**
 * Fails if the page logged an error or threw (with `checkXss`, also if a script injected by
 * the test's hostile content ran: `window.__xss` set), then closes it.
 */
export async function finishPage(page, { checkXss = false } = {}) {
  assert.deepEqual(page.consoleErrors, [], `console errors on the page${page.logs?.() ?? ''}`);
  if (checkXss) assert.equal(await page.evaluate(() => window.__xss ?? null), null, 'nothing injected ran');
  await page.close();
}

/** A hostile string for what a server says: an image whose error handler would set
 *  `window.__xss` and open a dialog. */
export const XSS = '<img src=x onerror="window.__xss=1;alert(1)">';

/** No injected element and no script ran (needs a page opened with `dialogs`). */
export async function assertInert(page) {
  const found = await page.evaluate(() => {
    const root = document.querySelector('chat-shell').shadowRoot;
    return {
      onerror: root.querySelectorAll('[onerror]').length,
      // The sanitizer may keep a bare <img> from markdown, never its script or source.
      imgs: [...root.querySelectorAll('img[src]')].map((i) => i.getAttribute('src')),
      xss: window.__xss ?? null,
    };
  });
  assert.deepEqual(found, { onerror: 0, imgs: [], xss: null }, 'server strings stay inert');
  assert.deepEqual(page.dialogs, [], 'no dialog fired');
}

/**
 * Chromium logs every failed fetch itself ("Failed to load resource: the server responded
 * with a status of 500", "net::ERR_INCOMPLETE_CHUNKED_ENCODING" for a body cut short): those
 * lines come from the browser's network layer, not from the component. Tests that provoke
 * exactly that failure drop exactly that line (one matching `pattern`).
 */
export function dropNetworkLog(page, pattern) {
  page.consoleErrors = page.consoleErrors.filter((e) => !(e.startsWith('console.error: Failed to load resource: ') && pattern.test(e)));
}

/** The composer's text box. */
export const composer = (page) => page.getByRole('textbox', { name: 'Message' });
/** The composer's Send button. */
export const sendButton = (page) => page.getByRole('button', { name: 'Send', exact: true });
/** The Stop button of the run under way. */
export const stopButton = (page) => page.getByRole('button', { name: 'Stop', exact: true });

/** The assistant messages on the page (their articles). */
export const assistantMessages = (page) => page.locator('article[data-role="assistant"]');

/** The text of the last assistant message's body (not its notes and buttons), and its
 *  committed part (without the open tail block the streaming renderer rewrites). */
export async function lastAnswerText(page) {
  return page.evaluate(() => {
    const articles = document.querySelector('chat-shell').shadowRoot.querySelectorAll('article[data-role="assistant"]');
    const body = articles[articles.length - 1]?.querySelector('.cs-msg__body');
    if (!body) return null;
    const copy = body.cloneNode(true);
    for (const tail of copy.querySelectorAll('.cs-md__tail')) tail.remove();
    return { text: body.textContent.trim(), committed: copy.textContent.trim() };
  });
}

/** The text of the element's shadow root (what the user can read, folded parts included). */
export async function shownText(page) {
  return page.evaluate(() => document.querySelector('chat-shell').shadowRoot.textContent);
}

/** Waits until the element shows `needle` (anywhere in its shadow root). */
export async function waitForText(page, needle, timeout = 15_000) {
  await waitFor(async () => (await shownText(page)).includes(needle), { timeout, message: `"${needle}" on the page` });
}

/**
 * Resolves once the response to `request` (a Playwright Request) has ended, whole or cut
 * (Stop, a thread switch, a dropped connection): nothing more can arrive on it.
 */
export async function responseEnded(request, { timeout = 15_000 } = {}) {
  // Playwright's response.finished() never settles for a request that failed (an aborted
  // stream): its failure, or the time its response ended, says it either way.
  await waitFor(() => request.failure() !== null || request.timing().responseEnd !== -1, {
    timeout,
    message: `the response to ${request.method()} ${request.url()} to end`,
  });
}

/**
 * Waits until every image in the element has loaded or failed (when an injected `onload`
 * or `onerror` would run; a lazy one out of view loads nothing yet), then for the frames
 * after.
 */
export async function imagesSettled(page, { timeout = 10_000 } = {}) {
  await waitFor(
    () =>
      page.evaluate(() =>
        [...(document.querySelector('chat-shell')?.shadowRoot?.querySelectorAll('img') ?? [])].every((i) => i.complete || i.loading === 'lazy'),
      ),
    { timeout, message: 'the images in the element to load or fail' },
  );
  await frames(page);
}

/**
 * Waits for `n` animation frames in the page: what the element does with an input (render,
 * send a request) is done once its next frames have run. An absence check ("nothing was
 * sent", "nothing shows") waits for these after what would have caused the thing.
 */
export function frames(page, n = 3) {
  return page.evaluate(async (n) => {
    for (let i = 0; i < n; i++) await new Promise((r) => requestAnimationFrame(r));
  }, n);
}

/** Types `text` into the composer without sending it (also while a run streams, when Send
 *  is Stop), the caret then at `caret` (a collapsed selection), or at the end. */
export async function fillDraft(page, text, { caret } = {}) {
  const box = composer(page);
  await box.click();
  await box.fill(text);
  if (caret !== undefined) await box.evaluate((el, at) => el.setSelectionRange(at, at), caret);
}

/**
 * Types `text` into the composer and sends it with Enter (Send must be enabled first).
 * `typed`: typed key by key (pressSequentially) rather than filled at once; `send`: the
 * Send button's name (another language's).
 */
export async function sendMessage(page, text, { typed = false, send = 'Send' } = {}) {
  const box = composer(page);
  const button = page.getByRole('button', { name: send, exact: true });
  await box.click();
  if (typed) await box.pressSequentially(text);
  else await box.fill(text);
  await waitFor(() => button.isEnabled({ timeout: 1_000 }), {
    timeout: 5_000,
    message: `the ${send} button to be enabled with "${text}" in the composer`,
  });
  await box.press('Enter');
}

/**
 * The run is over: its Stop button is gone. Call it once something of the run is on the
 * page (before that, Stop may not be painted yet); a scenario may stream more after the
 * item a test waited for.
 */
export function runOver(page, { timeout = 15_000 } = {}) {
  return page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'detached', timeout });
}

/** Whether an answer is streaming: an assistant article with aria-busy="true" or a Stop button. */
export async function isStreaming(page) {
  return page.evaluate(() => {
    const root = document.querySelector('chat-shell')?.shadowRoot;
    if (!root) return false;
    const busy = root.querySelector('article[aria-busy="true"]');
    const stop = [...root.querySelectorAll('button')].some((b) => b.textContent.trim() === 'Stop');
    return !!busy || stop;
  });
}

/**
 * Waits until the answer to the last message is over: nothing is aria-busy, there is no
 * Stop button and the Send button is back, stable for `settle` ms (the runtime publishes
 * changes once per animation frame). `send` and `stop` name the buttons in another language.
 */
export async function waitForIdle(page, { timeout = 15_000, settle = 150, send = 'Send', stop = 'Stop' } = {}) {
  let idleSince = null;
  await waitFor(
    async () => {
      const idle = await page.evaluate(({ send, stop }) => {
        const root = document.querySelector('chat-shell')?.shadowRoot;
        if (!root) return false;
        const buttons = [...root.querySelectorAll('button')].map((b) => b.textContent.trim());
        return !root.querySelector('article[aria-busy="true"]') && !buttons.includes(stop) && buttons.includes(send);
      }, { send, stop });
      if (!idle) {
        idleSince = null;
        return false;
      }
      idleSince ??= Date.now();
      return Date.now() - idleSince >= settle;
    },
    { timeout, message: `the answer to finish within ${timeout} ms` },
  );
}

/**
 * Records, from a MutationObserver on the shadow root, every distinct state of a set of
 * probes: `{ name: 'css selector' }` counts matches, `{ name: { sel, text } }` counts
 * matches whose trimmed text equals `text`, `{ name: { sel, read: 'text' } }` reads the
 * text of the first match (null if none). Read the log with `recorded(page)`.
 */
export async function startRecorder(page, probes) {
  await page.evaluate((probes) => {
    const root = document.querySelector('chat-shell').shadowRoot;
    const log = [];
    const snap = () => {
      const s = {};
      for (const [name, p] of Object.entries(probes)) {
        const spec = typeof p === 'string' ? { sel: p } : p;
        let els = [...root.querySelectorAll(spec.sel)];
        if (spec.text !== undefined) els = els.filter((e) => e.textContent.trim() === spec.text);
        s[name] = spec.read === 'text' ? (els[0]?.textContent.trim() ?? null) : els.length;
      }
      return s;
    };
    let last = '';
    const record = () => {
      const s = snap();
      const key = JSON.stringify(s);
      if (key !== last) {
        last = key;
        log.push({ t: Math.round(performance.now()), ...s });
      }
    };
    record();
    const observer = new MutationObserver(record);
    observer.observe(root, { subtree: true, childList: true, attributes: true, characterData: true });
    window.__recorder = { log, stop: () => observer.disconnect() };
  }, probes);
}

/** The states recorded since startRecorder(). */
export async function recorded(page) {
  return page.evaluate(() => window.__recorder.log.slice());
}

/** A ChatKit `thread.item.updated` event. */
export const itemUpdated = (itemId, update) => ({ type: 'thread.item.updated', item_id: itemId, update });

/** An SSE body with one `data:` frame per event. */
export function sseBody(events) {
  return events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('');
}

/**
 * Sends one ChatKit request to the runtime as the browser's user (through `context`'s
 * cookie jar: the runtime scopes everything to the user) and returns its parsed JSON
 * answer, or its raw text when `accept` is `text/event-stream`.
 */
export async function chatkitRequest(runtime, body, { context, accept = 'application/json' } = {}) {
  if (!context) throw new Error('chatkitRequest needs the browser context whose user it acts as');
  const res = await context.request.post(`${runtime.url}/chatkit`, {
    headers: { 'content-type': 'application/json', accept },
    data: JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok()) throw new Error(`chatkit ${body.type}: HTTP ${res.status()}: ${text}`);
  return accept === 'application/json' ? JSON.parse(text) : text;
}

/** Records the `chat.*` events named in `names` dispatched on <chat-shell> into `window.__chatEvents`. */
export async function recordEvents(page, names = ['chat.thread.created', 'chat.error', 'chat.response.start', 'chat.response.end']) {
  await page.evaluate((names) => {
    window.__chatEvents = [];
    const el = document.querySelector('chat-shell');
    for (const name of names) {
      el.addEventListener(name, (e) => window.__chatEvents.push({ type: e.type, detail: e.detail }));
    }
  }, names);
}

/** The id of the thread <chat-shell> created (needs recordEvents() first). */
export async function createdThreadId(page, { timeout = 5_000 } = {}) {
  return waitFor(
    () => page.evaluate(() => window.__chatEvents.find((e) => e.type === 'chat.thread.created')?.detail?.threadId),
    { timeout, message: 'a chat.thread.created event' },
  );
}

const AXE = path.join(path.dirname(createRequire(import.meta.url).resolve('axe-core', { paths: [ROOT] })), 'axe.min.js');

/** axe-core's violations inside <chat-shell> (shadow DOM included), readable. Injects
 *  axe-core (from npm) into the page on first use. */
export async function axeViolations(page, selector = 'chat-shell') {
  // Evaluated rather than added as a <script>: the runtime's pages allow no inline script.
  if (!(await page.evaluate(() => !!window.axe))) await page.evaluate(`${readFileSync(AXE, 'utf8')}\n;0`);
  return page.evaluate(async (sel) => {
    const r = await window.axe.run(sel, { resultTypes: ['violations'] });
    return r.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(' | ')}`);
  }, selector);
}

/**
 * Opens, as a reader would by clicking their summary lines, every folded tool-call group
 * and tool call (a finished call renders its content when first opened); resolves once
 * the content is on the page.
 */
export async function openToolCalls(page) {
  await page.evaluate(async () => {
    const root = document.querySelector('chat-shell').shadowRoot;
    for (const b of root.querySelectorAll('[data-part="tool-call-summary"][aria-expanded="false"]')) b.click();
    // The folded calls show on the next frame.
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    for (const d of root.querySelectorAll('[data-part="tool-call"]')) if (!d.open) d.querySelector(':scope > summary').click();
    // The toggle events run, then the views render on the next frame.
    await new Promise((r) => setTimeout(r, 0));
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  });
}

/** Every tool call on the page, in order: its title, kind, status (attribute and words),
 *  whether it is open, and whether it has its kind's icon. */
export async function toolCalls(page) {
  return page.evaluate(() => {
    const root = document.querySelector('chat-shell').shadowRoot;
    return [...root.querySelectorAll('[data-part="tool-call"]')].map((el) => ({
      title: el.querySelector('[data-part="tool-call-title"]').textContent,
      kind: el.dataset.kind,
      status: el.dataset.status,
      statusText: el.querySelector('[data-part="tool-call-status"]').textContent,
      open: el.open,
      icon: !!el.querySelector('.cs-agent-tool__icon svg'),
    }));
  });
}

/** The kind and status of every tool call on the page, in order. */
export async function toolCallStatuses(page) {
  return (await toolCalls(page)).map((c) => [c.kind, c.status]);
}

/** A git diff of `files` files, each changing line 2 of 3. */
export function manyFiles(files) {
  const out = [];
  for (let f = 0; f < files; f++) {
    out.push(`diff --git a/src/m${f}.rs b/src/m${f}.rs`, `--- a/src/m${f}.rs`, `+++ b/src/m${f}.rs`, '@@ -1,3 +1,3 @@');
    out.push(` fn m${f}() {`, `-    old_${f}();`, `+    new_${f}();`, ' }');
  }
  out.push('');
  return out.join('\n');
}

/** The callback token the tests start the runtime with (`--callback-token`). */
export const CALLBACK_TOKEN = 'e2e-callback-token-0123456789';

/**
 * Pushes a view to the thread `threadId` through the runtime's tool callback (what a tool
 * does): returns the HTTP status and the parsed JSON answer (null if none).
 */
export async function pushView(runtime, threadId, viewType, content, { token = CALLBACK_TOKEN } = {}) {
  const res = await fetch(`${runtime.url}/callback`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'view_update', group_id: threadId, view_type: viewType, content }),
  });
  return { status: res.status, body: await res.json().catch(() => null) };
}
