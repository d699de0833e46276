// chat-shell: reads chat-shell.pack (scripts/pack.mjs), the wasm files the loader fetches
// anyway, in order of need, in one file: one compressed stream in which each part finds the
// code it resembles in the files before it, and no round trip between files.
//
// The fetch starts when this module runs. The first module streams into its compiler as
// it arrives (`packedStream`); every other file is handed over once it is complete
// (`packed`). If the pack cannot be fetched, breaks off or stalls, each file it did not
// deliver whole is fetched by itself from beside it, as if there were no pack: nothing
// waits for it, nothing fails because of it.

const PACK = new URL('./chat-shell.pack', import.meta.url);
// A pack that sends nothing for this long counts as broken off.
const STALL_MS = 10_000;
const WASM = { 'Content-Type': 'application/wasm' };

const entries = new Map(); // name -> entry(): its bytes as they come
let streamedName; // the first file's name
let streamed; // its bytes as a stream, until taken
let indexed;
// Resolves once the index is read, or the pack failed before it was.
const indexRead = new Promise((resolve) => (indexed = resolve));

read().catch((error) => {
  console.warn('chat-shell: the pack did not come whole; the rest is fetched file by file', error);
  for (const entry of entries.values()) entry.fail(error);
  indexed();
});

async function read() {
  const controller = new AbortController();
  let timer;
  const watch = () => {
    clearTimeout(timer);
    timer = setTimeout(() => controller.abort(new Error('the pack stalled')), STALL_MS);
  };
  watch();
  try {
    const response = await fetch(PACK, { signal: controller.signal });
    if (!response.ok || !response.body) throw new Error(`${PACK} answered ${response.status}`);
    const reader = response.body.getReader();
    let pending = new Uint8Array(0);
    // The next `n` bytes, or null at the end of the body.
    const take = async (n) => {
      while (pending.length < n) {
        const { value, done } = await reader.read();
        watch();
        if (done) return null;
        const joined = new Uint8Array(pending.length + value.length);
        joined.set(pending);
        joined.set(value, pending.length);
        pending = joined;
      }
      const bytes = pending.subarray(0, n);
      pending = pending.subarray(n);
      return bytes;
    };
    const head = await take(8);
    if (!head || String.fromCharCode(...head.subarray(0, 4)) !== 'CSPK') throw new Error(`${PACK} is not a pack`);
    const indexBytes = await take(new DataView(head.buffer, head.byteOffset).getUint32(4, true));
    if (!indexBytes) throw new Error(`${PACK} ends in its index`);
    const list = JSON.parse(new TextDecoder().decode(indexBytes));
    streamedName = list[0][0];
    for (const [name] of list) entries.set(name, entry(name === streamedName));
    indexed();
    for (const [name, length] of list) {
      const entry = entries.get(name);
      let left = length;
      if (pending.length) {
        const bytes = pending.subarray(0, left);
        pending = pending.slice(bytes.length);
        entry.push(bytes);
        left -= bytes.length;
      }
      while (left > 0) {
        const { value, done } = await reader.read();
        watch();
        if (done) throw new Error(`${PACK} ends in ${name}`);
        const bytes = value.subarray(0, left);
        entry.push(bytes);
        left -= bytes.length;
        // What follows is copied: the entry keeps its view of the buffer, and a consumer may
        // take that buffer over.
        if (bytes.length < value.length) pending = value.slice(bytes.length);
      }
      entry.close();
    }
  } finally {
    clearTimeout(timer);
  }
}

// One file of the pack: its bytes gathered as they come, or streamed if `stream`.
function entry(stream) {
  const chunks = [];
  let settle;
  const done = new Promise((resolve) => (settle = resolve));
  const self = {
    done,
    complete: false,
    taken: false,
    // The reader hands out a new buffer with every read: views of it are kept, not copied
    // (where a read spans two files, the second's bytes are copied out, see read()).
    push(bytes) {
      if (self.stream) self.stream.enqueue(bytes);
      else chunks.push(bytes);
    },
    close() {
      self.complete = true;
      self.stream?.close();
      settle(self.stream ? null : new Blob(chunks.splice(0), { type: 'application/wasm' }));
    },
    fail(error) {
      if (self.complete) return;
      self.stream?.error(error);
      settle(null);
    },
  };
  if (stream) streamed = new ReadableStream({ start: (c) => (self.stream = c) });
  return self;
}

/**
 * The pack's first file as a streamed response, for the first module's glue; null when the
 * pack is not there or starts with something else. A stream that breaks off fails the
 * module's instantiation: the loader then fetches the file itself.
 */
export async function packedStream(name) {
  await indexRead;
  if (name !== streamedName || !streamed) return null;
  const body = streamed;
  streamed = null; // once: a second try fetches the file
  return new Response(body, { headers: WASM });
}

/**
 * A file of the pack as a response once it is complete; null if the pack does not hold it,
 * does not deliver it whole, or it was taken before (a second try): the caller then fetches
 * the file itself.
 */
export async function packed(name) {
  await indexRead;
  const found = entries.get(name);
  if (!found || name === streamedName || found.taken) return null;
  found.taken = true; // once: a second try fetches the file
  const blob = await found.done;
  return blob && new Response(blob, { headers: WASM });
}
