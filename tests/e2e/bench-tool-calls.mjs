// Figures, not a test: an agent run of 500 ACP tool calls, each carrying a
// 2,000-line diff (even calls) or 2,000 lines of terminal output (odd calls), then the
// answer, streamed into <chat-shell> as ChatKit extension events.
//
//   node tests/e2e/bench-tool-calls.mjs     (after trunk build --release and
//                                             cargo build -p chat-shell-runtime)
//   BENCH_CALLS=200 ...    fewer tool calls (default 500)
//   BENCH_RATE=50 ...      tool calls per second on the wire (default 50)
//   BENCH_DETAIL=1 ...     also where the longest tasks' time goes (trace events by name)
//   BENCH_PROFILE_FROM=N   with BENCH_PROFILE: profile from the N-th completed call on
//   BENCH_PROFILE=1 ...    also a CPU profile: the functions with the most time (to read
//                          wasm function names, serve a build made with names kept:
//                          E2E_DIST=… of wasm-bindgen --keep-debug output)
//
// Set-up: the page comes from the reference runtime through a small server in this
// process, which passes every request through except the message that starts the run: that
// one it answers itself, one tool call's events (added in progress, then completed with
// its content) per write, at BENCH_RATE calls a second, then the answer in 20 deltas.
//
// Figures, from a Chrome trace of the run (see trace.mjs): the longest main-thread task
// (goal <= 50 ms), tasks over 50 ms, main-thread busy ms per tool call over the first and
// the last 10% of the calls (the window from the page showing call k completed to showing call k+n),
// and their ratio (goal <= 1.5). The calls' progress is read from the page: when each
// one shows as completed. Exit status 1 only when the page breaks (the run never
// completes) or the benchmark cannot run; a figure never fails it.

import http from 'node:http';
import { close, openBrowser, sendMessage, startRuntime, waitFor } from './harness.mjs';
import { busyIn, mainThread, printProfile, readTrace, startTrace } from './trace.mjs';

const PROFILE = process.env.BENCH_PROFILE === '1';
const DETAIL = process.env.BENCH_DETAIL === '1';
// With BENCH_PROFILE: start the profile only once this many calls show completed (the fold).
const PROFILE_FROM = Number(process.env.BENCH_PROFILE_FROM ?? 0);
const CALLS = Math.max(20, Number(process.env.BENCH_CALLS ?? 500));
const RATE = Math.max(1, Number(process.env.BENCH_RATE ?? 50));
const LINES = 2000;
const THREAD = 'thr_bench_tools';
const HOP_BY_HOP = ['connection', 'keep-alive', 'transfer-encoding', 'content-length'];

const frame = (event) => `data: ${JSON.stringify(event)}\n\n`;
const at = '2026-11-23T00:00:00';

/** 2,000 lines of a source file, and the same with every tenth line edited. */
function fileTexts(i) {
  const old = [];
  const now = [];
  for (let l = 0; l < LINES; l++) {
    const line = `    let value_${l} = compute(${i}, ${l}); // line ${l} of file ${i}`;
    old.push(line);
    now.push(l % 10 === 3 ? line.replace('compute', 'compute_checked') : line);
  }
  return [old.join('\n') + '\n', now.join('\n') + '\n'];
}

function terminalOutput(i) {
  const lines = [];
  for (let l = 0; l < LINES; l++) lines.push(`\u001b[32mok\u001b[0m test module_${i}::case_${l} ... passed in ${l % 97} ms`);
  return lines.join('\n') + '\n';
}

