// Figures, not a test: a 10,000-item thread, opened and scrolled back to its
// first item by wheel.
//
//   node tests/e2e/bench-long-thread.mjs         BENCH_ITEMS=10000 BENCH_WHEEL=1200
//   BENCH_PROFILE=1 ...   also a CPU profile of the scroll (names: E2E_DIST of a build
//                         whose wasm keeps them)
//   BENCH_DETAIL=1 ...    also where the tasks over 50 ms spend their time (trace events)
//   BENCH_OPENS=5 ...     how many times the thread is opened (New chat between): the median
//
// The runtime seeds the thread (`--seed-thread N --seed-mixed`: questions, answers with
// code, agent tool calls with diffs, widgets). The page opens it from History; then Node
// turns the wheel up (BENCH_WHEEL px a turn, as fast as the page takes them) until the
// first item is mounted, while the page records every animation frame, long tasks
// (PerformanceObserver) and the shadow root's element count. The wasm memory is read from
// the instances the page created (an init script keeps each `WebAssembly.Memory`), the JS
// heap after a collection. Prints one line per figure.

import { close, newChatPage, openBrowser, startRuntime } from './harness.mjs';
import { mainThread, printProfile, readTrace, startTrace } from './trace.mjs';

const ITEMS = Number(process.env.BENCH_ITEMS ?? 10000);
const WHEEL = Number(process.env.BENCH_WHEEL ?? 1200);
const LIMIT_MS = 90_000;
const PROFILE = process.env.BENCH_PROFILE === '1';
const DETAIL = process.env.BENCH_DETAIL === '1';
const OPENS = Number(process.env.BENCH_OPENS ?? 5);

const runtime = await startRuntime({ extraArgs: ['--seed-thread', String(ITEMS), '--seed-mixed'] });
const [seeded] = await runtime.waitForLine('seeded thread');
const title = `Seeded thread (${ITEMS} items)`;

// Precise memory info and an exposed gc(): the heap is read after a collection.
const context = await openBrowser({ extraArgs: ['--enable-precise-memory-info', '--js-flags=--expose-gc'] });
await context.addInitScript(() => {
  // Every wasm memory the page instantiates (the element's one, which its chunks share).
  const memories = (globalThis.__wasmMemories = new Set());
  const keep = (result) => {
    const instance = result.instance ?? result;
    for (const value of Object.values(instance.exports ?? {})) {
      if (value instanceof WebAssembly.Memory) memories.add(value);
    }
    return result;
  };
  const instantiate = WebAssembly.instantiate;
  WebAssembly.instantiate = (...args) => instantiate(...args).then(keep);
  const streaming = WebAssembly.instantiateStreaming;
  if (streaming) WebAssembly.instantiateStreaming = (...args) => streaming(...args).then(keep);
});

