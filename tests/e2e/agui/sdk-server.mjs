#!/usr/bin/env node
// An AG-UI agent built on the protocol's official TypeScript SDK (@ag-ui/core for the event
// schemas, @ag-ui/encoder for the SSE framing), scripted for the end-to-end tests.
//
//   node tests/e2e/agui/sdk-server.mjs --port 0   ->  "listening on http://127.0.0.1:PORT"
//
//   POST /agent             RunAgentInput in, text/event-stream out; the scenario is picked from
//                           the last user message (see SCENARIOS), or continued when the input ends
//                           with a tool result or carries `resume`
//   GET|DELETE /requests    every RunAgentInput received so far, in order / forget them
//   GET /healthz            200
//
// Every event is checked against the SDK's zod schema before it is written, so the server cannot
// send an invalid event by mistake; the scenarios that are wrong on purpose (`disorder`, `ponder`)
// are wrong in order or in vintage, not by accident.
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { EventType, PROTOCOL_VERSION } from '@ag-ui/core';
import { EventSchemas, RunAgentInputSchema } from '@ag-ui/core/schemas';
import { EventEncoder } from '@ag-ui/encoder';

// The first keyword the last user message contains wins, in this order.
const SCENARIOS = [
  'slow', 'tool', 'weather', 'think', 'ponder', 'state', 'snapshot', 'activity', 'custom', 'fail',
  'approve', 'book', 'expired', 'twice', 'disorder', 'chunk', 'hostile',
];

const XSS_IMG = '<img src=x onerror="window.__xss=1">';
const XSS_SCRIPT = '<script>window.__xss=2</script>';
const XSS_LINK = 'javascript:alert(1)';
const HOSTILE = `${XSS_IMG} ${XSS_SCRIPT} ${XSS_LINK}`;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const id = (prefix) => `${prefix}-${randomUUID()}`;

/** The text of string-or-parts content. */
function textOf(content) {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.filter((p) => p?.type === 'text').map((p) => p.text).join('');
  return '';
}

/** One response's stream of events. */
class Stream {
  constructor(res, input) {
    this.res = res;
    this.threadId = input.threadId;
    this.runId = input.runId;
    this.encoder = new EventEncoder();
    this.closed = false;
    // A client stops a run by aborting the request: stop writing then.
    res.on('close', () => { this.closed = true; });
    res.on('error', () => { this.closed = true; });
    res.writeHead(200, {
      'Content-Type': this.encoder.getContentType(),
      'Cache-Control': 'no-cache',
      Connection: 'keep-alive',
      ...CORS,
    });
    res.flushHeaders();
  }

  /** Writes one event, after checking it against the SDK's schema unless `raw`. */
  emit(event, { raw = false } = {}) {
    if (this.closed) return;
    if (!raw) {
      const checked = EventSchemas.safeParse(event);
      if (!checked.success) {
        throw new Error(`invalid ${event.type}: ${JSON.stringify(checked.error.issues)}`);
      }
    }
    const { type, ...fields } = event;
    this.res.write(this.encoder.encodeSSE({ type, timestamp: Date.now(), ...fields }));
  }

  started(runId = this.runId) {
    this.runId = runId;
    this.emit({ type: EventType.RUN_STARTED, threadId: this.threadId, runId, protocolVersion: PROTOCOL_VERSION });
  }

  finished(extra = {}) {
    this.emit({ type: EventType.RUN_FINISHED, threadId: this.threadId, runId: this.runId, ...extra });
  }

  error(message, code) {
    this.emit({ type: EventType.RUN_ERROR, message, code });
  }

