// Agent runs in the browser: ACP tool calls streamed as ChatKit extension items (each
// kind, statuses known and unknown, content, diffs, terminal output, locations), the
// permission card (buttons named by the options, armed after a delay, the pick sent as
// `threads.custom_action`, the decision shown only once the server confirms it), a run
// that ends with an unfinished call, and the `protocol="events"` envelope stream (markdown
// content, tool results, budget banner, inline errors, agents). Whatever the server says
// stays inert text. The page comes from the reference runtime; `/chatkit` answers are
// recorded SSE served with page.route.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import {
  ROOT,
  axeViolations,
  close,
  newChatPage,
  openBrowser,
  recorded,
  sendMessage,
  sseBody,
  startRecorder,
  startRuntime,
  waitFor,
  waitForIdle,
  openToolCalls,
  toolCalls,
} from './harness.mjs';

let runtime;
let context;

before(async () => {
  runtime = await startRuntime();
  context = await openBrowser();
});
after(close);

const XSS = '<img src=x onerror="window.__xss=1;alert(1)">';

async function open() {
  const page = await newChatPage(context, `${runtime.url}/`);
  // Text shows as it arrives (no typewriter): these tests are about what arrives, and the
  // pacer needs animation frames, which this headless Chromium was seen not to deliver
  // after a one-piece answer (fixtures.test.mjs stalls the same way on this machine).
  await page.emulateMedia({ reducedMotion: 'reduce' });
  page.dialogs = [];
  page.on('dialog', (d) => {
    page.dialogs.push(d.message());
    d.dismiss().catch(() => {});
  });
  return page;
}

/** No injected element and no script ran. */
async function assertInert(page) {
  const found = await page.evaluate(() => {
    const root = document.querySelector('chat-shell').shadowRoot;
    return {
      onerror: root.querySelectorAll('[onerror]').length,
      // The sanitizer may keep a bare <img> from markdown, never its script or source.
      imgs: [...root.querySelectorAll('img[src]')].map((i) => i.getAttribute('src')),
      xss: window.__xss ?? null,
    };
  });
  assert.deepEqual(found, { onerror: 0, imgs: [], xss: null }, 'server strings stay inert');
  assert.deepEqual(page.dialogs, [], 'no dialog fired');
}

async function finish(page) {
  assert.deepEqual(page.consoleErrors, [], 'console errors on the page');
  await page.close();
}

const thread = (id) => ({ id, created_at: '2026-11-23T00:00:00', title: null, status: { type: 'active' }, metadata: {} });
const toolItem = (threadId, id, toolCall, extra = {}) => ({
  type: 'thread.item.added',
  item: { id, thread_id: threadId, created_at: '2026-11-23T00:00:01', type: 'acp_tool_call', tool_call: toolCall, ...extra },
});
const call = (toolCallId, title, kind, status, more = {}) => ({ toolCallId, title, kind, status, content: [], locations: [], ...more });
const textContent = (text) => ({ type: 'content', content: { type: 'text', text } });


