// Edit and branch: a user message edited becomes a branch beside the original,
// an answer regenerated becomes a branch beside the old one, "Previous branch" / "Next
// branch" step between them, and the branch shown survives a reload (the server keeps
// it). Against the reference runtime over real HTTP; servers that cannot branch (an ACP
// agent, the official SDK's recorded streams) offer no Edit, and Retry still replaces.
// Any page error fails a test.

import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import {
  axeViolations,
  close,
  finishPage,
  newChatPage,
  openBrowser,
  openChat,
  ROOT,
  sendMessage,
  startRuntime,
  waitFor,
  waitForIdle,
  assistantMessages,
} from './harness.mjs';

let runtime;
let context;

before(async () => {
  runtime = await startRuntime();
  context = await openBrowser({ viewport: { width: 1000, height: 900 } });
});
after(close);

const users = (page) => page.locator('article[data-role="user"]');
const bubbles = (page) => users(page).locator('.cs-msg__bubble').allInnerTexts();
const answerTexts = (page) => assistantMessages(page).locator('.cs-msg__body').allInnerTexts();

/** A conversation of two turns; returns the second answer's text. */
async function twoTurns(page) {
  await sendMessage(page, 'first question');
  await waitForIdle(page);
  await sendMessage(page, 'second question');
  await waitForIdle(page);
  await waitFor(async () => (await assistantMessages(page).count()) === 2, { message: 'two answers' });
  return (await answerTexts(page))[1];
}

/** Opens the edit of the user message `index`: its Edit button, then the textbox. */
async function edit(page, index) {
  const message = users(page).nth(index);
  await message.hover();
  await message.getByRole('button', { name: 'Edit', exact: true }).click();
  const box = message.getByRole('textbox', { name: 'Edit message' });
  await box.waitFor({ timeout: 5_000 });
  return box;
}

test('an edit makes a new branch, both branches stay reachable, and a reload shows the branch chosen', async () => {
  const page = await openChat(context, `${runtime.url}/`);
  const original = await twoTurns(page);
  assert.match(original, /You said: “second question”/);
  const second = users(page).nth(1);
  // A message with one branch has no picker.
  assert.equal(await page.getByRole('group', { name: 'Branches' }).count(), 0);

  // Escape goes back, with nothing sent and the message as it was.
  let box = await edit(page, 1);
  assert.equal(await box.inputValue(), 'second question');
  assert.ok(await box.evaluate((el) => el.getRootNode().activeElement === el), 'the textbox has the focus');
  assert.deepEqual(await axeViolations(page, 'chat-shell'), []);
  await box.fill('never sent');
  await page.keyboard.press('Escape');
  await box.waitFor({ state: 'detached' });
  assert.deepEqual(await bubbles(page), ['first question', 'second question']);
  const editButton = second.getByRole('button', { name: 'Edit', exact: true });
  await waitFor(() => editButton.evaluate((el) => el.getRootNode().activeElement === el), { message: 'focus back on Edit' });

  // Enter sends the edit: it takes the place of the message and of what followed it.
  box = await edit(page, 1);
  await box.fill('second question, reworded');
  await page.keyboard.press('Enter');
  await waitForIdle(page);
  await waitFor(async () => (await bubbles(page)).join('|') === 'first question|second question, reworded', {
    message: 'the edited message shown in place of the original',
  });
  await waitFor(async () => /second question, reworded/.test((await answerTexts(page))[1] ?? ''), { message: 'its answer' });
  assert.equal(await assistantMessages(page).count(), 2);
  const picker = second.getByRole('group', { name: 'Branches' });
  await picker.waitFor({ timeout: 5_000 });
  assert.equal(await picker.locator('[data-part="branch-position"]').innerText(), '2 / 2');
  assert.ok(await picker.getByRole('button', { name: 'Next branch' }).isDisabled());
  assert.deepEqual(await axeViolations(page, 'chat-shell'), []);

  // The export is of the branch shown.
  const shown = await page.evaluate(() => document.querySelector('chat-shell').exportConversation({ format: 'markdown' }));
  assert.ok(shown.includes('second question, reworded') && !shown.includes('\nsecond question\n'), shown);

  // Back to the first branch: the original message and its own answer.
  await picker.getByRole('button', { name: 'Previous branch' }).click();
  await waitFor(async () => (await bubbles(page)).join('|') === 'first question|second question', { message: 'the first branch' });
  await waitFor(async () => (await answerTexts(page))[1] === original, { message: 'the first branch keeps its answer' });
  const back = users(page).nth(1).getByRole('group', { name: 'Branches' });
  assert.equal(await back.locator('[data-part="branch-position"]').innerText(), '1 / 2');
  assert.ok(await back.getByRole('button', { name: 'Previous branch' }).isDisabled());

  // The server keeps the branch shown: a reload opens it.
  const threadId = await page.evaluate(async () =>
    JSON.parse(await document.querySelector('chat-shell').exportConversation({ format: 'json' })).thread.id);
  assert.match(threadId, /^thr_/);
  await page.reload();
  await page.locator('chat-shell').waitFor();
  await page.evaluate((id) => document.querySelector('chat-shell').setThreadId(id), threadId);
  await waitFor(async () => (await bubbles(page)).join('|') === 'first question|second question', { message: 'the same branch after a reload' });
  const reloaded = users(page).nth(1).getByRole('group', { name: 'Branches' });
  await reloaded.waitFor({ timeout: 5_000 });
  assert.equal(await reloaded.locator('[data-part="branch-position"]').innerText(), '1 / 2');
  await reloaded.getByRole('button', { name: 'Next branch' }).click();
  await waitFor(async () => (await bubbles(page)).join('|') === 'first question|second question, reworded', { message: 'the edited branch after a reload' });
  await finishPage(page);
});

