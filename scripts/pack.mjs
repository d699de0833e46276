#!/usr/bin/env node
// The pack: the wasm files the loader fetches anyway after the first screen, in one file, in
// order of need, so that they come over one compressed stream instead of one per file.
// Compressed one by one, each file starts from nothing; in one stream, each chunk finds the
// code it resembles in the files before it (its gain: docs/packaging.md).
// src/chat-shell-pack.js reads it as it arrives and hands each file over once it is
// complete; every file stays in dist/ beside it, fetched by itself only if the pack breaks
// off.
//
//   node scripts/pack.mjs build <stage>   (scripts/build.sh, after the chunks are final)
//   node scripts/pack.mjs list <pack>     prints `<name> <offset> <length>` per entry
//
// Layout: "CSPK", the index's byte length (u32, little-endian), the index (JSON,
// [[name, length], …]), then each file's bytes in the index's order.
//
// `build` also points `__wasm_split.js` at the pack for the chunks it holds: their
// `fetch(new URL("./<part>", import.meta.url))` becomes `packed("<part>")`, falling back to
// that fetch (src/chat-shell-pack.js). The chunks fetched when first needed keep their own.

import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const MAGIC = 'CSPK';

// In order of need, as src/chat-shell.js asks for them: the first module (the composer);
// the ChatKit decoders (no answer shows without them) and the thread channel's reader
// (asked for once the first answer has made a thread; it shares most of its code with the
// decoders, so it costs the pack little); the widgets; the markdown renderer and sanitizer
// (answers show as text until it is there); the other views. Each chunk follows the shared
// chunks it needs that are not in the pack yet.
export const ORDER = ['chat-shell_bg.wasm', 'decoders', 'channel', 'widgets', 'renderer', 'on_demand'];
// Fetched by themselves when first needed (a file offered, another protocol set, the first
// code block to highlight), as
// before: a page that never needs them never fetches them.
export const LEFT_OUT = ['attachments', 'adapters', 'highlight'];

/** The chunks `__wasm_split.js` loads: split name -> its file and the chunk files it needs. */
export function splitParts(loaderText) {
  const chunkFiles = new Map();
  for (const m of loaderText.matchAll(/const (__chunk_\d+) = makeLoad\(\(\) => \{\s*const src = fetch\(new URL\("\.\/([\w.]+)", import\.meta\.url\)\)/g)) {
    chunkFiles.set(m[1], m[2]);
  }
  const parts = new Map();
  const load = /export const __wasm_split_load_(\w+) = wrapAsyncCb\(makeLoad\(\(\) => \{\s*const src = fetch\(new URL\("\.\/([\w.]+)", import\.meta\.url\)\);[\s\S]*?\n, \[([^\]]*)\]\)\);/g;
  for (const m of loaderText.matchAll(load)) {
    const deps = m[3].split(',').map((d) => d.trim()).filter(Boolean).map((d) => {
      if (!chunkFiles.has(d)) throw new Error(`pack: ${m[1]} needs ${d}, which __wasm_split.js does not define`);
      return chunkFiles.get(d);
    });
    parts.set(m[1], { file: m[2], deps });
  }
  return parts;
}

/** The files of the pack, in order, from the stage's `__wasm_split.js`. */
export function packOrder(loaderText) {
  const parts = splitParts(loaderText);
  for (const name of parts.keys()) {
    if (!ORDER.includes(name) && !LEFT_OUT.includes(name)) {
      throw new Error(`pack: the part "${name}" is neither in ORDER nor in LEFT_OUT (scripts/pack.mjs); say where it goes`);
    }
  }
  const files = [];
  for (const name of ORDER) {
    if (name.endsWith('.wasm')) {
      files.push(name);
      continue;
    }
    const part = parts.get(name);
    if (!part) throw new Error(`pack: __wasm_split.js has no part "${name}"`);
    for (const dep of part.deps) if (!files.includes(dep)) files.push(dep);
    files.push(part.file);
  }
  return files;
}

export function writePack(stage) {
  const loaderPath = path.join(stage, '__wasm_split.js');
  let loader = readFileSync(loaderPath, 'utf8');
  const files = packOrder(loader);
  const bodies = files.map((file) => readFileSync(path.join(stage, file)));
  const index = Buffer.from(JSON.stringify(files.map((file, i) => [file, bodies[i].length])));
  const head = Buffer.alloc(8);
  head.write(MAGIC, 0, 'latin1');
  head.writeUInt32LE(index.length, 4);
  writeFileSync(path.join(stage, 'chat-shell.pack'), Buffer.concat([head, index, ...bodies]));

  for (const file of files) {
    const from = `fetch(new URL("./${file}", import.meta.url))`;
    if (file === ORDER[0]) continue; // the first module: src/chat-shell.js streams it
    if (!loader.includes(from)) throw new Error(`pack: __wasm_split.js does not fetch ${file} as expected`);
    loader = loader.split(from).join(`packed("${file}").then((r) => r ?? ${from})`);
  }
  loader = `import { packed } from "./chat-shell-pack.js";\n${loader}`;
  writeFileSync(loaderPath, loader);
  return files;
}

/** The entries of a pack: [{ name, offset, length }], offsets from the file's start. */
export function readIndex(bytes) {
  if (bytes.subarray(0, 4).toString('latin1') !== MAGIC) throw new Error('pack: not a chat-shell pack');
  const indexLength = bytes.readUInt32LE(4);
  let offset = 8 + indexLength;
  return JSON.parse(bytes.subarray(8, offset).toString('utf8')).map(([name, length]) => {
    const entry = { name, offset, length };
    offset += length;
    return entry;
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [command, target] = process.argv.slice(2);
  if (command === 'build' && target) {
    const files = writePack(target);
    console.log(`pack: chat-shell.pack holds ${files.join(' ')}`);
  } else if (command === 'list' && target) {
    for (const { name, offset, length } of readIndex(readFileSync(target))) console.log(`${name} ${offset} ${length}`);
  } else {
    console.error('usage: node scripts/pack.mjs build <stage> | list <pack>');
    process.exit(1);
  }
}
