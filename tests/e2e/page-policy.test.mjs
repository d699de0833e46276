// The runtime's own Content-Security-Policy header (no inline script, WebAssembly allowed,
// frame-ancestors 'none'): the demo page and the other example pages it serves load and
// run under it with zero violations, on-demand parts and a diff view of many files
// included, and no page of the runtime can be framed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  startRuntime, openBrowser, newPage, newChatPage, sendMessage, waitForIdle, waitFor,
  createdThreadId, recordEvents, close, manyFiles, CALLBACK_TOKEN, pushView,
} from './harness.mjs';

let runtime, browser;

before(async () => {
  runtime = await startRuntime({ paceMs: 1, extraArgs: ['--callback-token', CALLBACK_TOKEN] });
  browser = await openBrowser();
  await browser.addInitScript(() => {
    window.__csp = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      window.__csp.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`);
    });
  });
});

after(close);

test('the demo page carries the policy and runs a conversation, widgets and a diff with zero violations', async () => {
  const res = await fetch(`${runtime.url}/`);
  const csp = res.headers.get('content-security-policy') ?? '';
  for (const part of ["default-src 'self'", "script-src 'self' 'wasm-unsafe-eval'", "style-src 'self'", "frame-ancestors 'none'"]) {
    assert.ok(csp.includes(part), `${part} in ${csp}`);
  }
  assert.ok(!csp.includes('unsafe-inline'), csp);
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
  assert.equal(res.headers.get('referrer-policy'), 'same-origin');

  const page = await newChatPage(browser, `${runtime.url}/`);
  await recordEvents(page, ['chat.thread.created']);
  for (const text of ['hello there', 'widget', 'chart', 'agent', 'annotations']) {
    await sendMessage(page, text);
    await waitForIdle(page, { timeout: 30_000 });
  }
  assert.ok((await page.locator('[data-part="widget"]').count()) >= 1, 'widgets rendered');
  // A diff view of many files, pushed to the thread the way tools do.
  const threadId = await createdThreadId(page);
  const pushed = await pushView(runtime, threadId, 'diff', { patch: manyFiles(60) });
  assert.equal(pushed.status, 200);
  const diffTab = page.getByRole('tab', { name: 'Diff' });
  await diffTab.waitFor({ timeout: 10_000 });
  await diffTab.click();
  await page.getByRole('tabpanel').getByText('new_0();', { exact: false }).first().waitFor({ timeout: 10_000 });
  assert.deepEqual(await page.evaluate(() => window.__csp), []);
  assert.deepEqual(page.consoleErrors, []);
});

test('the example pages load the element under the policy with zero violations', async () => {
  for (const path of ['/envelope/', '/teams/', '/widgets/', '/plain/', '/compose/']) {
    const page = await newChatPage(browser, `${runtime.url}${path}`);
    await page.waitForLoadState('networkidle');
    assert.deepEqual(await page.evaluate(() => window.__csp), [], path);
    // The plain page's own stricter <meta> policy blocks the runtime's data: widget
    // images; nothing else may be refused.
    assert.deepEqual(page.consoleErrors, [], path);
    await page.close();
  }
});

test('no page of the runtime can be framed, not even by the runtime itself', async () => {
  const page = await newPage(browser, `${runtime.url}/plain/`);
  page.consoleErrors.length = 0;
  await page.evaluate((url) => {
    const frame = document.createElement('iframe');
    frame.src = url;
    document.body.append(frame);
  }, `${runtime.url}/`);
  await waitFor(() => page.consoleErrors.some((e) => e.includes('frame-ancestors')), {
    message: () => `the framing to be refused (console: ${page.consoleErrors.join('\n')})`,
  });
  const framed = page.frames().find((f) => f !== page.mainFrame());
  const hasElement = await framed.evaluate(() => !!document.querySelector('chat-shell')).catch(() => false);
  assert.equal(hasElement, false, 'the framed page did not load');
});
