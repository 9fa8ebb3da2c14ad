// Templates that never finish: a run whose templates go past their limits ends with a
// RUN_ERROR that both real clients see and that names the limit; a scenario whose dry
// run goes past them is refused, and the server keeps answering.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { admin } from './admin.js';
import { CLIENTS, Conversation, assertCleanRun } from './clients.js';
import { useServer, writeTempFiles } from './harness.js';

// Loops for good on the message "boom" only, so it passes its dry run.
const BOOM = `id: boom
steps:
  - text: '{{ if eq .message "boom" }}{{ range 1000000000000000000 }}{{ end }}{{ end }}fine'
`;

const server = useServer(['--no-builtin', '--scenarios', writeTempFiles({ 'boom.yaml': BOOM }), '--template-iterations', '1000']);

for (const client of CLIENTS) {
  describe(`a run past a template limit, ${client.label}`, () => {
    test('ends with RUN_ERROR template_limit naming the limit, and the thread goes on', async () => {
      const conversation = new Conversation(client, { url: server.url });
      const run = await conversation.send('boom');
      assertCleanRun(run); // a RUN_ERROR is an ordinary end: no rejection, no onRunFailed
      assert.deepEqual(run.events.map((e) => e.type), ['RUN_STARTED', 'RUN_ERROR']);
      const { code, message } = run.events[1];
      assert.equal(code, 'template_limit');
      assert.match(message, /boom\.yaml:3:11: .*the limit of 1000 iterations \(-template-iterations\)/);

      const next = await conversation.send('hello');
      assertCleanRun(next);
      assert.equal(next.events.at(-1).type, 'RUN_FINISHED');
      assert.ok(next.agent.messages.some((m) => m.role === 'assistant' && m.content === 'fine'));
    });
  });
}

describe('a scenario past a template limit at load', () => {
  test('POST /_mock/scenarios refuses it with its position and the limit; the set keeps serving', async () => {
    const loop = "id: loop\nsteps:\n  - text: 'x{{ range 1000000000000000000 }}{{ end }}'\n";
    const { status, body } = await admin(server, 'POST', '/scenarios', { body: loop });
    assert.equal(status, 422);
    assert.equal(body.error, 'invalid_scenario');
    assert.match(body.message, /:3:11: template .*the limit of 1000 iterations \(-template-iterations\)/);

    const answer = await admin(server, 'GET', '/scenarios');
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body.scenarios.map((s) => s.id), ['boom']);
  });
});
