// (j) POST /agui/history: after every kind of run, the server's record of the thread is
// what the client holds (messages and state), with the runs and their outcomes; the
// endpoint's refusals; CORS for a browser app on another origin (only a listed one reads
// a history); and Bearer auth.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { assertCleanRun, CLIENTS, Conversation, DEFAULT_ROUTE, SPEED_HEADER } from './clients.js';
import { admin } from './admin.js';
import { useServer, writeTempFiles } from './harness.js';
import {
  assertHistoryMatchesClient,
  CANCEL_PATH,
  HISTORY_PATH,
  postJSON,
  postRun,
  runOutcomes,
  threadHistory,
} from './threads.js';

const server = useServer();
const TOKEN = 'e2e-secret-token';
const guarded = useServer(['--auth-token', TOKEN]);

// A message and a tool call streamed as chunks of which only the first names its stream.
const chunked = useServer(['--scenarios', writeTempFiles({
  'chunks.yaml': `\
id: chunks
match: {message: ^chunks}
events:
  - {type: RUN_STARTED, threadId: "{{ .threadId }}", runId: "{{ .runId }}"}
  - {type: TEXT_MESSAGE_CHUNK, messageId: m1, delta: "Streamed "}
  - {type: TEXT_MESSAGE_CHUNK, delta: "in chunks."}
  - {type: TOOL_CALL_CHUNK, toolCallId: c1, toolCallName: pick, parentMessageId: m1, delta: '{"a":'}
  - {type: TOOL_CALL_CHUNK, delta: "1}"}
  - {type: RUN_FINISHED, threadId: "{{ .threadId }}", runId: "{{ .runId }}"}
`,
})]);

// The origin of a frontend dev server calling the mock from the browser.
const BROWSER_ORIGIN = 'http://localhost:3000';
const listed = useServer(['--cors-origins', BROWSER_ORIGIN]);

for (const client of CLIENTS) {
  describe(`history after each run with ${client.label}`, () => {
    test('a conversation of several turns: messages, state and runs as the client holds them', async () => {
      const conversation = new Conversation(client, { url: server.url, state: { draft: true } });
      const { agent } = conversation;
      const turns = [
        ['Search for ocean wave videos', { forwardedProps: { scenario_name: 'video-mixcut' } }, 'success'],
        ['showcase', {}, 'success'],
        ['rewrite that', {}, 'success'],
        ['fail please', {}, 'error'],
        ['Hello there', {}, 'success'],
      ];
      const runs = [];
      for (const [message, options, outcome] of turns) {
        const run = await conversation.send(message, options);
        assertCleanRun(run);
        runs.push(run);
        // After every turn, not only the last: the server follows the client all along.
        const history = await threadHistory(server, agent.threadId);
        assertHistoryMatchesClient(history, agent);
        assert.deepEqual(history.state, agent.state, 'the state is what the client holds');
        assert.equal(history.runs.at(-1).outcome, outcome, `the outcome of "${message}"`);
      }
      const history = await threadHistory(server, agent.threadId);
      assert.equal(history.threadId, agent.threadId);
      assert.deepEqual(
        history.runs.map((r) => [r.runId, r.scenario]),
        runs.map((run, i) => [run.runId, ['video-mixcut-search', 'showcase', 'messages-snapshot', 'run-error', 'catch-all'][i]]),
      );
      assert.deepEqual(runOutcomes(history), turns.map(([, , outcome]) => outcome));
      assert.deepEqual([history.interrupts, history.pendingToolCallIds, history.running], [[], [], null]);
      assert.ok(agent.messages.some((m) => m.role === 'activity'), 'activity messages are part of both');
    });
  });
}

