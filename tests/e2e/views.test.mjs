// Tool-pushed views over the thread channel: the tab strip, the Diff view, two
// tabs in sync, replay on reload, clearing, unknown types, the stale mark while the runtime
// is down, and answers that survive a reload. Real runtime, real HTTP, headless Chromium.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  startRuntime, openBrowser, newChatPage, sendMessage, waitFor, waitForIdle, createdThreadId,
  axeViolations, close, isStreaming, chatkitRequest, manyFiles, CALLBACK_TOKEN, pushView, frames,
  imagesSettled,
} from './harness.mjs';

after(close);

function runtimeArgs(extra = []) {
  return { extraArgs: ['--callback-token', CALLBACK_TOKEN, '--channel-keepalive-ms', '500', ...extra] };
}

const PATCH = [
  'diff --git a/src/main.rs b/src/main.rs',
  'index 1111111..2222222 100644',
  '--- a/src/main.rs',
  '+++ b/src/main.rs',
  '@@ -1,3 +1,4 @@',
  ' fn main() {',
  '+    println!("hello");',
  '     run();',
  ' }',
  '',
].join('\n');

/** A page on a thread of its own, with one answered message; returns { page, threadId }. */
async function pageWithThread(context, runtime) {
  const page = await newChatPage(context, `${runtime.url}/`, { events: ['chat.thread.created', 'chat.error', 'chat.diagnostic'] });
  await sendMessage(page, 'hello there');
  const threadId = await createdThreadId(page);
  await waitForIdle(page);
  return { page, threadId };
}

const diffTab = (page) => page.getByRole('tab', { name: 'Diff' });
const chatTab = (page) => page.getByRole('tab', { name: 'Chat' });

async function tabCount(page) {
  return page.getByRole('tab').count();
}

test('a pushed diff shows in every page on the thread, replays on reload, and clears', async () => {
  const runtime = await startRuntime(runtimeArgs());
  const context = await openBrowser();
  const { page: first, threadId } = await pageWithThread(context, runtime);
  const second = await newChatPage(context, `${runtime.url}/`, { events: ['chat.error', 'chat.diagnostic'], threadId });
  // Both pages show the thread, and no tab strip without a view.
  await second.locator('article[data-role="user"]', { hasText: 'hello there' }).waitFor({ timeout: 5_000 });
  assert.equal(await tabCount(first), 0, 'no tab strip without a view');

  const pushed = await pushView(runtime, threadId, 'diff', { patch: PATCH });
  assert.equal(pushed.status, 200, JSON.stringify(pushed.body));
  for (const page of [first, second]) {
    await diffTab(page).waitFor({ timeout: 5_000 });
    assert.equal(await page.getByRole('tablist').count(), 1);
    assert.equal(await chatTab(page).getAttribute('aria-selected'), 'true');
  }

  // Switching keeps the draft and the conversation.
  const composer = first.getByRole('textbox', { name: 'Message' });
  await composer.fill('a draft that must survive');
  await diffTab(first).click();
  assert.equal(await diffTab(first).getAttribute('aria-selected'), 'true');
  const panel = first.getByRole('tabpanel');
  await panel.getByText('println!("hello");', { exact: false }).first().waitFor({ timeout: 5_000 });
  await chatTab(first).click();
  assert.equal(await composer.inputValue(), 'a draft that must survive');

  // Keyboard: arrows move between the tabs and show them.
  await chatTab(first).focus();
  await first.keyboard.press('ArrowRight');
  assert.equal(await diffTab(first).getAttribute('aria-selected'), 'true');
  assert.equal(await first.evaluate(() => document.querySelector('chat-shell').shadowRoot.activeElement?.textContent?.trim()), 'Diff');
  await first.keyboard.press('Home');
  assert.equal(await chatTab(first).getAttribute('aria-selected'), 'true');

  // The open view updates in place.
  await diffTab(second).click();
  await pushView(runtime, threadId, 'diff', { patch: PATCH.replace('hello', 'updated in place') });
  await second.getByRole('tabpanel').getByText('updated in place', { exact: false }).first().waitFor({ timeout: 5_000 });
  assert.match(await second.locator('chat-shell').locator('[data-part="view-updated"]').textContent(), /^Updated /);

  // A reload replays the view.
  await second.reload();
  await waitFor(() => second.evaluate(() => typeof document.querySelector('chat-shell')?.setThreadId === 'function'), {
    message: 'the element to be defined again',
  });
  await second.evaluate((id) => document.querySelector('chat-shell').setThreadId(id), threadId);
  await diffTab(second).waitFor({ timeout: 5_000 });

  // Empty content clears the view: the tab goes, the conversation shows again.
  await diffTab(first).click();
  assert.equal((await pushView(runtime, threadId, 'diff', {})).status, 200);
  for (const page of [first, second]) {
    await waitFor(async () => (await tabCount(page)) === 0, { message: 'the Diff tab to go' });
  }
  assert.equal(await first.locator('chat-shell').locator('.cs-conversation--covered').count(), 0);
  assert.deepEqual([...first.consoleErrors, ...second.consoleErrors], []);
});

