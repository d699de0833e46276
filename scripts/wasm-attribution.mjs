#!/usr/bin/env node
// Where the wasm bytes go: attributes a wasm file's code to crates and functions, with no
// dependency (reads the binary format itself, scripts/wasm-reader.mjs; nothing to install).
//
//   node scripts/wasm-attribution.mjs [file.wasm] [--top N] [--sections]
//
// Run it on a wasm that still has its `name` section: by default wasm-bindgen's output,
// target/wasm-bindgen/release/chat-shell_bg.wasm, which `trunk build --release` leaves
// behind before wasm-opt (that is the input wasm-opt shrinks; wasm-bindgen has already
// dropped its describe functions), else cargo's own
// target/wasm32-unknown-unknown/release/chat_shell.wasm. The shipped file is smaller
// (wasm-opt shrinks and merges functions), so read the function figures as shares, not as
// shipped bytes; `--sections` on the shipped wasm prints only its sections line. Prints
//   attr: sections code=<bytes> (brotli <bytes>) data=… other=… functions=<count> file=<path>
//   attr: crate <rank> <bytes> <percent of code> <functions> fns <brotli> br <crate>
//   attr: fn <rank> <bytes> <crate> <name>
//
// A function's crate is the first path component of its demangled name; for a trait impl
// `<A as B>::f` it is A's crate when A is a path (`<serde_json::Value as serde::Serialize>`
// is serde_json), otherwise B's (`<T as core::convert::Into<U>>` is core). Generic code
// instantiated for another crate's types counts for the crate that wrote it. Rough, by
// design: good enough to see which crates are big.
//
// A crate's `br` figure is what it costs compressed: how many bytes the module's code
// section, brotli quality 11, would lose without that crate's function bodies. Raw bytes
// mislead here: generic code instantiated for many types is large raw and cheap compressed
// (brotli stores the repeats as back-references; Leptos's per-type signal code is 5-9 raw
// bytes for each compressed one, the element's own code 3-4).

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { WasmReader } from './wasm-reader.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
let top = 15;
const sectionsOnly = args.includes('--sections');
if (sectionsOnly) args.splice(args.indexOf('--sections'), 1);
const topAt = args.indexOf('--top');
if (topAt >= 0) {
  top = Number(args[topAt + 1]);
  args.splice(topAt, 2);
}
// Default: what trunk hands to wasm-opt (wasm-bindgen's output keeps the names and no longer
// has the describe functions wasm-bindgen interprets and drops), else cargo's own output.
const DEFAULTS = ['target/wasm-bindgen/release/chat-shell_bg.wasm', 'target/wasm32-unknown-unknown/release/chat_shell.wasm'];
const file = args[0] ?? path.join(ROOT, DEFAULTS.find((f) => existsSync(path.join(ROOT, f))) ?? DEFAULTS[0]);
const bytes = readFileSync(file);

const reader = new WasmReader(bytes, file);

let importedFns = 0;
const bodies = []; // each defined function's bytes, by index
const names = new Map(); // function index (imports first) -> name
const spans = [{ kind: 'other', start: 0, end: 8 }]; // every section, as code, data or other

for (const { id, start, end } of reader.sections()) {
  spans.push({ kind: id === 10 ? 'code' : id === 11 ? 'data' : 'other', start, end });
  if (id === 2) {
    // imports: count the functions (they come first in the function index space)
    const count = reader.uleb();
    for (let i = 0; i < count; i++) {
      reader.name();
      reader.name();
      if (reader.importDescription().kind === 0) importedFns++;
    }
  } else if (id === 10) {
    const count = reader.uleb();
    for (let i = 0; i < count; i++) {
      const bodyStart = reader.pos;
      const length = reader.uleb();
      reader.pos += length;
      bodies.push(bytes.subarray(bodyStart, reader.pos));
    }
  } else if (id === 0 && reader.name() === 'name') {
    while (reader.pos < end) {
      const sub = reader.bytes[reader.pos++];
      const subSize = reader.uleb();
      const subEnd = reader.pos + subSize;
      if (sub === 1) {
        const count = reader.uleb();
        for (let i = 0; i < count; i++) {
          const idx = reader.uleb();
          names.set(idx, reader.name());
        }
      }
      reader.pos = subEnd;
    }
  }
}

const rel = path.relative(process.cwd(), file) || file;
// Each section's own brotli size (quality 11, as scripts/sizes.sh): how much of the shipped
// bytes are code, data (string and table constants) and the rest.
const br = (buf) =>
  zlib.brotliCompressSync(buf, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: buf.length } }).length;
const part = (name) => Buffer.concat(spans.filter((s) => s.kind === name).map((s) => bytes.subarray(s.start, s.end)));
const code = part('code');
const data = part('data');
const other = part('other');
console.log(
  `attr: sections code=${code.length} (brotli ${br(code)}) data=${data.length} (brotli ${br(data)}) other=${other.length} (brotli ${br(other)}) functions=${bodies.length} file=${rel}`,
);
if (sectionsOnly) process.exit(0);
if (names.size === 0) {
  console.log(`attr: no name section in ${rel} (use wasm-bindgen's or cargo's output: wasm-opt drops the names)`);
  process.exit(0);
}

