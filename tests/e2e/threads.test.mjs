// Thread history against the reference runtime: the History view (newest first, more on
// scroll, empty state, Escape and focus), opening, renaming and deleting threads, history
// surviving a restart, stale-safe switching with deliberately late answers, the start
// screen's prompts, and ghost messages (hidden before and after a reload).
//
// Each test starts its own runtime (the list is global to a runtime); one browser serves all.

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { axeViolations, chatkitRequest, close, newChatPage, openBrowser, sendMessage, startRuntime, waitFor, waitForIdle, finishPage, frames, responseEnded } from './harness.mjs';

let context;

before(async () => {
  // Short enough that twenty rows overflow the history list.
  context = await openBrowser({ viewport: { width: 1000, height: 640 } });
});
after(close);

/** Creates a thread from Node (a full `threads.create` stream); returns its id. */
async function createThread(runtime, text) {
  // As the browser's user: the runtime shows each user only their own threads.
  const body = await chatkitRequest(
    runtime,
    {
      type: 'threads.create',
      params: { input: { content: [{ type: 'input_text', text }], attachments: [], inference_options: {} } },
    },
    { context, accept: 'text/event-stream' },
  );
  const events = body
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice(6)));
  const created = events.find((e) => e.type === 'thread.created');
  assert.ok(created, `no thread.created in ${body.slice(0, 300)}`);
  return created.thread.id;
}

const historyButton = (page) => page.getByRole('button', { name: 'History', exact: true });
const historyRegion = (page) => page.getByRole('region', { name: 'History' });
const rows = (page) => historyRegion(page).getByRole('listitem');
const title = (page) => page.locator('[data-part="thread-title"]');

/** The accessible name (aria-label or text) of the focused element in the shadow root. */
async function focused(page) {
  return page.evaluate(() => {
    const el = document.querySelector('chat-shell').shadowRoot.activeElement;
    if (!el) return null;
    return el.getAttribute('aria-label') || el.textContent.trim();
  });
}

async function openHistory(page) {
  await historyButton(page).click();
  await historyRegion(page).waitFor({ state: 'visible', timeout: 5_000 });
}

