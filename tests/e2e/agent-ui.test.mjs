// protocol="agent-ui" through the element: the reference runtime's POST
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
  axeViolations, close, openBrowser, openToolCalls, sendMessage, startRuntime, toolCalls, waitFor,
  waitForIdle, openChat, finishPage, shownText, frames, fillDraft,
} from './harness.mjs';

let runtime;
let context;

before(async () => {
  runtime = await startRuntime({ paceMs: 5 });
  context = await openBrowser();
});
after(close);

/** Pages pointed at POST /agent-ui; request bodies and chat.* events are kept. */
const AGENT_UI = {
  events: ['chat.error', 'chat.diagnostic', 'chat.response.end'],
  attributes: { protocol: 'agent-ui', endpoint: '/agent-ui' },
  bodies: '/agent-ui',
};

const diagnostics = (page) =>
  page.evaluate(() => (window.__chatEvents || []).filter((e) => e.type === 'chat.diagnostic').map((e) => e.detail));

test('agent-ui: status before text, parts in order, the final text reconciled, citations, boundaries, an artifact; diagnostics stay out', async () => {
  const page = await openChat(context, `${runtime.url}/`, AGENT_UI);
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
  // The artifact is a card; its body opens in the views area, in a tab of its own.
  const artifact = page.locator('[data-part="artifact"]');
  assert.doesNotMatch(await shownText(page), /10 000 a day/, 'the body is not in the transcript');
  await artifact.getByRole('button', { name: 'Open limits.md' }).click();
  const tab = page.getByRole('tab', { name: 'Artifact' });
  assert.equal(await tab.getAttribute('aria-selected'), 'true');
  const panel = page.getByRole('tabpanel', { name: 'Artifact' });
  assert.match(await panel.textContent(), /10 000 a day/);
  assert.match(await panel.getByRole('heading').textContent(), /limits\.md/);
  assert.deepEqual(await axeViolations(page), []);
  // Back to the conversation, as it was.
  await page.getByRole('tab', { name: 'Chat' }).click();
  assert.equal(await panel.count(), 0);
  assert.equal(await answer.isVisible(), true);
  // Diagnostics and metrics reach the host, not the page.
  const kinds = (await diagnostics(page)).map((d) => `${d.kind}:${d.name}`);
  assert.ok(kinds.includes('agent_ui_metric:ttft_ms'), JSON.stringify(kinds));
  assert.doesNotMatch(await shownText(page), /cache miss|ttft/);
  assert.deepEqual(await axeViolations(page), []);
  await finishPage(page);
});

test('agent-ui: a team: the roster in status order, owners on bubbles and calls, a handoff, a worker note that is not a user message', async () => {
  const page = await openChat(context, `${runtime.url}/`, AGENT_UI);
  await sendMessage(page, 'team, plan the release');
  await waitForIdle(page);
  const roster = page.getByRole('list', { name: 'Team' });
  await roster.waitFor({ timeout: 5_000 });
  const rows = roster.getByRole('listitem');
  const order = await rows.evaluateAll((els) => els.filter((e) => e.dataset.agent).map((e) => [e.dataset.agent, e.dataset.status]));
  // The run is over: those last reported running read as unknown, never as running.
  assert.deepEqual(order, [
    ['reviewer@remote', 'input_required'],
    ['researcher@delivery', 'completed'],
    ['lead@delivery', 'unknown'],
    ['writer@delivery', 'unknown'],
  ]);
  assert.equal(await roster.locator('[data-part="teammate"][data-status="running"]').count(), 0);
  // The topology reads as words, not as the runtime's identifier.
  const team = await page.locator('[data-part="team"]').textContent();
  assert.match(team, /Coordinator team/);
  assert.doesNotMatch(team, /coordinator_team/);
  assert.match(await roster.locator('[data-agent="reviewer@remote"]').textContent(), /Which release should I review\?/);
  assert.match(await roster.locator('[data-agent="researcher@delivery"]').textContent(), /Child of lead/);
  // Each bubble says who wrote it; the handoff does not rewrite the lead's message.
  const bubbles = await page.locator('article[data-role="assistant"]').evaluateAll((els) => els.map((e) => e.dataset.agent));
  assert.deepEqual(bubbles, ['lead@delivery', 'writer@delivery']);
  // One action bar for the team's whole turn, in its last answer.
  assert.equal(await page.getByRole('button', { name: 'Copy', exact: true }).count(), 1, 'one Copy per turn');
  assert.equal(await page.locator('article[data-role="assistant"]').last().getByRole('button', { name: 'Copy', exact: true }).count(), 1);
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
  await finishPage(page);
});

