// The chunks: the code of the first module cut out for later (src/chunks/views.rs,
// src/chunks/runtime.rs, scripts/build.sh): split_decoders.wasm (the ChatKit decoders),
// split_widgets.wasm (widgets, client tools, structured input), split_on_demand.wasm (tool
// calls, the Diff view, the history…) and the chunks fetched when first needed (adapters,
// channel, attachments), against the reference runtime over real HTTP in headless Chromium:
//  - the first module, the decoders, the widgets, the renderer and the other views
//    come in one pack (chat-shell.pack, scripts/pack.mjs) in that order, instantiated in
//    that order without any action; a pack that breaks off leaves the rest to be fetched
//    file by file, which the tests below hold back or cut;
//  - nothing a user needs first waits for the chunks:
//    with the widgets held back the composer works and an answer streams and renders; with
//    the decoders cut the composer works, and a message sent says the connection was lost
//    and goes back to the composer;
//  - a widget asked for while its part is held appears in place once it arrives;
//  - if it cannot be fetched, the widget's place says so and offers to try again, the
//    conversation and the draft stay, and trying again once it can be fetched shows the
//    widget.

import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import {
  breakPack,
  close,
  createdThreadId,
  distName,
  logicalName,
  newChatPage,
  newPage,
  openBrowser,
  packEntries,
  recordEvents,
  sendMessage,
  startRuntime,
  waitFor,
  waitForIdle,
  chatkitRequest,
  frames,
  CALLBACK_TOKEN,
  pushView,
  waitForComposer,
} from './harness.mjs';

after(close);

/**
 * Cuts the fetch of a part (a connection reset) while `cut.failing`, then lets it through;
 * `cut.asked` counts the fetches.
 */
async function cutPart(context, file) {
  const cut = { failing: true, asked: 0 };
  await context.route(`**/${distName(file)}`, async (route) => {
    cut.asked += 1;
    if (cut.failing) await route.abort('connectionreset');
    else await route.continue();
  });
  return cut;
}

/** The page's console errors, less the loader's reports of the fetches of `file` that were cut. */
function otherErrors(page, file) {
  const reports = new RegExp(`${distName(file).replace('.', '\\.')}|Failed to fetch|ERR_CONNECTION_RESET|TypeError`);
  return page.consoleErrors.filter((e) => !reports.test(e));
}

/**
 * With `cut` failing, sends `question`: the answer fails honestly (the reader is told the
 * connection was lost, the message goes back to the composer, nothing is made up); then,
 * with the part let through, sending again brings the answer (matched by `answer`) once.
 */
async function failsThenAnswers(page, cut, question, answer) {
  const box = page.getByRole('textbox', { name: 'Message' });
  await sendMessage(page, question);
  const error = page.locator('[data-part="error"][role="alert"]');
  await error.waitFor({ timeout: 15_000 });
  assert.match(await error.textContent(), /connection to the server was lost/i, 'the reader is told what happened');
  // The server's echo was never read: the message goes back to the composer, as after any
  // failure before it, and no answer is made up.
  assert.equal(await box.inputValue(), question, 'the message is back in the composer');
  assert.equal(await page.locator('article[data-role="assistant"]').count(), 0, 'no answer is made up');
  cut.failing = false;
  await box.press('Enter');
  await waitForIdle(page);
  const last = page.locator('article[data-role="assistant"]').last();
  await waitFor(async () => (await last.count()) > 0 && answer.test(await last.textContent()), { timeout: 15_000, message: 'the answer once the part can be fetched' });
  assert.equal(await error.count(), 0, 'the error goes once the answer came');
  assert.equal(await page.locator('article[data-role="user"]').count(), 1, 'the message, once');
}

/** Records, in `window.__instantiated`, the length of each wasm the pages of `context`
 *  instantiate, in the order their instantiation finished. */
async function recordInstantiations(context) {
  await context.addInitScript(() => {
    window.__instantiated = [];
    const streaming = WebAssembly.instantiateStreaming.bind(WebAssembly);
    WebAssembly.instantiateStreaming = async (source, imports) => {
      const response = await source;
      const length = (await response.clone().arrayBuffer()).byteLength;
      const result = await streaming(response, imports);
      window.__instantiated.push(length);
      return result;
    };
  });
}

/** The wasm files `page` instantiated so far (recordInstantiations()), named by their
 *  length in the pack. */
async function instantiated(page) {
  const entries = packEntries();
  return (await page.evaluate(() => window.__instantiated))
    .map((length) => entries.find((e) => e.length === length)?.name ?? `a wasm of ${length} bytes`);
}

/** Waits until `page` has everything it fetches without any action: the last of it, the
 *  other views (split_on_demand.wasm), is instantiated; then for the frames after. */
