// Benchmark (not a test): how the main thread copes with "long fast", the runtime's
// 2,000-delta (~100 kB) markdown answer sent with no gap between deltas.
//
//   node tests/e2e/bench-long.mjs            (after trunk build and cargo build -p chat-shell-runtime)
//   BENCH_VERBOSE=1 node tests/e2e/bench-long.mjs   also prints the windows and samples to stderr
//   BENCH_RUNS=5 BENCH_KBPS=128 node tests/e2e/bench-long.mjs   more runs, a slower network
//
// Prints one line:
//   bench long stream: first10% Xms/100deltas last10% Yms/100deltas ratio Z longest-task Wms
//
// Method.
// * The runtime sends the 2,000 deltas (~640 kB of SSE) with no gap. Over loopback they would
//   reach the page in two or three reads and be rendered in one frame, which measures nothing
//   about streaming; so the page's network is throttled with CDP
//   (Network.emulateNetworkConditions, BENCH_KBPS kB/s, default 256: about 2 s for the
//   answer, a slow but real connection; BENCH_KBPS=0 turns throttling off). The server side
//   stays "fast".
// * Progress through the stream is counted where the component reads it: an init script wraps
//   window.fetch and passes each /chatkit response body through a TransformStream that counts
//   `content_part.text_delta` events per chunk and records (performance.now(), deltas so far)
//   when the component's reader receives the chunk.
// * Main-thread work comes from a Chrome trace (CDP Tracing, categories devtools.timeline,
//   disabled-by-default-devtools.timeline and toplevel, ReturnAsStream): every "RunTask" of
//   the renderer's main thread (CrRendererMain), merged into busy intervals so nested tasks
//   are not counted twice. Page time and trace time are aligned with a performance.mark()
//   made right before sending (its blink.user_timing trace event carries the trace clock).
// * "first 10 %" is the time from the read that brought the first deltas to the read that
//   brought the 200th, "last 10 %" from the read that brought the 1,800th to the read that
//   brought the 2,000th. All main-thread busy time inside a window (tasks clipped to it: SSE
//   parsing, the reducer, the frame-paced markdown rendering and layout) divided by the deltas
//   the window covers / 100 gives ms per 100 deltas; a renderer whose per-frame cost grows
//   with the message length shows up as a ratio well above 1. The longest task is the
//   longest RunTask from sending until the answer is rendered in full.
// * An in-page requestAnimationFrame sampler also records how much text is on screen (a
//   MutationObserver adds up each finished markdown block once, plus the open tail), to
//   report with BENCH_VERBOSE=1 how far rendering lags behind the network.
//
// Exit status 0 whatever the figures; 1 only when the benchmark cannot run.

import { close, newChatPage, openBrowser, sendMessage, startRuntime, waitFor } from './harness.mjs';

const DELTAS = 2000;
const verbose = process.env.BENCH_VERBOSE === '1';
const log = (...args) => verbose && console.error(...args);

async function readStream(cdp, handle) {
  let out = '';
  for (;;) {
    const { data, eof, base64Encoded } = await cdp.send('IO.read', { handle, size: 1 << 20 });
    out += base64Encoded ? Buffer.from(data, 'base64').toString('utf8') : data;
    if (eof) break;
  }
  await cdp.send('IO.close', { handle });
  return out;
}

/** Merges [start, end] intervals (ms) into disjoint ones. */
function merge(intervals) {
  const sorted = intervals.slice().sort((a, b) => a[0] - b[0]);
  const out = [];
  for (const [s, e] of sorted) {
    const last = out[out.length - 1];
    if (last && s <= last[1]) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}

/** Busy ms of merged `intervals` inside [from, to]. */
function busyIn(intervals, from, to) {
  let sum = 0;
  for (const [s, e] of intervals) sum += Math.max(0, Math.min(e, to) - Math.max(s, from));
  return sum;
}

async function setUp() {
  const runtime = await startRuntime({ paceMs: 0 });
  const context = await openBrowser();
  // Counts the text deltas of /chatkit answers as the component reads them.
  await context.addInitScript(() => {
    const arrivals = (window.__arrivals = []);
    const realFetch = window.fetch;
    window.fetch = async (...args) => {
      const response = await realFetch(...args);
      const url = String(args[0]?.url ?? args[0]);
      if (!url.endsWith('/chatkit') || !response.body) return response;
      const decoder = new TextDecoder();
      let total = 0;
      let carry = '';
      const needle = 'content_part.text_delta';
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
          arrivals.push([performance.now(), total, chunk.length]);
          controller.enqueue(chunk);
        },
      });
      return new Response(response.body.pipeThrough(counter), {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
    };
  });
  return { runtime, context };
}

