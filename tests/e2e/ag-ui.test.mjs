// protocol="ag-ui" through a real browser, against a server built on the official AG-UI
// SDK (@ag-ui/core + @ag-ui/encoder, tests/e2e/agui/sdk-server.mjs), a real framework's own
// AG-UI integration (Pydantic AI with a scripted model, tests/e2e/agui/framework/server.py)
// and the reference runtime's demo page (/ag-ui/). What each run sent is read back from the
// servers; any page error fails a test.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startPageServer } from './agui/page-server.mjs';
import { startFrameworkServer, startSdkServer } from './agui/servers.mjs';
import {
  DIST, close, openBrowser, sendMessage, startRuntime, waitFor, waitForIdle, openChat, finishPage,
  responseEnded, frames, waitForComposer,
} from './harness.mjs';

let sdk;
let framework;
let pages;
let runtime;
let context;

before(async () => {
  [sdk, framework, pages, runtime] = await Promise.all([
    startSdkServer(),
    startFrameworkServer(),
    startPageServer(DIST),
    startRuntime({ paceMs: 2 }),
  ]);
  context = await openBrowser();
});
after(async () => {
  await Promise.all([sdk?.close(), framework?.close(), pages?.close()]);
  await close();
});

/** A page whose element talks to `server`, the server's record of requests emptied. */
async function openOn(server, browser = context) {
  await server.clearRequests();
  return openChat(browser, `${pages.url}/page?endpoint=${encodeURIComponent(server.endpoint)}`);
}

const shell = (page) => page.locator('chat-shell');
const answers = (page) => shell(page).locator('article[data-role="assistant"]').allTextContents();

async function lastAnswer(page) {
  return (await answers(page)).at(-1) ?? '';
}

async function waitForAnswer(page, pattern, timeout = 10_000) {
  await waitFor(async () => pattern.test((await answers(page)).join('\n')), {
    timeout,
    message: `an answer matching ${pattern}`,
  });
}

test('text streams in, and the next run carries the whole conversation with one thread id', async () => {
  const page = await openOn(sdk);
  await sendMessage(page, 'hello there');
  await waitForAnswer(page, /You said: “hello there”\. I have 1 messages\./);
  await waitForIdle(page);
  await sendMessage(page, 'and again');
  await waitForAnswer(page, /You said: “and again”\. I have 3 messages\./);
  await waitForIdle(page);
  const runs = await sdk.requests();
  assert.equal(runs.length, 2);
  assert.equal(runs[0].threadId, runs[1].threadId, 'one thread');
  assert.notEqual(runs[0].runId, runs[1].runId, 'a run id per run');
  assert.deepEqual(runs[1].messages.map((m) => m.role), ['user', 'assistant', 'user']);
  assert.equal(runs[1].messages[1].content, 'You said: “hello there”. I have 1 messages.');
  assert.equal(runs[1].messages[2].content, 'and again');
  assert.equal(new Set(runs[1].messages.map((m) => m.id)).size, 3, 'every message has its own id');
  assert.deepEqual(runs[0].tools.map((t) => t.name), ['get_weather'], 'the declared tool goes with every run');
  assert.deepEqual(runs[0].tools[0].parameters.required, ['city']);
  assert.equal(await shell(page).locator('article[data-role="user"]').count(), 2);
  await finishPage(page, { checkXss: true });
});

test('a backend tool shows its call and result; an empty message before it shows nothing', async () => {
  const page = await openOn(sdk);
  await sendMessage(page, 'use a tool');
  await waitForAnswer(page, /Found 3 results for release notes\./);
  await waitForIdle(page);
  const call = shell(page).locator('[data-part="tool-call"]');
  assert.equal(await call.count(), 1);
  assert.equal(await call.getAttribute('data-status'), 'completed');
  assert.match(await call.textContent(), /search_docs/);
  const all = await answers(page);
  assert.equal(all.length, 1, `no empty bubble: ${JSON.stringify(all)}`);
  assert.match(all[0], /^Found 3 results for release notes\./);
  await finishPage(page, { checkXss: true });
});

