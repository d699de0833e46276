// Agent runs over ChatKit: ACP tool calls (each kind, statuses known and unknown, content,
// diffs (a new file marked), terminal output with its ANSI colours and exit code,
// locations, plans and thoughts), the permission card (buttons named by the options, armed
// after a delay, the pick sent as `threads.custom_action`, the decision shown only once the
// server confirms it, Stop while asking, a reload showing the decision or answering from
// the hydrated card), and runs that end with an unfinished or cut call. Whatever the server
// says stays inert text. (protocol="events": events-envelope.test.mjs.)
//
// Two sources: recorded SSE served with page.route (the first test), and the reference
// runtime's scripted agent over real HTTP (`agent`, `permission`, `agentcut`), where no
// page.route answers anything: at most it holds a request back for a moment.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  XSS,
  assertInert,
  axeViolations,
  close,
  createdThreadId,
  dropNetworkLog,
  finishPage,
  openChat,
  openToolCalls,
  recorded,
  openBrowser,
  sendMessage,
  sleep,
  sseBody,
  startRecorder,
  startRuntime,
  toolCallStatuses,
  toolCalls,
  waitFor,
  waitForIdle,
  waitForComposer,
} from './harness.mjs';

let runtime;
let context;

before(async () => {
  runtime = await startRuntime({ paceMs: 2 });
  context = await openBrowser();
});
after(close);

// The recorded stream of the first test, built from these.
const thread = (id) => ({ id, created_at: '2026-11-23T00:00:00', title: null, status: { type: 'active' }, metadata: {} });
const toolItem = (threadId, id, toolCall, extra = {}) => ({
  type: 'thread.item.added',
  item: { id, thread_id: threadId, created_at: '2026-11-23T00:00:01', type: 'acp_tool_call', tool_call: toolCall, ...extra },
});
const call = (toolCallId, title, kind, status, more = {}) => ({ toolCallId, title, kind, status, content: [], locations: [], ...more });
const textContent = (text) => ({ type: 'content', content: { type: 'text', text } });

/** The page opened again on `threadId`, as a reader coming back finds it. */
async function reopen(page, threadId) {
  await page.reload({ waitUntil: 'load' });
  await waitForComposer(page);
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await page.evaluate((id) => document.querySelector('chat-shell').setThreadId(id), threadId);
  await waitFor(async () => (await toolCalls(page)).length > 0, { message: 'the hydrated tool calls' });
}

test('ACP tool calls: kinds, statuses, content, diffs, terminal, locations; permission card; interrupted at the end', async () => {
  const page = await openChat(context, `${runtime.url}/`, { dialogs: true });
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
  await finishPage(page);
});

