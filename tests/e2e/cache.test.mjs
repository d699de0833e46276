// dist/ made to be cached and served compressed (scripts/hash.mjs, scripts/build.sh,
// examples/runtime/src/static_files.rs):
//  - every file but the entry chat-shell.js and the pages carries a content hash in its
//    name, every name the files give is there, and the .br and .gz copies hold the file;
//  - two builds never serve different bytes under one name;
//  - from the reference runtime in headless Chromium, the first load comes compressed, and a
//    returning visit with a warm cache fetches no wasm: the entry and the page are
//    revalidated (304), everything else comes from the cache.
// Prints the bytes on the wire of a first load without and with compression and of the
// revisit (`figure:` lines), never asserted.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import zlib from 'node:zlib';
import { HASHED, hashStage, keepsName } from '../../scripts/hash.mjs';
import { close, DIST, openBrowser, startRuntime, waitForComposer } from './harness.mjs';

after(close);

function walk(dir, rel = '') {
  return readdirSync(path.join(dir, rel), { withFileTypes: true }).flatMap((e) => {
    const child = rel ? `${rel}/${e.name}` : e.name;
    return e.isDirectory() ? walk(dir, child) : [child];
  });
}

const served = (dir) => walk(dir).filter((rel) => !/\.(br|gz)$/.test(rel));
const hashOf = (rel) => HASHED.exec(rel)?.[0].slice(1);

test('dist/: every file but the entry and the pages is named by a content hash, every name given is there, the .br and .gz copies hold the file', () => {
  const files = served(DIST);
  const element = new Set();
  for (const rel of files) {
    if (keepsName(rel)) continue;
    assert.ok(hashOf(rel), `${rel} has a content hash in its name`);
    const digest = createHash('sha256').update(readFileSync(path.join(DIST, rel))).digest('hex').slice(0, 16);
    // The element's files share one hash over all of them; any other is its bytes' own.
    if (digest !== hashOf(rel)) element.add(hashOf(rel));
  }
  assert.equal(element.size, 1, `one hash for the element's files: ${[...element]}`);
  assert.ok(files.some((rel) => rel.endsWith('.pack') && hashOf(rel) === [...element][0]), 'the pack is one of them');

  const basenames = new Set(files.map((rel) => path.posix.basename(rel)));
  for (const rel of files.filter((f) => /\.(js|html|css)$/.test(f))) {
    for (const [name] of readFileSync(path.join(DIST, rel), 'utf8').matchAll(/[\w.-]+-[0-9a-f]{16}\.[a-z]+\b/g)) {
      assert.ok(basenames.has(name), `${rel} names ${name}, which dist/ has`);
    }
  }

  const copies = walk(DIST).filter((rel) => /\.(br|gz)$/.test(rel));
  for (const rel of copies) {
    const original = readFileSync(path.join(DIST, rel.slice(0, -3)));
    const bytes = readFileSync(path.join(DIST, rel));
    const decoded = rel.endsWith('.br') ? zlib.brotliDecompressSync(bytes) : zlib.gunzipSync(bytes);
    assert.ok(decoded.equals(original), `${rel} holds its file`);
    assert.ok(bytes.length < original.length, `${rel} is smaller than its file`);
  }
  // A copy is dropped where it saves nothing, as for some small chunks; none above a kB.
  for (const rel of files.filter((f) => /\.(wasm|pack|js|html|css)$/.test(f))) {
    if (readFileSync(path.join(DIST, rel)).length < 1000) continue;
    for (const ext of ['.br', '.gz']) assert.ok(copies.includes(rel + ext), `${rel}${ext} is there`);
  }
});

