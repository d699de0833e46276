// Sending a message and streaming its answer, against the reference runtime over real
// HTTP: a markdown answer streams in small deltas and renders progressively and safely
// (the walking skeleton), what the live region reads, an answer that finishes before the
// renderer arrives; Stop (and an answer that allows none), Retry, failures (dropped
// connection, stall, a server that never answers, an event over the size limit, an error
// not to retry, HTTP errors), the liveness warning and the working indicator.
//
// The first tests start their own runtime and browser; the others share one runtime
// (pace 20 ms) and one browser, each opening its own page (a new thread).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  assistantMessages,
  breakPack,
  close,
  createdThreadId,
  distName,
  dropNetworkLog,
  finishPage,
  frames,
  isStreaming,
  lastAnswerText,
  newChatPage,
  newPage,
  openBrowser,
  recorded,
  responseEnded,
  sendButton,
  sendMessage,
  sseBody,
  startRecorder,
  startRuntime,
  stopButton,
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

const STREAM_TIMEOUT_MS = 20_000;

/** The error a failed turn shows, an alert. */
const turnError = (page) => page.locator('[data-part="error"][role="alert"]');

/**
 * The assistant article at `index`, or null while there is none: its text, its
 * "committed" text (everything but the open tail block `.cs-md__tail` that the
 * streaming renderer rewrites on every delta; finished blocks are only ever
 * appended), and aria-busy.
 */
async function assistantState(page, index) {
  return page.locator('article[data-role="assistant"]').evaluateAll((els, i) => {
    const el = els[i];
    if (!el) return null;
    const copy = el.cloneNode(true);
    for (const tail of copy.querySelectorAll('.cs-md__tail')) tail.remove();
    return {
      text: (el.textContent ?? '').trim(),
      committed: (copy.textContent ?? '').trim(),
      busy: el.getAttribute('aria-busy') === 'true',
    };
  }, index);
}

/**
 * Polls the assistant article at `index` every ~15 ms until it exists and its
 * answer has finished (not aria-busy="true", no Stop button, the Send button
 * is back), or the time runs out. Returns the distinct non-empty snapshots
 * ({ text, committed }) in order, and whether it was seen streaming.
 */
async function collectStream(page, index) {
  const send = page.getByRole('button', { name: 'Send' });
  const stop = page.getByRole('button', { name: 'Stop' });
  const snapshots = [];
  const record = (state) => {
    if (state?.text && state.text !== snapshots[snapshots.length - 1]?.text) {
      snapshots.push({ text: state.text, committed: state.committed });
    }
  };
  let sawStreaming = false;
  let finished = false;
  await waitFor(
    async () => {
      const state = await assistantState(page, index);
      record(state);
      if (state) {
        const streaming = state.busy || (await stop.count()) > 0;
        if (streaming) sawStreaming = true;
        else if ((await send.count()) > 0) finished = true;
      }
      return finished;
    },
    { timeout: STREAM_TIMEOUT_MS, interval: 15, message: 'the answer to finish' },
  ).catch(() => {}); // `finished` says it, asserted by the caller with what was seen
  record(await assistantState(page, index));
  return { snapshots, finished, sawStreaming };
}