test('a declared client tool runs in the page and a new run answers with its result', async () => {
  const page = await openOn(sdk);
  await sendMessage(page, 'what is the weather?');
  await waitForAnswer(page, /The weather tool said: \{.*\}/);
  await waitForIdle(page);
  const said = (await lastAnswer(page)).match(/The weather tool said: (\{.*?\})/)[1];
  assert.deepEqual(JSON.parse(said), { city: 'Paris', sky: 'clear', celsius: 21 }, 'the handler\'s result');
  assert.deepEqual(await page.evaluate(() => window.__weatherCalls), [{ city: 'Paris' }]);
  const call = shell(page).locator('[data-part="tool-call"]');
  assert.equal(await call.getAttribute('data-status'), 'done');
  const runs = await sdk.requests();
  assert.equal(runs.length, 2, 'the page started the second run by itself');
  const sent = runs[1].messages;
  assert.deepEqual(sent.map((m) => m.role), ['user', 'assistant', 'tool']);
  const callId = sent[1].toolCalls[0].id;
  assert.equal(sent[1].toolCalls[0].function.name, 'get_weather');
  assert.deepEqual(JSON.parse(sent[1].toolCalls[0].function.arguments), { city: 'Paris' });
  assert.equal(sent[2].toolCallId, callId);
  // A handler that throws sends its error as the result.
  await page.evaluate(() => { window.__weatherFails = true; });
  await sendMessage(page, 'weather again');
  await waitForAnswer(page, /The weather tool failed: .*the weather service is down/);
  await waitForIdle(page);
  assert.equal(await shell(page).locator('[data-part="tool-call"]').last().getAttribute('data-status'), 'failed');
  await finishPage(page, { checkXss: true });
});

test('reasoning shows apart from the answer, in the 1.0 events and the older THINKING_* ones', async () => {
  const page = await openOn(sdk);
  await sendMessage(page, 'think first');
  await waitForAnswer(page, /Here is the answer after thinking\./);
  await waitForIdle(page);
  await sendMessage(page, 'ponder it');
  await waitForAnswer(page, /Answer after pondering\./);
  await waitForIdle(page);
  const thoughts = await shell(page).locator('[data-part="thought"]').allTextContents();
  assert.equal(thoughts.length, 2);
  assert.match(thoughts[0], /Let me think about the question\./);
  for (const answer of await answers(page)) assert.doesNotMatch(answer, /Let me think/);
  // The encrypted value went back, unread, with its reasoning.
  const last = (await sdk.requests()).at(-1).messages;
  const reasoning = last.find((m) => m.role === 'reasoning');
  assert.equal(reasoning?.encryptedValue, 'enc-abc123');
  assert.doesNotMatch(await shell(page).evaluate((el) => el.shadowRoot.textContent), /enc-abc123/);
  await finishPage(page, { checkXss: true });
});

test('state: snapshots and patches are kept, seen by the host, and sent back with the next run', async () => {
  const page = await openOn(sdk);
  await sendMessage(page, 'state please');
  await waitForAnswer(page, /Counter was 0, now 2\./);
  await waitForIdle(page);
  assert.deepEqual(await shell(page).evaluate((el) => el.agentState), { counter: 2, items: ['a', 'b'] });
  const states = await page.evaluate(() => window.__states);
  assert.deepEqual(states.at(-1), { counter: 2, items: ['a', 'b'] });
  await sendMessage(page, 'state again');
  await waitForAnswer(page, /Counter was 2, now 4\./);
  await waitForIdle(page);
  assert.deepEqual((await sdk.requests())[1].state, { counter: 2, items: ['a', 'b'] });
  await finishPage(page, { checkXss: true });
});

test('an approval interrupt is answered and the run resumes; a form interrupt too', async () => {
  const page = await openOn(sdk);
  await sendMessage(page, 'approve the cleanup');
  const approve = shell(page).getByRole('button', { name: 'Approve' });
  await approve.waitFor({ timeout: 10_000 });
  const asking = shell(page).locator('[data-part="tool-call"]', { has: page.locator('[data-part="permission"]') });
  assert.match(await asking.textContent(), /Delete 3 files from the workspace\?/);
  await waitFor(() => approve.isEnabled(), { message: 'Approve to arm' });
  await approve.click();
  await waitForAnswer(page, /Approved: deleting 3 files\./);
  await waitForIdle(page);
  const resumed = (await sdk.requests()).at(-1);
  assert.deepEqual(resumed.resume, [{ interruptId: 'int-approve', status: 'resolved', payload: { approved: true } }]);
  assert.equal(await shell(page).getByRole('button', { name: 'Approve' }).count(), 0, 'the card is answered');
  // A form built from the interrupt's response schema.
  await sendMessage(page, 'book a room');
  const city = shell(page).getByRole('textbox', { name: /City/ });
  await city.waitFor({ timeout: 10_000 });
  await city.fill('Lyon');
  await shell(page).locator('[data-part="elicitation"]').getByRole('button', { name: /Submit|Send|Accept/ }).click();
  await waitForAnswer(page, /Booked 1 nights in Lyon\./);
  await waitForIdle(page);
  const booked = (await sdk.requests()).at(-1).resume[0];
  assert.equal(booked.interruptId, 'int-form');
  assert.equal(booked.payload.city, 'Lyon');
  await finishPage(page, { checkXss: true });
});

