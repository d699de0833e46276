// The reference runtime as an ACP client: `chat-shell-runtime --acp` runs the
// scripted ACP agent (examples/acp-agent, target/debug/chat-shell-acp-agent) and the
// element shows what it does: tool calls of every kind with diffs and a terminal run by
// the runtime, plans and thoughts, permission cards answered in the page ("always"
// remembered), Stop during a long run and during a permission request, honest stop
// reasons, an agent that exits mid-turn, and the workspace confinement.

import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import {
  ROOT,
  close,
  openBrowser,
  sendMessage,
  startRuntime,
  waitFor,
  waitForIdle,
  openToolCalls,
  toolCalls,
  recordEvents,
  createdThreadId,
  openChat,
  finishPage,
  shownText,
  waitForText,
} from './harness.mjs';

const AGENT = process.env.E2E_ACP_AGENT_BIN
  ? path.resolve(ROOT, process.env.E2E_ACP_AGENT_BIN)
  : path.join(ROOT, 'target', 'debug', 'chat-shell-acp-agent');
const WORKSPACE = path.join(ROOT, 'target', `e2e-acp-workspace-${process.pid}`);

let runtime;
let context;

before(async () => {
  if (!existsSync(AGENT)) {
    throw new Error(`${AGENT} is missing: run 'cargo build -p chat-shell-acp-agent' first`);
  }
  rmSync(WORKSPACE, { recursive: true, force: true });
  mkdirSync(WORKSPACE, { recursive: true });
  runtime = await startRuntime({
    extraArgs: ['--acp', `${AGENT} --pace-ms 5`, '--workspace', WORKSPACE, '--allow-terminal'],
  });
  context = await openBrowser();
});
after(async () => {
  await close();
  rmSync(WORKSPACE, { recursive: true, force: true });
});

async function armedOption(page, name) {
  const card = page.locator('[data-part="permission"]').last();
  await card.waitFor({ state: 'visible', timeout: 15_000 });
  const option = card.getByRole('button', { name, exact: true });
  await waitFor(() => option.isEnabled(), { timeout: 5_000, message: `${name} to arm` });
  return option;
}

test('ACP tour: the agent reads, edits with the Diff view following, runs a command and asks permission', async () => {
  // The permitted write must change something to be in the diff (another test writes it too).
  rmSync(path.join(WORKSPACE, 'permission-demo.txt'), { force: true });
  const page = await openChat(context, `${runtime.url}/`);
  await sendMessage(page, 'tour');
  // While it asks, the change so far is in the Diff tab.
  const allow = await armedOption(page, 'Allow once');
  const diffTab = page.getByRole('tab', { name: 'Diff' });
  await diffTab.waitFor({ timeout: 5_000 });
  await diffTab.click();
  const hello = page.getByRole('tabpanel').locator('[data-part="diff-file"][data-path="tour/hello.rs"]');
  await hello.waitFor({ timeout: 5_000 });
  assert.match(await hello.textContent(), /hello, world/);
  await page.getByRole('tab', { name: 'Chat' }).click();
  await allow.click();
  await waitForText(page, 'Done: permission-demo.txt is written.');
  await waitForIdle(page);
  // The permitted write joins the change set.
  await diffTab.click();
  await page.getByRole('tabpanel').locator('[data-part="diff-file"][data-path="permission-demo.txt"]').waitFor({ timeout: 5_000 });
  await page.getByRole('tab', { name: 'Chat' }).click();
  await openToolCalls(page);
  const byTitle = Object.fromEntries((await toolCalls(page)).map((c) => [c.title, c.status]));
  assert.equal(byTitle['Read tour/hello.rs'], 'completed');
  assert.equal(byTitle['Edit tour/hello.rs'], 'completed');
  assert.equal(byTitle['Run `grep -n world tour/hello.rs && wc -l tour/hello.rs`'], 'completed');
  assert.equal(byTitle['Write permission-demo.txt'], 'completed');
  assert.match(await page.locator('[data-part="terminal"]').last().textContent(), /2:\s+println!\("hello, world"\);/);
  await finishPage(page);
});

test('ACP tool calls of every kind: diffs (new file, change, deletion), a failing tool, a terminal run by the runtime', async () => {
  const page = await openChat(context, `${runtime.url}/`);
  await sendMessage(page, 'show me the tools');
  await waitForText(page, 'All tool kinds ran');
  await waitForIdle(page);
  // The finished turn folded its calls: open them, as a reader would, to see their content.
  await openToolCalls(page);
  const calls = await toolCalls(page);
  const kinds = new Set(calls.map((c) => c.kind));
  for (const kind of ['read', 'search', 'edit', 'delete', 'move', 'think', 'fetch', 'switch_mode', 'other', 'execute']) {
    assert.ok(kinds.has(kind), `a ${kind} call in ${JSON.stringify(calls)}`);
  }
  const byTitle = Object.fromEntries(calls.map((c) => [c.title, c]));
  assert.equal(byTitle['Run the linter'].status, 'failed');
  assert.equal(byTitle['Create src/greeting.rs'].status, 'completed');
  assert.equal(byTitle['Run `echo tools done; exit 0`'].status, 'completed');
  assert.ok(await page.locator('[data-part="diff-new-file"]').count() >= 1, 'the new file is shown as created');
  // A tool call's diff of a Rust file is highlighted (the highlighter comes with it).
  const rustDiff = page.locator('[data-part="tool-call"] [data-part="diff"]').filter({
    has: page.locator('[data-part="diff-path"]', { hasText: 'src/greeting.rs' }),
  });
  await rustDiff.locator('[data-part="diff-line"] .cs-tok-keyword').first().waitFor({ timeout: 5_000 });
  const terminal = await page.locator('[data-part="terminal"]').first().textContent();
  assert.match(terminal, /tools done/);
  await finishPage(page);
});

