// protocol="agent-ui" (issue 15) through the element: the reference runtime's POST
// /agent-ui streams the golden logs of tests/fixtures/agent-ui (the same the core's
// checklist tests read), and the page is checked by roles and names: status before text,
// the final text reconciled, worker notifications that are not user messages, the "Team"
// roster in status order, handoffs, delegated approvals answered by id and decided only
// when the runtime confirms, the resync after a sequence gap, boundaries, artifacts,
// citations, and diagnostics kept out of the conversation. Real runtime, real HTTP,
// headless Chromium.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  axeViolations, close, newChatPage, openBrowser, openToolCalls, recordEvents, sendMessage,
  startRuntime, toolCalls, waitFor, waitForIdle,
} from './harness.mjs';

let runtime;
let context;

before(async () => {
  runtime = await startRuntime({ paceMs: 5 });
  context = await openBrowser();
});
after(close);

/** The page pointed at POST /agent-ui; request bodies and chat.* events are kept. */
async function open() {
  const page = await newChatPage(context, `${runtime.url}/`);
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await recordEvents(page, ['chat.error', 'chat.diagnostic', 'chat.response.end']);
  await page.evaluate(() => {
    const el = document.querySelector('chat-shell');
    el.setAttribute('protocol', 'agent-ui');
    el.setAttribute('endpoint', '/agent-ui');
  });
  page.bodies = [];
  page.on('request', (r) => {
    if (r.url().endsWith('/agent-ui') && r.method() === 'POST') page.bodies.push(r.postDataJSON());
  });
  return page;
}

async function finish(page) {
  assert.deepEqual(page.consoleErrors, [], 'console errors on the page');
  await page.close();
}

const shadowText = (page) => page.evaluate(() => document.querySelector('chat-shell').shadowRoot.textContent);
const diagnostics = (page) =>
  page.evaluate(() => (window.__chatEvents || []).filter((e) => e.type === 'chat.diagnostic').map((e) => e.detail));

test('agent-ui: status before text, parts in order, the final text reconciled, citations, boundaries, an artifact; diagnostics stay out', async () => {
  const page = await open();
  // Status shows before any text (a probe notes what the page showed first).
  await page.evaluate(() => {
    const root = document.querySelector('chat-shell').shadowRoot;
    window.__firstSeen = [];
    new MutationObserver(() => {
      if (root.querySelector('[data-part="progress"]') && !window.__firstSeen.includes('status')) window.__firstSeen.push('status');
      if (root.querySelector('article[data-role="assistant"]') && !window.__firstSeen.includes('text')) window.__firstSeen.push('text');
    }).observe(root, { subtree: true, childList: true, characterData: true });
  });
  await sendMessage(page, 'what are the limits?');
  await waitForIdle(page);
  assert.deepEqual((await page.evaluate(() => window.__firstSeen)).slice(0, 2), ['status', 'text']);
  const answer = page.locator('article[data-role="assistant"]').last();
  assert.match(await answer.textContent(), /The limit is 100 requests a minute \(see limits\.md\)\./);
  assert.doesNotMatch(await answer.textContent(), /minute\.The limit/, 'the final text replaced the streamed one');
  assert.equal(await answer.getByRole('link', { name: /Rate limits/ }).count() > 0, true, 'the citation links to its evidence');
  // Process in event order, then folded; tool output never in the answer.
  await openToolCalls(page);
  const calls = await toolCalls(page);
  assert.deepEqual(calls.map((c) => [c.title, c.status]), [['Search the docs', 'completed'], ['Fetch the changelog', 'failed']]);
  assert.doesNotMatch(await answer.textContent(), /HTTP 503|2 of 3 sources/);
  const boundaries = page.locator('[data-part="context-boundary"]');
  assert.equal(await boundaries.count(), 2);
  assert.match(await boundaries.nth(1).textContent(), /12 earlier messages summarized/);
  // The artifact is a card: its body shows only when opened.
  const artifact = page.locator('[data-part="artifact"]');
  assert.equal(await artifact.locator('pre').isVisible(), false);
  await artifact.locator('summary').click();
  assert.match(await artifact.locator('pre').textContent(), /10 000 a day/);
  assert.doesNotMatch(await answer.textContent(), /10 000 a day/);
  // Diagnostics and metrics reach the host, not the page.
  const kinds = (await diagnostics(page)).map((d) => `${d.kind}:${d.name}`);
  assert.ok(kinds.includes('agent_ui_metric:ttft_ms'), JSON.stringify(kinds));
  assert.doesNotMatch(await shadowText(page), /cache miss|ttft/);
  assert.deepEqual(await axeViolations(page), []);
  await finish(page);
});

