// The composer before the wasm: src/chat-shell.js draws the element's frame and
// a real textarea before any wasm arrives. Here the wasm is held back (the pack and the
// first module's own file), so everything below happens in that frame; then it is let
// through, and the element takes over.

import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { close, distName, newPage, openBrowser, startRuntime, waitFor, frames } from './harness.mjs';

after(close);

/** Holds the wasm back until the returned function is called. */
async function holdWasm(context) {
  let release;
  const held = new Promise((resolve) => (release = resolve));
  for (const name of ['chat-shell.pack', 'chat-shell_bg.wasm']) {
    await context.route(`**/${distName(name)}`, async (route) => {
      await held;
      await route.continue().catch(() => {});
    });
  }
  return release;
}

const early = (page) => page.evaluate(() => {
  const root = document.querySelector('chat-shell')?.shadowRoot;
  return { frame: !!root?.querySelector('[data-early]'), defined: !!customElements.get('chat-shell') };
});

/** The element's own composer is mounted (the early frame is gone). */
const mounted = (page) => waitFor(() => page.evaluate(() => {
  const root = document.querySelector('chat-shell')?.shadowRoot;
  return !!customElements.get('chat-shell') && !root.querySelector('[data-early]') && !!root.querySelector('textarea');
}), { timeout: 20_000, message: 'the element to take over' });

test('before the wasm: typing and pasting work, and the element takes the text, the selection and the focus over', async () => {
  const runtime = await startRuntime();
  const context = await openBrowser();
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: runtime.url });
  const release = await holdWasm(context);
  const page = await newPage(context, runtime.url);
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.waitFor({ timeout: 10_000 });
  assert.deepEqual(await early(page), { frame: true, defined: false }, 'the frame is the early one, with no wasm yet');
  // The frame shows the element's words and its look (the component's stylesheet).
  const look = await page.evaluate(() => {
    const root = document.querySelector('chat-shell').shadowRoot;
    return {
      greeting: root.querySelector('.cs-start__greeting')?.textContent,
      placeholder: root.querySelector('textarea').placeholder,
      sheets: root.adoptedStyleSheets.length,
      dock: getComputedStyle(root.querySelector('.cs-dock')).display,
    };
  });
  assert.equal(look.greeting, 'How can I help you today?');
  assert.equal(look.placeholder, 'Message the assistant');
  assert.equal(look.sheets, 1, 'the stylesheet is adopted before the wasm');
  assert.notEqual(look.dock, 'inline', 'the stylesheet styles the frame');

  await box.click();
  await page.keyboard.type('typed before the wasm, ');
  await page.evaluate(() => navigator.clipboard.writeText('and pasted'));
  await page.keyboard.press('Control+V');
  await page.keyboard.type('!');
  const text = 'typed before the wasm, and pasted!';
  assert.equal(await box.inputValue(), text);
  // A selection inside the text, backwards, as a reader leaves it.
  await box.evaluate((t) => t.setSelectionRange(6, 13, 'backward'));
  assert.deepEqual(await early(page), { frame: true, defined: false }, 'still no wasm');

  release();
  await mounted(page);
  const after = await page.evaluate(() => {
    const root = document.querySelector('chat-shell').shadowRoot;
    const t = root.querySelector('textarea');
    return {
      value: t.value, start: t.selectionStart, end: t.selectionEnd, direction: t.selectionDirection,
      focused: root.activeElement === t, textareas: root.querySelectorAll('textarea').length,
    };
  });
  assert.deepEqual(after, { value: text, start: 6, end: 13, direction: 'backward', focused: true, textareas: 1 });
  // The draft is the element's: Send is enabled, and typing goes on where the caret is.
  await waitFor(() => page.getByRole('button', { name: 'Send', exact: true }).isEnabled(), { message: 'Send enabled by the draft taken over' });
  await page.keyboard.press('End');
  await page.keyboard.type(' More.');
  assert.equal(await page.getByRole('textbox', { name: 'Message' }).inputValue(), `${text} More.`);
  assert.deepEqual(page.consoleErrors, [], 'console errors on the page');
  await runtime.close();
});