test('an expired interrupt says so and is not sent', async () => {
  const page = await openOn(sdk);
  await sendMessage(page, 'expired request');
  const approve = shell(page).getByRole('button', { name: 'Approve' });
  await approve.waitFor({ timeout: 10_000 });
  await waitFor(() => approve.isEnabled(), { message: 'Approve to arm' });
  const before = (await sdk.requests()).length;
  await approve.click();
  await shell(page).getByText(/This request expired/).waitFor({ timeout: 5_000 });
  assert.equal((await sdk.requests()).length, before, 'nothing went to the agent');
  await finishPage(page, { checkXss: true });
});

test('RUN_ERROR shows its message with one Retry, which runs the same messages again', async () => {
  const page = await openOn(sdk);
  await sendMessage(page, 'fail now');
  const error = shell(page).locator('[data-part="run-error"]');
  await error.waitFor({ timeout: 10_000 });
  assert.match(await error.textContent(), /The model is overloaded/);
  await waitForIdle(page);
  const retry = shell(page).getByRole('button', { name: 'Retry', exact: true });
  assert.equal(await retry.count(), 1, 'one Retry');
  assert.equal(await shell(page).locator('article[data-role="user"]').count(), 1, 'the message stays');
  await retry.click();
  await waitFor(async () => (await sdk.requests()).length === 2, { message: 'the retried run' });
  await error.waitFor({ timeout: 10_000 });
  await waitForIdle(page);
  const [first, second] = await sdk.requests();
  assert.deepEqual(second.messages.map((m) => [m.role, m.content]), first.messages.map((m) => [m.role, m.content]));
  assert.notEqual(first.runId, second.runId);
  await finishPage(page, { checkXss: true });
});

test('Stop aborts the request; what came stays, and the next message is answered', async () => {
  const page = await openOn(sdk);
  const run = page.waitForRequest((r) => r.method() === 'POST' && r.url().startsWith(sdk.endpoint));
  await sendMessage(page, 'slow please');
  await waitForAnswer(page, /word 3 /);
  await shell(page).getByRole('button', { name: 'Stop', exact: true }).click();
  await waitForIdle(page);
  const stopped = await lastAnswer(page);
  assert.doesNotMatch(stopped, /word 120/);
  // The request is aborted, and what it had brought is shown in the frames after.
  await responseEnded(await run);
  await frames(page);
  assert.equal(await lastAnswer(page), stopped, 'nothing more arrives');
  await sendMessage(page, 'are you there');
  await waitForAnswer(page, /You said: “are you there”/);
  await waitForIdle(page);
  await finishPage(page, { checkXss: true });
});

test('ordering: two runs in one stream both show; an event after the end is a protocol error shown as one', async () => {
  const page = await openOn(sdk);
  await sendMessage(page, 'twice');
  await waitForAnswer(page, /Second run\./);
  await waitForIdle(page);
  assert.match((await answers(page)).join(' '), /First run\.[\s\S]*Second run\./);
  await sendMessage(page, 'disorder');
  const error = shell(page).locator('[data-part="run-error"][data-code="ag_ui.order"]');
  await error.waitFor({ timeout: 10_000 });
  await waitForIdle(page);
  assert.doesNotMatch((await answers(page)).join(' '), /After the end/);
  await finishPage(page, { checkXss: true });
});

test('chunks, snapshots, activities, custom and raw events', async () => {
  const page = await openOn(sdk);
  await sendMessage(page, 'chunk');
  await waitForIdle(page);
  assert.ok((await shell(page).locator('[data-part="tool-call"]').count()) >= 1);
  await sendMessage(page, 'custom');
  await waitForAnswer(page, /Custom events sent\./);
  await waitForIdle(page);
  const custom = await page.evaluate(() => window.__custom);
  assert.deepEqual(custom[0], { name: 'confetti', value: { count: 3 } });
  assert.ok(custom.some((c) => c.raw?.source === 'test'));
  await sendMessage(page, 'activity');
  await waitForAnswer(page, /Activity sent\./);
  await waitForIdle(page);
  assert.match(await shell(page).evaluate((el) => el.shadowRoot.textContent), /three/, 'the patched plan');
  await sendMessage(page, 'snapshot');
  await waitFor(async () => (await answers(page)).join(' ').includes('Earlier answer from the snapshot'), {
    message: 'the snapshot shown',
  });
  await waitForIdle(page);
  assert.deepEqual(await shell(page).locator('article[data-role="user"] .cs-msg__bubble').allTextContents(), ['Earlier question']);
  await finishPage(page, { checkXss: true });
});

