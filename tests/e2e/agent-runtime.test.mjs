// Agent runs against the REAL reference runtime over HTTP (agent-runs.test.mjs plays
// recorded SSE instead): the runtime's `agent` scenario (ACP tool calls of each kind,
// diffs, terminal output, locations, plan, thoughts), its `permission` scenario (the card,
// the answer checked and saved by the runtime, the waiting stream going on, Stop
// cancelling, a reload hydrating the decision, an answer after a reload), `agentcut`
// (interrupted), and POST /events with `protocol="events"` (tool results, budget banner,
// agents, orchestration, loader hints, keepalives, a cut). No page.route answers
// anything: at most it holds a request back for a moment.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  axeViolations,
  close,
  newChatPage,
  openBrowser,
  recordEvents,
  createdThreadId,
  recorded,
  sendMessage,
  sleep,
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
  runtime = await startRuntime({ paceMs: 2 });
  context = await openBrowser();
});
after(close);

async function open() {
  const page = await newChatPage(context, `${runtime.url}/`);
  // Text shows as it arrives (no typewriter), as in agent-runs.test.mjs.
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await recordEvents(page);
  return page;
}

/** The cut this test provoked shows in Chromium's network log as a console error; only
 *  that one is dropped (a body cut short on `path`). */
function dropCutLog(page, path) {
  page.consoleErrors = page.consoleErrors.filter(
    (e) => !(e.startsWith('console.error: Failed to load resource: net::ERR_INCOMPLETE_CHUNKED_ENCODING') && e.includes(path)),
  );
}

async function finish(page) {
  assert.deepEqual(page.consoleErrors, [], 'console errors on the page');
  await page.close();
}


const statuses = async (page) => (await toolCalls(page)).map((c) => [c.kind, c.status]);

/** The page opened again on `threadId`, as a reader coming back finds it. */
async function reopen(page, threadId) {
  await page.reload({ waitUntil: 'load' });
  await waitFor(
    () => page.evaluate(() => !!document.querySelector('chat-shell')?.shadowRoot?.querySelector('.cs-root:not([data-early]) textarea')),
    { message: 'the composer after the reload' },
  );
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await page.evaluate((id) => document.querySelector('chat-shell').setThreadId(id), threadId);
  await waitFor(async () => (await toolCalls(page)).length > 0, { message: 'the hydrated tool calls' });
}

test('agent: tool calls of each kind with statuses, locations, diffs (a new file marked), terminal output, plan and thoughts; hydrated after a reload', async () => {
  const page = await open();
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
  assert.deepEqual(await statuses(page), expected);
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
  assert.deepEqual(await statuses(page), expected);
  await openToolCalls(page);
  const again = await read();
  for (const key of ['locations', 'diffPaths', 'newFile', 'badges', 'terminal', 'rawOutput', 'plan', 'thought', 'answer']) {
    assert.deepEqual(again[key], seen[key], `${key} after the reload`);
  }
  await finish(page);
});

test('permission: the card names its options and arms late; the runtime confirms the pick, the waiting run goes on; a reload shows the decision', async () => {
  const page = await open();
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
  assert.deepEqual(await statuses(page), [['execute', 'awaiting_permission']]);
  await waitFor(() => options.first().isEnabled(), { timeout: 3_000, message: 'the buttons to arm' });
  const log = await recorded(page);
  const shown = log.find((s) => s.card > 0);
  const armed = log.find((s) => s.armed > 0);
  assert.equal(shown.armed, 0, 'the buttons start disabled');
  assert.ok(armed.t - shown.t >= 350, `the buttons arm after a delay (${armed.t - shown.t} ms)`);
  // The run is still open, waiting for the answer: Stop is offered. The stream is silent,
  // but the run waits on the user, so no liveness warning (past its 5 s threshold).
  assert.equal(await page.getByRole('button', { name: 'Stop' }).count(), 1, 'the run waits with Stop offered');
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
  assert.deepEqual(await statuses(page), [['execute', 'completed']]);
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
  assert.deepEqual(await statuses(page), [['execute', 'completed']]);
  assert.equal(await page.locator('[data-part="permission-decision"]').textContent(), 'Decision: Allow once');
  assert.equal(await page.locator('[data-part="permission-option"]').count(), 0, 'a decided request offers nothing');
  assert.deepEqual(await axeViolations(page), [], 'the hydrated decision passes axe');
  await finish(page);
});

