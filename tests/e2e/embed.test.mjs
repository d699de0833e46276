// Embedding on a plain page (examples/plain): one module tag, a strict
// Content-Security-Policy, and zero violations while a whole answer streams; and dist/
// copied as it is under another path of a site, loaded with one module tag from there.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DIST, logicalName, startRuntime, openBrowser, newPage, newChatPage, sendMessage, waitFor, waitForIdle } from './harness.mjs';

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

test('math renders as MathML under the policy: inline and displayed, in both delimiters, a formula that does not parse as its source', async () => {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill('math');
  await box.press('Enter');
  const answer = page.locator('article[data-role="assistant"][data-status="done"]').last();
  await answer.waitFor({ timeout: 15000 });
  await waitFor(async () => (await answer.locator('math').count()) >= 4, { message: 'the formulas rendered' });
  const found = await answer.evaluate((el) => ({
    math: [...el.querySelectorAll('math')].map((m) => ({ display: m.getAttribute('display'), ns: m.namespaceURI, attrs: [...m.querySelectorAll('*')].flatMap((n) => [...n.attributes].map((a) => a.name)) })),
    code: [...el.querySelectorAll('code')].map((c) => c.textContent),
    text: el.textContent,
  }));
  assert.equal(found.math.length, 4, JSON.stringify(found.math));
  assert.deepEqual(found.math.map((m) => m.display), [null, null, 'block', 'block']);
  assert.ok(found.math.every((m) => m.ns === 'http://www.w3.org/1998/Math/MathML'), 'MathML elements');
  for (const m of found.math) {
    for (const a of m.attrs) assert.ok(!['style', 'href', 'class'].includes(a) && !a.startsWith('on'), `attribute ${a}`);
  }
  assert.ok(found.code.includes('$\\frac{1}$'), `the formula that does not parse, as code: ${found.code}`);
  assert.match(found.text, /costs \$5 or \$10/, 'money is not math');
  // A block formula lays out as a block, wider than it is tall.
  const box2 = await answer.locator('math[display="block"]').first().boundingBox();
  assert.ok(box2 && box2.width > 50 && box2.height > 10, JSON.stringify(box2));
  assert.deepEqual(await page.evaluate(() => window.__csp), []);
  assert.deepEqual(page.consoleErrors, []);
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

test('dist/ copied as it is under a sub-path: one module tag, every file fetched from there, the parts included', async () => {
  // A site whose root holds only its own page: any file the element asked for at the
  // root, or by a name the page did not give, would fail.
  const site = mkdtempSync(path.join(os.tmpdir(), 'chat-shell-site-'));
  const base = '/static/vendor/chat-shell/';
  cpSync(DIST, path.join(site, base), { recursive: true });
  writeFileSync(path.join(site, 'index.html'), `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>a site</title><link rel="icon" href="data:,">
<script type="module" src="${base}chat-shell.js"></script></head>
<body><chat-shell endpoint="/chatkit"></chat-shell></body></html>`);
  const server = await startRuntime({ dist: site });
  const context = await openBrowser();
  const files = [];
  context.on('response', (r) => {
    const { pathname } = new URL(r.url());
    if (/\.(js|wasm|pack)$/.test(pathname)) files.push({ pathname, status: r.status() });
  });
  try {
    const page = await newChatPage(context, `${server.url}/`);
    // An answer rendered as markdown (the renderer part) and a widget (the widgets part).
    await sendMessage(page, 'markdown');
    await waitForIdle(page);
    const answer = page.locator('article[data-role="assistant"]').first();
    await waitFor(async () => (await answer.locator('strong').count()) > 0, { timeout: 15_000, message: 'the answer rendered' });
    await sendMessage(page, 'widget');
    await page.locator('[data-part="widget"]').first().waitFor({ timeout: 15_000 });
    const names = files.map((f) => logicalName(f.pathname));
    for (const name of ['chat-shell.js', 'chat-shell.pack']) {
      assert.ok(names.includes(`${base}${name}`), `${name} fetched from ${base}: ${names}`);
    }
    assert.deepEqual(files.filter((f) => !f.pathname.startsWith(base) || f.status !== 200), [], 'every file from the sub-path, found');
    assert.deepEqual(page.consoleErrors, [], 'console errors on the page');
  } finally {
    await context.close();
    await server.close();
    rmSync(site, { recursive: true, force: true });
  }
});
