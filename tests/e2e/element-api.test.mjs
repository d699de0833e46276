// The custom element's public API from a plain page: setOptions / options, every method,
// the documented events (each once, with its detail), headers and custom fetch, theming,
// locale and strings, direction, and two independent elements on one page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startRuntime, openBrowser, waitFor, newChatPage } from './harness.mjs';

let runtime, browser, page;

before(async () => {
  runtime = await startRuntime({ paceMs: 1 });
  browser = await openBrowser();
  // The early frame draws a composer before the wasm: wait for the element's own.
  page = await newChatPage(browser, runtime.url);
  await page.evaluate(() => {
    const el = document.querySelector('chat-shell');
    window.__events = [];
    for (const name of ['chat.ready', 'chat.message.sent', 'chat.thread.created', 'chat.thread.change', 'chat.thread.done',
      'chat.response.start', 'chat.response.end', 'chat.error', 'chat.notice', 'chat.effect', 'chat.action']) {
      el.addEventListener(name, (e) => window.__events.push({ name, detail: e.detail, bubbles: e.bubbles, composed: e.composed }));
    }
  });
});

after(async () => {
  await browser?.close();
  await runtime?.close();
});

const events = (name) => page.evaluate((n) => window.__events.filter((e) => e.name === n), name);
const clearEvents = () => page.evaluate(() => { window.__events.length = 0; });
const call = (fn, ...args) => page.evaluate(([fn, args]) => document.querySelector('chat-shell')[fn](...args), [fn, args]);

test('setOptions configures the start screen and the options property reflects it', async () => {
  await page.evaluate(() => document.querySelector('chat-shell').setOptions({
    greeting: 'Hello from options',
    placeholder: 'Ask me anything',
    starterPrompts: [{ title: 'Tell me a task', prompt: 'task please' }],
  }));
  await page.getByText('Hello from options').waitFor();
  assert.equal(await page.getByRole('textbox', { name: 'Message' }).getAttribute('placeholder'), 'Ask me anything');
  assert.equal(await page.getByRole('button', { name: 'Tell me a task' }).count(), 1);
  const options = await page.evaluate(() => document.querySelector('chat-shell').options);
  assert.equal(options.greeting, 'Hello from options');
  await assert.rejects(() => page.evaluate(() => document.querySelector('chat-shell').setOptions({ fetch: 3 })), /fetch/);
});

test('setComposerValue and focusComposer', async () => {
  await call('setComposerValue', 'a draft from the page');
  assert.equal(await page.getByRole('textbox', { name: 'Message' }).inputValue(), 'a draft from the page');
  assert.equal(await call('focusComposer'), true);
  const focused = await page.evaluate(() => document.querySelector('chat-shell').shadowRoot.activeElement?.getAttribute('aria-label'));
  assert.equal(focused, 'Message');
  await call('setComposerValue', '');
});

test('sendUserMessage resolves when the answer finished, and each event fires once with its detail', async () => {
  await clearEvents();
  const result = await page.evaluate(() => document.querySelector('chat-shell').sendUserMessage({ text: 'hello api', metadata: { from: 'test' } }));
  assert.match(result.threadId, /^thr_/);
  // The promise settles when the answer has arrived; the view may still be revealing it.
  await page.locator('article[data-role="assistant"][data-status="done"]').waitFor();
  const sent = await events('chat.message.sent');
  assert.deepEqual(sent.map((e) => e.detail), [{ text: 'hello api', ghost: false }]);
  assert.deepEqual((await events('chat.thread.created')).map((e) => e.detail), [{ threadId: result.threadId }]);
  assert.deepEqual((await events('chat.thread.done')).map((e) => e.detail), [{ threadId: result.threadId }]);
  assert.equal((await events('chat.response.start')).length, 1);
  assert.equal((await events('chat.response.end')).length, 1);
  for (const e of await page.evaluate(() => window.__events)) {
    assert.ok(e.bubbles && e.composed, `${e.name} bubbles and is composed`);
  }
  assert.ok(runtime.lines.some((l) => l.includes('threads.create')));
});

