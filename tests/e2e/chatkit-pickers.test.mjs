// ChatKit's model picker and tool menu (`composer.models` / `composer.tools`)
// against the reference runtime: nothing shows without the options; with them, the
// default model is preselected and sent in the first message's `inference_options`; another
// model and a tool chosen by keyboard in the "Tools" menu are both sent; removing the tool's
// chip stops `tool_choice`. axe is clean on the composer.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { axeViolations, close, newChatPage, openBrowser, sendMessage, startRuntime, waitFor, waitForIdle, finishPage, sendButton } from './harness.mjs';

let runtime;
let context;

before(async () => {
  runtime = await startRuntime();
  context = await openBrowser();
});
after(close);

/** The `inference_options` of every user message sent so far. */
const sent = (page) =>
  page.bodies
    .filter((b) => b.type === 'threads.create' || b.type === 'threads.add_user_message')
    .map((b) => b.params.input.inference_options);

/** Sends `text` as message number `count` and waits for its answer. */
async function sendNth(page, text, count) {
  await sendMessage(page, text);
  await waitFor(() => sent(page).length === count, { timeout: 5_000, message: `message ${count} sent` });
  await waitForIdle(page);
}

const OPTIONS = {
  composer: {
    models: [
      { id: 'fast', label: 'Fast', description: 'Quick answers' },
      { id: 'smart', label: 'Smart', default: true },
      { id: 'deep', label: '<b>Deep</b>' },
    ],
    tools: [
      { id: 'search', label: 'Search the web', shortLabel: 'Search', icon: 'globe' },
      { id: 'draw', label: 'Draw an image' },
    ],
  },
};

test('nothing shows where nothing is offered', async () => {
  const page = await newChatPage(context, `${runtime.url}/`, { bodies: '/chatkit' });
  // The pickers would render in the composer's own pass, beside its Send button.
  await sendButton(page).waitFor();
  assert.equal(await page.getByRole('combobox', { name: 'Model' }).count(), 0);
  assert.equal(await page.getByRole('button', { name: 'Tools' }).count(), 0);
  await sendNth(page, 'hello', 1);
  assert.deepEqual(sent(page), [{}]);
  // A wrong type is a TypeError naming the key, and changes nothing.
  const error = await page.evaluate(() => {
    try {
      document.querySelector('chat-shell').setOptions({ composer: { models: [{ label: 'no id' }] } });
      return null;
    } catch (e) {
      return `${e.name}: ${e.message}`;
    }
  });
  assert.match(error, /^TypeError: .*`composer`/);
  assert.equal(await page.getByRole('combobox', { name: 'Model' }).count(), 0);
  await finishPage(page);
});

test('the default model, another model and a tool chosen by keyboard, the chip removed', async () => {
  const page = await newChatPage(context, `${runtime.url}/`, { bodies: '/chatkit' });
  await page.evaluate((o) => document.querySelector('chat-shell').setOptions(o), OPTIONS);
  const model = page.getByRole('combobox', { name: 'Model', exact: true });
  await model.waitFor({ timeout: 5_000 });
  assert.equal(await model.evaluate((el) => el.value), 'smart');
  // Labels are text, never markup.
  assert.equal(await model.locator('option[value="deep"]').textContent(), '<b>Deep</b>');
  const tools = page.getByRole('button', { name: 'Tools', exact: true });
  assert.equal(await tools.getAttribute('aria-haspopup'), 'menu');
  assert.equal(await tools.getAttribute('aria-expanded'), 'false');
  assert.deepEqual(await axeViolations(page, 'chat-shell'), []);

  await sendNth(page, 'first', 1);
  assert.deepEqual(sent(page)[0], { model: 'smart' });

  // Another model, and a tool from the menu by keyboard.
  await model.selectOption('deep');
  await tools.focus();
  await page.keyboard.press('Enter');
  const menu = page.getByRole('menu', { name: 'Tools', exact: true });
  await menu.waitFor({ timeout: 5_000 });
  assert.equal(await tools.getAttribute('aria-expanded'), 'true');
  const items = menu.getByRole('menuitemradio');
  assert.equal(await items.count(), 2);
  await waitFor(() => items.nth(0).evaluate((el) => el.getRootNode().activeElement === el), { message: 'the first item focused' });
  assert.deepEqual(await axeViolations(page, 'chat-shell'), []);
  // Escape closes and gives the focus back to the button.
  await page.keyboard.press('Escape');
  await menu.waitFor({ state: 'detached', timeout: 5_000 });
  await waitFor(() => tools.evaluate((el) => el.getRootNode().activeElement === el), { message: 'focus back on Tools' });
  // Arrow keys move (and wrap), Space chooses.
  await page.keyboard.press('ArrowDown');
  await menu.waitFor({ timeout: 5_000 });
  await page.keyboard.press('ArrowDown');
  await waitFor(() => items.nth(1).evaluate((el) => el.getRootNode().activeElement === el), { message: 'the second item focused' });
  await page.keyboard.press('ArrowDown');
  await waitFor(() => items.nth(0).evaluate((el) => el.getRootNode().activeElement === el), { message: 'wrapped to the first' });
  await page.keyboard.press(' ');
  await menu.waitFor({ state: 'detached', timeout: 5_000 });
  const remove = page.getByRole('button', { name: 'Remove tool Search the web', exact: true });
  await remove.waitFor({ timeout: 5_000 });
  assert.equal((await page.locator('[data-part="tool-chip"]').textContent()).includes('Search'), true);
  assert.deepEqual(await axeViolations(page, 'chat-shell'), []);

  await sendNth(page, 'second', 2);
  assert.deepEqual(sent(page)[1], { model: 'deep', tool_choice: { id: 'search' } });

  // The chosen tool is checked when the menu opens again; Enter chooses the other.
  await tools.click();
  await menu.waitFor({ timeout: 5_000 });
  assert.equal(await items.nth(0).getAttribute('aria-checked'), 'true');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await page.getByRole('button', { name: 'Remove tool Draw an image', exact: true }).waitFor({ timeout: 5_000 });
  await sendNth(page, 'third', 3);
  assert.deepEqual(sent(page)[2], { model: 'deep', tool_choice: { id: 'draw' } });

  // Removing the chip stops tool_choice; the model stays.
  await page.getByRole('button', { name: 'Remove tool Draw an image', exact: true }).click();
  await page.locator('[data-part="tool-chip"]').waitFor({ state: 'detached', timeout: 5_000 });
  await sendNth(page, 'fourth', 4);
  assert.deepEqual(sent(page)[3], { model: 'deep' });

  // `composer: null` removes both.
  await page.evaluate(() => document.querySelector('chat-shell').setOptions({ composer: null }));
  await model.waitFor({ state: 'detached', timeout: 5_000 });
  assert.equal(await tools.count(), 0);
  await finishPage(page);
});