test('a change set of many files keeps the first file on the first screen; layout and collapse work', async () => {
  const runtime = await startRuntime(runtimeArgs());
  const context = await openBrowser();
  const { page, threadId } = await pageWithThread(context, runtime);
  assert.equal((await pushView(runtime, threadId, 'diff', { patch: manyFiles(120) })).status, 200);
  await diffTab(page).click();
  const panel = page.getByRole('tabpanel');
  const firstFile = panel.locator('[data-part="diff-file"][data-path="src/m0.rs"]');
  const added = firstFile.locator('[data-part="diff-line"]').filter({ hasText: 'new_0();' });
  await added.first().waitFor({ timeout: 5_000 });
  // On screen without scrolling: inside the panel's box, though the file list has 120 entries.
  const inView = await page.evaluate(() => {
    const root = document.querySelector('chat-shell').shadowRoot;
    const panel = root.querySelector('[data-part="view-panel"]').getBoundingClientRect();
    const line = [...root.querySelectorAll('[data-path="src/m0.rs"] [data-part="diff-line"]')].pop().getBoundingClientRect();
    return line.height > 0 && line.top >= panel.top && line.bottom <= panel.bottom;
  });
  assert.equal(inView, true, 'the first file\'s lines are visible without scrolling');
  assert.equal(await panel.getByRole('list', { name: 'Changed files' }).getByRole('button').count(), 120);

  // Side by side: the removed and added line share a row; Unified puts them back.
  const layout = panel.getByRole('group', { name: 'Layout' });
  await layout.getByRole('button', { name: 'Side by side' }).click();
  assert.equal(await layout.getByRole('button', { name: 'Side by side' }).getAttribute('aria-pressed'), 'true');
  await waitFor(() => firstFile.locator('.cs-diff__pair').count().then((n) => n > 0), { message: 'side-by-side rows' });
  const pair = firstFile.locator('.cs-diff__pair').filter({ hasText: 'new_0();' }).first();
  assert.match(await pair.textContent(), /old_0\(\);[\s\S]*new_0\(\);/);
  await layout.getByRole('button', { name: 'Unified' }).click();
  await waitFor(() => firstFile.locator('.cs-diff__pair').count().then((n) => n === 0), { message: 'unified rows' });

  // Collapse hides the file's lines and says so; expanding shows them again.
  const toggle = firstFile.locator('[data-part="diff-file-toggle"]');
  assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
  await toggle.click();
  assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
  assert.equal(await added.first().isVisible(), false);
  await toggle.press('Enter');
  assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
  await added.first().waitFor({ state: 'visible', timeout: 5_000 });
  assert.deepEqual(page.consoleErrors, []);
});

test('an unknown view type is ignored and reported once as a diagnostic', async () => {
  const runtime = await startRuntime(runtimeArgs());
  const context = await openBrowser();
  const { page, threadId } = await pageWithThread(context, runtime);
  await pushView(runtime, threadId, 'flamegraph', { svg: '<svg onload="window.__pwned=1"></svg>' });
  await pushView(runtime, threadId, 'flamegraph', { svg: 'again' });
  await waitFor(() => page.evaluate(() => window.__chatEvents.some((e) => e.type === 'chat.diagnostic' && e.detail.kind === 'unknown_view')), {
    message: 'an unknown_view diagnostic',
  });
  // A tab would have come with the diagnostic, in the frames after.
  await frames(page);
  assert.equal(await tabCount(page), 0);
  // The channel is in order: once a diff pushed after them shows, the second flamegraph
  // came too.
  await pushView(runtime, threadId, 'diff', { patch: PATCH });
  await diffTab(page).waitFor({ timeout: 5_000 });
  const diagnostics = await page.evaluate(() => window.__chatEvents.filter((e) => e.type === 'chat.diagnostic' && e.detail.kind === 'unknown_view'));
  assert.deepEqual(diagnostics.map((d) => d.detail.name), ['flamegraph']);
  // A view type the runtime would have to show raw is refused at the callback.
  const refused = await pushView(runtime, threadId, '<img src=x onerror=alert(1)>', { patch: PATCH });
  assert.equal(refused.status, 400);
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
});

