// Widgets from recorded ChatKit traffic: the page is served by the reference runtime, but
// every POST to /chatkit is answered by this file (page.route) with fixture bytes or
// hand-built events, and every request body is recorded. Checks structure and props of
// the whole widget catalog, actions (streamed, sync, client, forms), widget streaming,
// typed values surviving updates, unknown components, sanitizing, the approval card and
// structured input. Zero console errors throughout.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ROOT, axeViolations, close, newPage, openBrowser, runOver, sseBody, startRuntime, waitFor, finishPage, frames, sendMessage, waitForComposer, newChatPage } from './harness.mjs';

after(close);

const fixture = (name) => readFileSync(path.join(ROOT, 'tests', 'fixtures', 'chatkit', name), 'utf8');
// A 1×1 PNG for the fixture's sample image (its recorded loopback port is long gone).
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

let runtime;
let context;
before(async () => {
  runtime = await startRuntime();
  context = await openBrowser({ viewport: { width: 1000, height: 1400 } });
});

/**
 * A chat page whose /chatkit answers come from `answer(body, requests)`: a string (SSE),
 * `{ json }`, or `{ sse, held: true }`, held until `release()` (a pending state to see).
 * Returns { page, requests, release }.
 */
async function chatPage(answer) {
  const page = await newPage(context, 'about:blank');
  const requests = [];
  let release;
  const released = new Promise((resolve) => (release = resolve));
  await page.route('**/sample.png', (r) => r.fulfill({ contentType: 'image/png', body: PNG }));
  await page.route('**/chatkit', async (route) => {
    const body = JSON.parse(route.request().postData());
    requests.push(body);
    let reply = await answer(body, requests);
    if (typeof reply === 'string') reply = { sse: reply };
    if (reply.held) await released;
    if (reply.json !== undefined) {
      await route.fulfill({ contentType: 'application/json', body: JSON.stringify(reply.json) });
    } else {
      await route.fulfill({ contentType: 'text/event-stream', body: reply.sse });
    }
  });
  await page.goto(runtime.url, { waitUntil: 'load' });
  await waitForComposer(page);
  return { page, requests, release };
}

/**
 * The newest request of `type`, once the route has seen it: the page marks a control busy
 * when it sends, and the route gets the request a moment later.
 */
function requestOf(requests, type) {
  return waitFor(() => requests.findLast((r) => r.type === type), { message: `a ${type} request` });
}

/** Evaluates `fn(shadowRoot, arg)` in the page (one expression: the page allows no eval). */
function inShadow(page, fn, arg) {
  return page.evaluate(
    `(${fn.toString()})(document.querySelector('chat-shell').shadowRoot, ${arg === undefined ? 'undefined' : JSON.stringify(arg)})`,
  );
}

function componentCounts(page) {
  return inShadow(page, (root) => {
    const counts = {};
    for (const el of root.querySelectorAll('[data-component]')) {
      counts[el.dataset.component] = (counts[el.dataset.component] ?? 0) + 1;
    }
    return counts;
  });
}

/** A thread with one widget item (and the user message), as hand-built events. */
function widgetThread(widget, { itemId = 'wdg_1', threadId = 'thr_w' } = {}) {
  return sseBody([
    { type: 'thread.created', thread: { id: threadId, created_at: '2026-01-01T00:00:00', status: { type: 'active' }, metadata: {}, items: { data: [], has_more: false } } },
    { type: 'thread.item.done', item: { id: 'msg_u', thread_id: threadId, created_at: '2026-01-01T00:00:00', type: 'user_message', content: [{ type: 'input_text', text: 'hi' }], attachments: [], inference_options: {} } },
    { type: 'thread.item.done', item: { id: itemId, thread_id: threadId, created_at: '2026-01-01T00:00:01', type: 'widget', widget } },
  ]);
}

