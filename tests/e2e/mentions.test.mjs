// @-mentions in a real Chromium against the real runtime:
// - ChatKit: the host's `entities.onTagSearch(query)` (chatkit-js's option) fills the
//   listbox "Mentions"; keyboard only (arrows, Enter, Tab, Escape); the chosen entity
//   replaces the typed `@query` as one unit, shown as `[data-part="mention"]` over the
//   draft, removed whole by Backspace; it goes out as `input_tag` content (id, text, data,
//   group, interactive) and shows as a chip in the sent message; a hostile title is text.
// - ACP: with the scripted agent, `@` lists the workspace's files (the runtime's
//   `acp.files.search`) and a chosen file reaches the agent as a `resource_link`.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  ROOT, startRuntime, openBrowser, newChatPage, waitFor, waitForIdle, close, axeViolations,
} from './harness.mjs';

const AGENT = process.env.E2E_ACP_AGENT_BIN
  ? path.resolve(ROOT, process.env.E2E_ACP_AGENT_BIN)
  : path.join(ROOT, 'target', 'debug', 'chat-shell-acp-agent');

let context;
before(async () => {
  context = await openBrowser();
  await context.addInitScript(() => {
    window.__ran = 0;
    for (const name of ['alert', 'confirm', 'prompt']) window[name] = () => { window.__ran += 1; };
  });
});
after(close);

const box = (page) => page.getByRole('textbox', { name: 'Message' });
const list = (page) => page.getByRole('listbox', { name: 'Mentions' });
const draft = (page) => box(page).inputValue();
const chips = (page) => page.locator('chat-shell').locator('.cs-composer [data-part="mention"]');

test('ChatKit: the host\'s entities, by keyboard, one unit in the draft, sent as input_tag', async () => {
  const runtime = await startRuntime({ paceMs: 2 });
  const page = await newChatPage(context, `${runtime.url}/`);
  await page.evaluate(() => {
    const people = [
      { id: 'ent_ann', title: 'Ann <img src=x onerror=alert(1)>', group: 'People', data: { kind: 'person', n: 1 } },
      { id: 'ent_bob', title: 'Bob', group: 'People', data: { kind: 'person', n: 2 } },
      { id: 'ent_carol', title: 'Carol', interactive: true },
    ];
    window.__queries = [];
    document.querySelector('chat-shell').setOptions({
      entities: {
        onTagSearch: async (query) => {
          window.__queries.push(query);
          return people.filter((p) => p.title.toLowerCase().includes(query.toLowerCase()));
        },
      },
    });
  });
  const sent = [];
  page.on('request', (r) => {
    if (r.url().endsWith('/chatkit') && r.method() === 'POST') sent.push(JSON.parse(r.postData()));
  });

  await box(page).click();
  await box(page).pressSequentially('Hello @bo');
  await list(page).waitFor({ timeout: 5_000 });
  assert.deepEqual(await list(page).getByRole('option').allTextContents(), ['Bob People']);
  assert.ok((await page.evaluate(() => window.__queries)).includes('bo'), 'the query is what follows the @');
  // The textbox points at the active option.
  const active = await box(page).getAttribute('aria-activedescendant');
  assert.equal(await list(page).getByRole('option').first().getAttribute('id'), active);
  assert.equal(await list(page).getByRole('option').first().getAttribute('aria-selected'), 'true');
  assert.deepEqual(await axeViolations(page), []);
  await box(page).press('Enter');
  await list(page).waitFor({ state: 'detached' });
  assert.equal(await draft(page), 'Hello @Bob ');
  await waitFor(async () => (await chips(page).count()) === 1, { message: 'one chip over the draft' });
  assert.equal(await chips(page).textContent(), '@Bob');

  // Backspace into the mention removes all of it.
  await box(page).press('Backspace'); // the space after it
  await box(page).press('Backspace'); // into "@Bob"
  assert.equal(await draft(page), 'Hello ');
  await waitFor(async () => (await chips(page).count()) === 0, { message: 'the chip gone with its mention' });

  // Escape closes the list and keeps what was typed.
  await box(page).pressSequentially('@c');
  await list(page).waitFor();
  await box(page).press('Escape');
  await list(page).waitFor({ state: 'detached' });
  assert.equal(await draft(page), 'Hello @c');
  await box(page).press('Backspace');
  await box(page).press('Backspace');

  // Arrows move; Tab chooses. "@" alone lists everyone.
  await box(page).pressSequentially('@');
  await waitFor(async () => (await list(page).getByRole('option').count()) === 3, { message: 'three options' });
  await box(page).press('ArrowDown');
  await box(page).press('ArrowDown');
  await box(page).press('ArrowUp');
  assert.equal(await list(page).getByRole('option').nth(1).getAttribute('aria-selected'), 'true');
  await box(page).press('ArrowUp');
  await box(page).press('Tab');
  assert.equal(await draft(page), 'Hello @Ann <img src=x onerror=alert(1)> ');
  await box(page).pressSequentially('see');
  await box(page).press('Enter');

  const user = page.locator('article[data-role="user"]').last();
  await user.waitFor({ timeout: 5_000 });
  await waitForIdle(page);
  const create = sent.find((r) => r.type === 'threads.create');
  assert.ok(create, `a threads.create request in ${sent.map((r) => r.type)}`);
  assert.deepEqual(create.params.input.content, [
    { type: 'input_text', text: 'Hello ' },
    {
      type: 'input_tag', id: 'ent_ann', text: 'Ann <img src=x onerror=alert(1)>',
      data: { kind: 'person', n: 1 }, group: 'People', interactive: false,
    },
    { type: 'input_text', text: ' see' },
  ]);
  const chip = user.locator('[data-part="mention"]');
  assert.equal(await chip.textContent(), '@Ann <img src=x onerror=alert(1)>');
  assert.equal(await page.locator('chat-shell').locator('img').count(), 0, 'titles are text');
  assert.equal(await draft(page), '', 'the draft is empty once sent');
  assert.equal(await chips(page).count(), 0);
  assert.equal(await page.evaluate(() => window.__ran), 0);
  assert.deepEqual(page.consoleErrors, []);
  await page.close();
});
