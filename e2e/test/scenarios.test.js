// (b) What each built-in scenario leaves in the client: the final agent.messages and
// agent.state of each client version, and the events its subscribers saw.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertCleanRun, CLIENTS, Conversation, eventsOf, messagesOf, typeSequence } from './clients.js';
import { useServer } from './harness.js';

const server = useServer();

for (const client of CLIENTS) {
  describe(`built-in scenarios with ${client.label}`, () => {
    /** Sends one message in a new conversation and checks the run is clean. */
    async function cleanRun(message, options) {
      const run = await new Conversation(client, { url: server.url }).send(message, options);
      assertCleanRun(run);
      return run;
    }

    test('video-mixcut-search: reasoning, an answer, a server-side tool call and its result', async () => {
      const run = await cleanRun('Search for ocean wave videos', { forwardedProps: { scenario_name: 'video-mixcut' } });

      const reasoning = run.events.filter((e) => e.type.startsWith('REASONING_'));
      assert.deepEqual(typeSequence(reasoning), [
        'REASONING_START',
        'REASONING_MESSAGE_START',
        'REASONING_MESSAGE_CONTENT',
        'REASONING_MESSAGE_END',
        'REASONING_END',
      ]);
      assert.equal(new Set(reasoning.map((e) => e.messageId)).size, 1, 'one reasoning message id throughout');
      assert.equal(eventsOf(run, 'REASONING_MESSAGE_START')[0].role, 'reasoning');
      const thought = eventsOf(run, 'REASONING_MESSAGE_CONTENT').map((e) => e.delta).join('');
      assert.equal(thought, 'The user wants to search for ocean wave videos...');

      assert.deepEqual(
        run.agent.messages.map((m) => m.role),
        ['user', 'reasoning', 'assistant', 'tool'],
      );
      assert.equal(messagesOf(run, 'reasoning')[0].content, thought);
      const [assistant] = messagesOf(run, 'assistant');
      assert.equal(assistant.content, "I'll help you search.");
      assert.equal(assistant.toolCalls.length, 1);
      const [call] = assistant.toolCalls;
      assert.equal(call.type, 'function');
      assert.equal(call.function.name, 'search_media_by_semantics');
      assert.deepEqual(JSON.parse(call.function.arguments), { query: 'ocean waves' });
      assert.equal(eventsOf(run, 'TOOL_CALL_START')[0].parentMessageId, assistant.id);

      const [toolMessage] = messagesOf(run, 'tool');
      assert.equal(toolMessage.toolCallId, call.id);
      assert.equal(toolMessage.content, '{"Recall":[]}');
      assert.equal(run.events.at(-1).type, 'RUN_FINISHED');
    });

    test('showcase: state, steps, activity, custom, raw, tool result and the run result', async () => {
      const run = await cleanRun('showcase');

      const finalSnapshot = { plan: [{ title: 'Gather sources', status: 'done' }], progress: 100 };
      assert.deepEqual(eventsOf(run, 'STATE_SNAPSHOT').at(-1).snapshot, finalSnapshot);
      assert.deepEqual(run.agent.state, finalSnapshot);

      const steps = run.events.filter((e) => e.type.startsWith('STEP_'));
      assert.deepEqual(
        steps.map((e) => [e.type, e.stepName]),
        [
          ['STEP_STARTED', 'planning'],
          ['STEP_FINISHED', 'planning'],
        ],
      );

      // Both client versions keep activity messages in agent.messages, with the
      // ACTIVITY_DELTA applied.
      const activities = messagesOf(run, 'activity');
      assert.equal(activities.length, 1);
      assert.equal(activities[0].activityType, 'PLAN');
      assert.deepEqual(activities[0].content, { steps: ['Gather sources', 'Summarize'], current: 1 });
      assert.equal(activities[0].id, eventsOf(run, 'ACTIVITY_SNAPSHOT')[0].messageId);

      // REASONING_ENCRYPTED_VALUE lands on the reasoning message.
      assert.equal(messagesOf(run, 'reasoning')[0].encryptedValue, 'opaque-reasoning-blob');

      const [custom] = eventsOf(run, 'CUSTOM');
      assert.equal(custom.name, 'PredictState');
      assert.deepEqual(custom.value, [{ state_key: 'progress', tool: 'lookup_weather', tool_argument: 'city' }]);

      const [raw] = eventsOf(run, 'RAW');
      assert.deepEqual(raw.event, { provider: 'mock', note: 'passed through untouched' });
      assert.equal(raw.source, 'agui-mock');

      const [call] = messagesOf(run, 'assistant')[0].toolCalls;
      assert.equal(call.function.name, 'lookup_weather');
      assert.equal(typeof JSON.parse(call.function.arguments).city, 'string');
      const [toolMessage] = messagesOf(run, 'tool');
      assert.equal(toolMessage.toolCallId, call.id);
      assert.deepEqual(JSON.parse(toolMessage.content), { temperature: 21, unit: 'celsius' });

      const finished = run.events.at(-1);
      assert.equal(finished.type, 'RUN_FINISHED');
      assert.deepEqual(finished.result, { summary: 'showcase complete' });
      assert.deepEqual(run.result, { summary: 'showcase complete' }, 'runAgent resolves with the run result');
    });

    test('run-error: RUN_ERROR resolves the run and keeps the partial answer', async () => {
      const run = await cleanRun('fail please');

      const last = run.events.at(-1);
      assert.equal(last.type, 'RUN_ERROR');
      assert.equal(last.code, 'provider_overloaded');
      assert.equal(last.message, 'The model provider is overloaded. Try again in a minute.');
      assert.equal(eventsOf(run, 'RUN_FINISHED').length, 0);
      assert.equal(run.result, undefined);
      assert.deepEqual(
        messagesOf(run, 'assistant').map((m) => m.content),
        ['Let me look into that…'],
      );
    });

    test('clarify: a clarify call left for the frontend to answer', async () => {
      const run = await cleanRun('make me a highlight video', { tools: ['clarify'] });

      const [assistant] = messagesOf(run, 'assistant');
      assert.equal(assistant.content, 'Happy to. One question first.');
      assert.equal(assistant.toolCalls.length, 1);
      const [call] = assistant.toolCalls;
      assert.equal(call.function.name, 'clarify');
      assert.deepEqual(JSON.parse(call.function.arguments), {
        question: 'Which format should the video be?',
        choices: ['MP4', 'WebM', 'GIF'],
      });
      assert.equal(eventsOf(run, 'TOOL_CALL_RESULT').length, 0);
      assert.deepEqual(messagesOf(run, 'tool'), []);
      assert.equal(run.events.at(-1).type, 'RUN_FINISHED');
    });

    test('messages-snapshot: the snapshot replaces the draft and keeps the user message', async () => {
      const run = await cleanRun('rewrite that');

      const draftId = eventsOf(run, 'TEXT_MESSAGE_START')[0].messageId;
      assert.deepEqual(run.agent.messages, [
        run.userMessage,
        { id: draftId, role: 'assistant', content: 'The final, edited answer.' },
      ]);
    });

    test('explicit-events: the explicit event list plays as written', async () => {
      const run = await cleanRun('explicit please');

      assert.deepEqual(typeSequence(run.events), [
        'RUN_STARTED',
        'TEXT_MESSAGE_START',
        'TEXT_MESSAGE_CONTENT',
        'TEXT_MESSAGE_END',
        'RUN_FINISHED',
      ]);
      assert.deepEqual(
        messagesOf(run, 'assistant').map((m) => m.content),
        ['Every event exactly as written.'],
      );
    });

    test('catch-all: any other message gets one plausible text answer', async () => {
      const run = await cleanRun('Hello there');

      const assistants = messagesOf(run, 'assistant');
      assert.equal(assistants.length, 1);
      assert.equal(typeof assistants[0].content, 'string');
      assert.ok(assistants[0].content.trim().length > 0);
      assert.deepEqual(
        run.agent.messages.map((m) => m.role),
        ['user', 'assistant'],
      );
    });
  });
}
