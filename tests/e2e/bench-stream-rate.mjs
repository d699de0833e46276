// Figures, not a test (issues 11 and 35): the cost of streaming the `long` answer (2,000 text deltas,
// ~100 kB of markdown) into <chat-shell> at a set event rate and all at once, next to a floor
// page that shows the same stream as plain text nodes; and the composer's input latency
// while an answer streams.
//
//   node tests/e2e/bench-stream-rate.mjs        (after trunk build --release and
//                                                cargo build -p chat-shell-runtime)
//   BENCH_RUNS=5 ...           interleaved runs of each variant and mode (default 3)
//   BENCH_RATE=100 ...         another event rate (default 200 events/s)
//   BENCH_INPUT_RUNS=0 ...     no input-latency runs (default 1 per chat-shell variant)
//   BENCH_INPUT_FLOOR=1 ...    input latency of the floor page too
//   BENCH_FLOOR_TEXT=1 ...     one more variant, "floor text": the floor as one ever-growing
//                              block of text (which the browser lays out again whole every
//                              frame, so it is slower than the real floor and flatters ratios)
//   BENCH_FLOOR_FOLLOW=1 ...   one more variant, "floor follow": the floor that also keeps its
//                              end in view, as a chat does (scrolled once a frame), so the
//                              cost of following the answer can be told from the rest
//   BENCH_VERBOSE=1 ...        every run's figures on stderr
//   BENCH_PROFILE=1 ...        also a CPU profile of each chat-shell run, printed (names:
//                              E2E_DIST of a build whose wasm keeps them)
//   BENCH_DETAIL=1 ...         also trace devtools.timeline and print, per run, where the main
//                              thread's time goes (inclusive ms by trace event; adds overhead)
//
// Prints tables of medians, the ratios to the floor, and the goals next to the
// figures (about 3 minutes). Never fails on a figure: exit status 1 only when the page breaks
// (an answer never completes or misses deltas; the tables then say "broken" and why) or the
// benchmark cannot run. The throttled-network variant is tests/e2e/bench-long.mjs.
//
// Set-up.
// * The runtime (target/debug/chat-shell-runtime --pace-ms 0, the page from dist/) makes the
//   answers. The browser talks to a small pacing server in this process that passes every
//   request through to the runtime and re-times the SSE answers: it splits the runtime's body
//   into events and writes ONE event per res.write, event i at t0 + i/RATE (an absolute
//   schedule, so timer jitter does not lower the rate; a late timer writes the overdue events
//   one write each). In mode "once" it waits for the whole body and writes it in one write.
//   (The runtime's own --pace-ms sleeps between events, which drifts below the rate.)
// * Variants, in one browser: "chat-shell" (dist/index.html), "chat-shell RM" (the same under
//   page.emulateMedia({ reducedMotion: 'reduce' }): no typewriter) and "floor"
//   (tests/e2e/bench-stream-floor.html?blocks: the same request, SSE parsed with one
//   JSON.parse per event, one text node appended per delta to the current block and a new
//   block element after each blank line, no markdown). Runs are interleaved (run 1 of
//   every mode and variant, then run 2, ...), each in a fresh page with fresh cookies (a new
//   user: an empty history).
//
// Figures of one run, over its span: from the start of the main-thread task that read the
// answer's first bytes to the end, the end of the task that rendered the frame after the last
// DOM change (a MutationObserver that only stores the time; the page waits until the answer
// is complete and nothing changed for 400 ms).
// * busy: main-thread busy ms in the span, from a Chrome trace (CDP Tracing, categories
//   toplevel and blink.user_timing): the union of the top-level events of the renderer main
//   thread (thread_name CrRendererMain in the page's process): ThreadControllerImpl::RunTask,
//   and the microtask checkpoints and mojo watchers that run beside the tasks, not inside
//   them (promise reactions, hence most stream handling, run in those checkpoints). The trace
//   clock is tied to the page clock by a performance.mark() made before sending.
//   busy % = busy / span.
// * cpu: the same events' thread time (tdur; an event cut by a window counts pro rata). Wall
//   time counts the moments the OS gave the CPU to another process; on this 2-core machine,
//   shared with builds, that is often a third of "busy". The cpu table repeats the figures
//   in thread time, to compare runs made under different load. The goals are judged on busy
//   (wall) time, the cpu figure shown beside in [brackets].
// * fps: frames per second over the span, counted by an in-page requestAnimationFrame loop
//   (on the unwrapped rAF): the frames in which the main thread got to run rAF callbacks.
// * rAF/s: the page's own requestAnimationFrame callbacks that ran, per second of the span (an
//   init script wraps window.requestAnimationFrame and counts them).
// * longest, >50ms: the longest task in the span and the number over 50 ms; a task being a
//   RunTask with the microtask checkpoint right after it (as the Long Tasks API counts).
// * ms/100 first, last, last/first (paced mode): an init script wraps fetch and counts the
//   text deltas in each chunk of the /chatkit answer as the page reads it (as in
//   bench-long.mjs). "first 10 %" runs from the read before the first delta to the read that
//   brings the 200th, "last 10 %" from the read before the 1,800th to the read of the 2,000th;
//   busy ms in a window / deltas in it * 100. "tail": how long after the last delta was read
//   the page kept rendering (the typewriter draining).
// * all at once: busy and cpu (all the main-thread time the answer took), x floor, longest,
//   >50ms, and "shown ms": the span.
// * input latency (its own runs, paced mode): while the answer streams, a key is pressed in the
//   composer every 100 ms (page.keyboard.press). Event Timing (a PerformanceObserver of type
//   'event', durationThreshold 16) gives keydown -> next paint for each key that took 16 ms or
//   more (8 ms granularity); a key without an entry took less. p50/p95/max over all keys
//   ("<16": the percentile falls among those). BENCH_VERBOSE also prints an in-page
//   cross-check: keydown's timeStamp to a task posted from the first animation frame after
//   the input event.
// Medians over the runs; "x floor" divides chat-shell's median by the floor's. The machine's
// load shows in every figure (busy time is wall time on the main thread): compare runs made
// on a quiet machine.

