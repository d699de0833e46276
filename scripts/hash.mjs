#!/usr/bin/env node
// Content hashes in the names of dist/'s files, so that a name always stands for the same
// bytes and a browser may keep a file for good (`Cache-Control: immutable`; the runtime:
// examples/runtime/src/static_files.rs). Every file gets one except the entry
// `chat-shell.js` and the pages (`*.html`): those are the names a page or a user types, so
// they keep them and are revalidated instead.
//
//   node scripts/hash.mjs <stage>   (scripts/build.sh, once the pack is built)
//
// A file is renamed `<name>-<16 hex>.<ext>`, and every reference to it is rewritten: in
// JavaScript `import … from`, `import(…)` and `new URL(…, import.meta.url)`; in HTML `src`
// and `href`; in CSS `url(…)` and `@import`. The hash is taken over the file's bytes with
// its references to files named before it already rewritten, so a change anywhere renames
// the file and every file that leads to it, up to the entry. The element (every file the
// entry leads to) shares one hash over all its files: they come from one link and change
// together, one hash per file would carry ~50 different hashes into the initial load
// (about 600 bytes brotli), and the glue and `__wasm_split.js` import each other, so
// neither could be named first. Any other file is named by its own bytes. The pack's index
// and `packed("…")` keep the files' first names: they are keys, not URLs.

import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The hash in a file's name, as this script writes it. */
export const HASHED = /-[0-9a-f]{16}(?=\.[^./]+$)/;

/** A file's name before hashing: `chunk_9-0123456789abcdef.wasm` -> `chunk_9.wasm`. */
export const logicalName = (name) => name.replace(HASHED, '');

/** Files that keep their names: the entry and the pages. */
export const keepsName = (rel) => rel === 'chat-shell.js' || rel.endsWith('.html');

const REFERENCES = {
  '.js': [
    /(?:\bfrom|\bimport)\s*(?<q>['"])(?<ref>[^'"\n]+)\k<q>/g,
    /\bimport\(\s*(?<q>['"])(?<ref>[^'"\n]+)\k<q>\s*\)/g,
    /\bnew\s+URL\(\s*(?<q>['"])(?<ref>[^'"\n]+)\k<q>\s*,\s*import\.meta\.url\s*\)/g,
  ],
  '.html': [/\b(?:src|href)\s*=\s*(?<q>["'])(?<ref>[^"'\n]+)\k<q>/g],
  '.css': [/\burl\(\s*(?<q>['"]?)(?<ref>[^'")\s]+)\k<q>\s*\)/g, /@import\s+(?<q>['"])(?<ref>[^'"\n]+)\k<q>/g],
};
REFERENCES['.mjs'] = REFERENCES['.js'];

function walk(dir, rel = '') {
  return readdirSync(path.join(dir, rel), { withFileTypes: true }).flatMap((e) => {
    const child = rel ? `${rel}/${e.name}` : e.name;
    return e.isDirectory() ? walk(dir, child) : [child];
  });
}

/** The file of the stage a reference in `from` names, or null (a URL elsewhere, a route). */
function resolve(from, ref) {
  if (/^[a-z][a-z0-9+.-]*:|^\/\/|^#/i.test(ref)) return null;
  const bare = ref.replace(/[?#].*$/, '');
  const joined = bare.startsWith('/') ? bare.slice(1) : path.posix.join(path.posix.dirname(from), bare);
  return path.posix.normalize(joined);
}

/** `text` with each reference to a file `names` maps replaced by that file's new name. */
function rewrite(file, text, names) {
  for (const pattern of REFERENCES[path.extname(file)] ?? []) {
    text = text.replace(pattern, (whole, ...args) => {
      const { ref } = args.at(-1);
      const to = names.get(resolve(file, ref));
      if (!to) return whole;
      return whole.replace(ref, ref.replace(/[^/?#]*(?=[?#]|$)/, path.posix.basename(to)));
    });
  }
  return text;
}

function references(file, text, files) {
  const found = new Set();
  for (const pattern of REFERENCES[path.extname(file)] ?? []) {
    for (const m of text.matchAll(pattern)) {
      const to = resolve(file, m.groups.ref);
      if (files.has(to)) found.add(to);
    }
  }
  return found;
}

/** `nodes`, each after every one it references; a cycle fails the build. */
function dependenciesFirst(nodes, edges) {
  const state = new Map(); // node -> 'visiting' | 'done'
  const out = [];
  const visit = (v, trail) => {
    if (state.get(v) === 'done') return;
    if (state.get(v) === 'visiting') throw new Error(`hash: files reference each other: ${[...trail, v].join(' -> ')}`);
    state.set(v, 'visiting');
    for (const w of edges.get(v)) visit(w, [...trail, v]);
    state.set(v, 'done');
    out.push(v);
  };
  for (const v of nodes) visit(v, []);
  return out;
}

/** Renames every file of `stage` but the entry and the pages; returns old -> new paths. */
export function hashStage(stage) {
  const all = walk(stage).sort();
  const text = new Map(); // text files: path -> content
  for (const rel of all) if (REFERENCES[path.extname(rel)]) text.set(rel, readFileSync(path.join(stage, rel), 'utf8'));
  const hashed = new Set(all.filter((rel) => !keepsName(rel)));
  const edges = new Map([...hashed].map((rel) => [rel, text.has(rel) ? references(rel, text.get(rel), hashed) : new Set()]));

  const element = new Set();
  const reach = (refs) => refs.forEach((rel) => element.has(rel) || (element.add(rel), reach(edges.get(rel))));
  if (text.has('chat-shell.js')) reach(references('chat-shell.js', text.get('chat-shell.js'), hashed));
  const rest = [...hashed].filter((rel) => !element.has(rel));
  const restEdges = new Map(rest.map((rel) => [rel, [...edges.get(rel)].filter((to) => !element.has(to))]));
  // The element references nothing outside itself: it is named first.
  const groups = [...(element.size ? [[...element].sort()] : []), ...dependenciesFirst(rest, restEdges).map((rel) => [rel])];

  const names = new Map(); // old path -> new path
  const finals = new Map(); // new path -> bytes
  for (const group of groups) {
    // Each member with its references outside the group rewritten (those are final).
    const bodies = group.map((rel) => (text.has(rel) ? Buffer.from(rewrite(rel, text.get(rel), names)) : readFileSync(path.join(stage, rel))));
    const hash = createHash('sha256');
    if (group.length === 1 && !element.has(group[0])) {
      hash.update(bodies[0]);
    } else {
      group.forEach((rel, i) => hash.update(`${rel}\0`).update(bodies[i]).update('\0'));
    }
    const digest = hash.digest('hex').slice(0, 16);
    for (const rel of group) {
      const ext = path.posix.extname(rel);
      names.set(rel, `${rel.slice(0, rel.length - ext.length)}-${digest}${ext}`);
    }
    group.forEach((rel, i) => {
      finals.set(names.get(rel), text.has(rel) ? Buffer.from(rewrite(rel, bodies[i].toString('utf8'), names)) : bodies[i]);
    });
  }

  for (const [rel, to] of names) {
    renameSync(path.join(stage, rel), path.join(stage, to));
    writeFileSync(path.join(stage, to), finals.get(to));
  }
  for (const rel of all.filter(keepsName)) {
    if (text.has(rel)) writeFileSync(path.join(stage, rel), rewrite(rel, text.get(rel), names));
  }
  return names;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const stage = process.argv[2];
  if (!stage) {
    console.error('usage: node scripts/hash.mjs <stage>');
    process.exit(1);
  }
  console.log(`hash: ${hashStage(stage).size} files named by their content`);
}
