// The controls an agent session offers, through the reference runtime (`--acp`)
// and the scripted ACP agent (examples/acp-agent) as real processes: the Mode, Model and
// Thinking selectors (a change confirmed, a refused one rolled back with the reason, an
// adjusted one said), an option added and removed mid-session, the slash-command list
// (filtering, keyboard, commands withdrawn, the command's text sent as is), the usage
// meter following the agent's updates, and the agent's own sessions in History after a
// restart of the runtime. axe is clean on each.

import assert from 'node:assert/strict';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ROOT, axeViolations, close, openBrowser, sendMessage, startRuntime, waitFor, waitForIdle, openChat, finishPage, waitForText } from './harness.mjs';

const AGENT = process.env.E2E_ACP_AGENT_BIN
  ? path.resolve(ROOT, process.env.E2E_ACP_AGENT_BIN)
  : path.join(ROOT, 'target', 'debug', 'chat-shell-acp-agent');
const BASE = path.join(ROOT, 'target', `e2e-session-controls-${process.pid}`);

let runtime;
let context;

before(async () => {
  if (!existsSync(AGENT)) throw new Error(`${AGENT} is missing: run 'cargo build -p chat-shell-acp-agent' first`);
  rmSync(BASE, { recursive: true, force: true });
  mkdirSync(BASE, { recursive: true });
  runtime = await startRuntime({ extraArgs: ['--acp', `${AGENT} --pace-ms 2`] });
  context = await openBrowser();
});
after(async () => {
  await close();
  rmSync(BASE, { recursive: true, force: true });
});

/** Pages whose element asks for the draft session's controls before the first message. */
const SESSION_CONTROLS = { options: { sessionControls: true } };

/** The value a select shows now. */
const valueOf = (select) => select.evaluate((el) => el.value);

test('modes and options: confirmed, refused and rolled back, adjusted, added and removed', async () => {
  const page = await openChat(context, `${runtime.url}/`, SESSION_CONTROLS);
  const mode = page.getByRole('combobox', { name: 'Mode', exact: true });
  const model = page.getByRole('combobox', { name: 'Model', exact: true });
  const thinking = page.getByRole('combobox', { name: 'Thinking', exact: true });
  await mode.waitFor({ timeout: 10_000 });
  // One Mode control, though the agent sends both its modes and a mode option.
  assert.equal(await page.getByRole('combobox', { name: 'Mode', exact: true }).count(), 1);
  assert.equal(await valueOf(mode), 'ask');
  assert.deepEqual(await axeViolations(page), []);

  // Confirmed: the value the agent reports.
  await mode.selectOption('code');
  await waitFor(async () => (await mode.isEnabled()) && (await valueOf(mode)) === 'code', { message: 'the mode confirmed' });
  assert.equal(await page.locator('[data-part="session-control-note"]').count(), 0, 'no note for a change as asked');

  // Refused: back to what the agent kept, with its reason.
  const before = await valueOf(model);
  await model.selectOption('scripted-locked');
  await waitForText(page, 'not available on this plan');
  await waitFor(async () => (await model.isEnabled()) && (await valueOf(model)) === before, { message: 'the model rolled back' });
  assert.match(await page.getByRole('status').filter({ hasText: 'not available' }).textContent(), /Model not changed/);

  // Adjusted: asked high on the fast model, the agent set medium and the page says so.
  await thinking.selectOption('high');
  await waitForText(page, 'set to Medium by the agent');
  assert.equal(await valueOf(thinking), 'medium');

  // The mode set before the first message is the thread's.
  await sendMessage(page, 'options+');
  await waitForText(page, 'I added the Verbosity option.');
  await waitForIdle(page);
  const verbosity = page.getByRole('combobox', { name: 'Verbosity', exact: true });
  await verbosity.waitFor({ timeout: 10_000 });
  assert.equal(await valueOf(page.getByRole('combobox', { name: 'Mode', exact: true })), 'code');
  await sendMessage(page, 'options-');
  await waitForText(page, 'I removed the Verbosity option.');
  await verbosity.waitFor({ state: 'detached', timeout: 10_000 });
  assert.deepEqual(await axeViolations(page), []);
  await finishPage(page);
});