test('agent-ui: a team: the roster in status order, owners on bubbles and calls, a handoff, a worker note that is not a user message', async () => {
  const page = await open();
  await sendMessage(page, 'team, plan the release');
  await waitForIdle(page);
  const roster = page.getByRole('list', { name: 'Team' });
  await roster.waitFor({ timeout: 5_000 });
  const rows = roster.getByRole('listitem');
  const order = await rows.evaluateAll((els) => els.filter((e) => e.dataset.agent).map((e) => [e.dataset.agent, e.dataset.status]));
  assert.deepEqual(order, [
    ['reviewer@remote', 'input_required'],
    ['lead@delivery', 'running'],
    ['writer@delivery', 'running'],
    ['researcher@delivery', 'completed'],
  ]);
  assert.match(await roster.locator('[data-agent="reviewer@remote"]').textContent(), /Which release should I review\?/);
  assert.match(await roster.locator('[data-agent="researcher@delivery"]').textContent(), /Child of lead/);
  // Each bubble says who wrote it; the handoff does not rewrite the lead's message.
  const bubbles = await page.locator('article[data-role="assistant"]').evaluateAll((els) => els.map((e) => e.dataset.agent));
  assert.deepEqual(bubbles, ['lead@delivery', 'writer@delivery']);
  const handoff = page.locator('[data-part="handoff"]');
  assert.match(await handoff.textContent(), /from lead to writer/);
  assert.match(await handoff.textContent(), /The writer drafts the release notes\./);
  await openToolCalls(page);
  assert.equal(await page.locator('[data-part="tool-call"]').first().getAttribute('data-agent'), 'researcher@delivery');
  // The worker's result came on a user-role channel: still a note, never a user message.
  const note = page.locator('[data-part="worker-notification"]');
  assert.match(await note.textContent(), /Found 14 tickets; 3 block the release\./);
  assert.equal(await note.getAttribute('data-agent'), 'researcher@delivery');
  assert.equal(await page.locator('article[data-role="user"]').count(), 1);
  assert.doesNotMatch(await page.locator('article[data-role="user"]').textContent(), /Found 14 tickets/);
  assert.deepEqual(await axeViolations(page), []);
  await finish(page);
});

test('agent-ui: a delegated approval names the teammate, is answered by id, and is decided only when the runtime confirms', async () => {
  const page = await open();
  await sendMessage(page, 'deploy build 42');
  const card = page.locator('[data-part="permission"]');
  await card.waitFor({ timeout: 10_000 });
  assert.match(await card.textContent(), /deployer/, 'the card names the teammate that asked');
  await waitForIdle(page);
  assert.equal(await page.locator('[data-part="permission-decision"]').count(), 0, 'not decided by the client');
  const approve = card.getByRole('button', { name: 'Approve' });
  await waitFor(() => approve.isEnabled(), { message: 'the Approve button to arm' });
  await approve.click();
  await waitFor(async () => /Staging runs build 42\./.test(await shadowText(page)), { message: 'the run going on' });
  await waitForIdle(page);
  const respond = page.bodies.map((b) => b.metadata?.agentUi?.respond).filter(Boolean);
  assert.deepEqual(respond, [{ actionId: 'act-deploy', optionId: 'approve' }]);
  // The finished call folds; opened, it shows the runtime's confirmed decision.
  await openToolCalls(page);
  assert.match(await page.locator('[data-part="permission-decision"]').textContent(), /Approve/);
  assert.deepEqual((await toolCalls(page)).map((c) => c.status), ['completed']);
  await finish(page);
});

test('agent-ui: a sequence gap shows resyncing, asks for the missing events, and the answer ends whole with nothing twice', async () => {
  const page = await open();
  await sendMessage(page, 'gap: count to five');
  await waitForIdle(page);
  const resume = page.bodies.map((b) => b.metadata?.agentUi?.resume).filter(Boolean);
  assert.deepEqual(resume, [{ runId: 'run-gap', after: 4 }]);
  assert.equal(await page.locator('article[data-role="assistant"]').last().textContent().then((t) => t.includes('One, two, three, four, five.')), true);
  assert.equal(await page.locator('[data-part="resyncing"]').count(), 0, 'resynced');
  const gaps = (await diagnostics(page)).filter((d) => d.kind === 'sequence_gap');
  assert.equal(gaps.length, 1);
  await finish(page);
});

