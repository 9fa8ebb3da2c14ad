// (r) Record mode against a hostile or broken upstream, with the real HttpAgent: events
// whose data spans several lines, redirects, credentials in what the agent sends (split
// across the deltas of any kind of stream too), and a run longer than a recording keeps.

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

/**
 * assertCleanRun for a run streamed in chunks: the events the client makes of them carry
 * no timestamp of their own.
 */
function assertFinishedClean(run) {
  assert.equal(run.failure, undefined, `onRunFailed was called: ${run.failure}`);
  assert.equal(run.rejection, undefined, `runAgent rejected: ${run.rejection}`);
  assert.deepEqual(run.consoleCalls, [], 'the client wrote warnings or errors');
  assert.equal(run.events.at(-1)?.type, 'RUN_FINISHED');
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

  test('secrets split across reasoning, THINKING and id-less chunk deltas, one character each, reach each client, not the recording', async () => {
    const dir = makeTempDir('agui-mock-split-');
    const key = 'sk-proj-abcdefghijklmnopqrstuvwxyz012345';
    const token = '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';
    const upstream = await startFakeUpstream((req, res) => {
      beginStream(res);
      const [started, ...rest] = textRun(req.body, []);
      // 1.x clients think in reasoning chunks; 0.0.x clients in THINKING text messages
      const thinking = req.body.protocolVersion
        ? [{ type: 'REASONING_START', messageId: 'r0' },
          { type: 'REASONING_MESSAGE_CHUNK', messageId: 'r1', delta: `I will use ${key.slice(0, 12)}` },
          { type: 'REASONING_MESSAGE_CHUNK', delta: `${key.slice(12)} for this.` },
          { type: 'REASONING_END', messageId: 'r0' }]
        : [{ type: 'THINKING_START' }, { type: 'THINKING_TEXT_MESSAGE_START' },
          { type: 'THINKING_TEXT_MESSAGE_CONTENT', delta: `I will use ${key.slice(0, 12)}` },
          { type: 'THINKING_TEXT_MESSAGE_CONTENT', delta: `${key.slice(12)} for this.` },
          { type: 'THINKING_TEXT_MESSAGE_END' }, { type: 'THINKING_END' }];
      // only the first chunk names the message; the token then comes one character each
      const chunks = [{ type: 'TEXT_MESSAGE_CHUNK', messageId: 'up-msg-1', role: 'assistant', delta: `Your token: ${token[0]}` },
        ...[...`${token.slice(1)} (keep it)`].map((c) => ({ type: 'TEXT_MESSAGE_CHUNK', delta: c }))];
      for (const event of [started, ...thinking, ...chunks, rest.at(-1)]) writeEvent(res, event);
      res.end();
    });
    const recorder = await startRecorder(upstream.url, dir);
    try {
      for (const client of CLIENTS) {
        const run = await new Conversation(client, { url: recorder.url }).send(`split secrets for ${client.label}`);
        assertFinishedClean(run);
        assert.deepEqual(streamedTexts(run.events), [`Your token: ${token} (keep it)`], client.label);
      }
      const lines = await progressLines(recorder, CLIENTS.length);
      for (const line of lines) {
        assert.equal(line.redacted, 2, 'the recorder counts the key and the token');
        const content = readFileSync(line.file, 'utf8');
        // one-character deltas would meet again in a reader's join: check the deltas joined too
        const deltas = [...content.matchAll(/delta: "?((?:[^"\\\n]|\\.)*)"?[,}]/g)].map((m) => m[1]).join('');
        for (const part of [key.slice(3, 12), key.slice(12, 24), token.slice(4, 12), token.slice(20, 30)]) {
          assert.ok(!content.includes(part) && !deltas.includes(part), `the recording holds ${part}:\n${content}`);
        }
      }
    } finally {
      await Promise.all([recorder.stop(), upstream.close()]);
    }
    const replay = await startReplay(dir);
    try {
      for (const client of CLIENTS) {
        const run = await new Conversation(client, { url: replay.url }).send(`split secrets for ${client.label}`);
        assertFinishedClean(run);
        assert.deepEqual(streamedTexts(run.events), ['Your token: [REDACTED] (keep it)'], client.label);
      }
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
