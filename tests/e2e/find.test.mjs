// Find in the conversation: a long thread mounts only a window of its items, so the
// page's own find sees only those; the find bar (Ctrl+F inside the element, or the
// header's button) searches every loaded item, steps through the matches and brings
// each one into view, mounting it where it is. Any page error fails the test.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { close, newChatPage, openBrowser, startRuntime, waitFor, frames } from './harness.mjs';

const ITEMS = 400;
let context;

before(async () => {
  context = await openBrowser({ viewport: { width: 1000, height: 900 } });
});
after(close);

/** Whether the article whose text matches `pattern` is mounted, fully in the viewport and
 * marked as the match. */
function shownAsMatch(page, pattern) {
  return page.evaluate((source) => {
    const root = document.querySelector('chat-shell').shadowRoot;
    const v = root.querySelector('.cs-viewport').getBoundingClientRect();
    const el = [...root.querySelectorAll('article')].find((a) => new RegExp(source).test(a.textContent));
    if (!el) return 'not mounted';
    const r = el.getBoundingClientRect();
    if (!(r.top >= v.top - 1 && r.bottom <= v.bottom + 1)) return `out of view (${Math.round(r.top)}..${Math.round(r.bottom)} in ${Math.round(v.top)}..${Math.round(v.bottom)})`;
    return el.classList.contains('cs-found') ? 'shown' : 'not marked';
  }, pattern.source);
}

const mounted = (page, pattern) =>
  page.evaluate(
    (source) => [...document.querySelector('chat-shell').shadowRoot.querySelectorAll('article')].filter((a) => new RegExp(source).test(a.textContent)).length,
    pattern.source,
  );

/** Waits until the match `pattern` is shown; says where it is when it is not. */
async function waitShown(page, pattern) {
  let last;
  await waitFor(async () => (last = await shownAsMatch(page, pattern)) === 'shown', {
    timeout: 5_000,
    message: `${pattern} shown as the match`,
  }).catch((e) => {
    throw new Error(`${e.message}: ${last}`);
  });
}

/** Waits until the find bar's status says `text`. */
async function waitStatus(status, text) {
  let last;
  await waitFor(async () => (last = await status.textContent()) === text, { message: `"${text}"` }).catch((e) => {
    throw new Error(`${e.message}: saw "${last}"`);
  });
}

test('find reaches loaded items outside the mounted window, steps through matches and says how many', async () => {
  const runtime = await startRuntime({ extraArgs: ['--seed-thread', String(ITEMS)] });
  const page = await newChatPage(context, `${runtime.url}/`);
  await page.getByRole('button', { name: 'History', exact: true }).click();
  await page
    .getByRole('region', { name: 'History' })
    .getByRole('button', { name: `Seeded thread (${ITEMS} items)`, exact: true })
    .click();
  await page.locator('article[data-role="assistant"]', { hasText: `Seeded answer ${ITEMS / 2}:` }).waitFor({ timeout: 10_000 });

  // Back to the first item: every page loads, and the window moves to the top.
  const viewport = page.locator('.cs-viewport');
  await waitFor(
    async () => {
      await viewport.evaluate((el) => { el.scrollTop = 0; });
      await frames(page, 4);
      return (await mounted(page, /Seeded question 1\b/)) === 1;
    },
    { timeout: 60_000, message: 'the first item mounted' },
  );
  // The newest answers are loaded but not mounted: the page's own find could not see them.
  assert.equal(await mounted(page, /Seeded answer 195:/), 0, 'answer 195 is outside the window');

  // Ctrl+F from inside the element opens the bar, focused.
  await page.getByRole('textbox', { name: 'Message' }).click();
  await page.keyboard.press('Control+f');
  const field = page.getByRole('searchbox', { name: 'Find in conversation' });
  await field.waitFor({ timeout: 5_000 });
  await waitFor(() => field.evaluate((el) => el.getRootNode().activeElement === el), { message: 'the find field focused' });
  const status = page.locator('[data-part="find"] [role="status"]');

  // One match, far below the window: mounted, in view, marked.
  await field.fill('seeded ANSWER 195:');
  await waitStatus(status, '1 of 1');
  await waitShown(page, /Seeded answer 195:/);
  // The matched words themselves are marked (CSS Custom Highlight API), not only the item.
  const marks = await waitFor(
    () => page.evaluate(() => {
      const h = CSS.highlights.get('cs-find');
      return h && h.size ? [...h].map((r) => r.toString()) : null;
    }),
    { message: 'the matched words marked' },
  );
  assert.deepEqual(marks.map((t) => t.toLowerCase()), ['seeded answer 195:']);

  // Eleven matches: questions 19 and 190–199. The newest first, then back and around.
  await field.fill('Seeded question 19');
  await waitStatus(status, '11 of 11');
  await waitShown(page, /Seeded question 199\b/);
  await field.press('Shift+Enter');
  await waitStatus(status, '10 of 11');
  await waitShown(page, /Seeded question 198\b/);
  // Next twice: past the newest, around to the oldest, which is far above the window now.
  await field.press('Enter');
  await field.press('Enter');
  await waitStatus(status, '1 of 11');
  await waitShown(page, /Seeded question 19\b/);
  // The mark moves with the match: one at a time.
  assert.equal(await page.evaluate(() => document.querySelector('chat-shell').shadowRoot.querySelectorAll('.cs-found').length), 1);
  // The window stayed bounded while it jumped about.
  assert.ok((await page.locator('article').count()) <= 150, 'at most 150 articles mounted');

  // Nothing found says so, and the buttons that step are off.
  await field.fill('no such words anywhere');
  await waitStatus(status, 'No matches');
  assert.equal(await page.getByRole('button', { name: 'Next match' }).isDisabled(), true);

  // Escape closes the bar and gives focus back to the button that opens it.
  await field.press('Escape');
  await field.waitFor({ state: 'detached', timeout: 5_000 });
  const toggle = page.getByRole('button', { name: 'Find in conversation' });
  await waitFor(() => toggle.evaluate((el) => el.getRootNode().activeElement === el), { message: 'focus back on the find button' });
  assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
  assert.equal(await page.evaluate(() => document.querySelector('chat-shell').shadowRoot.querySelectorAll('.cs-found').length), 0, 'no mark left');
  assert.equal(await page.evaluate(() => CSS.highlights.has('cs-find')), false, 'no word marks left');

  // The header's button opens it too.
  await toggle.click();
  await field.waitFor({ timeout: 5_000 });
  assert.equal(await toggle.getAttribute('aria-expanded'), 'true');

  assert.deepEqual(page.consoleErrors, [], 'page errors');
  await page.close();
});
