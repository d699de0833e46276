// Figure, not a test: a first visit on a slow connection, from navigation to a composer that
// takes typing, to the element ready, to the first answer; and a returning visit.
//
//   node tests/e2e/bench-first-load.mjs        (E2E_DIST=… for another build)
//
// Chromium is throttled through CDP: 1.6 Mbit/s down and up, 150 ms round trip
// (Network.emulateNetworkConditions) and a CPU four times slower
// (Emulation.setCPUThrottlingRate). Each run opens a fresh page with the cache disabled
// (Network.setCacheDisabled) and starts the clock just before `page.goto`:
//  - typing: the composer (role textbox, name "Message") is enabled: the frame
//    src/chat-shell.js draws before the wasm, or the element's own;
//  - ready: the element has started (its own composer replaced that frame);
//  - "hello" is typed and sent with Enter at once, at typing: then the time the answer's
//    words first show (as plain text until the renderer is there) and the time it shows
//    as rendered markdown (its list items, no `.cs-md__plain` left);
//  - a second fresh page per run sends "widget" and takes the time to the first widget
//    (the showcase card's Confirm button);
//  - the bytes that came over the wire before ready;
//  - then, with the cache on, a returning visit: the wasm bytes it fetched (hashed files
//    are served `immutable`, so none are expected).
//
// BENCH_ENCODINGS (comma-separated, default `runtime`) picks how the page's files travel:
//  - `runtime`: served by the reference runtime itself, as users serve the element
//    (precompressed brotli, cache headers: examples/runtime/src/static_files.rs);
//  - `br`: brotli (quality 11) from a small proxy in this script, which passes every
//    other request (/chatkit, …) to the runtime (Host and Origin rewritten), no-store;
//  - `identity`: uncompressed, from that proxy.
// BENCH_RUNS (default 3) runs per encoding. Prints one line per encoding:
//   bench first load (1.6 Mbit/s, 150 ms RTT, CPU x4, runtime): Tms to typing, Rms to ready, …
// and the single runs on stderr.

import http from 'node:http';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import zlib from 'node:zlib';
import { DIST, close, openBrowser, startRuntime, waitFor } from './harness.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const ENCODINGS = (process.env.BENCH_ENCODINGS ?? 'runtime').split(',');
const NETWORK = { offline: false, latency: 150, downloadThroughput: 1.6e6 / 8, uploadThroughput: 1.6e6 / 8 };
const CPU_RATE = 4;
const TIMEOUT = 120_000;

const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css' };

const runtime = await startRuntime();
const target = new URL(runtime.url);

// The static files, each compressed once.
const compressed = new Map();
async function staticFile(urlPath, encoding) {
  let rel = decodeURIComponent(urlPath.split('?')[0]);
  if (rel.endsWith('/')) rel += 'index.html';
  const file = path.join(DIST, path.normalize(rel));
  if (!file.startsWith(DIST + path.sep)) return null;
  const key = `${encoding}:${file}`;
  if (!compressed.has(key)) {
    let body;
    try {
      body = await readFile(file);
    } catch {
      return null;
    }
    if (encoding === 'br') {
      body = zlib.brotliCompressSync(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length } });
    }
    compressed.set(key, { body, type: TYPES[path.extname(file)] ?? 'application/octet-stream' });
  }
  return compressed.get(key);
}

// Compress every file before the clock runs (quality 11 takes seconds on the wasm).
async function warm(encoding, dir = '') {
  for (const entry of await readdir(path.join(DIST, dir), { withFileTypes: true })) {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) await warm(encoding, rel);
    else await staticFile(`/${rel.split(path.sep).join('/')}`, encoding);
  }
}

let encoding = 'br';
const proxy = http.createServer(async (req, res) => {
  if (req.method === 'GET' && !req.url.startsWith('/chatkit')) {
    const found = await staticFile(req.url, encoding);
    if (found) {
      const headers = { 'content-type': found.type, 'content-length': found.body.length, 'cache-control': 'no-store' };
      if (encoding !== 'identity') headers['content-encoding'] = encoding;
      res.writeHead(200, headers);
      res.end(found.body);
      return;
    }
  }
  const headers = { ...req.headers, host: target.host };
  if (headers.origin) headers.origin = target.origin;
  if (headers.referer) headers.referer = target.origin + new URL(headers.referer).pathname;
  const upstream = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers }, (up) => {
    res.writeHead(up.statusCode, up.headers);
    up.pipe(res);
  });
  upstream.on('error', (err) => res.destroy(err));
  req.pipe(upstream);
});
await new Promise((resolve) => proxy.listen(0, '127.0.0.1', resolve));
const proxied = `http://127.0.0.1:${proxy.address().port}/`;
const urlFor = (enc) => (enc === 'runtime' ? `${runtime.url}/` : proxied);

const context = await openBrowser();

const throttle = async (page, cacheDisabled) => {
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled });
  await cdp.send('Network.emulateNetworkConditions', NETWORK);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: CPU_RATE });
  return cdp;
};

const ready = (page) => page.evaluate(() => {
  const root = document.querySelector('chat-shell')?.shadowRoot;
  return !!customElements.get('chat-shell') && !!root?.querySelector('.cs-root:not([data-early]) textarea');
});

