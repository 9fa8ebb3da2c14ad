// (r) Record mode against CopilotKit's aimock, another AG-UI implementation: its streams
// are relayed, recorded and replayed by a server that knows nothing but the recordings.
// Timing tolerance of a replay as in record-sessions.test.js (compareTiming in recording.js).

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AGUIMock } from '@copilotkit/aimock';
import { assertCleanRun, CLIENTS, Conversation, eventsOf } from './clients.js';
import { makeTempDir } from './harness.js';
import {
  assertValid,
  canonical,
  listFiles,
  progressLines,
  readAll,
  recordings,
  startRecorder,
  startReplay,
} from './recording.js';
import { parseEvents, streamedTexts, streamedToolCalls, streamedToolResults } from './threads.js';

const [current] = CLIENTS;

// its AGUIMock: onMessage, onToolCall, onReasoning, onRun; start() listens on a free port
// and serves POST / only). Its streams differ from what agui-mock sends a 1.0 client:
// RUN_STARTED and RUN_FINISHED carry thread and run ids minted when the fixture was
// registered, not the request's, RUN_STARTED declares no protocolVersion, and
// RUN_FINISHED has no outcome. HttpAgent 1.0.0 accepts that silently; the recorder relays
// it as is and records it, templating aimock's ids so that a replay echoes the request's.

const AIMOCK_FIXTURES = [
  { message: 'hello aimock', text: 'Hello from aimock, another AG-UI server.' },
  { message: 'weather in Paris', tool: { name: 'get_weather', args: { city: 'Paris', unit: 'celsius' }, result: '{"temperature":21}' } },
  { message: 'think it over', reasoning: 'Weighing the options before answering.' },
  { message: 'plan a trip' }, // onRun: streamed text and a frontend tool call, defined below
];
const TRIP_EVENTS = [
  { type: 'RUN_STARTED', threadId: 'aimock-thread', runId: 'aimock-run' },
  { type: 'TEXT_MESSAGE_START', messageId: 'aimock-msg', role: 'assistant' },
  { type: 'TEXT_MESSAGE_CONTENT', messageId: 'aimock-msg', delta: 'Let me ' },
  { type: 'TEXT_MESSAGE_CONTENT', messageId: 'aimock-msg', delta: 'book it.' },
  { type: 'TEXT_MESSAGE_END', messageId: 'aimock-msg' },
  { type: 'TOOL_CALL_START', toolCallId: 'aimock-call', toolCallName: 'book_flight', parentMessageId: 'aimock-msg' },
  { type: 'TOOL_CALL_ARGS', toolCallId: 'aimock-call', delta: '{"from":"SFO",' },
  { type: 'TOOL_CALL_ARGS', toolCallId: 'aimock-call', delta: '"to":"CDG"}' },
  { type: 'TOOL_CALL_END', toolCallId: 'aimock-call' },
  { type: 'RUN_FINISHED', threadId: 'aimock-thread', runId: 'aimock-run' },
];