/** One streamed answer in a fresh page; returns its figures. */
async function measureOnce({ runtime, context }) {
  const page = await newChatPage(context, `${runtime.url}/`);

  // The in-page sampler: rendered text length per animation frame.
  await page.evaluate(() => {
    const root = document.querySelector('chat-shell').shadowRoot;
    const state = { committed: 0, samples: [], running: true, observed: null };
    window.__bench = state;
    const counted = new WeakSet();
    const blockObserver = new MutationObserver((records) => {
      for (const r of records) {
        for (const node of r.addedNodes) {
          if (node.nodeType === 1 && node.classList.contains('cs-md__block') && !counted.has(node)) {
            counted.add(node);
            state.committed += node.textContent.length;
          }
        }
      }
    });
    // Attach to the answer's markdown container once it exists.
    const finder = new MutationObserver(() => {
      const md = root.querySelector('article[data-role="assistant"] .cs-md');
      if (md && state.observed !== md) {
        state.observed = md;
        for (const b of md.querySelectorAll(':scope > .cs-md__block')) {
          counted.add(b);
          state.committed += b.textContent.length;
        }
        blockObserver.observe(md, { childList: true });
      }
    });
    finder.observe(root, { childList: true, subtree: true });
    const frame = (t) => {
      if (!state.running) return;
      // The open tail block is the container's last child (blocks are inserted before it):
      // O(1) to find, O(tail) to measure, so the sampler adds no cost that grows with the answer.
      const tail = state.observed?.lastElementChild;
      state.samples.push([t, state.committed + (tail?.classList.contains('cs-md__tail') ? tail.textContent.length : 0)]);
      requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  });

  const cdp = await context.newCDPSession(page);
  const traceDone = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
  await cdp.send('Tracing.start', {
    transferMode: 'ReturnAsStream',
    traceConfig: {
      recordMode: 'recordContinuously',
      includedCategories: [
        'devtools.timeline',
        'disabled-by-default-devtools.timeline',
        'toplevel',
        'blink.user_timing',
      ],
    },
  });

  const kbps = Number(process.env.BENCH_KBPS ?? 256);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: 0,
    downloadThroughput: kbps > 0 ? kbps * 1024 : -1,
    uploadThroughput: -1,
  });

  const sentAt = await page.evaluate(() => {
    performance.mark('bench-send');
    return performance.getEntriesByName('bench-send')[0].startTime;
  });
  await sendMessage(page, 'long fast');
  await waitFor(
    () =>
      page.evaluate(() => {
        const root = document.querySelector('chat-shell').shadowRoot;
        const a = root.querySelector('article[data-role="assistant"]');
        return a && a.getAttribute('aria-busy') === 'false' && a.getAttribute('data-status') === 'done';
      }),
    { timeout: 60_000, interval: 100, message: 'the long answer to finish' },
  );
  // A few more frames so the last reveal is sampled.
  await page.waitForTimeout(300);
  const { samples, finalLength, arrivals } = await page.evaluate(() => {
    const s = window.__bench;
    s.running = false;
    const md = s.observed;
    return { samples: s.samples, finalLength: md ? md.textContent.length : 0, arrivals: window.__arrivals };
  });
  log('reads (t ms, deltas so far):', JSON.stringify(arrivals.map(([t, d]) => [Math.round(t), d])));
  log('on screen (t ms, chars):', JSON.stringify(samples.map(([t, l]) => [Math.round(t), l]).filter((s, i, a) => i === 0 || s[1] !== a[i - 1][1])));

  await cdp.send('Tracing.end');
  const { stream } = await traceDone;
  const trace = JSON.parse(await readStream(cdp, stream));
  const events = Array.isArray(trace) ? trace : trace.traceEvents;

  // The renderer main thread of this page.
  const mark = events.find((e) => e.name === 'bench-send' && e.cat.includes('blink.user_timing'));
  if (!mark) throw new Error('the bench-send mark is not in the trace');
  const mainThread = events.find(
    (e) => e.ph === 'M' && e.name === 'thread_name' && e.pid === mark.pid && e.args?.name === 'CrRendererMain',
  );
  const tid = mainThread?.tid ?? mark.tid;
  // Trace µs -> page ms.
  const toPage = (ts) => (ts - mark.ts) / 1000 + sentAt;
  const tasks = events
    .filter((e) => e.pid === mark.pid && e.tid === tid && e.ph === 'X' && e.name === 'RunTask' && e.dur !== undefined)
    .map((e) => [toPage(e.ts), toPage(e.ts + e.dur)]);
  if (tasks.length === 0) throw new Error('no RunTask events for the renderer main thread in the trace');
  const busy = merge(tasks);
  log('tasks > 8 ms (start ms, duration ms):', JSON.stringify(tasks.filter(([s, e]) => e - s > 8 && e >= sentAt).map(([s, e]) => [Math.round(s), +(e - s).toFixed(1)])));

  // Windows by deltas received.
  const reads = arrivals.filter(([, d]) => d > 0);
  const firstRead = reads[0];
  const reached = (n) => reads.find(([, d]) => d >= n);
  const r10 = reached(DELTAS * 0.1);
  const r90 = reached(DELTAS * 0.9);
  const rAll = reached(DELTAS);
  if (!firstRead || !r10 || !r90 || !rAll) {
    throw new Error(`the answer did not bring ${DELTAS} deltas: ${JSON.stringify(arrivals.slice(-3))}`);
  }
  // A window starts at the read before its first delta (the work on that read's deltas follows it).
  const readBefore = (r) => arrivals[Math.max(0, arrivals.indexOf(r) - 1)];
  const firstFrom = readBefore(firstRead);
  const lastFrom = readBefore(r90);
  const first = { from: firstFrom[0], to: r10[0], deltas: r10[1] - (firstFrom === firstRead ? 0 : firstFrom[1]) };
  const last = { from: lastFrom[0], to: rAll[0], deltas: DELTAS - lastFrom[1] };
  const per100 = (w) => (busyIn(busy, w.from, w.to) / w.deltas) * 100;
  const firstPer100 = per100(first);
  const lastPer100 = per100(last);
  // Fully rendered: the first frame sample showing the final length.
  const rendered = samples.find(([, len]) => len >= finalLength) ?? samples[samples.length - 1];
  const streamTasks = tasks.filter(([s, e]) => e >= sentAt && s <= rendered[0]);
  const longest = Math.max(...streamTasks.map(([s, e]) => e - s));

  log(`final rendered length ${finalLength} chars, ${samples.length} frames sampled, ${tasks.length} main-thread tasks`);
  log(`first window ${first.from.toFixed(1)}-${first.to.toFixed(1)} ms, ${first.deltas.toFixed(0)} deltas, busy ${busyIn(busy, first.from, first.to).toFixed(1)} ms`);
  log(`last window ${last.from.toFixed(1)}-${last.to.toFixed(1)} ms, ${last.deltas.toFixed(0)} deltas, busy ${busyIn(busy, last.from, last.to).toFixed(1)} ms`);
  log(`network ${kbps} kB/s: ${arrivals.length} reads, last delta read ${(rAll[0] - sentAt).toFixed(0)} ms after sending`);
  log(`fully rendered ${(rendered[0] - sentAt).toFixed(0)} ms after sending, main thread busy ${busyIn(busy, sentAt, rendered[0]).toFixed(0)} ms of it`);
  if (verbose) {
    // Where the time goes: total duration by event name on the main thread while streaming
    // (inclusive times: nested events are counted in their parents too).
    const byName = new Map();
    for (const e of events) {
      if (e.pid !== mark.pid || e.tid !== tid || e.ph !== 'X' || e.dur === undefined) continue;
      if (toPage(e.ts) < sentAt || toPage(e.ts) > rendered[0]) continue;
      byName.set(e.name, (byName.get(e.name) ?? 0) + e.dur / 1000);
    }
    const top = [...byName].sort((a, b) => b[1] - a[1]).slice(0, 14);
    const [ls, le] = streamTasks.reduce((a, b) => (b[1] - b[0] > a[1] - a[0] ? b : a));
    const inside = events
      .filter((e) => e.pid === mark.pid && e.tid === tid && e.ph === 'X' && e.dur > 1000 && toPage(e.ts) >= ls && toPage(e.ts + e.dur) <= le + 0.01)
      .map((e) => `${e.name}${e.args?.data?.functionName ? `(${e.args.data.functionName})` : ''} ${(e.dur / 1000).toFixed(1)}`);
    log(`longest task at ${(ls - sentAt).toFixed(0)} ms after sending: ${inside.join(', ')}`);
    log('main thread by event (inclusive ms):', top.map(([n, ms]) => `${n} ${ms.toFixed(0)}`).join(', '));
  }
  if (page.consoleErrors.length) log(`console errors: ${page.consoleErrors.join('\n')}`);

  log(`run: first10% ${firstPer100.toFixed(1)} last10% ${lastPer100.toFixed(1)} ratio ${(lastPer100 / firstPer100).toFixed(2)} longest ${longest.toFixed(1)}`);
  await cdp.detach();
  await page.close();
  return { firstPer100, lastPer100, longest };
}

const median = (xs) => {
  const s = xs.slice().sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function main() {
  // Figures on this 2-core machine vary from run to run: the answer is streamed BENCH_RUNS
  // times (default 3, each in a fresh page); the line gives the medians of the per-100-delta
  // figures, the ratio of those medians, and the longest task of all runs.
  const runs = Math.max(1, Number(process.env.BENCH_RUNS ?? 3));
  const setup = await setUp();
  const results = [];
  for (let i = 0; i < runs; i++) results.push(await measureOnce(setup));
  const first = median(results.map((r) => r.firstPer100));
  const last = median(results.map((r) => r.lastPer100));
  const longest = Math.max(...results.map((r) => r.longest));
  console.log(
    `bench long stream: first10% ${first.toFixed(1)}ms/100deltas last10% ${last.toFixed(1)}ms/100deltas ` +
      `ratio ${(last / first).toFixed(2)} longest-task ${longest.toFixed(1)}ms`,
  );
}

try {
  await main();
} catch (err) {
  console.error(`bench long stream: could not run: ${err.stack || err}`);
  process.exitCode = 1;
} finally {
  await close().catch(() => {});
}
