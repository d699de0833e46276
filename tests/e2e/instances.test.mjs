// Two runtime instances on one PostgreSQL database: one conversation across
// them. A page on A and a page on B follow the same run and the same pushed views; Stop
// from B stops a run on A; a permission answered on B continues the run on A; a reload
// onto B picks up A's running answer; killing A mid-run leaves the run `interrupted` on B
// with what was stored kept. Real PostgreSQL (scripts/postgres.sh, or the server
// scripts/test.sh started: CHAT_SHELL_TEST_DATABASE_URL), real runtimes, real HTTP,
// headless Chromium.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import {
  ROOT, startRuntime, openBrowser, sendMessage, waitFor, waitForIdle, createdThreadId, isStreaming,
  close, CALLBACK_TOKEN, openChat, pushView,
} from './harness.mjs';

const POSTGRES = path.join(ROOT, 'scripts', 'postgres.sh');

// Each runtime the harness starts listens for the process's exit (ten of them here).
process.setMaxListeners(32);

let base = process.env.CHAT_SHELL_TEST_DATABASE_URL;
let ownServer = null;
let context;

/** A fresh database on the test server; returns its URL. */
function freshDatabase() {
  const name = `instances_${process.pid}_${Math.random().toString(16).slice(2, 10)}`;
  execFileSync('psql', [base, '-qAtc', `CREATE DATABASE ${name}`]);
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

/** psql's answer to `sql` on `url`, trimmed. */
function query(url, sql) {
  return execFileSync('psql', [url, '-qAtc', sql], { encoding: 'utf8' }).trim();
}

/** An instance on `database` (a short lease: a dead one is noticed within seconds). */
function instance(database, paceMs = 5) {
  return startRuntime({
    paceMs,
    extraArgs: ['--database', database, '--callback-token', CALLBACK_TOKEN, '--lease-secs', '2', '--channel-keepalive-ms', '500'],
  });
}

before(async () => {
  if (!base) {
    // Run on its own: a throwaway server of our own, stopped after.
    const out = execFileSync(POSTGRES, ['start'], { encoding: 'utf8' });
    const vars = Object.fromEntries([...out.matchAll(/export (\w+)=(\S+)/g)].map((m) => [m[1], m[2]]));
    base = vars.CHAT_SHELL_TEST_DATABASE_URL;
    ownServer = vars.CHAT_SHELL_TEST_PGDATA;
  }
  context = await openBrowser();
});

after(async () => {
  await close();
  if (ownServer) execFileSync(POSTGRES, ['stop', ownServer]);
});

/** A page on `runtime` that starts a thread with `text`; returns { page, threadId }. */
async function startThread(runtime, text) {
  const page = await openChat(context, `${runtime.url}/`, { events: ['chat.thread.created', 'chat.error'] });
  await sendMessage(page, text);
  return { page, threadId: await createdThreadId(page) };
}

/** The text of the page's last assistant message. */
const answer = (page) =>
  page.evaluate(
    () => [...document.querySelector('chat-shell').shadowRoot.querySelectorAll('article[data-role="assistant"]')].at(-1)?.textContent ?? '',
  );

/** No error on the page (console, page errors, chat.error events). */
async function clean(page, { allowErrorEvents = false } = {}) {
  assert.deepEqual(page.consoleErrors, [], 'console errors on the page');
  if (!allowErrorEvents) {
    assert.deepEqual(await page.evaluate(() => window.__chatEvents.filter((e) => e.type === 'chat.error')), []);
  }
}

/** Whether `runtime` served any answer itself (it only followed the other's). */
const answered = (runtime) => runtime.linesMatching(/POST \/chatkit threads\.(create|add_user_message|custom_action) 200/).length;

test('a page on A and a page on B follow the same run and the same pushed views', async () => {
  const database = freshDatabase();
  const [a, b] = [await instance(database), await instance(database)];
  const { page: pageA, threadId } = await startThread(a, 'a long answer please');
  await waitFor(async () => (await answer(pageA)).length > 200, { message: 'the answer to start on A' });
  const pageB = await openChat(context, `${b.url}/`, { events: ['chat.error'], threadId });
  // B shows the run under way (replayed from the store, then followed), not a finished one.
  await waitFor(() => isStreaming(pageB), { message: 'B to show the run under way' });
  const seenOnB = (await answer(pageB)).length;
  await waitFor(async () => (await answer(pageB)).length > seenOnB + 200, { message: 'B to follow the run as it grows' });
  await waitForIdle(pageA, { timeout: 30_000 });
  await waitForIdle(pageB, { timeout: 30_000 });
  const [textA, textB] = [await answer(pageA), await answer(pageB)];
  assert.ok(textA.length > 5_000, `the whole long answer (${textA.length} characters)`);
  assert.equal(textB, textA, 'B ends with what A ends with');
  assert.equal(answered(b), 0, 'B only followed: the run was A’s');

  // A view pushed to A shows on B, one pushed to B shows on A, in order.
  assert.equal((await pushView(a, threadId, 'diff', { patch: 'diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+from A\n', title: 'from A' })).status, 200);
  for (const page of [pageA, pageB]) {
    await page.getByRole('tab', { name: 'Diff' }).click();
    await waitFor(async () => (await page.getByRole('tabpanel').textContent()).includes('from A'), { message: 'A’s view on both pages' });
  }
  assert.equal((await pushView(b, threadId, 'diff', { patch: 'diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+from B\n', title: 'from B' })).status, 200);
  for (const page of [pageA, pageB]) {
    await waitFor(async () => (await page.getByRole('tabpanel').textContent()).includes('from B'), { message: 'B’s view on both pages' });
  }
  assert.equal(query(database, `SELECT seq FROM views WHERE thread_id = '${threadId}'`), '2', 'one numbering for both');
  await clean(pageA);
  await clean(pageB);
});

test('Stop on B stops the run on A; both pages show it stopped, the partial answer kept', async () => {
  const database = freshDatabase();
  const [a, b] = [await instance(database, 15), await instance(database, 15)];
  const { page: pageA, threadId } = await startThread(a, 'a long answer please');
  await waitFor(async () => (await answer(pageA)).length > 200, { message: 'the answer to start on A' });
  const pageB = await openChat(context, `${b.url}/`, { events: ['chat.error'], threadId });
  const stop = pageB.getByRole('button', { name: 'Stop' });
  await stop.waitFor({ timeout: 10_000 });
  await stop.click();
  await a.waitForLine(/run cancelled from another instance: thread=/);
  await waitForIdle(pageA);
  await waitForIdle(pageB);
  const stored = query(database, `SELECT outcome FROM runs WHERE thread_id = '${threadId}'`);
  assert.equal(stored, 'cancelled');
  // B stopped showing the run at its Stop; A showed it until the run stopped there, a
  // few deltas later: what B shows is the start of what A shows, which the store holds.
  const trailer = /StoppedCopyRetry$/;
  const text = async (page) => (await answer(page)).replace(trailer, '').trim();
  const [textA, textB] = [await text(pageA), await text(pageB)];
  assert.ok(textA.length > 200 && textA.length < 5_000, `stopped part way (${textA.length} characters)`);
  assert.ok(textB.length > 200 && textA.startsWith(textB), `B shows the start of what A shows:\n${textB.slice(-300)}\n---\n${textA.slice(-300)}`);
  const again = await openChat(context, `${b.url}/`, { events: ['chat.error'], threadId });
  // The partial answer is kept: at least what B showed.
  await waitFor(async () => (await text(again)).startsWith(textB), { message: 'the stored answer to hold what B showed' });
  await clean(again);
  assert.equal(answered(b), 0);
  await clean(pageA);
  await clean(pageB);
});

test('a permission answered on B continues the run on A', async () => {
  const database = freshDatabase();
  const [a, b] = [await instance(database), await instance(database)];
  const { page: pageA, threadId } = await startThread(a, 'permission to clean the build?');
  await pageA.locator('[data-part="permission"]').waitFor({ timeout: 8_000 });
  const pageB = await openChat(context, `${b.url}/`, { events: ['chat.error'], threadId });
  const card = pageB.locator('[data-part="permission"]');
  await card.waitFor({ timeout: 8_000 });
  const allow = card.getByRole('button', { name: 'Allow once', exact: true });
  await waitFor(() => allow.isEnabled(), { timeout: 5_000, message: 'the buttons to arm on B' });
  await allow.click();
  // A's waiting run got the decision B's instance saved, and goes on.
  await a.waitForLine(/permission answered on another instance: thread=/);
  await b.waitForLine('(the asking stream goes on)');
  for (const page of [pageA, pageB]) {
    await waitForIdle(page);
    assert.match(await answer(page), /you chose Allow once/);
    assert.equal(await page.locator('[data-part="permission-decision"]').textContent(), 'Decision: Allow once');
  }
  assert.equal(query(database, `SELECT outcome FROM runs WHERE thread_id = '${threadId}'`), 'done');
  await clean(pageA);
  await clean(pageB);
});

test('a reload onto B picks up the answer running on A', async () => {
  const database = freshDatabase();
  const [a, b] = [await instance(database), await instance(database)];
  const { page: pageA, threadId } = await startThread(a, 'a long answer please');
  await waitFor(async () => (await answer(pageA)).length > 500, { message: 'the answer to start on A' });
  const before = await answer(pageA);
  await clean(pageA);
  await pageA.close();
  // The load balancer sends the reload to B.
  const pageB = await openChat(context, `${b.url}/`, { events: ['chat.error'], threadId });
  await waitFor(() => isStreaming(pageB), { message: 'B to show the run under way' });
  await waitFor(async () => (await answer(pageB)).length >= before.length, { message: 'B to show what A had shown' });
  assert.ok((await answer(pageB)).startsWith(before.slice(0, 200)));
  await waitForIdle(pageB, { timeout: 30_000 });
  const full = await answer(pageB);
  assert.ok(full.length > before.length + 1_000, 'B followed it to its end');
  assert.equal(query(database, `SELECT outcome FROM runs WHERE thread_id = '${threadId}'`), 'done');
  // And it is what the store holds: a reload on A shows the same.
  const again = await openChat(context, `${a.url}/`, { events: ['chat.error'], threadId });
  await waitFor(async () => (await answer(again)) === full, { message: 'the stored answer on A' });
  await clean(pageB);
  await clean(again);
});

test('killing A mid-run leaves the run interrupted on B, with what was stored kept', async () => {
  const database = freshDatabase();
  const [a, b] = [await instance(database, 15), await instance(database, 15)];
  const { page: pageA, threadId } = await startThread(a, 'a long answer please');
  const pageB = await openChat(context, `${b.url}/`, { events: ['chat.error'], threadId });
  await waitFor(async () => (await answer(pageB)).length > 500, { message: 'B to follow the run' });
  a.process.kill('SIGKILL');
  await pageA.close();
  // B's lease check ends it (the lease is 2 s): the page shows the run over, failed.
  await waitFor(() => query(database, `SELECT outcome FROM runs WHERE thread_id = '${threadId}'`) === 'interrupted', {
    timeout: 15_000,
    message: 'the run to be interrupted',
  });
  await waitFor(async () => !(await isStreaming(pageB)), { timeout: 5_000, message: 'the run to end on B' });
  const shown = await answer(pageB);
  assert.match(await pageB.evaluate(() => document.querySelector('chat-shell').shadowRoot.textContent), /The answer was interrupted: the server writing it stopped/);
  // Everything the page saw is in the store: a reload shows it whole.
  await pageB.close();
  const again = await openChat(context, `${b.url}/`, { events: ['chat.error'], threadId });
  await waitFor(async () => (await answer(again)).length > 0, { message: 'the stored answer' });
  await waitForIdle(again);
  const stored = await answer(again);
  assert.ok(stored.length >= shown.length, `stored ${stored.length} >= shown ${shown.length}`);
  assert.equal(stored.slice(0, shown.length), shown);
  await clean(again);
});