test('agent: tool calls of each kind with statuses, locations, diffs (a new file marked), terminal output, plan and thoughts; hydrated after a reload', async () => {
  const page = await openChat(context, `${runtime.url}/`, { events: true });
  await sendMessage(page, 'agent: fix the range parser');
  const threadId = await createdThreadId(page);
  await waitForIdle(page);

  const expected = [
    ['read', 'completed'],
    ['fetch', 'failed'],
    ['edit', 'completed'],
    ['edit', 'completed'],
    ['execute', 'completed'],
  ];
  assert.deepEqual(await toolCallStatuses(page), expected);
  const calls = await toolCalls(page);
  assert.deepEqual(calls.map((c) => c.title), [
    'Read src/parser.rs',
    'Fetch https://docs.example.com/ranges',
    'Edit src/parser.rs',
    'Create tests/range_regression.rs',
    'Run cargo test',
  ]);
  assert.equal(calls[1].statusText, 'Failed');

  const read = () =>
    page.evaluate(() => {
      const root = document.querySelector('chat-shell').shadowRoot;
      const calls = [...root.querySelectorAll('[data-part="tool-call"]')];
      const diffs = [...root.querySelectorAll('[data-part="tool-call"] [data-part="diff"]')];
      return {
        locations: [...calls[0].querySelectorAll('[data-part="tool-call-location"]')].map((l) => l.textContent),
        readCode: calls[0].querySelector('[data-part="tool-call-content"] pre')?.textContent ?? '',
        failure: calls[1].querySelector('[data-part="tool-call-content"] strong')?.textContent,
        diffPaths: diffs.map((d) => d.querySelector('[data-part="diff-path"]').textContent),
        newFile: diffs.map((d) => d.dataset.newFile),
        badges: diffs.map((d) => !!d.querySelector('[data-part="diff-new-file"]')),
        editLines: [...diffs[0].querySelectorAll('.cs-diff__line')].map((l) => l.dataset.line),
        newLines: [...diffs[1].querySelectorAll('.cs-diff__line')].map((l) => l.dataset.line),
        terminal: calls[4].querySelector('[data-part="terminal"] pre')?.textContent ?? null,
        terminalLabel: calls[4].querySelector('[data-part="terminal"]')?.textContent ?? '',
        rawOutput: calls[4].querySelectorAll('[data-part="tool-call-raw"] pre')[1]?.textContent ?? '',
        plan: [...root.querySelectorAll('[data-part="plan"] li')].map((li) => [li.textContent, li.dataset.status, li.dataset.priority]),
        thought: root.querySelector('[data-part="thought"]')?.textContent ?? '',
        answer: [...root.querySelectorAll('article[data-role="assistant"]')].at(-1)?.textContent ?? '',
      };
    });
  // The finished turn folded its calls into one line: open them, as a reader would.
  await openToolCalls(page);
  const seen = await read();
  assert.deepEqual(seen.locations, ['/repo/src/parser.rs:42', '/repo/src/parser.rs:46']);
  assert.match(seen.readCode, /start < end - 1/, 'the read shows the code it read');
  assert.equal(seen.failure, '503 Service Unavailable');
  assert.deepEqual(seen.diffPaths, ['/repo/src/parser.rs', '/repo/tests/range_regression.rs']);
  assert.deepEqual(seen.newFile, ['false', 'true']);
  assert.deepEqual(seen.badges, [false, true], 'only the new file says so');
  assert.ok(seen.editLines.includes('removed') && seen.editLines.includes('added') && seen.editLines.includes('kept'));
  assert.ok(seen.newLines.length > 0 && seen.newLines.every((l) => l === 'added'), 'a new file is all added');
  assert.ok(seen.terminal, 'the terminal output is shown');
  assert.match(seen.terminal, /test result: .*ok.*\. 4 passed; 0 failed/);
  assert.match(seen.terminal, /Compiling.*demo v0\.1\.0/);
  assert.match(seen.terminalLabel, /^Terminal/, 'the terminal is labelled');
  assert.doesNotMatch(seen.terminalLabel, /term_/, 'no internal terminal id on screen');
  assert.match(seen.rawOutput, /exitCode: 0/, 'the exit status is in the raw output');
  assert.doesNotMatch(seen.rawOutput, /\\u001b|\u001b|"exitCode"/, 'decoded text: no escape codes, no JSON quoting');
  assert.deepEqual(seen.plan, [
    ['Read the range parser', 'completed', 'high'],
    ['Check the documented semantics', 'completed', 'low'],
    ['Fix the upper bound', 'completed', 'high'],
    ['Add a regression test', 'completed', 'medium'],
    ['Run the test suite', 'completed', 'medium'],
  ]);
  assert.match(seen.thought, /off-by-one/);
  assert.match(seen.answer, /Fixed the off-by-one/);
  assert.deepEqual(await axeViolations(page), [], 'the finished agent run passes axe');

  // What the runtime stored is what a reader coming back finds.
  await reopen(page, threadId);
  await waitForIdle(page);
  assert.deepEqual(await toolCallStatuses(page), expected);
  await openToolCalls(page);
  const again = await read();
  for (const key of ['locations', 'diffPaths', 'newFile', 'badges', 'terminal', 'rawOutput', 'plan', 'thought', 'answer']) {
    assert.deepEqual(again[key], seen[key], `${key} after the reload`);
  }
  await finishPage(page);
});