test('walking skeleton: a markdown answer streams in and renders', async () => {
  const runtime = await startRuntime({ paceMs: 15 });
  const context = await openBrowser();
  const page = await newPage(context, `${runtime.url}/`);
  const logs = () => `runtime output:\n${runtime.lines.join('\n')}\nconsole errors:\n${page.consoleErrors.join('\n')}`;

  // First message: creates the thread.
  await sendMessage(page, 'hello markdown', { typed: true });
  const { snapshots, finished, sawStreaming } = await collectStream(page, 0);

  await page
    .locator('article[data-role="user"]', { hasText: 'hello markdown' })
    .first()
    .waitFor({ state: 'visible', timeout: 5_000 });

  assert.ok(sawStreaming, `the answer was never seen streaming (aria-busy="true" or a Stop button)\n${logs()}`);
  assert.ok(finished, `the answer did not finish (Send button back, aria-busy="false") within ${STREAM_TIMEOUT_MS} ms\n${logs()}`);

  const final = snapshots[snapshots.length - 1]?.text;
  assert.ok(final, `no assistant answer rendered\n${logs()}`);
  const intermediate = snapshots.slice(0, -1);
  assert.ok(
    intermediate.length >= 3,
    `expected at least 3 distinct intermediate renderings, got ${intermediate.length}: ${JSON.stringify(snapshots)}`,
  );
  // Prefix-growing: finished blocks are only appended, never rewritten. (The
  // whole text may shrink for a moment: an open "[text](https://…" in the
  // tail collapses to "text" once the link is complete.)
  for (let i = 1; i < snapshots.length; i++) {
    const [before, now] = [snapshots[i - 1].committed, snapshots[i].committed];
    assert.ok(
      now.length >= before.length && now.startsWith(before),
      `finished blocks changed between renderings ${i - 1} and ${i}:\n${JSON.stringify(before)}\n${JSON.stringify(now)}`,
    );
  }
  const committedSteps = new Set(intermediate.map((s) => s.committed).filter(Boolean));
  assert.ok(
    committedSteps.size >= 2,
    `expected finished blocks to appear one after another while streaming, got ${committedSteps.size} step(s)`,
  );
  assert.ok(
    intermediate.every((s) => final.length >= s.committed.length),
    'the final answer is shorter than an earlier rendering',
  );

  // The finished answer is rendered markdown.
  const answer = page.locator('article[data-role="assistant"]').last();
  assert.ok((await answer.locator('h1, h2, h3').count()) >= 1, 'no heading in the answer');
  assert.ok((await answer.locator('li').count()) >= 1, 'no list item in the answer');
  assert.ok((await answer.locator('table').count()) >= 1, 'no table in the answer');
  assert.ok((await answer.locator('pre code').count()) >= 1, 'no code block (pre code) in the answer');
  const link = answer.locator('a[href^="https://"]').first();
  assert.equal(await link.count(), 1, 'no https link in the answer');
  assert.equal(await link.getAttribute('target'), '_blank', 'the link does not open in a new tab');
  const rel = (await link.getAttribute('rel')) ?? '';
  assert.ok(rel.split(/\s+/).includes('noopener'), `the link's rel "${rel}" lacks noopener`);

  assert.deepEqual(page.consoleErrors, [], 'console errors on the page');

  // The runtime logs a request as its answer starts: a second threads.create sent with the
  // first would be logged by now, its answer over.
  const creates = await runtime.waitForLine('threads.create');
  assert.equal(runtime.linesMatching('threads.create').length, 1, `expected one threads.create request\n${logs()}`);
  assert.equal(creates.length, 1);

  // Second message: goes to the same thread. sendMessage checks that Send is enabled again.
  await sendMessage(page, 'again', { typed: true });
  const second = await collectStream(page, 1);
  assert.ok(second.finished, `the second answer did not finish within ${STREAM_TIMEOUT_MS} ms\n${logs()}`);
  await runtime.waitForLine('threads.add_user_message');
  await page
    .locator('article[data-role="user"]', { hasText: 'again' })
    .first()
    .waitFor({ state: 'visible', timeout: 5_000 });
  assert.equal(await page.locator('article[data-role="assistant"]').count(), 2, 'expected two assistant articles');
  assert.equal(runtime.linesMatching('threads.create').length, 1, `the second message created a new thread\n${logs()}`);
  assert.deepEqual(page.consoleErrors, [], 'console errors on the page');
});

test('the polite live region reads a finished answer as plain text, not markdown source', async () => {
  const runtime = await startRuntime({ paceMs: 0 });
  const context = await openBrowser();
  const page = await newPage(context, runtime.url);
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill('markdown');
  await box.press('Enter');
  const region = page.locator('.cs-sr-only[role="status"]');
  await waitFor(async () => ((await region.textContent()) ?? '').trim().length > 0, { timeout: 15_000, message: 'the answer is announced' });
  assert.equal(await region.getAttribute('aria-live'), 'polite');
  const spoken = (await region.textContent()).trim();
  assert.match(spoken, /bold/, `the words are read: ${spoken}`);
  for (const syntax of ['**', '```', '|---', '](http', '<b>', '# ']) {
    assert.ok(!spoken.includes(syntax), `"${syntax}" is read aloud: ${spoken.slice(0, 300)}`);
  }
  await runtime.close();
});

