// Dictation (`composer.dictation.enabled`) against the reference runtime, which
// answers `input.transcribe` with the size and type of the audio it got: nothing shows
// without the option; with Chromium's fake microphone the "Dictate" button records (its name
// "Stop dictation", `data-state="recording"`, a "Recording…" status), and stopping inserts
// the runtime's text at the caret, the text around it kept and nothing sent; Escape and
// "Cancel dictation" drop the audio; a refused microphone (a real denial, from a browser
// that denies permission prompts), a missing one, a browser without MediaRecorder, and a
// failed request (500, a 400 from the runtime, a dropped connection) each say so in an
// alert and leave the draft as it was. axe is clean in each state.

import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, PROFILES, axeViolations, close, newChatPage, sleep, startRuntime, waitFor, finishPage, composer, sendButton, frames, fillDraft } from './harness.mjs';

let runtime;
let context; // a fake microphone, allowed
let denying; // a fake microphone, every permission prompt denied
const profiles = [];

/** Chromium headless with `extra` flags, in a profile folder removed by after(). */
async function launch(extra) {
  await mkdir(PROFILES, { recursive: true });
  const profile = await mkdtemp(path.join(PROFILES, 'dictation-'));
  profiles.push(profile);
  return chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [...CHROMIUM_ARGS, '--use-fake-device-for-media-stream', ...extra],
    viewport: { width: 1280, height: 900 },
  });
}

before(async () => {
  runtime = await startRuntime();
  context = await launch(['--use-fake-ui-for-media-stream']);
  await context.grantPermissions(['microphone'], { origin: runtime.url });
  denying = await launch(['--deny-permission-prompts']);
});
after(async () => {
  for (const c of [context, denying]) await c?.close().catch(() => {});
  for (const p of profiles) await rm(p, { recursive: true, force: true });
  await close();
});

const DICTATION = { composer: { dictation: { enabled: true } } };

/** A chat page of `ctx` with dictation on, its microphone shown; `page.bodies` collects
 *  what goes to /chatkit. */
async function openDictation(ctx = context) {
  const page = await newChatPage(ctx, `${runtime.url}/`, { bodies: '/chatkit', options: DICTATION });
  await dictate(page).waitFor({ timeout: 10_000 });
  return page;
}

const dictate = (page) => page.getByRole('button', { name: 'Dictate', exact: true });
const stopDictation = (page) => page.getByRole('button', { name: 'Stop dictation', exact: true });
const cancelDictation = (page) => page.getByRole('button', { name: 'Cancel dictation', exact: true });
const alert = (page) => page.locator('[data-part="dictation-error"][role="alert"]');
const state = (page) => page.locator('[data-part="dictation"]').getAttribute('data-state');
const sentOfType = (page, type) => page.bodies.filter((b) => b.type === type);
const messagesSent = (page) =>
  page.bodies.filter((b) => b.type === 'threads.create' || b.type === 'threads.add_user_message');

/** Starts a recording and waits until it runs, then lets it run `lasting` ms. */
async function record(page, { lasting = 0 } = {}) {
  await dictate(page).click();
  await stopDictation(page).waitFor({ timeout: 10_000 });
  assert.equal(await state(page), 'recording');
  assert.equal((await page.getByRole('status').filter({ hasText: 'Recording…' }).count()), 1);
  // Time itself: the audio the runtime gets is as long as the recording lasts.
  if (lasting) await sleep(lasting);
}

test('the microphone shows only with composer.dictation.enabled', async () => {
  const page = await newChatPage(context, `${runtime.url}/`);
  // The microphone would render in the composer's own pass, beside its Send button.
  await sendButton(page).waitFor();
  assert.equal(await dictate(page).count(), 0);
  // A wrong type names the key and changes nothing.
  const error = await page.evaluate(() => {
    try {
      document.querySelector('chat-shell').setOptions({ composer: { dictation: { enabled: 'yes' } } });
      return null;
    } catch (e) {
      return `${e.name}: ${e.message}`;
    }
  });
  assert.match(error, /^TypeError: .*`composer`/);
  await page.evaluate((o) => document.querySelector('chat-shell').setOptions(o), DICTATION);
  await dictate(page).waitFor({ timeout: 10_000 });
  assert.deepEqual(await page.evaluate(() => document.querySelector('chat-shell').options.composer.dictation), { enabled: true });
  assert.equal(await state(page), 'idle');
  assert.deepEqual(await axeViolations(page, 'chat-shell'), []);
  // Reachable by keyboard: Tab from the composer lands on it.
  await composer(page).focus();
  await page.keyboard.press('Tab');
  await waitFor(() => dictate(page).evaluate((el) => el.getRootNode().activeElement === el), { message: 'Dictate focused' });
  await page.evaluate(() => document.querySelector('chat-shell').setOptions({ composer: { dictation: null } }));
  await dictate(page).waitFor({ state: 'detached', timeout: 5_000 });
  await finishPage(page);
});

