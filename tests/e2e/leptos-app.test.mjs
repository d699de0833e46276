// The Leptos component inside a Rust app (examples/leptos-app): typed callbacks reach the
// app, props (theme) reach the component, and the chat works like the custom element.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import { startRuntime, openBrowser, newPage, waitFor, ROOT } from './harness.mjs';

const APP_DIST = path.join(ROOT, 'target', 'dist-leptos-app');
let runtime, browser, page;

before(async () => {
  assert.ok(fs.existsSync(path.join(APP_DIST, 'index.html')), `build the example first: trunk build examples/leptos-app/index.html --dist ${APP_DIST}`);
  // An ordinary Trunk app starts from an inline module script, which the runtime's
  // default policy refuses: this one allows inline scripts, and nothing else more.
  const csp = "default-src 'self'; script-src 'self' 'unsafe-inline' 'wasm-unsafe-eval'; style-src 'self'; img-src * blob: data:; object-src 'none'; base-uri 'none'";
  runtime = await startRuntime({ paceMs: 2, dist: APP_DIST, extraArgs: ['--csp', csp] });
  browser = await openBrowser();
  page = await newPage(browser, runtime.url);
});

after(async () => {
  await browser?.close();
  await runtime?.close();
});

test('props reach the component: greeting and starter prompts', async () => {
  await page.getByText('Ask the reference runtime anything').waitFor();
  assert.equal(await page.getByRole('button', { name: 'Show me a workflow' }).count(), 1);
});

test('the app counts sent messages and logs each event once', async () => {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill('hello from the app');
  await box.press('Enter');
  await page.locator('article[data-role="assistant"][data-status="done"]').waitFor({ timeout: 15000 });
  await waitFor(async () => (await page.getByTestId('sent-count').textContent()).includes('1'), { message: 'sent count' });
  // The thread's title, and with it chat.thread.done, comes after the answer is done.
  const items = page.getByRole('list', { name: 'Event log' }).locator('li');
  await waitFor(async () => (await items.allTextContents()).includes('chat.thread.done'), { message: 'chat.thread.done in the log' });
  const log = await items.allTextContents();
  for (const name of ['chat.message.sent', 'chat.thread.created', 'chat.response.start', 'chat.response.end', 'chat.thread.done']) {
    assert.equal(log.filter((l) => l === name).length, 1, `${name} once in ${log}`);
  }
  assert.ok((await page.locator('article[data-role="assistant"] table').count()) >= 1, 'markdown rendered');
  assert.deepEqual(page.consoleErrors, []);
});

test('the theme prop switches the component to dark', async () => {
  const shell = page.locator('.cs-shell');
  const before = await shell.evaluate((el) => getComputedStyle(el).backgroundColor);
  await page.getByLabel('Dark theme').check();
  await waitFor(async () => (await shell.evaluate((el) => getComputedStyle(el).backgroundColor)) !== before, { message: 'background changes' });
  const after = await shell.evaluate((el) => getComputedStyle(el).backgroundColor);
  assert.equal(after, 'rgb(21, 23, 28)');
  assert.deepEqual(page.consoleErrors, []);
});

test('a client tool written in Rust answers the server through the component', async () => {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill('clienttool please');
  await box.press('Enter');
  // The answer is revealed by the typewriter: wait for its text to be complete, then check it.
  const answer = page.locator('article[data-role="assistant"]', { hasText: /"answeredBy":\s*"rust"/ });
  await answer.waitFor({ timeout: 15000 });
  assert.match(await answer.textContent(), /"answeredBy":\s*"rust"/);
  assert.deepEqual(page.consoleErrors, []);
});