// A stage as trunk and scripts/build.sh leave it before naming: the element (entry, glue
// and chunks' loader importing each other, pack reader, snippet, wasm, pack) and two pages
// with files of their own.
const STAGE = {
  'chat-shell.js': `import init from './chat-shell-core.js';\nimport { packedStream } from './chat-shell-pack.js';\nconst first = new URL('./chat-shell_bg.wasm', import.meta.url);\nawait packedStream('chat-shell_bg.wasm');\n`,
  'chat-shell-core.js': `import { define } from './snippets/chat-shell-0123/inline0.js';\nimport * as import1 from "./__wasm_split.js"\nconst imports = { "./__wasm_split.js": import1 };\nconst path = new URL('chat-shell_bg.wasm', import.meta.url);\n`,
  '__wasm_split.js': `import { packed } from "./chat-shell-pack.js";\nimport { initSync } from "./chat-shell-core.js";\nconst a = packed("chunk_1.wasm").then((r) => r ?? fetch(new URL("./chunk_1.wasm", import.meta.url)));\nconst b = fetch(new URL("./split_a.wasm", import.meta.url));\n`,
  'chat-shell-pack.js': `const PACK = new URL('./chat-shell.pack', import.meta.url);\n`,
  'snippets/chat-shell-0123/inline0.js': `export function define() {}\n`,
  'chat-shell_bg.wasm': Buffer.from([0, 97, 115, 109, 1, 0, 0, 0, 1]),
  'chunk_1.wasm': Buffer.from([0, 97, 115, 109, 1, 0, 0, 0, 2]),
  'split_a.wasm': Buffer.from([0, 97, 115, 109, 1, 0, 0, 0, 3]),
  'chat-shell.pack': Buffer.from('CSPK\u0004\u0000\u0000\u0000[[]]'),
  'index.html': `<link rel="stylesheet" href="/page.css"/><script type="module" src="/chat-shell.js"></script>`,
  'page.css': `body { margin: 0 }\n`,
  'plain/index.html': `<link rel="icon" href="./favicon.svg" /><link rel="stylesheet" href="./plain.css" /><script type="module" src="../chat-shell.js"></script><script type="module" src="./plain.js"></script>`,
  'plain/plain.css': `main { background: url('./favicon.svg') }\n`,
  'plain/favicon.svg': `<svg xmlns="http://www.w3.org/2000/svg"/>`,
  'plain/plain.js': `import { helper } from './helper.js';\nawait import('../chat-shell.js');\n`,
  'plain/helper.js': `export const helper = 1;\n`,
};

/** Builds `files` into a fresh stage, names it, and returns what it serves: name -> bytes. */
function build(files, root) {
  const stage = mkdtempSync(path.join(root, 'build-'));
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(stage, rel)), { recursive: true });
    writeFileSync(path.join(stage, rel), content);
  }
  hashStage(stage);
  return new Map(served(stage).map((rel) => [rel, readFileSync(path.join(stage, rel))]));
}

