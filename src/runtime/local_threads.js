// AG-UI conversations kept in this browser (IndexedDB), per endpoint: AG-UI has no thread
// list, so History lists what was said here. One record per thread: its title, times,
// AG-UI messages and the conversation's own facts (shared state, interrupts…).
const DB = 'chat-shell';
const STORE = 'ag-ui-threads';
// The most threads kept per endpoint: the oldest go first.
const MAX_THREADS = 200;

let opened;

function db() {
  opened ??= new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => {
      const store = req.result.createObjectStore(STORE, { keyPath: ['endpoint', 'id'] });
      store.createIndex('endpoint', 'endpoint');
    };
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => {
      opened = undefined;
      reject(req.error);
    };
  });
  return opened;
}

function done(request) {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

async function store(mode) {
  return (await db()).transaction(STORE, mode).objectStore(STORE);
}

const newestFirst = (a, b) => String(b.updatedAt).localeCompare(String(a.updatedAt));

/** The endpoint's threads, newest first: `[{id, title, createdAt, updatedAt}]`. */
export async function listThreads(endpoint) {
  const all = await done((await store('readonly')).index('endpoint').getAll(endpoint));
  return all.sort(newestFirst).map(({ id, title, createdAt, updatedAt }) => ({ id, title, createdAt, updatedAt }));
}

/** One thread's record, or `null`. */
export async function loadThread(endpoint, id) {
  return (await done((await store('readonly')).get([endpoint, id]))) ?? null;
}

/** Keep `json`, a record `{id, title, createdAt, updatedAt, messages, conversation}`. */
export async function saveThread(endpoint, json) {
  const record = JSON.parse(json);
  const threads = await store('readwrite');
  await done(threads.put({ ...record, endpoint }));
  const all = await done(threads.index('endpoint').getAll(endpoint));
  for (const old of all.sort(newestFirst).slice(MAX_THREADS)) {
    await done(threads.delete([endpoint, old.id]));
  }
}

/** Forget a thread. */
export async function deleteThread(endpoint, id) {
  await done((await store('readwrite')).delete([endpoint, id]));
}

/** Rename a thread; resolves to whether it was there. */
export async function renameThread(endpoint, id, title) {
  const threads = await store('readwrite');
  const record = await done(threads.get([endpoint, id]));
  if (!record) return false;
  await done(threads.put({ ...record, title }));
  return true;
}