test('Retry regenerates as a branch: the old answer stays one step back', async () => {
  const page = await openChat(context, `${runtime.url}/`);
  const original = await twoTurns(page);
  const requests = [];
  page.on('request', (r) => {
    if (r.url().endsWith('/chatkit') && r.method() === 'POST') requests.push(JSON.parse(r.postData()).type);
  });
  const bar = assistantMessages(page).nth(1).locator('[data-part="message-actions"]');
  await bar.getByRole('button', { name: 'Retry' }).click();
  await waitForIdle(page);
  await waitFor(async () => /^Answer 2 to this message\./.test((await answerTexts(page))[1] ?? ''), { message: 'the new answer' });
  assert.ok(requests.includes('threads.regenerate_after_item'), requests.join());
  assert.ok(!requests.includes('threads.retry_after_item'), requests.join());
  const picker = assistantMessages(page).nth(1).getByRole('group', { name: 'Branches' });
  await picker.waitFor({ timeout: 5_000 });
  assert.equal(await picker.locator('[data-part="branch-position"]').innerText(), '2 / 2');
  await picker.getByRole('button', { name: 'Previous branch' }).click();
  await waitFor(async () => (await answerTexts(page))[1] === original, { message: 'the old answer, kept' });
  // An earlier answer can be regenerated too, where the thread branches.
  assert.equal(await assistantMessages(page).nth(0).locator('[data-part="message-actions"]').getByRole('button', { name: 'Retry' }).count(), 1);
  await finishPage(page);
});

test('the first message can be edited, and editing is offered only once the server has the message', async () => {
  const page = await openChat(context, `${runtime.url}/`);
  await sendMessage(page, 'only question');
  await waitForIdle(page);
  const box = await edit(page, 0);
  await box.fill('only question, better');
  await users(page).nth(0).getByRole('button', { name: 'Send' }).click();
  await waitForIdle(page);
  await waitFor(async () => (await bubbles(page)).join('|') === 'only question, better', { message: 'the edit of the first message' });
  const picker = users(page).nth(0).getByRole('group', { name: 'Branches' });
  await picker.waitFor({ timeout: 5_000 });
  assert.equal(await picker.locator('[data-part="branch-position"]').innerText(), '2 / 2');
  await finishPage(page);
});