test('XSS in patch lines and file names stays text', async () => {
  const runtime = await startRuntime(runtimeArgs());
  const context = await openBrowser();
  const { page, threadId } = await pageWithThread(context, runtime);
  await page.evaluate(() => { window.__pwned = 0; });
  const evil = '<img src=x onerror="window.__pwned=1">';
  // A name like that is quoted by git (C-style, `"` escaped), as here.
  const quoted = (prefix) => `"${prefix}/${evil.replaceAll('"', '\\"')}.rs"`;
  const patch = [
    `diff --git ${quoted('a')} ${quoted('b')}`,
    'new file mode 100644',
    '--- /dev/null',
    `+++ ${quoted('b')}`,
    '@@ -0,0 +1,2 @@',
    `+${evil}`,
    '+<script>window.__pwned=2</script>',
    '',
  ].join('\n');
  assert.equal((await pushView(runtime, threadId, 'diff', { patch })).status, 200);
  await diffTab(page).click();
  const panel = page.getByRole('tabpanel');
  await panel.getByText('<script>window.__pwned=2</script>', { exact: false }).first().waitFor({ timeout: 5_000 });
  await imagesSettled(page);
  assert.equal(await page.evaluate(() => window.__pwned), 0);
  assert.equal(await page.locator('chat-shell').locator('[data-part="view-panel"] img, [data-part="view-panel"] script').count(), 0);
  // The file name is shown as text, as it was written.
  const file = page.locator('chat-shell').locator('[data-part="diff-file"]');
  assert.equal(await file.count(), 1);
  assert.equal(await file.getAttribute('data-path'), `${evil}.rs`);
  assert.equal(await page.locator('chat-shell').locator('[data-part="diff-error"]').count(), 0);
  assert.deepEqual(await axeViolations(page), []);
});

test('a patch with miscounted hunks shows every file and line, with a quiet note', async () => {
  const runtime = await startRuntime(runtimeArgs());
  const context = await openBrowser();
  const { page, threadId } = await pageWithThread(context, runtime);
  // As agents write them: the first hunk says 3 old lines for 2, the second file's says
  // 1 new line for 3, and a stray line sits inside the last hunk.
  const patch = [
    'diff --git a/src/lib.rs b/src/lib.rs',
    '--- a/src/lib.rs',
    '+++ b/src/lib.rs',
    '@@ -1,3 +1,3 @@',
    ' pub fn lib() {',
    '-    old_call();',
    '+    new_call();',
    '@@ -20,2 +20,2 @@ impl Lib {',
    ' fn a() {}',
    '+fn b() {}',
    ' fn c() {}',
    'diff --git a/README.md b/README.md',
    '--- a/README.md',
    '+++ b/README.md',
    '@@ -1 +1 @@',
    '-# Old title',
    '+# New title',
    '+',
    '...',
    '+More words.',
    '',
  ].join('\n');
  assert.equal((await pushView(runtime, threadId, 'diff', { patch })).status, 200);
  await diffTab(page).click();
  const panel = page.getByRole('tabpanel');
  await panel.getByText('More words.').first().waitFor({ timeout: 5_000 });
  const files = page.locator('chat-shell').locator('[data-part="diff-file"]');
  assert.deepEqual(await files.evaluateAll((fs) => fs.map((f) => f.dataset.path)), ['src/lib.rs', 'README.md']);
  for (const text of ['new_call();', 'fn b() {}', '# New title']) {
    assert.equal(await panel.locator('[data-part="diff-line"]').filter({ hasText: text }).count(), 1, text);
  }
  assert.match(await panel.locator('[data-part="diff-summary"]').textContent(), /2 files changed/);
  assert.match(await panel.locator('[data-part="diff-recounted"]').textContent(), /Line counts fixed in 3 hunks/);
  assert.match(await panel.locator('[data-part="diff-skipped"]').textContent(), /1 unreadable/);
  assert.equal(await panel.locator('[data-part="diff-error"]').count(), 0);
  assert.deepEqual(page.consoleErrors, []);
});