test('agent-ui: a delegated approval names the teammate, is answered by id, and is decided only when the runtime confirms', async () => {
  const page = await openChat(context, `${runtime.url}/`, AGENT_UI);
  await sendMessage(page, 'deploy build 42');
  const card = page.locator('[data-part="permission"]');
  await card.waitFor({ timeout: 10_000 });
  assert.match(await card.textContent(), /deployer/, 'the card names the teammate that asked');
  await waitForIdle(page);
  assert.equal(await page.locator('[data-part="permission-decision"]').count(), 0, 'not decided by the client');
  const approve = card.getByRole('button', { name: 'Approve' });
  await waitFor(() => approve.isEnabled(), { message: 'the Approve button to arm' });
  await approve.click();
  await waitFor(async () => /Staging runs build 42\./.test(await shownText(page)), { message: 'the run going on' });
  await waitForIdle(page);
  const respond = page.bodies.map((b) => b.metadata?.agentUi?.respond).filter(Boolean);
  assert.deepEqual(respond, [{ actionId: 'act-deploy', optionId: 'approve' }]);
  // The finished call folds; opened, it shows the runtime's confirmed decision.
  await openToolCalls(page);
  assert.match(await page.locator('[data-part="permission-decision"]').textContent(), /Approve/);
  assert.deepEqual((await toolCalls(page)).map((c) => c.status), ['completed']);
  await finishPage(page);
});

test('agent-ui: a sequence gap shows resyncing, asks for the missing events, and the answer ends whole with nothing twice', async () => {
  const page = await openChat(context, `${runtime.url}/`, AGENT_UI);
  await sendMessage(page, 'gap: count to five');
  await waitForIdle(page);
  const resume = page.bodies.map((b) => b.metadata?.agentUi?.resume).filter(Boolean);
  assert.deepEqual(resume, [{ runId: 'run-gap', after: 4 }]);
  assert.equal(await page.locator('article[data-role="assistant"]').last().textContent().then((t) => t.includes('One, two, three, four, five.')), true);
  assert.equal(await page.locator('[data-part="resyncing"]').count(), 0, 'resynced');
  const gaps = (await diagnostics(page)).filter((d) => d.kind === 'sequence_gap');
  assert.equal(gaps.length, 1);
  await finishPage(page);
});

test('agent-ui: a child session hydrates progressively into its teammate, with its lineage', async () => {
  const page = await openChat(context, `${runtime.url}/`, AGENT_UI);
  await sendMessage(page, 'child: load the tables');
  await waitForIdle(page);
  const analyst = page.getByRole('list', { name: 'Team' }).locator('[data-agent="analyst@data"]');
  // The transcript opens on demand.
  const transcript = analyst.locator('[data-part="teammate-transcript"]');
  assert.equal(await transcript.isVisible(), false);
  await analyst.getByText('Transcript (2 messages)').click();
  assert.equal(await transcript.isVisible(), true);
  const lines = await transcript.locator('li').allTextContents();
  assert.deepEqual(lines, ['Loaded 2 of 4 tables.', 'Loaded 4 of 4 tables.']);
  assert.match(await analyst.locator('[data-part="lineage"]').textContent(), /session-main/);
  assert.equal(await analyst.getAttribute('data-status'), 'completed');
  await finishPage(page);
});

