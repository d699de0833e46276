// Embedding on a plain page (examples/plain): one module tag, a strict
// Content-Security-Policy, and zero violations while a whole answer streams.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startRuntime, openBrowser, newPage, waitFor } from './harness.mjs';

let runtime, browser, page;

before(async () => {
  runtime = await startRuntime({ paceMs: 2 });
  browser = await openBrowser();
  await browser.addInitScript(() => {
    window.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__csp.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`);
    });
  });
  page = await newPage(browser, `${runtime.url}/plain/`);
});

after(async () => {
  await browser?.close();
  await runtime?.close();
});

test('the page declares the strict policy and loads the element with one module tag', async () => {
  const policy = await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content');
  for (const part of ["default-src 'self'", "script-src 'self' 'wasm-unsafe-eval'", "style-src 'self'", "img-src 'self' blob:"]) {
    assert.ok(policy.includes(part), `${part} in ${policy}`);
  }
  assert.equal(await page.locator('script:not([src])').count(), 0, 'no inline script');
  assert.equal(await page.locator('style').count(), 0, 'no inline style');
  await page.getByRole('textbox', { name: 'Message' }).waitFor();
  assert.equal(await page.evaluate(() => !!customElements.get('chat-shell')), true);
});

test('a streamed markdown answer renders with zero CSP violations', async () => {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill('markdown under a strict policy');
  await box.press('Enter');
  const answer = page.locator('article[data-role="assistant"][data-status="done"]');
  await answer.waitFor({ timeout: 15000 });
  assert.ok((await answer.locator('table').count()) === 1);
  assert.ok((await answer.locator('pre code').count()) === 1);
  // The component's own styles apply (constructed stylesheet, not inline <style>).
  const shellBorder = await page.locator('.cs-shell').evaluate((el) => getComputedStyle(el).borderTopStyle);
  assert.equal(shellBorder, 'solid');
  // The host's theme variable reaches inside the shadow root.
  const send = page.getByRole('button', { name: 'Send' });
  await box.fill('x');
  assert.equal(await send.evaluate((el) => getComputedStyle(el).backgroundColor), 'rgb(15, 118, 110)');
  assert.deepEqual(await page.evaluate(() => window.__csp), []);
  assert.deepEqual(page.consoleErrors, []);
  const events = await page.getByRole('list', { name: 'Events' }).locator('li').allTextContents();
  for (const name of ['chat.ready', 'chat.message.sent', 'chat.response.start', 'chat.response.end', 'chat.thread.done']) {
    assert.equal(events.filter((e) => e.startsWith(`${name} `)).length, 1, `${name} once in ${events.join('\n')}`);
  }
});

test('widgets, tasks and workflows add no inline style or script under the policy', async () => {
  const box = page.getByRole('textbox', { name: 'Message' });
  const ended = () => page.locator('#events li', { hasText: /^chat\.response\.end / }).count();
  for (const text of ['widget', 'chart', 'workflow', 'annotations']) {
    const before = await ended();
    await box.fill(text);
    await box.press('Enter');
    await waitFor(async () => (await ended()) > before, { timeout: 15000, message: `answer to ${text}` });
  }
  assert.ok((await page.locator('[data-part="widget"]').count()) >= 2, 'widgets rendered');
  // The reference runtime's widget images are data: URLs, which this policy's img-src
  // rightly blocks: that is the server's choice. The component itself must add nothing.
  const own = (await page.evaluate(() => window.__csp)).filter((v) => !v.startsWith('img-src data'));
  assert.deepEqual(own, []);
  assert.deepEqual(page.consoleErrors.filter((e) => !e.includes("Loading the image 'data:")), []);
});
