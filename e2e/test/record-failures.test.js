// (r) Record mode when the upstream fails, as HttpAgent sees it; and the routes it proxies.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { assertCleanRun, CLIENTS, Conversation } from './clients.js';
import { makeTempDir } from './harness.js';
import {
  beginStream,
  closedPort,
  listFiles,
  progress,
  progressLines,
  readAll,
  recordings,
  startFakeUpstream,
  startRecorder,
  textRun,
  writeEvent,
} from './recording.js';

const [current] = CLIENTS;

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
