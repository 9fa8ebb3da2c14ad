// (r) Record mode against a hostile or broken upstream, with the real HttpAgent: events
// whose data spans several lines, redirects, credentials in what the agent sends, and a
// run longer than a recording keeps.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { assertCleanRun, CLIENTS, Conversation } from './clients.js';
import { makeTempDir } from './harness.js';
import { beginStream, listFiles, recordings, startFakeUpstream, startRecorder, startReplay, textRun, writeEvent } from './recording.js';
import { streamedTexts } from './threads.js';

const [current] = CLIENTS;

const RECORDED_RUN = /^recorded run \S+ of thread \S+: \d+ events in \S+, (?:complete|INCOMPLETE: .*), (nothing|\d+ secrets?) redacted → (.+)$/;

/** Resolves with the recorder's next count progress lines, parsed into {redacted, file}. */
async function progressLines(recorder, count) {
  const parse = () => recorder.output.map((line) => RECORDED_RUN.exec(line)).filter(Boolean);
  await recorder.waitForOutput(() => parse().length >= count, 5_000);
  return parse().map(([, redacted, file]) => ({ redacted: parseInt(redacted, 10) || 0, file }));
}

/** Writes one SSE frame carrying event as pretty-printed JSON, one data: line per line. */
function writeMultiLine(res, event) {
  const lines = JSON.stringify({ timestamp: Date.now(), ...event }, null, 1).split('\n');
  res.write(`${lines.map((line) => `data: ${line}`).join('\n')}\n\n`);
}

describe('record mode with a hostile or broken upstream', () => {
  test('an event whose data spans several lines reaches each client whole, and is recorded', async () => {
    const dir = makeTempDir('agui-mock-multiline-');
    const upstream = await startFakeUpstream((req, res) => {
      beginStream(res);
      for (const event of textRun(req.body, ['Split ', 'over lines.'])) writeMultiLine(res, event);
      res.end();
    });
    const recorder = await startRecorder(upstream.url, dir);
    try {
      for (const client of CLIENTS) {
        const run = await new Conversation(client, { url: recorder.url }).send(`lines for ${client.label}`);
        assertCleanRun(run);
        assert.deepEqual(streamedTexts(run.events), ['Split over lines.'], client.label);
      }
      await progressLines(recorder, CLIENTS.length);
      assert.equal(recordings(dir).length, CLIENTS.length);
    } finally {
      await Promise.all([recorder.stop(), upstream.close()]);
    }
    const replay = await startReplay(dir);
    try {
      const run = await new Conversation(current, { url: replay.url }).send(`lines for ${current.label}`);
      assertCleanRun(run);
      assert.deepEqual(streamedTexts(run.events), ['Split over lines.']);
    } finally {
      await replay.stop();
    }
  });

  test('a redirect is not followed: 502 upstream_redirect naming the Location, and the other host gets nothing', async () => {
    const dir = makeTempDir('agui-mock-redirect-');
    const elsewhere = await startFakeUpstream();
    const upstream = await startFakeUpstream((req, res) => {
      res.writeHead(307, { Location: `${elsewhere.url}/collect${req.path}` });
      res.end();
    });
    const recorder = await startRecorder(upstream.url, dir);
    try {
      for (const client of CLIENTS) {
        const run = await new Conversation(client, { url: recorder.url, headers: { 'X-Api-Key': 'for-the-agent-only', Authorization: 'Bearer for-the-agent-only' } }).send('hello');
        assert.ok(run.failure, `${client.label}: onRunFailed was called`);
        assert.equal(run.failure.status, 502);
        assert.equal(run.failure.payload.error, 'upstream_redirect');
        assert.ok(run.failure.payload.message.includes(`${elsewhere.url}/collect/agui/chat`), run.failure.payload.message);
        assert.deepEqual(run.events, []);
      }
      assert.equal(upstream.requests.length, CLIENTS.length);
      assert.deepEqual(elsewhere.requests, [], 'the redirect was followed with the client\'s headers');
      assert.deepEqual(listFiles(dir), []);
    } finally {
      await Promise.all([recorder.stop(), upstream.close(), elsewhere.close()]);
    }
  });

  test('credentials in state and split across text deltas reach the client, not the recording', async () => {
    const dir = makeTempDir('agui-mock-credentials-');
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';
    const state = { api_key: 'state-key-1', session: { password: 'hunter2pass' }, max_tokens: 4096 };
    const upstream = await startFakeUpstream((req, res) => {
      beginStream(res);
      const [started, ...rest] = textRun(req.body, [`Your token is ${jwt.slice(0, 30)}`, jwt.slice(30, 60), `${jwt.slice(60)}, keep it.`]);
      for (const event of [started, { type: 'STATE_SNAPSHOT', snapshot: state }, ...rest]) writeEvent(res, event);
      res.end();
    });
    const recorder = await startRecorder(upstream.url, dir);
    try {
      const run = await new Conversation(current, { url: recorder.url }).send('my credentials please');
      assertCleanRun(run);
      assert.deepEqual(run.agent.state, state);
      assert.deepEqual(streamedTexts(run.events), [`Your token is ${jwt}, keep it.`]);
      const [line] = await progressLines(recorder, 1);
      assert.equal(line.redacted, 3);
      const content = readFileSync(line.file, 'utf8');
      for (const secret of ['state-key-1', 'hunter2pass', jwt.slice(0, 20), jwt.slice(30, 60), jwt.slice(-20)]) {
        assert.ok(!content.includes(secret), `the recording holds ${secret}:\n${content}`);
      }
      assert.match(content, /max_tokens: 4096/);
    } finally {
      await Promise.all([recorder.stop(), upstream.close()]);
    }
    const replay = await startReplay(dir);
    try {
      const run = await new Conversation(current, { url: replay.url }).send('my credentials please');
      assertCleanRun(run);
      assert.deepEqual(run.agent.state, { api_key: '[REDACTED]', session: { password: '[REDACTED]' }, max_tokens: 4096 });
      assert.deepEqual(streamedTexts(run.events), ['Your token is [REDACTED], keep it.']);
    } finally {
      await replay.stop();
    }
  });

  test('a run past --record-max-bytes is relayed whole, not recorded, and the log says why', async () => {
    const dir = makeTempDir('agui-mock-limit-');
    const deltas = Array.from({ length: 300 }, (_, i) => `${String(i).padStart(4, '0')} ${'x'.repeat(95)} `);
    const upstream = await startFakeUpstream((req, res) => {
      beginStream(res);
      for (const event of textRun(req.body, deltas)) writeEvent(res, event);
      res.end();
    });
    const recorder = await startRecorder(upstream.url, dir, ['--record-max-bytes', '8192']);
    try {
      const run = await new Conversation(current, { url: recorder.url }).send('go on and on');
      assertCleanRun(run);
      assert.deepEqual(streamedTexts(run.events), [deltas.join('')]);
      const warning = await recorder.waitForLog((r) => r.level === 'WARN' && /recording limit/.test(r.msg), 5_000);
      assert.equal(warning.thread, run.agent.threadId);
      assert.equal(warning.limit, '8192 bytes of events (-record-max-bytes)');
      assert.deepEqual(listFiles(dir), []);
      assert.equal(recorder.output.filter((l) => l.startsWith('recorded run')).length, 0);
    } finally {
      await Promise.all([recorder.stop(), upstream.close()]);
    }
  });
});