import http from 'node:http';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { close, openBrowser, sendMessage, startRuntime, waitFor } from './harness.mjs';
import { busyIn, cpuIn, mainThread, printProfile, readTrace, startTrace } from './trace.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const FLOOR_PAGE = path.join(HERE, 'bench-stream-floor.html');
const FLOOR_URL = '/__bench/floor.html';

const DELTAS = 2000;
const RATE = Number(process.env.BENCH_RATE ?? 200);
const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 3));
const INPUT_RUNS = Math.max(0, Number(process.env.BENCH_INPUT_RUNS ?? 1));
const DETAIL = process.env.BENCH_DETAIL === '1';
const PROFILE = process.env.BENCH_PROFILE === '1';
const SETTLE_MS = 400;
const STREAM_MS = (DELTAS / RATE) * 1000;
const verbose = process.env.BENCH_VERBOSE === '1' || DETAIL;
const log = (...args) => verbose && console.error(...args);

const VARIANTS = [
  { name: 'chat-shell', shell: true, reduced: false },
  { name: 'chat-shell RM', shell: true, reduced: true },
  { name: 'floor', shell: false, reduced: false, blocks: true },
  // The naive renderer chat front ends start with: marked + DOMPurify over the whole text
  // on every delta, into innerHTML.
  // All at once only: paced, it re-renders 100 kB per delta and falls far behind.
  { name: 'marked+DOMPurify', shell: false, reduced: false, naive: true, modes: ['once'] },
];
if (process.env.BENCH_FLOOR_TEXT === '1') VARIANTS.push({ name: 'floor text', shell: false, reduced: false, blocks: false });
if (process.env.BENCH_FLOOR_FOLLOW === '1') VARIANTS.push({ name: 'floor follow', shell: false, reduced: false, blocks: true, follow: true });
// The floors' keys take < 16 ms (as good as Event Timing can tell): measured on request only.
const INPUT_VARIANTS = VARIANTS.filter((v) => v.shell || (process.env.BENCH_INPUT_FLOOR === '1' && !v.naive));
/** Whether `variant` runs in `mode` ('rate' or 'once'). */
const inMode = (variant, mode) => !variant.modes || variant.modes.includes(mode);
const MODES = ['rate', 'once'];

let pacerServer = null;

/** A run in which the page broke (as opposed to the benchmark failing). */
class Broken extends Error {}

// ---- the pacing server ------------------------------------------------------------------

const HOP_BY_HOP = ['connection', 'keep-alive', 'transfer-encoding', 'content-length'];

/**
 * Listens on a free port; passes every request to the runtime (`upstream`, set once it
 * runs) and re-times SSE answers by `mode` ('rate' or 'once'). Serves the floor page itself.
 */
