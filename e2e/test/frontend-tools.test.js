// (h) Frontend (external) tools: the agent calls a tool the client runs, and the run ends
// after TOOL_CALL_END. The app adds a role: tool message with the result and runs again;
// the conversation continues by the result. And the seed's multimodal request, whose
// user message carries the API's own mixcut_assets content part.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { assertCleanRun, CLIENTS, Conversation, eventsOf, toolDefinitions, typeSequence } from './clients.js';
import { MIXCUT_CONTENT } from './fixtures.js';
import { useServer } from './harness.js';
import {
  assertHistoryMatchesClient,
  postRun,
  runOutcomes,
  streamedTexts,
  streamedToolCalls,
  threadHistory,
} from './threads.js';

const server = useServer();

const RENDERING = "Rendering has started; I'll let you know when it's ready.";

// Each flow: what the user asks, the tool the client offers, the call it gets, the
// result the app sends back and what the agent says then.
const FLOWS = [
  {
    name: 'clarify answered "GIF"',
    message: 'make me a highlight video',
    tool: 'clarify',
    texts: ['Happy to. One question first.'],
    args: { question: 'Which format should the video be?', choices: ['MP4', 'WebM', 'GIF'] },
    result: 'GIF',
    continuation: ["A GIF it is. GIFs have no sound, so I'll drop the audio track.", RENDERING],
  },
  {
    name: 'clarify answered "MP4"',
    message: 'make me a highlight video',
    tool: 'clarify',
    texts: ['Happy to. One question first.'],
    args: { question: 'Which format should the video be?', choices: ['MP4', 'WebM', 'GIF'] },
    result: 'MP4',
    continuation: ['Great, MP4 it is.', RENDERING],
  },
  {
    name: 'external_search',
    message: 'look up the VOD architecture document',
    tool: 'external_search',
    texts: [],
    args: { query: 'the VOD architecture document' },
    result: 'VOD has three layers: ingest, transcoding and CDN delivery.',
    continuation: ['According to the search result: VOD has three layers: ingest, transcoding and CDN delivery.'],
  },
];

/** Asserts a run that ends for the frontend to run a tool, and returns the call. */
function assertEndsForTheFrontend(run, flow) {
  assertCleanRun(run);
  const calls = streamedToolCalls(run.events);
  assert.deepEqual(
    calls.map((c) => [c.name, c.args]),
    [[flow.tool, flow.args]],
  );
  const [call] = calls;
  assert.deepEqual(streamedTexts(run.events), flow.texts);
  assert.deepEqual(eventsOf(run, 'TOOL_CALL_RESULT'), [], 'the server does not answer a frontend tool');

  const [end, finished] = run.events.slice(-2);
  assert.deepEqual([end.type, end.toolCallId], ['TOOL_CALL_END', call.id], 'the run ends right after TOOL_CALL_END');
  assert.equal(finished.type, 'RUN_FINISHED');
  assert.equal(run.finished.outcome, 'success');
  if (run.client.protocolVersion) {
    // A client that negotiates a protocol version is told which calls wait for it.
    assert.deepEqual(finished.outcome, { type: 'success', pendingToolCallIds: [call.id] });
    assert.deepEqual(run.finished.pendingToolCallIds, [call.id]);
  } else {
    assert.equal(finished.outcome?.pendingToolCallIds, undefined, 'a 0.0.x client gets no pendingToolCallIds');
  }
  const held = run.agent.messages.flatMap((m) => m.toolCalls ?? []).find((c) => c.id === call.id);
  assert.equal(held.function.name, flow.tool, 'the client holds the call');
  return call;
}

for (const client of CLIENTS) {
  describe(`frontend tools with ${client.label}`, () => {
    for (const flow of FLOWS) {
      test(`${flow.name}: the run ends for the frontend, the tool message continues it`, async () => {
        const conversation = new Conversation(client, { url: server.url });
        const { agent } = conversation;
        const first = await conversation.send(flow.message, { tools: [flow.tool] });
        const call = assertEndsForTheFrontend(first, flow);

        let history = await threadHistory(server, agent.threadId);
        assertHistoryMatchesClient(history, agent);
        assert.deepEqual(history.pendingToolCallIds, [call.id]);
        assert.deepEqual(history.interrupts, []);

        // The app runs the tool and adds its result, as a real app does.
        const toolMessage = { id: `tool-${randomUUID()}`, role: 'tool', toolCallId: call.id, content: flow.result };
        agent.addMessage(toolMessage);
        const second = await conversation.continue({ tools: [flow.tool] });
        assertCleanRun(second);
        assert.deepEqual(second.input.messages.at(-1), toolMessage, 'the client sent the result');
        assert.deepEqual(streamedTexts(second.events), flow.continuation);
        assert.deepEqual(eventsOf(second, 'TOOL_CALL_START'), []);
        assert.equal(second.events.at(-1).type, 'RUN_FINISHED');
        assert.equal(second.events.at(-1).outcome?.pendingToolCallIds, undefined, 'nothing waits any more');
        assert.deepEqual(
          agent.messages.slice(agent.messages.indexOf(agent.messages.find((m) => m.id === toolMessage.id))).map((m) => [m.role, m.content]),
          [['tool', flow.result], ...flow.continuation.map((text) => ['assistant', text])],
        );

        history = await threadHistory(server, agent.threadId);
        assertHistoryMatchesClient(history, agent);
        assert.deepEqual(history.pendingToolCallIds, []);
        assert.deepEqual(
          history.runs.map((r) => [r.runId, r.scenario, r.outcome]),
          [
            [first.runId, flow.tool === 'clarify' ? 'clarify' : 'external-search', 'success'],
            [second.runId, flow.tool === 'clarify' ? 'clarify' : 'external-search', 'success'],
          ],
        );
      });
    }

    test('a user who moves on without the tool result starts afresh', async () => {
      const conversation = new Conversation(client, { url: server.url });
      const { agent } = conversation;
      assertEndsForTheFrontend(await conversation.send('make me a highlight video', { tools: ['clarify'] }), FLOWS[0]);

      const next = await conversation.send('Hello there', { tools: ['clarify'] });
      assertCleanRun(next);
      const history = await threadHistory(server, agent.threadId);
      assert.deepEqual(
        history.runs.map((r) => r.scenario),
        ['clarify', 'catch-all'],
      );
      assert.deepEqual(history.pendingToolCallIds, [], 'the unanswered call no longer waits');
      assertHistoryMatchesClient(history, agent);
    });
  });
}