test('the views go stale when the runtime stops and recover when it returns', async () => {
  // The same port and database file across the restart, as a real restart would have.
  const { mkdtemp } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const path = await import('node:path');
  const dir = await mkdtemp(path.join(tmpdir(), 'cs-views-'));
  const db = path.join(dir, 'runtime.db');
  const dbArgs = (port) => ({
    extraArgs: ['--callback-token', CALLBACK_TOKEN, '--channel-keepalive-ms', '500', '--db', db, '--port', String(port)],
  });
  let runtime = await startRuntime(dbArgs(0));
  const port = runtime.port;
  const context = await openBrowser();
  const { page, threadId } = await pageWithThread(context, runtime);
  await pushView(runtime, threadId, 'diff', { patch: PATCH });
  await diffTab(page).click();
  const stale = page.locator('chat-shell').locator('[data-part="view-stale"]');
  assert.equal(await stale.count(), 0);
  await runtime.close();
  await stale.waitFor({ timeout: 10_000 });
  assert.match(await stale.textContent(), /Out of date/);
  runtime = await startRuntime(dbArgs(port));
  await waitFor(async () => (await stale.count()) === 0, { timeout: 20_000, message: 'the stale mark to go' });
  // Live again: a new push arrives.
  await pushView(runtime, threadId, 'diff', { patch: PATCH.replace('hello', 'after the restart') });
  await page.getByRole('tabpanel').getByText('after the restart', { exact: false }).first().waitFor({ timeout: 5_000 });
});

test('the edit scenario pushes its diff through the callback into the open thread', async () => {
  const runtime = await startRuntime(runtimeArgs());
  const context = await openBrowser();
  const page = await newChatPage(context, `${runtime.url}/`);
  await sendMessage(page, 'edit');
  await diffTab(page).waitFor({ timeout: 15_000 });
  await waitForIdle(page, { timeout: 30_000 });
  await diffTab(page).click();
  assert.ok((await page.locator('chat-shell').locator('[data-part="diff-view"]').count()) > 0);
  assert.equal(await isStreaming(page), false);
});

// ---- answers that survive a reload ------------------------------------------------------

/** The last assistant message: its body text, status and aria-busy (null if none). */
function lastAnswerState(page) {
  return page.evaluate(() => {
    const articles = document.querySelector('chat-shell').shadowRoot.querySelectorAll('article[data-role="assistant"]');
    const last = articles[articles.length - 1];
    return last ? { text: last.querySelector('.cs-msg__body')?.textContent ?? '', status: last.getAttribute('data-status'), busy: last.getAttribute('aria-busy') } : null;
  });
}

async function storedAnswer(runtime, context, threadId) {
  const thread = await chatkitRequest(runtime, { type: 'threads.get_by_id', params: { thread_id: threadId } }, { context });
  const answer = thread.items.data.filter((i) => i.type === 'assistant_message').at(-1);
  return answer.content.map((c) => c.text).join('');
}

/** A page that sent `text` and reloaded mid-answer, then opened the thread again. */
async function reloadedMidAnswer(context, runtime, text) {
  const page = await newChatPage(context, `${runtime.url}/`, { events: ['chat.thread.created', 'chat.error'] });
  await sendMessage(page, text);
  const threadId = await createdThreadId(page);
  await waitFor(async () => ((await lastAnswerState(page))?.text.length ?? 0) > 200, { message: 'some of the answer' });
  await page.reload();
  await waitFor(() => page.evaluate(() => typeof document.querySelector('chat-shell')?.setThreadId === 'function'), {
    message: 'the element to be defined again',
  });
  await page.evaluate((id) => document.querySelector('chat-shell').setThreadId(id), threadId);
  return { page, threadId };
}

