// Figures, not a test: the runtime's memory (VmRSS) under thread channels whose
// clients stopped reading.
//
//   node tests/e2e/bench-runtime-rss.mjs     (after cargo build -p chat-shell-runtime)
//   E2E_RUNTIME_BIN=path ...  another build (say, main's, for the figures before a change)
//   BENCH_RUNS=60 ...         answers streamed while the stalled channels are open
//   BENCH_PUSHES=3 ...        pushes of the large view after the stalled channels opened
//
// 1. Idle, after a few answers (what the answers themselves leave behind is in it).
// 2. Two channels of a thread opened and never read again (their sockets open), then
//    BENCH_RUNS `long` answers (~100 kB each, 2,000 deltas) on that thread.
// 3. A 7.5 MiB view pushed three times to another thread with nobody reading (what reading
//    and storing such a body leaves in the allocator, its own baseline), then ten channels
//    of it opened and never read, then the view pushed BENCH_PUSHES more times.
// Exit status 1 only when the benchmark cannot run; a figure never fails it.

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { RUNTIME_BIN } from './harness.mjs';

const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 60));
const PUSHES = Math.max(1, Number(process.env.BENCH_PUSHES ?? 3));
const STALLED_RUNS = 2;
const STALLED_VIEW = 10;
const VIEW_BYTES = 7.5 * 1024 * 1024;
const TOKEN = 'bench-callback-token-0123456789';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function rssMiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = Number(/VmRSS:\s+(\d+)\s+kB/.exec(status)[1]);
  return kib / 1024;
}

async function startRuntime(dir) {
  const args = ['--port', '0', '--pace-ms', '0', '--dist', dir, '--db', path.join(dir, 'bench.db'), '--callback-token', TOKEN];
  const child = spawn(RUNTIME_BIN, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  process.once('exit', () => child.kill('SIGKILL'));
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the runtime did not start within 20 s')), 20_000);
    child.once('exit', (code) => reject(new Error(`the runtime exited (${code})`)));
    readline.createInterface({ input: child.stdout }).on('line', (line) => {
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(line);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
  });
  return { child, url, port: Number(new URL(url).port) };
}

async function chatkit(rt, cookie, body) {
  const res = await fetch(`${rt.url}/chatkit`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { res, text };
}

const input = (text) => ({ content: [{ type: 'input_text', text }], attachments: [], inference_options: {} });

async function newThread(rt, cookie) {
  const { text } = await chatkit(rt, cookie, { type: 'threads.create', params: { input: input('hello') } });
  return /"thread":\{"id":"([^"]+)"/.exec(text)[1];
}

/** A channel of `thread` read up to its response head, then never again (its socket open). */
function stalledChannel(rt, cookie, thread) {
  const body = JSON.stringify({ type: 'threads.subscribe', params: { thread_id: thread, after: null } });
  return new Promise((resolve, reject) => {
    const socket = net.connect(rt.port, '127.0.0.1', () => {
      socket.write(
        `POST /chatkit HTTP/1.1\r\nHost: 127.0.0.1:${rt.port}\r\nContent-Type: application/json\r\n` +
          `Cookie: ${cookie}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
    });
    socket.once('data', (chunk) => {
      socket.pause();
      if (!chunk.toString('latin1').startsWith('HTTP/1.1 200')) reject(new Error(`channel refused: ${chunk}`));
      else resolve(socket);
    });
    socket.once('error', reject);
  });
}

async function push(rt, thread, fill) {
  const res = await fetch(`${rt.url}/callback`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify({ type: 'view_update', group_id: thread, view_type: 'diff', content: { patch: fill.repeat(VIEW_BYTES) } }),
  });
  await res.text();
  if (res.status !== 200) throw new Error(`push: ${res.status}`);
}

async function main() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-runtime-rss-'));
  const rt = await startRuntime(dir);
  const sockets = [];
  try {
    const first = await chatkit(rt, null, { type: 'threads.list', params: {} });
    const cookie = first.res.headers.get('set-cookie').split(';')[0];
    const thread = await newThread(rt, cookie);
    const answer = () => chatkit(rt, cookie, { type: 'threads.add_user_message', params: { thread_id: thread, input: input('long fast') } });
    for (let i = 0; i < 3; i++) await answer();
    await sleep(500);
    const idle = rssMiB(rt.child.pid);

    for (let i = 0; i < STALLED_RUNS; i++) sockets.push(await stalledChannel(rt, cookie, thread));
    for (let i = 0; i < RUNS; i++) await answer();
    await sleep(500);
    const afterRuns = rssMiB(rt.child.pid);

    const viewThread = await newThread(rt, cookie);
    for (const fill of ['x', 'y', 'a']) await push(rt, viewThread, fill);
    await sleep(500);
    const beforeView = rssMiB(rt.child.pid);
    for (let i = 0; i < STALLED_VIEW; i++) sockets.push(await stalledChannel(rt, cookie, viewThread));
    await sleep(500);
    const subscribed = rssMiB(rt.child.pid);
    for (let i = 0; i < PUSHES; i++) await push(rt, viewThread, String.fromCharCode(98 + i));
    await sleep(500);
    const pushed = rssMiB(rt.child.pid);

    const mib = (x) => `${x.toFixed(1)} MiB`;
    const delta = (x, from) => `${x >= from ? '+' : ''}${(x - from).toFixed(1)}`;
    console.log(`runtime RSS under stalled channels (${RUNTIME_BIN})`);
    console.log(`  idle, after 3 answers                                   ${mib(idle)}`);
    console.log(`  ${STALLED_RUNS} stalled channels + ${RUNS} long answers              ${mib(afterRuns)} (${delta(afterRuns, idle)})`);
    console.log(`  a 7.5 MiB view pushed 3 times (nobody reading)          ${mib(beforeView)} (${delta(beforeView, idle)})`);
    console.log(`  ${STALLED_VIEW} stalled channels replaying it                      ${mib(subscribed)} (${delta(subscribed, beforeView)} over the line above)`);
    console.log(`  then ${PUSHES} more pushes of it                              ${mib(pushed)} (${delta(pushed, beforeView)} over it)`);
  } finally {
    for (const s of sockets) s.destroy();
    rt.child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
