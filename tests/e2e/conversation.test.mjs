// Conversations against the reference runtime over real HTTP: stopping, retrying,
// failures (dropped connection, stall, HTTP error), progress, tasks and workflows,
// citations, notices, message actions, generated images and scrolling.
//
// One runtime (pace 20 ms) and one browser serve every test; each test opens its own
// page, so each starts a new thread. The scrolling test has its own runtime (pace 5 ms).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  chatkitRequest,
  close,
  sseBody,
  createdThreadId,
  isStreaming,
  newChatPage,
  openBrowser,
  recordEvents,
  recorded,
  sendMessage,
  sleep,
  startRecorder,
  startRuntime,
  waitFor,
  waitForIdle,
} from './harness.mjs';

let runtime;
let context;

before(async () => {
  runtime = await startRuntime({ paceMs: 20 });
  context = await openBrowser();
});
after(close);

/** Opens a fresh page (a new conversation) and returns it with a `logs()` helper for messages. */
async function open() {
  const page = await newChatPage(context, `${runtime.url}/`);
  await recordEvents(page);
  page.logs = () =>
    `\n--- runtime output:\n${runtime.lines.slice(-40).join('\n')}\n--- console errors:\n${page.consoleErrors.join('\n')}`;
  return page;
}

/**
 * Chromium logs every failed fetch itself ("Failed to load resource: the server responded
 * with a status of 500", "net::ERR_INCOMPLETE_CHUNKED_ENCODING" for a body cut short): those
 * lines come from the browser's network layer, not from the component. Tests that provoke
 * exactly that failure drop exactly that line.
 */
function dropNetworkLog(page, pattern) {
  page.consoleErrors = page.consoleErrors.filter((e) => !(e.startsWith('console.error: Failed to load resource: ') && pattern.test(e)));
}

async function finish(page) {
  assert.deepEqual(page.consoleErrors, [], `console errors on the page${page.logs()}`);
  await page.close();
}

const assistant = (page) => page.locator('article[data-role="assistant"]');
const stopButton = (page) => page.getByRole('button', { name: 'Stop', exact: true });
const sendButton = (page) => page.getByRole('button', { name: 'Send', exact: true });
const turnError = (page) => page.locator('[data-part="error"][role="alert"]');

/** The text of the last assistant article's body (not its notes and buttons), and its committed part. */
async function lastAnswerText(page) {
  return page.evaluate(() => {
    const articles = document.querySelector('chat-shell').shadowRoot.querySelectorAll('article[data-role="assistant"]');
    const body = articles[articles.length - 1]?.querySelector('.cs-msg__body');
    if (!body) return null;
    const copy = body.cloneNode(true);
    for (const tail of copy.querySelectorAll('.cs-md__tail')) tail.remove();
    return { text: body.textContent.trim(), committed: copy.textContent.trim() };
  });
}

test('Stop cancels a streaming answer and keeps the partial text', async () => {
  const page = await open();
  await sendMessage(page, 'slow please');
  await stopButton(page).waitFor({ state: 'visible', timeout: 5_000 });
  // "slow" streams a chunk of 4-12 characters every 400 ms: wait for a few. The first
  // paragraph is plain text, so what is shown is a prefix of what will be kept.
  const partial = await waitFor(
    async () => {
      const t = await lastAnswerText(page);
      return t && t.text.length >= 24 ? t : null;
    },
    { timeout: 10_000, message: () => `some streamed text before Stop${page.logs()}` },
  );
  await stopButton(page).click();

  const answer = assistant(page).last();
  await waitFor(async () => (await answer.getAttribute('data-status')) === 'stopped', {
    timeout: 3_000,
    message: async () => `data-status=stopped (is ${await answer.getAttribute('data-status')})${page.logs()}`,
  });
  assert.equal(await answer.getAttribute('aria-busy'), 'false');
  assert.equal((await answer.locator('[data-part="stopped"]').textContent()).trim(), 'Stopped');
  await sendButton(page).waitFor({ state: 'visible', timeout: 2_000 });
  assert.equal(await stopButton(page).count(), 0, 'the Stop button is still shown');

  const kept = await lastAnswerText(page);
  assert.ok(
    kept.text.startsWith(partial.text),
    `the partial answer was not kept:\nbefore Stop: ${JSON.stringify(partial)}\nafter: ${JSON.stringify(kept)}`,
  );
  assert.ok(kept.text.includes('You said: “slow please”'), `unexpected partial text: ${kept.text}`);
  const threadId = await createdThreadId(page);
  // Stop tells the server (a page that merely leaves does not stop the run).
  await runtime.waitForLine(`run cancelled: threads.create thread=${threadId} after`, { timeout: 5_000 });
  // Nothing more arrives after Stop (the server sent a chunk every 400 ms).
  await sleep(900);
  assert.equal((await lastAnswerText(page)).text, kept.text, 'text kept arriving after Stop');
  assert.equal(await assistant(page).count(), 1);
  await finish(page);
});