describe('the history endpoint over plain fetch', () => {
  test('messages streamed in chunks, only the first naming its stream, are in the history as each client holds them', async () => {
    for (const client of CLIENTS) {
      const conversation = new Conversation(client, { url: chunked.url });
      const run = await conversation.send('chunks please');
      assert.equal(run.failure ?? run.rejection, undefined, client.label);
      const history = await threadHistory(chunked, conversation.agent.threadId);
      assertHistoryMatchesClient(history, conversation.agent);
      const message = history.messages.find((m) => m.id === 'm1');
      assert.equal(message?.content, 'Streamed in chunks.', `${client.label}: ${JSON.stringify(history.messages)}`);
      assert.equal(message.toolCalls?.[0]?.function.arguments, '{"a":1}', client.label);
    }
  });

  test('an unknown thread is 404 unknown_thread', async () => {
    const { status, body } = await postJSON(server, HISTORY_PATH, { threadId: `thread-${randomUUID()}` });
    assert.equal(status, 404);
    assert.equal(body.error, 'unknown_thread');
    assert.ok(body.message.length > 0);
  });

  test('a body without threadId is 400 invalid_input naming the field', async () => {
    const { status, body } = await postJSON(server, HISTORY_PATH, { forwardedProps: { scenario_name: 'video-mixcut' } });
    assert.equal(status, 400);
    assert.deepEqual([body.error, body.field], ['invalid_input', 'threadId']);
  });

  test('a seed request with messages without ids: the server gives them ids and keeps them', async () => {
    const threadId = `thread-${randomUUID()}`;
    const { status, events } = await postRun(server, {
      threadId,
      runId: 'run-001',
      messages: [{ role: 'user', content: 'Search for ocean wave videos' }],
      forwardedProps: { scenario_name: 'video-mixcut' },
    });
    assert.equal(status, 200);
    const history = await threadHistory(server, threadId);
    assert.deepEqual(
      history.messages.map((m) => m.role),
      ['user', 'reasoning', 'assistant', 'tool'],
    );
    assert.match(history.messages[0].id, /\S/);
    assert.equal(history.messages[2].id, events.find((e) => e.type === 'TEXT_MESSAGE_START').messageId);
    assert.deepEqual(
      history.runs.map((r) => [r.runId, r.scenario, r.outcome]),
      [['run-001', 'video-mixcut-search', 'success']],
    );
  });

  test(
    'a run the server refuses before it starts leaves no thread behind',
    async () => {
      const threadId = `thread-${randomUUID()}`;
      const refused = await postRun(server, {
        threadId,
        runId: 'run-001',
        messages: [{ role: 'user', content: '' }],
        resume: [{ interruptId: 'interruptId-001', status: 'resolved' }],
      });
      assert.equal(refused.body.error, 'no_pending_interrupts');
      const { status } = await postJSON(server, HISTORY_PATH, { threadId });
      assert.equal(status, 404);
    },
  );
});

describe('CORS for a browser app on another origin', () => {
  /** A preflight for POST path from BROWSER_ORIGIN to mock; resolves with its answer. */
  const preflight = (mock, path) =>
    fetch(mock.url + path, {
      method: 'OPTIONS',
      headers: {
        Origin: BROWSER_ORIGIN,
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type,authorization',
      },
    });

  for (const path of [DEFAULT_ROUTE, HISTORY_PATH, CANCEL_PATH]) {
    test(`a preflight for POST ${path} from ${BROWSER_ORIGIN}, which --cors-origins lists, is allowed`, async () => {
      const res = await preflight(listed, path);
      assert.ok([200, 204].includes(res.status), `status ${res.status}`);
      assert.equal(res.headers.get('access-control-allow-origin'), BROWSER_ORIGIN);
      assert.match(res.headers.get('access-control-allow-methods'), /\bPOST\b/);
      const allowed = res.headers.get('access-control-allow-headers').toLowerCase().split(/\s*,\s*/);
      for (const header of ['content-type', 'authorization']) assert.ok(allowed.includes(header), `${header} in ${allowed}`);
    });
  }

  test('with the default origins (*), any page may run, but only a listed one reads a history or cancels', async () => {
    assert.equal((await preflight(server, DEFAULT_ROUTE)).headers.get('access-control-allow-origin'), '*');
    for (const path of [HISTORY_PATH, CANCEL_PATH]) {
      assert.equal((await preflight(server, path)).headers.get('access-control-allow-origin'), null, path);
    }
  });

  test('the run stream and the history answer carry Access-Control-Allow-Origin', async () => {
    for (const mock of [server, listed]) {
      const threadId = `thread-${randomUUID()}`;
      const headers = { 'Content-Type': 'application/json', Origin: BROWSER_ORIGIN, [SPEED_HEADER]: '0' };
      const run = await fetch(mock.url + DEFAULT_ROUTE, {
        method: 'POST',
        headers,
        body: JSON.stringify({ threadId, runId: 'run-001', messages: [{ id: 'm-1', role: 'user', content: 'Hello there' }] }),
      });
      assert.ok(['*', BROWSER_ORIGIN].includes(run.headers.get('access-control-allow-origin')));
      await run.text();
      const history = await postJSON(mock, HISTORY_PATH, { threadId }, { Origin: BROWSER_ORIGIN });
      if (mock === listed) {
        assert.equal(history.status, 200);
        assert.equal(history.headers.get('access-control-allow-origin'), BROWSER_ORIGIN);
      } else {
        assert.equal(history.status, 403, 'an origin only the wildcard admits reads no history');
        assert.equal(history.body.error, 'forbidden_origin');
        assert.equal(history.headers.get('access-control-allow-origin'), null);
      }
    }
  });
});

