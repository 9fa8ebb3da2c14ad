// (a) Discovery: every example of every scenario the server lists runs cleanly through
// the real HttpAgent of each client version and selects the scenario that lists it.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertCleanRun, CLIENTS, Conversation } from './clients.js';
import { tenantScenarioDir } from './fixtures.js';
import { useServer } from './harness.js';

// The built-in scenarios plus one from a directory, whose example has a route, headers
// and state, so that every example field is exercised.
const server = useServer(['--scenarios', tenantScenarioDir()]);

async function listScenarios() {
  const res = await fetch(`${server.url}/_mock/scenarios`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type'), /^application\/json/);
  return res.json();
}

test('GET /_mock/scenarios lists every scenario with its examples, and the run routes', async () => {
  const { scenarios, routes } = await listScenarios();
  assert.deepEqual(routes, ['/', '/agui/chat', '/tenant/agent']);
  assert.deepEqual(scenarios.map((s) => s.id).sort(), [
    'catch-all',
    'explicit-events',
    'frontend-tool',
    'messages-snapshot',
    'run-error',
    'showcase',
    'tenant-ping',
    'video-mixcut-search',
  ]);
  for (const scenario of scenarios) {
    assert.ok(scenario.examples?.length > 0, `${scenario.id} documents no example`);
  }
});

for (const client of CLIENTS) {
  test(`every scenario example runs cleanly with ${client.label}`, async (t) => {
    const { scenarios } = await listScenarios();
    for (const scenario of scenarios) {
      for (const [i, example] of scenario.examples.entries()) {
        await t.test(`${scenario.id} example ${i + 1}: ${JSON.stringify(example.message)}`, async () => {
          const conversation = new Conversation(client, {
            url: server.url,
            route: example.route,
            headers: example.headers,
            state: example.state,
          });
          const run = await conversation.send(example.message ?? '', {
            forwardedProps: example.forwardedProps,
            tools: example.tools,
          });
          assertCleanRun(run);

          // The server's own account of the run: which scenario answered, how it named
          // the client, and that the stream was played to the end.
          const log = await server.waitForLog((r) => r.msg === 'run' && r.run === run.runId);
          assert.equal(log.scenario, scenario.id);
          assert.equal(log.thread, conversation.agent.threadId);
          assert.equal(log.client, client.peer);
          assert.equal(log.outcome, 'completed');
          assert.equal(log.events, run.events.length);
        });
      }
    }
  });
}
