// The usage meter and the agent's own sessions in History,
// through the reference runtime (`--acp`) and the scripted ACP agent as real processes,
// beside session-controls.test.mjs (one session a page there): the meter's visible text
// with its cost; three sessions two a page after a restart of the runtime, "More
// sessions" until the list is whole, and the oldest opened with its replayed messages.

import assert from 'node:assert/strict';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ROOT, axeViolations, close, openBrowser, sendMessage, startRuntime, waitFor, waitForIdle, openChat, finishPage } from './harness.mjs';

const AGENT = process.env.E2E_ACP_AGENT_BIN
  ? path.resolve(ROOT, process.env.E2E_ACP_AGENT_BIN)
  : path.join(ROOT, 'target', 'debug', 'chat-shell-acp-agent');
const BASE = path.join(ROOT, 'target', `e2e-agent-sessions-${process.pid}`);

let context;

before(async () => {
  if (!existsSync(AGENT)) throw new Error(`${AGENT} is missing: run 'cargo build -p chat-shell-acp-agent' first`);
  rmSync(BASE, { recursive: true, force: true });
  mkdirSync(BASE, { recursive: true });
  context = await openBrowser();
});
after(async () => {
  await close();
  rmSync(BASE, { recursive: true, force: true });
});

async function userMessages(page) {
  return page.locator('article[data-role="user"]').allTextContents();
}

test('the usage meter: hidden before a turn, then used of size with the cost, growing', async () => {
  const runtime = await startRuntime({ extraArgs: ['--acp', `${AGENT} --pace-ms 2`] });
  const page = await openChat(context, `${runtime.url}/`);
  const meter = page.locator('[data-part="usage"]');
  assert.equal(await meter.count(), 0, 'nothing reported, nothing shown');
  await sendMessage(page, 'hello');
  await meter.waitFor({ timeout: 10_000 });
  // Outside the transcript.
  assert.equal(await page.locator('[role="log"] [data-part="usage"], [data-part="transcript"] [data-part="usage"]').count(), 0);
  assert.equal(await meter.getAttribute('role'), 'meter');
  assert.equal(await meter.getAttribute('aria-valuemin'), '0');
  assert.equal(await meter.getAttribute('aria-valuemax'), '200000');
  assert.match(await meter.textContent(), /^\s*[\d.]+k? \/ 200k · \d+\.\d\d USD\s*$/);
  await waitForIdle(page);
  const first = Number(await meter.getAttribute('aria-valuenow'));
  await sendMessage(page, 'and more');
  await waitFor(async () => Number(await meter.getAttribute('aria-valuenow')) > first, { timeout: 10_000, message: 'the meter to grow' });
  await waitForIdle(page);
  assert.deepEqual(await axeViolations(page), []);
  await finishPage(page);
  await runtime.close();
});

test("three agent sessions, two a page, after a restart; the oldest opens with its messages", async () => {
  const db = path.join(BASE, 'history.db');
  const sessions = path.join(BASE, 'sessions');
  const args = ['--db', db, '--acp', `${AGENT} --pace-ms 2 --sessions ${sessions} --page-size 2`];
  const first = await startRuntime({ extraArgs: args });
  let page = await openChat(context, `${first.url}/`);
  for (const [i, text] of ['alpha lighthouse', 'beta orchard', 'gamma quarry'].entries()) {
    if (i > 0) await page.getByRole('button', { name: 'New chat' }).click();
    await sendMessage(page, text);
    await waitFor(async () => (await userMessages(page)).some((t) => t.includes(text)), { message: text });
    await waitForIdle(page);
  }
  const cookies = await context.cookies(first.url);
  await page.close();
  await first.close();

  const second = await startRuntime({ extraArgs: args });
  await context.addCookies(cookies.map(({ name, value }) => ({ name, value, url: second.url })));
  page = await openChat(context, `${second.url}/`);
  // A new chat knows the agent's session (and that it lists sessions) with this option, as
  // the demo's /agent/ page sets it.
  await page.evaluate(() => document.querySelector('chat-shell').setOptions({ sessionControls: true }));
  await page.getByRole('button', { name: 'History' }).click();
  const list = page.getByRole('list', { name: "The agent's sessions" });
  await list.waitFor({ timeout: 10_000 });
  await waitFor(async () => (await list.getByRole('listitem').count()) === 2, { message: 'the first page of two' });
  const more = page.getByRole('button', { name: 'More sessions' });
  await more.click();
  await waitFor(async () => (await list.getByRole('listitem').count()) === 3, { message: 'the second page' });
  await waitFor(async () => (await more.count()) === 0, { message: 'no more pages' });
  const text = await list.textContent();
  for (const t of ['alpha lighthouse', 'beta orchard', 'gamma quarry']) assert.match(text, new RegExp(t));
  assert.deepEqual(await axeViolations(page), []);
  await list.getByRole('button', { name: /alpha lighthouse/ }).click();
  await waitFor(async () => (await userMessages(page)).some((t) => t.includes('alpha lighthouse')), {
    timeout: 10_000,
    message: 'the oldest session opened with its replayed messages',
  });
  assert.ok(!(await userMessages(page)).some((t) => t.includes('gamma quarry')), 'only its own messages');
  await finishPage(page);
  await second.close();
});