test('history: empty state, newest first, more rows on scroll, Escape and focus', async () => {
  const runtime = await startRuntime();
  const page = await newChatPage(context, `${runtime.url}/`, { logs: runtime });

  assert.equal(await historyButton(page).getAttribute('aria-expanded'), 'false');
  await page.getByRole('textbox', { name: 'Message' }).fill('a draft kept beside the history');
  await openHistory(page);
  assert.equal(await historyButton(page).getAttribute('aria-expanded'), 'true');
  await historyRegion(page).getByText('No conversations yet').waitFor({ timeout: 5_000 });
  // The history is a panel over the conversation: the conversation and its draft stay.
  assert.equal(await page.getByRole('textbox', { name: 'Message' }).inputValue(), 'a draft kept beside the history');
  await waitFor(async () => (await focused(page)) === 'History' && (await historyRegion(page).evaluate((s) => s.matches(':focus'))), {
    message: 'focus inside the history section',
  });
  await page.keyboard.press('Escape');
  await historyRegion(page).waitFor({ state: 'detached', timeout: 5_000 });
  assert.equal(await historyButton(page).getAttribute('aria-expanded'), 'false');
  assert.equal(await focused(page), 'History', 'focus did not go back to the History button');
  await page.getByRole('textbox', { name: 'Message' }).waitFor({ timeout: 5_000 });

  for (let i = 1; i <= 25; i++) {
    await createThread(runtime, `Topic ${String(i).padStart(2, '0')}`);
  }
  const listsBefore = runtime.linesMatching('threads.list').length;
  await openHistory(page);
  await waitFor(async () => (await rows(page).count()) === 20, {
    message: async () => `20 rows (got ${await rows(page).count()})`,
  });
  const names = await historyRegion(page).locator('[data-part="history-open"]').allTextContents();
  assert.deepEqual(names.slice(0, 3), ['Topic 25', 'Topic 24', 'Topic 23'], 'not newest first');
  assert.match(await rows(page).first().textContent(), /just now/);
  // Focus moved onto the first conversation.
  await waitFor(async () => (await focused(page)) === 'Topic 25', { message: 'focus on the first row' });
  assert.deepEqual(await axeViolations(page), [], 'accessibility of the history list');
  // The end of the list is out of view: nothing more was asked for yet. Its sentinel is
  // there and watched (the observer reports in the frames after); a page asked for would
  // show the list busy at once.
  await historyRegion(page).locator('[data-part="history-sentinel"]').waitFor({ state: 'attached' });
  await frames(page);
  assert.equal(await historyRegion(page).locator('.cs-history__groups').getAttribute('aria-busy'), 'false', 'more rows asked for before scrolling');
  assert.equal(await rows(page).count(), 20, 'more rows loaded before scrolling');
  assert.equal(runtime.linesMatching('threads.list').length, listsBefore + 1);

  await historyRegion(page).locator('.cs-history__scroller').evaluate((el) => {
    el.scrollTop = el.scrollHeight;
  });
  await waitFor(async () => (await rows(page).count()) === 25, {
    message: async () => `25 rows after scrolling (got ${await rows(page).count()})${page.logs()}`,
  });
  const all = await historyRegion(page).locator('[data-part="history-open"]').allTextContents();
  assert.equal(all.at(-1), 'Topic 01');
  assert.equal(new Set(all).size, 25, 'duplicate rows');
  // Grouped by day: all made just now.
  assert.deepEqual(await historyRegion(page).locator('.cs-history__group-title').allTextContents(), ['Today']);
  // The filter narrows the rows, and says so when none is left.
  const filter = historyRegion(page).getByRole('searchbox', { name: 'Filter conversations' });
  await filter.fill('topic 2');
  await waitFor(async () => (await rows(page).count()) === 6, { message: '6 rows for "topic 2"' });
  assert.deepEqual(
    (await historyRegion(page).locator('[data-part="history-open"]').allTextContents()).sort(),
    ['Topic 20', 'Topic 21', 'Topic 22', 'Topic 23', 'Topic 24', 'Topic 25'],
  );
  await filter.fill('no such topic');
  await historyRegion(page).locator('[data-part="history-no-match"]').waitFor();
  await filter.fill('');
  await waitFor(async () => (await rows(page).count()) === 25, { message: 'every row back' });
  assert.equal(runtime.linesMatching('threads.list').length, listsBefore + 2);
  const second = runtime.lines.filter((l) => l.includes('threads.list')).at(-1);
  assert.match(second, / 200 /);

  await page.keyboard.press('Escape');
  await historyRegion(page).waitFor({ state: 'detached', timeout: 5_000 });
  assert.equal(await focused(page), 'History');
  await finishPage(page);
});