test('agent-ui: a teammate\'s older messages load on demand, a page at a time, by keyboard; a failed load says so and is offered again; a late page for a conversation left is dropped', async () => {
  const page = await openChat(context, `${runtime.url}/`, AGENT_UI);
  const history = (request) => request.postDataJSON()?.metadata?.agentUi?.history;
  let pages = 0;
  page.on('requestfinished', (request) => { if (history(request)) pages += 1; });
  // The first history write never arrives.
  let drop = true;
  await page.route('**/agent-ui', (route) => {
    if (history(route.request()) && drop) {
      drop = false;
      return route.abort('connectionreset');
    }
    return route.continue();
  });
  await sendMessage(page, 'child: load the tables');
  await waitForIdle(page);
  const analyst = page.getByRole('list', { name: 'Team' }).locator('[data-agent="analyst@data"]');
  await analyst.getByText('Transcript (2 messages)').click();
  const transcript = analyst.locator('[data-part="teammate-transcript"]');
  const earlier = analyst.getByRole('button', { name: 'Load earlier messages' });
  const focused = () => page.evaluate(() => {
    const el = document.querySelector('chat-shell').shadowRoot.activeElement;
    return el ? el.getAttribute('data-part') : null;
  });

  await earlier.focus();
  await page.keyboard.press('Enter');
  const alert = analyst.getByRole('alert');
  await alert.waitFor({ timeout: 5_000 });
  assert.match(await alert.textContent(), /Earlier messages could not be loaded/);
  assert.deepEqual(await transcript.locator('li').allTextContents(), ['Loaded 2 of 4 tables.', 'Loaded 4 of 4 tables.'], 'nothing lost');
  assert.equal(await focused(), 'load-earlier', 'the focus stays on the control');

  // Tried again: the page goes in front, oldest first, and the focus comes back.
  await page.keyboard.press('Enter');
  await waitFor(async () => (await transcript.locator('li').count()) === 5, { message: 'the first older page' });
  assert.equal(await alert.count(), 0, 'the failure is gone');
  assert.deepEqual(await transcript.locator('li').allTextContents(), [
    'Picked 4 tables for the report.', 'Checked the row counts: 1.2 M in all.', 'Started loading.',
    'Loaded 2 of 4 tables.', 'Loaded 4 of 4 tables.',
  ]);
  await waitFor(async () => (await focused()) === 'load-earlier', { message: 'the focus back on the control' });
  await page.keyboard.press('Enter');
  await waitFor(async () => (await transcript.locator('li').count()) === 7, { message: 'the last older page' });
  assert.equal(await transcript.locator('li').first().textContent(), 'Opened the warehouse connection.');
  assert.equal(await earlier.count(), 0, 'nothing older is left to load');
  await waitFor(async () => (await focused()) === 'teammate-transcript', { message: 'the focus on the transcript' });
  assert.equal(await analyst.getByText('Transcript (7 messages)').count(), 1);
  const writes = page.bodies.filter((b) => b.metadata?.agentUi?.history).map((b) => b.metadata.agentUi.history);
  assert.deepEqual(writes, [
    { sessionId: 'session-analyst', before: 'an-1' },
    { sessionId: 'session-analyst', before: 'an-1' },
    { sessionId: 'session-analyst', before: 'an-c' },
  ]);
  assert.deepEqual(await axeViolations(page), []);

  // A page that answers after the user left for a new chat lands nowhere.
  await page.unroute('**/agent-ui');
  await page.getByRole('button', { name: 'New chat' }).first().click();
  await sendMessage(page, 'child: load the tables');
  await waitForIdle(page);
  let release;
  const held = new Promise((resolve) => { release = resolve; });
  await page.route('**/agent-ui', async (route) => {
    if (history(route.request())) await held;
    return route.continue();
  });
  // A new conversation starts with the transcript closed.
  assert.equal(await transcript.isVisible(), false);
  await analyst.getByText('Transcript (2 messages)').click();
  await earlier.click();
  await page.getByRole('button', { name: 'New chat' }).first().click();
  await waitFor(async () => (await page.getByRole('list', { name: 'Team' }).count()) === 0, { message: 'the new chat' });
  release();
  await waitFor(async () => pages === 3, { message: 'the late page to arrive' });
  // It came whole; what the page does with it is done in the frames after.
  await frames(page);
  assert.equal(await page.getByRole('list', { name: 'Team' }).count(), 0, 'no teammate from the conversation left');
  assert.doesNotMatch(await shownText(page), /Picked 4 tables|could not be loaded/);
  page.consoleErrors = page.consoleErrors.filter((e) => !/ERR_CONNECTION_RESET|Failed to load resource/.test(e));
  await finishPage(page);
});