test('no Edit where the server cannot branch: an ACP agent, and the official SDK (Retry replaces)', async () => {
  const agent = path.join(ROOT, 'target', 'debug', 'chat-shell-acp-agent');
  assert.ok(existsSync(agent), `${agent} is missing: run 'cargo build -p chat-shell-acp-agent' first`);
  const acp = await startRuntime({ extraArgs: ['--acp', `${agent} --pace-ms 5`] });
  let page = await newChatPage(context, `${acp.url}/`);
  await sendMessage(page, 'hello agent');
  await waitForIdle(page);
  await assistantMessages(page).first().waitFor({ timeout: 10_000 });
  assert.equal(await page.getByRole('button', { name: 'Edit', exact: true }).count(), 0);
  assert.equal(await page.getByRole('group', { name: 'Branches' }).count(), 0);
  await finishPage(page);

  // A recorded answer of the official SDK: its thread says nothing of branches.
  page = await newChatPage(context, `${runtime.url}/`);
  const fixture = readFileSync(path.join(ROOT, 'tests', 'fixtures', 'chatkit', 'annotations.sse'));
  const requests = [];
  await page.route('**/chatkit', (route) => {
    requests.push(JSON.parse(route.request().postData()).type);
    return route.fulfill({ status: 200, headers: { 'content-type': 'text/event-stream' }, body: fixture });
  });
  await sendMessage(page, 'fixture annotations');
  await waitForIdle(page, { timeout: 20_000 });
  await assistantMessages(page).first().waitFor({ timeout: 10_000 });
  assert.equal(await users(page).count(), 1);
  assert.equal(await page.getByRole('button', { name: 'Edit', exact: true }).count(), 0);
  await assistantMessages(page).first().locator('[data-part="message-actions"]').getByRole('button', { name: 'Retry' }).click();
  await waitFor(() => requests.includes('threads.retry_after_item'), { message: `the retry request (${requests})` });
  assert.ok(!requests.includes('threads.regenerate_after_item'), requests.join());
  await waitForIdle(page, { timeout: 20_000 });
  await finishPage(page);
});

test('AG-UI: the client keeps the branches, each run is sent the branch shown, and they survive a reload', async () => {
  const page = await openChat(context, `${runtime.url}/ag-ui/`);
  const runs = [];
  page.on('request', (r) => {
    if (r.url().endsWith('/ag-ui') && r.method() === 'POST') runs.push(JSON.parse(r.postData()).messages);
  });
  await twoTurns(page);
  const box = await edit(page, 1);
  await box.fill('second question, reworded');
  await page.keyboard.press('Enter');
  await waitForIdle(page);
  await waitFor(async () => (await bubbles(page)).join('|') === 'first question|second question, reworded', { message: 'the edit shown' });
  // The run was sent the new branch: the first turn, then the edit; not the old question.
  const sent = runs.at(-1).filter((m) => m.role === 'user').map((m) => m.content);
  assert.deepEqual(sent, ['first question', 'second question, reworded']);
  const picker = users(page).nth(1).getByRole('group', { name: 'Branches' });
  await picker.waitFor({ timeout: 5_000 });
  assert.equal(await picker.locator('[data-part="branch-position"]').innerText(), '2 / 2');

  // The first branch comes back whole; the next message goes after it.
  await picker.getByRole('button', { name: 'Previous branch' }).click();
  await waitFor(async () => (await bubbles(page)).join('|') === 'first question|second question', { message: 'the first branch' });
  await waitFor(async () => /“second question”/.test((await answerTexts(page))[1] ?? ''), { message: 'with its answer' });
  await sendMessage(page, 'third question');
  await waitForIdle(page);
  const third = runs.at(-1).filter((m) => m.role === 'user').map((m) => m.content);
  assert.deepEqual(third, ['first question', 'second question', 'third question']);

  // Kept in this browser: reopened from History, the branches are there.
  await page.reload();
  await page.getByRole('button', { name: 'History' }).click();
  await page.getByRole('region', { name: 'History' }).getByRole('button', { name: 'first question', exact: true }).click();
  await waitFor(async () => (await bubbles(page)).join('|') === 'first question|second question|third question', { message: 'the branch after a reload' });
  const kept = users(page).nth(1).getByRole('group', { name: 'Branches' });
  await kept.waitFor({ timeout: 5_000 });
  assert.equal(await kept.locator('[data-part="branch-position"]').innerText(), '1 / 2');
  await kept.getByRole('button', { name: 'Next branch' }).click();
  await waitFor(async () => (await bubbles(page)).join('|') === 'first question|second question, reworded', { message: 'the edit, after a reload' });
  await finishPage(page);
});
