// Figure, not a test: how long opening a 1,000-item thread from History takes until its
// newest items are on screen, and the JS heap afterwards.
//
//   E2E_DIST=target/dist-threads node tests/e2e/bench-open-thread.mjs
//
// The runtime seeds the thread (`--seed-thread 1000`). Each run opens History, clicks the
// thread and polls once per animation frame, in the page, until the newest answer is
// inside the viewport; between runs a new chat empties the conversation. Chromium runs
// with precise memory info and an exposed `gc()`, so the heap is read after a collection.
// Prints one line: `bench open thread 1000 items: Xms to newest visible, heap Y MB`
// (the median of RUNS runs; the first, cold one is reported on its own on stderr).

import { close, newChatPage, openBrowser, startRuntime } from './harness.mjs';

const ITEMS = Number(process.env.BENCH_ITEMS ?? 1000);
const RUNS = Number(process.env.BENCH_RUNS ?? 7);

const runtime = await startRuntime({ extraArgs: ['--seed-thread', String(ITEMS)] });
const [seeded] = await runtime.waitForLine('seeded thread');
const title = `Seeded thread (${ITEMS} items)`;
const newest = `Seeded answer ${Math.floor(ITEMS / 2)}:`;

// Precise memory info and an exposed gc(): the heap is read after a collection.
const context = await openBrowser({ extraArgs: ['--enable-precise-memory-info', '--js-flags=--expose-gc'] });

try {
  const page = await newChatPage(context, `${runtime.url}/`);
  const times = [];
  for (let run = 0; run < RUNS; run++) {
    const ms = await page.evaluate(
      async ({ title, newest }) => {
        const root = document.querySelector('chat-shell').shadowRoot;
        const button = (name) => [...root.querySelectorAll('button')].find((b) => (b.getAttribute('aria-label') || b.textContent.trim()) === name);
        const frame = () => new Promise((resolve) => requestAnimationFrame(resolve));
        button('New chat').click();
        await frame();
        await frame();
        button('History').click();
        let row;
        for (let i = 0; i < 600 && !(row = [...root.querySelectorAll('[data-part="history-open"]')].find((b) => b.textContent.trim() === title)); i++) {
          await frame();
        }
        if (!row) throw new Error(`no history row "${title}"`);
        const viewport = root.querySelector('.cs-viewport');
        const visible = () => {
          const answer = [...root.querySelectorAll('article[data-role="assistant"]')].find((a) => a.textContent.includes(newest));
          if (!answer) return false;
          const v = viewport.getBoundingClientRect();
          const r = answer.getBoundingClientRect();
          return r.height > 0 && r.top < v.bottom && r.bottom > v.top && getComputedStyle(viewport).visibility === 'visible';
        };
        const started = performance.now();
        row.click();
        for (let i = 0; i < 3000; i++) {
          await frame();
          if (visible()) return performance.now() - started;
        }
        throw new Error('the newest answer never became visible');
      },
      { title, newest },
    );
    times.push(ms);
  }
  const heap = await page.evaluate(async () => {
    globalThis.gc?.();
    await new Promise((resolve) => setTimeout(resolve, 100));
    return performance.memory.usedJSHeapSize;
  });
  const shown = await page.locator('article').count();
  const sorted = [...times].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)];
  process.stderr.write(
    `${seeded}; runs (ms): ${times.map((t) => t.toFixed(0)).join(', ')}; cold ${times[0].toFixed(0)} ms; ` +
      `${shown} articles rendered; requests: ${runtime.linesMatching(/get_by_id|items\.list/).length}\n`,
  );
  console.log(`bench open thread ${ITEMS} items: ${median.toFixed(0)}ms to newest visible, heap ${(heap / 1024 / 1024).toFixed(1)} MB`);
  await page.close();
} finally {
  await close();
}
