// Figures, not a test: tool-pushed views over the thread channel.
//
//   node tests/e2e/bench-views.mjs     (after trunk build --release and
//                                        cargo build -p chat-shell-runtime)
//   BENCH_PUSHES=100 ...   pushes for the latency figure (default 100)
//   BENCH_LINES=50000 ...  lines of the big diff (default 50,000)
//   BENCH_DETAIL=1 ...     also where the longest task's time goes (trace events by name)
//   BENCH_PROFILE=1 ...    also a CPU profile of opening it (names: serve a build made with
//                          wasm-bindgen --keep-debug through E2E_DIST=…)
//
// 1. Latency from `POST /callback` to the change in a second page: one page POSTs (its
//    clock), the other, with the Diff tab open, notes when the pushed marker is in its DOM
//    and when the frame after it starts (the change on screen). Both clocks are
//    `performance.timeOrigin + now()`. Median and p95 over the pushes.
// 2. Opening a 50,000-line diff view: pushed while the Chat tab is shown, then the Diff
//    tab is clicked; time from the click to the first file's lines on screen, and the
//    longest main-thread task meanwhile (from a Chrome trace, see trace.mjs; goal <= 50 ms).
// Exit status 1 only when the benchmark cannot run; a figure never fails it.

import { close, openBrowser, newChatPage, sendMessage, waitFor, waitForIdle, recordEvents, createdThreadId, startRuntime } from './harness.mjs';
import { mainThread, printProfile, readTrace, startTrace } from './trace.mjs';

const PROFILE = process.env.BENCH_PROFILE === '1';
const DETAIL = process.env.BENCH_DETAIL === '1';

const PUSHES = Math.max(5, Number(process.env.BENCH_PUSHES ?? 100));
const LINES = Math.max(1000, Number(process.env.BENCH_LINES ?? 50_000));
const TOKEN = 'bench-callback-token-0123456789';

const quantile = (xs, q) => {
  const s = xs.slice().sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};

function patchOf(markerText) {
  return [
    'diff --git a/notes.txt b/notes.txt',
    '--- a/notes.txt',
    '+++ b/notes.txt',
    '@@ -1,2 +1,2 @@',
    ' kept',
    '-old line',
    `+${markerText}`,
    '',
  ].join('\n');
}

/** A git diff of `lines` changed lines over files of 500 (each: a hunk of edits and context). */
function bigPatch(lines) {
  const out = [];
  const perFile = 500;
  for (let f = 0; f * perFile < lines; f++) {
    const n = Math.min(perFile, lines - f * perFile);
    out.push(`diff --git a/src/module_${f}.rs b/src/module_${f}.rs`, `index 000000${f % 10}..111111${f % 10} 100644`);
    out.push(`--- a/src/module_${f}.rs`, `+++ b/src/module_${f}.rs`);
    const removed = Math.floor(n / 4);
    const added = Math.floor(n / 4);
    const kept = n - removed - added;
    out.push(`@@ -1,${kept + removed} +1,${kept + added} @@ fn module_${f}()`);
    for (let i = 0; i < n; i++) {
      const body = `    let value_${i} = compute(${i}, "module ${f}") + offset; // line ${i}`;
      if (i % 4 === 1) out.push(`-${body}`);
      else if (i % 4 === 2) out.push(`+${body.replace('offset', 'new_offset')}`);
      else out.push(` ${body}`);
    }
  }
  out.push('');
  return out.join('\n');
}

