// A recorded directory replayed beside the built-in scenarios: a request the recording
// answers plays it and is told nothing, while one it misses — played by the built-in
// video-mixcut-search — gets a warning in the log naming that scenario and the
// recording with why it missed, and the journal entry carries the same near miss.
//
// The session is recorded from a stand-in agent through `agui-mock record`, and every
// run is sent by the official @ag-ui/client's HttpAgent.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { HttpAgent } from '@ag-ui/client';
import { journalEntry, newTestId, TEST_ID_HEADER } from './admin.js';
import { makeTempDir, startServer } from './harness.js';
import { recordings, startFakeUpstream, startRecorder } from './recording.js';

const RECORDED = 'Search for ocean wave videos';
const MISSED = 'Search for mountain videos';
const PROPS = { scenario_name: 'video-mixcut' };
const WARNING = 'a built-in scenario answered: no scenario of yours matches this run';

/** Sends message as a one-message conversation on its own thread; resolves with the agent. */
async function send(url, headers, threadId, message) {
  const agent = new HttpAgent({ url: `${url}/agui/chat`, headers, threadId });
  agent.messages = [{ id: `${threadId}-m1`, role: 'user', content: message }];
  await agent.runAgent({ forwardedProps: PROPS });
  return agent;
}

describe('replaying a recorded directory beside the built-in scenarios', () => {
  let upstream;
  let mock;
  const dir = makeTempDir('agui-mock-replay-fallback-');
  const testId = newTestId('replay-fallback');
  const headers = { [TEST_ID_HEADER]: testId, 'X-Agui-Mock-Speed': '0' };

  before(async () => {
    upstream = await startFakeUpstream();
    const recorder = await startRecorder(upstream.url, dir);
    try {
      await send(recorder.url, {}, 'recorded', RECORDED);
      await recorder.waitForOutput((line) => line.startsWith('recorded run '), 5_000);
    } finally {
      await recorder.stop();
    }
    assert.equal(recordings(dir).length, 1, 'one recording');
    mock = await startServer(['--scenarios', dir]); // the built-in scenarios too, as by default
  });
  after(async () => {
    await mock?.stop();
    await upstream?.close();
  });

  test('the recording answers its request, and nothing is said', async () => {
    const agent = await send(mock.url, headers, 'answered', RECORDED);
    assert.ok(agent.messages.some((m) => m.role === 'assistant' && m.content === 'Hello from upstream.'), 'the recording replayed');
    const entry = await journalEntry(mock, (e) => e.threadId === 'answered', { testId });
    assert.match(entry.scenario, /^rec-search-for-ocean-wave-videos-/);
    assert.equal(entry.nearMisses, undefined);
  });

  test('a request it misses is played by a built-in scenario, and the log and the journal say so', async () => {
    await send(mock.url, headers, 'missed', MISSED);
    const warning = await mock.waitForLog((r) => r.level === 'WARN' && r.msg === WARNING);
    assert.equal(warning.scenario, 'video-mixcut-search');
    assert.equal(warning.thread, 'missed');
    assert.match(warning.nearest, /^rec-search-for-ocean-wave-videos-\w+ \(.+\.yaml:\d+:\d+\): message "Search for mountain videos" does not match /);

    const entry = await journalEntry(mock, (e) => e.threadId === 'missed', { testId });
    assert.equal(entry.scenario, 'video-mixcut-search');
    assert.equal(entry.nearMisses.length, 1);
    assert.match(entry.nearMisses[0].id, /^rec-search-for-ocean-wave-videos-/);
    assert.match(entry.nearMisses[0].reasons.join(' '), /message "Search for mountain videos" does not match/);

    const warned = mock.logs.filter((r) => r.level === 'WARN' && r.msg === WARNING).map((r) => r.thread);
    assert.deepEqual(warned, ['missed'], 'the run the recording answered is not warned of');
  });
});