/**
 * Opens a fresh throttled page at `url`, times navigation to a composer that takes typing,
 * types and sends `message` at once, times the element ready, then (from navigation) until
 * `done(page)` holds, and until `early(page)` first holds (checked on the way).
 */
async function firstLoad(url, message, done, early = null) {
  const page = await context.newPage();
  const cdp = await throttle(page, true);
  // Bytes as they come, not as each response ends: the pack (scripts/pack.mjs) is still
  // arriving when the element is ready, and what came of it by then counts.
  let bytes = 0;
  cdp.on('Network.dataReceived', (e) => (bytes += e.encodedDataLength));
  const errors = [];
  page.on('pageerror', (err) => errors.push(err.message));

  const composer = page.getByRole('textbox', { name: 'Message' });
  const started = performance.now();
  await page.goto(url, { waitUntil: 'commit', timeout: TIMEOUT });
  await waitFor(() => composer.isEnabled({ timeout: 250 }).catch(() => false), {
    timeout: TIMEOUT,
    interval: 10,
    message: () => `the composer to be enabled (page errors: ${errors.join('; ') || 'none'})`,
  });
  const typing = performance.now() - started;
  await composer.fill(message);
  await composer.press('Enter');
  await waitFor(() => ready(page), { timeout: TIMEOUT, interval: 10, message: 'the element to start' });
  const readyAt = performance.now() - started;
  const before = bytes;
  let earlyAt;
  await waitFor(async () => {
    if (early && earlyAt === undefined && (await early(page))) earlyAt = performance.now() - started;
    return done(page);
  }, { timeout: TIMEOUT, interval: 10, message: () => `the answer to "${message}" to show` });
  const finished = performance.now() - started;
  await cdp.detach();
  await page.close();
  return { typing, ready: readyAt, done: finished, early: earlyAt ?? finished, bytes: before };
}

/** A returning visit (cache on, after one visit filled it): the wasm bytes it fetched. */
async function revisit(url) {
  const page = await context.newPage();
  const cdp = await throttle(page, false);
  const wasm = new Set();
  let bytes = 0;
  cdp.on('Network.responseReceived', (e) => {
    if (/\.(wasm|pack)$/.test(new URL(e.response.url).pathname)) wasm.add(e.requestId);
  });
  cdp.on('Network.dataReceived', (e) => {
    if (wasm.has(e.requestId)) bytes += e.encodedDataLength;
  });
  await page.goto(url, { waitUntil: 'commit', timeout: TIMEOUT });
  await waitFor(() => ready(page), { timeout: TIMEOUT, interval: 10, message: 'the element to start again' });
  await page.waitForTimeout(1000); // the chunks fetched after ready
  await cdp.detach();
  await page.close();
  return bytes;
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

try {
  for (const enc of ENCODINGS) {
    encoding = enc;
    if (enc !== 'runtime') await warm(enc);
    const url = urlFor(enc);
    const typing = [];
    const readies = [];
    const answers = [];
    const words = [];
    const widgets = [];
    let transferred = 0;
    for (let run = 0; run < RUNS; run++) {
      // One fresh page for the first answer, one for the first widget.
      const answer = await firstLoad(url, 'hello', (page) =>
        page
          .locator('article[data-role="assistant"]')
          .evaluateAll((els) => els.some((el) => el.querySelector('li') && !el.querySelector('.cs-md__plain'))),
      (page) =>
        page
          .locator('article[data-role="assistant"]')
          .evaluateAll((els) => els.some((el) => (el.textContent ?? '').trim().length > 0)));
      typing.push(answer.typing);
      readies.push(answer.ready);
      answers.push(answer.done);
      words.push(answer.early);
      // What came over the wire before the element was ready (the initial load).
      transferred = answer.bytes;
      const widget = await firstLoad(url, 'widget', (page) =>
        page.locator('[data-part="widget"] button').evaluateAll((els) => els.some((el) => el.textContent.includes('Confirm'))));
      typing.push(widget.typing);
      readies.push(widget.ready);
      widgets.push(widget.done);
    }
    // The cache is the context's: a visit with the cache on fills it, the next one uses it.
    const warmCache = enc === 'runtime' ? (await revisit(url), await revisit(url)) : null;
    const ms = (xs) => xs.map((t) => t.toFixed(0)).join(', ');
    process.stderr.write(
      `first load ${enc}: typing (ms) ${ms(typing)}; ready ${ms(readies)}; first words ${ms(words)}; first answer ${ms(answers)}; first widget ${ms(widgets)}; ${transferred} bytes over the wire before ready\n`,
    );
    console.log(
      `bench first load (1.6 Mbit/s, 150 ms RTT, CPU x${CPU_RATE}, ${enc}): ${median(typing).toFixed(0)}ms to a composer taking typing, ` +
        `${median(readies).toFixed(0)}ms to ready, ${median(words).toFixed(0)}ms to the first answer's words, ` +
        `${median(answers).toFixed(0)}ms to a rendered first answer, ${median(widgets).toFixed(0)}ms to a first widget ` +
        `(median of ${RUNS}, typing and ready of ${typing.length}; ${(transferred / 1000).toFixed(0)} kB over the wire before ready` +
        `${warmCache === null ? '' : `; a warm-cache revisit fetched ${warmCache} bytes of wasm`})`,
    );
  }
} finally {
  await context.close();
  proxy.closeAllConnections();
  await new Promise((resolve) => proxy.close(resolve));
  await close();
}
