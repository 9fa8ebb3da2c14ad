// Your scenarios beat the built-in ones: a scenario in a --scenarios directory on a route
// a built-in scenario also answers (the Dojo's /agentic_chat, whose built-in scenarios
// have priority 10) is what the route plays, `validate` and `serve` agree on the
// directory, and `serve --record-missing` records such a route from the agent instead
// of letting the built-in scenario answer it.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { assertCleanRun, CLIENTS, Conversation } from './clients.js';
import { makeTempDir, startServer, writeTempFiles } from './harness.js';
import { startFakeUpstream, validate, waitForScenario } from './recording.js';
import { streamedTexts } from './threads.js';

const [current] = CLIENTS;

/** A hand-written scenario on a Dojo route, without a priority of its own. */
const MY_CHAT = `id: my-chat
match: {route: /agentic_chat}
examples: [{route: /agentic_chat, message: hi}]
steps: [{text: This is my own chat.}]
`;

describe('your scenarios come before the built-in ones', () => {
  test('validate and serve agree, and the route plays your scenario to @ag-ui/client', async () => {
    const dir = writeTempFiles({ 'chat.yaml': MY_CHAT });
    for (const args of [[dir], ['--no-builtin', dir]]) {
      const { code, report } = await validate(...args);
      assert.equal(code, 0, `validate ${args.join(' ')}: ${JSON.stringify(report.problems)}`);
      assert.equal(report.scenarios, 1);
    }
    const server = await startServer(['--scenarios', dir]);
    try {
      const run = await new Conversation(current, { url: server.url, route: '/agentic_chat' }).send('hi');
      assertCleanRun(run);
      assert.deepEqual(streamedTexts(run.events), ['This is my own chat.']);
      const log = await server.waitForLog((r) => r.msg === 'run' && r.run === run.runId);
      assert.equal(log.scenario, 'my-chat');
    } finally {
      await server.stop();
    }
  });

  test('serve --record-missing records a built-in route from the agent, then replays it', async () => {
    const dir = makeTempDir('agui-mock-precedence-');
    const upstream = await startFakeUpstream();
    const server = await startServer(['--record-missing', '--upstream', upstream.url, '--record-dir', dir]);
    try {
      const recorded = await new Conversation(current, { url: server.url, route: '/shared_state', speed: null }).send('plan a dinner');
      assertCleanRun(recorded);
      assert.deepEqual(streamedTexts(recorded.events), ['Hello from upstream.']);
      assert.equal(upstream.requests.length, 1, 'the run reached the agent');
      assert.equal(upstream.requests[0].path, '/shared_state');
      const line = await server.waitForOutput((l) => l.startsWith('recorded run '));
      const id = readFileSync(line.split(' → ')[1], 'utf8').match(/^id: (.+)$/m)[1];
      await waitForScenario(server, id);
      const replayed = await new Conversation(current, { url: server.url, route: '/shared_state', speed: null }).send('plan a dinner');
      assertCleanRun(replayed);
      assert.deepEqual(streamedTexts(replayed.events), ['Hello from upstream.']);
      assert.equal(upstream.requests.length, 1, 'the replay did not reach the agent');
    } finally {
      await Promise.all([server.stop(), upstream.close()]);
    }
  });
});