test('two builds never serve different content under the same file name', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'chat-shell-hash-'));
  try {
    const base = build(STAGE, root);
    assert.deepEqual(build(STAGE, root), base, 'the same stage, the same names and bytes');
    // The base, and one build per file of the stage with that file changed.
    const builds = [['nothing', base]];
    for (const rel of Object.keys(STAGE)) {
      const changed = { ...STAGE, [rel]: Buffer.concat([Buffer.from(STAGE[rel]), Buffer.from(rel.endsWith('.wasm') ? [0] : '\n')]) };
      builds.push([rel, build(changed, root)]);
    }
    for (const [i, [changedA, a]] of builds.entries()) {
      for (const [changedB, b] of builds.slice(i + 1)) {
        for (const [name, bytes] of a) {
          if (keepsName(name) || !b.has(name)) continue;
          assert.ok(bytes.equals(b.get(name)), `${name}: one name, two contents (builds changing ${changedA} and ${changedB})`);
        }
      }
    }
    for (const [changed, served] of builds.slice(1)) {
      if (!keepsName(changed)) {
        const renamed = [...served.keys()].find((name) => name.replace(HASHED, '') === changed);
        assert.ok(renamed && !base.has(renamed), `${changed} changed: served under a new name (${renamed})`);
      }
      // What leads to it changes too, so a browser revalidating the entry or page gets the
      // new names.
      const leader = changed.startsWith('plain/') ? 'plain/index.html' : changed === 'page.css' ? 'index.html' : 'chat-shell.js';
      if (!keepsName(changed)) {
        assert.ok(!served.get(leader).equals(base.get(leader)), `${changed} changed: ${leader} names the new files`);
      }
    }
    // The names the files give are those of the files next to them.
    for (const [name, bytes] of base) {
      if (!/\.(js|html|css)$/.test(name)) continue;
      for (const [given] of bytes.toString('utf8').matchAll(/[\w.-]+-[0-9a-f]{16}\.[a-z]+\b/g)) {
        assert.ok([...base.keys()].some((n) => n.endsWith(`/${given}`) || n === given), `${name} names ${given}`);
      }
    }
    // Keys are not URLs: the pack's `packed("…")` and the wasm's import names stay.
    const loader = [...base].find(([name]) => name.startsWith('__wasm_split-'))[1].toString();
    assert.match(loader, /packed\("chunk_1\.wasm"\)/);
    const glue = [...base].find(([name]) => name.startsWith('chat-shell-core-'))[1].toString();
    assert.match(glue, /"\.\/__wasm_split\.js": import1/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

/**
 * Loads the demo page in a new page of `context` until the composer is there and the
 * network has settled (every chunk fetched), and sums what came over the network:
 * { bytes, wasmBytes, requests: [{ url, status, encoding, bytes, cached }] }.
 */
async function load(context, url) {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  const requests = new Map();
  cdp.on('Network.responseReceived', ({ requestId, response }) => {
    const encoding = Object.entries(response.headers).find(([k]) => k.toLowerCase() === 'content-encoding')?.[1] ?? null;
    requests.set(requestId, { url: response.url, status: response.status, encoding, bytes: 0, cached: response.fromDiskCache || response.fromMemoryCache });
  });
  cdp.on('Network.requestServedFromCache', ({ requestId }) => {
    if (requests.has(requestId)) requests.get(requestId).cached = true;
  });
  cdp.on('Network.loadingFinished', ({ requestId, encodedDataLength }) => {
    if (requests.has(requestId)) requests.get(requestId).bytes = encodedDataLength;
  });
  await page.goto(url, { waitUntil: 'load' });
  await waitForComposer(page, { timeout: 15_000 });
  await page.waitForLoadState('networkidle');
  await page.close();
  const list = [...requests.values()];
  const wasm = list.filter((r) => /\.(wasm|pack)$/.test(new URL(r.url).pathname));
  const sum = (rs) => rs.reduce((n, r) => n + r.bytes, 0);
  return { requests: list, wasm, bytes: sum(list), wasmBytes: sum(wasm) };
}

test('served compressed from the runtime, and a returning visit with a warm cache fetches no wasm', async () => {
  const runtime = await startRuntime();
  const url = `${runtime.url}/`;

  // Before: what the same page costs served as it is.
  const plain = await openBrowser();
  await plain.setExtraHTTPHeaders({ 'accept-encoding': 'identity' });
  const identity = await load(plain, url);
  await plain.close();
  assert.deepEqual(identity.requests.filter((r) => r.encoding), [], 'identity asked, identity served');

  const context = await openBrowser();
  const first = await load(context, url);
  const pack = first.wasm.find((r) => /chat-shell-[0-9a-f]{16}\.pack$/.test(r.url));
  assert.ok(pack, `the pack was fetched: ${first.wasm.map((r) => r.url)}`);
  for (const r of first.wasm) assert.equal(r.encoding, 'br', `${r.url} came as brotli`);
  const brFile = readFileSync(path.join(DIST, `${new URL(pack.url).pathname.slice(1)}.br`));
  assert.ok(pack.bytes < brFile.length + 1000, `the pack came as its .br (${pack.bytes} bytes on the wire, ${brFile.length} in the file)`);

  const logged = (re) => runtime.linesMatching(re).length;
  const wasmAsked = /^GET \S+\.(wasm|pack) /;
  const askedBefore = logged(wasmAsked);
  const revalidated = logged(/^GET \/chat-shell\.js 304$/);
  const second = await load(context, url);
  assert.equal(logged(wasmAsked) - askedBefore, 0, `no wasm asked of the server on the revisit: ${runtime.linesMatching(wasmAsked).slice(askedBefore)}`);
  assert.equal(second.wasmBytes, 0, 'no wasm byte on the wire on the revisit');
  assert.ok(second.wasm.length > 0 && second.wasm.every((r) => r.cached), 'the wasm came from the cache');
  assert.equal(logged(/^GET \/chat-shell\.js 304$/) - revalidated, 1, 'the entry revalidated: 304');

  const kb = (n) => `${(n / 1000).toFixed(1)} kB`;
  console.log(`figure: first load, served as it is (identity): ${kb(identity.bytes)} on the wire, of it wasm and pack ${kb(identity.wasmBytes)} (${identity.requests.length} requests)`);
  console.log(`figure: first load, precompressed (br): ${kb(first.bytes)} on the wire, of it wasm and pack ${kb(first.wasmBytes)} (${first.requests.length} requests)`);
  console.log(`figure: warm-cache revisit: ${kb(second.bytes)} on the wire, wasm and pack ${second.wasmBytes} bytes and ${logged(wasmAsked) - askedBefore} requests to the server (${second.requests.length} requests, ${second.requests.filter((r) => r.cached).length} from the cache)`);
  await context.close();
  await runtime.close();
});
