// The protobuf transport: the real @ag-ui/client 1.0.0 asks for it with its Accept
// header (through a fetch of its own, see protobufFetch), and decodes every built-in
// scenario to the same events, messages and state as over SSE; faults and cancel act in
// protobuf terms.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { journalEntry } from './admin.js';
import { assertCleanRun, CLIENTS, Conversation, PROTO_MEDIA_TYPE } from './clients.js';
import { useServer } from './harness.js';
import { cancelThread } from './threads.js';

const server = useServer();
const [client] = CLIENTS; // 1.0.0: 0.0.58's protobuf decoder predates the 1.0 .proto
assert.equal(client.version, '1.0.0');

/** The built-in scenarios with their examples: the server loads no others. */
async function builtinScenarios() {
  const res = await fetch(`${server.url}/_mock/scenarios`);
  assert.equal(res.status, 200);
  return (await res.json()).scenarios;
}

/** What the client saw of a run, without the timestamps that differ between two runs. */
function seen(run) {
  return {
    events: run.events.map(({ timestamp, ...event }) => event),
    messages: run.agent.messages,
    state: run.agent.state,
    finished: run.finished,
  };
}

/**
 * Plays a scenario example in a new conversation over a transport, on a thread and a
 * run (and user message) of the given ids, under a test id of its own so that two transports' runs of one
 * thread do not meet. The server's --seed makes both play the same ids and data.
 */
async function play(example, transport, threadId, runId) {
  const conversation = new Conversation(client, {
    url: server.url,
    route: example.route,
    headers: { ...example.headers, 'X-Test-Id': `${threadId}-${transport}` },
    state: example.state,
    threadId,
    transport,
  });
  return conversation.send(example.message ?? '', { runId, messageId: `user-${runId}`, forwardedProps: example.forwardedProps, tools: example.input.tools });
}

describe('the protobuf transport with @ag-ui/client 1.0.0', () => {
  test('every built-in scenario decodes to the same events, messages and state as over SSE', async (t) => {
    const scenarios = await builtinScenarios();
    assert.ok(scenarios.length >= 5, `only ${scenarios.length} built-in scenarios listed`);
    for (const scenario of scenarios) {
      for (const [i, example] of scenario.examples.entries()) {
        await t.test(`${scenario.id} example ${i + 1}`, async () => {
          const threadId = `thread-${randomUUID()}`;
          const runId = `run-${randomUUID()}`;
          const overSSE = await play(example, 'sse', threadId, runId);
          const overProto = await play(example, 'proto', threadId, runId);
          if (!scenario.broken) {
            assertCleanRun(overSSE);
            assertCleanRun(overProto);
          }
          assert.deepEqual(seen(overProto), seen(overSSE));
          const log = await server.waitForLog((r) => r.msg === 'run' && r.run === runId && r.transport === 'proto');
          assert.equal(log.scenario, scenario.id);
          assert.equal(log.events, overProto.events.length);
        });
      }
    }
  });

  test('the response carries the protobuf media type, and X-Agui-Mock-Transport overrides Accept', async () => {
    const post = (headers) =>
      fetch(`${server.url}/agui/chat`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Agui-Mock-Speed': '0', ...headers },
        body: JSON.stringify({ threadId: randomUUID(), runId: 'r', messages: [{ id: 'u', role: 'user', content: 'hi' }] }),
      });
    for (const [headers, want] of [
      [{ Accept: PROTO_MEDIA_TYPE }, PROTO_MEDIA_TYPE],
      [{ Accept: 'text/event-stream' }, 'text/event-stream; charset=utf-8'],
      [{ Accept: PROTO_MEDIA_TYPE, 'X-Agui-Mock-Transport': 'sse' }, 'text/event-stream; charset=utf-8'],
      [{ Accept: 'text/event-stream', 'X-Agui-Mock-Transport': 'proto' }, PROTO_MEDIA_TYPE],
    ]) {
      const res = await post(headers);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), want, JSON.stringify(headers));
      await res.arrayBuffer();
    }
    const res = await post({ 'X-Agui-Mock-Transport': 'json' });
    assert.equal(res.status, 400);
    const body = await res.json();
    assert.equal(body.error, 'invalid_header');
    assert.match(body.message, /X-Agui-Mock-Transport must be proto or sse, got "json"/);
  });

  test('a malformed frame fails the run in the client, and the journal names the transport', async () => {
    const testId = `proto-${randomUUID()}`;
    const conversation = new Conversation(client, {
      url: server.url,
      headers: { 'X-Test-Id': testId, 'X-Agui-Mock-Fault': 'malformed; after=2' },
      transport: 'proto',
    });
    const run = await conversation.send('hi');
    assert.match(String(run.failure), /Error/, 'the client did not fail the run');
    assert.equal(run.failure, run.rejection);
    // The events before the bad frame may or may not have been delivered by then, but
    // never one after it.
    const sent = ['RUN_STARTED', 'TEXT_MESSAGE_START'];
    assert.deepEqual(
      run.events.map((e) => e.type),
      sent.slice(0, run.events.length),
    );
    const entry = await journalEntry(server, (e) => e.runId === run.runId, { testId });
    assert.equal(entry.transport, 'proto');
    assert.equal(entry.outcome, 'fault');
  });

  test('a run cancelled mid-stream ends with a cancelled outcome over protobuf', async () => {
    const conversation = new Conversation(client, { url: server.url, speed: null, transport: 'proto' });
    let cancelling;
    const run = await conversation.send('showcase', {
      onEvent: (event) => {
        if (!cancelling && event.type === 'TEXT_MESSAGE_CONTENT') cancelling = cancelThread(server, conversation.agent.threadId);
      },
    });
    assert.ok(cancelling, 'the run reached its text');
    assert.equal((await cancelling).status, 200);
    assertCleanRun(run);
    assert.equal(run.events.at(-1).type, 'RUN_FINISHED');
    assert.equal(run.finished.outcome, 'cancelled');
  });
});
