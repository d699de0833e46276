// Attachments against the reference runtime: local previews before any upload, the
// two-phase upload with progress, sent messages with image previews and file badges
// ("+N more" beyond three), removal (deleted on the server), a failed upload and its retry,
// a failed send that gives text and files back, the limits, drop and paste.
//
// One runtime (pace 0) and one browser serve every test; each test opens its own page.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { axeViolations, close, newChatPage, openBrowser, startRuntime, waitFor, waitForIdle, finishPage, dropNetworkLog, composer, sendButton } from './harness.mjs';

let runtime;
let context;

before(async () => {
  runtime = await startRuntime();
  context = await openBrowser();
});
after(close);

// A valid 1×1 PNG.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');
const png = (name) => ({ name, mimeType: 'image/png', buffer: PNG });
const text = (name, body = 'hello') => ({ name, mimeType: 'text/plain', buffer: Buffer.from(body) });

const picker = (page) => page.locator('input[type="file"]');
const tray = (page) => page.getByRole('list', { name: 'Attachments' }).and(page.locator('[data-part="attachment-tray"]'));
const trayItems = (page) => page.locator('[data-part="attachment"]');
const lastUser = (page) => page.locator('article[data-role="user"]').last();

async function waitReady(page, count) {
  await waitFor(
    async () => (await page.locator('[data-part="attachment"][data-status="ready"]').count()) === count,
    { message: async () => `${count} uploaded attachment(s)${page.logs()}` },
  );
}

/** Holds every request to /upload/ until `release()`; `count()` says how many arrived. */
async function holdUploads(page) {
  let letThrough;
  const gate = new Promise((resolve) => {
    letThrough = resolve;
  });
  let seen = 0;
  await page.route('**/upload/**', async (route) => {
    seen += 1;
    await gate;
    await route.continue();
  });
  return { release: () => letThrough(), count: () => seen };
}

