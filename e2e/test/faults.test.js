// Every fault as the real HttpAgent of both client versions experiences it, injected per
// request (X-Agui-Mock-Fault) or queued for a test (POST /_mock/faults), plus what the
// wire carries where the client cannot tell (keep-alives, Retry-After, split frames).

import assert from 'node:assert/strict';
import net from 'node:net';
import { describe, test } from 'node:test';
import { assertCleanRun, CLIENTS, Conversation, eventsOf, messagesOf } from './clients.js';
import {
  addScenarios,
  admin,
  adminOK,
  FAULT_HEADER,
  journalEntry,
  MULTIBYTE_ARGS,
  MULTIBYTE_SCENARIO,
  MULTIBYTE_TEXT,
  newTestId,
  openRun,
  runInput,
  TEST_ID_HEADER,
  typesOf,
} from './admin.js';
import { startServer, useServer, writeTempFiles } from './harness.js';

const FAULT_STEP_SCENARIO = `\
id: fault-step
broken: ends with a fault step on purpose
match:
  message: ^fault step$
steps:
  - text: Almost there.
  - fault: {kind: runError, message: from the scenario, code: scenario_fault}
`;

// Keep-alives every 100 ms, so that a stall with keep-alives shows them quickly.
const KEEPALIVE_MS = 100;
const scenarioDir = writeTempFiles({ 'fault-step.yaml': FAULT_STEP_SCENARIO });
const server = useServer(['--keepalive', `${KEEPALIVE_MS}ms`, '--scenarios', scenarioDir]);

/** Adds the multi-byte scenario through the admin API, once. */
let multibyte;
const withMultibyteScenario = () => (multibyte ??= addScenarios(server, MULTIBYTE_SCENARIO));

/**
 * Runs one turn of client with a fresh test id (and a fault header when given). Resolves
 * with the run, its test id and the unhandled rejections the client left behind.
 * onStart(agent) is called when the run starts, e.g. to arm an abort timer.
 */
async function faultyRun(client, message, { fault, testId = newTestId('fault'), onStart } = {}) {
  const headers = { [TEST_ID_HEADER]: testId, ...(fault && { [FAULT_HEADER]: fault }) };
  const conversation = new Conversation(client, { url: server.url, headers });
  const { result: run, rejections } = await collectUnhandledRejections(() => {
    const running = conversation.send(message);
    onStart?.(conversation.agent);
    return running;
  });
  return { run, testId, rejections };
}

/**
 * Runs fn while collecting unhandled promise rejections instead of letting them fail
 * the test: both client versions cancel the reader of a stream that already failed and
 * rethrow the cancel's rejection from a teardown nobody awaits. The rejections are
 * returned so that the tests can assert exactly that.
 */
async function collectUnhandledRejections(fn) {
  const saved = process.listeners('unhandledRejection');
  const rejections = [];
  const collect = (reason) => rejections.push(reason);
  process.removeAllListeners('unhandledRejection');
  process.on('unhandledRejection', collect);
  try {
    const result = await fn();
    await new Promise((resolve) => setTimeout(resolve, 30));
    return { result, rejections };
  } finally {
    process.off('unhandledRejection', collect);
    for (const listener of saved) process.on('unhandledRejection', listener);
  }
}

/** The journal entry of a run, once the server has written it. */
const entryOf = ({ run, testId }) => journalEntry(server, (e) => e.runId === run.runId, { testId });

const assistantTexts = (run) => messagesOf(run, 'assistant').map((m) => m.content);

/** Asserts a run failed with an HTTP status and the error answer's body, before any event. */
function assertHttpFailure(run, status, payload) {
  assert.equal(run.rejection?.status, status, `runAgent rejected with ${run.rejection}`);
  assert.equal(run.failure, run.rejection, 'onRunFailed got the same error');
  assert.equal(run.rejection.message, `HTTP ${status}: ${JSON.stringify(payload)}`);
  assert.deepEqual(run.rejection.payload, payload);
  assert.deepEqual(run.events, []);
  assert.deepEqual(run.agent.messages.map((m) => m.role), ['user'], 'nothing was added to the conversation');
}

