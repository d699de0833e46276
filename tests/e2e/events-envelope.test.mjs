// protocol="events", the SSE event envelope: markdown content, tool results that succeed,
// fail and say nothing, the budget banner (an alert outside the transcript), inline errors,
// agents and orchestration, loader hints, keepalives during a long tool, a cut mid-tool,
// and the composer going on after each. Whatever the server says stays inert text.
//
// Two sources: recorded SSE served with page.route (the first test), and the reference
// runtime's POST /events over real HTTP (the others; /envelope/ is its demo page).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import {
  ROOT,
  XSS,
  assertInert,
  axeViolations,
  close,
  dropNetworkLog,
  finishPage,
  openBrowser,
  openChat,
  recorded,
  sendMessage,
  startRecorder,
  startRuntime,
  toolCallStatuses,
  toolCalls,
  waitFor,
  waitForIdle,
} from './harness.mjs';

let runtime;
let context;

before(async () => {
  runtime = await startRuntime({ paceMs: 2 });
  context = await openBrowser();
});
after(close);

/** Pages pointed at POST /events with protocol="events"; the request bodies are kept. */
const EVENTS = { events: true, attributes: { protocol: 'events', endpoint: '/events' }, bodies: '/events' };

/** Sends `text` and waits for its POST /events request. */
async function sendToEvents(page, text) {
  const before = page.bodies.length;
  await sendMessage(page, text);
  await waitFor(() => page.bodies.length > before, { message: `the events request for "${text}"` });
}

test('protocol="events": markdown content, tool results, budget banner, inline error, agents; the composer stays usable', async () => {
  const page = await openChat(context, `${runtime.url}/`, { dialogs: true });
  await page.evaluate(() => document.querySelector('chat-shell').setAttribute('protocol', 'events'));
  const fixture = readFileSync(path.join(ROOT, 'tests/fixtures/events/run.sse'), 'utf8');
  const requests = [];
  await page.route('**/chatkit', (route) => {
    requests.push(route.request().postDataJSON());
    const body = requests.length === 1
      ? fixture
      : [
          { type: 'agent', payload: { name: `Agent ${XSS}`, id: 'ag_x' } },
          { type: 'content', content: `Second ${XSS} answer` },
          { type: 'tool_call', payload: { id: 'x1', name: `tool ${XSS}`, arguments: { html: XSS } } },
          { type: 'error', message: `bad ${XSS}`, code: 'x<b>y</b>' },
          { type: 'done' },
        ].map((e) => `event: message\ndata: ${JSON.stringify(e)}\n\n`).join('');
    return route.fulfill({ status: 200, contentType: 'text/event-stream', body });
  });
  await sendMessage(page, 'who owns the license?');
  await waitFor(() => requests.length === 1, { message: 'the events request' });
  assert.deepEqual(requests[0].messages, [{ role: 'user', content: 'who owns the license?' }]);
  await page.locator('[data-part="budget"][role="alert"]').waitFor({ timeout: 8_000 });
  await waitForIdle(page);

  const seen = await page.evaluate(() => {
    const root = document.querySelector('chat-shell').shadowRoot;
    const articles = [...root.querySelectorAll('article[data-role="assistant"]')];
    return {
      agents: articles.map((a) => a.dataset.agent),
      strong: articles.map((a) => a.querySelector('.cs-msg__body strong')?.textContent).filter(Boolean),
      statuses: [...root.querySelectorAll('[data-part="tool-call"]')].map((t) => t.dataset.status),
      budget: root.querySelector('[data-part="budget"]').textContent,
      budgetInTranscript: !!root.querySelector('.cs-items [data-part="budget"]'),
      error: [...root.querySelectorAll('.cs-items [data-part="run-error"]')].map((e) => [e.dataset.code, e.textContent]),
      orchestration: root.querySelector('[data-part="orchestration"]')?.textContent ?? '',
    };
  });
  assert.deepEqual(seen.agents, ['ag_1', 'ag_2']);
  assert.deepEqual(seen.strong, ['MIT'], 'content renders as markdown');
  assert.deepEqual(seen.statuses, ['completed', 'failed', 'unknown']);
  assert.equal(seen.budget, 'Tool-call budget reached (3 of 3)');
  assert.equal(seen.budgetInTranscript, false, 'the banner is outside the transcript');
  assert.equal(seen.error.length, 1);
  assert.equal(seen.error[0][0], 'tool_degraded');
  assert.match(seen.error[0][1], /Error tool_degraded.*Search backend is slow/);
  assert.match(seen.orchestration, /Find the license/);

  // The composer still works after the budget stop; hostile strings stay text.
  await sendMessage(page, 'again');
  await waitFor(() => requests.length === 2, { message: 'the second events request' });
  await waitForIdle(page);
  assert.deepEqual(requests[1].messages.map((m) => m.role), ['user', 'assistant', 'assistant', 'user']);
  const hostile = await page.evaluate(() => {
    const root = document.querySelector('chat-shell').shadowRoot;
    const articles = [...root.querySelectorAll('article[data-role="assistant"]')];
    return {
      agent: articles.at(-1).querySelector('[data-part="agent-name"]').textContent,
      title: [...root.querySelectorAll('[data-part="tool-call-title"]')].at(-1).textContent,
      code: [...root.querySelectorAll('[data-part="run-error"]')].at(-1).dataset.code,
    };
  });
  assert.equal(hostile.agent, `Agent ${XSS}`);
  assert.equal(hostile.title, `tool ${XSS}`);
  assert.equal(hostile.code, 'x<b>y</b>');
  await assertInert(page);
  await page.unroute('**/chatkit');
  await finishPage(page);
});