test('every widget of widget.sse renders with its structure and props', async () => {
  const { page } = await chatPage(() => fixture('widget.sse'));
  await sendMessage(page, 'widget');
  const widgets = page.locator('[data-part="widget"]');
  await waitFor(async () => (await widgets.count()) === 6, { message: 'six widget roots' });
  assert.deepEqual(
    await widgets.evaluateAll((els) => els.map((e) => [e.dataset.widgetType, e.getAttribute('part')])),
    [['Card', 'widget'], ['Card', 'widget'], ['ListView', 'widget'], ['Card', 'widget'], ['Card', 'widget'], ['Basic', 'widget']],
  );
  assert.deepEqual(await componentCounts(page), {
    Card: 4, Row: 4, Icon: 7, Title: 4, Spacer: 6, Badge: 2, Caption: 7, Text: 10, Markdown: 1,
    Divider: 2, Image: 1, Col: 1, Box: 1, Button: 6, Form: 1, Label: 3, Input: 2, Select: 1,
    Textarea: 1, Checkbox: 1, RadioGroup: 1, DatePicker: 1, ListView: 1, ListViewItem: 5, Chart: 1, Basic: 1,
  });

  // Text values are text: the HTML in a Text shows literally, no element is created.
  const showcase = widgets.nth(0);
  const plain = showcase.locator('[data-component="Text"]').first();
  assert.equal(await plain.textContent(), 'Plain Text component: <b>not bold</b> <img src=x onerror=alert(1)>');
  assert.equal(await plain.locator('*').count(), 0);
  assert.equal(await inShadow(page, (root) => root.querySelectorAll('img[src="x"], img[onerror], b').length), 0);
  // Markdown goes through the sanitizer: formatting and a safe link stay, <script> goes.
  const md = showcase.locator('[data-component="Markdown"]');
  assert.equal(await md.locator('strong').textContent(), 'Markdown');
  assert.equal(await md.locator('a').getAttribute('href'), 'https://example.com');
  assert.equal(await md.locator('li').count(), 2);
  assert.equal(await inShadow(page, (root) => root.querySelectorAll('script').length), 0);
  assert.ok(!(await md.textContent()).includes("alert('widget')"), 'script content is dropped');

  // Layout props become classes and validated CSS values.
  const box = showcase.locator('[data-component="Box"]');
  const boxStyle = await box.getAttribute('style');
  // (styles go in through the CSSOM, so the browser writes them back normalized)
  assert.match(boxStyle, /padding-top:\s*calc\(var\(--cs-w-unit\) \* 3\)/);
  assert.match(boxStyle, /border-radius:\s*var\(--cs-w-radius-lg\)/);
  assert.match(boxStyle, /background:\s*var\(--cs-w-bg-surface-secondary\)/);
  assert.match(await box.getAttribute('class'), /cs-w-box--row/);
  assert.equal(await showcase.getAttribute('class').then((c) => c.includes('cs-w-card--md')), true);
  assert.equal(await showcase.locator('[data-part="widget-status"]').textContent(), 'chatkit_peer');
  const badge = showcase.locator('[data-component="Badge"]');
  assert.equal(await badge.textContent(), 'beta');
  assert.match(await badge.getAttribute('class'), /cs-w-badge--info.*cs-w-badge--soft.*cs-w-badge--pill/);
  assert.equal(await showcase.locator('svg[data-icon="sparkle"] path').count() > 0, true);
  const image = showcase.locator('img[data-component="Image"]');
  assert.equal(await image.getAttribute('alt'), 'generated sample');
  assert.match(await image.getAttribute('style'), /width:\s*64px;\s*height:\s*64px/);

  // Buttons and their labels.
  assert.deepEqual(await page.locator('[data-component="Button"]').allTextContents(), [
    'Server action', 'Client action', 'Sync +1 (count=0)', 'Submit', 'Cancel card', 'Confirm card',
  ]);
  assert.equal(await page.getByRole('button', { name: 'Server action' }).isEnabled(), true);

  // Form fields carry their names, labels point at them.
  const form = widgets.nth(1);
  for (const sel of ['input[name="name"][required]', 'input[name="email"][type="email"]', 'select[name="plan"]', 'textarea[name="notes"]', 'input[type="checkbox"][name="agree"]', '[role="radiogroup"][data-name="size"]', 'input[type="date"][name="when"]']) {
    assert.equal(await form.locator(sel).count(), 1, sel);
  }
  assert.equal(await form.getByLabel('Email').getAttribute('name'), 'email');
  assert.equal(await form.locator('select[name="plan"]').inputValue(), 'free');
  assert.equal(await form.locator('select[name="plan"] option[value="old"]').isDisabled(), true);
  assert.equal(await form.getByRole('radio', { name: 'Medium' }).isChecked(), true);

  // ListView: the first `limit` rows, then "Show 2 more".
  const list = widgets.nth(2);
  assert.equal(await list.locator('[role="listitem"]:visible').count(), 3);
  await list.getByRole('button', { name: 'Show 2 more' }).click();
  assert.equal(await list.locator('[role="listitem"]:visible').count(), 5);
  assert.equal(await list.getByRole('button', { name: /List row 4/ }).count(), 1);

  // Chart: SVG bars per value, axes, legend.
  const chart = widgets.nth(3).locator('[data-component="Chart"]');
  assert.equal(await chart.locator('svg rect.cs-w-chart__bar').count(), 6);
  assert.deepEqual(await chart.locator('svg text').allTextContents(), ['0', '2', '4', '6', 'Jan', 'Feb', 'Mar']);
  assert.deepEqual(await chart.locator('[data-part="chart-legend"] li').allTextContents(), ['A', 'B']);
  assert.equal(await chart.locator('svg').getAttribute('role'), 'img');

  assert.equal(await widgets.nth(4).locator('[data-component="Badge"]').getAttribute('data-color'), 'discovery');
  assert.equal(await widgets.nth(5).textContent(), 'Basic root (no card chrome)');
  await finishPage(page);
});

