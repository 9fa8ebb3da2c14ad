// (r) Record mode: `agui-mock record` proxies runs to a real agent, relays its events as
// they arrive and writes each session as a scenario file; `serve --record-missing`
// records only what its scenarios do not answer. Recorded with the real HttpAgent
// against agui-mock itself, against CopilotKit's aimock (another AG-UI implementation)
// and against stand-in agents that fail, then replayed by a server that knows nothing
// but the recordings.
//
// Timing tolerance of a replay: every event must arrive within 50 ms + 20 % of its
// offset from the run's first event, compared with the same offset while recording, and
// the first event no later than that allowance after its recorded offset from the request
// (see compareTiming in recording.js). The worst deviation measured is printed as a test
// diagnostic.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { AGUIMock } from '@copilotkit/aimock';
import { assertCleanRun, CLIENTS, Conversation, eventsOf } from './clients.js';
import { tenantScenarioDir } from './fixtures.js';
import { makeTempDir, startServer } from './harness.js';
import {
  assertValid,
  beginStream,
  canonical,
  closedPort,
  compareTiming,
  listFiles,
  recordings,
  sessionRecord,
  startFakeUpstream,
  startRecorder,
  startReplay,
  textRun,
  TIMING_RATIO,
  TIMING_SLACK_MS,
  waitForScenario,
  writeEvent,
} from './recording.js';
import { CANCEL_PATH, HISTORY_PATH, parseEvents, postJSON, streamedTexts, streamedToolCalls, streamedToolResults } from './threads.js';

const [current, legacy] = CLIENTS;

const RECORDED_RUN = /^recorded run (\S+) of thread (\S+): (\d+) events in \S+, (complete|INCOMPLETE: .*), (nothing|\d+ secrets?) redacted → (.+)$/;

/** The recorder's progress lines, parsed. */
function progress(recorder) {
  return recorder.output
    .map((line) => RECORDED_RUN.exec(line))
    .filter(Boolean)
    .map(([, runId, threadId, events, outcome, redacted, file]) => ({ runId, threadId, events: Number(events), outcome, redacted: parseInt(redacted, 10) || 0, file }));
}

/** Waits until the recorder has printed count progress lines (the line follows the stream's end). */
async function progressLines(recorder, count) {
  await recorder.waitForOutput(() => progress(recorder).length >= count, 5_000).catch(() => {});
  return progress(recorder);
}

/** Every file under dir with its content. */
function readAll(dir) {
  return listFiles(dir).map((file) => ({ file, content: readFileSync(path.join(dir, file), 'utf8') }));
}

// ---------------------------------------------------------------------------------------
// 1. agui-mock recording agui-mock: whole sessions, replayed.

const MEDIA_MESSAGE = 'Search for ocean wave videos and trim the first 10 seconds';
const MEDIA_PROPS = { approval_mode: 'level:low', scenario_name: 'media_management' };

/** The seed's media-management flow: a first run that pauses on two interrupts, then the answers. */
function mediaSession(answers) {
  return async (conversation) => {
    const first = await conversation.send(MEDIA_MESSAGE, { forwardedProps: MEDIA_PROPS });
    const resume = conversation.agent.pendingInterrupts.map((intr, i) => ({ interruptId: intr.id, ...answers[i] }));
    const second = await conversation.continue({ forwardedProps: { approval_mode: 'level:low' }, resume });
    return [first, second];
  };
}

/** The clarify frontend tool: the run ends with the call, the next run carries the answer. */
function clarifySession(message, answer) {
  return async (conversation) => {
    const first = await conversation.send(message, { tools: ['clarify'] });
    const [call] = streamedToolCalls(first.events);
    conversation.agent.addMessage({ id: `tool-${randomUUID()}`, role: 'tool', toolCallId: call.id, content: answer });
    const second = await conversation.continue({ tools: ['clarify'] });
    return [first, second];
  };
}

