// The composer against the reference runtime: Enter sends, Shift+Enter is a newline, IME
// composition never sends, it grows up to a limit, it is disabled with the reason in a
// locked thread, each thread keeps its own draft, and configured metadata goes with every
// request (a message's own on top).
//
// One runtime (pace 0) and one browser serve every test; each test opens its own page.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { close, newChatPage, openBrowser, sendMessage, startRuntime, waitFor, waitForIdle, finishPage, composer, sendButton, frames } from './harness.mjs';

let runtime;
let context;

before(async () => {
  runtime = await startRuntime();
  context = await openBrowser();
});
after(close);

const history = (page) => page.getByRole('region', { name: 'History' });

async function selectThread(page, name) {
  await page.getByRole('button', { name: 'History', exact: true }).click();
  await history(page).getByRole('button', { name, exact: true }).click();
  await page.locator('article[data-role="user"]', { hasText: name }).first().waitFor({ timeout: 5_000 });
}

test('Enter sends, Shift+Enter adds a line, IME composition never sends', async () => {
  const page = await newChatPage(context, `${runtime.url}/`, { bodies: '/chatkit', logs: runtime });
  const box = composer(page);
  await box.click();
  await box.pressSequentially('first line');
  await box.press('Shift+Enter');
  await box.pressSequentially('second line');
  assert.equal(await box.inputValue(), 'first line\nsecond line');
  assert.equal(page.bodies.length, 0, 'Shift+Enter sent the message');

  // Enter while an input method is composing (isComposing, or keyCode 229) only commits
  // the composition.
  const prevented = await box.evaluate((el) =>
    [
      new KeyboardEvent('keydown', { key: 'Enter', isComposing: true, bubbles: true, cancelable: true }),
      new KeyboardEvent('keydown', { key: 'Enter', keyCode: 229, bubbles: true, cancelable: true }),
    ].map((ev) => !el.dispatchEvent(ev)),
  );
  assert.deepEqual(prevented, [false, false], 'a composing Enter was taken by the composer');
  // A send would have gone out in the frames after the key: let them run.
  await frames(page);
  assert.equal(page.bodies.length, 0, 'a composing Enter sent the message');
  assert.equal(await box.inputValue(), 'first line\nsecond line');

  await box.press('Enter');
  await page.locator('article[data-role="user"]', { hasText: 'second line' }).waitFor({ timeout: 5_000 });
  assert.equal(page.bodies.filter((b) => b.type === 'threads.create').length, 1);
  assert.equal(page.bodies[0].params.input.content[0].text, 'first line\nsecond line');
  assert.equal(await box.inputValue(), '');
  await waitForIdle(page);
  // An empty composer does not send.
  await box.press('Enter');
  await frames(page);
  // (The thread's channel, threads.subscribe, is not a message.)
  assert.equal(page.bodies.filter((b) => b.type.startsWith('threads.') && b.type !== 'threads.subscribe').length, 1);
  await finishPage(page);
});

test('the composer grows with its text up to a limit', async () => {
  const page = await newChatPage(context, `${runtime.url}/`, { bodies: '/chatkit', logs: runtime });
  const box = composer(page);
  const height = () => box.evaluate((el) => el.getBoundingClientRect().height);
  const one = await height();
  await box.fill('a\nb\nc\nd');
  await box.dispatchEvent('input');
  await waitFor(async () => (await height()) > one + 20, { message: 'the composer to grow' });
  await box.fill(Array.from({ length: 40 }, (_, i) => `line ${i}`).join('\n'));
  await box.dispatchEvent('input');
  await waitFor(async () => (await height()) >= 190, { message: 'the composer to reach its limit' });
  assert.ok((await height()) <= 201, `the composer grew past its limit: ${await height()}px`);
  await finishPage(page);
});

test('a locked thread disables the composer and says why', async () => {
  const page = await newChatPage(context, `${runtime.url}/`, { bodies: '/chatkit', logs: runtime });
  await sendMessage(page, 'please lock this thread');
  await waitForIdle(page);
  const reason = page.locator('[data-part="composer-blocked"]');
  await reason.waitFor({ timeout: 5_000 });
  assert.match(await reason.textContent(), /Locked by the reference runtime/);
  assert.equal(await reason.getAttribute('role'), 'status');
  assert.equal(await composer(page).isDisabled(), true);
  assert.equal(await sendButton(page).isDisabled(), true);
  assert.equal(await page.getByRole('button', { name: 'Add attachment' }).isDisabled(), true);
  // A new chat is open again.
  await page.getByRole('button', { name: 'New chat' }).click();
  await waitFor(async () => !(await composer(page).isDisabled()), { message: 'the composer enabled in a new chat' });
  assert.equal(await reason.count(), 0);
  await finishPage(page);
});