describe('record mode with CopilotKit aimock as the upstream', () => {
  const dir = makeTempDir('agui-mock-aimock-');
  const mock = new AGUIMock({ host: '127.0.0.1', port: 0 });
  let recorder;
  before(async () => {
    mock.onMessage(/^hello aimock$/, AIMOCK_FIXTURES[0].text, { delayMs: 30 });
    const { tool } = AIMOCK_FIXTURES[1];
    mock.onToolCall(/^weather in Paris$/, tool.name, JSON.stringify(tool.args), { result: tool.result });
    mock.onReasoning(/^think it over$/, AIMOCK_FIXTURES[2].reasoning);
    mock.onRun(/^plan a trip$/, TRIP_EVENTS, 20);
    const url = await mock.start();
    recorder = await startRecorder(url, dir);
  });
  after(() => Promise.all([recorder?.stop(), mock.stop()]));

  test("aimock's streams are relayed untouched, recorded complete, and replay with the same text, tool calls and reasoning", async (t) => {
    // What aimock sends without the recorder in between (it serves only POST /).
    const direct = [];
    for (const { message } of AIMOCK_FIXTURES) {
      const res = await fetch(`${mock.url}/`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ threadId: 'direct', runId: 'direct', messages: [{ id: 'u', role: 'user', content: message }] }),
      });
      direct.push(parseEvents(await res.text()));
    }
    // aimock does not echo the request's thread and run ids: they are fixed per fixture.
    assert.notEqual(direct[0][0].threadId, 'direct');

    const viaRecorder = [];
    for (const { message } of AIMOCK_FIXTURES) {
      const run = await new Conversation(current, { url: recorder.url, route: '/' }).send(message);
      assert.equal(run.failure, undefined, `${message}: ${run.failure}`);
      assert.deepEqual(run.consoleCalls, []);
      viaRecorder.push(run);
    }
    for (const [i, run] of viaRecorder.entries()) {
      const strip = (events) => events.map(({ timestamp, ...rest }) => rest);
      assert.deepEqual(strip(run.events), strip(direct[i]), `${AIMOCK_FIXTURES[i].message}: the recorder relays aimock's events as sent`);
      assert.notEqual(run.events[0].threadId, run.agent.threadId, "aimock's RUN_STARTED carries its own thread id");
    }

    const lines = await progressLines(recorder, AIMOCK_FIXTURES.length);
    t.diagnostic(`recorder: ${lines.map((l) => l.outcome).join('; ')}`);
    assert.deepEqual(
      lines.map((l) => l.outcome),
      AIMOCK_FIXTURES.map(() => 'complete'),
      'each aimock run is recorded as complete although its ids are not the request\'s',
    );
    assert.deepEqual(listFiles(dir).filter((f) => f.startsWith('.incomplete')), []);
    assert.equal(recordings(dir).length, AIMOCK_FIXTURES.length);
    await assertValid(dir);
    for (const { content } of readAll(dir)) {
      assert.doesNotMatch(content, /aimock-(thread|run|msg|call)/, 'aimock\'s ids became templates');
    }
    const trip = readAll(dir).find((f) => f.content.includes('^plan a trip$'));
    assert.match(trip.content, /\{delay: (1\d|2\d|3\d), type: TEXT_MESSAGE_START/, 'the 20 ms between aimock\'s events is recorded');

    // Replay through agui-mock to HttpAgent 1.0.0.
    const replay = await startReplay(dir);
    try {
      for (const [i, fixture] of AIMOCK_FIXTURES.entries()) {
        const run = await new Conversation(current, { url: replay.url, route: '/' }).send(fixture.message);
        assertCleanRun(run, { declared: undefined }); // the replay echoes the request's thread and run ids, and declares no version, as aimock
        const sent = direct[i];
        assert.deepEqual(streamedTexts(run.events), streamedTexts(sent), `${fixture.message}: text`);
        assert.deepEqual(
          streamedToolCalls(run.events).map((c) => [c.name, c.args]),
          streamedToolCalls(sent).map((c) => [c.name, c.args]),
          `${fixture.message}: tool calls`,
        );
        assert.deepEqual(
          streamedToolResults(run.events).map((r) => r.content),
          streamedToolResults(sent).map((r) => r.content),
        );
        const reasoning = (events) => eventsOf({ events }, 'REASONING_MESSAGE_CONTENT').map((e) => e.delta).join('');
        assert.equal(reasoning(run.events), reasoning(sent), `${fixture.message}: reasoning`);
        // Event for event the same, but for the ids.
        assert.deepEqual(canonical(run.events), canonical(sent), `${fixture.message}: events`);
      }
      // What aimock sent is what its fixtures say.
      const [hello, weather, think] = AIMOCK_FIXTURES;
      assert.deepEqual(streamedTexts(direct[0]), [hello.text]);
      assert.deepEqual(streamedToolCalls(direct[1]).map((c) => [c.name, c.args]), [[weather.tool.name, weather.tool.args]]);
      assert.deepEqual(streamedToolResults(direct[1]).map((r) => r.content), [JSON.parse(weather.tool.result)]);
      assert.equal(eventsOf({ events: direct[2] }, 'REASONING_MESSAGE_CONTENT')[0].delta, think.reasoning);
      assert.deepEqual(streamedTexts(direct[3]), ['Let me book it.']);
      assert.deepEqual(streamedToolCalls(direct[3]).map((c) => [c.name, c.args]), [['book_flight', { from: 'SFO', to: 'CDG' }]]);
    } finally {
      await replay.stop();
    }
  });
});
