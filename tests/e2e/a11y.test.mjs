// Accessibility: axe-core (from npm) on the component's main states, zero violations.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { axeViolations, startRuntime, openBrowser, runOver, newChatPage } from './harness.mjs';

let runtime, browser, page;

before(async () => {
  runtime = await startRuntime({ paceMs: 30 });
  browser = await openBrowser();
  // The early frame draws a composer before the wasm: wait for the element's own.
  page = await newChatPage(browser, runtime.url);
});

after(async () => {
  await browser?.close();
  await runtime?.close();
});


async function send(text) {
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(text);
  await box.press('Enter');
}

test('empty start screen with starter prompts', async () => {
  await page.evaluate(() => document.querySelector('chat-shell').setAttribute('starter-prompts',
    JSON.stringify([{ title: 'Plan a trip', prompt: 'markdown', icon: 'map-pin' }, { title: 'Show a widget', prompt: 'widget' }])));
  await page.getByRole('button', { name: 'Plan a trip' }).waitFor();
  assert.deepEqual(await axeViolations(page), []);
});

test('while an answer streams', async () => {
  await send('slow answer please');
  await page.getByRole('button', { name: 'Stop' }).waitFor();
  await page.locator('article[data-role="assistant"][data-status="streaming"]').waitFor();
  assert.deepEqual(await axeViolations(page), []);
  await page.getByRole('button', { name: 'Stop' }).click();
  await page.locator('article[data-role="assistant"][data-status="stopped"]').waitFor();
});

test('a finished answer with citations', async () => {
  await send('annotations');
  await page.locator('ol[aria-label="Sources"]').waitFor({ timeout: 15000 });
  await page.locator('article[data-role="assistant"][aria-busy="true"]').waitFor({ state: 'detached', timeout: 15000 });
  await runOver(page);
  assert.deepEqual(await axeViolations(page), []);
});

test('a widget', async () => {
  await send('widget');
  await page.locator('[data-part="widget"]').first().waitFor({ timeout: 15000 });
  await runOver(page);
  await page.locator('article[data-role="assistant"][aria-busy="true"]').waitFor({ state: 'detached', timeout: 15000 });
  assert.deepEqual(await axeViolations(page), []);
});

test('history open', async () => {
  await page.getByRole('button', { name: 'History' }).click();
  await page.getByRole('region', { name: 'History' }).getByRole('listitem').first().waitFor();
  assert.deepEqual(await axeViolations(page), []);
  await page.keyboard.press('Escape');
  await page.getByRole('region', { name: 'History' }).waitFor({ state: 'hidden' });
});

test('an error with Retry', async () => {
  await send('error');
  await page.locator('[data-part="error"]').waitFor({ timeout: 15000 });
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(page.consoleErrors, []);
});

test('dark: with no theme the element follows a dark OS scheme, light still forces light; axe is clean', async () => {
  const bg = () => page.evaluate(() => getComputedStyle(document.querySelector('chat-shell')).getPropertyValue('--cs-bg').trim());
  await page.emulateMedia({ colorScheme: 'dark' });
  try {
    assert.equal(await page.evaluate(() => document.querySelector('chat-shell').hasAttribute('theme')), false);
    assert.equal(await bg(), '#15171c');
    assert.deepEqual(await axeViolations(page), []);
    await page.evaluate(() => document.querySelector('chat-shell').setAttribute('theme', 'light'));
    assert.equal(await bg(), '#ffffff');
  } finally {
    await page.evaluate(() => document.querySelector('chat-shell').removeAttribute('theme'));
    await page.emulateMedia({ colorScheme: 'light' });
  }
  assert.equal(await bg(), '#ffffff');
});

test('the chrome draws its icons: no typed glyph stands for one', async () => {
  await page.getByRole('button', { name: 'Find in conversation' }).click();
  await page.getByRole('button', { name: 'Next match' }).waitFor();
  const found = await page.evaluate(() => {
    const root = document.querySelector('chat-shell').shadowRoot;
    const buttons = [...root.querySelectorAll('button')];
    return {
      glyphs: buttons.map((b) => b.textContent.trim()).filter((t) => t && /^[\p{S}\p{P}]+$/u.test(t)),
      drawn: buttons.filter((b) => b.querySelector('svg.cs-glyph')).length,
    };
  });
  assert.deepEqual(found.glyphs, [], 'buttons whose only text is a symbol');
  assert.ok(found.drawn >= 4, `${found.drawn} buttons with a drawn icon`);
  await page.keyboard.press('Escape');
});
