// Actions, client tools, effects and structured input end to end against the reference
// runtime (examples/runtime): approval and rejection (the decision shows only once the
// server states it), form values arriving at the runtime, a streaming:false action
// swapping its item, client tool round trips (a result, a throw, a missing tool),
// client_effect handlers and events, client action handlers, structured input.
// Zero console errors throughout.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { close, openBrowser, startRuntime, waitFor, newChatPage, sendMessage, finishPage, assistantMessages, frames } from './harness.mjs';

after(close);

let runtime;
let context;
before(async () => {
  runtime = await startRuntime();
  context = await openBrowser({ viewport: { width: 1000, height: 1400 } });
});

/** Waits until no answer streams (no Stop button, Send is back). */
async function idle(page, timeout = 15_000) {
  await waitFor(
    () =>
      page.evaluate(() => {
        const root = document.querySelector('chat-shell').shadowRoot;
        const labels = [...root.querySelectorAll('button')].map((b) => b.textContent.trim());
        return !labels.includes('Stop') && !root.querySelector('article[aria-busy="true"]');
      }),
    { timeout, message: 'the answer to end' },
  );
}

/** Runtime log lines for a request type, e.g. `threads.custom_action`. */
const logged = (type) => runtime.linesMatching(new RegExp(`POST /chatkit ${type.replace('.', '\\.')} 200`)).length;

/**
 * Records, from a MutationObserver, whether the approval card ever showed a decision
 * while its request was still pending (a spinning button).
 */
async function watchApproval(page) {
  await page.evaluate(() => {
    const root = document.querySelector('chat-shell').shadowRoot;
    window.__approval = { pendingSeen: false, decisionWhilePending: false };
    new MutationObserver(() => {
      const card = root.querySelector('[data-widget-name="tool_approval_request"]');
      if (!card) return;
      const pending = !!card.querySelector('button[aria-busy="true"]');
      const decision = !!card.querySelector('[data-part="approval-decision"]');
      if (pending) window.__approval.pendingSeen = true;
      if (pending && decision) window.__approval.decisionWhilePending = true;
    }).observe(root, { subtree: true, childList: true, attributes: true });
  });
}

for (const [button, approved, decision, answer] of [
  ['Approve', true, 'approved', 'Approved: send_payment ran'],
  ['Reject', false, 'rejected', 'Rejected: send_payment was not run'],
]) {
  test(`${button} sends the approval; the decision shows once the server replaced the card`, async () => {
    const page = await newChatPage(context, runtime.url);
    const bodies = [];
    // Hold the action until its pending state was seen.
    let answerAction;
    const actionHeld = new Promise((resolve) => (answerAction = resolve));
    await page.route('**/chatkit', async (route) => {
      const body = JSON.parse(route.request().postData());
      bodies.push(body);
      if (body.type === 'threads.custom_action') await actionHeld;
      await route.fallback();
    });
    await sendMessage(page, 'approval');
    const card = page.locator('[data-widget-name="tool_approval_request"]');
    await card.waitFor();
    await idle(page);
    assert.equal(await card.locator('[data-part="approval-tool"]').textContent(), 'send_payment');
    assert.equal(
      await card.locator('[data-part="approval-args"]').textContent(),
      '{\n  "amount": 42.5,\n  "currency": "EUR",\n  "recipient": "ACME Corp",\n  "memo": "Invoice 1042"\n}',
    );
    await watchApproval(page);
    const before = logged('threads.custom_action');
    await card.getByRole('button', { name: button }).click();
    await waitFor(() => page.evaluate(() => window.__approval.pendingSeen), { message: 'the pending state' });
    assert.equal(await card.getByRole('button', { name: 'Approve' }).isDisabled(), true);
    assert.equal(await card.getByRole('button', { name: 'Reject' }).isDisabled(), true);
    answerAction();
    const decided = card.locator(`[data-part="approval-decision"][data-decision="${decision}"]`);
    await decided.waitFor();
    await assistantMessages(page).filter({ hasText: answer }).waitFor();
    await idle(page);
    assert.equal(await decided.textContent(), decision === 'approved' ? 'Approved' : 'Rejected');
    assert.equal(await page.evaluate(() => window.__approval.decisionWhilePending), false, 'never a decision before the answer');
    assert.equal(await card.getByRole('button').count(), 0, 'decided: no more buttons');
    const action = bodies.find((b) => b.type === 'threads.custom_action');
    assert.equal(action.params.action.type, 'approval');
    assert.equal(action.params.action.payload.approved, approved);
    assert.equal(action.params.action.payload.tool_name, 'send_payment');
    assert.equal(typeof action.params.action.payload.tool_args, 'string', 'tool_args echoed as sent (a JSON string)');
    assert.match(action.params.item_id, /^wdg_/);
    await runtime.waitForLine(/POST \/chatkit threads\.custom_action 200/, { count: before + 1 });
    await finishPage(page);
  });
}

