// Whole templates keep the JSON type of their result: what the real HttpAgent of each
// client version holds in agent.state and in tool call arguments is a number or a list,
// as a real agent would send, not the text of one.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertCleanRun, CLIENTS, Conversation, eventsOf, messagesOf } from './clients.js';
import { MIXCUT_CONTENT, typedScenarioDir } from './fixtures.js';
import { useServer } from './harness.js';

const server = useServer(['--scenarios', typedScenarioDir(), '--watch', 'off']);
const ATTACHMENTS = MIXCUT_CONTENT[1].metadata.attachments;

/** The parsed arguments of the agent's tool call with the given name. */
function toolArgs(run, name) {
  const call = messagesOf(run, 'assistant')
    .flatMap((m) => m.toolCalls ?? [])
    .find((c) => c.function.name === name);
  assert.ok(call, `no ${name} call in ${JSON.stringify(run.agent.messages)}`);
  return JSON.parse(call.function.arguments);
}

for (const client of CLIENTS) {
  describe(`typed values with ${client.label}`, () => {
    test('a whole template sends a list and a number into agent.state; text around one keeps it text', async () => {
      const items = ['x', { y: 1 }];
      const conversation = new Conversation(client, { url: server.url, state: { items, count: 5 } });
      const run = await conversation.send('add 2 items');
      assertCleanRun(run);

      assert.deepEqual(run.agent.state, { items, count: 2, label: 'count=5', done: true });
      assert.equal(typeof run.agent.state.count, 'number', 'state.count + 1 is 3, not "21"');
      assert.equal(run.agent.state.count + 1, 3);
      assert.deepEqual(eventsOf(run, 'STATE_SNAPSHOT')[0].snapshot, { items, count: 5, label: 'count=5' });
      assert.deepEqual(eventsOf(run, 'CUSTOM')[0].value, items);
      assert.equal(messagesOf(run, 'assistant')[0].content, 'Added 2 items.');
      assert.deepEqual(toolArgs(run, 'add_items'), { items, n: 2 });
    });
  });
}

describe('video-mixcut-assets sends create_mixcut a list of attachments', () => {
  const [current, legacy] = CLIENTS;

  test(`with ${legacy.label}, which sends the mixcut_assets part: the part's attachments`, async () => {
    const run = await new Conversation(legacy, { url: server.url }).send(MIXCUT_CONTENT);
    assertCleanRun(run);
    assert.deepEqual(toolArgs(run, 'create_mixcut'), { attachments: ATTACHMENTS });
  });

  test(`with ${current.label}, which strips the part: an empty list`, async () => {
    const run = await new Conversation(current, { url: server.url }).send(MIXCUT_CONTENT);
    assert.equal(run.events.at(-1).type, 'RUN_FINISHED');
    const { attachments } = toolArgs(run, 'create_mixcut');
    assert.ok(Array.isArray(attachments), `attachments is ${JSON.stringify(attachments)}`);
    assert.deepEqual(attachments, []);
  });
});