test('events: tool results succeed, fail and say nothing; the budget banner is an alert with the message and the composer still works', async () => {
  const page = await openChat(context, `${runtime.url}/`, EVENTS);
  await sendToEvents(page, 'tool results please');
  await waitForIdle(page);
  const calls = await toolCalls(page);
  assert.deepEqual(calls.map((c) => [c.title, c.status, c.statusText]), [
    ['read_file', 'completed', 'Completed'],
    ['search', 'failed', 'Failed'],
    ['fetch', 'unknown', 'Status unknown'],
  ]);
  assert.match(
    await page.evaluate(() => [...document.querySelector('chat-shell').shadowRoot.querySelectorAll('article[data-role="assistant"]')].at(-1).textContent),
    /the search failed \(rate limited\)/,
  );
  assert.deepEqual(await axeViolations(page), [], 'tool results pass axe');

  await sendToEvents(page, 'budget');
  const banner = page.locator('[data-part="budget"][role="alert"]');
  await banner.waitFor({ timeout: 8_000 });
  await waitForIdle(page);
  assert.equal(await banner.textContent(), 'Tool-call budget reached (3 of 3)');
  assert.deepEqual(await axeViolations(page), [], 'the budget banner passes axe');
  // The conversation so far went with the request; the composer still sends.
  assert.deepEqual(page.bodies[1].messages.map((m) => m.role), ['user', 'assistant', 'assistant', 'user']);
  await sendToEvents(page, 'and now?');
  await waitForIdle(page);
  assert.equal(page.bodies.at(-1).messages.at(-1).content, 'and now?');
  assert.match(
    await page.evaluate(() => [...document.querySelector('chat-shell').shadowRoot.querySelectorAll('article[data-role="assistant"]')].at(-1).textContent),
    /and now\?/,
    'the markdown answer to the next message',
  );
  assert.equal(await page.locator('[data-part="budget"]').count(), 0, 'a new run clears the banner');
  await finishPage(page);
});