async function main() {
  const runtime = await startRuntime({ extraArgs: ['--callback-token', TOKEN] });
  const context = await openBrowser();
  const sender = await newChatPage(context, `${runtime.url}/`);
  await recordEvents(sender);
  await sendMessage(sender, 'hello');
  const threadId = await createdThreadId(sender);
  await waitForIdle(sender);
  const viewer = await newChatPage(context, `${runtime.url}/`);
  await viewer.evaluate((id) => document.querySelector('chat-shell').setThreadId(id), threadId);

  const push = (patch) =>
    sender.evaluate(
      async ({ url, token, threadId, patch }) => {
        const sentAt = performance.timeOrigin + performance.now();
        const res = await fetch(`${url}/callback`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ type: 'view_update', group_id: threadId, view_type: 'diff', content: { patch } }),
        });
        if (!res.ok) throw new Error(`callback: HTTP ${res.status}`);
        return sentAt;
      },
      { url: runtime.url, token: TOKEN, threadId, patch },
    );

  // 1. Latency.
  await push(patchOf('warm-up'));
  const tab = viewer.getByRole('tab', { name: 'Diff' });
  await tab.waitFor({ timeout: 10_000 });
  await tab.click();
  await viewer.evaluate(() => {
    const root = document.querySelector('chat-shell').shadowRoot;
    window.__seen = new Map();
    new MutationObserver(() => {
      const panel = root.querySelector('[data-part="view-panel"]');
      const m = panel && /marker-(\d+)/.exec(panel.textContent);
      if (m && !window.__seen.has(m[1])) {
        const inDom = performance.timeOrigin + performance.now();
        window.__seen.set(m[1], { inDom });
        requestAnimationFrame(() => {
          window.__seen.get(m[1]).painted = performance.timeOrigin + performance.now();
        });
      }
    }).observe(root, { subtree: true, childList: true, characterData: true });
  });
  const inDom = [];
  const painted = [];
  for (let i = 0; i < PUSHES; i++) {
    const sentAt = await push(patchOf(`marker-${i}`));
    const seen = await waitFor(
      () => viewer.evaluate((k) => { const s = window.__seen.get(String(k)); return s?.painted ? s : null; }, i),
      { timeout: 10_000, interval: 5, message: `push ${i} in the second page` },
    );
    inDom.push(seen.inDom - sentAt);
    painted.push(seen.painted - sentAt);
  }
  const ms = (x) => `${x.toFixed(1)} ms`;
  console.log(`bench-views: POST /callback -> second page, ${PUSHES} pushes`);
  console.log(`  in the DOM:  median ${ms(quantile(inDom, 0.5))}, p95 ${ms(quantile(inDom, 0.95))}`);
  console.log(`  on screen:   median ${ms(quantile(painted, 0.5))}, p95 ${ms(quantile(painted, 0.95))}`);

  // 2. A 50,000-line diff, opened.
  await viewer.getByRole('tab', { name: 'Chat' }).click();
  const patch = bigPatch(LINES);
  await push(patch);
  // Let the push arrive and be stored in the view state before the tab is opened.
  await waitFor(() => viewer.evaluate(() => !!window.__seen), { timeout: 2_000 });
  await new Promise((r) => setTimeout(r, 1_000));
  const cdp = await context.newCDPSession(viewer);
  const { complete } = await startTrace(cdp, { detail: DETAIL });
  if (PROFILE) {
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 500 });
    await cdp.send('Profiler.start');
  }
  const markAt = await viewer.evaluate(() => {
    performance.mark('bench-start');
    return performance.now();
  });
  const clickedAt = await viewer.evaluate(() => {
    const root = document.querySelector('chat-shell').shadowRoot;
    const t0 = performance.now();
    window.__firstFile = null;
    const check = () => {
      const line = root.querySelector('[data-part="view-panel"] [data-part="diff-line"], [data-part="view-panel"] .cs-diff__line');
      if (line && line.getBoundingClientRect().height > 0) {
        requestAnimationFrame(() => { window.__firstFile = performance.now(); });
      } else requestAnimationFrame(check);
    };
    root.querySelector('[role="tab"][data-view="diff"]').click();
    requestAnimationFrame(check);
    return t0;
  });
  // A figure never fails the run: one that does not come within a minute is printed as such.
  const firstFile = await waitFor(() => viewer.evaluate(() => window.__firstFile), { timeout: 60_000, interval: 20, message: 'the first file of the big diff on screen' })
    .catch(() => null);
  if (firstFile === null) {
    console.log(`bench-views: opening a ${LINES.toLocaleString('en')}-line diff: the first file's lines were not on screen within 60 s`);
    return;
  }
  // The view settles (lazy files around the first screen) before the trace ends.
  await new Promise((r) => setTimeout(r, 1_500));
  if (PROFILE) printProfile((await cdp.send('Profiler.stop')).profile);
  const events = await readTrace(cdp, complete);
  const main = mainThread(events, 'bench-start', markAt);
  const tasks = main.tasks.filter(([s]) => s >= clickedAt).map(([s, e]) => e - s);
  const longest = Math.max(0, ...tasks);
  const over50 = tasks.filter((d) => d > 50).length;
  console.log(`bench-views: opening a ${LINES.toLocaleString('en')}-line diff (${(patch.length / 1e6).toFixed(1)} MB)`);
  console.log(`  first file on screen: ${ms(firstFile - clickedAt)} after the click`);
  console.log(`  longest task: ${ms(longest)} (goal <= 50 ms), tasks over 50 ms: ${over50}`);
  if (DETAIL) {
    // Where the longest task's time goes, by trace event name (nested events overlap).
    const [s0, e0] = main.tasks.filter(([s]) => s >= clickedAt).reduce((a, b) => (b[1] - b[0] > a[1] - a[0] ? b : a), [0, 0]);
    const byName = new Map();
    for (const ev of main.own) {
      const from = main.toPage(ev.ts);
      if (from >= s0 && from <= e0 && ev.name !== 'ThreadControllerImpl::RunTask') byName.set(ev.name, (byName.get(ev.name) ?? 0) + ev.dur / 1000);
    }
    const top = [...byName].sort((a, b) => b[1] - a[1]).slice(0, 10).map(([n, v]) => `${n} ${v.toFixed(1)}`);
    console.log(`  longest task by event: ${top.join(', ')}`);
  }
}

main()
  .catch((err) => {
    console.error(`bench-views: could not run: ${err.stack || err}`);
    process.exitCode = 1;
  })
  .finally(close);
