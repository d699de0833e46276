// Starts the two AG-UI test servers for the end-to-end tests:
//   startSdkServer()        tests/e2e/agui/sdk-server.mjs, built on the official @ag-ui/core + @ag-ui/encoder
//   startFrameworkServer()  tests/e2e/agui/framework/server.py, Pydantic AI's own AG-UI adapter with a
//                           scripted model, in the venv scripts/setup.sh makes (target/agui-venv)
// Each resolves to { url, endpoint, requests(), clearRequests(), close() } once its server printed
// "listening on http://127.0.0.1:PORT".
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../../..');
const SDK_SERVER = path.join(HERE, 'sdk-server.mjs');
const FRAMEWORK_SERVER = path.join(HERE, 'framework', 'server.py');
// AGUI_PYTHON overrides the venv's interpreter (one with tests/e2e/agui/framework/requirements.txt).
const PYTHON = process.env.AGUI_PYTHON || path.join(ROOT, 'target', 'agui-venv', 'bin', 'python');
const START_TIMEOUT = 60_000;
const LISTENING = /listening on (http:\/\/127\.0\.0\.1:\d+)/;

export function startSdkServer() {
  return start('sdk-server.mjs', process.execPath, [SDK_SERVER, '--port', '0']);
}

export function startFrameworkServer() {
  if (!existsSync(PYTHON)) {
    return Promise.reject(new Error(`${PYTHON} is missing: run ./scripts/setup.sh (it makes target/agui-venv)`));
  }
  return start('framework/server.py', PYTHON, [FRAMEWORK_SERVER, '--port', '0']);
}

async function start(name, command, args) {
  const child = spawn(command, args, {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PYTHONUNBUFFERED: '1' },
  });
  // Last resort if the test process exits without calling close().
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk) => {
    stderr = (stderr + chunk).slice(-20_000);
    if (process.env.AGUI_VERBOSE) process.stderr.write(`[${name}] ${chunk}`);
  });
  const closed = new Promise((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));

  const close = async () => {
    process.removeListener('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3_000);
      await closed;
      clearTimeout(timer);
    }
  };

  let timer;
  let url;
  try {
    url = await new Promise((resolve, reject) => {
      const fail = (why) => reject(new Error(`AG-UI test server ${name} ${why}; its stderr:\n${stderr}`));
      timer = setTimeout(() => fail(`printed no "listening on" line within ${START_TIMEOUT / 1000} s`), START_TIMEOUT);
      child.once('error', (err) => fail(`could not start (${err.message})`));
      closed.then(({ code, signal }) => fail(`exited (code ${code}, signal ${signal}) before listening`));
      child.stdout.setEncoding('utf8').on('data', (chunk) => {
        stdout += chunk;
        const m = LISTENING.exec(stdout);
        if (m) resolve(m[1]);
      });
    });
  } catch (err) {
    await close();
    throw err;
  } finally {
    clearTimeout(timer);
  }

  const call = async (method) => {
    const res = await fetch(`${url}/requests`, { method });
    if (!res.ok) throw new Error(`${method} ${url}/requests: HTTP ${res.status}`);
    return method === 'GET' ? res.json() : undefined;
  };
  return {
    url,
    endpoint: `${url}/agent`,
    /** Every RunAgentInput the server received so far, in order. */
    requests: () => call('GET'),
    clearRequests: () => call('DELETE'),
    /** The server's stderr so far (its last 20,000 characters). */
    stderr: () => stderr,
    close,
  };
}
