// (r) Record mode: `agui-mock record` proxies runs to a real agent, relays its events as
// they arrive and writes each session as a scenario file. Here agui-mock records
// agui-mock: whole sessions, with the real HttpAgent 1.0.0 and 0.0.58, then replayed by a
// server that knows nothing but the recordings. (The other record-*.test.js files:
// aimock as the upstream, secrets, atomic writes, failing upstreams, serve
// --record-missing, fidelity, ids, hostile upstreams, keep-alive, stop, trace.)
//
// Timing tolerance of a replay: every event must arrive within 50 ms + 20 % of its
// offset from the run's first event, compared with the same offset while recording, and
// the first event no later than that allowance after its recorded offset from the request
// (see compareTiming in recording.js). The worst deviation measured is printed as a test
// diagnostic.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { assertCleanRun, CLIENTS, Conversation } from './clients.js';
import { makeTempDir, startServer } from './harness.js';
import {
  assertValid,
  canonical,
  compareTiming,
  listFiles,
  MEDIA_MESSAGE,
  MEDIA_PROPS,
  progress,
  progressLines,
  readAll,
  recordings,
  sessionRecord,
  startRecorder,
  startReplay,
  TIMING_RATIO,
  TIMING_SLACK_MS,
} from './recording.js';
import { streamedTexts, streamedToolCalls } from './threads.js';

const [current, legacy] = CLIENTS;

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