test('history: select a thread, rename it inline, delete with confirmation', async () => {
  const runtime = await startRuntime();
  for (const topic of ['Alpha', 'Beta', 'Gamma']) await createThread(runtime, topic);
  const page = await newChatPage(context, `${runtime.url}/`, { logs: runtime });

  await openHistory(page);
  await historyRegion(page).getByRole('button', { name: 'Beta', exact: true }).click();
  await historyRegion(page).waitFor({ state: 'detached', timeout: 5_000 });
  await page.locator('article[data-role="user"]', { hasText: 'Beta' }).waitFor({ timeout: 5_000 });
  await page.locator('article[data-role="assistant"]').first().waitFor({ timeout: 5_000 });
  assert.equal(await title(page).textContent(), 'Beta');
  await waitFor(async () => (await focused(page)) === 'History', { message: 'focus back on the History button' });
  await runtime.waitForLine('threads.get_by_id 200');

  // The conversation shown is marked in the history.
  await openHistory(page);
  assert.equal(await historyRegion(page).getByRole('button', { name: 'Beta', exact: true }).getAttribute('aria-current'), 'true');
  assert.equal(await historyRegion(page).locator('[aria-current="true"]').count(), 1);
  // Rename: Escape cancels, Enter saves.
  await historyRegion(page).getByRole('button', { name: 'Rename Beta' }).click();
  const field = historyRegion(page).getByRole('textbox', { name: 'Conversation title' });
  await field.waitFor({ timeout: 5_000 });
  assert.equal(await field.inputValue(), 'Beta');
  await waitFor(async () => (await focused(page)) === 'Conversation title', { message: 'focus in the title field' });
  await field.fill('Not saved');
  await field.press('Escape');
  await field.waitFor({ state: 'detached', timeout: 5_000 });
  assert.ok(await historyRegion(page).isVisible(), 'Escape in the title field closed the history');
  await waitFor(async () => (await focused(page)) === 'Rename Beta', { message: 'focus back on the Rename button' });
  assert.equal(runtime.linesMatching('threads.update').length, 0);

  await historyRegion(page).getByRole('button', { name: 'Rename Beta' }).click();
  await field.fill('Beta renamed');
  await field.press('Enter');
  await historyRegion(page).getByRole('button', { name: 'Beta renamed', exact: true }).waitFor({ timeout: 5_000 });
  await runtime.waitForLine('threads.update 200');
  // The open thread's header follows.
  await waitFor(async () => (await title(page).textContent()) === 'Beta renamed', { message: 'the header title to follow the rename' });

  // Delete: Cancel keeps it, Delete removes it.
  await historyRegion(page).getByRole('button', { name: 'Delete Gamma' }).click();
  const confirm = historyRegion(page).getByRole('group', { name: 'Delete Gamma?' });
  await confirm.waitFor({ timeout: 5_000 });
  await waitFor(async () => (await focused(page)) === 'Cancel', { message: 'focus on Cancel' });
  assert.deepEqual(await axeViolations(page), [], 'accessibility of the delete confirmation');
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await confirm.waitFor({ state: 'detached', timeout: 5_000 });
  assert.equal(await rows(page).count(), 3);
  assert.equal(runtime.linesMatching('threads.delete').length, 0);

  await historyRegion(page).getByRole('button', { name: 'Delete Gamma' }).click();
  await confirm.getByRole('button', { name: 'Delete', exact: true }).click();
  await waitFor(async () => (await rows(page).count()) === 2, { message: 'the deleted row to go' });
  await runtime.waitForLine('threads.delete 200');
  assert.equal(await historyRegion(page).getByRole('button', { name: 'Gamma', exact: true }).count(), 0);

  // Deleting the open thread leaves a new chat.
  await historyRegion(page).getByRole('button', { name: 'Delete Beta renamed' }).click();
  await historyRegion(page).getByRole('group', { name: 'Delete Beta renamed?' }).getByRole('button', { name: 'Delete', exact: true }).click();
  await waitFor(async () => (await rows(page).count()) === 1, { message: 'the open thread to be deleted' });
  await page.keyboard.press('Escape');
  await waitFor(async () => (await title(page).textContent()) === 'New chat', { message: 'a new chat after deleting the open thread' });
  assert.equal(await page.locator('article').count(), 0);

  // What the server kept.
  await page.reload();
  await openHistory(page);
  await waitFor(async () => (await rows(page).count()) === 1, { message: 'one thread left after reload' });
  assert.deepEqual(await historyRegion(page).locator('[data-part="history-open"]').allTextContents(), ['Alpha']);
  await finishPage(page);
});