test('slash commands: listed on /, filtered, chosen by keyboard, withdrawn, sent as typed', async () => {
  const page = await openChat(context, `${runtime.url}/`, SESSION_CONTROLS);
  const composer = page.getByRole('textbox', { name: 'Message' });
  await page.getByRole('combobox', { name: 'Mode', exact: true }).waitFor({ timeout: 10_000 });
  await composer.click();
  await composer.pressSequentially('/');
  const list = page.getByRole('listbox', { name: 'Commands' });
  await list.waitFor({ timeout: 5_000 });
  const names = () => list.locator('.cs-commands__name').allTextContents();
  assert.deepEqual(await names(), ['/web', '/test', '/plan']);
  assert.match(await list.getByRole('option', { name: /\/web/ }).textContent(), /Search the web.*query/);
  assert.deepEqual(await axeViolations(page), []);
  // Filtered as the name is typed; the textbox points at the active option.
  await composer.pressSequentially('p');
  assert.deepEqual(await names(), ['/plan']);
  const active = await composer.getAttribute('aria-activedescendant');
  assert.equal(await list.getByRole('option').first().getAttribute('id'), active);
  // Escape closes it; typing opens it again; arrows move; Tab completes.
  await composer.press('Escape');
  await list.waitFor({ state: 'detached' });
  await composer.press('Backspace');
  await list.waitFor();
  await composer.press('ArrowDown');
  assert.equal(await list.getByRole('option', { selected: true }).textContent().then((t) => t.split(/\s/)[0]), '/test');
  await composer.press('Tab');
  assert.equal(await composer.inputValue(), '/test ');
  await list.waitFor({ state: 'detached' });
  // Enter sends now (the list is closed): the command's text as is.
  await composer.pressSequentially('fast');
  await composer.press('Enter');
  await waitForText(page, "Ran /test with 'fast'.");
  await waitForIdle(page);

  // Withdrawn: the agent's next list has no /web, and a /review.
  await sendMessage(page, 'commands-');
  await waitForText(page, 'I withdrew /web and added /review.');
  await waitForIdle(page);
  await composer.click();
  await composer.fill('');
  await composer.pressSequentially('/');
  await waitFor(async () => !(await names()).includes('/web'), { message: '/web withdrawn' });
  assert.deepEqual(await names(), ['/test', '/plan', '/review']);
  // Enter chooses while the list is open; nothing is sent.
  await composer.pressSequentially('rev');
  await composer.press('Enter');
  assert.equal(await composer.inputValue(), '/review ');
  await finishPage(page);
});

test('the usage meter shows what the agent reports, and follows it', async () => {
  const page = await openChat(context, `${runtime.url}/`, SESSION_CONTROLS);
  const meter = page.locator('[data-part="usage"]');
  await page.getByRole('combobox', { name: 'Mode', exact: true }).waitFor({ timeout: 10_000 });
  assert.equal(await meter.count(), 0, 'nothing reported, nothing shown');
  await sendMessage(page, 'hello');
  await meter.waitFor({ timeout: 10_000 });
  assert.equal(await meter.getAttribute('role'), 'meter');
  assert.equal(await meter.getAttribute('aria-valuemax'), '200000');
  const first = Number(await meter.getAttribute('aria-valuenow'));
  assert.ok(first > 0, `used ${first}`);
  assert.match(await meter.getAttribute('aria-valuetext'), /of 200k tokens used.*USD/);
  await waitForIdle(page);
  await sendMessage(page, 'again');
  await waitFor(async () => Number(await meter.getAttribute('aria-valuenow')) > first, { timeout: 10_000, message: 'the meter to grow' });
  assert.deepEqual(await axeViolations(page), []);
  await finishPage(page);
});

test("the agent's sessions are listed in History and resumed after a restart of the runtime", async () => {
  const db = path.join(BASE, 'history.db');
  const sessions = path.join(BASE, 'agent-sessions');
  const args = ['--db', db, '--acp', `${AGENT} --pace-ms 2 --sessions ${sessions} --page-size 1`];
  const first = await startRuntime({ extraArgs: args });
  let page = await openChat(context, `${first.url}/`, SESSION_CONTROLS);
  await sendMessage(page, 'remember the blue kite');
  await waitForText(page, 'You said');
  await waitForIdle(page);
  await page.getByRole('button', { name: 'New chat' }).click();
  await sendMessage(page, 'second talk about trains');
  await waitForText(page, 'trains');
  await waitForIdle(page);
  const cookies = await context.cookies(first.url);
  await page.close();
  await first.close();

  // The same database and agent sessions, another process (and port): the cookie goes along.
  const second = await startRuntime({ extraArgs: args });
  await context.addCookies(cookies.map(({ name, value }) => ({ name, value, url: second.url })));
  page = await openChat(context, `${second.url}/`, SESSION_CONTROLS);
  await page.getByRole('button', { name: 'History' }).click();
  const agentList = page.getByRole('list', { name: "The agent's sessions" });
  await agentList.waitFor({ timeout: 10_000 });
  // One a page: the newest first, then the next on request.
  await waitFor(async () => (await agentList.getByRole('listitem').count()) === 1, { message: 'the first page' });
  assert.match(await agentList.textContent(), /second talk about trains/);
  await page.getByRole('button', { name: 'More sessions' }).click();
  await waitFor(async () => (await agentList.getByRole('listitem').count()) === 2, { message: 'the second page' });
  assert.deepEqual(await axeViolations(page), []);
  await agentList.getByRole('button', { name: /remember the blue kite/ }).click();
  await waitFor(async () => (await page.locator('article[data-role="user"]').allTextContents()).some((t) => t.includes('remember the blue kite')), {
    timeout: 10_000,
    message: 'the session opened with its messages',
  });
  // It goes on like any thread.
  await waitForIdle(page);
  await sendMessage(page, 'recall');
  await waitForText(page, 'This session has 2 user messages');
  await finishPage(page);
  await second.close();
});
