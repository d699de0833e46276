// Every recorded first answer in tests/fixtures/chatkit (`name.sse`, exactly one dot) is
// played back byte for byte as the answer to a message, through page.route; the rendered
// structure is then checked. Follow-up requests the component makes on its own (the client
// tool output) are answered with the matching `name.<request>.sse` fixture.
//
// The page itself comes from the reference runtime (it only serves dist/ here).

import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import {
  close,
  newChatPage,
  openBrowser,
  recordEvents,
  ROOT,
  sendMessage,
  startRecorder,
  recorded,
  startRuntime,
  waitFor,
  waitForIdle,
} from './harness.mjs';

const FIXTURES = path.join(ROOT, 'tests', 'fixtures', 'chatkit');
const firstAnswers = readdirSync(FIXTURES)
  .filter((f) => f.endsWith('.sse') && f.split('.').length === 2)
  .map((f) => f.slice(0, -'.sse'.length))
  .sort();

let runtime;
let context;

before(async () => {
  runtime = await startRuntime({ paceMs: 0 });
  context = await openBrowser();
});
after(close);

/** The texts of a fixture's events of one type (for expectations taken from the fixture itself). */
function fixtureEvents(name) {
  return readFileSync(path.join(FIXTURES, `${name}.sse`), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice(6)));
}

/** The final text of the fixture's last assistant message (from its thread.item.done). */
function finalText(name) {
  const done = fixtureEvents(name).filter((e) => e.type === 'thread.item.done' && e.item.type === 'assistant_message');
  return done.at(-1).item.content.map((c) => c.text).join('');
}

/**
 * Plays `name.sse` back to the first request, sends a message, waits until the answer is
 * over. Returns { page, requests } with a `logs()` helper on the page.
 */
async function play(name) {
  const page = await newChatPage(context, `${runtime.url}/`);
  await recordEvents(page, ['chat.thread.created', 'chat.error', 'chat.effect', 'chat.thread.done']);
  const requests = [];
  await page.route('**/chatkit', (route) => {
    const type = JSON.parse(route.request().postData()).type;
    requests.push(type);
    const file = requests.length === 1 ? `${name}.sse` : `${name}.${type.replace(/^threads\./, '')}.sse`;
    let body;
    try {
      body = readFileSync(path.join(FIXTURES, file));
    } catch {
      return route.fulfill({ status: 404, contentType: 'application/json', body: `{"error":"no fixture ${file}"}` });
    }
    return route.fulfill({ status: 200, headers: { 'content-type': 'text/event-stream' }, body });
  });
  // image.sse's final image is a URL of the server it was recorded from: serve a PNG there.
  const png = fixtureEvents('image')
    .map((e) => e.update?.image?.url)
    .find((u) => u?.startsWith('data:image/png;base64,'));
  await page.route('http://127.0.0.1:49137/sample.png', (route) =>
    route.fulfill({ status: 200, contentType: 'image/png', body: Buffer.from(png.split(',')[1], 'base64') }),
  );
  // Every intermediate state, for checks on what was shown along the way.
  await startRecorder(page, {
    answers: 'article[data-role="assistant"]',
    progressInArticle: 'article [data-part="progress"]',
    unsupported: '[data-part="unsupported"]',
  });
  page.logs = () =>
    `\n--- requests: ${requests.join(', ')}\n--- console errors:\n${page.consoleErrors.join('\n')}`;
  await sendMessage(page, `fixture ${name}`);
  await waitForIdle(page, { timeout: 20_000 });
  return { page, requests };
}

const assistants = (page) => page.locator('article[data-role="assistant"]');
const bodyText = (locator) => locator.locator('.cs-msg__body').innerText();
const events = (page, type) => page.evaluate((type) => window.__chatEvents.filter((e) => e.type === type), type);

/**
 * An item kind the component may not render yet: exactly one element, either the honest
 * "Unsupported content (kind)" card or the real view matching `real`. Returns which.
 */