test('agent-ui: hostile names, summaries, bodies, reasons, titles and links stay inert', async () => {
  const page = await openChat(context, `${runtime.url}/`, AGENT_UI);
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
  await page.locator('[data-part="artifact"]').getByRole('button').click();
  await page.getByRole('tabpanel', { name: 'Artifact' }).waitFor();
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
  await finishPage(page);
});

test('agent-ui: queue and steer are distinct: a queued turn waits beside the composer, a steer redirects the run in place', async () => {
  const page = await openChat(context, `${runtime.url}/`, AGENT_UI);
  const queue = page.getByRole('button', { name: 'Queue', exact: true });
  const steer = page.getByRole('button', { name: 'Steer', exact: true });
  // Nothing to queue onto before a run, nor during a run that does not offer it.
  assert.equal(await queue.count(), 0);
  await sendMessage(page, 'what are the limits?');
  await waitForIdle(page);
  assert.equal(await queue.count() + await steer.count(), 0, 'the status run offers no queue or steer');

  await sendMessage(page, 'a long answer, please');
  await queue.waitFor({ timeout: 5_000 });
  assert.match(await queue.getAttribute('title'), /after this run/);
  assert.match(await steer.getAttribute('title'), /Redirect this run/);
  assert.equal(await queue.isDisabled(), true, 'nothing to queue yet');
  const users = page.locator('article[data-role="user"]');
  assert.equal(await users.count(), 2);

  // Queue: the runtime lists the turn; it is not a message yet, and the run goes on.
  await fillDraft(page, 'and then the tests');
  await queue.click();
  const queued = page.getByRole('list', { name: 'Queued' });
  await queued.waitFor({ timeout: 5_000 });
  assert.match(await queued.getByRole('listitem').first().textContent(), /and then the tests.*Sends after this run/);
  assert.equal(await page.getByRole('textbox', { name: 'Message' }).inputValue(), '', 'the draft went out');
  assert.equal(await users.count(), 2, 'a queued turn is no message yet');

  // Steer: a note in the run, and the run changes course at once; the queue keeps its turn.
  await fillDraft(page, 'focus on the docs');
  await steer.click();
  const note = page.locator('[data-part="steer"]');
  await note.waitFor({ timeout: 5_000 });
  assert.match(await note.textContent(), /You steered this run.*focus on the docs/);
  assert.equal(await note.getAttribute('role'), 'note');
  await waitFor(async () => /Changing course: focus on the docs/.test(await page.locator('article[data-role="assistant"]').last().textContent()),
    { message: 'the run to change course' });
  assert.equal(await queued.getByRole('listitem').count(), 1);
  assert.equal(await users.count(), 2, 'a steer is not a new user message');

  // The run ends; the runtime starts the queued turn: now a user message, then its answer.
  await waitForIdle(page, { timeout: 30_000 });
  assert.equal(await users.count(), 3);
  assert.match(await users.last().textContent(), /and then the tests/);
  assert.match(await page.locator('article[data-role="assistant"]').last().textContent(), /You queued: «and then the tests»/);
  assert.equal(await queued.count(), 0, 'the queue is empty');
  assert.equal(await queue.count() + await steer.count(), 0, 'no run, no queue or steer');
  // In the conversation: the steer sits in the first run, before the queued turn.
  const order = await page.evaluate(() => {
    const root = document.querySelector('chat-shell').shadowRoot;
    return [...root.querySelectorAll('[data-part="steer"], article[data-role="user"]')].map((e) => e.dataset.part ?? 'user');
  });
  assert.deepEqual(order, ['user', 'user', 'steer', 'user']);
  // Both writes named the run and carried the text as the last user message.
  const writes = page.bodies.filter((b) => b.metadata?.agentUi?.queue || b.metadata?.agentUi?.steer);
  assert.deepEqual(writes.map((b) => [Object.keys(b.metadata.agentUi)[0], b.messages.at(-1).content]),
    [['queue', 'and then the tests'], ['steer', 'focus on the docs']]);
  assert.match(writes[0].metadata.agentUi.queue.runId, /^run-long-/);
  assert.deepEqual(await axeViolations(page), []);
  await finishPage(page);
});

