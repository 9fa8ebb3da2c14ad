// (r) Record mode keeps credentials and secrets out of what it writes.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertCleanRun, CLIENTS, Conversation } from './clients.js';
import { makeTempDir } from './harness.js';
import {
  assertValid,
  beginStream,
  progress,
  progressLines,
  readAll,
  recordings,
  startFakeUpstream,
  startRecorder,
  startReplay,
  textRun,
  writeEvent,
} from './recording.js';
import { CANCEL_PATH, HISTORY_PATH, postJSON, streamedTexts } from './threads.js';

const [current] = CLIENTS;

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