for (const client of CLIENTS) {
  describe(`faults as ${client.label} experiences them`, () => {
    test('status 500 (header): runAgent rejects with the status and the JSON error body', async () => {
      const outcome = await faultyRun(client, 'hello', { fault: 'status; status=500' });
      assertHttpFailure(outcome.run, 500, { error: 'injected_fault', message: 'an injected 500 answer (X-Agui-Mock-Fault)' });
      assert.equal((await entryOf(outcome)).status, 500);
    });

    test('status 429 with Retry-After (admin, once): the run fails, the next one succeeds', async () => {
      const testId = newTestId('429');
      const queued = await adminOK(server, 'POST', '/faults', { testId, body: { kind: 'status', status: 429, retryAfter: 3 } }, 201);
      assert.deepEqual(queued, { fault: { kind: 'status', status: 429, retryAfter: 3 }, times: 1 });
      const outcome = await faultyRun(client, 'hello', { testId });
      assertHttpFailure(outcome.run, 429, { error: 'injected_fault', message: 'an injected 429 answer (X-Agui-Mock-Fault)' });
      assert.equal((await entryOf(outcome)).status, 429);
      assertCleanRun((await faultyRun(client, 'hello', { testId })).run);
    });

    test('status 401 with a body of its own', async () => {
      const body = { error: 'unauthorized', message: 'token expired' };
      const outcome = await faultyRun(client, 'hello', { fault: `status; status=401; body=${JSON.stringify(body)}` });
      assertHttpFailure(outcome.run, 401, body);
    });

    test('runError after 3 events: RUN_ERROR ends the run; runAgent resolves and the partial text stays', async () => {
      const outcome = await faultyRun(client, 'hello', { fault: 'runError; after=3; message=model overloaded; code=overloaded' });
      const { run } = outcome;
      assert.deepEqual(typesOf(run.events), ['RUN_STARTED', 'TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'RUN_ERROR']);
      assert.equal(run.events[3].message, 'model overloaded');
      assert.equal(run.events[3].code, 'overloaded');
      assertCleanRun(run); // a RUN_ERROR is an ordinary end: no rejection, no onRunFailed
      assert.equal(run.finished, undefined);
      assert.deepEqual(assistantTexts(run), [run.events[2].delta]);
      assert.equal((await entryOf(outcome)).outcome, 'error');
    });

    test('runError without after: RUN_ERROR is the only event, with a default message and code', async () => {
      const { run } = await faultyRun(client, 'hello', { fault: 'runError' });
      assert.deepEqual(run.events.map(({ type, message, code }) => ({ type, message, code })), [
        { type: 'RUN_ERROR', message: 'an injected error', code: 'injected_fault' },
      ]);
      assert.equal(run.rejection, undefined);
      assert.equal(run.failure, undefined);
    });

    test('a fault step in a scenario ends the run where it stands', async () => {
      const { run } = await faultyRun(client, 'fault step');
      assertCleanRun(run);
      assert.equal(run.events.at(-1).type, 'RUN_ERROR');
      assert.equal(run.events.at(-1).code, 'scenario_fault');
      assert.deepEqual(assistantTexts(run), ['Almost there.']);
    });

    test('disconnect after 3 events: the run fails with a network error', async () => {
      const outcome = await faultyRun(client, 'hello', { fault: 'disconnect; after=3' });
      const { run, rejections } = outcome;
      assert.deepEqual(typesOf(run.events), ['RUN_STARTED', 'TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT']);
      assert.ok(run.rejection instanceof TypeError, `rejected with ${run.rejection}`);
      assert.equal(run.rejection.message, 'terminated'); // Node's fetch: the body was cut
      assert.equal(run.failure, run.rejection);
      assert.deepEqual(assistantTexts(run), [run.events[2].delta], 'the partial message stays');
      // Client quirk (both versions): the reader teardown rethrows the cancel rejection.
      assert.deepEqual(rejections.map((r) => r?.message), ['terminated']);
      const entry = await entryOf(outcome);
      assert.deepEqual([entry.status, entry.outcome, entry.events], [200, 'fault', 3]);
    });

    for (const keepAlive of [false, true]) {
      test(`stall ${keepAlive ? 'with' : 'without'} keep-alives: the run hangs until the client aborts it`, async () => {
        const timeoutMs = 300;
        let timer;
        const fault = `stall; after=3${keepAlive ? '; keepAlive' : ''}`;
        const outcome = await faultyRun(client, 'hello', {
          fault,
          onStart: (agent) => (timer = setTimeout(() => agent.abortRun(), timeoutMs)),
        });
        clearTimeout(timer);
        const { run } = outcome;
        assert.ok(performance.now() - run.startedAt >= timeoutMs - 5, 'it waited for the timeout');
        assert.deepEqual(typesOf(run.events), ['RUN_STARTED', 'TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'RUN_ERROR']);
        assert.equal(run.events[3].code, 'abort', 'the client ends an aborted run with its own RUN_ERROR');
        assert.equal(run.rejection, undefined);
        assert.equal(run.failure, undefined);
        assert.deepEqual(outcome.rejections, []);
        assert.equal((await entryOf(outcome)).outcome, 'cancelled', 'the server saw the client go');
      });
    }

    test('malformed frame: the run fails with the JSON parse error', async () => {
      const outcome = await faultyRun(client, 'hello', { fault: 'malformed; after=3' });
      const { run } = outcome;
      assert.ok(run.rejection instanceof SyntaxError, `rejected with ${run.rejection}`);
      assert.equal(run.failure, run.rejection);
      // The events before the bad frame may or may not have been delivered by then
      // (1.0.0 drops more of them than 0.0.58), but never one after it.
      const sent = ['RUN_STARTED', 'TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT'];
      assert.deepEqual(typesOf(run.events), sent.slice(0, run.events.length));
      assert.ok(run.events.length >= 1);
      const entry = await entryOf(outcome);
      assert.deepEqual([entry.outcome, entry.events], ['fault', 3]);
    });

    test('truncate: the stream just ends; runAgent resolves without failure and without RUN_FINISHED', async () => {
      const outcome = await faultyRun(client, 'hello', { fault: 'truncate; after=3' });
      const { run } = outcome;
      assert.deepEqual(typesOf(run.events), ['RUN_STARTED', 'TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT']);
      assert.equal(run.rejection, undefined, 'neither version notices the missing terminal event');
      assert.equal(run.failure, undefined);
      assert.deepEqual(run.consoleCalls, []);
      assert.equal(run.finished, undefined, 'onRunFinishedEvent is not called');
      assert.equal(eventsOf(run, 'TEXT_MESSAGE_END').length, 0);
      assert.deepEqual(assistantTexts(run), [run.events[2].delta], 'the unfinished message stays as it is');
      assert.equal((await entryOf(outcome)).outcome, 'fault');

      const empty = await faultyRun(client, 'hello', { fault: 'truncate' });
      assert.deepEqual(empty.run.events, [], 'after=0: an empty stream, resolved just the same');
      assert.equal(empty.run.rejection, undefined);
    });

    test('slowStart (admin, delay "300ms"): nothing for 300 ms, then the whole run', async () => {
      const testId = newTestId('slow');
      const queued = await adminOK(server, 'POST', '/faults', { testId, body: { kind: 'slowStart', delay: '300ms' } }, 201);
      assert.deepEqual(queued, { fault: { kind: 'slowStart' }, delay: '300ms', times: 1 });
      const { run } = await faultyRun(client, 'hello', { testId });
      assertCleanRun(run);
      assert.ok(run.arrivals[0] - run.startedAt >= 290, `first event after ${run.arrivals[0] - run.startedAt} ms`);
      assert.equal(eventsOf(run, 'RUN_FINISHED').length, 1);
    });

    test('split: frames cut inside multi-byte characters and escapes still make the exact text and arguments', async () => {
      await withMultibyteScenario();
      const { run } = await faultyRun(client, 'multibyte', { fault: 'split' });
      assertCleanRun(run);
      const assistant = messagesOf(run, 'assistant');
      assert.deepEqual(assistant.map((m) => m.content), [MULTIBYTE_TEXT, '再见 👋 "bye"']);
      const [call] = assistant[0].toolCalls;
      assert.equal(call.function.name, 'search_media');
      assert.deepEqual(JSON.parse(call.function.arguments), MULTIBYTE_ARGS);
      assert.deepEqual(JSON.parse(messagesOf(run, 'tool')[0].content), { found: ['海浪.mp4', '🌊.mov'] });
    });
  });
}

describe('faults on the wire and through the admin API', () => {
  test('a 429 carries Retry-After', async () => {
    const res = await fetch(server.url + '/agui/chat', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', [FAULT_HEADER]: 'status; status=429; retryAfter=7' },
      body: JSON.stringify(runInput('hello')),
    });
    assert.equal(res.status, 429);
    assert.equal(res.headers.get('retry-after'), '7');
    assert.match(res.headers.get('content-type'), /^application\/json/);
  });

  test('a stall writes keep-alive comments only when asked to', async () => {
    for (const [fault, expectComments] of [
      ['stall; after=1; keepAlive', true],
      ['stall; after=1', false],
    ]) {
      const stream = openRun(server, runInput('hello'), { headers: { [FAULT_HEADER]: fault } });
      await stream.waitFor((e) => e.type === 'RUN_STARTED');
      const started = performance.now();
      await new Promise((resolve) => setTimeout(resolve, KEEPALIVE_MS * 3.5));
      const stalled = performance.now() - started;
      stream.abort();
      await stream.done;
      assert.deepEqual(typesOf(stream.events), ['RUN_STARTED'], fault);
      const most = Math.floor(stalled / KEEPALIVE_MS) + 1;
      if (expectComments) assert.ok(stream.comments >= 2 && stream.comments <= most, `${stream.comments} keep-alives in ${stalled} ms`);
      else assert.equal(stream.comments, 0);
    }
  });

  test('with --keepalive 0 a stall with keepAlive sends no comments (and does not spin writing them)', async () => {
    const quiet = await startServer(['--keepalive', '0']);
    try {
      const stream = openRun(quiet, runInput('hello'), { headers: { [FAULT_HEADER]: 'stall; after=1; keepAlive' } });
      await stream.waitFor((e) => e.type === 'RUN_STARTED');
      await new Promise((resolve) => setTimeout(resolve, 200));
      stream.abort();
      await stream.done;
      assert.equal(stream.comments, 0);
    } finally {
      await quiet.stop();
    }
  });

  test('split writes every frame in HTTP chunks of at most 5 bytes, cutting multi-byte characters', async () => {
    await withMultibyteScenario();
    const { chunks, head } = await chunkedPost(server.url, '/agui/chat', runInput('multibyte'), {
      'X-Agui-Mock-Speed': '0',
      [FAULT_HEADER]: 'split',
    });
    assert.match(head, /^HTTP\/1\.1 200 /);
    assert.match(head, /\r\ntransfer-encoding: chunked\r\n/i);
    const sizes = chunks.map((c) => c.length);
    assert.ok(sizes.length > 200, `${sizes.length} chunks`);
    assert.ok(Math.max(...sizes) <= 5, `chunk sizes up to ${Math.max(...sizes)}`);
    const cutInsideCharacter = chunks.some((c) => {
      try {
        new TextDecoder('utf-8', { fatal: true }).decode(c);
        return false;
      } catch {
        return true;
      }
    });
    assert.ok(cutInsideCharacter, 'some chunk ends inside a multi-byte character');
    const text = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
    assert.ok(text.includes(JSON.stringify(MULTIBYTE_TEXT).slice(1, -1)), 'the whole text arrived, escaped once');
  });

  test('times: a queued fault applies to n runs, or to every run while 0 until DELETE /_mock/faults', async () => {
    const testId = newTestId('times');
    const statuses = async (n) => {
      const out = [];
      for (let i = 0; i < n; i++) {
        const { run } = await faultyRun(CLIENTS[i % 2], 'hello', { testId });
        out.push(run.rejection?.status ?? 200);
      }
      return out;
    };
    await adminOK(server, 'POST', '/faults', { testId, body: { kind: 'status', status: 503, times: 2 } }, 201);
    assert.deepEqual(await statuses(3), [503, 503, 200]);
    // queued faults apply in order
    await adminOK(server, 'POST', '/faults', { testId, body: { kind: 'status', status: 502 } }, 201);
    await adminOK(server, 'POST', '/faults', { testId, body: { kind: 'status', status: 504 } }, 201);
    assert.deepEqual(await statuses(3), [502, 504, 200]);
    await adminOK(server, 'POST', '/faults', { testId, body: { kind: 'status', status: 500, times: 0 } }, 201);
    assert.deepEqual(await statuses(3), [500, 500, 500]);
    await adminOK(server, 'DELETE', '/faults', { testId }, 204);
    assert.deepEqual(await statuses(1), [200]);
  });

  test('the header wins over a queued fault, which stays for the next run', async () => {
    const testId = newTestId('header-wins');
    await adminOK(server, 'POST', '/faults', { testId, body: { kind: 'status', status: 503 } }, 201);
    const headed = await faultyRun(CLIENTS[0], 'hello', { testId, fault: 'status; status=418' });
    assert.equal(headed.run.rejection?.status, 418);
    assert.equal((await faultyRun(CLIENTS[0], 'hello', { testId })).run.rejection?.status, 503);
  });

  test('refused faults: 400 from the admin API, 400 invalid_header from the header, 422 for request faults in a scenario', async () => {
    for (const body of [
      { kind: 'explode' },
      { kind: 'status' },
      { kind: 'status', status: 600 },
      { kind: 'disconnect', after: -1 },
      { kind: 'slowStart', delay: 'soon' },
      { kind: 'split', delay: '3s' },
      { kind: 'status', status: 500, delay: '1s' },
      { kind: 'status', status: 500, times: -1 },
      { kind: 'runError', mesage: 'typo' },
    ]) {
      const answer = await admin(server, 'POST', '/faults', { body });
      assert.deepEqual([answer.status, answer.body.error], [400, 'invalid_input'], JSON.stringify(body));
    }
    for (const header of ['explode', 'status; status=abc', 'disconnect; after', 'stall; keepAlive=maybe', 'runError; colour=red', 'split; delay=1s']) {
      const res = await fetch(server.url + '/agui/chat', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', [FAULT_HEADER]: header },
        body: JSON.stringify(runInput('hello')),
      });
      assert.equal(res.status, 400, header);
      assert.equal((await res.json()).error, 'invalid_header', header);
    }
    const inScenario = await admin(server, 'POST', '/scenarios', {
      body: 'id: bad-fault\nbroken: on purpose\nsteps:\n  - text: hi\n  - fault: {kind: status}\n',
    });
    assert.equal(inScenario.status, 422);
    assert.match(inScenario.body.details.problems[0].message, /applies to a whole request/);
  });
});

/**
 * POSTs body as JSON over a raw HTTP/1.1 connection and returns the answer's head and
 * the data of each HTTP chunk of its body, as the server framed them.
 */
async function chunkedPost(baseUrl, path, body, headers) {
  const { hostname, port } = new URL(baseUrl);
  const payload = Buffer.from(JSON.stringify(body));
  const socket = net.connect(Number(port), hostname);
  const lines = [`POST ${path} HTTP/1.1`, `Host: ${hostname}:${port}`, 'Content-Type: application/json', `Content-Length: ${payload.length}`, 'Connection: close'];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  socket.end(Buffer.concat([Buffer.from(lines.join('\r\n') + '\r\n\r\n'), payload]));
  const raw = Buffer.concat(await socket.toArray());
  const headEnd = raw.indexOf('\r\n\r\n');
  const head = raw.subarray(0, headEnd + 2).toString();
  const chunks = [];
  for (let at = headEnd + 4; ; ) {
    const lineEnd = raw.indexOf('\r\n', at);
    const size = parseInt(raw.subarray(at, lineEnd).toString(), 16);
    if (!(size > 0)) break;
    chunks.push(raw.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return { head, chunks };
}