test('ACP terminal output shows live while the command runs; Stop kills it and keeps what it printed', async () => {
  const page = await openChat(context, `${runtime.url}/`);
  await sendMessage(page, 'slow terminal');
  const call = page.locator('[data-part="tool-call"]', { hasText: 'sleep 60' });
  const terminal = call.locator('[data-part="terminal"]');
  // "sleeping" is printed first; the command then sleeps a minute: seeing it means it streamed.
  await waitFor(async () => /sleeping/.test((await terminal.textContent().catch(() => '')) ?? ''), {
    timeout: 15_000, message: 'the live terminal output',
  });
  assert.equal(await call.getAttribute('data-status'), 'in_progress');
  assert.equal(await terminal.locator('[data-part="terminal-exit"]').count(), 0, 'no exit while it runs');
  await page.getByRole('button', { name: 'Stop', exact: true }).click();
  await waitForIdle(page);
  await openToolCalls(page);
  assert.match(await terminal.textContent(), /sleeping/);
  assert.doesNotMatch(await terminal.textContent(), /woke up/);
  await finishPage(page);
});

test('ACP attachments: files sent from the composer reach the agent as ACP content it can read', async () => {
  const page = await openChat(context, `${runtime.url}/`);
  await page.locator('input[type="file"]').setInputFiles([
    { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('from the browser\nline two\n') },
  ]);
  await waitFor(async () => (await page.locator('[data-part="attachment"][data-status="ready"]').count()) === 1, {
    message: 'the file uploaded',
  });
  await sendMessage(page, 'read my file');
  await waitForText(page, 'I received an embedded text (text/plain, 26 characters, starting “from the browser”)');
  await waitForIdle(page);
  await finishPage(page);
});

test('ACP plan and thoughts: the plan updates to done, thoughts are shown apart from the answer', async () => {
  const page = await openChat(context, `${runtime.url}/`);
  await sendMessage(page, 'make a plan');
  await waitForText(page, 'The plan is done');
  await waitForIdle(page);
  const plan = page.locator('[data-part="plan"]');
  assert.equal(await plan.count(), 1);
  assert.match(await plan.textContent(), /Read the code[\s\S]*Make the change[\s\S]*Run the tests/);
  assert.ok(await page.locator('[data-part="thought"]').count() >= 1, 'thoughts are shown');
  await finishPage(page);
});

test('ACP permission: Stop while the agent asks answers it cancelled; the thread goes on', async () => {
  const page = await openChat(context, `${runtime.url}/`);
  await sendMessage(page, 'permission');
  await armedOption(page, 'Allow once');
  await page.getByRole('button', { name: 'Stop', exact: true }).click();
  await waitForIdle(page);
  await waitFor(async () => (await toolCalls(page)).at(-1)?.status === 'cancelled', {
    timeout: 5_000,
    message: 'the call to show cancelled',
  });
  await sendMessage(page, 'hello after stop');
  await waitForText(page, 'You said: “hello after stop”');
  await waitForIdle(page);
  await finishPage(page);
});

test('ACP permission: all four kinds offered, "Always allow" runs the call and is remembered for the session', async () => {
  const page = await openChat(context, `${runtime.url}/`);
  await sendMessage(page, 'permission');
  for (const name of ['Allow once', 'Always allow', 'Reject', 'Always reject']) {
    await armedOption(page, name);
  }
  await (await armedOption(page, 'Always allow')).click();
  const decision = page.locator('[data-part="permission-decision"]');
  await decision.waitFor({ state: 'attached', timeout: 10_000 });
  assert.equal(await decision.textContent(), 'Decision: Always allow');
  await waitForText(page, 'Done: permission-demo.txt is written.');
  await waitForIdle(page);
  assert.equal((await toolCalls(page)).at(-1).status, 'completed');
  assert.equal(readFileSync(path.join(WORKSPACE, 'permission-demo.txt'), 'utf8'), 'written after asking\n');

  await sendMessage(page, 'permission again');
  await waitForText(page, 'not asking again');
  await waitForIdle(page);
  assert.equal(await page.locator('[data-part="permission-option"]:not([disabled])').count(), 0, 'no second question');
  assert.equal((await toolCalls(page)).filter((c) => c.status === 'awaiting_permission').length, 0);
  await finishPage(page);
});

