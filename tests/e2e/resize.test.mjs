// Resizing: drag edges and corners with the pointer, the keyboard handle, limits, the
// chat.resize event, and persistence across a reload.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startRuntime, openBrowser, newPage, waitFor } from './harness.mjs';

let runtime, browser, page;

const size = () => page.locator('chat-shell').evaluate((el) => {
  const r = el.getBoundingClientRect();
  return { w: Math.round(r.width), h: Math.round(r.height) };
});

before(async () => {
  runtime = await startRuntime();
  browser = await openBrowser();
  page = await newPage(browser, runtime.url);
  await page.getByRole('textbox', { name: 'Message' }).waitFor();
  await page.evaluate(() => {
    const el = document.querySelector('chat-shell');
    window.__resizes = [];
    el.addEventListener('chat.resize', (e) => window.__resizes.push(e.detail));
    el.setAttribute('persist-size', 'e2e');
    el.setAttribute('resizable', '');
  });
  await page.locator('[data-part="resize-handle"]').waitFor();
});

after(async () => {
  await browser?.close();
  await runtime?.close();
});

test('without the attribute there are no handles', async () => {
  await page.evaluate(() => document.querySelector('chat-shell').removeAttribute('resizable'));
  assert.equal(await page.locator('[data-part="resize-edge"]').count(), 0);
  await page.evaluate(() => document.querySelector('chat-shell').setAttribute('resizable', ''));
  assert.equal(await page.locator('[data-part="resize-edge"]').count(), 8);
});

test('dragging the bottom-right corner changes both sides and emits chat.resize once', async () => {
  const start = await size();
  const corner = page.locator('.cs-resize--se');
  const box = await corner.boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x - 100, box.y - 60, { steps: 5 });
  await page.mouse.up();
  const end = await size();
  assert.ok(Math.abs(end.w - (start.w - 106)) <= 2, `${JSON.stringify({ start, end })}`);
  assert.ok(Math.abs(end.h - (start.h - 66)) <= 2, `${JSON.stringify({ start, end })}`);
  const events = await page.evaluate(() => window.__resizes);
  assert.equal(events.length, 1);
  assert.deepEqual(events[0], { width: end.w, height: end.h });
});

test('dragging an edge only changes its own dimension, within the minimum', async () => {
  const start = await size();
  const edge = page.locator('.cs-resize--e');
  const box = await edge.boundingBox();
  await page.mouse.move(box.x + 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x - 2000, box.y + box.height / 2, { steps: 4 });
  await page.mouse.up();
  const end = await size();
  assert.equal(end.w, 280, 'clamped to the minimum width');
  assert.equal(end.h, start.h, 'height untouched');
});

test('the keyboard handle resizes with arrow keys', async () => {
  const start = await size();
  await page.getByRole('button', { name: 'Resize' }).focus();
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('Shift+ArrowDown');
  const end = await size();
  assert.equal(end.w, start.w + 16);
  assert.equal(end.h, start.h + 64);
});

test('a persisted size survives a reload', async () => {
  const before = await size();
  await page.reload();
  await page.getByRole('textbox', { name: 'Message' }).waitFor();
  await page.evaluate(() => {
    const el = document.querySelector('chat-shell');
    el.setAttribute('persist-size', 'e2e');
    el.setAttribute('resizable', '');
  });
  await waitFor(async () => JSON.stringify(await size()) === JSON.stringify(before), { message: 'size restored' });
  assert.deepEqual(page.consoleErrors, []);
});