test('a server action streams threads.custom_action; its button spins until the answer ends', async () => {
  const { page, requests, release } = await chatPage((body) =>
    body.type === 'threads.custom_action' ? { sse: fixture('widget.card_confirm.sse'), held: true } : fixture('widget.sse'),
  );
  await sendMessage(page, 'widget');
  const button = page.getByRole('button', { name: 'Server action' });
  // widget.sse streams a message after its widgets; an action is refused while it runs.
  await button.waitFor();
  await runOver(page);
  await button.click();
  await waitFor(async () => (await button.getAttribute('aria-busy')) === 'true', { message: 'the button to spin' });
  assert.equal(await button.isDisabled(), true);
  assert.equal(await button.locator('.cs-spinner').count(), 1);
  const action = await requestOf(requests, 'threads.custom_action');
  assert.deepEqual(action, {
    type: 'threads.custom_action',
    params: {
      thread_id: 'thr_00000020',
      item_id: 'msg_00000022',
      action: { type: 'peer.ping', payload: { from: 'showcase' }, handler: 'server', loadingBehavior: 'auto', streaming: true },
    },
  });
  release();
  const answer = page.locator('article[data-role="assistant"]').filter({ hasText: 'peer.card_confirm' });
  await answer.waitFor();
  await waitFor(async () => (await button.getAttribute('aria-busy')) === 'false', { message: 'the spinner to stop' });
  assert.equal(await button.isEnabled(), true);
  await finishPage(page);
});

test('a form checks required fields, then submits its values merged into the payload', async () => {
  const { page, requests, release } = await chatPage((body) =>
    body.type === 'threads.custom_action' ? { sse: fixture('widget.form_submit.sse'), held: true } : fixture('widget.sse'),
  );
  await sendMessage(page, 'widget');
  const form = page.locator('[data-component="Form"]');
  await form.waitFor();
  await runOver(page);
  await form.getByRole('button', { name: 'Submit' }).click();
  // A submit would have made the card busy at once, in the frames after the click.
  await frames(page);
  assert.equal(await page.locator('[data-part="widget"]').nth(1).getAttribute('aria-busy'), 'false', 'the form was submitted');
  assert.equal(requests.length, 1, 'an empty required field blocks the submit');

  await form.getByLabel('Name').fill('Ada');
  await form.getByLabel('Email').fill('ada@example.com');
  await form.getByLabel('Plan').selectOption('pro');
  await form.locator('textarea[name="notes"]').fill('Line one\nline two');
  await form.getByRole('checkbox', { name: 'I agree' }).check();
  await form.getByRole('radio', { name: 'Small' }).check();
  await form.locator('input[name="when"]').fill('2026-03-04');
  await form.getByRole('button', { name: 'Submit' }).click();

  // `auto` loading for a form: the whole widget is busy and its fields are disabled.
  const card = page.locator('[data-part="widget"]').nth(1);
  await waitFor(async () => (await card.getAttribute('aria-busy')) === 'true', { message: 'the form card to be busy' });
  assert.equal(await form.getByLabel('Name').isDisabled(), true);
  assert.equal(await card.locator('.cs-widget__busy').count(), 1);
  const submit = await requestOf(requests, 'threads.custom_action');
  assert.equal(submit.params.item_id, 'msg_00000023');
  assert.deepEqual(submit.params.action.payload, {
    form: 'profile', name: 'Ada', email: 'ada@example.com', plan: 'pro', notes: 'Line one\nline two',
    agree: true, size: 's', when: '2026-03-04',
  });
  release();
  await page.locator('article[data-role="assistant"]').filter({ hasText: 'peer.form_submit' }).waitFor();
  await waitFor(async () => (await card.getAttribute('aria-busy')) === 'false', { message: 'the card to be idle' });
  assert.equal(await form.getByLabel('Name').inputValue(), 'Ada', 'the typed value stays');
  await finishPage(page);
});

