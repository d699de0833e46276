// Walking skeleton: a message typed into <chat-shell> goes to the reference
// runtime, whose scripted markdown answer streams back in small deltas and is
// rendered progressively and safely.

import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { breakPack, close, distName, newPage, openBrowser, sleep, startRuntime, waitFor } from './harness.mjs';

after(close);

const STREAM_TIMEOUT_MS = 20_000;

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
  const deadline = Date.now() + STREAM_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const state = await assistantState(page, index);
    record(state);
    if (state) {
      const streaming = state.busy || (await stop.count()) > 0;
      if (streaming) {
        sawStreaming = true;
      } else if ((await send.count()) > 0) {
        finished = true;
        break;
      }
    }
    await sleep(15);
  }
  record(await assistantState(page, index));
  return { snapshots, finished, sawStreaming };
}

/** Types `text` into the composer and sends it with Enter (Send must be enabled first). */
async function sendMessage(page, text) {
  const composer = page.getByRole('textbox', { name: 'Message' });
  const send = page.getByRole('button', { name: 'Send' });
  await composer.click();
  await composer.pressSequentially(text);
  await waitFor(() => send.isEnabled({ timeout: 1_000 }), {
    timeout: 5_000,
    message: `the Send button to be enabled with "${text}" in the composer`,
  });
  await composer.press('Enter');
}

test('walking skeleton: a markdown answer streams in and renders', async () => {
  const runtime = await startRuntime({ paceMs: 15 });
  const context = await openBrowser();
  const page = await newPage(context, `${runtime.url}/`);
  const logs = () => `runtime output:\n${runtime.lines.join('\n')}\nconsole errors:\n${page.consoleErrors.join('\n')}`;

  // First message: creates the thread.
  await sendMessage(page, 'hello markdown');
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

  const creates = await runtime.waitForLine('threads.create');
  await sleep(100); // a duplicate request would be logged by now
  assert.equal(runtime.linesMatching('threads.create').length, 1, `expected one threads.create request\n${logs()}`);
  assert.equal(creates.length, 1);

  // Second message: goes to the same thread. sendMessage checks that Send is enabled again.
  await sendMessage(page, 'again');
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
  await sleep(300);
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
