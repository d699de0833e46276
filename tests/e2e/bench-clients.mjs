// Figures, not a test: what one client address can hold of the reference runtime (thread
// channels, runs, idle sockets), minting a new identity whenever it likes, and how fast
// another address is answered meanwhile. The runtime runs with its default limits.
//
//   node tests/e2e/bench-clients.mjs     (after cargo build -p chat-shell-runtime)
//   E2E_RUNTIME_BIN=path ...  another build (say, main's, for the figures before a change)
//
// The clients are distinct loopback source addresses: the attacker 127.0.0.2, the other
// client 127.0.0.3. Exit status 1 only when the benchmark cannot run; a figure never fails it.

import { spawn } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import readline from 'node:readline';
import { RUNTIME_BIN } from './harness.mjs';

const ATTACKER = '127.0.0.2';
const OTHER = '127.0.0.3';
const ATTEMPTS = { channels: 100, runs: 500, sockets: 600 };

async function startRuntime() {
  const args = ['--port', '0', '--pace-ms', '0', '--dist', '/nonexistent', '--memory'];
  const child = spawn(RUNTIME_BIN, args, { stdio: ['ignore', 'pipe', 'ignore'] });
  process.once('exit', () => child.kill('SIGKILL'));
  const port = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the runtime did not start within 20 s')), 20_000);
    child.once('exit', (code) => reject(new Error(`the runtime exited (${code})`)));
    readline.createInterface({ input: child.stdout }).on('line', (line) => {
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(line);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
  });
  return { child, port };
}

/** POST /chatkit from `from`; resolves at the response head with { status, cookie, res }. */
function post(port, from, body, cookie) {
  return new Promise((resolve) => {
    const payload = JSON.stringify(body);
    const req = http.request({
      host: '127.0.0.1', port, localAddress: from, method: 'POST', path: '/chatkit', agent: false,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...(cookie ? { cookie } : {}) },
    }, (res) => {
      const set = res.headers['set-cookie']?.[0]?.split(';')[0];
      resolve({ status: res.statusCode, cookie: set ?? cookie, res });
    });
    req.on('error', () => resolve({ status: 0, cookie, res: null }));
    req.end(payload);
  });
}

/** The whole body of `res` as text. */
function text(res) {
  return new Promise((resolve) => {
    let out = '';
    res.setEncoding('utf8');
    res.on('data', (c) => { out += c; });
    res.on('end', () => resolve(out));
    res.on('error', () => resolve(out));
  });
}

const create = (t) => ({ type: 'threads.create', params: { input: { content: [{ type: 'input_text', text: t }], attachments: [], inference_options: {} } } });

/** Median and 95th percentile of `n` threads.list round trips from the other address. */
async function latency(port, cookie, n = 50) {
  const times = [];
  let failed = 0;
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const r = await post(port, OTHER, { type: 'threads.list', params: {} }, cookie);
    if (r.res) await text(r.res);
    if (r.status === 200) times.push(performance.now() - t0);
    else failed++;
  }
  times.sort((a, b) => a - b);
  const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? NaN;
  return { median: at(0.5), p95: at(0.95), failed };
}

const { child, port } = await startRuntime();
const other = await post(port, OTHER, { type: 'threads.list', params: {} });
await text(other.res);
const before = await latency(port, other.cookie);

// 1. Channels: a new identity and thread each time, then the thread's channel.
const held = [];
const refused = { channels: 0, runs: 0 };
for (let i = 0; i < ATTEMPTS.channels; i++) {
  const made = await post(port, ATTACKER, create('hello'));
  if (made.status !== 200) { refused.channels++; if (made.res) await text(made.res); continue; }
  const body = await text(made.res);
  const thread = /"thread":\{"id":"([^"]+)"/.exec(body)?.[1];
  const channel = await post(port, ATTACKER, { type: 'threads.subscribe', params: { thread_id: thread, after: null } }, made.cookie);
  if (channel.status === 200) { channel.res.resume(); held.push(channel.res); } else { refused.channels++; if (channel.res) await text(channel.res); }
}
const channels = held.length;

// 2. Runs that never end, each from a new identity (no cookie kept).
let runs = 0;
for (let i = 0; i < ATTEMPTS.runs; i++) {
  const run = await post(port, ATTACKER, create('stall'));
  if (run.status === 200) { run.res.resume(); held.push(run.res); runs++; } else { refused.runs++; if (run.res) await text(run.res); }
}

// 3. Idle sockets that never send a byte.
const sockets = [];
await Promise.all(Array.from({ length: ATTEMPTS.sockets }, () => new Promise((resolve) => {
  const s = net.connect({ host: '127.0.0.1', port, localAddress: ATTACKER }, resolve);
  s.on('error', resolve);
  s.on('close', () => { s.closedEarly = true; });
  sockets.push(s);
})));
await new Promise((r) => setTimeout(r, 500));
const socketsOpen = sockets.filter((s) => !s.closedEarly && !s.destroyed).length;

// Meanwhile: the other address.
const during = await latency(port, other.cookie);
const health = await new Promise((resolve) => {
  http.get({ host: '127.0.0.1', port, path: '/healthz', localAddress: OTHER, agent: false }, (res) => { res.resume(); resolve(res.statusCode); })
    .on('error', () => resolve(0));
});
const otherRun = await post(port, OTHER, create('hello'), other.cookie);
if (otherRun.res) await text(otherRun.res);

const f = (n) => n.toFixed(1);
console.log('\n== one client address against the runtime\'s default limits (bench-clients)');
console.log(`thread channels held:   ${channels} of ${ATTEMPTS.channels} tried (new identity each), ${refused.channels} refused`);
console.log(`runs under way:         ${runs} of ${ATTEMPTS.runs} tried (cookie-less), ${refused.runs} refused`);
console.log(`idle sockets kept open: ${socketsOpen} of ${ATTEMPTS.sockets} tried (on top of the above)`);
console.log(`the other address, threads.list: median ${f(before.median)} ms / p95 ${f(before.p95)} ms before; ` +
  `median ${f(during.median)} ms / p95 ${f(during.p95)} ms meanwhile, ${during.failed} failed of 50`);
console.log(`the other address meanwhile: /healthz ${health}, a new answer ${otherRun.status}`);

for (const s of sockets) s.destroy();
for (const res of held) res.destroy();
child.kill('SIGKILL');
process.exit(0);