test('a streaming:false action posts threads.sync_custom_action and swaps in the updated item', async () => {
  const { page, requests, release } = await chatPage((body) =>
    body.type === 'threads.sync_custom_action'
      ? { json: JSON.parse(fixture('threads.sync_custom_action.json')), held: true }
      : fixture('widget.sse'),
  );
  await sendMessage(page, 'widget');
  const button = page.getByRole('button', { name: 'Sync +1 (count=0)' });
  await button.waitFor();
  await runOver(page);
  await button.click();
  await waitFor(async () => (await button.getAttribute('aria-busy')) === 'true', { message: 'loadingBehavior self' });
  assert.deepEqual(await requestOf(requests, 'threads.sync_custom_action'), {
    type: 'threads.sync_custom_action',
    params: {
      thread_id: 'thr_00000020',
      item_id: 'msg_00000022',
      action: { type: 'peer.counter', payload: { count: 0 }, handler: 'server', loadingBehavior: 'self', streaming: false },
    },
  });
  release();
  await page.getByRole('button', { name: 'Sync +1 (count=1)' }).waitFor();
  assert.equal(await page.getByRole('button', { name: 'Sync +1 (count=0)' }).count(), 0);
  assert.equal(requests.length, 2);
  await finishPage(page);
});

test('a client action goes to the registered handler and the chat.action event, never the server', async () => {
  const { page, requests } = await chatPage(() => fixture('widget.sse'));
  await page.evaluate(() => {
    const el = document.querySelector('chat-shell');
    window.__handled = [];
    window.__events = [];
    el.registerClientAction('peer.client_only', (action, context) => {
      window.__handled.push({ action, context });
    });
    el.addEventListener('chat.action', (e) => window.__events.push(e.detail));
  });
  await sendMessage(page, 'widget');
  await page.getByRole('button', { name: 'Client action' }).click();
  await waitFor(() => page.evaluate(() => window.__handled.length === 1), { message: 'the client handler' });
  const { handled, events } = await page.evaluate(() => ({ handled: window.__handled, events: window.__events }));
  assert.deepEqual(handled[0].action, { type: 'peer.client_only', payload: { x: 1 }, handler: 'client', loadingBehavior: 'auto', streaming: true });
  assert.deepEqual(handled[0].context, { itemId: 'msg_00000022' });
  assert.deepEqual(events, [{ action: handled[0].action, itemId: 'msg_00000022' }]);
  // A request would have gone out with the handler's call, in the frames after the click.
  await frames(page);
  assert.equal(requests.length, 1, 'no request for a client action');
  await finishPage(page);
});

test('widget streaming: deltas, component and root updates end in the final widget', async () => {
  const { page } = await chatPage(() => fixture('widgetstream.sse'));
  await sendMessage(page, 'widgetstream');
  const widget = page.locator('[data-part="widget"]');
  await widget.locator('[data-component="Title"]', { hasText: '(root replaced)' }).waitFor();
  assert.equal(await widget.locator('[data-component="Text"]').textContent(), 'Text streamed into a widget component, word by word.');
  assert.deepEqual(await widget.locator('[data-component="Markdown"] li').allTextContents(), ['one', 'two']);
  assert.equal(await widget.locator('[data-component="Badge"]').textContent(), 'done');
  assert.equal(await widget.locator('[data-component="Badge"]').getAttribute('data-color'), 'success');
  await finishPage(page);
});

test('widget streaming from the runtime re-renders the widget as deltas arrive', async () => {
  const paced = await startRuntime({ paceMs: 40 });
  const page = await newChatPage(context, paced.url);
  await page.evaluate(() => {
    const root = document.querySelector('chat-shell').shadowRoot;
    window.__seen = new Set();
    new MutationObserver(() => {
      const text = root.querySelector('[data-part="widget"] [data-component="Text"]');
      if (text) window.__seen.add(text.textContent);
    }).observe(root, { subtree: true, childList: true, characterData: true });
  });
  await sendMessage(page, 'widgetstream');
  await page.locator('[data-component="Title"]', { hasText: '(root replaced)' }).waitFor({ timeout: 15_000 });
  const seen = await page.evaluate(() => [...window.__seen]);
  assert.ok(seen.length >= 4, `the streamed Text was seen growing: ${JSON.stringify(seen)}`);
  assert.ok(seen.includes('Text streamed into a widget component, word by word.'));
  assert.ok(seen.some((s) => s.length > 0 && 'Text streamed into a widget component, word by word.'.startsWith(s) && s.length < 40));
  assert.equal(await page.locator('[data-component="Badge"]').textContent(), 'done');
  await finishPage(page);
  await paced.close();
});

