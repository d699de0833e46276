// An element that survives its host: pages (React, Vue, Svelte) remove, move,
// re-attach and re-create elements routinely. Any order, any number of times: no page
// error, and every observer, timer and listener the element started is gone again. And a
// thread channel line over the element's own limit: the views go stale and the channel
// comes back from its cursor. Real runtime, real HTTP, headless Chromium.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  startRuntime, openBrowser, newChatPage, sendMessage, waitFor, waitForIdle, recordEvents,
  createdThreadId, close, CALLBACK_TOKEN, pushView,
} from './harness.mjs';

after(close);

// Counts, in the page, what is live: observers observing something, pending timeouts,
// intervals, and listeners on targets that outlive a view (window, the document and the
// elements in it, shadow roots). Installed before the page's own scripts.
function countLive() {
  const observed = new Map();
  for (const name of ['ResizeObserver', 'IntersectionObserver', 'MutationObserver']) {
    const Original = window[name];
    window[name] = class extends Original {
      observe(target, options) {
        if (!observed.has(this)) observed.set(this, { kind: name, targets: new Set() });
        observed.get(this).targets.add(target);
        return super.observe(target, options);
      }
      unobserve(target) {
        observed.get(this)?.targets.delete(target);
        return super.unobserve(target);
      }
      disconnect() {
        observed.delete(this);
        return super.disconnect();
      }
    };
  }
  const timeouts = new Set();
  const intervals = new Set();
  const { setTimeout: st, clearTimeout: ct, setInterval: si, clearInterval: ci } = window;
  window.setTimeout = function (fn, ms, ...args) {
    const id = st.call(window, function (...a) {
      timeouts.delete(id);
      if (typeof fn === 'function') return fn.apply(this, a);
    }, ms, ...args);
    timeouts.add(id);
    return id;
  };
  window.clearTimeout = (id) => { timeouts.delete(id); return ct.call(window, id); };
  window.setInterval = function (...a) { const id = si.apply(window, a); intervals.add(id); return id; };
  window.clearInterval = (id) => { intervals.delete(id); return ci.call(window, id); };
  const listeners = new Set();
  const { addEventListener: add, removeEventListener: remove } = EventTarget.prototype;
  const capture = (o) => (typeof o === 'boolean' ? o : !!o?.capture);
  EventTarget.prototype.addEventListener = function (type, fn, options) {
    if (fn && !options?.once) {
      const record = { target: new WeakRef(this), type, fn, capture: capture(options) };
      listeners.add(record);
      options?.signal?.addEventListener('abort', () => listeners.delete(record));
    }
    return add.call(this, type, fn, options);
  };
  EventTarget.prototype.removeEventListener = function (type, fn, options) {
    for (const r of listeners) {
      if (r.target.deref() === this && r.type === type && r.fn === fn && r.capture === capture(options)) listeners.delete(r);
    }
    return remove.call(this, type, fn, options);
  };
  // A listener on a node inside a view goes with that node; what outlives views is the
  // page itself, the elements in it and their shadow roots.
  const lasting = (t) => t === window || t instanceof MediaQueryList
    || (t instanceof ShadowRoot ? t.host.isConnected : t instanceof Node && t.getRootNode() === document);
  window.__live = () => {
    const count = { listeners: 0, timeouts: timeouts.size, intervals: intervals.size };
    for (const { kind, targets } of observed.values()) if (targets.size > 0) count[kind] = (count[kind] ?? 0) + 1;
    for (const r of listeners) {
      const t = r.target.deref();
      if (t && lasting(t)) count.listeners += 1;
    }
    return count;
  };
  // What the listeners counted are on, for a failure's message.
  window.__listeners = () => [...listeners].flatMap((r) => {
    const t = r.target.deref();
    if (!t || !lasting(t)) return [];
    const where = t === window ? 'window' : t === document ? 'document' : t.nodeName ?? t.constructor.name;
    return [`${r.type} on ${where}${t.dataset?.part ? `[${t.dataset.part}]` : ''}${t.className ? `.${t.className}` : ''}`];
  }).sort();
}

