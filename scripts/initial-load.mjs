#!/usr/bin/env node
// The files a page fetches before <chat-shell> can mount its composer: the loader module
// (dist/chat-shell.js), every module it imports statically (the wasm-bindgen glue, its
// snippets, …) and every wasm they name as `new URL('….wasm', import.meta.url)`.
// The entry's own dynamic `import()`s are followed too: it awaits them to start (it imports
// the glue after drawing the early frame). Other dynamic `import()`s and wasm fetched later
// are NOT followed: those are the lazily loaded chunks (code splitting), counted in the
// total but not in the initial load. The
// chunks wasm-split-cli cut from the first module (scripts/build.sh) are named only in
// their loader, __wasm_split.js, which fetches each on demand: not followed either.
//
//   node scripts/initial-load.mjs [dist] [entry]     (defaults: dist, chat-shell.js)
//
// Prints one path per line, as `<dist>/<file>`, the entry first. Fails if a file the
// graph names is missing.
//
// The pack (chat-shell.pack, scripts/pack.mjs), named by a module of the graph, delivers
// its files in order: a wasm the graph names that the pack holds (the first module) is
// fetched as the pack's first bytes, through that file. It is printed as
// `<dist>/chat-shell.pack <bytes>`, those bytes being the prefix a page needs, and the file
// itself (a fallback if the pack breaks off) is left out.

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { logicalName } from './hash.mjs';
import { readIndex } from './pack.mjs';

const dist = process.argv[2] ?? 'dist';
const entry = process.argv[3] ?? 'chat-shell.js';

// `import x from './a.js'`, `import './a.js'`, `export { x } from './a.js'` (static only:
// `import(` is dynamic and left out on purpose).
const STATIC_IMPORT = /(?:^|[;\s])(?:import|export)\s*(?:[\w*{}\s,$]+?\s*from\s*)?['"](\.{1,2}\/[^'"]+)['"]/g;
const DYNAMIC_IMPORT = /\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;
const WASM_URL = /new\s+URL\(\s*['"]([^'"]+\.wasm)['"]\s*,\s*import\.meta\.url\s*\)/g;
const PACK_URL = /new\s+URL\(\s*['"]([^'"]+\.pack)['"]\s*,\s*import\.meta\.url\s*\)/g;

const SPLIT_LOADER = '__wasm_split.js';

const seen = new Set();
const order = [];
function visit(file) {
  const rel = path.normalize(file);
  if (seen.has(rel)) return;
  seen.add(rel);
  const full = path.join(dist, rel);
  if (!existsSync(full)) throw new Error(`initial-load: ${full} is named by the import graph but missing`);
  order.push(full);
  if (!rel.endsWith('.js')) return;
  const text = readFileSync(full, 'utf8');
  const dir = path.dirname(rel);
  for (const m of text.matchAll(STATIC_IMPORT)) visit(path.join(dir, m[1]));
  if (rel === path.normalize(entry)) for (const m of text.matchAll(DYNAMIC_IMPORT)) visit(path.join(dir, m[1]));
  if (logicalName(path.basename(rel)) === SPLIT_LOADER) return;
  for (const m of text.matchAll(WASM_URL)) visit(path.join(dir, m[1]));
  for (const m of text.matchAll(PACK_URL)) packs.add(path.join(dir, m[1]));
}
const packs = new Set();
visit(entry);

// Each wasm a pack holds: the pack's prefix through it instead.
const prefix = new Map(); // pack -> bytes
const fromPack = new Set();
for (const pack of packs) {
  const full = path.join(dist, pack);
  if (!existsSync(full)) throw new Error(`initial-load: ${full} is named by the import graph but missing`);
  for (const { name, offset, length } of readIndex(readFileSync(full))) {
    // The index keeps the files' names from before hashing (scripts/hash.mjs).
    const dir = path.join(dist, path.dirname(pack));
    const file = order.find((f) => path.dirname(f) === dir && logicalName(path.basename(f)) === name);
    if (!file) continue;
    fromPack.add(file);
    prefix.set(full, Math.max(prefix.get(full) ?? 0, offset + length));
  }
}
for (const file of order) if (!fromPack.has(file)) console.log(file);
for (const [pack, bytes] of prefix) console.log(`${pack} ${bytes}`);
