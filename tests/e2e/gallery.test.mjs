// The gallery: screenshots of the element's main states in light, dark, right to left and
// at phone width, written under target/gallery/ to be looked at (the README says where).
// Each shot must be a real picture of the element; any page error fails the test.

import assert from 'node:assert/strict';
import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ROOT, close, newChatPage, openBrowser, startRuntime, waitFor } from './harness.mjs';

const OUT = path.join(ROOT, 'target', 'gallery');
let runtime;

before(async () => {
  runtime = await startRuntime({ paceMs: 0 });
  await mkdir(OUT, { recursive: true });
});
after(close);

const VARIANTS = [
  { name: 'light', viewport: { width: 1280, height: 860 }, scheme: 'light' },
  { name: 'dark', viewport: { width: 1280, height: 860 }, scheme: 'dark' },
  { name: 'rtl', viewport: { width: 1280, height: 860 }, scheme: 'light', locale: 'ar' },
  { name: 'phone', viewport: { width: 390, height: 844 }, scheme: 'light' },
];

for (const v of VARIANTS) {
  test(`gallery: ${v.name}`, async () => {
    const context = await openBrowser({ viewport: v.viewport });
    const page = await newChatPage(context, `${runtime.url}/`);
    await page.emulateMedia({ colorScheme: v.scheme });
    if (v.locale) await page.evaluate((l) => document.querySelector('chat-shell').setAttribute('locale', l), v.locale);
    const shoot = async (state) => {
      const file = path.join(OUT, `${state}-${v.name}.png`);
      await page.locator('chat-shell').screenshot({ path: file });
      assert.ok((await stat(file)).size > 5_000, `${file} is a picture`);
    };
    await shoot('start');
    // The composer, and the answers: found by role and state, which read the same in
    // every locale.
    const composer = page.locator('chat-shell textarea').first();
    const answered = async (n) =>
      waitFor(
        () => page.evaluate((n) => {
          const root = document.querySelector('chat-shell').shadowRoot;
          return root.querySelectorAll('article[data-role="assistant"]').length >= n &&
            !root.querySelector('article[aria-busy="true"]') && !root.querySelector('[data-part="working"]');
        }, n),
        { timeout: 15_000, message: `answer ${n} finished` },
      );
    await composer.fill('hello');
    await composer.press('Enter');
    await answered(1);
    await shoot('answer');
    // An agent's run: its plan, its tool calls folded and then opened, one with its diff.
    await page.emulateMedia({ colorScheme: v.scheme, reducedMotion: 'reduce' });
    await composer.fill('agent run');
    await composer.press('Enter');
    await page.locator('chat-shell [data-part="tool-call-summary"]').waitFor({ timeout: 15_000 });
    await waitFor(() => page.evaluate(() => !document.querySelector('chat-shell').shadowRoot.querySelector('[data-part="working"]')), { timeout: 15_000, message: 'the run to settle' });
    await page.locator('chat-shell [data-part="tool-call-summary"]').click();
    const edit = page.locator('chat-shell [data-part="tool-call"][data-kind="edit"]').first();
    await edit.locator('summary.cs-agent-tool__head').click();
    await edit.locator('[data-part="diff"]').waitFor({ timeout: 5_000 });
    await edit.locator('[data-part="diff"]').scrollIntoViewIfNeeded();
    await shoot('tools');
    const shown = await page.evaluate(() => document.querySelector('chat-shell').shadowRoot.querySelectorAll('article[data-role="assistant"]').length);
    await composer.fill('approval');
    await composer.press('Enter');
    await answered(shown + 1);
    await shoot('approval');
    // A team (Agent UI): the roster with a teammate that needs input.
    await page.evaluate(() => {
      const el = document.querySelector('chat-shell');
      el.setAttribute('protocol', 'agent-ui');
      el.setAttribute('endpoint', '/agent-ui');
      el.setThreadId(null);
    });
    await composer.fill('team, plan the release');
    await composer.press('Enter');
    await page.locator('chat-shell [data-part="team"]').waitFor({ timeout: 15_000 });
    await answered(1);
    await shoot('team');
    // AG-UI (the runtime's /ag-ui agent): an approval waiting, then a failed run
    // with its Retry.
    await page.evaluate(() => {
      const el = document.querySelector('chat-shell');
      el.setAttribute('protocol', 'ag-ui');
      el.setAttribute('endpoint', '/ag-ui');
      el.setThreadId(null);
    });
    await composer.fill('delete the logs');
    await composer.press('Enter');
    await page.locator('chat-shell [data-part="permission-option"]').first().waitFor({ timeout: 15_000 });
    await shoot('ag-ui-approval');
    await composer.fill('fail please');
    await composer.press('Enter');
    await page.locator('chat-shell [data-part="run-error"]').waitFor({ timeout: 15_000 });
    await page.locator('chat-shell [data-part="run-error"]').scrollIntoViewIfNeeded();
    await shoot('ag-ui-error');
    assert.deepEqual(page.consoleErrors, []);
    await context.close();
  });
}