test('a recording is transcribed into the draft at the caret, and nothing is sent', async () => {
  const page = await openDictation();
  await fillDraft(page, 'before after', { caret: 6 });
  await record(page, { lasting: 1_000 });
  assert.deepEqual(await axeViolations(page, 'chat-shell'), []);
  await stopDictation(page).click();
  const value = await waitFor(
    async () => {
      const v = await composer(page).inputValue();
      return v !== 'before after' && v;
    },
    { timeout: 10_000, message: 'the transcript in the draft' },
  );
  const m = /^before (heard (\d+) bytes of (audio\/[a-z0-9.+-]+)) after$/.exec(value);
  assert.ok(m, `the transcript between the words around the caret: ${JSON.stringify(value)}`);
  // The request: plain base64 of the recording, with the recorder's type.
  const [request] = sentOfType(page, 'input.transcribe');
  assert.ok(request, 'an input.transcribe request');
  const { audio_base64: audio, mime_type: mime } = request.params;
  assert.match(audio, /^[A-Za-z0-9+/]+={0,2}$/, 'plain base64, not a data: URL');
  assert.match(mime, /^audio\/webm/);
  assert.equal(m[3], mime.split(';')[0]);
  assert.equal(Number(m[2]), Buffer.from(audio, 'base64').length);
  assert.ok(Number(m[2]) > 1_000, `about a second of audio: ${m[2]} bytes`);
  // The caret right after the inserted text, in the composer; the recording is over.
  const caret = await composer(page).evaluate((el) => [el.selectionStart, el.selectionEnd, el.getRootNode().activeElement === el]);
  assert.deepEqual(caret, ['before '.length + m[1].length, 'before '.length + m[1].length, true]);
  await dictate(page).waitFor({ timeout: 5_000 });
  assert.equal(await state(page), 'idle');
  // A send would have gone out with the transcript, in the frames that inserted it.
  await frames(page);
  assert.deepEqual(messagesSent(page), [], 'nothing sent');
  assert.equal(await alert(page).count(), 0);
  // Typing goes on where the transcript ended; a selection is replaced by the next one.
  await page.keyboard.type('!');
  assert.equal(await composer(page).inputValue(), `before ${m[1]}! after`);
  await composer(page).evaluate((el) => el.setSelectionRange(0, 'before'.length));
  await record(page, { lasting: 300 });
  await stopDictation(page).click();
  await waitFor(async () => /^heard \d+ bytes of audio\/webm heard/.test(await composer(page).inputValue()), {
    timeout: 10_000,
    message: 'the selection replaced',
  });
  assert.equal(sentOfType(page, 'input.transcribe').length, 2);
  assert.deepEqual(messagesSent(page), []);
  await finishPage(page);
});

test('Escape and "Cancel dictation" drop the recording', async () => {
  const page = await openDictation();
  await fillDraft(page, 'keep me', { caret: 4 });
  // Escape, with the focus on the microphone.
  await record(page, { lasting: 300 });
  await stopDictation(page).press('Escape');
  await dictate(page).waitFor({ timeout: 5_000 });
  assert.equal(await state(page), 'idle');
  // The button.
  await record(page);
  assert.deepEqual(await axeViolations(page, 'chat-shell'), []);
  await cancelDictation(page).click();
  await dictate(page).waitFor({ timeout: 5_000 });
  assert.equal(await cancelDictation(page).count(), 0);
  // Audio would have gone out once the recorder handed it over, in the frames after the stop.
  await frames(page);
  assert.deepEqual(sentOfType(page, 'input.transcribe'), [], 'no audio sent');
  assert.equal(await composer(page).inputValue(), 'keep me');
  assert.equal(await alert(page).count(), 0);
  // The microphone was let go: a new recording starts at once.
  await record(page);
  await cancelDictation(page).click();
  await dictate(page).waitFor({ timeout: 5_000 });
  await finishPage(page);
});