test('an answer that finishes before the renderer arrives shows as escaped text, is not read aloud as markdown, then renders and is announced', async () => {
  const runtime = await startRuntime({ paceMs: 0 });
  const context = await openBrowser();
  // Hold the renderer chunk (the markdown renderer and sanitizer) until the answer is done.
  let release;
  const released = new Promise((resolve) => { release = resolve; });
  let held = 0;
  // The pack breaks off in the renderer chunk, which then comes by itself, held here.
  await breakPack(context, 'split_renderer.wasm');
  await context.route(`**/${distName('split_renderer.wasm')}`, async (route) => {
    held += 1;
    await released;
    await route.continue();
  });
  const page = await newPage(context, runtime.url);
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill('markdown');
  await box.press('Enter');
  const article = page.locator('article[data-role="assistant"]').first();
  await waitFor(async () => (await page.getByRole('button', { name: 'Send' }).count()) > 0
    && (await article.count()) > 0 && (await article.getAttribute('aria-busy')) !== 'true'
    && ((await article.textContent()) ?? '').includes('bold'),
  { timeout: STREAM_TIMEOUT_MS, message: 'the answer to finish while the renderer is held' });
  assert.ok(held >= 1, 'the page asked for the renderer');
  // Escaped source, never HTML: no elements the markdown would make.
  assert.ok(await article.locator('.cs-md__plain').count() > 0, 'the answer shows as plain text before the renderer');
  assert.equal(await article.locator('strong, table, pre').count(), 0, 'no HTML before the sanitizer is there');
  const region = page.locator('.cs-sr-only[role="status"]');
  // It would be announced as it finished, in the frames after.
  await frames(page);
  assert.equal(((await region.textContent()) ?? '').trim(), '', 'nothing is announced before its plain text can be made');
  release();
  await waitFor(async () => ((await region.textContent()) ?? '').trim().length > 0, { timeout: 15_000, message: 'the answer is announced once the renderer arrives' });
  const spoken = (await region.textContent()).trim();
  assert.match(spoken, /bold/, `the words are read: ${spoken}`);
  for (const syntax of ['**', '```', '|---', '](http', '<b>', '# ']) {
    assert.ok(!spoken.includes(syntax), `"${syntax}" is read aloud: ${spoken.slice(0, 300)}`);
  }
  await waitFor(async () => (await article.locator('strong').count()) > 0, { timeout: 10_000, message: 'the answer renders in place once the renderer arrives' });
  assert.equal(await article.locator('.cs-md__plain').count(), 0, 'the plain text is replaced');
  assert.deepEqual(page.consoleErrors, [], 'console errors on the page');
  await runtime.close();
});

test('Stop cancels a streaming answer and keeps the partial text', async () => {
  const page = await newChatPage(context, `${runtime.url}/`, { events: true, logs: runtime });
  const stream = page.waitForRequest((r) => r.postDataJSON()?.type === 'threads.create');
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

  const answer = assistantMessages(page).last();
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
  // Nothing more arrives after Stop (the server sent a chunk every 400 ms): the stream is
  // closed, and what it had brought is shown in the frames after.
  await responseEnded(await stream);
  await frames(page);
  assert.equal((await lastAnswerText(page)).text, kept.text, 'text kept arriving after Stop');
  assert.equal(await assistantMessages(page).count(), 1);
  await finishPage(page);
});

test('an answer that does not allow cancel never shows Stop', async (t) => {
  const page = await newChatPage(context, `${runtime.url}/`, { events: true, logs: runtime });
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
  await finishPage(page);
});