test('permission: the card names its options and arms late; the runtime confirms the pick, the waiting run goes on; a reload shows the decision', async () => {
  const page = await openChat(context, `${runtime.url}/`, { events: true });
  const card = page.locator('[data-part="permission"]');
  await startRecorder(page, {
    card: '[data-part="permission"]',
    armed: '[data-part="permission-option"]:not([disabled])',
  });
  // The answer is held back a moment (then the real runtime gets it), to see the pick
  // sent and not yet confirmed.
  let release;
  const gate = new Promise((r) => (release = r));
  const answers = [];
  await page.route('**/chatkit', async (route) => {
    const body = route.request().postDataJSON();
    if (body?.type === 'threads.custom_action') {
      answers.push(body);
      await gate;
    }
    await route.continue();
  });
  await sendMessage(page, 'permission to clean the build?');
  const threadId = await createdThreadId(page);
  await card.waitFor({ state: 'visible', timeout: 8_000 });
  const options = card.locator('[data-part="permission-option"]');
  const names = await options.evaluateAll((els) => els.map((b) => [b.textContent.replace(/^[✓✕•]+/, ''), b.dataset.kind]));
  assert.deepEqual(names, [
    ['Allow once', 'allow_once'],
    ['Always allow', 'allow_always'],
    ['Reject', 'reject_once'],
    ['Always reject', 'reject_always'],
  ]);
  for (const [name] of names) {
    assert.equal(await card.getByRole('button', { name, exact: true }).count(), 1, `a button named ${name}`);
  }
  assert.equal(await card.locator('[data-part="permission-command"]').textContent(), 'rm -rf target/debug/incremental');
  assert.equal(await card.locator('[data-part="permission-cwd"]').textContent(), '/repo');
  assert.deepEqual(await toolCallStatuses(page), [['execute', 'awaiting_permission']]);
  await waitFor(() => options.first().isEnabled(), { timeout: 3_000, message: 'the buttons to arm' });
  const log = await recorded(page);
  const shown = log.find((s) => s.card > 0);
  const armed = log.find((s) => s.armed > 0);
  assert.equal(shown.armed, 0, 'the buttons start disabled');
  assert.ok(armed.t - shown.t >= 350, `the buttons arm after a delay (${armed.t - shown.t} ms)`);
  // The run is still open, waiting for the answer: Stop is offered. The stream is silent,
  // but the run waits on the user, so no liveness warning (past its 5 s threshold).
  assert.equal(await page.getByRole('button', { name: 'Stop' }).count(), 1, 'the run waits with Stop offered');
  // Time itself: silent past the threshold, and still no warning.
  await sleep(6_000);
  assert.equal(await page.locator('[data-part="liveness"]').count(), 0, 'no liveness warning while the user is asked');
  assert.deepEqual(await axeViolations(page), [], 'the permission card passes axe');

  await card.getByRole('button', { name: 'Allow once', exact: true }).click();
  // The focus stays inside the element: no other card waits, so the composer takes it.
  await waitFor(() => page.evaluate(() => {
    const el = document.querySelector('chat-shell');
    return document.activeElement === el && el.shadowRoot.activeElement?.tagName === 'TEXTAREA';
  }), { timeout: 3_000, message: 'the focus on the composer after the choice, not on <body>' });
  await waitFor(() => answers.length === 1, { message: 'the answer to be sent' });
  assert.deepEqual(answers[0].params.action.payload.outcome, { outcome: 'selected', optionId: 'allow-once' });
  await page.locator('[data-part="permission-sent"]').waitFor({ timeout: 3_000 });
  assert.equal(await page.locator('[data-part="permission-decision"]').count(), 0, 'no decision before the runtime confirms it');
  release();
  const decision = page.locator('[data-part="permission-decision"]');
  await decision.waitFor({ state: 'attached', timeout: 5_000 });
  assert.equal(await decision.textContent(), 'Decision: Allow once');
  await waitForIdle(page);
  await runtime.waitForLine(`item=${answers[0].params.item_id} (the asking stream goes on)`);
  assert.deepEqual(await toolCallStatuses(page), [['execute', 'completed']]);
  const answer = await page.evaluate(() =>
    [...document.querySelector('chat-shell').shadowRoot.querySelectorAll('article[data-role="assistant"]')].at(-1).textContent,
  );
  assert.match(answer, /ran in \/repo \(you chose Allow once\)/);
  // The turn's text came in two parts around the card: one action bar, after the whole turn.
  assert.equal(await page.getByRole('button', { name: 'Copy', exact: true }).count(), 1, 'one Copy per turn');
  assert.equal(
    await page.locator('article[data-role="assistant"]').last().getByRole('button', { name: 'Copy', exact: true }).count(),
    1,
    'in the turn\'s last answer',
  );
  await openToolCalls(page);
  assert.match(
    await page.evaluate(() => document.querySelector('chat-shell').shadowRoot.querySelector('[data-part="tool-call"] [data-part="terminal"] pre')?.textContent ?? ''),
    /removed 1204 files/,
  );
  await page.unroute('**/chatkit');

  await reopen(page, threadId);
  await waitForIdle(page);
  assert.deepEqual(await toolCallStatuses(page), [['execute', 'completed']]);
  assert.equal(await page.locator('[data-part="permission-decision"]').textContent(), 'Decision: Allow once');
  assert.equal(await page.locator('[data-part="permission-option"]').count(), 0, 'a decided request offers nothing');
  assert.deepEqual(await axeViolations(page), [], 'the hydrated decision passes axe');
  await finishPage(page);
});

