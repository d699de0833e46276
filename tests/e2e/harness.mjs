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

// ---- chat UI helpers (shared by the conversation, fixture and XSS tests) ----------------

/** Opens `url` like newPage() and waits until <chat-shell> has mounted its composer. */
export async function newChatPage(context, url) {
  const page = await newPage(context, url);
  await waitFor(
    () => page.evaluate(() => !!document.querySelector('chat-shell')?.shadowRoot?.querySelector('.cs-root:not([data-early]) textarea')),
    { timeout: 10_000, message: 'the <chat-shell> composer to be mounted' },
  );
  return page;
}

/** newChatPage() with reduced motion: answers show whole as they arrive. */
export async function openChat(context, url) {
  const page = await newChatPage(context, url);
  await page.emulateMedia({ reducedMotion: 'reduce' });
  return page;
}

/** Fails if the page logged an error or threw, then closes it. */
export async function finishPage(page) {
  if (page.consoleErrors.length) {
    throw new Error(`console errors on the page:\n${page.consoleErrors.join('\n')}`);
  }
  await page.close();
}

/** Types `text` into the composer and sends it with Enter (Send must be enabled first). */
export async function sendMessage(page, text) {
  const composer = page.getByRole('textbox', { name: 'Message' });
  const send = page.getByRole('button', { name: 'Send', exact: true });
  await composer.click();
  await composer.fill(text);
  await waitFor(() => send.isEnabled({ timeout: 1_000 }), {
    timeout: 5_000,
    message: `the Send button to be enabled with "${text}" in the composer`,
  });
  await composer.press('Enter');
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
 * Waits until the answer to the last message is over: the user message is shown,
 * nothing is aria-busy, there is no Stop button and the Send button is back, stable
 * for `settle` ms (the runtime publishes changes once per animation frame).
 */
export async function waitForIdle(page, { timeout = 15_000, settle = 150 } = {}) {
  const deadline = Date.now() + timeout;
  let idleSince = null;
  for (;;) {
    const idle = await page.evaluate(() => {
      const root = document.querySelector('chat-shell')?.shadowRoot;
      if (!root) return false;
      const buttons = [...root.querySelectorAll('button')].map((b) => b.textContent.trim());
      return (
        !root.querySelector('article[aria-busy="true"]') &&
        !buttons.includes('Stop') &&
        buttons.includes('Send')
      );
    });
    if (idle) {
      idleSince ??= Date.now();
      if (Date.now() - idleSince >= settle) return;
    } else {
      idleSince = null;
    }
    if (Date.now() >= deadline) throw new Error(`the answer did not finish within ${timeout} ms`);
    await sleep(25);
  }
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
