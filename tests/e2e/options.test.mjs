// One options pipeline: attributes, setOptions and the `options` property all write the
// runtime's one typed value, which survives connect, a move and a long detach.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startRuntime, openBrowser, waitFor, newChatPage } from './harness.mjs';

let runtime, browser, page;

before(async () => {
  runtime = await startRuntime({ paceMs: 1 });
  browser = await openBrowser();
  // The early frame draws a composer before the wasm: wait for the element's own.
  page = await newChatPage(browser, runtime.url);
  // Every /chatkit request the page makes, with the headers it carried.
  page.__requests = [];
  await page.route('**/chatkit', (route) => {
    const request = route.request();
    page.__requests.push({ token: request.headers()['x-token'] ?? null, body: request.postDataJSON() });
    return route.fallback();
  });
});

after(async () => {
  await browser?.close();
  await runtime?.close();
});

/** A second element, configured entirely before it is attached. */
async function configuredElement() {
  await page.evaluate(() => {
    document.querySelector('chat-shell').remove();
    window.__fetched = 0;
    const el = document.createElement('chat-shell');
    el.id = 'configured';
    el.setOptions({
      endpoint: '/chatkit',
      headers: async () => ({ 'X-Token': 'from-options' }),
      fetch: (request) => { window.__fetched += 1; return fetch(request); },
      metadata: { tenant: 'acme' },
      greeting: 'Configured before attach',
      starterPrompts: [{ title: 'Say hello', prompt: 'hello there' }],
    });
    document.body.append(el);
  });
  await page.getByText('Configured before attach').waitFor();
}

async function sendAndCheck(text) {
  const before = page.__requests.length;
  const fetchedBefore = await page.evaluate(() => window.__fetched);
  await page.evaluate((text) => document.querySelector('#configured').sendUserMessage({ text }), text);
  const sent = page.__requests.slice(before);
  assert.ok(sent.length >= 1, 'requests went to the configured endpoint');
  for (const request of sent) {
    assert.equal(request.token, 'from-options', `every request carries the headers: ${JSON.stringify(request.body)}`);
    assert.deepEqual(request.body.metadata, { tenant: 'acme' }, 'every request carries the metadata');
  }
  assert.equal(await page.evaluate(() => window.__fetched) - fetchedBefore, sent.length, 'every request went through the custom fetch');
}

test('options set before the element is attached are all used once it is', async () => {
  await configuredElement();
  assert.equal(await page.getByRole('button', { name: 'Say hello' }).count(), 1);
  await sendAndCheck('first from the configured element');
});

test('a move and a long detach keep every option, and the options property reports the one copy', async () => {
  // A move: detach and re-attach in one task.
  await page.evaluate(() => {
    const el = document.querySelector('#configured');
    const box = document.createElement('section');
    document.body.append(box);
    box.append(el);
  });
  await sendAndCheck('after a move');
  // A detach longer than one task: past the element's own detach task (a timeout of 0,
  // queued before this one), which lets go of what the element holds.
  await page.evaluate(async () => {
    window.__parked = document.querySelector('#configured');
    window.__parked.remove();
    await new Promise((resolve) => setTimeout(resolve, 0));
  });
  await page.evaluate(() => document.body.append(window.__parked));
  await page.getByRole('textbox', { name: 'Message' }).waitFor();
  const options = await page.evaluate(() => {
    const o = document.querySelector('#configured').options;
    return { endpoint: o.endpoint, greeting: o.greeting, metadata: o.metadata, headers: typeof o.headers, fetch: typeof o.fetch };
  });
  assert.deepEqual(options, { endpoint: '/chatkit', greeting: 'Configured before attach', metadata: { tenant: 'acme' }, headers: 'function', fetch: 'function' });
  // The conversation waited for the element too.
  assert.ok(await page.locator('article[data-role="user"]').count() >= 2);
  await sendAndCheck('after a long detach');
});

test('attributes and setOptions write the same value', async () => {
  const greeting = () => page.evaluate(() => document.querySelector('#configured').options.greeting);
  await page.evaluate(() => document.querySelector('#configured').setAttribute('greeting', 'From the attribute'));
  assert.equal(await greeting(), 'From the attribute');
  await page.evaluate(() => document.querySelector('#configured').setOptions({ greeting: 'From setOptions' }));
  assert.equal(await greeting(), 'From setOptions');
  await page.evaluate(() => document.querySelector('#configured').setAttribute('max-attachments', '3'));
  assert.equal(await page.evaluate(() => document.querySelector('#configured').options.attachments.maxCount), 3);
});

test('a wrong type throws a TypeError naming the key and applies nothing; null restores the default', async () => {
  const outcome = await page.evaluate(() => {
    const el = document.querySelector('#configured');
    try {
      el.setOptions({ placeholder: 'should not apply', streamTimeout: 'soon' });
      return { threw: false };
    } catch (e) {
      return { threw: true, type: e.constructor.name, message: e.message, placeholder: el.options.placeholder };
    }
  });
  assert.equal(outcome.threw, true);
  assert.equal(outcome.type, 'TypeError');
  assert.match(outcome.message, /streamTimeout/);
  assert.equal(outcome.placeholder, null, 'the valid key of the rejected call did not apply');
  for (const bad of [{ metadata: [1] }, { attachments: { maxCount: 'many' } }, { clientTools: 5 }, { headers: 7 }]) {
    const [key] = Object.keys(bad);
    const message = await page.evaluate((bad) => {
      try { document.querySelector('#configured').setOptions(bad); return null; } catch (e) { return `${e.constructor.name}: ${e.message}`; }
    }, bad);
    assert.match(message ?? '', new RegExp(`^TypeError: .*${key}`), `${key}: ${message}`);
  }
  await page.evaluate(() => document.querySelector('#configured').setOptions({ greeting: null, metadata: null, headers: null, fetch: null }));
  const after = await page.evaluate(() => document.querySelector('#configured').options);
  assert.equal(after.greeting, null);
  assert.equal(after.metadata, null);
  assert.equal(after.headers, undefined);
  assert.equal(after.fetch, undefined);
  await page.evaluate(() => document.querySelector('#configured').setThreadId(null));
  await page.getByText('How can I help you today?').waitFor();
  const before = page.__requests.length;
  await page.evaluate(() => document.querySelector('#configured').sendUserMessage({ text: 'after reset' }));
  await waitFor(async () => page.__requests.length > before, { message: 'a request' });
  const last = page.__requests.at(-1);
  assert.equal(last.token, null, 'headers were removed');
  assert.equal(last.body.metadata, undefined, 'metadata was removed');
});