test('agent-ui: a queued message that never reaches the runtime comes back to the composer with a notice', async () => {
  const page = await openChat(context, `${runtime.url}/`, AGENT_UI);
  // The connection drops on the queue write only; the run's own stream is untouched.
  await page.route('**/agent-ui', (route) =>
    (route.request().postDataJSON()?.metadata?.agentUi?.queue ? route.abort('connectionreset') : route.continue()));
  await sendMessage(page, 'a long answer, please');
  const queue = page.getByRole('button', { name: 'Queue', exact: true });
  await queue.waitFor({ timeout: 5_000 });
  await fillDraft(page, 'do not lose me');
  await queue.click();
  const composer = page.getByRole('textbox', { name: 'Message' });
  // The notice comes once the write failed (the composer shows the draft before the click
  // clears it too, so the draft alone proves nothing).
  await waitFor(async () => /back in the composer/.test(await shownText(page)), { message: 'the notice' });
  assert.equal(page.bodies.filter((b) => b.metadata?.agentUi?.queue).length, 1, 'the queue write was sent');
  await waitFor(async () => (await composer.inputValue()) === 'do not lose me', { message: 'the draft to come back' });
  assert.equal(await page.getByRole('list', { name: 'Queued' }).count(), 0, 'nothing is shown as queued');
  await page.getByRole('button', { name: 'Stop', exact: true }).click();
  await waitForIdle(page);
  assert.equal(await composer.inputValue(), 'do not lose me', 'Stop keeps the draft');
  page.consoleErrors = page.consoleErrors.filter((e) => !/ERR_CONNECTION_RESET|Failed to load resource/.test(e));
  await finishPage(page);
});

test('agent-ui: a clarification is a question with its own answer field; answered only when the runtime confirms, never a finished run before', async () => {
  const page = await openChat(context, `${runtime.url}/`, AGENT_UI);
  await sendMessage(page, 'clarify the release notes');
  await waitForIdle(page);
  const question = page.getByRole('form', { name: 'Which release should the notes cover?' });
  await question.waitFor({ timeout: 5_000 });
  // Not a permission card; it names who asks and says it waits.
  assert.equal(await page.locator('[data-part="permission"]').count(), 0);
  assert.match(await question.textContent(), /writer asks/);
  assert.match(await question.getByRole('status').textContent(), /Waiting for your answer/);
  assert.equal(await page.getByRole('list', { name: 'Team' }).locator('[data-agent="writer@delivery"]').getAttribute('data-status'), 'needs_input');
  const field = question.getByRole('textbox', { name: 'Which release should the notes cover?' });
  // The roster's "input required" takes the reader to the question, its field focused.
  await page.locator('chat-shell').locator('.cs-composer__input').focus();
  await page.getByRole('button', { name: 'Answer writer' }).click();
  await waitFor(
    () => field.evaluate((el) => el.getRootNode().activeElement === el),
    { timeout: 3_000, message: 'the question field to have the focus' },
  );
  // The roster folds to one line and opens again.
  const team = page.locator('[data-part="team"]');
  assert.match(await team.locator('summary').textContent(), /1 needs your input/);
  await team.locator('summary').click();
  const folded = await team.evaluate((el) => ({ open: el.open, height: el.getBoundingClientRect().height }));
  assert.equal(folded.open, false);
  assert.ok(folded.height < 44, `one line when folded: ${folded.height}px`);
  assert.equal(await page.getByRole('list', { name: 'Team' }).count(), 0, 'its list is out of the way');
  await team.locator('summary').click();
  await page.getByRole('list', { name: 'Team' }).waitFor({ timeout: 2_000 });
  assert.equal(await field.getAttribute('placeholder'), 'e.g. 2.4');
  const answer = question.getByRole('button', { name: 'Answer' });
  assert.equal(await answer.isDisabled(), true, 'nothing to send yet');
  await field.fill('2.4 <img src=x onerror="window.__xss=1">');
  await answer.click();
  // The runtime confirms the text it took; only then is the question answered.
  const answered = page.locator('[data-part="question"][data-answered="true"]');
  await answered.waitFor({ timeout: 5_000 });
  assert.match(await answered.locator('[data-part="question-answer"]').textContent(), /Answered: 2\.4 <img src=x/);
  await waitForIdle(page);
  // The agent's answer is markdown: the echoed tag is sanitized away, never run.
  assert.match(await page.locator('article[data-role="assistant"]').last().textContent(), /Drafting the release notes for «2\.4/);
  assert.equal(await page.locator('chat-shell').locator('img[src="x"], [onerror]').count(), 0);
  const write = page.bodies.find((b) => b.metadata?.agentUi?.respond);
  assert.deepEqual(write.metadata.agentUi.respond, { actionId: 'act-clarify', text: '2.4 <img src=x onerror="window.__xss=1">' });
  assert.equal(await page.evaluate(() => window.__xss ?? null), null);
  assert.equal(await page.locator('article[data-role="user"]').count(), 1, 'an answer is not a new user message');
  assert.deepEqual(await axeViolations(page), []);
  await finishPage(page);
});

