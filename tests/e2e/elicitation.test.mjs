// An agent's elicitation through the reference runtime (`--acp`) and
// the scripted ACP agent (examples/acp-agent) as real processes: `elicit` asks for the
// form "Set up the project" (a string, an enum, a titled oneOf, a number, an integer, a
// boolean, a multi-select and one property of a type no client knows); `elicit-url` asks
// to open a page. The form is a form named by the request's message, validated as the
// schema says before it goes, answered accept, decline or cancel; the run is not shown as
// finished until then, and the outcome stays, read-only. axe is clean on the form.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import {
  ROOT,
  axeViolations,
  close,
  isStreaming,
  openBrowser,
  sendMessage,
  sleep,
  startRuntime,
  waitFor,
  waitForIdle,
  openChat,
  finishPage,
  shownText,
  waitForText,
} from './harness.mjs';

const AGENT = process.env.E2E_ACP_AGENT_BIN
  ? path.resolve(ROOT, process.env.E2E_ACP_AGENT_BIN)
  : path.join(ROOT, 'target', 'debug', 'chat-shell-acp-agent');

const MESSAGE = 'Set up the project';

let runtime;
let context;

before(async () => {
  if (!existsSync(AGENT)) throw new Error(`${AGENT} is missing: run 'cargo build -p chat-shell-acp-agent' first`);
  runtime = await startRuntime({ extraArgs: ['--acp', `${AGENT} --pace-ms 2`] });
  context = await openBrowser();
});
after(async () => {
  await close();
});

/** Asks for the project form; resolves with it once shown. */
async function askForm(page) {
  await sendMessage(page, 'elicit');
  const form = page.getByRole('form', { name: MESSAGE });
  await form.waitFor({ timeout: 15_000 });
  return form;
}

/** Picks `label` in the choice named `name`: a select, or a radio group. */
async function choose(form, name, label) {
  const select = form.getByRole('combobox', { name });
  if ((await select.count()) > 0) return select.selectOption({ label });
  return form.getByRole('radiogroup', { name }).getByRole('radio', { name: label, exact: true }).check();
}

/** The text of the element(s) named by `aria-describedby` of `locator`. */
async function description(locator) {
  return locator.evaluate((el) => {
    const root = el.getRootNode();
    return (el.getAttribute('aria-describedby') ?? '')
      .split(/\s+/)
      .filter(Boolean)
      .map((id) => root.getElementById(id)?.textContent ?? '')
      .join(' ');
  });
}