// ---- demangling (legacy `_ZN…E` and already-demangled names; v0 `_R` roughly) ----------

const ESCAPES = { SP: '@', BP: '*', RF: '&', LT: '<', GT: '>', LP: '(', RP: ')', C: ',' };
function unescape(s) {
  return s
    .replace(/\$([A-Z]{1,2})\$/g, (m, e) => ESCAPES[e] ?? m)
    .replace(/\$u([0-9a-f]+)\$/g, (_, hex) => String.fromCodePoint(parseInt(hex, 16)))
    .replace(/\.\./g, '::');
}
function demangle(name) {
  if (name.startsWith('_ZN')) {
    const parts = [];
    let i = 3;
    while (i < name.length && name[i] !== 'E') {
      let j = i;
      while (j < name.length && name[j] >= '0' && name[j] <= '9') j++;
      if (j === i) break;
      const len = Number(name.slice(i, j));
      parts.push(unescape(name.slice(j, j + len)));
      i = j + len;
    }
    if (parts.length > 1 && /^h[0-9a-f]{16}$/.test(parts.at(-1))) parts.pop();
    return parts.join('::').replace(/^_</, '<');
  }
  if (name.startsWith('_R')) return demangleV0(name);
  // wasm-bindgen rewrites v0 names as `core[c5930c85a12de822]::…`: drop the crate hashes.
  return name.replace(/::h[0-9a-f]{16}$/, '').replace(/\[[0-9a-f]{16}\]/g, '');
}
// The v0 scheme (`_R…`, used by the precompiled std): a small recursive-descent demangler
// (paths, generic arguments and the common types; punycode identifiers stay encoded).
function demangleV0(sym) {
  const s = sym.replace(/^_R/, '').replace(/^\d+/, ''); // skip an encoding version
  let i = 0;
  const base62 = () => {
    if (s[i] === '_') {
      i++;
      return 0;
    }
    let n = 0;
    while (s[i] !== '_' && i < s.length) {
      const c = s[i++];
      n = n * 62 + (c <= '9' ? c.charCodeAt(0) - 48 : c >= 'a' ? c.charCodeAt(0) - 87 : c.charCodeAt(0) - 29); // 0-9 a-z A-Z
    }
    i++;
    return n + 1;
  };
  const disamb = () => {
    if (s[i] === 's') {
      i++;
      base62();
    }
  };
  const ident = () => {
    disamb();
    if (s[i] === 'u') i++;
    let j = i;
    while (s[j] >= '0' && s[j] <= '9') j++;
    const len = Number(s.slice(i, j));
    if (s[j] === '_') j++;
    i = j + len;
    return s.slice(j, j + len);
  };
  const backref = (fn) => {
    const target = base62();
    const save = i;
    i = target;
    const r = fn();
    i = save;
    return r;
  };
  const BASIC = { a: 'i8', b: 'bool', c: 'char', d: 'f64', e: 'str', f: 'f32', h: 'u8', i: 'isize', j: 'usize', l: 'i32', m: 'u32', n: 'i128', o: 'u128', s: 'i16', t: 'u16', u: '()', v: '...', x: 'i64', y: 'u64', z: '!', p: '_' };
  const generics = () => {
    const out = [];
    while (s[i] !== 'E' && i < s.length) out.push(genericArg());
    i++;
    return out;
  };
  const genericArg = () => {
    if (s[i] === 'L') {
      i++;
      base62();
      return "'_";
    }
    if (s[i] === 'K') {
      i++;
      return konst();
    }
    return type();
  };
  const konst = () => {
    if (s[i] === 'B') {
      i++;
      return backref(konst);
    }
    if (s[i] === 'p') {
      i++;
      return '_';
    }
    i++; // the const's type
    const j = s.indexOf('_', i);
    const v = s.slice(i, j);
    i = j + 1;
    return v;
  };
  const binder = () => {
    if (s[i] === 'G') {
      i++;
      base62();
    }
  };
  const type = () => {
    const c = s[i++];
    if (BASIC[c]) return BASIC[c];
    switch (c) {
      case 'R':
      case 'Q':
        if (s[i] === 'L') {
          i++;
          base62();
        }
        return (c === 'R' ? '&' : '&mut ') + type();
      case 'P':
        return `*const ${type()}`;
      case 'O':
        return `*mut ${type()}`;
      case 'A': {
        const t = type();
        return `[${t}; ${konst()}]`;
      }
      case 'S':
        return `[${type()}]`;
      case 'T': {
        const ts = [];
        while (s[i] !== 'E') ts.push(type());
        i++;
        return `(${ts.join(', ')})`;
      }
      case 'F': {
        binder();
        if (s[i] === 'U') i++;
        if (s[i] === 'K') {
          i++;
          if (s[i] === 'C') i++;
          else ident();
        }
        const ts = [];
        while (s[i] !== 'E') ts.push(type());
        i++;
        return `fn(${ts.join(', ')}) -> ${type()}`;
      }
      case 'D': {
        binder();
        const bounds = [];
        while (s[i] !== 'E') {
          let p = path();
          while (s[i] === 'p') {
            i++;
            const name = ident();
            p += `<${name} = ${type()}>`;
          }
          bounds.push(p);
        }
        i++;
        if (s[i] === 'L') {
          i++;
          base62();
        }
        return `dyn ${bounds.join(' + ')}`;
      }
      case 'B':
        return backref(type);
      default:
        i--;
        return path();
    }
  };
  const path = () => {
    const c = s[i++];
    switch (c) {
      case 'C':
        return ident();
      case 'M': {
        disamb();
        const parent = path(); // where the impl is written
        const t = type();
        // `<str>::to_lowercase` names no crate: keep the module that holds the impl.
        return /^[A-Za-z_][A-Za-z0-9_]*::/.test(t) ? `<${t}>` : `${parent}::<${t}>`;
      }
      case 'X': {
        disamb();
        path();
        const t = type();
        return `<${t} as ${path()}>`;
      }
      case 'Y': {
        const t = type();
        return `<${t} as ${path()}>`;
      }
      case 'N': {
        const ns = s[i++];
        const parent = path();
        const name = ident();
        if (ns === 'C') return `${parent}::{{closure}}`;
        if (ns === 'S') return `${parent}::{{shim}}`;
        return name ? `${parent}::${name}` : parent;
      }
      case 'I': {
        const p = path();
        return `${p}<${generics().join(', ')}>`;
      }
      case 'B':
        return backref(path);
      default:
        throw new Error(`v0: unexpected ${c}`);
    }
  };
  try {
    return path();
  } catch {
    return sym;
  }
}