test('a failed answer shows the server error and Retry replaces it with a complete answer', async () => {
  const page = await newChatPage(context, `${runtime.url}/`, { events: true, logs: runtime });
  await sendMessage(page, 'error');
  const error = turnError(page);
  await error.waitFor({ state: 'visible', timeout: 5_000 });
  assert.match(await error.textContent(), /The peer failed on purpose \(attempt 1\)\. Retry to succeed\./);
  const retry = error.getByRole('button', { name: 'Retry', exact: true });
  assert.equal(await retry.count(), 1, 'no Retry button in the error');
  await waitForIdle(page);
  assert.equal(await page.getByRole('button', { name: 'Retry', exact: true }).count(), 1, 'exactly one Retry control after a failed answer');
  await waitForIdle(page);
  assert.equal(await assistantMessages(page).count(), 1);
  assert.equal(await assistantMessages(page).first().getAttribute('data-status'), 'failed');
  assert.match((await lastAnswerText(page)).text, /This answer will fail halfway/);

  await retry.click();
  await runtime.waitForLine('threads.retry_after_item');
  await waitForIdle(page);
  assert.equal(await turnError(page).count(), 0, 'the error is still shown after a successful retry');
  assert.equal(await assistantMessages(page).count(), 1, `expected one assistant article for the turn${page.logs()}`);
  const answer = assistantMessages(page).first();
  assert.equal(await answer.getAttribute('data-status'), 'done');
  const text = (await lastAnswerText(page)).text;
  assert.match(text, /Retry succeeded \(attempt 2 for user message/);
  assert.ok(!text.includes('fail halfway'), `the failed partial text is still there: ${text}`);
  assert.equal(await page.locator('article[data-role="user"]').count(), 1);
  await finishPage(page);
});

test('a dropped connection keeps the partial answer and offers Retry', async () => {
  const page = await newChatPage(context, `${runtime.url}/`, { events: true, logs: runtime });
  await sendMessage(page, 'drop');
  const error = turnError(page);
  await error.waitFor({ state: 'visible', timeout: 5_000 });
  await waitForIdle(page);
  assert.equal(await error.getByRole('button', { name: 'Retry', exact: true }).count(), 1, 'no Retry in the error');
  assert.ok((await error.textContent()).trim().length > 0, 'the error has no message');
  const text = (await lastAnswerText(page)).text;
  assert.match(text, /This answer is cut off: the server drops the connection right after/);
  assert.equal(await assistantMessages(page).first().getAttribute('data-status'), 'failed');
  await page.locator('article[data-role="user"]', { hasText: 'drop' }).waitFor({ timeout: 1_000 });
  dropNetworkLog(page, /net::ERR_INCOMPLETE_CHUNKED_ENCODING/);
  await finishPage(page);
});

test('a stalled stream times out after stream-timeout seconds', async () => {
  const page = await newChatPage(context, `${runtime.url}/`, { events: true, logs: runtime });
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
  await finishPage(page);
});

test('a server that accepts the request and never answers times out, and the text comes back', async () => {
  const page = await newChatPage(context, `${runtime.url}/`, { events: true, logs: runtime });
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
  await finishPage(page);
});

test('an event over the size limit ends the answer with a clear error and keeps what came before', async () => {
  const page = await newChatPage(context, `${runtime.url}/`, { events: true, logs: runtime });
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
  await finishPage(page);
});

test('an error the server says not to retry offers no Retry anywhere', async () => {
  const page = await newChatPage(context, `${runtime.url}/`, { events: true, logs: runtime });
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
  await finishPage(page);
});

test('an HTTP error shows status and message and gives the text back to the composer', async () => {
  const page = await newChatPage(context, `${runtime.url}/`, { events: true, logs: runtime });
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
  assert.equal(await assistantMessages(page).count(), 0);
  dropNetworkLog(page, /the server responded with a status of 500/);
  await finishPage(page);
});

test('the liveness warning shows only once a stream has been silent a while, with Stop', async () => {
  const page = await newChatPage(context, `${runtime.url}/`, { events: true, logs: runtime });
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
  const page = await newChatPage(context, `${runtime.url}/`, { events: true, logs: runtime });
  // A server slow to answer: nothing of the answer until the indicator was seen.
  let answer;
  const held = new Promise((resolve) => (answer = resolve));
  await page.route('**/chatkit', async (route) => {
    if (JSON.parse(route.request().postData() ?? '{}').type === 'threads.create') await held;
    await route.continue();
  });
  const working = page.locator('[data-part="working"]');
  await sendMessage(page, 'hello there');
  await working.waitFor({ timeout: 1_000 });
  assert.equal(await working.getAttribute('role'), 'status');
  assert.ok((await working.textContent()).trim().length > 0, 'a text alternative');
  assert.equal(await page.locator('article[data-role="assistant"]').count(), 0, 'before the first byte');
  answer();
  await page.locator('article[data-role="assistant"]').first().waitFor({ timeout: 10_000 });
  await working.waitFor({ state: 'detached', timeout: 5_000 });
  await waitForIdle(page);
  assert.equal(await working.count(), 0);
  assert.deepEqual(page.consoleErrors, [], page.logs());
});