describe("the seed's external-tool flow over plain fetch", () => {
  test('TOOL_CALL_START/ARGS/END, RUN_FINISHED; then a run with only the role: tool message continues', async () => {
    const threadId = `thread-${randomUUID()}`;
    const tools = toolDefinitions(['external_search']);
    const first = await postRun(server, {
      threadId,
      runId: 'run-001',
      messages: [{ role: 'user', content: 'look up the VOD architecture document' }],
      tools,
    });
    assert.equal(first.status, 200);
    assert.deepEqual(typeSequence(first.events), [
      'RUN_STARTED', 'TOOL_CALL_START', 'TOOL_CALL_ARGS', 'TOOL_CALL_END', 'RUN_FINISHED']);
    const [call] = streamedToolCalls(first.events);
    assert.equal(call.name, 'external_search');

    // The seed's request: only the tool message, as the seed sends it.
    const second = await postRun(server, {
      threadId,
      runId: 'run-002',
      messages: [{ role: 'tool', content: '<tool_execution_result>', toolCallId: call.id }],
      tools,
    });
    assert.equal(second.status, 200, JSON.stringify(second.body));
    assert.deepEqual(streamedTexts(second.events), ['According to the search result: <tool_execution_result>']);
    assert.deepEqual(runOutcomes(await threadHistory(server, threadId)), ['success', 'success']);
  });
});

const MIXCUT_REPLY = ["I'll combine 2 assets into one mixcut.", 'The mixcut is being rendered; it takes about a minute.'];

describe('the multimodal mixcut request', () => {
  test('over plain fetch: the agent reads the 2 attachments of the mixcut_assets part', async () => {
    const threadId = `thread-${randomUUID()}`;
    const { status, events } = await postRun(server, {
      threadId,
      runId: 'run-001',
      messages: [{ role: 'user', content: MIXCUT_CONTENT }],
    });
    assert.equal(status, 200);
    assert.deepEqual(streamedTexts(events), MIXCUT_REPLY);
    const [call] = streamedToolCalls(events);
    assert.equal(call.name, 'create_mixcut');
    assert.deepEqual(call.args.attachments, MIXCUT_CONTENT[1].metadata.attachments, 'the list itself, not JSON text');
    const history = await threadHistory(server, threadId);
    assert.deepEqual(history.messages[0].content, MIXCUT_CONTENT, 'history keeps the vendor part');
  });

  const [current, legacy] = CLIENTS;

  test(`with ${legacy.label}: the part goes through unchanged and the agent combines 2 assets`, async () => {
    const conversation = new Conversation(legacy, { url: server.url });
    const run = await conversation.send(MIXCUT_CONTENT);
    assertCleanRun(run);
    assert.deepEqual(run.input.messages[0].content, MIXCUT_CONTENT);
    assert.deepEqual(streamedTexts(run.events), MIXCUT_REPLY);
    assertHistoryMatchesClient(await threadHistory(server, conversation.agent.threadId), conversation.agent);
  });

  test(`with ${current.label}: the client strips the unknown part from the request, with a warning`, async () => {
    const conversation = new Conversation(current, { url: server.url });
    const { agent } = conversation;
    const run = await conversation.send(MIXCUT_CONTENT);

    // 1.0.0 checks the outgoing input against its schema: a content part of a type it
    // does not know is removed before the request is sent.
    assert.equal(run.failure, undefined);
    assert.equal(run.rejection, undefined);
    assert.deepEqual(
      run.consoleCalls.map((c) => [c.level, ...c.args]),
      [['warn', "[ag-ui][enforce] Removed unrecognised material at '/messages/0/content/1' from the outgoing input."]],
    );
    assert.equal(run.events.at(-1).type, 'RUN_FINISHED');
    const history = await threadHistory(server, agent.threadId);
    assert.deepEqual(history.messages[0].content, [MIXCUT_CONTENT[0]], 'the server got the text part only');
    // So the client holds a user message the server never saw; the rest agrees.
    assert.deepEqual(agent.messages[0].content, MIXCUT_CONTENT);
    assert.deepEqual(history.messages.slice(1), JSON.parse(JSON.stringify(agent.messages.slice(1))));
    assert.equal(streamedTexts(run.events)[1], MIXCUT_REPLY[1]);
  });

  test(
    'a message without a mixcut_assets part is answered with "your assets"',
    async () => {
      const { events } = await postRun(server, {
        threadId: `thread-${randomUUID()}`,
        runId: 'run-001',
        messages: [{ role: 'user', content: [MIXCUT_CONTENT[0]] }],
      });
      assert.equal(streamedTexts(events)[0], "I'll combine your assets into one mixcut.");
    },
  );
});
