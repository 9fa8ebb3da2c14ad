// (e) Requests the server refuses: every refusal is a JSON error body with a stable code,
// and a refused run fails in each client version with the status in its error.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CLIENTS, Conversation, DEFAULT_ROUTE, SPEED_HEADER } from './clients.js';
import { tenantScenarioDir } from './fixtures.js';
import { useServer } from './harness.js';

const builtin = useServer();
// Only the tenant scenario, which answers nothing on the default route.
const tenantOnly = useServer(['--no-builtin', '--scenarios', tenantScenarioDir()]);

const VALID_INPUT = { threadId: 't-1', runId: 'r-1', messages: [{ id: 'm-1', role: 'user', content: 'Hello there' }] };

/** Sends a request and returns its status, headers and JSON body, asserting it is JSON. */
async function jsonAnswer(url, init) {
  const res = await fetch(url, init);
  assert.match(res.headers.get('content-type'), /^application\/json\b/);
  return { status: res.status, headers: res.headers, body: await res.json() };
}

/** POSTs body (a string, sent as is) to route with a JSON content type unless headers say otherwise. */
function post(server, body, headers = {}, route = DEFAULT_ROUTE) {
  return jsonAnswer(server.url + route, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', [SPEED_HEADER]: '0', ...headers },
    body,
  });
}

/** Asserts an error body: the given code, a message, and exactly the other given fields. */
function assertErrorBody(body, error, extra = {}) {
  const { message, ...rest } = body;
  assert.equal(typeof message, 'string');
  assert.ok(message.length > 0);
  assert.deepEqual(rest, { error, ...extra });
}

describe('refused requests over plain HTTP', () => {
  test('a non-JSON content type is 415', async () => {
    const { status, body } = await post(builtin, JSON.stringify(VALID_INPUT), { 'Content-Type': 'text/plain' });
    assert.equal(status, 415);
    assertErrorBody(body, 'unsupported_media_type');
  });

  test('malformed JSON is 400', async () => {
    const { status, body } = await post(builtin, '{"threadId": "t-1",');
    assert.equal(status, 400);
    assertErrorBody(body, 'invalid_input');
  });

  test('an unknown message role is 400 naming the field', async () => {
    const input = { ...VALID_INPUT, messages: [{ id: 'm-1', role: 'bot', content: 'hi' }] };
    const { status, body } = await post(builtin, JSON.stringify(input));
    assert.equal(status, 400);
    assertErrorBody(body, 'invalid_input', { field: 'messages[0].role' });
    assert.match(body.message, /bot/);
  });

  test('an invalid speed header is 400', async () => {
    const { status, body } = await post(builtin, JSON.stringify(VALID_INPUT), { [SPEED_HEADER]: 'fast' });
    assert.equal(status, 400);
    assertErrorBody(body, 'invalid_header');
  });

  test('GET on a run route is 405 and allows POST', async () => {
    const { status, headers, body } = await jsonAnswer(builtin.url + DEFAULT_ROUTE);
    assert.equal(status, 405);
    assert.equal(headers.get('allow'), 'POST');
    assertErrorBody(body, 'method_not_allowed', { details: { allow: ['POST'] } });
  });

  test('a wrong method on any other endpoint is 405 and names the methods it takes', async () => {
    for (const [method, path, allow] of [['GET', '/agui/history', ['POST']], ['GET', '/_mock/force', ['DELETE', 'POST']], ['POST', '/_mock/status', ['GET']]]) {
      const { status, headers, body } = await jsonAnswer(builtin.url + path, { method });
      assert.equal(status, 405, `${method} ${path}`);
      assert.equal(headers.get('allow'), allow.join(', '));
      assertErrorBody(body, 'method_not_allowed', { details: { allow } });
    }
  });

  test('a path that is no run route is 404 not_found', async () => {
    const { status, body } = await post(builtin, JSON.stringify(VALID_INPUT), {}, '/agui/elsewhere');
    assert.equal(status, 404);
    assertErrorBody(body, 'not_found');
  });

  test('a request no scenario matches is 404 no_scenario with the candidates and why they missed', async () => {
    const { status, body } = await post(tenantOnly, JSON.stringify(VALID_INPUT));
    assert.equal(status, 404);
    const { details, ...rest } = body;
    assertErrorBody(rest, 'no_scenario');
    const { candidates } = details;
    assert.deepEqual(
      candidates.map((c) => c.id),
      ['tenant-ping'],
    );
    assert.match(candidates[0].source, /tenant-ping\.yaml/);
    assert.ok(candidates[0].reasons.some((r) => r.includes('route /agui/chat')), candidates[0].reasons.join('; '));
  });
});

for (const client of CLIENTS) {
  describe(`refused runs with ${client.label}`, () => {
    test('a run no scenario answers fails with the 404 through onRunFailed and a rejection', async () => {
      const run = await new Conversation(client, { url: tenantOnly.url }).send('Hello there');

      assert.ok(run.failure, 'onRunFailed was called');
      assert.equal(run.rejection, run.failure, 'runAgent rejected with the same error');
      assert.match(run.failure.message, /^HTTP 404: /);
      assert.equal(run.failure.status, 404);
      assert.equal(run.failure.payload.error, 'no_scenario');
      assert.deepEqual(run.events, []);
      // Both versions also report the failure on console.error (captured, not printed).
      assert.deepEqual(
        run.consoleCalls.map((c) => [c.level, c.args[0]]),
        [['error', 'Agent execution failed:']],
      );
    });
  });
}