test('ACP Stop during a long run: the answer stops, what was said stays, the next message is answered', async () => {
  const page = await openChat(context, `${runtime.url}/`);
  await sendMessage(page, 'a long run');
  await waitForText(page, 'step 2');
  await page.getByRole('button', { name: 'Stop', exact: true }).click();
  await waitForIdle(page);
  const before = await shownText(page);
  assert.ok(!before.includes('step 60'), 'it stopped early');
  await sendMessage(page, 'still there?');
  await waitForText(page, 'You said: “still there?”');
  await waitForIdle(page);
  await finishPage(page);
});

test('ACP stop reasons say so, and an agent that exits mid-turn is an error after which the thread goes on', async () => {
  const page = await openChat(context, `${runtime.url}/`);
  await recordEvents(page);
  await sendMessage(page, 'max tokens');
  await waitForText(page, 'max_tokens');
  await waitForIdle(page);
  await sendMessage(page, 'refuse');
  await waitForText(page, '(refusal)');
  await waitForIdle(page);
  await sendMessage(page, 'crash');
  await waitForText(page, 'The agent stopped mid-turn');
  await waitForIdle(page);
  assert.match(await shownText(page), /exit status: 3/);
  await sendMessage(page, 'are you back');
  await waitForText(page, 'You said: “are you back”');
  await waitForIdle(page);
  const reasons = async (p) =>
    p.locator('chat-shell').locator('[data-part="stop-reason"]').evaluateAll((els) => els.map((e) => e.dataset.reason));
  assert.deepEqual(await reasons(page), ['max_tokens', 'refusal', 'error']);
  // Kept with the thread: a reload says how each turn ended.
  const threadId = await createdThreadId(page);
  const again = await openChat(context, `${runtime.url}/`);
  await again.evaluate((id) => document.querySelector('chat-shell').setThreadId(id), threadId);
  await waitForText(again, 'You said: “are you back”');
  assert.deepEqual(await reasons(again), ['max_tokens', 'refusal', 'error']);
  const notes = await again.locator('chat-shell').locator('[data-part="stop-reason"]').allTextContents();
  assert.match(notes[0], /token limit \(max_tokens\)/);
  assert.match(notes[2], /The agent stopped mid-turn.*exit status: 3/);
  await finishPage(again);
  await finishPage(page);
});

test('ACP workspace: the agent writes and reads inside it, its attempts to leave are refused and shown failed', async () => {
  const page = await openChat(context, `${runtime.url}/`);
  await sendMessage(page, 'files');
  await waitForText(page, 'every attempt to leave it was refused');
  await waitForIdle(page);
  const byTitle = Object.fromEntries((await toolCalls(page)).map((c) => [c.title, c.status]));
  assert.equal(byTitle['Write chat-shell-notes.txt'], 'completed');
  assert.equal(byTitle['Read chat-shell-notes.txt'], 'completed');
  assert.equal(byTitle['Read ../outside-the-workspace.txt'], 'failed');
  assert.equal(byTitle['Write /tmp/chat-shell-escape.txt'], 'failed');
  await openToolCalls(page);
  assert.match(await shownText(page), /outside the workspace/);
  // Paths inside the workspace read relative to it, the full path in the tooltip; one
  // outside it reads as given.
  const chips = await page
    .locator('chat-shell')
    .locator('[data-part="tool-call-location"]')
    .evaluateAll((els) => els.map((e) => ({ text: e.textContent, title: e.getAttribute('title') })));
  const notes = chips.find((c) => c.text === 'chat-shell-notes.txt');
  assert.ok(notes, `a relative location in ${JSON.stringify(chips)}`);
  assert.equal(notes.title, path.join(realpathSync(WORKSPACE), 'chat-shell-notes.txt'));
  assert.ok(chips.some((c) => c.text === '../outside-the-workspace.txt'), JSON.stringify(chips));
  assert.ok(chips.some((c) => c.text === '/tmp/chat-shell-escape.txt' && c.title === null), JSON.stringify(chips));
  assert.ok(!chips.some((c) => c.text.includes(realpathSync(WORKSPACE))), `no workspace path on screen: ${JSON.stringify(chips)}`);
  assert.ok(existsSync(path.join(WORKSPACE, 'chat-shell-notes.txt')));
  // The write is in the thread's Diff view, pushed over its channel: a new file.
  const diffTab = page.getByRole('tab', { name: 'Diff' });
  await diffTab.waitFor({ timeout: 10_000 });
  await diffTab.click();
  const file = page.getByRole('tabpanel').locator('[data-part="diff-file"][data-path="chat-shell-notes.txt"]');
  await file.waitFor({ timeout: 5_000 });
  assert.equal(await file.getAttribute('data-status'), 'A');
  assert.match(await file.textContent(), /Notes written by the scripted agent through fs\/write_text_file\./);
  assert.equal(await page.getByRole('tabpanel').locator('[data-part="diff-file"]').count(), 1, 'the refused write is not in it');
  await page.getByRole('tab', { name: 'Chat' }).click();
  await finishPage(page);
});