test('an answer that does not allow cancel never shows Stop', async (t) => {
  const page = await open();
  await startRecorder(page, {
    stop: { sel: 'button', text: 'Stop' },
    busy: 'article[data-role="assistant"][aria-busy="true"]',
    answers: 'article[data-role="assistant"]',
    sendDisabled: 'button[type="submit"][disabled]',
  });
  await sendMessage(page, 'nocancel');
  // It streams one word every 400 ms: watch it for a while.
  await waitFor(async () => ((await lastAnswerText(page))?.text ?? '').split(/\s+/).length >= 5, {
    timeout: 6_000,
    message: () => `five streamed words${page.logs()}`,
  });
  assert.ok(await isStreaming(page), 'the nocancel answer is no longer streaming');
  const log = await recorded(page);
  const streamingFrom = log.findIndex((s) => s.busy > 0 || s.answers > 0);
  assert.ok(streamingFrom >= 0, `never saw the answer streaming: ${JSON.stringify(log)}`);
  const streaming = log.slice(streamingFrom);
  assert.deepEqual(
    streaming.filter((s) => s.stop > 0),
    [],
    `a Stop button appeared while an answer with allow_cancel: false streamed: ${JSON.stringify(log)}`,
  );
  assert.ok(
    streaming.every((s) => s.sendDisabled === 1),
    `Send was enabled while the answer streamed: ${JSON.stringify(log)}`,
  );
  // Before the server's stream_options arrive, the turn starts as cancellable: a Stop
  // button may show for the round trip. Reported, not failed (the server has not said no yet).
  const early = log.slice(0, streamingFrom).filter((s) => s.stop > 0);
  if (early.length > 0) {
    const from = early[0].t;
    const to = log.slice(log.indexOf(early[0])).find((s) => s.stop === 0)?.t;
    t.diagnostic(`Stop shown for ${to - from} ms before stream_options arrived (request in flight)`);
  }
  await finish(page);
});