async function everythingLoaded(page) {
  await waitFor(async () => (await instantiated(page)).includes('split_on_demand.wasm'), { timeout: 15_000, message: 'every part instantiated without any action' });
  await frames(page);
}

/** Sends "markdown" and waits for the answer to show rendered (its bold text). */
async function answerRenders(page, message = 'the answer to render') {
  await sendMessage(page, 'markdown');
  await waitForIdle(page);
  const answer = page.locator('article[data-role="assistant"]').first();
  await waitFor(async () => (await answer.locator('strong').count()) > 0, { timeout: 15_000, message });
}

test('the first module and the parts fetched anyway come in one pack, instantiated in order of need: decoders, widgets, the renderer, the other views', async () => {
  const runtime = await startRuntime();
  const context = await openBrowser();
  await recordInstantiations(context);
  const page = await newChatPage(context, runtime.url);
  const entries = packEntries();
  const WANTED = ['chat-shell_bg.wasm', 'split_decoders.wasm', 'split_widgets.wasm', 'split_renderer.wasm', 'split_on_demand.wasm'];
  const lengthOf = (name) => entries.find((e) => e.name === name)?.length;
  for (const name of WANTED) {
    assert.equal(entries.filter((e) => e.length === lengthOf(name)).length, 1, `${name} is in the pack, told apart by its length`);
  }
  await waitFor(async () => (await instantiated(page)).includes('split_on_demand.wasm'), { timeout: 15_000, message: 'every part instantiated without any action' });
  const done = await instantiated(page);
  assert.deepEqual(done.filter((name) => WANTED.includes(name)), WANTED, `instantiated in order of need: ${done}`);
  const at = WANTED.map((name) => entries.findIndex((e) => e.name === name));
  assert.deepEqual(at, [...at].sort((a, b) => a - b), 'the pack holds them in that order');
  assert.equal(at[0], 0, 'the first module first');
  // One fetch for all of them, and none of their files by itself.
  const fetched = (await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name.split('/').pop()))).map(logicalName);
  assert.equal(fetched.filter((name) => name === 'chat-shell.pack').length, 1, `the pack fetched once: ${fetched}`);
  assert.deepEqual(fetched.filter((name) => entries.some((e) => e.name === name)), [], 'no file of the pack fetched by itself');
  assert.deepEqual(page.consoleErrors, [], 'console errors on the page');
  await runtime.close();
});

test('a pack that breaks off within the first module: the page fetches each file by itself, and answers render and widgets show', async () => {
  const runtime = await startRuntime();
  const context = await openBrowser();
  const pack = await breakPack(context, 'chat-shell_bg.wasm');
  const page = await newChatPage(context, runtime.url);
  assert.equal(pack.count, 1, 'the pack was asked for once');
  await answerRenders(page);
  await sendMessage(page, 'widget');
  await page.locator('[data-part="widget"]').first().waitFor({ timeout: 15_000 });
  const fetched = (await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name.split('/').pop()))).map(logicalName);
  for (const file of ['chat-shell_bg.wasm', 'split_decoders.wasm', 'split_widgets.wasm', 'split_renderer.wasm']) {
    assert.ok(fetched.includes(file), `${file} fetched by itself: ${fetched}`);
  }
  assert.deepEqual(page.consoleErrors, [], 'console errors on the page');
  await runtime.close();
});

test('a pack that stalls counts as broken off after 10 s: the page then fetches each file by itself and works', async () => {
  const runtime = await startRuntime();
  const context = await openBrowser();
  let unstall;
  const stalled = new Promise((resolve) => { unstall = resolve; });
  await context.route(`**/${distName('chat-shell.pack')}`, async (route) => {
    await stalled; // no byte, not even the headers
    await route.abort('connectionreset').catch(() => {});
  });
  const started = Date.now();
  const page = await newPage(context, runtime.url);
  // The composer, once the stalled pack is given up.
  await waitForComposer(page, { timeout: 25_000 });
  const waited = Date.now() - started;
  assert.ok(waited >= 9_000, `the pack was given its 10 s before the files were fetched: ${waited} ms`);
  await answerRenders(page);
  unstall();
  assert.deepEqual(page.consoleErrors, [], 'console errors on the page');
  await runtime.close();
});