test('agent-ui: a plan decision is its own card: the planner, its plan, options the runtime named; decided when the runtime confirms', async () => {
  const page = await openChat(context, `${runtime.url}/`, AGENT_UI);
  await sendMessage(page, 'plan the release notes');
  await waitForIdle(page);
  const card = page.getByRole('group', { name: 'A plan for your decision' });
  await card.waitFor({ timeout: 5_000 });
  assert.equal(await card.getAttribute('data-action-type'), 'plan_decision');
  assert.match(await card.textContent(), /planner/, 'the card names who asks');
  assert.equal(await page.getByRole('list', { name: 'Team' }).locator('[data-agent="planner@delivery"]').getAttribute('data-status'), 'plan_ready');
  const revise = card.getByRole('button', { name: 'Revise it' });
  await waitFor(() => revise.isEnabled(), { message: 'the buttons to arm' });
  await revise.click();
  await waitFor(async () => /I will revise the plan/.test(await shownText(page)), { message: 'the planner going back to its plan' });
  await waitForIdle(page);
  assert.deepEqual(page.bodies.map((b) => b.metadata?.agentUi?.respond).filter(Boolean), [{ actionId: 'act-plan', optionId: 'revise' }]);
  await openToolCalls(page);
  assert.match(await page.locator('[data-part="permission-decision"]').textContent(), /Revise it/);
  assert.deepEqual((await toolCalls(page)).map((c) => c.status), ['rejected'], 'the plan as it was is rejected; decided, not interrupted');
  assert.equal(await page.getByRole('list', { name: 'Team' }).locator('[data-agent="planner@delivery"]').getAttribute('data-status'), 'idle');
  await finishPage(page);
});

test('agent-ui: structured input is a form answered by question id, shown answered with what the runtime took', async () => {
  const page = await openChat(context, `${runtime.url}/`, AGENT_UI);
  await sendMessage(page, 'fill in the release form');
  await waitForIdle(page);
  const form = page.locator('[data-part="structured-input"]');
  await form.waitFor({ timeout: 5_000 });
  assert.equal(await page.getByRole('list', { name: 'Team' }).locator('[data-agent="release@ops"]').getAttribute('data-status'), 'needs_input');
  await form.getByRole('radio', { name: 'Beta' }).check();
  await form.getByRole('textbox', { name: 'Anything to add to the notes?' }).fill('<img src=x onerror="window.__xss=1">');
  await form.getByRole('button', { name: 'Submit' }).click();
  const done = page.locator('[data-part="structured-input"][data-status="answered"]');
  await done.waitFor({ timeout: 5_000 });
  assert.match(await done.textContent(), /Which channel\?\s*Beta/);
  assert.match(await done.textContent(), /<img src=x onerror/, 'the answer is text');
  await waitForIdle(page);
  const respond = page.bodies.map((b) => b.metadata?.agentUi?.respond).filter(Boolean);
  assert.deepEqual(respond, [{
    actionId: 'act-input',
    answers: { channel: { values: ['beta'], skipped: false }, notes: { values: ['<img src=x onerror="window.__xss=1">'], skipped: false } },
  }]);
  assert.match(await page.locator('article[data-role="assistant"]').last().textContent(), /Noted: channel: beta/);
  assert.equal(await page.evaluate(() => window.__xss ?? null), null);
  assert.equal(await page.locator('chat-shell').locator('img[src="x"], [onerror]').count(), 0);
  assert.deepEqual(await axeViolations(page), []);
  await finishPage(page);
});