test('a failed answer shows the server error and Retry replaces it with a complete answer', async () => {
  const page = await open();
  await sendMessage(page, 'error');
  const error = turnError(page);
  await error.waitFor({ state: 'visible', timeout: 5_000 });
  assert.match(await error.textContent(), /The peer failed on purpose \(attempt 1\)\. Retry to succeed\./);
  const retry = error.getByRole('button', { name: 'Retry', exact: true });
  assert.equal(await retry.count(), 1, 'no Retry button in the error');
  await waitForIdle(page);
  assert.equal(await page.getByRole('button', { name: 'Retry', exact: true }).count(), 1, 'exactly one Retry control after a failed answer');
  await waitForIdle(page);
  assert.equal(await assistant(page).count(), 1);
  assert.equal(await assistant(page).first().getAttribute('data-status'), 'failed');
  assert.match((await lastAnswerText(page)).text, /This answer will fail halfway/);

  await retry.click();
  await runtime.waitForLine('threads.retry_after_item');
  await waitForIdle(page);
  assert.equal(await turnError(page).count(), 0, 'the error is still shown after a successful retry');
  assert.equal(await assistant(page).count(), 1, `expected one assistant article for the turn${page.logs()}`);
  const answer = assistant(page).first();
  assert.equal(await answer.getAttribute('data-status'), 'done');
  const text = (await lastAnswerText(page)).text;
  assert.match(text, /Retry succeeded \(attempt 2 for user message/);
  assert.ok(!text.includes('fail halfway'), `the failed partial text is still there: ${text}`);
  assert.equal(await page.locator('article[data-role="user"]').count(), 1);
  await finish(page);
});

test('a dropped connection keeps the partial answer and offers Retry', async () => {
  const page = await open();
  await sendMessage(page, 'drop');
  const error = turnError(page);
  await error.waitFor({ state: 'visible', timeout: 5_000 });
  await waitForIdle(page);
  assert.equal(await error.getByRole('button', { name: 'Retry', exact: true }).count(), 1, 'no Retry in the error');
  assert.ok((await error.textContent()).trim().length > 0, 'the error has no message');
  const text = (await lastAnswerText(page)).text;
  assert.match(text, /This answer is cut off: the server drops the connection right after/);
  assert.equal(await assistant(page).first().getAttribute('data-status'), 'failed');
  await page.locator('article[data-role="user"]', { hasText: 'drop' }).waitFor({ timeout: 1_000 });
  dropNetworkLog(page, /net::ERR_INCOMPLETE_CHUNKED_ENCODING/);
  await finish(page);
});

test('a stalled stream times out after stream-timeout seconds', async () => {
  const page = await open();
  await page.evaluate(() => document.querySelector('chat-shell').setAttribute('stream-timeout', '2'));
  const sent = Date.now();
  await sendMessage(page, 'stall');
  const error = turnError(page);
  await error.waitFor({ state: 'visible', timeout: 6_000 });
  const elapsed = Date.now() - sent;
  assert.match(await error.textContent(), /stalled/i);
  assert.ok(elapsed >= 1_800, `the stall error came after ${elapsed} ms, before the 2 s timeout`);
  const threadId = await createdThreadId(page);
  await runtime.waitForLine(`stream closed by client: threads.create thread=${threadId} after`, { timeout: 3_000 });
  await waitForIdle(page);
  assert.match((await lastAnswerText(page)).text, /This answer stalls here/);
  await finish(page);
});

test('a server that accepts the request and never answers times out, and the text comes back', async () => {
  const page = await open();
  await page.evaluate(() => document.querySelector('chat-shell').setAttribute('stream-timeout', '2'));
  // Accepted, never answered: no status, no headers, no bytes.
  await page.route('**/chatkit', () => {});
  const sent = Date.now();
  await sendMessage(page, 'are you there');
  const error = turnError(page);
  await error.waitFor({ state: 'visible', timeout: 8_000 });
  const elapsed = Date.now() - sent;
  assert.match(await error.textContent(), /did not answer within 2 seconds/);
  assert.ok(elapsed >= 1_800, `the error came after ${elapsed} ms, before the 2 s limit`);
  await waitForIdle(page);
  assert.equal(await isStreaming(page), false, 'the chat is not left answering');
  assert.equal(await page.getByRole('textbox', { name: 'Message' }).inputValue(), 'are you there');
  await page.unroute('**/chatkit');
  await finish(page);
});

test('an event over the size limit ends the answer with a clear error and keeps what came before', async () => {
  const page = await open();
  await page.evaluate(() => document.querySelector('chat-shell').setOptions({ maxEventBytes: 4096 }));
  const thread = { id: 'thr_big', created_at: '2026-11-23T00:00:00', title: null, status: { type: 'active' }, metadata: {} };
  const item = { id: 'msg_a', thread_id: 'thr_big', created_at: '2026-11-23T00:00:01', type: 'assistant_message', content: [] };
  const delta = (text) => ({ type: 'thread.item.updated', item_id: 'msg_a', update: { type: 'assistant_message.content_part.text_delta', content_index: 0, delta: text } });
  const body = sseBody([
    { type: 'thread.created', thread },
    { type: 'thread.item.added', item },
    { type: 'thread.item.updated', item_id: 'msg_a', update: { type: 'assistant_message.content_part.added', content_index: 0, content: { type: 'output_text', text: '', annotations: [] } } },
    delta('Kept before the flood. '),
    delta('x'.repeat(20_000)),
    delta('never shown'),
  ]);
  await page.route('**/chatkit', (route) => route.fulfill({ status: 200, contentType: 'text/event-stream', body }));
  await sendMessage(page, 'flood me');
  const error = turnError(page);
  await error.waitFor({ state: 'visible', timeout: 5_000 });
  assert.match(await error.textContent(), /cut off/);
  await waitForIdle(page);
  const text = (await lastAnswerText(page)).text;
  assert.match(text, /Kept before the flood/);
  assert.ok(!text.includes('xxxx') && !text.includes('never shown'), `nothing past the limit is shown: ${text.slice(0, 80)}`);
  await page.unroute('**/chatkit');
  await finish(page);
});

test('an error the server says not to retry offers no Retry anywhere', async () => {
  const page = await open();
  const thread = { id: 'thr_noretry', created_at: '2026-11-23T00:00:00', title: null, status: { type: 'active' }, metadata: {} };
  const item = { id: 'msg_n', thread_id: 'thr_noretry', created_at: '2026-11-23T00:00:01', type: 'assistant_message', content: [{ type: 'output_text', text: 'Half an answer', annotations: [] }] };
  const body = sseBody([
    { type: 'thread.created', thread },
    { type: 'thread.item.added', item },
    { type: 'error', code: 'quota', message: 'Out of quota for today.', allow_retry: false },
  ]);
  await page.route('**/chatkit', (route) => route.fulfill({ status: 200, contentType: 'text/event-stream', body }));
  await sendMessage(page, 'no retry please');
  await turnError(page).waitFor({ state: 'visible', timeout: 5_000 });
  await waitForIdle(page);
  assert.match(await turnError(page).textContent(), /Out of quota/);
  assert.equal(await page.getByRole('button', { name: 'Retry', exact: true }).count(), 0, 'no Retry when allow_retry is false');
  await page.unroute('**/chatkit');
  await finish(page);
});

test('an HTTP error shows status and message and gives the text back to the composer', async () => {
  const page = await open();
  await page.route('**/chatkit', (route) =>
    route.fulfill({ status: 500, contentType: 'application/json', body: '{"error":"boom"}' }),
  );
  await sendMessage(page, 'keep this text');
  const error = turnError(page);
  await error.waitFor({ state: 'visible', timeout: 5_000 });
  const message = await error.textContent();
  assert.match(message, /HTTP 500/);
  assert.match(message, /boom/);
  await waitForIdle(page);
  assert.equal(await page.getByRole('textbox', { name: 'Message' }).inputValue(), 'keep this text');
  assert.equal(await assistant(page).count(), 0);
  dropNetworkLog(page, /the server responded with a status of 500/);
  await finish(page);
});

test('progress updates show outside the messages and go away when the answer is done', async () => {
  const page = await open();
  await startRecorder(page, {
    progress: '[data-part="progress"]',
    progressText: { sel: '[data-part="progress"]', read: 'text' },
    inArticle: 'article [data-part="progress"]',
    answers: 'article[data-role="assistant"]',
  });
  await sendMessage(page, 'progress');
  await waitForIdle(page);
  const log = await recorded(page);
  const texts = [...new Set(log.map((s) => s.progressText).filter(Boolean))];
  assert.deepEqual(
    texts,
    ['Searching the knowledge base...', 'Reading 3 documents...', 'Progress update without an icon...', 'Writing the answer...'],
    `progress texts seen: ${JSON.stringify(log)}`,
  );
  assert.ok(log.some((s) => s.progress === 1 && s.answers === 0), 'progress never showed while waiting for the answer');
  assert.ok(log.every((s) => s.inArticle === 0), 'progress was rendered inside an article');
  assert.ok(log.every((s) => s.progress <= 1), 'more than one progress line at a time');
  assert.equal(await page.locator('[data-part="progress"]').count(), 0, 'progress still shown after the answer');
  assert.match((await lastAnswerText(page)).text, /four `?progress_update`? events/);
  await finish(page);
});

test('tasks and workflows render, workflows are open while running and toggle with the keyboard', async () => {
  const page = await open();
  await startRecorder(page, {
    loading: '[data-part="task"][data-status="loading"]',
    workflows: 'details[data-part="workflow"]',
    open: 'details[data-part="workflow"][open]',
    busy: '[aria-busy="true"]',
  });
  await sendMessage(page, 'task');
  await waitForIdle(page);
  const tasks = page.locator('[data-part="task"]');
  assert.equal(await tasks.count(), 2, `expected two tasks${page.logs()}`);
  assert.equal((await tasks.nth(0).locator('.cs-task__title').textContent()).trim(), 'Found 56 records');
  assert.equal(await tasks.nth(0).getAttribute('data-status'), 'complete');
  assert.equal((await tasks.nth(1).textContent()).trim(), 'Permissions OK (replaced)');
  assert.equal(await tasks.nth(1).getAttribute('data-status'), 'none');
  // The first task's markdown content (a table) is inside an expandable details.
  assert.equal(await tasks.nth(0).locator('details table').count(), 1, 'the task content table is missing');
  let log = await recorded(page);
  assert.ok(log.some((s) => s.loading === 1), `the loading task was never shown: ${JSON.stringify(log)}`);

  await sendMessage(page, 'workflow');
  await waitForIdle(page);
  log = await recorded(page);
  assert.ok(
    log.some((s) => s.workflows > 0 && s.open > 0),
    `no workflow was ever open while running: ${JSON.stringify(log)}`,
  );
  const workflows = page.locator('details[data-part="workflow"]');
  assert.equal(await workflows.count(), 3);
  const summaries = await workflows.locator(':scope > summary').allTextContents();
  assert.deepEqual(summaries.map((s) => s.trim()), ['Worked for 1s', 'Checked 2 sources', 'Thought for 1s']);
  for (let i = 0; i < 3; i++) {
    assert.equal(await workflows.nth(i).evaluate((d) => d.open), false, `workflow ${i} is still open when done`);
  }
  // Tasks of the first workflow, with their final titles.
  const titles = (await workflows.nth(0).locator('[data-part="task"]').allTextContents()).map((t) => t.trim());
  assert.equal(titles.length, 5, JSON.stringify(titles));
  for (const want of ['Plan the work', 'Searching the web', 'Read 2 files', 'Thinking', 'Rendered a chart']) {
    assert.ok(titles.some((t) => t.startsWith(want)), `no task titled "${want}" in ${JSON.stringify(titles)}`);
  }

  // Keyboard: focus the summary, Enter opens, Enter closes.
  const summary = workflows.nth(0).locator(':scope > summary');
  await summary.focus();
  await page.keyboard.press('Enter');
  await waitFor(() => workflows.nth(0).evaluate((d) => d.open), { timeout: 1_000, message: 'the workflow to open' });
  await page.keyboard.press('Enter');
  await waitFor(async () => !(await workflows.nth(0).evaluate((d) => d.open)), {
    timeout: 1_000,
    message: 'the workflow to close',
  });
  await finish(page);
});

test('citations: markers in the text and a list of sources with safe links', async () => {
  const page = await open();
  await sendMessage(page, 'annotation');
  await waitForIdle(page);
  const answer = assistant(page).last();
  // The runtime writes "[1]" etc. into the text itself, right before each annotation's
  // index: the component must then not add a second marker. Each number shows exactly once,
  // as text or as a <sup data-part="citation">.
  const body = await answer.locator('.cs-msg__body').textContent();
  for (const n of [1, 2, 3]) {
    assert.equal(body.split(`[${n}]`).length - 1, 1, `marker [${n}] not shown exactly once in: ${body}`);
  }
  const sups = (await answer.locator('.cs-msg__body sup[data-part="citation"]').allTextContents()).map((t) => t.trim());
  assert.ok(sups.every((m) => /^\[[123]\]$/.test(m)), `unexpected citation markers: ${JSON.stringify(sups)}`);
  const sources = answer.locator('ol[aria-label="Sources"] li[data-part="source"]');
  assert.equal(await sources.count(), 4);
  const texts = (await sources.allTextContents()).map((t) => t.replace(/\s+/g, ' ').trim());
  for (const want of ['openai/chatkit-python', 'Protocol spec', 'ACME Corp', 'No index example']) {
    assert.ok(texts.some((t) => t.includes(want)), `no source "${want}" in ${JSON.stringify(texts)}`);
  }
  const links = answer.locator('ol[aria-label="Sources"] a');
  assert.equal(await links.count(), 2, 'expected the two url sources as links');
  const hrefs = [];
  for (const link of await links.all()) {
    hrefs.push(await link.getAttribute('href'));
    assert.equal(await link.getAttribute('target'), '_blank');
    const rel = (await link.getAttribute('rel')) ?? '';
    assert.ok(rel.split(/\s+/).includes('noopener'), `rel "${rel}" lacks noopener`);
  }
  assert.deepEqual(hrefs.sort(), ['https://example.com/no-index', 'https://github.com/openai/chatkit-python']);
  await finish(page);
});

test('notices: three levels, one dismissed', async () => {
  const page = await open();
  await sendMessage(page, 'notice');
  await waitForIdle(page);
  const notices = page.locator('[data-part="notice"]');
  assert.equal(await notices.count(), 3);
  const levels = await notices.evaluateAll((els) => els.map((e) => e.getAttribute('data-level')));
  assert.deepEqual(levels, ['info', 'warning', 'danger']);
  assert.match(await notices.nth(0).textContent(), /Heads up/);
  assert.equal(await notices.nth(0).locator('a[href="https://example.com"]').count(), 1, 'the info notice link');
  assert.equal(await notices.locator('xpath=ancestor::article').count(), 0, 'a notice inside an article');
  await notices.nth(1).getByRole('button', { name: 'Dismiss notice' }).click();
  await waitFor(async () => (await notices.count()) === 2, { timeout: 2_000, message: 'two notices left' });
  const left = await notices.evaluateAll((els) => els.map((e) => e.getAttribute('data-level')));
  assert.deepEqual(left, ['info', 'danger']);
  await finish(page);
});

test('message actions: Copy copies the markdown, Good response is sent', async () => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: runtime.url });
  const page = await open();
  await sendMessage(page, 'copy markdown please');
  await waitForIdle(page);

  // The exact stored text, from the runtime.
  const threadId = await createdThreadId(page);
  const thread = await chatkitRequest(runtime, { type: 'threads.get_by_id', params: { thread_id: threadId } }, { context });
  const stored = thread.items.data.filter((i) => i.type === 'assistant_message').at(-1);
  const markdown = stored.content.map((c) => c.text).join('');
  assert.match(markdown, /## A streamed markdown answer/);

  const answer = assistant(page).last();
  await answer.getByRole('button', { name: 'Copy', exact: true }).click();
  const copied = await waitFor(
    async () => {
      const text = await page.evaluate(() => navigator.clipboard.readText());
      return text ? text : null;
    },
    { timeout: 2_000, message: 'the clipboard to be filled' },
  );
  assert.equal(copied, markdown, 'the clipboard does not hold the answer markdown');

  const good = answer.getByRole('button', { name: 'Good response' });
  assert.equal(await good.getAttribute('aria-pressed'), 'false');
  await good.click();
  await runtime.waitForLine(/POST \/chatkit items\.feedback 200/);
  await waitFor(async () => (await good.getAttribute('aria-pressed')) === 'true', {
    timeout: 2_000,
    message: 'Good response to be pressed',
  });
  assert.equal(await answer.getByRole('button', { name: 'Bad response' }).getAttribute('aria-pressed'), 'false');
  await finish(page);
});