test('a denied microphone says so and keeps the draft', async () => {
  const page = await openDictation(denying);
  await fillDraft(page, 'as it was', { caret: 3 });
  await dictate(page).click();
  await alert(page).waitFor({ timeout: 10_000 });
  assert.match(await alert(page).textContent(), /permission to use it was denied/);
  assert.equal(await composer(page).inputValue(), 'as it was');
  assert.equal(await stopDictation(page).count(), 0);
  assert.equal(await state(page), 'idle');
  assert.deepEqual(await axeViolations(page, 'chat-shell'), []);
  // Dismissed, and it goes.
  await alert(page).getByRole('button', { name: 'Dismiss' }).click();
  await alert(page).waitFor({ state: 'detached', timeout: 5_000 });
  assert.deepEqual(page.bodies.filter((b) => b.type === 'input.transcribe'), []);
  await finishPage(page);
});

test('no microphone, or no MediaRecorder, says so and keeps the draft', async () => {
  const page = await openDictation();
  await fillDraft(page, 'untouched', { caret: 2 });
  await page.evaluate(() => {
    navigator.mediaDevices.getUserMedia = () => Promise.reject(new DOMException('Requested device not found', 'NotFoundError'));
  });
  await dictate(page).click();
  await alert(page).waitFor({ timeout: 10_000 });
  assert.match(await alert(page).textContent(), /No microphone was found/);
  await page.evaluate(() => {
    delete window.MediaRecorder;
  });
  // Starting again replaces the alert with the new one.
  await dictate(page).click();
  await waitFor(async () => /cannot record audio/.test(await alert(page).textContent()), { message: 'the unsupported alert' });
  assert.equal(await alert(page).count(), 1);
  assert.equal(await composer(page).inputValue(), 'untouched');
  await finishPage(page);
});

test('a failed transcription says so in an alert and keeps the draft', async () => {
  const page = await openDictation();
  const failures = [
    // The server fails.
    [(route) => route.fulfill({ status: 500, contentType: 'application/json', body: '{"error":"transcriber down","code":"internal"}' }), /could not be transcribed: .*500.*transcriber down/],
    // The runtime refuses the audio (its type, here): a real 400.
    [(route) => {
      const body = route.request().postDataJSON();
      body.params.mime_type = 'video/webm';
      return route.continue({ postData: JSON.stringify(body) });
    }, /could not be transcribed: .*400.*audio type/],
    // The connection drops.
    [(route) => route.abort('connectionreset'), /could not be transcribed/],
  ];
  for (const [answer, message] of failures) {
    const handler = (route) => (route.request().postDataJSON()?.type === 'input.transcribe' ? answer(route) : route.continue());
    await page.route('**/chatkit', handler);
    await fillDraft(page, 'first second', { caret: 5 });
    await record(page, { lasting: 300 });
    await stopDictation(page).click();
    await alert(page).waitFor({ timeout: 10_000 });
    assert.match(await alert(page).textContent(), message);
    assert.equal(await composer(page).inputValue(), 'first second');
    await dictate(page).waitFor({ timeout: 5_000 });
    assert.equal(await state(page), 'idle');
    assert.deepEqual(await axeViolations(page, 'chat-shell'), []);
    await page.unroute('**/chatkit', handler);
    await alert(page).getByRole('button', { name: 'Dismiss' }).click();
    await alert(page).waitFor({ state: 'detached', timeout: 5_000 });
  }
  assert.deepEqual(messagesSent(page), []);
  // Chromium logs the failed requests itself; nothing else may be logged.
  page.consoleErrors = page.consoleErrors.filter(
    (e) => !(e.startsWith('console.error: Failed to load resource: ') && /status of (500|400)|ERR_CONNECTION_RESET/.test(e)),
  );
  await finishPage(page);
});