test('permission: Stop while asking cancels the request; the runtime saves it; a reload shows it cancelled', async () => {
  const page = await open();
  await sendMessage(page, 'permission');
  const threadId = await createdThreadId(page);
  const card = page.locator('[data-part="permission"]');
  await card.waitFor({ state: 'visible', timeout: 8_000 });
  await page.getByRole('button', { name: 'Stop' }).click();
  await waitForIdle(page);
  assert.deepEqual(await statuses(page), [['execute', 'cancelled']]);
  assert.equal(await page.locator('[data-part="permission-decision"]').textContent(), 'Request cancelled');
  await runtime.waitForLine(new RegExp(`permission cancelled: thread=${threadId} `));
  assert.deepEqual(await axeViolations(page), [], 'the cancelled call passes axe');

  await reopen(page, threadId);
  await waitForIdle(page);
  assert.deepEqual(await statuses(page), [['execute', 'cancelled']]);
  assert.equal(await page.locator('[data-part="permission-decision"]').textContent(), 'Request cancelled');
  assert.equal(await page.locator('[data-part="permission-option"]').count(), 0);
  await finish(page);
});

test('permission: a request still asking after a reload is answered from the hydrated card; the run, still going, takes it and the page follows it (rejected)', async () => {
  const page = await open();
  await sendMessage(page, 'permission');
  const threadId = await createdThreadId(page);
  await page.locator('[data-part="permission"]').waitFor({ state: 'visible', timeout: 8_000 });
  // The channel, which will say the run is still going, answers slowly after the reload.
  const CHANNEL_LAG_MS = 4_000;
  await page.route('**/chatkit', async (route) => {
    if (JSON.parse(route.request().postData() ?? '{}').type === 'threads.subscribe') await sleep(CHANNEL_LAG_MS);
    return route.fallback();
  });
  // Leave mid-run: the runtime sees the client go; the run goes on, still asking.
  await reopen(page, threadId);
  await runtime.waitForLine(new RegExp(`stream closed by client: threads.create thread=${threadId} .*\\(the run goes on\\)`));
  assert.deepEqual(await statuses(page), [['execute', 'awaiting_permission']]);
  const card = page.locator('[data-part="permission"]');
  const reject = card.getByRole('button', { name: 'Reject', exact: true });
  // Well past the arming delay, the card still waits for the channel: answered before the
  // page knows the run goes on, the rest of the run would never be shown.
  await sleep(1_000);
  assert.equal(await reject.isDisabled(), true, 'the hydrated card waits for the channel');
  await waitFor(() => reject.isEnabled(), { timeout: CHANNEL_LAG_MS + 3_000, message: 'the hydrated card to arm' });
  await page.getByRole('button', { name: 'Stop' }).waitFor({ timeout: 2_000 });
  await reject.click();
  await page.locator('[data-part="permission-decision"]').waitFor({ state: 'attached', timeout: 5_000 });
  await waitForIdle(page);
  // The run that asked is still waiting: it takes the answer, and the page, which follows
  // it through the thread's channel, shows the rest.
  await runtime.waitForLine(new RegExp(`permission selected reject-once: thread=${threadId} .*\\(the asking stream goes on\\)`));
  assert.deepEqual(await statuses(page), [['execute', 'rejected']]);
  assert.equal(await page.locator('[data-part="permission-decision"]').textContent(), 'Decision: Reject');
  const answer = await page.evaluate(() =>
    [...document.querySelector('chat-shell').shadowRoot.querySelectorAll('article[data-role="assistant"]')].at(-1).textContent,
  );
  assert.match(answer, /Understood \(Reject\): rm -rf target\/debug\/incremental was not run/);
  await finish(page);
});