test('ACP tool calls: kinds, statuses, content, diffs, terminal, locations; permission card; interrupted at the end', async () => {
  const page = await open();
  const T = 'thr_agent';
  const runBody = sseBody([
    { type: 'thread.created', thread: thread(T) },
    toolItem(T, 'tc_read', call('c_read', `Read ${XSS}README`, 'read', 'completed', {
      content: [textContent(`Found **bold** words ${XSS}`)],
      locations: [{ path: `/repo/${XSS}.md`, line: 3 }, { path: '/repo/src/lib.rs' }],
      rawInput: { path: 'README.md' },
    })),
    toolItem(T, 'tc_new', call('c_new', 'Create main.rs', 'edit', 'completed', {
      content: [{ type: 'diff', path: `/repo/${XSS}main.rs`, oldText: null, newText: `fn main() {}\n// ${XSS}\n` }],
    })),
    toolItem(T, 'tc_edit', call('c_edit', 'Edit lib.rs', 'edit', 'completed', {
      content: [{ type: 'diff', path: '/repo/lib.rs', oldText: 'a\nlet x = 1;\nc\nd\n', newText: 'a\nlet x = 2;\nc\nNothing alike here\n' }],
    })),
    toolItem(T, 'tc_exec', call('c_exec', 'Run tests', 'execute', 'in_progress', { content: [{ type: 'terminal', terminalId: 'term_1' }] })),
    { type: 'thread.item.updated', item_id: 'tc_exec', update: { type: 'acp_tool_call.update', update: { toolCallId: 'c_exec', status: 'failed', rawOutput: { output: `error: \u001b[1;31m${XSS}\u001b[0m\u001b]0;title\u0007\n`, truncated: true, exitStatus: { exitCode: 1 } } } } },
    toolItem(T, 'tc_search', call('c_search', 'Search', 'search', 'teleporting')),
    toolItem(T, 'tc_delete', call('c_delete', 'Delete tmp', 'delete', 'completed')),
    toolItem(T, 'tc_move', call('c_move', 'Move file', 'move', 'completed')),
    toolItem(T, 'tc_think', call('c_think', 'Think', 'think', 'completed')),
    toolItem(T, 'tc_mode', call('c_mode', 'Switch mode', 'switch_mode', 'completed')),
    toolItem(T, 'tc_odd', call('c_odd', 'Odd tool', 'teleport', 'completed')),
    toolItem(T, 'tc_fetch', call('c_fetch', 'Fetch page', 'fetch', 'in_progress')),
    toolItem(T, 'tc_perm', call('c_perm', 'Remove build dir', 'execute', 'pending', { rawInput: { command: `rm -rf /tmp/${XSS}`, cwd: '/repo' } })),
    {
      type: 'thread.item.updated',
      item_id: 'tc_perm',
      update: {
        type: 'acp_tool_call.permission_requested',
        request: {
          toolCall: { toolCallId: 'c_perm' },
          options: [
            { optionId: 'once', name: `Allow ${XSS}once`, kind: 'allow_once' },
            { optionId: 'always', name: 'Always allow', kind: 'allow_always' },
            { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
            { optionId: 'never', name: 'Never', kind: 'reject_always' },
            { optionId: 'odd', name: 'Ponder', kind: 'ponder' },
          ],
        },
      },
    },
  ]);
  const requests = [];
  let release;
  const gate = new Promise((r) => (release = r));
  await page.route('**/chatkit', async (route) => {
    const body = route.request().postDataJSON();
    requests.push(body);
    if (body.type === 'threads.custom_action') {
      await gate;
      return route.fulfill({
        status: 200,
        contentType: 'text/event-stream',
        body: sseBody([
          { type: 'thread.item.updated', item_id: 'tc_perm', update: { type: 'acp_tool_call.permission_resolved', outcome: { outcome: 'selected', optionId: 'always' } } },
          { type: 'thread.item.updated', item_id: 'tc_perm', update: { type: 'acp_tool_call.update', update: { toolCallId: 'c_perm', status: 'completed' } } },
        ]),
      });
    }
    return route.fulfill({ status: 200, contentType: 'text/event-stream', body: runBody });
  });
  await startRecorder(page, {
    card: '[data-part="permission"]',
    armed: '[data-part="permission-option"]:not([disabled])',
  });
  await sendMessage(page, 'agent run');
  const card = page.locator('[data-part="permission"]');
  await card.waitFor({ state: 'visible', timeout: 8_000 });
  const options = card.locator('[data-part="permission-option"]');
  await waitForIdle(page);

  const calls = await toolCalls(page);
  const byTitle = Object.fromEntries(calls.map((c) => [c.title, c]));
  assert.equal(calls.length, 12);
  assert.ok(calls.every((c) => c.icon), 'every call has an icon');
  assert.equal(byTitle[`Read ${XSS}README`].kind, 'read', 'the title is text, markup and all');
  assert.deepEqual(
    calls.map((c) => [c.kind, c.status]),
    [
      ['read', 'completed'], ['edit', 'completed'], ['edit', 'completed'], ['execute', 'failed'],
      ['search', 'unknown'], ['delete', 'completed'], ['move', 'completed'], ['think', 'completed'],
      ['switch_mode', 'completed'], ['other', 'completed'], ['fetch', 'interrupted'], ['execute', 'awaiting_permission'],
    ],
  );
  assert.equal(byTitle['Search'].statusText, 'Status unknown');
  assert.equal(byTitle['Run tests'].statusText, 'Failed');
  assert.equal(byTitle['Fetch page'].statusText, 'Interrupted');
  assert.equal(byTitle['Read ' + XSS + 'README'].open, false, 'a finished call is folded');
  assert.equal(byTitle['Remove build dir'].open, true, 'a call that asks is open');
  // The turn is over: its settled calls fold into one summary line (the one still asking
  // stays out); interrupted and unknown outcomes are counted apart, never as done.
  const group = page.locator('[data-part="tool-call-group"]');
  assert.equal(await group.count(), 1);
  const summary = page.getByRole('button', { name: '11 tool calls · 1 failed · 2 outcome unknown' });
  assert.equal(await summary.count(), 1, 'the summary is a button named by what it folds');
  assert.equal(await summary.getAttribute('aria-expanded'), 'false', 'the summary starts folded');
  const folded = page.locator('[data-part="tool-call"][hidden]');
  assert.equal(await folded.count(), 11, 'its calls are hidden');
  assert.equal((await summary.getAttribute('aria-controls')).split(' ').length, 11);
  // Opening the fold moves nothing the reader looks at: at the end of a conversation that
  // follows its end, the summary they clicked holds its place while the calls open below.
  const size = page.viewportSize();
  const place = () =>
    page.evaluate(() => {
      const root = document.querySelector('chat-shell').shadowRoot;
      const v = root.querySelector('.cs-viewport');
      v.scrollTop = v.scrollHeight;
      return new Promise((done) =>
        requestAnimationFrame(() =>
          requestAnimationFrame(() => {
            const s = root.querySelector('[data-part="tool-call-summary"]').getBoundingClientRect();
            const r = v.getBoundingClientRect();
            done({ top: s.top, inView: s.top >= r.top && s.bottom <= r.bottom, scrolls: v.scrollHeight > v.clientHeight + 20 });
          }),
        ),
      );
    });
  // The tallest page where the view scrolls and the summary still shows at its end.
  let before;
  for (const height of [560, 500, 460, 420, 380, 340]) {
    await page.setViewportSize({ width: size.width, height });
    before = await place();
    if (before.inView && before.scrolls) break;
  }
  assert.ok(before.inView && before.scrolls, `the summary in view at the end of a long view: ${JSON.stringify(before)}`);
  await summary.click();
  const after = await page.evaluate(
    () =>
      new Promise((done) =>
        requestAnimationFrame(() =>
          requestAnimationFrame(() =>
            done(document.querySelector('chat-shell').shadowRoot.querySelector('[data-part="tool-call-summary"]').getBoundingClientRect().top),
          ),
        ),
      ),
  );
  assert.ok(Math.abs(after - before.top) < 2, `the summary moved from ${before.top} to ${after}`);
  await page.setViewportSize(size);
  assert.equal(await summary.getAttribute('aria-expanded'), 'true');
  assert.equal(await folded.count(), 0, 'opening it shows the calls');
  assert.equal(await page.locator('[data-part="tool-call"]').first().isVisible(), true);

  // Content, locations, diffs, terminal: a finished call renders them once opened.
  await openToolCalls(page);
  const details = await page.evaluate(() => {
    const root = document.querySelector('chat-shell').shadowRoot;
    const calls = [...root.querySelectorAll('[data-part="tool-call"]')];
    const diffs = [...root.querySelectorAll('[data-part="tool-call"] [data-part="diff"]')];
    return {
      markdown: calls[0].querySelector('[data-part="tool-call-content"] strong')?.textContent,
      locations: [...calls[0].querySelectorAll('[data-part="tool-call-location"]')].map((l) => l.textContent),
      raw: calls[0].querySelector('[data-part="tool-call-raw"] pre')?.textContent,
      newFile: diffs.map((d) => d.dataset.newFile),
      newFileBadge: !!diffs[0].querySelector('[data-part="diff-new-file"]'),
      newPath: diffs[0].querySelector('[data-part="diff-path"]').textContent,
      newLines: [...diffs[0].querySelectorAll('.cs-diff__line')].map((l) => [l.dataset.line, l.textContent]),
      editLines: [...diffs[1].querySelectorAll('.cs-diff__line')].map((l) => [l.dataset.line, l.textContent]),
      editMarks: [...diffs[1].querySelectorAll('.cs-diff__line')].map((l) => [...l.querySelectorAll('mark')].map((m) => m.textContent)),
      terminal: calls[3].querySelector('[data-part="terminal"] pre')?.textContent,
      terminalStyled: [...calls[3].querySelectorAll('[data-part="terminal"] pre span')].map((sp) => [sp.className, sp.textContent]),
      truncated: !!calls[3].querySelector('[data-part="terminal-truncated"]'),
    };
  });
  assert.equal(details.markdown, 'bold', 'text content is markdown');
  assert.deepEqual(details.locations, [`/repo/${'<img src=x onerror="window.__xss=1;alert(1)">'}.md:3`, '/repo/src/lib.rs']);
  assert.match(details.raw, /^path: README\.md$/m, 'the raw input reads as text, not as JSON');
  assert.deepEqual(details.newFile, ['true', 'false']);
  assert.ok(details.newFileBadge, 'a new file says so');
  assert.equal(details.newPath, `/repo/${XSS}main.rs`);
  assert.deepEqual(details.newLines, [['added', '1+fn main() {}'], ['added', `2+// ${XSS}`]]);
  assert.deepEqual(details.editLines, [
    ['kept', '11 a'], ['removed', '2-let x = 1;'], ['added', '2+let x = 2;'], ['kept', '33 c'],
    ['removed', '4-d'], ['added', '4+Nothing alike here'],
  ]);
  // Word-level highlight: only what changed inside a replaced line is marked; an
  // unrelated replacement is not marked end to end.
  assert.deepEqual(details.editMarks, [[], ['1'], ['2'], [], [], []]);
  // ANSI colours become a styled span, other escapes vanish, the markup stays text.
  assert.equal(details.terminal, `error: ${XSS}\n`);
  assert.deepEqual(details.terminalStyled, [['cs-ansi-fg-1 cs-ansi-bold', XSS]]);
  assert.ok(details.truncated, 'the truncation is said');

  // The permission card: exact command and directory, one button per option by its name.
  assert.equal(await card.locator('[data-part="permission-command"]').textContent(), `rm -rf /tmp/${XSS}`);
  assert.equal(await card.locator('[data-part="permission-cwd"]').textContent(), '/repo');
  const names = await options.evaluateAll((els) => els.map((b) => [b.textContent.replace(/^[✓✕•]+/, ''), b.dataset.kind]));
  assert.deepEqual(names, [[`Allow ${XSS}once`, 'allow_once'], ['Always allow', 'allow_always'], ['Reject', 'reject_once'], ['Never', 'reject_always'], ['Ponder', 'unknown']]);
  for (const name of ['Always allow', 'Reject', 'Never', 'Ponder']) {
    assert.equal(await card.getByRole('button', { name, exact: true }).count(), 1, `a button named ${name}`);
  }
  await waitFor(() => options.first().isEnabled(), { timeout: 3_000, message: 'the buttons to arm' });
  const log = await recorded(page);
  const shown = log.find((s) => s.card > 0);
  const armed = log.find((s) => s.armed > 0);
  assert.equal(shown.armed, 0, 'the buttons start disabled');
  assert.ok(armed.t - shown.t >= 350, `the buttons arm after a delay (${armed.t - shown.t} ms)`);
  assert.equal(armed.armed, 5, 'all five arm together');

  assert.deepEqual(await axeViolations(page), [], 'tool calls and the permission card pass axe');
  await assertInert(page);

  await card.getByRole('button', { name: 'Always allow', exact: true }).click();
  await waitFor(() => requests.some((r) => r.type === 'threads.custom_action'), { message: 'the answer to be sent' });
  const answer = requests.find((r) => r.type === 'threads.custom_action');
  assert.equal(answer.params.thread_id, T);
  assert.equal(answer.params.item_id, 'tc_perm');
  assert.deepEqual(answer.params.action.type, 'acp.permission_response');
  assert.deepEqual(answer.params.action.payload, { toolCallId: 'c_perm', outcome: { outcome: 'selected', optionId: 'always' } });
  await page.locator('[data-part="permission-sent"]').waitFor({ timeout: 3_000 });
  assert.equal(await page.locator('[data-part="permission-decision"]').count(), 0, 'no decision before the server confirms it');
  assert.equal(await options.first().isDisabled(), true, 'no second answer');

  release();
  const decision = page.locator('[data-part="permission-decision"]');
  // Attached, not visible: the call completed with it and folded into its summary line.
  await decision.waitFor({ state: 'attached', timeout: 5_000 });
  assert.equal(await decision.textContent(), 'Decision: Always allow');
  await waitForIdle(page);
  const last = (await toolCalls(page)).at(-1);
  assert.equal(last.status, 'completed');
  await waitFor(async () => (await page.locator('[data-part="tool-call-summary"]').textContent()) === '12 tool calls · 1 failed · 2 outcome unknown', {
    timeout: 3_000,
    message: 'the decided call to join the summary',
  });
  await assertInert(page);
  await page.unroute('**/chatkit');
  await finish(page);
});

test('protocol="events": markdown content, tool results, budget banner, inline error, agents; the composer stays usable', async () => {
  const page = await open();
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
  await finish(page);
});
