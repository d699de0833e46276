// The two AG-UI test servers (tests/e2e/agui/) behave as documented: real HTTP, the SSE parsed,
// every event checked against @ag-ui/core's 1.0 schema. No browser.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { EventSchemas } from '@ag-ui/core/schemas';
import { startFrameworkServer, startSdkServer } from './agui/servers.mjs';

const WEATHER_TOOL = {
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

function input({ messages, tools = [], state = {}, resume } = {}) {
  return { threadId: 'thread-1', runId: `run-${randomUUID()}`, state, messages, tools, context: [], forwardedProps: {}, ...(resume ? { resume } : {}) };
}

const user = (content) => ({ id: `u-${randomUUID()}`, role: 'user', content });

/** POSTs a RunAgentInput and returns the parsed events. */
async function run(server, body) {
  const res = await fetch(server.endpoint, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' },
    body: JSON.stringify(body),
  });
  assert.equal(res.status, 200, await res.clone().text());
  assert.match(res.headers.get('content-type'), /^text\/event-stream/);
  const events = (await res.text())
    .split(/\r?\n\r?\n/)
    .map((frame) => frame.split(/\r?\n/).filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trimStart()).join('\n'))
    .filter(Boolean)
    .map((data) => JSON.parse(data));
  for (const event of events) {
    if (event.type.startsWith('THINKING_')) continue; // pre-1.0 events, sent on purpose (`ponder`)
    const checked = EventSchemas.safeParse(event);
    assert.ok(checked.success, `invalid event ${JSON.stringify(event)}: ${JSON.stringify(checked.error?.issues)}`);
  }
  return events;
}

const types = (events) => events.map((e) => e.type);
const deltas = (events) => events.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT').map((e) => e.delta);
/** The text of the last streamed text message. */
function lastText(events) {
  const id = events.findLast((e) => e.type === 'TEXT_MESSAGE_CONTENT')?.messageId;
  return events.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT' && e.messageId === id).map((e) => e.delta).join('');
}

/** The assistant message a client builds from a run's tool call events, to send back. */
function assistantWithToolCalls(events) {
  const calls = new Map();
  for (const e of events) {
    if (e.type === 'TOOL_CALL_START') calls.set(e.toolCallId, { id: e.toolCallId, type: 'function', function: { name: e.toolCallName, arguments: '' } });
    if (e.type === 'TOOL_CALL_ARGS') calls.get(e.toolCallId).function.arguments += e.delta;
  }
  return { id: `a-${randomUUID()}`, role: 'assistant', toolCalls: [...calls.values()] };
}

function assertRun(events, body) {
  assert.equal(events[0].type, 'RUN_STARTED');
  assert.equal(events[0].threadId, body.threadId);
  assert.equal(events[0].runId, body.runId);
  assert.equal(events.at(-1).type, 'RUN_FINISHED');
}

const SERVERS = [
  ['sdk server', startSdkServer],
  ['framework server (Pydantic AI)', startFrameworkServer],
];

