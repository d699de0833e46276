// Export: the header's "Export" downloads the conversation shown as Markdown or
// JSON; hosts get the same text from `el.exportConversation({format})`; on a narrow
// screen Export and Find fold into "More". Against the reference runtime; any page error
// fails a test.

import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import { axeViolations, close, newChatPage, openBrowser, sendMessage, startRuntime, waitFor, waitForIdle } from './harness.mjs';

let runtime;

before(async () => {
  runtime = await startRuntime();
});
after(close);

const HOSTILE = 'what about <img src=x onerror="window.__xss=1"> and **bold**?';

/** A page with two turns: a question and its answer, then a hostile question and its answer. */
async function conversation(viewport) {
  const context = await openBrowser({ viewport });
  const page = await newChatPage(context, `${runtime.url}/`);
  await sendMessage(page, 'first question');
  await waitForIdle(page);
  await sendMessage(page, HOSTILE);
  await waitForIdle(page);
  return page;
}

const exported = (page, format) =>
  page.evaluate((format) => document.querySelector('chat-shell').exportConversation({ format }), format);

/** Chooses `item` in the menu `menu` and returns the downloaded file's name and text. */
async function download(page, menu, item) {
  const [file] = await Promise.all([
    page.waitForEvent('download', { timeout: 10_000 }),
    menu.getByRole('menuitem', { name: item }).click(),
  ]);
  return { name: file.suggestedFilename(), text: await readFile(await file.path(), 'utf8') };
}

test('Export downloads the conversation as Markdown and JSON, in order, and the host API gives the same text', async () => {
  const page = await conversation({ width: 1100, height: 800 });
  const button = page.getByRole('button', { name: 'Export', exact: true });
  assert.equal(await button.getAttribute('aria-haspopup'), 'menu');
  await button.click();
  const menu = page.getByRole('menu', { name: 'Export' });
  await menu.waitFor({ timeout: 10_000 });
  assert.equal(await button.getAttribute('aria-expanded'), 'true');
  assert.deepEqual(await menu.getByRole('menuitem').allTextContents(), ['Markdown (.md)', 'JSON (.json)']);
  assert.deepEqual(await axeViolations(page, 'chat-shell'), []);

  const md = await download(page, menu, 'Markdown (.md)');
  assert.match(md.name, /\.md$/);
  const text = md.text;
  // What was said, in order: the user's words as they were sent, the answers' markdown.
  const at = (s) => text.indexOf(s, text.indexOf('\n## You'));
  assert.ok(text.startsWith('# first question\n'), `titled by the thread: ${text}`);
  assert.ok(at('## You') > 0 && at('first question') > at('## You'), text);
  assert.ok(at('## Assistant') > at('first question'), text);
  assert.ok(at(HOSTILE) > at('## Assistant'), `the second question, as typed: ${text}`);
  assert.equal(text.split('## You').length - 1, 2, text);
  assert.equal(text.split('## Assistant').length - 1, 2, text);
  // The menu closed and gave the focus back to its button.
  await menu.waitFor({ state: 'detached' });
  await waitFor(() => button.evaluate((el) => el.getRootNode().activeElement === el), { message: 'focus back on Export' });

  await button.click();
  const json = await download(page, page.getByRole('menu', { name: 'Export' }), 'JSON (.json)');
  assert.match(json.name, /\.json$/);
  const model = JSON.parse(json.text);
  const types = model.items.map((i) => i.type);
  assert.deepEqual(types.filter((t) => t === 'user_message').length, 2);
  assert.equal(types[0], 'user_message');
  assert.equal(model.items[0].text, 'first question');
  assert.equal(model.items.filter((i) => i.type === 'user_message')[1].text, HOSTILE);
  assert.ok(types.indexOf('assistant_message') > 0, types.join());
  assert.ok(model.thread?.id, 'the thread');

  // The host API: the same text.
  assert.equal(await exported(page, 'markdown'), text);
  assert.deepEqual(JSON.parse(await exported(page, 'json')), model);
  const wrong = await page.evaluate(() =>
    document.querySelector('chat-shell').exportConversation({ format: 'pdf' }).then(() => 'resolved', (e) => `${e.name}: ${e.message}`));
  assert.match(wrong, /^TypeError: .*format/);
  // Nothing the server or the user wrote ran.
  assert.equal(await page.evaluate(() => window.__xss), undefined);
  assert.deepEqual(page.consoleErrors, [], 'console errors on the page');
});