test('a form submission brings its field values to the runtime', async () => {
  const page = await newChatPage(context, runtime.url);
  await sendMessage(page, 'form');
  const form = page.locator('[data-component="Form"]');
  await form.waitFor();
  await idle(page);
  await form.getByLabel('Name').fill('Grace Hopper');
  await form.getByLabel('Email').fill('grace@example.com');
  await form.getByLabel('Plan').selectOption('pro');
  await form.getByLabel('Notes').fill('Compilers');
  await form.getByRole('checkbox', { name: 'I agree to the terms' }).check();
  await form.getByRole('radio', { name: 'Large' }).check();
  await form.getByLabel('Start date').fill('2026-05-06');
  await form.getByRole('button', { name: 'Submit' }).click();
  const answer = assistantMessages(page).filter({ hasText: 'Form received' });
  await answer.waitFor();
  await idle(page);
  const rows = await answer.locator('table tbody tr').evaluateAll((trs) =>
    Object.fromEntries(trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent.trim()))),
  );
  assert.deepEqual(rows, {
    form: 'profile', name: 'Grace Hopper', email: 'grace@example.com', plan: 'pro', notes: 'Compilers',
    agree: 'true', size: 'l', when: '2026-05-06',
  });
  await finishPage(page);
});

test('showcase actions: Confirm replaces the card, Sync +1 swaps the item from JSON, rows answer', async () => {
  const page = await newChatPage(context, runtime.url);
  await sendMessage(page, 'widget');
  const card = page.locator('[data-part="widget"][data-widget-type="Card"]');
  await card.waitFor();
  await idle(page);
  // streaming:false → threads.sync_custom_action, the JSON answer's item swapped in.
  const syncs = logged('threads.sync_custom_action');
  await card.getByRole('button', { name: 'Sync +1 (count=0)' }).click();
  await card.getByRole('button', { name: 'Sync +1 (count=1)' }).waitFor();
  await card.getByRole('button', { name: 'Sync +1 (count=1)' }).click();
  await card.getByRole('button', { name: 'Sync +1 (count=2)' }).waitFor();
  await runtime.waitForLine(/POST \/chatkit threads\.sync_custom_action 200/, { count: syncs + 2 });
  // A streamed server action: the card is replaced by its confirmed version.
  await card.getByRole('button', { name: 'Confirm' }).click();
  await assistantMessages(page).filter({ hasText: 'Confirmed. The card above was replaced' }).waitFor();
  await idle(page);
  assert.equal(await card.locator('[data-component="Badge"]').textContent(), 'confirmed');
  assert.equal(await card.getByRole('button', { name: 'Confirm' }).count(), 0);
  assert.equal(await card.getByText('Confirmed', { exact: true }).count(), 1);

  await sendMessage(page, 'list');
  const list = page.locator('[data-widget-type="ListView"]');
  await list.waitFor();
  await idle(page);
  await list.getByRole('button', { name: /Document 2/ }).click();
  await assistantMessages(page).filter({ hasText: 'You picked Document 2 from the list.' }).waitFor();
  await idle(page);
  await finishPage(page);
});