test('an answer survives a reload mid-stream: the page follows it to the end, nothing twice', async () => {
  const runtime = await startRuntime({ paceMs: 4, ...runtimeArgs() });
  const context = await openBrowser();
  const { page, threadId } = await reloadedMidAnswer(context, runtime, 'long');
  await runtime.waitForLine(new RegExp(`stream closed by client: threads.create thread=${threadId} .*\\(the run goes on\\)`));
  // Still running after the reload: shown streaming, with Stop.
  await page.getByRole('button', { name: 'Stop' }).waitFor({ timeout: 5_000 });
  // Stop can be painted from thread.run.started a frame before the snapshot's message.
  const during = await waitFor(async () => {
    const answer = await lastAnswerState(page);
    return answer?.busy === 'true' ? answer : null;
  }, { message: 'the answer shown streaming after the reload' });
  assert.equal(during.busy, 'true', JSON.stringify(during));
  await waitForIdle(page, { timeout: 60_000 });
  const after = await lastAnswerState(page);
  assert.equal(after.status, 'done');
  const stored = await storedAnswer(runtime, context, threadId);
  assert.ok(stored.length > 50_000, `the whole answer was stored (${stored.length} bytes)`);
  // Rendered markdown is not the source text; the source's last words and its length in
  // the page say the answer is whole and was not doubled.
  const tail = stored.trim().split(/\s+/).slice(-3).join(' ').replace(/[*_`#>]/g, '');
  assert.ok(after.text.replace(/\s+/g, ' ').includes(tail), `the page shows the end: …${tail}`);
  assert.ok(after.text.length < stored.length * 1.05, `not doubled: ${after.text.length} shown for ${stored.length} stored`);
  assert.equal(await page.locator('chat-shell').locator('article[data-role="assistant"]').count(), 1);
  assert.deepEqual(page.consoleErrors, []);
});

test('a second page follows a run started in the first; Stop there stops it on the server', async () => {
  const runtime = await startRuntime({ paceMs: 4, ...runtimeArgs() });
  const context = await openBrowser();
  const { page: first, threadId } = await pageWithThread(context, runtime);
  const second = await newChatPage(context, `${runtime.url}/`, { events: ['chat.error', 'chat.diagnostic'], threadId });
  // The second page shows the thread before the run starts.
  await second.locator('article[data-role="user"]', { hasText: 'hello there' }).waitFor({ timeout: 5_000 });
  await sendMessage(first, 'long');
  // The second page shows the run live: an answer streaming, with Stop.
  await second.getByRole('button', { name: 'Stop' }).waitFor({ timeout: 5_000 });
  await waitFor(async () => ((await lastAnswerState(second))?.text.length ?? 0) > 500, { message: 'the run in the second page' });
  await second.getByRole('button', { name: 'Stop' }).click();
  await runtime.waitForLine(new RegExp(`run cancelled: .*thread=${threadId} `));
  for (const [name, page] of [['second', second], ['first', first]]) {
    // A page behind another gets no animation frames to show what changed.
    await page.bringToFront();
    let seen;
    await waitFor(async () => (seen = await lastAnswerState(page))?.status === 'stopped', {
      timeout: 10_000,
      message: () => `the answer stopped in the ${name} page: ${JSON.stringify({ ...seen, text: undefined })}\n${runtime.lines.join('\n')}`,
    });
  }
  const stored = await storedAnswer(runtime, context, threadId);
  assert.ok(stored.length < 90_000, `stopped early: ${stored.length} bytes stored`);
});

test('a channel refused at its client address cap is tried again; one that expires reconnects from its cursor', async () => {
  // One channel per client address: the second page's is refused (429) until the first goes.
  const runtime = await startRuntime(runtimeArgs(['--max-channels-per-client', '1', '--channel-lifetime-secs', '3']));
  const context = await openBrowser();
  const { page: first } = await pageWithThread(context, runtime);
  const { page: second, threadId } = await pageWithThread(context, runtime);
  await runtime.waitForLine(/threads\.subscribe 429/);
  assert.equal((await pushView(runtime, threadId, 'diff', { patch: PATCH })).status, 200);
  await first.close();
  await diffTab(second).waitFor({ timeout: 20_000 });
  // Channels expire (3 s here) and the page reconnects from its cursor: later pushes arrive.
  await runtime.waitForLine(new RegExp(`channel expired: thread=${threadId}`), { timeout: 10_000 });
  await pushView(runtime, threadId, 'diff', { patch: PATCH.replace('hello', 'after the expiry') });
  await diffTab(second).click();
  await second.getByRole('tabpanel').getByText('after the expiry', { exact: false }).first().waitFor({ timeout: 10_000 });
  const unsupported = await second.evaluate(() =>
    window.__chatEvents.filter((e) => e.type === 'chat.diagnostic' && e.detail.kind === 'channel_unsupported').length);
  assert.equal(unsupported, 0, 'a refusal to come back later is not taken for a server without the channel');
  // The browser logs each refused request (429) as a failed load; nothing else is an error.
  assert.deepEqual(second.consoleErrors.filter((e) => !/status of 429/.test(e)), []);
});
