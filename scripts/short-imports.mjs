#!/usr/bin/env node
// Gives the first module's imports from its glue short names, in the wasm and in the glue
// at once (scripts/split.sh, release builds):
//
//   node scripts/short-imports.mjs <glue.js> <in.wasm> <out.wasm>
//
// wasm-bindgen names each import after the JS it calls plus a 16-digit hash
// (`__wbg_append_7c5a0b2ad1e5b3f4`). The wasm's import section and the glue's import
// object each carry all of them, about 300; hashes do not compress. Here the n-th function
// import from the glue's module becomes a short name (`a`, `b`, … `aa`, …) in the wasm,
// and its key in the glue's import object is renamed to match. Nothing else names them:
// each old name must occur exactly once in the glue, or the script fails without
// writing, so a new wasm-bindgen with another glue layout breaks the build, not the page.
// (wasm-opt's --minify-imports only renames imports from `env`.)

import { readFileSync, writeFileSync } from 'node:fs';
import { WasmReader, encodeName, encodeUleb } from './wasm-reader.mjs';

const GLUE_MODULE = './chat-shell_bg.js';
const [gluePath, inPath, outPath] = process.argv.slice(2);
if (!outPath) {
  console.error('usage: short-imports.mjs <glue.js> <in.wasm> <out.wasm>');
  process.exit(2);
}

const wasm = readFileSync(inPath);
let glue = readFileSync(gluePath, 'utf8');

/** a, b, … z, A, … Z, aa, ab, …: keys of the import object, checked below to be one each. */
const shortName = (n) => {
  const letters = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
  let text = '';
  do {
    text = letters[n % letters.length] + text;
    n = Math.floor(n / letters.length) - 1;
  } while (n >= 0);
  return text;
};

const pieces = [wasm.subarray(0, 8)];
const renamed = [];
const reader = new WasmReader(wasm, inPath);
for (const section of reader.sections()) {
  if (section.id !== 2) {
    pieces.push(wasm.subarray(section.start, section.end));
    continue;
  }
  const count = reader.uleb();
  const entries = [encodeUleb(count)];
  for (let i = 0; i < count; i++) {
    const module = reader.name();
    let field = reader.name();
    const { kind, bytes } = reader.importDescription();
    if (module === GLUE_MODULE && kind === 0) {
      const short = shortName(renamed.length);
      renamed.push([field, short]);
      field = short;
    }
    entries.push(encodeName(module), encodeName(field), Buffer.from([kind]), bytes);
  }
  if (reader.pos !== section.end) throw new Error('short-imports: the import section did not parse to its end');
  const body = Buffer.concat(entries);
  pieces.push(Buffer.from([2]), encodeUleb(body.length), body);
}
if (!renamed.length) throw new Error(`short-imports: no function imports from ${GLUE_MODULE}`);

// ---- the glue: each import is one `name:` key of its import object ----
const escape = (text) => text.replace(/[$]/g, '\\$&');
for (const [old, short] of renamed) {
  const word = new RegExp(`(?<![\\w$])${escape(old)}(?![\\w$])`, 'g');
  const found = glue.match(word)?.length ?? 0;
  const key = new RegExp(`(?<![\\w$])${escape(old)}(?=\\s*:)`);
  if (found !== 1 || !key.test(glue)) {
    throw new Error(`short-imports: ${old} occurs ${found} times in ${gluePath}, expected once as a key`);
  }
  glue = glue.replace(key, short);
}
for (const [, short] of renamed) {
  if ((glue.match(new RegExp(`(?<![\\w$.])${short}\\s*:\\s*function`, 'g'))?.length ?? 0) !== 1) {
    throw new Error(`short-imports: the short name ${short} is not one import's key in the glue`);
  }
}

writeFileSync(outPath, Buffer.concat(pieces));
writeFileSync(gluePath, glue);
const saved = renamed.reduce((sum, [old, short]) => sum + old.length - short.length, 0);
console.log(`short-imports: ${renamed.length} imports renamed, ${saved} bytes of names less in each of the wasm and the glue`);