test('typed values and focus survive widget updates while the field id/key is unchanged', async () => {
  const widget = (placeholder, secondId, text = 'v0') => ({
    type: 'Card', key: 'k', children: [
      { type: 'Text', id: 'live', value: text },
      { type: 'Input', id: 'keep', name: 'keep', placeholder },
      { type: 'Input', id: secondId, name: 'other', defaultValue: 'default' },
      { type: 'Input', key: 'by-key', name: 'third' },
      { type: 'Button', label: 'Go', onClickAction: { type: 'go', loadingBehavior: 'none' } },
    ],
  });
  const updates = sseBody([
    { type: 'thread.item.updated', item_id: 'wdg_1', update: { type: 'widget.streaming_text.value_delta', component_id: 'live', delta: ' v1', done: false } },
    { type: 'thread.item.updated', item_id: 'wdg_1', update: { type: 'widget.component.updated', component_id: 'live', component: { type: 'Text', id: 'live', value: 'replaced' } } },
    { type: 'thread.item.updated', item_id: 'wdg_1', update: { type: 'widget.root.updated', widget: widget('New placeholder', 'renamed', 'root replaced') } },
  ]);
  const { page } = await chatPage((body) => (body.type === 'threads.custom_action' ? updates : widgetThread(widget('Old', 'second'))));
  await sendMessage(page, 'hi');
  const keep = page.locator('input[name="keep"]');
  await keep.fill('typed by the user');
  await page.locator('input[name="other"]').fill('changed');
  await page.locator('input[name="third"]').fill('third value');
  // The user is typing in `keep` (caret after "typed") when the update arrives: the
  // action is started by a script click, which leaves the focus where it is.
  await keep.focus();
  await inShadow(page, (root) => {
    root.querySelector('input[name="keep"]').setSelectionRange(5, 5);
    // What a user would see: the caret in every painted frame while the field has focus.
    window.__carets = [];
    const sample = () => {
      const el = root.activeElement;
      if (el?.name === 'keep') window.__carets.push(el.selectionStart);
      if (window.__carets.length < 600) requestAnimationFrame(sample);
    };
    requestAnimationFrame(sample);
    root.querySelector('[data-component="Button"]').click();
  });
  await page.locator('input[placeholder="New placeholder"]').waitFor();
  assert.equal(await page.locator('[data-component="Text"]').textContent(), 'root replaced');
  assert.equal(await keep.inputValue(), 'typed by the user', 'same id: the typed value stays');
  assert.equal(await page.locator('input[name="third"]').inputValue(), 'third value', 'same key: the typed value stays');
  assert.equal(await page.locator('input[name="other"]').inputValue(), 'default', 'a new id starts from its default');
  const focus = await waitFor(
    () => inShadow(page, (root) => {
      const el = root.activeElement;
      return el?.name === 'keep' ? { name: el.name, caret: el.selectionStart } : null;
    }),
    { message: 'the focus back in the field' },
  );
  assert.deepEqual(focus, { name: 'keep', caret: 5 });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const carets = await page.evaluate(() => window.__carets);
  assert.ok(carets.length > 0, 'frames were sampled with the field focused');
  assert.deepEqual([...new Set(carets)], [5], 'the caret never jumped in a painted frame');
  await finishPage(page);
});

test('unknown component types render their children, their text or a neutral placeholder', async () => {
  const widget = {
    type: 'Card', children: [
      { type: 'Title', value: 'Before' },
      { type: 'FancyFrame', glow: true, children: [{ type: 'Text', value: 'inside the unknown frame' }] },
      { type: 'Sparkles' },
      { type: 'Gizmo', value: 'gizmo says hi' },
      { type: 'Transition', children: { type: 'Text', value: 'single child of a transition' } },
      { type: 'Text', value: 'After' },
    ],
  };
  const { page } = await chatPage(() => widgetThread(widget));
  await sendMessage(page, 'hi');
  const card = page.locator('[data-part="widget"]');
  await card.getByText('After').waitFor();
  assert.equal(await card.locator('[data-type="FancyFrame"] [data-component="Text"]').textContent(), 'inside the unknown frame');
  assert.equal(await card.locator('[data-type="Sparkles"][role="note"]').textContent(), 'Unsupported component');
  assert.equal(await card.locator('[data-type="Gizmo"]').textContent(), 'gizmo says hi');
  assert.equal(await card.locator('[data-component="Transition"] [data-component="Text"]').textContent(), 'single child of a transition');
  assert.deepEqual(await card.locator('[data-component="Title"], [data-component="Text"]').allTextContents(), [
    'Before', 'inside the unknown frame', 'single child of a transition', 'After',
  ]);
  await finishPage(page);
});

