// Figures, not a test: several runtime instances on one PostgreSQL database.
//
//   node tests/e2e/bench-instances.mjs   (after cargo build -p chat-shell-runtime; uses
//                                          CHAT_SHELL_TEST_DATABASE_URL, or starts a
//                                          throwaway server with scripts/postgres.sh)
//   BENCH_CHANNELS=1000 ...  open thread channels (default 1,000)
//   BENCH_PUSHES=30 ...      pushes for the latency figure (default 30)
//   BENCH_SECONDS=8 ...      how long each runs-per-second figure runs (default 8)
//
// 1. Fan-out: BENCH_CHANNELS SSE clients hold the thread's channel open (split over two
//    instances on PostgreSQL, or all on one instance on SQLite); a view is pushed to
//    `POST /callback` of the first instance; latency from the POST to its frame reaching
//    each client (one clock: this process). p50 and p95 over every (push, client).
// 2. Runs per second: 32 clients start short scripted answers (`threads.create`, read to
//    the end) for BENCH_SECONDS, on one instance and on two, on PostgreSQL.
// Exit status 1 only when the benchmark cannot run; a figure never fails it.

import http from 'node:http';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { ROOT, close, startRuntime } from './harness.mjs';

const CHANNELS = Math.max(2, Number(process.env.BENCH_CHANNELS ?? 1000));
const PUSHES = Math.max(3, Number(process.env.BENCH_PUSHES ?? 30));
const SECONDS = Math.max(2, Number(process.env.BENCH_SECONDS ?? 8));
const CLIENTS = 32;
const TOKEN = 'bench-callback-token-0123456789';
const IDENTITY = 'bench-identity-token-0123456789';
const POSTGRES = path.join(ROOT, 'scripts', 'postgres.sh');

process.setMaxListeners(32);
const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
const quantile = (xs, q) => {
  const s = xs.slice().sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};

function instance(database) {
  const db = database ? ['--database', database] : [];
  return startRuntime({
    extraArgs: [
      ...db, '--callback-token', TOKEN, '--token', IDENTITY, '--max-channels', '100000',
      '--max-runs', '100000', '--max-connections', '5000', '--channel-keepalive-ms', '5000',
      // One address plays every client here, so its fair share is the whole server.
      '--max-connections-per-client', '5000', '--max-channels-per-client', '100000',
      '--max-runs-per-client', '100000', '--max-runs-total', '100000',
      '--max-new-identities-per-minute', '100000',
    ],
  });
}

/** POSTs `body` to `/chatkit` of `runtime`; calls `onData(text)` per chunk; resolves at the end. */
function chatkit(runtime, body, onData = () => {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${runtime.url}/chatkit`,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${IDENTITY}` },
      },
      (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          reject(new Error(`${body.type}: HTTP ${res.statusCode}`));
          return;
        }
        res.setEncoding('utf8');
        let all = '';
        res.on('data', (chunk) => {
          all += chunk.length < 4096 ? chunk : '';
          onData(chunk, res);
        });
        res.on('end', () => resolve(all));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const create = (runtime) =>
  chatkit(runtime, { type: 'threads.create', params: { input: { content: [{ type: 'input_text', text: 'hi' }], attachments: [] } } });

/** Opens `thread`'s channel on `runtime`; `onFrame(line, now)` per data line; resolves once ready. */
function subscribe(runtime, thread, onFrame) {
  return new Promise((resolve, reject) => {
    let buffer = '';
    chatkit(runtime, { type: 'threads.subscribe', params: { thread_id: thread, after: null } }, (chunk, res) => {
      const now = performance.now();
      buffer += chunk;
      let cut;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        if (frame.includes('thread.channel.ready')) resolve(res);
        onFrame(frame, now);
      }
    }).then(() => reject(new Error('the channel ended before it was ready')), reject);
  });
}

async function push(runtime, thread, marker) {
  const started = performance.now();
  const res = await fetch(`${runtime.url}/callback`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'view_update', group_id: thread, view_type: 'diff', content: { patch: `+${marker}\n`, title: marker } }),
  });
  if (res.status !== 200) throw new Error(`callback: ${res.status} ${await res.text()}`);
  return started;
}