test('hostile text in every field stays text', async () => {
  const page = await openOn(sdk);
  await sendMessage(page, 'hostile');
  await waitForIdle(page);
  const injected = await shell(page).evaluate((el) => el.shadowRoot.querySelectorAll('img[src="x"], script, [onerror]').length);
  assert.equal(injected, 0);
  const text = await shell(page).evaluate((el) => el.shadowRoot.textContent);
  assert.match(text, /<img src=x onerror=/, 'shown as text');
  const links = await shell(page).evaluate((el) => [...el.shadowRoot.querySelectorAll('a')].map((a) => a.getAttribute('href') ?? ''));
  assert.ok(links.every((href) => !/^javascript:/i.test(href)), JSON.stringify(links));
  await finishPage(page, { checkXss: true });
});

test('threads are kept in the browser across a reload: History lists, opens, renames and deletes them', async () => {
  // A browser profile of its own: only this test's threads are kept in it.
  const own = await openBrowser();
  const page = await openOn(sdk, own);
  await sendMessage(page, 'remember me');
  await waitForAnswer(page, /You said: “remember me”/);
  await waitForIdle(page);
  await sendMessage(page, 'state');
  await waitForAnswer(page, /Counter was 0, now 2\./);
  await waitForIdle(page);
  const threadId = (await sdk.requests())[0].threadId;
  // A new chat is a new thread.
  await shell(page).getByRole('button', { name: 'New chat', exact: true }).click();
  await sendMessage(page, 'another topic');
  await waitForAnswer(page, /You said: “another topic”/);
  await waitForIdle(page);
  const other = (await sdk.requests()).at(-1).threadId;
  assert.notEqual(other, threadId, 'New chat starts a new thread id');
  await page.reload({ waitUntil: 'load' });
  await waitForComposer(page);
  await shell(page).getByRole('button', { name: 'History', exact: true }).click();
  const history = page.getByRole('region', { name: 'History' });
  const names = history.locator('[data-part="history-open"]');
  await waitFor(async () => (await names.count()) === 2, { message: 'two kept threads' });
  assert.deepEqual(await names.allTextContents(), ['another topic', 'remember me'], 'newest first');
  await names.filter({ hasText: 'remember me' }).click();
  await waitForAnswer(page, /Counter was 0, now 2\./);
  assert.deepEqual(await shell(page).locator('article[data-role="user"] .cs-msg__bubble').allTextContents(), ['remember me', 'state']);
  assert.deepEqual(await shell(page).evaluate((el) => el.agentState), { counter: 2, items: ['a', 'b'] }, 'the state came back');
  await sdk.clearRequests();
  await sendMessage(page, 'and now');
  await waitForAnswer(page, /You said: “and now”\. I have 5 messages\./);
  await waitForIdle(page);
  const resumed = (await sdk.requests())[0];
  assert.equal(resumed.threadId, threadId, 'the same thread goes on');
  assert.deepEqual(resumed.state, { counter: 2, items: ['a', 'b'] });
  // Rename one; delete another: both hold after another reload.
  await shell(page).getByRole('button', { name: 'History', exact: true }).click();
  await names.first().waitFor();
  await history.getByRole('button', { name: 'Rename remember me' }).click();
  const field = history.getByRole('textbox', { name: 'Conversation title' });
  await field.fill('Remembered');
  await field.press('Enter');
  await history.getByRole('button', { name: 'Remembered', exact: true }).waitFor({ timeout: 5_000 });
  const row = history.getByRole('listitem').filter({ hasText: 'another topic' });
  await row.hover();
  await row.getByRole('button', { name: /Delete/ }).click();
  const confirm = history.getByRole('button', { name: /^Delete$/ });
  if (await confirm.count()) await confirm.click();
  await waitFor(async () => (await names.count()) === 1, { message: 'the row gone' });
  await page.reload({ waitUntil: 'load' });
  await waitForComposer(page);
  await shell(page).getByRole('button', { name: 'History', exact: true }).click();
  await waitFor(async () => (await names.count()) === 1, { message: 'one kept thread' });
  assert.deepEqual(await names.allTextContents(), ['Remembered'], 'the new title kept');
  await finishPage(page, { checkXss: true });
  await own.close();
});