test('Enter before the wasm: "Connecting…" meanwhile, then the message is sent exactly once', async () => {
  const runtime = await startRuntime();
  const context = await openBrowser();
  const release = await holdWasm(context);
  const page = await newPage(context, runtime.url);
  const sent = [];
  page.on('request', (request) => {
    if (request.method() === 'POST' && request.url().endsWith('/chatkit')) {
      const type = JSON.parse(request.postData() ?? '{}').type;
      if (type === 'threads.create' || type === 'threads.add_user_message') sent.push(request.postData());
    }
  });
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.waitFor({ timeout: 10_000 });
  await box.click();
  await page.keyboard.type('sent before the wasm');
  await page.keyboard.press('Enter');
  const status = page.getByRole('status').filter({ hasText: 'Connecting…' });
  await status.waitFor({ timeout: 5_000 });
  // Pressed again meanwhile, it is still one message.
  await page.keyboard.press('Enter');
  assert.equal(await box.inputValue(), 'sent before the wasm', 'the text stays while it waits');
  assert.deepEqual(await early(page), { frame: true, defined: false });
  assert.equal(sent.length, 0, 'nothing sent before the element is there');

  release();
  await mounted(page);
  await page.locator('chat-shell article[data-role="user"]').filter({ hasText: 'sent before the wasm' }).waitFor({ timeout: 15_000 });
  await page.locator('chat-shell article[data-role="assistant"]').first().waitFor({ timeout: 15_000 });
  await waitFor(async () => (await page.getByRole('textbox', { name: 'Message' }).inputValue()) === '', { message: 'the composer cleared by the send' });
  // A second send would have gone with the first, in the frames that sent it.
  await frames(page);
  assert.equal(sent.length, 1, `sent exactly once: ${sent.join(' | ')}`);
  assert.ok(sent[0].includes('sent before the wasm'), sent[0]);
  assert.equal(await page.locator('chat-shell article[data-role="user"]').count(), 1);
  assert.deepEqual(page.consoleErrors, [], 'console errors on the page');
  await runtime.close();
});

test('a wasm that cannot load: the frame says so, and what was typed stays', async () => {
  const runtime = await startRuntime();
  const context = await openBrowser();
  for (const name of ['chat-shell.pack', 'chat-shell_bg.wasm']) {
    await context.route(`**/${distName(name)}`, (route) => route.abort('connectionreset'));
  }
  const page = await newPage(context, runtime.url);
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.waitFor({ timeout: 10_000 });
  await box.fill('kept');
  await page.getByRole('alert').filter({ hasText: 'The chat could not start' }).waitFor({ timeout: 15_000 });
  assert.equal(await box.inputValue(), 'kept');
  await runtime.close();
});

test('the frame speaks the element\'s locale, right to left where it is', async () => {
  const runtime = await startRuntime();
  const context = await openBrowser();
  const release = await holdWasm(context);
  // The demo page, its element in Arabic.
  await context.route(`${runtime.url}/`, async (route) => {
    const response = await route.fetch();
    const body = (await response.text()).replace('<chat-shell ', '<chat-shell locale="ar" ');
    await route.fulfill({ response, body });
  });
  const page = await newPage(context, `${runtime.url}/`);
  await page.getByRole('textbox', { name: 'رسالة' }).waitFor({ timeout: 10_000 });
  const shell = await page.evaluate(() => {
    const s = document.querySelector('chat-shell').shadowRoot.querySelector('.cs-shell');
    return { dir: s.getAttribute('dir'), lang: s.getAttribute('lang'), direction: getComputedStyle(s).direction };
  });
  assert.deepEqual(shell, { dir: 'rtl', lang: 'ar', direction: 'rtl' });
  assert.equal(await page.getByRole('button', { name: 'إرسال' }).count(), 1);
  release();
  await mounted(page);
  assert.deepEqual(page.consoleErrors, [], 'console errors on the page');
  await runtime.close();
});