test('permission: Stop while asking cancels the request; the runtime saves it; a reload shows it cancelled', async () => {
  const page = await openChat(context, `${runtime.url}/`, { events: true });
  await sendMessage(page, 'permission');
  const threadId = await createdThreadId(page);
  const card = page.locator('[data-part="permission"]');
  await card.waitFor({ state: 'visible', timeout: 8_000 });
  await page.getByRole('button', { name: 'Stop' }).click();
  await waitForIdle(page);
  assert.deepEqual(await toolCallStatuses(page), [['execute', 'cancelled']]);
  assert.equal(await page.locator('[data-part="permission-decision"]').textContent(), 'Request cancelled');
  await runtime.waitForLine(new RegExp(`permission cancelled: thread=${threadId} `));
  assert.deepEqual(await axeViolations(page), [], 'the cancelled call passes axe');

  await reopen(page, threadId);
  await waitForIdle(page);
  assert.deepEqual(await toolCallStatuses(page), [['execute', 'cancelled']]);
  assert.equal(await page.locator('[data-part="permission-decision"]').textContent(), 'Request cancelled');
  assert.equal(await page.locator('[data-part="permission-option"]').count(), 0);
  await finishPage(page);
});

test('permission: a request still asking after a reload is answered from the hydrated card; the run, still going, takes it and the page follows it (rejected)', async () => {
  const page = await openChat(context, `${runtime.url}/`, { events: true });
  await sendMessage(page, 'permission');
  const threadId = await createdThreadId(page);
  await page.locator('[data-part="permission"]').waitFor({ state: 'visible', timeout: 8_000 });
  // The channel, which will say the run is still going, answers late after the reload: it
  // is held until the card was seen waiting for it.
  let answerChannel;
  const channelHeld = new Promise((resolve) => (answerChannel = resolve));
  await page.route('**/chatkit', async (route) => {
    if (JSON.parse(route.request().postData() ?? '{}').type === 'threads.subscribe') await channelHeld;
    return route.fallback();
  });
  // Leave mid-run: the runtime sees the client go; the run goes on, still asking.
  await reopen(page, threadId);
  await runtime.waitForLine(new RegExp(`stream closed by client: threads.create thread=${threadId} .*\\(the run goes on\\)`));
  assert.deepEqual(await toolCallStatuses(page), [['execute', 'awaiting_permission']]);
  const card = page.locator('[data-part="permission"]');
  const reject = card.getByRole('button', { name: 'Reject', exact: true });
  // Well past the arming delay, the card still waits for the channel: answered before the
  // page knows the run goes on, the rest of the run would never be shown. (Time itself:
  // the arming delay is a time.)
  await sleep(1_000);
  assert.equal(await reject.isDisabled(), true, 'the hydrated card waits for the channel');
  answerChannel();
  await waitFor(() => reject.isEnabled(), { timeout: 7_000, message: 'the hydrated card to arm' });
  await page.getByRole('button', { name: 'Stop' }).waitFor({ timeout: 2_000 });
  await reject.click();
  await page.locator('[data-part="permission-decision"]').waitFor({ state: 'attached', timeout: 5_000 });
  await waitForIdle(page);
  // The run that asked is still waiting: it takes the answer, and the page, which follows
  // it through the thread's channel, shows the rest.
  await runtime.waitForLine(new RegExp(`permission selected reject-once: thread=${threadId} .*\\(the asking stream goes on\\)`));
  assert.deepEqual(await toolCallStatuses(page), [['execute', 'rejected']]);
  assert.equal(await page.locator('[data-part="permission-decision"]').textContent(), 'Decision: Reject');
  const answer = await page.evaluate(() =>
    [...document.querySelector('chat-shell').shadowRoot.querySelectorAll('article[data-role="assistant"]')].at(-1).textContent,
  );
  assert.match(answer, /Understood \(Reject\): rm -rf target\/debug\/incremental was not run/);
  await finishPage(page);
});