const RESOLVED = { status: 'resolved' };
const SESSIONS = [
  { name: 'media-management, both resolved', client: current, drive: mediaSession([RESOLVED, RESOLVED]) },
  {
    name: 'media-management, watermark cancelled',
    client: current,
    drive: mediaSession([RESOLVED, { status: 'cancelled', payload: { feedback: 'Do not add a watermark' } }]),
  },
  { name: 'clarify answered GIF', client: current, drive: clarifySession('make me a highlight video', 'GIF') },
  { name: 'clarify answered WebM (0.0.58)', client: legacy, drive: clarifySession('create me a promo video', 'WebM') },
  { name: 'showcase', client: current, drive: async (conversation) => [await conversation.send('showcase')] },
];
// Sessions that share a first request record into one file, so they run one after the
// other; the groups run side by side.
const LANES = [[0, 1], [2, 3], [4]];

/** Runs every session's driver on its own agent at url, lane by lane; returns their runs by index. */
async function driveAll(url, clientFor = (session) => session.client) {
  // The first request of a process pays for setting up fetch; keep that out of the timing.
  await (await fetch(`${url}/_mock/healthz`)).text();
  const results = [];
  await Promise.all(
    LANES.map(async (lane) => {
      for (const i of lane) {
        const conversation = new Conversation(clientFor(SESSIONS[i]), { url, speed: null });
        results[i] = await SESSIONS[i].drive(conversation);
      }
    }),
  );
  return results;
}