test('agent-ui: a child session hydrates progressively into its teammate, with its lineage', async () => {
  const page = await open();
  await sendMessage(page, 'child: load the tables');
  await waitForIdle(page);
  const analyst = page.getByRole('list', { name: 'Team' }).locator('[data-agent="analyst@data"]');
  const lines = await analyst.locator('[data-part="teammate-transcript"] li').allTextContents();
  assert.deepEqual(lines, ['Loaded 2 of 4 tables.', 'Loaded 4 of 4 tables.']);
  assert.match(await analyst.locator('[data-part="lineage"]').textContent(), /session-main/);
  assert.equal(await analyst.getAttribute('data-status'), 'completed');
  await finish(page);
});

test('agent-ui: hostile names, summaries, bodies, reasons, titles and links stay inert', async () => {
  const page = await open();
  const xss = '<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>';
  const events = [
    { type: 'run.started', sequence: 1, runId: 'r-x' },
    { type: 'agent.spawned', sequence: 2, runId: 'r-x', agentId: `a${xss}`, payload: { agentName: `bad${xss}`, role: xss, model: xss, status: xss, message: xss } },
    { type: 'team.changed', sequence: 3, runId: 'r-x', payload: { teamName: xss, topology: xss } },
    { type: 'tool.started', sequence: 4, runId: 'r-x', toolCallId: 't1', agentId: `a${xss}`, payload: { title: `Run ${xss}`, kind: 'execute' } },
    { type: 'tool.output.delta', sequence: 5, runId: 'r-x', toolCallId: 't1', payload: { delta: xss } },
    { type: 'worker.notification', sequence: 6, runId: 'r-x', agentId: `a${xss}`, payload: { status: xss, summary: xss, role: 'user' } },
    { type: 'agent.handoff', sequence: 7, runId: 'r-x', payload: { from: xss, to: xss, reason: xss } },
    { type: 'context.compaction.completed', sequence: 8, runId: 'r-x', payload: { summary: xss } },
    { type: 'artifact.created', sequence: 9, runId: 'r-x', artifactId: 'x1', payload: { title: xss, kind: xss, body: xss } },
    { type: 'text.delta', sequence: 10, runId: 'r-x', messageId: 'm', payload: { delta: `Hello ${xss} [link](javascript:window.__xss=3)` } },
    { type: 'evidence.changed', sequence: 11, runId: 'r-x', payload: { messageId: 'm', title: xss, url: 'javascript:window.__xss=4' } },
    { type: 'text.final', sequence: 12, runId: 'r-x', messageId: 'm', payload: { text: `Hello ${xss} [link](javascript:window.__xss=5)` } },
    { type: 'run.finished', sequence: 13, runId: 'r-x' },
  ];
  await page.route('**/agent-ui', (route) =>
    route.fulfill({
      status: 200,
      headers: { 'content-type': 'text/event-stream' },
      body: events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join(''),
    }),
  );
  await sendMessage(page, 'attack');
  await waitForIdle(page);
  await openToolCalls(page);
  await page.locator('[data-part="artifact"] summary').click();
  for (const link of await page.locator('chat-shell').locator('a').all()) await link.click({ trial: true }).catch(() => {});
  const found = await page.evaluate(() => {
    const root = document.querySelector('chat-shell').shadowRoot;
    return {
      xss: window.__xss ?? null,
      scripts: root.querySelectorAll('script').length,
      handlers: [...root.querySelectorAll('*')].filter((el) => [...el.attributes].some((a) => a.name.startsWith('on'))).length,
      jsLinks: [...root.querySelectorAll('a[href]')].filter((a) => /^\s*javascript:/i.test(a.getAttribute('href'))).length,
      imgs: root.querySelectorAll('img[src="x"]').length,
      text: root.textContent,
    };
  });
  assert.equal(found.xss, null);
  assert.equal(found.scripts, 0);
  assert.equal(found.handlers, 0);
  assert.equal(found.jsLinks, 0);
  assert.equal(found.imgs, 0);
  // Shown as text where it is a name or a summary.
  assert.match(found.text, /bad<img src=x onerror/);
  assert.equal(await page.locator('article[data-role="user"]').count(), 1);
  await finish(page);
});