test('the widgets part is prefetched, and holding it back delays nothing the first screen needs', async () => {
  const runtime = await startRuntime();
  const context = await openBrowser();
  let release;
  const released = new Promise((resolve) => { release = resolve; });
  let asked = 0;
  // The pack breaks off in the widgets' part: it comes by itself, held here.
  await breakPack(context, 'split_widgets.wasm');
  await context.route(`**/${distName('split_widgets.wasm')}`, async (route) => {
    asked += 1;
    await released;
    await route.continue();
  });
  const page = await newChatPage(context, runtime.url, { events: ['chat.thread.created'] });
  await waitFor(async () => asked > 0, { timeout: 10_000, message: 'the page to prefetch the widgets part without any action' });
  // Text answers need only the first module and the renderer.
  await answerRenders(page, 'the answer to render while the widgets part is held');
  // A widget asked for now waits for its part, then appears where it belongs.
  await sendMessage(page, 'widget');
  await waitForIdle(page);
  // Its place is there (its item's wrapper), empty until its code comes.
  const stored = await chatkitRequest(runtime, { type: 'threads.get_by_id', params: { thread_id: await createdThreadId(page) } }, { context });
  const widgetItem = stored.items.data.find((i) => i.type === 'widget');
  assert.ok(widgetItem, `a widget item in the thread: ${stored.items.data.map((i) => i.type)}`);
  await page.locator(`.cs-item[data-item="${widgetItem.id}"]`).waitFor({ state: 'attached', timeout: 5_000 });
  await frames(page);
  assert.equal(await page.locator('[data-part="widget"]').count(), 0, 'no widget before its code is there');
  assert.equal(await page.locator('[data-part="load-failed"]').count(), 0, 'a part still on its way is not a failure');
  release();
  await page.locator('[data-part="widget"]').first().waitFor({ timeout: 15_000 });
  const order = await page.evaluate(() => {
    const root = document.querySelector('chat-shell').shadowRoot;
    const items = [...root.querySelectorAll('article[data-role], [data-part="widget"]')];
    return items.map((el) => el.dataset.role ?? 'widget');
  });
  assert.ok(order.indexOf('widget') > order.lastIndexOf('user'), `the widget sits after the message that asked for it: ${order}`);
  assert.deepEqual(page.consoleErrors, [], 'console errors on the page');
  await runtime.close();
});

test('a widgets part that cannot be fetched says so in place, keeps the draft, and loads on "Try again"', async () => {
  const runtime = await startRuntime();
  const context = await openBrowser();
  await breakPack(context, 'split_widgets.wasm');
  const cut = await cutPart(context, 'split_widgets.wasm');
  const page = await newChatPage(context, runtime.url);
  await sendMessage(page, 'widget');
  const failed = page.locator('[data-part="load-failed"]');
  await failed.first().waitFor({ timeout: 15_000 });
  assert.equal(await failed.getAttribute('role'), 'alert', 'the failure is announced');
  assert.match(await failed.textContent(), /could not be loaded/, 'it says what happened');
  assert.equal(await page.locator('[data-part="widget"]').count(), 0, 'no widget is made up');
  assert.equal(await page.locator('article[data-role="user"]').count(), 1, 'the message sent is still shown');
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill('a draft in progress');
  // Trying again while the part still cannot be fetched fails again, in place.
  const retry = failed.getByRole('button', { name: 'Try again' });
  const before = cut.asked;
  const reported = page.consoleErrors.length;
  await retry.click();
  // The loader reports each failed fetch on the console: the second attempt has settled.
  await waitFor(async () => cut.asked > before && page.consoleErrors.length > reported && (await failed.count()) === 1, { timeout: 10_000, message: 'a second attempt that fails again' });
  await failed.getByRole('button', { name: 'Try again' }).waitFor({ timeout: 5_000 });
  cut.failing = false;
  // By keyboard this time.
  await failed.getByRole('button', { name: 'Try again' }).focus();
  await page.keyboard.press('Enter');
  await page.locator('[data-part="widget"]').first().waitFor({ timeout: 15_000 });
  assert.equal(await failed.count(), 0, 'the message goes once the part is there');
  assert.equal(await box.inputValue(), 'a draft in progress', 'the draft is kept');
  // The only errors are the loader's reports of the fetches that were cut.
  const unexpected = otherErrors(page, 'split_widgets.wasm');
  assert.deepEqual(unexpected, [], 'console errors other than the failed fetches');
  await runtime.close();
});

test('the decoders part: cut, the composer works, a message sent says the connection was lost and goes back to the composer; once it can be fetched, the answer comes', async () => {
  const runtime = await startRuntime({ paceMs: 5 });
  const context = await openBrowser();
  await breakPack(context, 'split_decoders.wasm');
  const cut = await cutPart(context, 'split_decoders.wasm');
  const page = await newChatPage(context, runtime.url);
  await waitFor(async () => cut.asked > 0, { timeout: 10_000, message: 'the decoders part to be prefetched' });
  await failsThenAnswers(page, cut, 'what are the limits?', /You said: “what are the limits\?”/);
  const unexpected = otherErrors(page, 'split_decoders.wasm');
  assert.deepEqual(unexpected, [], 'console errors other than the failed fetches');
  await runtime.close();
});

