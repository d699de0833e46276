// Chrome traces for the benchmarks: start and read one over CDP, and the renderer main
// thread's work in it (busy intervals, tasks as the Long Tasks API counts them, CPU time).

/** Starts tracing; `detail` adds devtools.timeline (where the time goes, at some cost). */
export async function startTrace(cdp, { detail = false } = {}) {
  const complete = new Promise((resolve) => cdp.once('Tracing.tracingComplete', resolve));
  const categories = ['toplevel', 'blink.user_timing'];
  if (detail) categories.push('devtools.timeline');
  await cdp.send('Tracing.start', {
    transferMode: 'ReturnAsStream',
    traceConfig: { recordMode: 'recordContinuously', includedCategories: categories },
  });
  // In an object: an async function returning the promise itself would wait for it.
  return { complete };
}

export async function readTrace(cdp, complete) {
  await cdp.send('Tracing.end');
  const { stream } = await complete;
  const parts = [];
  for (;;) {
    const { data, eof, base64Encoded } = await cdp.send('IO.read', { handle: stream, size: 1 << 22 });
    parts.push(base64Encoded ? Buffer.from(data, 'base64').toString('utf8') : data);
    if (eof) break;
  }
  await cdp.send('IO.close', { handle: stream });
  const trace = JSON.parse(parts.join(''));
  return Array.isArray(trace) ? trace : trace.traceEvents;
}

// Top-level work of the main thread: every complete event of the toplevel category that no
// other one encloses. Most are ThreadControllerImpl::RunTask, but the microtask checkpoint
// after a task (BlinkScheduler_PerformMicrotaskCheckpoint: promise reactions, so most of
// the page's stream handling) and some mojo handle watchers are siblings, not children.
const CHECKPOINT = 'BlinkScheduler_PerformMicrotaskCheckpoint';

/**
 * The renderer main thread's work, tied to the page clock by the mark `name` made at page
 * time `markAt`: `busy` (disjoint intervals, page ms), `tasks` (a task with the microtask
 * checkpoint right after it: what the Long Tasks API calls a task) and, for BENCH_DETAIL,
 * `own` (all its events) and `toPage`.
 */
export function mainThread(events, name, markAt) {
  const mark = events.find((e) => e.name === name && e.cat.includes('blink.user_timing'));
  if (!mark) throw new Error(`the ${name} mark is not in the trace`);
  const meta = events.find(
    (e) => e.ph === 'M' && e.name === 'thread_name' && e.pid === mark.pid && e.args?.name === 'CrRendererMain',
  );
  const tid = meta?.tid ?? mark.tid;
  const toPage = (ts) => (ts - mark.ts) / 1000 + markAt;
  const own = events.filter((e) => e.pid === mark.pid && e.tid === tid && e.ph === 'X' && e.dur !== undefined);
  const top = own
    .filter((e) => e.cat.split(',').includes('toplevel'))
    .map((e) => ({ name: e.name, s: toPage(e.ts), e: toPage(e.ts + e.dur), cpu: (e.tdur ?? e.dur) / 1000 }))
    .sort((a, b) => a.s - b.s || b.e - a.e);
  const outer = [];
  for (const ev of top) {
    const last = outer[outer.length - 1];
    if (last && ev.s < last.e) last.e = Math.max(last.e, ev.e);
    else outer.push({ ...ev });
  }
  if (!outer.some((ev) => ev.name === 'ThreadControllerImpl::RunTask')) {
    throw new Error('no top-level tasks of the renderer main thread in the trace');
  }
  const tasks = [];
  for (const ev of outer) {
    const last = tasks[tasks.length - 1];
    if (last && ev.name === CHECKPOINT && ev.s - last[1] < 0.1) last[1] = Math.max(last[1], ev.e);
    else tasks.push([ev.s, ev.e]);
  }
  return { busy: merge(outer.map((ev) => [ev.s, ev.e])), outer, tasks, own, toPage };
}

/** CPU ms of the top-level events `outer` inside [from, to] (an event cut by the window counts pro rata). */
export function cpuIn(outer, from, to) {
  let sum = 0;
  for (const ev of outer) {
    const overlap = Math.min(ev.e, to) - Math.max(ev.s, from);
    if (overlap > 0) sum += ev.e > ev.s ? (ev.cpu * overlap) / (ev.e - ev.s) : ev.cpu;
  }
  return sum;
}

/** Merges [start, end] intervals into disjoint ones. */
export function merge(intervals) {
  const out = [];
  for (const [s, e] of intervals.slice().sort((a, b) => a[0] - b[0])) {
    const last = out[out.length - 1];
    if (last && s <= last[1]) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}

export function busyIn(merged, from, to) {
  let sum = 0;
  for (const [s, e] of merged) sum += Math.max(0, Math.min(e, to) - Math.max(s, from));
  return sum;
}


/** Prints a CDP CPU profile's functions with the most self and inclusive time (stderr). */
export function printProfile(profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map();
  const total = new Map();
  profile.samples.forEach((id, i) => {
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    const name = (n) => n.callFrame.functionName || `(${n.callFrame.url.split('/').pop() || 'anonymous'})`;
    self.set(name(byId.get(id)), (self.get(name(byId.get(id))) ?? 0) + ms);
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const key = name(byId.get(at));
      if (!seen.has(key)) total.set(key, (total.get(key) ?? 0) + ms);
      seen.add(key);
    }
  });
  const top = (m, k) => [...m].sort((a, b) => b[1] - a[1]).slice(0, k).map(([n, v]) => `  ${v.toFixed(0).padStart(7)} ms  ${n.slice(0, 140)}`);
  console.error(['profile, self time:', ...top(self, 30), 'profile, inclusive time:', ...top(total, 60)].join('\n'));
}