/** The SSE writes of the run: one string per tool call, then the answer. */
function runWrites() {
  const writes = [
    frame({ type: 'thread.created', thread: { id: THREAD, created_at: at, status: { type: 'active' }, metadata: {}, items: { data: [], has_more: false } } }) +
      frame({ type: 'stream_options', stream_options: { allow_cancel: true } }),
  ];
  for (let i = 0; i < CALLS; i++) {
    const id = `tc_${i}`;
    const callId = `call_${i}`;
    const edit = i % 2 === 0;
    const call = {
      toolCallId: callId,
      title: edit ? `Edit src/module_${i}.rs` : `Run tests for module_${i}`,
      kind: edit ? 'edit' : 'execute',
      status: 'in_progress',
      content: edit ? [] : [{ type: 'terminal', terminalId: `term_${i}` }],
      locations: edit ? [{ path: `src/module_${i}.rs`, line: 4 }] : [],
      rawInput: edit ? { path: `src/module_${i}.rs` } : { command: 'cargo test', cwd: '/repo' },
    };
    let update;
    if (edit) {
      const [oldText, newText] = fileTexts(i);
      update = { toolCallId: callId, status: 'completed', content: [{ type: 'diff', path: `src/module_${i}.rs`, oldText, newText }] };
    } else {
      update = { toolCallId: callId, status: 'completed', rawOutput: { output: terminalOutput(i), truncated: false, exitStatus: { exitCode: 0 } } };
    }
    writes.push(
      frame({ type: 'thread.item.added', item: { id, thread_id: THREAD, created_at: at, type: 'acp_tool_call', tool_call: call } }) +
        frame({ type: 'thread.item.updated', item_id: id, update: { type: 'acp_tool_call.update', update } }),
    );
  }
  const msg = 'msg_bench_answer';
  let answer =
    frame({ type: 'thread.item.added', item: { id: msg, thread_id: THREAD, created_at: at, type: 'assistant_message', content: [] } }) +
    frame({ type: 'thread.item.updated', item_id: msg, update: { type: 'assistant_message.content_part.added', content_index: 0, content: { type: 'output_text', text: '', annotations: [] } } });
  let text = '';
  for (let d = 0; d < 20; d++) {
    const delta = `All ${CALLS} tool calls finished (part ${d}). `;
    text += delta;
    answer += frame({ type: 'thread.item.updated', item_id: msg, update: { type: 'assistant_message.content_part.text_delta', content_index: 0, delta } });
  }
  answer += frame({ type: 'thread.item.done', item: { id: msg, thread_id: THREAD, created_at: at, type: 'assistant_message', content: [{ type: 'output_text', text, annotations: [] }] } });
  writes.push(answer);
  return writes;
}