/** Fan-out latency over `runtimes` (channels split evenly), pushes to the first. */
async function fanOut(runtimes) {
  const created = await create(runtimes[0]);
  const thread = /"id":"(thr_[0-9a-f]+)"/.exec(created)[1];
  const seen = new Map(); // marker -> arrival times
  const streams = [];
  for (let i = 0; i < CHANNELS; i += 50) {
    const batch = [];
    for (let j = i; j < Math.min(CHANNELS, i + 50); j++) {
      batch.push(
        subscribe(runtimes[j % runtimes.length], thread, (frame, now) => {
          const m = /"title":"(mark-\d+)"/.exec(frame);
          if (m) (seen.get(m[1]) ?? seen.set(m[1], []).get(m[1])).push(now);
        }),
      );
    }
    streams.push(...(await Promise.all(batch)));
  }
  const latencies = [];
  for (let p = 0; p < PUSHES; p++) {
    const marker = `mark-${p}`;
    const started = await push(runtimes[0], thread, marker);
    const deadline = Date.now() + 10_000;
    while ((seen.get(marker)?.length ?? 0) < CHANNELS && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 2));
    }
    const got = seen.get(marker) ?? [];
    if (got.length < CHANNELS) console.log(`  push ${p}: ${got.length}/${CHANNELS} channels got it`);
    for (const t of got) latencies.push(t - started);
  }
  for (const res of streams) res.destroy();
  return { p50: quantile(latencies, 0.5), p95: quantile(latencies, 0.95), n: latencies.length };
}

/** Runs per second sustained by CLIENTS clients spread over `runtimes`. */
async function runsPerSecond(runtimes) {
  let done = 0;
  const until = Date.now() + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, i) => {
      while (Date.now() < until) {
        const out = await create(runtimes[i % runtimes.length]);
        if (out.includes('thread.item.done')) done++;
      }
    }),
  );
  return done / SECONDS;
}

async function main() {
  let base = process.env.CHAT_SHELL_TEST_DATABASE_URL;
  let own = null;
  if (!base) {
    const out = execFileSync(POSTGRES, ['start'], { encoding: 'utf8' });
    const vars = Object.fromEntries([...out.matchAll(/export (\w+)=(\S+)/g)].map((m) => [m[1], m[2]]));
    base = vars.CHAT_SHELL_TEST_DATABASE_URL;
    own = vars.CHAT_SHELL_TEST_PGDATA;
  }
  const database = (name) => {
    const db = `bench_${name}_${process.pid}`;
    execFileSync('psql', [base, '-qAtc', `CREATE DATABASE ${db}`]);
    const url = new URL(base);
    url.pathname = `/${db}`;
    return url.toString();
  };
  try {
    console.log(`bench-instances: ${CHANNELS} channels, ${PUSHES} pushes; runs/s over ${SECONDS} s, ${CLIENTS} clients`);
    const sqlite = await instance(null);
    const one = await fanOut([sqlite]);
    console.log(`  fan-out, 1 instance, SQLite:      p50 ${one.p50.toFixed(1)} ms, p95 ${one.p95.toFixed(1)} ms (${one.n} deliveries)`);
    await sqlite.close();
    const shared = database('fanout');
    const pair = [await instance(shared), await instance(shared)];
    const two = await fanOut(pair);
    console.log(`  fan-out, 2 instances, PostgreSQL: p50 ${two.p50.toFixed(1)} ms, p95 ${two.p95.toFixed(1)} ms (${two.n} deliveries)`);
    await pair[0].close();
    await pair[1].close();

    const runs = database('runs');
    const single = await instance(runs);
    const alone = await runsPerSecond([single]);
    const second = await instance(runs);
    const both = await runsPerSecond([single, second]);
    const sqliteRuns = await instance(null);
    const lite = await runsPerSecond([sqliteRuns]);
    console.log(`  runs/s, 1 instance, SQLite:       ${lite.toFixed(1)}`);
    console.log(`  runs/s, 1 instance, PostgreSQL:   ${alone.toFixed(1)}`);
    console.log(`  runs/s, 2 instances, PostgreSQL:  ${both.toFixed(1)} (${(both / alone).toFixed(2)}x one; both on this machine's ${(await import('node:os')).cpus().length} cores with the server)`);
  } finally {
    await close();
    if (own) execFileSync(POSTGRES, ['stop', own]);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
