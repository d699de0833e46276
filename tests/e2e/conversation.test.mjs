// What an answer holds, against the reference runtime over real HTTP: progress updates,
// tasks and workflows, citations, notices, message actions, generated images, and
// scrolling while it streams. (Sending, Stop, Retry, failures and timeouts:
// stream.test.mjs.)
//
// One runtime (pace 20 ms) and one browser serve every test; each test opens its own page,
// so each starts a new thread. The scrolling test has its own runtime (pace 5 ms).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  assistantMessages,
  chatkitRequest,
  close,
  createdThreadId,
  finishPage,
  frames,
  isStreaming,
  lastAnswerText,
  newChatPage,
  openBrowser,
  recorded,
  sendMessage,
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

test('progress updates show outside the messages and go away when the answer is done', async () => {
  const page = await newChatPage(context, `${runtime.url}/`, { events: true, logs: runtime });
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
  await finishPage(page);
});

test('tasks and workflows render, workflows are open while running and toggle with the keyboard', async () => {
  const page = await newChatPage(context, `${runtime.url}/`, { events: true, logs: runtime });
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
  await finishPage(page);
});

test('citations: markers in the text and a list of sources with safe links', async () => {
  const page = await newChatPage(context, `${runtime.url}/`, { events: true, logs: runtime });
  await sendMessage(page, 'annotation');
  await waitForIdle(page);
  const answer = assistantMessages(page).last();
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
  await finishPage(page);
});

test('notices: three levels, one dismissed', async () => {
  const page = await newChatPage(context, `${runtime.url}/`, { events: true, logs: runtime });
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
  await finishPage(page);
});

test('message actions: Copy copies the markdown, Good response is sent', async () => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: runtime.url });
  const page = await newChatPage(context, `${runtime.url}/`, { events: true, logs: runtime });
  await sendMessage(page, 'copy markdown please');
  await waitForIdle(page);

  // The exact stored text, from the runtime.
  const threadId = await createdThreadId(page);
  const thread = await chatkitRequest(runtime, { type: 'threads.get_by_id', params: { thread_id: threadId } }, { context });
  const stored = thread.items.data.filter((i) => i.type === 'assistant_message').at(-1);
  const markdown = stored.content.map((c) => c.text).join('');
  assert.match(markdown, /## A streamed markdown answer/);

  const answer = assistantMessages(page).last();
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
  await finishPage(page);
});

test('a generated image shows a progress bar, then the image', async () => {
  const page = await newChatPage(context, `${runtime.url}/`, { events: true, logs: runtime });
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
  await finishPage(page);
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
  // The wheel's scroll is over: the view holds still from one frame to the next.
  const settled = await waitFor(
    async () => {
      const before = await metrics();
      await frames(page);
      const now = await metrics();
      return now.top === before.top ? now : null;
    },
    { timeout: 3_000, message: async () => `the scroll to end: ${JSON.stringify(await metrics())}` },
  );
  // Text keeps arriving; the view stays put.
  await waitFor(async () => (await metrics()).height > settled.height + 200, {
    timeout: 10_000,
    message: async () => `more text to arrive: ${JSON.stringify({ settled, now: await metrics() })}${logs()}`,
  });
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
  // And it follows the answer again: more text came (or the answer ended), and the view
  // followed it in the frames after.
  const reached = await metrics();
  await waitFor(async () => (await metrics()).height > reached.height || !(await isStreaming(page)), {
    timeout: 10_000,
    message: 'more text after Scroll to bottom',
  });
  await frames(page);
  const following = await metrics();
  assert.ok(
    following.height - following.top - following.client < 60,
    `not following after Scroll to bottom: ${JSON.stringify(following)}`,
  );
  assert.deepEqual(page.consoleErrors, [], 'console errors on the page');
  await page.close();
  await paced.close();
});