test('showHistory, hideHistory, setThreadId and fetchUpdates', async () => {
  const first = (await page.evaluate(() => window.__events.find((e) => e.name === 'chat.thread.created'))).detail.threadId;
  await call('setThreadId', null);
  await waitFor(async () => (await page.locator('article[data-role="user"]').count()) === 0, { message: 'new chat' });
  await call('showHistory');
  await page.getByRole('region', { name: 'History' }).waitFor();
  await call('hideHistory');
  await page.getByRole('region', { name: 'History' }).waitFor({ state: 'hidden' });
  await page.evaluate((id) => document.querySelector('chat-shell').setThreadId(id), first);
  assert.equal(await page.locator('article[data-role="user"]', { hasText: 'hello api' }).count(), 1);
  await page.evaluate(() => document.querySelector('chat-shell').fetchUpdates());
  assert.equal(await page.locator('article[data-role="user"]', { hasText: 'hello api' }).count(), 1);
  await assert.rejects(() => page.evaluate(() => document.querySelector('chat-shell').setThreadId('thr_missing')));
  // The browser logs the 404s this provoked on purpose (the thread and its newest page are
  // asked for at once); nothing else may be logged.
  const provoked = page.consoleErrors.filter((e) => e.includes('status of 404') && e.includes('/chatkit'));
  assert.equal(provoked.length, 2, page.consoleErrors.join('\n'));
  for (const e of provoked) page.consoleErrors.splice(page.consoleErrors.indexOf(e), 1);
});

test('headers (an async function) and a custom fetch are used for every request', async () => {
  const seen = [];
  await page.route('**/chatkit', (route) => {
    seen.push(route.request().headers()['x-token']);
    return route.fallback();
  });
  await page.evaluate(() => {
    window.__fetched = 0;
    document.querySelector('chat-shell').setOptions({
      headers: async () => ({ 'X-Token': 'secret-1' }),
      fetch: (request) => { window.__fetched += 1; return fetch(request); },
    });
  });
  await page.evaluate(() => document.querySelector('chat-shell').sendUserMessage({ text: 'with headers', newThread: true }));
  // The page counts a fetch at once, the route sees it a moment later: compare once they meet
  // (a request that skipped the custom fetch would keep `seen` ahead for good).
  await waitFor(async () => seen.length >= 1 && (await page.evaluate(() => window.__fetched)) === seen.length, {
    message: `every request went through the custom fetch (${seen.length} seen)`,
  });
  await page.unroute('**/chatkit');
  assert.ok(seen.every((h) => h === 'secret-1'), `every request carried the header: ${JSON.stringify(seen)}`);
  await page.evaluate(() => document.querySelector('chat-shell').setOptions({ headers: null, fetch: null }));
});

test('theme: accent, dark, and auto following the color scheme', async () => {
  const send = page.getByRole('button', { name: 'Send' });
  await call('setComposerValue', 'x');
  await page.evaluate(() => document.querySelector('chat-shell').setOptions({ theme: { accent: 'rgb(200, 0, 0)' } }));
  assert.equal(await send.evaluate((el) => getComputedStyle(el).backgroundColor), 'rgb(200, 0, 0)');
  const bg = () => page.locator('.cs-shell').evaluate((el) => getComputedStyle(el).backgroundColor);
  await page.evaluate(() => document.querySelector('chat-shell').setAttribute('theme', 'dark'));
  assert.equal(await bg(), 'rgb(21, 23, 28)');
  await page.evaluate(() => document.querySelector('chat-shell').setAttribute('theme', 'auto'));
  await page.emulateMedia({ colorScheme: 'light' });
  assert.equal(await bg(), 'rgb(255, 255, 255)');
  await page.emulateMedia({ colorScheme: 'dark' });
  assert.equal(await bg(), 'rgb(21, 23, 28)');
  await page.evaluate(() => document.querySelector('chat-shell').setAttribute('theme', 'light'));
  assert.equal(await bg(), 'rgb(255, 255, 255)');
  // Host page variables reach inside the shadow root.
  await page.evaluate(() => document.querySelector('chat-shell').style.setProperty('--cs-bg', 'rgb(1, 2, 3)'));
  assert.equal(await bg(), 'rgb(1, 2, 3)');
  await page.evaluate(() => document.querySelector('chat-shell').style.removeProperty('--cs-bg'));
  await call('setComposerValue', '');
});