test('agent-ui: the adapters part is fetched once the protocol is set; cut, the answer says so, the message goes back to the composer, and sending again works', async () => {
  const runtime = await startRuntime({ paceMs: 5 });
  const context = await openBrowser();
  const cut = await cutPart(context, 'split_adapters.wasm');
  await recordInstantiations(context);
  const page = await newChatPage(context, runtime.url);
  // A ChatKit page never asks for it: not with everything it fetches by itself.
  await everythingLoaded(page);
  assert.equal(cut.asked, 0, 'a ChatKit page fetched the adapters part');
  await page.evaluate(() => {
    const el = document.querySelector('chat-shell');
    el.setAttribute('protocol', 'agent-ui');
    el.setAttribute('endpoint', '/agent-ui');
  });
  await waitFor(async () => cut.asked > 0, { timeout: 10_000, message: 'the adapters part to be prefetched once the protocol is agent-ui' });
  await failsThenAnswers(page, cut, 'what are the limits?', /The limit is 100 requests a minute/);
  const unexpected = otherErrors(page, 'split_adapters.wasm');
  assert.deepEqual(unexpected, [], 'console errors other than the failed fetches');
  await runtime.close();
});

test('the thread channel\'s part: cut, the conversation goes on; once it can be fetched the channel connects and a pushed view shows', async () => {
  const runtime = await startRuntime({ extraArgs: ['--callback-token', CALLBACK_TOKEN, '--channel-keepalive-ms', '500'] });
  const context = await openBrowser();
  await breakPack(context, 'split_channel.wasm');
  const cut = await cutPart(context, 'split_channel.wasm');
  let subscribed = 0;
  context.on('request', (r) => {
    if (r.method() === 'POST' && (r.postData() ?? '').includes('threads.subscribe')) subscribed += 1;
  });
  const page = await newChatPage(context, runtime.url);
  await recordEvents(page, ['chat.thread.created']);
  await sendMessage(page, 'hello there');
  const threadId = await createdThreadId(page);
  await waitForIdle(page);
  await waitFor(async () => cut.asked > 0, { timeout: 10_000, message: 'the channel part to be asked for once a thread is shown' });
  assert.match(await page.locator('article[data-role="assistant"]').last().textContent(), /\S/, 'the answer came without the channel');
  assert.equal(subscribed, 0, 'no subscription without the channel\'s code');
  const pushed = await pushView(runtime, threadId, 'diff', { patch: 'diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n' });
  assert.equal(pushed.status, 200);
  // The view would come on the channel, and there is none (its code cannot be fetched):
  // nothing can bring it.
  assert.equal(subscribed, 0, 'no subscription without the channel\'s code');
  await frames(page);
  assert.equal(await page.getByRole('tab', { name: 'Diff' }).count(), 0, 'no view without the channel');
  cut.failing = false;
  // The channel tries again after its backoff (1 s, then 2 s…).
  await page.getByRole('tab', { name: 'Diff' }).waitFor({ timeout: 15_000 });
  assert.ok(subscribed >= 1, 'the channel subscribed once its code came');
  const unexpected = otherErrors(page, 'split_channel.wasm');
  assert.deepEqual(unexpected, [], 'console errors other than the failed fetches');
  await runtime.close();
});

test('the attachments part: cut, an offered file is refused with a message and nothing else breaks; once it can be fetched the file uploads', async () => {
  const runtime = await startRuntime();
  const context = await openBrowser();
  const cut = await cutPart(context, 'split_attachments.wasm');
  await recordInstantiations(context);
  const page = await newChatPage(context, runtime.url);
  // One transparent pixel.
  const file = { name: 'pixel.png', mimeType: 'image/png', buffer: Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64') };
  await everythingLoaded(page);
  assert.equal(cut.asked, 0, 'the part is not fetched before a file is offered');
  const picker = page.locator('input[type="file"]');
  await picker.setInputFiles([file]);
  const alert = page.locator('[data-part="attachment-error"]');
  await alert.waitFor({ timeout: 10_000 });
  assert.equal(await alert.getAttribute('role'), 'alert', 'the refusal is announced');
  assert.match(await alert.textContent(), /Upload failed\. The connection to the server was lost/);
  assert.equal(await page.locator('[data-part="attachment"]').count(), 0, 'no file is shown as taken');
  // The conversation is not affected.
  await sendMessage(page, 'hello');
  await waitForIdle(page);
  assert.equal(await page.locator('article[data-role="assistant"]').count(), 1, 'an answer without the part');
  cut.failing = false;
  await picker.setInputFiles([file]);
  const item = page.locator('[data-part="attachment"]');
  await waitFor(async () => (await item.count()) === 1 && (await item.first().getAttribute('data-status')) === 'ready', { timeout: 15_000, message: 'the file uploaded once the part came' });
  const unexpected = otherErrors(page, 'split_attachments.wasm');
  assert.deepEqual(unexpected, [], 'console errors other than the failed fetches');
  await runtime.close();
});