test('agentcut: the connection drops while a tool runs; the call shows interrupted', async () => {
  const page = await open();
  await sendMessage(page, 'agentcut');
  await waitFor(async () => (await statuses(page)).some(([, s]) => s === 'interrupted'), {
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
  dropCutLog(page, '/chatkit');
  await finish(page);
});

/** The page pointed at POST /events with protocol="events"; the request bodies are kept. */
async function openEvents() {
  const page = await open();
  await page.evaluate(() => {
    const el = document.querySelector('chat-shell');
    el.setAttribute('protocol', 'events');
    el.setAttribute('endpoint', '/events');
  });
  page.eventsBodies = [];
  page.on('request', (r) => {
    if (r.url().endsWith('/events') && r.method() === 'POST') page.eventsBodies.push(r.postDataJSON());
  });
  return page;
}

async function send(page, text) {
  const before = page.eventsBodies.length;
  await sendMessage(page, text);
  await waitFor(() => page.eventsBodies.length > before, { message: `the events request for "${text}"` });
}

const inShadow = (page, fn, arg) => page.evaluate(fn, arg);

test('events: tool results succeed, fail and say nothing; the budget banner is an alert with the message and the composer still works', async () => {
  const page = await openEvents();
  await send(page, 'tool results please');
  await waitForIdle(page);
  const calls = await toolCalls(page);
  assert.deepEqual(calls.map((c) => [c.title, c.status, c.statusText]), [
    ['read_file', 'completed', 'Completed'],
    ['search', 'failed', 'Failed'],
    ['fetch', 'unknown', 'Status unknown'],
  ]);
  assert.match(
    await inShadow(page, () => [...document.querySelector('chat-shell').shadowRoot.querySelectorAll('article[data-role="assistant"]')].at(-1).textContent),
    /the search failed \(rate limited\)/,
  );
  assert.deepEqual(await axeViolations(page), [], 'tool results pass axe');

  await send(page, 'budget');
  const banner = page.locator('[data-part="budget"][role="alert"]');
  await banner.waitFor({ timeout: 8_000 });
  await waitForIdle(page);
  assert.equal(await banner.textContent(), 'Tool-call budget reached (3 of 3)');
  assert.deepEqual(await axeViolations(page), [], 'the budget banner passes axe');
  // The conversation so far went with the request; the composer still sends.
  assert.deepEqual(page.eventsBodies[1].messages.map((m) => m.role), ['user', 'assistant', 'assistant', 'user']);
  await send(page, 'and now?');
  await waitForIdle(page);
  assert.equal(page.eventsBodies.at(-1).messages.at(-1).content, 'and now?');
  assert.match(
    await inShadow(page, () => [...document.querySelector('chat-shell').shadowRoot.querySelectorAll('article[data-role="assistant"]')].at(-1).textContent),
    /and now\?/,
    'the markdown answer to the next message',
  );
  assert.equal(await page.locator('[data-part="budget"]').count(), 0, 'a new run clears the banner');
  await finish(page);
});

test('events: agents and orchestration, loader hints, keepalives during a long tool, a cut mid-tool', async () => {
  const page = await openEvents();
  await startRecorder(page, {
    progress: { sel: '[data-part="progress"]', read: 'text' },
    liveness: '[data-part="liveness"]',
    running: '[data-part="tool-call"][data-status="in_progress"]',
  });
  await send(page, 'agents');
  await waitForIdle(page);
  const agents = await inShadow(page, () => {
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

  await send(page, 'hints');
  await waitForIdle(page);
  const hints = (await recorded(page)).map((s) => s.progress).filter(Boolean);
  assert.ok(hints.includes('Thinking about your question…'), `loader hints shown: ${JSON.stringify(hints)}`);
  assert.ok(hints.includes('Looking through 3 documents…'), `loader hints shown: ${JSON.stringify(hints)}`);

  await send(page, 'longtool');
  await waitForIdle(page, { timeout: 20_000 });
  const log = await recorded(page);
  assert.ok(log.some((s) => s.running > 0), 'the long tool ran');
  assert.ok(!log.some((s) => s.liveness > 0), 'no liveness warning while events (keepalives) arrive');
  assert.deepEqual((await statuses(page)).at(-1), ['other', 'completed']);

  await send(page, 'cut');
  await waitFor(async () => (await statuses(page)).at(-1)?.[1] === 'interrupted', { timeout: 8_000, message: 'the cut call to be interrupted' });
  await waitForIdle(page);
  assert.equal((await toolCalls(page)).at(-1).title, 'download');
  assert.deepEqual(await axeViolations(page), [], 'the interrupted call passes axe');
  dropCutLog(page, '/events');
  await finish(page);
});

test('terminal output: ANSI colours become styles, never escape codes; the exit code is said', async () => {
  const page = await open();
  await sendMessage(page, 'agent');
  await waitForIdle(page);
  // Finished calls render their output when opened (the turn folded them into one line).
  await openToolCalls(page);
  const terminal = await inShadow(page, () => {
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
  await finish(page);
});

test('a call cut mid-run is still interrupted when its thread is opened again', async () => {
  const page = await open();
  await sendMessage(page, 'agentcut');
  const threadId = await createdThreadId(page);
  await waitFor(async () => (await statuses(page)).at(-1)?.[1] === 'interrupted', { message: 'the live call to be interrupted' });
  await waitForIdle(page);
  await reopen(page, threadId);
  assert.deepEqual(await statuses(page), [['execute', 'interrupted']]);
  dropCutLog(page, '/chatkit');
  await finish(page);
});

test('a connection dropped mid-answer on /envelope/ loses nothing: the failed message, never an earlier one, is what comes back', async () => {
  const page = await newChatPage(context, `${runtime.url}/envelope/`);
  await page.emulateMedia({ reducedMotion: 'reduce' });
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
  dropCutLog(page, '/events');
  await finish(page);
});

test('the demo page for the events envelope talks to POST /events out of the box', async () => {
  const page = await newChatPage(context, `${runtime.url}/envelope/`);
  await page.emulateMedia({ reducedMotion: 'reduce' });
  assert.equal(await page.evaluate(() => document.querySelector('chat-shell').getAttribute('protocol')), 'events');
  const posts = [];
  page.on('request', (r) => r.method() === 'POST' && posts.push(new URL(r.url()).pathname));
  await sendMessage(page, 'tool results please');
  await waitForIdle(page);
  assert.ok(posts.includes('/events'), `the page posts to /events: ${posts}`);
  assert.deepEqual((await statuses(page)).map(([, status]) => status), ['completed', 'failed', 'unknown']);
  await finish(page);
});