  /** A streamed assistant text message: START, one CONTENT per word, END. */
  async text(text, { gap = 15 } = {}) {
    const messageId = id('msg');
    this.emit({ type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant' });
    for (const delta of text.match(/\S+\s*/g) ?? []) {
      await sleep(gap);
      this.emit({ type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta });
    }
    this.emit({ type: EventType.TEXT_MESSAGE_END, messageId });
    return messageId;
  }

  /** A tool call whose JSON arguments arrive in the given pieces. */
  async toolCall(toolCallName, pieces, parentMessageId) {
    const toolCallId = id('call');
    this.emit({ type: EventType.TOOL_CALL_START, toolCallId, toolCallName, parentMessageId });
    for (const delta of pieces) {
      await sleep(15);
      this.emit({ type: EventType.TOOL_CALL_ARGS, toolCallId, delta });
    }
    this.emit({ type: EventType.TOOL_CALL_END, toolCallId });
    return toolCallId;
  }

  toolResult(toolCallId, content) {
    this.emit({ type: EventType.TOOL_CALL_RESULT, messageId: id('result'), toolCallId, content, role: 'tool' });
  }

  /** A run that stops for the user: RUN_FINISHED with an interrupt outcome. */
  interrupt(interrupt) {
    this.finished({ outcome: { type: 'interrupt', interrupts: [interrupt] } });
  }

  async reasoning(deltas) {
    const messageId = id('reasoning');
    this.emit({ type: EventType.REASONING_START, messageId });
    this.emit({ type: EventType.REASONING_MESSAGE_START, messageId, role: 'reasoning' });
    for (const delta of deltas) {
      await sleep(15);
      this.emit({ type: EventType.REASONING_MESSAGE_CONTENT, messageId, delta });
    }
    this.emit({ type: EventType.REASONING_MESSAGE_END, messageId });
    return messageId;
  }
}

// Each scenario runs after RUN_STARTED and says itself how the run ends.
const run = {
  async slow(s) {
    const messageId = id('msg');
    s.emit({ type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant' });
    for (let n = 1; n <= 120 && !s.closed; n++) {
      s.emit({ type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta: `word ${n} ` });
      await sleep(50);
    }
    s.emit({ type: EventType.TEXT_MESSAGE_END, messageId });
    s.finished();
  },

  async tool(s) {
    // Frameworks open (and close) an empty assistant message that the tool call hangs from.
    const messageId = id('msg');
    s.emit({ type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant' });
    s.emit({ type: EventType.TEXT_MESSAGE_END, messageId });
    const call = await s.toolCall('search_docs', ['{"query":', '"release ', 'notes"}'], messageId);
    s.toolResult(call, '3 results');
    await s.text('Found 3 results for release notes.');
    s.finished();
  },

  async weather(s, input) {
    if (!(input.tools ?? []).some((t) => t.name === 'get_weather')) {
      s.error('get_weather is not declared', 'undeclared_tool');
      return;
    }
    // A tool the page runs: the run ends with the call, and the page posts the result.
    await s.toolCall('get_weather', ['{"city":', '"Paris"}']);
    s.finished();
  },

  async think(s) {
    const messageId = await s.reasoning(['Let me think about ', 'the question.']);
    s.emit({ type: EventType.REASONING_ENCRYPTED_VALUE, subtype: 'message', entityId: messageId, encryptedValue: 'enc-abc123' });
    s.emit({ type: EventType.REASONING_END, messageId });
    await s.text('Here is the answer after thinking.');
    s.finished();
  },

  async ponder(s) {
    // The pre-1.0 THINKING_* events, which @ag-ui/core 1.0 no longer has a schema for: raw.
    const raw = { raw: true };
    s.emit({ type: 'THINKING_START', title: 'Pondering' }, raw);
    s.emit({ type: 'THINKING_TEXT_MESSAGE_START' }, raw);
    for (const delta of ['Let me ponder ', 'the question.']) {
      await sleep(15);
      s.emit({ type: 'THINKING_TEXT_MESSAGE_CONTENT', delta }, raw);
    }
    s.emit({ type: 'THINKING_TEXT_MESSAGE_END' }, raw);
    s.emit({ type: 'THINKING_END' }, raw);
    await s.text('Answer after pondering.');
    s.finished();
  },

  async state(s, input) {
    const counter = typeof input.state?.counter === 'number' ? input.state.counter : 0;
    s.emit({ type: EventType.STATE_SNAPSHOT, snapshot: { counter: counter + 1, items: ['a'] } });
    s.emit({
      type: EventType.STATE_DELTA,
      delta: [
        { op: 'add', path: '/items/-', value: 'b' },
        { op: 'replace', path: '/counter', value: counter + 2 },
      ],
    });
    await s.text(`Counter was ${counter}, now ${counter + 2}.`);
    s.finished();
  },

  async snapshot(s) {
    s.emit({
      type: EventType.MESSAGES_SNAPSHOT,
      messages: [
        { id: id('user'), role: 'user', content: 'Earlier question' },
        { id: id('assistant'), role: 'assistant', content: 'Earlier answer from the snapshot' },
      ],
    });
    s.finished();
  },

  async activity(s) {
    s.emit({ type: EventType.ACTIVITY_SNAPSHOT, messageId: 'act-1', activityType: 'PLAN', content: { steps: ['one', 'two'] } });
    await sleep(15);
    s.emit({ type: EventType.ACTIVITY_DELTA, messageId: 'act-1', activityType: 'PLAN', patch: [{ op: 'add', path: '/steps/-', value: 'three' }] });
    // A type no client knows: it must still show (or skip) it without breaking.
    s.emit({ type: EventType.ACTIVITY_SNAPSHOT, messageId: 'act-2', activityType: 'mystery_widget', content: { x: 1 } });
    await s.text('Activity sent.');
    s.finished();
  },

  async custom(s) {
    s.emit({ type: EventType.CUSTOM, name: 'confetti', value: { count: 3 } });
    s.emit({ type: EventType.RAW, event: { anything: true }, source: 'test' });
    s.emit({ type: EventType.STEP_STARTED, stepName: 'lookup' });
    await sleep(15);
    s.emit({ type: EventType.STEP_FINISHED, stepName: 'lookup' });
    await s.text('Custom events sent.');
    s.finished();
  },

  async fail(s) {
    await s.text('Starting…');
    s.error('The model is overloaded', 'overloaded');
  },

  async approve(s) {
    s.interrupt({ id: 'int-approve', reason: 'approval', message: 'Delete 3 files from the workspace?' });
  },

  async book(s) {
    s.interrupt({
      id: 'int-form',
      reason: 'input',
      message: 'Which city?',
      responseSchema: {
        type: 'object',
        properties: { city: { type: 'string', title: 'City' }, nights: { type: 'integer', title: 'Nights' } },
        required: ['city'],
      },
    });
  },

  async expired(s) {
    const expiresAt = new Date(Date.now() - 3600_000).toISOString();
    s.interrupt({ id: 'int-old', reason: 'approval', message: 'Too late?', expiresAt });
  },

  async twice(s) {
    await s.text('First run.');
    s.finished();
    s.started(id('run'));
    await s.text('Second run.');
    s.finished();
  },

  async disorder(s) {
    await s.text('Before the end.');
    s.finished();
    // A message after RUN_FINISHED with no new RUN_STARTED: a protocol error the client must show.
    await s.text('After the end');
  },

  async chunk(s) {
    const messageId = id('msg');
    s.emit({ type: EventType.TEXT_MESSAGE_CHUNK, messageId, role: 'assistant', delta: 'Chunked ' });
    for (const delta of ['text ', 'arrives.']) {
      await sleep(15);
      s.emit({ type: EventType.TEXT_MESSAGE_CHUNK, delta });
    }
    const toolCallId = id('call');
    s.emit({ type: EventType.TOOL_CALL_CHUNK, toolCallId, toolCallName: 'search_docs', parentMessageId: messageId, delta: '{"query":' });
    await sleep(15);
    s.emit({ type: EventType.TOOL_CALL_CHUNK, delta: '"chunks"}' });
    s.toolResult(toolCallId, '2 results');
    s.finished();
  },

  async hostile(s) {
    // Markup and a javascript: link in every field a client may show; the run ends normally.
    await s.text(`Look: ${HOSTILE} and [click me](${XSS_LINK}) done.`);
    const call = await s.toolCall(XSS_IMG, [JSON.stringify({ html: XSS_IMG, script: XSS_SCRIPT, url: XSS_LINK })]);
    s.toolResult(call, HOSTILE);
    const reasoningId = await s.reasoning([`${XSS_IMG} `, XSS_SCRIPT]);
    s.emit({ type: EventType.REASONING_END, messageId: reasoningId });
    s.emit({ type: EventType.ACTIVITY_SNAPSHOT, messageId: id('act'), activityType: XSS_IMG, content: { title: XSS_IMG, steps: [XSS_SCRIPT, XSS_LINK] } });
    s.emit({ type: EventType.STEP_STARTED, stepName: XSS_IMG });
    s.emit({ type: EventType.STEP_FINISHED, stepName: XSS_IMG });
    s.emit({ type: EventType.CUSTOM, name: XSS_IMG, value: { html: XSS_SCRIPT } });
    s.finished();
  },

  async default(s, input, lastUserText) {
    await s.text(`You said: “${lastUserText}”. I have ${input.messages.length} messages.`);
    s.finished();
  },
};

// The runs that answer a client tool result or an interrupt.
const resumeRun = {
  async 'int-approve'(s, entry) {
    const approved = entry.status === 'resolved' && entry.payload?.approved === true;
    await s.text(approved ? 'Approved: deleting 3 files.' : 'Rejected: nothing was deleted.');
    s.finished();
  },

  async 'int-form'(s, entry) {
    if (entry.status !== 'resolved') await s.text('Booking cancelled.');
    else await s.text(`Booked ${entry.payload?.nights ?? 1} nights in ${entry.payload?.city}.`);
    s.finished();
  },

  async 'int-old'(s) {
    s.error('interrupt int-old expired', 'interrupt_expired');
  },
};

async function toolResultRun(s, input, toolMessage) {
  const call = input.messages
    .flatMap((m) => (m.role === 'assistant' ? m.toolCalls ?? [] : []))
    .find((c) => c.id === toolMessage.toolCallId);
  const content = textOf(toolMessage.content);
  if (call?.function?.name === 'get_weather') {
    await s.text(toolMessage.error
      ? `The weather tool failed: ${toolMessage.error || content}`
      : `The weather tool said: ${content}`);
  } else {
    await s.text(`The ${call?.function?.name ?? 'unknown'} tool returned: ${content}`);
  }
  s.finished();
}

async function agent(res, input) {
  const s = new Stream(res, input);
  try {
    s.started();
    const last = input.messages.at(-1);
    if (input.resume?.length) {
      const entry = input.resume[0];
      const handler = resumeRun[entry.interruptId];
      if (handler) await handler(s, entry);
      else s.error(`unknown interrupt ${entry.interruptId}`, 'unknown_interrupt');
    } else if (last?.role === 'tool') {
      await toolResultRun(s, input, last);
    } else {
      const lastUserText = textOf(input.messages.findLast((m) => m.role === 'user')?.content);
      const lowered = lastUserText.toLowerCase();
      const scenario = SCENARIOS.find((k) => lowered.includes(k)) ?? 'default';
      await run[scenario](s, input, lastUserText);
    }
  } catch (err) {
    // A bug in this server (an event its own SDK rejects): say so on the stream and in the log.
    console.error(`sdk-server: ${err.stack}`);
    s.error(`test server bug: ${err.message}`, 'test_server_bug');
  }
  res.end();
}

// The page under test may be on another origin: answer preflights permissively.
const CORS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'GET, POST, DELETE, OPTIONS',
  'Access-Control-Allow-Headers': '*',
  'Access-Control-Max-Age': '600',
};

const received = [];

function json(res, status, value) {
  res.writeHead(status, { 'Content-Type': 'application/json', ...CORS });
  res.end(JSON.stringify(value));
}

async function readBody(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

const server = http.createServer(async (req, res) => {
  const path = new URL(req.url, 'http://localhost').pathname;
  if (req.method === 'OPTIONS') {
    const extra = req.headers['access-control-request-private-network'] ? { 'Access-Control-Allow-Private-Network': 'true' } : {};
    res.writeHead(204, { ...CORS, ...extra, 'Access-Control-Allow-Headers': req.headers['access-control-request-headers'] || '*' });
    res.end();
  } else if (path === '/healthz' && req.method === 'GET') {
    json(res, 200, { ok: true });
  } else if (path === '/requests' && req.method === 'GET') {
    json(res, 200, received);
  } else if (path === '/requests' && req.method === 'DELETE') {
    received.length = 0;
    res.writeHead(204, CORS);
    res.end();
  } else if (path === '/agent' && req.method === 'POST') {
    let body;
    try {
      body = JSON.parse(await readBody(req));
    } catch (err) {
      json(res, 400, { error: `body is not JSON: ${err.message}` });
      return;
    }
    received.push(body);
    // Hold the client to the SDK's own RunAgentInput, as a framework's server would.
    const checked = RunAgentInputSchema.safeParse(body);
    if (!checked.success) {
      json(res, 422, { error: 'not a RunAgentInput', issues: checked.error.issues });
      return;
    }
    await agent(res, body);
  } else {
    json(res, 404, { error: `no route ${req.method} ${path}` });
  }
});

const portArg = process.argv.indexOf('--port');
const port = portArg >= 0 ? Number(process.argv[portArg + 1]) : 0;
server.listen(port, '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}`);
});