test('image sources, links, colors and lengths from the server pass the sanitizer', async () => {
  const widget = {
    type: 'Card',
    status: { text: 'status', favicon: 'javascript:alert(1)' },
    background: 'red;background-image:url(https://evil.example/x.png)',
    children: [
      { type: 'Image', src: 'javascript:alert(1)', alt: 'bad image' },
      { type: 'Image', src: 'data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=', alt: 'svg data' },
      { type: 'Image', src: 'https://example.com/ok.png', alt: 'good image', width: '10px;position:fixed' },
      { type: 'Markdown', value: '[bad](javascript:alert(1)) <img src=x onerror=alert(2)> <a href="https://example.com" onclick="alert(3)">ok</a>' },
      { type: 'Text', value: '<script>alert(4)</script>', color: 'expression(alert(5))' },
      { type: 'Box', padding: '1px;background:url(x)', border: { size: 1, color: 'red;x:url(y)' }, children: [{ type: 'Caption', value: 'boxed' }] },
      { type: 'Icon', name: '"><script>alert(6)</script>' },
    ],
  };
  const { page } = await chatPage(() => widgetThread(widget));
  await page.route('https://example.com/**', (r) => r.fulfill({ contentType: 'image/png', body: PNG }));
  await sendMessage(page, 'hi');
  const card = page.locator('[data-part="widget"]');
  await card.getByText('boxed').waitFor();
  const found = await inShadow(page, (root) => ({
    scripts: root.querySelectorAll('script').length,
    jsLinks: [...root.querySelectorAll('a')].filter((a) => /^\s*javascript:/i.test(a.getAttribute('href') ?? '')).length,
    handlers: [...root.querySelectorAll('*')].filter((el) => [...el.attributes].some((a) => a.name.startsWith('on'))).length,
    // (the sanitizer keeps Markdown's <img> but drops its relative `src`)
    imgs: [...root.querySelectorAll('[data-part="widget"] img[src]')].map((i) => i.getAttribute('src')),
    styles: [...root.querySelectorAll('[data-part="widget"] [style], [data-part="widget"][style]')].map((e) => e.getAttribute('style')),
  }));
  assert.equal(found.scripts, 0);
  assert.equal(found.jsLinks, 0);
  assert.equal(found.handlers, 0);
  assert.deepEqual(found.imgs, ['https://example.com/ok.png']);
  assert.ok(found.styles.every((s) => !/url\(|expression|position:\s*fixed|;\s*x:/.test(s)), JSON.stringify(found.styles));
  assert.equal(await card.locator('[role="img"][aria-label="bad image"]').count(), 1, 'a blocked image keeps its alt');
  assert.equal(await card.locator('[data-component="Text"]').textContent(), '<script>alert(4)</script>');
  assert.equal(await card.locator('svg[data-icon]').last().getAttribute('data-icon'), '"><script>alert(6)</script>');
  await finishPage(page);
});

test('the fork approval card sends the approval and shows no decision until the server states one', async () => {
  const decided = sseBody([
    { type: 'thread.item.replaced', item: { id: 'wdg_82d996ee', thread_id: 'thr_0000007a', created_at: '2026-11-21T08:28:56', type: 'client_widget', name: 'tool_approval_request', args: { tool_name: 'processPayment', tool_args: { account_id: '1010', amount: 85.2 }, call_id: 'call_OqZCSVqydPx07bpoQELBBrMi', request_id: 'call_OqZCSVqydPx07bpoQELBBrMi', decision: 'rejected' } } },
  ]);
  let round = 0;
  const { page, requests, release } = await chatPage((body) => {
    if (body.type !== 'threads.custom_action') return fixture('forkquirks.sse');
    round += 1;
    // First answer: the fork's, which never states the decision. Second: a replaced item.
    return { sse: round === 1 ? fixture('forkquirks.custom_action.sse') : decided, held: true };
  });
  await sendMessage(page, 'fork');
  const card = page.locator('[data-part="client-widget"][data-widget-name="tool_approval_request"]');
  await card.waitFor();
  assert.equal(await card.getAttribute('part'), 'widget');
  assert.equal(await card.locator('[data-part="approval-tool"]').textContent(), 'processPayment');
  assert.equal(await card.locator('[data-part="approval-args"]').textContent(), '{\n  "account_id": "1010",\n  "amount": 85.2\n}');
  const approve = card.getByRole('button', { name: 'Approve' });
  const reject = card.getByRole('button', { name: 'Reject' });
  await approve.click();
  await waitFor(async () => (await approve.getAttribute('aria-busy')) === 'true', { message: 'approve to spin' });
  assert.equal(await reject.isDisabled(), true);
  assert.equal(await card.locator('[data-part="approval-decision"]').count(), 0, 'no decision while pending');
  assert.deepEqual(await requestOf(requests, 'threads.custom_action'), {
    type: 'threads.custom_action',
    params: {
      thread_id: 'thr_0000007a',
      item_id: 'wdg_82d996ee',
      action: {
        type: 'approval',
        payload: { tool_name: 'processPayment', tool_args: { account_id: '1010', amount: 85.2 }, approved: true, call_id: 'call_OqZCSVqydPx07bpoQELBBrMi', request_id: 'call_OqZCSVqydPx07bpoQELBBrMi' },
        handler: 'server',
        loadingBehavior: 'auto',
      },
    },
  });
  release();
  await page.locator('article[data-role="assistant"]').filter({ hasText: 'approved and processed' }).waitFor();
  // The fork's answer says nothing about the card: no decision is shown, only that the
  // answer went out; the buttons stay disabled.
  await card.getByText('Answer sent.').waitFor();
  assert.equal(await card.locator('[data-part="approval-decision"]').count(), 0);
  assert.equal(await approve.isDisabled(), true);
  await finishPage(page);

  // A server that replaces the card with its decision: the decision shows.
  round = 1;
  const second = await chatPage((body) => (body.type === 'threads.custom_action' ? { sse: decided, held: true } : fixture('forkquirks.sse')));
  await sendMessage(second.page, 'fork');
  const card2 = second.page.locator('[data-widget-name="tool_approval_request"]');
  await card2.getByRole('button', { name: 'Reject' }).click();
  assert.equal(await card2.locator('[data-part="approval-decision"]').count(), 0);
  second.release();
  await card2.locator('[data-part="approval-decision"][data-decision="rejected"]').waitFor();
  assert.equal(await card2.locator('[data-part="approval-decision"]').textContent(), 'Rejected');
  assert.equal(await card2.getByRole('button', { name: 'Approve' }).count(), 0);
  assert.equal(second.requests.at(-1).params.action.payload.approved, false);
  await finishPage(second.page);
});

test('a structured input is answered with threads.add_structured_input and then shown read-only', async () => {
  const { page, requests, release } = await chatPage((body) =>
    body.type === 'threads.add_structured_input' ? { sse: fixture('structured.add_structured_input.sse'), held: true } : fixture('structured.sse'),
  );
  await sendMessage(page, 'structured');
  const form = page.locator('[data-part="structured-input"]');
  await form.waitFor();
  assert.equal(await form.getAttribute('data-status'), 'pending');
  await form.getByRole('radio', { name: 'green' }).check();
  await form.getByRole('checkbox', { name: 'cheese' }).check();
  await form.getByRole('checkbox', { name: 'olives' }).check();
  await form.getByRole('button', { name: 'Submit' }).click();
  await waitFor(async () => (await form.getByRole('button', { name: 'Submit' }).isDisabled()), { message: 'submit disabled while pending' });
  assert.deepEqual(await requestOf(requests, 'threads.add_structured_input'), {
    type: 'threads.add_structured_input',
    params: {
      thread_id: 'thr_00000067',
      item_id: 'msg_00000069',
      answers: {
        color: { values: ['green'], skipped: false },
        toppings: { values: ['cheese', 'olives'], skipped: false },
        why: { values: [], skipped: true },
      },
    },
  });
  release();
  const done = page.locator('[data-part="structured-input"][data-status="answered"]');
  await done.waitFor();
  assert.deepEqual(await done.locator('dd').allTextContents(), ['green', 'cheese, olives', 'Skipped']);
  assert.equal(await done.locator('input, textarea, button').count(), 0, 'read-only');
  await finishPage(page);
});

test('client widgets render from registered functions and custom elements; unknown names say so', async () => {
  const item = (id, name, args) => ({ type: 'thread.item.done', item: { id, thread_id: 'thr_c', created_at: '2026-01-01T00:00:00', type: 'client_widget', name, args } });
  const thread = sseBody([
    { type: 'thread.created', thread: { id: 'thr_c', created_at: '2026-01-01T00:00:00', status: { type: 'active' }, metadata: {}, items: { data: [], has_more: false } } },
    item('cw_fn', 'weather', { city: 'Paris', temp: 21 }),
    item('cw_tag', 'map_card', { city: 'Lyon' }),
    item('cw_none', 'mystery_widget', { x: 1 }),
  ]);
  const refreshed = sseBody([
    { type: 'thread.item.replaced', item: { id: 'cw_fn', thread_id: 'thr_c', created_at: '2026-01-01T00:00:00', type: 'client_widget', name: 'weather', args: { city: 'Paris', temp: 25 } } },
  ]);
  const { page, requests } = await chatPage((body) => (body.type === 'threads.custom_action' ? refreshed : thread));
  await page.evaluate(() => {
    const el = document.querySelector('chat-shell');
    window.__calls = [];
    el.registerClientWidget('weather', (args, context) => {
      window.__calls.push({ args, itemId: context.itemId, threadId: context.threadId, name: context.name });
      const div = document.createElement('div');
      div.className = 'weather';
      div.textContent = `${args.city}: ${args.temp}°`;
      const button = document.createElement('button');
      button.textContent = 'Refresh';
      button.addEventListener('click', async () => {
        window.__sent = await context.sendAction({ type: 'weather.refresh', payload: { city: args.city } });
      });
      div.append(button);
      return div;
    });
    customElements.define('map-card', class extends HTMLElement {
      set args(value) { this.textContent = `Map of ${value.city}`; }
    });
    el.registerClientWidget('map_card', 'map-card');
    let threw = null;
    try {
      el.registerClientTool('x', 'not a function');
    } catch (e) {
      threw = e instanceof TypeError;
    }
    window.__threw = threw;
  });
  assert.equal(await page.evaluate(() => window.__threw), true, 'a non-function registration throws a TypeError');
  await sendMessage(page, 'hi');
  const weather = page.locator('[data-widget-name="weather"]');
  await weather.locator('.weather').waitFor();
  assert.equal(await weather.getAttribute('data-part'), 'client-widget');
  assert.equal(await weather.locator('.weather').evaluate((e) => e.firstChild.textContent), 'Paris: 21°');
  assert.deepEqual(await page.evaluate(() => window.__calls[0]), { args: { city: 'Paris', temp: 21 }, itemId: 'cw_fn', threadId: 'thr_c', name: 'weather' });
  assert.equal(await page.locator('[data-widget-name="map_card"] map-card').textContent(), 'Map of Lyon');
  const mystery = page.locator('[data-part="unsupported"][data-widget-name="mystery_widget"]');
  assert.equal(await mystery.textContent(), 'Unsupported content (mystery_widget)');

  await weather.getByRole('button', { name: 'Refresh' }).click();
  await waitFor(() => page.evaluate(() => window.__sent === true), { message: 'sendAction to resolve' });
  assert.deepEqual(await requestOf(requests, 'threads.custom_action'), {
    type: 'threads.custom_action',
    params: { thread_id: 'thr_c', item_id: 'cw_fn', action: { type: 'weather.refresh', payload: { city: 'Paris' } } },
  });
  await weather.getByText('Paris: 25°').waitFor();
  await finishPage(page);
});

test('the widget gallery page renders every family without console errors', async () => {
  const page = await newPage(context, `${runtime.url}/widgets/`);
  const chat = page.locator('chat-shell');
  await chat.locator('[data-part="widget"]').first().waitFor({ timeout: 15_000 });
  await page.locator('article[data-role="assistant"]').filter({ hasText: 'Every widget family above' }).waitFor({ timeout: 15_000 });
  await chat.locator('[data-widget-type="Card"] [data-component="Badge"]', { hasText: 'done' }).waitFor();
  const counts = await componentCounts(page);
  for (const kind of ['Card', 'ListView', 'Basic', 'Text', 'Title', 'Caption', 'Markdown', 'Badge', 'Box', 'Row', 'Col', 'Divider', 'Icon', 'Image', 'ListViewItem', 'Button', 'Checkbox', 'Spacer', 'Select', 'DatePicker', 'Form', 'Input', 'Label', 'RadioGroup', 'Textarea', 'Transition', 'Chart', 'unknown']) {
    assert.ok(counts[kind] > 0, `${kind} is in the gallery: ${JSON.stringify(counts)}`);
  }
  assert.equal(await chat.locator('svg[data-icon]').count() >= 64, true);
  assert.equal(await chat.locator('[data-widget-name="tool_approval_request"]').count(), 1);
  assert.deepEqual(await chat.locator('[data-part="tool-call"]').evaluateAll((els) => els.map((e) => e.dataset.status)), ['done', 'failed']);
  assert.equal(await chat.locator('[data-part="structured-input"]').count(), 1);
  // axe-core over every family, light and dark.
  for (const theme of ['light', 'dark']) {
    await page.evaluate((t) => document.getElementById('chat').setAttribute('theme', t), theme);
    assert.deepEqual(await axeViolations(page), [], `axe (${theme})`);
  }
  await page.evaluate(() => document.getElementById('chat').setAttribute('theme', 'light'));
  if (process.env.WIDGETS_SCREENSHOT) {
    // Show the whole conversation: the element grows to its content for the picture.
    await page.evaluate(() => {
      // Through the CSSOM: the page allows no inline <style>.
      document.querySelector('chat-shell').style.setProperty('height', 'auto', 'important');
      document.querySelector('main').style.setProperty('max-width', '860px', 'important');
      const root = document.querySelector('chat-shell').shadowRoot;
      for (const el of root.querySelectorAll('.cs-shell, .cs-body, .cs-viewport')) {
        el.style.height = 'auto';
        el.style.overflow = 'visible';
      }
    });
    await frames(page);
    await page.screenshot({ path: process.env.WIDGETS_SCREENSHOT, fullPage: true });
  }
  await finishPage(page);
});