test('a generated image shows a progress bar, then the image', async () => {
  const page = await open();
  await startRecorder(page, {
    progressbar: 'figure[data-part="generated-image"] [role="progressbar"]',
    img: 'figure[data-part="generated-image"] img',
  });
  await sendMessage(page, 'image');
  await waitForIdle(page);
  const log = await recorded(page);
  const firstBar = log.findIndex((s) => s.progressbar === 1);
  const firstImg = log.findIndex((s) => s.img === 1);
  assert.ok(firstBar >= 0, `the progress bar never showed: ${JSON.stringify(log)}`);
  assert.ok(firstImg >= firstBar, `the image came before the progress bar: ${JSON.stringify(log)}`);
  const figure = page.locator('figure[data-part="generated-image"]');
  assert.equal(await figure.count(), 1);
  assert.equal(await figure.locator('[role="progressbar"]').count(), 0, 'the progress bar is still shown');
  const img = figure.locator('img');
  await waitFor(() => img.evaluate((i) => i.complete && i.naturalWidth > 0), { timeout: 3_000, message: 'the image to load' });
  assert.match(await img.getAttribute('src'), /^data:image\/png;base64,/);
  await finish(page);
});

test('scrolling: the view stays where the reader put it, Scroll to bottom returns to the end', async () => {
  const paced = await startRuntime({ paceMs: 5 });
  const page = await newChatPage(context, `${paced.url}/`);
  const logs = () => `\n--- runtime output:\n${paced.lines.slice(-20).join('\n')}`;
  const viewport = page.locator('[part="viewport"]');
  const metrics = () => viewport.evaluate((v) => ({ top: v.scrollTop, height: v.scrollHeight, client: v.clientHeight }));

  await sendMessage(page, 'long');
  // Follows the answer while the reader is at the bottom.
  const start = await waitFor(
    async () => {
      const m = await metrics();
      return m.height > m.client + 1_500 ? m : null;
    },
    { timeout: 10_000, message: () => `the long answer to overflow the viewport${logs()}` },
  );
  assert.ok(start.height - start.top - start.client < 60, `not following the answer: ${JSON.stringify(start)}`);
  assert.equal(await page.getByRole('button', { name: 'Scroll to bottom' }).count(), 0);

  // The reader scrolls up.
  await viewport.hover();
  await page.mouse.wheel(0, -1_000);
  const up = await waitFor(
    async () => {
      const m = await metrics();
      return m.height - m.top - m.client > 600 ? m : null;
    },
    { timeout: 3_000, message: async () => `the viewport to scroll up: ${JSON.stringify(await metrics())}` },
  );
  await page.getByRole('button', { name: 'Scroll to bottom' }).waitFor({ state: 'visible', timeout: 2_000 });
  // It takes its own row under the conversation: it covers none of the text.
  const overlap = await page.evaluate(() => {
    const root = document.querySelector('chat-shell').shadowRoot;
    const b = root.querySelector('[aria-label="Scroll to bottom"]').getBoundingClientRect();
    const v = root.querySelector('.cs-viewport').getBoundingClientRect();
    return Math.max(0, Math.min(b.bottom, v.bottom) - Math.max(b.top, v.top));
  });
  assert.equal(overlap, 0, 'the button lies outside the conversation');
  await sleep(200);
  const settled = await metrics();
  // Text keeps arriving; the view stays put.
  await sleep(1_200);
  const later = await metrics();
  assert.ok(await isStreaming(page), 'the answer finished too early to test scrolling');
  assert.ok(later.height > settled.height + 200, `no text arrived meanwhile: ${JSON.stringify({ settled, later })}`);
  assert.ok(
    Math.abs(later.top - settled.top) <= 2,
    `the view moved while the reader was up: ${JSON.stringify({ up, settled, later })}`,
  );

  await page.getByRole('button', { name: 'Scroll to bottom' }).click();
  await waitFor(
    async () => {
      const m = await metrics();
      return m.height - m.top - m.client <= 2;
    },
    { timeout: 2_000, message: async () => `the view to reach the end: ${JSON.stringify(await metrics())}` },
  );
  await page.getByRole('button', { name: 'Scroll to bottom' }).waitFor({ state: 'detached', timeout: 2_000 });
  // And it follows the answer again.
  await sleep(500);
  const following = await metrics();
  assert.ok(
    following.height - following.top - following.client < 60,
    `not following after Scroll to bottom: ${JSON.stringify(following)}`,
  );
  assert.deepEqual(page.consoleErrors, [], 'console errors on the page');
  await page.close();
  await paced.close();
});

