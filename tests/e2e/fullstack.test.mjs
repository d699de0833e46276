// chat-shell in a Rust full-stack app (examples/fullstack, built by scripts/fullstack.sh):
// a server-rendered Leptos page whose <ChatShell> the browser build hydrates, with the
// runtime nested under /chat and the app's own login as the chat's identity.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import readline from 'node:readline';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { openBrowser, newPage, waitFor, composer, startRuntime, distName, ROOT } from './harness.mjs';

const BIN = path.join(ROOT, 'target', 'debug', 'chat-shell-fullstack');
const SITE = path.join(ROOT, 'target', 'fullstack-site');
let app, browser;

/** Starts the app on a free port; resolves with its URL once it listens. */
async function startApp() {
  assert.ok(existsSync(BIN) && existsSync(path.join(SITE, 'pkg')), 'build the example first: ./scripts/fullstack.sh');
  const child = spawn(BIN, ['--addr', '127.0.0.1:0', '--site', SITE], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  process.once('exit', () => child.kill('SIGKILL'));
  const lines = [];
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the app did not start:\n${lines.join('\n')}`)), 20_000);
    for (const stream of [child.stdout, child.stderr]) {
      readline.createInterface({ input: stream }).on('line', (line) => {
        lines.push(line);
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(line);
        if (m) { clearTimeout(timer); resolve(m[1]); }
      });
    }
    child.once('exit', (code) => reject(new Error(`the app exited (${code}):\n${lines.join('\n')}`)));
  });
  return { url, lines, close: () => child.kill('SIGTERM') };
}

/** Signs in through the app's login (Node's fetch): the session cookie. */
async function signIn(user, password) {
  const res = await fetch(`${app.url}/login`, {
    method: 'POST', redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ user, password }),
  });
  assert.equal(res.status, 303, `sign in as ${user}`);
  return res.headers.get('set-cookie').split(';')[0];
}

/** A ChatKit request to the nested runtime as the session `cookie`. */
function chatkit(cookie, body, headers = {}) {
  return fetch(`${app.url}/chat/chatkit`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}), ...headers },
    body: JSON.stringify(body),
  });
}

/** Signs in through the page's form, in the browser. */
async function signInPage(page, user, password) {
  await page.goto(`${app.url}/login`);
  await page.getByLabel('User').fill(user);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('user').filter({ hasText: user }).waitFor();
}

/** The live chat has taken the server's frame over. */
const live = (page) => waitFor(
  () => page.evaluate(() => !document.querySelector('.cs-host [data-early]') && !!document.querySelector('.cs-host textarea.cs-composer__input')),
  { timeout: 30_000, message: 'the hydrated chat to take its frame over' },
);

before(async () => {
  app = await startApp();
  browser = await openBrowser();
});

after(async () => {
  await browser?.close();
  app?.close();
});

test("the server's first HTML already holds the chat's frame and composer, styled", async () => {
  const cookie = await signIn('ada', 'lovelace');
  // Without Leptos's hydration markers (`<!>`).
  const page = await fetch(app.url, { headers: { cookie } });
  const html = (await page.text()).replaceAll('<!>', '');
  // Its one inline script (Leptos's hydration) runs by this response's nonce, nothing else.
  const nonce = /<script type="module" nonce="([^"]+)">/.exec(html)?.[1];
  assert.ok(nonce, 'a nonce on the hydration script');
  assert.match(page.headers.get('content-security-policy'), new RegExp(`script-src 'self' 'nonce-${nonce}' 'wasm-unsafe-eval'; style-src 'self';`));
  assert.match(html, /<link rel="stylesheet" href="\/chat-shell.css">/);
  assert.match(html, /<div class="cs-host"><div data-early="" class="cs-root">/);
  assert.match(html, /<textarea rows="1" aria-label="Message" placeholder="Message the assistant" class="cs-composer__input"><\/textarea>/);
  assert.match(html, /Ask the workspace assistant/);
  assert.match(html, /Signed in as <strong data-testid="user">ada<\/strong>/);
  const css = await fetch(`${app.url}/chat-shell.css`);
  assert.equal(css.headers.get('content-type'), 'text/css; charset=utf-8');
  assert.match(await css.text(), /\.cs-host/);
  // Signed out, the page is the login.
  const anonymous = await fetch(app.url, { redirect: 'manual' });
  assert.equal(anonymous.status, 303);
  assert.equal(anonymous.headers.get('location'), '/login');
});

test('typed before the wasm arrives, kept after hydration; an answer streams and the Rust client tool answers', async () => {
  const page = await newPage(browser, 'about:blank');
  const warnings = [];
  page.on('console', (msg) => { if (msg.type() === 'warning') warnings.push(msg.text()); });
  // Hold the browser build back until something is typed in the server's composer.
  let release;
  const held = new Promise((resolve) => { release = resolve; });
  await page.route('**/pkg/chat_shell_fullstack_bg.wasm', async (route) => { await held; await route.continue(); });
  await signInPage(page, 'ada', 'lovelace');

  const box = page.locator('.cs-host [data-early] textarea');
  const before = await page.locator('.cs-host .cs-dock').boundingBox();
  await box.click();
  await page.keyboard.type('draft typed before the wasm');
  release();
  await live(page);
  assert.equal(await composer(page).inputValue(), 'draft typed before the wasm');
  assert.ok(await composer(page).evaluate((t) => t === document.activeElement), 'the focus stays in the composer');
  const after = await page.locator('.cs-host .cs-dock').boundingBox();
  assert.deepEqual(after, before, 'the composer did not move when the live chat took over');

  await composer(page).fill('hello from the full-stack app');
  await composer(page).press('Enter');
  await page.locator('article[data-role="assistant"][data-status="done"]').first().waitFor({ timeout: 20_000 });
  assert.ok((await page.locator('article[data-role="assistant"] table').count()) >= 1, 'markdown rendered');

  await composer(page).fill('clienttool please');
  await composer(page).press('Enter');
  const answer = page.locator('article[data-role="assistant"]', { hasText: /"answeredBy":\s*"rust"/ });
  await answer.waitFor({ timeout: 20_000 });
  assert.match(await answer.textContent(), /"app":\s*"fullstack"/);

  assert.deepEqual(page.consoleErrors, []);
  assert.deepEqual(warnings.filter((w) => /hydrat|mismatch/i.test(w)), [], 'no hydration warning');
  await page.close();
});

test('users signed in through the app see only their own threads', async () => {
  const ada = await signIn('ada', 'lovelace');
  const grace = await signIn('grace', 'hopper');
  const list = async (cookie) => (await (await chatkit(cookie, { type: 'threads.list', params: { limit: 50 } })).json()).data;
  const adas = await list(ada);
  assert.ok(adas.length >= 1, `ada's threads from the test before: ${JSON.stringify(adas)}`);
  assert.deepEqual(await list(grace), []);
  const foreign = await chatkit(grace, { type: 'threads.get_by_id', params: { thread_id: adas[0].id } });
  assert.equal(foreign.status, 404);

  // And through the page: grace's history is empty.
  const page = await newPage(browser, 'about:blank');
  await signInPage(page, 'grace', 'hopper');
  await live(page);
  await page.getByRole('button', { name: 'History', exact: true }).click();
  await page.getByRole('region', { name: 'History' }).getByText('No conversations yet').waitFor({ timeout: 10_000 });
  assert.deepEqual(page.consoleErrors, []);
  await page.close();
});