test('agentcut: the connection drops while a tool runs; the call shows interrupted', async () => {
  const page = await openChat(context, `${runtime.url}/`, { events: true });
  await sendMessage(page, 'agentcut');
  await waitFor(async () => (await toolCallStatuses(page)).some(([, s]) => s === 'interrupted'), {
    timeout: 8_000,
    message: 'the call to be interrupted',
  });
  await waitForIdle(page);
  const calls = await toolCalls(page);
  assert.deepEqual(calls.map((c) => [c.title, c.status, c.statusText]), [['Run cargo build --release', 'interrupted', 'Interrupted']]);
  await openToolCalls(page);
  assert.match(
    await page.evaluate(() => document.querySelector('chat-shell').shadowRoot.querySelector('[data-part="terminal"] pre')?.textContent ?? ''),
    /Compiling demo/,
    'the output so far stays',
  );
  assert.deepEqual(await axeViolations(page), [], 'the interrupted call passes axe');
  dropNetworkLog(page, /ERR_INCOMPLETE_CHUNKED_ENCODING.*\/chatkit/);
  await finishPage(page);
});

test('terminal output: ANSI colours become styles, never escape codes; the exit code is said', async () => {
  const page = await openChat(context, `${runtime.url}/`, { events: true });
  await sendMessage(page, 'agent');
  await waitForIdle(page);
  // Finished calls render their output when opened (the turn folded them into one line).
  await openToolCalls(page);
  const terminal = await page.evaluate(() => {
    const t = document.querySelector('chat-shell').shadowRoot.querySelector('[data-part="terminal"]');
    return {
      text: t?.querySelector('pre')?.textContent ?? '',
      styled: [...(t?.querySelectorAll('pre span[class*="cs-ansi-"]') ?? [])].map((s) => s.className),
      exit: t?.querySelector('[data-part="terminal-exit"]')?.textContent ?? null,
    };
  });
  assert.match(terminal.text, /4 passed/);
  assert.doesNotMatch(terminal.text, /\u001b|\[\d+(;\d+)*m/, 'escape sequences are rendered or stripped, never shown');
  assert.ok(terminal.styled.some((c) => /cs-ansi-fg-\d+/.test(c)), `colours are kept as styles: ${terminal.styled}`);
  assert.equal(terminal.exit, 'Exit code 0');
  await finishPage(page);
});

test('a call cut mid-run is still interrupted when its thread is opened again', async () => {
  const page = await openChat(context, `${runtime.url}/`, { events: true });
  await sendMessage(page, 'agentcut');
  const threadId = await createdThreadId(page);
  await waitFor(async () => (await toolCallStatuses(page)).at(-1)?.[1] === 'interrupted', { message: 'the live call to be interrupted' });
  await waitForIdle(page);
  await reopen(page, threadId);
  assert.deepEqual(await toolCallStatuses(page), [['execute', 'interrupted']]);
  dropNetworkLog(page, /ERR_INCOMPLETE_CHUNKED_ENCODING.*\/chatkit/);
  await finishPage(page);
});