describe('record mode with agui-mock as the upstream, replayed by agui-mock', () => {
  const dir = makeTempDir('agui-mock-recorded-');
  let upstream;
  let recorder;
  let recorded; // the runs of each session while recording
  before(async () => {
    upstream = await startServer(['--speed', '0.5']);
    recorder = await startRecorder(upstream.url, dir);
  });
  after(() => Promise.all([upstream?.stop(), recorder?.stop()]));

  test('sessions run through the recorder as they run against the agent', async () => {
    recorded = await driveAll(recorder.url);
    for (const [i, runs] of recorded.entries()) {
      for (const run of runs) assertCleanRun(run);
      const last = runs.at(-1);
      assert.equal(last.events.at(-1).type, 'RUN_FINISHED', `${SESSIONS[i].name} ends`);
    }
    // the branches the agent took
    const [resolved, cancelled, gif, webm, showcase] = recorded;
    assert.equal(resolved[0].finished.outcome, 'interrupt');
    assert.deepEqual(streamedTexts(resolved[1].events).slice(0, 2), ['Trimmed the first 10 seconds.', 'Added the watermark.']);
    assert.deepEqual(streamedTexts(cancelled[1].events).slice(0, 2), ['Trimmed the first 10 seconds.', 'No watermark ("Do not add a watermark").']);
    assert.equal(streamedTexts(gif[1].events)[0], "A GIF it is. GIFs have no sound, so I'll drop the audio track.");
    assert.equal(streamedTexts(webm[1].events)[0], 'Great, WebM it is.');
    assert.deepEqual(showcase[0].result, { summary: 'showcase complete' });

    // One progress line per run, each complete, naming the request's ids and the file.
    const runs = recorded.flat();
    const lines = await progressLines(recorder, runs.length);
    assert.equal(lines.length, runs.length, recorder.output.join('\n'));
    for (const run of runs) {
      const line = lines.find((l) => l.runId === run.runId);
      assert.ok(line, `a progress line for run ${run.runId}`);
      assert.equal(line.threadId, run.agent.threadId);
      assert.equal(line.outcome, 'complete');
      assert.equal(line.events, run.events.length);
      assert.equal(path.dirname(line.file), dir);
    }
  });

  test('each first request has one scenario file, every session branch in it, and they validate', async () => {
    assert.ok(recorded, 'the recording test ran');
    const files = listFiles(dir);
    assert.equal(files.length, 4, `files: ${files}`); // two media sessions share a file; nothing incomplete
    assert.deepEqual(recordings(dir), files);
    const report = await assertValid(dir);
    assert.equal(report.scenarios, 4);

    const media = readAll(dir).find((f) => f.content.includes('^Search for ocean wave videos and trim the first 10 seconds$'));
    assert.ok(media, 'the media-management recording');
    const branches = media.content.match(/^ {2}- when: \{resume: .*\}$/gm);
    assert.deepEqual(branches, [
      '  - when: {resume: [{status: resolved}, {status: resolved}]}',
      '  - when: {resume: [{status: resolved}, {payload: {feedback: Do not add a watermark}, status: cancelled}]}',
    ]);
    assert.match(media.content, /^ {2}forwardedProps: \{scenario_name: media_management\}$/m);
    for (const { file, content } of readAll(dir)) {
      assert.match(content, /^events:$/m, `${file} uses the explicit events form`);
      assert.match(content, /\{delay: \d+, type: RUN_STARTED, threadId: '\{\{ \.threadId \}\}', runId: '\{\{ \.runId \}\}'/, `${file} templates the ids`);
      assert.doesNotMatch(content, /interruptId-00\d|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}/, `${file} keeps no upstream id`);
    }
  });

  test('a replay server on the recordings alone plays every session back: same events, messages, state and rhythm', async (t) => {
    assert.ok(recorded, 'the recording test ran');
    const replay = await startReplay(dir);
    try {
      // 1.0.0 replays every session; the one 0.0.58 recorded is replayed by 0.0.58 too.
      const replayed = await driveAll(replay.url, () => current);
      const legacyReplay = await SESSIONS[3].drive(new Conversation(legacy, { url: replay.url, speed: null }));

      let worst = { deviation: 0 };
      for (const [i, session] of SESSIONS.entries()) {
        const runs = replayed[i];
        // A replay declares the protocol version the recording did: none for the session
        // agui-mock answered a 0.0.x client in.
        for (const run of runs) assertCleanRun(run, { declared: session.client.protocolVersion });
        if (session.client === current) {
          assert.deepEqual(canonical(sessionRecord(runs)), canonical(sessionRecord(recorded[i])), `${session.name}: the replay differs`);
          for (const [n, run] of runs.entries()) {
            const w = compareTiming(recorded[i][n], run, `${session.name}, run ${n + 1}`);
            if (w.deviation > worst.deviation) worst = { ...w, session: session.name, run: n + 1 };
          }
        } else {
          // Recorded from 0.0.58, replayed to 1.0.0: the same texts and calls.
          for (const [n, run] of runs.entries()) {
            assert.deepEqual(streamedTexts(run.events), streamedTexts(recorded[i][n].events));
            assert.deepEqual(
              streamedToolCalls(run.events).map((c) => [c.name, c.args]),
              streamedToolCalls(recorded[i][n].events).map((c) => [c.name, c.args]),
            );
          }
        }
      }
      for (const run of legacyReplay) assertCleanRun(run);
      assert.deepEqual(canonical(sessionRecord(legacyReplay)), canonical(sessionRecord(recorded[3])), 'the 0.0.58 session replays to 0.0.58');
      for (const [n, run] of legacyReplay.entries()) {
        const w = compareTiming(recorded[3][n], run, `0.0.58 clarify, run ${n + 1}`);
        if (w.deviation > worst.deviation) worst = { ...w, session: '0.0.58 clarify', run: n + 1 };
      }
      t.diagnostic(
        `timing tolerance ${TIMING_SLACK_MS} ms + ${TIMING_RATIO * 100}% of the offset; worst deviation ` +
          `${worst.deviation.toFixed(1)} ms ${worst.late ? 'late' : 'early'} (${worst.session}, run ${worst.run}, event ${worst.index} ` +
          `${worst.type}: ${worst.actual?.toFixed(0)} ms in the replay, ${worst.expected?.toFixed(0)} ms while recording)`,
      );

      // Both resume branches replayed (compared above); an answer nobody recorded is refused.
      const conversation = new Conversation(current, { url: replay.url });
      const first = await conversation.send(MEDIA_MESSAGE, { forwardedProps: MEDIA_PROPS });
      assertCleanRun(first);
      const resume = conversation.agent.pendingInterrupts.map((intr) => ({ interruptId: intr.id, status: 'cancelled' }));
      const refused = await conversation.continue({ resume });
      assert.equal(refused.failure?.status, 400, `an unrecorded answer: ${refused.failure}`);
      assert.equal(refused.failure.payload.error, 'no_recorded_branch');
    } finally {
      await replay.stop();
    }
  });

  test('a recording made with a 1.0 client declares the 0.0.x client\'s version when replayed to it', async () => {
    assert.ok(recorded, 'the recording test ran');
    const replay = await startReplay(dir);
    try {
      const run = await new Conversation(legacy, { url: replay.url }).send('showcase');
      assert.equal(run.events[0].type, 'RUN_STARTED');
      assert.equal(run.events[0].protocolVersion, undefined, 'a 0.0.x client is declared no protocolVersion');
    } finally {
      await replay.stop();
    }
  });
});