test('locale, string overrides and right-to-left', async () => {
  const el = 'document.querySelector("chat-shell")';
  await page.evaluate(() => document.querySelector('chat-shell').setAttribute('locale', 'fr'));
  await page.getByRole('button', { name: 'Nouvelle conversation' }).waitFor();
  await page.evaluate(() => document.querySelector('chat-shell').setOptions({ strings: { new_chat: 'Fresh start' } }));
  await page.getByRole('button', { name: 'Fresh start' }).waitFor();
  await page.evaluate(() => document.querySelector('chat-shell').setOptions({ locale: 'ar', strings: {} }));
  assert.equal(await page.locator('.cs-shell').getAttribute('dir'), 'rtl');
  const box = page.getByRole('textbox', { name: 'رسالة' });
  await box.waitFor();
  // In RTL the user's bubble sits on the left side.
  await page.evaluate(() => document.querySelector('chat-shell').sendUserMessage({ text: 'rtl check', newThread: true }));
  const bubble = await page.locator('article[data-role="user"]').last().boundingBox();
  const shell = await page.locator('.cs-shell').boundingBox();
  assert.ok(bubble.x - shell.x < shell.x + shell.width - (bubble.x + bubble.width), `bubble on the left: ${JSON.stringify({ bubble, shell })}`);
  await page.evaluate(() => document.querySelector('chat-shell').setOptions({ locale: 'en' }));
  assert.equal(await page.locator('.cs-shell').getAttribute('dir'), null);
  void el;
});

test('allow-attachments="false" removes the attachment button', async () => {
  assert.equal(await page.getByRole('button', { name: 'Add attachment' }).count(), 1);
  await page.evaluate(() => document.querySelector('chat-shell').setAttribute('allow-attachments', 'false'));
  await page.getByRole('button', { name: 'Add attachment' }).waitFor({ state: 'hidden' });
  await page.evaluate(() => document.querySelector('chat-shell').removeAttribute('allow-attachments'));
});

test('two elements on one page are independent, and a new one says chat.ready once', async () => {
  await page.evaluate(() => {
    const second = document.createElement('chat-shell');
    second.id = 'second';
    second.setAttribute('endpoint', '/chatkit');
    window.__second = [];
    second.addEventListener('chat.ready', (e) => window.__second.push('ready'));
    second.addEventListener('chat.message.sent', (e) => window.__second.push('sent'));
    document.querySelector('main').append(second);
  });
  const second = page.locator('#second');
  await second.getByRole('textbox', { name: 'Message' }).waitFor();
  const before = await page.locator('chat-shell').first().locator('article').count();
  await page.evaluate(() => document.getElementById('second').sendUserMessage({ text: 'only in the second' }));
  await second.locator('article[data-role="user"]', { hasText: 'only in the second' }).waitFor();
  assert.equal(await second.locator('article[data-role="user"]').count(), 1);
  assert.equal(await page.locator('chat-shell').first().locator('article').count(), before, 'the first element is untouched');
  assert.deepEqual(await page.evaluate(() => window.__second), ['ready', 'sent']);
  assert.deepEqual(page.consoleErrors, []);
});

test('a message sent from a chat.response.end handler is answered, not aborted', async () => {
  await page.evaluate(() => document.querySelector('chat-shell').setThreadId(null));
  // The new chat is painted on the next frame: count once the old thread is gone.
  const first = page.locator('chat-shell').first();
  await waitFor(async () => (await first.locator('article').count()) === 0, { message: 'the new chat is empty' });
  const before = await first.locator('article[data-role="assistant"][data-status="done"]').count();
  await page.evaluate(() => {
    const el = document.querySelector('chat-shell');
    el.addEventListener('chat.response.end', () => {
      el.sendUserMessage({ text: 'follow-up from the handler' });
    }, { once: true });
    return el.sendUserMessage({ text: 'first, then a follow-up' });
  });
  await first.locator('article[data-role="user"]', { hasText: 'follow-up from the handler' }).waitFor({ timeout: 10_000 });
  await waitFor(async () => (await first.locator('article[data-role="assistant"][data-status="done"]').count()) === before + 2, {
    timeout: 15_000,
    message: 'both answers finish',
  });
  assert.equal(await first.locator('article[data-role="assistant"][data-status="stopped"]').count(), 0, 'nothing was aborted');
  assert.equal(await first.locator('[data-part="error"]').count(), 0);
});
