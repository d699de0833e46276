// Every user-visible word comes from the strings table: the main states rendered under
// locale="fr" show no English default of any key (visible text, aria-label, title, alt,
// placeholder). The English defaults and the French table are read from
// crates/core/src/strings.rs; a key whose French is the same as its English (“Message”,
// “Sources”) cannot be told apart and is not checked.
//
// The page is served by the reference runtime, but /chatkit is answered here (page.route)
// with hand-built French content, so any English on the page comes from the component.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ROOT, axeViolations, close, newPage, openBrowser, sseBody, startRuntime, waitFor, itemUpdated, sendMessage, waitForIdle } from './harness.mjs';

after(close);

// ---- the strings table ------------------------------------------------------------------

const SOURCE = readFileSync(path.join(ROOT, 'crates', 'core', 'src', 'strings.rs'), 'utf8');
const unescape = (s) => s.replace(/\\(["\\])/g, '$1');

/** Ident → { key, english } from the `texts!` block. */
const ENGLISH = new Map(
  [...SOURCE.matchAll(/^\s+(\w+) = "(\w+)" => "((?:[^"\\]|\\.)*)",$/gm)].map((m) => [m[1], { key: m[2], english: unescape(m[3]) }]),
);

/** Ident → text of one built-in locale table (its `key = text` lines). */
function localeTable(tag) {
  const start = SOURCE.indexOf(`\n        "${tag}",\n`);
  assert.ok(start > 0, `the ${tag} table is in strings.rs`);
  const end = SOURCE.indexOf('\n",', start);
  const block = SOURCE.slice(start, end);
  const ident = new Map([...ENGLISH].map(([id, { key }]) => [key, id]));
  return new Map([...block.matchAll(/^(\w+) = (.*)$/gm)].filter((m) => ident.has(m[1])).map((m) => [ident.get(m[1]), m[2].trim()]));
}
const FRENCH = localeTable('fr');

const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * One matcher per key whose French differs from its English: the English default with
 * each `{placeholder}` standing for any text, whole words only, case-sensitive.
 */
const MATCHERS = [...ENGLISH]
  .filter(([ident, { english }]) => FRENCH.get(ident) !== english)
  .map(([, { key, english }]) => {
    const body = english.split(/\{\w+\}/).map(escapeRe).join('[\\s\\S]+?');
    const before = /^[\p{L}\p{N}]/u.test(english) ? '(?<![\\p{L}\\p{N}_])' : '';
    const after = /[\p{L}\p{N}]$/u.test(english) ? '(?![\\p{L}\\p{N}_])' : '';
    return { key, english, re: new RegExp(before + body + after, 'u') };
  });

test('the table read from strings.rs is complete in French', () => {
  assert.ok(ENGLISH.size > 100, `only ${ENGLISH.size} keys parsed from strings.rs`);
  const missing = [...ENGLISH.keys()].filter((ident) => !FRENCH.has(ident));
  assert.deepEqual(missing, [], 'keys without a French string');
  assert.ok(MATCHERS.length > 100, `only ${MATCHERS.length} keys differ in French`);
});

// ---- the page ---------------------------------------------------------------------------

/** What a user sees and hears in the shadow root: its rendered text and the attributes. */
function uiTexts(page) {
  return page.evaluate(() => {
    const root = document.querySelector('chat-shell').shadowRoot;
    const out = [];
    const shell = root.querySelector('.cs-shell');
    if (shell) out.push({ where: 'text', text: shell.innerText });
    for (const el of root.querySelectorAll('*')) {
      for (const attr of ['aria-label', 'title', 'alt', 'placeholder', 'aria-valuetext', 'aria-description']) {
        const v = el.getAttribute(attr);
        if (v) out.push({ where: `${el.tagName.toLowerCase()}[${attr}]`, text: v });
      }
    }
    return out;
  });
}

/** Fails with every English default of the table found on the page in `state`. */
async function assertFrench(page, state) {
  const texts = await uiTexts(page);
  const found = [];
  for (const { where, text } of texts) {
    for (const m of MATCHERS) {
      const hit = m.re.exec(text);
      if (hit) found.push(`${m.key} (${JSON.stringify(m.english)}) in ${where}: …${JSON.stringify(hit[0])}…`);
    }
  }
  assert.deepEqual(found, [], `English on the page (${state}):\n${found.join('\n')}`);
  return texts;
}

// ---- hand-built answers -----------------------------------------------------------------

const THREAD = 'thr_fr';
let nextId = 0;
const id = (prefix) => `${prefix}_${String(++nextId).padStart(4, '0')}`;
// ChatKit timestamps: naive ISO in UTC.
const stamp = (agoSeconds = 0) => new Date(Date.now() - agoSeconds * 1000).toISOString().replace('Z', '');
const item = (type, fields) => ({ id: id(type.split('_')[0]), thread_id: THREAD, created_at: stamp(), type, ...fields });

function userEcho(text, attachments = []) {
  return { type: 'thread.item.done', item: item('user_message', { content: [{ type: 'input_text', text }], attachments, inference_options: {} }) };
}

/** An assistant message streamed in small deltas; `done: false` leaves it open. */
function assistant(text, { done = true } = {}) {
  const msg = item('assistant_message', { content: [] });
  const events = [
    { type: 'thread.item.added', item: msg },
    itemUpdated(msg.id, { type: 'assistant_message.content_part.added', content_index: 0, content: { type: 'output_text', text: '', annotations: [] } }),
  ];
  for (let i = 0; i < text.length; i += 9) {
    events.push(itemUpdated(msg.id, { type: 'assistant_message.content_part.text_delta', content_index: 0, delta: text.slice(i, i + 9) }));
  }
  if (done) {
    const content = [{ type: 'output_text', text, annotations: [] }];
    events.push(itemUpdated(msg.id, { type: 'assistant_message.content_part.done', content_index: 0, content: content[0] }));
    events.push({ type: 'thread.item.done', item: { ...msg, content } });
  }
  return events;
}

const ANSWER = 'Voici la réponse, avec un bloc de code :\n\n```js\nconsole.log(42);\n```\n\nBonne journée !';

/** The first turn: attachments on the user message, a finished workflow, a task, a tool call, the answer. */
function firstTurn(text) {
  const files = ['rapport.pdf', 'budget.csv', 'notes.txt', 'plan.md'].map((name, i) => ({
    type: 'file',
    id: `atc_fr${i}`,
    name,
    mime_type: name.endsWith('.pdf') ? 'application/pdf' : 'text/plain',
  }));
  const workflow = item('workflow', {
    workflow: {
      type: 'custom',
      expanded: false,
      summary: { duration: 2 },
      tasks: [
        { status_indicator: 'complete', type: 'web_search', title: 'Recherche sur le web', queries: ['météo Lisbonne'], sources: [{ title: 'Météo', type: 'url', url: 'https://example.com/meteo' }] },
        { status_indicator: 'complete', type: 'custom', content: 'Étape sans titre' },
      ],
    },
  });
  const reasoning = item('workflow', { workflow: { type: 'reasoning', expanded: false, tasks: [{ status_indicator: 'none', type: 'thought', content: 'Je réfléchis.' }] } });
  const task = item('task', { task: { status_indicator: 'complete', type: 'custom', icon: 'search' } });
  const tool = item('client_tool_call', {
    status: 'completed',
    call_id: 'call_fr',
    name: 'infos_client',
    arguments: { champs: ['langue'] },
    output: { langue: 'fr' },
  });
  return sseBody([
    { type: 'thread.created', thread: { id: THREAD, created_at: stamp(), status: { type: 'active' }, metadata: {}, items: { data: [], has_more: false } } },
    userEcho(text, files),
    { type: 'stream_options', stream_options: { allow_cancel: true } },
    { type: 'thread.item.done', item: workflow },
    { type: 'thread.item.done', item: reasoning },
    { type: 'thread.item.done', item: task },
    { type: 'thread.item.done', item: tool },
    ...assistant(ANSWER),
  ]);
}

/** A turn that fails after part of the answer, with no message of the server's: Retry is offered. */
function failingTurn(text) {
  return sseBody([
    userEcho(text),
    { type: 'stream_options', stream_options: { allow_cancel: true } },
    ...assistant('Cette réponse va échouer ', { done: false }),
    { type: 'error', code: 'stream.error', allow_retry: true },
  ]);
}

/** A turn with an approval card, pending structured input and a widget card. */
function widgetTurn(text) {
  const approval = item('client_widget', {
    name: 'tool_approval_request',
    args: { tool_name: 'envoyer_paiement', tool_args: '{"montant":42.5,"devise":"EUR"}', call_id: 'call_pay', request_id: 'req_pay' },
  });
  const structured = item('structured_input', {
    status: 'pending',
    inputs: [
      { id: 'couleur', question: 'Quelle couleur ?', type: 'multiple_choice', options: [{ value: 'rouge' }, { value: 'vert' }], multiple: false },
      { id: 'pourquoi', question: 'Pourquoi ?', type: 'freeform' },
    ],
  });
  const card = item('widget', {
    widget: {
      type: 'Card',
      collapsed: true,
      confirm: { action: { type: 'confirmer', payload: {} } },
      cancel: { action: { type: 'annuler', payload: {} } },
      children: [
        { type: 'Title', value: 'Carte de test' },
        // No label and no icon: named by the table's word for a button.
        { type: 'Button', onClickAction: { type: 'ok', payload: {} } },
        { type: 'Inconnu' },
        {
          type: 'Chart', height: 120, xAxis: 'mois',
          data: [{ mois: 'janv.', visites: 3 }, { mois: 'févr.', visites: 5 }],
          series: [{ type: 'bar', label: 'Visites', dataKey: 'visites' }],
        },
      ],
    },
  });
  const list = item('widget', {
    widget: {
      type: 'ListView',
      limit: 1,
      children: ['Premier', 'Deuxième', 'Troisième'].map((value, i) => ({ type: 'ListViewItem', key: `l${i}`, children: [{ type: 'Text', value }] })),
    },
  });
  return sseBody([
    userEcho(text),
    { type: 'stream_options', stream_options: { allow_cancel: true } },
    { type: 'thread.item.done', item: approval },
    { type: 'thread.item.done', item: structured },
    { type: 'thread.item.done', item: card },
    { type: 'thread.item.done', item: list },
    ...assistant('Tout est prêt.'),
  ]);
}

function threadList() {
  return {
    data: [
      { id: THREAD, title: 'Voyage à Lisbonne', created_at: stamp(5 * 60), status: { type: 'active' }, metadata: {}, items: { data: [], has_more: false } },
      { id: 'thr_old', created_at: stamp(3 * 86_400), status: { type: 'active' }, metadata: {}, items: { data: [], has_more: false } },
      { id: 'thr_older', title: 'Recette de cuisine', created_at: stamp(30 * 3600), status: { type: 'active' }, metadata: {}, items: { data: [], has_more: false } },
    ],
    has_more: false,
    after: null,
  };
}

// ---- the test ---------------------------------------------------------------------------

let runtime;
let context;
before(async () => {
  runtime = await startRuntime();
  context = await openBrowser({ viewport: { width: 1000, height: 1400 } });
});

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

/** The French names of the buttons waitForIdle() and sendMessage() look for. */
const FRENCH_IDLE = { send: 'Envoyer', stop: 'Arrêter', timeout: 10_000 };

/** Sends `text` and waits until it is on the page: a waitForIdle() before that would pass
 *  on the old state. */
async function sendShown(page, text) {
  const users = page.locator('article[data-role="user"]');
  const before = await users.count();
  await sendMessage(page, text, { send: 'Envoyer' });
  await waitFor(async () => (await users.count()) > before, { message: `"${text}" on the page` });
}

test('under locale="fr" the main states show no English word of the table', async () => {
  const page = await newPage(context, 'about:blank');
  let turn = 0;
  await page.route('**/chatkit', async (route) => {
    const body = JSON.parse(route.request().postData());
    const sse = (text) => route.fulfill({ contentType: 'text/event-stream', body: text });
    const text = body.params?.input?.content?.map((c) => c.text).join('') ?? '';
    switch (body.type) {
      case 'threads.create':
        turn += 1;
        return sse(firstTurn(text));
      case 'threads.add_user_message':
        turn += 1;
        return sse(turn === 2 ? failingTurn(text) : widgetTurn(text));
      case 'threads.list':
        return route.fulfill({ contentType: 'application/json', body: JSON.stringify(threadList()) });
      case 'items.list':
        // The untitled row asks for its first message; it has none, so it stays untitled.
        return route.fulfill({ contentType: 'application/json', body: JSON.stringify({ data: [], has_more: false, after: null }) });
      default:
        return route.fallback();
    }
  });
  await page.goto(runtime.url, { waitUntil: 'load' });
  await page.evaluate(() => {
    const el = document.querySelector('chat-shell');
    el.setAttribute('locale', 'fr');
    el.setAttribute(
      'starter-prompts',
      JSON.stringify([
        { title: 'Planifier un voyage', prompt: 'Planifie un voyage à Lisbonne', icon: '✈️' },
        { title: 'Résumer un texte', prompt: 'Résume ce texte', icon: 'book-open' },
      ]),
    );
  });

  // The start screen: greeting, starter prompts, header and composer.
  await page.getByText('Comment puis-je vous aider ?').waitFor({ timeout: 10_000 });
  await page.locator('[data-part="starter-prompt"]').nth(1).waitFor();
  await assertFrench(page, 'start screen');

  // A streamed answer with its message actions, a workflow, a task, a tool call, a code
  // block and the user's attachments ("+1 de plus").
  await sendShown(page, 'Bonjour, peux-tu m’aider ?');
  await waitForIdle(page, FRENCH_IDLE);
  const answer = page.locator('article[data-role="assistant"]').last();
  await answer.getByRole('button', { name: 'Réessayer' }).waitFor();
  await answer.locator('[data-part="code-copy"]').waitFor();
  assert.equal(await answer.locator('[data-part="code-copy"]').textContent(), 'Copier');
  await page.locator('[data-part="attachments-more"]').waitFor();
  await page.locator('[data-part="tool-call"] details').evaluate((d) => {
    d.open = true;
  });
  await assertFrench(page, 'streamed answer with actions');

  // An error with Retry (the server's error event carries no message of its own).
  await sendShown(page, 'Encore une question');
  const error = page.locator('[data-part="error"][role="alert"]');
  await error.waitFor({ timeout: 10_000 });
  await error.getByRole('button', { name: 'Réessayer' }).waitFor();
  assert.match(await error.textContent(), /Une erreur s'est produite/);
  await waitForIdle(page, FRENCH_IDLE);
  await assertFrench(page, 'error with Retry');

  // An approval card, structured input and widgets.
  await sendShown(page, 'Des widgets, s’il te plaît');
  await waitForIdle(page, FRENCH_IDLE);
  await page.locator('.cs-approval').getByRole('button', { name: 'Approuver' }).waitFor();
  await page.locator('[data-part="structured-input"]').getByRole('button', { name: 'Valider' }).waitFor();
  await page.locator('.cs-w-card__toggle').waitFor();
  await assertFrench(page, 'approval card, structured input and widgets');
  // Opened card: its confirm/cancel buttons without labels of their own.
  await page.locator('.cs-w-card__toggle').click();
  await page.getByRole('button', { name: 'Confirmer' }).waitFor();
  await assertFrench(page, 'widget card opened');

  // The attachments tray: one upload running, one failed, one file refused.
  let uploads = 0;
  await page.route('**/upload/**', async (route) => {
    uploads += 1;
    if (uploads === 1) return; // held: stays uploading
    await route.fulfill({ status: 500, body: 'non' });
  });
  await page.locator('input[type="file"]').setInputFiles([
    { name: 'photo.png', mimeType: 'image/png', buffer: PNG },
    { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('bonjour') },
    { name: 'programme.exe', mimeType: 'application/x-msdownload', buffer: Buffer.from('MZ') },
  ]);
  await page.locator('[data-part="attachment-error"]').waitFor({ timeout: 10_000 });
  await page.locator('[data-part="upload-error"]').waitFor({ timeout: 10_000 });
  await page.locator('[data-part="upload-progress"]').waitFor({ timeout: 10_000 });
  await page.locator('[data-part="composer-waiting"]').waitFor();
  await assertFrench(page, 'attachments tray');

  // The history: rows with relative dates, one row renaming, one asking to delete.
  await page.locator('[data-part="history-toggle"]').click();
  await page.locator('[data-part="history-row"]').nth(2).waitFor({ timeout: 10_000 });
  const rows = page.locator('[data-part="history-row"]');
  assert.match(await rows.nth(0).locator('time').textContent(), /il y a 5 minutes/);
  assert.equal(await rows.nth(1).locator('[data-part="history-open"]').textContent(), 'Conversation sans titre');
  await assertFrench(page, 'history open');
  await rows.nth(1).getByRole('button', { name: 'Renommer Conversation sans titre' }).click();
  await rows.nth(1).getByRole('textbox').waitFor();
  await rows.nth(2).getByRole('button', { name: 'Supprimer Recette de cuisine' }).click();
  await rows.nth(2).getByRole('button', { name: 'Annuler' }).waitFor();
  await assertFrench(page, 'history renaming and deleting');

  const errors = page.consoleErrors.filter((e) => !/Failed to load resource: .*500/.test(e));
  assert.deepEqual(errors, [], 'console errors');
  await page.close();
});

test('under locale="ar" code, paths and inline code read left to right, and an English answer keeps its own direction', async () => {
  const page = await newPage(context, runtime.url);
  await page.evaluate(() => document.querySelector('chat-shell').setAttribute('locale', 'ar'));
  const composer = page.locator('chat-shell textarea').first();
  await composer.waitFor();
  // The scripted answer: English prose with inline code, a list and a Rust code block.
  await composer.fill('hello');
  await composer.press('Enter');
  const answer = page.locator('article[data-role="assistant"]').last();
  await answer.locator('pre code').first().waitFor({ timeout: 10_000 });
  await answer.locator('[data-part="code-copy"]').first().waitFor({ timeout: 10_000 });
  const directions = await answer.evaluate((article) => {
    const dir = (el) => (el ? getComputedStyle(el).direction : null);
    return {
      page: dir(article.closest('[dir]') ?? article),
      pre: dir(article.querySelector('pre')),
      code: dir(article.querySelector('pre code')),
      inline: dir(article.querySelector('p code, li code')),
      paragraph: dir(article.querySelector('p')),
      item: dir(article.querySelector('li')),
    };
  });
  assert.deepEqual(directions, { page: 'rtl', pre: 'ltr', code: 'ltr', inline: 'ltr', paragraph: 'ltr', item: 'ltr' });
  // The UI around the answer stays right to left.
  assert.equal(await page.locator('chat-shell').evaluate((el) => getComputedStyle(el.shadowRoot.querySelector('textarea')).direction), 'rtl');
  // axe is clean right to left too.
  await waitFor(() => page.evaluate(() => !document.querySelector('chat-shell').shadowRoot.querySelector('article[aria-busy="true"]')), { message: 'the answer to finish' });
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(page.consoleErrors, []);
});
