// Syntax highlighting (src/chunks/highlight.rs, chat_shell_core::highlight), in a real
// Chromium against the real runtime:
// - a streamed answer's code blocks are highlighted once each, when their fence closes; the
//   open tail is never highlighted (the work is counted with a MutationObserver, not timed);
// - the highlighter is a part of its own, fetched with the first code block, never before;
// - code that is HTML, or tries to break out of its block, stays text; nothing runs;
// - Copy gives the plain text; unknown languages stay plain;
// - a pushed diff of a known file is highlighted, its changed words still marked;
// - axe is clean with highlighted code, light and dark.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  startRuntime, openBrowser, newChatPage, sendMessage, waitFor, runOver, close, axeViolations,
  createdThreadId, recordEvents, waitForIdle, CALLBACK_TOKEN, pushView,
} from './harness.mjs';

const CLASSES = [
  'keyword', 'type', 'function', 'string', 'number', 'literal', 'comment', 'meta', 'tag',
  'attribute', 'property', 'variable', 'heading', 'inserted', 'deleted',
].map((k) => `cs-tok-${k}`);

let runtime;
let context;

before(async () => {
  runtime = await startRuntime({ paceMs: 2, extraArgs: ['--callback-token', CALLBACK_TOKEN, '--channel-keepalive-ms', '500'] });
  context = await openBrowser();
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: runtime.url });
  await context.addInitScript(() => {
    window.__ran = 0;
    for (const name of ['alert', 'confirm', 'prompt']) window[name] = () => { window.__ran += 1; };
  });
});
after(close);

/** Counts, per code element, how often its children were replaced by highlighted tokens,
 * and whether tokens ever appeared in the open tail. */
async function watchHighlighting(page) {
  await page.evaluate(() => {
    const root = document.querySelector('chat-shell').shadowRoot;
    const passes = new Map();
    window.__hl = { passes, inTail: 0, codes: [] };
    new MutationObserver((records) => {
      for (const r of records) {
        const tokens = [...r.addedNodes].some((n) => n.nodeType === 1 && /\bcs-tok-/.test(n.className));
        if (!tokens) continue;
        if (r.target.closest?.('.cs-md__tail')) window.__hl.inTail += 1;
        if (r.target.localName === 'code') {
          if (!passes.has(r.target)) window.__hl.codes.push(r.target);
          passes.set(r.target, (passes.get(r.target) ?? 0) + 1);
        }
      }
    }).observe(root, { childList: true, subtree: true });
  });
}

const hlStats = (page) =>
  page.evaluate(() => ({
    inTail: window.__hl.inTail,
    passes: window.__hl.codes.map((c) => window.__hl.passes.get(c)),
    lines: window.__hl.codes.map((c) => c.getAttribute('data-hl')),
  }));

const highlighterFetched = (page) =>
  page.evaluate(() => performance.getEntriesByType('resource').some((e) => /split_highlight-[0-9a-f]{16}\.wasm/.test(e.name)));

test('code in an answer is highlighted once per closed fence; hostile code stays text', async () => {
  const page = await newChatPage(context, `${runtime.url}/`);
  await watchHighlighting(page);
  // The loader fetches the other parts within its first 3 s; the highlighter is not one of them.
  await page.waitForFunction(() => performance.now() > 4000);
  assert.equal(await highlighterFetched(page), false, 'no code block yet: the highlighter is not fetched');

  await sendMessage(page, 'code please');
  const answer = page.locator('article[data-role="assistant"]').last();
  await answer.getByText('That is all.').waitFor({ timeout: 15_000 });
  await runOver(page);
  await waitFor(async () => (await answer.locator('code[data-hl]').count()) === 8, { message: 'eight code blocks marked' });
  assert.equal(await highlighterFetched(page), true, 'the highlighter came with the first code block');

  const stats = await hlStats(page);
  assert.equal(stats.inTail, 0, 'no tokens in the open tail');
  // Seven blocks in known languages, each highlighted exactly once; `text` stays plain.
  assert.deepEqual(stats.passes, [1, 1, 1, 1, 1, 1, 1]);
  assert.equal(await answer.locator('code.language-text').getAttribute('data-hl'), 'plain');
  assert.equal(await answer.locator('code.language-text span').count(), 0);

  const rust = answer.locator('code.language-rust');
  assert.equal(await rust.locator('span.cs-tok-keyword', { hasText: /^fn$/ }).count(), 1);
  assert.equal(await rust.locator('span.cs-tok-string', { hasText: '"hello"' }).count(), 1);
  assert.equal(await rust.locator('span.cs-tok-comment').textContent(), '// say it');
  assert.equal(await rust.locator('span.cs-tok-meta').textContent(), 'println!');
  assert.equal(await answer.locator('code.language-python span.cs-tok-string').first().textContent(), '"""Adds."""');
  assert.equal(await answer.locator('code.language-json span.cs-tok-property').first().textContent(), '"name"');
  assert.equal(await answer.locator('code.language-bash span.cs-tok-variable').textContent(), '$HOME');
  assert.equal(await answer.locator('code.language-ts span.cs-tok-keyword', { hasText: 'interface' }).count(), 1);

  // Only the documented classes, and only spans, inside code.
  const inside = await answer.evaluate((el) =>
    [...el.querySelectorAll('pre code *')].map((n) => `${n.localName}.${n.className}`),
  );
  assert.ok(inside.length > 20, `tokens: ${inside.length}`);
  for (const n of inside) {
    const [tag, cls] = n.split('.');
    assert.equal(tag, 'span', n);
    assert.ok(CLASSES.includes(cls), n);
  }

  // Hostile code is text: the HTML block reads back as its source, and nothing ran.
  const html = answer.locator('code.language-html');
  assert.equal(await html.textContent(), '<script>alert(1)</script>\n<img src=x onerror=alert(1)>\n');
  assert.equal(await html.locator('span.cs-tok-tag', { hasText: '<script' }).count(), 1);
  const js = answer.locator('code.language-js');
  assert.match(await js.textContent(), /'<\/code><\/pre><img src=x onerror=alert\(1\)>'/);
  // (The message's own action icons are svg; nothing inside a code block is an element but a token.)
  assert.equal(await answer.locator('script, img, iframe, pre svg').count(), 0);
  assert.equal(await page.evaluate(() => window.__ran), 0);

  // Copy gives the plain text.
  const rustBlock = answer.locator('[data-part="code-block"]').filter({ has: page.locator('code.language-rust') });
  await rustBlock.locator('[data-part="code-copy"]').click();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  assert.equal(copied, 'fn main() {\n    let greeting = "hello"; // say it\n    println!("{greeting}");\n}\n');

  assert.deepEqual(await axeViolations(page), []);
  await page.evaluate(() => document.querySelector('chat-shell').setAttribute('theme', 'dark'));
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(page.consoleErrors, []);
  await page.close();
});