// ---------------------------------------------------------------------------------------
// 2. Recording CopilotKit's aimock, an independent AG-UI implementation (@copilotkit/aimock,
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

// ---------------------------------------------------------------------------------------
// 3. Credentials and secrets.

const TOKEN = 'sk-live-0123456789abcdefSECRET';
const CUSTOM_SECRET = 'ACME-4242-XYZ';

describe('record mode keeps credentials out of recordings', () => {
  const dir = makeTempDir('agui-mock-secrets-');
  let upstream;
  let recorder;
  before(async () => {
    upstream = await startFakeUpstream((req, res) => {
      if (req.path === HISTORY_PATH || req.path === CANCEL_PATH) {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        return res.end(JSON.stringify({ upstream: req.path, threadId: req.body.threadId }));
      }
      beginStream(res);
      // the secrets are split across deltas, as a model streams them
      const deltas = ['Your key is sk-li', 've-0123456789abcdefSECRET', ' and the code is ACME-', '4242-XYZ', '.'];
      for (const event of textRun(req.body, deltas)) writeEvent(res, event);
      res.end();
    });
    recorder = await startRecorder(upstream.url, dir, ['--redact', 'ACME-[0-9]{4}-[A-Z]+']);
  });
  after(() => Promise.all([upstream?.close(), recorder?.stop()]));

  test('the upstream gets the client\'s Authorization header; no file holds the token, --redact scrubs content', async () => {
    const headers = { Authorization: `Bearer ${TOKEN}` };
    const conversation = new Conversation(current, { url: recorder.url, headers });
    const run = await conversation.send('what is my key?');
    assertCleanRun(run);
    const secretText = `Your key is ${TOKEN} and the code is ${CUSTOM_SECRET}.`;
    assert.deepEqual(streamedTexts(run.events), [secretText], 'the client gets the stream as the agent sent it');

    assert.equal(upstream.requests.length, 1);
    const [request] = upstream.requests;
    assert.equal(request.path, '/agui/chat');
    assert.equal(request.headers.authorization, `Bearer ${TOKEN}`);
    assert.equal(request.body.threadId, conversation.agent.threadId);

    // History and cancel pass through with the credentials too.
    for (const endpoint of [HISTORY_PATH, CANCEL_PATH]) {
      const answer = await postJSON(recorder, endpoint, { threadId: conversation.agent.threadId }, headers);
      assert.equal(answer.status, 200);
      assert.deepEqual(answer.body, { upstream: endpoint, threadId: conversation.agent.threadId });
      assert.equal(upstream.requests.at(-1).headers.authorization, `Bearer ${TOKEN}`);
    }

    const [line] = await progressLines(recorder, 1);
    assert.equal(line.redacted, 2, 'the progress line counts the key and the code');
    const files = readAll(dir);
    assert.equal(files.length, 1, files.map((f) => f.file).join());
    for (const { file, content } of files) {
      for (const secret of [TOKEN, TOKEN.toLowerCase(), 'sk-live', 'abcdefSECRET', CUSTOM_SECRET, '4242']) {
        assert.ok(!content.includes(secret), `${file} contains ${secret}:\n${content}`);
      }
      assert.doesNotMatch(content, /authorization|bearer/i, `${file} records no header`);
    }
    await assertValid(dir);

    const replay = await startReplay(dir);
    try {
      const replayed = await new Conversation(current, { url: replay.url }).send('what is my key?');
      assertCleanRun(replayed);
      assert.deepEqual(streamedTexts(replayed.events), ['Your key is [REDACTED] and the code is [REDACTED].']);
    } finally {
      await replay.stop();
    }
  });

  test('a secret in the user message stays out of the file name and the progress line', async () => {
    const earlier = progress(recorder).length;
    const run = await new Conversation(current, { url: recorder.url }).send(`use ${TOKEN.toLowerCase()} please`);
    assertCleanRun(run);
    const [line] = (await progressLines(recorder, earlier + 1)).slice(earlier);
    for (const { file, content } of readAll(dir)) {
      assert.ok(!content.toLowerCase().includes(TOKEN.toLowerCase()), `${file} content`);
      assert.ok(!file.toLowerCase().includes('0123456789abcdef'), `the file name ${file} holds the token`);
    }
    assert.ok(!line.file.toLowerCase().includes('0123456789abcdef'), `the progress line names ${line.file}`);
  });
});

