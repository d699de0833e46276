// Phones: at 390 px the header is one row with room for the title, the Chat/Diff tabs are
// never clipped, the actions show as named icons, and nothing scrolls sideways;
// axe is clean, target sizes included. Real runtime, headless Chromium at phone width.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { axeViolations, close, newChatPage, openBrowser, sendMessage, startRuntime, waitForIdle, pushView } from './harness.mjs';

const TOKEN = 'e2e-callback-token-phone-0123456789';
let runtime;
let context;

before(async () => {
  runtime = await startRuntime({ extraArgs: ['--callback-token', TOKEN] });
  context = await openBrowser({ viewport: { width: 390, height: 844 }, touch: true });
});
after(close);

const PATCH = [
  'diff --git a/src/main.rs b/src/main.rs',
  '--- a/src/main.rs',
  '+++ b/src/main.rs',
  '@@ -1,2 +1,3 @@',
  ' fn main() {',
  '+    println!("a rather long line of new code that would not fit beside the old one");',
  ' }',
  '',
].join('\n');

/** The header's geometry: its children's boxes and whether anything in it is clipped. */
function headerGeometry(page) {
  return page.evaluate(() => {
    const root = document.querySelector('chat-shell').shadowRoot;
    const header = root.querySelector('.cs-header');
    const box = (el) => {
      const r = el.getBoundingClientRect();
      return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, width: r.width, height: r.height };
    };
    const shown = [...header.children].filter((c) => c.getBoundingClientRect().width > 0);
    const tabs = [...root.querySelectorAll('[role="tab"]')];
    return {
      header: box(header),
      children: shown.map((c) => ({ cls: c.className, ...box(c) })),
      title: box(root.querySelector('.cs-header__title')),
      tabs: tabs.map((t) => ({ name: t.textContent.trim(), clipped: t.scrollWidth > t.clientWidth + 1, ...box(t) })),
      sideways: document.documentElement.scrollWidth > document.documentElement.clientWidth + 1,
      shellSideways: root.querySelector('.cs-shell').scrollWidth > root.querySelector('.cs-shell').clientWidth + 1,
    };
  });
}

test('at 390 px the header is one row, the title keeps 60 px, the tabs are whole, the actions are named icons', async () => {
  const page = await newChatPage(context, `${runtime.url}/`);
  await page.evaluate(() => {
    window.__threads = [];
    document.querySelector('chat-shell').addEventListener('chat.thread.created', (e) => window.__threads.push(e.detail.threadId));
  });
  await sendMessage(page, 'hello');
  await waitForIdle(page);
  const threadId = await page.evaluate(() => window.__threads[0]);
  const pushed = await pushView(runtime, threadId, 'diff', { patch: PATCH }, { token: TOKEN });
  assert.equal(pushed.status, 200);
  await page.getByRole('tab', { name: 'Diff' }).waitFor({ timeout: 5_000 });

  const g = await headerGeometry(page);
  const rowTop = Math.min(...g.children.map((c) => c.top));
  for (const c of g.children) {
    assert.ok(c.top < rowTop + g.header.height / 2, `one row: ${c.cls} starts at ${c.top}, the row at ${rowTop}`);
    assert.ok(c.right <= g.header.right + 1 && c.left >= g.header.left - 1, `${c.cls} inside the header`);
  }
  assert.ok(g.header.height <= 64, `the header is one row (${g.header.height} px)`);
  assert.ok(g.title.width >= 60, `the title keeps ${g.title.width} px`);
  assert.deepEqual(g.tabs.map((t) => [t.name, t.clipped]), [['Chat', false], ['Diff', false]]);
  assert.equal(g.sideways || g.shellSideways, false, 'nothing scrolls sideways');

  // The actions show as icons only, still named, and still work.
  const history = page.getByRole('button', { name: 'History', exact: true });
  assert.equal(await history.evaluate((b) => b.querySelector('.cs-button__label').getBoundingClientRect().width), 0, 'icon only');
  await history.click();
  await page.getByRole('region', { name: 'History' }).waitFor({ timeout: 5_000 });
  await page.keyboard.press('Escape');

  // The Diff view reads in one column.
  await page.getByRole('tab', { name: 'Diff' }).click();
  const panel = page.getByRole('tabpanel');
  await panel.getByText('a rather long line', { exact: false }).first().waitFor({ timeout: 5_000 });
  const after = await headerGeometry(page);
  assert.equal(after.sideways || after.shellSideways, false, 'the Diff view does not scroll the page sideways');

  assert.deepEqual(await axeViolations(page), []);
  const targets = await page.evaluate(async () => {
    const r = await window.axe.run('chat-shell', { runOnly: ['target-size'], resultTypes: ['violations'] });
    return r.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(' | ')}`);
  });
  assert.deepEqual(targets, [], 'WCAG 2.2 target size');
  // A coarse pointer (touch) gets 44 px primary controls.
  const coarse = await page.evaluate(() => matchMedia('(pointer: coarse)').matches);
  assert.equal(coarse, true, 'the page sees a touch screen');
  await page.getByRole('tab', { name: 'Chat' }).click();
  const primary = await page.evaluate(() => {
    const root = document.querySelector('chat-shell').shadowRoot;
    return ['.cs-composer .cs-button--primary', '.cs-composer__attach']
      .map((sel) => root.querySelector(sel))
      .filter(Boolean)
      .map((el) => {
        const r = el.getBoundingClientRect();
        return { name: el.getAttribute('aria-label') || el.textContent.trim(), w: r.width, h: r.height };
      });
  });
  assert.ok(primary.length >= 1, 'the composer has its primary controls');
  for (const b of primary) assert.ok(b.w >= 44 && b.h >= 44, `${b.name} is ${b.w}x${b.h} on touch`);
  assert.deepEqual(page.consoleErrors, []);
});