test('history survives a restart of the runtime (SQLite file)', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'chat-shell-e2e-'));
  const db = path.join(dir, 'history.db');
  try {
    let runtime = await startRuntime({ extraArgs: ['--db', db] });
    let page = await newChatPage(context, `${runtime.url}/`, { logs: runtime });
    await sendMessage(page, 'remember the tide tables');
    await waitForIdle(page);
    await page.close();
    await runtime.close();

    runtime = await startRuntime({ extraArgs: ['--db', db] });
    page = await newChatPage(context, `${runtime.url}/`, { logs: runtime });
    await openHistory(page);
    await historyRegion(page).getByRole('button', { name: 'remember the tide tables', exact: true }).click();
    await page.locator('article[data-role="user"]', { hasText: 'remember the tide tables' }).waitFor({ timeout: 5_000 });
    await page.locator('article[data-role="assistant"]').first().waitFor({ timeout: 5_000 });
    assert.equal(await title(page).textContent(), 'remember the tide tables');
    await finishPage(page);
    await runtime.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('switching quickly: late answers for the thread left never replace the one shown', async () => {
  const runtime = await startRuntime();
  const slowId = await createThread(runtime, 'Delayed thread A');
  await createThread(runtime, 'Quick thread B');
  const page = await newChatPage(context, `${runtime.url}/`, { logs: runtime });

  // A's answer is held until B is shown, then let through late.
  let lateAnswered = false;
  let late;
  let releaseA;
  const heldA = new Promise((resolve) => (releaseA = resolve));
  await page.route('**/chatkit', async (route) => {
    const body = route.request().postDataJSON();
    if (body?.type === 'threads.get_by_id' && body.params.thread_id === slowId) {
      late = route.request();
      await heldA;
      const response = await route.fetch();
      await route.fulfill({ response });
      lateAnswered = true;
      return;
    }
    await route.continue();
  });

  await openHistory(page);
  await historyRegion(page).getByRole('button', { name: 'Delayed thread A', exact: true }).click();
  // While A loads, the conversation says so.
  await page.getByRole('status').filter({ hasText: 'Loading conversation' }).waitFor({ timeout: 2_000 });
  await openHistory(page);
  await historyRegion(page).getByRole('button', { name: 'Quick thread B', exact: true }).click();
  await page.locator('article[data-role="user"]', { hasText: 'Quick thread B' }).waitFor({ timeout: 5_000 });
  assert.equal(await title(page).textContent(), 'Quick thread B');

  releaseA();
  await waitFor(() => lateAnswered, { timeout: 5_000, message: "A's delayed answer" });
  // The page got it whole; what it does with it is done in the frames after.
  await responseEnded(late);
  await frames(page);
  assert.equal(await title(page).textContent(), 'Quick thread B', "A's late answer replaced the title");
  assert.equal(await page.locator('article[data-role="user"]', { hasText: 'Delayed thread A' }).count(), 0, "A's late answer replaced the items");
  assert.equal(await page.locator('article[data-role="user"]').count(), 1);
  // A stale answer is dropped silently: no error for a thread nobody is waiting for.
  assert.equal(await page.locator('[data-part="thread-error"]').count(), 0);
  assert.equal(await page.locator('[data-part="thread-loading"]').count(), 0);

  // A stream in flight is no different: switching away drops its late events.
  await page.unroute('**/chatkit');
  await page.getByRole('button', { name: 'New chat' }).click();
  const slowStream = page.waitForRequest((r) => (r.postData() ?? '').includes('a slow answer please'));
  await sendMessage(page, 'a slow answer please');
  const slow = await slowStream;
  await waitFor(() => page.locator('article[data-role="assistant"]').count(), { message: 'the slow answer to start' });
  await openHistory(page);
  await historyRegion(page).getByRole('button', { name: 'Quick thread B', exact: true }).click();
  await page.locator('article[data-role="user"]', { hasText: 'Quick thread B' }).waitFor({ timeout: 5_000 });
  // Switching closed the stream its late events would come on; what came is handled in
  // the frames after.
  await responseEnded(slow);
  await frames(page);
  assert.equal(await page.locator('article[data-role="user"]', { hasText: 'a slow answer please' }).count(), 0);
  assert.equal(await title(page).textContent(), 'Quick thread B');
  assert.equal(await page.locator('article[data-role="assistant"][aria-busy="true"]').count(), 0, 'a stream is still running in B');
  await finishPage(page);
});

test('a long thread opens at its newest items and loads older ones upward, keeping the place', async () => {
  const runtime = await startRuntime({ extraArgs: ['--seed-thread', '70'] });
  const [line] = await runtime.waitForLine('seeded thread');
  const page = await newChatPage(context, `${runtime.url}/`, { logs: runtime });
  await openHistory(page);
  await historyRegion(page).getByRole('button', { name: 'Seeded thread (70 items)', exact: true }).click();
  // The newest item (the 35th answer) is on screen first.
  const newest = page.locator('article[data-role="assistant"]', { hasText: 'Seeded answer 35:' });
  await newest.waitFor({ timeout: 5_000 });
  await waitFor(() => newest.evaluate((el) => {
    const v = el.closest('.cs-viewport').getBoundingClientRect();
    const r = el.getBoundingClientRect();
    return r.top < v.bottom && r.bottom > v.top;
  }), { message: 'the newest answer in view' });
  assert.ok(line.includes('70 items'));
  const requests = runtime.lines.filter((l) => / (threads\.get_by_id|items\.list) /.test(l));
  // Both at once (one round trip), in whichever order they reach the log.
  assert.deepEqual(requests.map((l) => l.split(' ')[2]).sort(), ['items.list', 'threads.get_by_id'], requests.join('\n'));
  assert.equal(await page.locator('article').count(), 20);

  // Scroll up: older pages come in front (and the window of mounted items moves up to
  // them), the item that was on top stays where it was.
  const viewport = page.locator('.cs-viewport');
  // The number of the first question mounted.
  const firstTurn = () =>
    page.locator('article').first().evaluate((el) => Number(/Seeded (?:question|answer) (\d+)/.exec(el.textContent)?.[1] ?? NaN));
  for (let page_ = 0; page_ < 10 && (await firstTurn()) > 1; page_++) {
    const before = await firstTurn();
    const anchor = await page.locator('article').first().evaluate((el) => {
      el.dataset.anchor = '1';
      return el.getBoundingClientRect().top;
    });
    // Measured in the same task as the scroll: before any older page can arrive.
    const anchorTop = await viewport.evaluate((el) => {
      el.scrollTop = 0;
      return el.querySelector('article[data-anchor="1"]').getBoundingClientRect().top;
    });
    await waitFor(async () => (await firstTurn()) < before, {
      message: `older items (page ${page_})${page.logs()}`,
    });
    // The older page laid out, and the place kept, in the frames after it came.
    await frames(page);
    const moved = await page.locator('article[data-anchor="1"]').evaluate((el) => el.getBoundingClientRect().top);
    assert.ok(Math.abs(moved - anchorTop) <= 2, `the reader's place jumped by ${moved - anchorTop}px (was at ${anchor})`);
    await page.locator('article[data-anchor="1"]').evaluate((el) => delete el.dataset.anchor);
  }
  const first = await page.locator('article').first().textContent();
  assert.match(first, /Seeded question 1\b/);
  // Every item was loaded: 20, then older pages of 40.
  const lists = runtime.lines.filter((l) => / items\.list /.test(l));
  assert.equal(lists.length, 3, lists.join('\n'));
  await finishPage(page);
});

test('start screen: greeting and starter prompts start a thread', async () => {
  const runtime = await startRuntime();
  const page = await newChatPage(context, `${runtime.url}/`, { logs: runtime });
  const start = page.locator('[data-part="start-screen"]');
  await start.getByText('How can I help you today?').waitFor({ timeout: 5_000 });
  // The demo page sets starter prompts; without them there is no list.
  await page.evaluate(() => document.querySelector('chat-shell').removeAttribute('starter-prompts'));
  await waitFor(async () => (await page.getByRole('list', { name: 'Suggestions' }).count()) === 0, {
    message: 'no suggestions without starter prompts',
  });

  await page.evaluate(() => {
    const el = document.querySelector('chat-shell');
    el.setAttribute('greeting', 'What shall we plan?');
    el.setAttribute(
      'starter-prompts',
      JSON.stringify([
        { title: 'Plan a trip', prompt: 'Plan a trip to Lisbon in markdown', icon: '✈️' },
        { title: 'Show a task', prompt: 'Run a task for me' },
      ]),
    );
  });
  await start.getByText('What shall we plan?').waitFor({ timeout: 5_000 });
  const suggestions = page.getByRole('list', { name: 'Suggestions' });
  assert.equal(await suggestions.getByRole('listitem').count(), 2);
  await suggestions.getByRole('button', { name: 'Plan a trip' }).click();
  await page.locator('article[data-role="user"]', { hasText: 'Plan a trip to Lisbon in markdown' }).waitFor({ timeout: 5_000 });
  await runtime.waitForLine('threads.create 200');
  await waitForIdle(page);
  assert.equal(await start.count(), 0, 'the start screen stays over a conversation');
  await page.getByRole('button', { name: 'New chat' }).click();
  await start.getByText('What shall we plan?').waitFor({ timeout: 5_000 });

  // A broken value falls back to no prompts, with a warning, never an error.
  await page.evaluate(() => document.querySelector('chat-shell').setAttribute('starter-prompts', '[oops'));
  await waitFor(async () => (await page.getByRole('list', { name: 'Suggestions' }).count()) === 0, {
    message: 'the prompts to go',
  });
  await finishPage(page);
});

test('ghost messages reach the server but are never shown, before or after a reload', async () => {
  const runtime = await startRuntime();
  const page = await newChatPage(context, `${runtime.url}/`, { logs: runtime });
  const bodies = [];
  page.on('request', (r) => {
    if (r.url().endsWith('/chatkit')) bodies.push(r.postDataJSON());
  });
  const sent = await page.evaluate(() =>
    document.querySelector('chat-shell').sendUserMessage({
      text: 'Secret instructions: answer in markdown',
      ghost: true,
      metadata: { origin: 'test' },
    }),
  );
  assert.match(sent.threadId, /\S/, 'sendUserMessage resolves with the thread');
  await page.locator('article[data-role="assistant"]').first().waitFor({ timeout: 5_000 });
  await waitForIdle(page);
  assert.equal(await page.locator('article[data-role="user"]').count(), 0, 'the ghost message is shown');
  const create = bodies.find((b) => b.type === 'threads.create');
  assert.deepEqual(create.params.input.inference_options, { ghost: true });
  assert.deepEqual(create.metadata, { origin: 'test' });

  // A visible message after it.
  await sendMessage(page, 'and now a visible one');
  await waitForIdle(page);
  assert.equal(await page.locator('article[data-role="user"]').count(), 1);

  await page.reload();
  await openHistory(page);
  // The ghost text never names the thread: the first visible message does.
  await historyRegion(page).getByRole('button', { name: 'and now a visible one', exact: true }).click();
  await page.locator('article[data-role="user"]', { hasText: 'and now a visible one' }).waitFor({ timeout: 5_000 });
  assert.equal(await page.locator('article[data-role="user"]').count(), 1, 'the ghost message is shown after a reload');
  assert.equal(await page.locator('article[data-role="assistant"]').count(), 2);
  await finishPage(page);
});

test('untitled threads (as the official SDK sends them) read as their first message, fetched only for rows in view', async () => {
  const runtime = await startRuntime();
  const page = await newChatPage(context, `${runtime.url}/`, { logs: runtime });
  const texts = Array.from({ length: 12 }, (_, i) => `question number ${i + 1} about animals`);
  for (const text of texts) {
    await page.evaluate(() => document.querySelector('chat-shell').setThreadId(null));
    await page.evaluate((text) => document.querySelector('chat-shell').sendUserMessage({ text }), text);
  }
  // The real runtime answers; its threads lose their titles on the way, as the SDK's have none.
  const previewRequests = [];
  await page.route('**/chatkit', async (route) => {
    const body = route.request().postDataJSON();
    if (body.type === 'items.list' && body.params.order === 'asc') previewRequests.push(body.params.thread_id);
    if (body.type !== 'threads.list') return route.fallback();
    const response = await route.fetch();
    const json = await response.json();
    for (const thread of json.data) thread.title = null;
    return route.fulfill({ response, json });
  });
  // A new chat in a short element: no thread is open, and only a few rows fit.
  await page.reload();
  await page.evaluate(() => { document.querySelector('chat-shell').style.height = '320px'; });
  await page.getByRole('textbox', { name: 'Message' }).waitFor();
  await openHistory(page);
  const newest = texts.at(-1);
  await historyRegion(page).getByRole('button', { name: newest, exact: true }).waitFor({ timeout: 5_000 });
  const rowCount = await rows(page).count();
  assert.ok(rowCount >= texts.length, `${rowCount} rows`);
  assert.ok(previewRequests.length < rowCount, `only rows in view asked for a preview: ${previewRequests.length} of ${rowCount}`);
  // Scrolling down shows the rest, each under its own first message.
  await page.locator('.cs-history__scroller').evaluate((el) => { el.scrollTop = el.scrollHeight; });
  await historyRegion(page).getByRole('button', { name: texts[0], exact: true }).waitFor({ timeout: 5_000 });
  assert.equal(new Set(previewRequests).size, previewRequests.length, 'each thread asked once');
  await page.unroute('**/chatkit');
  await finishPage(page);
  await runtime.close();
});