const live = (page) => page.evaluate(() => window.__live());

/** The live counts once they have held still for a second and the loader's timers are
 *  done (src/chat-shell.js waits at most 3 s for each part from the page's start: a warm-up
 *  that ends sooner must not count those in the baseline). */
async function settled(page) {
  let last = null;
  let since = Date.now();
  return waitFor(async () => {
    const now = JSON.stringify(await live(page));
    if (now !== last) [last, since] = [now, Date.now()];
    const loaderDone = (await page.evaluate(() => performance.now())) > 4_000;
    return loaderDone && Date.now() - since >= 1_000 && JSON.parse(now);
  }, { timeout: 15_000, interval: 100, message: 'the live counts to hold still' });
}
const messages = (page) => page.evaluate(() => document.querySelector('chat-shell')?.shadowRoot?.querySelectorAll('article[data-role="user"]').length ?? 0);

test('removed, moved, re-attached and re-created 50 times: no page error, nothing left live', async () => {
  const runtime = await startRuntime({ paceMs: 1 });
  const context = await openBrowser();
  await context.addInitScript(countLive);
  const page = await newChatPage(context, `${runtime.url}/`);
  // chat.error bubbles and is composed: one listener on the document hears every element.
  await page.evaluate(() => {
    window.__errors = [];
    document.addEventListener('chat.error', (e) => window.__errors.push(e.detail));
    const el = document.querySelector('chat-shell');
    window.__original = el;
    for (const id of ['box-a', 'box-b']) {
      const box = document.createElement('section');
      box.id = id;
      document.body.append(box);
    }
  });
  // Warm up: a thread (so its channel is open) and one answer, then a first round trip,
  // so what a page sets up once (delegated listeners) is in the baseline.
  await sendMessage(page, 'hello before the cycles');
  await waitForIdle(page);
  await page.evaluate(() => { document.querySelector('#box-a').append(window.__original); });
  await waitForIdle(page);
  const baseline = await settled(page);
  const listenersBefore = await page.evaluate(() => window.__listeners());

  const frame = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  for (let i = 0; i < 50; i += 1) {
    switch (i % 5) {
      case 0: // a move between parents, in one task
        await page.evaluate(() => {
          const el = window.__original;
          (el.parentElement.id === 'box-a' ? document.querySelector('#box-b') : document.querySelector('#box-a')).append(el);
        });
        break;
      case 1: // removed for a few frames (the view's observers report the removal), then back
        await page.evaluate(() => window.__original.remove());
        await frame();
        await page.evaluate(() => document.querySelector('#box-a').append(window.__original));
        break;
      case 2: // removed long enough to let go of what is in flight, then back elsewhere
        await page.evaluate(() => window.__original.remove());
        await page.evaluate(() => new Promise((r) => setTimeout(r, 50)));
        await page.evaluate(() => document.querySelector('#box-b').append(window.__original));
        break;
      case 3: // re-created: a new element in its place, shown for a while, then removed
        await page.evaluate(() => {
          const fresh = document.createElement('chat-shell');
          fresh.setAttribute('endpoint', '/chatkit');
          window.__original.replaceWith(fresh);
          window.__fresh = fresh;
        });
        await waitFor(() => page.evaluate(() => !!window.__fresh.shadowRoot.querySelector('textarea')), { message: 'the new element mounted' });
        await frame();
        await page.evaluate(() => { window.__fresh.replaceWith(window.__original); window.__fresh = null; });
        break;
      case 4: // many moves and removals within one task and across microtasks
        await page.evaluate(async () => {
          const el = window.__original;
          const [a, b] = [document.querySelector('#box-a'), document.querySelector('#box-b')];
          for (let k = 0; k < 5; k += 1) { el.remove(); (k % 2 ? a : b).append(el); }
          el.remove();
          await Promise.resolve();
          a.append(el);
          const spare = document.createElement('chat-shell');
          b.append(spare);
          spare.remove();
        });
        break;
    }
    if (i === 25) {
      // Still a working chat halfway: a message sent and answered.
      const before = await messages(page);
      await sendMessage(page, 'hello in the middle');
      await waitFor(async () => (await messages(page)) === before + 1, { message: 'the message in the middle shown' });
      await waitForIdle(page);
    }
  }
  await page.evaluate(() => document.querySelector('#box-a').append(window.__original));
  // Re-attached, it is the same working chat: the conversation is there, and answers.
  await waitFor(async () => (await messages(page)) === 2, { message: 'the two messages shown again' });
  await sendMessage(page, 'hello after the cycles');
  await waitFor(async () => (await messages(page)) === 3, { message: 'the last message shown' });
  await waitForIdle(page);
  await page.locator('article[data-role="assistant"]').nth(2).waitFor();

  assert.deepEqual(page.consoleErrors, [], 'page errors and console errors');
  assert.deepEqual(await page.evaluate(() => window.__errors), [], 'chat.error events');
  let now;
  try {
    await waitFor(async () => {
      now = await live(page);
      return JSON.stringify(now) === JSON.stringify(baseline);
    }, { timeout: 5_000, message: 'everything live back to the baseline' });
  } catch {
    const listenersAfter = await page.evaluate(() => window.__listeners());
    assert.deepEqual(
      { ...now, listenersOn: listenersAfter },
      { ...baseline, listenersOn: listenersBefore },
      'observers, timers and listeners live after the cycles, against before',
    );
  }
});