test('an elicitation form: checked as the schema says, accepted with the values, the run going on until then', async () => {
  const page = await openChat(context, `${runtime.url}/`);
  const form = await askForm(page);

  // The agent waits for the answer: the run is not over.
  assert.ok(await isStreaming(page), 'the run shows as going on while the form waits');
  // Time itself: a while later, nothing answered, it still goes on.
  await sleep(500);
  assert.ok(await isStreaming(page), 'still going on: nothing was answered');

  // One labelled field per property; the unknown type shown as unsupported, never a text box.
  await form.getByRole('textbox', { name: /Project name/ }).waitFor();
  assert.equal(await form.getByRole('textbox', { name: /Accent colour/ }).count(), 0, 'no text box for an unknown type');
  assert.match(await form.textContent(), /Unsupported field \(color\)/);
  assert.equal(await form.getByRole('checkbox', { name: /Write tests/ }).isChecked(), true, 'the default');
  assert.deepEqual(await axeViolations(page), []);

  // Accepting with a required field empty says what is missing, where it is.
  await form.getByRole('button', { name: 'Accept', exact: true }).click();
  const name = form.getByRole('textbox', { name: /Project name/ });
  await waitFor(async () => (await name.getAttribute('aria-invalid')) === 'true', { message: 'the missing name to be marked' });
  assert.match(await description(name), /required/i);
  assert.ok(await isStreaming(page), 'nothing was sent');
  assert.deepEqual(await axeViolations(page), [], 'axe with the errors shown');

  // An integer out of range is refused too.
  await name.fill('demo');
  await choose(form, /Language/, 'python');
  await choose(form, /License/, 'Apache 2.0');
  await form.getByRole('spinbutton', { name: /Budget/ }).fill('12.5');
  const workers = form.getByRole('spinbutton', { name: /Workers/ });
  await workers.fill('40');
  await form.getByRole('button', { name: 'Accept', exact: true }).click();
  await waitFor(async () => (await workers.getAttribute('aria-invalid')) === 'true', { message: 'the workers out of range to be marked' });
  await workers.fill('3');
  const features = form.getByRole('group', { name: /Features/ });
  await features.getByRole('checkbox', { name: 'web', exact: true }).check();
  await features.getByRole('checkbox', { name: 'db', exact: true }).check();
  await form.getByRole('button', { name: 'Accept', exact: true }).click();

  await waitForText(page, 'accepted: ');
  await waitForIdle(page);
  const said = (await shownText(page)).match(/accepted: (\{[^}]*\})/);
  assert.ok(said, 'the agent says what it got');
  const content = JSON.parse(said[1]);
  assert.deepEqual(content, {
    name: 'demo',
    language: 'python',
    license: 'apache-2.0',
    budget: 12.5,
    workers: 3,
    tests: true,
    features: ['web', 'db'],
  });
  // The form shows its outcome and takes no more input.
  await waitFor(async () => /Accepted/.test(await form.textContent()), { message: 'the outcome on the form' });
  assert.equal(await form.getByRole('button', { name: 'Accept', exact: true }).count(), 0, 'no Accept once answered');
  assert.equal(await form.getByRole('textbox', { name: /Project name/ }).isEnabled().catch(() => false), false, 'read-only once answered');
  await finishPage(page);
});

test('an elicitation declined: the agent hears it, the form says so', async () => {
  const page = await openChat(context, `${runtime.url}/`);
  const form = await askForm(page);
  await form.getByRole('button', { name: 'Decline', exact: true }).click();
  await waitForText(page, 'declined');
  await waitForIdle(page);
  await waitFor(async () => /Declined/.test(await form.textContent()), { message: 'the outcome on the form' });
  assert.equal(await form.getByRole('button', { name: 'Decline', exact: true }).count(), 0);
  await finishPage(page);
});

test('an elicitation cancelled: the turn ends, the form says so', async () => {
  const page = await openChat(context, `${runtime.url}/`);
  const form = await askForm(page);
  await form.getByRole('button', { name: 'Cancel', exact: true }).click();
  await waitForIdle(page);
  await waitFor(async () => /Cancelled/.test(await form.textContent()), { message: 'the outcome on the form' });
  assert.equal(await form.getByRole('button', { name: 'Cancel', exact: true }).count(), 0);
  assert.doesNotMatch(await shownText(page), /accepted: /);
  await finishPage(page);
});

test('a URL elicitation: a web link opened by the user, accepted, then completed by the agent', async () => {
  const page = await openChat(context, `${runtime.url}/`);
  await sendMessage(page, 'elicit-url');
  const form = page.getByRole('form', { name: 'Authorize the scripted agent' });
  await form.waitFor({ timeout: 15_000 });
  const link = form.getByRole('link');
  assert.equal(await link.getAttribute('href'), 'https://example.com/authorize?client=chat-shell');
  assert.match((await link.getAttribute('rel')) ?? '', /noopener/);
  assert.ok(await isStreaming(page), 'the run waits for the answer');
  assert.deepEqual(await axeViolations(page), []);
  await form.getByRole('button', { name: 'Accept', exact: true }).click();
  await waitForText(page, 'The authorization is complete.');
  await waitForIdle(page);
  await waitFor(async () => /Accepted|Completed/.test(await form.textContent()), { message: 'the outcome on the form' });
  await finishPage(page);
});