// ---------------------------------------------------------------------------------------
// 4. Atomic writes.

describe('record mode writes files atomically', () => {
  const dir = makeTempDir('agui-mock-atomic-');
  let upstream;
  let recorder;
  before(async () => {
    upstream = await startServer([]);
    recorder = await startRecorder(upstream.url, dir);
  });
  after(() => Promise.all([upstream?.stop(), recorder?.stop()]));

  test('a reader polling the record directory never sees a partial file', async (t) => {
    const seen = new Map(); // content → file, every distinct version read
    const problems = [];
    let reads = 0;
    let polling = true;
    const poll = (async () => {
      while (polling) {
        for (const file of recordings(dir)) {
          let content;
          try {
            content = readFileSync(path.join(dir, file), 'utf8');
          } catch (err) {
            if (err.code === 'ENOENT') continue;
            throw err;
          }
          reads++;
          const lines = content.split('\n');
          const last = lines.at(-2) ?? '';
          if (!content.endsWith('\n')) problems.push(`${file} does not end with a newline`);
          else if (!/^\s*- \{(delay: \d+, )?type: [A-Z_]+.*\}$/.test(last)) problems.push(`${file} ends with ${JSON.stringify(last)}`);
          else if (!content.startsWith('# Recorded by agui-mock')) problems.push(`${file} starts with ${JSON.stringify(lines[0])}`);
          if (!seen.has(content)) seen.set(content, file);
        }
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    })();
    try {
      // Sessions that rewrite the same two files again and again.
      for (let i = 0; i < 6; i++) {
        const conversation = new Conversation(current, { url: recorder.url }); // X-Agui-Mock-Speed stays with the recorder: the upstream keeps its timing
        const first = await conversation.send(MEDIA_MESSAGE, { forwardedProps: MEDIA_PROPS });
        assertCleanRun(first);
        const status = i % 2 ? 'cancelled' : 'resolved';
        const resume = conversation.agent.pendingInterrupts.map((intr) => ({ interruptId: intr.id, status }));
        assertCleanRun(await conversation.continue({ resume }));
        assertCleanRun(await new Conversation(current, { url: recorder.url }).send('showcase'));
      }
      await progressLines(recorder, 18);
    } finally {
      polling = false;
      await poll;
    }
    assert.deepEqual(problems, []);
    t.diagnostic(`${reads} reads, ${seen.size} distinct file versions`);
    assert.ok(seen.size >= 2, `only ${seen.size} versions read`);
    assert.deepEqual(listFiles(dir), recordings(dir), 'no temporary file is left behind');
    assert.equal(recordings(dir).length, 2);

    // Each version read is a whole scenario file on its own.
    const versions = [...seen.entries()];
    for (const [n, [content, file]] of versions.entries()) {
      const snapshot = makeTempDir('agui-mock-snapshot-');
      writeFileSync(path.join(snapshot, path.basename(file)), content);
      await assertValid(snapshot).catch((err) => assert.fail(`version ${n + 1} of ${file}: ${err.message}`));
    }
  });
});

// ---------------------------------------------------------------------------------------
// 5. Upstream failures, as HttpAgent sees them.

describe('record mode when the upstream fails', () => {
  test('a refused connection answers 502 upstream_unreachable: onRunFailed, nothing recorded', async () => {
    const dir = makeTempDir('agui-mock-refused-');
    const recorder = await startRecorder(`http://127.0.0.1:${await closedPort()}`, dir);
    try {
      for (const client of CLIENTS) {
        const run = await new Conversation(client, { url: recorder.url }).send('hello');
        assert.ok(run.failure, `${client.label}: onRunFailed was called`);
        assert.equal(run.rejection, run.failure);
        assert.equal(run.failure.status, 502);
        assert.equal(run.failure.payload.error, 'upstream_unreachable');
        assert.match(run.failure.payload.message, /connection refused/);
        assert.deepEqual(run.events, []);
      }
      assert.deepEqual(listFiles(dir), []);
      assert.deepEqual(progress(recorder), []);
    } finally {
      await recorder.stop();
    }
  });

  test("the upstream's 401 passes through with its answer; nothing recorded", async () => {
    const dir = makeTempDir('agui-mock-unauthorized-');
    const upstream = await startFakeUpstream((req, res) => {
      res.writeHead(401, { 'Content-Type': 'application/json', 'WWW-Authenticate': 'Bearer' });
      res.end('{"error":"invalid_api_key"}');
    });
    const recorder = await startRecorder(upstream.url, dir);
    try {
      for (const client of CLIENTS) {
        const run = await new Conversation(client, { url: recorder.url, headers: { Authorization: 'Bearer wrong' } }).send('hello');
        assert.ok(run.failure, `${client.label}: onRunFailed was called`);
        assert.equal(run.failure.status, 401);
        assert.equal(run.failure.payload.error, 'upstream_error');
        assert.match(run.failure.payload.message, /401 Unauthorized: \{"error":"invalid_api_key"\}/);
      }
      assert.equal(upstream.requests.length, 2);
      assert.deepEqual(listFiles(dir), []);
    } finally {
      await Promise.all([recorder.stop(), upstream.close()]);
    }
  });

  test('a stream cut mid-way ends with RUN_ERROR upstream_stream_broken; the recording goes to .incomplete/', async () => {
    const dir = makeTempDir('agui-mock-cut-');
    const upstream = await startFakeUpstream((req, res) => {
      beginStream(res);
      for (const event of textRun(req.body, ['Half ', 'a sentence', ' never finished.']).slice(0, 4)) writeEvent(res, event);
      setTimeout(() => res.destroy(), 30); // the connection drops mid-message
    });
    const recorder = await startRecorder(upstream.url, dir);
    try {
      const run = await new Conversation(current, { url: recorder.url }).send('tell me something');
      assert.equal(run.failure, undefined, `${run.failure}`);
      assert.deepEqual(
        run.events.map((e) => e.type),
        ['RUN_STARTED', 'TEXT_MESSAGE_START', 'TEXT_MESSAGE_CONTENT', 'TEXT_MESSAGE_CONTENT', 'RUN_ERROR'],
      );
      const error = run.events.at(-1);
      assert.equal(error.code, 'upstream_stream_broken');
      assert.match(error.message, /broke off/);

      const [line] = await progressLines(recorder, 1);
      assert.match(line.outcome, /^INCOMPLETE: the upstream stream broke off/);
      const files = listFiles(dir);
      assert.equal(files.length, 1, `${files}`);
      assert.match(files[0], /^\.incomplete\//);
      assert.equal(path.join(dir, files[0]), line.file);
      const content = readFileSync(line.file, 'utf8');
      assert.match(content, /^broken: 'incomplete recording: the upstream stream broke off: .*'$/m);
      assert.match(content, /delta: a sentence\}$/m, 'the events before the break are kept');
      assert.deepEqual(recordings(dir), [], 'nothing a server would load');
    } finally {
      await Promise.all([recorder.stop(), upstream.close()]);
    }
  });

  test('a run posted to a route the loaded scenarios declare goes to the same path upstream, and is matched by it', async () => {
    const dir = makeTempDir('agui-mock-route-');
    const upstream = await startFakeUpstream();
    const recorder = await startRecorder(upstream.url, dir);
    try {
      const run = await new Conversation(current, { url: recorder.url, route: '/agentic_chat' }).send('hi there');
      assertCleanRun(run);
      assert.equal(upstream.requests[0].path, '/agentic_chat');
      await progressLines(recorder, 1);
      const [{ content }] = readAll(dir);
      assert.match(content, /^ {2}route: \/agentic_chat$/m);
    } finally {
      await Promise.all([recorder.stop(), upstream.close()]);
    }
  });

  test('a run posted to a path no scenario declares is proxied too', async () => {
    const dir = makeTempDir('agui-mock-any-route-');
    const upstream = await startFakeUpstream();
    const recorder = await startRecorder(upstream.url, dir);
    try {
      const run = await new Conversation(current, { url: recorder.url, route: '/api/copilotkit' }).send('hi there');
      assert.equal(run.failure, undefined, `${run.failure?.message}`);
      assert.equal(upstream.requests[0]?.path, '/api/copilotkit');
    } finally {
      await Promise.all([recorder.stop(), upstream.close()]);
    }
  });
});

// ---------------------------------------------------------------------------------------
// 6. serve --record-missing.

/**
 * A request no scenario answers is proxied to the upstream and recorded; once the
 * recording is loaded, the same request is answered from it without the upstream.
 */
async function assertMissRecordedThenReplayed(server, upstream) {
  const before = upstream.requests.length;
  const missed = await new Conversation(current, { url: server.url, speed: null }).send('what is new?');
  assertCleanRun(missed);
  assert.deepEqual(streamedTexts(missed.events), ['Hello from upstream.']);
  assert.equal(upstream.requests.length, before + 1);
  const [line] = await progressLines(server, 1);
  assert.equal(line.outcome, 'complete');
  const id = readFileSync(line.file, 'utf8').match(/^id: (.+)$/m)[1];

  await waitForScenario(server, id);
  const replayed = await new Conversation(current, { url: server.url, speed: null }).send('what is new?');
  assertCleanRun(replayed);
  assert.deepEqual(canonical(replayed.events), canonical(missed.events));
  assert.equal(upstream.requests.length, before + 1, 'the replay did not reach the upstream');
  assert.equal(progress(server).length, 1, 'nothing more was recorded');
}

describe('serve --record-missing', () => {
  test('records what no scenario answers, then answers the same request from the recording', async () => {
    const dir = makeTempDir('agui-mock-missing-');
    const upstream = await startFakeUpstream();
    const server = await startServer([
      '--no-builtin',
      '--scenarios',
      tenantScenarioDir(),
      '--scenarios',
      dir,
      '--record-missing',
      '--upstream',
      upstream.url,
      '--record-dir',
      dir,
    ]);
    try {
      // A scenario's request is served without the upstream.
      const pong = await new Conversation(current, { url: server.url, route: '/tenant/agent', headers: { 'X-Tenant': 'acme' }, state: { user: { signedIn: true } } }).send('ping');
      assertCleanRun(pong);
      assert.deepEqual(streamedTexts(pong.events), ['pong']);
      assert.equal(upstream.requests.length, 0);

      await assertMissRecordedThenReplayed(server, upstream);
    } finally {
      await Promise.all([server.stop(), upstream.close()]);
    }
  });

  test('as the README runs it: without -no-builtin, a record directory of its own, and misses recorded and replayed', async () => {
    const dir = makeTempDir('agui-mock-missing-own-');
    const upstream = await startFakeUpstream();
    const server = await startServer(['--scenarios', tenantScenarioDir(), '--record-missing', '--upstream', upstream.url, '--record-dir', dir]);
    try {
      // Your scenarios answer their own requests...
      const pong = await new Conversation(current, { url: server.url, route: '/tenant/agent', headers: { 'X-Tenant': 'acme' }, state: { user: { signedIn: true } } }).send('ping');
      assertCleanRun(pong);
      assert.equal(upstream.requests.length, 0);

      // ...and the built-in scenarios are left out, so a miss reaches the agent and is
      // recorded; the record directory, outside every scenario directory, is served too.
      await assertMissRecordedThenReplayed(server, upstream);
    } finally {
      await Promise.all([server.stop(), upstream.close()]);
    }
  });
});