const patchOf = (name, lines) => [
  `diff --git a/${name} b/${name}`,
  `--- a/${name}`,
  `+++ b/${name}`,
  `@@ -1,1 +1,${lines + 1} @@`,
  ' first',
  ...Array.from({ length: lines }, (_, i) => `+line ${i} of ${name}`),
  '',
].join('\n');

test('a channel line over maxEventBytes: the views go stale and the channel comes back from its cursor', async () => {
  const runtime = await startRuntime({ paceMs: 1, extraArgs: ['--callback-token', CALLBACK_TOKEN, '--channel-keepalive-ms', '500'] });
  const context = await openBrowser();
  const page = await newChatPage(context, `${runtime.url}/`);
  await recordEvents(page, ['chat.thread.created', 'chat.error']);
  // The thread channel's requests, to see where each one resumes.
  const subscribes = [];
  await page.route('**/chatkit', (route) => {
    const body = route.request().postDataJSON();
    if (body?.type === 'threads.subscribe') subscribes.push(body.params.after ?? null);
    return route.fallback();
  });
  await page.evaluate(() => document.querySelector('chat-shell').setOptions({ maxEventBytes: 8192 }));
  await sendMessage(page, 'hello there');
  const threadId = await createdThreadId(page);
  await waitForIdle(page);

  assert.equal((await pushView(runtime, threadId, 'diff', { patch: patchOf('small.txt', 3) })).status, 200);
  await page.getByRole('tab', { name: 'Diff' }).click();
  const panel = (name) => page.locator('[data-part="view-panel"]', { hasText: name });
  await panel('small.txt').waitFor();
  const stale = page.locator('[data-part="view-stale"]');
  assert.equal(await stale.count(), 0, 'live before');
  const resumedBefore = subscribes.length;

  // Over the element's limit of 8 KiB: that connection can be read no further.
  assert.equal((await pushView(runtime, threadId, 'diff', { patch: patchOf('big.txt', 400) })).status, 200);
  await stale.waitFor({ timeout: 5_000 });
  await waitFor(() => subscribes.length > resumedBefore, { timeout: 5_000, message: 'a reconnection' });
  const resumedFrom = subscribes[resumedBefore];
  assert.ok(Number.isInteger(resumedFrom) && resumedFrom >= 1, `it resumes from its cursor, not from the start: ${resumedFrom}`);

  // With room for it, the next reconnection brings the view: live again.
  await page.evaluate(() => document.querySelector('chat-shell').setOptions({ maxEventBytes: null }));
  await panel('big.txt').waitFor({ timeout: 15_000 });
  await stale.waitFor({ state: 'detached', timeout: 5_000 });
  assert.deepEqual(page.consoleErrors, []);
});