/** Passes requests to the runtime; answers the run's first message with `writes`, paced. */
async function startServer(writes) {
  const upstream = { port: 0 };
  const server = http.createServer({ noDelay: true }, (req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      let type = null;
      if (req.method === 'POST' && req.url.split('?')[0] === '/chatkit') {
        try {
          type = JSON.parse(body.toString('utf8')).type;
        } catch {
          type = null;
        }
      }
      if (type === 'threads.create') return stream(res, writes);
      const up = http.request({ host: '127.0.0.1', port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (upRes) => {
        const headers = { ...upRes.headers };
        for (const h of HOP_BY_HOP) delete headers[h];
        res.writeHead(upRes.statusCode, headers);
        upRes.pipe(res);
      });
      up.on('error', (err) => {
        if (!res.headersSent) res.writeHead(502);
        res.end(String(err));
      });
      up.end(body);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, upstream };
}

function stream(res, writes) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
  res.flushHeaders();
  const interval = 1000 / RATE;
  const t0 = performance.now();
  let sent = 0;
  let closed = false;
  res.on('close', () => (closed = true));
  const pump = () => {
    if (closed) return;
    while (sent < writes.length && t0 + sent * interval <= performance.now() + 0.25) res.write(writes[sent++]);
    if (sent < writes.length) setTimeout(pump, Math.max(0, t0 + sent * interval - performance.now()));
    else res.end();
  };
  pump();
}

/** Records, in the page, when each tool call was shown completed (a MutationObserver on
 * `data-status`: cheaper than reading the stream a second time). */
async function observeCompletions(page) {
  await page.evaluate(() => {
    const bench = (window.__bench = { completions: [] });
    const root = document.querySelector('chat-shell').shadowRoot;
    // By the call's id: a call scrolled out of the window and back is a new element.
    const done = new Set();
    const note = (el) => {
      if (el.dataset?.part === 'tool-call' && el.dataset.status === 'completed' && !done.has(el.id || el)) {
        done.add(el.id || el);
        bench.completions.push(performance.now());
      }
    };
    new MutationObserver((records) => {
      for (const r of records) {
        if (r.type === 'attributes') note(r.target);
        // An item comes in its wrapper: the call may be inside what was added.
        else for (const n of r.addedNodes) if (n.nodeType === 1) [n, ...n.querySelectorAll('[data-part="tool-call"]')].forEach(note);
      }
    }).observe(root, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-status'] });
  });
}

/** The functions with the most self and inclusive time of a CPU profile, on stderr. */
async function main() {
  const writes = runWrites();
  const mb = writes.reduce((n, w) => n + w.length, 0) / 1e6;
  const { server, upstream } = await startServer(writes);
  const runtime = await startRuntime({ extraArgs: ['--allowed-host', `127.0.0.1:${server.address().port}`] });
  upstream.port = Number(new URL(runtime.url).port);
  const context = await openBrowser();
  const page = await context.newPage();
  await page.goto(`http://127.0.0.1:${server.address().port}/`, { waitUntil: 'load' });
  await waitFor(() => page.evaluate(() => !!document.querySelector('chat-shell')?.shadowRoot?.querySelector('.cs-root:not([data-early]) textarea')), {
    timeout: 15_000,
    message: 'the composer',
  });
  await observeCompletions(page);
  const cdp = await context.newCDPSession(page);
  const { complete } = await startTrace(cdp, { detail: DETAIL });
  const profile = async () => {
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 500 });
    await cdp.send('Profiler.start');
  };
  if (PROFILE && !PROFILE_FROM) await profile();
  const markAt = await page.evaluate(() => {
    performance.mark('bench-start');
    return performance.now();
  });
  await sendMessage(page, 'run the agent');
  if (PROFILE && PROFILE_FROM) {
    await waitFor(() => page.evaluate((n) => window.__bench.completions.length >= n, PROFILE_FROM), { timeout: 120_000, interval: 20 });
    await profile();
  }
  const expected = `All ${CALLS} tool calls finished (part 19).`;
  await waitFor(
    () =>
      page.evaluate((expected) => {
        const root = document.querySelector('chat-shell').shadowRoot;
        const answer = root.querySelector('article[data-role="assistant"]');
        return !!answer && answer.textContent.includes(expected) && answer.getAttribute('aria-busy') === 'false';
      }, expected),
    { timeout: 60_000 + (CALLS / RATE) * 4000, message: 'the run to complete' },
  );
  const { completions, calls, group } = await page.evaluate(() => {
    const root = document.querySelector('chat-shell').shadowRoot;
    return {
      completions: window.__bench.completions,
      calls: root.querySelectorAll('[data-part="tool-call"]').length,
      group: root.querySelector('[data-part="tool-call-summary"]')?.textContent ?? null,
    };
  });
  const end = await page.evaluate(() => performance.now());
  if (PROFILE) printProfile((await cdp.send('Profiler.stop')).profile);
  const events = await readTrace(cdp, complete);
  const main = mainThread(events, 'bench-start', markAt);
  const first = completions[0];
  const tenth = Math.max(1, Math.floor(CALLS / 10));
  const perCall = (from, to) => busyIn(main.busy, completions[from], completions[to]) / (to - from);
  const firstCost = perCall(0, tenth);
  const lastCost = perCall(CALLS - 1 - tenth, CALLS - 1);
  const tasks = main.tasks.filter(([s, e]) => e >= first && s <= end).map(([s, e]) => e - s);
  const longest = Math.max(...tasks);
  const over50 = tasks.filter((d) => d > 50).length;
  const busy = busyIn(main.busy, first, end);
  console.log(`bench tool calls: ${CALLS} ACP tool calls (2,000-line diff or terminal output each, ${mb.toFixed(1)} MB of SSE) at ${RATE}/s, then the answer`);
  console.log(`  rendered: ${calls} tool calls; summary: ${group ?? '(none)'}; main thread busy ${busy.toFixed(0)} ms over ${(end - first).toFixed(0)} ms`);
  console.log(`  longest task ${longest.toFixed(1)} ms (goal <= 50), tasks > 50 ms: ${over50}`);
  console.log(
    `  busy per tool call: first 10% ${firstCost.toFixed(2)} ms, last 10% ${lastCost.toFixed(2)} ms, last/first ${(lastCost / firstCost).toFixed(2)} (goal <= 1.5)`,
  );
  if (DETAIL) {
    const longest = main.tasks.filter(([s, e]) => e >= first && s <= end).sort((a, b) => b[1] - b[0] - (a[1] - a[0])).slice(0, 6);
    for (const [s, e] of longest) {
      const own = new Map();
      for (const ev of main.own) {
        const from = main.toPage(ev.ts);
        if (from >= s && from <= e && ev.name !== 'ThreadControllerImpl::RunTask') own.set(ev.name, (own.get(ev.name) ?? 0) + ev.dur / 1000);
      }
      const top = [...own].sort((a, b) => b[1] - a[1]).slice(0, 8).map(([n, v]) => `${n} ${v.toFixed(1)}`);
      console.error(`  task ${(e - s).toFixed(1)} ms at ${((s - first) / 1000).toFixed(2)} s: ${top.join(' | ')}`);
    }
  }
  // Only a window of the thread is mounted (150 items, the summary line above them): every
  // call showed completed as it streamed.
  if (completions.length !== CALLS) throw new Error(`the page showed ${completions.length} of ${CALLS} tool calls completed`);
  server.close();
  await close();
}

main().catch(async (err) => {
  console.error(`bench tool calls: ${err.stack ?? err}`);
  await close().catch(() => {});
  process.exit(1);
});