function crateOf(raw) {
  const name = demangle(raw);
  const firstPath = (s) => {
    const m = /^[&*\[(\s]*(?:mut |const |dyn )*([A-Za-z_][A-Za-z0-9_]*)::/.exec(s);
    return m ? m[1] : null;
  };
  if (name.startsWith('<')) {
    // <A as B>::f — split at the top-level " as ".
    let depth = 0;
    for (let i = 1; i < name.length; i++) {
      const c = name[i];
      if (c === '<' || c === '(' || c === '[') depth++;
      else if (c === '>' || c === ')' || c === ']') {
        if (depth === 0) break; // `<A>::f` (inherent impl on a complex type)
        depth--;
      } else if (depth === 0 && name.startsWith(' as ', i)) {
        const a = firstPath(name.slice(1, i));
        const b = firstPath(name.slice(i + 4));
        return a ?? b ?? '(other)';
      }
    }
    // `<str>::to_lowercase`, `<u32>::_fmt`: inherent impls on primitive types.
    if (/^<(?:str|char|bool|[iuf](?:8|16|32|64|128|size)|\[u8\])>::/.test(name)) return 'core+alloc (primitives)';
    return firstPath(name.slice(1)) ?? '(other)';
  }
  const direct = firstPath(name);
  if (direct) return direct;
  if (/^(__|wasm_bindgen|__wbg|__wbindgen)/.test(name)) return 'wasm_bindgen';
  return '(no path: runtime / exports)';
}

const crates = new Map();
const fns = [];
const others = [];
for (let i = 0; i < bodies.length; i++) {
  const raw = names.get(importedFns + i) ?? `(unnamed #${importedFns + i})`;
  const crate = crateOf(raw);
  const size = bodies[i].length;
  const entry = crates.get(crate) ?? { bytes: 0, count: 0 };
  entry.bytes += size;
  entry.count++;
  crates.set(crate, entry);
  fns.push({ size, crate, name: demangle(raw) });
}

const pct = (n) => `${((100 * n) / code.length).toFixed(1)}%`;
const allBodies = br(Buffer.concat(bodies));
const withoutCrate = (crate) => br(Buffer.concat(bodies.filter((_, i) => fns[i].crate !== crate)));
[...crates.entries()]
  .sort((a, b) => b[1].bytes - a[1].bytes)
  .slice(0, top)
  .forEach(([crate, { bytes: n, count }], i) => {
    const marginal = allBodies - withoutCrate(crate);
    console.log(`attr: crate ${String(i + 1).padStart(2)} ${String(n).padStart(8)} ${pct(n).padStart(6)} ${String(count).padStart(5)} fns ${String(marginal).padStart(7)} br  ${crate}`);
  });
[...fns]
  .sort((a, b) => b.size - a.size)
  .slice(0, top)
  .forEach(({ size, crate, name }, i) => {
    const shown = process.env.ATTR_FULL || name.length <= 140 ? name : `${name.slice(0, 137)}...`;
    console.log(`attr: fn ${String(i + 1).padStart(2)} ${String(size).padStart(8)}  ${crate}  ${shown}`);
  });
