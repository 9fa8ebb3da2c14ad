// (r) Record mode writes each recording atomically: a reader never sees part of one.

import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { assertCleanRun, CLIENTS, Conversation } from './clients.js';
import { makeTempDir, startServer } from './harness.js';
import { assertValid, listFiles, MEDIA_MESSAGE, MEDIA_PROPS, progressLines, recordings, startRecorder } from './recording.js';

const [current] = CLIENTS;

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