async function startPacer() {
  const floorHtml = await readFile(FLOOR_PAGE);
  // The naive renderer's libraries (devDependencies), for the floor page's `naive` mode.
  const scripts = {
    '/__bench/marked.js': await readFile(path.join(HERE, '..', '..', 'node_modules/marked/lib/marked.umd.js')),
    '/__bench/purify.js': await readFile(path.join(HERE, '..', '..', 'node_modules/dompurify/dist/purify.min.js')),
  };
  const pacer = { mode: 'rate', upstream: null, streams: [], server: null, port: 0 };
  pacer.server = http.createServer({ noDelay: true }, (req, res) => {
    const at = req.url.split('?')[0];
    if (at === FLOOR_URL) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.end(floorHtml);
      return;
    }
    if (scripts[at]) {
      res.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'no-store' });
      res.end(scripts[at]);
      return;
    }
    const up = http.request(
      { host: '127.0.0.1', port: pacer.upstream, method: req.method, path: req.url, headers: req.headers },
      (upRes) => {
        if (!(upRes.headers['content-type'] ?? '').startsWith('text/event-stream')) {
          res.writeHead(upRes.statusCode, upRes.headers);
          upRes.pipe(res);
          return;
        }
        const headers = { ...upRes.headers };
        for (const h of HOP_BY_HOP) delete headers[h];
        res.writeHead(upRes.statusCode, headers);
        res.flushHeaders();
        replay(upRes, res, pacer.mode, pacer.streams);
      },
    );
    up.on('error', (err) => {
      if (!res.headersSent) res.writeHead(502);
      res.end(String(err));
    });
    req.pipe(up);
  });
  await new Promise((resolve) => pacer.server.listen(0, '127.0.0.1', resolve));
  pacer.port = pacer.server.address().port;
  return pacer;
}

/** Writes the SSE events of `upRes` to `res`: one event per write at RATE/s, or all at once. */
function replay(upRes, res, mode, streams) {
  const record = { mode, writes: [] };
  streams.push(record);
  const queue = [];
  const interval = 1000 / RATE;
  let carry = '';
  let ended = false;
  let closed = false;
  let t0 = null;
  let sent = 0;
  let timer = null;
  res.on('close', () => {
    closed = true;
    clearTimeout(timer);
    upRes.destroy();
  });
  const pump = () => {
    timer = null;
    if (closed) return;
    const now = performance.now();
    t0 ??= now;
    while (queue.length > 0 && t0 + sent * interval <= now + 0.25) {
      res.write(queue.shift());
      record.writes.push(performance.now());
      sent += 1;
    }
    if (queue.length > 0) timer = setTimeout(pump, Math.max(0, t0 + sent * interval - performance.now()));
    else if (ended) res.end();
  };
  upRes.setEncoding('utf8');
  upRes.on('data', (text) => {
    carry += text;
    let end;
    while ((end = carry.indexOf('\n\n')) >= 0) {
      queue.push(carry.slice(0, end + 2));
      carry = carry.slice(end + 2);
    }
    if (mode === 'rate' && timer === null) pump();
  });
  upRes.on('end', () => {
    ended = true;
    if (carry) queue.push(carry);
    if (closed) return;
    if (mode === 'once') {
      res.end(queue.join(''));
      record.writes.push(performance.now());
    } else if (timer === null) {
      pump();
    }
  });
}

// ---- the page -----------------------------------------------------------------------------