test('a host that keeps the threads gives History its list, and an opened thread goes on where it was', async () => {
  const page = await openOn(sdk);
  await page.evaluate(() => {
    window.__loads = [];
    document.querySelector('chat-shell').setOptions({
      threads: {
        list: async () => [{ id: 'host-1', title: 'From the host', createdAt: '2026-11-01T10:00:00Z' }],
        load: async (id) => {
          window.__loads.push(id);
          return {
            title: 'From the host',
            messages: [
              { id: 'u1', role: 'user', content: 'Hi from before' },
              { id: 'a1', role: 'assistant', content: 'Hello again' },
            ],
            state: { counter: 7 },
          };
        },
      },
    });
  });
  await assert.rejects(
    page.evaluate(() => document.querySelector('chat-shell').setOptions({ threads: { list: 1 } })),
    /option `threads` must be/,
  );
  await shell(page).getByRole('button', { name: 'History', exact: true }).click();
  const names = page.getByRole('region', { name: 'History' }).locator('[data-part="history-open"]');
  await waitFor(async () => (await names.count()) === 1, { message: 'the host\'s thread listed' });
  await names.first().click();
  await waitForAnswer(page, /Hello again/);
  assert.deepEqual(await page.evaluate(() => window.__loads), ['host-1']);
  assert.deepEqual(await shell(page).evaluate((el) => el.agentState), { counter: 7 });
  await sendMessage(page, 'state now');
  await waitForAnswer(page, /Counter was 7, now 9\./);
  await waitForIdle(page);
  const run = (await sdk.requests()).at(-1);
  assert.equal(run.threadId, 'host-1');
  assert.deepEqual(run.messages.slice(0, 2).map((m) => [m.role, m.content]), [['user', 'Hi from before'], ['assistant', 'Hello again']]);
  await finishPage(page, { checkXss: true });
});

test('a file goes with the message as AG-UI input content, read in the page', async () => {
  const page = await openOn(sdk);
  const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
  await shell(page).locator('input[type="file"]').setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: png });
  await sendMessage(page, 'see the picture');
  await waitForAnswer(page, /You said/);
  await waitForIdle(page);
  const content = (await sdk.requests())[0].messages[0].content;
  assert.deepEqual(content[0], { type: 'text', text: 'see the picture' });
  assert.equal(content[1].type, 'image');
  assert.equal(content[1].source.type, 'data');
  assert.equal(content[1].source.mimeType, 'image/png');
  assert.deepEqual(Buffer.from(content[1].source.value, 'base64'), png, 'the bytes as they were');
  assert.equal(await shell(page).locator('article[data-role="user"] img').count(), 1, 'shown with the message');
  await finishPage(page, { checkXss: true });
});

test('a real framework (Pydantic AI): text, a backend tool, a client tool round trip, an approval', async () => {
  const page = await openOn(framework);
  await sendMessage(page, 'hi framework');
  await waitForAnswer(page, /You said: “hi framework”\. I have 1 messages\./);
  await waitForIdle(page);
  await sendMessage(page, 'use a tool');
  await waitForAnswer(page, /Found 3 results for release notes\./);
  await waitForIdle(page);
  await sendMessage(page, 'weather in Paris');
  await waitForAnswer(page, /The weather tool said: /);
  await waitForIdle(page);
  await sendMessage(page, 'approve deleting');
  const approve = shell(page).getByRole('button', { name: 'Approve' });
  await approve.waitFor({ timeout: 10_000 });
  await waitFor(() => approve.isEnabled(), { message: 'Approve to arm' });
  await approve.click();
  await waitForAnswer(page, /Approved: deleting 3 files\./);
  await waitForIdle(page);
  const runs = await framework.requests();
  assert.ok(runs.length >= 6, `runs: ${runs.length}`);
  assert.equal(new Set(runs.map((r) => r.threadId)).size, 1);
  await finishPage(page, { checkXss: true });
});

test('the demo page: the runtime\'s /ag-ui agent with the page\'s weather tool and the state shown', async () => {
  const page = await openChat(context, `${runtime.url}/ag-ui/`);
  await sendMessage(page, 'weather?');
  await waitForAnswer(page, /The weather tool said: /);
  await waitForIdle(page);
  await sendMessage(page, 'state');
  await waitForAnswer(page, /Counter was 0, now 2\./);
  await waitForIdle(page);
  assert.equal(await page.locator('#agent-state').textContent(), '{"counter":2,"items":["a","b"]}');
  await finishPage(page, { checkXss: true });
});
