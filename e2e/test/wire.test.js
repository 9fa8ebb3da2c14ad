// (c) The bytes on the wire, read with plain fetch: SSE framing exactly as the production
// API writes it, the seed document's example request and its event sequence, version
// negotiation and reproducibility under a fixed seed.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { newTestId, TEST_ID_HEADER } from './admin.js';
import { DEFAULT_ROUTE, SPEED_HEADER, typeSequence } from './clients.js';
import { useServer } from './harness.js';

const server = useServer();

// The example request of the seed API document: its user message has no id.
const SEED_REQUEST = {
  threadId: 'thread-001',
  runId: 'run-001',
  messages: [{ role: 'user', content: 'Search for ocean wave videos' }],
  forwardedProps: { scenario_name: 'video-mixcut' },
};

// The event sequence of the seed document's example stream, repeats collapsed.
const SEED_SEQUENCE = [
  'RUN_STARTED',
  'REASONING_START',
  'REASONING_MESSAGE_START',
  'REASONING_MESSAGE_CONTENT',
  'REASONING_MESSAGE_END',
  'REASONING_END',
  'TEXT_MESSAGE_START',
  'TEXT_MESSAGE_CONTENT',
  'TEXT_MESSAGE_END',
  'TOOL_CALL_START',
  'TOOL_CALL_ARGS',
  'TOOL_CALL_END',
  'TOOL_CALL_RESULT',
  'RUN_FINISHED',
];

/** Posts a run request without delays and returns the response and its whole body. */
async function postRun(body, headers = {}) {
  const res = await fetch(server.url + DEFAULT_ROUTE, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream', [SPEED_HEADER]: '0', ...headers },
    body: JSON.stringify(body),
  });
  return { res, text: await res.text() };
}

// One frame: `id: <TYPE>_<timestamp>`, one `data:` line, a blank line; LF only.
const FRAME = /^id: ([A-Z_]+)_(\d+)\ndata: (.*)$/;

/**
 * Splits an SSE body into frames, asserting each one's shape, and returns the events.
 * Each frame's id names its event's type and timestamp, and its data is the event as
 * compact JSON with type and timestamp first.
 */
function parseFrames(text) {
  assert.ok(!text.includes('\r'), 'the stream is framed with LF only');
  assert.ok(text.endsWith('\n\n'), 'the last frame is terminated');
  return text
    .slice(0, -2)
    .split('\n\n')
    .map((frame) => {
      const m = FRAME.exec(frame);
      assert.ok(m, `malformed frame: ${JSON.stringify(frame)}`);
      const [, idType, idTimestamp, data] = m;
      const event = JSON.parse(data);
      assert.equal(idType, event.type, `id line of ${data}`);
      assert.equal(Number(idTimestamp), event.timestamp, `id line of ${data}`);
      assert.ok(Number.isInteger(event.timestamp), `integer timestamp in ${data}`);
      assert.equal(data, JSON.stringify(event), 'data is compact JSON');
      assert.ok(data.startsWith(`{"type":"${event.type}","timestamp":${event.timestamp}`), `field order of ${data}`);
      return event;
    });
}

/** The JSON paths at which value holds null. */
function nullPaths(value, path = '$') {
  if (value === null) return [path];
  if (typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, v]) => nullPaths(v, `${path}.${key}`));
}

/** The events without their timestamps, which are the only part that varies between replays. */
function withoutTimestamps(events) {
  return events.map(({ timestamp, ...rest }) => rest);
}

// The first run of the seed's client loops, which pauses my-thread-001 with the two
// interrupts the seed's resume request answers.
const SEED_FIRST_RUN = {
  threadId: 'my-thread-001',
  runId: 'run-001',
  messages: [{ role: 'user', content: 'Search for ocean wave videos and trim the first 10 seconds' }],
  forwardedProps: { approval_mode: 'level:low', scenario_name: 'media_management' },
};

// The other run requests of the seed document: multimodal content with a vendor part,
// resumes with cancelled and resolved interrupts, and a frontend tool's result.
const OTHER_SEED_REQUESTS = {
  'multimodal content with a vendor-specific part': {
    threadId: 'thread-001',
    runId: 'run-001',
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Help me mash up these assets' },
          {
            type: 'mixcut_assets',
            metadata: { attachments: [{ url: ' http://example.com/video-a.mp4' }, { fileId: 'vod-file-001' }] },
          },
        ],
      },
    ],
  },
  'a resume with a resolved and a cancelled interrupt': {
    threadId: 'my-thread-001',
    runId: 'run-002',
    messages: [{ role: 'user', content: '' }],
    forwardedProps: { approval_mode: 'level:low', scenario_name: 'video-mixcut' },
    resume: [
      { interruptId: 'interruptId-001', status: 'resolved' },
      { interruptId: 'interruptId-002', status: 'cancelled', payload: { feedback: 'Do not add a watermark' } },
    ],
  },
  "a frontend tool's result": {
    threadId: 'my-thread-001',
    runId: 'run-002',
    messages: [{ role: 'tool', content: '<tool_execution_result>', toolCallId: 'call-ext-001' }],
    tools: [{ name: 'clarify', description: '...', parameters: { type: 'object', properties: {} } }],
  },
};