/** Init script of every page: counts the page's rAF callbacks and the deltas of /chatkit answers as read. */
function instrument() {
  const realRaf = window.requestAnimationFrame.bind(window);
  const bench = (window.__bench = {
    arrivals: [], // [performance.now(), deltas so far] per chunk of the answer read by the page
    rafTimes: [], // when each of the page's own rAF callbacks ran
    frames: [], // the frame sampler's frames
    lastChange: 0,
    sampling: false,
    realRaf,
  });
  window.requestAnimationFrame = (callback) =>
    realRaf((t) => {
      bench.rafTimes.push(performance.now());
      callback(t);
    });

  const realFetch = window.fetch;
  window.fetch = async (...args) => {
    const response = await realFetch(...args);
    const url = String(args[0]?.url ?? args[0]);
    const type = response.headers.get('content-type') ?? '';
    if (!url.endsWith('/chatkit') || !type.startsWith('text/event-stream') || !response.body) return response;
    const decoder = new TextDecoder();
    const needle = 'content_part.text_delta';
    let total = 0;
    let carry = '';
    const counter = new TransformStream({
      transform(chunk, controller) {
        const text = carry + decoder.decode(chunk, { stream: true });
        let i = 0;
        for (;;) {
          const at = text.indexOf(needle, i);
          if (at < 0) break;
          total += 1;
          i = at + needle.length;
        }
        carry = text.slice(Math.max(i, text.length - needle.length));
        bench.arrivals.push([performance.now(), total]);
        controller.enqueue(chunk);
      },
    });
    return new Response(response.body.pipeThrough(counter), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/** A fresh page of `variant`, instrumented, its answer area observed and frames sampled. */
async function openVariant(context, pacer, variant) {
  await context.clearCookies();
  const page = await context.newPage();
  page.consoleErrors = [];
  page.on('pageerror', (err) => page.consoleErrors.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => msg.type() === 'error' && page.consoleErrors.push(`console.error: ${msg.text()}`));
  if (variant.reduced) await page.emulateMedia({ reducedMotion: 'reduce' });
  const base = `http://127.0.0.1:${pacer.port}`;
  const query = variant.naive ? '?naive' : `${variant.blocks ? '?blocks' : ''}${variant.follow ? '&follow' : ''}`;
  const url = variant.shell ? `${base}/` : `${base}${FLOOR_URL}${query}`;
  await page.goto(url, { waitUntil: 'load' });
  if (variant.shell) {
    await waitFor(
      () => page.evaluate(() => !!document.querySelector('chat-shell')?.shadowRoot?.querySelector('.cs-root:not([data-early]) textarea')),
      { timeout: 15_000, message: 'the <chat-shell> composer to be mounted' },
    );
  }
  await page.evaluate((shell) => {
    const bench = window.__bench;
    const target = shell ? document.querySelector('chat-shell').shadowRoot : document.getElementById('out');
    new MutationObserver(() => {
      bench.lastChange = performance.now();
    }).observe(target, { subtree: true, childList: true, characterData: true, attributes: true });
    bench.sampling = true;
    const frame = () => {
      if (!bench.sampling) return;
      bench.frames.push(performance.now());
      bench.realRaf(frame);
    };
    bench.realRaf(frame);
  }, variant.shell);
  return page;
}

/** Sends "long" (chat-shell: through the composer; floor: its __start). */
async function send(page, variant) {
  if (variant.shell) await sendMessage(page, 'long');
  else await page.evaluate(() => void window.__start('long'));
}

/** The answer's state: complete (the page says so), deltas read, characters shown. */
function answerState(page, variant) {
  return page.evaluate((shell) => {
    const deltas = window.__bench.arrivals.at(-1)?.[1] ?? 0;
    if (!shell) return { done: window.__floor.done, deltas, status: '', shown: document.getElementById('out').textContent.length };
    const a = document.querySelector('chat-shell').shadowRoot.querySelector('article[data-role="assistant"]');
    return {
      done: !!a && a.getAttribute('aria-busy') === 'false' && a.getAttribute('data-status') === 'done',
      deltas,
      status: a?.getAttribute('data-status') ?? 'no answer',
      shown: a?.textContent.length ?? 0,
    };
  }, variant.shell);
}

/** Waits for the answer to complete (else Broken), then until its DOM has not changed for SETTLE_MS. */
async function waitSettled(page, variant, timeout) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const state = await answerState(page, variant);
    if (state.done) break;
    if (Date.now() > deadline) {
      throw new Broken(
        `the answer did not complete within ${timeout / 1000} s: ${state.deltas} of ${DELTAS} deltas read, ` +
          `status "${state.status}", ${state.shown} characters shown` +
          (page.consoleErrors.length ? `; ${page.consoleErrors.join('; ')}` : ''),
      );
    }
    await page.waitForTimeout(100);
  }
  await waitFor(
    () => page.evaluate((settle) => performance.now() - window.__bench.lastChange >= settle, SETTLE_MS),
    { timeout: 30_000, interval: 50, message: `the ${variant.name} page to settle` },
  );
}

const countIn = (times, from, to) => times.reduce((n, t) => n + (t >= from && t <= to ? 1 : 0), 0);

// ---- one run --------------------------------------------------------------------------------

/** Streams the answer once into a fresh page of `variant`; returns its figures. */
async function measure(context, pacer, variant, mode) {
  const began = Date.now();
  pacer.mode = mode;
  const page = await openVariant(context, pacer, variant);
  let events;
  let bench;
  let sentAt;
  try {
    const cdp = await context.newCDPSession(page);
    const { complete } = await startTrace(cdp, { detail: DETAIL });
    const profiling = PROFILE && variant.shell;
    if (profiling) {
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
      await cdp.send('Profiler.start');
    }
    sentAt = await page.evaluate(() => {
      performance.mark('bench-send');
      return performance.getEntriesByName('bench-send')[0].startTime;
    });
    await send(page, variant);
    try {
      await waitSettled(page, variant, mode === 'rate' ? STREAM_MS + 15_000 : 10_000);
    } finally {
      bench = await page.evaluate(() => {
        const b = window.__bench;
        b.sampling = false;
        return { arrivals: b.arrivals, rafTimes: b.rafTimes, frames: b.frames, lastChange: b.lastChange };
      });
      if (profiling) {
        log(`${mode} ${variant.name}: CPU profile`);
        printProfile((await cdp.send('Profiler.stop')).profile);
      }
      events = await readTrace(cdp, complete);
      await cdp.detach();
    }
  } finally {
    await page.close();
  }

  const { busy, outer, tasks, own, toPage } = mainThread(events, 'bench-send', sentAt);
  const { arrivals } = bench;
  const total = arrivals.at(-1)?.[1] ?? 0;
  if (total !== DELTAS) throw new Broken(`the page read ${total} deltas, not ${DELTAS}`);
  // From the start of the task that read the answer's first bytes.
  const firstRead = arrivals[0][0];
  const start = tasks.find(([s, e]) => s <= firstRead && firstRead <= e)?.[0] ?? firstRead;
  const lastRead = arrivals.at(-1)[0];
  // The end: the last DOM change painted, i.e. the end of the task that runs the first
  // frame after it (its style, layout and paint).
  const lastChange = Math.max(bench.lastChange, lastRead);
  const nextFrame = bench.frames.find((t) => t >= lastChange);
  const frameTask = nextFrame === undefined ? null : tasks.find(([, e]) => e >= nextFrame);
  const end = Math.max(lastChange, frameTask?.[1] ?? lastChange);
  const span = end - start;
  const durations = tasks.filter(([s, e]) => e > start && s < end).map(([s, e]) => e - s);
  const r = {
    busy: busyIn(busy, start, end),
    cpu: cpuIn(outer, start, end),
    span,
    longest: Math.max(0, ...durations),
    over50: durations.filter((d) => d > 50).length,
    fps: (countIn(bench.frames, start, end) / span) * 1000,
    rafPerSec: (countIn(bench.rafTimes, start, end) / span) * 1000,
  };
  r.busyPct = (r.busy / span) * 100;
  r.cpuPct = (r.cpu / span) * 100;
  if (mode === 'rate') {
    const reached = (n) => arrivals.findIndex(([, d]) => d >= n);
    const before = (i) => arrivals[Math.max(0, i - 1)];
    const iFirst = reached(1);
    const i10 = reached(DELTAS * 0.1);
    const i90 = reached(DELTAS * 0.9);
    const firstFrom = before(iFirst);
    const firstDeltas = arrivals[i10][1] - (iFirst === 0 ? 0 : firstFrom[1]);
    const lastFrom = before(i90);
    const firstTo = arrivals[i10][0];
    const lastDeltas = DELTAS - lastFrom[1];
    r.first10 = (busyIn(busy, firstFrom[0], firstTo) / firstDeltas) * 100;
    r.last10 = (busyIn(busy, lastFrom[0], lastRead) / lastDeltas) * 100;
    r.flat = r.last10 / r.first10;
    r.cpuFirst10 = (cpuIn(outer, firstFrom[0], firstTo) / firstDeltas) * 100;
    r.cpuLast10 = (cpuIn(outer, lastFrom[0], lastRead) / lastDeltas) * 100;
    r.cpuFlat = r.cpuLast10 / r.cpuFirst10;
    r.tail = end - lastRead;
    const w = pacer.streams.at(-1).writes;
    r.serverRate = ((w.length - 1) / (w.at(-1) - w[0])) * 1000;
    r.reads = arrivals.length;
  }
  log(`${mode} ${variant.name} (${((Date.now() - began) / 1000).toFixed(1)} s): ${Object.entries(r).map(([k, v]) => `${k} ${v.toFixed(1)}`).join(' ')}`);
  if (DETAIL) {
    const byName = new Map();
    for (const e of own) {
      const t = toPage(e.ts);
      if (t < start || t > end) continue;
      const key = e.args?.data?.functionName ? `${e.name}(${e.args.data.functionName})` : e.name;
      byName.set(key, (byName.get(key) ?? 0) + e.dur / 1000);
    }
    const top = [...byName].sort((a, b) => b[1] - a[1]).slice(0, 16);
    log(`  main thread by trace event (inclusive ms): ${top.map(([n, ms]) => `${n} ${ms.toFixed(0)}`).join(', ')}`);
  }
  return r;
}

/** Streams the answer at RATE/s while a key is pressed in the composer every 100 ms. */
async function measureInput(context, pacer, variant) {
  pacer.mode = 'rate';
  const page = await openVariant(context, pacer, variant);
  try {
    await page.evaluate(() => {
      const keys = (window.__keys = { entries: [], downs: 0, own: [] });
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) if (e.name === 'keydown') keys.entries.push(e.duration);
      }).observe({ type: 'event', durationThreshold: 16, buffered: true });
      let pending = null;
      addEventListener('keydown', (e) => {
        keys.downs += 1;
        pending = e.timeStamp;
      }, true);
      addEventListener('input', () => {
        if (pending === null) return;
        const t0 = pending;
        pending = null;
        window.__bench.realRaf(() => {
          const channel = new MessageChannel();
          channel.port1.onmessage = () => keys.own.push(performance.now() - t0);
          channel.port2.postMessage(null);
        });
      }, true);
    });
    await send(page, variant);
    // Typing starts once the deltas flow and stops when the answer is complete.
    await waitFor(async () => (await answerState(page, variant)).deltas >= 20, {
      timeout: 15_000,
      message: 'the first deltas',
    });
    await page.getByRole('textbox', { name: 'Message' }).focus();
    const text = 'the quick brown fox jumps over the lazy dog ';
    const deadline = Date.now() + STREAM_MS + 20_000;
    let typed = 0;
    for (;;) {
      const state = await answerState(page, variant);
      if (state.done) break;
      if (Date.now() > deadline) {
        throw new Broken(`the answer did not complete while typing: ${state.deltas} deltas read, status "${state.status}"`);
      }
      const c = text[typed % text.length];
      await page.keyboard.press(c === ' ' ? 'Space' : c);
      typed += 1;
      await page.waitForTimeout(100);
    }
    await page.waitForTimeout(300);
    const keys = await page.evaluate(() => window.__keys);
    log(
      `input ${variant.name}: ${keys.downs} keys; Event Timing >= 16 ms: ${keys.entries.join(' ')}; ` +
        `in-page keydown -> frame after the input p50 ${fmt(percentile(keys.own, 50))} p95 ${fmt(percentile(keys.own, 95))} ms`,
    );
    return keys;
  } finally {
    await page.close();
  }
}