async function shownAs(page, kind, real) {
  const unsupported = page.locator('[data-part="unsupported"]');
  const view = page.locator(real);
  const [u, v] = [await unsupported.count(), await view.count()];
  assert.equal(u + v, 1, `expected one ${kind} (unsupported: ${u}, ${real}: ${v})`);
  if (u === 1) assert.match(await unsupported.innerText(), new RegExp(kind));
  return { real: v === 1, locator: v === 1 ? view : unsupported };
}

/** What each fixture must render. Every fixture also gets the common checks in the test below. */
const CHECKS = {
  async agent(page) {
    const wf = page.locator('details[data-part="workflow"]');
    assert.equal(await wf.count(), 1);
    assert.equal(await wf.evaluate((d) => d.open), false, 'the reasoning workflow is still open');
    assert.match(await wf.locator(':scope > summary').innerText(), /Thought for 0s/);
    // Closed details hide their tasks from innerText: read textContent.
    assert.match(await wf.textContent(), /The user wants to see the official converter\. I will answer with one citation\./);
    const answer = assistants(page).last();
    // The citation is only in thread.item.done (content_part.done has annotations: []).
    assert.deepEqual(await answer.locator('.cs-msg__body sup[data-part="citation"]').allInnerTexts(), ['[1]']);
    const link = answer.locator('ol[aria-label="Sources"] li[data-part="source"] a');
    assert.equal(await link.count(), 1);
    assert.equal(await link.getAttribute('href'), 'https://github.com/openai/chatkit-python');
    assert.equal(await link.getAttribute('target'), '_blank');
    assert.ok((await link.getAttribute('rel')).split(/\s+/).includes('noopener'));
    assert.match(await bodyText(answer), /reuse the Responses message id and content_index/);
  },

  async annotations(page) {
    const answer = assistants(page).last();
    const sources = answer.locator('ol[aria-label="Sources"] li[data-part="source"]');
    assert.equal(await sources.count(), 4);
    const texts = await sources.allInnerTexts();
    for (const [i, want] of ['openai/chatkit-python', 'Protocol spec', 'ACME Corp', 'No index example'].entries()) {
      assert.match(texts[i], new RegExp(`^\\[${i + 1}\\]\\s*${want.replace(/[/.]/g, '\\$&')}`), JSON.stringify(texts));
    }
    const hrefs = await answer.locator('ol[aria-label="Sources"] a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    assert.deepEqual(hrefs, ['https://github.com/openai/chatkit-python', 'https://example.com/no-index']);
    // The entity source is a button (it emits chat.entity.click).
    assert.equal(await sources.nth(2).getByRole('button', { name: 'ACME Corp' }).count(), 1);
    // The text already has "[1]" etc. right before each index: no doubled markers.
    const text = await bodyText(answer);
    for (const n of [1, 2, 3]) assert.equal(text.split(`[${n}]`).length - 1, 1, text);
  },

  async clienttool(page, { requests }) {
    // No tool is registered in this page: the component answers the call with an error
    // result (threads.add_client_tool_output), whose fixture answer then streams.
    assert.deepEqual(requests, ['threads.create', 'threads.add_client_tool_output']);
    const call = await shownAs(page, 'client_tool_call', '[data-part="tool-call"]');
    if (call.real) assert.match(await call.locator.innerText(), /get_client_info/);
    assert.equal(await assistants(page).count(), 2);
    assert.match(await bodyText(assistants(page).first()), /Asking the client to run get_client_info/);
    const second = assistants(page).last();
    assert.match(await bodyText(second), /Client tool get_client_info .* returned:/);
    assert.equal(await second.locator('[data-part="code-block"] [data-part="code-lang"]').innerText(), 'json');
  },

  async effect(page) {
    const effects = await events(page, 'chat.effect');
    assert.deepEqual(
      effects.map((e) => e.detail?.name),
      ['peer.toast', 'peer.navigate', 'peer.no_data'],
      `chat.effect events: ${JSON.stringify(effects)}`,
    );
    assert.match(await bodyText(assistants(page).last()), /Three client_effect events were sent/);
  },

  async endturn(page, { log }) {
    assert.equal(await assistants(page).count(), 1, 'end_of_turn rendered as an article');
    assert.ok(log.every((s) => s.answers <= 1 && s.unsupported === 0), `end_of_turn showed up at some point: ${JSON.stringify(log)}`);
    assert.equal(await page.locator('[data-part="unsupported"]').count(), 0, 'end_of_turn rendered as unsupported');
    assert.equal(await bodyText(assistants(page).first()), finalText('endturn'));
    // Each item in its wrapper (which carries its id for find), and nothing else.
    assert.equal(await page.locator('.cs-items > :not(.cs-item), .cs-items > .cs-item > :not(article)').count(), 0, 'something besides the two messages');
  },

  async error(page) {
    const error = page.locator('[data-part="error"][role="alert"]');
    assert.match(await error.innerText(), /The peer failed on purpose \(attempt 1\)\. Retry to succeed\./);
    assert.equal(await error.getByRole('button', { name: 'Retry', exact: true }).count(), 1);
    assert.equal(await assistants(page).first().getAttribute('data-status'), 'failed');
    assert.match(await bodyText(assistants(page).first()), /This answer will fail halfway/);
  },

  async errorcode(page) {
    const error = page.locator('[data-part="error"][role="alert"]');
    // No message from the server: a generic one, still with Retry (allow_retry: true).
    assert.ok((await error.innerText()).trim().length > 10, 'the error has no readable message');
    assert.equal(await error.getByRole('button', { name: 'Retry', exact: true }).count(), 1);
    assert.equal(await assistants(page).first().getAttribute('data-status'), 'failed');
  },

  async forkquirks(page) {
    // The first chunk came inside thread.item.added, the rest under fresh itm_ ids.
    const answer = assistants(page);
    assert.equal(await answer.count(), 1);
    const text = await bodyText(answer);
    assert.match(text, /^I've extracted the following details:/);
    const cells = await answer.locator('table td').allInnerTexts();
    assert.deepEqual(cells, ['Payee', 'GORI', 'Amount', '85.20']);
    // The task added twice under one id is one task, with its latest title.
    const tasks = page.locator('[data-part="task"]');
    assert.equal(await tasks.count(), 1);
    assert.equal((await tasks.innerText()).trim(), 'Data extracted from the uploaded image');
    const approval = await shownAs(page, 'client_widget', '[data-part="client-widget"]');
    if (approval.real) assert.match(await approval.locator.innerText(), /processPayment/);
  },

  async image(page) {
    const figure = page.locator('figure[data-part="generated-image"]');
    assert.equal(await figure.count(), 1);
    assert.equal(await figure.locator('[role="progressbar"]').count(), 0);
    const img = figure.locator('img');
    await waitFor(() => img.evaluate((i) => i.complete && i.naturalWidth > 0), { timeout: 3_000, message: 'the image to load' });
    assert.equal(await img.getAttribute('src'), 'http://127.0.0.1:49137/sample.png');
  },

  async lock(page) {
    const composer = page.getByRole('textbox', { name: 'Message' });
    assert.equal(await composer.isDisabled(), true, 'the composer of a locked thread is enabled');
    assert.match(await page.locator('[data-part="composer-blocked"]').innerText(), /Locked by the peer server/);
    assert.equal(await page.getByRole('button', { name: 'Send', exact: true }).isDisabled(), true);
  },

  async long(page) {
    const answer = assistants(page);
    const text = await answer.locator('.cs-msg__body').evaluate((b) => b.textContent);
    assert.ok(text.length > 90_000, `only ${text.length} characters rendered`);
    assert.ok((await answer.locator('[data-part="code-block"]').count()) >= 100);
    assert.ok(text.includes(finalText('long').trim().split('\n').at(-1).replace(/[`*]/g, '').trim().slice(0, 20)));
  },

  async markdown(page) {
    const answer = assistants(page);
    assert.equal(await answer.locator('h1').innerText(), 'Peer markdown check');
    assert.deepEqual(await answer.locator('h2').allInnerTexts(), [
      'Table',
      'Code',
      'Lists',
      'Raw HTML (must be sanitized or shown as text)',
    ]);
    assert.deepEqual(await answer.locator('table th').allInnerTexts(), ['Col A', 'Col B', 'Right']);
    assert.equal(await answer.locator('table tbody tr').count(), 3);
    assert.equal(await answer.locator('table td', { hasText: 'pipe | escaped' }).count(), 1, 'escaped pipe');
    assert.equal(await answer.locator('table td b', { hasText: 'html in cell' }).count(), 1);
    const code = answer.locator('[data-part="code-block"]');
    assert.equal(await code.count(), 1);
    assert.equal(await code.locator('[data-part="code-lang"]').innerText(), 'rust');
    assert.equal(await code.locator('pre code.language-rust').count(), 1);
    assert.match(await code.locator('pre code').innerText(), /println!\("<b>not html<\/b> & \{\}", 1 < 2\);/);
    assert.equal(await code.getByRole('button', { name: 'Copy code' }).count(), 1);
    const links = await answer.locator('.cs-msg__body a[href]').evaluateAll((as) =>
      as.map((a) => ({ href: a.getAttribute('href'), target: a.target, rel: a.rel, title: a.title })),
    );
    assert.ok(links.length >= 2, JSON.stringify(links));
    assert.deepEqual(links[0], { href: 'https://example.com', target: '_blank', rel: 'noopener noreferrer nofollow', title: 'a title' });
    for (const l of links) {
      assert.match(l.href, /^https?:/);
      assert.equal(l.target, '_blank');
      assert.ok(l.rel.split(/\s+/).includes('noopener'));
    }
    assert.equal(await answer.locator('strong', { hasText: 'bold' }).count() >= 1, true);
    assert.equal(await answer.locator('em', { hasText: 'italic' }).count() >= 1, true);
    assert.equal(await answer.locator('del', { hasText: 'strike' }).count(), 1);
    assert.equal(await answer.locator('ol > li').count(), 2);
    assert.equal(await answer.locator('ol ul > li').count(), 2, 'nested list');
    assert.equal(await answer.locator('input[type="checkbox"][disabled]').count(), 2, 'task list');
    assert.equal(await answer.locator('input[type="checkbox"]:checked').count(), 1);
    assert.equal(await answer.locator('blockquote strong', { hasText: 'markdown' }).count(), 1);
    assert.equal(await answer.locator('hr').count(), 1);
    assert.equal(await answer.locator('br').count() >= 1, true, 'hard break');
    // The hostile HTML is gone or inert.
    const hostile = await answer.evaluate((a) => ({
      scripts: a.querySelectorAll('script, iframe').length,
      handlers: [...a.querySelectorAll('*')].flatMap((e) => [...e.attributes].filter((x) => x.name.startsWith('on')).map((x) => x.name)),
      jsHrefs: [...a.querySelectorAll('[href], [src]')].map((e) => e.getAttribute('href') ?? e.getAttribute('src')).filter((u) => !/^https?:/.test(u)),
    }));
    assert.deepEqual(hostile, { scripts: 0, handlers: [], jsHrefs: [] });
  },

  async notice(page) {
    const notices = page.locator('[data-part="notice"]');
    assert.deepEqual(await notices.evaluateAll((ns) => ns.map((n) => n.dataset.level)), ['info', 'warning', 'danger']);
    assert.match(await notices.nth(0).innerText(), /Heads up/);
    assert.equal(await notices.nth(0).locator('strong', { hasText: 'info' }).count(), 1, 'notice markdown');
    assert.equal(await notices.nth(2).locator('a[href="https://example.com/upgrade"]').count(), 1);
    assert.match(await notices.nth(2).innerText(), /Limit reached/);
  },

  async parts(page) {
    const answer = assistants(page);
    assert.equal(await answer.count(), 1);
    const text = await bodyText(answer);
    assert.match(text, /First content part \(content_index 0\)\./);
    assert.match(text, /Second content part \(content_index 1\) with markdown\./);
    assert.equal(await answer.locator('strong', { hasText: 'markdown' }).count(), 1);
  },

  async progress(page) {
    assert.equal(await page.locator('[data-part="progress"]').count(), 0, 'progress left after the answer');
    assert.match(await bodyText(assistants(page)), /five progress_update events preceded this message/);
  },

  async remove(page) {
    assert.equal(await assistants(page).count(), 1);
    assert.equal(await bodyText(assistants(page)), finalText('remove'));
  },

  async replace(page) {
    assert.equal(await assistants(page).count(), 1);
    const text = await bodyText(assistants(page));
    assert.match(text, /Replaced answer: same item id, new content\./);
    assert.doesNotMatch(text, /Draft answer/);
  },

  async structured(page) {
    const input = await shownAs(page, 'structured_input', '[data-part="structured-input"]');
    if (input.real) {
      const text = await input.locator.innerText();
      for (const q of ['Pick a color', 'Pick toppings', 'Why?']) assert.ok(text.includes(q), `no question "${q}" in ${text}`);
    }
  },

  async task(page) {
    const tasks = page.locator('[data-part="task"]');
    assert.equal(await tasks.count(), 2);
    assert.equal((await tasks.nth(0).locator('.cs-task__title').innerText()).trim(), 'Found 56 records');
    assert.equal(await tasks.nth(0).getAttribute('data-status'), 'complete');
    assert.equal(await tasks.nth(0).locator('details table tbody tr').count(), 2, 'the task content table');
    assert.equal((await tasks.nth(1).innerText()).trim(), 'Permissions OK (replaced)');
    assert.equal(await tasks.nth(1).getAttribute('data-status'), 'none');
  },

  async title(page) {
    assert.equal(await page.locator('[data-part="thread-title"]').innerText(), 'Peer title 08:28:49');
    assert.match(await bodyText(assistants(page)), /The thread title is now Peer title 08:28:49/);
  },

  async widget(page) {
    // Each widget item is either a rendered widget or an honest "unsupported" card.
    const shown = page.locator('[data-part="unsupported"], [data-part="widget"]');
    assert.equal(await shown.count(), 6);
    assert.match(await bodyText(assistants(page).last()), /Six widget items above/);
  },

  async widgetstream(page) {
    const shown = page.locator('[data-part="unsupported"], [data-part="widget"]');
    assert.equal(await shown.count(), 1);
  },

  async workflow(page) {
    const workflows = page.locator('details[data-part="workflow"]');
    assert.equal(await workflows.count(), 3);
    assert.deepEqual(
      (await workflows.locator(':scope > summary').allInnerTexts()).map((s) => s.trim()),
      ['Worked for 1s', 'Checked 2 sources', 'Thought for 1s'],
    );
    assert.deepEqual(await workflows.evaluateAll((ds) => ds.map((d) => d.open)), [false, false, false]);
    assert.equal(await workflows.nth(0).locator('[data-part="task"]').count(), 5);
    assert.equal(await workflows.nth(1).locator('[data-part="task"]').count(), 2);
    // The reasoning thought arrived as full-content updates: the final content, once.
    const thought = await workflows.nth(2).locator('[data-part="task"]').textContent();
    assert.equal(thought.split('Considering the request.').length - 1, 1, thought);
    assert.match(await bodyText(assistants(page)), /Three workflows above/);
  },
};

test('every first-answer fixture has a check', () => {
  assert.deepEqual(firstAnswers, Object.keys(CHECKS).sort());
});

for (const name of firstAnswers) {
  test(`fixture ${name}.sse renders`, async () => {
    const { page, requests } = await play(name);
    const log = await recorded(page);
    // Common checks: the answer is over, the user message is there, no empty assistant article.
    assert.equal(await page.locator('article[aria-busy="true"]').count(), 0);
    assert.equal(await page.getByRole('button', { name: 'Stop', exact: true }).count(), 0);
    assert.equal(await page.locator('article[data-role="user"]').count(), 1);
    for (const article of await assistants(page).all()) {
      assert.ok((await bodyText(article)).trim().length > 0, `an empty assistant article${page.logs()}`);
      assert.ok(['done', 'failed'].includes(await article.getAttribute('data-status')));
    }
    assert.ok(log.every((s) => s.progressInArticle === 0), 'a progress line inside an article');
    await CHECKS[name](page, { requests, log });
    assert.deepEqual(page.consoleErrors, [], `console errors${page.logs()}`);
    await page.close();
  });
}