test('the nested runtime refuses the signed-out and a foreign Origin', async () => {
  const ada = await signIn('ada', 'lovelace');
  assert.equal((await chatkit(null, { type: 'threads.list', params: {} })).status, 401);
  const foreign = await chatkit(ada, { type: 'threads.list', params: {} }, { origin: 'https://evil.example' });
  assert.equal(foreign.status, 403);
  const own = await chatkit(ada, { type: 'threads.list', params: {} }, { origin: app.url });
  assert.equal(own.status, 200);
});

/** Every element of the early frame under `root`, as its path of tags, classes, parts and
 *  attribute names (a set: the starter prompts' count may differ). */
const FRAME_SHAPE = (root) => {
  const frame = root.querySelector('[data-early]');
  const shapes = new Set();
  const walk = (el, path) => {
    const kept = ['class', 'part', 'data-part', 'role', 'type', 'rows', 'inert', 'hidden', 'disabled', 'aria-hidden', 'viewBox']
      .filter((name) => el.hasAttribute(name))
      .map((name) => (['class', 'part', 'data-part', 'role', 'type'].includes(name) ? `${name}=${el.getAttribute(name)}` : name));
    const here = `${path}>${el.tagName.toLowerCase()}[${kept.join(' ')}]`;
    shapes.add(here);
    for (const child of el.children) walk(child, here);
  };
  walk(frame, '');
  return [...shapes].sort();
};

test("the server's early frame is the element's: the same elements, classes and parts", async () => {
  // The element's, drawn by src/chat-shell.js with its wasm held back.
  const runtime = await startRuntime();
  const page = await newPage(browser, 'about:blank');
  await page.route(`**/${distName('chat-shell.pack')}`, () => {});
  await page.route(`**/${distName('chat-shell_bg.wasm')}`, () => {});
  await page.goto(runtime.url);
  await waitFor(() => page.evaluate(() => !!document.querySelector('chat-shell')?.shadowRoot?.querySelector('[data-early] textarea')), { message: "the element's early frame" });
  const element = await page.evaluate(`(${FRAME_SHAPE})(document.querySelector('chat-shell').shadowRoot)`);
  await page.close();
  await runtime.close();

  // The server's, in the app's first HTML.
  const cookie = await signIn('grace', 'hopper');
  const html = await (await fetch(app.url, { headers: { cookie } })).text();
  const server = await newPage(browser, 'about:blank');
  await server.setContent(html.replace(/<script[\s\S]*?<\/script>/g, ''));
  const rendered = await server.evaluate(`(${FRAME_SHAPE})(document.querySelector('.cs-host'))`);
  await server.close();
  assert.ok(element.length > 20, `the element's frame: ${element}`);
  assert.deepEqual(rendered, element);
});
