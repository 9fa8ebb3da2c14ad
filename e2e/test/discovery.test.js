// (a) Discovery: every example of every scenario the server lists runs cleanly through
// the real HttpAgent of each client version and selects the scenario that lists it.

import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { assertCleanRun, CLIENTS, Conversation } from './clients.js';
import { tenantScenarioDir } from './fixtures.js';
import { REPO_ROOT, useServer } from './harness.js';

const BUILTIN_IDS = [
  'catch-all',
  'clarify',
  'explicit-events',
  'external-search',
  'media-management',
  'messages-snapshot',
  'run-error',
  'showcase',
  'video-mixcut-assets',
  'video-mixcut-search',
];

// The built-in scenarios, the repository's examples, and one whose example has a route,
// headers and state, so that every example field is exercised.
const server = useServer(['--scenarios', tenantScenarioDir(), '--scenarios', path.join(REPO_ROOT, 'examples')]);

/** The outcome a run's last event stands for: error, fault (no terminal event), interrupt or success. */
function outcomeOf(last) {
  if (last.type === 'RUN_ERROR') return 'error';
  if (last.type !== 'RUN_FINISHED') return 'fault';
  return last.outcome?.type === 'interrupt' ? 'interrupt' : 'success';
}

async function listScenarios() {
  const res = await fetch(`${server.url}/_mock/scenarios`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type'), /^application\/json/);
  return res.json();
}

describe('discovery', () => {
  test('GET /_mock/scenarios lists every scenario with its examples, and the run routes', async () => {
    const { scenarios, routes } = await listScenarios();
    for (const route of ['/', '/agui/chat', '/tenant/agent']) {
      assert.ok(routes.includes(route), `routes ${routes} lack ${route}`);
    }
    const ids = scenarios.map((s) => s.id);
    for (const id of [...BUILTIN_IDS, 'tenant-ping']) {
      assert.ok(ids.includes(id), `scenarios ${ids} lack ${id}`);
    }
    for (const scenario of scenarios) {
      assert.ok(scenario.examples?.length > 0, `${scenario.id} documents no example`);
    }
  });

  for (const client of CLIENTS) {
    test(`every scenario example runs cleanly with ${client.label}`, async (t) => {
      const { scenarios } = await listScenarios();
      for (const scenario of scenarios) {
        for (const [i, example] of scenario.examples.entries()) {
          const name = `${scenario.id} example ${i + 1}: ${JSON.stringify(example.message)}`;
          await t.test(scenario.broken ? `${name} (broken on purpose)` : name, async () => {
            const conversation = new Conversation(client, {
              url: server.url,
              route: example.route,
              headers: example.headers,
              state: example.state,
            });
            const run = await conversation.send(example.message ?? '', {
              forwardedProps: example.forwardedProps,
              tools: example.input.tools,
            });
            // A scenario marked broken breaks the protocol on purpose, so only the
            // server's side of its run is checked.
            if (!scenario.broken) assertCleanRun(run);

            // The server's own account of the run: which scenario answered, how it named
            // the client, and that the stream was played to the end, with the outcome
            // its last event says.
            const log = await server.waitForLog((r) => r.msg === 'run' && r.run === run.runId);
            assert.equal(log.scenario, scenario.id);
            assert.equal(log.thread, conversation.agent.threadId);
            assert.equal(log.client, client.peer);
            assert.equal(log.outcome, outcomeOf(run.events.at(-1)));
            assert.equal(log.events, run.events.length);
          });
        }
      }
    });
  }
});