test('the Export menu by keyboard: ArrowDown opens it on its first item, arrows move, Escape closes it', async () => {
  const page = await conversation({ width: 1100, height: 800 });
  const button = page.getByRole('button', { name: 'Export', exact: true });
  await button.focus();
  await page.keyboard.press('ArrowDown');
  const menu = page.getByRole('menu', { name: 'Export' });
  await menu.waitFor({ timeout: 10_000 });
  const focused = () => page.evaluate(() => document.querySelector('chat-shell').shadowRoot.activeElement?.textContent);
  await waitFor(async () => (await focused()) === 'Markdown (.md)', { message: 'the first item focused' });
  await page.keyboard.press('ArrowDown');
  assert.equal(await focused(), 'JSON (.json)');
  await page.keyboard.press('ArrowDown');
  assert.equal(await focused(), 'Markdown (.md)', 'wraps');
  await page.keyboard.press('End');
  assert.equal(await focused(), 'JSON (.json)');
  await page.keyboard.press('Escape');
  await menu.waitFor({ state: 'detached' });
  await waitFor(() => button.evaluate((el) => el.getRootNode().activeElement === el), { message: 'focus back on Export' });
  // Enter on an item downloads it.
  await page.keyboard.press('ArrowDown');
  await waitFor(async () => (await focused()) === 'Markdown (.md)', { message: 'the first item focused again' });
  const [file] = await Promise.all([page.waitForEvent('download', { timeout: 10_000 }), page.keyboard.press('Enter')]);
  assert.match(file.suggestedFilename(), /\.md$/);
  assert.deepEqual(page.consoleErrors, [], 'console errors on the page');
});

test('at phone width Find and Export fold into "More", which finds and exports', async () => {
  const page = await conversation({ width: 390, height: 760 });
  assert.equal(await page.getByRole('button', { name: 'Export', exact: true }).count(), 0, 'Export folded');
  assert.equal(await page.getByRole('button', { name: 'Find in conversation', exact: true }).count(), 0, 'Find folded');
  const more = page.getByRole('button', { name: 'More', exact: true });
  await more.click();
  const menu = page.getByRole('menu', { name: 'More' });
  await menu.waitFor({ timeout: 10_000 });
  assert.deepEqual(await menu.getByRole('menuitem').allTextContents(), ['Find in conversation', 'Markdown (.md)', 'JSON (.json)']);
  assert.equal(await menu.getByRole('group', { name: 'Export' }).count(), 1, 'the export items are a group named Export');
  // Inside the header's width, nothing sideways.
  const box = await page.evaluate(() => {
    const root = document.querySelector('chat-shell').shadowRoot;
    const m = root.querySelector('[role=menu]').getBoundingClientRect();
    return { left: m.left, right: m.right, width: document.documentElement.clientWidth, scroll: document.documentElement.scrollWidth };
  });
  assert.ok(box.left >= 0 && box.right <= box.width, `the menu is on screen: ${JSON.stringify(box)}`);
  assert.ok(box.scroll <= box.width, 'nothing scrolls sideways');
  assert.deepEqual(await axeViolations(page, 'chat-shell'), []);
  const md = await download(page, menu, 'Markdown (.md)');
  assert.ok(md.text.includes('first question'), md.text);
  await more.click();
  await menu.getByRole('menuitem', { name: 'Find in conversation' }).click();
  await page.getByRole('searchbox').first().waitFor({ timeout: 10_000 });
  assert.deepEqual(page.consoleErrors, [], 'console errors on the page');
});
