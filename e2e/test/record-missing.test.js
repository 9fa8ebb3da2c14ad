// (r) serve --record-missing records only what its scenarios do not answer, and then
// answers the same request from the recording.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, describe, test } from 'node:test';
import { assertCleanRun, CLIENTS, Conversation } from './clients.js';
import { tenantScenarioDir } from './fixtures.js';
import { makeTempDir, startServer } from './harness.js';
import { canonical, progress, progressLines, startFakeUpstream, waitForScenario } from './recording.js';
import { streamedTexts } from './threads.js';

const [current] = CLIENTS;

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