test('each thread keeps its own draft, and the new chat its own', async () => {
  const page = await newChatPage(context, `${runtime.url}/`, { bodies: '/chatkit', logs: runtime });
  await sendMessage(page, 'Draft thread one');
  await waitForIdle(page);
  await page.getByRole('button', { name: 'New chat' }).click();
  await sendMessage(page, 'Draft thread two');
  await waitForIdle(page);

  await composer(page).fill('unsent text for two');
  await page.getByRole('button', { name: 'New chat' }).click();
  assert.equal(await composer(page).inputValue(), '', 'the new chat took the draft of thread two');
  await waitFor(() => composer(page).evaluate((box) => box.getRootNode().activeElement === box), {
    timeout: 3_000,
    message: 'New chat puts the focus in the composer',
  });
  await composer(page).fill('unsent text for a new chat');

  await selectThread(page, 'Draft thread one');
  assert.equal(await composer(page).inputValue(), '');
  await composer(page).fill('unsent text for one');

  await selectThread(page, 'Draft thread two');
  assert.equal(await composer(page).inputValue(), 'unsent text for two');
  await selectThread(page, 'Draft thread one');
  assert.equal(await composer(page).inputValue(), 'unsent text for one');
  await page.getByRole('button', { name: 'New chat' }).click();
  assert.equal(await composer(page).inputValue(), 'unsent text for a new chat');
  // Sending from a draft empties only that draft.
  await sendButton(page).click();
  await waitForIdle(page);
  await selectThread(page, 'Draft thread two');
  assert.equal(await composer(page).inputValue(), 'unsent text for two');
  assert.equal(
    page.bodies.filter((b) => b.type.startsWith('threads.') && !['threads.list', 'threads.get_by_id', 'threads.subscribe'].includes(b.type)).length,
    3,
    'a draft was sent by switching',
  );
  await finishPage(page);
});

test('configured metadata goes with every request; a message adds its own', async () => {
  const page = await newChatPage(context, `${runtime.url}/`, { bodies: '/chatkit', logs: runtime });
  await page.evaluate(() =>
    document.querySelector('chat-shell').setAttribute('metadata', JSON.stringify({ tenant: 'acme', lang: 'en' })),
  );
  await sendMessage(page, 'metadata please');
  await waitForIdle(page);
  await page.getByRole('button', { name: 'History', exact: true }).click();
  await history(page).getByRole('button', { name: 'metadata please', exact: true }).waitFor({ timeout: 5_000 });
  await page.keyboard.press('Escape');
  const sent = await page.evaluate(() =>
    document.querySelector('chat-shell').sendUserMessage({
      text: 'with my own metadata',
      metadata: { lang: 'fr', source: 'test' },
    }),
  );
  assert.match(sent.threadId, /\S/, 'sendUserMessage resolves with the thread');
  await page.locator('article[data-role="user"]', { hasText: 'with my own metadata' }).waitFor({ timeout: 5_000 });
  await waitForIdle(page);

  const types = page.bodies.map((b) => b.type);
  for (const type of ['threads.create', 'threads.list', 'threads.add_user_message']) {
    assert.ok(types.includes(type), `no ${type} request: ${types}`);
  }
  for (const body of page.bodies.filter((b) => b.type !== 'threads.add_user_message')) {
    assert.deepEqual(body.metadata, { tenant: 'acme', lang: 'en' }, `${body.type} without the configured metadata`);
  }
  const own = page.bodies.find((b) => b.type === 'threads.add_user_message');
  assert.deepEqual(own.metadata, { tenant: 'acme', lang: 'fr', source: 'test' });

  // Broken JSON: no metadata at all, a warning rather than an error.
  await page.evaluate(() => document.querySelector('chat-shell').setAttribute('metadata', '{broken'));
  const before = page.bodies.length;
  await sendMessage(page, 'and without');
  await waitForIdle(page);
  const last = page.bodies.slice(before).find((b) => b.type === 'threads.add_user_message');
  assert.equal(last.metadata, undefined);
  await finishPage(page);
});