for (const [name, startServer] of SERVERS) {
  const sdk = startServer === startSdkServer;
  describe(name, () => {
    let server;
    before(async () => { server = await startServer(); });
    after(async () => { await server?.close(); });

    test('healthz, CORS preflight, and the record of requests', async () => {
      assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
      const preflight = await fetch(server.endpoint, {
        method: 'OPTIONS',
        headers: { Origin: 'http://elsewhere.test', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' },
      });
      assert.ok(preflight.ok, `preflight: HTTP ${preflight.status}`);
      assert.ok(preflight.headers.get('access-control-allow-origin'), 'no Access-Control-Allow-Origin');
      await server.clearRequests();
      const first = input({ messages: [user('one')] });
      const second = input({ messages: [user('two')] });
      await run(server, first);
      await run(server, second);
      assert.deepEqual((await server.requests()).map((r) => r.runId), [first.runId, second.runId]);
      await server.clearRequests();
      assert.deepEqual(await server.requests(), []);
    });

    test('plain text: an echo with the message count, streamed in several deltas', async () => {
      const body = input({ messages: [user('Hello there')] });
      const events = await run(server, body);
      assertRun(events, body);
      assert.deepEqual(types(events).slice(1, 3), ['TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT']);
      assert.equal(events.find((e) => e.type === 'TEXT_MESSAGE_START').role, 'assistant');
      assert.ok(deltas(events).length >= 3);
      assert.equal(lastText(events), 'You said: “Hello there”. I have 1 messages.');

      const later = input({ messages: [user('Hi'), { id: 'a1', role: 'assistant', content: 'Hello!' }, user('Again')] });
      assert.equal(lastText(await run(server, later)), 'You said: “Again”. I have 3 messages.');
    });

    test('tool: a backend tool call, its result, then the answer', async () => {
      const body = input({ messages: [user('Use the tool please')] });
      const events = await run(server, body);
      assertRun(events, body);
      const start = events.find((e) => e.type === 'TOOL_CALL_START');
      assert.equal(start.toolCallName, 'search_docs');
      const [call] = assistantWithToolCalls(events).toolCalls;
      assert.deepEqual(JSON.parse(call.function.arguments), { query: 'release notes' });
      const result = events.find((e) => e.type === 'TOOL_CALL_RESULT');
      assert.equal(result.toolCallId, start.toolCallId);
      assert.equal(result.content, '3 results');
      // The empty assistant message frameworks open before a tool call.
      const first = events.find((e) => e.type === 'TEXT_MESSAGE_START');
      assert.equal(events[events.indexOf(first) + 1].type, 'TEXT_MESSAGE_END');
      assert.equal(start.parentMessageId, first.messageId);
      assert.ok(types(events).indexOf('TOOL_CALL_END') < types(events).indexOf('TOOL_CALL_RESULT'));
      assert.equal(lastText(events), 'Found 3 results for release notes.');
    });

    test('weather: the page’s tool, called only when declared, then its result answered', async () => {
      const undeclared = await run(server, input({ messages: [user('What is the weather?')] }));
      if (sdk) {
        assert.deepEqual(undeclared.at(-1), { ...undeclared.at(-1), type: 'RUN_ERROR', message: 'get_weather is not declared', code: 'undeclared_tool' });
      } else {
        assert.equal(undeclared.at(-1).type, 'RUN_FINISHED');
        assert.equal(lastText(undeclared), 'I cannot check the weather: no get_weather tool was declared.');
      }

      const question = user('What is the weather?');
      const body = input({ messages: [question], tools: [WEATHER_TOOL] });
      const events = await run(server, body);
      assertRun(events, body);
      const assistant = assistantWithToolCalls(events);
      assert.equal(assistant.toolCalls.length, 1);
      assert.equal(assistant.toolCalls[0].function.name, 'get_weather');
      assert.deepEqual(JSON.parse(assistant.toolCalls[0].function.arguments), { city: 'Paris' });
      assert.ok(!types(events).includes('TOOL_CALL_RESULT'), 'the page runs this tool, not the server');
      assert.equal(events.findLast((e) => e.type.startsWith('TOOL_CALL')).type, 'TOOL_CALL_END');

      const toolMessage = { id: `t-${randomUUID()}`, role: 'tool', toolCallId: assistant.toolCalls[0].id, content: 'Sunny, 21 °C' };
      const followUp = input({ messages: [question, assistant, toolMessage], tools: [WEATHER_TOOL] });
      const answer = await run(server, followUp);
      assertRun(answer, followUp);
      assert.equal(lastText(answer), 'The weather tool said: Sunny, 21 °C');

      const failed = input({ messages: [question, assistant, { ...toolMessage, content: 'no data', error: 'network down' }], tools: [WEATHER_TOOL] });
      // The SDK server reports the error; Pydantic AI keeps only the content of a failed tool message.
      assert.equal(lastText(await run(server, failed)), `The weather tool failed: ${sdk ? 'network down' : 'no data'}`);
    });

    test('approve: a run that ends in an interrupt, resumed approved, rejected and cancelled', async () => {
      const question = user('Please approve the cleanup');
      const body = input({ messages: [question] });
      const events = await run(server, body);
      assertRun(events, body);
      const { outcome } = events.at(-1);
      assert.equal(outcome.type, 'interrupt');
      assert.equal(outcome.interrupts.length, 1);
      const [interrupt] = outcome.interrupts;
      assert.ok(interrupt.id && interrupt.reason, JSON.stringify(interrupt));
      if (sdk) assert.deepEqual(interrupt, { id: 'int-approve', reason: 'approval', message: 'Delete 3 files from the workspace?' });
      else assert.equal(interrupt.reason, 'tool_call');

      // A client sends back the conversation it holds, the interrupted call included.
      const messages = assistantWithToolCalls(events).toolCalls.length ? [question, assistantWithToolCalls(events)] : [question];
      const resume = async (entry) => lastText(await run(server, input({ messages, resume: [{ interruptId: interrupt.id, ...entry }] })));
      assert.equal(await resume({ status: 'resolved', payload: { approved: true } }), 'Approved: deleting 3 files.');
      assert.equal(await resume({ status: 'resolved', payload: { approved: false } }), 'Rejected: nothing was deleted.');
      assert.equal(await resume({ status: 'cancelled' }), 'Rejected: nothing was deleted.');
    });
  });
}

describe('sdk server only', () => {
  let server;
  before(async () => { server = await startSdkServer(); });
  after(async () => { await server?.close(); });

  test('state: a snapshot from the input state, then a JSON Patch delta', async () => {
    const body = input({ messages: [user('Bump the state')], state: { counter: 4 } });
    const events = await run(server, body);
    assertRun(events, body);
    assert.deepEqual(events.find((e) => e.type === 'STATE_SNAPSHOT').snapshot, { counter: 5, items: ['a'] });
    assert.deepEqual(events.find((e) => e.type === 'STATE_DELTA').delta, [
      { op: 'add', path: '/items/-', value: 'b' },
      { op: 'replace', path: '/counter', value: 6 },
    ]);
    assert.equal(lastText(events), 'Counter was 4, now 6.');
  });

  test('twice: two complete runs in one stream', async () => {
    const body = input({ messages: [user('Run twice')] });
    const events = await run(server, body);
    assert.deepEqual(types(events).filter((t) => t.startsWith('RUN_')), ['RUN_STARTED', 'RUN_FINISHED', 'RUN_STARTED', 'RUN_FINISHED']);
    const [first, second] = events.filter((e) => e.type === 'RUN_STARTED');
    assert.equal(first.runId, body.runId);
    assert.notEqual(second.runId, first.runId);
    assert.equal(deltas(events).join(''), 'First run.Second run.');
  });

  test('disorder: a text message after RUN_FINISHED with no new RUN_STARTED', async () => {
    const events = await run(server, input({ messages: [user('disorder')] }));
    const end = types(events).indexOf('RUN_FINISHED');
    assert.deepEqual(types(events).slice(end + 1), ['TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_END']);
    assert.ok(!types(events).slice(end + 1).includes('RUN_STARTED'));
    assert.equal(lastText(events), 'After the end');
  });

  test('the other scenarios send what they promise', async () => {
    const expect = {
      think: ['REASONING_START', 'REASONING_MESSAGE_START', 'REASONING_MESSAGE_CONTENT', 'REASONING_MESSAGE_END', 'REASONING_ENCRYPTED_VALUE', 'REASONING_END'],
      ponder: ['THINKING_START', 'THINKING_TEXT_MESSAGE_START', 'THINKING_TEXT_MESSAGE_CONTENT', 'THINKING_TEXT_MESSAGE_END', 'THINKING_END'],
      snapshot: ['MESSAGES_SNAPSHOT'],
      activity: ['ACTIVITY_SNAPSHOT', 'ACTIVITY_DELTA'],
      custom: ['CUSTOM', 'RAW', 'STEP_STARTED', 'STEP_FINISHED'],
      chunk: ['TEXT_MESSAGE_CHUNK', 'TOOL_CALL_CHUNK', 'TOOL_CALL_RESULT'],
      hostile: ['TOOL_CALL_START', 'TOOL_CALL_RESULT', 'REASONING_MESSAGE_CONTENT', 'ACTIVITY_SNAPSHOT', 'STEP_STARTED'],
      fail: ['RUN_ERROR'],
    };
    for (const [scenario, wanted] of Object.entries(expect)) {
      const events = await run(server, input({ messages: [user(`Scenario ${scenario}`)] }));
      for (const type of wanted) assert.ok(types(events).includes(type), `${scenario}: no ${type} in ${types(events)}`);
    }
    const hostile = JSON.stringify(await run(server, input({ messages: [user('hostile')] })));
    for (const needle of ['onerror=', '<script>', 'javascript:alert(1)']) assert.ok(hostile.includes(needle.replaceAll('"', '\\"')));
  });

  test('book and expired: interrupts with a form and with a past expiry', async () => {
    const booked = await run(server, input({ messages: [user('book a room')] }));
    const [form] = booked.at(-1).outcome.interrupts;
    assert.equal(form.id, 'int-form');
    assert.deepEqual(form.responseSchema.required, ['city']);
    const answer = await run(server, input({ messages: [user('book a room')], resume: [{ interruptId: 'int-form', status: 'resolved', payload: { city: 'Lyon', nights: 2 } }] }));
    assert.equal(lastText(answer), 'Booked 2 nights in Lyon.');

    const old = (await run(server, input({ messages: [user('expired')] }))).at(-1).outcome.interrupts[0];
    assert.ok(Date.parse(old.expiresAt) < Date.now());
    const late = await run(server, input({ messages: [user('expired')], resume: [{ interruptId: 'int-old', status: 'resolved', payload: {} }] }));
    assert.deepEqual(types(late), ['RUN_STARTED', 'RUN_ERROR']);
    assert.equal(late.at(-1).code, 'interrupt_expired');
  });

  test('slow: a client that aborts stops the stream, and the server goes on serving', async () => {
    const controller = new AbortController();
    const res = await fetch(server.endpoint, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(input({ messages: [user('slow please')] })),
      signal: controller.signal,
    });
    const reader = res.body.getReader();
    let seen = '';
    while (!seen.includes('word 3 ')) seen += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    await assert.rejects(reader.read());
    assert.equal(lastText(await run(server, input({ messages: [user('still there?')] }))), 'You said: “still there?”. I have 1 messages.');
  });
});
