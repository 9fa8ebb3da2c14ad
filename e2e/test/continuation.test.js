// A conversation continues from what the client sends: the answer to the mock's own
// frontend tool call continues its scenario on a server that holds nothing of the thread
// (restarted, the thread forgotten past --max-threads, or another replica), as it does on
// the server that made the call. A client whose history carries ids of its own sees no
// turn twice in a history: true snapshot. And a thread id never reaches another test's
// threads, whatever characters it holds.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { admin, TEST_ID_HEADER } from './admin.js';
import { assertCleanRun, CLIENTS, Conversation, eventsOf } from './clients.js';
import { startServer, useServer } from './harness.js';
import { assertHistoryMatchesClient, HISTORY_PATH, postJSON, postRun, streamedTexts, streamedToolCalls, threadHistory } from './threads.js';

const CLARIFY = {
  route: undefined,
  message: 'make me a highlight video',
  tool: 'clarify',
  scenario: 'clarify',
  result: 'GIF',
  continuation: ["A GIF it is. GIFs have no sound, so I'll drop the audio track.", "Rendering has started; I'll let you know when it's ready."],
};
// The AG-UI Dojo's Human in the Loop page: the user confirms the checklist the agent's
// generate_task_steps call filled in, and the page sends the answer as a tool message.
const DOJO_HITL = {
  route: '/human_in_the_loop',
  message: 'Please plan a trip to mars in 5 steps.',
  tool: 'generate_task_steps',
  scenario: 'dojo-human_in_the_loop',
  result: JSON.stringify({ accepted: true, steps: [{ description: 'Step 1', status: 'enabled' }] }),
  continuation: ["Got it, I'm on it now."],
};

/** Runs a flow up to the mock's tool call, and returns the call. */
async function callTheTool(conversation, flow) {
  const first = await conversation.send(flow.message, { tools: [flow.tool] });
  assertCleanRun(first);
  const calls = streamedToolCalls(first.events);
  assert.deepEqual(calls.map((c) => c.name), [flow.tool]);
  return calls[0];
}

/** Answers the call as the app does, runs the agent again, and checks it continued. */
async function answerAndContinue(conversation, flow, call) {
  conversation.agent.addMessage({ id: `tool-${randomUUID()}`, role: 'tool', toolCallId: call.id, content: flow.result });
  const second = await conversation.continue({ tools: [flow.tool] });
  assertCleanRun(second);
  assert.deepEqual(streamedToolCalls(second.events), [], 'the answer does not start the conversation again');
  assert.deepEqual(streamedTexts(second.events), flow.continuation);
  return second;
}

for (const client of CLIENTS) {
  describe(`a tool answer continues without the server's memory, with ${client.label}`, () => {
    for (const flow of [CLARIFY, DOJO_HITL]) {
      test(`${flow.scenario}: answered after a restart, the conversation continues`, async () => {
        const before = await startServer();
        let after;
        try {
          const conversation = new Conversation(client, { url: before.url, route: flow.route });
          const call = await callTheTool(conversation, flow);
          await before.stop();
          after = await startServer(['--seed', '7']); // another seed: the ids it would mint differ
          conversation.agent.url = after.url + (flow.route ?? '/agui/chat');
          const second = await answerAndContinue(conversation, flow, call);
          const history = await threadHistory(after, conversation.agent.threadId);
          assert.deepEqual(
            history.runs.map((r) => [r.runId, r.scenario, r.outcome]),
            [[second.runId, flow.scenario, 'success']],
          );
          assertHistoryMatchesClient(history, conversation.agent);
        } finally {
          await before.stop();
          await after?.stop();
        }
      });
    }
  });
}

describe('a thread forgotten past --max-threads', () => {
  const server = useServer(['--max-threads', '1']);

  test('the answer to its tool call continues it', async () => {
    const [client] = CLIENTS;
    const conversation = new Conversation(client, { url: server.url });
    const call = await callTheTool(conversation, CLARIFY);
    assertCleanRun(await new Conversation(client, { url: server.url }).send('hello')); // takes the only place
    await answerAndContinue(conversation, CLARIFY, call);
  });
});

describe('a history: true snapshot on a thread the server keeps', () => {
  const server = useServer();

  for (const client of CLIENTS) {
    test(`with ${client.label}, a client that re-ids its messages sees every turn once`, async () => {
      const conversation = new Conversation(client, { url: server.url });
      const { agent } = conversation;
      assertCleanRun(await conversation.send('hello'));
      // as a frontend that keeps the conversation under ids of its own
      agent.messages = agent.messages.map((m) => ({ ...m, id: `client-${randomUUID()}` }));
      const before = agent.messages.map((m) => [m.role, m.content]);
      const rewrite = await conversation.send('rewrite that');
      assertCleanRun(rewrite);
      assert.equal(eventsOf(rewrite, 'MESSAGES_SNAPSHOT').length, 1);
      assert.deepEqual(
        agent.messages.map((m) => [m.role, m.content]),
        [...before, ['user', 'rewrite that'], ['assistant', 'The final, edited answer.']],
      );
      assertHistoryMatchesClient(await threadHistory(server, agent.threadId), agent);
    });
  }
});

describe('a thread id that names another test', () => {
  const server = useServer();

  test('reads nothing of the test, and resetting the test leaves it alone', async () => {
    const testId = `t-${randomUUID()}`;
    const run = await postRun(server, { threadId: 'X', messages: [{ role: 'user', content: 'the secret of the test' }] }, { [TEST_ID_HEADER]: testId });
    assert.equal(run.status, 200);
    for (const sep of ['\u001f', '\u0000', '/', ':']) {
      const { status, body } = await postJSON(server, HISTORY_PATH, { threadId: `${testId}${sep}X` });
      assert.equal(status, 404, `thread ${JSON.stringify(testId + sep + 'X')} read the test's thread: ${JSON.stringify(body)}`);
    }
    const lookalike = `${testId}\u001fX`;
    assert.equal((await postRun(server, { threadId: lookalike, messages: [{ role: 'user', content: 'hello' }] })).status, 200);
    const reset = await admin(server, 'POST', '/reset', { testId });
    assert.equal(reset.status, 204);
    assert.equal((await postJSON(server, HISTORY_PATH, { threadId: 'X' }, { [TEST_ID_HEADER]: testId })).status, 404, "the test's thread is forgotten");
    assert.equal((await postJSON(server, HISTORY_PATH, { threadId: lookalike })).status, 200, 'the thread of the requests without a test id is kept');
  });
});