describe('wire format over plain fetch', () => {
  test('the seed example request streams the seed event sequence in production framing', async () => {
    const { res, text } = await postRun(SEED_REQUEST);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type'), /^text\/event-stream\b/);
    assert.equal(res.headers.get('cache-control'), 'no-cache');

    const events = parseFrames(text);
    assert.deepEqual(typeSequence(events), SEED_SEQUENCE);
    assert.deepEqual(
      events.flatMap((e) => nullPaths(e, e.type)),
      [],
      'no event holds null',
    );
    const timestamps = events.map((e) => e.timestamp);
    assert.deepEqual(timestamps, [...timestamps].sort((a, b) => a - b), 'timestamps never go back');

    const started = events[0];
    const finished = events.at(-1);
    assert.deepEqual([started.threadId, started.runId], ['thread-001', 'run-001']);
    assert.deepEqual([finished.threadId, finished.runId], ['thread-001', 'run-001']);
    assert.equal('protocolVersion' in started, false, 'a request without protocolVersion is a 0.0.x peer');

    const text0 = events.find((e) => e.type === 'TEXT_MESSAGE_START');
    const call = events.find((e) => e.type === 'TOOL_CALL_START');
    const result = events.find((e) => e.type === 'TOOL_CALL_RESULT');
    assert.equal(call.toolCallName, 'search_media_by_semantics');
    assert.equal(call.parentMessageId, text0.messageId);
    const args = events.filter((e) => e.type === 'TOOL_CALL_ARGS').map((e) => e.delta).join('');
    assert.deepEqual(JSON.parse(args), { query: 'ocean waves' });
    assert.equal(result.toolCallId, call.toolCallId);
    assert.equal(result.role, 'tool');
    assert.equal(result.content, '{"Recall":[]}');
  });

  test('the same request under the same seed replays the same stream on a new thread, not on the same one', async () => {
    // Each test id has threads of its own: thread-001 is new to each.
    const testId = newTestId('wire-replay');
    const first = await postRun(SEED_REQUEST, { [TEST_ID_HEADER]: testId });
    const second = await postRun(SEED_REQUEST, { [TEST_ID_HEADER]: newTestId('wire-replay') });
    assert.deepEqual(withoutTimestamps(parseFrames(second.text)), withoutTimestamps(parseFrames(first.text)));
    // On the same thread it is the conversation's next run, with ids of its own.
    const next = await postRun(SEED_REQUEST, { [TEST_ID_HEADER]: testId });
    assert.notEqual(parseFrames(next.text)[1].messageId, parseFrames(first.text)[1].messageId);
  });

  for (const [sent, declared] of [
    ['1.0', '1.0'],
    ['1.1', '1.1'],
    ['1.7', '1.1'],
  ]) {
    test(`a peer of protocol ${sent} gets RUN_STARTED.protocolVersion ${declared}`, async () => {
      const { res, text } = await postRun({ ...SEED_REQUEST, protocolVersion: sent });
      assert.equal(res.status, 200);
      assert.equal(parseFrames(text)[0].protocolVersion, declared);
    });
  }

  for (const [what, body] of Object.entries(OTHER_SEED_REQUESTS)) {
    test(`the seed request with ${what} is answered with a complete run`, async () => {
      if (body.resume) {
        // A resume answers the interrupts of the thread's previous run.
        const first = parseFrames((await postRun(SEED_FIRST_RUN)).text);
        assert.equal(first.at(-1).outcome?.type, 'interrupt');
      }
      const { res, text } = await postRun(body);
      assert.equal(res.status, 200, text);
      const events = parseFrames(text);
      assert.equal(events[0].type, 'RUN_STARTED');
      assert.equal(events.at(-1).type, 'RUN_FINISHED');
      assert.deepEqual([events.at(-1).threadId, events.at(-1).runId], [body.threadId, body.runId]);
    });
  }
});

describe('a stream with delays', () => {
  // Such a stream is taken over from net/http at its first wait, so that it waits
  // without a goroutine: the rest of the body is written in chunks by the mock, and
  // the connection closes with the response, as its Connection header announces.
  test('says Connection: close, arrives whole in SSE frames, and the next run on a new connection plays', async () => {
    for (const speed of ['0.02', '0.02']) {
      const { res, text } = await postRun(SEED_REQUEST, { [SPEED_HEADER]: speed });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('connection'), 'close');
      assert.deepEqual(typeSequence(parseFrames(text)), SEED_SEQUENCE);
    }
  });

  test('without delays keeps its connection alive', async () => {
    const { res, text } = await postRun(SEED_REQUEST);
    assert.equal(res.headers.get('connection'), 'keep-alive');
    assert.deepEqual(typeSequence(parseFrames(text)), SEED_SEQUENCE);
  });
});
