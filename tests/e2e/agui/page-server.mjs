// A static server for the AG-UI end-to-end tests: dist/ as it is, and a page holding
// <chat-shell protocol="ag-ui"> pointed at an agent on another origin (the reference
// runtime's pages allow no other origin, as a page of a real site would choose).
//   GET /page?endpoint=<agent url>   the page; it declares the client tool get_weather
import { readFile, stat } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';

const TYPES = {
  '.js': 'text/javascript',
  '.wasm': 'application/wasm',
  '.css': 'text/css',
  '.html': 'text/html',
  '.pack': 'application/octet-stream',
  '.json': 'application/json',
};

function page(endpoint) {
  const attr = endpoint.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,">
<title>AG-UI test page</title>
<script type="module" src="/chat-shell.js"></script>
<script type="module">
  await customElements.whenDefined('chat-shell');
  const shell = document.querySelector('chat-shell');
  window.__weatherCalls = [];
  shell.registerClientTool('get_weather', async (args) => {
    window.__weatherCalls.push(args);
    if (window.__weatherFails) throw new Error('the weather service is down');
    return { city: args.city, sky: 'clear', celsius: 21 };
  }, {
    description: 'The current weather in a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  });
  window.__states = [];
  shell.addEventListener('chat.state', (e) => window.__states.push(e.detail.state));
  window.__custom = [];
  shell.addEventListener('chat.custom', (e) => window.__custom.push(e.detail));
  shell.addEventListener('chat.raw', (e) => window.__custom.push({ raw: e.detail }));
</script>
</head><body style="margin:0">
<chat-shell protocol="ag-ui" endpoint="${attr}" style="height:100vh"></chat-shell>
</body></html>`;
}

/** Serves `dist` and the test page; resolves to `{url, close()}`. */
export function startPageServer(dist) {
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url, 'http://localhost');
    if (url.pathname === '/page') {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
      return res.end(page(url.searchParams.get('endpoint') ?? ''));
    }
    const file = path.join(dist, path.normalize(decodeURIComponent(url.pathname)).replace(/^([/\\])+/, ''));
    if (!file.startsWith(dist)) {
      res.writeHead(404);
      return res.end();
    }
    try {
      if (!(await stat(file)).isFile()) throw new Error('not a file');
      const body = await readFile(file);
      res.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404);
      res.end();
    }
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () => new Promise((done) => server.close(() => done())),
      });
    });
  });
}