test('events: agents and orchestration, loader hints, keepalives during a long tool, a cut mid-tool', async () => {
  const page = await openChat(context, `${runtime.url}/`, EVENTS);
  await startRecorder(page, {
    progress: { sel: '[data-part="progress"]', read: 'text' },
    liveness: '[data-part="liveness"]',
    running: '[data-part="tool-call"][data-status="in_progress"]',
  });
  await sendToEvents(page, 'agents');
  await waitForIdle(page);
  const agents = await page.evaluate(() => {
    const root = document.querySelector('chat-shell').shadowRoot;
    return {
      names: [...root.querySelectorAll('[data-part="agent-name"]')].map((n) => n.textContent),
      ids: [...root.querySelectorAll('article[data-role="assistant"]')].map((a) => a.dataset.agent),
      orchestration: root.querySelector('[data-part="orchestration"]')?.textContent ?? '',
      steps: [...root.querySelectorAll('[data-part="orchestration"] li')].map((li) => li.dataset.status),
    };
  });
  assert.deepEqual([...new Set(agents.names)], ['researcher', 'writer']);
  assert.deepEqual([...new Set(agents.ids)], ['ag_researcher', 'ag_writer']);
  assert.match(agents.orchestration, /Find the license/);
  assert.match(agents.orchestration, /Summarize it/);
  assert.deepEqual(agents.steps, ['completed', 'completed']);
  assert.deepEqual(await axeViolations(page), [], 'agents and orchestration pass axe');

  await sendToEvents(page, 'hints');
  await waitForIdle(page);
  const hints = (await recorded(page)).map((s) => s.progress).filter(Boolean);
  assert.ok(hints.includes('Thinking about your question…'), `loader hints shown: ${JSON.stringify(hints)}`);
  assert.ok(hints.includes('Looking through 3 documents…'), `loader hints shown: ${JSON.stringify(hints)}`);

  await sendToEvents(page, 'longtool');
  await waitForIdle(page, { timeout: 20_000 });
  const log = await recorded(page);
  assert.ok(log.some((s) => s.running > 0), 'the long tool ran');
  assert.ok(!log.some((s) => s.liveness > 0), 'no liveness warning while events (keepalives) arrive');
  assert.deepEqual((await toolCallStatuses(page)).at(-1), ['other', 'completed']);

  await sendToEvents(page, 'cut');
  await waitFor(async () => (await toolCallStatuses(page)).at(-1)?.[1] === 'interrupted', { timeout: 8_000, message: 'the cut call to be interrupted' });
  await waitForIdle(page);
  assert.equal((await toolCalls(page)).at(-1).title, 'download');
  assert.deepEqual(await axeViolations(page), [], 'the interrupted call passes axe');
  dropNetworkLog(page, /ERR_INCOMPLETE_CHUNKED_ENCODING.*\/events/);
  await finishPage(page);
});

test('a connection dropped mid-answer on /envelope/ loses nothing: the failed message, never an earlier one, is what comes back', async () => {
  const page = await openChat(context, `${runtime.url}/envelope/`);
  const composer = page.locator('chat-shell').getByRole('textbox', { name: 'Message' });
  await sendMessage(page, 'first one');
  await waitForIdle(page);
  await sendMessage(page, 'second one');
  await waitForIdle(page);
  await sendMessage(page, 'cut');
  await page.locator('chat-shell [data-part="error"], chat-shell [data-part="run-error"]').first().waitFor({ timeout: 10_000 });
  await waitForIdle(page);
  const draft = await composer.inputValue();
  const sent = await page.locator('chat-shell article[data-role="user"]').allTextContents();
  assert.notEqual(draft, 'first one', 'an earlier message is not put back');
  assert.ok(
    draft === 'cut' || sent.some((t) => t.includes('cut')),
    `the failed message is kept, in the composer or the conversation: ${JSON.stringify({ draft, sent })}`,
  );
  // The earlier messages stay where they were.
  assert.ok(sent.some((t) => t.includes('first one')) && sent.some((t) => t.includes('second one')), JSON.stringify(sent));
  dropNetworkLog(page, /ERR_INCOMPLETE_CHUNKED_ENCODING.*\/events/);
  await finishPage(page);
});

test('the demo page for the events envelope talks to POST /events out of the box', async () => {
  const page = await openChat(context, `${runtime.url}/envelope/`);
  assert.equal(await page.evaluate(() => document.querySelector('chat-shell').getAttribute('protocol')), 'events');
  const posts = [];
  page.on('request', (r) => r.method() === 'POST' && posts.push(new URL(r.url()).pathname));
  await sendMessage(page, 'tool results please');
  await waitForIdle(page);
  assert.ok(posts.includes('/events'), `the page posts to /events: ${posts}`);
  assert.deepEqual((await toolCallStatuses(page)).map(([, status]) => status), ['completed', 'failed', 'unknown']);
  await finishPage(page);
});
