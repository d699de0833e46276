// A long thread (1,000 items, seeded by the runtime): it opens at its newest items, the
// reader scrolls back to its first item by wheel while only a window of items is mounted
// (the shadow root stays bounded), older pages load ahead of the reader, and the reader's
// place holds still while items load or mount above it and while an item above grows.
// Any page error fails the test.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { close, newChatPage, openBrowser, startRuntime, waitFor, frames } from './harness.mjs';

const ITEMS = 1000;
let context;

before(async () => {
  context = await openBrowser({ viewport: { width: 1000, height: 1000 } });
});
after(close);

async function openSeeded(runtime) {
  const page = await newChatPage(context, `${runtime.url}/`);
  page.logs = () =>
    `\n--- runtime output:\n${runtime.lines.slice(-20).join('\n')}\n--- console errors:\n${page.consoleErrors.join('\n')}`;
  await page.getByRole('button', { name: 'History', exact: true }).click();
  await page
    .getByRole('region', { name: 'History' })
    .getByRole('button', { name: `Seeded thread (${ITEMS} items)`, exact: true })
    .click();
  const newest = page.locator('article[data-role="assistant"]', { hasText: `Seeded answer ${ITEMS / 2}:` });
  await newest.waitFor({ timeout: 10_000 });
  return page;
}

/** In the page: the article nearest the viewport's top that is fully in view, marked. */
function markInView(page) {
  return page.evaluate(() => {
    const root = document.querySelector('chat-shell').shadowRoot;
    const v = root.querySelector('.cs-viewport').getBoundingClientRect();
    root.querySelectorAll('[data-pin]').forEach((el) => delete el.dataset.pin);
    const el = [...root.querySelectorAll('article')].find((a) => {
      const r = a.getBoundingClientRect();
      return r.top >= v.top && r.bottom <= v.bottom;
    });
    if (!el) return null;
    el.dataset.pin = '1';
    return { top: el.getBoundingClientRect().top, text: el.textContent.slice(0, 40) };
  });
}

const pinnedTop = (page) =>
  page.evaluate(() => document.querySelector('chat-shell').shadowRoot.querySelector('[data-pin]')?.getBoundingClientRect().top ?? null);

test('a 1,000-item thread scrolls back to its first item with a bounded DOM, the place held at every step', async () => {
  const runtime = await startRuntime({ extraArgs: ['--seed-thread', String(ITEMS)] });
  const page = await openSeeded(runtime);
  const viewport = page.locator('.cs-viewport');
  await viewport.hover();
  const box = await viewport.boundingBox();
  let maxElements = 0;
  let maxArticles = 0;
  let reachedFirst = false;
  const started = Date.now();
  for (let step = 0; step < 3000 && !reachedFirst; step++) {
    // Each step: pin an article in view, wheel up by less than the view's height, and
    // check the pinned article moved by exactly what the wheel scrolled (the window
    // moving above it, or older pages arriving, must not move it further).
    const pin = await markInView(page);
    assert.ok(pin, `an article in view at step ${step}${page.logs()}`);
    const before = await viewport.evaluate((el) => el.scrollTop);
    await page.mouse.wheel(0, -Math.round(box.height * 0.6));
    await frames(page, 3);
    const after_ = await viewport.evaluate((el) => el.scrollTop);
    const now = await pinnedTop(page);
    // What the reader scrolled is what the content moved: the scroll position may also
    // change by the place-keeping correction, so compare the pinned article's own move to
    // the wheel's, measured on the article.
    assert.notEqual(now, null, `the pinned article is still mounted at step ${step}`);
    const moved = now - pin.top;
    const wheel = Math.round(box.height * 0.6);
    if (before > 0) {
      assert.ok(
        Math.abs(moved - wheel) <= 2 || (after_ === 0 && moved <= wheel + 2),
        `step ${step}: the pinned article ("${pin.text}") moved ${moved}px for a wheel of ${wheel}px${page.logs()}`,
      );
    }
    const counts = await page.evaluate(() => {
      const root = document.querySelector('chat-shell').shadowRoot;
      return { elements: root.querySelectorAll('*').length, articles: root.querySelectorAll('article').length };
    });
    maxElements = Math.max(maxElements, counts.elements);
    maxArticles = Math.max(maxArticles, counts.articles);
    reachedFirst = await page.evaluate(() =>
      [...document.querySelector('chat-shell').shadowRoot.querySelectorAll('article')].some((a) => /Seeded question 1\b/.test(a.textContent)),
    );
  }
  assert.ok(reachedFirst, `the first item was reached by wheel${page.logs()}`);
  // The window is at most 150 items: with the rest of the shell, well under the thread's size.
  assert.ok(maxArticles <= 150, `at most 150 articles mounted (saw ${maxArticles})`);
  assert.ok(maxElements < 3000, `the shadow root stayed bounded (saw ${maxElements} elements)`);
  console.log(`long thread: first item reached in ${Date.now() - started} ms; at most ${maxArticles} articles, ${maxElements} elements`);

  // Older pages came in pages of 40, not 20.
  const lists = runtime.lines.filter((l) => / items\.list /.test(l));
  assert.ok(lists.length <= 2 + Math.ceil(ITEMS / 40), `${lists.length} items.list requests for ${ITEMS} items`);

  // And back to the end: the button, then the newest answer in view, following again.
  await page.getByRole('button', { name: 'Scroll to bottom' }).click();
  const newest = page.locator('article[data-role="assistant"]', { hasText: `Seeded answer ${ITEMS / 2}:` });
  await waitFor(
    () =>
      newest.evaluate((el) => {
        const v = el.closest('.cs-viewport').getBoundingClientRect();
        const r = el.getBoundingClientRect();
        return r.top < v.bottom && r.bottom > v.top;
      }).catch(() => false),
    { message: 'the newest answer in view again' },
  );
  assert.deepEqual(page.consoleErrors, [], `page errors${page.logs()}`);
  await page.close();
});

test('an item above the reader that grows or shrinks does not move what the reader sees', async () => {
  const runtime = await startRuntime({ extraArgs: ['--seed-thread', String(ITEMS)] });
  const page = await openSeeded(runtime);
  const viewport = page.locator('.cs-viewport');
  await viewport.hover();
  // Away from the end, with items above and below.
  for (let i = 0; i < 6; i++) {
    await page.mouse.wheel(0, -500);
    await frames(page, 2);
  }
  const pin = await markInView(page);
  assert.ok(pin, 'an article in view');
  for (const grow of [400, -400, 1200]) {
    // An item above the pinned one changes height (as an opened disclosure or a late image
    // would), inside the item's own markup.
    const changed = await page.evaluate((grow) => {
      const root = document.querySelector('chat-shell').shadowRoot;
      const v = root.querySelector('.cs-viewport').getBoundingClientRect();
      const above = [...root.querySelectorAll('article')].filter((a) => a.getBoundingClientRect().bottom < v.top);
      const target = above[above.length - 1];
      if (!target) return false;
      let filler = target.querySelector('[data-filler]');
      if (!filler) {
        filler = document.createElement('div');
        filler.dataset.filler = '1';
        filler.style.height = '0px';
        target.append(filler);
      }
      filler.style.height = `${Math.max(0, parseFloat(filler.style.height) + grow)}px`;
      return true;
    }, grow);
    assert.ok(changed, 'an article above the one in view');
    await frames(page, 3);
    const now = await pinnedTop(page);
    assert.ok(Math.abs(now - pin.top) <= 1, `after ${grow}px above, the article in view moved by ${now - pin.top}px`);
  }
  assert.deepEqual(page.consoleErrors, [], `page errors${page.logs()}`);
  await page.close();
});