test('a client action reaches the page handler and the chat.action event, not the runtime', async () => {
  const page = await newChatPage(context, runtime.url, {
    setup: () => {
      const el = document.querySelector('chat-shell');
      window.__handled = [];
      window.__events = [];
      el.registerClientAction('client.toast', async (action, context) => {
        window.__handled.push({ action, context });
      });
      el.addEventListener('chat.action', (e) => window.__events.push(e.detail));
    },
  });
  await sendMessage(page, 'widget');
  await page.locator('[data-part="widget"]').waitFor();
  await idle(page);
  const actions = logged('threads.custom_action');
  const sent = [];
  page.on('request', (r) => r.url().endsWith('/chatkit') && sent.push(r));
  await page.getByRole('button', { name: 'Client action' }).click();
  await waitFor(() => page.evaluate(() => window.__handled.length === 1), { message: 'the handler' });
  const { handled, events } = await page.evaluate(() => ({ handled: window.__handled, events: window.__events }));
  assert.equal(handled[0].action.type, 'client.toast');
  assert.deepEqual(handled[0].action.payload, { text: 'Handled in the page' });
  assert.match(handled[0].context.itemId, /^msg_/);
  assert.equal(events.length, 1);
  assert.equal(events[0].itemId, handled[0].context.itemId);
  // A request would have gone out in the frames after the click, and been logged once
  // answered (the runtime logs a request as it answers it).
  await frames(page);
  await Promise.all(sent.map((r) => r.response()));
  assert.equal(logged('threads.custom_action'), actions, 'nothing sent to the runtime');
  await finishPage(page);
});

test('a client tool runs in the page and its result continues the answer', async () => {
  const page = await newChatPage(context, runtime.url, {
    setup: () => {
      window.__toolArgs = [];
      document.querySelector('chat-shell').registerClientTool('get_client_info', async (args, context) => {
        window.__toolArgs.push({ args, context });
        // It runs until the test has seen it running.
        await new Promise((resolve) => (window.__finishTool = resolve));
        return { userAgent: 'e2e-agent', language: 'tlh', timeZone: 'Mars/Olympus' };
      });
    },
  });
  const outputs = logged('threads.add_client_tool_output');
  await sendMessage(page, 'clienttool');
  const row = page.locator('[data-part="tool-call"]');
  await row.waitFor();
  assert.equal(await row.locator('.cs-tool__name').textContent(), 'get_client_info');
  await waitFor(async () => (await row.getAttribute('data-status')) === 'running', { message: 'the tool to run' });
  await waitFor(() => page.evaluate(() => typeof window.__finishTool === 'function'), { message: 'the tool called' });
  await page.evaluate(() => window.__finishTool());
  const answer = assistantMessages(page).filter({ hasText: 'returned' });
  await answer.waitFor();
  await idle(page);
  assert.equal(await row.getAttribute('data-status'), 'done');
  assert.equal(await row.locator('.cs-tool__status').textContent(), 'Done');
  const text = await answer.textContent();
  for (const value of ['e2e-agent', 'tlh', 'Mars/Olympus']) assert.ok(text.includes(value), `${value} in ${text}`);
  const calls = await page.evaluate(() => window.__toolArgs);
  assert.deepEqual(calls.length, 1);
  assert.deepEqual(calls[0].args, { fields: ['userAgent', 'language', 'timeZone'] });
  assert.equal(calls[0].context.name, 'get_client_info');
  await runtime.waitForLine(/POST \/chatkit threads\.add_client_tool_output 200/, { count: outputs + 1 });
  await finishPage(page);
});

