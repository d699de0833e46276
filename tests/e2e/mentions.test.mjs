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
  openChat,
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

test('ACP: @ lists the workspace\'s files; a chosen file reaches the agent as a resource_link', async () => {
  if (!existsSync(AGENT)) throw new Error(`${AGENT} is missing: run 'cargo build -p chat-shell-acp-agent' first`);
  const workspace = path.join(ROOT, 'target', `e2e-mentions-${process.pid}`);
  rmSync(workspace, { recursive: true, force: true });
  mkdirSync(path.join(workspace, 'src'), { recursive: true });
  mkdirSync(path.join(workspace, 'node_modules', 'dep'), { recursive: true });
  writeFileSync(path.join(workspace, 'src', 'main.rs'), 'fn main() {}\n');
  writeFileSync(path.join(workspace, 'README.md'), '# demo\n');
  writeFileSync(path.join(workspace, 'node_modules', 'dep', 'main.rs'), '// not listed\n');
  try {
    const runtime = await startRuntime({ extraArgs: ['--acp', `${AGENT} --pace-ms 2`, '--workspace', workspace] });
    const page = await openChat(context, `${runtime.url}/`);
    await page.evaluate(() => document.querySelector('chat-shell').setOptions({ sessionControls: true }));
    const requests = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/chatkit') && r.method() === 'POST') requests.push(JSON.parse(r.postData()));
    });
    // The draft session's state says whether files can be mentioned.
    await waitFor(() => requests.some((r) => r.type === 'acp.session.get'), { message: 'the draft session asked for' });
    await box(page).click();
    await box(page).pressSequentially('look at @mrs');
    await list(page).waitFor({ timeout: 10_000 });
    const options = await list(page).getByRole('option').allTextContents();
    assert.equal(options[0], 'main.rs src', `options: ${options}`);
    assert.ok(!options.some((o) => o.includes('node_modules')), `options: ${options}`);
    const queries = requests.filter((r) => r.type === 'acp.files.search').map((r) => r.params.query);
    assert.equal(queries.at(-1), 'mrs', `queries: ${queries}`);
    await box(page).press('Enter');
    assert.equal(await draft(page), 'look at @main.rs ');
    await waitFor(async () => (await chips(page).count()) === 1, { message: 'the chip over the draft' });
    await box(page).pressSequentially('please');
    await box(page).press('Enter');

    const sent = requests.find((r) => r.type === 'threads.create');
    assert.deepEqual(sent.params.input.content[1], {
      type: 'input_tag', id: 'file:src/main.rs', text: 'main.rs', group: 'src', interactive: false,
      data: { type: 'file', path: 'src/main.rs' },
    });
    // The scripted agent describes what it was given: the link came through.
    const answer = page.locator('article[data-role="assistant"]').last();
    await answer.getByText('a link to main.rs', { exact: false }).waitFor({ timeout: 15_000 });
    await page.locator('article[data-role="user"]').last().locator('[data-part="mention"]').waitFor();
    assert.deepEqual(await axeViolations(page), []);
    assert.deepEqual(page.consoleErrors, []);
    await page.close();
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
});

test('the demo page /compose/ offers its people to @ and a microphone', async () => {
  const runtime = await startRuntime({ paceMs: 2 });
  const page = await newChatPage(context, `${runtime.url}/compose/`);
  await page.getByRole('button', { name: 'Dictate' }).waitFor({ timeout: 10_000 });
  await box(page).click();
  await box(page).pressSequentially('@gra');
  await list(page).waitFor({ timeout: 10_000 });
  assert.deepEqual(await list(page).getByRole('option').allTextContents(), ['Grace Hopper People']);
  await box(page).press('Enter');
  assert.equal(await draft(page), '@Grace Hopper ');
  assert.deepEqual(page.consoleErrors, []);
  await page.close();
});