try {
  const page = await newChatPage(context, `${runtime.url}/`);
  const openOnce = () => page.evaluate(async ({ title, newest }) => {
    const root = document.querySelector('chat-shell').shadowRoot;
    const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
    [...root.querySelectorAll('button')].find((b) => b.getAttribute('aria-label') === 'History' || b.textContent.trim() === 'History').click();
    let row;
    for (let i = 0; i < 600 && !(row = [...root.querySelectorAll('[data-part="history-open"]')].find((b) => b.textContent.trim() === title)); i++) {
      await frame();
    }
    if (!row) throw new Error(`no history row "${title}"`);
    const viewport = root.querySelector('.cs-viewport');
    const started = performance.now();
    row.click();
    for (let i = 0; i < 3000; i++) {
      await frame();
      const answer = [...root.querySelectorAll('article[data-role="assistant"]')].find((a) => a.textContent.includes(newest));
      if (answer) {
        const v = viewport.getBoundingClientRect();
        const r = answer.getBoundingClientRect();
        if (r.height > 0 && r.top < v.bottom && r.bottom > v.top) return performance.now() - started;
      }
    }
    throw new Error('the newest answer never became visible');
  }, { title, newest: `Seeded answer ${Math.floor(ITEMS / 2)}:` });
  // Opened OPENS times (New chat between), the first with the page just loaded: the
  // median is the figure, the first is printed beside it.
  const opens = [];
  for (let i = 0; i < OPENS; i++) {
    if (i > 0) {
      await page.evaluate(async () => {
        const root = document.querySelector('chat-shell').shadowRoot;
        [...root.querySelectorAll('button')].find((b) => b.getAttribute('aria-label') === 'New chat').click();
        for (let n = 0; n < 600 && root.querySelector('article'); n++) await new Promise((r) => requestAnimationFrame(r));
      });
    }
    opens.push(await openOnce());
  }
  const opened = [...opens].sort((a, b) => a - b)[Math.floor(opens.length / 2)];


  // The recorder: frames, long tasks, the largest shadow root.
  await page.evaluate(() => {
    const root = document.querySelector('chat-shell').shadowRoot;
    const r = (globalThis.__scroll = { frames: [], long: [], maxElements: 0, done: false });
    r.longAt = [];
    r.pages = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        r.long.push(e.duration);
        r.longAt.push(e.startTime);
      }
    }).observe({ type: 'longtask' });
    const f = window.fetch;
    window.fetch = async (...args) => {
      const res = await f(...args);
      r.pages.push(performance.now());
      return res;
    };
    let n = 0;
    const tick = (t) => {
      r.frames.push(t);
      if (n++ % 10 === 0) r.maxElements = Math.max(r.maxElements, root.querySelectorAll('*').length);
      if (!r.done) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  const cdp = PROFILE || DETAIL ? await context.newCDPSession(page) : null;
  const trace = DETAIL ? await startTrace(cdp, { detail: true }) : null;
  const markAt = await page.evaluate(() => {
    performance.mark('bench-start');
    return performance.now();
  });
  if (PROFILE) {
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
    await cdp.send('Profiler.start');
  }
  const viewport = page.locator('.cs-viewport');
  await viewport.hover();
  const reachedFirst = () =>
    page.evaluate(() =>
      [...document.querySelector('chat-shell').shadowRoot.querySelectorAll('article')].some((a) => /Seeded question 1\b/.test(a.textContent)),
    );
  const started = Date.now();
  let reached = false;
  let turns = 0;
  while (Date.now() - started < LIMIT_MS) {
    await page.mouse.wheel(0, -WHEEL);
    turns++;
    if (turns % 5 === 0 && (reached = await reachedFirst())) break;
  }
  const elapsed = Date.now() - started;
  const cpu = PROFILE ? (await cdp.send('Profiler.stop')).profile : null;
  if (cpu && !DETAIL) printProfile(cpu);
  if (DETAIL) {
    const main = mainThread(await readTrace(cdp, trace.complete), 'bench-start', markAt);
    if (cpu) {
      // The samples inside the tasks over 50 ms (the profile's clock is the trace's).
      const long = main.tasks.filter(([s, e]) => e - s > 50);
      let at = cpu.startTime;
      const keep = [];
      cpu.samples.forEach((id, i) => {
        at += cpu.timeDeltas[i] ?? 0;
        const t = main.toPage(at);
        if (long.some(([s, e]) => t >= s && t < e)) keep.push(i);
      });
      printProfile({ ...cpu, samples: keep.map((i) => cpu.samples[i]), timeDeltas: keep.map((i) => cpu.timeDeltas[i]) });
    }
    const long = main.tasks.filter(([s, e]) => e - s > 50);
    const by = new Map();
    for (const ev of main.own) {
      const at = main.toPage(ev.ts);
      if (!long.some(([s, e]) => at >= s && at < e)) continue;
      by.set(ev.name, (by.get(ev.name) ?? 0) + ev.dur / 1000);
    }
    const top = [...by].sort((a, b) => b[1] - a[1]).slice(0, 25);
    process.stderr.write(`${long.length} tasks over 50 ms, their events (inclusive ms):\n${top.map(([n, ms]) => `  ${ms.toFixed(0).padStart(6)}  ${n}`).join('\n')}\n`);
  }
  const scroll = await page.evaluate(() => {
    const r = globalThis.__scroll;
    r.done = true;
    const gaps = r.frames.slice(1).map((t, i) => t - r.frames[i]);
    const span = r.frames[r.frames.length - 1] - r.frames[0];
    return {
      fps: ((r.frames.length - 1) / span) * 1000,
      maxGap: Math.max(...gaps),
      over50: r.long.filter((d) => d > 50).length,
      longest: Math.max(0, ...r.long),
      maxElements: r.maxElements,
      // Long tasks starting within 100 ms after a response arrived.
      afterResponse: r.longAt.filter((t) => r.pages.some((p) => t >= p - 5 && t - p < 100)).length,
      responses: r.pages.length,
    };
  });
  const memory = await page.evaluate(async () => {
    globalThis.gc?.();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const wasm = [...globalThis.__wasmMemories].reduce((sum, m) => sum + m.buffer.byteLength, 0);
    return { heap: performance.memory.usedJSHeapSize, wasm };
  });
  const mb = (b) => (b / 1024 / 1024).toFixed(1);
  const lists = runtime.linesMatching(/items\.list/).length;
  process.stderr.write(`${seeded}; ${turns} wheel turns of ${WHEEL}px; ${lists} items.list requests; ${scroll.afterResponse} of the long tasks within 100 ms of one of ${scroll.responses} responses\n`);
  console.log(`bench long thread ${ITEMS} items: open ${opened.toFixed(0)} ms to the newest items on screen (median of ${opens.length}; the first, with the page just loaded: ${opens[0].toFixed(0)} ms)`);
  console.log(
    `bench long thread ${ITEMS} items: newest to first by wheel ${reached ? `${(elapsed / 1000).toFixed(1)} s` : `NOT reached in ${LIMIT_MS / 1000} s`}, ` +
      `${scroll.fps.toFixed(1)} fps, longest frame gap ${scroll.maxGap.toFixed(0)} ms, ${scroll.over50} tasks over 50 ms (longest ${scroll.longest.toFixed(0)} ms)`,
  );
  console.log(
    `bench long thread ${ITEMS} items: at most ${scroll.maxElements} elements in the shadow root; JS heap ${mb(memory.heap)} MB + wasm memory ${mb(memory.wasm)} MB = ${mb(memory.heap + memory.wasm)} MB`,
  );
  await page.close();
} finally {
  await close();
}