for (const [what, setup, message] of [
  [
    'a throwing tool',
    () => document.querySelector('chat-shell').registerClientTool('get_client_info', async () => {
      throw new Error('permission denied by the user');
    }),
    'permission denied by the user',
  ],
  ['a missing tool', null, 'No client tool named `get_client_info` is registered in this page.'],
]) {
  test(`${what} sends an error result and shows it on the tool call`, async () => {
    const page = await newChatPage(context, runtime.url, { setup });
    await sendMessage(page, 'clienttool');
    const answer = assistantMessages(page).filter({ hasText: 'returned' });
    await answer.waitFor();
    await idle(page);
    const row = page.locator('[data-part="tool-call"]');
    assert.equal(await row.getAttribute('data-status'), 'failed');
    assert.equal(await row.locator('[data-part="tool-error"]').textContent(), message);
    // The runtime echoes the result it got: {"error": "…"}.
    const code = await answer.locator('pre').textContent();
    assert.deepEqual(JSON.parse(code), { error: message });
    await finishPage(page);
  });
}

test('client effects reach a registered handler and the chat.effect event, and are not stored', async () => {
  const page = await newChatPage(context, runtime.url, {
    setup: () => {
      const el = document.querySelector('chat-shell');
      window.__effects = [];
      window.__toasts = [];
      el.addEventListener('chat.effect', (e) => window.__effects.push(e.detail));
      el.registerEffect('peer.toast', (data, name) => window.__toasts.push({ data, name }));
    },
  });
  await sendMessage(page, 'effect');
  await assistantMessages(page).filter({ hasText: 'Three client_effect events were sent' }).waitFor();
  await idle(page);
  const { effects, toasts } = await page.evaluate(() => ({ effects: window.__effects, toasts: window.__toasts }));
  assert.deepEqual(effects.map((e) => e.name), ['peer.toast', 'peer.navigate', 'peer.no_data']);
  assert.deepEqual(effects[1].data, { href: '#/settings', replace: false });
  assert.deepEqual(toasts, [{ data: { text: 'Hello from a client_effect', level: 'success' }, name: 'peer.toast' }]);
  assert.equal(await page.locator('article, [data-part]').filter({ hasText: 'peer.navigate' }).count(), 1, 'only the message mentions it');
  await finishPage(page);
});

test('a structured input is answered and then shown as answered from the server echo', async () => {
  const page = await newChatPage(context, runtime.url);
  const before = logged('threads.add_structured_input');
  await sendMessage(page, 'structured');
  const form = page.locator('[data-part="structured-input"]');
  await form.waitFor();
  await idle(page);
  await form.getByRole('radio', { name: 'blue' }).check();
  await form.getByRole('checkbox', { name: 'Fresh basil' }).check();
  await form.getByRole('textbox', { name: 'Why?' }).fill('Because');
  await form.getByRole('button', { name: 'Submit' }).click();
  const done = page.locator('[data-part="structured-input"][data-status="answered"]');
  await done.waitFor();
  await assistantMessages(page).filter({ hasText: 'was answered' }).waitFor();
  await idle(page);
  assert.deepEqual(await done.locator('dd').allTextContents(), ['blue', 'Fresh basil', 'Because']);
  const summary = await assistantMessages(page).filter({ hasText: 'was answered' }).textContent();
  assert.ok(summary.includes('Pick a color blue'), summary);
  assert.ok(summary.includes('Pick toppings basil'), summary);
  assert.ok(summary.includes('Why? Because'), summary);
  await runtime.waitForLine(/POST \/chatkit threads\.add_structured_input 200/, { count: before + 1 });

  // Skip answers every question as skipped.
  await sendMessage(page, 'structured');
  const second = page.locator('[data-part="structured-input"][data-status="pending"]');
  await second.waitFor();
  await idle(page);
  await second.getByRole('button', { name: 'Skip' }).click();
  await page.locator('[data-part="structured-input"][data-status="skipped"]').waitFor();
  await idle(page);
  await finishPage(page);
});