test('an image and a PDF: previewed at once, uploaded with progress, shown in the sent message', async () => {
  const page = await newChatPage(context, `${runtime.url}/`, { logs: runtime });
  const held = await holdUploads(page);
  await picker(page).setInputFiles([png('photo.png'), { name: 'report.pdf', mimeType: 'application/pdf', buffer: PDF }]);

  await waitFor(async () => (await trayItems(page).count()) === 2, { message: 'two files in the tray' });
  const thumb = tray(page).getByRole('img', { name: 'photo.png' });
  await thumb.waitFor({ timeout: 5_000 });
  // The preview is the local file, before any byte reached the server.
  assert.match(await thumb.getAttribute('src'), /^blob:/);
  await waitFor(() => held.count() === 2, { message: 'both uploads to start' });
  assert.equal(runtime.linesMatching(/POST \/upload\//).length, 0, 'an upload finished before it was released');
  await page.getByRole('progressbar', { name: 'Uploading photo.png' }).waitFor({ timeout: 5_000 });
  await page.getByRole('progressbar', { name: 'Uploading report.pdf' }).waitFor({ timeout: 5_000 });
  assert.deepEqual(await axeViolations(page), [], 'accessibility of the tray while uploading');
  // Send waits for the uploads, and says why.
  await composer(page).fill('Here are the files');
  assert.equal(await sendButton(page).isDisabled(), true, 'Send is enabled while uploading');
  await page.getByRole('status').filter({ hasText: 'Waiting for attachments' }).waitFor({ timeout: 5_000 });
  const creates = runtime.linesMatching('attachments.create 200');
  assert.equal(creates.length >= 2, true, 'attachments.create was not called for each file');

  held.release();
  await waitReady(page, 2);
  assert.equal(await page.getByRole('progressbar').count(), 0);
  await runtime.waitForLine(/POST \/upload\/atc_\w+ 200/, { count: 2 });
  await sendButton(page).click();
  await waitForIdle(page);

  const message = lastUser(page);
  await message.getByText('Here are the files').waitFor({ timeout: 5_000 });
  const image = message.locator('[data-part="attachment-image"]');
  await image.waitFor({ timeout: 5_000 });
  assert.equal(await image.getAttribute('alt'), 'photo.png');
  const badge = message.locator('[data-part="attachment-file"]');
  assert.match(await badge.textContent(), /PDF\s*report\.pdf/);
  assert.equal(await trayItems(page).count(), 0, 'the tray was not emptied');
  assert.equal(await composer(page).inputValue(), '');

  // After a reload the message comes from the server: the image from its preview URL.
  await page.reload();
  await page.getByRole('button', { name: 'History', exact: true }).click();
  await page.getByRole('region', { name: 'History' }).getByRole('button', { name: 'Here are the files', exact: true }).click();
  const reloaded = lastUser(page).locator('[data-part="attachment-image"]');
  await reloaded.waitFor({ timeout: 5_000 });
  assert.match(await reloaded.getAttribute('src'), /^http:\/\/127\.0\.0\.1:\d+\/preview\/atc_/);
  await waitFor(() => reloaded.evaluate((img) => img.complete && img.naturalWidth === 1), { message: 'the preview to load' });
  assert.match(await lastUser(page).locator('[data-part="attachment-file"]').textContent(), /report\.pdf/);
  await finishPage(page);
});

test('five files: three shown, the rest behind "+2 more"', async () => {
  const page = await newChatPage(context, `${runtime.url}/`, { logs: runtime });
  await picker(page).setInputFiles([png('one.png'), text('two.txt'), png('three.png'), text('four.txt'), text('five.txt')]);
  await waitReady(page, 5);
  await composer(page).fill('five attachments');
  await sendButton(page).click();
  await waitForIdle(page);
  const list = lastUser(page).getByRole('list', { name: 'Attachments' });
  await list.waitFor({ timeout: 5_000 });
  const more = list.getByRole('button', { name: '+2 more' });
  assert.equal(await more.getAttribute('aria-expanded'), 'false');
  assert.equal(await list.locator('[data-part="attachment-image"], [data-part="attachment-file"]').count(), 3);
  await more.click();
  await waitFor(
    async () => (await list.locator('[data-part="attachment-image"], [data-part="attachment-file"]').count()) === 5,
    { message: 'all five after expanding' },
  );
  assert.equal(await list.locator('[data-part="attachments-more"]').getAttribute('aria-expanded'), 'true');
  assert.deepEqual(await axeViolations(page), [], 'accessibility of a message with attachments');
  assert.match(await list.textContent(), /five\.txt/);
  await finishPage(page);
});

test('removing a file before sending deletes it on the server and frees its preview', async () => {
  const page = await newChatPage(context, `${runtime.url}/`, { logs: runtime });
  const deletesBefore = runtime.linesMatching('attachments.delete').length;
  await picker(page).setInputFiles([png('keep.png'), png('drop.png')]);
  await waitReady(page, 2);
  const src = await tray(page).getByRole('img', { name: 'drop.png' }).getAttribute('src');
  await page.getByRole('button', { name: 'Remove drop.png' }).click();
  await waitFor(async () => (await trayItems(page).count()) === 1, { message: 'one file left' });
  await runtime.waitForLine('attachments.delete 200', { count: deletesBefore + 1 });
  // The blob URL was revoked.
  const stillThere = await page.evaluate((url) => fetch(url).then(() => true, () => false), src);
  assert.equal(stillThere, false, 'the local preview was not revoked');
  // That probe's failure is logged by Chromium: expected.
  page.consoleErrors = page.consoleErrors.filter((e) => !e.includes(src));

  await composer(page).fill('only one');
  await sendButton(page).click();
  await waitForIdle(page);
  const names = await lastUser(page).locator('[data-part="attachment-image"]').evaluateAll((els) => els.map((e) => e.alt));
  assert.deepEqual(names, ['keep.png']);
  // Removing a file that is still uploading cancels it and deletes it too.
  const held = await holdUploads(page);
  await picker(page).setInputFiles([text('late.txt')]);
  await waitFor(() => held.count() === 1, { message: 'the upload to start' });
  await page.getByRole('button', { name: 'Remove late.txt' }).click();
  await runtime.waitForLine('attachments.delete 200', { count: deletesBefore + 2 });
  held.release();
  assert.equal(await trayItems(page).count(), 0);
  await finishPage(page);
});

test('a failed upload shows an error and its retry succeeds', async () => {
  const page = await newChatPage(context, `${runtime.url}/`, { logs: runtime });
  let failures = 0;
  await page.route('**/upload/**', async (route) => {
    if (failures === 0) {
      failures += 1;
      await route.fulfill({ status: 500, contentType: 'application/json', body: '{"error":"disk full"}' });
      return;
    }
    await route.continue();
  });
  await picker(page).setInputFiles([png('flaky.png')]);
  const item = trayItems(page).first();
  await item.locator('[data-part="upload-error"]').waitFor({ timeout: 5_000 });
  assert.equal(await item.getAttribute('data-status'), 'failed');
  assert.match(await item.locator('[data-part="upload-error"]').textContent(), /HTTP 500/);
  await composer(page).fill('with a flaky file');
  assert.equal(await sendButton(page).isDisabled(), true);
  await page.getByRole('status').filter({ hasText: 'failed to upload' }).waitFor({ timeout: 5_000 });
  assert.deepEqual(await axeViolations(page), [], 'accessibility of the tray with a failed upload');

  await page.getByRole('button', { name: 'Retry upload flaky.png' }).click();
  await waitReady(page, 1);
  await runtime.waitForLine(/POST \/upload\/atc_\w+ 200/);
  assert.equal(await sendButton(page).isEnabled(), true);
  await sendButton(page).click();
  await waitForIdle(page);
  await lastUser(page).locator('[data-part="attachment-image"]').waitFor({ timeout: 5_000 });
  dropNetworkLog(page, /status of 500/);
  await finishPage(page);
});

test('a send that fails gives the text and the attachments back', async () => {
  const page = await newChatPage(context, `${runtime.url}/`, { logs: runtime });
  await picker(page).setInputFiles([png('kept.png'), text('notes.txt')]);
  await waitReady(page, 2);
  await page.route('**/chatkit', async (route) => {
    if (route.request().postDataJSON()?.type === 'threads.create') {
      await route.fulfill({ status: 500, contentType: 'application/json', body: '{"error":"overloaded"}' });
      return;
    }
    await route.continue();
  });
  await composer(page).fill('please keep this');
  await sendButton(page).click();
  await page.locator('[data-part="error"]').waitFor({ timeout: 5_000 });
  await waitFor(async () => (await composer(page).inputValue()) === 'please keep this', { message: 'the text back' });
  await waitReady(page, 2);
  assert.deepEqual(
    await trayItems(page).locator('.cs-tray__name').allTextContents(),
    ['kept.png', 'notes.txt'],
  );
  assert.equal(await page.locator('article[data-role="user"]').count(), 0, 'the failed message is still shown');
  // The image keeps its local preview.
  assert.match(await tray(page).getByRole('img', { name: 'kept.png' }).getAttribute('src'), /^blob:/);

  await page.unroute('**/chatkit');
  await sendButton(page).click();
  await waitForIdle(page);
  const message = lastUser(page);
  await message.getByText('please keep this').waitFor({ timeout: 5_000 });
  assert.equal(await message.locator('[data-part="attachment-image"], [data-part="attachment-file"]').count(), 2);
  dropNetworkLog(page, /status of 500/);
  await finishPage(page);
});

test('limits: accepted types, size and count are enforced with clear messages', async () => {
  const page = await newChatPage(context, `${runtime.url}/`, { logs: runtime });
  await page.evaluate(() => {
    const el = document.querySelector('chat-shell');
    el.setAttribute('accept', 'image/png,.txt');
    el.setAttribute('max-attachment-size', '1000');
    el.setAttribute('max-attachments', '2');
  });
  await waitFor(async () => (await picker(page).getAttribute('accept')) === 'image/png,.txt', { message: 'the accept attribute' });
  await picker(page).setInputFiles([
    { name: 'doc.pdf', mimeType: 'application/pdf', buffer: PDF },
    { name: 'big.txt', mimeType: 'text/plain', buffer: Buffer.alloc(2000, 'a') },
    png('a.png'),
    text('b.txt'),
    png('c.png'),
  ]);
  const alert = page.getByRole('alert').filter({ hasText: 'not a supported file type' });
  await alert.waitFor({ timeout: 5_000 });
  const message = await alert.textContent();
  assert.match(message, /“doc\.pdf” is not a supported file type\./);
  assert.match(message, /“big\.txt” is larger than the 1000 bytes limit\./);
  assert.match(message, /at most 2 files/);
  await waitReady(page, 2);
  assert.deepEqual(await trayItems(page).locator('.cs-tray__name').allTextContents(), ['a.png', 'b.txt']);
  // The tray is full: one more is refused.
  await picker(page).setInputFiles([png('d.png')]);
  await page.getByRole('alert').filter({ hasText: 'at most 2 files' }).waitFor({ timeout: 5_000 });
  assert.equal(await trayItems(page).count(), 2);
  await finishPage(page);
});

test('files dropped on the component or pasted into the composer join the tray', async () => {
  const page = await newChatPage(context, `${runtime.url}/`, { logs: runtime });
  await page.evaluate(() => {
    const root = document.querySelector('chat-shell').shadowRoot;
    const dt = new DataTransfer();
    dt.items.add(new File(['dropped'], 'dropped.txt', { type: 'text/plain' }));
    const target = root.querySelector('.cs-viewport');
    target.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true, composed: true }));
    target.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true, composed: true }));
  });
  await waitReady(page, 1);
  await page.evaluate(() => {
    const textarea = document.querySelector('chat-shell').shadowRoot.querySelector('textarea');
    const dt = new DataTransfer();
    dt.items.add(new File(['pasted'], 'pasted.txt', { type: 'text/plain' }));
    textarea.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
  });
  await waitReady(page, 2);
  assert.deepEqual(await trayItems(page).locator('.cs-tray__name').allTextContents(), ['dropped.txt', 'pasted.txt']);
  assert.equal(await composer(page).inputValue(), '', 'the pasted file landed in the text');
  await finishPage(page);
});
