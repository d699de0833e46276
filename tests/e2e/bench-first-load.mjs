// Figure, not a test: time from navigation to a usable composer on a slow connection.
//
//   node tests/e2e/bench-first-load.mjs        (E2E_DIST=… for another build)
//
// Chromium is throttled through CDP: 1.6 Mbit/s down and up, 150 ms round trip
// (Network.emulateNetworkConditions) and a CPU four times slower
// (Emulation.setCPUThrottlingRate). Each run opens a fresh page with the cache disabled
// (Network.setCacheDisabled), starts the clock just before `page.goto` and stops it when
// the composer (role textbox, name "Message") is enabled. It then sends "hello" at once and
// takes two more times: when the answer's words first show (as plain text until the
// renderer is there), and when it shows as rendered markdown (its list items, and
// no `.cs-md__plain` text left waiting for the renderer): the first answer, which must not
// wait for what loads after the composer. A second fresh page per run sends "widget" and
// takes the time to the first widget (the showcase card's Confirm button).
//
// How the bytes travel matters more than anything here. BENCH_ENCODINGS (comma-separated,
// default `br`) picks how the page's files are sent:
//  - `br`: brotli-compressed (quality 11, as scripts/sizes.sh counts them), as a
//    production server or CDN sends them;
//  - `identity`: uncompressed, as the reference runtime's static file server sends them
//    (BENCH_ENCODINGS=br,identity measures both).
// A small proxy in this script serves dist/ that way and passes every other request
// (/chatkit, …) to the runtime unchanged (Host and Origin rewritten to the runtime's own).
// BENCH_RUNS (default 3) runs per encoding. Prints one line per encoding:
//   bench first load (1.6 Mbit/s, 150 ms RTT, CPU x4, br): Xms to usable composer, Tms to the first answer's words, Zms to a rendered first answer, Wms to a first widget (median of N; transferred Y kB)
// and the single runs on stderr.

import http from 'node:http';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import zlib from 'node:zlib';
import { DIST, close, openBrowser, startRuntime, waitFor } from './harness.mjs';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const ENCODINGS = (process.env.BENCH_ENCODINGS ?? 'br').split(',');
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
const url = `http://127.0.0.1:${proxy.address().port}/`;

const context = await openBrowser();

/**
 * Opens a fresh throttled page, times navigation to a usable composer, sends `message` at
 * once and times (from navigation) until `done(page)` holds, and until `early(page)` first
 * holds (checked on the way).
 */
async function firstLoad(message, done, early = null) {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  await cdp.send('Network.emulateNetworkConditions', NETWORK);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: CPU_RATE });
  // Bytes as they come, not as each response ends: the pack (scripts/pack.mjs) is still
  // arriving when the composer is usable, and what came of it by then counts.
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
  const usable = performance.now() - started;
  const before = bytes;
  await composer.fill(message);
  await composer.press('Enter');
  let earlyAt;
  await waitFor(async () => {
    if (early && earlyAt === undefined && (await early(page))) earlyAt = performance.now() - started;
    return done(page);
  }, { timeout: TIMEOUT, interval: 10, message: () => `the answer to "${message}" to show` });
  const finished = performance.now() - started;
  await cdp.detach();
  await page.close();
  return { composer: usable, done: finished, early: earlyAt ?? finished, bytes: before };
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

try {
  for (const enc of ENCODINGS) {
    encoding = enc;
    await warm(enc);
    const times = [];
    const answers = [];
    const words = [];
    let transferred = 0;
    const widgets = [];
    for (let run = 0; run < RUNS; run++) {
      // One fresh page for the first answer, one for the first widget.
      const answer = await firstLoad('hello', (page) =>
        page
          .locator('article[data-role="assistant"]')
          .evaluateAll((els) => els.some((el) => el.querySelector('li') && !el.querySelector('.cs-md__plain'))),
      (page) =>
        page
          .locator('article[data-role="assistant"]')
          .evaluateAll((els) => els.some((el) => (el.textContent ?? '').trim().length > 0)));
      times.push(answer.composer);
      answers.push(answer.done);
      words.push(answer.early);
      // What came over the wire before the composer was usable (the initial load).
      transferred = answer.bytes;
      const widget = await firstLoad('widget', (page) =>
        page.locator('[data-part="widget"] button').evaluateAll((els) => els.some((el) => el.textContent.includes('Confirm'))));
      times.push(widget.composer);
      widgets.push(widget.done);
    }
    process.stderr.write(
      `first load ${enc}: runs (ms) ${times.map((t) => t.toFixed(0)).join(', ')}; first words ${words.map((t) => t.toFixed(0)).join(', ')}; first answer ${answers.map((t) => t.toFixed(0)).join(', ')}; first widget ${widgets.map((t) => t.toFixed(0)).join(', ')}; ${transferred} bytes over the wire\n`,
    );
    console.log(
      `bench first load (1.6 Mbit/s, 150 ms RTT, CPU x${CPU_RATE}, ${enc}): ${median(times).toFixed(0)}ms to usable composer, ${median(words).toFixed(0)}ms to the first answer's words, ` +
        `${median(answers).toFixed(0)}ms to a rendered first answer, ${median(widgets).toFixed(0)}ms to a first widget ` +
        `(median of ${RUNS}, composer of ${times.length}; transferred ${(transferred / 1000).toFixed(0)} kB)`,
    );
  }
} finally {
  await context.close();
  proxy.closeAllConnections();
  await new Promise((resolve) => proxy.close(resolve));
  await close();
}
