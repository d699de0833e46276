// A 20,000-line paste (about 1 MB) into the composer, in a real Chromium against the real
// runtime (whose demo page says the server's limit: max-length="200000"):
// - the text is all there, the composer stops growing at its maximum height and scrolls;
// - over the limit, an alert says so before sending, Send is disabled and Enter sends
//   nothing; the draft is kept;
// - once short enough, the message goes.
// The timings of the paste (longest task, input latency after it) are in bench-composer.mjs.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startRuntime, openBrowser, newChatPage, waitFor, close, axeViolations, frames } from './harness.mjs';

after(close);

test('a 20,000-line paste: all of it in a scrolling composer; over the limit it says so and nothing is sent', async () => {
  const runtime = await startRuntime({ paceMs: 2 });
  const context = await openBrowser();
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: runtime.url });
  const page = await newChatPage(context, `${runtime.url}/`);
  const sent = [];
  page.on('request', (r) => {
    if (r.url().endsWith('/chatkit') && r.method() === 'POST') sent.push(JSON.parse(r.postData()).type);
  });
  const box = page.getByRole('textbox', { name: 'Message' });
  const send = page.getByRole('button', { name: 'Send', exact: true });
  const big = Array.from({ length: 20_000 }, (_, i) => `line ${String(i).padStart(5, '0')}: ${'lorem ipsum '.repeat(3)}`).join('\n');
  assert.ok(big.length > 900_000, `${big.length} characters`);
  await page.evaluate((text) => navigator.clipboard.writeText(text), big);
  await box.click();
  await box.press('Control+V');
  await waitFor(async () => (await box.inputValue()).length === big.length, { timeout: 20_000, message: 'the whole paste in the draft' });

  const alert = page.locator('chat-shell').locator('[data-part="composer-too-long"]');
  await alert.waitFor({ timeout: 5_000 });
  assert.equal(await alert.getAttribute('role'), 'alert');
  assert.match(await alert.textContent(), new RegExp(`${big.length} characters.*200000`));
  assert.equal(await send.isDisabled(), true);
  await box.press('Enter');
  // A send would have gone out in the frames after the key.
  await frames(page);
  assert.deepEqual(sent, [], 'nothing sent');
  assert.equal((await box.inputValue()).length, big.length, 'the draft is kept');

  // At its maximum height, scrolling.
  const size = await box.evaluate((el) => ({ h: el.getBoundingClientRect().height, client: el.clientHeight, scroll: el.scrollHeight }));
  assert.ok(size.h <= 202 && size.h >= 150, `height ${size.h}`);
  assert.ok(size.scroll > size.client * 100, `scrolls: ${size.scroll} > ${size.client}`);
  assert.deepEqual(await axeViolations(page), []);

  // Short enough again: the alert goes and the message is sent.
  await box.press('Control+A');
  await box.press('Delete');
  await alert.waitFor({ state: 'detached' });
  await box.fill('hello there');
  await box.press('Enter');
  await page.locator('article[data-role="user"]', { hasText: 'hello there' }).waitFor({ timeout: 5_000 });
  assert.ok(sent.includes('threads.create'));
  assert.deepEqual(page.consoleErrors, []);
});