describe('Bearer auth (--auth-token)', () => {
  const bearer = { Authorization: `Bearer ${TOKEN}` };

  /** Asserts a 401 answer as the production API gives it. */
  function assertUnauthorized({ status, headers, body }) {
    assert.equal(status, 401);
    assert.match(headers.get('www-authenticate'), /^Bearer\b/);
    assert.equal(body.error, 'unauthorized');
    assert.ok(body.message.length > 0);
  }

  for (const client of CLIENTS) {
    test(`${client.label}: a run with the token works, one without fails with 401 through onRunFailed`, async () => {
      const conversation = new Conversation(client, { url: guarded.url, headers: bearer });
      const run = await conversation.send('Hello there');
      assertCleanRun(run);
      const history = await threadHistory(guarded, conversation.agent.threadId, bearer);
      assertHistoryMatchesClient(history, conversation.agent);

      const anonymous = await new Conversation(client, { url: guarded.url }).send('Hello there');
      assert.ok(anonymous.failure, 'onRunFailed was called');
      assert.equal(anonymous.rejection, anonymous.failure);
      assert.equal(anonymous.failure.status, 401);
      assert.equal(anonymous.failure.payload.error, 'unauthorized');
      assert.deepEqual(anonymous.events, []);
    });
  }

  test('the run, history and cancel endpoints refuse a missing or wrong token', async () => {
    const threadId = `thread-${randomUUID()}`;
    const input = { threadId, runId: 'run-001', messages: [{ id: 'm-1', role: 'user', content: 'Hello there' }] };
    for (const headers of [{}, { Authorization: 'Bearer not-the-token' }, { Authorization: TOKEN }]) {
      for (const path of [DEFAULT_ROUTE, HISTORY_PATH, CANCEL_PATH]) {
        assertUnauthorized(await postJSON(guarded, path, path === DEFAULT_ROUTE ? input : { threadId }, headers));
      }
    }
    const ok = await postRun(guarded, input, bearer);
    assert.equal(ok.status, 200);
    assert.deepEqual(runOutcomes(await threadHistory(guarded, threadId, bearer)), ['success']);
    const cancel = await postJSON(guarded, CANCEL_PATH, { threadId }, bearer);
    assert.deepEqual([cancel.status, cancel.body.cancelled], [200, false]);
  });

  test('a preflight needs no token, and a 401 to a browser carries Access-Control-Allow-Origin', async () => {
    const preflight = await fetch(guarded.url + DEFAULT_ROUTE, {
      method: 'OPTIONS',
      headers: { Origin: BROWSER_ORIGIN, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization' },
    });
    assert.ok([200, 204].includes(preflight.status), `status ${preflight.status}`);
    assert.ok(['*', BROWSER_ORIGIN].includes(preflight.headers.get('access-control-allow-origin')));

    const refused = await postJSON(guarded, DEFAULT_ROUTE, { threadId: 't-1' }, { Origin: BROWSER_ORIGIN });
    assertUnauthorized(refused);
    assert.ok(['*', BROWSER_ORIGIN].includes(refused.headers.get('access-control-allow-origin')), 'the app can read the 401');
  });

  test('without an admin token of its own, the admin API takes this token, health checks included', async () => {
    assertUnauthorized(await admin(guarded, 'GET', '/healthz', { token: null }));
    assertUnauthorized(await admin(guarded, 'GET', '/healthz', { token: 'not-the-token' }));
    assert.equal((await fetch(`${guarded.url}/_mock/healthz`, { headers: bearer })).status, 200);
  });
});