// ---- figures ----------------------------------------------------------------------------------

const median = (xs) => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** The p-th percentile (nearest rank) of `values`. */
const percentile = (values, p) => {
  const s = values.slice().sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] : NaN;
};

const fmt = (x, digits = 1) => (Number.isFinite(x) ? x.toFixed(digits) : '-');

function table(rows, columns) {
  const cells = [columns.map((c) => c.title), ...rows.map((row) => columns.map((c) => c.get(row)))];
  const widths = columns.map((_, i) => Math.max(...cells.map((r) => r[i].length)));
  return cells
    .map((r) => '  ' + r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  '))
    .join('\n');
}

/** Event Timing keydown durations of all keys (keys without an entry took < 16 ms: counted as 0). */
const keyLatencies = (k) => k.entries.concat(Array(Math.max(0, k.downs - k.entries.length)).fill(0));
const fmtKey = (x) => (Number.isNaN(x) ? '-' : x < 16 ? '<16' : fmt(x, 0));

async function main() {
  const pacer = await startPacer();
  pacerServer = pacer.server;
  const runtime = await startRuntime({ paceMs: 0, extraArgs: ['--allowed-host', `127.0.0.1:${pacer.port}`] });
  pacer.upstream = runtime.port;
  const context = await openBrowser();
  await context.addInitScript(instrument);

  // results[mode][variant]: the runs' figures, or `broken`: why the page broke.
  const results = Object.fromEntries(
    MODES.map((m) => [m, Object.fromEntries(VARIANTS.map((v) => [v.name, { runs: [], broken: null }]))]),
  );
  for (let run = 0; run < RUNS; run++) {
    for (const mode of MODES) {
      for (const v of VARIANTS) {
        const slot = results[mode][v.name];
        if (slot.broken || !inMode(v, mode)) continue;
        try {
          slot.runs.push(await measure(context, pacer, v, mode));
        } catch (err) {
          if (!(err instanceof Broken)) throw err;
          slot.broken = err.message;
          log(`${mode} ${v.name}: broken: ${err.message}`);
        }
      }
    }
  }
  const inputs = Object.fromEntries(VARIANTS.map((v) => [v.name, { entries: [], downs: 0, own: [], broken: null }]));
  for (let run = 0; run < INPUT_RUNS; run++) {
    for (const v of INPUT_VARIANTS) {
      const slot = inputs[v.name];
      if (slot.broken) continue;
      try {
        const keys = await measureInput(context, pacer, v);
        slot.entries.push(...keys.entries);
        slot.downs += keys.downs;
        slot.own.push(...keys.own);
      } catch (err) {
        if (!(err instanceof Broken)) throw err;
        slot.broken = err.message;
      }
    }
  }
  await context.close();
  await runtime.close();

  const med = (mode, name, key) => median(results[mode][name].runs.map((r) => r[key]));
  const ratio = (mode, name, key) => med(mode, name, key) / med(mode, 'floor', key);
  const cell = (mode, digits, f) => (v) => (results[mode][v.name].broken && !results[mode][v.name].runs.length ? 'broken' : fmt(f(v), digits));

  const out = [];
  out.push(
    `bench stream rate: the long answer (${DELTAS} deltas, ~100 kB of markdown); medians of ${RUNS} interleaved runs; ` +
      'RM = reduced motion; floor = a text node per delta, a new block per paragraph, no markdown',
  );
  const paced = VARIANTS.filter((v) => inMode(v, 'rate'));
  const serverRate = median(paced.flatMap((v) => results.rate[v.name].runs.map((r) => r.serverRate)));
  const reads = median(paced.flatMap((v) => results.rate[v.name].runs.map((r) => r.reads)));
  out.push(`${RATE} events/s, one event per write (achieved ${fmt(serverRate, 1)}/s; the pages read the answer in ${fmt(reads, 0)} chunks):`);
  out.push(
    table(paced, [
      { title: '', get: (v) => v.name },
      { title: 'busy ms', get: cell('rate', 0, (v) => med('rate', v.name, 'busy')) },
      { title: 'busy %', get: cell('rate', 1, (v) => med('rate', v.name, 'busyPct')) },
      { title: 'x floor', get: cell('rate', 2, (v) => ratio('rate', v.name, 'busy')) },
      { title: 'fps', get: cell('rate', 1, (v) => med('rate', v.name, 'fps')) },
      { title: 'rAF/s', get: cell('rate', 0, (v) => med('rate', v.name, 'rafPerSec')) },
      { title: 'longest ms', get: cell('rate', 1, (v) => med('rate', v.name, 'longest')) },
      { title: '>50ms', get: cell('rate', 0, (v) => med('rate', v.name, 'over50')) },
      { title: 'ms/100 first', get: cell('rate', 1, (v) => med('rate', v.name, 'first10')) },
      { title: 'last', get: cell('rate', 1, (v) => med('rate', v.name, 'last10')) },
      { title: 'last/first', get: cell('rate', 2, (v) => med('rate', v.name, 'flat')) },
      { title: 'tail ms', get: cell('rate', 0, (v) => med('rate', v.name, 'tail')) },
    ]),
  );
  out.push(`the same, main-thread CPU time (thread time of the same trace events: little affected by the machine's load):`);
  out.push(
    table(paced, [
      { title: '', get: (v) => v.name },
      { title: 'cpu ms', get: cell('rate', 0, (v) => med('rate', v.name, 'cpu')) },
      { title: 'cpu %', get: cell('rate', 1, (v) => med('rate', v.name, 'cpuPct')) },
      { title: 'x floor', get: cell('rate', 2, (v) => ratio('rate', v.name, 'cpu')) },
      { title: 'ms/100 first', get: cell('rate', 1, (v) => med('rate', v.name, 'cpuFirst10')) },
      { title: 'last', get: cell('rate', 1, (v) => med('rate', v.name, 'cpuLast10')) },
      { title: 'last/first', get: cell('rate', 2, (v) => med('rate', v.name, 'cpuFlat')) },
    ]),
  );
  out.push('all at once (one write):');
  out.push(
    table(VARIANTS, [
      { title: '', get: (v) => v.name },
      { title: 'busy ms', get: cell('once', 0, (v) => med('once', v.name, 'busy')) },
      { title: 'x floor', get: cell('once', 2, (v) => ratio('once', v.name, 'busy')) },
      { title: 'cpu ms', get: cell('once', 0, (v) => med('once', v.name, 'cpu')) },
      { title: 'x floor', get: cell('once', 2, (v) => ratio('once', v.name, 'cpu')) },
      { title: 'longest ms', get: cell('once', 1, (v) => med('once', v.name, 'longest')) },
      { title: '>50ms', get: cell('once', 0, (v) => med('once', v.name, 'over50')) },
      { title: 'shown ms', get: cell('once', 0, (v) => med('once', v.name, 'span')) },
    ]),
  );
  if (INPUT_RUNS > 0) {
    out.push(`input latency while streaming at ${RATE}/s (a key every 100 ms; keydown -> next paint, ms):`);
    const ik = (f) => (v) => (inputs[v.name].broken ? 'broken' : f(inputs[v.name]));
    out.push(
      table(INPUT_VARIANTS, [
        { title: '', get: (v) => v.name },
        { title: 'keys', get: ik((k) => String(k.downs)) },
        { title: '>=16ms', get: ik((k) => String(k.entries.length)) },
        { title: 'p50', get: ik((k) => fmtKey(percentile(keyLatencies(k), 50))) },
        { title: 'p95', get: ik((k) => fmtKey(percentile(keyLatencies(k), 95))) },
        { title: 'max', get: ik((k) => fmtKey(Math.max(0, ...k.entries))) },
      ]),
    );
  }

  // The goals next to the figures: printed, never asserted.
  const goal = (value, ok) => (Number.isFinite(value) || typeof value === 'string' ? (ok ? 'met' : 'NOT met') : 'n/a');
  out.push('goals (printed, not asserted):');
  for (const name of ['chat-shell', 'chat-shell RM']) {
    if (results.rate[name].broken) continue;
    const busyX = ratio('rate', name, 'busy');
    const fps = med('rate', name, 'fps');
    const longest = med('rate', name, 'longest');
    const flat = med('rate', name, 'flat');
    const tail = med('rate', name, 'tail');
    out.push(
      `  ${RATE}/s ${name}: busy ${fmt(busyX, 2)}x floor [cpu ${fmt(ratio('rate', name, 'cpu'), 2)}x] (<= 1.5 ${goal(busyX, busyX <= 1.5)}), ` +
        `${fmt(fps)} fps (>= 55 ${goal(fps, fps >= 55)}), longest task ${fmt(longest)} ms (<= 16.7 ${goal(longest, longest <= 16.7)}), ` +
        `last/first ${fmt(flat, 2)} [cpu ${fmt(med('rate', name, 'cpuFlat'), 2)}] (<= 1.2 ${goal(flat, flat <= 1.2)}), ` +
        `last byte -> final text ${fmt(tail, 0)} ms (<= 100 ${goal(tail, tail <= 100)})`,
    );
  }
  for (const name of ['chat-shell', 'chat-shell RM']) {
    if (results.once[name].broken) continue;
    const over50 = med('once', name, 'over50');
    const busyX = ratio('once', name, 'busy');
    const longest = med('once', name, 'longest');
    const shown = med('once', name, 'span');
    const naive = results.once['marked+DOMPurify'].broken ? NaN : med('once', 'marked+DOMPurify', 'span');
    out.push(
      `  all at once ${name}: ${fmt(over50, 0)} tasks > 50 ms (none ${goal(over50, over50 === 0)}), ` +
        `longest ${fmt(longest)} ms, busy ${fmt(busyX, 2)}x floor [cpu ${fmt(ratio('once', name, 'cpu'), 2)}x] (<= 4 ${goal(busyX, busyX <= 4)}), ` +
        `final text shown at ${fmt(shown, 0)} ms, marked+DOMPurify's at ${fmt(naive, 0)} ms (no later ${goal(shown - naive, shown <= naive)})`,
    );
  }
  if (INPUT_RUNS > 0) {
    for (const name of ['chat-shell', 'chat-shell RM']) {
      if (inputs[name].broken) continue;
      const p95 = percentile(keyLatencies(inputs[name]), 95);
      out.push(`  input latency ${name}: p95 ${fmtKey(p95)} ms (<= 50 ${goal(p95, p95 <= 50)})`);
    }
  }
  const broken = [
    ...MODES.flatMap((m) => VARIANTS.filter((v) => inMode(v, m) && results[m][v.name].broken).map((v) => `${m === 'rate' ? `${RATE}/s` : 'all at once'} ${v.name}: ${results[m][v.name].broken}`)),
    ...VARIANTS.filter((v) => inputs[v.name].broken).map((v) => `input latency ${v.name}: ${inputs[v.name].broken}`),
  ];
  if (broken.length) {
    out.push('BROKEN (the page failed; no figures for these runs):');
    for (const b of broken) out.push(`  ${b}`);
  }
  console.log(out.join('\n'));
  return broken.length === 0;
}

// Whatever happens, the browser, the runtime and the pacing server go away.
const shutdown = async (code) => {
  await close().catch(() => {});
  process.exit(code);
};
process.once('SIGINT', () => shutdown(130));
process.once('SIGTERM', () => shutdown(143));

try {
  const ok = await main();
  if (!ok) process.exitCode = 1;
} catch (err) {
  console.error(`bench stream rate: could not run: ${err.stack || err}`);
  process.exitCode = 1;
} finally {
  await close().catch(() => {});
  pacerServer?.closeAllConnections();
  pacerServer?.close();
}