test('a streamed 2,000-line block is highlighted once, when its fence closes', async () => {
  const page = await newChatPage(context, `${runtime.url}/`);
  await watchHighlighting(page);
  await sendMessage(page, 'code big fast');
  const answer = page.locator('article[data-role="assistant"]').last();
  await answer.getByText('Done.').waitFor({ timeout: 30_000 });
  await runOver(page, { timeout: 30_000 });
  await waitFor(async () => (await answer.locator('code[data-hl]').count()) === 1, { message: 'the block highlighted' });
  const stats = await hlStats(page);
  assert.equal(stats.inTail, 0, 'no tokens while the fence was open');
  assert.deepEqual(stats.passes, [1], 'one pass for the whole block');
  // 2,000 lines and the empty one after the last line break.
  assert.deepEqual(stats.lines, ['2001']);
  const code = answer.locator('code.language-rust');
  assert.equal(await code.locator('span.cs-tok-keyword', { hasText: /^pub$/ }).count(), 500);
  // The `<b>` in the strings is text.
  assert.equal(await code.locator('b').count(), 0);
  assert.equal((await code.textContent()).split('\n').length, 2001);
  assert.deepEqual(page.consoleErrors, []);
  await page.close();
});

test("a pushed diff of a known file is highlighted, its changed words still marked", async () => {
  const page = await newChatPage(context, `${runtime.url}/`);
  await recordEvents(page, ['chat.thread.created']);
  await sendMessage(page, 'hello there');
  const threadId = await createdThreadId(page);
  await waitForIdle(page);
  const patch = [
    'diff --git a/src/main.rs b/src/main.rs',
    '--- a/src/main.rs',
    '+++ b/src/main.rs',
    '@@ -1,3 +1,3 @@',
    ' fn main() {',
    '-    let s = "<img src=x onerror=alert(1)>";',
    '+    let s = "</span><script>alert(1)</script>";',
    ' }',
    'diff --git a/notes b/notes',
    '--- a/notes',
    '+++ b/notes',
    '@@ -1 +1 @@',
    '-fn old',
    '+fn new',
    '',
  ].join('\n');
  const res = await pushView(runtime, threadId, 'diff', { patch });
  assert.equal(res.status, 200);
  await page.getByRole('tab', { name: 'Diff' }).click();
  const panel = page.getByRole('tabpanel');
  const main = panel.locator('[data-part="diff-file"][data-path="src/main.rs"]');
  await main.locator('.cs-tok-keyword', { hasText: 'let' }).first().waitFor({ timeout: 10_000 });
  const added = main.locator('[data-part="diff-line"][data-line="added"]');
  assert.equal(await added.locator('.cs-diff__text').textContent(), '    let s = "</span><script>alert(1)</script>";');
  assert.ok((await added.locator('mark.cs-diff__word').count()) >= 1, 'changed words marked');
  assert.ok((await added.locator('.cs-tok-string').count()) >= 1, 'the string highlighted');
  assert.equal(await panel.locator('script, img').count(), 0);
  // A file of no known language stays plain.
  const notes = panel.locator('[data-part="diff-file"][data-path="notes"]');
  await notes.locator('[data-part="diff-line"]').first().waitFor();
  assert.equal(await notes.locator('[class^="cs-tok-"]').count(), 0);
  assert.equal(await page.evaluate(() => window.__ran), 0);
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(page.consoleErrors, []);
  await page.close();
});