test('the liveness warning shows only once a stream has been silent a while, with Stop', async () => {
  const page = await open();
  await sendMessage(page, 'stall');
  const liveness = page.locator('[data-part="liveness"]');
  const startedAt = Date.now();
  // The stalled answer said its first words, then nothing: after 5 s of silence, a warning.
  await liveness.waitFor({ timeout: 10_000 });
  assert.ok(Date.now() - startedAt >= 4_000, `shown after ${Date.now() - startedAt} ms, not at once`);
  assert.match(await liveness.textContent(), /last event \ds ago/);
  assert.equal(await page.getByRole('button', { name: 'Stop' }).count(), 1, 'with a way out');
  await page.getByRole('button', { name: 'Stop' }).click();
  await liveness.waitFor({ state: 'detached', timeout: 5_000 });
  assert.deepEqual(page.consoleErrors, [], page.logs());
});

test('a working indicator shows from Send until the first content, then goes', async () => {
  const page = await open();
  // A server slow to answer: nothing of the answer for a second and a half.
  await page.route('**/chatkit', async (route) => {
    if (JSON.parse(route.request().postData() ?? '{}').type === 'threads.create') await sleep(1_500);
    await route.continue();
  });
  const working = page.locator('[data-part="working"]');
  await sendMessage(page, 'hello there');
  await working.waitFor({ timeout: 1_000 });
  assert.equal(await working.getAttribute('role'), 'status');
  assert.ok((await working.textContent()).trim().length > 0, 'a text alternative');
  assert.equal(await page.locator('article[data-role="assistant"]').count(), 0, 'before the first byte');
  await page.locator('article[data-role="assistant"]').first().waitFor({ timeout: 10_000 });
  await working.waitFor({ state: 'detached', timeout: 5_000 });
  await waitForIdle(page);
  assert.equal(await working.count(), 0);
  assert.deepEqual(page.consoleErrors, [], page.logs());
});
